/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_jobs.c: which jobs exist, and which node holds which.
 * Registering writes the jobs' descriptions (only the rows that are
 * new or changed, known by a digest) and records that this node holds
 * them; releasing records that it no longer does and deletes the jobs
 * that no node holds (store.h says why that is safe); pausing sets a
 * job's flag.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

struct vec;
struct wtrx;

/*
 * Registering (ids NULL) or releasing (jobs NULL); a sync in pages
 * when fill is set (store_jobs_sync_fill()).
 */
struct reg_arg {
	const struct store_job	*jobs;
	store_fill_fn		 fill;
	void			*fill_arg;
	const char *const	*ids;
	size_t			 n;
	int			 sync;	/* release the others held */
	size_t			 gone;
};

static struct sval clip(const char *, size_t);
static int64_t	 job_digest(const struct store_job *);
static int	 digest_row(void *, const struct sval *, size_t);
static int	 digest_cmp(const void *, const void *);
static void	 digests_free(struct vec *);
static int	 jobs_lock(struct store *, struct store_error *);
static int	 jobs_renew(struct store *, struct store_error *);
static int	 jobs_fn(struct store *, void *, struct store_error *);
static int	 wtrx_begin(struct store *, struct wtrx *,
		    struct store_error *);
static int	 wtrx_add(struct store *, struct wtrx *, size_t,
		    struct store_error *);
static int	 wtrx_end(struct store *, struct wtrx *,
		    struct store_error *);
static int	 str_cmp(const void *, const void *);
static int	 holds_add(struct store *, const char *const *, size_t,
		    struct wtrx *, struct store_error *);
static int	 holds_drop(struct store *, const char *const *, size_t,
		    struct wtrx *, size_t *, struct store_error *);
static int	 reg_fn(struct store *, void *, struct store_error *);
static int	 rel_fn(struct store *, void *, struct store_error *);
static int	 ids_check(const struct store_job *, const char *const *,
		    size_t, struct store_error *);
static int	 jobs_write(struct store *, const struct store_job *,
		    const char *const *, size_t, int, size_t *,
		    struct store_error *);
static int	 pause_fn(struct store *, void *, struct store_error *);
static int	 upsert(struct store *, const struct store_job *const *,
		    size_t, struct sval *, struct wtrx *,
		    struct store_error *);
static int	 page_row(void *, const struct sval *, size_t);
static int	 page_read(struct store *, struct vec *, const char *,
		    struct store_error *);
static int	 fill_fn(struct store *, void *, struct store_error *);
static int	 fill_write(struct store *, store_fill_fn, void *, int,
		    size_t *, struct store_error *);

/*
 * A descriptive text cut to what its column holds, at a character
 * boundary when the text is UTF-8.
 */
static struct sval
clip(const char *s, size_t max)
{
	size_t	 n;

	if (s == NULL)
		s = "";
	if ((n = strlen(s)) > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return ((struct sval){ SV_TEXT, 0, s, n });
}

/* A job's stored digest, to skip rows that would not change. */
struct digest {
	char	*d_id;
	int64_t	 d_sum;
	int	 d_held;	/* this node holds it */
	int	 d_seen;	/* among the jobs being registered */
};

#define REG_SCAN	256	/* from this many jobs, read digests first */
#define REG_TRX_ROWS	4096	/* MariaDB: rows per transaction */
#define HOLD_ROWS	256	/* rows per statement recording holds */

/*
 * FNV-1a over the descriptive columns, NUL-separated: what registering
 * would write.  A changed digest means the row must be written.  The
 * name counts only when there is one, so that the digests of unnamed
 * jobs stored before names were (schema 3) still match.
 */
static int64_t
job_digest(const struct store_job *j)
{
	const char	*f[6];
	char		 num[64];
	uint64_t	 h = 0xcbf29ce484222325ULL;
	size_t		 i, nf = 5;
	const char	*c;

	f[0] = j->j_owner;
	f[1] = j->j_sched;
	f[2] = j->j_zone;
	f[3] = j->j_cmd;
	snprintf(num, sizeof(num), "%d/%d/%d/%u", j->j_scope, j->j_overlap,
	    j->j_misfire, (unsigned int)j->j_grace);
	f[4] = num;
	if (j->j_name != NULL && *j->j_name != '\0')
		f[nf++] = j->j_name;
	for (i = 0; i < nf; i++) {
		for (c = f[i] != NULL ? f[i] : ""; *c != '\0'; c++) {
			h ^= (unsigned char)*c;
			h *= 0x100000001b3ULL;
		}
		h ^= 0;
		h *= 0x100000001b3ULL;
	}
	return ((int64_t)(h & 0x7fffffffffffffffULL));
}

static int
digest_row(void *arg, const struct sval *c, size_t n)
{
	struct digest	*d;

	ROW_NEED(n, 2);
	if ((d = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((d->d_id = strdup(lk_str(&c[0]))) == NULL) {
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	d->d_sum = lk_int(&c[1]);
	return (0);
}

static int
digest_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct digest *)a)->d_id,
	    ((const struct digest *)b)->d_id));
}

static void
digests_free(struct vec *v)
{
	size_t	 i;

	for (i = 0; i < v->v_n; i++)
		free(((struct digest *)v->v_p)[i].d_id);
	free(v->v_p);
	v->v_p = NULL;
	v->v_n = v->v_cap = 0;
}

/*
 * Writers of jobs and holds take turns.  Registering reads which jobs
 * exist (their digests) and then records that this node holds them,
 * writing only the rows that are new or changed; releasing deletes the
 * jobs no node holds.  Were the two to overlap, a node could record
 * that it holds a job another node was deleting, which it had read as
 * existing: the job would be gone under it.  On SQLite each runs in
 * one write transaction, and writers take turns already.  On MariaDB a
 * registration of many jobs spans several transactions, and its reads
 * take no locks (READ COMMITTED), so writers hold a lock instead, which
 * only they take: claims never wait for it.
 *
 * The lock is a row, the lease 'jobs.writer', because a named lock
 * (GET_LOCK()) is each server's own on a Galera cluster, and two nodes
 * on two servers would both have it.  A writer takes the row by a
 * conditional write (free, expired, or left by this store's own
 * earlier attempt) with a token of its own, and every transaction it
 * then writes in renews the row first, checking that it still holds it
 * with that token.  All the writers' transactions thus write one row:
 * one server's row lock orders them; on Galera their write sets
 * conflict, and certification lets one commit.  A writer that stalled
 * past the lock's expiry while another took the row finds the token
 * changed at its next transaction and gives up, having written nothing
 * more; what it read before is never acted on.  And a writer's reads
 * come after its take, which its server has applied: they see every
 * write of the writers before it.  A holder that dies leaves the row
 * until it expires (STORE_LOCK_TTL).
 */
static int
jobs_lock(struct store *st, struct store_error *err)
{
	struct sval	 p[5];
	int64_t		 changed, token, give_up;

	token = ((int64_t)arc4random() << 31 | arc4random() >> 1) + 1;
	give_up = clock_mono() + STORE_LOCK_WAIT * 1000;
	for (;;) {
		p[0] = SVS(st->s_node);
		p[1] = SVI(token);
		p[2] = SVI(STORE_LOCK_TTL * 1000);
		p[3] = SVS(st->s_node);
		p[4] = SVI(st->s_jobs_token != 0 ? st->s_jobs_token : -1);
		/*
		 * On one server a holder inside a transaction keeps the
		 * row locked: the wait for it timing out says "held".
		 */
		if (lk_exec(st, "jobs.lock", S_JOBS_LOCK, 0, p, 5, NULL, NULL,
		    &changed, err) == -1) {
			if (err->se_kind != SE_WAITED)
				return (-1);
			memset(err, 0, sizeof(*err));
			changed = -1;
		}
		if (changed == 0 && lk_exec(st, "jobs.lock", S_JOBS_LOCK_ADD,
		    0, p, 3, NULL, NULL, &changed, err) == -1)
			return (-1);
		if (changed == 1) {
			st->s_jobs_token = token;
			return (0);
		}
		if (clock_mono() >= give_up) {
			store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "another "
			    "node held the lock of the jobs for %d s",
			    STORE_LOCK_WAIT);
			return (-1);
		}
		usleep(50000 + arc4random_uniform(100000));
	}
}

/* Renew the lock, first thing in a transaction; -1 when not held. */
static int
jobs_renew(struct store *st, struct store_error *err)
{
	struct sval	 p[3];
	int64_t		 changed;

	p[0] = SVI(STORE_LOCK_TTL * 1000);
	p[1] = SVS(st->s_node);
	p[2] = SVI(st->s_jobs_token);
	if (lk_exec(st, "jobs.renew", S_JOBS_RENEW, 0, p, 3, NULL, NULL,
	    &changed, err) == -1)
		return (-1);
	if (changed != 1) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "the lock of the "
		    "jobs expired and another node took it; nothing more "
		    "was written");
		return (-1);
	}
	return (0);
}

static int
jobs_fn(struct store *st, void *arg, struct store_error *err)
{
	struct sval	 p[2];
	int		 rc, local = st->s_ops->o_ddl_trx;

	if (!local && jobs_lock(st, err) == -1)
		return (-1);
	rc = ((struct reg_arg *)arg)->ids != NULL ? rel_fn(st, arg, err) :
	    ((struct reg_arg *)arg)->fill != NULL ? fill_fn(st, arg, err) :
	    reg_fn(st, arg, err);
	if (rc == -1 && st->s_in_trx) {
		st->s_ops->o_rollback(st);
		st->s_in_trx = 0;
	}
	if (!local && st->s_connected) {
		p[0] = SVS(st->s_node);
		p[1] = SVI(st->s_jobs_token);
		if (st->s_ops->o_exec(st, S_JOBS_UNLOCK, 0, p, 2, NULL, NULL,
		    NULL, &lk_scratch) == 0)
			st->s_jobs_token = 0;
	}
	return (rc);
}

/*
 * Writes of many rows: on SQLite all in the caller's transaction; on
 * MariaDB a commit every REG_TRX_ROWS rows, not one per statement.
 */
struct wtrx {
	int		 w_local;	/* SQLite: the caller's transaction */
	size_t		 w_rows;
	const char	*w_point;
};

/* A writing transaction begins by renewing the lock (MariaDB). */
static int
wtrx_begin(struct store *st, struct wtrx *w, struct store_error *err)
{
	if (w->w_local || st->s_in_trx)
		return (0);
	if (lk_begin(st, err) == -1)
		return (-1);
	return (jobs_renew(st, err));
}

static int
wtrx_add(struct store *st, struct wtrx *w, size_t k, struct store_error *err)
{
	w->w_rows += k;
	if (w->w_local || w->w_rows < REG_TRX_ROWS)
		return (0);
	w->w_rows = 0;
	return (lk_commit(st, w->w_point, err));
}

static int
wtrx_end(struct store *st, struct wtrx *w, struct store_error *err)
{
	w->w_rows = 0;
	return (st->s_in_trx ? lk_commit(st, w->w_point, err) : 0);
}

static int
str_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Record that this node holds the n jobs ids[]. */
static int
holds_add(struct store *st, const char *const *ids, size_t n, struct wtrx *w,
    struct store_error *err)
{
	struct sval	 p[2 * HOLD_ROWS];
	size_t		 off, k, i, max = st->s_ops->o_max_rows;

	if (max > HOLD_ROWS)
		max = HOLD_ROWS;
	for (off = 0; off < n; off += k) {
		k = lk_piece(n - off, max);
		for (i = 0; i < k; i++) {
			p[2 * i] = SVS(st->s_node);
			p[2 * i + 1] = SVS(ids[off + i]);
		}
		if (wtrx_begin(st, w, err) == -1 ||
		    lk_exec(st, "hold", S_HOLD_ADD, k, p, 2 * k, NULL, NULL,
		    NULL, err) == -1 || wtrx_add(st, w, k, err) == -1)
			return (-1);
	}
	return (0);
}

/*
 * Record that this node no longer holds the n jobs ids[], and delete
 * those no node holds, keeping the description of those with runs;
 * *gone counts the deleted.
 */
static int
holds_drop(struct store *st, const char *const *ids, size_t n,
    struct wtrx *w, size_t *gone, struct store_error *err)
{
	struct sval	 p[LIST_MAX + 1];
	size_t		 off, k, m, max = st->s_ops->o_max_list;
	int64_t		 changed;

	if (max > LIST_MAX)
		max = LIST_MAX;
	for (off = 0; off < n; off += k) {
		k = lk_piece(n - off, max);
		p[0] = SVS(st->s_node);
		m = lk_pad_ids(st, p, 1, ids + off, NULL, k);
		if (wtrx_begin(st, w, err) == -1 ||
		    lk_exec(st, "release", S_HOLD_DROP, m, p, m + 1, NULL,
		    NULL, NULL, err) == -1 ||
		    lk_exec(st, "release", S_GONE_KEEP, m, p + 1, m, NULL,
		    NULL, NULL, err) == -1 ||
		    lk_exec(st, "release", S_JOBS_UNHELD, m, p + 1, m, NULL,
		    NULL, &changed, err) == -1)
			return (-1);
		*gone += (size_t)changed;
		if (wtrx_add(st, w, k, err) == -1)
			return (-1);
	}
	return (0);
}

/*
 * Register: write the rows that are new or changed and record that
 * this node holds them all.  With many jobs (a daemon starting) the
 * stored digests and this node's holds are read first, once, so that
 * only what differs is written; a sync then releases what this node
 * held and holds no longer.  A hold of a job that has no row (deleted
 * behind the store's back) is released too, unless the job is among
 * those registered, whose row is then written again.
 */
static int
reg_fn(struct store *st, void *arg, struct store_error *err)
{
	struct reg_arg		*a = arg;
	const struct store_job	*j, **todo = NULL;
	const char		**ids = NULL, **add = NULL, **rel = NULL;
	char			**held;
	struct digest		 key, *found, *d;
	struct vec		 dv, hv;
	struct wtrx		 w;
	struct sval		*p = NULL;
	size_t			 off, k, i, max, ntodo = 0, nadd = 0, nrel = 0;
	int64_t			 sum;
	int			 rc = -1;

	memset(&dv, 0, sizeof(dv));
	dv.v_size = sizeof(struct digest);
	memset(&hv, 0, sizeof(hv));
	hv.v_size = sizeof(char *);
	memset(&w, 0, sizeof(w));
	w.w_local = st->s_ops->o_ddl_trx;
	w.w_point = "register";
	a->gone = 0;
	max = st->s_ops->o_max_rows;
	if ((p = reallocarray(NULL, max, JOB_NCOLS * sizeof(*p))) == NULL ||
	    (todo = reallocarray(NULL, a->n + 1, sizeof(*todo))) == NULL ||
	    (add = reallocarray(NULL, a->n + 1, sizeof(*add))) == NULL) {
		lk_nomem(err);
		goto out;
	}
	if (w.w_local && lk_begin(st, err) == -1)
		goto out;
	if (a->n >= REG_SCAN || a->sync) {
		if (lk_exec(st, "register.scan", S_JOB_DIGESTS, 0, NULL, 0,
		    digest_row, &dv, NULL, err) == -1)
			goto out;
		if (dv.v_n > 0)
			qsort(dv.v_p, dv.v_n, sizeof(struct digest),
			    digest_cmp);
		p[0] = SVS(st->s_node);
		if (lk_exec(st, "register.scan", S_HOLDS_MINE, 0, p, 1,
		    lk_str_row, &hv, NULL, err) == -1)
			goto out;
		if (hv.v_n > 0)
			qsort(hv.v_p, hv.v_n, sizeof(char *), str_cmp);
		if ((rel = reallocarray(NULL, hv.v_n + 1, sizeof(*rel))) ==
		    NULL) {
			lk_nomem(err);
			goto out;
		}
	}
	/* Mark the jobs held, both lists sorted; rel[] gets the others. */
	held = hv.v_p;
	d = dv.v_p;
	for (i = k = 0; i < hv.v_n; i++) {
		while (k < dv.v_n && strcmp(d[k].d_id, held[i]) < 0)
			k++;
		if (k < dv.v_n && strcmp(d[k].d_id, held[i]) == 0)
			d[k].d_held = 1;
		else
			rel[nrel++] = held[i];
	}
	for (i = 0; i < a->n; i++) {
		j = &a->jobs[i];
		found = NULL;
		if (dv.v_n > 0) {
			key.d_id = j->j_id;
			found = bsearch(&key, dv.v_p, dv.v_n,
			    sizeof(struct digest), digest_cmp);
		}
		if (found == NULL || !found->d_held)
			add[nadd++] = j->j_id;
		if (found != NULL) {
			found->d_seen = 1;
			if (found->d_sum == job_digest(j))
				continue;
		}
		todo[ntodo++] = j;
	}
	for (off = 0; off < ntodo; off += k) {
		k = lk_piece(ntodo - off, max);
		for (i = 0; i < k; i++) {
			j = todo[off + i];
			sum = job_digest(j);
			p[i * JOB_NCOLS + 0] = SVS(j->j_id);
			p[i * JOB_NCOLS + 1] = clip(j->j_owner,
			    STORE_OWNERMAX);
			p[i * JOB_NCOLS + 2] = clip(j->j_sched,
			    STORE_SCHEDMAX);
			p[i * JOB_NCOLS + 3] = clip(j->j_zone, STORE_ZONEMAX);
			p[i * JOB_NCOLS + 4] = clip(j->j_cmd, STORE_CMDMAX);
			p[i * JOB_NCOLS + 5] = SVI(j->j_scope);
			p[i * JOB_NCOLS + 6] = SVI(j->j_overlap);
			p[i * JOB_NCOLS + 7] = SVI(j->j_misfire);
			p[i * JOB_NCOLS + 8] = SVI(j->j_grace);
			p[i * JOB_NCOLS + 9] = SVI(sum);
			p[i * JOB_NCOLS + 10] = clip(j->j_name, STORE_NAMEMAX);
		}
		if (wtrx_begin(st, &w, err) == -1 ||
		    lk_exec(st, "register", S_JOB_UPSERT, k, p, k * JOB_NCOLS,
		    NULL, NULL, NULL, err) == -1 ||
		    wtrx_add(st, &w, k, err) == -1)
			goto out;
	}
	if (holds_add(st, add, nadd, &w, err) == -1)
		goto out;
	if (a->sync) {
		/* Holds of no row: released unless registered now. */
		if (nrel > 0) {
			if ((ids = reallocarray(NULL, a->n + 1,
			    sizeof(*ids))) == NULL) {
				lk_nomem(err);
				goto out;
			}
			for (i = 0; i < a->n; i++)
				ids[i] = a->jobs[i].j_id;
			qsort(ids, a->n, sizeof(*ids), str_cmp);
			for (i = k = 0; i < nrel; i++)
				if (bsearch(&rel[i], ids, a->n, sizeof(*ids),
				    str_cmp) == NULL)
					rel[k++] = rel[i];
			nrel = k;
		}
		for (i = 0; i < dv.v_n; i++)
			if (d[i].d_held && !d[i].d_seen)
				rel[nrel++] = d[i].d_id;
		if (holds_drop(st, rel, nrel, &w, &a->gone, err) == -1)
			goto out;
	}
	if (wtrx_end(st, &w, err) == -1)
		goto out;
	rc = 0;
out:
	digests_free(&dv);
	lk_strs_free(&hv);
	free(rel);
	free(add);
	free(ids);
	free(todo);
	free(p);
	return (rc);
}

static int
rel_fn(struct store *st, void *arg, struct store_error *err)
{
	struct reg_arg	*a = arg;
	struct wtrx	 w;

	memset(&w, 0, sizeof(w));
	w.w_local = st->s_ops->o_ddl_trx;
	w.w_point = "release";
	a->gone = 0;
	if (w.w_local && lk_begin(st, err) == -1)
		return (-1);
	if (holds_drop(st, a->ids, a->n, &w, &a->gone, err) == -1)
		return (-1);
	return (wtrx_end(st, &w, err));
}

/* Check the ids (of jobs[], or ids[] when jobs is NULL). */
static int
ids_check(const struct store_job *jobs, const char *const *ids, size_t n,
    struct store_error *err)
{
	const char	*id;
	size_t		 i;

	for (i = 0; i < n; i++) {
		id = jobs != NULL ? jobs[i].j_id : ids[i];
		if (id == NULL || *id == '\0' || strlen(id) > STORE_IDLEN) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "job %zu: bad identity", i);
			return (-1);
		}
	}
	return (0);
}

/* Register (or sync) the n jobs[], or release the n ids[]. */
static int
jobs_write(struct store *st, const struct store_job *jobs,
    const char *const *ids, size_t n, int sync, size_t *gone,
    struct store_error *err)
{
	struct reg_arg	 a;

	err = lk_err_init(err);
	if (gone != NULL)
		*gone = 0;
	if (ids_check(jobs, ids, n, err) == -1)
		return (-1);
	if (n == 0 && !sync)
		return (0);
	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.ids = ids;
	a.n = n;
	a.sync = sync;
	if (lk_run(st, jobs_fn, &a, err) == -1)
		return (-1);
	if (gone != NULL)
		*gone = a.gone;
	return (0);
}

int
store_jobs_register(struct store *st, const struct store_job *jobs,
    size_t n, struct store_error *err)
{
	return (jobs_write(st, jobs, NULL, n, 0, NULL, err));
}

int
store_jobs_sync(struct store *st, const struct store_job *jobs, size_t n,
    size_t *gone, struct store_error *err)
{
	return (jobs_write(st, jobs, NULL, n, 1, gone, err));
}

int
store_jobs_release(struct store *st, const char *const *ids, size_t n,
    size_t *gone, struct store_error *err)
{
	return (jobs_write(st, NULL, ids, n, 0, gone, err));
}

/*
 * A sync in pages.  The jobs come from the fill function sorted by
 * identity, and the stored ones are read in the same order a page at a
 * time (with whether this node holds each), so that the two are merged
 * as two sorted lists, and neither side is ever whole in memory: a job
 * only given is new (its row written, held); one on both sides is
 * written if its digest changed and held if it was not; one only
 * stored and held by this node is released.  What is written is never
 * after the page in hand, so that no later page reads it back.  This
 * node's holds of jobs without a row are read first (they are few)
 * and released unless given.  Registering (not a sync) releases
 * nothing, and skips the stored jobs before the next one given.
 */
#define PAGE_ROWS	1024	/* stored jobs read at once */
#define FILL_ROWS	1024	/* jobs asked of the fill function */

struct page_job {
	char		 p_id[STORE_IDLEN + 1];
	int64_t		 p_sum;
	int		 p_held;
};

static int
page_row(void *arg, const struct sval *c, size_t n)
{
	struct page_job	*p;
	const char	*id;

	ROW_NEED(n, 3);
	id = lk_str(&c[0]);
	if (strlen(id) > STORE_IDLEN)
		return (0);
	if ((p = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	strcpy(p->p_id, id);
	p->p_sum = lk_int(&c[1]);
	p->p_held = lk_int(&c[2]) != 0;
	return (0);
}

/* The page of stored jobs after id `after'. */
static int
page_read(struct store *st, struct vec *pv, const char *after,
    struct store_error *err)
{
	struct sval	 p[3];

	pv->v_n = 0;
	p[0] = SVS(st->s_node);
	p[1] = SVS(after);
	p[2] = SVI(PAGE_ROWS);
	return (lk_exec(st, "register.page", S_JOBS_PAGE, 0, p, 3, page_row,
	    pv, NULL, err));
}

/* Write the rows of the n jobs todo[]. */
static int
upsert(struct store *st, const struct store_job *const *todo, size_t n,
    struct sval *p, struct wtrx *w, struct store_error *err)
{
	const struct store_job	*j;
	size_t			 off, k, i, max = st->s_ops->o_max_rows;

	for (off = 0; off < n; off += k) {
		k = lk_piece(n - off, max);
		for (i = 0; i < k; i++) {
			j = todo[off + i];
			p[i * JOB_NCOLS + 0] = SVS(j->j_id);
			p[i * JOB_NCOLS + 1] = clip(j->j_owner,
			    STORE_OWNERMAX);
			p[i * JOB_NCOLS + 2] = clip(j->j_sched,
			    STORE_SCHEDMAX);
			p[i * JOB_NCOLS + 3] = clip(j->j_zone, STORE_ZONEMAX);
			p[i * JOB_NCOLS + 4] = clip(j->j_cmd, STORE_CMDMAX);
			p[i * JOB_NCOLS + 5] = SVI(j->j_scope);
			p[i * JOB_NCOLS + 6] = SVI(j->j_overlap);
			p[i * JOB_NCOLS + 7] = SVI(j->j_misfire);
			p[i * JOB_NCOLS + 8] = SVI(j->j_grace);
			p[i * JOB_NCOLS + 9] = SVI(job_digest(j));
			p[i * JOB_NCOLS + 10] = clip(j->j_name, STORE_NAMEMAX);
		}
		if (wtrx_begin(st, w, err) == -1 ||
		    lk_exec(st, "register", S_JOB_UPSERT, k, p, k * JOB_NCOLS,
		    NULL, NULL, NULL, err) == -1 ||
		    wtrx_add(st, w, k, err) == -1)
			return (-1);
	}
	return (0);
}

static int
fill_fn(struct store *st, void *arg, struct store_error *err)
{
	struct reg_arg		*a = arg;
	struct store_job	*buf = NULL, *f;
	const struct store_job	**todo = NULL;
	const char		**add = NULL, **rel = NULL, **orph, **hit;
	struct page_job		*pg, *s;
	struct vec		 pv, hv;
	struct wtrx		 w;
	struct sval		*p = NULL, hp;
	char			 prev[STORE_IDLEN + 1], after[STORE_IDLEN + 1];
	char			*oseen = NULL;
	size_t			 nb = 0, bi = 0, pi = 0, from = 0;
	size_t			 ntodo = 0, nadd = 0, nrel = 0, i, k;
	int			 c, more, filled = 0, rc = -1;

	memset(&pv, 0, sizeof(pv));
	pv.v_size = sizeof(struct page_job);
	memset(&hv, 0, sizeof(hv));
	hv.v_size = sizeof(char *);
	memset(&w, 0, sizeof(w));
	w.w_local = st->s_ops->o_ddl_trx;
	w.w_point = "register";
	a->gone = 0;
	if ((p = reallocarray(NULL, st->s_ops->o_max_rows,
	    JOB_NCOLS * sizeof(*p))) == NULL ||
	    (buf = reallocarray(NULL, FILL_ROWS, sizeof(*buf))) == NULL ||
	    (todo = reallocarray(NULL, FILL_ROWS, sizeof(*todo))) == NULL ||
	    (add = reallocarray(NULL, FILL_ROWS, sizeof(*add))) == NULL ||
	    (rel = reallocarray(NULL, PAGE_ROWS, sizeof(*rel))) == NULL) {
		lk_nomem(err);
		goto out;
	}
	if (w.w_local && lk_begin(st, err) == -1)
		goto out;
	hp = SVS(st->s_node);
	if (a->sync && lk_exec(st, "register.scan", S_HOLDS_ORPHAN, 0, &hp, 1,
	    lk_str_row, &hv, NULL, err) == -1)
		goto out;
	orph = (const char **)hv.v_p;
	if (hv.v_n > 0)
		qsort(orph, hv.v_n, sizeof(*orph), str_cmp);
	if ((oseen = calloc(hv.v_n + 1, 1)) == NULL) {
		lk_nomem(err);
		goto out;
	}
	*prev = *after = '\0';
	if (page_read(st, &pv, after, err) == -1)
		goto out;
	more = pv.v_n == PAGE_ROWS;
	for (;;) {
		/* The next piece of jobs, the next page: what is due first. */
		if (bi == nb && !filled) {
			if (upsert(st, todo, ntodo, p, &w, err) == -1 ||
			    holds_add(st, add, nadd, &w, err) == -1)
				goto out;
			ntodo = nadd = 0;
			for (i = 0; i < FILL_ROWS; i++)
				memset(&buf[i], 0, sizeof(buf[i]));
			if ((nb = a->fill(a->fill_arg, from, buf, FILL_ROWS)) >
			    FILL_ROWS)
				nb = FILL_ROWS;
			if (ids_check(buf, NULL, nb, err) == -1)
				goto out;
			from += nb;
			bi = 0;
			filled = nb == 0;
		}
		pg = pv.v_p;
		if (pi == pv.v_n && more) {
			if (upsert(st, todo, ntodo, p, &w, err) == -1 ||
			    holds_add(st, add, nadd, &w, err) == -1 ||
			    holds_drop(st, rel, nrel, &w, &a->gone, err) == -1)
				goto out;
			ntodo = nadd = nrel = 0;
			strcpy(after, pg[pv.v_n - 1].p_id);
			/* Registering only: the stored jobs before are not ours. */
			if (!a->sync && strcmp(prev, after) > 0)
				strcpy(after, prev);
			if (page_read(st, &pv, after, err) == -1)
				goto out;
			more = pv.v_n == PAGE_ROWS;
			pi = 0;
			continue;
		}
		f = bi < nb ? &buf[bi] : NULL;
		s = pi < pv.v_n ? &pg[pi] : NULL;
		if (f == NULL && s == NULL)
			break;
		if (f != NULL) {
			if ((c = strcmp(prev, f->j_id)) > 0) {
				store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
				    "job %s: not in order", f->j_id);
				goto out;
			}
			if (c == 0) {	/* given twice */
				bi++;
				continue;
			}
		}
		c = f == NULL ? 1 : s == NULL ? -1 : strcmp(f->j_id, s->p_id);
		if (c <= 0) {
			strcpy(prev, f->j_id);
			if (hv.v_n > 0 && (hit = bsearch(&f->j_id, orph,
			    hv.v_n, sizeof(*orph), str_cmp)) != NULL)
				oseen[hit - orph] = 1;
			if (c < 0 || !s->p_held)
				add[nadd++] = f->j_id;
			if (c < 0 || s->p_sum != job_digest(f))
				todo[ntodo++] = f;
			bi++;
			if (c == 0)
				pi++;
			continue;
		}
		if (a->sync && s->p_held)
			rel[nrel++] = s->p_id;
		pi++;
	}
	if (upsert(st, todo, ntodo, p, &w, err) == -1 ||
	    holds_add(st, add, nadd, &w, err) == -1 ||
	    holds_drop(st, rel, nrel, &w, &a->gone, err) == -1)
		goto out;
	for (i = k = 0; i < hv.v_n; i++)
		if (!oseen[i])
			orph[k++] = orph[i];
	if (holds_drop(st, orph, k, &w, &a->gone, err) == -1 ||
	    wtrx_end(st, &w, err) == -1)
		goto out;
	rc = 0;
out:
	lk_strs_free(&hv);
	free(pv.v_p);
	free(oseen);
	free(rel);
	free(add);
	free(todo);
	free(buf);
	free(p);
	return (rc);
}

static int
fill_write(struct store *st, store_fill_fn fill, void *arg, int sync,
    size_t *gone, struct store_error *err)
{
	struct reg_arg	 a;

	err = lk_err_init(err);
	if (gone != NULL)
		*gone = 0;
	memset(&a, 0, sizeof(a));
	a.fill = fill;
	a.fill_arg = arg;
	a.sync = sync;
	if (lk_run(st, jobs_fn, &a, err) == -1)
		return (-1);
	if (gone != NULL)
		*gone = a.gone;
	return (0);
}

int
store_jobs_sync_fill(struct store *st, store_fill_fn fill, void *arg,
    size_t *gone, struct store_error *err)
{
	return (fill_write(st, fill, arg, 1, gone, err));
}

int
store_jobs_register_fill(struct store *st, store_fill_fn fill, void *arg,
    struct store_error *err)
{
	return (fill_write(st, fill, arg, 0, NULL, err));
}

struct pause_arg {
	const char	*id;
	int		 paused;
};

static int
pause_fn(struct store *st, void *arg, struct store_error *err)
{
	struct pause_arg	*a = arg;
	struct sval		 p[2];
	struct lk_int		 found;
	int64_t			 changed;

	p[0] = SVI(a->paused != 0);
	p[1] = SVS(a->id);
	if (lk_exec(st, "job", S_JOB_PAUSE, 0, p, 2, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed > 0)
		return (0);
	memset(&found, 0, sizeof(found));
	if (lk_exec(st, "job", S_JOB_GET, 0, &p[1], 1, lk_int_row, &found,
	    NULL, err) == -1)
		return (-1);
	if (!found.i_found) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
		    "no job %s in the store", a->id);
		return (-1);
	}
	return (0);
}

int
store_job_pause(struct store *st, const char *id, int paused,
    struct store_error *err)
{
	struct pause_arg	 a = { id, paused };

	err = lk_err_init(err);
	return (lk_run(st, pause_fn, &a, err));
}

