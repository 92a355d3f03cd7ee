/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * node.c: this node in the cluster, under claim.c in the daemon's chain
 * (daemon.h).  On MariaDB the node heartbeats every heartbeat-interval
 * from a thread of its own, on a store connection of its own, so that
 * nothing the loop does delays it: a reload of a huge table, a long
 * batch of claims, a statement stuck on the main connection.  The same
 * turn says which nodes are alive, whether this one is drained and how
 * far its clock is from the store's.  On SQLite there is one node and
 * no lease: it records its start and then stays quiet, with no thread,
 * so that an idle daemon never wakes up.
 *
 * The heartbeat thread.  It owns its connection (hb) from the moment
 * it starts: no store handle is used by two threads.  It does the
 * store's part of a heartbeat and nothing else: the renewal, the list
 * of nodes, the store's clock.  What it learns it leaves in B, under
 * B's mutex, and the loop takes it at the start of each of its turns
 * (node_turn()) and tells gate.c: the renewal with the monotonic
 * instant it was sent (the gate trusts no renewal whose sending it does
 * not know, see the fence below), the skew, the drain, the live nodes.
 * Everything that touches the daemon's state stays in the loop, on the
 * main connection, every heartbeat-interval after a renewal: marking
 * the runs of dead nodes lost and keeping them for claim.c, the runs of
 * an earlier life, the stored tables due (node_tables_due()), logging.
 * The thread reads the time through a tick of its own, a copy of the
 * loop's with daemon.c's reader: the monotonic clock to pace itself and
 * stamp the renewals it sends, the wall clock for the offset it
 * records.  The loop still owns time for every decision about jobs: a
 * renewal reaches the gate only through the loop, as the instant it
 * was sent, and the gate measures it against the loop's tick.
 *
 * A heartbeat that outlived the loop would keep a wedged daemon looking
 * alive for ever.  So the loop tells the thread at each turn that it is
 * alive, and the thread renews only while the loop began a turn within
 * LOOP_STUCK times node-timeout (four times: a minute with the default
 * settings, which covers a statement on the main connection waiting out
 * its read timeout): past that it withholds its renewals, the lease
 * runs out and the other nodes take the node for dead, as they should.
 * The loop, should it come back, says so (HEARTBEAT (withheld ...)),
 * and a turn that began long after the one before while the heartbeat
 * kept the lease is logged as a STALL.
 *
 * Stopping.  The daemon leaves with the thread stopped and joined: the
 * thread waits on a condition variable, so it leaves at once, unless a
 * store call of its own is in flight; that is awaited one second at
 * most (QUIT_WAIT), the process then leaving without it.
 *
 * Failure detection.  A node whose last heartbeat is older than
 * node-timeout by the store's clock is dead: its runs still recorded as
 * running are marked lost by whichever node holds the "reaper" lease,
 * at its heartbeat; the runs it marked are kept for claim.c, which
 * reruns those whose job asks (node_lost()).  The same node, once every
 * live node has had the time to see a dead one gone, hands its death to
 * claim.c for the sweep (node_gone()): the fires each of whose first
 * claimants died before the others knew were claimed by no node, and
 * are noted there.  The failure that matters
 * is the node that is slow rather than dead: stopped, swapped out, cut
 * off from the store.  It must not go on starting jobs once the others
 * may take its work over, so it fences itself (gate.c): each renewal of
 * its lease is told to the gate with the moment it was sent.  Before a
 * fenced node refuses a claim it asks the thread for one heartbeat at
 * once and awaits it half a second at most (node_beat_now()): a node
 * that merely slept renews and carries on.
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

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * How long a node cut off from the store may take to reconnect once it
 * is back: the store retries a lost connection at most this far apart.
 */
#define RECONNECT_MAX	5000
#define UNRUN_BACK	3600	/* s: claims of an earlier life looked at */
/*
 * The heartbeat goes on without the loop for at most LOOP_STUCK times
 * node-timeout since the loop's last turn (the header comment).
 */
#define LOOP_STUCK	4
#define BEAT_WAIT	500	/* ms: node_beat_now() waits for its beat */
#define LEAVE_WAIT	2000	/* ms: node_leave() waits for the last one */
#define QUIT_WAIT	1000	/* ms: node_free() waits for the thread */
/*
 * The sweep after a node died: deaths this recent are swept (ms, by
 * the store's clock), once every live node has had a heartbeat, and
 * its backups their deferrals, since it was due to see the node gone,
 * and this much more (ms).
 */
#define SWEEP_BACK	600000
#define SWEEP_SETTLE	2000

/* A run of an earlier life of this node whose process still lives. */
struct orphan {
	int64_t		 o_id;
	pid_t		 o_pid;
	int64_t		 o_start;	/* ms, node clock */
	char		 o_job[CRON_IDLEN + 1];
	time_t		 o_fire;
	int		 o_attempt;
};

/*
 * What the heartbeat thread and the loop share, under b_mu; the
 * members are written by the side named, read by the other.  b_cv
 * wakes the thread (a beat asked, quit), b_done the loop (an attempt
 * over, the thread gone).
 */
struct beat {
	pthread_mutex_t	 b_mu;
	pthread_cond_t	 b_cv;
	pthread_cond_t	 b_done;
	/* The loop's. */
	int64_t		 b_turn;	/* its last turn began, mono ms */
	int		 b_running;	/* jobs here */
	int		 b_stopping;
	int		 b_asked;	/* a heartbeat at once */
	int		 b_quit;
	struct store_cover b_cover;	/* claim.c's, for the next beat */
	/* The thread's. */
	uint64_t	 b_tries;	/* attempts over, withheld ones too */
	int64_t		 b_sent;	/* the last renewal, sent (mono) */
	int64_t		 b_answered;	/* ... and answered (mono) */
	int64_t		 b_ok_since;	/* renewing without a break since */
	int64_t		 b_skew;
	int		 b_drained;
	struct store_node *b_nodes;	/* taken by the loop */
	size_t		 b_nnodes;
	int64_t		 b_store_ms;	/* the store's clock with them */
	int		 b_failed;	/* the last attempt failed */
	char		 b_err[STORE_MSGLEN];
	int64_t		 b_late;	/* a renewal this long after the last */
	int64_t		 b_stuck;	/* withheld: the loop this long away */
	int		 b_gone;	/* the thread has left */
};

static struct beat	 B = {
	.b_mu = PTHREAD_MUTEX_INITIALIZER,
	.b_cv = PTHREAD_COND_INITIALIZER,
	.b_done = PTHREAD_COND_INITIALIZER
};
static pthread_t	 beat_thread;
static int		 beat_started;
static struct store	*hb;		/* the thread's connection */
static struct store_config beat_sc;
/*
 * The thread's time: a tick of its own, read through the reader the
 * loop's tick has (daemon.c's, on the monotonic clock the condition
 * variables wait on).  loop_tk is the loop's, for node_free().
 */
static struct tick	 beat_tk;
static struct tick	*loop_tk;
/* The loop's own. */
static int	 beat_failed;	/* HEARTBEAT (error) said */
static uint64_t	 beat_seen;	/* b_tries taken */
static int64_t	 beat_ok_since;	/* renewing without a break since */
static int64_t	 beat_asked;	/* last node_beat_now() ask, mono */
static int64_t	 stcheck_last;	/* monotonic ms */
static int64_t	 turn_last;	/* the last turn began, mono */
static int	 tables_due;	/* the stored tables, to read */
static struct lostrun *lost;	/* marked lost, for reruns */
static size_t	 nlost;
static struct orphan *orphans;
static size_t	 norphans;
/* Deaths seen (a node and its last heartbeat), each swept once. */
struct dead {
	char		*d_name;
	int64_t		 d_beat;	/* store clock, ms */
	int		 d_handed;	/* to claim.c, in sweeps[] */
};
static struct dead *dead;
static size_t	 ndead;
static int64_t	 dead_store_ms;	/* the store's clock, last list */
static int64_t	 dead_skew;	/* this node's clock ahead of it */
static struct gonenode *sweeps;	/* deaths to sweep, for claim.c */
static size_t	 nsweeps;

static int	 beat_once(struct store *, int64_t, int64_t, int,
		    const struct store_cover *, int64_t *, int *,
		    struct store_error *);
static void	*beat_main(void *);
static int	 beat_attempt(int);
static void	 beat_take(struct tick *);
static int	 beat_wait(uint64_t, int64_t, struct tick *);
static void	 beat_timer(struct mtimer *, struct tick *);
static int64_t	 stuck_limit(void);
static void	 reap_dead(struct store *, struct tick *);
static void	 dead_watch(const struct store_node *, size_t, int64_t,
		    int64_t);
static void	 dead_due(void);
static void	 orphans_find(struct store *, struct tick *);
static void	 orphans_check(struct store *);
static const char *id_label(const char *, char *, size_t);
static const char *owner_by_id(const char *);

static struct mtimer	 beat_t = MTIMER_INIT(beat_timer, NULL);

/* How long the loop may be away before the thread stops renewing. */
static int64_t
stuck_limit(void)
{
	return (LOOP_STUCK * D.d_conf.c_node_timeout_ms);
}

/*
 * Start heartbeating (MariaDB), or record the start (SQLite); then look
 * for the runs an earlier life of this node left running.  On MariaDB
 * the first heartbeat is made here, in the loop, so that the node has
 * measured its clock and holds a lease before its first claim; the
 * thread then takes the heartbeat's connection over.
 */
void
node_start(struct tick *tk)
{
	struct store_error	 se;
	pthread_condattr_t	 ca;
	sigset_t		 all, old;
	int64_t			 skew, sent;
	int			 drained, e;

	if (D.d_st == NULL)
		return;
	if (!D.d_mysql) {
		tick_read(tk);
		sent = tk->tk_mono;
		if (beat_once(D.d_st, tk->tk_wall, 0, (int)proc_count(),
		    NULL, &skew, &drained, &se) == -1)
			gate_store_failed("recording the node", &se);
		else {
			tick_read(tk);
			gate_beat(sent, tk->tk_mono);
		}
		orphans_find(D.d_st, tk);
		/* No heartbeat to look again: what lives stays running. */
		free(orphans);
		orphans = NULL;
		norphans = 0;
		return;
	}
	if (beat_started) {
		orphans_find(D.d_st, tk);
		return;
	}
	/*
	 * The first beat, in the loop, B not shared yet; it opens the
	 * heartbeat's connection (a failure is logged by beat_take(), and
	 * the thread tries again every heartbeat-interval).
	 */
	store_config_fill(&beat_sc);
	tick_read(tk);
	beat_tk = *tk;
	loop_tk = tk;
	B.b_turn = turn_last = tk->tk_mono;
	B.b_running = (int)proc_count();
	(void)beat_attempt(0);
	beat_take(tk);
	orphans_find(D.d_st, tk);
	/*
	 * The thread waits on the monotonic clock, and takes no signal:
	 * they are the loop's (its mask blocks them all).
	 */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&B.b_cv);
	pthread_cond_init(&B.b_cv, &ca);
	pthread_cond_destroy(&B.b_done);
	pthread_cond_init(&B.b_done, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&beat_thread, NULL, beat_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		fatalx("cannot start the heartbeat thread: %s", strerror(e));
	beat_started = 1;
	mtimer_set(&beat_t, tk->tk_mono + D.d_conf.c_heartbeat_ms);
}

/*
 * One heartbeat on st, sent with the node's clock at wall: recorded with
 * the running count and a clock offset, and back come the skew and
 * whether the node is drained.  The renewal counts from the moment it
 * was sent, which the caller read just before.  The node clock recorded
 * is the one expected at the store's reading of its clock, half a round
 * trip (half: of the last one) after sending.
 */
static int
beat_once(struct store *st, int64_t wall, int64_t half, int running,
    const struct store_cover *cover, int64_t *skew, int *drained,
    struct store_error *se)
{
	int64_t	 store_ms;

	if (store_heartbeat(st, wall + half, running, cover, &store_ms,
	    drained, se) == -1)
		return (-1);
	*skew = wall + half - store_ms;
	return (0);
}

/*
 * One attempt of the heartbeat on the thread's connection: the renewal,
 * the live nodes and the store's clock, published in B.  The thread
 * holds B.b_mu when it calls this (locked set) and lets it go around
 * the store's calls; the loop calls it once, before the thread exists.
 * 0, or -1 when the attempt failed.
 */
static int
beat_attempt(int locked)
{
	static int64_t		 rtt, last_sent;
	struct store_node	*nodes = NULL;
	struct store_error	 se;
	struct store_cover	 cover = B.b_cover;
	int64_t			 sent = 0, answered = 0, skew = 0, store_ms = 0;
	int64_t			 m0, wall;
	size_t			 n = 0;
	int			 running = B.b_running, drained = 0, r = -1;

	if (locked)
		pthread_mutex_unlock(&B.b_mu);
	if (hb == NULL && store_open(&beat_sc, &hb, &se) == -1)
		goto out;
	/* An attempt every heartbeat-interval, not at the back-off's. */
	store_retry_now(hb);
	tick_read(&beat_tk);
	m0 = beat_tk.tk_mono;
	wall = beat_tk.tk_wall;
	if (beat_once(hb, wall, rtt / 2, running, &cover, &skew, &drained,
	    &se) == -1)
		goto out;
	sent = m0;
	tick_read(&beat_tk);
	answered = beat_tk.tk_mono;
	rtt = answered - m0;
	if (store_nodes_list(hb, &nodes, &n, &se) == -1 ||
	    store_now(hb, &store_ms, &se) == -1)
		goto out;
	r = 0;
out:
	if (locked)
		pthread_mutex_lock(&B.b_mu);
	B.b_tries++;
	if (sent != 0) {
		if (last_sent != 0 && sent - last_sent > B.b_late)
			B.b_late = sent - last_sent;
		B.b_sent = last_sent = sent;
		B.b_answered = answered;
		if (B.b_ok_since == 0)
			B.b_ok_since = sent;
	} else
		B.b_ok_since = 0;
	if (r == -1) {
		/* Renewed perhaps; the rest could not be read. */
		store_nodes_free(nodes, n);
		B.b_failed = 1;
		strlcpy(B.b_err, se.se_msg, sizeof(B.b_err));
		return (-1);
	}
	B.b_skew = skew;
	B.b_drained = drained;
	store_nodes_free(B.b_nodes, B.b_nnodes);
	B.b_nodes = nodes;
	B.b_nnodes = n;
	B.b_store_ms = store_ms;
	B.b_failed = 0;
	return (0);
}

/*
 * The heartbeat thread: an attempt every heartbeat-interval from the
 * last one's start, or at once when the loop asks, until told to quit.
 * No attempt while the daemon stops with no job running (there is
 * nothing left to hold a lease for) but the last, which node_leave()
 * asks for; none either while the loop has not
 * begun a turn for stuck_limit(): the renewal would keep a wedged
 * daemon looking alive.
 */
static void *
beat_main(void *arg)
{
	struct timespec	 ts;
	int64_t		 next, now;
	int		 asked;

	pthread_mutex_lock(&B.b_mu);
	next = B.b_sent + D.d_conf.c_heartbeat_ms;
	for (;;) {
		for (;;) {
			tick_read(&beat_tk);
			if (B.b_quit || B.b_asked || beat_tk.tk_mono >= next)
				break;
			ts.tv_sec = (time_t)(next / 1000);
			ts.tv_nsec = (long)(next % 1000) * 1000000;
			(void)pthread_cond_timedwait(&B.b_cv, &B.b_mu, &ts);
		}
		if (B.b_quit)
			break;
		asked = B.b_asked;
		B.b_asked = 0;
		now = beat_tk.tk_mono;
		next = now + D.d_conf.c_heartbeat_ms;
		if (B.b_stopping && B.b_running == 0 && !asked)
			continue;
		if (now - B.b_turn > stuck_limit()) {
			B.b_stuck = now - B.b_turn;
			B.b_ok_since = 0;
			B.b_tries++;
			pthread_cond_broadcast(&B.b_done);
			continue;
		}
		(void)beat_attempt(1);
		pthread_cond_broadcast(&B.b_done);
	}
	B.b_gone = 1;
	pthread_cond_broadcast(&B.b_done);
	pthread_mutex_unlock(&B.b_mu);
	return (NULL);
}

/*
 * The loop takes what the thread published since it last looked: the
 * renewal and when it was sent (for the gate, which trusts no other),
 * skew, drain and the live nodes, and what to say in the log.
 */
static void
beat_take(struct tick *tk)
{
	struct store_node	*nodes = NULL;
	struct store_error	 se;
	size_t			 n = 0;
	uint64_t		 tries;
	int64_t			 sent, answered, skew, store_ms, late, stuck;
	int64_t			 ok_since;
	int			 failed, drained, fresh;
	char			 err[STORE_MSGLEN];

	if (beat_started)
		pthread_mutex_lock(&B.b_mu);
	tries = B.b_tries;
	fresh = tries != beat_seen;
	sent = B.b_sent;
	answered = B.b_answered;
	skew = B.b_skew;
	drained = B.b_drained;
	failed = B.b_failed;
	ok_since = B.b_ok_since;
	strlcpy(err, B.b_err, sizeof(err));
	late = B.b_late;
	B.b_late = 0;
	stuck = B.b_stuck;
	B.b_stuck = 0;
	if (B.b_nodes != NULL) {
		nodes = B.b_nodes;
		n = B.b_nnodes;
		store_ms = B.b_store_ms;
		B.b_nodes = NULL;
		B.b_nnodes = 0;
	} else
		store_ms = 0;
	if (beat_started)
		pthread_mutex_unlock(&B.b_mu);
	if (!fresh)
		return;
	beat_seen = tries;
	beat_ok_since = ok_since;
	if (stuck != 0)
		log_warnx("(CRON) HEARTBEAT (withheld: the loop made no turn "
		    "for %" PRId64 ".%" PRId64 " s, past the %" PRId64 " s a "
		    "heartbeat goes on without it; the other nodes may take "
		    "this node for dead)", stuck / 1000, stuck % 1000 / 100,
		    stuck_limit() / 1000);
	/*
	 * A renewal this late follows a stop or a stall of the whole
	 * daemon: say so, as the other nodes may have declared it dead.
	 */
	if (late >= D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms)
		log_warnx("(CRON) HEARTBEAT (renewed after %" PRId64 ".%"
		    PRId64 " s%s)", late / 1000, late % 1000 / 100, late >=
		    D.d_conf.c_node_timeout_ms ? ", past node-timeout: "
		    "runs of this node may have been marked lost" : "");
	if (sent != 0 && sent != gate_beat_sent())
		gate_beat(sent, answered);
	if (failed) {
		if (!beat_failed && stuck == 0)
			log_warnx("(CRON) HEARTBEAT (%s)", err);
		beat_failed = 1;
	} else if (stuck == 0) {
		if (beat_failed)
			log_info("(CRON) HEARTBEAT (back)");
		beat_failed = 0;
		gate_skew(skew);
		gate_drain(drained, proc_count());
	}
	if (nodes != NULL) {
		dead_watch(nodes, n, store_ms, skew);
		gate_nodes(nodes, n, store_ms, proc_count());
		store_nodes_free(nodes, n);
	}
	/*
	 * The store answered the heartbeat: the main connection may be
	 * back too, tried once at once (before this turn's claims), not
	 * when its back-off, up to 5 s, would have it.
	 */
	if (!failed && stuck == 0 && !gate_store_up() && D.d_st != NULL) {
		store_retry_now(D.d_st);
		if (store_now(D.d_st, &store_ms, &se) == 0)
			gate_store_ok();
	}
}

/*
 * A turn of the loop begins (daemon.c): the thread learns that the
 * loop is alive and what it needs for its next heartbeat, and the loop
 * takes the news.  A turn that began long after the one before (a
 * reload, a slow statement on the main connection) is said in the log:
 * without the thread, the node would have lost its lease.
 */
void
node_turn(struct tick *tk)
{
	int64_t	 gap;

	if (!beat_started)
		return;
	gap = turn_last != 0 ? tk->tk_mono - turn_last : 0;
	turn_last = tk->tk_mono;
	pthread_mutex_lock(&B.b_mu);
	B.b_turn = tk->tk_mono;
	B.b_running = (int)proc_count();
	B.b_stopping = D.d_stopping;
	pthread_mutex_unlock(&B.b_mu);
	beat_take(tk);
	if (gap >= D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms &&
	    !gate_fence_due(gate_state(), tk->tk_mono))
		log_info("(CRON) STALL (the loop was away %" PRId64 ".%"
		    PRId64 " s; the heartbeat went on)", gap / 1000,
		    gap % 1000 / 100);
}

/* claim.c's cover, for the heartbeats from now on (store.h). */
void
node_cover(const struct store_cover *cv)
{
	pthread_mutex_lock(&B.b_mu);
	B.b_cover = *cv;
	pthread_mutex_unlock(&B.b_mu);
}

/*
 * Wait, at most ms from the loop's clock (tk), for the thread to finish
 * an attempt after the tries-th: 1 when it did, 0 when the time ran out
 * or the thread left.  Called with B.b_mu held.
 */
static int
beat_wait(uint64_t tries, int64_t ms, struct tick *tk)
{
	struct timespec	 ts;
	int64_t		 until;

	tick_read(tk);
	until = tk->tk_mono + ms;
	ts.tv_sec = (time_t)(until / 1000);
	ts.tv_nsec = (long)(until % 1000) * 1000000;
	while (B.b_tries == tries && !B.b_gone)
		if (pthread_cond_timedwait(&B.b_done, &B.b_mu, &ts) ==
		    ETIMEDOUT)
			break;
	return (B.b_tries != tries);
}

/*
 * The lease ran out (gate.c): the thread may have renewed since the
 * turn began; if not, it is asked for a heartbeat at once, which the
 * loop awaits BEAT_WAIT ms at most (a node that only slept renews in a
 * round trip).  At most once a heartbeat-interval, as a store that is
 * away would make every claim wait that long.
 */
void
node_beat_now(struct tick *tk)
{
	struct store_error	 se;
	uint64_t		 tries;
	int64_t			 skew, sent;
	int			 drained;

	if (!D.d_mysql)
		return;
	if (!beat_started) {
		/*
		 * No thread (the core's unit tests, in time they hand
		 * down): the heartbeat on the main connection, in the
		 * loop, as the thread would make it.
		 */
		if (D.d_stopping || D.d_st == NULL || (beat_asked != 0 &&
		    tk->tk_mono - beat_asked < D.d_conf.c_heartbeat_ms))
			return;
		beat_asked = tk->tk_mono;
		if (beat_once(D.d_st, tk->tk_wall, 0, (int)proc_count(),
		    &B.b_cover, &skew, &drained, &se) == 0) {
			sent = beat_asked;
			tick_read(tk);
			gate_beat(sent, tk->tk_mono);
		}
		return;
	}
	beat_take(tk);
	tick_read(tk);
	if (D.d_stopping || !gate_fence_due(gate_state(), tk->tk_mono) ||
	    (beat_asked != 0 &&
	    tk->tk_mono - beat_asked < D.d_conf.c_heartbeat_ms))
		return;
	beat_asked = tk->tk_mono;
	pthread_mutex_lock(&B.b_mu);
	B.b_turn = tk->tk_mono;
	B.b_running = (int)proc_count();
	B.b_asked = 1;
	tries = B.b_tries;
	pthread_cond_signal(&B.b_cv);
	(void)beat_wait(tries, BEAT_WAIT, tk);
	pthread_mutex_unlock(&B.b_mu);
	beat_take(tk);
}

/*
 * The daemon leaves (daemon.c): one more heartbeat, so that the others
 * learn from its cover (claim.c) at once that it claims no more, and,
 * with jobs still running under their runners, so that the lease runs
 * from now and a restart has the whole of node-timeout to beat again
 * before the other nodes take the node for dead and its runs for lost.
 * It is awaited LEAVE_WAIT ms at most.
 */
void
node_leave(struct tick *tk)
{
	uint64_t	 tries;

	if (!D.d_mysql || !beat_started)
		return;
	pthread_mutex_lock(&B.b_mu);
	tick_read(tk);
	B.b_turn = tk->tk_mono;
	B.b_running = (int)proc_count();
	B.b_asked = 1;
	tries = B.b_tries;
	pthread_cond_signal(&B.b_cv);
	if (!beat_wait(tries, LEAVE_WAIT, tk))
		log_warnx("(CRON) HEARTBEAT (no last heartbeat within %d s)",
		    LEAVE_WAIT / 1000);
	pthread_mutex_unlock(&B.b_mu);
	beat_take(tk);
}

/*
 * The loop's share of the heartbeat turn, every heartbeat-interval:
 * the news taken, and after a renewal the chores that touch the
 * daemon's state, on the main connection: the runs of dead nodes, the
 * runs of an earlier life, the stored tables due.
 */
static void
beat_timer(struct mtimer *t, struct tick *tk)
{
	mtimer_set(&beat_t, tk->tk_mono + D.d_conf.c_heartbeat_ms);
	beat_take(tk);
	if (D.d_stopping || beat_failed || beat_ok_since == 0)
		return;
	if (gate_store_up())
		reap_dead(D.d_st, tk);
	orphans_check(D.d_st);
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
	dead_due();
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

/*
 * The nodes of the list the heartbeat read (store clock store_ms; this
 * node's clock skew ms ahead) that are dead since recently: each death
 * remembered once, for the sweep, until it is SWEEP_BACK old.
 */
static void
dead_watch(const struct store_node *nodes, size_t n, int64_t store_ms,
    int64_t skew)
{
	size_t	 i, k;

	for (i = k = 0; i < ndead; i++) {
		if (dead[i].d_beat < store_ms - SWEEP_BACK) {
			free(dead[i].d_name);
			continue;
		}
		dead[k++] = dead[i];
	}
	ndead = k;
	for (i = 0; i < n; i++) {
		if (strcmp(nodes[i].n_name, D.d_conf.c_node) == 0 ||
		    nodes[i].n_beat >= store_ms - D.d_conf.c_node_timeout_ms ||
		    nodes[i].n_beat < store_ms - SWEEP_BACK)
			continue;
		for (k = 0; k < ndead; k++)
			if (dead[k].d_beat == nodes[i].n_beat &&
			    strcmp(dead[k].d_name, nodes[i].n_name) == 0)
				break;
		if (k < ndead)
			continue;
		dead = xreallocarray(dead, ndead + 1, sizeof(*dead));
		dead[ndead].d_name = xstrdup(nodes[i].n_name);
		dead[ndead].d_beat = nodes[i].n_beat;
		dead[ndead].d_handed = 0;
		ndead++;
	}
	dead_store_ms = store_ms;
	dead_skew = skew;
}

/*
 * This node holds the reaper's lease: the deaths every live node has
 * had the time to see (a heartbeat after node-timeout, two deferrals
 * for the backups, SWEEP_SETTLE) go to claim.c for the sweep, with the
 * span of instants (this node's clock) in which their fires may have
 * been left: from node-timeout and a deferral before the last
 * heartbeat, when the node may already have stopped claiming, to then.
 */
static void
dead_due(void)
{
	struct gonenode	*g;
	int64_t		 settle, b;
	size_t		 i;

	settle = D.d_conf.c_node_timeout_ms + D.d_conf.c_heartbeat_ms +
	    2 * D.d_conf.c_defer_ms + SWEEP_SETTLE;
	for (i = 0; i < ndead; i++) {
		if (dead[i].d_handed || dead_store_ms < dead[i].d_beat + settle)
			continue;
		b = dead[i].d_beat + dead_skew;
		sweeps = xreallocarray(sweeps, nsweeps + 1, sizeof(*sweeps));
		g = &sweeps[nsweeps++];
		strlcpy(g->gn_node, dead[i].d_name, sizeof(g->gn_node));
		g->gn_from = (time_t)((b - D.d_conf.c_node_timeout_ms -
		    D.d_conf.c_defer_ms) / 1000) - 1;
		g->gn_to = (time_t)((b + settle) / 1000) + 1;
		dead[i].d_handed = 1;
	}
}

size_t
node_gone(struct gonenode **out)
{
	size_t	 n = nsweeps;

	*out = sweeps;
	sweeps = NULL;
	nsweeps = 0;
	return (n);
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

/*
 * The thread is told to quit and awaited QUIT_WAIT ms at most: it only
 * takes longer when a store call of its own is waiting on the server
 * (up to the connection's connect and read timeouts); it is then left
 * to end with the process, its connection with it.
 */
void
node_free(void)
{
	struct timespec	 ts;
	int64_t		 until;
	size_t		 i;
	int		 gone = 1;

	mtimer_del(&beat_t);
	if (beat_started) {
		tick_read(loop_tk);
		until = loop_tk->tk_mono + QUIT_WAIT;
		ts.tv_sec = (time_t)(until / 1000);
		ts.tv_nsec = (long)(until % 1000) * 1000000;
		pthread_mutex_lock(&B.b_mu);
		B.b_quit = 1;
		pthread_cond_signal(&B.b_cv);
		while (!B.b_gone)
			if (pthread_cond_timedwait(&B.b_done, &B.b_mu, &ts) ==
			    ETIMEDOUT)
				break;
		gone = B.b_gone;
		pthread_mutex_unlock(&B.b_mu);
		if (gone)
			pthread_join(beat_thread, NULL);
		else
			pthread_detach(beat_thread);
		beat_started = 0;
	}
	gate_free();
	free(lost);
	lost = NULL;
	nlost = 0;
	free(orphans);
	orphans = NULL;
	norphans = 0;
	for (i = 0; i < ndead; i++)
		free(dead[i].d_name);
	free(dead);
	dead = NULL;
	ndead = 0;
	free(sweeps);
	sweeps = NULL;
	nsweeps = 0;
	if (gone) {
		store_nodes_free(B.b_nodes, B.b_nnodes);
		B.b_nodes = NULL;
		B.b_nnodes = 0;
		store_close(hb);
		hb = NULL;
	}
}
