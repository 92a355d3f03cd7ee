/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * cchog: a hostile user's client of ctab's socket, for the tests of
 * tests/hostile/.  It opens n connections to the socket and holds them,
 * sending nothing (or, with -d, a frame's length and then one byte a
 * second of a request it never finishes), and never reads unless the
 * daemon has written or closed.  A connect the socket's queue turns away
 * is tried again until each of the n has connected once; connections
 * the daemon closes are not made again.  What became of them is kept in
 * statusfile, written anew at each change:
 *
 *	tried T connected C open O busy B dropped D ready R
 *
 * T connects tried, C that succeeded, O held now, B answered (the
 * daemon's refusal, its first word then "busy"), D closed by the daemon
 * with no answer (its deadline), R 1 once each of the n was tried at
 * least once.  The first refusal's message is kept in statusfile.busy.
 * SIGTERM ends it.
 *
 *	cchog [-d] socket n statusfile
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t	 done;
static const char		*status;
static long			 tried, connected, nopen, busy, dropped;
static int			 ready;

static void
onterm(int sig)
{
	(void)sig;
	done = 1;
}

static void
say(void)
{
	char	 tmp[4096];
	FILE	*f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", status);
	if ((f = fopen(tmp, "w")) == NULL)
		err(1, "%s", tmp);
	fprintf(f, "tried %ld connected %ld open %ld busy %ld dropped %ld "
	    "ready %d\n", tried, connected, nopen, busy, dropped, ready);
	if (fclose(f) == EOF || rename(tmp, status) == -1)
		err(1, "%s", status);
}

/* The daemon's answer: its word and message, kept the first time. */
static void
keep_busy(const char *buf, size_t len)
{
	char	 path[4096];
	FILE	*f;

	if (busy > 1 || len <= 4)
		return;
	snprintf(path, sizeof(path), "%s.busy", status);
	if ((f = fopen(path, "w")) == NULL)
		return;
	fwrite(buf + 4, 1, len - 4, f);
	fclose(f);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int
main(int argc, char *argv[])
{
	struct sockaddr_un	 sun;
	struct pollfd		*pfd;
	const char		*errstr;
	unsigned char		 head[4] = { 0, 0, 3, 232 };	/* 1000 */
	char			 buf[2048];
	int64_t			 lastdrip = 0;
	long long		 n;
	long			 i, next = 0;
	ssize_t			 r;
	int			 ch, drip = 0, changed, fd;

	while ((ch = getopt(argc, argv, "d")) != -1) {
		if (ch != 'd')
			goto usage;
		drip = 1;
	}
	argc -= optind;
	argv += optind;
	if (argc != 3) {
usage:
		fprintf(stderr, "usage: cchog [-d] socket n statusfile\n");
		return (2);
	}
	n = strtonum(argv[1], 1, 100000, &errstr);
	if (errstr != NULL)
		errx(2, "n %s: %s", argv[1], errstr);
	status = argv[2];
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlcpy(sun.sun_path, argv[0], sizeof(sun.sun_path)) >=
	    sizeof(sun.sun_path))
		errx(2, "%s: too long", argv[0]);
	signal(SIGTERM, onterm);
	signal(SIGPIPE, SIG_IGN);
	if ((pfd = calloc((size_t)n, sizeof(*pfd))) == NULL)
		err(1, NULL);
	for (i = 0; i < n; i++)
		pfd[i].fd = -2;		/* not yet connected */
	say();
	while (!done) {
		changed = 0;
		/* Each not yet connected, tried in turn. */
		for (; next < n; next++) {
			if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, 0)) == -1)
				err(1, "socket");
			tried++;
			changed = 1;
			if (connect(fd, (struct sockaddr *)&sun,
			    sizeof(sun)) == -1) {
				close(fd);
				if (errno != EAGAIN)
					err(1, "connect %s", sun.sun_path);
				break;		/* the queue is full */
			}
			connected++;
			nopen++;
			pfd[next].fd = fd;
			pfd[next].events = POLLIN;
			if (drip)
				(void)write(fd, head, sizeof(head));
		}
		if (!ready && (next == n || tried >= n)) {
			ready = 1;
			changed = 1;
		}
		if (drip && now_ms() - lastdrip >= 1000) {
			lastdrip = now_ms();
			for (i = 0; i < next; i++)
				if (pfd[i].fd >= 0)
					(void)write(pfd[i].fd, "x", 1);
		}
		if (poll(pfd, (nfds_t)next, next < n ? 10 : 200) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		for (i = 0; i < next; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r == -1 && errno == EAGAIN)
				continue;
			if (r > 0) {
				busy++;
				keep_busy(buf, (size_t)r);
			} else
				dropped++;
			close(pfd[i].fd);
			pfd[i].fd = -1;
			nopen--;
			changed = 1;
		}
		if (changed)
			say();
	}
	say();
	return (0);
}
