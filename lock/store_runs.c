/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_runs.c: the records of runs a node writes (starts, ends, runs
 * that could not start, fires missed or skipped) and what it asks of
 * them before it starts a fire (a run still running, a claim not yet
 * recorded, a fire recorded already).  Runs lost and claims left
 * without a run are store_node.c's.
 */

#include <sys/wait.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

static int	 starts_fn(struct store *, void *, struct store_error *);
static int	 ends_fn(struct store *, void *, struct store_error *);

const char *
store_run_state_name(enum store_run_state s)
{
	switch (s) {
	case RUN_RUNNING:
		return ("running");
	case RUN_FINISHED:
		return ("finished");
	case RUN_LOST:
		return ("lost");
	case RUN_MISSED:
		return ("missed");
	case RUN_SKIPPED:
		return ("skipped");
	case RUN_FAILED:
		return ("failed");
	}
	return ("unknown");
}

/*
 * Run starts and ends, one or many.  Many go in one transaction, one
 * statement per run: the commit, not the statement, is what a run's
 * record cost when each had its own (bench/daemon/README), and a
 * prepared statement carried out n times keeps each run's id
 * (o_insert_id()) and its own answer to a duplicate.  A batch whose
 * connection drops before its commit is known to have gone through
 * is rolled back by the server, or committed whole; run again, each
 * start that is in already is found by its unique key (job, fire,
 * attempt, node) and keeps its first id, so no row is written twice.
 * On MariaDB a single run is one autocommitted statement, as before.
 */
struct runs_arg {
	const struct store_run_start	*rs;
	const struct store_run_end	*re;
	size_t				 n;
	int64_t				*ids;
};

static int
starts_fn(struct store *st, void *arg, struct store_error *err)
{
	struct runs_arg			*a = arg;
	const struct store_run_start	*r;
	struct lk_int			 f;
	struct sval			 p[6];
	size_t				 i;
	int				 trx;

	trx = st->s_ops->o_ddl_trx || a->n > 1;
	if (trx && lk_begin(st, err) == -1)
		return (-1);
	for (i = 0; i < a->n; i++) {
		r = &a->rs[i];
		p[0] = SVS(r->rs_job);
		p[1] = SVI(r->rs_fire);
		p[2] = SVI(r->rs_attempt);
		p[3] = SVS(st->s_node);
		p[4] = SVI(r->rs_pid);
		p[5] = SVI(r->rs_start);
		if (lk_exec(st, "run_start", S_RUN_INSERT, 0, p, 6, NULL, NULL,
		    NULL, err) == 0) {
			a->ids[i] = st->s_ops->o_insert_id(st);
			continue;
		}
		if (err->se_kind != SE_DUP)
			return (-1);
		/*
		 * Recorded already, by us: an earlier call whose result
		 * was lost.  Only the statement failed; the transaction
		 * goes on.
		 */
		memset(err, 0, sizeof(*err));
		memset(&f, 0, sizeof(f));
		if (lk_exec(st, "run_start.find", S_RUN_FIND, 0, p, 4,
		    lk_int_row, &f, NULL, err) == -1)
			return (-1);
		if (!f.i_found) {
			store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
			    "attempt %d of fire %lld of job %s on node %s: "
			    "recorded, then not found", r->rs_attempt,
			    (long long)r->rs_fire, r->rs_job, st->s_node);
			return (-1);
		}
		a->ids[i] = f.i_v;
		/*
		 * Or by another node, from our claim, when we were taken
		 * for dead before we could record it: the start is known
		 * now (store_claims_unrun()).
		 */
		p[0] = SVI(r->rs_pid);
		p[1] = SVI(r->rs_start);
		p[2] = SVI(f.i_v);
		if (lk_exec(st, "run_start.fill", S_RUN_FILL, 0, p, 3, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	}
	if (trx && lk_commit(st, "run_start", err) == -1)
		return (-1);
	return (0);
}

int
store_runs_start_batch(struct store *st, const struct store_run_start *rs,
    size_t n, int64_t *ids, struct store_error *err)
{
	struct runs_arg	 a;
	size_t		 i;

	err = lk_err_init(err);
	for (i = 0; i < n; i++) {
		ids[i] = 0;
		if (rs[i].rs_attempt < 1) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "run attempts count from 1");
			return (-1);
		}
	}
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.rs = rs;
	a.n = n;
	a.ids = ids;
	if (lk_run(st, starts_fn, &a, err) == -1) {
		memset(ids, 0, n * sizeof(*ids));
		return (-1);
	}
	return (0);
}

int
store_run_start(struct store *st, const char *job, time_t fire,
    int attempt, int pid, int64_t start, int64_t *id,
    struct store_error *err)
{
	struct store_run_start	 rs;

	memset(&rs, 0, sizeof(rs));
	rs.rs_job = job;
	rs.rs_fire = fire;
	rs.rs_attempt = attempt;
	rs.rs_pid = pid;
	rs.rs_start = start;
	return (store_runs_start_batch(st, &rs, 1, id, err));
}

/*
 * Statement s, at fault point `point', once for each of n rows whose np
 * parameters (at most 8) fill(st, arg, i, p) makes: in one transaction,
 * but for a single row on MariaDB, which is one autocommitted
 * statement.  Called within lk_run().
 */
static int
exec_rows(struct store *st, const char *point, enum stmt s, size_t n,
    size_t np, void (*fill)(struct store *, const void *, size_t,
    struct sval *), const void *arg, struct store_error *err)
{
	struct sval	 p[8];
	size_t		 i;
	int		 trx = st->s_ops->o_ddl_trx || n > 1;

	if (trx && lk_begin(st, err) == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		fill(st, arg, i, p);
		if (lk_exec(st, point, s, 0, p, np, NULL, NULL, NULL,
		    err) == -1)
			return (-1);
	}
	if (trx && lk_commit(st, point, err) == -1)
		return (-1);
	return (0);
}

/* The parameters of S_RUN_END for the ith end. */
static void
end_row(struct store *st, const void *arg, size_t i, struct sval *p)
{
	const struct runs_arg		*a = arg;
	const struct store_run_end	*r = &a->re[i];
	size_t				 keep;

	p[0] = SVI(r->re_end);
	if (WIFSIGNALED(r->re_status)) {
		p[1] = SVI(-1);
		p[2] = SVI(WTERMSIG(r->re_status));
	} else {
		p[1] = SVI(WEXITSTATUS(r->re_status));
		p[2] = SVI(0);
	}
	keep = r->re_outlen < st->s_output_max ? r->re_outlen :
	    st->s_output_max;
	p[3] = SVB(r->re_out != NULL ? r->re_out : "",
	    r->re_out != NULL ? keep : 0);
	p[4] = SVI(r->re_outlen);
	p[5] = SVI(r->re_id);
}

static int
ends_fn(struct store *st, void *arg, struct store_error *err)
{
	struct runs_arg	*a = arg;

	return (exec_rows(st, "run_end", S_RUN_END, a->n, 6, end_row, a, err));
}

int
store_runs_end_batch(struct store *st, const struct store_run_end *re,
    size_t n, struct store_error *err)
{
	struct runs_arg	 a;

	err = lk_err_init(err);
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.re = re;
	a.n = n;
	return (lk_run(st, ends_fn, &a, err));
}

int
store_run_end(struct store *st, int64_t id, int64_t end, int status,
    const char *out, size_t outlen, struct store_error *err)
{
	struct store_run_end	 re;

	memset(&re, 0, sizeof(re));
	re.re_id = id;
	re.re_end = end;
	re.re_status = status;
	re.re_out = out;
	re.re_outlen = outlen;
	return (store_runs_end_batch(st, &re, 1, err));
}

int
store_run_fail(struct store *st, const char *job, time_t fire, int attempt,
    int64_t when, const char *why, struct store_error *err)
{
	struct sval	 p[8];
	size_t		 total;

	err = lk_err_init(err);
	if (attempt < 1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "run attempts count from 1");
		return (-1);
	}
	if (why == NULL)
		why = "";
	total = strlen(why);
	p[0] = SVS(job);
	p[1] = SVI(fire);
	p[2] = SVI(attempt);
	p[3] = SVS(st->s_node);
	p[4] = SVI(when);
	p[5] = SVI(when);
	p[6] = SVB(why, total < st->s_output_max ? total : st->s_output_max);
	p[7] = SVI(total);
	return (lk_op_write(st, "run_fail", S_RUN_FAIL, p, 8, NULL, err));
}

struct notes_arg {
	const char *const	*jobs;
	const time_t		*fires;
	const struct store_note	*notes;	/* or jobs and fires */
	size_t			 n;
	enum store_run_state	 state;
	int64_t			 when;
};

/* The parameters of S_FIRE_NOTE for the ith fire. */
static void
note_row(struct store *st, const void *arg, size_t i, struct sval *p)
{
	const struct notes_arg	*a = arg;
	const struct store_note	*sn;
	size_t			 total;

	p[2] = SVS(st->s_node);
	if (a->notes == NULL) {
		p[0] = SVS(a->jobs[i]);
		p[1] = SVI(a->fires[i]);
		p[3] = SVI(a->when);
		p[4] = SVI(a->when);
		p[5] = SVI(a->state);
		p[6] = (struct sval){ SV_NULL, 0, NULL, 0 };
		p[7] = SVI(0);
		return;
	}
	sn = &a->notes[i];
	total = sn->sn_why != NULL ? strlen(sn->sn_why) : 0;
	p[0] = SVS(sn->sn_job);
	p[1] = SVI(sn->sn_fire);
	p[3] = SVI(sn->sn_when);
	p[4] = SVI(sn->sn_when);
	p[5] = SVI(sn->sn_state);
	p[6] = sn->sn_why != NULL ? SVB(sn->sn_why, total <
	    st->s_output_max ? total : st->s_output_max) :
	    (struct sval){ SV_NULL, 0, NULL, 0 };
	p[7] = SVI(total);
}

static int
notes_fn(struct store *st, void *arg, struct store_error *err)
{
	struct notes_arg	*a = arg;

	return (exec_rows(st, "note", S_FIRE_NOTE, a->n, 8, note_row, a, err));
}

int
store_fire_note_batch(struct store *st, const char *const *jobs,
    const time_t *fires, size_t n, enum store_run_state state, int64_t when,
    struct store_error *err)
{
	struct notes_arg	 a;

	err = lk_err_init(err);
	if (state != RUN_MISSED && state != RUN_SKIPPED) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "only missed and skipped fires are noted");
		return (-1);
	}
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.fires = fires;
	a.n = n;
	a.state = state;
	a.when = when;
	return (lk_run(st, notes_fn, &a, err));
}

int
store_fire_note(struct store *st, const char *job, time_t fire,
    enum store_run_state state, int64_t when, struct store_error *err)
{
	return (store_fire_note_batch(st, &job, &fire, 1, state, when, err));
}

int
store_fire_notes(struct store *st, const struct store_note *notes, size_t n,
    struct store_error *err)
{
	struct notes_arg	 a;
	size_t			 i;

	err = lk_err_init(err);
	for (i = 0; i < n; i++)
		if (notes[i].sn_state != RUN_MISSED &&
		    notes[i].sn_state != RUN_SKIPPED) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "only missed and skipped fires are noted");
			return (-1);
		}
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.notes = notes;
	a.n = n;
	return (lk_run(st, notes_fn, &a, err));
}

int
store_job_busy(struct store *st, const char *job, time_t fire, int *busy,
    struct store_error *err)
{
	struct sval	 p[2];
	int64_t		 v;

	err = lk_err_init(err);
	*busy = 0;
	p[0] = SVS(job);
	p[1] = SVI(fire);
	if (lk_op_int(st, "list", S_JOB_BUSY, p, 2, &v, NULL, err) == -1)
		return (-1);
	*busy = v > 0;
	return (0);
}

int
store_job_inflight(struct store *st, const char *job, time_t fire,
    time_t window, int *n, struct store_error *err)
{
	struct sval	 p[3];
	int64_t		 v;

	err = lk_err_init(err);
	*n = 0;
	p[0] = SVI((int64_t)fire - (int64_t)window);
	p[1] = SVI(fire);
	p[2] = SVS(job);
	if (lk_op_int(st, "list", S_JOB_INFLIGHT, p, 3, &v, NULL, err) == -1)
		return (-1);
	*n = (int)v;
	return (0);
}

int
store_fire_recorded(struct store *st, const char *job, time_t fire,
    int *n, struct store_error *err)
{
	struct sval	 p[2];
	int64_t		 v;

	err = lk_err_init(err);
	*n = 0;
	p[0] = SVS(job);
	p[1] = SVI(fire);
	if (lk_op_int(st, "list", S_FIRE_RECORDED, p, 2, &v, NULL, err) == -1)
		return (-1);
	*n = (int)v;
	return (0);
}
