/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * claim.c: what happens when jobs come due, and the misfire pass after
 * a start or an outage of the store.  Under daemon.c in the daemon's
 * chain (daemon.h): it asks gate.c whether this node may claim, claims
 * in the store itself, and moves each fire along its life (fire.c) by
 * what the store answered.
 *
 * A fire of node scope starts at once, unclaimed.  A cluster fire waits
 * for the end of the turn: the fires that came due in one turn are
 * claimed together, one transaction for those due at the same instant,
 * so that a thousand jobs due at once cost the store one commit rather
 * than a thousand; every claim is made before any job is started, so
 * that the store's round trips do not come between a fire and its
 * fork.  Whatever a node does with a cluster fire (run it, note it
 * skipped or missed) it does after winning its claim.
 *
 * Claims in slices.  A claim is good for the lease it was made under
 * (gate.c): a claimed fire that gets to its start past that lease is
 * not started (it is FENCED, fire.c), since the other nodes may have
 * taken this node for dead meanwhile, and a fire fenced so is noted
 * missed.  So a node claims no more than it can start within its
 * lease: its start rate is measured (the attempts that got past their
 * start per second, sampled while starts were waiting), the lease left
 * says how long it has, and the starts already waiting come first.  The
 * rest of the turn's fires stay due, unclaimed, and so claimable by
 * every other node; this node claims the next slice as it gets through
 * the last one, under the lease then current.  Nothing is ever claimed
 * and then given back.  SQLite has no lease: everything is claimed at
 * once.
 *
 * Fires in doubt.  A claim that failed without an answer may have been
 * committed all the same (the connection dropped after the write).  If
 * it was, no other node will run the fire and the misfire pass, which
 * looks only past the job's last claimed fire, will not see it.  So
 * such a fire is kept (FS_DOUBT) and asked about again, first thing,
 * once the store answers: the store knows whose each claim was
 * (store.h).  Fires dropped because the node could not claim at all
 * (store down, fenced, the pass owed) are kept too (FS_DROPPED): the
 * misfire pass leaves recent fires to the nodes firing them on time,
 * and when every node dropped them nobody else would claim or note
 * them.  One still that recent once the store answers is run, a few
 * seconds late, rather than noted missed: an outage of a second or two
 * (a database node left behind, a cluster that took a moment to take
 * a server back) costs no fire.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * A fire counts as missed once its timer is this late (start-grace):
 * the daemon was stopped, starved or cut off from the store meanwhile.
 */
#define LATE_MS		(D.d_conf.c_start_grace_ms)
/*
 * Fires this recent (seconds, besides the claim deferral) are left to
 * the nodes firing them on time.
 */
#define RECOVER_MARGIN	2
/* How far the misfire pass walks one job's schedule. */
#define RECOVER_STEPS	100000
/* Newest runs of a job read to tell whether a fire was rerun. */
#define RERUN_LOOK	200
/*
 * The pace of claims (claim_flush()): the starts per second assumed
 * before any is measured, and the least ever assumed; how often the
 * rate is sampled; the part of the lease kept for the claim itself and
 * for a runner to get to its exec; the share of what the rate says
 * fits in the lease that is claimed, and at most how far ahead of its
 * starts a node claims (a machine that slows down suddenly then leaves
 * little claimed behind); how soon the loop comes back to fires left
 * unclaimed.
 */
#define PACE_INIT	50
#define PACE_MIN	5
#define PACE_SAMPLE_MS	250
#define PACE_MARGIN_MS	500
#define PACE_SHARE	0.5
#define PACE_AHEAD_MS	1000
#define PACE_WAKE_MS	100

static struct {
	double		 p_rate;	/* starts/s */
	int64_t		 p_at;		/* mono ms of the last sample */
	uint64_t	 p_started;	/* fire_started() then */
	int		 p_busy;	/* starts were waiting then */
} pace = { PACE_INIT, 0, 0, 0 };

static void	 due(struct job *, const struct jobref *, struct tick *);
static enum gate_verdict verdict(struct tick *);
static void	 claimed(struct fire *, const struct job *, int, int64_t,
		    struct tick *);
static void	 start_or_skip(struct fire *, const struct job *,
		    struct tick *);
static int	 overlapping(const struct job *, const char *, time_t);
static int	 doubts_settle(struct tick *);
static int	 doubt_settle(struct fire *, const struct job *, int,
		    struct tick *);
static int	 doubt_cmp(const void *, const void *);
static int	 instant_cmp(const void *, const void *);
static int	 lost_before(const char *, time_t, int);
static time_t	 recover_limit(const struct job *, const char *, time_t);
static void	 pace_sample(int64_t);
static size_t	 pace_budget(int64_t, int64_t);
static void	 pace_wake(struct mtimer *, struct tick *);
static int	 id_cmp(const void *, const void *);

static int	 claim_shared(struct tick *);
static size_t	 claim_left(struct fire **, size_t, struct tick *);
static void	 cover_turn(struct tick *);
static void	 cover_unclean(int64_t);
static void	 cover_publish(int64_t);
static int64_t	 flush(struct tick *);
static int	 cover_await(struct job *, const struct jobref *, const char *,
		    size_t, size_t);
static void	 cover_walk(struct tick *);
static uint64_t	 name_hash(const char *);
static void	 recover_again(struct mtimer *, struct tick *);

static struct mtimer	 pace_t = MTIMER_INIT(pace_wake, NULL);
/*
 * The first misfire pass after the daemon starts leaves alone, besides,
 * the fires that backups may still be waiting for (cover_await()): a
 * node that died and came back before their wait ended would note
 * missed what they were about to run.  The pass is owed again once that
 * wait is over (recover_t), for the fires nobody ran meanwhile.  Every
 * pass leaves alone the fire this node itself waits for a cover of.
 */
static int		 recover_begun;
static struct mtimer	 recover_t = MTIMER_INIT(recover_again, NULL);

/* The nodes after a fire's preferred one that look whether it was taken. */
#define BACKUPS		2
/* Whether every live node holds this node's jobs, and what it was for. */
#define SHARED_MS	60000	/* read again at least this often */
#define SHARED_NOT_MS	5000	/* ... and this often when not shared */
#define LIST_MAX_NODES	64	/* more live nodes: not read, no */
static struct {
	int		 s_shared;
	uint64_t	 s_nodes;	/* a hash of the nodes' names */
	size_t		 s_njobs;	/* jobtab_count() */
	int64_t		 s_at;		/* mono ms of the read; 0 never */
} shared;

/*
 * The cover (store.h): what this node says at each heartbeat of the
 * fires it was the preferred claimant of, and the backups' fires that
 * wait for their preferred node's word.
 *
 * This node's side.  Every cluster fire due by c_to and from c_from on
 * that the ranking of the live nodes c_view names this node first for,
 * of the jobs c_jobs, has been claimed by this node or found taken.
 * c_to is how far the loop has taken fires off its timers (upto), less
 * the fires it left unclaimed for later slices (claim_flush()); c_from
 * moves past every fire the node could not claim (store down, fenced,
 * drained, stopping, a claim in doubt, a misfire, a turn it gave up as
 * busier by its count now), and past everything taken so far when the
 * candidates or this node's jobs change.  The cover only ever promises
 * less than was done.
 *
 * A backup's side.  A backup (rank 1 or 2) of a fire whose preferred
 * node beat lately with a cover of the same candidates and the same
 * jobs does not read the claims at claim-defer: it defers the job's
 * timer to the wait's end (COVER_WAIT after two heartbeats) and waits
 * for that node's next covers.  Covered: the fire is settled, not this
 * node's, with no statement.  That node's clock passed the fire (its
 * beat says) without covering it, or it is gone from the live nodes:
 * the backup reads and claims as before, at once.  Nothing heard by the
 * wait's end (the node died, its beats stopped): the timer does that
 * too.  Only where the job's next fire comes after the wait's end, as
 * the claim must come before the next fire's claim moves the job's row
 * past this one; a job due more often is read at claim-defer as
 * before.  A fire costs the same statements at three nodes and six as
 * at one; a preferred node that died costs its fires up to two
 * heartbeats of lateness, until the others see its beats stop.
 */
#define COVER_WAIT	1000	/* ms past two heartbeats */
#define COVER_PASSED	500	/* ms: its clock this far past: passed */
#define COVER_LEFT	INT64_MAX	/* c_from: the node stops claiming */
struct await {
	struct jobref	 a_ref;
	char		 a_id[CRON_IDLEN + 1];
	time_t		 a_fire;
	int64_t		 a_due;		/* wall ms */
	uint64_t	 a_pref;	/* name_hash() of its preferred node */
	uint64_t	 a_view;	/* the candidates, by this node */
	uint64_t	 a_jobs;	/* jobtab_sum() then */
	size_t		 a_rank;
};
static struct {
	struct store_cover c;		/* this node's */
	struct store_cover said;	/* ... as node.c has it */
	int64_t		 upto;		/* fires due by this taken, ms */
	int		 begun;
	int		 left;		/* COVER_LEFT said */
	struct await	*aw;
	size_t		 naw;
	size_t		 capaw;
	size_t		 kept;		/* naw after the last walk */
	uint64_t	 gen;		/* the gate's nodes walked */
} cov;

/* Take every job due by the tick off the wall-clock timers. */
void
claim_due(struct tick *tk)
{
	struct jobref	 ref;
	struct job	*j;

	cover_turn(tk);
	cover_walk(tk);
	if (D.d_stopping)
		claim_leave();
	while ((j = jobs_due(tk->tk_wall, &ref)) != NULL)
		due(j, &ref, tk);
	if (tk->tk_wall > cov.upto)
		cov.upto = tk->tk_wall;
}

/*
 * A turn begins: a cover of other candidates or other jobs than the
 * fires taken so far were ranked with starts after them.
 */
static void
cover_turn(struct tick *tk)
{
	const struct gate	*g = gate_state();
	uint64_t		 sum = jobtab_sum();

	if (cov.left)
		return;
	if (!cov.begun) {
		/* No fire before the first turn was ranked here. */
		cov.begun = 1;
		cov.upto = tk->tk_wall;
		cov.c.c_from = cov.c.c_to = tk->tk_wall + 1;
		cov.c.c_view = g->g_view;
		cov.c.c_jobs = sum;
		return;
	}
	if (g->g_view != cov.c.c_view || sum != cov.c.c_jobs) {
		cov.c.c_from = cov.upto + 1;
		cov.c.c_view = g->g_view;
		cov.c.c_jobs = sum;
	}
}

/* A fire due at due (ms) that this node may have left unclaimed. */
static void
cover_unclean(int64_t due)
{
	if (due >= cov.c.c_from)
		cov.c.c_from = due + 1;
}

/*
 * The end of claim_flush(): fires from the instant left (ms; INT64_MAX:
 * none) stay unclaimed for a later slice, so the cover stops short of
 * it (a fire is due at its instant or later); node.c has the cover for
 * the next heartbeat.
 */
static void
cover_publish(int64_t left)
{
	if (!D.d_mysql || cov.left)
		return;
	cov.c.c_to = left <= cov.upto ? left - 1 : cov.upto;
	if (memcmp(&cov.c, &cov.said, sizeof(cov.c)) != 0) {
		cov.said = cov.c;
		node_cover(&cov.c);
	}
}

/* A node's name, hashed. */
static uint64_t
name_hash(const char *name)
{
	return (fnv64(FNV64_INIT, name, strlen(name)));
}

/*
 * Fire (j's now, identity id, due at j's timer) of which this node is
 * backup rank, node pick of the live ones its preferred: wait for that
 * node's cover (1), or not (0: read at claim-defer).
 */
static int
cover_await(struct job *j, const struct jobref *ref, const char *id,
    size_t rank, size_t pick)
{
	const struct gate	*g = gate_state();
	const struct gate_node	*pn = &g->g_nodes[pick];
	struct await		*a;
	int64_t			 until, hb = D.d_conf.c_heartbeat_ms;
	time_t			 next;

	if (!D.d_mysql)
		return (0);
	if (pn->gn_cover.c_to == 0 || pn->gn_cover.c_from == COVER_LEFT ||
	    pn->gn_age > hb + COVER_WAIT ||
	    pn->gn_cover.c_view != g->g_view ||
	    pn->gn_cover.c_jobs != jobtab_sum())
		return (0);
	until = j->j_due + D.d_conf.c_defer_ms * (int64_t)rank + 2 * hb +
	    COVER_WAIT;
	/* Not so long that the fire would be a misfire. */
	if (until - j->j_due > LATE_MS / 2)
		return (0);
	if (job_next(j, (time_t)j->j_fire, &next) == 0 &&
	    ((int64_t)next + job_delay(j, id)) * 1000 <= until + COVER_WAIT)
		return (0);
	if (cov.naw == cov.capaw) {
		cov.capaw = cov.capaw ? cov.capaw * 2 : 64;
		cov.aw = xreallocarray(cov.aw, cov.capaw, sizeof(*cov.aw));
	}
	a = &cov.aw[cov.naw++];
	a->a_ref = *ref;
	strlcpy(a->a_id, id, sizeof(a->a_id));
	a->a_fire = (time_t)j->j_fire;
	a->a_due = j->j_due;
	a->a_pref = name_hash(pn->gn_name);
	a->a_view = g->g_view;
	a->a_jobs = jobtab_sum();
	a->a_rank = rank;
	job_defer_to(j, until);
	j->j_flags |= JOB_AWAIT;
	return (1);
}

/*
 * The fires waiting for a cover, once the live nodes were read again:
 * settled where their preferred node covered them, read and claimed at
 * once where it passed them without (or is gone), left waiting else.
 */
static void
cover_walk(struct tick *tk)
{
	const struct gate	*g = gate_state();
	const struct gate_node	*pn;
	const struct store_cover *c;
	struct await		*a;
	struct jobref		 ref;
	struct job		*j;
	uint64_t		*hs;
	size_t			 i, k, p, nnot = 0;
	int64_t			 at;

	/* Walked again when the nodes were read, or to drop the stale. */
	if (cov.naw == 0 || (cov.gen == g->g_gen &&
	    cov.naw < 2 * cov.kept + 64))
		return;
	cov.gen = g->g_gen;
	hs = xreallocarray(NULL, g->g_nnodes + 1, sizeof(*hs));
	for (p = 0; p < g->g_nnodes; p++)
		hs[p] = name_hash(g->g_nodes[p].gn_name);
	for (i = k = 0; i < cov.naw; i++) {
		a = &cov.aw[i];
		ref = a->a_ref;
		/* Read, or rescheduled by a reload, meanwhile. */
		if ((j = job_get(&ref, a->a_id)) == NULL ||
		    !(j->j_flags & JOB_AWAIT) || j->j_fire != a->a_fire)
			continue;
		for (p = 0; p < g->g_nnodes; p++)
			if (hs[p] == a->a_pref)
				break;
		if (p < g->g_nnodes) {
			pn = &g->g_nodes[p];
			c = &pn->gn_cover;
			if (c->c_view == a->a_view && c->c_jobs == a->a_jobs &&
			    c->c_from <= a->a_due && a->a_due <= c->c_to) {
				job_schedule(j, a->a_fire, a->a_id);
				nnot++;
				continue;
			}
			if (c->c_from != COVER_LEFT && pn->gn_wall <
			    a->a_due + D.d_conf.c_defer_ms *
			    (int64_t)a->a_rank + COVER_PASSED) {
				cov.aw[k++] = *a;
				continue;
			}
		}
		/* Passed, left or gone: read now, the backups in turn. */
		at = a->a_due + D.d_conf.c_defer_ms * (int64_t)a->a_rank;
		j->j_flags &= ~JOB_AWAIT;
		job_defer_to(j, at > tk->tk_wall ? at : tk->tk_wall);
	}
	free(hs);
	cov.naw = cov.kept = k;
	if (nnot > 0) {
		metrics_claims(0, nnot);
		log_debug("(CRON) COVERED (%zu fires settled by their "
		    "preferred nodes' heartbeats)", nnot);
	}
}

/*
 * A job's timer: schedule its next fire, then deal with this one.
 *
 * Who claims a cluster fire.  The live nodes rank each fire (gate.c):
 * the preferred claimant (rank 0) claims at the instant; the next
 * BACKUPS (ranks 1 and 2) claim-defer later each, one after the other,
 * after reading which of the instant's fires are still free
 * (store_claim_free()), and claim only those: the fires the nodes
 * before them left, as when a node died, cannot reach the store or its
 * lease, or got too many at once to start.  Where the preferred node's
 * heartbeats can tell them instead (its cover, cover_await()), they
 * wait for those and read only what it did not claim.  When every live node holds
 * every job of this one (claim_shared()), the others do nothing with
 * the fire: whichever nodes rank first hold the job, and a fire costs
 * the store the same at three nodes as at six.  Otherwise they do as
 * the last backup does.  Correctness does not rest on any of it: the
 * claim alone decides.
 */
static void
due(struct job *j, const struct jobref *ref, struct tick *tk)
{
	struct fire	*f;
	time_t		 fire = j->j_fire, after = fire;
	int64_t		 late;
	int		 cluster = job_opts(j)->o_scope == SCOPE_CLUSTER;
	int		 deferred = (j->j_flags & JOB_DEFERRED) != 0;
	int		 skip = 0;
	size_t		 rank, pick;
	char		 id[CRON_IDLEN + 1];

	job_id(j, id);
	/* Decided now, with the nodes alive now. */
	if (cluster && !deferred && D.d_conf.c_defer_ms > 0 &&
	    (rank = gate_rank(gate_state(), id, fire, proc_count())) > 0) {
		pick = gate_pick(gate_state(), id, fire);
		if (pick != SIZE_MAX && pick == gate_self())
			/* Busier now: its turn given up, not covered. */
			cover_unclean(tk->tk_wall);
		if (rank <= BACKUPS && pick != SIZE_MAX &&
		    cover_await(j, ref, id, rank, pick))
			return;
		if (rank <= BACKUPS || !claim_shared(tk)) {
			job_defer(j, D.d_conf.c_defer_ms * (int64_t)
			    (rank < BACKUPS ? rank : BACKUPS));
			return;
		}
		skip = 1;
	}
	late = tk->tk_wall - ((int64_t)fire + job_delay(j, id)) * 1000;
	if (tk->tk_floor != 0 && after < tk->tk_floor / 1000)
		after = (time_t)(tk->tk_floor / 1000);
	if (late > LATE_MS && tk->tk_floor == 0) {
		/*
		 * Not a jump of the clock but a daemon that could not
		 * keep up (stopped, swapped out): the fires it slept
		 * through are misfires, not a burst of runs.
		 */
		job_schedule(j, (time_t)(tk->tk_wall / 1000), id);
		if (cluster) {
			gate_owe(1);
			cover_unclean(tk->tk_wall);
		}
		return;
	}
	job_schedule(j, after, id);
	if (D.d_stopping && cluster)
		cover_unclean(tk->tk_wall);
	if (D.d_stopping || skip)
		return;
	f = fire_new(ref, id, fire, 1);
	if (cluster) {
		/* Claimed with the others due now: claim_flush(). */
		fire_mark(f, deferred ? FF_CHECK : FF_PREF);
		fire_step(f, FE_DUE, NULL, tk);
		return;
	}
	fire_step(f, FE_LOCAL, NULL, tk);
	start_or_skip(f, j, tk);
}

/*
 * Whether every live node that may claim holds every job of this node
 * (store_holds_shared()), so that a fire's first claimants have its
 * job whichever nodes they are.  Read again when the live nodes or this
 * node's jobs change, and every SHARED_MS in case another node's tables
 * did (SHARED_NOT_MS while the answer is no: the nodes that read the
 * same new table register it one after the other); when it cannot be
 * read, no.
 */
static int
claim_shared(struct tick *tk)
{
	const struct gate	*g = gate_state();
	struct store_error	 se;
	const char		*names[LIST_MAX_NODES];
	uint64_t		 h = FNV64_INIT;
	size_t			 i, n = 0;
	int			 sh;

	if (!D.d_mysql || D.d_st == NULL)
		return (0);
	for (i = 0; i < g->g_nnodes && n < LIST_MAX_NODES; i++) {
		if (!g->g_nodes[i].gn_able)
			continue;
		names[n++] = g->g_nodes[i].gn_name;
		h = fnv64(h, names[n - 1], strlen(names[n - 1]) + 1);
	}
	if (n == 0 || i < g->g_nnodes)
		return (0);
	if (shared.s_at != 0 && shared.s_nodes == h &&
	    shared.s_njobs == jobtab_count() && tk->tk_mono - shared.s_at <
	    (shared.s_shared ? SHARED_MS : SHARED_NOT_MS))
		return (shared.s_shared);
	shared.s_at = tk->tk_mono;
	shared.s_nodes = h;
	shared.s_njobs = jobtab_count();
	if (store_holds_shared(D.d_st, names, n, &sh, &se) == -1)
		sh = 0;
	if (sh != shared.s_shared)
		log_debug("(CRON) SHARED (%s: %zu nodes)", sh ? "every live "
		    "node holds this node's jobs" : "not every live node holds "
		    "this node's jobs", n);
	shared.s_shared = sh;
	return (sh);
}

/*
 * The fires of q[] (nq, sorted by instant) another node was preferred
 * for and not read yet: which are still free, one read per instant.
 * Those taken are not this node's (FE_NOT_WON); those free, or all when
 * the read fails, are claimed as the others are.  Returns how many of
 * q[] are left, in order.
 */
static size_t
claim_left(struct fire **q, size_t nq, struct tick *tk)
{
	struct store_error	 se;
	struct fire		**c, **taken;
	const char		**ids;
	unsigned char		*isfree;
	struct fire_data	 d;
	size_t			 i, k, n, m, ntaken = 0;
	int			 down = 0;

	for (i = 0; i < nq; i++)
		if ((fire_marks(q[i]) & (FF_CHECK | FF_CHECKED)) == FF_CHECK)
			break;
	if (i == nq)
		return (nq);
	c = xreallocarray(NULL, nq, sizeof(*c));
	taken = xreallocarray(NULL, nq, sizeof(*taken));
	ids = xreallocarray(NULL, nq, sizeof(*ids));
	isfree = xcalloc(nq, 1);
	for (i = 0; i < nq; i = k) {
		for (k = i, n = 0; k < nq && fire_instant(q[k]) ==
		    fire_instant(q[i]); k++) {
			if ((fire_marks(q[k]) & (FF_CHECK | FF_CHECKED)) !=
			    FF_CHECK)
				continue;
			c[n] = q[k];
			ids[n++] = fire_id(q[k]);
		}
		if (n == 0)
			continue;
		/* Once the store failed, the claims find out. */
		if (down || store_claim_free(D.d_st, ids, n,
		    fire_instant(q[i]), isfree, &se) == -1) {
			memset(isfree, 1, n);
			down = 1;
		}
		for (m = 0; m < n; m++) {
			fire_mark(c[m], FF_CHECKED);
			if (!isfree[m]) {
				fire_mark(c[m], FF_TAKEN);
				taken[ntaken++] = c[m];
			}
		}
	}
	for (i = k = 0; i < nq; i++)
		if (!(fire_marks(q[i]) & FF_TAKEN))
			q[k++] = q[i];
	metrics_claims(0, ntaken);
	for (i = 0; i < ntaken; i++) {
		memset(&d, 0, sizeof(d));
		d.fd_job = job_get(fire_ref(taken[i]), fire_id(taken[i]));
		fire_step(taken[i], FE_NOT_WON, &d, tk);
	}
	free(isfree);
	free(ids);
	free(taken);
	free(c);
	return (k);
}

/*
 * The gate's verdict now.  A node whose lease ran out tries one
 * heartbeat first (node.c): it may only have slept.  A fence is said
 * once.
 */
static enum gate_verdict
verdict(struct tick *tk)
{
	enum gate_verdict	 v;

	tick_read(tk);
	if ((v = gate_check(tk->tk_mono)) == GATE_FENCED) {
		node_beat_now(tk);
		tick_read(tk);
		if ((v = gate_check(tk->tk_mono)) == GATE_FENCED)
			gate_fenced(tk->tk_mono);
	}
	return (v);
}

/*
 * The claim of fire f of job j is ours (catchup: 1 a catch-up, 2 a
 * fire held through an outage), made under the lease that ends at
 * until: say so, then start or skip.
 */
static void
claimed(struct fire *f, const struct job *j, int catchup, int64_t until,
    struct tick *tk)
{
	struct fire_data	 d;

	memset(&d, 0, sizeof(d));
	d.fd_job = j;
	d.fd_catchup = catchup;
	d.fd_until = until;
	fire_step(f, FE_WON, &d, tk);
	start_or_skip(f, j, tk);
}

/* A fire of ours: start it, unless it must not overlap a run. */
static void
start_or_skip(struct fire *f, const struct job *j, struct tick *tk)
{
	struct fire_data	 d;
	int			 busy;

	memset(&d, 0, sizeof(d));
	d.fd_job = j;
	if (job_opts(j)->o_overlap == OVERLAP_FORBID) {
		busy = overlapping(j, fire_id(f), fire_instant(f));
		if (busy != 0) {
			fire_step(f, busy == 1 ? FE_BUSY : FE_UNSURE, &d, tk);
			return;
		}
	}
	fire_step(f, FE_START, &d, tk);
}

/*
 * Whether a run of job j (identity id) is in flight, here or, for
 * cluster jobs, on any node by the store's runs.  -1 when the store
 * cannot tell.
 *
 * A run the store still calls running is not always running: its
 * daemon may have died.  So that such a row does not forbid the job
 * for ever, this node's own rows count only while their process is
 * alive (a daemon killed and restarted leaves its jobs running, and
 * they still count).  Another node's rows count until failure
 * detection marks them lost (node.c), node-timeout after that node fell
 * silent: this node's list of live nodes is as old as its last
 * heartbeat and does not yet know a node that started since, so it
 * cannot tell a dead node from a new one.
 */
static int
overlapping(const struct job *j, const char *id, time_t fire)
{
	struct store_run	*runs;
	struct store_error	 se;
	const struct store_run	*r;
	size_t			 i, n;
	int			 busy = 0, inflight;

	if (fire_inflight(id) > 0)
		return (1);
	if (job_opts(j)->o_scope == SCOPE_NODE)
		return (0);
	/*
	 * A node records a run only after it won the claim and forked, a
	 * loop turn later (longer while it cannot write): meanwhile the
	 * run shows as a claim of an earlier fire without a record.  Such
	 * a claim counts for node-timeout; past that its node is dead or
	 * cut off, and its runs would be lost anyway.  One node (SQLite)
	 * knows its own runs in flight from fire_inflight().  The claims
	 * are read first: a run recorded after this read is found running
	 * by the next one (unless it has ended), while in the other order
	 * a run recorded between the two reads would be in neither.
	 */
	if (D.d_mysql) {
		if (store_job_inflight(D.d_st, id, fire, (time_t)
		    ((D.d_conf.c_node_timeout_ms + 999) / 1000), &inflight,
		    &se) == -1) {
			gate_store_failed("reading claims in flight", &se);
			return (-1);
		}
		if (inflight > 0)
			return (1);
	}
	if (store_runs_running(D.d_st, NULL, &runs, &n, &se) == -1) {
		gate_store_failed("reading running jobs", &se);
		return (-1);
	}
	for (i = 0; i < n && !busy; i++) {
		r = &runs[i];
		if (strcmp(r->r_job, id) != 0 || r->r_fire == fire)
			continue;
		if (strcmp(r->r_node, D.d_conf.c_node) == 0) {
			if (spawn_alive(r->r_pid, r->r_start))
				busy = 1;
			continue;
		}
		busy = 1;
	}
	store_runs_free(runs, n);
	return (busy);
}

/*
 * By instant, and at one instant this node's preferred fires first: a
 * slice of a burst takes those, and the other nodes' come after, when
 * their own claimants have had their turn.
 */
static int
instant_cmp(const void *a, const void *b)
{
	const struct fire	*fa = *(struct fire *const *)a;
	const struct fire	*fb = *(struct fire *const *)b;
	time_t			 x = fire_instant(fa), y = fire_instant(fb);
	int			 pa = (fire_marks(fa) & FF_PREF) != 0;
	int			 pb = (fire_marks(fb) & FF_PREF) != 0;

	if (x != y)
		return (x < y ? -1 : 1);
	return (pb - pa);
}

/*
 * Claim the nq fires q[] (sorted by instant; ids[] their jobs'
 * identities): one store_claim_batch() per instant.  A job the batch did
 * not win but whose row still read free (won 2: another node's
 * transaction held it) is tried again on its own, which waits for that
 * row and then tells the truth; one taken already (0) is not.  won[i]
 * ends 1 (ours), 0 (another's) or 3 (the store failed: the fire was
 * stepped FE_NO_ANSWER when its claim was in flight, FE_HOLD when it
 * was never tried; both are settled when the store answers again).
 * Returns how many are 3; with none, the store is known to answer.
 */
static size_t
claim_fires(struct fire **q, const char **ids, size_t nq,
    unsigned char *won, struct tick *tk)
{
	struct store_error	 se;
	size_t			 i, k, n, nwon, ndown = 0;
	int			 w, down = 0;

	for (i = 0; i < nq; i = k) {
		for (k = i; k < nq && fire_instant(q[k]) ==
		    fire_instant(q[i]); k++)
			;
		if (down) {
			for (n = i; n < k; n++) {
				fire_step(q[n], FE_HOLD, NULL, tk);
				won[n] = 3;
			}
			ndown += k - i;
			continue;
		}
		n = k - i;
		if (n > 1 && store_claim_batch(D.d_st, ids + i, n,
		    fire_instant(q[i]), n, won + i, &nwon, &se) == -1) {
			gate_store_failed("claiming fires", &se);
			for (n = i; n < k; n++) {
				fire_step(q[n], FE_NO_ANSWER, NULL, tk);
				won[n] = 3;
			}
			ndown += k - i;
			down = 1;
			continue;
		}
		if (n == 1)
			won[i] = 2;
		for (n = i; n < k; n++) {
			if (won[n] != 2)
				continue;
			if (down || store_claim(D.d_st, ids[n],
			    fire_instant(q[n]), &w, &se) == -1) {
				if (!down)
					gate_store_failed("claiming a fire",
					    &se);
				fire_step(q[n], down ? FE_HOLD : FE_NO_ANSWER,
				    NULL, tk);
				ndown++;
				w = 3;
				down = 1;
			}
			won[n] = (unsigned char)w;
		}
	}
	if (!down)
		gate_store_ok();
	return (ndown);
}

/*
 * Measure the start rate, at the monotonic instant now: the attempts
 * that got past their start since the last sample, when starts were
 * waiting at both ends (otherwise the rate says how few there were to
 * start, not how fast this node starts them).  The estimate follows the
 * samples halfway, so that a machine that slows down is believed
 * within a few samples.
 */
static void
pace_sample(int64_t now)
{
	uint64_t	 started = fire_started();
	size_t		 waiting = fire_starting();
	double		 r;

	if (pace.p_at != 0 && now - pace.p_at < PACE_SAMPLE_MS)
		return;
	if (pace.p_at != 0 && pace.p_busy && waiting > 0) {
		r = (double)(started - pace.p_started) * 1000 /
		    (double)(now - pace.p_at);
		pace.p_rate = (pace.p_rate + r) / 2;
		if (pace.p_rate < PACE_MIN)
			pace.p_rate = PACE_MIN;
	}
	pace.p_at = now;
	pace.p_started = started;
	pace.p_busy = waiting > 0;
}

/*
 * How many fires this node may claim at the monotonic instant now
 * under the lease that ends at until (0: none, everything): a share of
 * what its start rate gets through in the lease left, and no more than
 * it starts in PACE_AHEAD_MS, less the starts already waiting, which
 * are got through first.
 */
static size_t
pace_budget(int64_t now, int64_t until)
{
	double	 left, can;
	size_t	 waiting = fire_starting();

	if (until == 0)
		return (SIZE_MAX);
	left = (double)(until - now - PACE_MARGIN_MS) / 1000;
	if (left <= 0)
		return (0);
	left *= PACE_SHARE;
	if (left > (double)PACE_AHEAD_MS / 1000)
		left = (double)PACE_AHEAD_MS / 1000;
	can = pace.p_rate * left;
	if (can <= (double)waiting)
		return (0);
	return ((size_t)(can - (double)waiting));
}

/* The first pass's wait is over: the pass again, at once. */
static void
recover_again(struct mtimer *t, struct tick *tk)
{
	(void)t;
	(void)tk;
	gate_owe(1);
}

/* Fires were left unclaimed: only brings the loop back to them. */
static void
pace_wake(struct mtimer *t, struct tick *tk)
{
	(void)t;
	(void)tk;
}

static int
id_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/*
 * The node stops claiming (the daemon stops): its next heartbeats, and
 * node_leave()'s last, say so, and the others wait for it no more.
 */
void
claim_leave(void)
{
	if (cov.left || !D.d_mysql)
		return;
	cov.left = 1;
	cov.c.c_from = cov.c.c_to = COVER_LEFT;
	cov.said = cov.c;
	node_cover(&cov.c);
}

/* Let go of the fires waiting for a cover (the daemon leaves). */
void
claim_free(void)
{
	free(cov.aw);
	memset(&cov, 0, sizeof(cov));
}

/*
 * Claim the cluster fires due (claim_fires()), the oldest first, as
 * many as this node can start within its lease (pace_budget()); the
 * others stay due, for a later turn or another node.  On a cluster
 * nearly every job of a burst that this node is not the preferred
 * claimant of is taken already and not tried alone.  Every claim is
 * made before any job is started.  Returns the earliest instant (ms)
 * of the fires left for later, INT64_MAX when none is.
 */
static int64_t
flush(struct tick *tk)
{
	struct fire		**q;
	const struct job	**jobs;
	const char		**ids;
	unsigned char		*won;
	struct fire_data	 d;
	size_t			 i, k, nq, nwon, nstart = 0, ndown, budget;
	size_t			 nleft = 0;
	int64_t			 t0, t1, until, left = INT64_MAX;

	tick_read(tk);
	pace_sample(tk->tk_mono);
	if ((nq = fire_list(FSM(FS_DUE), &q)) == 0)
		return (INT64_MAX);
	t0 = tk->tk_mono;
	switch (verdict(tk)) {
	case GATE_STOPPING:
		cover_unclean(cov.upto);
		for (i = 0; i < nq; i++)
			fire_step(q[i], FE_LEAVE, NULL, tk);
		free(q);
		return (INT64_MAX);
	case GATE_DRAINED:
		/*
		 * The other nodes claim them.  Should they all be
		 * drained, the misfire pass notes the fires later.
		 */
		gate_owe(0);
		cover_unclean(cov.upto);
		for (i = 0; i < nq; i++)
			fire_step(q[i], FE_LEAVE, NULL, tk);
		free(q);
		return (INT64_MAX);
	case GATE_FENCED:
		/* As when the store is down: kept, settled later. */
		cover_unclean(cov.upto);
		for (i = 0; i < nq; i++)
			fire_step(q[i], FE_HOLD, NULL, tk);
		free(q);
		return (INT64_MAX);
	default:
		break;
	}
	if (D.d_st != NULL && gate_owed())
		claim_recover(tk);
	if (D.d_st == NULL || gate_owed()) {
		cover_unclean(cov.upto);
		for (i = 0; i < nq; i++)
			fire_step(q[i], FE_HOLD, NULL, tk);
		free(q);
		return (INT64_MAX);
	}
	/* A job gone since it came due is not claimed. */
	for (i = k = 0; i < nq; i++) {
		if (job_get(fire_ref(q[i]), fire_id(q[i])) == NULL) {
			fire_step(q[i], FE_GONE, NULL, tk);
			continue;
		}
		q[k++] = q[i];
	}
	if ((nq = k) == 0) {
		free(q);
		return (INT64_MAX);
	}
	/*
	 * Sorted by instant, each fire with its job, those another node
	 * took left out; a slice of them, the oldest, if this node cannot
	 * start them all within its lease.
	 */
	qsort(q, nq, sizeof(*q), instant_cmp);
	if ((nq = claim_left(q, nq, tk)) == 0) {
		free(q);
		return (INT64_MAX);
	}
	tick_read(tk);
	until = gate_lease_until(gate_state());
	budget = pace_budget(tk->tk_mono, until);
	if (nq > budget) {
		nleft = nq - budget;
		nq = budget;
		mtimer_set(&pace_t, tk->tk_mono + PACE_WAKE_MS);
		log_debug("(CRON) PACE (%zu fires claimed later, %zu waiting "
		    "to start, %.0f starts/s, %lld ms of lease)", nleft,
		    fire_starting(), pace.p_rate, (long long)(until -
		    tk->tk_mono));
	}
	for (i = nq; i < nq + nleft; i++)
		if ((int64_t)fire_instant(q[i]) * 1000 < left)
			left = (int64_t)fire_instant(q[i]) * 1000;
	if (nq == 0) {
		free(q);
		return (left);
	}
	jobs = xreallocarray(NULL, nq, sizeof(*jobs));
	for (i = 0; i < nq; i++)
		jobs[i] = job_get(fire_ref(q[i]), fire_id(q[i]));
	ids = xreallocarray(NULL, nq, sizeof(*ids));
	won = xcalloc(nq, 1);
	for (i = 0; i < nq; i++)
		ids[i] = fire_id(q[i]);
	ndown = claim_fires(q, ids, nq, won, tk);
	for (i = nwon = 0; i < nq; i++)
		nwon += won[i] == 1;
	/* What was claimed; fires in doubt are neither. */
	metrics_claims(nwon, nq - nwon - ndown);
	tick_read(tk);
	t1 = tk->tk_mono;
	log_debug("(CRON) CLAIMS (%zu fires in %lld ms)", nq,
	    (long long)(t1 - t0));
	for (i = 0; i < nq; i++) {
		if (won[i] == 1) {
			nstart++;
			claimed(q[i], jobs[i], 0, until, tk);
		} else if (won[i] == 0) {
			memset(&d, 0, sizeof(d));
			d.fd_job = jobs[i];
			fire_step(q[i], FE_NOT_WON, &d, tk);
		} else
			cover_unclean(cov.upto);
	}
	free(ids);
	free(won);
	free(jobs);
	free(q);
	if (nstart > 0) {
		tick_read(tk);
		log_debug("(CRON) STARTS (%zu fires in %lld ms)", nstart,
		    (long long)(tk->tk_mono - t1));
	}
	return (left);
}

void
claim_flush(struct tick *tk)
{
	cover_publish(flush(tk));
}

static int
doubt_cmp(const void *a, const void *b)
{
	const struct fire	*fa = *(struct fire *const *)a;
	const struct fire	*fb = *(struct fire *const *)b;
	int			 c;

	if ((c = strcmp(fire_id(fa), fire_id(fb))) != 0)
		return (c);
	return (fire_instant(fa) < fire_instant(fb) ? -1 :
	    fire_instant(fa) > fire_instant(fb));
}

/*
 * The newest instant of job j (identity id) that is a misfire at now:
 * the fires after it are still on time, left to the nodes firing them
 * (its spreading delay, the claim deferral and RECOVER_MARGIN).
 */
static time_t
recover_limit(const struct job *j, const char *id, time_t now)
{
	return (now - (time_t)job_delay(j, id) - RECOVER_MARGIN -
	    (time_t)((D.d_conf.c_defer_ms + 999) / 1000));
}

/*
 * Ask the store whose the fire in doubt is: a read of the claims first,
 * then the claim made again, which wins it now if nobody had it.  Ours,
 * it runs if still on time (or within a catch-up grace), else it is
 * noted missed.  A dropped fire held unclaimed (the store down, this
 * node fenced) runs if it is still as recent as the misfire pass
 * leaves to the nodes firing on time (recover_limit()), since this
 * node is one of them and the others may have dropped it too; an older
 * one, or one claimed before and fenced at its start, is a misfire, of
 * which a job gets one catch-up, for the latest (last set) of its
 * dropped fires that are, as after any outage.  Returns -1 when the
 * store failed again: the fire stays as it was.
 */
static int
doubt_settle(struct fire *f, const struct job *j, int last, struct tick *tk)
{
	struct store_error	 se;
	const struct cron_opts	*o = job_opts(j);
	const char		*id = fire_id(f);
	struct fire_data	 d;
	time_t			 fire = fire_instant(f);
	time_t			 late = (time_t)(tk->tk_wall / 1000) - fire;
	char			 label[JOB_LABELLEN];
	int64_t			 until;
	int			 won, mine, rec, dropped, recent;

	dropped = fire_state(f) == FS_DROPPED;
	recent = fire > recover_limit(j, id, (time_t)(tk->tk_wall / 1000));
	until = gate_lease_until(gate_state());
	won = 0;
	if (store_claim_check(D.d_st, id, fire, &mine, &se) == -1 ||
	    (!mine && store_claim(D.d_st, id, fire, &won, &se) == -1)) {
		gate_store_failed("settling a claim in doubt", &se);
		return (-1);
	}
	won = won || mine;
	metrics_claims(won, !won);
	if (!won) {
		fire_step(f, FE_NOT_WON, NULL, tk);
		return (0);
	}
	/*
	 * Ours, but recorded meanwhile: this node was taken for dead while
	 * the fire was in doubt, and another marked the claim lost (and
	 * may have run it again).
	 */
	if (store_fire_recorded(D.d_st, id, fire, &rec, &se) == -1) {
		gate_store_failed("settling a claim in doubt", &se);
		return (-1);
	}
	memset(&d, 0, sizeof(d));
	d.fd_job = j;
	if (rec > 0) {
		fire_step(f, FE_RECORDED, &d, tk);
		return (0);
	}
	/*
	 * Held unclaimed and still recent: on time but for the outage.
	 * (One claimed before and fenced at its start is a misfire.)
	 */
	if (dropped && recent && !mine) {
		claimed(f, j, 2, until, tk);
		return (0);
	}
	if ((!dropped && late <= LATE_MS / 1000) ||
	    (dropped && last && o->o_misfire == MISFIRE_CATCHUP &&
	    late <= (time_t)o->o_grace)) {
		claimed(f, j, 1, until, tk);
		return (0);
	}
	/* Noted before the fire leaves its doubt: a failed note keeps it. */
	fire_log(LOG_INFO, job_owner(j), "MISSED", D.d_conf.c_node, fire,
	    job_label(j, label, sizeof(label)), NULL);
	metrics_fire_noted(id, job_owner(j), RUN_MISSED);
	if (record_note(id, fire, RUN_MISSED, tk->tk_wall) == -1)
		return (-1);
	fire_step(f, FE_WON_LATE, &d, tk);
	return (0);
}

/*
 * Settle every fire in doubt or dropped whose job still exists, sorted
 * by job and instant; those of jobs that went away are dropped.  Returns
 * -1, keeping what is left, when the store failed again.  The pass
 * works on the fires listed when it starts: settling one may make
 * another (a catch-up that reaches its start past its lease), which is
 * kept for the next pass.
 */
static int
doubts_settle(struct tick *tk)
{
	struct fire	**v;
	const struct job *j;
	size_t		 i, k, m, n, last, old;
	time_t		 limit;

	if ((n = fire_list(FSM(FS_DOUBT) | FSM(FS_DROPPED), &v)) == 0)
		return (0);
	qsort(v, n, sizeof(*v), doubt_cmp);
	for (i = 0; i < n; i = k) {
		for (k = i; k < n && strcmp(fire_id(v[k]), fire_id(v[i])) ==
		    0; k++)
			;
		j = job_get(fire_ref(v[i]), fire_id(v[i]));
		if (j == NULL || job_opts(j)->o_scope != SCOPE_CLUSTER) {
			for (m = i; m < k; m++)
				fire_step(v[m], FE_GONE, NULL, tk);
			continue;
		}
		/*
		 * Its latest dropped fire that is a misfire, for the one
		 * catch-up: the latest older than recover_limit() (those
		 * after it held unclaimed run, doubt_settle()), else the
		 * latest.
		 */
		last = old = n;
		limit = recover_limit(j, fire_id(v[i]),
		    (time_t)(tk->tk_wall / 1000));
		for (m = i; m < k; m++) {
			if (fire_state(v[m]) != FS_DROPPED)
				continue;
			last = m;
			if (fire_instant(v[m]) <= limit)
				old = m;
		}
		if (old != n)
			last = old;
		for (m = i; m < k; m++) {
			if (doubt_settle(v[m], j, m == last, tk) == -1) {
				free(v);
				return (-1);
			}
		}
	}
	free(v);
	return (0);
}


/* A missed fire found by the misfire pass, before it is a fire. */
struct recovered {
	struct jobref		 r_ref;
	const struct job	*r_job;
	char			 r_id[CRON_IDLEN + 1];
	time_t			 r_latest;
};
#define RECOVER_PAGE	1024	/* claimed jobs read at once */

/* A missed fire of the misfire pass, with its job. */
struct missed {
	struct fire		*m_fire;
	const struct job	*m_job;
};

static int
missed_cmp(const void *a, const void *b)
{
	time_t	 x = fire_instant(((const struct missed *)a)->m_fire);
	time_t	 y = fire_instant(((const struct missed *)b)->m_fire);

	return (x < y ? -1 : x > y);
}

/*
 * The misfire pass, at start-up and when the store comes back.  The
 * store's last claimed fire of each job says what nobody ran: claims
 * only move forward, so every fire after it that is already past was
 * claimed by no node.  The latest of them is claimed now (so that one
 * node alone decides it) and, when the job asks for a catch-up and the
 * fire is within its grace, run once; otherwise noted as missed.  Fires
 * still within their spreading delay plus a margin are left to the
 * nodes firing them on time.  The store's work is a few statements
 * whatever the number of jobs: one listing, the claims in a batch per
 * instant (claim_fires()) and the notes in one transaction, so that a
 * node back after an outage settles 10,000 missed fires at once rather
 * than in 10,000 round trips.
 */
void
claim_recover(struct tick *tk)
{
	struct store_fired	*list = NULL;
	struct store_error	 se;
	struct table		*tb;
	struct job		*j;
	struct jobiter		 it;
	struct missed		*m = NULL;
	struct recovered	*rv = NULL;
	struct fire		**q;
	struct fire		**due_f = NULL;
	const char		**ids, **nids, *owner, **due_ids = NULL, *key;
	time_t			*nfires;
	unsigned char		*won;
	struct fire_data	 d;
	const struct jsched	*js;
	size_t			 i, n = 0, k, nm = 0, cap = 0, nn = 0, ncatch = 0;
	size_t			 nwon, ndown, pi = 0, nrv = 0, ndue;
	time_t			 now, limit, t, latest, extra = 0;
	int64_t			 t0, t1, t2, t3, until;
	char			 label[JOB_LABELLEN], id[CRON_IDLEN + 1];
	char			 after[STORE_IDLEN + 1];
	int			 steps, more;

	gate_pass();
	if (D.d_st == NULL || D.d_stopping)
		return;
	/* A node that may not claim owes the pass until it may. */
	if (verdict(tk) != GATE_CLAIM) {
		gate_owe(0);
		return;
	}
	/* Claims in doubt first: settling them may move last fires. */
	if (doubts_settle(tk) == -1)
		return;
	t0 = tk->tk_mono;
	if (!recover_begun) {
		recover_begun = 1;
		if (D.d_mysql && D.d_conf.c_defer_ms > 0) {
			extra = (time_t)((2 * D.d_conf.c_heartbeat_ms +
			    COVER_WAIT + BACKUPS * D.d_conf.c_defer_ms + 999) /
			    1000);
			mtimer_set(&recover_t, tk->tk_mono + extra * 1000 +
			    COVER_WAIT);
		}
	}
	/*
	 * The jobs with a fire due here and not claimed yet, left for
	 * claim_flush() (a burst claimed in slices): that fire is on time,
	 * and the job's last claimed fire is older only because the slice
	 * that holds it has not come yet.
	 */
	ndue = fire_list(FSM(FS_DUE), &due_f);
	if (ndue > 0) {
		due_ids = xreallocarray(NULL, ndue, sizeof(*due_ids));
		for (i = 0; i < ndue; i++)
			due_ids[i] = fire_id(due_f[i]);
		qsort(due_ids, ndue, sizeof(*due_ids), id_cmp);
	}
	free(due_f);
	/*
	 * The jobs ever claimed, a page at a time, merged with this
	 * node's jobs in identity order: no list of every job.
	 */
	owner = D.d_root ? NULL : D.d_user;
	if (store_jobs_fired(D.d_st, owner, "", RECOVER_PAGE, &list, &n,
	    &se) == -1) {
		gate_store_failed("listing jobs", &se);
		free(due_ids);
		return;
	}
	gate_store_ok();
	more = n == RECOVER_PAGE;
	memset(&it, 0, sizeof(it));
	now = (time_t)(tk->tk_wall / 1000);
	if (n > 0)
		jobiter_start(&it, 0);
	while (n > 0 && jobiter_next(&it, &tb, &k, id)) {
		while (pi < n && strcmp(list[pi].f_id, id) < 0)
			if (++pi == n && more) {
				strlcpy(after, list[n - 1].f_id,
				    sizeof(after));
				free(list);
				if (store_jobs_fired(D.d_st, owner, after,
				    RECOVER_PAGE, &list, &n, &se) == -1) {
					gate_store_failed("listing jobs", &se);
					jobiter_free(&it);
					free(rv);
					free(due_ids);
					return;
				}
				more = n == RECOVER_PAGE;
				pi = 0;
			}
		if (pi == n)
			break;
		if (strcmp(list[pi].f_id, id) != 0)
			continue;
		j = &tb->tb_jobs[k];
		if (job_opts(j)->o_scope != SCOPE_CLUSTER ||
		    job_sched(j)->js_sched.s_flags & SCHED_REBOOT)
			continue;
		key = id;
		if (ndue > 0 && bsearch(&key, due_ids, ndue,
		    sizeof(*due_ids), id_cmp) != NULL)
			continue;
		limit = recover_limit(j, id, now) - extra;
		/* A fire this node waits for a cover of is its own to settle. */
		if ((j->j_flags & JOB_AWAIT) && limit >= (time_t)j->j_fire)
			limit = (time_t)j->j_fire - 1;
		js = job_sched(j);
		if (sched_next(&js->js_sched, js->js_tz, list[pi].f_last,
		    &t) == -1 || t > limit)
			continue;
		latest = t;
		for (steps = 0; steps < RECOVER_STEPS; steps++) {
			if (sched_next(&js->js_sched, js->js_tz, latest,
			    &t) == -1 || t > limit)
				break;
			latest = t;
		}
		if (nrv == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			rv = xreallocarray(rv, cap, sizeof(*rv));
		}
		job_ref(tb, k, &rv[nrv].r_ref);
		rv[nrv].r_job = j;
		memcpy(rv[nrv].r_id, id, sizeof(id));
		rv[nrv++].r_latest = latest;
	}
	jobiter_free(&it);
	free(list);
	free(due_ids);
	/* Every page read: the missed fires become fires. */
	if (nrv > 0)
		m = xreallocarray(NULL, nrv, sizeof(*m));
	for (i = 0; i < nrv; i++) {
		m[nm].m_fire = fire_new(&rv[i].r_ref, rv[i].r_id,
		    rv[i].r_latest, 1);
		m[nm].m_job = rv[i].r_job;
		fire_step(m[nm].m_fire, FE_DUE, NULL, tk);
		nm++;
	}
	free(rv);
	if (nm == 0) {
		free(m);
		return;
	}

	/* Claimed by instant, in batches, before any job is started. */
	qsort(m, nm, sizeof(*m), missed_cmp);
	q = xreallocarray(NULL, nm, sizeof(*q));
	ids = xreallocarray(NULL, nm, sizeof(*ids));
	won = xcalloc(nm, 1);
	for (i = 0; i < nm; i++) {
		q[i] = m[i].m_fire;
		ids[i] = fire_id(q[i]);
	}
	until = gate_lease_until(gate_state());
	tick_read(tk);
	t1 = tk->tk_mono;
	ndown = claim_fires(q, ids, nm, won, tk);
	tick_read(tk);
	t2 = tk->tk_mono;
	for (i = nwon = 0; i < nm; i++)
		nwon += won[i] == 1;
	metrics_claims(nwon, nm - nwon - ndown);

	/* Ours: a catch-up within its grace runs, the rest are noted. */
	nids = xreallocarray(NULL, nm, sizeof(*nids));
	nfires = xreallocarray(NULL, nm, sizeof(*nfires));
	for (i = 0; i < nm; i++) {
		memset(&d, 0, sizeof(d));
		d.fd_job = m[i].m_job;
		if (won[i] == 0)
			fire_step(q[i], FE_NOT_WON, &d, tk);
		if (won[i] != 1)
			continue;
		if (job_opts(m[i].m_job)->o_misfire == MISFIRE_CATCHUP &&
		    fire_instant(q[i]) >= now -
		    (time_t)job_opts(m[i].m_job)->o_grace) {
			ncatch++;
			claimed(q[i], m[i].m_job, 1, until, tk);
			continue;
		}
		nids[nn] = ids[i];
		nfires[nn] = fire_instant(q[i]);
		won[i] = 4;
		nn++;
	}
	tick_read(tk);
	t3 = tk->tk_mono;
	if (nn > 0 && store_fire_note_batch(D.d_st, nids, nfires, nn,
	    RUN_MISSED, tk->tk_wall, &se) == -1) {
		/* Claimed: settled as ours later. */
		gate_store_failed("noting missed fires", &se);
		for (i = 0; i < nm; i++)
			if (won[i] == 4)
				fire_step(q[i], FE_NO_ANSWER, NULL, tk);
	} else {
		for (i = 0; i < nm; i++) {
			if (won[i] != 4)
				continue;
			fire_log(LOG_INFO, job_owner(m[i].m_job), "MISSED",
			    D.d_conf.c_node, fire_instant(q[i]),
			    job_label(m[i].m_job, label, sizeof(label)), NULL);
			metrics_fire_noted(ids[i], job_owner(m[i].m_job),
			    RUN_MISSED);
			memset(&d, 0, sizeof(d));
			d.fd_job = m[i].m_job;
			fire_step(q[i], FE_WON_LATE, &d, tk);
		}
	}
	tick_read(tk);
	log_debug("(CRON) RECOVER (%zu missed fires: %zu caught up, %zu noted, "
	    "%zu another's, %zu in doubt, in %lld ms: %lld finding, %lld "
	    "claiming, %lld starting, %lld noting)", nm, ncatch, nn,
	    nm - nwon - ndown, ndown, (long long)(tk->tk_mono - t0),
	    (long long)(t1 - t0), (long long)(t2 - t1), (long long)(t3 - t2),
	    (long long)(tk->tk_mono - t3));
	free(nids);
	free(nfires);
	free(won);
	free(ids);
	free(q);
	free(m);
}

/*
 * The sweep after nodes died.  A cluster fire is claimed by its
 * preferred node and its BACKUPS only, while every live node holds its
 * job (claim_shared()), and the live nodes are those heard from within
 * node-timeout: when the preferred node and both backups of a fire die
 * within node-timeout of one another, before the others see them gone,
 * no node claims that fire.  Once a later fire of its job is claimed
 * nobody can (claims only move forward), and the misfire pass looks
 * only past the job's last claimed fire.  So the node that marks the
 * dead nodes' runs lost (node.c) hands their deaths here, once every
 * live node has had the time to see them gone, with the span of
 * instants their fires may have been left in; the misfire pass runs
 * first (a fire of that span after its job's last claim is its to
 * settle: claimed, and caught up or noted by the job's policy), and
 * then every fire of this node's cluster jobs in the span that has no
 * claim is noted missed, by store_fire_sweep(): claimed for this node
 * in the same transaction, and only when no node may claim it any
 * longer and nothing records it, so that a node slow but alive that
 * claims it meanwhile runs it and the sweep leaves it, and two sweeps
 * never both note it.  Such a fire is never a job's latest (a later
 * one is claimed), so the job's one catch-up is not for it.  Jobs
 * this node does not hold are not swept: such a fire is left to no
 * node only where every live node holds its job (claim_shared()).
 * The work is bounded: SWEEP_SPAN seconds of instants at most, none
 * older than the history's trimming keeps claims of, and SWEEP_STEPS
 * fires walked.  Nothing of it happens while every node lives.
 */
#define SWEEP_SPAN	600
#define SWEEP_STEPS	1000000
#define SWEEP_BATCH	256	/* fires noted in one transaction */

static struct gonenode	*sweep_q;	/* deaths not swept yet */
static size_t		 sweep_nq;

/* A fire the sweep found without a claim. */
struct hole {
	const struct job	*h_job;
	char			 h_id[CRON_IDLEN + 1];
	time_t			 h_fire;
};

static int
claimrow_cmp(const void *a, const void *b)
{
	const struct store_claim	*x = a, *y = b;
	int				 c;

	if ((c = strcmp(x->c_job, y->c_job)) != 0)
		return (c);
	return (x->c_fire < y->c_fire ? -1 : x->c_fire > y->c_fire);
}

static int
gone_cmp(const void *a, const void *b)
{
	time_t	 x = ((const struct gonenode *)a)->gn_from;
	time_t	 y = ((const struct gonenode *)b)->gn_from;

	return (x < y ? -1 : x > y);
}

/*
 * Sweep the fires of this node's cluster jobs due (their spreading
 * delay after the instant) from `from' to `to', left by the nodes
 * named.  0, or -1 when the store failed (sweeping again notes nothing
 * twice).
 */
static int
sweep_span(const char *nodes, time_t from, time_t to, struct tick *tk)
{
	struct store_claim	*cl = NULL, key;
	struct store_error	 se;
	struct table		*tb;
	struct job		*j;
	struct jobiter		 it;
	const struct jsched	*js;
	struct hole		*h = NULL;
	const char		**ids;
	time_t			*fires, now, t, lo;
	unsigned char		*noted;
	size_t			 ncl = 0, nh = 0, cap = 0, i, k, m, nn = 0;
	size_t			 nnoted, steps = 0;
	uint32_t		 delay, maxdelay = 0;
	char			 id[CRON_IDLEN + 1], label[JOB_LABELLEN];
	char			 f1[32], f2[32];

	now = (time_t)(tk->tk_wall / 1000);
	if (to > now)
		to = now;
	if (from < to - SWEEP_SPAN)
		from = to - SWEEP_SPAN;
	/*
	 * Not so far back that trimming may have taken claims and runs
	 * (record.c): the claims of the newest history-max-runs instants,
	 * which are history-max-runs seconds at least, and those younger
	 * than history-max-age stay.
	 */
	if (D.d_conf.c_hist_runs > 0 && (uint64_t)D.d_conf.c_hist_runs <
	    (uint64_t)now && from < now - (time_t)D.d_conf.c_hist_runs + 2)
		from = now - (time_t)D.d_conf.c_hist_runs + 2;
	if (D.d_conf.c_hist_age_ms > 0 && from < now -
	    (time_t)(D.d_conf.c_hist_age_ms / 1000) + 2)
		from = now - (time_t)(D.d_conf.c_hist_age_ms / 1000) + 2;
	if (from > to)
		return (0);
	/* The claims of the span, the jobs' delays before it included. */
	memset(&it, 0, sizeof(it));
	jobiter_start(&it, 0);
	while (jobiter_next(&it, &tb, &k, id)) {
		j = &tb->tb_jobs[k];
		if (job_opts(j)->o_scope == SCOPE_CLUSTER &&
		    (delay = job_delay(j, id)) > maxdelay)
			maxdelay = delay;
	}
	jobiter_free(&it);
	if (store_claims_span(D.d_st, from - (time_t)maxdelay, to, &cl, &ncl,
	    &se) == -1) {
		gate_store_failed("reading the claims to sweep", &se);
		return (-1);
	}
	if (ncl > 1)
		qsort(cl, ncl, sizeof(*cl), claimrow_cmp);
	/* Each job's fires of the span that no node claimed. */
	memset(&it, 0, sizeof(it));
	jobiter_start(&it, 0);
	while (steps < SWEEP_STEPS && jobiter_next(&it, &tb, &k, id)) {
		j = &tb->tb_jobs[k];
		js = job_sched(j);
		if (job_opts(j)->o_scope != SCOPE_CLUSTER ||
		    js->js_sched.s_flags & SCHED_REBOOT)
			continue;
		delay = job_delay(j, id);
		lo = from - (time_t)delay - 1;
		for (t = lo; steps < SWEEP_STEPS; steps++) {
			if (sched_next(&js->js_sched, js->js_tz, t, &t) == -1 ||
			    t > to - (time_t)delay)
				break;
			key.c_job = id;
			key.c_fire = t;
			if (ncl > 0 && bsearch(&key, cl, ncl, sizeof(*cl),
			    claimrow_cmp) != NULL)
				continue;
			if (nh == cap) {
				cap = cap == 0 ? 64 : cap * 2;
				h = xreallocarray(h, cap, sizeof(*h));
			}
			h[nh].h_job = j;
			memcpy(h[nh].h_id, id, sizeof(id));
			h[nh++].h_fire = t;
		}
	}
	jobiter_free(&it);
	store_claims_free(cl, ncl);
	/* Noted where no node may claim them any longer, a batch a time. */
	ids = xreallocarray(NULL, SWEEP_BATCH, sizeof(*ids));
	fires = xreallocarray(NULL, SWEEP_BATCH, sizeof(*fires));
	noted = xcalloc(SWEEP_BATCH, 1);
	for (i = 0; i < nh; i += m) {
		m = nh - i < SWEEP_BATCH ? nh - i : SWEEP_BATCH;
		for (k = 0; k < m; k++) {
			ids[k] = h[i + k].h_id;
			fires[k] = h[i + k].h_fire;
		}
		tick_read(tk);
		if (store_fire_sweep(D.d_st, ids, fires, m, tk->tk_wall, noted,
		    &nnoted, &se) == -1) {
			gate_store_failed("noting the fires of dead nodes", &se);
			break;
		}
		for (k = 0; k < m; k++) {
			if (!noted[k])
				continue;
			fire_log(LOG_INFO, job_owner(h[i + k].h_job), "MISSED",
			    D.d_conf.c_node, fires[k], job_label(h[i + k].h_job,
			    label, sizeof(label)), NULL);
			metrics_fire_noted(ids[k], job_owner(h[i + k].h_job),
			    RUN_MISSED);
		}
		nn += nnoted;
	}
	fmt_utc(from, f1, sizeof(f1));
	fmt_utc(to, f2, sizeof(f2));
	if (nn > 0)
		log_info("(CRON) SWEEP (%zu fires noted missed, of %zu without "
		    "a claim from %s to %s; dead: %s)", nn, nh, f1, f2, nodes);
	else
		log_debug("(CRON) SWEEP (no fire noted missed, of %zu without "
		    "a claim from %s to %s; dead: %s)", nh, f1, f2, nodes);
	free(noted);
	free(fires);
	free(ids);
	free(h);
	return (i < nh ? -1 : 0);
}

/*
 * Nodes died (node.c's node_gone(): g, n): their fires are swept now
 * or, when this node may not claim or the store fails, at a later
 * turn.  Deaths whose spans meet are swept together.
 */
void
claim_sweep(const struct gonenode *g, size_t n, struct tick *tk)
{
	char	 names[512];
	time_t	 from, to;
	size_t	 i, k, m;

	if (n > 0) {
		sweep_q = xreallocarray(sweep_q, sweep_nq + n,
		    sizeof(*sweep_q));
		memcpy(sweep_q + sweep_nq, g, n * sizeof(*g));
		sweep_nq += n;
	}
	if (sweep_nq == 0 || D.d_st == NULL || D.d_stopping ||
	    !gate_store_up() || verdict(tk) != GATE_CLAIM)
		return;
	/*
	 * The misfire pass first: a fire it claims (the latest of a job
	 * past its last claim) is its to settle, and the job's earlier
	 * fires are then the sweep's.
	 */
	claim_recover(tk);
	if (!gate_store_up())
		return;
	qsort(sweep_q, sweep_nq, sizeof(*sweep_q), gone_cmp);
	for (i = 0; i < sweep_nq; i = k) {
		from = sweep_q[i].gn_from;
		to = sweep_q[i].gn_to;
		strlcpy(names, sweep_q[i].gn_node, sizeof(names));
		for (k = i + 1; k < sweep_nq && sweep_q[k].gn_from <= to + 1;
		    k++) {
			if (sweep_q[k].gn_to > to)
				to = sweep_q[k].gn_to;
			strlcat(names, ", ", sizeof(names));
			strlcat(names, sweep_q[k].gn_node, sizeof(names));
		}
		if (sweep_span(names, from, to, tk) == -1) {
			/* Kept, from the first not swept. */
			m = sweep_nq - i;
			memmove(sweep_q, sweep_q + i, m * sizeof(*sweep_q));
			sweep_nq = m;
			return;
		}
	}
	free(sweep_q);
	sweep_q = NULL;
	sweep_nq = 0;
}

/*
 * Whether a run of the fire other than attempt `attempt' was lost: a
 * rerun follows only a loss, so then the fire has had its rerun (or
 * the run lost now was it).  -1 when the store cannot tell.
 */
static int
lost_before(const char *id, time_t fire, int attempt)
{
	struct store_run	*runs;
	struct store_error	 se;
	size_t			 i, n;
	int			 found = 0;

	if (store_runs_list(D.d_st, id, RERUN_LOOK, &runs, &n, &se) == -1) {
		gate_store_failed("reading the runs of a lost fire", &se);
		return (-1);
	}
	for (i = 0; i < n; i++)
		if (runs[i].r_fire == fire && runs[i].r_attempt != attempt &&
		    runs[i].r_state == RUN_LOST)
			found = 1;
	store_runs_free(runs, n);
	return (found);
}

/*
 * A run of fire (id, fire) at attempt `attempt' was marked lost by this
 * node, its node dead (node.c).  A job here with CLUSTERCRON_LOST=rerun
 * gets the fire started again, once, as attempt + 1, on this node: the
 * conditional write that marked the run lost made this node the only
 * one to act on it, so there is no new claim.  A fire is rerun once:
 * not when an earlier run of it was lost too (the run lost now was its
 * rerun, or came after it).  A fenced node starts nothing, as it would
 * with the store down; a drained one does, as no other node will.
 */
void
claim_rerun(const char *id, time_t fire, int attempt, struct tick *tk)
{
	struct jobref		 ref;
	struct fire_data	 d;
	struct fire		*f;
	struct job		*j;
	char			 label[JOB_LABELLEN];
	int			 r;

	/* Not @reboot runs: they belong to each node, unclaimed. */
	if (D.d_stopping || D.d_st == NULL ||
	    (j = job_find(id, &ref)) == NULL ||
	    job_opts(j)->o_scope != SCOPE_CLUSTER ||
	    job_sched(j)->js_sched.s_flags & SCHED_REBOOT ||
	    job_opts(j)->o_lost != LOST_RERUN || attempt < 1)
		return;
	job_label(j, label, sizeof(label));
	tick_read(tk);
	if (gate_check(tk->tk_mono) == GATE_FENCED) {
		gate_fenced(tk->tk_mono);
		fire_log(LOG_ERR, job_owner(j), "LOST", D.d_conf.c_node, fire,
		    label, "attempt %d, not run again, this node is fenced",
		    attempt);
		return;
	}
	if ((r = lost_before(id, fire, attempt)) != 0) {
		if (r == 1)
			fire_log(LOG_INFO, job_owner(j), "LOST",
			    D.d_conf.c_node, fire, label, "attempt %d, not "
			    "run again, the fire was rerun once", attempt);
		return;
	}
	fire_log(LOG_INFO, job_owner(j), "RERUN", D.d_conf.c_node, fire,
	    label, "attempt %d, attempt %d lost", attempt + 1, attempt);
	f = fire_new(&ref, id, fire, attempt + 1);
	memset(&d, 0, sizeof(d));
	d.fd_job = j;
	d.fd_until = gate_lease_until(gate_state());
	fire_step(f, FE_RERUN, &d, tk);
	fire_step(f, FE_START, &d, tk);
}

/* Start the @reboot entries, on this node, unclaimed. */
void
claim_reboot(struct tick *tk)
{
	struct table		*tb;
	struct jobref		 ref;
	struct fire_data	 d;
	struct fire		*f;
	struct job		*j;
	size_t			 i;
	char			 id[CRON_IDLEN + 1];

	RB_FOREACH(tb, tables, jobtab_tables()) {
		for (i = 0; i < tb->tb_njobs; i++) {
			j = &tb->tb_jobs[i];
			if (!(job_sched(j)->js_sched.s_flags & SCHED_REBOOT))
				continue;
			job_ref(tb, i, &ref);
			f = fire_new(&ref, table_job_id(tb, i, id),
			    (time_t)(tk->tk_wall / 1000), 1);
			memset(&d, 0, sizeof(d));
			d.fd_job = j;
			fire_step(f, FE_LOCAL, &d, tk);
			fire_step(f, FE_START, &d, tk);
		}
	}
}
