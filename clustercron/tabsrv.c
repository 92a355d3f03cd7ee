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
 */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

struct tabsrv {
	int		 ts_fd;
	char		*ts_path;
	const char	*ts_allow;
	const char	*ts_deny;
	uid_t		 ts_uid;
	char		*ts_copydir;	/* NULL: no copies kept */
	const char	*ts_at_allow;	/* NULL: PATH_AT_ALLOW */
	const char	*ts_at_deny;	/* NULL: PATH_AT_DENY */
	struct tabcopies ts_copies;
	int		 ts_swept;	/* stale copies looked for */
	int		 ts_copywarned;	/* a failure said once */
};

static int	 listed(const char *, const char *, char *, size_t);
static void	 reply(int, const char *, int64_t, const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
static int	 handle(struct tabsrv *, int, struct store *, char *, size_t);
static void	 at_request(struct tabsrv *, int, struct store *, uid_t,
		    const char *, const struct tabmsg *);
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
	char			 why[PATH_MAX + 64];
	const char		*user;
	int64_t			 version, newv;
	size_t			 i;
	int			 reading, allowed, rv = 0;

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
	if (strncmp(req.tm_word, "at", 2) == 0) {
		at_request(ts, fd, st, cred.uid, caller, &req);
		goto done;
	}

	if (cred.uid != 0 && strcmp(user, caller) != 0) {
		reply(fd, "denied", 0, "must be privileged to use -u");
		goto done;
	}
	if (ts->ts_uid != 0 && cred.uid != ts->ts_uid) {
		reply(fd, "denied", 0, "this clustercron runs as uid %lu and "
		    "keeps only that user's table", (unsigned long)ts->ts_uid);
		goto done;
	}
	/*
	 * Root may still list and remove the stored table of a user this
	 * machine no longer has (deleted, or known on other nodes only):
	 * it would otherwise stay in the store for good.
	 */
	if (getpwnam(user) == NULL && (cred.uid != 0 ||
	    (strcmp(req.tm_word, "get") != 0 &&
	    strcmp(req.tm_word, "del") != 0))) {
		reply(fd, "invalid", 0, "user %s unknown", user);
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
	    (cred.uid != 0 || (strcmp(req.tm_word, "get") != 0 &&
	    strcmp(req.tm_word, "del") != 0))) {
		if (allowed == -1)
			reply(fd, "refused", 0, "%s may not use crontab (%s)",
			    user, why);
		else
			reply(fd, "refused", 0, "%s may not use crontab "
			    "(cron.allow, cron.deny)", user);
		if (cred.uid != 0)
			log_info("(%s) AUTH (crontab command not allowed)",
			    caller);
		goto done;
	}
	if (st == NULL) {
		reply(fd, "error", 0, "the store cannot be reached; try again "
		    "later");
		goto done;
	}

	/* Reading and removing need the table as it stands. */
	if (reading || strcmp(req.tm_word, "del") == 0) {
		if (store_table_get(st, user, &text, &version, &se) == -1) {
			STORE_REPLY(fd, &se);
			goto done;
		}
		if (text == NULL) {
			reply(fd, "none", version, "no crontab for %s", user);
			goto done;
		}
	}
	if (reading) {
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

/*
 * A request of at(1) (tabsrv_at.c).  A daemon not running as root
 * serves its own user alone, who runs it, and asks neither at.allow
 * nor at.deny on their behalf.
 */
static void
at_request(struct tabsrv *ts, int fd, struct store *st, uid_t uid,
    const char *caller, const struct tabmsg *req)
{
	if (ts->ts_uid != 0 && uid != ts->ts_uid) {
		reply(fd, "denied", 0, "this clustercron runs as uid %lu and "
		    "keeps only that user's jobs", (unsigned long)ts->ts_uid);
		return;
	}
	tabsrv_at(fd, st, uid, caller, req, ts->ts_at_allow != NULL ?
	    ts->ts_at_allow : PATH_AT_ALLOW, ts->ts_at_deny != NULL ?
	    ts->ts_at_deny : PATH_AT_DENY, ts->ts_uid == 0);
}

void
tabsrv_at_files(struct tabsrv *ts, const char *allow, const char *deny)
{
	ts->ts_at_allow = allow;
	ts->ts_at_deny = deny;
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
