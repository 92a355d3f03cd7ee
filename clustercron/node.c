/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * node.c: this node in the cluster, under claim.c in the daemon's chain
 * (daemon.h).  On MariaDB the node heartbeats every heartbeat-interval
 * on a store connection of its own, so that job work never delays it,
 * and learns from the same turn which nodes are alive, whether it is
 * drained and how far its clock is from the store's, all of which it
 * tells gate.c; every store-tables-interval the same turn says the
 * tables ctab stored, which any node may have changed, are due to be
 * read (node_tables_due()).  On SQLite there is one node: it records
 * its start and then stays quiet, so that an idle daemon never wakes
 * up.
 *
 * Failure detection.  A node whose last heartbeat is older than
 * node-timeout by the store's clock is dead: its runs still recorded as
 * running are marked lost by whichever node holds the "reaper" lease,
 * at its heartbeat; the runs it marked are kept for claim.c, which
 * reruns those whose job asks (node_lost()).  The failure that matters
 * is the node that is slow rather than dead: stopped, swapped out, cut
 * off from the store.  It must not go on starting jobs once the others
 * may take its work over, so it fences itself (gate.c): each renewal of
 * its lease is told to the gate with the moment it was sent.  Before a
 * fenced node refuses a claim it tries one heartbeat at once
 * (node_beat_now()): a node that merely slept renews and carries on.
 *
 * Runs of an earlier life.  A daemon killed with its jobs running
 * leaves their runs recorded as running, and one killed between a claim
 * and the record of its start leaves the claim alone; such a claim of
 * the last hour becomes a run with no process (store_claims_unrun()).
 * At start the node looks at its own: a run whose process is gone is
 * marked lost (its end is unknown); one still alive is looked at again
 * at each heartbeat (on SQLite only at start) until it is gone, and then
 * marked lost.  It is never started again: the fire was claimed in that
 * earlier life, and may have started.
 *
 * Clock skew.  Each heartbeat measures the node's offset from the
 * store's clock: the middle of the round trip by the node's clock
 * minus the store's clock read during it.  The first measure is taken
 * at node_start(), before any claim.
 */

#include <sys/types.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * How long a node cut off from the store may take to reconnect once it
 * is back: the store retries a lost connection at most this far apart.
 */
#define RECONNECT_MAX	5000
#define UNRUN_BACK	3600	/* s: claims of an earlier life looked at */

/* A run of an earlier life of this node whose process still lives. */
struct orphan {
	int64_t		 o_id;
	pid_t		 o_pid;
	int64_t		 o_start;	/* ms, node clock */
	char		 o_job[CRON_IDLEN + 1];
	time_t		 o_fire;
	int		 o_attempt;
};

static struct store	*hb;		/* heartbeats (MariaDB) */
static int	 beat_failed;
static int64_t	 stcheck_last;	/* monotonic ms */
static int64_t	 beat_ok_since;	/* renewing without a failure since */
static int64_t	 beat_tried;	/* last heartbeat tried, monotonic ms */
static int64_t	 beat_rtt;	/* ms */
static int	 tables_due;	/* the stored tables, to read */
static struct lostrun *lost;	/* marked lost, for reruns */
static size_t	 nlost;
static struct orphan *orphans;
static size_t	 norphans;

static int	 beat_once(struct store *, struct tick *, struct store_error *);
static void	 beat_store_open(void);
static void	 beat_timer(struct mtimer *, struct tick *);
static void	 reap_dead(struct store *, struct tick *);
static void	 orphans_find(struct store *, struct tick *);
static void	 orphans_check(struct store *);
static const char *id_label(const char *, char *, size_t);
static const char *owner_by_id(const char *);

static struct mtimer	 beat_t = MTIMER_INIT(beat_timer, NULL);

/* The heartbeat's own connection (MariaDB); failures are logged. */
static void
beat_store_open(void)
{
	struct store_config	 sc;
	struct store_error	 se;

	if (hb != NULL)
		return;
	store_config_fill(&sc);
	if (store_open(&sc, &hb, &se) == -1 && !beat_failed)
		log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
}

/*
 * Start heartbeating (MariaDB), or record the start (SQLite); then look
 * for the runs an earlier life of this node left running.
 */
void
node_start(struct tick *tk)
{
	struct store_error	 se;

	if (D.d_st == NULL)
		return;
	if (!D.d_mysql) {
		if (beat_once(D.d_st, tk, &se) == -1)
			gate_store_failed("recording the node", &se);
		orphans_find(D.d_st, tk);
		/* No heartbeat to look again: what lives stays running. */
		free(orphans);
		orphans = NULL;
		norphans = 0;
		return;
	}
	beat_store_open();
	orphans_find(D.d_st, tk);
	beat_timer(&beat_t, tk);
}

/*
 * One heartbeat: record it with the running count and a clock offset,
 * and take back the store's clock, the skew and whether the node is
 * drained.  The renewal counts from the moment it was sent.  The node
 * clock passed in is the one expected at the store's reading of its
 * clock, half a round trip (the last one) after sending.
 */
static int
beat_once(struct store *st, struct tick *tk, struct store_error *se)
{
	int64_t	 m0, t0, store_ms, sent;
	int	 draining;

	tick_read(tk);
	m0 = tk->tk_mono;
	t0 = tk->tk_wall;
	beat_tried = m0;
	if (store_heartbeat(st, t0 + beat_rtt / 2, (int)proc_count(),
	    &store_ms, &draining, se) == -1) {
		beat_ok_since = 0;
		return (-1);
	}
	if (beat_ok_since == 0)
		beat_ok_since = m0;
	tick_read(tk);
	beat_rtt = tk->tk_mono - m0;
	/*
	 * A renewal this late follows a stop or a stall of the whole
	 * daemon: say so, as the other nodes may have declared it dead.
	 */
	sent = gate_beat_sent();
	if (D.d_mysql && sent != 0 && m0 - sent >=
	    D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms)
		log_warnx("(CRON) HEARTBEAT (renewed after %" PRId64 ".%"
		    PRId64 " s%s)", (m0 - sent) / 1000,
		    (m0 - sent) % 1000 / 100, m0 - sent >=
		    D.d_conf.c_node_timeout_ms ? ", past node-timeout: "
		    "runs of this node may have been marked lost" : "");
	gate_beat(m0);
	if (D.d_mysql) {
		gate_skew(t0 + beat_rtt / 2 - store_ms);
		gate_drain(draining, proc_count());
	}
	return (0);
}

/*
 * The lease ran out (gate.c): one heartbeat at once, at most once a
 * heartbeat-interval, as the node may only have slept and a store that
 * is away could make every try wait for its connection timeout.
 */
void
node_beat_now(struct tick *tk)
{
	struct store_error	 se;
	struct store		*st;
	int64_t			 now = tk->tk_mono;

	if (!D.d_mysql)
		return;
	if (D.d_stopping || (beat_tried != 0 &&
	    now - beat_tried < D.d_conf.c_heartbeat_ms))
		return;
	beat_tried = now;
	beat_store_open();
	st = hb != NULL ? hb : D.d_st;
	if (st == NULL || beat_once(st, tk, &se) == -1)
		return;
	if (beat_failed)
		log_info("(CRON) HEARTBEAT (back)");
	beat_failed = 0;
	mtimer_set(&beat_t, tk->tk_mono + D.d_conf.c_heartbeat_ms);
}

/*
 * The daemon leaves with jobs still running under their runners
 * (daemon.c): one more heartbeat, so that the lease runs from now and a
 * restart has the whole of node-timeout to beat again before the other
 * nodes take the node for dead and its runs for lost.
 */
void
node_leave(struct tick *tk)
{
	struct store_error	 se;
	struct store		*st;

	if (!D.d_mysql || proc_count() == 0)
		return;
	if ((st = hb != NULL ? hb : D.d_st) == NULL)
		return;
	if (beat_once(st, tk, &se) == -1)
		log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
}

/* One heartbeat, and the list of live nodes that comes with it. */
static void
beat_timer(struct mtimer *t, struct tick *tk)
{
	struct store_node	*nodes = NULL;
	struct store_error	 se;
	struct store		*st;
	int64_t			 store_ms;
	size_t			 n = 0;

	/*
	 * A stopping daemon goes on heartbeating while it waits for its
	 * jobs (shutdown-grace may well exceed node-timeout): it is alive,
	 * and its runs must not be taken for lost.
	 */
	if (D.d_stopping && proc_count() == 0)
		return;
	mtimer_set(&beat_t, tk->tk_mono + D.d_conf.c_heartbeat_ms);
	beat_store_open();
	st = hb != NULL ? hb : D.d_st;
	if (st == NULL)
		return;
	if (beat_once(st, tk, &se) == -1 ||
	    store_nodes_list(st, &nodes, &n, &se) == -1 ||
	    store_now(st, &store_ms, &se) == -1) {
		if (!beat_failed)
			log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
		beat_failed = 1;
		store_nodes_free(nodes, n);
		return;
	}
	if (beat_failed)
		log_info("(CRON) HEARTBEAT (back)");
	beat_failed = 0;
	gate_nodes(nodes, n, store_ms, proc_count());
	store_nodes_free(nodes, n);
	if (D.d_stopping)
		return;
	reap_dead(st, tk);
	orphans_check(D.d_st);
	/* The main connection may be back too: try it once. */
	if (!gate_store_up() && D.d_st != NULL &&
	    store_now(D.d_st, &store_ms, &se) == 0)
		gate_store_ok();
	/* Other nodes' ctab may have changed the stored tables. */
	if (D.d_conf.c_store_tables && D.d_conf.c_store_check_ms > 0 &&
	    tk->tk_mono - stcheck_last >= D.d_conf.c_store_check_ms) {
		stcheck_last = tk->tk_mono;
		tables_due = 1;
	}
}

/*
 * Mark lost the runs of dead nodes, one node at a time (the lease
 * "reaper", held for node-timeout), and keep them for reruns.
 */
static void
reap_dead(struct store *st, struct tick *tk)
{
	struct store_run	*runs = NULL;
	struct store_error	 se;
	size_t			 i, n = 0;
	int			 held;
	char			 label[JOB_LABELLEN];

	/*
	 * Not before this node has renewed without a break for
	 * node-timeout and the time another node takes to reconnect: after
	 * an outage of the store (or at this node's start) every other
	 * node's last heartbeat is old, though they are alive, cut off as
	 * this one was; they must have had their chance to renew first.
	 */
	if (beat_ok_since == 0 || tk->tk_mono - beat_ok_since <
	    D.d_conf.c_node_timeout_ms + RECONNECT_MAX +
	    D.d_conf.c_heartbeat_ms)
		return;
	if (store_lease_take(st, "reaper", D.d_conf.c_node_timeout_ms,
	    &held, &se) == -1) {
		log_warnx("(CRON) HEARTBEAT (reaper: %s)", se.se_msg);
		return;
	}
	if (!held)
		return;
	if (store_runs_mark_lost(st, D.d_conf.c_node_timeout_ms, &runs, &n,
	    &se) == -1) {
		log_warnx("(CRON) HEARTBEAT (marking lost runs: %s)",
		    se.se_msg);
		return;
	}
	for (i = 0; i < n; i++) {
		fire_log(LOG_INFO, owner_by_id(runs[i].r_job), "LOST",
		    runs[i].r_node, runs[i].r_fire, id_label(runs[i].r_job,
		    label, sizeof(label)), "attempt %d, node dead",
		    runs[i].r_attempt);
		metrics_runs_lost(runs[i].r_node, 1);
	}
	/* The job may ask for one more attempt: claim.c decides. */
	if (n > 0)
		lost = xreallocarray(lost, nlost + n, sizeof(*lost));
	for (i = 0; i < n; i++) {
		strlcpy(lost[nlost].lr_id, runs[i].r_job,
		    sizeof(lost[nlost].lr_id));
		lost[nlost].lr_fire = runs[i].r_fire;
		lost[nlost].lr_attempt = runs[i].r_attempt;
		nlost++;
	}
	store_runs_free(runs, n);
}

size_t
node_lost(struct lostrun **out)
{
	size_t	 n = nlost;

	*out = lost;
	lost = NULL;
	nlost = 0;
	return (n);
}

int
node_tables_due(void)
{
	int	 due = tables_due;

	tables_due = 0;
	return (due);
}

/*
 * The runs this node left running in an earlier life: those whose
 * process is gone are marked lost now, the others kept in orphans[].
 * Runs of this life (the misfire pass may have started some) are left
 * alone.
 */
static void
orphans_find(struct store *st, struct tick *tk)
{
	struct store_run	*runs = NULL;
	struct store_error	 se;
	size_t			 i, n = 0;

	if (st == NULL)
		return;
	/*
	 * Claims of an earlier life that no record follows (it died
	 * between a claim and the record of the start) become runs, to be
	 * marked lost here with the others.  This life has claimed
	 * nothing yet.
	 */
	if (store_claims_unrun(st, (time_t)(tk->tk_wall / 1000) - UNRUN_BACK,
	    &n, &se) == -1)
		gate_store_failed("reading this node's claims", &se);
	else if (n > 0)
		log_info("(CRON) INFO (%zu claims of an earlier life of %s "
		    "without a record)", n, D.d_conf.c_node);
	if (store_runs_running(st, D.d_conf.c_node, &runs, &n, &se) == -1) {
		gate_store_failed("reading this node's runs", &se);
		return;
	}
	free(orphans);
	orphans = xcalloc(n + 1, sizeof(*orphans));
	norphans = 0;
	for (i = 0; i < n; i++) {
		/* proc_holds(): one-shot attempts adopted (atrun.c). */
		if (fire_owns_run(runs[i].r_id, runs[i].r_job,
		    runs[i].r_fire) || proc_holds(runs[i].r_job,
		    runs[i].r_fire, runs[i].r_attempt) ||
		    record_pending_run(runs[i].r_id,
		    runs[i].r_job, runs[i].r_fire, runs[i].r_attempt))
			continue;
		orphans[norphans].o_id = runs[i].r_id;
		orphans[norphans].o_pid = (pid_t)runs[i].r_pid;
		orphans[norphans].o_start = runs[i].r_start;
		strlcpy(orphans[norphans].o_job, runs[i].r_job,
		    sizeof(orphans[norphans].o_job));
		orphans[norphans].o_fire = runs[i].r_fire;
		orphans[norphans].o_attempt = runs[i].r_attempt;
		norphans++;
	}
	store_runs_free(runs, n);
	if (norphans > 0)
		log_info("(CRON) INFO (%zu runs of an earlier life of %s "
		    "recorded as running)", norphans, D.d_conf.c_node);
	orphans_check(st);
}

/*
 * Mark lost the orphans whose process is gone.  One the store cannot
 * mark now is kept, to try again at the next heartbeat.
 */
static void
orphans_check(struct store *st)
{
	struct store_error	 se;
	struct orphan		*o;
	size_t			 i, k;
	int			 marked;
	char			 label[JOB_LABELLEN];

	if (st == NULL || norphans == 0)
		return;
	for (i = k = 0; i < norphans; i++) {
		o = &orphans[i];
		if (spawn_alive(o->o_pid, o->o_start)) {
			orphans[k++] = *o;
			continue;
		}
		if (store_run_lost(st, o->o_id, &marked, &se) == -1) {
			gate_store_failed("marking a run lost", &se);
			orphans[k++] = *o;
			continue;
		}
		if (!marked)
			continue;
		fire_log(LOG_INFO, owner_by_id(o->o_job), "LOST",
		    D.d_conf.c_node, o->o_fire, id_label(o->o_job, label,
		    sizeof(label)), "attempt %d, its end is unknown",
		    o->o_attempt);
		metrics_runs_lost(D.d_conf.c_node, 1);
	}
	norphans = k;
}

/* job_label() of the job of identity id, or the id alone. */
static const char *
id_label(const char *id, char *buf, size_t len)
{
	struct job	*j;

	if ((j = job_find(id, NULL)) != NULL)
		return (job_label(j, buf, len));
	strlcpy(buf, id, len);
	return (buf);
}

/* The owner of job id as logged: CRON when this node does not know it. */
static const char *
owner_by_id(const char *id)
{
	struct job	*j;

	return ((j = job_find(id, NULL)) != NULL ? job_owner(j) : "CRON");
}

void
node_free(void)
{
	mtimer_del(&beat_t);
	gate_free();
	free(lost);
	lost = NULL;
	nlost = 0;
	free(orphans);
	orphans = NULL;
	norphans = 0;
	store_close(hb);
	hb = NULL;
}
