/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_node.c: the nodes.  Heartbeats and draining; failure
 * detection, which marks lost the runs of nodes gone silent and turns
 * the claims a node left without a record into runs; and the leases
 * that let chores run on one node at a time.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

static int	 beat_row(void *, const struct sval *, size_t);
static int	 beat_fn(struct store *, void *, struct store_error *);
static int	 drain_fn(struct store *, void *, struct store_error *);
static void	 lostids_add(struct store *, int64_t);
static int	 lost_fn(struct store *, void *, struct store_error *);
static int	 holder_row(void *, const struct sval *, size_t);
static int	 lease_fn(struct store *, void *, struct store_error *);

struct beat_arg {
	int64_t		 clock;
	int		 running;
	struct store_cover cover;
	const char	*name;
	int		 drain;
	/* S_BEAT_READ's answer */
	int64_t		 now;
	int		 has;
	int		 state;
};

static int
beat_row(void *arg, const struct sval *c, size_t n)
{
	struct beat_arg	*a = arg;

	ROW_NEED(n, 2);
	a->now = lk_int(&c[0]);
	a->has = c[1].v_type != SV_NULL;
	a->state = (int)lk_int(&c[1]);
	return (0);
}

static int
beat_fn(struct store *st, void *arg, struct store_error *err)
{
	struct beat_arg	*a = arg;
	struct sval	 p[12];

	p[0] = SVS(st->s_node);
	if (lk_exec(st, "beat.read", S_BEAT_READ, 0, p, 1, beat_row, a, NULL,
	    err) == -1)
		return (-1);
	p[1] = SVI(a->now);
	p[2] = SVI(a->now);
	p[3] = SVI(a->clock - a->now);
	p[4] = SVI(a->running);
	/* The server, as lk_run() looked at it (CHECK_EVERY at most). */
	p[5] = SVS(st->s_server);
	p[6] = SVS(st->s_dbstate);
	p[7] = SVI(a->cover.c_from);
	p[8] = SVI(a->cover.c_to);
	p[9] = SVI((int64_t)a->cover.c_view);
	p[10] = SVI((int64_t)a->cover.c_jobs);
	p[11] = SVI(st->s_beat_first);
	if (lk_exec(st, "beat", S_BEAT, 0, p, 12, NULL, NULL, NULL, err) == -1)
		return (-1);
	st->s_beat_first = 0;
	return (0);
}

int
store_heartbeat(struct store *st, int64_t clock, int running,
    const struct store_cover *cover, int64_t *store_ms, int *draining,
    struct store_error *err)
{
	struct beat_arg	 a;

	err = lk_err_init(err);
	*store_ms = 0;
	*draining = 0;
	memset(&a, 0, sizeof(a));
	a.clock = clock;
	a.running = running;
	if (cover != NULL)
		a.cover = *cover;
	if (lk_run(st, beat_fn, &a, err) == -1)
		return (-1);
	*store_ms = a.now;
	*draining = a.has && a.state == NODE_DRAINING;
	return (0);
}

static int
drain_fn(struct store *st, void *arg, struct store_error *err)
{
	struct beat_arg	*a = arg;
	struct sval	 p[2];
	int64_t		 changed;

	p[0] = SVI(a->drain ? NODE_DRAINING : NODE_ACTIVE);
	p[1] = SVS(a->name);
	if (lk_exec(st, "node", S_NODE_DRAIN, 0, p, 2, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed > 0)
		return (0);
	a->has = 0;
	if (lk_exec(st, "node", S_BEAT_READ, 0, &p[1], 1, beat_row, a, NULL,
	    err) == -1)
		return (-1);
	if (!a->has) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
		    "no node %s in the store", a->name);
		return (-1);
	}
	return (0);
}

int
store_node_drain(struct store *st, const char *name, int drain,
    struct store_error *err)
{
	struct beat_arg	 a;

	err = lk_err_init(err);
	memset(&a, 0, sizeof(a));
	a.name = name;
	a.drain = drain;
	return (lk_run(st, drain_fn, &a, err));
}


/*
 * Runs marked lost.  The candidates are read, then each is marked by a
 * write that changes it only if it still runs, all in one transaction:
 * of several nodes doing this at once, each run's write changes it for
 * exactly one (on MariaDB the others wait on the row lock, then find
 * it lost already), and only that one returns it.  Rows are locked in
 * id order, so two such transactions do not deadlock on each other.
 *
 * The write also names the node that marked the run (lost_by).  Until
 * the transaction's commit is known to have succeeded, the runs it
 * marked are remembered in the store; should the result be lost, the
 * next attempt (in this call or a later one) reads each back and
 * returns those that name this node, so that a mark whose commit went
 * through is still handed to its caller.  Nothing else ever writes a
 * lost run's lost_by, so the answer is final.
 */
struct lost_arg {
	int64_t		 timeout;
	int64_t		 id;		/* store_run_lost(); 0: every node */
	int		 marked;
	struct vec	 v;		/* the runs this call marked */
	struct vec	 cand;		/* candidates */
};

static void
lostids_add(struct store *st, int64_t id)
{
	int64_t	*p;
	size_t	 i, cap;

	for (i = 0; i < st->s_nlostids; i++)
		if (st->s_lostids[i] == id)
			return;
	if (st->s_nlostids == st->s_lostcap) {
		cap = st->s_lostcap == 0 ? 16 : st->s_lostcap * 2;
		if (cap > LOSTIDS_MAX || (p = reallocarray(st->s_lostids,
		    cap, sizeof(*p))) == NULL) {
			if (st->s_nlostids == 0)
				return;
			memmove(&st->s_lostids[0], &st->s_lostids[1],
			    (st->s_nlostids - 1) * sizeof(*p));
			st->s_nlostids--;
		} else {
			st->s_lostids = p;
			st->s_lostcap = cap;
		}
	}
	st->s_lostids[st->s_nlostids++] = id;
}

static int
lost_fn(struct store *st, void *arg, struct store_error *err)
{
	struct lost_arg		*a = arg;
	struct store_run	*r, *to;
	struct lk_int		 m;
	struct sval		 p[4];
	int64_t			 changed;
	size_t			 i;
	unsigned char		*mark = NULL;
	int			 rc = -1;

	store_runs_free(a->v.v_p, a->v.v_n);
	store_runs_free(a->cand.v_p, a->cand.v_n);
	a->v.v_p = a->cand.v_p = NULL;
	a->v.v_n = a->v.v_cap = a->cand.v_n = a->cand.v_cap = 0;
	a->marked = 0;
	memset(&m, 0, sizeof(m));
	if (lk_exec(st, "lost", S_NOW, 0, NULL, 0, lk_int_row, &m, NULL,
	    err) == -1)
		return (-1);
	if (a->id != 0) {
		p[0] = SVI(m.i_v);
		p[1] = SVS(st->s_node);
		p[2] = SVI(a->id);
		if (lk_exec(st, "lost", S_RUN_LOSE, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->marked = changed == 1;
		return (0);
	}
	if (lk_begin(st, err) == -1)
		return (-1);
	for (i = 0; i < st->s_nlostids; i++) {
		p[0] = SVI(st->s_lostids[i]);
		p[1] = SVS(st->s_node);
		if (lk_exec(st, "lost.mine", S_LOST_MINE, 0, p, 2, lk_run_row,
		    &a->v, NULL, err) == -1)
			goto out;
	}
	/* The claims dead nodes left without a record become runs. */
	p[0] = SVS(st->s_node);
	p[1] = SVI(a->timeout);
	p[2] = SVI(UNRUN_WINDOW + (a->timeout > 0 ? a->timeout : 0));
	p[3] = p[2];
	if (lk_exec(st, "lost.unrun", S_UNRUN_DEAD, 0, p, 4, NULL, NULL, NULL,
	    err) == -1)
		goto out;
	if (lk_exec(st, "lost", S_LOST_FIND, 0, p, 2, lk_run_row, &a->cand,
	    NULL, err) == -1)
		goto out;
	if (a->cand.v_n > 0 && (mark = calloc(a->cand.v_n, 1)) == NULL) {
		lk_nomem(err);
		goto out;
	}
	r = a->cand.v_p;
	for (i = 0; i < a->cand.v_n; i++) {
		p[0] = SVI(m.i_v);
		p[1] = SVS(st->s_node);
		p[2] = SVI(r[i].r_id);
		if (lk_exec(st, "lost", S_RUN_LOSE, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			goto out;
		if ((mark[i] = changed == 1))
			lostids_add(st, r[i].r_id);
	}
	if (lk_commit(st, "lost", err) == -1)
		goto out;
	/* Hand over the runs marked; free the other candidates. */
	for (i = 0; i < a->cand.v_n; i++) {
		if (!mark[i]) {
			lk_run_clear(&r[i]);
			continue;
		}
		if ((to = lk_vec_push(&a->v)) == NULL) {
			/* Still remembered: a later call returns them. */
			for (; i < a->cand.v_n; i++)
				lk_run_clear(&r[i]);
			a->cand.v_n = 0;
			lk_nomem(err);
			goto out;
		}
		*to = r[i];
		to->r_state = RUN_LOST;
		to->r_end = m.i_v;
	}
	a->cand.v_n = 0;
	rc = 0;
out:
	free(mark);
	return (rc);
}

int
store_runs_mark_lost(struct store *st, int64_t timeout,
    struct store_run **lost, size_t *n, struct store_error *err)
{
	struct lost_arg	 a;
	int		 rc;

	err = lk_err_init(err);
	*lost = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.timeout = timeout;
	a.v.v_size = a.cand.v_size = sizeof(struct store_run);
	rc = lk_run(st, lost_fn, &a, err);
	store_runs_free(a.cand.v_p, a.cand.v_n);
	if (rc == -1) {
		store_runs_free(a.v.v_p, a.v.v_n);
		return (-1);
	}
	/* Every mark in doubt is settled: returned now if it was ours. */
	st->s_nlostids = 0;
	if (a.v.v_n == 0)
		free(a.v.v_p);
	else {
		*lost = a.v.v_p;
		*n = a.v.v_n;
	}
	return (0);
}

int
store_claims_unrun(struct store *st, time_t from, size_t *n,
    struct store_error *err)
{
	struct sval	 p[2];
	int64_t		 changed;

	err = lk_err_init(err);
	*n = 0;
	p[0] = SVI(from);
	p[1] = SVS(st->s_node);
	if (lk_op_write(st, "unrun", S_UNRUN_MINE, p, 2, &changed, err) == -1)
		return (-1);
	*n = (size_t)changed;
	return (0);
}

int
store_run_lost(struct store *st, int64_t id, int *marked,
    struct store_error *err)
{
	struct lost_arg	 a;

	err = lk_err_init(err);
	*marked = 0;
	if (id <= 0) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "no run %lld", (long long)id);
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.v.v_size = a.cand.v_size = sizeof(struct store_run);
	if (lk_run(st, lost_fn, &a, err) == -1)
		return (-1);
	*marked = a.marked;
	return (0);
}

/*
 * Leases.  A lease is taken by a write that changes it only when it is
 * free, expired or ours already; when none changes it, reading the
 * holder tells whether it is ours after all (a write of ours whose
 * result was lost).
 */
struct holder {
	int		 h_found;
	char		 h_name[256];
};

static int
holder_row(void *arg, const struct sval *c, size_t n)
{
	struct holder	*h = arg;

	ROW_NEED(n, 1);
	h->h_found = 1;
	strlcpy(h->h_name, lk_str(&c[0]), sizeof(h->h_name));
	return (0);
}

int
lk_lease_take(struct store *st, const char *name, int64_t ttl, int *held,
    struct store_error *err)
{
	struct holder	 h;
	struct sval	 p[4];
	int64_t		 changed;

	*held = 0;
	p[0] = SVS(st->s_node);
	p[1] = SVI(ttl);
	p[2] = SVS(name);
	p[3] = SVS(st->s_node);
	if (lk_exec(st, "lease", S_LEASE_UPDATE, 0, p, 4, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed == 0) {
		p[0] = SVS(name);
		p[1] = SVS(st->s_node);
		p[2] = SVI(ttl);
		if (lk_exec(st, "lease", S_LEASE_INSERT, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
	}
	if (changed == 0) {
		memset(&h, 0, sizeof(h));
		if (lk_exec(st, "lease", S_LEASE_READ, 0, p, 1, holder_row, &h,
		    NULL, err) == -1)
			return (-1);
		*held = h.h_found && strcmp(h.h_name, st->s_node) == 0;
	} else
		*held = 1;
	return (0);
}

struct lease_arg {
	const char	*name;
	int64_t		 ttl;
	int		 held;
};

static int
lease_fn(struct store *st, void *arg, struct store_error *err)
{
	struct lease_arg	*a = arg;

	return (lk_lease_take(st, a->name, a->ttl, &a->held, err));
}

int
store_lease_take(struct store *st, const char *name, int64_t ttl, int *held,
    struct store_error *err)
{
	struct lease_arg	 a;

	err = lk_err_init(err);
	*held = 0;
	memset(&a, 0, sizeof(a));
	a.name = name;
	a.ttl = ttl;
	if (lk_run(st, lease_fn, &a, err) == -1)
		return (-1);
	*held = a.held;
	return (0);
}

int
store_lease_drop(struct store *st, const char *name, struct store_error *err)
{
	struct sval	 p[2];

	err = lk_err_init(err);
	p[0] = SVS(name);
	p[1] = SVS(st->s_node);
	return (lk_op_write(st, "lease", S_LEASE_DROP, p, 2, NULL, err));
}
