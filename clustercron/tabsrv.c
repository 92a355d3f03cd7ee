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
 *
 * The daemon also keeps a copy of each user's stored table on local
 * disk, readable by that user alone, so that ctab -l can still show it
 * while the daemon is down (tabsrv_copies()).
 *
 * The daemon's loop never waits on a client: every connection is a
 * small machine of its own, its descriptor non-blocking and in the
 * loop's poll set.  It reads the request's frame as it comes, then,
 * the frame whole, does the work (the store's, bounded by the store,
 * not by the client) and writes the reply as the client takes it.  A
 * connection has TAB_CONN_MS from its accept for all of that, after
 * which it is closed whatever it is doing, so that a client that sends
 * nothing, or a byte now and then, or never reads its reply, holds
 * only its own connection, and only for that long.  A uid has at most
 * TAB_CONN_PER_UID connections open at once and all together
 * TAB_CONN_MAX: one over is answered busy at once and closed, so a
 * user who opens a thousand holds a few, and others still get in.
 * Connections are accepted TABSRV_ACCEPT_TURN a turn, so that a flood
 * of them cannot keep the loop from its other work.  What a flood
 * makes the daemon log (refusals, deadlines) is said once a minute at
 * most, with a count of what was not said.
 */

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "parser.h"
#include "pathnames.h"
#include "store.h"
#include "tabproto.h"
#include "tabsrv.h"

/* A copy written, by owner: its table's version. */
struct tabcopy {
	RB_ENTRY(tabcopy)	 tc_entry;
	char			*tc_owner;
	int64_t			 tc_version;
	int			 tc_seen;
};
RB_HEAD(tabcopies, tabcopy);

/* Connections accepted in one call of tabsrv_io(). */
#define TABSRV_ACCEPT_TURN	16
/* The listening socket's queue of connections not yet accepted. */
#define TABSRV_BACKLOG		64
/* A flood's log lines: one a minute at most. */
#define TABSRV_LOG_MS		60000
/* Out of descriptors: accept nothing for so long. */
#define TABSRV_PAUSE_MS		250

/* One client's connection: reading its request, then writing the reply. */
struct tabconn {
	TAILQ_ENTRY(tabconn)	 c_entry;
	int			 c_fd;
	uid_t			 c_uid;
	int			 c_writing;	/* the reply: in c_out */
	int64_t			 c_deadline;	/* monotonic ms */
	unsigned char		 c_head[4];	/* the frame's length */
	size_t			 c_headlen;
	char			*c_in;		/* the frame, as it comes */
	size_t			 c_inlen;
	size_t			 c_want;	/* the frame's length */
	size_t			 c_incap;
	struct tabbuf		 c_out;
	size_t			 c_outoff;	/* written so far */
};
TAILQ_HEAD(tabconns, tabconn);

/* A kind of log line a flood could repeat: said once a window. */
struct ratelog {
	int64_t		 rl_until;	/* the window's end; 0: none */
	unsigned long	 rl_held;	/* not said in it */
};

struct tabsrv {
	int		 ts_fd;
	char		*ts_path;
	const char	*ts_allow;
	const char	*ts_deny;
	uid_t		 ts_uid;
	char		*ts_copydir;	/* NULL: no copies kept */
	const char	*ts_at_allow;	/* NULL: PATH_AT_ALLOW */
	const char	*ts_at_deny;	/* NULL: PATH_AT_DENY */
	size_t		 ts_maxent;	/* entries a table; 0: no limit */
	struct tabcopies ts_copies;
	int		 ts_swept;	/* stale copies looked for */
	int		 ts_copywarned;	/* a failure said once */
	struct tabconns	 ts_conns;
	size_t		 ts_nconns;
	size_t		 ts_peruid;	/* connections a uid may have */
	size_t		 ts_maxconns;	/* ... and all of them */
	struct tabconn	**ts_polled;	/* by poll slot, after the listener */
	size_t		 ts_npolled;
	size_t		 ts_polledcap;
	int		 ts_listening;	/* the listener in the poll set */
	int64_t		 ts_paused;	/* no accept until; 0: none */
	struct ratelog	 ts_rl_busy;
	struct ratelog	 ts_rl_late;
	struct ratelog	 ts_rl_accept;
};

static int	 listed(const char *, const char *, char *, size_t);
static void	 reply(struct tabbuf *, const char *, int64_t, const char *,
		    ...)
		    __attribute__((__format__ (printf, 4, 5)));
static int	 handle(struct tabsrv *, uid_t, const struct tabmsg *,
		    struct tabbuf *, struct store *, char *, size_t);
static void	 at_request(struct tabsrv *, struct tabbuf *, struct store *,
		    uid_t, const char *, const struct tabmsg *);
static void	 conn_close(struct tabsrv *, struct tabconn *);
static size_t	 conn_count(const struct tabsrv *, uid_t);
static void	 conn_accept(struct tabsrv *, int64_t);
static void	 conn_refuse(struct tabsrv *, int, uid_t, size_t, int64_t);
static int	 conn_read(struct tabsrv *, struct tabconn *, struct store *,
		    void (*)(const char *, void *), void *);
static void	 conn_write(struct tabsrv *, struct tabconn *);
static int	 ratelog_take(struct ratelog *, int64_t);
static int	 ratelog_end(struct ratelog *, int64_t, unsigned long *);
static const char *uid_name(uid_t, char *, size_t);
static int	 tabcopy_cmp(const struct tabcopy *, const struct tabcopy *);
static void	 copy_warn(struct tabsrv *, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
static int	 copy_mkdirs(const char *, mode_t, mode_t);
static int	 copy_dir(struct tabsrv *);
static int	 copy_name_ok(const char *);
static int	 copy_write(struct tabsrv *, int, const char *, const char *);
static void	 copy_remove(struct tabsrv *, int, const char *);
static void	 copy_sweep(struct tabsrv *, int);

RB_PROTOTYPE(tabcopies, tabcopy, tc_entry, tabcopy_cmp);
RB_GENERATE(tabcopies, tabcopy, tc_entry, tabcopy_cmp);

static int
tabcopy_cmp(const struct tabcopy *a, const struct tabcopy *b)
{
	return (strcmp(a->tc_owner, b->tc_owner));
}

int
tabsrv_open(const char *path, const char *allow, const char *deny,
    const char *copydir, struct tabsrv **out, char *errbuf, size_t errlen)
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
	    (ts->ts_path = strdup(path)) == NULL ||
	    (copydir != NULL && *copydir != '\0' &&
	    (ts->ts_copydir = strdup(copydir)) == NULL)) {
		snprintf(errbuf, errlen, "%s", strerror(errno));
		if (ts != NULL)
			free(ts->ts_path);
		free(ts);
		return (-1);
	}
	RB_INIT(&ts->ts_copies);
	TAILQ_INIT(&ts->ts_conns);
	ts->ts_peruid = TAB_CONN_PER_UID;
	ts->ts_maxconns = TAB_CONN_MAX;
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
	if (listen(ts->ts_fd, TABSRV_BACKLOG) == -1) {
		snprintf(errbuf, errlen, "%s: listen: %s", path,
		    strerror(errno));
		close(ts->ts_fd);
		unlink(path);
		goto fail;
	}
	*out = ts;
	return (0);
fail:
	free(ts->ts_copydir);
	free(ts->ts_path);
	free(ts);
	return (-1);
}

void
tabsrv_close(struct tabsrv *ts)
{
	struct tabcopy	*tc, *next;

	if (ts == NULL)
		return;
	while (!TAILQ_EMPTY(&ts->ts_conns))
		conn_close(ts, TAILQ_FIRST(&ts->ts_conns));
	free(ts->ts_polled);
	close(ts->ts_fd);
	unlink(ts->ts_path);
	RB_FOREACH_SAFE(tc, tabcopies, &ts->ts_copies, next) {
		RB_REMOVE(tabcopies, &ts->ts_copies, tc);
		free(tc->tc_owner);
		free(tc);
	}
	free(ts->ts_copydir);
	free(ts->ts_path);
	free(ts);
}

int
tabsrv_fd(const struct tabsrv *ts)
{
	return (ts->ts_fd);
}

/*
 * Is name on a line of its own in file?  1 or 0; -1 when the file does
 * not exist; -2 when it cannot be read or is no list of names (larger
 * than 1 MiB, or holding a NUL byte), with the reason in why.
 */
static int
listed(const char *file, const char *name, char *why, size_t whylen)
{
	char	*buf, *line, *p, *end;
	size_t	 len;
	int	 found = 0;

	if (file == NULL)
		return (-1);
	if (file_read(file, 1024 * 1024, &buf, &len) == -1) {
		if (errno == ENOENT)
			return (-1);
		snprintf(why, whylen, "%s: %s", file, strerror(errno));
		return (-2);
	}
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(why, whylen, "%s: holds a NUL byte: not a list of "
		    "user names", file);
		free(buf);
		return (-2);
	}
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

/*
 * As Debian's crontab judges: a file that exists but cannot be read
 * shuts out everyone but root, whichever file it is, rather than let a
 * broken cron.allow open the door to all.
 */
int
tab_allowed_why(const char *name, const char *allow, const char *deny,
    char *why, size_t whylen)
{
	int	 a, d;

	if (whylen > 0)
		*why = '\0';
	if (strcmp(name, "root") == 0)
		return (1);
	if ((a = listed(allow, name, why, whylen)) == -2 ||
	    (d = listed(deny, name, why, whylen)) == -2)
		return (-1);
	if (a != -1)
		return (a);
	if (d != -1)
		return (!d);
	return (1);
}

int
tab_allowed(const char *name, const char *allow, const char *deny)
{
	char	 why[PATH_MAX + 64];

	return (tab_allowed_why(name, allow, deny, why, sizeof(why)) == 1);
}

/* The reply, into out: the first one made, if more were. */
static void
reply(struct tabbuf *out, const char *word, int64_t version,
    const char *fmt, ...)
{
	struct tabmsg	 m;
	char		 msg[512];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tab_set(&m, word, NULL, version, msg);
	if (out->b_len == 0 && tab_frame(&m, out) == -1)
		out->b_len = 0;
}

/* The store's answer to a failed call, credential-free by contract. */
#define STORE_REPLY(out, e) \
	reply((out), (e)->se_class == STORE_CONFLICT ? "conflict" : "error", \
	    0, "%s", (e)->se_msg)

/*
 * The request req of uid, answered into out.  Returns 1 with the
 * owner's name in changed when a table was replaced or removed, 0
 * otherwise.
 */
static int
handle(struct tabsrv *ts, uid_t uid, const struct tabmsg *reqp,
    struct tabbuf *out, struct store *st, char *changed, size_t changedlen)
{
	const struct tabmsg	 req = *reqp;
	struct tabmsg		 cur;
	struct passwd		*pw;
	struct crontab		*ct = NULL;
	struct store_error	 se;
	char			 caller[64], *text = NULL;
	char			 why[PATH_MAX + 64];
	const char		*user;
	int64_t			 version, newv;
	size_t			 i;
	int			 reading, allowed, rv = 0;

	if ((pw = getpwuid(uid)) == NULL) {
		reply(out, "denied", 0, "your uid %lu has no user name",
		    (unsigned long)uid);
		return (0);
	}
	strlcpy(caller, pw->pw_name, sizeof(caller));
	user = req.tm_user[0] == '\0' ? caller : req.tm_user;
	memset(&cur, 0, sizeof(cur));
	if (strncmp(req.tm_word, "at", 2) == 0) {
		at_request(ts, out, st, uid, caller, &req);
		goto done;
	}

	if (uid != 0 && strcmp(user, caller) != 0) {
		reply(out, "denied", 0, "must be privileged to use -u");
		goto done;
	}
	if (ts->ts_uid != 0 && uid != ts->ts_uid) {
		reply(out, "denied", 0, "this clustercron runs as uid %lu and "
		    "keeps only that user's table", (unsigned long)ts->ts_uid);
		goto done;
	}
	/*
	 * Root may still list and remove the stored table of a user this
	 * machine no longer has (deleted, or known on other nodes only):
	 * it would otherwise stay in the store for good.
	 */
	if (getpwnam(user) == NULL && (uid != 0 ||
	    (strcmp(req.tm_word, "get") != 0 &&
	    strcmp(req.tm_word, "del") != 0))) {
		reply(out, "invalid", 0, "user %s unknown", user);
		goto done;
	}
	/*
	 * cron.allow and cron.deny judge the table's owner, as Debian's
	 * crontab does.  Root may still list or remove the table of a
	 * user they shut out, but neither edit nor install one.
	 */
	reading = strcmp(req.tm_word, "get") == 0 ||
	    strcmp(req.tm_word, "open") == 0;
	if ((allowed = tab_allowed_why(user, ts->ts_allow, ts->ts_deny, why,
	    sizeof(why))) == -1)
		log_warnx("(CRON) ERROR (%s: everyone but root is refused the "
		    "use of crontab)", why);
	if (allowed != 1 &&
	    (uid != 0 || (strcmp(req.tm_word, "get") != 0 &&
	    strcmp(req.tm_word, "del") != 0))) {
		if (allowed == -1)
			reply(out, "refused", 0, "%s may not use crontab (%s)",
			    user, why);
		else
			reply(out, "refused", 0, "%s may not use crontab "
			    "(cron.allow, cron.deny)", user);
		if (uid != 0)
			log_info("(%s) AUTH (crontab command not allowed)",
			    caller);
		goto done;
	}
	if (st == NULL) {
		reply(out, "error", 0, "the store cannot be reached; try again "
		    "later");
		goto done;
	}

	/* Reading and removing need the table as it stands. */
	if (reading || strcmp(req.tm_word, "del") == 0) {
		if (store_table_get(st, user, &text, &version, &se) == -1) {
			STORE_REPLY(out, &se);
			goto done;
		}
		if (text == NULL) {
			reply(out, "none", version, "no crontab for %s", user);
			goto done;
		}
	}
	if (reading) {
		tab_set(&cur, "ok", user, version, NULL);
		cur.tm_body = text;
		cur.tm_bodylen = strlen(text);
		if (out->b_len == 0 && tab_frame(&cur, out) == -1)
			out->b_len = 0;
		log_info("(%s) LIST (%s)", caller, user);
	} else if (strcmp(req.tm_word, "put") == 0) {
		if (req.tm_bodylen > TAB_MAXBYTES || (req.tm_bodylen > 0 &&
		    memchr(req.tm_body, '\0', req.tm_bodylen) != NULL)) {
			reply(out, "invalid", 0, "table is larger than %d "
			    "bytes or holds a NUL byte", TAB_MAXBYTES);
			goto done;
		}
		if (tab_count_lines(req.tm_body, req.tm_bodylen) >
		    TAB_MAXLINES) {
			reply(out, "invalid", 0, "table has more than %d lines",
			    TAB_MAXLINES);
			goto done;
		}
		if (crontab_parse("table", req.tm_body == NULL ? "" :
		    req.tm_body, req.tm_bodylen, 0, &ct) == -1) {
			reply(out, "error", 0, "out of memory");
			goto done;
		}
		if (ct->ct_nerr > 0) {
			for (i = 0; ct->ct_diag[i].d_warning; i++)
				;
			reply(out, "invalid", 0, "line %zu, column %zu: %s%s",
			    ct->ct_diag[i].d_line, ct->ct_diag[i].d_col,
			    ct->ct_diag[i].d_msg, ct->ct_nerr > 1 ?
			    " (and more errors)" : "");
			goto done;
		}
		if (ts->ts_maxent > 0 && ct->ct_nent > ts->ts_maxent) {
			reply(out, "invalid", 0, "table has %zu entries, more "
			    "than the %zu allowed (max-entries)", ct->ct_nent,
			    ts->ts_maxent);
			log_warnx("(%s) LIMIT (table of %s refused: %zu "
			    "entries, max-entries %zu)", caller, user,
			    ct->ct_nent, ts->ts_maxent);
			goto done;
		}
		if (store_table_put(st, user, req.tm_body == NULL ? "" :
		    req.tm_body, req.tm_version, &newv, &se) == -1) {
			STORE_REPLY(out, &se);
			goto done;
		}
		reply(out, "ok", newv, "installed");
		log_info("(%s) REPLACE (%s)", caller, user);
		rv = 1;
	} else if (strcmp(req.tm_word, "del") == 0) {
		if (store_table_put(st, user, NULL, req.tm_version, &newv,
		    &se) == -1) {
			STORE_REPLY(out, &se);
			goto done;
		}
		reply(out, "ok", newv, "removed");
		log_info("(%s) DELETE (%s)", caller, user);
		rv = 1;
	} else
		reply(out, "invalid", 0, "unknown request");
done:
	if (rv == 1)
		strlcpy(changed, user, changedlen);
	crontab_free(ct);
	free(text);
	return (rv);
}

/*
 * A request of at(1) (tabsrv_at.c).  A daemon not running as root
 * serves its own user alone, who runs it, and asks neither at.allow
 * nor at.deny on their behalf.
 */
static void
at_request(struct tabsrv *ts, struct tabbuf *out, struct store *st,
    uid_t uid, const char *caller, const struct tabmsg *req)
{
	if (ts->ts_uid != 0 && uid != ts->ts_uid) {
		reply(out, "denied", 0, "this clustercron runs as uid %lu and "
		    "keeps only that user's jobs", (unsigned long)ts->ts_uid);
		return;
	}
	tabsrv_at(out, st, uid, caller, req, ts->ts_at_allow != NULL ?
	    ts->ts_at_allow : PATH_AT_ALLOW, ts->ts_at_deny != NULL ?
	    ts->ts_at_deny : PATH_AT_DENY, ts->ts_uid == 0);
}

void
tabsrv_at_files(struct tabsrv *ts, const char *allow, const char *deny)
{
	ts->ts_at_allow = allow;
	ts->ts_at_deny = deny;
}

void
tabsrv_max_entries(struct tabsrv *ts, size_t max)
{
	ts->ts_maxent = max;
}

void
tabsrv_limits(struct tabsrv *ts, size_t peruid, size_t total)
{
	ts->ts_peruid = peruid;
	ts->ts_maxconns = total;
}

size_t
tabsrv_conns(const struct tabsrv *ts)
{
	return (ts->ts_nconns);
}

/*
 * A user's name for the log, or their uid when they have none here.
 */
static const char *
uid_name(uid_t uid, char *buf, size_t len)
{
	struct passwd	*pw;

	if ((pw = getpwuid(uid)) != NULL)
		strlcpy(buf, pw->pw_name, len);
	else
		snprintf(buf, len, "uid %lu", (unsigned long)uid);
	return (buf);
}

/*
 * Should a line a flood repeats be said now?  1, and the window of
 * TABSRV_LOG_MS starts; 0 while one is open: the line is counted, and
 * tabsrv_expire() says how many at its end.
 */
static int
ratelog_take(struct ratelog *rl, int64_t now)
{
	if (rl->rl_until != 0 && now < rl->rl_until) {
		rl->rl_held++;
		return (0);
	}
	rl->rl_until = now + TABSRV_LOG_MS;
	return (1);
}

/* The end of a window: what it held back, said; 1 if anything was. */
static int
ratelog_end(struct ratelog *rl, int64_t now, unsigned long *held)
{
	*held = 0;
	if (rl->rl_until == 0 || now < rl->rl_until)
		return (0);
	if ((*held = rl->rl_held) == 0) {
		rl->rl_until = 0;
		return (0);
	}
	/* A flood that goes on: one line a window. */
	rl->rl_held = 0;
	rl->rl_until = now + TABSRV_LOG_MS;
	return (1);
}

static size_t
conn_count(const struct tabsrv *ts, uid_t uid)
{
	const struct tabconn	*c;
	size_t			 n = 0;

	TAILQ_FOREACH(c, &ts->ts_conns, c_entry)
		n += c->c_uid == uid;
	return (n);
}

static void
conn_close(struct tabsrv *ts, struct tabconn *c)
{
	size_t	 i;

	for (i = 0; i < ts->ts_npolled; i++)
		if (ts->ts_polled[i] == c)
			ts->ts_polled[i] = NULL;
	TAILQ_REMOVE(&ts->ts_conns, c, c_entry);
	ts->ts_nconns--;
	close(c->c_fd);
	free(c->c_in);
	free(c->c_out.b_p);
	free(c);
}

/*
 * One connection too many: told so at once, in a reply that fits the
 * new socket's empty buffer (a write that cannot wait), and closed.
 * The administrator is told too, a flood of them once a minute.
 */
static void
conn_refuse(struct tabsrv *ts, int fd, uid_t uid, size_t mine, int64_t now)
{
	struct tabbuf	 out;
	char		 name[64];
	int		 all = ts->ts_nconns >= ts->ts_maxconns;

	memset(&out, 0, sizeof(out));
	if (all)
		reply(&out, "busy", 0, "the clustercron daemon has %zu "
		    "connections open, the most it keeps; try again later",
		    ts->ts_nconns);
	else
		reply(&out, "busy", 0, "you have %zu connections open to the "
		    "clustercron daemon, the most one user may; try again "
		    "when one is done", mine);
	if (out.b_len > 0)
		(void)send(fd, out.b_p, out.b_len, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
	free(out.b_p);
	close(fd);
	if (!ratelog_take(&ts->ts_rl_busy, now))
		return;
	if (all)
		log_warnx("(%s) LIMIT (ctab connection refused: %zu open, "
		    "the most the daemon keeps)", uid_name(uid, name,
		    sizeof(name)), ts->ts_nconns);
	else
		log_warnx("(%s) LIMIT (ctab connection refused: %zu open by "
		    "uid %lu, the most one user may have)", uid_name(uid, name,
		    sizeof(name)), mine, (unsigned long)uid);
}

/*
 * Up to TABSRV_ACCEPT_TURN connections waiting, each given its deadline,
 * or refused when its uid, or everyone, has as many open as allowed.
 */
static void
conn_accept(struct tabsrv *ts, int64_t now)
{
	struct tabconn	*c;
	struct ucred	 cred;
	socklen_t	 credlen;
	size_t		 mine;
	int		 i, fd;

	for (i = 0; i < TABSRV_ACCEPT_TURN; i++) {
		if ((fd = accept4(ts->ts_fd, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* Out of descriptors: a pause, not a spin. */
				ts->ts_paused = now + TABSRV_PAUSE_MS;
				if (ratelog_take(&ts->ts_rl_accept, now))
					log_warn("(CRON) ERROR (ctab socket: "
					    "accept)");
			}
			return;
		}
		credlen = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
		    &credlen) == -1) {
			close(fd);
			continue;
		}
		mine = conn_count(ts, cred.uid);
		if (ts->ts_nconns >= ts->ts_maxconns ||
		    (ts->ts_peruid > 0 && mine >= ts->ts_peruid)) {
			conn_refuse(ts, fd, cred.uid, mine, now);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->c_fd = fd;
		c->c_uid = cred.uid;
		c->c_deadline = now + TAB_CONN_MS;
		TAILQ_INSERT_TAIL(&ts->ts_conns, c, c_entry);
		ts->ts_nconns++;
	}
}

/*
 * What the client has sent, taken without waiting; the request, once
 * whole, answered.  Returns 1 when a request was answered (the reply
 * then written as far as the socket takes it), 0 when more is to come
 * or the connection was closed.
 */
static int
conn_read(struct tabsrv *ts, struct tabconn *c, struct store *st,
    void (*changed)(const char *, void *), void *arg)
{
	struct tabmsg	 req;
	char		 owner[64];
	size_t		 want;
	ssize_t		 n;

	for (;;) {
		if (c->c_headlen < sizeof(c->c_head))
			n = read(c->c_fd, c->c_head + c->c_headlen,
			    sizeof(c->c_head) - c->c_headlen);
		else {
			/*
			 * The buffer grows with what comes, not with what
			 * the length says, keeping a byte for the NUL.
			 */
			if (c->c_inlen + 1 >= c->c_incap) {
				c->c_incap = c->c_incap == 0 ? 4096 :
				    c->c_incap * 2;
				if (c->c_incap > c->c_want + 1)
					c->c_incap = c->c_want + 1;
				c->c_in = xreallocarray(c->c_in, c->c_incap,
				    1);
			}
			want = c->c_want - c->c_inlen;
			if (want > c->c_incap - 1 - c->c_inlen)
				want = c->c_incap - 1 - c->c_inlen;
			n = read(c->c_fd, c->c_in + c->c_inlen, want);
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return (0);
		if (n <= 0) {
			/* Gone, or failed, before a whole request. */
			conn_close(ts, c);
			return (0);
		}
		if (c->c_headlen < sizeof(c->c_head)) {
			c->c_headlen += (size_t)n;
			if (c->c_headlen < sizeof(c->c_head))
				continue;
			c->c_want = tab_frame_len(c->c_head);
			if (c->c_want > TAB_MAXFRAME) {
				reply(&c->c_out, "invalid", 0, "table is "
				    "larger than %d bytes", TAB_MAXBYTES);
				break;
			}
			if (c->c_want == 0) {
				conn_close(ts, c);
				return (0);
			}
			continue;
		}
		c->c_inlen += (size_t)n;
		if (c->c_inlen < c->c_want)
			continue;
		/* Whole: tab_parse() takes the buffer. */
		if (tab_parse(c->c_in, c->c_want, &req) == -1) {
			c->c_in = NULL;
			conn_close(ts, c);
			return (0);
		}
		c->c_in = NULL;
		if (handle(ts, c->c_uid, &req, &c->c_out, st, owner,
		    sizeof(owner)) == 1 && changed != NULL)
			changed(owner, arg);
		tab_clear(&req);
		break;
	}
	if (c->c_out.b_len == 0) {
		conn_close(ts, c);
		return (1);
	}
	c->c_writing = 1;
	conn_write(ts, c);
	return (1);
}

/* The reply, as far as the socket takes it; closed once all is sent. */
static void
conn_write(struct tabsrv *ts, struct tabconn *c)
{
	ssize_t	 n;

	while (c->c_outoff < c->c_out.b_len) {
		n = send(c->c_fd, c->c_out.b_p + c->c_outoff,
		    c->c_out.b_len - c->c_outoff, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
		c->c_outoff += (size_t)n;
	}
	conn_close(ts, c);
}

size_t
tabsrv_npollfds(const struct tabsrv *ts)
{
	return (ts->ts_nconns + 1);
}

size_t
tabsrv_pollfds(struct tabsrv *ts, struct pollfd *pfd, int listening)
{
	struct tabconn	*c;
	size_t		 n = 0;

	ts->ts_listening = listening && ts->ts_paused == 0;
	if (ts->ts_listening) {
		pfd[n].fd = ts->ts_fd;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	if (ts->ts_nconns > ts->ts_polledcap) {
		ts->ts_polledcap = ts->ts_nconns * 2;
		ts->ts_polled = xreallocarray(ts->ts_polled,
		    ts->ts_polledcap, sizeof(*ts->ts_polled));
	}
	ts->ts_npolled = 0;
	TAILQ_FOREACH(c, &ts->ts_conns, c_entry) {
		ts->ts_polled[ts->ts_npolled++] = c;
		pfd[n].fd = c->c_fd;
		pfd[n].events = c->c_writing ? POLLOUT : POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	return (n);
}

int
tabsrv_io(struct tabsrv *ts, const struct pollfd *pfd, size_t n,
    struct store *st, int64_t now, void (*changed)(const char *, void *),
    void *arg)
{
	struct tabconn	*c, *first;
	size_t		 i, off = ts->ts_listening ? 1 : 0;
	int		 answered = 0;

	for (i = 0; i + off < n && i < ts->ts_npolled; i++) {
		if ((c = ts->ts_polled[i]) == NULL ||
		    pfd[i + off].revents == 0)
			continue;
		if (c->c_writing)
			conn_write(ts, c);
		else
			answered += conn_read(ts, c, st, changed, arg);
	}
	ts->ts_npolled = 0;
	if (off == 0 || n == 0 || pfd[0].revents == 0)
		return (answered);
	/* The new ones' requests are most likely in already. */
	first = TAILQ_LAST(&ts->ts_conns, tabconns);
	conn_accept(ts, now);
	c = first == NULL ? TAILQ_FIRST(&ts->ts_conns) :
	    TAILQ_NEXT(first, c_entry);
	while (c != NULL) {
		first = TAILQ_NEXT(c, c_entry);
		answered += conn_read(ts, c, st, changed, arg);
		c = first;
	}
	return (answered);
}

void
tabsrv_expire(struct tabsrv *ts, int64_t now)
{
	struct tabconn	*c, *next;
	unsigned long	 held;
	char		 name[64];

	if (ts->ts_paused != 0 && now >= ts->ts_paused)
		ts->ts_paused = 0;
	TAILQ_FOREACH_SAFE(c, &ts->ts_conns, c_entry, next) {
		if (now < c->c_deadline)
			continue;
		if (ratelog_take(&ts->ts_rl_late, now))
			log_info("(%s) TIMEOUT (ctab connection closed: %s in "
			    "%d s)", uid_name(c->c_uid, name, sizeof(name)),
			    c->c_writing ? "the reply not read" :
			    "no whole request", TAB_CONN_MS / 1000);
		conn_close(ts, c);
	}
	if (ratelog_end(&ts->ts_rl_busy, now, &held))
		log_warnx("(CRON) LIMIT (%lu more ctab connections refused "
		    "in the last %d s, not logged one by one)", held,
		    TABSRV_LOG_MS / 1000);
	if (ratelog_end(&ts->ts_rl_late, now, &held))
		log_info("(CRON) TIMEOUT (%lu more ctab connections closed at "
		    "their deadline in the last %d s, not logged one by one)",
		    held, TABSRV_LOG_MS / 1000);
	(void)ratelog_end(&ts->ts_rl_accept, now, &held);
}

int
tabsrv_next(const struct tabsrv *ts, int64_t *when)
{
	const struct tabconn	*c;
	const struct ratelog	*rl[3];
	int64_t			 w = INT64_MAX;
	size_t			 i;

	rl[0] = &ts->ts_rl_busy;
	rl[1] = &ts->ts_rl_late;
	rl[2] = &ts->ts_rl_accept;
	TAILQ_FOREACH(c, &ts->ts_conns, c_entry)
		if (c->c_deadline < w)
			w = c->c_deadline;
	for (i = 0; i < 3; i++)
		if (rl[i]->rl_until != 0 && rl[i]->rl_until < w)
			w = rl[i]->rl_until;
	if (ts->ts_paused != 0 && ts->ts_paused < w)
		w = ts->ts_paused;
	if (w == INT64_MAX)
		return (0);
	*when = w;
	return (1);
}

/*
 * The local copies of the stored tables.
 *
 * ctab -l must still show a user's table while the daemon is down, so
 * the daemon keeps, for each stored table it reads, a copy in a
 * directory of this machine (ctab-copy-dir).  The copies are the
 * users' data, so each is readable by its owner alone: the file
 * belongs to the user, mode 0400.  The directory belongs to the
 * daemon's user and nobody else may write to it; as root it is mode
 * 0711, so a user can open their own copy by name but neither list
 * the others nor add, rename or link anything there.  Only the daemon
 * writes in it, and only through a descriptor of the directory
 * checked when opened (no symbolic link followed): a copy is written
 * under a temporary name, which no user name can take since those
 * never begin with a dot, handed to its owner by descriptor and
 * renamed into place, so a reader sees the old copy or the new one,
 * never half of one.  A table removed from the store removes its copy.
 */

static void
copy_warn(struct tabsrv *ts, const char *fmt, ...)
{
	char	 msg[512];
	va_list	 ap;

	if (ts->ts_copywarned)
		return;
	ts->ts_copywarned = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_warnx("%s (the copies ctab -l shows while the daemon is down)",
	    msg);
}

/* mkdir -p: the parents with pmode, the last with mode. */
static int
copy_mkdirs(const char *path, mode_t pmode, mode_t mode)
{
	char	 buf[PATH_MAX], *p;

	if (strlcpy(buf, path, sizeof(buf)) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	for (p = buf + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(buf, pmode) == -1 && errno != EEXIST)
			return (-1);
		*p = '/';
	}
	if (mkdir(buf, mode) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/*
 * The copies' directory, made if missing, opened and checked.  Returns
 * a descriptor, or -1 (said once).
 */
static int
copy_dir(struct tabsrv *ts)
{
	struct stat	 sb;
	mode_t		 want = ts->ts_uid == 0 ? 0711 : 0700;
	int		 fd;

	fd = open(ts->ts_copydir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == ENOENT) {
		if (copy_mkdirs(ts->ts_copydir, ts->ts_uid == 0 ? 0755 : 0700,
		    want) == -1) {
			copy_warn(ts, "%s: %s", ts->ts_copydir,
			    strerror(errno));
			return (-1);
		}
		fd = open(ts->ts_copydir, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd == -1) {
		copy_warn(ts, "%s: %s", ts->ts_copydir, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) == -1 || sb.st_uid != ts->ts_uid ||
	    (sb.st_mode & 022) != 0) {
		copy_warn(ts, "%s: not a directory of uid %lu that only it "
		    "may write to", ts->ts_copydir, (unsigned long)ts->ts_uid);
		close(fd);
		return (-1);
	}
	if ((sb.st_mode & 07777) != want && fchmod(fd, want) == -1) {
		copy_warn(ts, "%s: chmod: %s", ts->ts_copydir,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	return (fd);
}

/* A user name that is safe as a file name in the directory. */
static int
copy_name_ok(const char *name)
{
	return (*name != '\0' && *name != '.' && strchr(name, '/') == NULL &&
	    strlen(name) < NAME_MAX - 8);
}

/*
 * Write owner's copy: 0, 1 when the owner has no account here (nobody
 * could read it), -1 when it failed (said once).
 */
static int
copy_write(struct tabsrv *ts, int dfd, const char *owner, const char *text)
{
	struct passwd	*pw;
	char		 tmp[NAME_MAX + 1];
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 fd;

	if ((pw = getpwnam(owner)) == NULL)
		return (1);
	snprintf(tmp, sizeof(tmp), ".%s.new", owner);
	if (unlinkat(dfd, tmp, 0) == -1 && errno != ENOENT)
		goto fail;
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		goto fail;
	for (len = strlen(text); off < len; off += (size_t)n) {
		if ((n = write(fd, text + off, len - off)) == -1) {
			if (errno == EINTR) {
				n = 0;
				continue;
			}
			break;
		}
	}
	if (off < len || fsync(fd) == -1 ||
	    (ts->ts_uid == 0 && fchown(fd, pw->pw_uid, pw->pw_gid) == -1) ||
	    fchmod(fd, 0400) == -1) {
		close(fd);
		unlinkat(dfd, tmp, 0);
		goto fail;
	}
	if (close(fd) == -1 || renameat(dfd, tmp, dfd, owner) == -1) {
		unlinkat(dfd, tmp, 0);
		goto fail;
	}
	return (0);
fail:
	copy_warn(ts, "%s/%s: %s", ts->ts_copydir, owner, strerror(errno));
	return (-1);
}

static void
copy_remove(struct tabsrv *ts, int dfd, const char *owner)
{
	if (unlinkat(dfd, owner, 0) == -1 && errno != ENOENT)
		copy_warn(ts, "%s/%s: %s", ts->ts_copydir, owner,
		    strerror(errno));
}

/*
 * Once per run of the daemon: a copy whose table went from the store
 * while it was down, and a temporary file a crash left, go.
 */
static void
copy_sweep(struct tabsrv *ts, int dfd)
{
	struct tabcopy	 key;
	struct dirent	*de;
	DIR		*dp;
	int		 fd;

	if ((fd = dup(dfd)) == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		key.tc_owner = de->d_name;
		if (*de->d_name == '.' ||
		    RB_FIND(tabcopies, &ts->ts_copies, &key) == NULL)
			copy_remove(ts, dfd, de->d_name);
	}
	closedir(dp);
	ts->ts_swept = 1;
}

void
tabsrv_copies(struct tabsrv *ts, const struct store_table *tables,
    size_t n)
{
	struct tabcopy	*tc, *next, key;
	struct passwd	*pw;
	size_t		 i;
	int		 dfd, rv, failed = 0;

	if (ts == NULL || ts->ts_copydir == NULL ||
	    (dfd = copy_dir(ts)) == -1)
		return;
	RB_FOREACH(tc, tabcopies, &ts->ts_copies)
		tc->tc_seen = 0;
	for (i = 0; i < n; i++) {
		if (!copy_name_ok(tables[i].t_owner))
			continue;
		/* A daemon of one user keeps that user's copy only. */
		if (ts->ts_uid != 0 &&
		    ((pw = getpwnam(tables[i].t_owner)) == NULL ||
		    pw->pw_uid != ts->ts_uid))
			continue;
		key.tc_owner = tables[i].t_owner;
		if ((tc = RB_FIND(tabcopies, &ts->ts_copies, &key)) != NULL &&
		    tc->tc_version == tables[i].t_version) {
			tc->tc_seen = 1;
			continue;
		}
		if ((rv = copy_write(ts, dfd, tables[i].t_owner,
		    tables[i].t_text)) != 0) {
			failed |= rv == -1;
			continue;	/* an old copy, if any, goes below */
		}
		if (tc == NULL) {
			tc = xcalloc(1, sizeof(*tc));
			tc->tc_owner = xstrdup(tables[i].t_owner);
			RB_INSERT(tabcopies, &ts->ts_copies, tc);
		}
		tc->tc_version = tables[i].t_version;
		tc->tc_seen = 1;
	}
	RB_FOREACH_SAFE(tc, tabcopies, &ts->ts_copies, next) {
		if (tc->tc_seen)
			continue;
		copy_remove(ts, dfd, tc->tc_owner);
		RB_REMOVE(tabcopies, &ts->ts_copies, tc);
		free(tc->tc_owner);
		free(tc);
	}
	if (!ts->ts_swept)
		copy_sweep(ts, dfd);
	close(dfd);
	if (!failed)
		ts->ts_copywarned = 0;
}
