/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_claim.c: claims, single and batched (store.h says why a claim
 * has one winner and how a lost result is still known).  A claim whose
 * result was lost is remembered as in doubt until it is settled by its
 * claims row.
 */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

struct batch_arg;
struct claim_arg;

static int	 uncertain_find(struct store *, const char *, time_t);
static void	 uncertain_add(struct store *, const char *, time_t);
static void	 uncertain_del(struct store *, const char *, time_t);
static int	 claim_row(void *, const struct sval *, size_t);
static int	 claim_read(struct store *, struct claim_arg *,
		    struct store_error *);
static int	 claim_fn(struct store *, void *, struct store_error *);
static int	 claim_one(struct store *, const char *, time_t, int, int *,
		    struct store_error *);
static int	 batch_row(void *, const struct sval *, size_t);
static int	 idx_cmp(const void *, const void *);
static void	 batch_sort(struct batch_arg *);
static int	 batch_resolve(struct store *, struct batch_arg *,
		    struct sval *, size_t, struct store_error *);
static int	 batch_fn(struct store *, void *, struct store_error *);
static int	 hint_row(void *, const struct sval *, size_t);
static int	 hint_fn(struct store *, void *, struct store_error *);
static void	 batch_hint(struct store *, struct batch_arg *);

/*
 * Claims whose result was lost.  A (job, fire) is remembered when the
 * connection drops while claiming it, and forgotten once a claim of it
 * has been settled by its claims row, or once this node claims a later
 * fire of the job or loses the result of one.  It only spares the
 * losers of ordinary claims a read of the claims table.  Normally
 * empty, so the linear searches cost nothing; after an outage it holds
 * the fires that were in flight, at most UNCERTAIN_MAX of them (the
 * oldest go first).
 */
static int
uncertain_find(struct store *st, const char *id, time_t fire)
{
	size_t	 i;

	for (i = 0; i < st->s_nuncertain; i++)
		if (st->s_uncertain[i].u_fire == fire &&
		    strcmp(st->s_uncertain[i].u_id, id) == 0)
			return ((int)i);
	return (-1);
}

/* Forget the job's fires up to and including `fire'. */
static void
uncertain_del(struct store *st, const char *id, time_t fire)
{
	size_t	 i, j;

	for (i = j = 0; i < st->s_nuncertain; i++) {
		if (st->s_uncertain[i].u_fire <= fire &&
		    strcmp(st->s_uncertain[i].u_id, id) == 0)
			continue;
		if (i != j)
			st->s_uncertain[j] = st->s_uncertain[i];
		j++;
	}
	st->s_nuncertain = j;
}

static void
uncertain_add(struct store *st, const char *id, time_t fire)
{
	struct uncertain	*u;
	size_t			 cap;

	if (uncertain_find(st, id, fire) != -1)
		return;
	uncertain_del(st, id, fire - 1);
	if (st->s_nuncertain == st->s_uncap) {
		cap = st->s_uncap == 0 ? 16 : st->s_uncap * 2;
		if (cap > UNCERTAIN_MAX ||
		    (u = reallocarray(st->s_uncertain, cap, sizeof(*u))) ==
		    NULL) {
			if (st->s_nuncertain == 0)
				return;
			memmove(&st->s_uncertain[0], &st->s_uncertain[1],
			    (st->s_nuncertain - 1) * sizeof(*u));
			st->s_nuncertain--;
		} else {
			st->s_uncertain = u;
			st->s_uncap = cap;
		}
	}
	u = &st->s_uncertain[st->s_nuncertain++];
	strlcpy(u->u_id, id, sizeof(u->u_id));
	u->u_fire = fire;
}

struct claim_arg {
	const char	*id;
	time_t		 fire;
	int		*won;
	int		 check;
	/* claim_read's answer */
	int		 found;
	char		 by[256];
};

static int
claim_row(void *arg, const struct sval *c, size_t n)
{
	struct claim_arg	*a = arg;

	ROW_NEED(n, 1);
	a->found = 1;
	strlcpy(a->by, lk_str(&c[0]), sizeof(a->by));
	return (0);
}

/* The fire is ours iff its claims row names us. */
static int
claim_read(struct store *st, struct claim_arg *a, struct store_error *err)
{
	struct sval	 p[2];

	p[0] = SVS(a->id);
	p[1] = SVI(a->fire);
	a->found = 0;
	if (lk_exec(st, "claim.read", S_CLAIM_READ, 0, p, 2, claim_row, a,
	    NULL, err) == -1)
		return (-1);
	*a->won = a->found && strcmp(a->by, st->s_node) == 0;
	return (0);
}

/*
 * One transaction: the conditional write on the job's row decides;
 * when it won, the claims row records it.  On MariaDB the transaction
 * costs a round trip more than an autocommitted UPDATE would, and a
 * losing one commits nothing.
 */
static int
claim_fn(struct store *st, void *arg, struct store_error *err)
{
	struct claim_arg	*a = arg;
	struct sval		 p[6];
	int64_t			 changed;

	*a->won = 0;
	if (a->check)
		return (claim_read(st, a, err));
	p[0] = SVI(a->fire);
	p[1] = SVS(st->s_node);
	p[2] = SVS(a->id);
	p[3] = SVI(a->fire);
	p[4] = SVI(a->fire);
	p[5] = SVS(a->id);
	if (lk_begin(st, err) == -1)
		return (-1);
	if (lk_exec(st, "claim", S_CLAIM, 0, p, 6, NULL, NULL, &changed,
	    err) == -1)
		goto lost;
	if (changed == 1 && lk_exec(st, "claim.note", S_CLAIM_NOTE, 1, &p[2],
	    1, NULL, NULL, NULL, err) == -1)
		goto lost;
	if (lk_commit(st, "claim", err) == -1)
		goto lost;
	if (changed == 1) {
		uncertain_del(st, a->id, a->fire);
		*a->won = 1;
		return (0);
	}
	/*
	 * Nothing changed: someone holds this fire or a later one.  If an
	 * earlier attempt of ours lost its result, that someone may be us,
	 * and the claims row says so even when later fires have moved the
	 * job's row on.  (On MariaDB a transaction of ours whose connection
	 * was cut may still hold the row; the UPDATE above waited for it to
	 * end.)
	 */
	if (uncertain_find(st, a->id, a->fire) != -1) {
		if (claim_read(st, a, err) == -1)
			return (-1);
		uncertain_del(st, a->id, a->fire);
	}
	return (0);
lost:
	if (err->se_kind == SE_LOST)
		uncertain_add(st, a->id, a->fire);
	return (-1);
}

/* A claim (check 0) or a check of one (check 1). */
static int
claim_one(struct store *st, const char *id, time_t fire, int check,
    int *won, struct store_error *err)
{
	struct claim_arg	 a;

	err = lk_err_init(err);
	*won = 0;
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.fire = fire;
	a.won = won;
	a.check = check;
	if (lk_run(st, claim_fn, &a, err) == -1) {
		*won = 0;
		return (-1);
	}
	if (check && *won)
		uncertain_del(st, id, fire);
	return (0);
}

int
store_claim(struct store *st, const char *id, time_t fire, int *won,
    struct store_error *err)
{
	return (claim_one(st, id, fire, 0, won, err));
}

int
store_claim_check(struct store *st, const char *id, time_t fire, int *won,
    struct store_error *err)
{
	return (claim_one(st, id, fire, 1, won, err));
}

struct batch_arg {
	const char *const *ids;
	size_t		 n;
	time_t		 fire;
	size_t		 max;
	unsigned char	*won;
	size_t		*nwon;
	/*
	 * Which jobs may hold a claim of ours whose result was lost: those
	 * in doubt[] (remembered from earlier calls; NULL: none), and all
	 * of them once this call has lost a connection.
	 */
	unsigned char	*doubt;
	int		 lost;
	size_t		*dx;		/* n: scratch for their indexes */
	/* the piece at hand */
	size_t		 off;
	size_t		 k;
	size_t		*sel;
	size_t		 nsel;
	struct idx	*ord;		/* the piece's ids, sorted */
};

/* An id and its place in the caller's array, for matching rows. */
struct idx {
	const char	*x_id;
	size_t		 x_i;
};

/* Rows naming ids of the piece at hand: remember which. */
static int
batch_row(void *arg, const struct sval *c, size_t n)
{
	struct batch_arg	*a = arg;
	struct idx		 key, *x;

	ROW_NEED(n, 1);
	key.x_id = lk_str(&c[0]);
	x = bsearch(&key, a->ord, a->k, sizeof(*a->ord), idx_cmp);
	if (x != NULL && !a->won[x->x_i] && a->nsel < a->k)
		a->sel[a->nsel++] = x->x_i;
	return (0);
}

static int
idx_cmp(const void *p, const void *q)
{
	return (strcmp(((const struct idx *)p)->x_id,
	    ((const struct idx *)q)->x_id));
}

/* Sort the piece at hand, so that each row finds its id quickly. */
static void
batch_sort(struct batch_arg *a)
{
	size_t	 i;

	for (i = 0; i < a->k; i++) {
		a->ord[i].x_id = a->ids[a->off + i];
		a->ord[i].x_i = a->off + i;
	}
	qsort(a->ord, a->k, sizeof(*a->ord), idx_cmp);
}

/*
 * After a lost result: every job in doubt whose claims row for the
 * fire names us is ours, however many that is (an earlier call may
 * have had more free slots) and whatever its row says now.
 */
static int
batch_resolve(struct store *st, struct batch_arg *a, struct sval *p,
    size_t max, struct store_error *err)
{
	size_t	 nd = 0, off, i, m;

	for (i = 0; i < a->n; i++)
		if (a->lost || a->doubt[i])
			a->dx[nd++] = i;
	for (off = 0; off < nd; off += a->k) {
		a->k = nd - off < max ? nd - off : max;
		m = lk_pad_ids(st, p, 0, a->ids, a->dx + off, a->k);
		p[m] = SVI(a->fire);
		p[m + 1] = SVS(st->s_node);
		for (i = 0; i < a->k; i++) {
			a->ord[i].x_id = a->ids[a->dx[off + i]];
			a->ord[i].x_i = a->dx[off + i];
		}
		qsort(a->ord, a->k, sizeof(*a->ord), idx_cmp);
		a->nsel = 0;
		if (lk_exec(st, "batch.mine", S_BATCH_MINE, m, p, m + 2,
		    batch_row, a, NULL, err) == -1)
			return (-1);
		for (i = 0; i < a->nsel; i++) {
			a->won[a->sel[i]] = 1;
			(*a->nwon)++;
		}
	}
	return (0);
}

static int
batch_fn(struct store *st, void *arg, struct store_error *err)
{
	struct batch_arg	*a = arg;
	struct sval		 p[LIST_MAX + 4];
	struct idx		 ord[LIST_MAX];
	size_t			 sel[LIST_MAX];
	size_t			 max = st->s_ops->o_max_list, j, k, m;
	size_t			 left;
	int64_t			 changed;
	int			 rc = -1;

	memset(a->won, 0, a->n);
	*a->nwon = 0;
	if (max > LIST_MAX)
		max = LIST_MAX;
	a->sel = sel;
	a->ord = ord;
	/* After a lost result: first take what is already ours. */
	if ((a->lost || a->doubt != NULL) &&
	    batch_resolve(st, a, p, max, err) == -1)
		goto lost;
	if (lk_begin(st, err) == -1)
		goto lost;
	for (a->off = 0; a->off < a->n && *a->nwon < a->max;
	    a->off += a->k) {
		a->k = a->n - a->off < max ? a->n - a->off : max;
		left = a->max - *a->nwon;
		m = lk_pad_ids(st, p, 0, a->ids + a->off, NULL, a->k);
		p[m] = SVI(a->fire);
		p[m + 1] = SVI(a->fire);
		p[m + 2] = SVI(left);
		a->nsel = 0;
		batch_sort(a);
		if (lk_exec(st, "batch.select", S_BATCH_SELECT, m, p, m + 3,
		    batch_row, a, NULL, err) == -1)
			goto lost;
		if (a->nsel > left)
			a->nsel = left;
		if (a->nsel == 0)
			continue;
		/* Update the rows selected (and locked); record the claims. */
		k = a->nsel;
		p[0] = SVI(a->fire);
		p[1] = SVS(st->s_node);
		m = lk_pad_ids(st, p, 2, a->ids, a->sel, k);
		p[m + 2] = SVI(a->fire);
		if (lk_exec(st, "batch.update", S_BATCH_UPDATE, m, p, m + 3,
		    NULL, NULL, &changed, err) == -1)
			goto lost;
		if ((size_t)changed != k) {
			store_seterr(err, STORE_TRANSIENT, SE_RETRY, 0,
			    "batch claim changed %lld of %zu rows",
			    (long long)changed, k);
			goto out;
		}
		m = lk_pad_ids(st, p, 0, a->ids, a->sel, k);
		if (lk_exec(st, "batch.note", S_CLAIM_NOTE, m, p, m, NULL,
		    NULL, NULL, err) == -1)
			goto lost;
		for (j = 0; j < k; j++)
			a->won[a->sel[j]] = 1;
		*a->nwon += k;
	}
	if (lk_commit(st, "batch", err) == -1)
		goto lost;
	rc = 0;
	goto out;
lost:
	if (err->se_kind == SE_LOST)
		a->lost = 1;
out:
	if (rc == -1) {
		memset(a->won, 0, a->n);
		*a->nwon = 0;
	}
	a->sel = NULL;
	a->ord = NULL;
	return (rc);
}

/* Rows of jobs the batch did not win that are still free. */
static int
hint_row(void *arg, const struct sval *c, size_t n)
{
	struct batch_arg	*a = arg;
	struct idx		 key, *x;

	ROW_NEED(n, 1);
	key.x_id = lk_str(&c[0]);
	x = bsearch(&key, a->ord, a->k, sizeof(*a->ord), idx_cmp);
	if (x != NULL && a->won[x->x_i] == 0)
		a->won[x->x_i] = 2;
	return (0);
}

static int
hint_fn(struct store *st, void *arg, struct store_error *err)
{
	struct batch_arg	*a = arg;
	struct sval		 p[LIST_MAX + 1];
	struct idx		 ord[LIST_MAX];
	size_t			 max = st->s_ops->o_max_list, nd, off, i, m;
	int			 rc = 0;

	if (max > LIST_MAX)
		max = LIST_MAX;
	for (i = nd = 0; i < a->n; i++) {
		if (a->won[i] == 1)
			continue;
		a->won[i] = 0;
		a->dx[nd++] = i;
	}
	a->ord = ord;
	for (off = 0; off < nd && rc == 0; off += a->k) {
		a->k = nd - off < max ? nd - off : max;
		m = lk_pad_ids(st, p, 0, a->ids, a->dx + off, a->k);
		p[m] = SVI(a->fire);
		for (i = 0; i < a->k; i++) {
			ord[i].x_id = a->ids[a->dx[off + i]];
			ord[i].x_i = a->dx[off + i];
		}
		qsort(ord, a->k, sizeof(*ord), idx_cmp);
		rc = lk_exec(st, "batch.hint", S_BATCH_FREE, m, p, m + 1,
		    hint_row, a, NULL, err);
	}
	a->ord = NULL;
	return (rc);
}

/*
 * Tell the jobs the batch did not win apart: those still free at the
 * fire when read just after it (2: skipped under another transaction's
 * lock, or not reached once max were won) from those taken, paused or
 * unknown (0).  The read takes no lock, so on MariaDB a row another
 * node's batch still holds reads as its last committed state, free:
 * claimed alone, it waits for that batch and then tells.  When the
 * read fails, every job not won may be free; the batch's own result
 * stands (its claims are committed), so the failure is not reported.
 */
static void
batch_hint(struct store *st, struct batch_arg *a)
{
	struct store_error	 herr;
	size_t			 i;

	if (lk_run(st, hint_fn, a, &herr) == 0)
		return;
	for (i = 0; i < a->n; i++)
		if (a->won[i] != 1)
			a->won[i] = 2;
}

int
store_claim_batch(struct store *st, const char *const *ids, size_t n,
    time_t fire, size_t max, unsigned char *won, size_t *nwon,
    struct store_error *err)
{
	struct batch_arg	 a;
	size_t			 i, nd = 0;
	int			 rc;

	err = lk_err_init(err);
	*nwon = 0;
	memset(won, 0, n);
	if (n == 0 || max == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.ids = ids;
	a.n = n;
	a.fire = fire;
	a.max = max;
	a.won = won;
	a.nwon = nwon;
	if ((a.dx = reallocarray(NULL, n, sizeof(*a.dx))) == NULL)
		return (lk_nomem(err));
	if (st->s_nuncertain > 0) {
		if ((a.doubt = calloc(n, 1)) == NULL) {
			free(a.dx);
			return (lk_nomem(err));
		}
		for (i = 0; i < n; i++)
			if ((a.doubt[i] = uncertain_find(st, ids[i], fire) !=
			    -1))
				nd++;
		if (nd == 0) {
			free(a.doubt);
			a.doubt = NULL;
		}
	}
	rc = lk_run(st, batch_fn, &a, err);
	if (rc == 0 && *nwon < n)
		batch_hint(st, &a);
	/*
	 * What was in flight and is not found ours stays in doubt, to be
	 * settled when asked again.  On MariaDB a transaction of ours cut
	 * off with its connection may still be running: batch.mine waits
	 * for the claims rows it wrote, but if it was cut before writing
	 * them it still holds job rows, which this call skipped (SKIP
	 * LOCKED) and which it can only roll back; a single claim waits
	 * for such a row and then tells.
	 */
	for (i = 0; i < n; i++) {
		if (rc == 0 && won[i] == 1) {
			if (st->s_nuncertain > 0)
				uncertain_del(st, ids[i], fire);
		} else if (a.lost)
			uncertain_add(st, ids[i], fire);
	}
	free(a.doubt);
	free(a.dx);
	return (rc);
}


/* A plain read of which jobs are still free at a fire. */
struct free_arg {
	const char *const *ids;
	size_t		 n;
	time_t		 fire;
	unsigned char	*isfree;
	struct idx	*ord;		/* the piece's ids, sorted */
	size_t		 k;
};

static int
free_row(void *arg, const struct sval *c, size_t n)
{
	struct free_arg	*a = arg;
	struct idx	 key, *x;

	ROW_NEED(n, 1);
	key.x_id = lk_str(&c[0]);
	x = bsearch(&key, a->ord, a->k, sizeof(*a->ord), idx_cmp);
	if (x != NULL)
		a->isfree[x->x_i] = 1;
	return (0);
}

static int
free_fn(struct store *st, void *arg, struct store_error *err)
{
	struct free_arg	*a = arg;
	struct sval	 p[LIST_MAX + 1];
	struct idx	 ord[LIST_MAX];
	size_t		 max = st->s_ops->o_max_list, off, i, m;
	int		 rc = 0;

	if (max > LIST_MAX)
		max = LIST_MAX;
	memset(a->isfree, 0, a->n);
	a->ord = ord;
	for (off = 0; off < a->n && rc == 0; off += a->k) {
		a->k = a->n - off < max ? a->n - off : max;
		m = lk_pad_ids(st, p, 0, a->ids + off, NULL, a->k);
		p[m] = SVI(a->fire);
		for (i = 0; i < a->k; i++) {
			ord[i].x_id = a->ids[off + i];
			ord[i].x_i = off + i;
		}
		qsort(ord, a->k, sizeof(*ord), idx_cmp);
		rc = lk_exec(st, "claim.free", S_BATCH_FREE, m, p, m + 1,
		    free_row, a, NULL, err);
	}
	a->ord = NULL;
	return (rc);
}

int
store_claim_free(struct store *st, const char *const *ids, size_t n,
    time_t fire, unsigned char *isfree, struct store_error *err)
{
	struct free_arg	 a;

	err = lk_err_init(err);
	memset(isfree, 0, n);
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.ids = ids;
	a.n = n;
	a.fire = fire;
	a.isfree = isfree;
	if (lk_run(st, free_fn, &a, err) == -1) {
		memset(isfree, 0, n);
		return (-1);
	}
	return (0);
}

struct sweep_arg {
	const char *const *jobs;
	const time_t	*fires;
	size_t		 n;
	int64_t		 when;
	unsigned char	*noted;
	size_t		*nnoted;
};

/*
 * One transaction: each fire claimed for this node where no node may
 * claim it any longer and nothing records it, and noted missed where
 * the claim went in.  A second sweep of the same fire finds the claim
 * there (the key) and leaves it.
 */
static int
sweep_fn(struct store *st, void *arg, struct store_error *err)
{
	struct sweep_arg	*a = arg;
	struct sval		 p[8];
	size_t			 i;
	int64_t			 changed;

	memset(a->noted, 0, a->n);
	*a->nnoted = 0;
	if (lk_begin(st, err) == -1)
		return (-1);
	for (i = 0; i < a->n; i++) {
		p[0] = SVI(a->fires[i]);
		p[1] = SVS(st->s_node);
		p[2] = SVS(a->jobs[i]);
		p[3] = SVI(a->fires[i]);
		p[4] = SVS(a->jobs[i]);
		p[5] = SVI(a->fires[i]);
		p[6] = SVS(a->jobs[i]);
		p[7] = SVI(a->fires[i]);
		if (lk_exec(st, "sweep", S_SWEEP_CLAIM, 0, p, 8, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		if (changed != 1)
			continue;
		p[0] = SVS(a->jobs[i]);
		p[1] = SVI(a->fires[i]);
		p[2] = SVS(st->s_node);
		p[3] = SVI(a->when);
		p[4] = SVI(a->when);
		p[5] = SVI(RUN_MISSED);
		p[6] = (struct sval){ SV_NULL, 0, NULL, 0 };
		p[7] = SVI(0);
		if (lk_exec(st, "sweep", S_FIRE_NOTE, 0, p, 8, NULL, NULL,
		    NULL, err) == -1)
			return (-1);
		a->noted[i] = 1;
		(*a->nnoted)++;
	}
	if (lk_commit(st, "sweep", err) == -1)
		return (-1);
	return (0);
}

int
store_fire_sweep(struct store *st, const char *const *jobs,
    const time_t *fires, size_t n, int64_t when, unsigned char *noted,
    size_t *nnoted, struct store_error *err)
{
	struct sweep_arg	 a;

	err = lk_err_init(err);
	*nnoted = 0;
	memset(noted, 0, n);
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.fires = fires;
	a.n = n;
	a.when = when;
	a.noted = noted;
	a.nnoted = nnoted;
	if (lk_run(st, sweep_fn, &a, err) == -1) {
		memset(noted, 0, n);
		*nnoted = 0;
		return (-1);
	}
	return (0);
}

struct shared_arg {
	const char *const *nodes;
	size_t		 n;
	int64_t		 mine;
	int64_t		 held;
};

static int
shared_row(void *arg, const struct sval *c, size_t n)
{
	struct shared_arg	*a = arg;

	ROW_NEED(n, 2);
	a->mine = lk_int(&c[0]);
	a->held = lk_int(&c[1]);
	return (0);
}

static int
shared_fn(struct store *st, void *arg, struct store_error *err)
{
	struct shared_arg	*a = arg;
	struct sval		 p[LIST_MAX + 2];
	size_t			 m;

	a->mine = a->held = -1;
	p[0] = SVS(st->s_node);
	m = lk_pad_ids(st, p, 1, a->nodes, NULL, a->n);
	p[m + 1] = SVS(st->s_node);
	return (lk_exec(st, "holds.shared", S_HOLDS_SHARED, m, p, m + 2,
	    shared_row, a, NULL, err));
}

int
store_holds_shared(struct store *st, const char *const *nodes, size_t n,
    int *shared, struct store_error *err)
{
	struct shared_arg	 a;

	err = lk_err_init(err);
	*shared = 0;
	if (n == 0)
		return (0);
	if (n > LIST_MAX || n > st->s_ops->o_max_list)
		return (0);
	memset(&a, 0, sizeof(a));
	a.nodes = nodes;
	a.n = n;
	if (lk_run(st, shared_fn, &a, err) == -1)
		return (-1);
	*shared = a.mine >= 0 && a.held == a.mine * (int64_t)n;
	return (0);
}

int
store_statements(struct store *st, int64_t *count, struct store_error *err)
{
	err = lk_err_init(err);
	*count = 0;
	if (lk_op_int(st, "questions", S_QUESTIONS, NULL, 0, count, NULL,
	    err) == -1)
		return (-1);
	if (*count < 0) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "this store counts no statements");
		*count = 0;
		return (-1);
	}
	return (0);
}
