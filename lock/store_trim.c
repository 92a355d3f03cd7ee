/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_trim.c: trimming the history, under the lease "trim" so that
 * one node at a time does it: finished runs by age, then beyond what a
 * job may keep (a number of runs, a number of bytes of output), then
 * beyond what a user may keep across all his jobs (the same two), the
 * oldest first; the claims rows with them, the descriptions of jobs
 * that are gone once their runs are, and finished one-shot jobs by age.
 *
 * Trimming goes in rounds of passes, each of bounded work, so that no
 * pass holds the daemon long however big the store: a round starts
 * with the oldest runs by id, those old enough going; then the jobs,
 * JOB_CHUNK a pass in the order of their ids, each job's totals read
 * from the index runs_trim and the runs beyond its limits deleted;
 * then the owners, OWNER_CHUNK a pass, likewise; then the claims and
 * the jobs gone.  Where it is is kept in the store (s_trim_*) from one
 * pass to the next; a pass that leaves the round unfinished says so
 * (*more), for the caller to come back soon.  The runs to go are
 * picked at most the budget at a time (their ids and the bytes each
 * keeps), and deleted by id in transactions of at most TRX_ROWS rows
 * and about TRX_BYTES bytes of output (a Galera cluster replicates a
 * deletion with its rows).
 */

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define TRX_ROWS	512		/* runs deleted per transaction */
#define TRX_BYTES	(32 << 20)	/* and their output, about */
#define JOB_CHUNK	256		/* jobs looked at per pass */
#define OWNER_CHUNK	16		/* owners looked at per pass */
#define AGE_WINDOW	4096		/* oldest runs looked at a query */
#define NO_LIMIT	INT64_MAX

/* The phases of a round (s_trim_phase). */
#define PH_START	0
#define PH_JOBS		1
#define PH_OWNERS	2

/* A run picked: its id and the bytes it keeps. */
struct pick {
	int64_t		 k_id;
	int64_t		 k_bytes;
};

/* A job of a chunk, and whether it keeps more than a job may. */
struct jobrow {
	char		 j_id[STORE_IDLEN + 1];
	int		 j_over;
};

/* An owner over a limit of his, and what went of his. */
struct over {
	char		*o_owner;
	size_t		 o_runs;
	uint64_t	 o_bytes;
};

struct trim_arg {
	const struct store_trim *lim;
	int64_t		 ttl;
	int		 held;
	size_t		 n;		/* runs deleted */
	uint64_t	 bytes;		/* their output */
	int		 more;		/* the budget ran out */
	struct vec	 picks;		/* of struct pick */
	struct vec	 jobs;		/* of struct jobrow */
	struct vec	 overs;		/* of struct over */
};

static int	 pick_row(void *, const struct sval *, size_t);
static int	 job_row(void *, const struct sval *, size_t);
static int64_t	 lim(uint64_t);
static size_t	 budget_left(const struct trim_arg *);
static int	 trim_picked(struct store *, struct trim_arg *, size_t *,
		    uint64_t *, struct store_error *);
static int	 trim_by(struct store *, struct trim_arg *, enum stmt,
		    struct sval *, size_t, size_t, size_t *, uint64_t *,
		    struct store_error *);
static int	 trim_jobs(struct store *, struct trim_arg *, int *,
		    struct store_error *);
static int	 trim_owners(struct store *, struct trim_arg *,
		    struct store_error *);
static int	 trim_owner(struct store *, struct trim_arg *, const char *,
		    struct store_error *);
static int	 trim_claims(struct store *, struct trim_arg *,
		    struct store_error *);
static int	 trim_fn(struct store *, void *, struct store_error *);
static void	 overs_free(struct vec *);

static int
pick_row(void *arg, const struct sval *c, size_t n)
{
	struct pick	*k;

	ROW_NEED(n, 2);
	if ((k = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	k->k_id = lk_int(&c[0]);
	k->k_bytes = lk_int(&c[1]);
	return (0);
}

static int
job_row(void *arg, const struct sval *c, size_t n)
{
	struct jobrow	*j;

	ROW_NEED(n, 2);
	if ((j = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	strlcpy(j->j_id, lk_str(&c[0]), sizeof(j->j_id));
	j->j_over = lk_int(&c[1]) != 0;
	return (0);
}

/* A limit as bound: none (0) is the largest number. */
static int64_t
lim(uint64_t v)
{
	return (v == 0 || v > (uint64_t)NO_LIMIT ? NO_LIMIT : (int64_t)v);
}

/* How many runs this pass may still pick. */
static size_t
budget_left(const struct trim_arg *a)
{
	size_t	 b = a->lim->tr_budget;

	if (b == 0)
		return (TRX_ROWS * 16);
	return (a->n >= b ? 0 : b - a->n);
}

/*
 * Delete the runs picked, by id, in transactions of at most TRX_ROWS
 * rows and about TRX_BYTES bytes (at least one row), each in pieces of
 * the backend's longest list.  A run that ran again meanwhile (lost,
 * then its end known) is still finished; the state is checked anyway.
 */
static int
trim_picked(struct store *st, struct trim_arg *a, size_t *runs,
    uint64_t *bytes, struct store_error *err)
{
	struct pick	*k = a->picks.v_p;
	struct sval	 p[LIST_MAX];
	int64_t		 changed;
	uint64_t	 tb;
	size_t		 i, j, q, end, piece, max, got;

	max = st->s_ops->o_max_list;
	for (i = 0; i < a->picks.v_n; i = end) {
		tb = 0;
		for (end = i; end < a->picks.v_n && end - i < TRX_ROWS &&
		    (end == i || tb + (uint64_t)k[end].k_bytes <= TRX_BYTES);
		    end++)
			tb += (uint64_t)k[end].k_bytes;
		if (lk_begin(st, err) == -1)
			return (-1);
		got = 0;
		/* Pieces of a power of two: no padding needed. */
		for (j = i; j < end; j += piece) {
			piece = lk_piece(end - j, max);
			for (q = 0; q < piece; q++)
				p[q] = SVI(k[j + q].k_id);
			if (lk_exec(st, "trim", S_TRIM_IDS, piece, p, piece,
			    NULL, NULL, &changed, err) == -1)
				return (-1);
			got += (size_t)changed;
		}
		if (lk_commit(st, "trim", err) == -1)
			return (-1);
		a->n += got;
		*runs += got;
		a->bytes += tb;
		*bytes += tb;
	}
	return (0);
}

/*
 * Pick with statement s, whose parameter p[at] is set here to how many
 * the budget allows, and delete what it picked.  Again while it picks
 * as many as it may and the budget lasts.
 */
static int
trim_by(struct store *st, struct trim_arg *a, enum stmt s, struct sval *p,
    size_t np, size_t at, size_t *runs, uint64_t *bytes,
    struct store_error *err)
{
	size_t	 left;

	for (;;) {
		if ((left = budget_left(a)) == 0) {
			a->more = 1;
			return (0);
		}
		if (s == S_TRIM_AGE && left > AGE_WINDOW)
			left = AGE_WINDOW;
		p[at] = SVI(left);
		a->picks.v_n = 0;
		if (lk_exec(st, "trim", s, 0, p, np, pick_row, &a->picks, NULL,
		    err) == -1)
			return (-1);
		if (a->picks.v_n == 0)
			return (0);
		if (trim_picked(st, a, runs, bytes, err) == -1)
			return (-1);
		if (a->picks.v_n < left)
			return (0);
	}
}

/*
 * The next chunk of jobs after the last one done: of each over a limit
 * of a job's, the oldest runs.  *done when it was the last chunk.  A
 * pass that runs out of budget leaves the job it was at for the next.
 */
static int
trim_jobs(struct store *st, struct trim_arg *a, int *done,
    struct store_error *err)
{
	struct jobrow	*j;
	struct sval	 p[5];
	uint64_t	 bytes;
	size_t		 i, runs;

	*done = 0;
	a->jobs.v_n = 0;
	p[0] = SVI(lim(a->lim->tr_job_runs));
	p[1] = SVI(st->s_output_max);
	p[2] = SVI(lim(a->lim->tr_job_bytes));
	p[3] = SVS(st->s_trim_job);
	p[4] = SVI(JOB_CHUNK);
	if (lk_exec(st, "trim", S_TRIM_JOBS, 0, p, 5, job_row, &a->jobs,
	    NULL, err) == -1)
		return (-1);
	j = a->jobs.v_p;
	for (i = 0; i < a->jobs.v_n; i++) {
		if (j[i].j_over) {
			p[0] = SVI(st->s_output_max);
			p[1] = SVS(j[i].j_id);
			p[2] = SVI(lim(a->lim->tr_job_runs));
			p[3] = SVI(lim(a->lim->tr_job_bytes));
			runs = 0;
			bytes = 0;
			if (trim_by(st, a, S_TRIM_JOB, p, 5, 4, &runs, &bytes,
			    err) == -1)
				return (-1);
			if (a->more)
				return (0);
		}
		strlcpy(st->s_trim_job, j[i].j_id, sizeof(st->s_trim_job));
	}
	*done = a->jobs.v_n < JOB_CHUNK;
	return (0);
}

/*
 * The next chunk of owners: of each over a limit of a user's, the
 * oldest runs across his jobs.  Looked at in turn, the next left in
 * s_trim_owner.
 */
static int
trim_owners(struct store *st, struct trim_arg *a, struct store_error *err)
{
	size_t	 k;

	for (k = 0; k < OWNER_CHUNK && st->s_trim_owner < st->s_trim_nowners;
	    k++) {
		if (trim_owner(st, a, st->s_trim_owners[st->s_trim_owner],
		    err) == -1)
			return (-1);
		if (a->more)
			return (0);
		st->s_trim_owner++;
	}
	return (0);
}

/* One owner: whether he is over, then what goes. */
static int
trim_owner(struct store *st, struct trim_arg *a, const char *owner,
    struct store_error *err)
{
	struct sval	 p[7];
	struct lk_int	 over;
	struct over	*o;
	uint64_t	 bytes;
	size_t		 runs;

	p[0] = SVI(lim(a->lim->tr_user_runs));
	p[1] = SVI(st->s_output_max);
	p[2] = SVI(lim(a->lim->tr_user_bytes));
	p[3] = SVS(owner);
	p[4] = SVS(owner);
	p[5] = SVS(owner);
	memset(&over, 0, sizeof(over));
	if (lk_exec(st, "trim", S_TRIM_USER_SUM, 0, p, 6, lk_int_row, &over,
	    NULL, err) == -1)
		return (-1);
	if (over.i_v == 0)
		return (0);
	p[0] = SVI(st->s_output_max);
	p[1] = SVS(owner);
	p[2] = SVS(owner);
	p[3] = SVS(owner);
	p[4] = SVI(lim(a->lim->tr_user_runs));
	p[5] = SVI(lim(a->lim->tr_user_bytes));
	runs = 0;
	bytes = 0;
	if (trim_by(st, a, S_TRIM_USER, p, 7, 6, &runs, &bytes, err) == -1)
		return (-1);
	if (runs == 0)
		return (0);
	if ((o = lk_vec_push(&a->overs)) == NULL)
		return (lk_nomem(err));
	o->o_runs = runs;
	o->o_bytes = bytes;
	if ((o->o_owner = strdup(owner)) == NULL) {
		lk_vec_pop(&a->overs);
		return (lk_nomem(err));
	}
	return (0);
}

/*
 * The claims rows go with the history (not counted in *n): those of
 * fires older than the age, and all but those of the newest max_runs
 * instants, which for a job due every minute still keeps hours of
 * them.  A claims row is needed only until a node that lost the
 * claim's result asks again, soon after.  Both are range deletes on
 * the claims' key, which starts with the fire.
 */
static int
trim_claims(struct store *st, struct trim_arg *a, struct store_error *err)
{
	struct lk_int	 cut;
	struct sval	 p;

	if (a->lim->tr_age > 0) {
		p = SVI(a->lim->tr_age);
		if (lk_exec(st, "trim", S_TRIM_CLAIMS_AGE, 0, &p, 1, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	}
	if (a->lim->tr_job_runs == 0)
		return (0);
	p = SVI(a->lim->tr_job_runs - 1);
	memset(&cut, 0, sizeof(cut));
	if (lk_exec(st, "trim", S_TRIM_CLAIMS_CUT, 0, &p, 1, lk_int_row, &cut,
	    NULL, err) == -1)
		return (-1);
	if (cut.i_v == 0)
		return (0);
	p = SVI(cut.i_v);
	return (lk_exec(st, "trim", S_TRIM_CLAIMS_FIRE, 0, &p, 1, NULL, NULL,
	    NULL, err));
}

/*
 * A pass: as far into the round as its bounds let it go.  Run again
 * after a failure (lk_run()), it goes on from where the store and the
 * round are: what it deleted stays counted, and the budget with it.
 */
static int
trim_fn(struct store *st, void *arg, struct store_error *err)
{
	const struct store_trim	*l;
	struct trim_arg		*a = arg;
	struct sval		 p[3];
	struct vec		 v;
	uint64_t		 bytes;
	size_t			 runs;
	int			 done;

	l = a->lim;
	if (lk_lease_take(st, "trim", a->ttl, &a->held, err) == -1)
		return (-1);
	if (!a->held)
		return (0);
	a->more = 0;
	if (st->s_trim_phase == PH_START) {
		if (l->tr_age > 0) {
			p[0] = SVI(st->s_output_max);
			p[2] = SVI(l->tr_age);
			runs = 0;
			bytes = 0;
			if (trim_by(st, a, S_TRIM_AGE, p, 3, 1, &runs, &bytes,
			    err) == -1)
				return (-1);
			if (a->more)
				return (0);
			/* One-shot jobs done, failed or cancelled long ago. */
			if (lk_exec(st, "trim", S_AT_TRIM, 0, &p[2], 1, NULL,
			    NULL, NULL, err) == -1)
				return (-1);
		}
		st->s_trim_phase = PH_JOBS;
		st->s_trim_job[0] = '\0';
	}
	if (st->s_trim_phase == PH_JOBS) {
		done = 1;
		if ((l->tr_job_runs > 0 || l->tr_job_bytes > 0) &&
		    trim_jobs(st, a, &done, err) == -1)
			return (-1);
		if (!done) {
			a->more = 1;
			return (0);
		}
		lk_trim_free(st);
		if (l->tr_user_runs > 0 || l->tr_user_bytes > 0) {
			memset(&v, 0, sizeof(v));
			v.v_size = sizeof(char *);
			if (lk_exec(st, "trim", S_TRIM_OWNERS, 0, NULL, 0,
			    lk_str_row, &v, NULL, err) == -1) {
				lk_strs_free(&v);
				return (-1);
			}
			st->s_trim_owners = v.v_p;
			st->s_trim_nowners = v.v_n;
		}
		st->s_trim_phase = PH_OWNERS;
		/* The owners in the next pass: one chunk of work a pass. */
		a->more = 1;
		return (0);
	}
	if (trim_owners(st, a, err) == -1)
		return (-1);
	if (a->more || st->s_trim_owner < st->s_trim_nowners) {
		a->more = 1;
		return (0);
	}
	lk_trim_free(st);
	st->s_trim_phase = PH_START;
	/*
	 * The claims rows, then the descriptions of the jobs that are gone
	 * and have no runs left (or are back).
	 */
	if (trim_claims(st, a, err) == -1)
		return (-1);
	return (lk_exec(st, "trim", S_GONE_TRIM, 0, NULL, 0, NULL, NULL, NULL,
	    err));
}

void
lk_trim_free(struct store *st)
{
	size_t	 i;

	for (i = 0; i < st->s_trim_nowners; i++)
		free(st->s_trim_owners[i]);
	free(st->s_trim_owners);
	st->s_trim_owners = NULL;
	st->s_trim_nowners = 0;
	st->s_trim_owner = 0;
}

static void
overs_free(struct vec *v)
{
	struct over	*o = v->v_p;
	size_t		 i;

	for (i = 0; i < v->v_n; i++)
		free(o[i].o_owner);
	v->v_n = 0;
}

int
store_trim_pass(struct store *st, const struct store_trim *l, int64_t ttl,
    struct store_trimmed *out, struct store_error *err)
{
	struct trim_arg	 a;
	struct over	*o;
	size_t		 i;
	int		 rc;

	err = lk_err_init(err);
	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.lim = l;
	a.ttl = ttl > 0 ? ttl : 60000;
	a.picks.v_size = sizeof(struct pick);
	a.jobs.v_size = sizeof(struct jobrow);
	a.overs.v_size = sizeof(struct over);
	rc = lk_run(st, trim_fn, &a, err);
	free(a.picks.v_p);
	free(a.jobs.v_p);
	if (rc == 0) {
		out->td_held = a.held;
		out->td_runs = a.n;
		out->td_bytes = a.bytes;
		out->td_more = a.more;
		o = a.overs.v_p;
		for (i = 0; i < a.overs.v_n && l->tr_over != NULL; i++)
			l->tr_over(l->tr_arg, o[i].o_owner, o[i].o_runs,
			    o[i].o_bytes);
	}
	overs_free(&a.overs);
	free(a.overs.v_p);
	return (rc);
}

int
store_trim(struct store *st, int64_t max_age, size_t max_runs, int64_t ttl,
    size_t *n, struct store_error *err)
{
	struct store_trim	 l;
	struct store_trimmed	 td;

	*n = 0;
	memset(&l, 0, sizeof(l));
	l.tr_age = max_age;
	l.tr_job_runs = max_runs;
	do {
		if (store_trim_pass(st, &l, ttl, &td, err) == -1)
			return (-1);
		*n += td.td_runs;
	} while (td.td_more);
	return (0);
}
