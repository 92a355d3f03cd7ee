/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * fire.c: what happens when a job's timer comes due, and the misfire
 * pass after a start or an outage of the store.
 *
 * A fire's life, as this node sees it:
 *
 *	due --(node scope)--------------------------------> running
 *	due --(store unusable)----------------------------> not run here
 *	due --claim lost----------------------------------> another node's
 *	due --claim error---------------------------------> not run (fail
 *	                                                     closed), misfire
 *	                                                     pass owed; in
 *	                                                     doubt
 *	in doubt --store back, the claim was ours----------> running, or
 *	                                                     missed if too
 *	                                                     late (noted)
 *	in doubt --store back, it was not-----------------> another node's
 *	due --claim won--(overlap forbidden, one running)--> skipped (noted)
 *	due --claim won-----------------------------------> running
 *	running --exit 0 or no retries left---------------> finished
 *	running --failed, retries left--> waiting --delay--> running (next
 *	                                                     attempt)
 *	missed (no node claimed it in time) --catch-up policy, within the
 *	    grace, claim won--> running; otherwise claim won --> missed
 *	    (noted)
 *	running --its node lost (marked by this node)--CLUSTERCRON_LOST=
 *	    rerun, first loss of the fire--> running (next attempt, here)
 *	due --node drained------------------------------> not run here;
 *	                                                     misfire pass
 *	                                                     owed
 *	due --node fenced (heartbeat too old)-----------> as store unusable
 *
 * The claim is the only decision point between nodes: whatever a node
 * does with a fire (run it, note it skipped or missed) it does after
 * winning the fire's claim, so exactly one node decides each fire.
 */

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * A fire counts as missed once its timer is this late: the daemon was
 * stopped, starved or cut off from the store meanwhile.
 */
#define LATE_MS		(60 * 1000)
/*
 * Fires this recent (seconds, besides the claim deferral) are left to
 * the nodes firing them on time.
 */
#define RECOVER_MARGIN	2
/* How far the misfire pass walks one job's schedule. */
#define RECOVER_STEPS	100000
/* Newest runs of a job read to tell whether a fire was rerun. */
#define RERUN_LOOK	200

struct doubt;
static void	 fire_one(struct job *, time_t, int);
static void	 fire_won(struct job *, time_t, int, int);
static void	 doubt_add(const char *, time_t, int);
static int	 doubt_cmp(const void *, const void *);
static int	 doubts_settle(void);
static int	 doubt_settle(struct job *, const struct doubt *, int);
static int	 queued_cmp(const void *, const void *);
static int	 overlapping(struct job *, time_t);
static int	 sjob_cmp(const void *, const void *);
static void	 recover_timer(struct mtimer *);

static struct mtimer	 recover_t = { { 0, TIMER_IDLE }, recover_timer, NULL };

/*
 * The end of the lease under which the claims now being acted on were
 * made, monotonic ms, taken before they were sent (0: no lease, on
 * SQLite).  A node stopped anywhere from its claims to its jobs'
 * execve() (SIGSTOP, swapped out) past it starts none of them: the
 * others may have taken it for dead meanwhile and marked its claims
 * lost (node.c), and a renewal once it wakes does not change that.
 */
static int64_t		 claim_until;

/*
 * Cluster fires that came due in this turn of the loop.  They are
 * claimed together, one transaction for those due at the same instant,
 * so that a thousand jobs due at once cost the store one commit rather
 * than a thousand.
 */
struct queued {
	struct job	*q_job;
	time_t		 q_fire;
};
static struct queued	*queue;
static size_t		 nqueue, queuecap;

/*
 * Fires in doubt: their claim failed without an answer, so the claim
 * may have been committed all the same (the connection dropped after
 * the write).  If it was, no other node will run the fire and the
 * misfire pass, which looks only past the job's last claimed fire,
 * will not see it.  So they are asked about again, first thing, once
 * the store answers: the store knows whose each claim was (store.h).
 * Fires dropped because the store was already known to be down are
 * kept too: the misfire pass leaves recent fires to the nodes firing
 * them on time, and when every node dropped them nobody else would
 * claim or note them.
 */
struct doubt {
	char		 d_id[CRON_IDLEN + 1];
	time_t		 d_fire;
	int		 d_dropped;	/* never claimed: the store was down */
	int		 d_done;
};
static struct doubt	*doubts;
static size_t		 ndoubts, doubtcap;

/*
 * The spreading delay of a job: its identity (hex digits, the same on
 * every node) taken modulo the spread, so that every node waits the
 * same time and jobs with the same schedule are spread evenly.
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

/* The store answered: end an outage and settle its misfires. */
void
fire_store_ok(void)
{
	if (D.d_store_down) {
		log_info("(CRON) STORE BACK (cluster jobs resume)");
		D.d_store_down = 0;
	}
	if (D.d_recover && !mtimer_queued(&recover_t) && !D.d_stopping)
		mtimer_set(&recover_t, D.d_mono_now);
}

static void
recover_timer(struct mtimer *t)
{
	/* Registrations that failed meanwhile are still pending. */
	tables_register(0);
	fire_recover();
}

/* A job's timer: schedule its next fire, then deal with this one. */
void
fire_due(struct job *j)
{
	struct timer	*t = &j->j_timer;
	time_t		 fire = job_fire(j), after = fire;
	int64_t		 late;
	char		 id[CRON_IDLEN + 1];

	/*
	 * Another live node is this fire's preferred claimant: give it
	 * claim_defer to claim first (node.c).  Decided now, with the
	 * nodes alive now.
	 */
	if (job_opts(j)->o_scope == SCOPE_CLUSTER &&
	    !(j->j_flags & JOB_DEFERRED) && D.d_conf.c_defer_ms > 0 &&
	    !node_preferred(job_id(j, id), fire)) {
		j->j_flags |= JOB_DEFERRED;
		heap_set(&D.d_wall, &j->j_timer, t->t_when +
		    D.d_conf.c_defer_ms);
		return;
	}
	late = D.d_now - ((int64_t)fire + job_delay(j)) * 1000;
	if (D.d_jump_floor != 0 && after < D.d_jump_floor / 1000)
		after = (time_t)(D.d_jump_floor / 1000);
	if (late > LATE_MS && D.d_jump_floor == 0) {
		/*
		 * Not a jump of the clock but a daemon that could not
		 * keep up (stopped, swapped out): the fires it slept
		 * through are misfires, not a burst of runs.
		 */
		after = (time_t)(D.d_now / 1000);
		job_schedule(j, after);
		if (job_opts(j)->o_scope == SCOPE_CLUSTER) {
			D.d_recover = 1;
			if (!mtimer_queued(&recover_t) && !D.d_stopping)
				mtimer_set(&recover_t, D.d_mono_now);
		}
		return;
	}
	job_schedule(j, after);
	if (job_opts(j)->o_scope == SCOPE_CLUSTER && !D.d_stopping) {
		/* Claimed together with the others due now: fire_flush(). */
		if (nqueue == queuecap) {
			queuecap = queuecap == 0 ? 64 : queuecap * 2;
			queue = xreallocarray(queue, queuecap,
			    sizeof(*queue));
		}
		queue[nqueue].q_job = j;
		queue[nqueue].q_fire = fire;
		nqueue++;
		return;
	}
	fire_one(j, fire, 0);
}

/*
 * Whether a run of the job is in flight, here or, for cluster jobs,
 * on any node by the store's runs.  -1 when the store cannot tell.
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
overlapping(struct job *j, time_t fire)
{
	struct store_run	*runs;
	struct store_error	 se;
	const struct store_run	*r;
	size_t			 i, n;
	int			 busy = 0, inflight;
	char			 id[CRON_IDLEN + 1];

	if (j->j_running > 0)
		return (1);
	if (job_opts(j)->o_scope == SCOPE_NODE)
		return (0);
	job_id(j, id);
	/*
	 * A node records a run only after it won the claim and forked, a
	 * loop turn later (longer while it cannot write): meanwhile the
	 * run shows as a claim of an earlier fire without a record.  Such
	 * a claim counts for node-timeout; past that its node is dead or
	 * cut off, and its runs would be lost anyway.  One node (SQLite)
	 * knows its own runs in flight from j_running.  The claims are
	 * read first: a run recorded after this read is found running by
	 * the next one (unless it has ended), while in the other order a
	 * run recorded between the two reads would be in neither.
	 */
	if (D.d_mysql) {
		if (store_job_inflight(D.d_st, id, fire, (time_t)
		    ((D.d_conf.c_node_timeout_ms + 999) / 1000), &inflight,
		    &se) == -1) {
			store_failed("reading claims in flight", &se);
			return (-1);
		}
		if (inflight > 0)
			return (1);
	}
	if (store_runs_running(D.d_st, NULL, &runs, &n, &se) == -1) {
		store_failed("reading running jobs", &se);
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
 * One fire of a job: claimed first when the job is cluster-wide; with
 * catchup set this is the misfire pass's one catch-up run.
 */
static void
fire_one(struct job *j, time_t fire, int catchup)
{
	struct store_error	 se;
	char			 when[32], id[CRON_IDLEN + 1], label[JOB_LABELLEN];
	int			 won;

	fmt_utc(fire, when, sizeof(when));
	if (D.d_stopping)
		return;
	if (job_opts(j)->o_scope == SCOPE_NODE) {
		if (job_opts(j)->o_overlap == OVERLAP_FORBID &&
		    j->j_running > 0) {
			fire_log(LOG_INFO, job_owner(j), "SKIPPED",
			    D.d_conf.c_node, fire, job_label(j, label,
			    sizeof(label)), "still running");
			metrics_fire_noted(job_id(j, id), job_owner(j),
			    RUN_SKIPPED);
			return;
		}
		run_start(j, fire, 0, 0);
		return;
	}

	switch (node_may_claim()) {
	case NC_OK:
		break;
	case NC_DRAINED:
		/* Other nodes claim it; a pass is owed should none. */
		D.d_recover = 1;
		return;
	case NC_FENCED:
		D.d_recover = 1;
		doubt_add(job_id(j, id), fire, 1);
		return;
	}
	if (D.d_st == NULL) {
		D.d_recover = 1;
		doubt_add(job_id(j, id), fire, 1);
		return;
	}
	if (D.d_recover && !catchup) {
		/*
		 * After an outage the misfire pass comes before any new
		 * claim: a claim moves the job's last fire past the fires
		 * missed meanwhile, which could then be neither claimed
		 * nor noted.
		 */
		fire_recover();
		if (D.d_recover) {
			doubt_add(job_id(j, id), fire, 1);
			return;
		}
	}
	claim_until = node_lease_until();
	if (store_claim(D.d_st, job_id(j, id), fire, &won, &se) == -1) {
		store_failed("claiming a fire", &se);
		doubt_add(id, fire, 0);
		return;
	}
	fire_store_ok();
	metrics_claims(won, !won);
	fire_won(j, fire, won, catchup);
}

static void
doubt_add(const char *id, time_t fire, int dropped)
{
	if (ndoubts == doubtcap) {
		doubtcap = doubtcap == 0 ? 16 : doubtcap * 2;
		doubts = xreallocarray(doubts, doubtcap, sizeof(*doubts));
	}
	strlcpy(doubts[ndoubts].d_id, id, sizeof(doubts[ndoubts].d_id));
	doubts[ndoubts].d_fire = fire;
	doubts[ndoubts].d_dropped = dropped;
	doubts[ndoubts].d_done = 0;
	ndoubts++;
}

static int
doubt_cmp(const void *a, const void *b)
{
	const struct doubt	*da = a, *db = b;
	int			 c;

	if ((c = strcmp(da->d_id, db->d_id)) != 0)
		return (c);
	if (da->d_fire != db->d_fire)
		return (da->d_fire < db->d_fire ? -1 : 1);
	return (0);
}

/*
 * Ask the store whose the fire in doubt is: a read of the claims first,
 * then the claim made again, which wins it now if nobody had it.  Ours,
 * it runs if still on time (or within a catch-up grace), else it is
 * noted missed.  A dropped fire was never started on time: a misfire,
 * of which a job gets one catch-up, for the latest (last set) of its
 * dropped fires, as after any outage.  Returns -1 when the store
 * failed again.
 */
static int
doubt_settle(struct job *j, const struct doubt *d, int last)
{
	struct store_error	 se;
	const struct cron_opts	*o = job_opts(j);
	const char		*id = d->d_id;
	time_t			 fire = d->d_fire;
	time_t			 late = (time_t)(D.d_now / 1000) - fire;
	char			 label[JOB_LABELLEN];
	int			 won, rec;

	claim_until = node_lease_until();
	if (store_claim_check(D.d_st, id, fire, &won, &se) == -1 ||
	    (!won && store_claim(D.d_st, id, fire, &won, &se) == -1)) {
		store_failed("settling a claim in doubt", &se);
		return (-1);
	}
	metrics_claims(won, !won);
	if (!won)
		return (0);
	/*
	 * Ours, but recorded meanwhile: this node was taken for dead while
	 * the fire was in doubt, and another marked the claim lost (and
	 * may have run it again).
	 */
	if (store_fire_recorded(D.d_st, id, fire, &rec, &se) == -1) {
		store_failed("settling a claim in doubt", &se);
		return (-1);
	}
	if (rec > 0) {
		fire_log(LOG_INFO, job_owner(j), "LOST", D.d_conf.c_node,
		    fire, job_label(j, label, sizeof(label)),
		    "taken for dead meanwhile, recorded by another node, "
		    "not started");
		return (0);
	}
	if ((!d->d_dropped && late <= LATE_MS / 1000) ||
	    (d->d_dropped && last && o->o_misfire == MISFIRE_CATCHUP &&
	    late <= (time_t)o->o_grace)) {
		fire_won(j, fire, 1, 1);
		return (0);
	}
	fire_log(LOG_INFO, job_owner(j), "MISSED", D.d_conf.c_node, fire,
	    job_label(j, label, sizeof(label)), NULL);
	metrics_fire_noted(id, job_owner(j), RUN_MISSED);
	if (store_fire_note(D.d_st, id, fire, RUN_MISSED, D.d_now, &se) == -1) {
		store_failed("noting a missed fire", &se);
		return (-1);
	}
	return (0);
}

/*
 * Settle every fire in doubt whose job still exists, one pass over the
 * jobs with the doubts sorted by identity.  Those of jobs that went
 * away are dropped.  Returns -1, keeping what is left, when the store
 * failed again.  The pass works on the doubts taken out of the list:
 * settling one may add another (a catch-up that reaches its start past
 * its lease, fire_late()), which is kept for the next pass.
 */
static int
doubts_settle(void)
{
	struct table	*tb;
	struct doubt	 key, *d, *set = doubts;
	size_t		 k, i, lo, hi, last, nset = ndoubts;
	int		 rv = 0;

	if (nset == 0)
		return (0);
	doubts = NULL;
	ndoubts = doubtcap = 0;
	qsort(set, nset, sizeof(*set), doubt_cmp);
	RB_FOREACH(tb, tables, &D.d_tables) {
		for (k = 0; k < tb->tb_njobs && rv == 0; k++) {
			if (job_opts(&tb->tb_jobs[k])->o_scope != SCOPE_CLUSTER)
				continue;
			table_job_id(tb, k, key.d_id);
			key.d_fire = 0;
			/* The first doubt of this job, if any. */
			for (lo = 0, hi = nset; lo < hi; ) {
				i = lo + (hi - lo) / 2;
				if (doubt_cmp(&set[i], &key) < 0)
					lo = i + 1;
				else
					hi = i;
			}
			/* Its latest dropped fire, for the one catch-up. */
			last = nset;
			for (i = lo; i < nset &&
			    strcmp(set[i].d_id, key.d_id) == 0; i++)
				if (set[i].d_dropped && !set[i].d_done)
					last = i;
			for (i = lo; i < nset && rv == 0; i++) {
				d = &set[i];
				if (strcmp(d->d_id, key.d_id) != 0)
					break;
				if (d->d_done)
					continue;
				if (doubt_settle(&tb->tb_jobs[k], d,
				    i == last) == -1)
					rv = -1;
				else
					d->d_done = 1;
			}
		}
	}
	if (rv == -1)
		for (i = 0; i < nset; i++)
			if (!set[i].d_done)
				doubt_add(set[i].d_id, set[i].d_fire,
				    set[i].d_dropped);
	free(set);
	return (rv);
}

/* The claim of a fire was decided: run it if it is ours. */
static void
fire_won(struct job *j, time_t fire, int won, int catchup)
{
	struct store_error	 se;
	char			 label[JOB_LABELLEN], id[CRON_IDLEN + 1];
	int			 busy;

	job_id(j, id);
	label[0] = '\0';
	/* Not made for a line that is not logged: this is every fire. */
	if (D.d_debug || (won && D.d_loglevel & LL_FIRES))
		job_label(j, label, sizeof(label));
	if (!won) {
		if (D.d_debug)
			fire_log(LOG_DEBUG, job_owner(j), "NOT CLAIMED",
			    D.d_conf.c_node, fire, label, "another node won");
		return;
	}
	/* Beyond cron's lines: at debug level unless -L says LL_FIRES. */
	if (D.d_debug || D.d_loglevel & LL_FIRES)
		fire_log(D.d_loglevel & LL_FIRES ? LOG_INFO : LOG_DEBUG,
		    job_owner(j), "CLAIMED", D.d_conf.c_node, fire, label,
		    catchup ? "catching up" : NULL);
	if (job_opts(j)->o_overlap == OVERLAP_FORBID) {
		if ((busy = overlapping(j, fire)) == -1)
			return;
		if (busy) {
			fire_log(LOG_INFO, job_owner(j), "SKIPPED",
			    D.d_conf.c_node, fire, job_label(j, label,
			    sizeof(label)), "still running");
			metrics_fire_noted(id, job_owner(j), RUN_SKIPPED);
			if (store_fire_note(D.d_st, id, fire,
			    RUN_SKIPPED, D.d_now, &se) == -1)
				store_failed("noting a skipped fire", &se);
			return;
		}
	}
	run_start(j, fire, 1, claim_until);
}

/*
 * A claimed fire got to its start past the lease it was claimed under
 * (run.c): the others may have taken this node for dead and marked the
 * claim lost.  A first attempt is not started on that old claim but
 * settled as a fire dropped while fenced: by then the doubt finds it
 * recorded lost if it was, else the job's misfire policy decides.  A
 * rerun is not tried again.
 */
void
fire_late(const char *id, const char *owner, const char *label, time_t fire,
    int attempt, int64_t late)
{
	if (attempt > 1) {
		fire_log(LOG_ERR, owner, "LOST", D.d_conf.c_node, fire, label,
		    "attempt %d, not run again, %.1f s past the lease, not "
		    "started", attempt, (double)late / 1000);
		return;
	}
	fire_log(LOG_INFO, owner, "FENCED", D.d_conf.c_node, fire, label,
	    "%.1f s past the lease of its claim, not started",
	    (double)late / 1000);
	D.d_recover = 1;
	doubt_add(id, fire, 1);
}

static int
sjob_cmp(const void *a, const void *b)
{
	const struct store_job	*ja, *jb;

	ja = *(const struct store_job *const *)a;
	jb = *(const struct store_job *const *)b;

	return (strcmp(ja->j_id, jb->j_id));
}

/*
 * The misfire pass, at start-up and when the store comes back.  The
 * store's last claimed fire of each job says what nobody ran: claims
 * only move forward, so every fire after it that is already past was
 * claimed by no node.  The latest of them is claimed now (so that one
 * node alone decides it) and, when the job asks for a catch-up and the
 * fire is within its grace, run once; otherwise noted as missed.  Fires
 * still within their spreading delay plus a margin are left to the
 * nodes firing them on time.
 */
void
fire_recover(void)
{
	struct store_job	*list = NULL, **byid = NULL, key, *kp, **hit;
	struct store_error	 se;
	struct table		*tb;
	struct job		*j;
	const struct jsched	*js;
	size_t			 i, n = 0, k;
	time_t			 now, limit, t, latest;
	char			 label[JOB_LABELLEN], id[CRON_IDLEN + 1];
	int			 won, steps;

	D.d_recover = 0;
	if (D.d_st == NULL || D.d_stopping)
		return;
	/* A node that may not claim owes the pass until it may. */
	if (node_may_claim() != NC_OK) {
		D.d_recover = 1;
		return;
	}
	/* Claims in doubt first: settling them may move last fires. */
	if (doubts_settle() == -1)
		return;
	if (store_jobs_list(D.d_st, D.d_root ? NULL : D.d_user, &list, &n,
	    &se) == -1) {
		store_failed("listing jobs", &se);
		return;
	}
	fire_store_ok();
	byid = xreallocarray(NULL, n + 1, sizeof(*byid));
	for (i = 0; i < n; i++)
		byid[i] = &list[i];
	qsort(byid, n, sizeof(*byid), sjob_cmp);

	now = (time_t)(D.d_now / 1000);
	RB_FOREACH(tb, tables, &D.d_tables) {
		for (k = 0; k < tb->tb_njobs; k++) {
			j = &tb->tb_jobs[k];
			if (job_opts(j)->o_scope != SCOPE_CLUSTER ||
			    job_sched(j)->js_sched.s_flags & SCHED_REBOOT)
				continue;
			key.j_id = (char *)table_job_id(tb, k, id);
			kp = &key;
			hit = bsearch(&kp, byid, n, sizeof(*byid), sjob_cmp);
			if (hit == NULL || (*hit)->j_last_fire == 0)
				continue;
			limit = now - (time_t)job_delay(j) - RECOVER_MARGIN -
			    (time_t)((D.d_conf.c_defer_ms + 999) / 1000);
			js = job_sched(j);
			if (sched_next(&js->js_sched, js->js_tz,
			    (*hit)->j_last_fire, &t) == -1 || t > limit)
				continue;
			latest = t;
			for (steps = 0; steps < RECOVER_STEPS; steps++) {
				if (sched_next(&js->js_sched, js->js_tz,
				    latest, &t) == -1 || t > limit)
					break;
				latest = t;
			}
			if (job_opts(j)->o_misfire == MISFIRE_CATCHUP &&
			    latest >= now - (time_t)job_opts(j)->o_grace) {
				fire_one(j, latest, 1);
				continue;
			}
			if (store_claim(D.d_st, id, latest, &won,
			    &se) == -1) {
				store_failed("claiming a missed fire", &se);
				doubt_add(id, latest, 0);
				goto out;
			}
			metrics_claims(won, !won);
			if (!won)
				continue;
			fire_log(LOG_INFO, job_owner(j), "MISSED",
			    D.d_conf.c_node, latest, job_label(j, label,
			    sizeof(label)), NULL);
			metrics_fire_noted(id, job_owner(j), RUN_MISSED);
			if (store_fire_note(D.d_st, id, latest,
			    RUN_MISSED, D.d_now, &se) == -1) {
				store_failed("noting a missed fire", &se);
				goto out;
			}
		}
	}
 out:
	free(byid);
	store_jobs_free(list, n);
	tables_ids_drop();
}

static int
queued_cmp(const void *a, const void *b)
{
	const struct queued	*qa = a, *qb = b;

	if (qa->q_fire != qb->q_fire)
		return (qa->q_fire < qb->q_fire ? -1 : 1);
	return (0);
}

/*
 * Claim the cluster fires queued in this turn: one store_claim_batch()
 * per instant.  A job the batch did not win but whose row still read
 * free (won 2: another node's transaction held it) is tried again on
 * its own, which waits for that row and then tells the truth; one
 * taken already (0) is not, which on a cluster is nearly every job of
 * a burst that this node is not the preferred claimant of.  Every
 * claim is made before any job is started, so that the store's round
 * trips do not come between a fire and its fork.  Jobs that went away
 * meanwhile were taken off the queue by fire_forget().
 */
void
fire_flush(void)
{
	struct store_error	 se;
	const char		**ids;
	char			(*hex)[CRON_IDLEN + 1];
	unsigned char		*won;
	size_t			 i, k, n, nwon, total = nqueue;
	size_t			 nstart = 0, ndown = 0;
	int64_t			 t0 = clock_mono(), t1;
	int			 w, down = 0;
	char			 hex0[CRON_IDLEN + 1];

	if (nqueue == 0)
		return;
	if (D.d_stopping) {
		nqueue = 0;
		return;
	}
	switch (node_may_claim()) {
	case NC_OK:
		break;
	case NC_DRAINED:
		/*
		 * The other nodes claim them.  Should they all be
		 * drained, the misfire pass notes the fires later.
		 */
		D.d_recover = 1;
		nqueue = 0;
		return;
	case NC_FENCED:
		/* As when the store is down: kept, settled later. */
		D.d_recover = 1;
		for (i = 0; i < nqueue; i++)
			doubt_add(job_id(queue[i].q_job, hex0), queue[i].q_fire,
			    1);
		nqueue = 0;
		return;
	}
	if (D.d_st != NULL && D.d_recover)
		fire_recover();
	if (D.d_st == NULL || D.d_recover) {
		D.d_recover = 1;
		for (i = 0; i < nqueue; i++)
			doubt_add(job_id(queue[i].q_job, hex0), queue[i].q_fire,
			    1);
		nqueue = 0;
		return;
	}
	qsort(queue, nqueue, sizeof(*queue), queued_cmp);
	claim_until = node_lease_until();
	ids = xreallocarray(NULL, nqueue, sizeof(*ids));
	hex = xreallocarray(NULL, nqueue, sizeof(*hex));
	won = xcalloc(nqueue, 1);
	for (i = 0; i < nqueue; i++)
		ids[i] = job_id(queue[i].q_job, hex[i]);
	for (i = 0; i < nqueue; i = k) {
		for (k = i; k < nqueue && queue[k].q_fire == queue[i].q_fire;
		    k++)
			;
		/*
		 * The store failed: the fires in flight are in doubt, the
		 * rest were never claimed (dropped): both are settled
		 * when it answers again.
		 */
		if (down) {
			for (n = i; n < k; n++)
				doubt_add(hex[n], queue[n].q_fire, 1);
			ndown += k - i;
			continue;
		}
		n = k - i;
		if (n > 1 && store_claim_batch(D.d_st, ids + i, n,
		    queue[i].q_fire, n, won + i, &nwon, &se) == -1) {
			store_failed("claiming fires", &se);
			for (n = i; n < k; n++)
				doubt_add(hex[n], queue[n].q_fire, 0);
			ndown += k - i;
			memset(won + i, 0, k - i);
			down = 1;
			continue;
		}
		if (n == 1)
			won[i] = 2;
		for (n = i; n < k; n++) {
			if (won[n] != 2)
				continue;
			if (down || store_claim(D.d_st, hex[n],
			    queue[n].q_fire, &w, &se) == -1) {
				if (!down)
					store_failed("claiming a fire", &se);
				doubt_add(hex[n], queue[n].q_fire, down);
				ndown++;
				w = 0;
				down = 1;
			}
			won[n] = (unsigned char)w;
		}
	}
	if (!down)
		fire_store_ok();
	for (i = nwon = 0; i < nqueue; i++)
		nwon += won[i] == 1;
	/* What was claimed; fires in doubt are neither. */
	metrics_claims(nwon, nqueue - nwon - ndown);
	t1 = clock_mono();
	log_debug("(CRON) CLAIMS (%zu fires in %lld ms)", total,
	    (long long)(t1 - t0));
	for (i = 0; i < nqueue; i++) {
		if (won[i] == 1)
			nstart++;
		fire_won(queue[i].q_job, queue[i].q_fire, won[i], 0);
	}
	free(ids);
	free(hex);
	free(won);
	nqueue = 0;
	if (nstart > 0)
		log_debug("(CRON) STARTS (%zu fires in %lld ms)", nstart,
		    (long long)(clock_mono() - t1));
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
		store_failed("reading the runs of a lost fire", &se);
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
fire_rerun(const char *id, time_t fire, int attempt)
{
	struct job	*j;
	char		 label[JOB_LABELLEN];
	int		 r;

	/* Not @reboot runs: they belong to each node, unclaimed. */
	if (D.d_stopping || D.d_st == NULL ||
	    (j = job_find(id)) == NULL ||
	    job_opts(j)->o_scope != SCOPE_CLUSTER ||
	    job_sched(j)->js_sched.s_flags & SCHED_REBOOT ||
	    job_opts(j)->o_lost != LOST_RERUN || attempt < 1)
		return;
	job_label(j, label, sizeof(label));
	if (node_may_claim() == NC_FENCED) {
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
	run_attempt(j, fire, 1, attempt + 1, node_lease_until());
}

/* A job goes away: take it off the queue of fires to claim. */
void
fire_forget(struct job *j)
{
	size_t	 i;

	for (i = 0; i < nqueue; i++) {
		if (queue[i].q_job == j) {
			queue[i] = queue[--nqueue];
			i--;
		}
	}
}

/*
 * Jobs moved (tables.c): old[i] is now map[i], or gone when NULL (and
 * already forgotten).  The queue follows.
 */
void
fire_moved(const struct job *old, size_t nold, struct job *const *map)
{
	uintptr_t	 lo = (uintptr_t)old, hi = (uintptr_t)(old + nold);
	size_t		 i;

	for (i = 0; i < nqueue; i++) {
		if ((uintptr_t)queue[i].q_job >= lo &&
		    (uintptr_t)queue[i].q_job < hi)
			queue[i].q_job = map[queue[i].q_job - old];
	}
}
