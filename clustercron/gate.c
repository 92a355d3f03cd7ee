/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * gate.c: the one answer to "may this node claim a cluster fire now?",
 * and the state that answer rests on.  Near the bottom of the daemon's
 * chain (daemon.h): it calls nothing of the daemon but the log.
 *
 * The state, each part written here and only here, by the functions
 * named after the event that changes it:
 *
 *  - the store's health: down after a call failed (gate_store_failed()),
 *    up again once one succeeds (gate_store_ok());
 *  - the misfire pass owed: every outage, a fire slept through, a node
 *    that could not claim leaves fires that only the pass settles
 *    (gate_owe()); the pass clears it when it starts (gate_pass());
 *  - this node's lease: the last heartbeat that renewed it, sent at a
 *    monotonic instant (gate_beat()), from which the fence is measured;
 *  - drained, and a clock too far from the store's (gate_drain(),
 *    gate_skew()), both of which leave the claims to the other nodes;
 *  - the live nodes and their loads, for the preferred claimant
 *    (gate_nodes()).
 *
 * The answers are pure functions of that state and the instant asked
 * about: gate_verdict(), gate_lease_until(), gate_rank().  They
 * open no connection, log nothing and arm no timer; what to do about
 * the answer (a heartbeat at once, a line in the log) is the caller's.
 *
 * Why the fence.  A heartbeat renews a lease that runs from the moment
 * the heartbeat was sent; the other nodes cannot declare this node dead
 * before node-timeout after the store stamped that renewal, which is
 * never earlier than its sending.  So a node that stops claiming and
 * starting once node-timeout minus heartbeat-interval has passed since
 * it sent its last renewal stops at least one heartbeat-interval before
 * anyone may take its work over, whatever the two clocks say: only the
 * monotonic clock measures the lease here, only the store's there.
 * SQLite has one node and no lease.
 *
 * The preferred claimant.  When every node tries every fire at once,
 * each fire costs the store one contended write per node.  Instead the
 * live nodes, sorted by name, are ranked for each fire by a hash of the
 * job's identity and the instant; the node it picks claims at the
 * instant and the others only claim-defer later, when the preferred
 * node has normally won already.  With load-spreading, the nodes that
 * run noticeably more jobs than the least busy one (by the counts the
 * nodes reported at their heartbeats, the same for every node) are left
 * out of the ranking, and a node that finds itself busier by its own
 * current count does not take its turn either.  Correctness does not
 * depend on any of it: the claim alone decides.
 */

#include <sys/types.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/* Running jobs beyond twice the others' mean that make a node busier. */
#define SPREAD_SLACK	2

static struct gate	 G;

static int	 busier(const struct gate *, int, size_t);
static int	 candidate(const struct gate *, size_t);
static size_t	 fire_pick(const char *, time_t, size_t);
static int	 load_cmp(const void *, const void *);
static void	 nodes_clear(struct gate *);

/*
 * A store call failed.  The node runs no cluster job until a call
 * succeeds again; that is logged once per outage, not at every fire.
 * Every outage owes a misfire pass when it ends.  A conflict is no
 * outage: it is logged and the store stays up.
 */
void
gate_store_failed(const char *what, const struct store_error *se)
{
	if (se->se_class == STORE_CONFLICT) {
		/* The store answered; someone else's row was in the way. */
		log_warnx("(CRON) STORE (%s: %s)", what, se->se_msg);
		return;
	}
	if (!G.g_down)
		log_warnx("(CRON) STORE DOWN (%s: %s; running no cluster job)",
		    what, se->se_msg);
	G.g_down = 1;
	G.g_owed = 1;
}

/* The store could not be opened at all (msg says why). */
void
gate_store_unopened(const char *msg)
{
	if (!G.g_down)
		log_warnx("(CRON) STORE DOWN (%s; running no cluster job)",
		    msg);
	G.g_down = 1;
	G.g_owed = 1;
}

/* The store was opened (again), backend its name. */
void
gate_store_opened(const char *backend)
{
	if (G.g_down)
		log_info("(CRON) STORE BACK (%s)", backend);
	G.g_down = 0;
}

/*
 * A store call succeeded: an outage ends, and the misfire pass it owes
 * is due at once (gate_kicked()).
 */
void
gate_store_ok(void)
{
	if (G.g_down) {
		log_info("(CRON) STORE BACK (cluster jobs resume)");
		G.g_down = 0;
	}
	if (G.g_owed && !D.d_stopping)
		G.g_kick = 1;
}

/*
 * The misfire pass is owed; with now set, it is due at once (fires were
 * slept through), otherwise at the next claim or store answer.
 */
void
gate_owe(int now)
{
	G.g_owed = 1;
	if (now && !D.d_stopping)
		G.g_kick = 1;
}

/* The misfire pass starts: what it cannot settle it owes again. */
void
gate_pass(void)
{
	G.g_owed = 0;
	G.g_kick = 0;
}

/* Whether the misfire pass is due at once; the answer is taken. */
int
gate_kicked(void)
{
	int	 k = G.g_kick && !D.d_stopping;

	G.g_kick = 0;
	return (k);
}

/* Whether gate_kicked() would say yes, without taking it. */
int
gate_kick_pending(void)
{
	return (G.g_kick && !D.d_stopping);
}

/*
 * A heartbeat renewed the lease; it was sent at the monotonic instant
 * sent and its answer came at answered.  A fence said before is lifted.
 *
 * The renewals make a chain while each is answered before the lease it
 * renews has run out: the store stamped it then at the latest, and no
 * stamp of a renewal is earlier than its sending, so the store never
 * saw this node silent for node-timeout, and no node could take it for
 * dead, since the first renewal of the chain.  g_chain is when that one
 * was sent (gate_renewed()).
 */
void
gate_beat(int64_t sent, int64_t answered)
{
	if (G.g_beat == 0 || G.g_chain == 0 ||
	    answered >= gate_lease_until(&G))
		G.g_chain = sent;
	G.g_beat = sent;
	if (G.g_fenced)
		log_info("(CRON) FENCED (lifted)");
	G.g_fenced = 0;
}

/* When the lease was last renewed, monotonic ms; 0: never. */
int64_t
gate_beat_sent(void)
{
	return (G.g_beat);
}

/* The store says whether this node is drained; running: jobs here. */
void
gate_drain(int drained, size_t running)
{
	if (drained && !G.g_drained)
		log_info("(CRON) DRAINED (claiming no cluster job; %zu "
		    "running)", running);
	else if (!drained && G.g_drained)
		log_info("(CRON) RESUMED (claiming cluster jobs again)");
	G.g_drained = drained;
}

/* The node's clock is skew ms ahead of the store's (behind: negative). */
void
gate_skew(int64_t skew)
{
	int64_t	 a = skew < 0 ? -skew : skew;
	int	 bad;

	bad = D.d_conf.c_max_skew_ms > 0 && a > D.d_conf.c_max_skew_ms;
	if (bad && !G.g_skewed)
		log_warnx("(CRON) SKEW (node clock %s the store by "
		    "%" PRId64 ".%" PRId64 " s: claiming nothing)",
		    skew > 0 ? "ahead of" : "behind", a / 1000,
		    a % 1000 / 100);
	else if (!bad && G.g_skewed)
		log_info("(CRON) SKEW (node clock within %" PRId64 ".%"
		    PRId64 " s of the store: claiming again)", a / 1000,
		    a % 1000 / 100);
	G.g_skewed = bad;
}

static int
load_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct gate_node *)a)->gn_name,
	    ((const struct gate_node *)b)->gn_name));
}

static void
nodes_clear(struct gate *g)
{
	size_t	 i;

	for (i = 0; i < g->g_nnodes; i++)
		free(g->g_nodes[i].gn_name);
	free(g->g_nodes);
	g->g_nodes = NULL;
	g->g_nnodes = 0;
}

/*
 * The nodes the store knows, at its clock store_ms.  The live ones:
 * heard from within node-timeout by the store's clock, draining ones
 * included, as their runs still run.  Kept sorted by name, with the
 * running counts they reported and whether they may be preferred
 * claimants: active, and with a clock within max-clock-skew of the
 * store's by their last heartbeat (a node beyond it claims nothing, and
 * the others would wait for it in vain).  running: jobs here, for the
 * debug line.
 */
void
gate_nodes(const struct store_node *nodes, size_t n, int64_t store_ms,
    size_t running)
{
	struct gate_node	*gn;
	size_t			 i, k = 0;
	char			 buf[512], one[128];

	nodes_clear(&G);
	gn = xcalloc(n + 1, sizeof(*gn));
	for (i = 0; i < n; i++) {
		if (nodes[i].n_beat < store_ms - D.d_conf.c_node_timeout_ms)
			continue;
		gn[k].gn_name = xstrdup(nodes[i].n_name);
		gn[k].gn_load = nodes[i].n_running;
		gn[k].gn_able = nodes[i].n_state == NODE_ACTIVE &&
		    (D.d_conf.c_max_skew_ms == 0 ||
		    (nodes[i].n_skew <= D.d_conf.c_max_skew_ms &&
		    nodes[i].n_skew >= -D.d_conf.c_max_skew_ms));
		gn[k].gn_age = store_ms - nodes[i].n_beat;
		gn[k].gn_wall = nodes[i].n_beat + nodes[i].n_skew;
		gn[k].gn_cover = nodes[i].n_cover;
		k++;
	}
	qsort(gn, k, sizeof(*gn), load_cmp);
	G.g_nodes = gn;
	G.g_nnodes = k;
	G.g_gen++;
	/* The candidates, as every node with the same list ranks them. */
	G.g_view = FNV64_INIT;
	for (i = 0; i < k; i++)
		if (candidate(&G, i))
			G.g_view = fnv64(G.g_view, gn[i].gn_name,
			    strlen(gn[i].gn_name) + 1);
	if (D.d_debug) {
		buf[0] = '\0';
		for (i = 0; i < k; i++) {
			snprintf(one, sizeof(one), "%s%s %d%s",
			    i > 0 ? ", " : "", gn[i].gn_name, gn[i].gn_load,
			    gn[i].gn_able ? "" : " (not claiming)");
			strlcat(buf, one, sizeof(buf));
		}
		log_debug("(CRON) NODES (%s; running here %zu)", buf,
		    running);
	}
}

/*
 * The verdict says FENCED: say so in the log, once until a heartbeat
 * lifts it.
 */
void
gate_fenced(int64_t now)
{
	if (G.g_fenced)
		return;
	if (G.g_beat == 0)
		log_warnx("(CRON) FENCED (no heartbeat yet; starting no "
		    "cluster job)");
	else
		log_warnx("(CRON) FENCED (no heartbeat for %" PRId64 ".%"
		    PRId64 " s; starting no cluster job)", (now - G.g_beat) /
		    1000, (now - G.g_beat) % 1000 / 100);
	G.g_fenced = 1;
}

/* The state itself, read-only: for gate_verdict() and its tests. */
const struct gate *
gate_state(void)
{
	return (&G);
}

/* Whether the store is usable for cluster jobs. */
int
gate_store_up(void)
{
	return (D.d_st != NULL && !G.g_down);
}

/* Whether the misfire pass is owed. */
int
gate_owed(void)
{
	return (G.g_owed);
}

/*
 * Whether the lease renewed at beat (0: never) is too old, at the
 * monotonic instant now, to claim or start on: MariaDB only.
 */
int
gate_fence_due(const struct gate *g, int64_t now)
{
	if (!D.d_mysql)
		return (0);
	return (g->g_beat == 0 || now - g->g_beat >=
	    D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms);
}

/*
 * May this node claim cluster fires at the monotonic instant now?  In
 * this order, as each answer asks something different of the caller:
 *
 *	GATE_STOPPING	the daemon stops: nothing is claimed, nothing
 *			kept;
 *	GATE_FENCED	the lease ran out: claim nothing, start nothing;
 *			keep the fires and settle them once the node may
 *			(as with the store down); a heartbeat at once
 *			may lift it;
 *	GATE_DRAINED	drained, or the clock too far from the store's:
 *			the other nodes claim; the misfire pass is owed
 *			should none of them;
 *	GATE_DOWN	no store connection at all: keep the fires;
 *	GATE_RECOVER	the misfire pass is owed: it comes before any new
 *			claim (a claim moves a job's last fire past the
 *			fires missed meanwhile, which could then be
 *			neither claimed nor noted);
 *	GATE_CLAIM	claim.
 */
enum gate_verdict
gate_verdict(const struct gate *g, int64_t now)
{
	if (D.d_stopping)
		return (GATE_STOPPING);
	if (gate_fence_due(g, now))
		return (GATE_FENCED);
	if (g->g_drained || g->g_skewed)
		return (GATE_DRAINED);
	if (D.d_st == NULL)
		return (GATE_DOWN);
	if (g->g_owed)
		return (GATE_RECOVER);
	return (GATE_CLAIM);
}

/* The verdict of this node's gate at the monotonic instant now. */
enum gate_verdict
gate_check(int64_t now)
{
	return (gate_verdict(&G, now));
}

/*
 * The end of this node's lease, monotonic ms, as of its last renewal;
 * 0 when it has none (SQLite), 1 (long past) before the first.  A
 * claim made now may be started up to then; a renewal after the claim
 * does not extend that.
 */
int64_t
gate_lease_until(const struct gate *g)
{
	if (!D.d_mysql)
		return (0);
	if (g->g_beat == 0)
		return (1);
	return (g->g_beat + D.d_conf.c_node_timeout_ms -
	    D.d_conf.c_heartbeat_ms);
}

/*
 * Whether the lease renewed by the heartbeat sent at beat has been
 * renewed without a break since (gate_beat()): then nobody can have
 * taken this node for dead meanwhile, and a claim made under that lease
 * may still be started under the current one, as long as that one has
 * not run out either (gate_fence_due()).
 */
int
gate_renewed(const struct gate *g, int64_t beat)
{
	return (beat != 0 && g->g_chain != 0 && g->g_chain <= beat &&
	    g->g_beat >= beat);
}

/*
 * Whether a node running load jobs is noticeably busier than the
 * others that may claim (node skip left out): more than twice their
 * mean plus SPREAD_SLACK.  The counts are samples taken at each node's
 * heartbeat, at different moments: a node that happened to beat while
 * a burst ran reports more than one that beat between bursts, though
 * both work as much, and with bursts that outlast their period a node
 * may report one burst or two.  A bar this high keeps such nodes in
 * the ranking and still leaves out one that carries a load of its own.
 */
static int
busier(const struct gate *g, int load, size_t skip)
{
	int64_t	 sum = 0, n = 0;
	size_t	 i;

	for (i = 0; i < g->g_nnodes; i++) {
		if (i == skip || !g->g_nodes[i].gn_able)
			continue;
		sum += g->g_nodes[i].gn_load;
		n++;
	}
	if (n == 0)
		return (0);
	return ((int64_t)load * n > 2 * sum + SPREAD_SLACK * n);
}

/*
 * This node's rank among the claimants of the fire (id, fire), running
 * jobs here now: 0 for the preferred claimant, 1 for the next, and so
 * on; the number of candidates when this node is not one of them.  0
 * when it knows no other live node, is not among them yet or no node
 * may be preferred.  The ranking leaves out the nodes that claim
 * nothing (draining, clock skewed) and the busier nodes by their
 * reported counts, which every node reads alike; this node also gives
 * up its turn when it is busier by its count now.  The preferred
 * claimant is picked by a hash of the fire, and the others follow it
 * in the order of their names, wrapping round.
 */
size_t
gate_rank(const struct gate *g, const char *id, time_t fire, size_t running)
{
	const struct gate_node	*gn = g->g_nodes;
	size_t			 i, ncand = 0, pick, me = SIZE_MAX, mine = 0;
	int			 spread = D.d_conf.c_load_spreading;

	if (g->g_nnodes < 2)
		return (0);
	for (i = 0; i < g->g_nnodes; i++) {
		if (strcmp(gn[i].gn_name, D.d_conf.c_node) == 0)
			me = i;
		if (candidate(g, i))
			ncand++;
	}
	/* Nobody to wait for. */
	if (me == SIZE_MAX || ncand == 0)
		return (0);
	if (spread && busier(g, (int)running, me))
		return (ncand);
	if (!candidate(g, me))
		return (ncand);
	pick = fire_pick(id, fire, ncand);
	/* This node's place among the candidates. */
	for (i = 0; i < me; i++)
		if (candidate(g, i))
			mine++;
	return ((mine + ncand - pick) % ncand);
}

/*
 * The preferred claimant of the fire by the reported counts alone (no
 * node's count now): its index in g_nodes, or SIZE_MAX when there is
 * none (fewer than two live nodes, or no candidate).
 */
size_t
gate_pick(const struct gate *g, const char *id, time_t fire)
{
	size_t	 i, ncand = 0, pick;

	if (g->g_nnodes < 2)
		return (SIZE_MAX);
	for (i = 0; i < g->g_nnodes; i++)
		if (candidate(g, i))
			ncand++;
	if (ncand == 0)
		return (SIZE_MAX);
	pick = fire_pick(id, fire, ncand);
	for (i = 0; i < g->g_nnodes; i++)
		if (candidate(g, i) && pick-- == 0)
			return (i);
	return (SIZE_MAX);
}

/* This node's index in the live nodes, or SIZE_MAX. */
size_t
gate_self(void)
{
	size_t	 i;

	for (i = 0; i < G.g_nnodes; i++)
		if (strcmp(G.g_nodes[i].gn_name, D.d_conf.c_node) == 0)
			return (i);
	return (SIZE_MAX);
}

/* Whether node i may be a preferred claimant by the reported counts. */
static int
candidate(const struct gate *g, size_t i)
{
	return (g->g_nodes[i].gn_able && (!D.d_conf.c_load_spreading ||
	    !busier(g, g->g_nodes[i].gn_load, i)));
}

/* Which of ncand candidates, in name order, is the fire's first. */
static size_t
fire_pick(const char *id, time_t fire, size_t ncand)
{
	uint64_t	 h;
	unsigned char	 b[8];
	size_t		 i;

	/* The instant's bytes least significant first, on every machine. */
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)fire >> (i * 8));
	h = fnv64(fnv64(FNV64_INIT, id, strlen(id)), b, sizeof(b));
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
	return ((size_t)(h % ncand));
}

/* Whether this node is the preferred claimant of the fire: rank 0. */
int
gate_preferred(const struct gate *g, const char *id, time_t fire,
    size_t running)
{
	return (gate_rank(g, id, fire, running) == 0);
}

void
gate_free(void)
{
	nodes_clear(&G);
	memset(&G, 0, sizeof(G));
}
