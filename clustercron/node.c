/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * node.c: this node in the cluster.  On MariaDB the node heartbeats
 * every heartbeat-interval on a store connection of its own, so that
 * job work never delays it, and learns from the same turn which nodes
 * are alive, whether it is drained and how far its clock is from the
 * store's; every store-tables-interval the same turn reads the tables
 * ctab stored, which any node may have changed.  On SQLite there is one
 * node: it records its start and then stays quiet, so that an idle
 * daemon never wakes up.
 *
 * Failure detection.  A node whose last heartbeat is older than
 * node-timeout by the store's clock is dead: its runs still recorded as
 * running are marked lost by whichever node holds the "reaper" lease,
 * at its heartbeat.  The failure that matters is the node that is slow
 * rather than dead: stopped, swapped out, cut off from the store.  It
 * must not go on starting jobs once the others may take its work over,
 * so it fences itself: a heartbeat renews a lease that runs from the
 * moment the heartbeat was sent (never later than the store stamps it),
 * and node_may_claim() refuses every claim once node-timeout minus
 * heartbeat-interval has passed since the last renewal.  The others
 * cannot declare it dead before node-timeout after the store stamped
 * that renewal, so the fence always comes first, by at least one
 * heartbeat-interval, whatever the two clocks say (only the monotonic
 * clock measures the lease here, only the store's there).  Before
 * refusing, it tries one heartbeat at once: a node that merely slept
 * renews and carries on.
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
 * minus the store's clock read during it.  Beyond max-clock-skew the
 * node claims nothing (the other nodes claim), so that a node whose
 * clock runs minutes fast never starts a fire early and one that runs
 * slow never claims a fire the others have long finished.  The first
 * measure is taken at node_start(), before any claim.
 *
 * The preferred claimant.  When every node tries every fire at once,
 * each fire costs the store one contended write per node.  Instead the
 * live nodes, sorted by name, are ranked for each fire by a hash of the
 * job's identity and the instant; the node it picks claims at the
 * instant and the others only claim_defer later, when the preferred
 * node has normally won already.  Their later claims then find the row
 * taken without waiting on its lock, and a preferred node that died
 * costs a fire no more than the deferral.  With load-spreading, the
 * nodes that run noticeably more jobs than the least busy one (by the
 * counts the nodes reported at their heartbeats, the same for every
 * node) are left out of the ranking, and a node that finds itself
 * busier by its own current count does not take its turn either, so
 * that idle nodes win the fires.  Correctness does not depend on any
 * of it: the claim alone decides.
 */

#include <sys/types.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * How long a node cut off from the store may take to reconnect once it
 * is back: the store retries a lost connection at most this far apart.
 */
#define RECONNECT_MAX	5000
#define UNRUN_BACK	3600	/* s: claims of an earlier life looked at */
/* Running jobs beyond twice the others' mean that make a node busier. */
#define SPREAD_SLACK	2
/*
 * A process started this long after its run is another one that got the
 * pid again.  Generous, as the wall clock may have been set meanwhile.
 */
#define PID_REUSE_MS	60000

/* A run of an earlier life of this node whose process still lives. */
struct orphan {
	int64_t		 o_id;
	pid_t		 o_pid;
	int64_t		 o_start;	/* ms, node clock */
	char		 o_job[CRON_IDLEN + 1];
	time_t		 o_fire;
	int		 o_attempt;
};

static int	 beat_failed;
static int64_t	 stcheck_last;	/* monotonic ms */
static int64_t	 beat_sent;	/* last renewal sent, monotonic ms */
static int64_t	 beat_ok_since;	/* renewing without a failure since */
static int64_t	 beat_tried;	/* last heartbeat tried, monotonic ms */
static int64_t	 beat_rtt;	/* ms */
static int64_t	 skew_ms;	/* node clock - store clock */
static int	 skew_bad;
static int	 drained;
static int	 fenced;
static int	*loads;		/* reported running jobs, as D.d_nodes */
static unsigned char *able;	/* may be preferred, as D.d_nodes */
static struct orphan *orphans;
static size_t	 norphans;

static int	 name_cmp(const void *, const void *);
static void	 nodes_clear(void);
static int	 beat_once(struct store *, struct store_error *);
static void	 beat_store_open(void);
static void	 skew_check(void);
static void	 drain_set(int);
static void	 fence_lift(void);
static int	 fence_due(int64_t);
static void	 nodes_take(struct store_node *, size_t, int64_t);
static void	 reap_dead(struct store *);
static void	 orphans_find(struct store *);
static void	 orphans_check(struct store *);
static int	 pid_alive(pid_t, int64_t);
static int	 busier(int, size_t);
static const char *job_owner_by_id(const char *);

struct node_load {
	char	*nl_name;
	int	 nl_load;
	int	 nl_able;
};

static int
name_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct node_load *)a)->nl_name,
	    ((const struct node_load *)b)->nl_name));
}

/* The heartbeat's own connection (MariaDB); failures are logged. */
static void
beat_store_open(void)
{
	struct store_config	 sc;
	struct store_error	 se;

	if (D.d_hb != NULL)
		return;
	memset(&sc, 0, sizeof(sc));
	sc.sc_url = D.d_conf.c_store;
	sc.sc_mysql_file = D.d_conf.c_mysql_file;
	sc.sc_mysql_group = D.d_conf.c_mysql_group;
	sc.sc_node = D.d_conf.c_node;
	sc.sc_idle_trx_timeout = store_idle_trx();
	if (store_open(&sc, &D.d_hb, &se) == -1 && !beat_failed)
		log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
}

/*
 * Start heartbeating (MariaDB), or record the start (SQLite); then look
 * for the runs an earlier life of this node left running.
 */
void
node_start(void)
{
	struct store_error	 se;

	if (D.d_st == NULL)
		return;
	timer_init(&D.d_beat_timer, node_beat, NULL);
	if (!D.d_mysql) {
		if (beat_once(D.d_st, &se) == -1)
			store_failed("recording the node", &se);
		orphans_find(D.d_st);
		/* No heartbeat to look again: what lives stays running. */
		free(orphans);
		orphans = NULL;
		norphans = 0;
		return;
	}
	beat_store_open();
	orphans_find(D.d_st);
	node_beat(&D.d_beat_timer);
}

/*
 * One heartbeat: record it with the running count and a clock offset,
 * and take back the store's clock, the skew and whether the node is
 * drained.  The renewal counts from the moment it was sent.  The node
 * clock passed in is the one expected at the store's reading of its
 * clock, half a round trip (the last one) after sending.
 */
static int
beat_once(struct store *st, struct store_error *se)
{
	int64_t	 m0, t0, store_ms;
	int	 draining;

	m0 = clock_mono();
	t0 = clock_now_ms();
	beat_tried = m0;
	if (store_heartbeat(st, t0 + beat_rtt / 2, (int)run_count(),
	    &store_ms, &draining, se) == -1) {
		beat_ok_since = 0;
		return (-1);
	}
	if (beat_ok_since == 0)
		beat_ok_since = m0;
	beat_rtt = clock_mono() - m0;
	/*
	 * A renewal this late follows a stop or a stall of the whole
	 * daemon: say so, as the other nodes may have declared it dead.
	 */
	if (D.d_mysql && beat_sent != 0 && m0 - beat_sent >=
	    D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms)
		log_warnx("(CRON) HEARTBEAT (renewed after %" PRId64 ".%"
		    PRId64 " s%s)", (m0 - beat_sent) / 1000,
		    (m0 - beat_sent) % 1000 / 100, m0 - beat_sent >=
		    D.d_conf.c_node_timeout_ms ? ", past node-timeout: "
		    "runs of this node may have been marked lost" : "");
	beat_sent = m0;
	skew_ms = t0 + beat_rtt / 2 - store_ms;
	if (D.d_mysql) {
		skew_check();
		drain_set(draining);
	}
	fence_lift();
	return (0);
}

static void
skew_check(void)
{
	int64_t	 a = skew_ms < 0 ? -skew_ms : skew_ms;
	int	 bad;

	bad = D.d_conf.c_max_skew_ms > 0 && a > D.d_conf.c_max_skew_ms;
	if (bad && !skew_bad)
		log_warnx("(CRON) SKEW (node clock %s the store by "
		    "%" PRId64 ".%" PRId64 " s: claiming nothing)",
		    skew_ms > 0 ? "ahead of" : "behind", a / 1000,
		    a % 1000 / 100);
	else if (!bad && skew_bad)
		log_info("(CRON) SKEW (node clock within %" PRId64 ".%"
		    PRId64 " s of the store: claiming again)", a / 1000,
		    a % 1000 / 100);
	skew_bad = bad;
}

static void
drain_set(int d)
{
	if (d && !drained)
		log_info("(CRON) DRAINED (claiming no cluster job; %zu "
		    "running)", run_count());
	else if (!d && drained)
		log_info("(CRON) RESUMED (claiming cluster jobs again)");
	drained = d;
}

static void
fence_lift(void)
{
	if (fenced)
		log_info("(CRON) FENCED (lifted)");
	fenced = 0;
}

/* Whether the last renewal is too old to start jobs on at mono `now'. */
static int
fence_due(int64_t now)
{
	return (beat_sent == 0 || now - beat_sent >=
	    D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms);
}

/*
 * The end of this node's lease, monotonic ms, or 0 on SQLite, where a
 * node has no lease.  A claim made now may be started up to then
 * (fire.c); a renewal after the claim does not extend that.
 */
int64_t
node_lease_until(void)
{
	if (!D.d_mysql)
		return (0);
	if (beat_sent == 0)
		return (1);
	return (beat_sent + D.d_conf.c_node_timeout_ms -
	    D.d_conf.c_heartbeat_ms);
}

enum node_claim
node_may_claim(void)
{
	struct store_error	 se;
	struct store		*st;
	int64_t			 now;

	if (!D.d_mysql)
		return (NC_OK);
	now = clock_mono();
	if (fence_due(now)) {
		/*
		 * One heartbeat first, at most once a heartbeat-interval:
		 * the node may only have slept, and a store that is away
		 * could make every try wait for its connection timeout.
		 */
		if (!D.d_stopping && (beat_tried == 0 ||
		    now - beat_tried >= D.d_conf.c_heartbeat_ms)) {
			beat_tried = now;
			beat_store_open();
		}
		st = D.d_hb != NULL ? D.d_hb : D.d_st;
		if (st != NULL && beat_tried == now &&
		    beat_once(st, &se) == 0) {
			if (beat_failed)
				log_info("(CRON) HEARTBEAT (back)");
			beat_failed = 0;
			if (!D.d_stopping)
				mtimer_set(&D.d_beat_timer, clock_mono() +
				    D.d_conf.c_heartbeat_ms);
		}
		now = clock_mono();
		if (fence_due(now)) {
			if (fenced)
				return (NC_FENCED);
			if (beat_sent == 0)
				log_warnx("(CRON) FENCED (no heartbeat yet; "
				    "starting no cluster job)");
			else
				log_warnx("(CRON) FENCED (no heartbeat for "
				    "%" PRId64 ".%" PRId64 " s; starting no "
				    "cluster job)", (now - beat_sent) / 1000,
				    (now - beat_sent) % 1000 / 100);
			fenced = 1;
			return (NC_FENCED);
		}
	}
	if (drained || skew_bad)
		return (NC_DRAINED);
	return (NC_OK);
}

/* One heartbeat, and the list of live nodes that comes with it. */
void
node_beat(struct mtimer *t)
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
	if (D.d_stopping && run_count() == 0)
		return;
	mtimer_set(&D.d_beat_timer,
	    D.d_mono_now + D.d_conf.c_heartbeat_ms);
	beat_store_open();
	st = D.d_hb != NULL ? D.d_hb : D.d_st;
	if (st == NULL)
		return;
	if (beat_once(st, &se) == -1 ||
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
	nodes_take(nodes, n, store_ms);
	store_nodes_free(nodes, n);
	if (D.d_stopping)
		return;
	reap_dead(st);
	orphans_check(D.d_st);
	/* The main connection may be back too: try it once. */
	if (D.d_store_down && D.d_st != NULL &&
	    store_now(D.d_st, &store_ms, &se) == 0)
		fire_store_ok();
	/* Other nodes' ctab may have changed the stored tables. */
	if (D.d_conf.c_store_tables && D.d_conf.c_store_check_ms > 0 &&
	    D.d_mono_now - stcheck_last >= D.d_conf.c_store_check_ms) {
		stcheck_last = D.d_mono_now;
		tables_check_store();
	}
}

/*
 * The live nodes: heard from within node-timeout by the store's clock,
 * draining ones included, as their runs still run.  Kept sorted by
 * name, with the running counts they reported and whether they may be
 * preferred claimants: active, and with a clock within max-clock-skew
 * of the store's by their last heartbeat (a node beyond it claims
 * nothing, and the others would wait for it in vain).
 */
static void
nodes_take(struct store_node *nodes, size_t n, int64_t store_ms)
{
	struct node_load	*nl;
	size_t			 i, k = 0;
	char			 buf[512], one[128];

	nodes_clear();
	nl = xcalloc(n + 1, sizeof(*nl));
	for (i = 0; i < n; i++) {
		if (nodes[i].n_beat < store_ms - D.d_conf.c_node_timeout_ms)
			continue;
		nl[k].nl_name = nodes[i].n_name;
		nl[k].nl_load = nodes[i].n_running;
		nl[k].nl_able = nodes[i].n_state == NODE_ACTIVE &&
		    (D.d_conf.c_max_skew_ms == 0 ||
		    (nodes[i].n_skew <= D.d_conf.c_max_skew_ms &&
		    nodes[i].n_skew >= -D.d_conf.c_max_skew_ms));
		k++;
	}
	qsort(nl, k, sizeof(*nl), name_cmp);
	D.d_nodes = xcalloc(k + 1, sizeof(*D.d_nodes));
	loads = xcalloc(k + 1, sizeof(*loads));
	able = xcalloc(k + 1, sizeof(*able));
	for (i = 0; i < k; i++) {
		D.d_nodes[i] = xstrdup(nl[i].nl_name);
		loads[i] = nl[i].nl_load;
		able[i] = nl[i].nl_able;
	}
	D.d_nnodes = k;
	free(nl);
	if (D.d_debug) {
		buf[0] = '\0';
		for (i = 0; i < k; i++) {
			snprintf(one, sizeof(one), "%s%s %d%s",
			    i > 0 ? ", " : "", D.d_nodes[i], loads[i],
			    able[i] ? "" : " (not claiming)");
			strlcat(buf, one, sizeof(buf));
		}
		log_debug("(CRON) NODES (%s; running here %zu)", buf,
		    run_count());
	}
}

/*
 * Mark lost the runs of dead nodes, one node at a time (the lease
 * "reaper", held for node-timeout).
 */
static void
reap_dead(struct store *st)
{
	struct store_run	*lost = NULL;
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
	if (beat_ok_since == 0 || clock_mono() - beat_ok_since <
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
	if (store_runs_mark_lost(st, D.d_conf.c_node_timeout_ms, &lost, &n,
	    &se) == -1) {
		log_warnx("(CRON) HEARTBEAT (marking lost runs: %s)",
		    se.se_msg);
		return;
	}
	for (i = 0; i < n; i++) {
		fire_log(LOG_INFO, job_owner_by_id(lost[i].r_job), "LOST",
		    lost[i].r_node, lost[i].r_fire, id_label(lost[i].r_job,
		    label, sizeof(label)), "attempt %d, node dead",
		    lost[i].r_attempt);
		metrics_runs_lost(lost[i].r_node, 1);
		/* The job may ask for one more attempt (fire.c decides). */
		fire_rerun(lost[i].r_job, lost[i].r_fire, lost[i].r_attempt);
	}
	store_runs_free(lost, n);
}

/*
 * Whether pid is a process that may be the run started at start_ms (node
 * clock): it exists and, as far as /proc tells, did not start later
 * than the run (a pid used again by another process).
 */
static int
pid_alive(pid_t pid, int64_t start_ms)
{
	FILE		*fp;
	char		 path[64], buf[1024], *p;
	unsigned long long ticks, btime = 0;
	long		 hz;
	int64_t		 started;
	int		 i;

	if (pid <= 0)
		return (0);
	if (kill(pid, 0) == -1 && errno != EPERM)
		return (0);
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return (1);
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	/* After the command, in parentheses, field 22 is the start. */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return (1);
	/* A zombie its new parent has not reaped yet is gone already. */
	if (p[1] == ' ' && p[2] == 'Z')
		return (0);
	for (i = 2; i < 22 && p != NULL; i++)
		if ((p = strchr(p + 1, ' ')) == NULL)
			return (1);
	if (sscanf(p, " %llu", &ticks) != 1)
		return (1);
	if ((fp = fopen("/proc/stat", "r")) == NULL)
		return (1);
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(fp);
	if (btime == 0 || (hz = sysconf(_SC_CLK_TCK)) <= 0)
		return (1);
	started = (int64_t)btime * 1000 + (int64_t)(ticks * 1000 / hz);
	return (started <= start_ms + PID_REUSE_MS);
}

/*
 * The runs this node left running in an earlier life: those whose
 * process is gone are marked lost now, the others kept in orphans[].
 * Runs of this life (the misfire pass may have started some) are left
 * alone.
 */
static void
orphans_find(struct store *st)
{
	struct store_run	*runs = NULL;
	struct store_error	 se;
	struct fire		*f;
	size_t			 i, n = 0;
	int			 mine;

	if (st == NULL)
		return;
	/*
	 * Claims of an earlier life that no record follows (it died
	 * between a claim and the record of the start) become runs, to be
	 * marked lost here with the others.  This life has claimed
	 * nothing yet.
	 */
	if (store_claims_unrun(st, (time_t)(D.d_now / 1000) - UNRUN_BACK,
	    &n, &se) == -1)
		store_failed("reading this node's claims", &se);
	else if (n > 0)
		log_info("(CRON) INFO (%zu claims of an earlier life of %s "
		    "without a record)", n, D.d_conf.c_node);
	if (store_runs_running(st, D.d_conf.c_node, &runs, &n, &se) == -1) {
		store_failed("reading this node's runs", &se);
		return;
	}
	free(orphans);
	orphans = xcalloc(n + 1, sizeof(*orphans));
	norphans = 0;
	for (i = 0; i < n; i++) {
		mine = 0;
		LIST_FOREACH(f, &D.d_fires, f_entry)
			if ((f->f_runid != 0 && f->f_runid == runs[i].r_id) ||
			    (strcmp(f->f_id, runs[i].r_job) == 0 &&
			    f->f_instant == runs[i].r_fire))
				mine = 1;
		if (mine)
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
		if (pid_alive(o->o_pid, o->o_start)) {
			orphans[k++] = *o;
			continue;
		}
		if (store_run_lost(st, o->o_id, &marked, &se) == -1) {
			store_failed("marking a run lost", &se);
			orphans[k++] = *o;
			continue;
		}
		if (!marked)
			continue;
		fire_log(LOG_INFO, job_owner_by_id(o->o_job), "LOST",
		    D.d_conf.c_node, o->o_fire, id_label(o->o_job, label,
		    sizeof(label)), "attempt %d, its end is unknown",
		    o->o_attempt);
		metrics_runs_lost(D.d_conf.c_node, 1);
	}
	norphans = k;
}

/*
 * The job of identity id (hex) in this node's tables, or NULL: a
 * binary search in each table, whose jobs are sorted by identity.
 */
struct job *
job_find(const char *id)
{
	struct table	*tb;
	size_t		 lo, hi, k;
	int		 c;
	char		 buf[CRON_IDLEN + 1];

	RB_FOREACH(tb, tables, &D.d_tables) {
		for (lo = 0, hi = tb->tb_njobs; lo < hi; ) {
			k = lo + (hi - lo) / 2;
			c = strcmp(table_job_id(tb, k, buf), id);
			if (c == 0)
				return (&tb->tb_jobs[k]);
			if (c < 0)
				lo = k + 1;
			else
				hi = k;
		}
	}
	return (NULL);
}

const char *
id_label(const char *id, char *buf, size_t len)
{
	struct job	*j;

	if ((j = job_find(id)) != NULL)
		return (job_label(j, buf, len));
	strlcpy(buf, id, len);
	return (buf);
}

/* The owner of job id as logged: CRON when this node does not know it. */
static const char *
job_owner_by_id(const char *id)
{
	struct job	*j;

	return ((j = job_find(id)) != NULL ? job_owner(j) : "CRON");
}

/*
 * Whether a node running load jobs is noticeably busier than the
 * others that may claim (loads[skip] left out): more than twice their
 * mean plus SPREAD_SLACK.  The counts are samples taken at each node's
 * heartbeat, at different moments: a node that happened to beat while
 * a burst ran reports more than one that beat between bursts, though
 * both work as much, and with bursts that outlast their period a node
 * may report one burst or two.  A bar this high keeps such nodes in
 * the ranking and still leaves out one that carries a load of its own.
 */
static int
busier(int load, size_t skip)
{
	int64_t	 sum = 0, n = 0;
	size_t	 i;

	for (i = 0; i < D.d_nnodes; i++) {
		if (i == skip || !able[i])
			continue;
		sum += loads[i];
		n++;
	}
	if (n == 0)
		return (0);
	return ((int64_t)load * n > 2 * sum + SPREAD_SLACK * n);
}

/*
 * Whether this node is the preferred claimant of the fire: always when
 * it knows no other live node, is not among them yet or no node may be
 * preferred.  The ranking leaves out the nodes that claim nothing
 * (draining, clock skewed) and the busier nodes by their reported
 * counts, which every node reads alike; this node also gives up its
 * turn when it is busier by its count now.
 */
int
node_preferred(const char *id, time_t fire)
{
	uint64_t	 h = 1469598103934665603ULL;
	size_t		 i, ncand = 0, pick, me = SIZE_MAX;
	int		 spread = D.d_conf.c_load_spreading;

	if (D.d_nnodes < 2)
		return (1);
	for (i = 0; i < D.d_nnodes; i++) {
		if (strcmp(D.d_nodes[i], D.d_conf.c_node) == 0)
			me = i;
		if (able[i] && (!spread || !busier(loads[i], i)))
			ncand++;
	}
	/* Nobody to wait for. */
	if (me == SIZE_MAX || ncand == 0)
		return (1);
	if (spread && busier((int)run_count(), me))
		return (0);
	for (; *id != '\0'; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ULL;
	for (i = 0; i < 8; i++)
		h = (h ^ (((uint64_t)fire >> (i * 8)) & 0xff)) *
		    1099511628211ULL;
	/*
	 * FNV-1a's low bits are poor: its lowest is the parity of the
	 * bytes, so with two nodes a job's fires would all go to one node
	 * for minutes.  Mix the high bits down (MurmurHash3's finaliser).
	 */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	pick = (size_t)(h % ncand);
	for (i = 0; i < D.d_nnodes; i++) {
		if (!able[i] || (spread && busier(loads[i], i)))
			continue;
		if (pick-- == 0)
			return (i == me);
	}
	return (0);
}

static void
nodes_clear(void)
{
	size_t	 i;

	for (i = 0; i < D.d_nnodes; i++)
		free(D.d_nodes[i]);
	free(D.d_nodes);
	free(loads);
	free(able);
	D.d_nodes = NULL;
	loads = NULL;
	able = NULL;
	D.d_nnodes = 0;
}

void
node_free(void)
{
	nodes_clear();
	free(orphans);
	orphans = NULL;
	norphans = 0;
}
