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
static char		 sock[256];
static struct tabsrv	*ts;
static struct store	*st;
static char		 changed[64];
static int		 nchanged;

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
	nchanged = tabsrv_serve(ts, st, changed, sizeof(changed));
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
	nchanged = tabsrv_serve(ts, st, changed, sizeof(changed));
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
		nchanged = tabsrv_serve(ts, st, changed, sizeof(changed));
		is_int(nchanged, 0, "a malformed request changes nothing");
		close(fd);
		request("get", "", 0, NULL, &rep);
		is_str(rep.tm_word, "none", "... and the server still answers");
	}

	copies(self);

	tabsrv_close(ts);
	ok(access(sock, F_OK) == -1, "closing removes the socket");
	store_close(st);
	snprintf(errbuf, sizeof(errbuf), "rm -rf %s", dir);
	(void)system(errbuf);
	return (tap_done());
}
