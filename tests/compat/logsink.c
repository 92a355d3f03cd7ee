/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * logsink.c: a syslog daemon for the tests that run Debian's cron, which
 * logs only through syslog(3).  It binds a datagram socket at the path
 * given (the test's private /dev/log) and appends each message it gets
 * to a file, one a line, as syslog(3) sent it ("<78>Nov 25 17:47:49
 * CRON[123]: (root) CMD (true)").  It stops at SIGTERM or SIGINT.
 *
 * usage: logsink socket file
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t	 stop;

static void
onsig(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un	 sun;
	struct sigaction	 sa;
	char			 buf[8192];
	ssize_t			 n;
	int			 s, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: logsink socket file\n");
		return (1);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsig;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND, 0644)) == -1)
		err(1, "%s", argv[2]);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if ((size_t)snprintf(sun.sun_path, sizeof(sun.sun_path), "%s",
	    argv[1]) >= sizeof(sun.sun_path))
		errx(1, "%s: path too long", argv[1]);
	if ((s = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1)
		err(1, "socket");
	(void)unlink(argv[1]);
	if (bind(s, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		err(1, "bind %s", argv[1]);
	if (chmod(argv[1], 0666) == -1)
		err(1, "chmod %s", argv[1]);

	while (!stop) {
		if ((n = recv(s, buf, sizeof(buf) - 1, 0)) == -1) {
			if (errno == EINTR)
				continue;
			err(1, "recv");
		}
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
			n--;
		buf[n++] = '\n';
		if (write(fd, buf, (size_t)n) != n)
			err(1, "%s", argv[2]);
	}
	(void)unlink(argv[1]);
	return (0);
}
