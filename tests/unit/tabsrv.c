/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabsrv.c: the daemon's side of ctab against a real SQLite store:
 * each request, each refusal, and the rules a caller cannot get round
 * by writing a client of their own; the local copies of the tables.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "tabproto.h"
#include "tabsrv.h"
#include "tap.h"

static char		 dir[] = "/tmp/cctabsrv.XXXXXX";
static void		 copies(const char *);
static void		 at_requests(const char *);
static void		 at_access(void);
static void		 side_by_side(void);
static void		 at_nobody(const char *, int64_t, const char *,
			    char *, size_t, char *, size_t);
static char		 sock[256];
static struct tabsrv	*ts;
static struct store	*st;
static char		 changed[64];
static int		 nchanged;
static int		 serve(void);

static void
on_changed(const char *owner, void *arg)
{
	(void)arg;
	strlcpy(changed, owner, sizeof(changed));
}

/*
 * Let the server run, as the daemon's loop does, until it has taken a
 * connection and is done with it: 1 when a table changed, else 0.
 */
static int
serve(void)
{
	struct pollfd	 pfd[64];
	size_t		 n;
	int		 i, took = 0;

	changed[0] = '\0';
	for (i = 0; i < 200; i++) {
		n = tabsrv_pollfds(ts, pfd, 1);
		if (poll(pfd, n, 50) == -1)
			break;
		took |= pfd[0].revents != 0;
		(void)tabsrv_io(ts, pfd, n, st, clock_mono(), on_changed,
		    NULL);
		if (took && tabsrv_conns(ts) == 0)
			break;
	}
	return (changed[0] != '\0');
}

/* Connect, send, let the server answer, read the reply. */
static int
exchange(struct tabmsg *req, struct tabmsg *rep)
{
	struct sockaddr_un	 sun;
	int			 fd;

	tab_sockaddr(sock, &sun);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    tab_send(fd, req, 1000) == -1)
		return (-1);
	changed[0] = '\0';
	nchanged = serve();
	if (tab_recv(fd, rep, 1000) == -1) {
		close(fd);
		return (-1);
	}
	close(fd);
	return (0);
}

static void
request(const char *word, const char *user, int64_t version,
    const char *body, struct tabmsg *rep)
{
	struct tabmsg	 req;

	tab_set(&req, word, user, version, NULL);
	req.tm_body = (char *)body;
	req.tm_bodylen = body == NULL ? 0 : strlen(body);
	if (exchange(&req, rep) == -1) {
		memset(rep, 0, sizeof(*rep));
		strlcpy(rep->tm_word, "(no reply)", sizeof(rep->tm_word));
	}
}

/* As uid nobody, ask for root's table: the kernel, not ctab, says who. */
static void
as_nobody(void)
{
	struct sockaddr_un	 sun;
	struct tabmsg		 req, rep;
	pid_t			 pid;
	int			 fd, status, p[2];
	char			 word[16] = "";

	if (pipe(p) == -1 || (pid = fork()) == -1) {
		ok(0, "fork");
		return;
	}
	if (pid == 0) {
		close(p[0]);
		if (setgid(65534) == -1 || setuid(65534) == -1)
			_exit(2);
		tab_sockaddr(sock, &sun);
		tab_set(&req, "get", "root", 0, NULL);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
		    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
		    tab_send(fd, &req, 1000) == -1 ||
		    tab_recv(fd, &rep, 5000) == -1)
			_exit(3);
		(void)write(p[1], rep.tm_word, strlen(rep.tm_word));
		(void)write(p[1], "\n", 1);
		(void)write(p[1], rep.tm_msg, strlen(rep.tm_msg));
		_exit(0);
	}
	close(p[1]);
	/* The child connects and sends before the server looks. */
	{
		struct pollfd	 pfd = { tabsrv_fd(ts), POLLIN, 0 };

		(void)poll(&pfd, 1, 5000);
	}
	nchanged = serve();
	waitpid(pid, &status, 0);
	{
		char	 buf[600];
		ssize_t	 n = read(p[0], buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = '\0';
		if (strchr(buf, '\n') != NULL) {
			*strchr(buf, '\n') = '\0';
			strlcpy(word, buf, sizeof(word));
		}
		is_str(word, "denied", "another user's table is refused");
		ok(strstr(buf + strlen(buf) + 1, "privileged") != NULL,
		    "... saying -u needs privilege");
	}
	close(p[0]);
	is_int(nchanged, 0, "... and nothing changed");
}

/* One turn of the daemon's loop at instant now: poll, then the server. */
static int
turn(int64_t now)
{
	struct pollfd	 pfd[64];
	size_t		 n;

	n = tabsrv_pollfds(ts, pfd, 1);
	if (poll(pfd, n, 100) == -1)
		return (-1);
	return (tabsrv_io(ts, pfd, n, st, now, on_changed, NULL));
}

static int
client(void)
{
	struct sockaddr_un	 sun;
	int			 fd;

	tab_sockaddr(sock, &sun);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return (-1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/*
 * Clients side by side: none waited on, a deadline each, a few per uid
 * and all together (tabsrv_io(), tabsrv_expire(), tabsrv_limits()).
 * The instants passed are made up, as the daemon's loop passes its own.
 */
static void
side_by_side(void)
{
	struct tabmsg	 req, rep;
	struct tabbuf	 b;
	struct pollfd	 pfd;
	struct store_error se;
	int64_t		 now = 1000000, when, version;
	int		 idle, slow, other, i;
	char		 c, *big;

	tabsrv_limits(ts, 2, 3);
	ok((idle = client()) != -1 && (slow = client()) != -1, "two clients");
	for (i = 0; i < 10 && tabsrv_conns(ts) < 2; i++)
		(void)turn(now);
	is_int((int)tabsrv_conns(ts), 2, "... both accepted, neither sending");
	ok(tabsrv_next(ts, &when) && when == now + TAB_CONN_MS,
	    "... each with its deadline");

	/* A third of the same uid is refused, at once. */
	tab_set(&req, "get", NULL, 0, NULL);
	other = client();
	ok(other != -1 && tab_send(other, &req, 1000) == 0, "a third");
	(void)turn(now);
	ok(tab_recv(other, &rep, 1000) == 0, "... is answered");
	is_str(rep.tm_word, "busy", "... busy");
	ok(strstr(rep.tm_msg, "you have 2 connections open") != NULL,
	    "... saying why: %s", rep.tm_msg);
	tab_clear(&rep);
	close(other);
	is_int((int)tabsrv_conns(ts), 2, "... and not kept");

	/* A request a byte at a time, served as it comes. */
	memset(&b, 0, sizeof(b));
	ok(tab_frame(&req, &b) == 0, "a request's frame");
	for (i = 0; i < (int)b.b_len; i++) {
		if (write(slow, b.b_p + i, 1) != 1)
			break;
		(void)turn(now + i);
	}
	free(b.b_p);
	pfd.fd = slow;
	pfd.events = POLLIN;
	ok(poll(&pfd, 1, 1000) == 1 && tab_recv(slow, &rep, 1000) == 0,
	    "... answered once whole, the idle one still open");
	is_str(rep.tm_word, "none", "... the answer to the request");
	tab_clear(&rep);
	close(slow);
	(void)turn(now);
	is_int((int)tabsrv_conns(ts), 1, "... its connection done");

	/* All together: the total, whoever asks. */
	tabsrv_limits(ts, 0, 1);
	other = client();
	ok(other != -1 && tab_send(other, &req, 1000) == 0 &&
	    turn(now) >= 0 && tab_recv(other, &rep, 1000) == 0 &&
	    strcmp(rep.tm_word, "busy") == 0 &&
	    strstr(rep.tm_msg, "has 1 connections open, the most it keeps") !=
	    NULL, "over the total: busy: %s", rep.tm_msg);
	tab_clear(&rep);
	close(other);

	/* The deadline: not a moment before. */
	tabsrv_expire(ts, now + TAB_CONN_MS - 1);
	is_int((int)tabsrv_conns(ts), 1, "the idle one stays to its deadline");
	tabsrv_expire(ts, now + TAB_CONN_MS);
	is_int((int)tabsrv_conns(ts), 0, "... and is closed there");
	ok(read(idle, &c, 1) == 0, "... its client sees the end");
	close(idle);
	tabsrv_limits(ts, TAB_CONN_PER_UID, TAB_CONN_MAX);

	/* A reply larger than the socket takes, never read. */
	big = xmalloc(5000 * 160 + 1);
	for (i = 0; i < 5000; i++) {
		memset(big + i * 160, 'x', 160);
		big[i * 160] = '#';
		big[i * 160 + 159] = '\n';
	}
	big[5000 * 160] = '\0';
	request("get", "", 0, NULL, &rep);
	ok(store_table_put(st, "root", big, rep.tm_version, &version,
	    &se) == 0, "a table of 800 kB");
	tab_clear(&rep);
	other = client();
	ok(other != -1 && tab_send(other, &req, 1000) == 0, "... asked for");
	for (i = 0; i < 10 && turn(now) == 0; i++)
		;
	is_int((int)tabsrv_conns(ts), 1,
	    "... and not read: the reply waits, the server does not");
	tabsrv_expire(ts, now + TAB_CONN_MS);
	is_int((int)tabsrv_conns(ts), 0, "... closed at its deadline");
	close(other);
	request("del", "", version, NULL, &rep);
	is_str(rep.tm_word, "ok", "... and removed");
	tab_clear(&rep);
	free(big);
}

/* The local copies of the stored tables, for ctab -l (tabsrv_copies()). */
static void
copies(const char *self)
{
	struct store_table	 t[3];
	struct tabsrv		*cs;
	struct stat		 sb;
	char			 cdir[300], path[400], sock2[300], link[300];
	char			 errbuf[256], *text = NULL;
	size_t			 len;
	ino_t			 ino;
	FILE			*f;

	snprintf(cdir, sizeof(cdir), "%s/copies", dir);
	snprintf(sock2, sizeof(sock2), "%s/sock2", dir);
	/* What an earlier run left: a stale copy and a temporary file. */
	if (mkdir(cdir, 0700) == -1) {
		ok(0, "mkdir %s", cdir);
		return;
	}
	snprintf(path, sizeof(path), "%s/ghost", cdir);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	snprintf(path, sizeof(path), "%s/.ghost.new", cdir);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	ok(tabsrv_open(sock2, NULL, NULL, cdir, &cs, errbuf,
	    sizeof(errbuf)) == 0, "a server that keeps copies");

	memset(t, 0, sizeof(t));
	t[0].t_owner = (char *)self;
	t[0].t_text = "* * * * * one\n";
	t[0].t_version = 1;
	t[1].t_owner = "no-such-user-here";
	t[1].t_text = "* * * * * nobody\n";
	t[2].t_owner = "../escape";
	t[2].t_text = "* * * * * out\n";
	tabsrv_copies(cs, t, 3);
	snprintf(path, sizeof(path), "%s/%s", cdir, self);
	if (file_read(path, 4096, &text, &len) == -1)
		text = NULL;
	is_str(text, t[0].t_text, "the owner's copy holds the table");
	free(text);
	ok(stat(path, &sb) == 0 && sb.st_uid == getuid() &&
	    (sb.st_mode & 07777) == 0400, "... the owner's alone to read");
	ino = sb.st_ino;
	ok(stat(cdir, &sb) == 0 && (sb.st_mode & 07777) ==
	    (getuid() == 0 ? 0711 : 0700),
	    "... in a directory others may only pass through");
	snprintf(path, sizeof(path), "%s/no-such-user-here", cdir);
	ok(access(path, F_OK) == -1, "no copy for an owner unknown here");
	snprintf(path, sizeof(path), "%s/escape", dir);
	ok(access(path, F_OK) == -1, "... nor for a name that is a path");
	snprintf(path, sizeof(path), "%s/ghost", cdir);
	ok(access(path, F_OK) == -1, "a stale copy is removed");
	snprintf(path, sizeof(path), "%s/.ghost.new", cdir);
	ok(access(path, F_OK) == -1, "... and a temporary file left behind");

	snprintf(path, sizeof(path), "%s/%s", cdir, self);
	tabsrv_copies(cs, t, 1);
	ok(stat(path, &sb) == 0 && sb.st_ino == ino,
	    "the same version is not written again");
	t[0].t_text = "* * * * * two\n";
	t[0].t_version = 2;
	tabsrv_copies(cs, t, 1);
	if (file_read(path, 4096, &text, &len) == -1)
		text = NULL;
	is_str(text, t[0].t_text, "a new version replaces the copy");
	free(text);
	tabsrv_copies(cs, t, 0);
	ok(access(path, F_OK) == -1, "a table gone takes its copy along");

	/* A directory others may write to is not used. */
	t[0].t_version = 3;
	chmod(cdir, 0777);
	tabsrv_copies(cs, t, 1);
	ok(access(path, F_OK) == -1, "a directory others may write: unused");
	chmod(cdir, 0700);
	tabsrv_copies(cs, t, 1);
	ok(access(path, F_OK) == 0, "... until it is put right");
	tabsrv_close(cs);

	/* Nor is one reached through a symbolic link. */
	snprintf(link, sizeof(link), "%s/link", dir);
	if (symlink(cdir, link) == -1) {
		ok(0, "symlink %s", link);
		return;
	}
	ok(tabsrv_open(sock2, NULL, NULL, link, &cs, errbuf,
	    sizeof(errbuf)) == 0, "a server whose copies are a symlink");
	t[0].t_text = "* * * * * four\n";
	t[0].t_version = 4;
	tabsrv_copies(cs, t, 1);
	if (file_read(path, 4096, &text, &len) == -1)
		text = NULL;
	is_str(text, "* * * * * two\n", "... writes nothing through it");
	free(text);
	tabsrv_close(cs);
}

int
main(void)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct tabmsg		 rep;
	char			 url[300], errbuf[256], allow[300], deny[300];
	char			 self[64], *big;
	const char		*table = "# mine\n*/5 * * * * echo hi\n";
	FILE			*f;
	size_t			 i;
	int64_t			 v;

	/* Others pass through to the socket, as under /run. */
	if (mkdtemp(dir) == NULL || chmod(dir, 0711) == -1)
		return (99);
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(url, sizeof(url), "sqlite:%s/store.db", dir);
	memset(&sc, 0, sizeof(sc));
	sc.sc_url = url;
	sc.sc_node = "test";
	if (store_open(&sc, &st, &se) == -1) {
		printf("Bail out! store_open: %s\n", se.se_msg);
		return (99);
	}
	ok(tabsrv_open(sock, NULL, NULL, NULL, &ts, errbuf, sizeof(errbuf)) == 0,
	    "listen on %s", sock);
	strlcpy(self, getpwuid(getuid())->pw_name, sizeof(self));

	request("get", "", 0, NULL, &rep);
	is_str(rep.tm_word, "none", "no table yet");
	is_str(rep.tm_msg, (snprintf(errbuf, sizeof(errbuf),
	    "no crontab for %s", self), errbuf), "... said as crontab says it");

	request("put", "", 0, table, &rep);
	is_str(rep.tm_word, "ok", "install a table");
	v = rep.tm_version;
	ok(v > 0, "... and it has a version");
	is_int(nchanged, 1, "... the daemon is told to reload");
	is_str(changed, self, "... the caller's table");
	tab_clear(&rep);

	request("get", self, 0, NULL, &rep);
	is_str(rep.tm_word, "ok", "read it back by name");
	is_str(rep.tm_body, table, "... the same text");
	is_int(rep.tm_version, v, "... the same version");
	tab_clear(&rep);

	request("put", "", 0, "* * * * * stale\n", &rep);
	is_str(rep.tm_word, "conflict", "a put over an old version is refused");
	is_int(nchanged, 0, "... and changes nothing");
	request("get", "", 0, NULL, &rep);
	is_str(rep.tm_body, table, "... the table is untouched");
	tab_clear(&rep);

	request("put", "", v, "* * * * * ok\n61 * * * * bad\n", &rep);
	is_str(rep.tm_word, "invalid", "a table with errors is refused");
	ok(strncmp(rep.tm_msg, "line 2, column 1: ", 18) == 0,
	    "... naming line and column: %s", rep.tm_msg);
	request("get", "", 0, NULL, &rep);
	is_str(rep.tm_body, table, "... the table is untouched");
	tab_clear(&rep);

	big = xmalloc(TAB_MAXLINES * 2 + 3);
	for (i = 0; i < TAB_MAXLINES + 1; i++)
		memcpy(big + 2 * i, "#\n", 2);
	big[2 * i] = '\0';
	request("put", "", v, big, &rep);
	is_str(rep.tm_word, "invalid", "more than %d lines refused",
	    TAB_MAXLINES);
	ok(strstr(rep.tm_msg, "lines") != NULL, "... saying so: %s",
	    rep.tm_msg);
	free(big);

	/* Fair shares: at most max-entries entries a table. */
	tabsrv_max_entries(ts, 2);
	request("put", "", v, "* * * * * a\n* * * * * b\n* * * * * c\n",
	    &rep);
	is_str(rep.tm_word, "invalid", "a table over max-entries is refused");
	is_str(rep.tm_msg, "table has 3 entries, more than the 2 allowed "
	    "(max-entries)", "... naming the limit");
	is_int(nchanged, 0, "... and changes nothing");
	request("get", "", 0, NULL, &rep);
	is_str(rep.tm_body, table, "... the table is untouched");
	tab_clear(&rep);
	request("put", "", v, "# two entries and a comment\n* * * * * a\n"
	    "* * * * * b\n", &rep);
	is_str(rep.tm_word, "ok", "a table at the limit is installed");
	v = rep.tm_version;
	request("put", "", v, table, &rep);
	is_str(rep.tm_word, "ok", "... and the table again");
	v = rep.tm_version;
	tabsrv_max_entries(ts, 0);

	request("put", "no-such-user-here", 0, table, &rep);
	is_str(rep.tm_word, getuid() == 0 ? "invalid" : "denied",
	    "an unknown user's table is refused");

	/*
	 * The table of a user this machine no longer has: root may list
	 * and remove it, nothing else.
	 */
	if (getuid() == 0) {
		int64_t			 gv;

		if (store_table_put(st, "no-such-user-here", table, 0, &gv,
		    &se) == -1)
			diag("store_table_put: %s", se.se_msg);
		request("get", "no-such-user-here", 0, NULL, &rep);
		is_str(rep.tm_word, "ok", "root lists a gone user's table");
		is_str(rep.tm_body, table, "... its text");
		tab_clear(&rep);
		request("open", "no-such-user-here", 0, NULL, &rep);
		is_str(rep.tm_word, "invalid", "... but may not edit it");
		request("del", "no-such-user-here", gv, NULL, &rep);
		is_str(rep.tm_word, "ok", "root removes it");
		is_str(changed, "no-such-user-here", "... the daemon is told");
		request("get", "no-such-user-here", 0, NULL, &rep);
		is_str(rep.tm_word, "none", "... it is gone");
	} else
		for (i = 0; i < 6; i++)
			tap_skip("not root: a gone user's table is root's");

	request("frob", "", 0, NULL, &rep);
	is_str(rep.tm_word, "invalid", "an unknown request is refused");

	request("del", "", v, NULL, &rep);
	is_str(rep.tm_word, "ok", "remove the table");
	is_int(nchanged, 1, "... the daemon is told");
	request("get", "", 0, NULL, &rep);
	is_str(rep.tm_word, "none", "... it is gone");
	ok(rep.tm_version > v, "... its version still grows");
	request("del", "", rep.tm_version, NULL, &rep);
	is_str(rep.tm_word, "none", "removing nothing says so");

	/* With the store unreachable, the caller is told, nothing lost. */
	{
		struct store	*keep = st;

		st = NULL;
		request("put", "", 0, table, &rep);
		is_str(rep.tm_word, "error", "store down: an error");
		ok(strstr(rep.tm_msg, "try again") != NULL,
		    "... that says to try again: %s", rep.tm_msg);
		st = keep;
	}

	/* cron.allow and cron.deny, as crontab(1) reads them. */
	snprintf(allow, sizeof(allow), "%s/cron.allow", dir);
	snprintf(deny, sizeof(deny), "%s/cron.deny", dir);
	is_int(tab_allowed("alice", allow, deny), 1,
	    "neither file: everyone may");
	f = fopen(deny, "w");
	fputs("bob\n  alice  \n", f);
	fclose(f);
	is_int(tab_allowed("alice", allow, deny), 0, "listed in cron.deny");
	is_int(tab_allowed("carol", allow, deny), 1, "not listed in cron.deny");
	f = fopen(allow, "w");
	fputs("carol\n", f);
	fclose(f);
	is_int(tab_allowed("carol", allow, deny), 1, "listed in cron.allow");
	is_int(tab_allowed("dave", allow, deny), 0,
	    "cron.allow exists: others may not");
	is_int(tab_allowed("root", allow, deny), 1, "root always may");

	/*
	 * A file that exists but cannot be read shuts everyone but root
	 * out, as Debian's crontab: only "does not exist" opens the door.
	 */
	{
		char	 why[600], loop[300];

		unlink(allow);
		snprintf(loop, sizeof(loop), "%s/cron.loop", dir);
		if (symlink(loop, loop) == -1)
			diag("symlink: %s", strerror(errno));
		is_int(tab_allowed_why("carol", loop, deny, why,
		    sizeof(why)), -1, "cron.allow a symbolic link loop: "
		    "carol, listed nowhere, is refused");
		ok(strstr(why, loop) != NULL && strstr(why,
		    strerror(ELOOP)) != NULL, "... naming the file and why: "
		    "%s", why);
		is_int(tab_allowed("root", loop, deny), 1,
		    "... root still may");
		f = fopen(allow, "w");
		fputs("carol\n", f);
		fclose(f);
		is_int(tab_allowed_why("carol", allow, loop, why,
		    sizeof(why)), -1, "cron.deny unreadable: refused, though "
		    "cron.allow names carol");
		unlink(allow);
		unlink(loop);
		if (mkdir(allow, 0755) == -1)
			diag("mkdir: %s", strerror(errno));
		is_int(tab_allowed_why("carol", allow, deny, why,
		    sizeof(why)), -1, "cron.allow a directory: refused");
		ok(strstr(why, strerror(EISDIR)) != NULL, "... %s", why);
		rmdir(allow);
		f = fopen(allow, "w");
		fputs("dave\ncarol\n", f);
		fputc('\0', f);
		fclose(f);
		is_int(tab_allowed_why("carol", allow, deny, why,
		    sizeof(why)), -1, "cron.allow with a NUL byte, no list "
		    "of names: refused, though it names carol");
		ok(strstr(why, "NUL") != NULL, "... %s", why);
		snprintf(loop, sizeof(loop), "%s/cron.none", dir);
		if (symlink(loop, allow) == -1 && (unlink(allow) == -1 ||
		    symlink(loop, allow) == -1))
			diag("symlink: %s", strerror(errno));
		unlink(deny);
		is_int(tab_allowed("carol", allow, deny), 1,
		    "a dangling link does not exist: everyone may");
		unlink(allow);
	}

	if (getuid() == 0)
		as_nobody();
	else
		tap_skip("not root: no second user to ask as");

	/* A broken frame gets no answer and breaks nothing. */
	{
		struct sockaddr_un	 sun;
		int			 fd;

		tab_sockaddr(sock, &sun);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		connect(fd, (struct sockaddr *)&sun, sizeof(sun));
		(void)write(fd, "\0\0\0\5junk!", 9);
		nchanged = serve();
		is_int(nchanged, 0, "a malformed request changes nothing");
		close(fd);
		request("get", "", 0, NULL, &rep);
		is_str(rep.tm_word, "none", "... and the server still answers");
	}

	side_by_side();
	copies(self);
	at_access();
	at_requests(self);

	tabsrv_close(ts);
	ok(access(sock, F_OK) == -1, "closing removes the socket");
	store_close(st);
	snprintf(errbuf, sizeof(errbuf), "rm -rf %s", dir);
	(void)system(errbuf);
	return (tap_done());
}

/* An atsubmit body: the fields ctab sends, with extra ones appended. */
static void
at_body(struct tabbuf *b, time_t due, const char *key, const char *extra)
{
	char	 token[40];

	memset(b, 0, sizeof(*b));
	snprintf(token, sizeof(token), "tok%013u%016x", arc4random(),
	    arc4random());
	tab_field_num(b, "due", due);
	tab_field_str(b, "queue", "a");
	tab_field_str(b, "token", token);
	tab_field_str(b, "cwd", "/tmp");
	tab_field_str(b, "env", "HOME=/root");
	tab_field_str(b, "env", "NL=a\nb");
	tab_field_num(b, "umask", 022);
	if (key != NULL)
		tab_field_str(b, "key", key);
	tab_field_str(b, "cmd", "echo hi\n");
	if (extra != NULL) {
		b->b_p = xreallocarray(b->b_p, b->b_len + strlen(extra) + 1, 1);
		memcpy(b->b_p + b->b_len, extra, strlen(extra) + 1);
		b->b_len += strlen(extra);
	}
}

static void
at_send(const char *word, int64_t version, const struct tabbuf *b,
    struct tabmsg *rep)
{
	struct tabmsg	 req;

	tab_set(&req, word, NULL, version, NULL);
	if (b != NULL) {
		req.tm_body = b->b_p;
		req.tm_bodylen = b->b_len;
	}
	if (exchange(&req, rep) == -1) {
		memset(rep, 0, sizeof(*rep));
		strlcpy(rep->tm_word, "(no reply)", sizeof(rep->tm_word));
	}
}

/*
 * As uid nobody, one at request: the reply's word and message.  The
 * kernel says who asks, so a client of one's own gets no further.
 */
static void
at_nobody(const char *word, int64_t version, const char *body, char *wout,
    size_t wlen, char *mout, size_t mlen)
{
	struct sockaddr_un	 sun;
	struct tabmsg		 req, rep;
	struct pollfd		 pfd;
	pid_t			 pid;
	int			 fd, status, p[2];
	char			 buf[700];
	ssize_t			 n;

	*wout = *mout = '\0';
	if (pipe(p) == -1 || (pid = fork()) == -1)
		return;
	if (pid == 0) {
		close(p[0]);
		if (setgid(65534) == -1 || setuid(65534) == -1)
			_exit(2);
		tab_sockaddr(sock, &sun);
		tab_set(&req, word, NULL, version, NULL);
		req.tm_body = (char *)body;
		req.tm_bodylen = body == NULL ? 0 : strlen(body);
		if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
		    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
		    tab_send(fd, &req, 1000) == -1 ||
		    tab_recv(fd, &rep, 5000) == -1)
			_exit(3);
		(void)write(p[1], rep.tm_word, strlen(rep.tm_word));
		(void)write(p[1], "\n", 1);
		(void)write(p[1], rep.tm_msg, strlen(rep.tm_msg));
		_exit(0);
	}
	close(p[1]);
	pfd.fd = tabsrv_fd(ts);
	pfd.events = POLLIN;
	(void)poll(&pfd, 1, 5000);
	nchanged = serve();
	waitpid(pid, &status, 0);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	if (strchr(buf, '\n') == NULL)
		return;
	*strchr(buf, '\n') = '\0';
	strlcpy(wout, buf, wlen);
	strlcpy(mout, buf + strlen(buf) + 1, mlen);
}

/* at.allow and at.deny, as at(1) reads them. */
static void
at_access(void)
{
	char	 allow[300], deny[300], w[32], m[512];
	FILE	*f;

	snprintf(allow, sizeof(allow), "%s/at.allow", dir);
	snprintf(deny, sizeof(deny), "%s/at.deny", dir);
	is_int(at_allowed(0, "root", allow, deny), 1,
	    "at: root always may");
	is_int(at_allowed(1000, "alice", allow, deny), 0,
	    "at: neither file: only root may");
	f = fopen(deny, "w");
	fclose(f);
	is_int(at_allowed(1000, "alice", allow, deny), 1,
	    "at: an empty at.deny: everyone may");
	f = fopen(deny, "w");
	fputs("bob\n alice\nalice \n", f);
	fclose(f);
	is_int(at_allowed(1000, "alice", allow, deny), 1,
	    "at: a name with blanks around it is another name");
	is_int(at_allowed(1001, "bob", allow, deny), 0,
	    "at: listed in at.deny");
	f = fopen(allow, "w");
	fclose(f);
	is_int(at_allowed(1002, "carol", allow, deny), 0,
	    "at: an empty at.allow: nobody but root");
	f = fopen(allow, "w");
	fputs("carol\nbob", f);
	fclose(f);
	is_int(at_allowed(1002, "carol", allow, deny), 1,
	    "at: listed in at.allow");
	is_int(at_allowed(1001, "bob", allow, deny), 1,
	    "at: at.allow wins over at.deny, a last line without newline "
	    "too");
	is_int(at_allowed(1000, "alice", allow, deny), 0,
	    "at: at.allow exists: others may not");
	unlink(allow);
	unlink(deny);
	if (mkdir(deny, 0700) == 0) {
		is_int(at_allowed(1000, "alice", allow, deny), 0,
		    "at: an at.deny that cannot be read: nobody but root");
		rmdir(deny);
	}

	/* Through the socket, as another user. */
	if (getuid() != 0) {
		tap_skip("not root: no second user to ask as");
		return;
	}
	tabsrv_at_files(ts, allow, deny);
	at_nobody("atcheck", 0, NULL, w, sizeof(w), m, sizeof(m));
	is_str(w, "refused", "at: neither file: nobody is refused");
	ok(strstr(m, "at.allow") != NULL, "... naming the files: %s", m);
	at_nobody("atlist", 0, NULL, w, sizeof(w), m, sizeof(m));
	is_str(w, "refused", "at: ... for every request");
	f = fopen(deny, "w");
	fclose(f);
	at_nobody("atcheck", 0, NULL, w, sizeof(w), m, sizeof(m));
	is_str(w, "ok", "at: an empty at.deny lets nobody in");
	unlink(deny);
}

/* Each at request, what it changes and what it refuses. */
static void
at_requests(const char *self)
{
	struct tabmsg		 rep;
	struct tabbuf		 b;
	struct store_error	 se;
	struct store_atjob	*j;
	const char		*p, *end, *val;
	char			 name[300], w[32], m[512], *body;
	size_t			 len, n;
	int64_t			 id, id2, ids[3];
	int			 i, won, jobs;

	at_send("atcheck", 0, NULL, &rep);
	is_str(rep.tm_word, "ok", "at: root may use at");

	at_body(&b, 2000000000, NULL, NULL);
	at_send("atsubmit", 0, &b, &rep);
	is_str(rep.tm_word, "ok", "atsubmit: stored");
	is_str(rep.tm_msg, "new", "... new");
	id = rep.tm_version;
	ok(id > 0, "... with its number, %lld", (long long)id);
	ok(rep.tm_body != NULL && strstr(rep.tm_body, "due 10\n2000000000\n")
	    != NULL && strstr(rep.tm_body, "state 7\nwaiting\n") != NULL,
	    "... and its time and state");
	tab_clear(&rep);
	is_int(nchanged, 0, "... no table changed");
	ok(store_at_get(st, id, &j, &se) == 0 && j != NULL &&
	    strcmp(j->a_owner, self) == 0 && j->a_envlen == 17 &&
	    memcmp(j->a_env, "HOME=/root\0NL=a\nb", 17) == 0 &&
	    j->a_cmdlen == 8 && strcmp(j->a_cwd, "/tmp") == 0,
	    "... owned by the caller, as sent");
	store_atjobs_free(j, 1);
	/* Sent again, as a client that timed out would: the same job. */
	at_send("atsubmit", 0, &b, &rep);
	ok(strcmp(rep.tm_word, "ok") == 0 && rep.tm_version == id &&
	    strcmp(rep.tm_msg, "new") == 0, "atsubmit: the same submission "
	    "again is the same job");
	tab_clear(&rep);
	free(b.b_p);

	at_body(&b, 2000000100, "nightly", NULL);
	at_send("atsubmit", 0, &b, &rep);
	id2 = rep.tm_version;
	tab_clear(&rep);
	free(b.b_p);
	at_body(&b, 2000000999, "nightly", NULL);
	at_send("atsubmit", 0, &b, &rep);
	ok(strcmp(rep.tm_word, "ok") == 0 && rep.tm_version == id2 &&
	    strcmp(rep.tm_msg, "existing") == 0 && rep.tm_body != NULL &&
	    strstr(rep.tm_body, "2000000100") != NULL, "atsubmit: a key "
	    "already taken names its job, and its time");
	tab_clear(&rep);
	free(b.b_p);

	/* Refused input: one line naming what is wrong, nothing stored. */
	{
		static const struct {
			const char	*extra;
			const char	*key;
			const char	*msg;
		} bad[] = {
			{ "retries 3\n101\n", NULL, "malformed field" },
			{ "backoff 3\n5x,\n", NULL, "back-off 5x,: column 1" },
			{ "env 5\nA B=c\n", NULL,
			    "environment variable A B=c" },
			{ "env 12\nLD_PRELOAD=x\n", NULL, "LD_PRELOAD" },
			{ "mail 1\n7\n", NULL, "malformed field" },
			{ "bogus 1\nx\n", NULL, "malformed field" },
			{ "queue 1\n=\n", NULL, "malformed field" },
			{ "lost 1\n2\n", NULL, "malformed field" },
			{ "cwd 8\nrelative\n", NULL, "malformed field" },
			{ "due 2\n-1\n", NULL, "malformed field" },
			{ "due 3\n1x", NULL, "malformed field" },
			{ NULL, "a key", "a key is 1 to 128 printable" },
		};
		size_t	 k;

		if (store_at_list(st, NULL, 1, &j, &n, &se) == -1)
			n = 0;
		store_atjobs_free(j, n);
		jobs = (int)n;
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			at_body(&b, 2000000000, bad[k].key, bad[k].extra);
			at_send("atsubmit", 0, &b, &rep);
			ok(strcmp(rep.tm_word, "invalid") == 0 &&
			    strstr(rep.tm_msg, bad[k].msg) != NULL,
			    "atsubmit: refused (%s): %s", bad[k].msg,
			    rep.tm_msg);
			tab_clear(&rep);
			free(b.b_p);
		}
		at_send("atsubmit", 0, NULL, &rep);
		ok(strcmp(rep.tm_word, "invalid") == 0 &&
		    strstr(rep.tm_msg, "needs") != NULL, "atsubmit: an empty "
		    "job refused: %s", rep.tm_msg);
		if (store_at_list(st, NULL, 1, &j, &n, &se) == -1)
			n = 0;
		store_atjobs_free(j, n);
		is_int((int)n, jobs, "atsubmit: nothing refused was stored");
	}

	/* atlist: fields per job; all adds the finished. */
	memset(&b, 0, sizeof(b));
	at_send("atlist", 0, NULL, &rep);
	ok(strcmp(rep.tm_word, "ok") == 0 && rep.tm_version == 2,
	    "atlist: two jobs pending");
	p = rep.tm_body;
	end = p == NULL ? NULL : p + rep.tm_bodylen;
	for (i = 0; p != NULL && tab_field_next(&p, end, name, sizeof(name),
	    &val, &len) == 1 && i < 3; )
		if (strcmp(name, "id") == 0)
			(void)tab_field_int(val, len, 0, INT64_MAX, &ids[i++]);
	ok(i == 2 && ids[0] == id && ids[1] == id2, "... by time, each "
	    "starting with its number");
	ok(rep.tm_body != NULL && strstr(rep.tm_body, "owner") != NULL &&
	    strstr(rep.tm_body, "queue 1\na\n") != NULL,
	    "... with owner and queue");
	tab_clear(&rep);

	/* atprint: the script. */
	at_send("atprint", id, NULL, &rep);
	ok(strcmp(rep.tm_word, "ok") == 0 && rep.tm_body != NULL &&
	    strncmp(rep.tm_body, "#!/bin/sh\n", 10) == 0 &&
	    strstr(rep.tm_body, "NL=a\"\n\"b; export NL\n") != NULL &&
	    strstr(rep.tm_body, "\n}\necho hi\n\n") != NULL,
	    "atprint: the job's script");
	tab_clear(&rep);
	at_send("atprint", id + 1000, NULL, &rep);
	snprintf(m, sizeof(m), "Cannot find jobid %lld", (long long)id + 1000);
	ok(strcmp(rep.tm_word, "none") == 0 && strcmp(rep.tm_msg, m) == 0,
	    "atprint: no such job, as at says it: %s", rep.tm_msg);

	/* Another user: neither sees, prints nor removes root's jobs. */
	if (getuid() == 0) {
		/* An empty at.deny: everyone may use at. */
		snprintf(name, sizeof(name), "%s/deny", dir);
		fclose(fopen(name, "w"));
		tabsrv_at_files(ts, "/nonexistent", name);
		at_nobody("atprint", id, NULL, w, sizeof(w), m, sizeof(m));
		ok(strcmp(w, "notowner") == 0 && strstr(m, "Not owner") !=
		    NULL, "atprint: not another's job: %s", m);
		at_nobody("atremove", id, NULL, w, sizeof(w), m, sizeof(m));
		ok(strcmp(w, "notowner") == 0, "atremove: not another's job");
		at_nobody("atlist", 0, NULL, w, sizeof(w), m, sizeof(m));
		ok(strcmp(w, "ok") == 0 && strncmp(m, "0 jobs", 6) == 0,
		    "atlist: another user sees none of root's");
		body = NULL;
		xasprintf(&body, "due 10\n2000000000\nqueue 1\nb\ntoken 32\n"
		    "%032x\ncwd 1\n/\ncmd 2\nid\n", arc4random());
		at_nobody("atsubmit", 0, body, w, sizeof(w), m, sizeof(m));
		is_str(w, "ok", "atsubmit: another user submits");
		free(body);
		tabsrv_at_files(ts, NULL, NULL);
	} else
		tap_skip("not root: no second user to ask as");

	/* atremove: a waiting job; a running one is refused. */
	at_send("atremove", id, NULL, &rep);
	ok(strcmp(rep.tm_word, "ok") == 0, "atremove: removed");
	at_send("atremove", id, NULL, &rep);
	ok(strcmp(rep.tm_word, "finished") == 0 &&
	    strstr(rep.tm_msg, "cancelled already") != NULL,
	    "atremove: again: %s", rep.tm_msg);
	ok(store_at_claim(st, id2, 1, &won, &se) == 0 && won,
	    "atremove: a job is claimed");
	at_send("atremove", id2, NULL, &rep);
	ok(strcmp(rep.tm_word, "running") == 0 &&
	    strstr(rep.tm_msg, "running on test") != NULL,
	    "atremove: a running job is not removed: %s", rep.tm_msg);
	at_send("atremove", 987654, NULL, &rep);
	ok(strcmp(rep.tm_word, "none") == 0 &&
	    strcmp(rep.tm_msg, "Cannot find jobid 987654") == 0,
	    "atremove: no such job: %s", rep.tm_msg);
	at_send("atlist", 0, NULL, &rep);
	ok(rep.tm_body != NULL && strstr(rep.tm_body, "state 7\nrunning\n") !=
	    NULL && strstr(rep.tm_body, "node 4\ntest\n") != NULL,
	    "atlist: the running job, with its node");
	tab_clear(&rep);
	memset(&b, 0, sizeof(b));
	tab_field_num(&b, "all", 1);
	at_send("atlist", 0, &b, &rep);
	ok(rep.tm_body != NULL && strstr(rep.tm_body, "state 9\ncancelled\n")
	    != NULL, "atlist: all: the cancelled one too");
	tab_clear(&rep);
	free(b.b_p);

	/* A limit per user: at most AT_MAXPENDING waiting or running. */
	if (store_at_pending(st, self, &n, &se) == -1)
		n = AT_MAXPENDING;
	for (i = (int)n; i < AT_MAXPENDING; i++) {
		at_body(&b, 2000000000 + i, NULL, NULL);
		at_send("atsubmit", 0, &b, &rep);
		free(b.b_p);
		tab_clear(&rep);
		if (strcmp(rep.tm_word, "ok") != 0)
			break;
	}
	is_int(i, AT_MAXPENDING, "limit: %d jobs pending", AT_MAXPENDING);
	at_body(&b, 2000000000, NULL, NULL);
	at_send("atsubmit", 0, &b, &rep);
	ok(strcmp(rep.tm_word, "conflict") == 0 &&
	    strstr(rep.tm_msg, "pending") != NULL, "limit: one more is "
	    "refused: %s", rep.tm_msg);
	free(b.b_p);

	/* The store down: told to try again, nothing lost. */
	{
		struct store	*keep = st;

		st = NULL;
		at_body(&b, 2000000000, NULL, NULL);
		at_send("atsubmit", 0, &b, &rep);
		ok(strcmp(rep.tm_word, "error") == 0 &&
		    strstr(rep.tm_msg, "try again") != NULL,
		    "store down: atsubmit says to try again");
		free(b.b_p);
		at_send("atcheck", 0, NULL, &rep);
		is_str(rep.tm_word, "ok", "store down: atcheck still answers");
		st = keep;
	}
	at_send("atfrob", 0, NULL, &rep);
	is_str(rep.tm_word, "invalid", "at: an unknown request is refused");
}
