/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * jobtab.c: the tables the daemon runs, their jobs, and the wall-clock
 * timers of the jobs' fires.  Below fire.c and above gate.c in the
 * daemon's chain (daemon.h): it calls only the timer queues and the
 * log.  Where the tables come from, and registering their jobs in the
 * store, is loader.c's.
 *
 * Reloading a table keeps what did not change.  Its jobs are sorted by
 * identity and merged with the new entries (table_load()): a job whose
 * identity survives keeps its timer, and so its queued fire, and is
 * rescheduled only if its schedule, zone or spreading changed, and
 * registered again only if its row in the store changed; new jobs are
 * scheduled and registered; jobs that went away are handed back to the
 * loader, which lets go of them in the store.  So the work of a reload
 * is proportional to the tables that changed, not to all the jobs.
 *
 * Memory.  A table's jobs are one array, without a pointer or an
 * allocation of their own: with many entries those would be a tenth of
 * the daemon.  What jobs share is shared (daemon.h: kinds, schedules,
 * contexts, one text buffer per table), and a job keeps 32 bytes.
 *
 * Handles.  A reload replaces a table's array, so a job's address is
 * good for one turn of the loop only, and nothing outside this file
 * keeps one.  What must find a job again later (a fire waiting for its
 * claim, a claim in doubt) keeps a handle (table slot, generation,
 * index) and the job's identity: job_get() returns the job the handle
 * names while the table's generation is the same, and otherwise looks
 * the identity up again.  The only addresses that follow a job to its
 * new array are those of the wall-clock heap, which this file owns.
 */

#include <sys/tree.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustercron.h"
#include "common.h"
#include "daemon.h"
#include "store.h"

struct share;
struct kinds;
struct text;

/* The tables, by name, and by slot for the handles. */
static struct tables	 tables = RB_INITIALIZER(&tables);
static struct table	**slots;
static size_t		 nslots;
static uint32_t		 gens;		/* the last generation given */
static size_t		 njobs;
static uint64_t		 cluster_sum;	/* jobtab_sum() */

/* The jobs' fires, by the wall-clock instant their timers are due. */
static struct heap	 wall = HEAP_INIT(struct job, j_due, j_idx);

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

RB_GENERATE(tables, table, tb_entry, table_cmp);

static const struct cron_tz *zone_get(const char *);
static int	 job_cmp(const void *, const void *);
static void	 job_gone(struct job *, const uint8_t *, struct leftjobs *);
static uint64_t	 id_part(const struct job *, const uint8_t *);
static void	 left_add(struct leftjobs *, const uint8_t *,
		    const struct job *);
static void	*pool_alloc(struct pool **, size_t, size_t);
static const char *pool_str(struct pool **, const char *);
static void	 pool_free(struct pool *);
static const char *const *share_env(struct pool **, struct share *,
		    const char *const *);
static const struct jctx *share_ctx(struct pool **, struct share *,
		    const struct cron_entry *, const char *);
static uint32_t	 job_text(struct text *, const struct cron_entry *,
		    unsigned int *);
static int	 same_sched(const struct job *, const struct job *);
static int	 row_same(const struct job *, const struct job *);
static uint32_t	 sched_hash(const struct cron_sched *, const char *,
		    const char *);
static int	 sched_eq(const struct cron_sched *,
		    const struct cron_sched *);
static const struct jsched *sched_get(const struct cron_sched *,
		    const char *, const struct cron_tz *, const char *);
static void	 sched_put(const struct jsched *);
static int	 hexval(char);
static size_t	 kind_slot(const struct kinds *, const struct jsched *,
		    const struct jctx *);
static size_t	 kind_get(struct kinds *, const struct jsched *,
		    const struct jctx *);
static struct table *job_table(const struct job *);
static struct job *table_find_id(const struct table *, const char *);
static void	 iter_down(struct jobiter *, size_t);
static int	 iter_at(const struct jobiter *, struct jobsrc *);

int
table_cmp(struct table *a, struct table *b)
{
	return (strcmp(a->tb_name, b->tb_name));
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
 * of a table have the same options and owner.  A new snapshot differs
 * from the one before by a variable or two, at the same places (the
 * parser sets a variable in its place or adds it at the end, and keeps
 * the text of the others): each text is copied once per table, not
 * once per snapshot, whose copies would otherwise grow with the
 * square of the table (a megabyte table once cost 900 MB).
 */
struct share {
	const char *const *s_env_src;
	const char *const *s_env;
	size_t		 s_env_n;
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
		d[i] = sh->s_env != NULL && i < sh->s_env_n &&
		    env[i] == sh->s_env_src[i] ? sh->s_env[i] :
		    pool_str(pp, env[i]);
	d[n] = NULL;
	sh->s_env_src = env;
	sh->s_env = d;
	sh->s_env_n = n;
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
job_text(struct text *t, const struct cron_entry *e, unsigned int *flags)
{
	size_t	 clen, ilen = 0, off = t->t_n;

	clen = strlen(e->e_cmd) + 1;
	if (e->e_input != NULL) {
		ilen = strlen(e->e_input) + 1;
		*flags |= JOB_INPUT;
	}
	/* The loader reads no table that long (TABLE_MAX). */
	if (t->t_n + clen + ilen > JOB_TEXTMAX)
		fatalx("a table's text is over %u bytes", JOB_TEXTMAX);
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

/* A job in the making, with the entry's place to sort duplicates. */
struct newjob {
	struct job	 n_job;
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
 * longer than JOB_CMDSUM, which is cut into buf (JOB_CMDSUM + 1
 * bytes; NULL when the command is not that long).
 */
void
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
		memcpy(buf, r->j_cmd, JOB_CMDSUM);
		buf[JOB_CMDSUM] = '\0';
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
	char			 ba[JOB_CMDSUM + 1], bb[JOB_CMDSUM + 1];
	const char		*pa, *pb, *sa, *sb;
	size_t			 i;

	job_row(a, &ra, strlen(job_cmd(a)) > JOB_CMDSUM ? ba : NULL);
	job_row(b, &rb, strlen(job_cmd(b)) > JOB_CMDSUM ? bb : NULL);
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

void
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

void
id_bin(const char *hex, uint8_t *id)
{
	size_t	 i;

	for (i = 0; i < JOB_IDLEN; i++)
		id[i] = (uint8_t)(hexval(hex[2 * i]) << 4 |
		    hexval(hex[2 * i + 1]));
}

/*
 * The identity of the table's job i.  A table does not keep its jobs'
 * identities after a load (1.6 MB for 100,000, at the daemon's peak):
 * registering and the misfire pass make them again, some 1 us a job.
 */
const char *
table_job_id(const struct table *tb, size_t i, char buf[CRON_IDLEN + 1])
{
	return (job_id(&tb->tb_jobs[i], buf));
}

static int
hexval(char c)
{
	return (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

/* The next job of one table, in a jobiter's heap. */
struct jobsrc {
	struct table	*s_tb;
	size_t		 s_i;
	char		 s_id[CRON_IDLEN + 1];	/* of job s_i */
};

static void
iter_down(struct jobiter *it, size_t i)
{
	struct jobsrc	 t;
	size_t		 c;

	for (; (c = 2 * i + 1) < it->ji_n; i = c) {
		if (c + 1 < it->ji_n &&
		    strcmp(it->ji_h[c + 1].s_id, it->ji_h[c].s_id) < 0)
			c++;
		if (strcmp(it->ji_h[i].s_id, it->ji_h[c].s_id) <= 0)
			break;
		t = it->ji_h[i];
		it->ji_h[i] = it->ji_h[c];
		it->ji_h[c] = t;
	}
}

/*
 * Move s to its table's next job from s_i on (with ji_new, the next to
 * register) and make its identity; 0 when there is none.
 */
static int
iter_at(const struct jobiter *it, struct jobsrc *s)
{
	struct table	*tb = s->s_tb;

	if (it->ji_new)
		while (s->s_i < tb->tb_njobs &&
		    !(tb->tb_jobs[s->s_i].j_flags & JOB_NEW))
			s->s_i++;
	if (s->s_i == tb->tb_njobs)
		return (0);
	job_id(&tb->tb_jobs[s->s_i], s->s_id);
	return (1);
}

void
jobiter_start(struct jobiter *it, int only_new)
{
	struct table	*tb;
	size_t		 i;

	it->ji_n = 0;
	it->ji_new = only_new;
	RB_FOREACH(tb, tables, &tables) {
		if (tb->tb_njobs == 0 || (only_new && !tb->tb_pending))
			continue;
		it->ji_h = xreallocarray(it->ji_h, it->ji_n + 1,
		    sizeof(*it->ji_h));
		it->ji_h[it->ji_n].s_tb = tb;
		it->ji_h[it->ji_n].s_i = 0;
		if (iter_at(it, &it->ji_h[it->ji_n]))
			it->ji_n++;
	}
	for (i = it->ji_n / 2; i-- > 0; )
		iter_down(it, i);
}

int
jobiter_next(struct jobiter *it, struct table **tb, size_t *i,
    char id[CRON_IDLEN + 1])
{
	struct jobsrc	*s;

	if (it->ji_n == 0)
		return (0);
	s = &it->ji_h[0];
	*tb = s->s_tb;
	*i = s->s_i;
	memcpy(id, s->s_id, CRON_IDLEN + 1);
	s->s_i++;
	if (!iter_at(it, s))
		it->ji_h[0] = it->ji_h[--it->ji_n];
	iter_down(it, 0);
	return (1);
}

void
jobiter_free(struct jobiter *it)
{
	free(it->ji_h);
	memset(it, 0, sizeof(*it));
}

/*
 * FNV-1a over the job's owner and command: jobs of the same identity
 * have the same sum, and two jobs of different sums have different
 * identities, which costs a hash of the whole entry to make.
 */
uint32_t
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

/*
 * Table handles: the slot of each table, reused once its table is gone,
 * and generations never given twice.
 */
static void
slot_take(struct table *tb)
{
	size_t	 i;

	for (i = 0; i < nslots && slots[i] != NULL; i++)
		;
	if (i == nslots) {
		slots = xreallocarray(slots, nslots + 1, sizeof(*slots));
		nslots++;
	}
	slots[i] = tb;
	tb->tb_slot = (uint32_t)i;
	tb->tb_gen = ++gens;
}

struct tables *
jobtab_tables(void)
{
	return (&tables);
}

size_t
jobtab_count(void)
{
	return (njobs);
}

uint64_t
jobtab_sum(void)
{
	return (cluster_sum);
}

/* A job's part of jobtab_sum(), id its identity. */
static uint64_t
id_part(const struct job *j, const uint8_t *id)
{
	uint64_t	 v;

	if (job_opts(j)->o_scope != SCOPE_CLUSTER)
		return (0);
	memcpy(&v, id, sizeof(v));
	return (v);
}

/* The table of that name, made (empty, strings copied) if need be. */
struct table *
table_get(enum tb_kind kind, const char *name, const char *owner)
{
	struct table	 key, *tb;

	key.tb_name = (char *)name;
	if ((tb = RB_FIND(tables, &tables, &key)) != NULL)
		return (tb);
	tb = xcalloc(1, sizeof(*tb));
	tb->tb_kind = kind;
	tb->tb_name = xstrdup(name);
	tb->tb_owner = owner != NULL ? xstrdup(owner) : NULL;
	slot_take(tb);
	RB_INSERT(tables, &tables, tb);
	return (tb);
}

/* Job j of identity id leaves its table: the loader lets go of it. */
static void
left_add(struct leftjobs *lj, const uint8_t *id, const struct job *j)
{
	if (lj->lj_n == lj->lj_cap) {
		lj->lj_cap = lj->lj_cap == 0 ? 64 : lj->lj_cap * 2;
		lj->lj_v = xreallocarray(lj->lj_v, lj->lj_cap,
		    sizeof(*lj->lj_v));
	}
	memcpy(lj->lj_v[lj->lj_n].l_id, id, JOB_IDLEN);
	lj->lj_v[lj->lj_n].l_sum = job_sum(j);
	lj->lj_v[lj->lj_n].l_held = 0;
	lj->lj_n++;
}

static void
job_gone(struct job *j, const uint8_t *id, struct leftjobs *lj)
{
	heap_del(&wall, j);
	left_add(lj, id, j);
	njobs--;
}

/*
 * A table being loaded: its new jobs, sorted once all are in, with
 * what they share; and the entries left out for an unknown zone, said
 * only when the table is taken.
 */
struct badzone {
	size_t		 z_line;
	char		*z_owner;
	char		*z_zone;
};
struct tload {
	struct table	*l_tb;
	struct newjob	*l_new;
	size_t		 l_n;
	size_t		 l_cap;
	struct kinds	 l_ks;
	struct text	 l_text;
	struct pool	*l_pool;
	struct share	 l_sh;
	struct badzone	*l_bad;
	size_t		 l_nbad;
};

struct tload *
table_load_begin(struct table *tb)
{
	struct tload	*l;

	l = xcalloc(1, sizeof(*l));
	l->l_tb = tb;
	return (l);
}

/* One entry: what its job needs is copied, the entry is not kept. */
void
table_load_entry(struct tload *l, const struct cron_entry *e)
{
	struct table		*tb = l->l_tb;
	struct newjob		*nw;
	struct job		*j;
	const struct jsched	*js;
	const struct cron_tz	*tz;
	const char		*owner;
	char			 id[CRON_IDLEN + 1];
	unsigned int		 flags;

	owner = tb->tb_owner != NULL ? tb->tb_owner : e->e_user;
	if (owner == NULL)
		return;
	if (!D.d_root && strcmp(owner, D.d_user) != 0)
		return;
	if ((tz = zone_get(e->e_tz)) == NULL) {
		l->l_bad = xreallocarray(l->l_bad, l->l_nbad + 1,
		    sizeof(*l->l_bad));
		l->l_bad[l->l_nbad].z_line = e->e_line;
		l->l_bad[l->l_nbad].z_owner = xstrdup(owner);
		l->l_bad[l->l_nbad].z_zone = xstrdup(e->e_tz);
		l->l_nbad++;
		return;
	}
	if (l->l_n == l->l_cap) {
		l->l_cap = l->l_cap == 0 ? 64 : l->l_cap * 2;
		l->l_new = xreallocarray(l->l_new, l->l_cap,
		    sizeof(*l->l_new));
	}
	nw = &l->l_new[l->l_n++];
	j = &nw->n_job;
	memset(j, 0, sizeof(*j));
	j->j_idx = TIMER_IDLE;
	js = sched_get(&e->e_sched, e->e_tz, tz, e->e_when);
	nw->n_kind = kind_get(&l->l_ks, js,
	    share_ctx(&l->l_pool, &l->l_sh, e, owner));
	flags = 0;
	j->j_text = job_text(&l->l_text, e, &flags);
	j->j_flags = flags;
	cron_entry_id(e, tb->tb_owner, id);
	id_bin(id, nw->n_id);
	nw->n_line = e->e_line;
}

static void
badzones_free(struct tload *l)
{
	size_t	 i;

	for (i = 0; i < l->l_nbad; i++) {
		free(l->l_bad[i].z_owner);
		free(l->l_bad[i].z_zone);
	}
	free(l->l_bad);
}

void
table_load_abort(struct tload *l)
{
	size_t	 i;

	if (l == NULL)
		return;
	for (i = 0; i < l->l_ks.k_n; i++)
		sched_put(l->l_ks.k_v[i].k_sched);
	free(l->l_ks.k_v);
	free(l->l_ks.k_hash);
	free(l->l_text.t_v);
	pool_free(l->l_pool);
	free(l->l_new);
	badzones_free(l);
	free(l);
}

/*
 * Merge the entries of ct (which is freed here) with the table's jobs,
 * both sorted by identity; see the comment at the top and daemon.h.
 */
void
table_load(struct table *tb, struct crontab *ct, time_t now, int stopping,
    struct leftjobs *lj)
{
	struct tload	*l;
	size_t		 i;

	l = table_load_begin(tb);
	for (i = 0; ct != NULL && i < ct->ct_nent; i++)
		table_load_entry(l, &ct->ct_ent[i]);
	/* Everything needed is copied: the parsed table goes. */
	crontab_free(ct);
	table_load_end(tb, l, now, stopping, lj);
}

/*
 * Merge the new jobs of l (freed here; NULL: none) with the table's
 * jobs, both sorted by identity.  A survivor moves to the new array
 * with its timer, whose slot in the wall heap follows it; the table's
 * generation changes, so that the handles of the old array are looked
 * up again by identity.
 */
void
table_load_end(struct table *tb, struct tload *l, time_t now, int stopping,
    struct leftjobs *lj)
{
	struct job		*nj = NULL, *old, *j, *o;
	struct newjob		*sorted = NULL;
	uint8_t			(*oids)[JOB_IDLEN] = NULL;
	struct kinds		 ks;
	struct text		 text;
	struct pool		*pool = NULL;
	char			 id[CRON_IDLEN + 1];
	size_t			 i, k, n = 0, nold = tb->tb_njobs;
	uint64_t		 sum = 0;
	int			 c;

	memset(&ks, 0, sizeof(ks));
	memset(&text, 0, sizeof(text));
	if (l != NULL) {
		for (i = 0; i < l->l_nbad; i++)
			log_warnx("(%s) ERROR (%s:%zu: unknown zone %s, "
			    "entry ignored)", l->l_bad[i].z_owner,
			    tb->tb_name, l->l_bad[i].z_line,
			    l->l_bad[i].z_zone);
		badzones_free(l);
		sorted = l->l_new;
		n = l->l_n;
		ks = l->l_ks;
		text = l->l_text;
		pool = l->l_pool;
		free(l);
	}
	free(ks.k_hash);
	if (ks.k_n > 0)
		ks.k_v = xreallocarray(ks.k_v, ks.k_n, sizeof(*ks.k_v));
	if (text.t_n > 0)
		text.t_v = xreallocarray(text.t_v, text.t_n, 1);
	for (i = 0; i < ks.k_n; i++) {
		ks.k_v[i].k_text = text.t_v;
		ks.k_v[i].k_table = tb;
	}
	for (i = 0; i < n; i++)
		sorted[i].n_job.j_kind = &ks.k_v[sorted[i].n_kind];
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), job_cmp);
	if (n > 0)
		nj = xreallocarray(NULL, n, sizeof(*nj));
	old = tb->tb_jobs;
	if (nold > 0) {
		oids = xreallocarray(NULL, nold, sizeof(*oids));
		for (i = 0; i < nold; i++)
			id_bin(job_id(&old[i], id), oids[i]);
	}

	/* Merge: old jobs that survive take the new entries. */
	i = k = 0;
	while (i < nold || k < n) {
		if (i == nold)
			c = 1;
		else if (k == n)
			c = -1;
		else
			c = memcmp(oids[i], sorted[k].n_id, JOB_IDLEN);
		if (c < 0) {
			job_gone(&old[i], oids[i], lj);
			i++;
			continue;
		}
		if (c > 0) {
			j = &nj[k];
			*j = sorted[k].n_job;
			sum += id_part(j, sorted[k++].n_id);
			j->j_flags |= JOB_NEW;
			tb->tb_pending = 1;
			njobs++;
			if (!stopping)
				job_schedule(j, now, NULL);
			continue;
		}
		/* The old job moves, and takes the new entry. */
		j = &sorted[k].n_job;
		sum += id_part(j, sorted[k].n_id);
		o = &nj[k++];
		*o = old[i++];
		if (o->j_idx != TIMER_IDLE)
			heap_moved(&wall, o);
		c = same_sched(o, j);
		if (!row_same(o, j)) {
			o->j_flags |= JOB_NEW;
			tb->tb_pending = 1;
		}
		o->j_kind = j->j_kind;
		o->j_text = j->j_text;
		o->j_flags = (o->j_flags & ~JOB_INPUT) |
		    (j->j_flags & JOB_INPUT);
		if (!c && !stopping)
			job_schedule(o, now, NULL);
	}
	free(oids);
	free(sorted);
	free(old);
	tb->tb_gen = ++gens;
	cluster_sum += sum - tb->tb_sum;
	tb->tb_sum = sum;
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

/* Take a table away with its jobs (appended to lj). */
void
table_drop(struct table *tb, struct leftjobs *lj)
{
	table_load(tb, NULL, 0, 1, lj);
	RB_REMOVE(tables, &tables, tb);
	slots[tb->tb_slot] = NULL;
	free(tb->tb_name);
	free(tb->tb_owner);
	free(tb);
}

void
jobtab_free(void)
{
	struct table	*tb, *next;
	struct leftjobs	 lj;
	size_t		 i;

	memset(&lj, 0, sizeof(lj));
	RB_FOREACH_SAFE(tb, tables, &tables, next)
		table_drop(tb, &lj);
	free(lj.lj_v);
	free(slots);
	slots = NULL;
	nslots = 0;
	heap_free(&wall);
	free(scheds);
	scheds = NULL;
	nscheds = schedcap = 0;
	for (i = 0; i < nzones; i++) {
		free(zones[i].z_name);
		tz_free(zones[i].z_tz);
	}
	free(zones);
	zones = NULL;
	nzones = 0;
}

/* The table a job is in: its kind knows. */
static struct table *
job_table(const struct job *j)
{
	return (j->j_kind->k_table);
}

void
job_ref(const struct table *tb, size_t i, struct jobref *ref)
{
	ref->jr_slot = tb->tb_slot;
	ref->jr_gen = tb->tb_gen;
	ref->jr_index = (uint32_t)i;
}

/*
 * The job of identity id in the table, or NULL: a binary search, the
 * table's jobs being sorted by identity.
 */
static struct job *
table_find_id(const struct table *tb, const char *id)
{
	size_t	 lo, hi, k;
	int	 c;
	char	 buf[CRON_IDLEN + 1];

	for (lo = 0, hi = tb->tb_njobs; lo < hi; ) {
		k = lo + (hi - lo) / 2;
		c = strcmp(table_job_id(tb, k, buf), id);
		if (c == 0)
			return (&tb->tb_jobs[k]);
		if (c < 0)
			lo = k + 1;
		else
			hi = k;
	}
	return (NULL);
}

struct job *
job_get(struct jobref *ref, const char *id)
{
	struct table	*tb = NULL;
	struct job	*j;

	if (ref->jr_slot < nslots)
		tb = slots[ref->jr_slot];
	if (tb != NULL && tb->tb_gen == ref->jr_gen &&
	    ref->jr_index < tb->tb_njobs)
		return (&tb->tb_jobs[ref->jr_index]);
	/* Read again since: in the same table, or in another. */
	if (tb != NULL && (j = table_find_id(tb, id)) != NULL) {
		job_ref(tb, (size_t)(j - tb->tb_jobs), ref);
		return (j);
	}
	return (job_find(id, ref));
}

struct job *
job_find(const char *id, struct jobref *ref)
{
	struct table	*tb;
	struct job	*j;

	RB_FOREACH(tb, tables, &tables) {
		if ((j = table_find_id(tb, id)) == NULL)
			continue;
		if (ref != NULL)
			job_ref(tb, (size_t)(j - tb->tb_jobs), ref);
		return (j);
	}
	return (NULL);
}

/*
 * The spreading delay of a job: its identity (the same on every node)
 * taken modulo the spread, so that every node waits the same time and
 * jobs with the same schedule are spread evenly.
 */
uint32_t
job_spread(const uint8_t *id, uint32_t spread)
{
	uint64_t	 h = 0;
	int		 i;

	if (spread == 0)
		return (0);
	/* The first 12 hex digits. */
	for (i = 0; i < 6; i++)
		h = h * 256 + id[i];
	return ((uint32_t)(h % spread));
}

uint32_t
job_delay(const struct job *j, const char *id)
{
	char	 hex[CRON_IDLEN + 1];
	uint8_t	 bin[JOB_IDLEN];

	if (job_opts(j)->o_spread == 0)
		return (0);
	id_bin(id != NULL ? id : job_id(j, hex), bin);
	return (job_spread(bin, job_opts(j)->o_spread));
}

void
job_schedule(struct job *j, time_t after, const char *id)
{
	const struct jsched	*js = job_sched(j);
	time_t			 next;

	if (js->js_sched.s_flags & SCHED_REBOOT ||
	    sched_next(&js->js_sched, js->js_tz, after, &next) == -1) {
		heap_del(&wall, j);
		return;
	}
	j->j_flags &= ~(JOB_DEFERRED | JOB_AWAIT);
	j->j_fire = next;
	heap_set(&wall, j, ((int64_t)next + job_delay(j, id)) *
	    1000);
}

void
job_defer(struct job *j, int64_t ms)
{
	j->j_flags |= JOB_DEFERRED;
	heap_set(&wall, j, j->j_due + ms);
}

void
job_defer_to(struct job *j, int64_t at)
{
	j->j_flags |= JOB_DEFERRED;
	heap_set(&wall, j, at);
}

int
job_next(const struct job *j, time_t after, time_t *next)
{
	const struct jsched	*js = job_sched(j);

	if (js->js_sched.s_flags & SCHED_REBOOT)
		return (-1);
	return (sched_next(&js->js_sched, js->js_tz, after, next));
}

struct job *
jobs_due(int64_t now, struct jobref *ref)
{
	struct table	*tb;
	struct job	*j;

	if ((j = heap_top(&wall)) == NULL || j->j_due > now)
		return (NULL);
	heap_del(&wall, j);
	tb = job_table(j);
	job_ref(tb, (size_t)(j - tb->tb_jobs), ref);
	return (j);
}

int
jobs_next(int64_t *when)
{
	struct job	*j;

	if ((j = heap_top(&wall)) == NULL)
		return (0);
	*when = j->j_due;
	return (1);
}

void
jobs_reschedule_all(time_t now)
{
	struct table	*tb;
	size_t		 i;

	RB_FOREACH(tb, tables, &tables)
		for (i = 0; i < tb->tb_njobs; i++)
			job_schedule(&tb->tb_jobs[i], now, NULL);
}

void
jobs_unschedule_all(void)
{
	struct job	*j;

	while ((j = heap_top(&wall)) != NULL)
		heap_del(&wall, j);
}
