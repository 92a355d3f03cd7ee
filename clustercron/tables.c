/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tables.c: the tables the daemon runs and the jobs they hold.
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
 * is read and parsed again.  A source whose directory cannot be watched
 * is checked every table-check-interval instead; SIGHUP re-reads all.
 *
 * Reloading a table keeps what did not change.  Its jobs are sorted by
 * identity and merged with the new entries: a job whose identity
 * survives keeps its timer and its count of running fires (it moves to
 * the table's new array, and what points at it follows), and is
 * rescheduled only if its schedule or zone changed; new
 * jobs are scheduled and registered in the store; jobs that went away
 * leave their running fires to finish.  So the work of a reload is
 * proportional to the tables that changed, not to all the jobs.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include "clustercron.h"
#include "common.h"
#include "daemon.h"
#include "store.h"
#include "tabsrv.h"

#define TABLE_MAX	(64 * 1024 * 1024)
#define DEBOUNCE_MS	100
#define CMD_SUMMARY	200
#define REGISTER_RETRY_MS 1000	/* after another node held the jobs' lock */

struct share;
struct kinds;
struct text;

/* The sources, for dirty marks and watches. */
enum src { SRC_SYSTEM, SRC_CROND, SRC_SPOOL, SRC_STORE, SRC_COUNT };

static int	 wd[SRC_COUNT] = { -1, -1, -1, -1 };
static int	 dir_failed[TB_STORE + 1];
static int	 dirty[SRC_COUNT];
static int	 reloaded;		/* since the last trim */
static char	*sysdir, *sysbase;	/* dirname, basename of crontab */
static char	*dbdir, *dbbase;	/* SQLite file, when watched */

/* Zones loaded so far, by name ("" is the local zone). */
struct zone {
	char		*z_name;
	struct cron_tz	*z_tz;
};
static struct zone	*zones;

static size_t		 nzones;

/* The schedules jobs share, by hash of schedule, zone and text. */
static struct jsched	**scheds;
static size_t		 nscheds, schedcap;

/*
 * The jobs that left a table since the last registration, to let go of
 * in the store unless another table has them, each with a cheap hash
 * of its owner and command (job_sum()); and whether the store is owed
 * this node's whole set (at start, until a sync succeeds).
 */
struct left {
	uint8_t		 l_id[JOB_IDLEN];
	uint32_t	 l_sum;
	int		 l_held;
};
static struct left	*left;
static size_t		 nleft, leftcap;
static int		 sync_owed = 1;

RB_GENERATE(tables, table, tb_entry, table_cmp);

static void	 scan_timer(struct mtimer *);
static void	 check_timer(struct mtimer *);
static void	 watches_add(void);
static void	 scan_source(enum src, int);
static void	 scan_dir(enum tb_kind, const char *, int);
static void	 scan_file(enum tb_kind, const char *, const char *, int);
static void	 table_drop(struct table *);
static size_t	 users_unknown(const struct table *, const struct crontab *);
static void	 table_load(struct table *, const char *, size_t);
static void	 table_jobs(struct table *, struct crontab *);
static const struct cron_tz *zone_get(const char *);
static int	 name_ok(enum tb_kind, const char *);
static int	 lsb_name_ok(const char *);
static int	 lower_or_digit(char);
static int	 job_cmp(const void *, const void *);
static void	 job_free(struct job *);
static void	 jobs_moved(struct job *, size_t, struct job **);
static void	*pool_alloc(struct pool **, size_t, size_t);
static const char *pool_str(struct pool **, const char *);
static void	 pool_free(struct pool *);
static const char *const *share_env(struct pool **, struct share *,
		    const char *const *);
static const struct jctx *share_ctx(struct pool **, struct share *,
		    const struct cron_entry *, const char *);
static uint32_t	 job_text(struct text *, const struct cron_entry *,
		    uint8_t *);
static int	 same_sched(const struct job *, const struct job *);
static void	 job_row(const struct job *, struct store_job *, char *);
static int	 row_same(const struct job *, const struct job *);
static uint32_t	 sched_hash(const struct cron_sched *, const char *,
		    const char *);
static int	 sched_eq(const struct cron_sched *,
		    const struct cron_sched *);
static const struct jsched *sched_get(const struct cron_sched *,
		    const char *, const struct cron_tz *, const char *);
static void	 sched_put(const struct jsched *);
static int	 hexval(char);
static void	 id_hex(const uint8_t *, char [CRON_IDLEN + 1]);
static void	 id_bin(const char *, uint8_t *);
static size_t	 kind_slot(const struct kinds *, const struct jsched *,
		    const struct jctx *);
static size_t	 kind_get(struct kinds *, const struct jsched *,
		    const struct jctx *);
static int	 stat_same(const struct table *, const struct stat *);
static uint32_t	 job_sum(const struct job *);
static void	 left_add(const uint8_t *, const struct job *);
static int	 left_cmp(const void *, const void *);
static int	 sum_cmp(const void *, const void *);
static void	 left_held(const uint8_t *);
static int	 jobs_release(void);
static void	 register_retry(const struct store_error *);

int
table_cmp(struct table *a, struct table *b)
{
	return (strcmp(a->tb_name, b->tb_name));
}

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

static const struct cron_tz *
zone_get(const char *name)
{
	struct cron_tz	*tz;
	char		 errbuf[256];
	size_t		 i;

	if (name == NULL)
		name = "";
	for (i = 0; i < nzones; i++)
		if (strcmp(zones[i].z_name, name) == 0)
			return (zones[i].z_tz);
	tz = tz_load(*name == '\0' ? NULL : name, errbuf, sizeof(errbuf));
	if (tz == NULL) {
		log_warnx("(CRON) ERROR (%s)", errbuf);
		return (NULL);
	}
	zones = xreallocarray(zones, nzones + 1, sizeof(*zones));
	zones[nzones].z_name = xstrdup(name);
	zones[nzones].z_tz = tz;
	nzones++;
	return (tz);
}

/*
 * A table's pool: the strings, environments and options of its jobs, in
 * blocks freed together when the table is read again or dropped.
 */
#define POOL_BLOCK	(32 * 1024)
struct pool {
	struct pool	*p_next;
	size_t		 p_used;
	size_t		 p_size;
	max_align_t	 p_data[];
};

static void *
pool_alloc(struct pool **pp, size_t size, size_t al)
{
	struct pool	*p = *pp;
	size_t		 bsize;
	void		*v;

	if (p != NULL)
		p->p_used = (p->p_used + al - 1) / al * al;
	if (p == NULL || p->p_used > p->p_size ||
	    p->p_size - p->p_used < size) {
		bsize = size > POOL_BLOCK / 4 ? size : POOL_BLOCK;
		p = xmalloc(sizeof(*p) + bsize);
		p->p_size = bsize;
		p->p_used = 0;
		if (*pp != NULL && bsize != POOL_BLOCK) {
			/* A big one goes behind, the current block stays. */
			p->p_next = (*pp)->p_next;
			(*pp)->p_next = p;
		} else {
			p->p_next = *pp;
			*pp = p;
		}
	}
	v = (char *)p->p_data + p->p_used;
	p->p_used += size;
	return (v);
}

static const char *
pool_str(struct pool **pp, const char *s)
{
	size_t	 len;
	char	*d;

	if (s == NULL)
		return (NULL);
	len = strlen(s) + 1;
	d = pool_alloc(pp, len, 1);
	memcpy(d, s, len);
	return (d);
}

static void
pool_free(struct pool *p)
{
	struct pool	*next;

	for (; p != NULL; p = next) {
		next = p->p_next;
		free(p);
	}
}

/*
 * Copies of what entries share, made once per table: the parser gives
 * consecutive entries the same environment snapshot, and most entries
 * of a table have the same options and owner.
 */
struct share {
	const char *const *s_env_src;
	const char *const *s_env;
	struct cron_opts s_opts_src;
	const char	*s_owner_src;
	const struct jctx *s_ctx;
};

static const char *const *
share_env(struct pool **pp, struct share *sh, const char *const *env)
{
	const char	**d;
	size_t		 n, i;

	if (sh->s_env != NULL && env == sh->s_env_src)
		return (sh->s_env);
	for (n = 0; env[n] != NULL; n++)
		;
	d = pool_alloc(pp, (n + 1) * sizeof(*d), sizeof(void *));
	for (i = 0; i < n; i++)
		d[i] = pool_str(pp, env[i]);
	d[n] = NULL;
	sh->s_env_src = env;
	sh->s_env = d;
	return (d);
}

/* The owner, environment and options of an entry, shared when they can. */
static const struct jctx *
share_ctx(struct pool **pp, struct share *sh, const struct cron_entry *e,
    const char *owner)
{
	struct jctx	*c;

	if (sh->s_ctx != NULL && e->e_env == sh->s_env_src &&
	    strcmp(owner, sh->s_owner_src) == 0 &&
	    memcmp(&e->e_opts, &sh->s_opts_src, sizeof(e->e_opts)) == 0)
		return (sh->s_ctx);
	c = pool_alloc(pp, sizeof(*c), sizeof(max_align_t));
	c->c_opts = e->e_opts;
	c->c_opts.o_name = pool_str(pp, e->e_opts.o_name);
	if (sh->s_ctx != NULL && strcmp(owner, sh->s_owner_src) == 0)
		c->c_owner = sh->s_ctx->c_owner;
	else
		c->c_owner = pool_str(pp, owner);
	c->c_env = share_env(pp, sh, e->e_env);
	memcpy(&sh->s_opts_src, &e->e_opts, sizeof(sh->s_opts_src));
	sh->s_owner_src = c->c_owner;
	sh->s_ctx = c;
	return (c);
}

/*
 * The commands and inputs of a table being loaded, one after the other
 * in one buffer: a job knows its own by offset.
 */
struct text {
	char		*t_v;
	size_t		 t_n;
	size_t		 t_cap;
};

static uint32_t
job_text(struct text *t, const struct cron_entry *e, uint8_t *flags)
{
	size_t	 clen, ilen = 0, off = t->t_n;

	clen = strlen(e->e_cmd) + 1;
	if (e->e_input != NULL) {
		ilen = strlen(e->e_input) + 1;
		*flags |= JOB_INPUT;
	}
	while (t->t_cap - t->t_n < clen + ilen) {
		t->t_cap = t->t_cap == 0 ? 4096 : t->t_cap * 2;
		t->t_v = xreallocarray(t->t_v, t->t_cap, 1);
	}
	memcpy(t->t_v + off, e->e_cmd, clen);
	if (ilen > 0)
		memcpy(t->t_v + off + clen, e->e_input, ilen);
	t->t_n += clen + ilen;
	return ((uint32_t)off);
}

/*
 * Schedules, interned across tables and counted: with many jobs, most
 * share a few schedules.  The key is the parsed schedule, the zone's
 * name and the text as written (which the store records).
 */
static uint32_t
sched_hash(const struct cron_sched *s, const char *zone, const char *when)
{
	uint64_t	 v[4];
	const unsigned char *p;
	uint32_t	 h = 2166136261u;
	size_t		 i;

	v[0] = s->s_sec;
	v[1] = s->s_min;
	v[2] = (uint64_t)s->s_hour << 32 | s->s_dom;
	v[3] = (uint64_t)s->s_mon << 16 | (uint64_t)s->s_dow << 8 |
	    s->s_flags;
	p = (const unsigned char *)v;
	for (i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 16777619u;
	for (p = (const unsigned char *)when; *p != '\0'; p++)
		h = (h ^ *p) * 16777619u;
	if (zone != NULL) {
		h = (h ^ 0xff) * 16777619u;
		for (p = (const unsigned char *)zone; *p != '\0'; p++)
			h = (h ^ *p) * 16777619u;
	}
	return (h);
}

static int
sched_eq(const struct cron_sched *a, const struct cron_sched *b)
{
	return (a->s_sec == b->s_sec && a->s_min == b->s_min &&
	    a->s_hour == b->s_hour && a->s_dom == b->s_dom &&
	    a->s_mon == b->s_mon && a->s_dow == b->s_dow &&
	    a->s_flags == b->s_flags);
}

/* A reference to the shared copy of a schedule, made if need be. */
static const struct jsched *
sched_get(const struct cron_sched *s, const char *zone,
    const struct cron_tz *tz, const char *when)
{
	struct jsched	*js, **v;
	size_t		 i, ncap, wlen, zlen;
	uint32_t	 h;

	h = sched_hash(s, zone, when);
	if (schedcap > 0) {
		for (js = scheds[h & (schedcap - 1)]; js != NULL;
		    js = js->js_next) {
			if (sched_eq(&js->js_sched, s) &&
			    strcmp(js->js_when, when) == 0 &&
			    (js->js_zone == NULL ? zone == NULL :
			    zone != NULL && strcmp(js->js_zone, zone) == 0)) {
				js->js_refs++;
				return (js);
			}
		}
	}
	if (nscheds >= schedcap / 2) {
		ncap = schedcap == 0 ? 64 : schedcap * 2;
		v = xcalloc(ncap, sizeof(*v));
		for (i = 0; i < schedcap; i++) {
			while ((js = scheds[i]) != NULL) {
				scheds[i] = js->js_next;
				h = sched_hash(&js->js_sched, js->js_zone,
				    js->js_when) & (ncap - 1);
				js->js_next = v[h];
				v[h] = js;
			}
		}
		free(scheds);
		scheds = v;
		schedcap = ncap;
		h = sched_hash(s, zone, when);
	}
	wlen = strlen(when) + 1;
	zlen = zone != NULL ? strlen(zone) + 1 : 0;
	js = xmalloc(sizeof(*js) + wlen + zlen);
	js->js_sched = *s;
	js->js_refs = 1;
	js->js_tz = tz;
	memcpy(js->js_when, when, wlen);
	js->js_zone = NULL;
	if (zone != NULL) {
		memcpy(js->js_when + wlen, zone, zlen);
		js->js_zone = js->js_when + wlen;
	}
	js->js_next = scheds[h & (schedcap - 1)];
	scheds[h & (schedcap - 1)] = js;
	nscheds++;
	return (js);
}

static void
sched_put(const struct jsched *cjs)
{
	struct jsched	**pp, *js = (struct jsched *)cjs;
	uint32_t	 h;

	if (js == NULL || --js->js_refs > 0)
		return;
	h = sched_hash(&js->js_sched, js->js_zone, js->js_when);
	for (pp = &scheds[h & (schedcap - 1)]; *pp != js;
	    pp = &(*pp)->js_next)
		;
	*pp = js->js_next;
	nscheds--;
	free(js);
}

/*
 * Set up change detection.  Returns 0, or -1 when inotify is not
 * available (the periodic check then does all the work).
 */
int
tables_init(void)
{
	struct store_url su;
	const char	*p;
	char		*s;

	timer_init(&D.d_scan_timer, scan_timer, NULL);
	timer_init(&D.d_check_timer, check_timer, NULL);

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
	D.d_ino = D.d_noinotify ? -1 :
	    inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	watches_add();
	return (D.d_ino == -1 ? -1 : 0);
}

/*
 * Watch what can be watched; arm the periodic check for the rest.
 */
static void
watches_add(void)
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
		if (D.d_ino == -1) {
			missing = 1;
			continue;
		}
		wd[i] = inotify_add_watch(D.d_ino, dir[i],
		    dmask | (i == SRC_STORE ? IN_MODIFY : 0));
		if (wd[i] == -1) {
			log_debug("cannot watch %s: %s", dir[i],
			    strerror(errno));
			missing = 1;
		}
	}
	if (missing && D.d_conf.c_check_ms > 0 && !D.d_stopping)
		mtimer_set(&D.d_check_timer,
		    D.d_mono_now + D.d_conf.c_check_ms);
}

/* Read what inotify says and mark the sources it concerns. */
void
tables_inotify(void)
{
	char				 buf[8192]
	    __attribute__((__aligned__(__alignof__(struct inotify_event))));
	const struct inotify_event	*ev;
	ssize_t				 n;
	char				*p;
	int				 i, any = 0;

	for (;;) {
		n = read(D.d_ino, buf, sizeof(buf));
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
	if (any && !mtimer_queued(&D.d_scan_timer) && !D.d_stopping)
		mtimer_set(&D.d_scan_timer,
		    D.d_mono_now + DEBOUNCE_MS);
}

static void
scan_timer(struct mtimer *t)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++) {
		if (dirty[i]) {
			dirty[i] = 0;
			scan_source(i, 0);
		}
	}
	for (i = 0; i < SRC_COUNT; i++)
		if (wd[i] == -1)
			break;
	if (i < SRC_COUNT)
		watches_add();
	tables_register(0);
	setproctitle("node %s, %zu jobs", D.d_conf.c_node, D.d_njobs);
}

static void
check_timer(struct mtimer *t)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++)
		dirty[i] = 1;
	scan_timer(t);
	watches_add();
}

/* Scan every source; with force, read every table again. */
void
tables_scan_all(int force)
{
	int	 i;

	for (i = 0; i < SRC_COUNT; i++) {
		dirty[i] = 0;
		scan_source(i, force);
	}
	if (force) {
		tables_register(0);
		setproctitle("node %s, %zu jobs", D.d_conf.c_node,
		    D.d_njobs);
	}
}

/*
 * The stored tables, read again: on MariaDB from the heartbeat (node.c)
 * every store-tables-interval, so that polling adds no wake-up of its
 * own; on SQLite when the database file changes.
 */
void
tables_check_store(void)
{
	scan_source(SRC_STORE, 0);
	tables_register(0);
}

static void
scan_source(enum src s, int force)
{
	struct table		*tb, *next;
	struct store_table	*st = NULL;
	struct store_error	 se;
	struct table		 key;
	size_t			 i, n = 0;
	char			*name;

	switch (s) {
	case SRC_SYSTEM:
		if (*D.d_conf.c_crontab != '\0')
			scan_file(TB_SYSTEM, D.d_conf.c_crontab, NULL, force);
		break;
	case SRC_CROND:
		if (*D.d_conf.c_crondir != '\0')
			scan_dir(TB_CROND, D.d_conf.c_crondir, force);
		break;
	case SRC_SPOOL:
		if (*D.d_conf.c_spool != '\0')
			scan_dir(TB_SPOOL, D.d_conf.c_spool, force);
		break;
	case SRC_STORE:
		if (!D.d_conf.c_store_tables || D.d_st == NULL)
			break;
		if (store_tables_list(D.d_st, &st, &n, &se) == -1) {
			store_failed("reading the stored tables", &se);
			break;
		}
		tabsrv_copies(D.d_tabsrv, st, n);	/* for ctab -l */
		RB_FOREACH(tb, tables, &D.d_tables)
			if (tb->tb_kind == TB_STORE)
				tb->tb_seen = 0;
		for (i = 0; i < n; i++) {
			if (!D.d_root && strcmp(st[i].t_owner, D.d_user) != 0)
				continue;
			xasprintf(&name, "store:%s", st[i].t_owner);
			key.tb_name = name;
			tb = RB_FIND(tables, &D.d_tables, &key);
			if (tb == NULL) {
				tb = xcalloc(1, sizeof(*tb));
				tb->tb_kind = TB_STORE;
				tb->tb_name = name;
				tb->tb_owner = xstrdup(st[i].t_owner);
				RB_INSERT(tables, &D.d_tables, tb);
			} else
				free(name);
			tb->tb_seen = 1;
			if (!force && tb->tb_loaded &&
			    tb->tb_version == st[i].t_version)
				continue;
			tb->tb_version = st[i].t_version;
			table_load(tb, st[i].t_text, strlen(st[i].t_text));
		}
		store_tables_free(st, n);
		RB_FOREACH_SAFE(tb, tables, &D.d_tables, next)
			if (tb->tb_kind == TB_STORE && !tb->tb_seen)
				table_drop(tb);
		break;
	default:
		break;
	}
}

static void
scan_dir(enum tb_kind kind, const char *dir, int force)
{
	struct table	*tb, *next;
	struct dirent	*de;
	DIR		*dp;
	char		*path;

	RB_FOREACH(tb, tables, &D.d_tables)
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
			scan_file(kind, path, de->d_name, force);
			free(path);
		}
		closedir(dp);
	}
	RB_FOREACH_SAFE(tb, tables, &D.d_tables, next)
		if (tb->tb_kind == kind && !tb->tb_seen)
			table_drop(tb);
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
scan_file(enum tb_kind kind, const char *path, const char *user, int force)
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
	tb = RB_FIND(tables, &D.d_tables, &key);
	if (stat(path, &sb) == -1) {
		if (tb != NULL)
			table_drop(tb);
		return;
	}
	if (tb != NULL && !force && stat_same(tb, &sb)) {
		tb->tb_seen = 1;
		return;
	}
	if (tb == NULL) {
		tb = xcalloc(1, sizeof(*tb));
		tb->tb_kind = kind;
		tb->tb_name = xstrdup(path);
		tb->tb_owner = user != NULL && kind == TB_SPOOL ?
		    xstrdup(user) : NULL;
		RB_INSERT(tables, &D.d_tables, tb);
	}
	tb->tb_seen = 1;
	tb->tb_read = 1;
	tb->tb_dev = sb.st_dev;
	tb->tb_ino = sb.st_ino;
	tb->tb_size = sb.st_size;
	tb->tb_mtim = sb.st_mtim;
	tb->tb_ctim = sb.st_ctim;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		log_warn("(CRON) ERROR (%s)", path);
		table_load(tb, NULL, 0);
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
	table_load(tb, buf, len);
	free(buf);
	return;
 bad:
	close(fd);
	table_load(tb, NULL, 0);
}

/*
 * The entries of a system table whose user field names no user of this
 * machine, each logged with its file and line.  Debian's cron refuses
 * such a table as a whole when it reads it ("bad username"), the other
 * users' entries with it, and does not look again until the file
 * changes, even once the user exists; so does the daemon (SIGHUP also
 * reads every table again).  A daemon that is not root takes only its
 * own user's entries, and asks about no one else.
 */
static size_t
users_unknown(const struct table *tb, const struct crontab *ct)
{
	const char	*user, *known = NULL;
	size_t		 i, n = 0;

	if ((tb->tb_kind != TB_SYSTEM && tb->tb_kind != TB_CROND) ||
	    !D.d_root)
		return (0);
	for (i = 0; i < ct->ct_nent; i++) {
		if ((user = ct->ct_ent[i].e_user) == NULL ||
		    (known != NULL && strcmp(user, known) == 0))
			continue;
		if (getpwnam(user) != NULL) {
			known = user;
			continue;
		}
		log_warnx("(CRON) ERROR (%s:%zu: bad username %s: no such "
		    "user)", tb->tb_name, ct->ct_ent[i].e_line, user);
		n++;
	}
	return (n);
}

/*
 * Parse the text and merge the new entries with the table's jobs.  A
 * NULL text (an unreadable or refused file), a table with errors or one
 * that names an unknown user leaves the table without jobs.
 */
static void
table_load(struct table *tb, const char *text, size_t len)
{
	struct crontab	*ct = NULL;
	const struct cron_diag *dg;
	const char	*who;
	size_t		 i;
	int		 r, flags;

	who = tb->tb_owner != NULL ? tb->tb_owner : "CRON";
	if (text != NULL) {
		flags = tb->tb_kind == TB_SYSTEM || tb->tb_kind == TB_CROND ?
		    CRON_SYSTEM : 0;
		r = crontab_parse(tb->tb_name, text, len, flags, &ct);
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
			crontab_free(ct);
			ct = NULL;
		} else if (users_unknown(tb, ct) > 0) {
			log_warnx("(%s) ERROR (%s: table ignored until it "
			    "changes, as it names an unknown user)", who,
			    tb->tb_name);
			crontab_free(ct);
			ct = NULL;
		} else {
			log_info("(%s) %s (%s)", who,
			    tb->tb_loaded ? "RELOAD" : "LOAD", tb->tb_name);
			tb->tb_loaded = 1;
		}
	}
	table_jobs(tb, ct);
}

/* A job in the making, with the entry's place to sort duplicates. */
struct newjob {
	struct job	*n_job;
	size_t		 n_line;
	size_t		 n_kind;
	uint8_t		 n_id[JOB_IDLEN];
};

static int
job_cmp(const void *a, const void *b)
{
	const struct newjob	*na = a, *nb = b;
	int			 c;

	if ((c = memcmp(na->n_id, nb->n_id, JOB_IDLEN)) != 0)
		return (c);
	if (na->n_line != nb->n_line)
		return (na->n_line < nb->n_line ? -1 : 1);
	return (0);
}

/*
 * The kinds of a table being loaded, by value, found again through a
 * hash of their two pointers (an index plus one, 0 for none).
 */
struct kinds {
	struct jkind	*k_v;
	size_t		 k_n;
	size_t		 k_cap;
	uint32_t	*k_hash;
	size_t		 k_hsize;
};

static size_t
kind_slot(const struct kinds *ks, const struct jsched *js,
    const struct jctx *c)
{
	uint64_t	 h;

	h = ((uint64_t)(uintptr_t)js * 0x9e3779b97f4a7c15ULL) ^
	    ((uint64_t)(uintptr_t)c * 0xc2b2ae3d27d4eb4fULL);
	return ((size_t)(h >> 32) & (ks->k_hsize - 1));
}

/*
 * The index of the kind (js, c), added if need be.  The kind holds one
 * reference to js: the caller's is taken, or dropped when the kind was
 * there already.
 */
static size_t
kind_get(struct kinds *ks, const struct jsched *js, const struct jctx *c)
{
	struct jkind	*k;
	size_t		 i, h;

	if (ks->k_n > 0) {
		k = &ks->k_v[ks->k_n - 1];
		if (k->k_sched == js && k->k_ctx == c) {
			sched_put(js);
			return (ks->k_n - 1);
		}
	}
	if (ks->k_hsize > 0) {
		for (h = kind_slot(ks, js, c); ks->k_hash[h] != 0;
		    h = (h + 1) & (ks->k_hsize - 1)) {
			k = &ks->k_v[ks->k_hash[h] - 1];
			if (k->k_sched == js && k->k_ctx == c) {
				sched_put(js);
				return (ks->k_hash[h] - 1);
			}
		}
	}
	if (ks->k_n == ks->k_cap) {
		ks->k_cap = ks->k_cap == 0 ? 16 : ks->k_cap * 2;
		ks->k_v = xreallocarray(ks->k_v, ks->k_cap, sizeof(*ks->k_v));
	}
	if (2 * (ks->k_n + 1) > ks->k_hsize) {
		free(ks->k_hash);
		ks->k_hsize = ks->k_hsize == 0 ? 64 : ks->k_hsize * 2;
		ks->k_hash = xcalloc(ks->k_hsize, sizeof(*ks->k_hash));
		for (i = 0; i < ks->k_n; i++) {
			k = &ks->k_v[i];
			h = kind_slot(ks, k->k_sched, k->k_ctx);
			while (ks->k_hash[h] != 0)
				h = (h + 1) & (ks->k_hsize - 1);
			ks->k_hash[h] = (uint32_t)(i + 1);
		}
	}
	for (h = kind_slot(ks, js, c); ks->k_hash[h] != 0;
	    h = (h + 1) & (ks->k_hsize - 1))
		;
	ks->k_hash[h] = (uint32_t)(ks->k_n + 1);
	ks->k_v[ks->k_n].k_sched = js;
	ks->k_v[ks->k_n].k_ctx = c;
	return (ks->k_n++);
}

/*
 * The row the store keeps of a job (store_jobs_register()), all but
 * its identity: its strings are the job's, borrowed, except a command
 * longer than CMD_SUMMARY, which is cut into buf (CMD_SUMMARY + 1
 * bytes; NULL when the command is not that long).
 */
static void
job_row(const struct job *j, struct store_job *r, char *buf)
{
	memset(r, 0, sizeof(*r));
	r->j_name = (char *)job_opts(j)->o_name;
	r->j_owner = (char *)job_owner(j);
	r->j_sched = (char *)job_sched(j)->js_when;
	r->j_zone = (char *)(job_sched(j)->js_zone != NULL ?
	    job_sched(j)->js_zone : "");
	r->j_cmd = (char *)job_cmd(j);
	if (buf != NULL) {
		memcpy(buf, r->j_cmd, CMD_SUMMARY);
		buf[CMD_SUMMARY] = '\0';
		r->j_cmd = buf;
	}
	r->j_scope = job_opts(j)->o_scope;
	r->j_overlap = job_opts(j)->o_overlap;
	r->j_misfire = job_opts(j)->o_misfire;
	r->j_grace = job_opts(j)->o_grace;
}

/*
 * The columns of a job's row that registering writes, each of which
 * job_row() fills: two jobs of one identity whose rows differ in any
 * of them are a change the store must be told of.  The comparison
 * walks this list, so a column added to the row is compared too once
 * it is listed here.
 */
enum rowtype { ROW_STR, ROW_INT, ROW_U32 };
static const struct rowcol {
	size_t		 rc_off;
	enum rowtype	 rc_type;
} rowcols[] = {
	{ offsetof(struct store_job, j_name), ROW_STR },
	{ offsetof(struct store_job, j_owner), ROW_STR },
	{ offsetof(struct store_job, j_sched), ROW_STR },
	{ offsetof(struct store_job, j_zone), ROW_STR },
	{ offsetof(struct store_job, j_cmd), ROW_STR },
	{ offsetof(struct store_job, j_scope), ROW_INT },
	{ offsetof(struct store_job, j_overlap), ROW_INT },
	{ offsetof(struct store_job, j_misfire), ROW_INT },
	{ offsetof(struct store_job, j_grace), ROW_U32 },
};

/* Whether jobs a and b have the same row in the store. */
static int
row_same(const struct job *a, const struct job *b)
{
	struct store_job	 ra, rb;
	char			 ba[CMD_SUMMARY + 1], bb[CMD_SUMMARY + 1];
	const char		*pa, *pb, *sa, *sb;
	size_t			 i;

	job_row(a, &ra, strlen(job_cmd(a)) > CMD_SUMMARY ? ba : NULL);
	job_row(b, &rb, strlen(job_cmd(b)) > CMD_SUMMARY ? bb : NULL);
	for (i = 0; i < sizeof(rowcols) / sizeof(rowcols[0]); i++) {
		pa = (const char *)&ra + rowcols[i].rc_off;
		pb = (const char *)&rb + rowcols[i].rc_off;
		switch (rowcols[i].rc_type) {
		case ROW_STR:
			memcpy(&sa, pa, sizeof(sa));
			memcpy(&sb, pb, sizeof(sb));
			if (sa == NULL)
				sa = "";
			if (sb == NULL)
				sb = "";
			if (strcmp(sa, sb) != 0)
				return (0);
			break;
		case ROW_INT:
			if (memcmp(pa, pb, sizeof(int)) != 0)
				return (0);
			break;
		case ROW_U32:
			if (memcmp(pa, pb, sizeof(uint32_t)) != 0)
				return (0);
			break;
		}
	}
	return (1);
}

static int
same_sched(const struct job *a, const struct job *b)
{
	const struct jsched	*sa = job_sched(a), *sb = job_sched(b);

	if (sa != sb && (!sched_eq(&sa->js_sched, &sb->js_sched) ||
	    sa->js_tz != sb->js_tz))
		return (0);
	return (job_opts(a)->o_spread == job_opts(b)->o_spread);
}

/*
 * The 32 hex digits of the job's identity, in buf.  A job does not keep
 * its identity (16 bytes a job): it is made again from what the job
 * keeps, which is all the parser made it from.
 */
const char *
job_id(const struct job *j, char buf[CRON_IDLEN + 1])
{
	struct cron_entry	 e;

	memset(&e, 0, sizeof(e));
	e.e_sched = job_sched(j)->js_sched;
	e.e_opts.o_name = job_opts(j)->o_name;
	e.e_cmd = job_cmd(j);
	e.e_input = job_input(j);
	e.e_tz = job_sched(j)->js_zone;
	cron_entry_id(&e, job_owner(j), buf);
	return (buf);
}

/* The command as logged: escaped, and cut at LOGCMD_MAX. */
char *
cmd_escape(const char *cmd)
{
	char	*s;

	if (stravis(&s, cmd, VIS_CSTYLE | VIS_TAB | VIS_NL) == -1)
		fatal("stravis");
	if (strlen(s) > LOGCMD_MAX)
		strlcpy(s + LOGCMD_MAX - 3, "...", 4);
	return (s);
}

const char *
job_label(const struct job *j, char *buf, size_t len)
{
	char	 id[CRON_IDLEN + 1], *cmd;

	cmd = cmd_escape(job_cmd(j));
	snprintf(buf, len, "%s: %s", job_opts(j)->o_name != NULL ?
	    job_opts(j)->o_name : job_id(j, id), cmd);
	free(cmd);
	return (buf);
}

/*
 * Every line about a fire has one shape, so that one grep finds all
 * that happened to a job: the owner, the event, then in parentheses
 * the node, the fire's instant in UTC, what happened when there is more
 * to say (never holding a ';'), and last the job, whose command may
 * hold anything.
 */
void
fire_log(int pri, const char *owner, const char *event, const char *node,
    time_t fire, const char *label, const char *fmt, ...)
{
	va_list	 ap;
	char	 when[32], detail[512];

	fmt_utc(fire, when, sizeof(when));
	detail[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	switch (pri) {
	case LOG_ERR:
		log_warnx("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	case LOG_DEBUG:
		log_debug("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	default:
		log_info("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	}
}

static void
id_hex(const uint8_t *id, char buf[CRON_IDLEN + 1])
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < JOB_IDLEN; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 0xf];
	}
	buf[CRON_IDLEN] = '\0';
}

static void
id_bin(const char *hex, uint8_t *id)
{
	size_t	 i;

	for (i = 0; i < JOB_IDLEN; i++)
		id[i] = (uint8_t)(hexval(hex[2 * i]) << 4 |
		    hexval(hex[2 * i + 1]));
}

/*
 * The identity of the table's job i, from the identities kept since the
 * table was loaded when they still are (see tables_ids_drop()).
 */
const char *
table_job_id(const struct table *tb, size_t i, char buf[CRON_IDLEN + 1])
{
	if (tb->tb_ids != NULL)
		id_hex(tb->tb_ids[i], buf);
	else
		job_id(&tb->tb_jobs[i], buf);
	return (buf);
}

/*
 * The identities of the jobs of the tables loaded last are kept until
 * the jobs are registered and the misfire pass has seen them, which
 * comes right after: then they go, and are made again when needed.
 */
void
tables_ids_drop(void)
{
	struct table	*tb;

	RB_FOREACH(tb, tables, &D.d_tables) {
		free(tb->tb_ids);
		tb->tb_ids = NULL;
	}
}

/*
 * The scheduled instant of the job's queued (or last queued) fire: its
 * timer less the spreading delay and the deferral.
 */
time_t
job_fire(const struct job *j)
{
	int64_t	 when = j->j_timer.t_when;

	if (j->j_flags & JOB_DEFERRED)
		when -= D.d_conf.c_defer_ms;
	return ((time_t)(when / 1000) - (time_t)job_delay(j));
}

/* The job's spreading delay, in seconds after each fire. */
uint32_t
job_delay(const struct job *j)
{
	char	 hex[CRON_IDLEN + 1];
	uint8_t	 id[JOB_IDLEN];

	if (job_opts(j)->o_spread == 0)
		return (0);
	id_bin(job_id(j, hex), id);
	return (job_spread(id, job_opts(j)->o_spread));
}

static int
hexval(char c)
{
	return (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

/*
 * Merge the entries of ct (which is freed here) with the table's jobs,
 * both sorted by identity; see the comment at the top.
 *
 * A table's jobs are one array, without a pointer or an allocation of
 * their own: with many entries those would be a tenth of the daemon.
 * So a job that survives a reload moves to the new array, and what
 * points at it is told: its slot in the wall heap, and the fires in
 * flight or queued for a claim (jobs_moved()).
 */
static void
table_jobs(struct table *tb, struct crontab *ct)
{
	struct job		*nj = NULL, *tmp = NULL, *old, *j, *o;
	struct job		**map = NULL;
	struct newjob		*sorted = NULL;
	uint8_t			(*nids)[JOB_IDLEN] = NULL;
	uint8_t			(*oids)[JOB_IDLEN] = NULL;
	struct kinds		 ks;
	struct text		 text;
	const struct jsched	*js;
	const struct cron_entry	*e;
	const struct cron_tz	*tz;
	struct pool		*pool = NULL;
	struct share		 sh;
	const char		*owner;
	char			 id[CRON_IDLEN + 1];
	size_t			 i, k, n = 0, nold = tb->tb_njobs;
	int			 c;
	time_t			 now = (time_t)(D.d_now / 1000);

	memset(&sh, 0, sizeof(sh));
	memset(&ks, 0, sizeof(ks));
	memset(&text, 0, sizeof(text));
	if (ct != NULL && ct->ct_nent > 0) {
		tmp = xreallocarray(NULL, ct->ct_nent, sizeof(*tmp));
		sorted = xreallocarray(NULL, ct->ct_nent, sizeof(*sorted));
	}
	for (i = 0; ct != NULL && i < ct->ct_nent; i++) {
		e = &ct->ct_ent[i];
		owner = tb->tb_owner != NULL ? tb->tb_owner : e->e_user;
		if (owner == NULL)
			continue;
		if (!D.d_root && strcmp(owner, D.d_user) != 0)
			continue;
		if ((tz = zone_get(e->e_tz)) == NULL) {
			log_warnx("(%s) ERROR (%s:%zu: unknown zone %s, "
			    "entry ignored)", owner, tb->tb_name, e->e_line,
			    e->e_tz);
			continue;
		}
		j = &tmp[n];
		memset(j, 0, sizeof(*j));
		j->j_timer.t_idx = TIMER_IDLE;
		js = sched_get(&e->e_sched, e->e_tz, tz, e->e_when);
		sorted[n].n_kind = kind_get(&ks, js,
		    share_ctx(&pool, &sh, e, owner));
		j->j_text = job_text(&text, e, &j->j_flags);
		cron_entry_id(e, tb->tb_owner, id);
		id_bin(id, sorted[n].n_id);
		sorted[n].n_job = j;
		sorted[n++].n_line = e->e_line;
	}
	/* Everything needed is copied: the parsed table goes. */
	crontab_free(ct);
	free(ks.k_hash);
	if (ks.k_n > 0)
		ks.k_v = xreallocarray(ks.k_v, ks.k_n, sizeof(*ks.k_v));
	if (text.t_n > 0)
		text.t_v = xreallocarray(text.t_v, text.t_n, 1);
	for (i = 0; i < ks.k_n; i++)
		ks.k_v[i].k_text = text.t_v;
	for (i = 0; i < n; i++)
		sorted[i].n_job->j_kind = &ks.k_v[sorted[i].n_kind];
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), job_cmp);
	if (n > 0) {
		nj = xreallocarray(NULL, n, sizeof(*nj));
		nids = xreallocarray(NULL, n, sizeof(*nids));
		for (k = 0; k < n; k++)
			memcpy(nids[k], sorted[k].n_id, JOB_IDLEN);
	}
	old = tb->tb_jobs;
	if (nold > 0) {
		map = xcalloc(nold, sizeof(*map));
		if ((oids = tb->tb_ids) == NULL) {
			oids = xreallocarray(NULL, nold, sizeof(*oids));
			for (i = 0; i < nold; i++)
				id_bin(job_id(&old[i], id), oids[i]);
		}
	}

	/* Merge: old jobs that survive take the new entries. */
	i = k = 0;
	while (i < nold || k < n) {
		if (i == nold)
			c = 1;
		else if (k == n)
			c = -1;
		else
			c = memcmp(oids[i], nids[k], JOB_IDLEN);
		if (c < 0) {
			left_add(oids[i], &old[i]);
			job_free(&old[i++]);
			continue;
		}
		if (c > 0) {
			j = &nj[k];
			*j = *sorted[k++].n_job;
			j->j_flags |= JOB_NEW;
			tb->tb_pending = 1;
			D.d_njobs++;
			if (!D.d_stopping)
				job_schedule(j, now);
			continue;
		}
		/* The old job moves, and takes the new entry. */
		j = sorted[k].n_job;
		o = &nj[k++];
		*o = old[i];
		map[i++] = o;
		if (o->j_timer.t_idx != TIMER_IDLE)
			heap_moved(&D.d_wall, &o->j_timer);
		c = same_sched(o, j);
		if (!row_same(o, j)) {
			o->j_flags |= JOB_NEW;
			tb->tb_pending = 1;
		}
		o->j_kind = j->j_kind;
		o->j_text = j->j_text;
		o->j_flags = (uint8_t)((o->j_flags & ~JOB_INPUT) |
		    (j->j_flags & JOB_INPUT));
		if (!c && !D.d_stopping)
			job_schedule(o, now);
	}
	if (nold > 0)
		jobs_moved(old, nold, map);
	free(map);
	free(oids);
	free(sorted);
	free(tmp);
	free(old);
	tb->tb_ids = nids;
	reloaded = 1;
	tb->tb_jobs = nj;
	tb->tb_njobs = n;
	for (i = 0; i < tb->tb_nkinds; i++)
		sched_put(tb->tb_kinds[i].k_sched);
	free(tb->tb_kinds);
	tb->tb_kinds = ks.k_v;
	tb->tb_nkinds = ks.k_n;
	free(tb->tb_text);
	tb->tb_text = text.t_v;
	pool_free(tb->tb_pool);
	tb->tb_pool = pool;
}

/*
 * The jobs of array old moved, old[i] to map[i] (NULL for a job that
 * went away, whose fires were detached already): the fires pointing at
 * them follow.
 */
static void
jobs_moved(struct job *old, size_t nold, struct job **map)
{
	struct fire	*f;
	uintptr_t	 lo = (uintptr_t)old, hi = (uintptr_t)(old + nold);

	LIST_FOREACH(f, &D.d_fires, f_entry) {
		if (f->f_job != NULL && (uintptr_t)f->f_job >= lo &&
		    (uintptr_t)f->f_job < hi)
			f->f_job = map[f->f_job - old];
	}
	fire_moved(old, nold, map);
}

static void
job_free(struct job *j)
{
	heap_del(&D.d_wall, &j->j_timer);
	fire_forget(j);
	run_detach_job(j);
	D.d_njobs--;
}

static void
table_drop(struct table *tb)
{
	log_info("(%s) REMOVED (%s)", tb->tb_owner != NULL ? tb->tb_owner :
	    "CRON", tb->tb_name);
	table_jobs(tb, NULL);
	RB_REMOVE(tables, &D.d_tables, tb);
	free(tb->tb_name);
	free(tb->tb_owner);
	free(tb);
}

void
tables_free(void)
{
	struct table	*tb, *next;
	size_t		 i;

	RB_FOREACH_SAFE(tb, tables, &D.d_tables, next) {
		table_jobs(tb, NULL);
		RB_REMOVE(tables, &D.d_tables, tb);
		free(tb->tb_name);
		free(tb->tb_owner);
		free(tb);
	}
	free(scheds);
	scheds = NULL;
	nscheds = schedcap = 0;
	free(left);
	left = NULL;
	nleft = leftcap = 0;
	for (i = 0; i < nzones; i++) {
		free(zones[i].z_name);
		tz_free(zones[i].z_tz);
	}
	free(zones);
	zones = NULL;
	nzones = 0;
	free(sysdir);
	free(sysbase);
	free(dbdir);
	free(dbbase);
	if (D.d_ino != -1)
		close(D.d_ino);
}

/*
 * Queue the job's next fire strictly after `after' (UTC seconds), at
 * that instant plus its spreading delay.
 */
void
job_schedule(struct job *j, time_t after)
{
	const struct jsched	*js = job_sched(j);
	time_t			 next;

	if (js->js_sched.s_flags & SCHED_REBOOT ||
	    sched_next(&js->js_sched, js->js_tz, after, &next) == -1) {
		heap_del(&D.d_wall, &j->j_timer);
		return;
	}
	j->j_flags &= ~JOB_DEFERRED;
	heap_set(&D.d_wall, &j->j_timer,
	    ((int64_t)next + job_delay(j)) * 1000);
}

/* After a big jump of the clock: every job from the present. */
void
jobs_reschedule_all(void)
{
	struct table	*tb;
	size_t		 i;
	time_t		 now = (time_t)(D.d_now / 1000);

	RB_FOREACH(tb, tables, &D.d_tables)
		for (i = 0; i < tb->tb_njobs; i++)
			job_schedule(&tb->tb_jobs[i], now);
}

/* Start the @reboot entries, on this node, unclaimed. */
void
jobs_reboot(void)
{
	struct table	*tb;
	struct job	*j;
	size_t		 i;

	RB_FOREACH(tb, tables, &D.d_tables) {
		for (i = 0; i < tb->tb_njobs; i++) {
			j = &tb->tb_jobs[i];
			if (job_sched(j)->js_sched.s_flags & SCHED_REBOOT)
				run_start(j, (time_t)(D.d_now / 1000), 0, 0);
		}
	}
}

/*
 * Register in the store the jobs that are new or changed, and let go
 * of those that left every table; with all set (or while the store is
 * owed it), hand it every job as this node's whole set instead.  On
 * failure they stay pending and go with the next registration, which
 * comes when the store is back or, when another node held the lock of
 * the jobs, a moment later.  The records borrow the jobs' strings; only
 * the hex identities and the summaries of long commands are made for
 * the call, and freed after it.
 */
void
tables_register(int all)
{
	struct table		*tb;
	struct job		*j;
	struct store_job	*sj = NULL, *r;
	struct store_error	 se;
	char			(*ids)[CRON_IDLEN + 1] = NULL;
	char			**cmds = NULL;
	size_t			 i, n = 0, k = 0, ncmds = 0, gone = 0;
	int			 sync, rc;

	if (D.d_st == NULL)
		goto out;
	sync = all || sync_owed;
	RB_FOREACH(tb, tables, &D.d_tables) {
		if (!sync && !tb->tb_pending)
			continue;
		for (i = 0; i < tb->tb_njobs; i++)
			if (sync || tb->tb_jobs[i].j_flags & JOB_NEW)
				n++;
	}
	if (n > 0) {
		sj = xcalloc(n, sizeof(*sj));
		ids = xreallocarray(NULL, n, sizeof(*ids));
	}
	RB_FOREACH(tb, tables, &D.d_tables) {
		if (!sync && !tb->tb_pending)
			continue;
		for (i = 0; i < tb->tb_njobs; i++) {
			j = &tb->tb_jobs[i];
			if (!sync && !(j->j_flags & JOB_NEW))
				continue;
			r = &sj[k];
			if (strlen(job_cmd(j)) > CMD_SUMMARY) {
				cmds = xreallocarray(cmds, ncmds + 1,
				    sizeof(*cmds));
				cmds[ncmds] = xmalloc(CMD_SUMMARY + 1);
				job_row(j, r, cmds[ncmds++]);
			} else
				job_row(j, r, NULL);
			r->j_id = (char *)table_job_id(tb, i, ids[k]);
			k++;
		}
	}
	if (sync)
		rc = store_jobs_sync(D.d_st, sj, n, &gone, &se);
	else
		rc = n > 0 ? store_jobs_register(D.d_st, sj, n, &se) : 0;
	if (rc == -1)
		register_retry(&se);
	else {
		RB_FOREACH(tb, tables, &D.d_tables) {
			if (!tb->tb_pending)
				continue;
			for (i = 0; i < tb->tb_njobs; i++)
				tb->tb_jobs[i].j_flags &= ~JOB_NEW;
			tb->tb_pending = 0;
		}
		if (sync) {
			/* What this node held and has no longer went too. */
			sync_owed = 0;
			nleft = 0;
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
	if (rc == 0 && nleft > 0)
		(void)jobs_release();
 out:
	/* The misfire pass after a registration of all needs them. */
	if (!all)
		tables_ids_drop();
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

/* A failed registration goes again later (see tables_register()). */
static void
register_retry(const struct store_error *se)
{
	store_failed("registering jobs", se);
	if (se->se_class == STORE_CONFLICT && !D.d_stopping &&
	    !mtimer_queued(&D.d_scan_timer))
		mtimer_set(&D.d_scan_timer, D.d_mono_now + REGISTER_RETRY_MS);
}

/*
 * FNV-1a over the job's owner and command: jobs of the same identity
 * have the same sum, and two jobs of different sums have different
 * identities, which costs a hash of the whole entry to make.
 */
static uint32_t
job_sum(const struct job *j)
{
	const unsigned char	*p;
	uint32_t		 h = 2166136261u;

	for (p = (const unsigned char *)job_owner(j); *p != '\0'; p++)
		h = (h ^ *p) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (p = (const unsigned char *)job_cmd(j); *p != '\0'; p++)
		h = (h ^ *p) * 16777619u;
	return (h);
}

/* Job j of identity id left a table: let go of it at the registration. */
static void
left_add(const uint8_t *id, const struct job *j)
{
	if (nleft == leftcap) {
		leftcap = leftcap == 0 ? 64 : leftcap * 2;
		left = xreallocarray(left, leftcap, sizeof(*left));
	}
	memcpy(left[nleft].l_id, id, JOB_IDLEN);
	left[nleft].l_sum = job_sum(j);
	left[nleft++].l_held = 0;
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
	struct left	*l;

	if ((l = bsearch(id, left, nleft, sizeof(*left), left_cmp)) != NULL)
		l->l_held = 1;
}

/*
 * Let go of the jobs that left their tables and are in no other table
 * of this node (the same entry may be in two: a spool table and the
 * stored table it was imported into).  A table's identities are at
 * hand for a while after it was read (tb_ids); otherwise only the jobs
 * whose owner and command hash as one that left have theirs made, so
 * that a table removed beside 100,000 jobs costs no 100,000 hashes of
 * whole entries.  Returns 0, or -1 when the store failed: they are
 * kept for the next registration.
 */
static int
jobs_release(void)
{
	struct table		*tb;
	struct store_error	 se;
	char			(*hex)[CRON_IDLEN + 1], buf[CRON_IDLEN + 1];
	const char		**ids;
	uint32_t		*sums, sum;
	uint8_t			 id[JOB_IDLEN];
	size_t			 i, k, n = 0, gone;
	int			 rc = 0;

	qsort(left, nleft, sizeof(*left), left_cmp);
	for (i = k = 0; i < nleft; i++)
		if (k == 0 || memcmp(left[k - 1].l_id, left[i].l_id,
		    JOB_IDLEN) != 0)
			left[k++] = left[i];
	nleft = k;
	sums = xreallocarray(NULL, nleft, sizeof(*sums));
	for (i = 0; i < nleft; i++) {
		left[i].l_held = 0;
		sums[i] = left[i].l_sum;
	}
	qsort(sums, nleft, sizeof(*sums), sum_cmp);
	RB_FOREACH(tb, tables, &D.d_tables) {
		for (i = 0; i < tb->tb_njobs; i++) {
			if (tb->tb_ids != NULL) {
				left_held(tb->tb_ids[i]);
				continue;
			}
			sum = job_sum(&tb->tb_jobs[i]);
			if (bsearch(&sum, sums, nleft, sizeof(*sums),
			    sum_cmp) == NULL)
				continue;
			id_bin(job_id(&tb->tb_jobs[i], buf), id);
			left_held(id);
		}
	}
	free(sums);
	hex = xreallocarray(NULL, nleft, sizeof(*hex));
	ids = xreallocarray(NULL, nleft, sizeof(*ids));
	for (i = 0; i < nleft; i++) {
		if (left[i].l_held)
			continue;
		id_hex(left[i].l_id, hex[n]);
		ids[n] = hex[n];
		n++;
	}
	if (n > 0 && store_jobs_release(D.d_st, ids, n, &gone, &se) == -1) {
		register_retry(&se);
		rc = -1;
	} else {
		nleft = 0;
		if (n > 0)
			log_debug("(CRON) JOBS (%zu let go of, %zu left the "
			    "store)", n, gone);
	}
	free(hex);
	free(ids);
	return (rc);
}
