/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabsrv.c: the daemon answers ctab.  The socket is open to all local
 * users; the kernel tells who is calling (SO_PEERCRED), and every rule
 * is checked here, never trusted to ctab: a user reads and changes only
 * their own table (root any), cron.allow and cron.deny are honoured,
 * tables are bounded in size and must parse.  Tables are kept in the
 * store, which commits them before the reply, so a table that ctab
 * reports installed is on every node's next look.
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "parser.h"
#include "store.h"
#include "tabproto.h"
#include "tabsrv.h"

struct tabsrv {
	int		 ts_fd;
	char		*ts_path;
	const char	*ts_allow;
	const char	*ts_deny;
	uid_t		 ts_uid;
};

static int	 listed(const char *, const char *);
static void	 reply(int, const char *, int64_t, const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
static int	 handle(struct tabsrv *, int, struct store *, char *, size_t);

int
tabsrv_open(const char *path, const char *allow, const char *deny,
    struct tabsrv **out, char *errbuf, size_t errlen)
{
	struct sockaddr_un	 sun;
	struct tabsrv		*ts;
	struct stat		 st;
	mode_t			 old;

	*out = NULL;
	if (tab_sockaddr(path, &sun) == -1) {
		snprintf(errbuf, errlen, "%s: socket path too long", path);
		return (-1);
	}
	if ((ts = calloc(1, sizeof(*ts))) == NULL ||
	    (ts->ts_path = strdup(path)) == NULL) {
		snprintf(errbuf, errlen, "%s", strerror(errno));
		free(ts);
		return (-1);
	}
	ts->ts_allow = allow;
	ts->ts_deny = deny;
	ts->ts_uid = geteuid();
	/* Only a socket left by an earlier run may be replaced. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(errbuf, errlen, "%s: exists and is not a "
			    "socket", path);
			goto fail;
		}
		unlink(path);
	}
	if ((ts->ts_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1) {
		snprintf(errbuf, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	old = umask(0111);
	if (bind(ts->ts_fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		umask(old);
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		close(ts->ts_fd);
		goto fail;
	}
	umask(old);
	if (listen(ts->ts_fd, 16) == -1) {
		snprintf(errbuf, errlen, "%s: listen: %s", path,
		    strerror(errno));
		close(ts->ts_fd);
		unlink(path);
		goto fail;
	}
	*out = ts;
	return (0);
fail:
	free(ts->ts_path);
	free(ts);
	return (-1);
}

void
tabsrv_close(struct tabsrv *ts)
{
	if (ts == NULL)
		return;
	close(ts->ts_fd);
	unlink(ts->ts_path);
	free(ts->ts_path);
	free(ts);
}

int
tabsrv_fd(const struct tabsrv *ts)
{
	return (ts->ts_fd);
}

/* Is name on a line of its own in file?  A missing file: -1. */
static int
listed(const char *file, const char *name)
{
	char	*buf, *line, *p, *end;
	size_t	 len;
	int	 found = 0;

	if (file == NULL || file_read(file, 1024 * 1024, &buf, &len) == -1)
		return (-1);
	for (p = buf; p != NULL && !found; p = end) {
		if ((end = strchr(p, '\n')) != NULL)
			*end++ = '\0';
		line = p + strspn(p, " \t");
		line[strcspn(line, " \t\r")] = '\0';
		found = strcmp(line, name) == 0;
	}
	free(buf);
	return (found);
}

int
tab_allowed(const char *name, const char *allow, const char *deny)
{
	int	 l;

	if (strcmp(name, "root") == 0)
		return (1);
	if ((l = listed(allow, name)) != -1)
		return (l);
	if ((l = listed(deny, name)) != -1)
		return (!l);
	return (1);
}

static void
reply(int fd, const char *word, int64_t version, const char *fmt, ...)
{
	struct tabmsg	 m;
	char		 msg[512];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tab_set(&m, word, NULL, version, msg);
	(void)tab_send(fd, &m, TAB_SERVER_MS);
}

/* The store's answer to a failed call, credential-free by contract. */
#define STORE_REPLY(fd, e) \
	reply((fd), (e)->se_class == STORE_CONFLICT ? "conflict" : "error", \
	    0, "%s", (e)->se_msg)

static int
handle(struct tabsrv *ts, int fd, struct store *st, char *changed,
    size_t changedlen)
{
	struct tabmsg		 req, cur;
	struct ucred		 cred;
	struct passwd		*pw;
	struct crontab		*ct = NULL;
	struct store_error	 se;
	socklen_t		 credlen = sizeof(cred);
	char			 caller[64], *text = NULL;
	const char		*user;
	int64_t			 version, newv;
	size_t			 i;
	int			 rv = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) == -1)
		return (0);
	if ((pw = getpwuid(cred.uid)) == NULL) {
		reply(fd, "denied", 0, "your uid %lu has no user name",
		    (unsigned long)cred.uid);
		return (0);
	}
	strlcpy(caller, pw->pw_name, sizeof(caller));
	if (tab_recv(fd, &req, TAB_SERVER_MS) == -1) {
		if (errno == EFBIG)
			reply(fd, "invalid", 0, "table is larger than %d "
			    "bytes", TAB_MAXBYTES);
		return (0);
	}
	user = req.tm_user[0] == '\0' ? caller : req.tm_user;
	memset(&cur, 0, sizeof(cur));

	if (cred.uid != 0 && strcmp(user, caller) != 0) {
		reply(fd, "denied", 0, "must be privileged to use -u");
		goto done;
	}
	if (ts->ts_uid != 0 && cred.uid != ts->ts_uid) {
		reply(fd, "denied", 0, "this clustercron runs as uid %lu and "
		    "keeps only that user's table", (unsigned long)ts->ts_uid);
		goto done;
	}
	if (!tab_allowed(caller, ts->ts_allow, ts->ts_deny)) {
		reply(fd, "denied", 0, "You (%s) are not allowed to use this "
		    "program (ctab)", caller);
		log_info("(%s) AUTH (crontab command not allowed)", caller);
		goto done;
	}
	if (getpwnam(user) == NULL) {
		reply(fd, "invalid", 0, "user %s unknown", user);
		goto done;
	}
	if (st == NULL) {
		reply(fd, "error", 0, "the store cannot be reached; try again "
		    "later");
		goto done;
	}

	/* Reading and removing need the table as it stands. */
	if (strcmp(req.tm_word, "get") == 0 ||
	    strcmp(req.tm_word, "del") == 0) {
		if (store_table_get(st, user, &text, &version, &se) == -1) {
			STORE_REPLY(fd, &se);
			goto done;
		}
		if (text == NULL) {
			reply(fd, "none", version, "no crontab for %s", user);
			goto done;
		}
	}
	if (strcmp(req.tm_word, "get") == 0) {
		tab_set(&cur, "ok", user, version, NULL);
		cur.tm_body = text;
		cur.tm_bodylen = strlen(text);
		(void)tab_send(fd, &cur, TAB_SERVER_MS);
		log_info("(%s) LIST (%s)", caller, user);
	} else if (strcmp(req.tm_word, "put") == 0) {
		if (req.tm_bodylen > TAB_MAXBYTES || (req.tm_bodylen > 0 &&
		    memchr(req.tm_body, '\0', req.tm_bodylen) != NULL)) {
			reply(fd, "invalid", 0, "table is larger than %d "
			    "bytes or holds a NUL byte", TAB_MAXBYTES);
			goto done;
		}
		if (tab_count_lines(req.tm_body, req.tm_bodylen) >
		    TAB_MAXLINES) {
			reply(fd, "invalid", 0, "table has more than %d lines",
			    TAB_MAXLINES);
			goto done;
		}
		if (crontab_parse("table", req.tm_body == NULL ? "" :
		    req.tm_body, req.tm_bodylen, 0, &ct) == -1) {
			reply(fd, "error", 0, "out of memory");
			goto done;
		}
		if (ct->ct_nerr > 0) {
			for (i = 0; ct->ct_diag[i].d_warning; i++)
				;
			reply(fd, "invalid", 0, "line %zu, column %zu: %s%s",
			    ct->ct_diag[i].d_line, ct->ct_diag[i].d_col,
			    ct->ct_diag[i].d_msg, ct->ct_nerr > 1 ?
			    " (and more errors)" : "");
			goto done;
		}
		if (store_table_put(st, user, req.tm_body == NULL ? "" :
		    req.tm_body, req.tm_version, &newv, &se) == -1) {
			STORE_REPLY(fd, &se);
			goto done;
		}
		reply(fd, "ok", newv, "installed");
		log_info("(%s) REPLACE (%s)", caller, user);
		rv = 1;
	} else if (strcmp(req.tm_word, "del") == 0) {
		if (store_table_put(st, user, NULL, req.tm_version, &newv,
		    &se) == -1) {
			STORE_REPLY(fd, &se);
			goto done;
		}
		reply(fd, "ok", newv, "removed");
		log_info("(%s) DELETE (%s)", caller, user);
		rv = 1;
	} else
		reply(fd, "invalid", 0, "unknown request");
done:
	if (rv == 1)
		strlcpy(changed, user, changedlen);
	crontab_free(ct);
	free(text);
	tab_clear(&req);
	return (rv);
}

int
tabsrv_serve(struct tabsrv *ts, struct store *st, char *changed,
    size_t changedlen)
{
	int	 fd, rv;

	if ((fd = accept4(ts->ts_fd, NULL, NULL, SOCK_CLOEXEC |
	    SOCK_NONBLOCK)) == -1)
		return (0);
	rv = handle(ts, fd, st, changed, changedlen);
	close(fd);
	return (rv);
}
