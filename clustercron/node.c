/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * node.c: this node in the cluster.  On MariaDB the node heartbeats
 * every heartbeat-interval on a store connection of its own, so that
 * job work never delays it, and learns from the same turn which nodes
 * are alive; every store-tables-interval the same turn reads the tables
 * ctab stored, which any node may have changed.  On SQLite there is one
 * node: it records its start and then stays quiet, so that an idle
 * daemon never wakes up.
 *
 * The preferred claimant.  When every node tries every fire at once,
 * each fire costs the store one contended write per node.  Instead the
 * live nodes, sorted by name, are ranked for each fire by a hash of the
 * job's identity and the instant; the node it picks claims at the
 * instant and the others only claim_defer later, when the preferred
 * node has normally won already.  Their later claims then find the row
 * taken without waiting on its lock, and a preferred node that died
 * costs a fire no more than the deferral.  Correctness does not depend
 * on it: the claim alone decides.
 */

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

#define LIVE_BEATS	3	/* beats missed before a node is dead */

static int	 beat_failed;
static int64_t	 stcheck_last;	/* monotonic ms */

static int	 name_cmp(const void *, const void *);

static int
name_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Start heartbeating (MariaDB), or record the start (SQLite). */
void
node_start(void)
{
	struct store_config	 sc;
	struct store_error	 se;
	int64_t			 store_ms;
	int			 draining;

	if (D.d_st == NULL)
		return;
	timer_init(&D.d_beat_timer, node_beat, NULL);
	if (!D.d_mysql) {
		if (store_heartbeat(D.d_st, clock_now_ms(), 0, &store_ms,
		    &draining, &se) == -1)
			store_failed("recording the node", &se);
		return;
	}
	if (D.d_hb == NULL) {
		memset(&sc, 0, sizeof(sc));
		sc.sc_url = D.d_conf.c_store;
		sc.sc_mysql_file = D.d_conf.c_mysql_file;
		sc.sc_mysql_group = D.d_conf.c_mysql_group;
		sc.sc_node = D.d_conf.c_node;
		if (store_open(&sc, &D.d_hb, &se) == -1)
			log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
	}
	node_beat(&D.d_beat_timer);
}

/* One heartbeat, and the list of live nodes that comes with it. */
void
node_beat(struct mtimer *t)
{
	struct store_node	*nodes = NULL;
	struct store_error	 se;
	struct store		*st;
	int64_t			 store_ms, now;
	size_t			 i, n = 0;
	int			 draining;

	if (D.d_stopping)
		return;
	mtimer_set(&D.d_beat_timer,
	    D.d_mono_now + D.d_conf.c_heartbeat_ms);
	st = D.d_hb != NULL ? D.d_hb : D.d_st;
	if (st == NULL)
		return;
	now = clock_now_ms();
	if (store_heartbeat(st, now, (int)run_count(), &store_ms, &draining,
	    &se) == -1 || store_nodes_list(st, &nodes, &n, &se) == -1) {
		if (!beat_failed)
			log_warnx("(CRON) HEARTBEAT (%s)", se.se_msg);
		beat_failed = 1;
		return;
	}
	if (beat_failed)
		log_info("(CRON) HEARTBEAT (back)");
	beat_failed = 0;
	for (i = 0; i < D.d_nnodes; i++)
		free(D.d_nodes[i]);
	free(D.d_nodes);
	D.d_nodes = xcalloc(n + 1, sizeof(*D.d_nodes));
	D.d_nnodes = 0;
	for (i = 0; i < n; i++) {
		if (nodes[i].n_state != NODE_ACTIVE ||
		    nodes[i].n_beat < store_ms - LIVE_BEATS *
		    D.d_conf.c_heartbeat_ms)
			continue;
		D.d_nodes[D.d_nnodes++] = xstrdup(nodes[i].n_name);
	}
	store_nodes_free(nodes, n);
	qsort(D.d_nodes, D.d_nnodes, sizeof(*D.d_nodes), name_cmp);
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
 * Whether this node is the preferred claimant of the fire: always when
 * it knows no other live node or is not among them yet.
 */
int
node_preferred(const char *id, time_t fire)
{
	uint64_t	 h = 1469598103934665603ULL;
	size_t		 i;
	int		 me = 0;

	if (D.d_nnodes < 2)
		return (1);
	for (i = 0; i < D.d_nnodes; i++)
		if (strcmp(D.d_nodes[i], D.d_conf.c_node) == 0)
			me = 1;
	if (!me)
		return (1);
	for (; *id != '\0'; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ULL;
	for (i = 0; i < 8; i++)
		h = (h ^ (((uint64_t)fire >> (i * 8)) & 0xff)) *
		    1099511628211ULL;
	return (strcmp(D.d_nodes[h % D.d_nnodes], D.d_conf.c_node) == 0);
}

void
node_free(void)
{
	size_t	 i;

	for (i = 0; i < D.d_nnodes; i++)
		free(D.d_nodes[i]);
	free(D.d_nodes);
	D.d_nodes = NULL;
	D.d_nnodes = 0;
}
