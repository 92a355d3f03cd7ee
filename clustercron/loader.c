/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * loader.c: where the daemon's tables come from, and registering their
 * jobs in the store.  Under daemon.c in the daemon's chain (daemon.h);
 * the tables and jobs themselves are jobtab.c's.
 *
 * Four sources, as crond reads them plus ctab's: the system table
 * (/etc/crontab) and the files of /etc/cron.d, both in system format
 * (a user field before the command); the users' tables in the spool
 * directory, named after their owners; and the tables ctab keeps in the
 * store.  In /etc/cron.d, names that Debian's cron skips are skipped:
 * only letters, digits, '_' and '-' (so no dpkg leftovers, editor
 * backups or dotfiles).  A system table must be owned by root and a
 * spool table by its user, neither writable by group or others, as
 * cron checks; the daemon run by an ordinary user takes that user's
 * entries and tables only.
 *
 * Changes.  inotify watches the directories; an event marks its source
 * dirty and a short debounce later the source is scanned: each file is
 * stat'ed and only a file whose identity, size, mtime or ctime changed
 * is read and parsed again (jobtab.c then keeps what did not change).
 * A source whose directory cannot be watched is checked every
 * table-check-interval instead; SIGHUP re-reads all.
 *
 * The store knows which node holds which job (store.h).  At start the
 * node hands it the jobs of all its tables as its whole set, which lets
 * go of those it held before and has no longer (tables removed while
 * it was down); afterwards it registers the new jobs and lets go of
 * those that left all its tables.  A job no node holds leaves the store
 * then, and so the jobs listing; its runs stay until trimmed.  Stopping
 * lets go of nothing: a node that is down still has its tables.
 *
 * A table with errors is logged, message by message with file, line
 * and column, and ignored as a whole, as cronie ignores it; the other
 * tables are not affected.
 */

#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustercron.h"
#include "common.h"
#include "daemon.h"
#include "store.h"
#include "tabsrv.h"

#define TABLE_MAX	(64 * 1024 * 1024)
#define DEBOUNCE_MS	100
#define REGISTER_RETRY_MS 1000	/* after another node held the jobs' lock */
#define REGISTER_FEW	256	/* more new jobs go in pieces */

/* A job's text offset has room for the longest table. */
_Static_assert(TABLE_MAX <= JOB_TEXTMAX, "TABLE_MAX exceeds JOB_TEXTMAX");

/* The sources, for dirty marks and watches. */
enum src { SRC_SYSTEM, SRC_CROND, SRC_SPOOL, SRC_STORE, SRC_COUNT };

static int	 ino = -1;		/* inotify, or -1 */
static int	 wd[SRC_COUNT] = { -1, -1, -1, -1 };
static int	 dir_failed[TB_STORE + 1];
static int	 dirty[SRC_COUNT];
static int	 reloaded;		/* since the last trim */
static char	*sysdir, *sysbase;	/* dirname, basename of crontab */
static char	*dbdir, *dbbase;	/* SQLite file, when watched */
static struct mtimer	 scan_t;	/* debounce of changes */
static struct mtimer	 check_t;	/* fallback check */

/*
 * The jobs that left a table since the last registration, to let go of
 * in the store unless another table has them, each with a cheap hash
 * of its owner and command (job_sum()); and whether the store is owed
 * this node's whole set (at start, until a sync succeeds).
 */
static struct leftjobs	 left;
static int		 sync_owed = 1;

struct rows;

static void	 scan_timer(struct mtimer *, struct tick *);
static void	 check_timer(struct mtimer *, struct tick *);
static void	 watches_add(struct tick *);
static void	 scan_source(enum src, int, struct tick *);
static void	 scan_dir(enum tb_kind, const char *, int, struct tick *);
static void	 scan_file(enum tb_kind, const char *, const char *, int,
		    struct tick *);
static void	 table_remove(struct table *);
static void	 entry_take(void *, const struct cron_entry *);
static void	 table_read(struct table *, const char *, size_t,
		    struct tick *);
static int	 name_ok(enum tb_kind, const char *);
static int	 lsb_name_ok(const char *);
static int	 lower_or_digit(char);
static int	 stat_same(const struct table *, const struct stat *);
static int	 left_cmp(const void *, const void *);
static int	 sum_cmp(const void *, const void *);
static void	 left_held(const uint8_t *);
static int	 jobs_release(struct tick *);
static void	 register_retry(const struct store_error *, struct tick *);
static size_t	 rows_fill(void *, size_t, struct store_job *, size_t);
static void	 title(void);

/*
 * Debian's cron reads only names made of letters, digits, '_' and '-'
 * in /etc/cron.d, as run-parts(8) does.  Started with -l it takes the
 * LSB's names there instead (lsb_name_ok()).
 */
static int
name_ok(enum tb_kind kind, const char *s)
{
	if (kind == TB_CROND && D.d_lsbnames)
		return (lsb_name_ok(s));
	if (*s == '\0')
		return (0);
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return (0);
	}
	return (1);
}

static int
lower_or_digit(char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
}

/*
 * The names Debian's cron -l reads in /etc/cron.d, as found by running
 * it.  An LSB hierarchical name: words separated by '-', at least two,
 * none empty, of lower case letters, digits, '_' and '.', the last of
 * letters and digits only; but not one ending in "dpkg-old" or
 * "dpkg-dist" after a first letter, digit or '-'.  Any other name only
 * when made of lower case letters, digits and '-', starting with a
 * letter or digit.  So "_pkg-job", "x.y-z", "pkg.dpkg-new" and "abc"
 * are read; "Pkg", "a_b", "a.b", "job.sh" and "pkg.dpkg-old" are not.
 */
static int
lsb_name_ok(const char *s)
{
	static const char *const leftovers[] = { "dpkg-old", "dpkg-dist" };
	const char	*p;
	size_t		 n = 0, words = 0, len, i, sl;
	int		 plain = 1, hier = 1;

	for (p = s; hier; p++) {
		if (*p == '-' || *p == '\0') {
			if (n == 0)
				hier = 0;
			words++;
			if (*p == '\0')
				break;
			n = 0;
			plain = 1;
			continue;
		}
		if (!lower_or_digit(*p)) {
			if (*p != '_' && *p != '.')
				hier = 0;
			plain = 0;
		}
		n++;
	}
	if (hier && words >= 2 && plain) {
		if (!lower_or_digit(*s))
			return (1);
		len = strlen(s);
		for (i = 0; i < sizeof(leftovers) / sizeof(leftovers[0]);
		    i++) {
			sl = strlen(leftovers[i]);
			if (len > sl && strcmp(s + len - sl, leftovers[i]) == 0)
				return (0);
		}
		return (1);
	}
	if (!lower_or_digit(*s))
		return (0);
	for (p = s + 1; *p != '\0'; p++)
		if (!lower_or_digit(*p) && *p != '-')
			return (0);
	return (1);
}

/*
 * Set up change detection.  Returns 0, or -1 when inotify is not
 * available (the periodic check then does all the work).
 */
int
loader_init(struct tick *tk)
{
	struct store_url su;
	const char	*p;
	char		*s;

	mtimer_init(&scan_t, scan_timer, NULL);
	mtimer_init(&check_t, check_timer, NULL);
	/*
	 * Loading a table of 10,000 entries makes arrays of a few hundred
	 * KB for a moment.  From 128 KB malloc maps them and unmaps them
	 * when freed; its default threshold rises to the size of the first
	 * such array freed, and the later ones stay in the heap, pages the
	 * daemon keeps touched (1 MB more at its peak with 100,000 jobs).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	if (*D.d_conf.c_crontab != '\0') {
		s = xstrdup(D.d_conf.c_crontab);
		if ((p = strrchr(s, '/')) == NULL) {
			sysdir = xstrdup(".");
			sysbase = s;
		} else {
			sysbase = xstrdup(p + 1);
			s[p - s] = '\0';
			sysdir = *s == '\0' ? xstrdup("/") : xstrdup(s);
			free(s);
		}
	}
	if (store_url_parse(D.d_conf.c_store, &su, NULL) == 0 &&
	    su.su_backend == STORE_SQLITE) {
		s = su.su_path;
		su.su_path = NULL;
		if ((p = strrchr(s, '/')) == NULL) {
			dbdir = xstrdup(".");
			dbbase = s;
		} else {
			dbbase = xstrdup(p + 1);
			s[p - s] = '\0';
			dbdir = *s == '\0' ? xstrdup("/") : xstrdup(s);
			free(s);
		}
	}
	store_url_free(&su);

	/* Without inotify (-i) every source is checked periodically. */
	ino = D.d_noinotify ? -1 :
	    inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	watches_add(tk);
	return (ino == -1 ? -1 : 0);
}

/*
 * Watch what can be watched; arm the periodic check for the rest.
 */
static void
watches_add(struct tick *tk)
{
	const uint32_t	 dmask = IN_CLOSE_WRITE | IN_MOVED_TO |
	    IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB |
	    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
	const char	*dir[SRC_COUNT];
	int		 i, missing = 0;

	dir[SRC_SYSTEM] = sysdir;
	dir[SRC_CROND] = *D.d_conf.c_crondir != '\0' ? D.d_conf.c_crondir :
	    NULL;
	dir[SRC_SPOOL] = *D.d_conf.c_spool != '\0' ? D.d_conf.c_spool : NULL;
	dir[SRC_STORE] = D.d_conf.c_store_tables ? dbdir : NULL;
	for (i = 0; i < SRC_COUNT; i++) {
		if (dir[i] == NULL || wd[i] != -1)
			continue;
		if (ino == -1) {
			missing = 1;
			continue;
		}
		wd[i] = inotify_add_watch(ino, dir[i],
		    dmask | (i == SRC_STORE ? IN_MODIFY : 0));
		if (wd[i] == -1) {
			log_debug("cannot watch %s: %s", dir[i],
			    strerror(errno));
			missing = 1;
		}
	}
	if (missing && D.d_conf.c_check_ms > 0 && !D.d_stopping)
		mtimer_set(&check_t, tk->tk_mono + D.d_conf.c_check_ms);
}

/* Read what inotify says and mark the sources it concerns. */
void
loader_inotify(struct tick *tk)
{
	char				 buf[8192]
	    __attribute__((__aligned__(__alignof__(struct inotify_event))));
	const struct inotify_event	*ev;
	ssize_t				 n;
	char				*p;
	int				 i, any = 0;

	for (;;) {
		n = read(ino, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW) {
				for (i = 0; i < SRC_COUNT; i++)
					dirty[i] = 1;
				any = 1;
				continue;
			}
			for (i = 0; i < SRC_COUNT; i++)
				if (ev->wd == wd[i])
					break;
			if (i == SRC_COUNT)
				continue;
			if (ev->mask & IN_IGNORED) {
				/* The directory went: check for it. */
				wd[i] = -1;
				dirty[i] = any = 1;
				continue;
			}
			if (ev->len == 0) {
				dirty[i] = any = 1;
				continue;
			}
			switch (i) {
			case SRC_SYSTEM:
				if (strcmp(ev->name, sysbase) != 0)
					continue;
				break;
			case SRC_STORE:
				if (strncmp(ev->name, dbbase,
				    strlen(dbbase)) != 0)
					continue;
				break;
			default:
				break;
			}
			dirty[i] = any = 1;
		}
	}
	if (any && !mtimer_queued(&scan_t) && !D.d_stopping)
		mtimer_set(&scan_t, tk->tk_mono + DEBOUNCE_MS);
}

static void
scan_timer(struct mtimer *t, struct tick *tk)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++) {
		if (dirty[i]) {
			dirty[i] = 0;
			scan_source(i, 0, tk);
		}
	}
	for (i = 0; i < SRC_COUNT; i++)
		if (wd[i] == -1)
			break;
	if (i < SRC_COUNT)
		watches_add(tk);
	loader_register(0, tk);
	title();
}

static void
check_timer(struct mtimer *t, struct tick *tk)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++)
		dirty[i] = 1;
	scan_timer(t, tk);
	watches_add(tk);
}

/* Scan every source; with force, read every table again. */
void
loader_scan_all(int force, struct tick *tk)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++) {
		dirty[i] = 0;
		scan_source(i, force, tk);
	}
	if (force) {
		loader_register(0, tk);
		title();
	}
}

/*
 * The stored tables, read again: on MariaDB from the heartbeat (node.c)
 * every store-tables-interval, so that polling adds no wake-up of its
 * own; on SQLite when the database file changes.
 */
void
loader_check_store(struct tick *tk)
{
	scan_source(SRC_STORE, 0, tk);
	loader_register(0, tk);
}

static void
scan_source(enum src s, int force, struct tick *tk)
{
	struct table		*tb, *next;
	struct store_table	*st = NULL;
	struct store_error	 se;
	size_t			 i, n = 0, len;
	char			*name;

	switch (s) {
	case SRC_SYSTEM:
		if (*D.d_conf.c_crontab != '\0')
			scan_file(TB_SYSTEM, D.d_conf.c_crontab, NULL, force,
			    tk);
		break;
	case SRC_CROND:
		if (*D.d_conf.c_crondir != '\0')
			scan_dir(TB_CROND, D.d_conf.c_crondir, force, tk);
		break;
	case SRC_SPOOL:
		if (*D.d_conf.c_spool != '\0')
			scan_dir(TB_SPOOL, D.d_conf.c_spool, force, tk);
		break;
	case SRC_STORE:
		if (!D.d_conf.c_store_tables || D.d_st == NULL)
			break;
		if (store_tables_list(D.d_st, &st, &n, &se) == -1) {
			gate_store_failed("reading the stored tables", &se);
			break;
		}
		tabsrv_copies(D.d_tabsrv, st, n);	/* for ctab -l */
		RB_FOREACH(tb, tables, jobtab_tables())
			if (tb->tb_kind == TB_STORE)
				tb->tb_seen = 0;
		for (i = 0; i < n; i++) {
			if (!D.d_root && strcmp(st[i].t_owner, D.d_user) != 0)
				continue;
			xasprintf(&name, "store:%s", st[i].t_owner);
			tb = table_get(TB_STORE, name, st[i].t_owner);
			free(name);
			tb->tb_seen = 1;
			if (!force && tb->tb_loaded &&
			    tb->tb_version == st[i].t_version)
				continue;
			tb->tb_version = st[i].t_version;
			len = strlen(st[i].t_text);
			if (len > TABLE_MAX) {
				/* As a file that long is refused. */
				errno = EFBIG;
				log_warn("(CRON) ERROR (%s)", tb->tb_name);
				table_read(tb, NULL, 0, tk);
			} else
				table_read(tb, st[i].t_text, len, tk);
		}
		store_tables_free(st, n);
		RB_FOREACH_SAFE(tb, tables, jobtab_tables(), next)
			if (tb->tb_kind == TB_STORE && !tb->tb_seen)
				table_remove(tb);
		break;
	default:
		break;
	}
}

static void
scan_dir(enum tb_kind kind, const char *dir, int force, struct tick *tk)
{
	struct table	*tb, *next;
	struct dirent	*de;
	DIR		*dp;
	char		*path;

	RB_FOREACH(tb, tables, jobtab_tables())
		if (tb->tb_kind == kind)
			tb->tb_seen = 0;
	if ((dp = opendir(dir)) == NULL) {
		/* Said once, not at every periodic check. */
		if (errno != ENOENT && !dir_failed[kind])
			log_warn("(CRON) ERROR (%s)", dir);
		dir_failed[kind] = 1;
	} else {
		dir_failed[kind] = 0;
		while ((de = readdir(dp)) != NULL) {
			if (!name_ok(kind, de->d_name))
				continue;
			if (kind == TB_SPOOL && !D.d_root &&
			    strcmp(de->d_name, D.d_user) != 0)
				continue;
			xasprintf(&path, "%s/%s", dir, de->d_name);
			scan_file(kind, path, de->d_name, force, tk);
			free(path);
		}
		closedir(dp);
	}
	RB_FOREACH_SAFE(tb, tables, jobtab_tables(), next)
		if (tb->tb_kind == kind && !tb->tb_seen)
			table_remove(tb);
}

static int
stat_same(const struct table *tb, const struct stat *sb)
{
	return (tb->tb_read && tb->tb_dev == sb->st_dev &&
	    tb->tb_ino == sb->st_ino && tb->tb_size == sb->st_size &&
	    tb->tb_mtim.tv_sec == sb->st_mtim.tv_sec &&
	    tb->tb_mtim.tv_nsec == sb->st_mtim.tv_nsec &&
	    tb->tb_ctim.tv_sec == sb->st_ctim.tv_sec &&
	    tb->tb_ctim.tv_nsec == sb->st_ctim.tv_nsec);
}

/*
 * Look at one file: unchanged, it is only marked seen; changed, it is
 * checked as cron checks it (regular file, owner, mode), read through
 * the descriptor that was checked and loaded.
 */
static void
scan_file(enum tb_kind kind, const char *path, const char *user, int force,
    struct tick *tk)
{
	struct table	*tb;
	struct table	 key;
	struct passwd	*pw;
	struct stat	 sb;
	char		*buf;
	size_t		 len;
	int		 fd;
	uid_t		 want;

	key.tb_name = (char *)path;
	tb = RB_FIND(tables, jobtab_tables(), &key);
	if (stat(path, &sb) == -1) {
		if (tb != NULL)
			table_remove(tb);
		return;
	}
	if (tb != NULL && !force && stat_same(tb, &sb)) {
		tb->tb_seen = 1;
		return;
	}
	if (tb == NULL)
		tb = table_get(kind, path, user != NULL && kind == TB_SPOOL ?
		    user : NULL);
	tb->tb_seen = 1;
	tb->tb_read = 1;
	tb->tb_dev = sb.st_dev;
	tb->tb_ino = sb.st_ino;
	tb->tb_size = sb.st_size;
	tb->tb_mtim = sb.st_mtim;
	tb->tb_ctim = sb.st_ctim;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		log_warn("(CRON) ERROR (%s)", path);
		table_read(tb, NULL, 0, tk);
		return;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		log_warnx("(CRON) ERROR (%s: not a regular file)", path);
		goto bad;
	}
	if (kind == TB_SPOOL) {
		if ((pw = getpwnam(user)) == NULL) {
			log_warnx("(%s) ORPHAN (no such user)", user);
			goto bad;
		}
		want = pw->pw_uid;
	} else
		want = 0;
	/* -p, cronie's "permit any crontab", skips both checks. */
	if (!D.d_permit_any && sb.st_uid != want &&
	    (D.d_root || sb.st_uid != D.d_uid)) {
		log_warnx("(%s) WRONG FILE OWNER (%s)",
		    user != NULL ? user : "CRON", path);
		goto bad;
	}
	if (!D.d_permit_any && (sb.st_mode & 022) != 0) {
		log_warnx("(%s) BAD FILE MODE (%s)",
		    user != NULL ? user : "CRON", path);
		goto bad;
	}
	if (file_read_fd(fd, TABLE_MAX, &buf, &len) == -1) {
		log_warn("(CRON) ERROR (%s)", path);
		goto bad;
	}
	close(fd);
	table_read(tb, buf, len, tk);
	free(buf);
	return;
 bad:
	close(fd);
	table_read(tb, NULL, 0, tk);
}

/*
 * A table being read: its entries go to the load as the parser hands
 * them over (crontab_parse_each()), so that no array of the whole
 * table's entries is made; those of a system table whose user field
 * names no user of this machine are noted instead, with their lines.
 * Debian's cron refuses such a table as a whole when it reads it ("bad
 * username"), the other users' entries with it, and does not look
 * again until the file changes, even once the user exists; so does
 * the daemon (SIGHUP also reads every table again).  A daemon that is
 * not root takes only its own user's entries, and asks about no one
 * else.
 */
struct tread {
	struct table	*r_tb;
	struct tload	*r_load;
	const char	*r_known;	/* the last user found */
	struct badu {
		size_t		 b_line;
		const char	*b_user;	/* the parse's */
	}		*r_bad;
	size_t		 r_nbad;
};

static void
entry_take(void *arg, const struct cron_entry *e)
{
	struct tread	*r = arg;
	const char	*user = e->e_user;

	if ((r->r_tb->tb_kind == TB_SYSTEM || r->r_tb->tb_kind == TB_CROND) &&
	    D.d_root && user != NULL && (r->r_known == NULL ||
	    strcmp(user, r->r_known) != 0)) {
		if (getpwnam(user) != NULL)
			r->r_known = user;
		else {
			r->r_bad = xreallocarray(r->r_bad, r->r_nbad + 1,
			    sizeof(*r->r_bad));
			r->r_bad[r->r_nbad].b_line = e->e_line;
			r->r_bad[r->r_nbad++].b_user = user;
			return;
		}
	}
	if (r->r_nbad == 0)
		table_load_entry(r->r_load, e);
}

/*
 * Parse the text and merge the new entries with the table's jobs.  A
 * NULL text (an unreadable or refused file), a table with errors, one
 * that names an unknown user or a user's table of more entries than
 * max-entries (which ctab refuses to install; a spool file, or a limit
 * lowered since) leaves the table without jobs.
 */
static void
table_read(struct table *tb, const char *text, size_t len, struct tick *tk)
{
	struct crontab	*ct = NULL;
	const struct cron_diag *dg;
	struct tread	 rd;
	const char	*who;
	size_t		 i;
	int		 r, flags;

	who = tb->tb_owner != NULL ? tb->tb_owner : "CRON";
	memset(&rd, 0, sizeof(rd));
	rd.r_tb = tb;
	if (text != NULL) {
		flags = tb->tb_kind == TB_SYSTEM || tb->tb_kind == TB_CROND ?
		    CRON_SYSTEM : 0;
		rd.r_load = table_load_begin(tb);
		r = crontab_parse_each(tb->tb_name, text, len, flags,
		    entry_take, &rd, &ct);
		if (r == -1)
			fatalx("out of memory parsing %s", tb->tb_name);
		for (i = 0; i < ct->ct_ndiag; i++) {
			dg = &ct->ct_diag[i];
			log_warnx("(%s) %s (%s:%zu:%zu: %s)", who,
			    dg->d_warning ? "WARNING" : "ERROR",
			    tb->tb_name, dg->d_line, dg->d_col, dg->d_msg);
		}
		if (r == 1) {
			log_warnx("(%s) ERROR (%s: %zu error%s, table ignored)",
			    who, tb->tb_name, ct->ct_nerr,
			    ct->ct_nerr == 1 ? "" : "s");
			table_load_abort(rd.r_load);
			rd.r_load = NULL;
		} else if ((tb->tb_kind == TB_SPOOL ||
		    tb->tb_kind == TB_STORE) && D.d_conf.c_max_entries > 0 &&
		    ct->ct_nent > D.d_conf.c_max_entries) {
			log_warnx("(%s) LIMIT (%s: %zu entries, more than "
			    "max-entries %zu: table ignored)", who,
			    tb->tb_name, ct->ct_nent, D.d_conf.c_max_entries);
			table_load_abort(rd.r_load);
			rd.r_load = NULL;
		} else if (rd.r_nbad > 0) {
			for (i = 0; i < rd.r_nbad; i++)
				log_warnx("(CRON) ERROR (%s:%zu: bad username "
				    "%s: no such user)", tb->tb_name,
				    rd.r_bad[i].b_line, rd.r_bad[i].b_user);
			log_warnx("(%s) ERROR (%s: table ignored until it "
			    "changes, as it names an unknown user)", who,
			    tb->tb_name);
			table_load_abort(rd.r_load);
			rd.r_load = NULL;
		} else {
			log_info("(%s) %s (%s)", who,
			    tb->tb_loaded ? "RELOAD" : "LOAD", tb->tb_name);
			tb->tb_loaded = 1;
		}
		free(rd.r_bad);
		crontab_free(ct);
	}
	table_load_end(tb, rd.r_load, (time_t)(tk->tk_wall / 1000),
	    D.d_stopping, &left);
	reloaded = 1;
}

/*
 * The rows of every job, in pieces and by identity (jobiter_next()),
 * for store_jobs_sync_fill() and store_jobs_register_fill().  The rows
 * borrow the jobs' strings; the hex identities and the summaries of
 * long commands are made into buffers for one piece.  The walk starts
 * again when the store asks for an earlier row than the next.
 */
struct rows {
	int		 r_new;		/* only the jobs to register */
	struct jobiter	 r_it;
	size_t		 r_next;	/* the next row's number */
	size_t		 r_cap;
	char		(*r_ids)[CRON_IDLEN + 1];
	char		(*r_cmds)[JOB_CMDSUM + 1];
};

static size_t
rows_fill(void *arg, size_t from, struct store_job *out, size_t max)
{
	struct rows	*rw = arg;
	struct table	*tb;
	struct job	*j;
	size_t		 k = 0, i;
	char		 id[CRON_IDLEN + 1];

	if (max > rw->r_cap) {
		rw->r_ids = xreallocarray(rw->r_ids, max, sizeof(*rw->r_ids));
		rw->r_cmds = xreallocarray(rw->r_cmds, max,
		    sizeof(*rw->r_cmds));
		rw->r_cap = max;
	}
	if (from != rw->r_next || from == 0) {
		jobiter_start(&rw->r_it, rw->r_new);
		rw->r_next = 0;
	}
	while ((k < max || rw->r_next < from) &&
	    jobiter_next(&rw->r_it, &tb, &i, id)) {
		if (rw->r_next++ < from)
			continue;
		j = &tb->tb_jobs[i];
		job_row(j, &out[k], strlen(job_cmd(j)) > JOB_CMDSUM ?
		    rw->r_cmds[k] : NULL);
		memcpy(rw->r_ids[k], id, sizeof(id));
		out[k].j_id = rw->r_ids[k];
		k++;
	}
	return (k);
}

/*
 * Register in the store the jobs that are new or changed, and let go
 * of those that left every table; with all set (or while the store is
 * owed it), hand it every job as this node's whole set instead, in
 * pieces by identity (rows_fill()), so that 100,000 jobs cost no array
 * of 100,000 rows, here or in the store; so do many new jobs (a big
 * table added), while a few go in one array, which the store writes
 * without reading the others.  On failure they stay pending and go with the next
 * registration, which comes when the store is back or, when another
 * node held the lock of the jobs, a moment later.  The records borrow
 * the jobs' strings; only the hex identities and the summaries of long
 * commands are made for the call, and freed after it.
 */
void
loader_register(int all, struct tick *tk)
{
	struct rows		 rw;
	struct table		*tb;
	struct job		*j;
	struct store_job	*sj = NULL, *r;
	struct store_error	 se;
	char			(*ids)[CRON_IDLEN + 1] = NULL;
	char			**cmds = NULL;
	size_t			 i, n = 0, k = 0, ncmds = 0, gone = 0;
	int			 sync, fill, rc;

	if (D.d_st == NULL)
		goto out;
	sync = all || sync_owed;
	RB_FOREACH(tb, tables, jobtab_tables()) {
		if (sync)
			break;
		if (!tb->tb_pending)
			continue;
		for (i = 0; i < tb->tb_njobs; i++)
			if (tb->tb_jobs[i].j_flags & JOB_NEW)
				n++;
	}
	/* Many: in pieces, as a sync. */
	fill = sync || n >= REGISTER_FEW;
	if (n > 0 && !fill) {
		sj = xcalloc(n, sizeof(*sj));
		ids = xreallocarray(NULL, n, sizeof(*ids));
	}
	RB_FOREACH(tb, tables, jobtab_tables()) {
		if (fill || !tb->tb_pending)
			continue;
		for (i = 0; i < tb->tb_njobs; i++) {
			j = &tb->tb_jobs[i];
			if (!(j->j_flags & JOB_NEW))
				continue;
			r = &sj[k];
			if (strlen(job_cmd(j)) > JOB_CMDSUM) {
				cmds = xreallocarray(cmds, ncmds + 1,
				    sizeof(*cmds));
				cmds[ncmds] = xmalloc(JOB_CMDSUM + 1);
				job_row(j, r, cmds[ncmds++]);
			} else
				job_row(j, r, NULL);
			r->j_id = (char *)table_job_id(tb, i, ids[k]);
			k++;
		}
	}
	if (fill) {
		memset(&rw, 0, sizeof(rw));
		rw.r_new = !sync;
		rc = sync ? store_jobs_sync_fill(D.d_st, rows_fill, &rw, &gone,
		    &se) : store_jobs_register_fill(D.d_st, rows_fill, &rw, &se);
		jobiter_free(&rw.r_it);
		free(rw.r_ids);
		free(rw.r_cmds);
	} else
		rc = n > 0 ? store_jobs_register(D.d_st, sj, n, &se) : 0;
	if (rc == -1)
		register_retry(&se, tk);
	else {
		RB_FOREACH(tb, tables, jobtab_tables()) {
			if (!tb->tb_pending)
				continue;
			for (i = 0; i < tb->tb_njobs; i++)
				tb->tb_jobs[i].j_flags &= ~JOB_NEW;
			tb->tb_pending = 0;
		}
		if (sync) {
			/* What this node held and has no longer went too. */
			sync_owed = 0;
			left.lj_n = 0;
			if (gone > 0)
				log_info("(CRON) INFO (%zu jobs that no node "
				    "has any longer left the store)", gone);
		}
	}
	for (i = 0; i < ncmds; i++)
		free(cmds[i]);
	free(cmds);
	free(ids);
	free(sj);
	if (rc == 0 && left.lj_n > 0)
		(void)jobs_release(tk);
 out:
	/*
	 * Reading a table again parses it whole and copies it: give back
	 * what that used, as start-up does, or each reload of a big table
	 * leaves the daemon megabytes bigger (and every fork dearer).
	 */
	if (!all && reloaded) {
		reloaded = 0;
		malloc_trim(0);
	}
}

/* A failed registration goes again later (see loader_register()). */
static void
register_retry(const struct store_error *se, struct tick *tk)
{
	gate_store_failed("registering jobs", se);
	if (se->se_class == STORE_CONFLICT && !D.d_stopping &&
	    !mtimer_queued(&scan_t))
		mtimer_set(&scan_t, tk->tk_mono + REGISTER_RETRY_MS);
}

static int
left_cmp(const void *a, const void *b)
{
	return (memcmp(a, b, JOB_IDLEN));
}

static int
sum_cmp(const void *a, const void *b)
{
	uint32_t	 x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}

/* A table has job id: if it left one, it is held still. */
static void
left_held(const uint8_t *id)
{
	struct jobleft	*l;

	if ((l = bsearch(id, left.lj_v, left.lj_n, sizeof(*left.lj_v),
	    left_cmp)) != NULL)
		l->l_held = 1;
}

/*
 * Let go of the jobs that left their tables and are in no other table
 * of this node (the same entry may be in two: a spool table and the
 * stored table it was imported into).  Only the jobs whose owner and
 * command hash as one that left have their identities made, so
 * that a table removed beside 100,000 jobs costs no 100,000 hashes of
 * whole entries.  Returns 0, or -1 when the store failed: they are
 * kept for the next registration.
 */
static int
jobs_release(struct tick *tk)
{
	struct table		*tb;
	struct store_error	 se;
	char			(*hex)[CRON_IDLEN + 1], buf[CRON_IDLEN + 1];
	const char		**ids;
	uint32_t		*sums, sum;
	uint8_t			 id[JOB_IDLEN];
	size_t			 i, k, n = 0, gone;
	int			 rc = 0;

	qsort(left.lj_v, left.lj_n, sizeof(*left.lj_v), left_cmp);
	for (i = k = 0; i < left.lj_n; i++)
		if (k == 0 || memcmp(left.lj_v[k - 1].l_id, left.lj_v[i].l_id,
		    JOB_IDLEN) != 0)
			left.lj_v[k++] = left.lj_v[i];
	left.lj_n = k;
	sums = xreallocarray(NULL, left.lj_n, sizeof(*sums));
	for (i = 0; i < left.lj_n; i++) {
		left.lj_v[i].l_held = 0;
		sums[i] = left.lj_v[i].l_sum;
	}
	qsort(sums, left.lj_n, sizeof(*sums), sum_cmp);
	RB_FOREACH(tb, tables, jobtab_tables()) {
		for (i = 0; i < tb->tb_njobs; i++) {
			sum = job_sum(&tb->tb_jobs[i]);
			if (bsearch(&sum, sums, left.lj_n, sizeof(*sums),
			    sum_cmp) == NULL)
				continue;
			id_bin(job_id(&tb->tb_jobs[i], buf), id);
			left_held(id);
		}
	}
	free(sums);
	hex = xreallocarray(NULL, left.lj_n, sizeof(*hex));
	ids = xreallocarray(NULL, left.lj_n, sizeof(*ids));
	for (i = 0; i < left.lj_n; i++) {
		if (left.lj_v[i].l_held)
			continue;
		id_hex(left.lj_v[i].l_id, hex[n]);
		ids[n] = hex[n];
		metrics_job_gone(hex[n]);
		n++;
	}
	if (n > 0 && store_jobs_release(D.d_st, ids, n, &gone, &se) == -1) {
		register_retry(&se, tk);
		rc = -1;
	} else {
		left.lj_n = 0;
		if (n > 0)
			log_debug("(CRON) JOBS (%zu let go of, %zu left the "
			    "store)", n, gone);
	}
	free(hex);
	free(ids);
	return (rc);
}

/* A table went: its source is gone or no longer a table. */
static void
table_remove(struct table *tb)
{
	log_info("(%s) REMOVED (%s)", tb->tb_owner != NULL ? tb->tb_owner :
	    "CRON", tb->tb_name);
	table_drop(tb, &left);
	reloaded = 1;
}

/* What ps(1) shows of the daemon. */
static void
title(void)
{
	setproctitle("node %s, %zu jobs", D.d_conf.c_node, jobtab_count());
}

int
loader_fd(void)
{
	return (ino);
}

/* The daemon stops: no more scans. */
void
loader_stop(void)
{
	mtimer_del(&scan_t);
	mtimer_del(&check_t);
}

void
loader_free(void)
{
	loader_stop();
	free(left.lj_v);
	memset(&left, 0, sizeof(left));
	free(sysdir);
	free(sysbase);
	free(dbdir);
	free(dbbase);
	sysdir = sysbase = dbdir = dbbase = NULL;
	if (ino != -1)
		close(ino);
	ino = -1;
}
