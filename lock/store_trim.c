/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_trim.c: trimming the history, under the lease "trim" so that
 * one node at a time does it: finished runs by age and beyond a number
 * per job, the claims rows with them, the descriptions of jobs that
 * are gone once their runs are, and finished one-shot jobs by age.
 */

#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

struct trim_arg {
	int64_t		 ttl;
	int64_t		 max_age;
	size_t		 max_runs;
	size_t		 n;		/* runs deleted */
	struct vec	 jobs;		/* of more than max_runs runs */
};

static int	 trim_fn(struct store *, void *, struct store_error *);
static int	 trim_jobs(struct store *, struct trim_arg *,
		    struct store_error *);
static int	 trim_claims(struct store *, struct trim_arg *,
		    struct store_error *);

static int
trim_fn(struct store *st, void *arg, struct store_error *err)
{
	struct trim_arg	*a = arg;
	struct sval	 p;
	int64_t		 changed;
	int		 held;

	a->n = 0;
	if (lk_lease_take(st, "trim", a->ttl, &held, err) == -1)
		return (-1);
	if (!held)
		return (0);
	if (a->max_age > 0) {
		p = SVI(a->max_age);
		if (lk_exec(st, "trim", S_TRIM_AGE, 0, &p, 1, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->n += (size_t)changed;
		/* One-shot jobs done, failed or cancelled that long ago. */
		if (lk_exec(st, "trim", S_AT_TRIM, 0, &p, 1, NULL, NULL,
		    NULL, err) == -1)
			return (-1);
	}
	if (a->max_runs > 0 && trim_jobs(st, a, err) == -1)
		return (-1);
	/*
	 * The claims rows, then the descriptions of the jobs that are gone
	 * and have no runs left (or are back).
	 */
	if (trim_claims(st, a, err) == -1)
		return (-1);
	return (lk_exec(st, "trim", S_GONE_TRIM, 0, NULL, 0, NULL, NULL, NULL,
	    err));
}

/*
 * All but the newest max_runs records of each job, by fire (store_sql.h
 * says why not by id): the records of fires older than the fire of its
 * max_runs-th newest go.
 */
static int
trim_jobs(struct store *st, struct trim_arg *a, struct store_error *err)
{
	struct lk_int	 cut;
	struct sval	 p[2];
	int64_t		 changed;
	size_t		 i;

	lk_strs_free(&a->jobs);
	p[0] = SVI(a->max_runs);
	if (lk_exec(st, "trim", S_TRIM_JOBS, 0, p, 1, lk_str_row, &a->jobs,
	    NULL, err) == -1)
		return (-1);
	for (i = 0; i < a->jobs.v_n; i++) {
		p[0] = SVS(((char **)a->jobs.v_p)[i]);
		p[1] = SVI(a->max_runs - 1);
		memset(&cut, 0, sizeof(cut));
		if (lk_exec(st, "trim", S_TRIM_CUT, 0, p, 2, lk_int_row, &cut,
		    NULL, err) == -1)
			return (-1);
		if (!cut.i_found)
			continue;
		p[1] = SVI(cut.i_v);
		if (lk_exec(st, "trim", S_TRIM_JOB, 0, p, 2, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->n += (size_t)changed;
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

	if (a->max_age > 0) {
		p = SVI(a->max_age);
		if (lk_exec(st, "trim", S_TRIM_CLAIMS_AGE, 0, &p, 1, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	}
	if (a->max_runs == 0)
		return (0);
	p = SVI(a->max_runs - 1);
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

int
store_trim(struct store *st, int64_t max_age, size_t max_runs, int64_t ttl,
    size_t *n, struct store_error *err)
{
	struct trim_arg	 a;
	int		 rc;

	err = lk_err_init(err);
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.ttl = ttl > 0 ? ttl : 60000;
	a.max_age = max_age;
	a.max_runs = max_runs;
	a.jobs.v_size = sizeof(char *);
	rc = lk_run(st, trim_fn, &a, err);
	lk_strs_free(&a.jobs);
	if (rc == 0)
		*n = a.n;
	return (rc);
}
