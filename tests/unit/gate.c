/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * gate.c: unit tests of clustercron/gate.c, the one answer to "may this
 * node claim now?".  The verdict in every state, in its order of
 * precedence; the fence at the lease's edge, to the millisecond, and
 * lifted by a renewal; the store's health and the misfire pass it owes
 * (when the pass is due at once, when only owed); the preferred
 * claimant: every fire has exactly one among the nodes that may claim,
 * spread over them, and a busy node stands aside.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "store.h"
#include "../tap.h"

/* The program's settings: this test's. */
struct daemon	 D;

/* A store handle that is never used, only not NULL. */
static struct store	*fake_store = (struct store *)&D;

static void
settings(void)
{
	memset(&D, 0, sizeof(D));
	D.d_conf.c_node = (char *)"n2";
	D.d_conf.c_heartbeat_ms = 1000;
	D.d_conf.c_node_timeout_ms = 5000;
	D.d_conf.c_max_skew_ms = 2000;
	D.d_st = fake_store;
	D.d_mysql = 1;
}

static void
test_verdict(void)
{
	struct store_error	 se;
	int64_t			 sent = 100000, edge;

	settings();
	gate_free();
	is_int(gate_check(sent), GATE_FENCED, "no heartbeat yet: fenced");
	is_int(gate_lease_until(gate_state()), 1, "no lease yet: long past");
	gate_beat(sent, sent);
	edge = sent + D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms;
	is_int(gate_lease_until(gate_state()), edge,
	    "the lease ends node-timeout less heartbeat-interval after the "
	    "renewal was sent");
	is_int(gate_check(edge - 1), GATE_CLAIM, "a millisecond before the "
	    "lease's end: claim");
	is_int(gate_check(edge), GATE_FENCED, "at its end: fenced");
	gate_fenced(edge);
	gate_beat(edge + 10, edge + 10);
	is_int(gate_check(edge + 10), GATE_CLAIM, "renewed: claim again");

	/* SQLite: one node, no lease. */
	D.d_mysql = 0;
	gate_free();
	is_int(gate_check(10), GATE_CLAIM, "SQLite: no lease to run out");
	is_int(gate_lease_until(gate_state()), 0, "nor an end to it");
	D.d_mysql = 1;
	gate_beat(sent, sent);

	/* Drain and skew leave the claims to the others. */
	gate_drain(1, 0);
	is_int(gate_check(sent), GATE_DRAINED, "drained");
	gate_drain(0, 0);
	gate_skew(-2500);
	is_int(gate_check(sent), GATE_DRAINED, "clock 2.5 s behind, 2 s "
	    "allowed: claims nothing");
	gate_skew(1999);
	is_int(gate_check(sent), GATE_CLAIM, "within the skew allowed");

	/* The store's health and the pass it owes. */
	memset(&se, 0, sizeof(se));
	se.se_class = STORE_CONFLICT;
	strlcpy(se.se_msg, "someone's row", sizeof(se.se_msg));
	gate_store_failed("testing", &se);
	ok(gate_store_up() && !gate_owed(), "a conflict is no outage");
	se.se_class = STORE_TRANSIENT;
	gate_store_failed("testing", &se);
	ok(!gate_store_up() && gate_owed(), "a failure: down, the pass owed");
	is_int(gate_check(sent), GATE_RECOVER, "owed: the pass before any "
	    "claim");
	ok(!gate_kick_pending(), "but not due at once while down");
	gate_store_ok();
	ok(gate_store_up() && gate_kick_pending(), "the store answers: the "
	    "pass is due at once");
	ok(gate_kicked() && !gate_kicked(), "and is taken once");
	gate_pass();
	ok(!gate_owed(), "the pass started: owed no more");
	is_int(gate_check(sent), GATE_CLAIM, "claim");
	gate_owe(1);
	ok(gate_owed() && gate_kick_pending(), "fires slept through: due at "
	    "once");
	gate_pass();
	gate_owe(0);
	ok(gate_owed() && !gate_kick_pending(), "a fire kept: owed only");
	gate_pass();

	/* The order of precedence. */
	D.d_st = NULL;
	is_int(gate_check(sent), GATE_DOWN, "no store connection: down");
	gate_drain(1, 0);
	is_int(gate_check(sent), GATE_DRAINED, "drained comes before down");
	is_int(gate_check(edge), GATE_FENCED, "fenced before drained");
	D.d_stopping = 1;
	is_int(gate_check(edge), GATE_STOPPING, "stopping before everything");
	D.d_stopping = 0;
	gate_drain(0, 0);
	D.d_st = fake_store;
	gate_free();
}

/* Nodes n1..nN alive at store time 100000, node i reporting load[i]. */
static void
nodes(size_t n, const int *load, const int *able)
{
	struct store_node	 sn[8];
	char			 name[8][8];
	size_t			 i;

	memset(sn, 0, sizeof(sn));
	for (i = 0; i < n; i++) {
		snprintf(name[i], sizeof(name[i]), "n%zu", i + 1);
		sn[i].n_name = name[i];
		sn[i].n_beat = 100000;
		sn[i].n_running = load != NULL ? load[i] : 0;
		sn[i].n_state = able != NULL && !able[i] ? NODE_DRAINING :
		    NODE_ACTIVE;
	}
	gate_nodes(sn, n, 100000, 0);
}

/*
 * A chain of renewals, each answered before the lease it renews ran
 * out.
 */
static void
test_renewed(void)
{
	const struct gate	*g;
	int64_t			 now = clock_mono(), b1, b2;

	settings();
	gate_free();
	g = gate_state();
	ok(!gate_renewed(g, now), "no heartbeat yet: nothing renewed");
	b1 = now - 2000;
	gate_beat(b1, b1 + 5);
	b2 = now - 1000;
	gate_beat(b2, b2 + 5);
	ok(gate_renewed(g, b1) && gate_renewed(g, b2),
	    "renewed in time: a claim under the first lease still holds");
	ok(!gate_renewed(g, b2 + 1), "not a lease that was never renewed");
	gate_free();
	settings();
	gate_beat(now - 9000, now - 8995);
	gate_beat(now, now + 5);
	ok(!gate_renewed(g, now - 9000) && gate_renewed(g, now),
	    "answered after its lease ran out: the chain starts again");
}

static void
test_preferred(void)
{
	const struct gate	*g;
	const char		*me[3] = { "n1", "n2", "n3" };
	char			 id[CRON_IDLEN + 1];
	int			 count[3], bad = 0, none = 0, i, k, m;
	int			 load[3] = { 0, 40, 0 };
	int			 able[3] = { 1, 1, 0 };
	time_t			 t;

	settings();
	gate_free();
	g = gate_state();
	ok(gate_preferred(g, "abc", 0, 0), "alone: always preferred");
	nodes(3, NULL, NULL);
	memset(count, 0, sizeof(count));
	for (t = 0; t < 3000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t * 7);
		for (k = m = 0; k < 3; k++) {
			D.d_conf.c_node = (char *)me[k];
			if (gate_preferred(g, id, t, 0)) {
				count[k]++;
				m++;
			}
		}
		if (m != 1)
			bad++;
	}
	is_int(bad, 0, "each fire has exactly one preferred node among three");
	ok(count[0] > 800 && count[1] > 800 && count[2] > 800,
	    "spread over them: %d, %d, %d", count[0], count[1], count[2]);
	/* The ranks of a fire: one node each, 0 the preferred one. */
	for (t = 0, bad = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t * 5);
		for (k = m = 0; k < 3; k++) {
			D.d_conf.c_node = (char *)me[k];
			i = (int)gate_rank(g, id, t, 0);
			if (i > 2 || (m & (1 << i)) ||
			    (i == 0) != gate_preferred(g, id, t, 0))
				bad++;
			else
				m |= 1 << i;
		}
		if (m != 7)
			bad++;
	}
	is_int(bad, 0, "each fire ranks the three nodes 0, 1 and 2");

	/* A node that may not claim is never preferred. */
	nodes(3, NULL, able);
	for (t = 0, bad = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t);
		D.d_conf.c_node = (char *)"n3";
		if (gate_preferred(g, id, t, 0))
			bad++;
	}
	is_int(bad, 0, "a draining node is never the preferred one");

	/* Load-spreading: a node well above the others stands aside. */
	D.d_conf.c_load_spreading = 1;
	nodes(3, load, NULL);
	for (t = 0, bad = 0, none = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t);
		for (k = m = 0; k < 3; k++) {
			D.d_conf.c_node = (char *)me[k];
			if (gate_preferred(g, id, t, 0)) {
				m++;
				if (k == 1)
					bad++;
			}
		}
		if (m != 1)
			none++;
	}
	ok(bad == 0 && none == 0, "the busy node is never preferred, the "
	    "others always one of them (%d, %d)", bad, none);
	D.d_conf.c_node = (char *)"n1";
	nodes(3, NULL, NULL);
	for (t = 0, i = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t);
		i += gate_preferred(g, id, t, 50);
	}
	is_int(i, 0, "busy by its own count now: this node yields its turn");
	D.d_conf.c_load_spreading = 0;

	/* A node the list does not have yet claims at once. */
	D.d_conf.c_node = (char *)"n9";
	ok(gate_preferred(g, "abc", 0, 0), "not among the live: preferred");
	gate_free();
}

/*
 * What a backup waits on (claim.c's cover): gate_pick() names the node
 * that ranks itself 0, as that node sees the same list; the view hash
 * is the same for the same candidates, and changes with them.
 */
static void
test_pick(void)
{
	const struct gate	*g;
	const char		*me[3] = { "n1", "n2", "n3" };
	char			 id[CRON_IDLEN + 1];
	int			 able[3] = { 1, 0, 1 };
	int			 bad = 0, k;
	size_t			 p;
	uint64_t		 v3, v2;
	time_t			 t;

	settings();
	gate_free();
	g = gate_state();
	nodes(1, NULL, NULL);
	ok(gate_pick(g, "abc", 0) == SIZE_MAX, "alone: nobody to wait for");
	nodes(3, NULL, NULL);
	v3 = g->g_view;
	for (t = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t * 3);
		p = gate_pick(g, id, t);
		for (k = 0; k < 3; k++) {
			D.d_conf.c_node = (char *)me[k];
			if ((gate_rank(g, id, t, 0) == 0) != (p == (size_t)k))
				bad++;
		}
	}
	is_int(bad, 0, "the node picked is the one that ranks itself first");
	nodes(3, NULL, able);
	v2 = g->g_view;
	for (t = 0, bad = 0; t < 1000; t++) {
		snprintf(id, sizeof(id), "%032llx", (unsigned long long)t);
		if (gate_pick(g, id, t) == 1)
			bad++;
	}
	is_int(bad, 0, "a node that may not claim is never picked");
	nodes(3, NULL, NULL);
	ok(v2 != v3 && g->g_view == v3, "the view: the same candidates, the "
	    "same hash; another for others");
	D.d_conf.c_node = (char *)"n2";
	ok(gate_self() == 1, "this node's place in the list");
	gate_free();
}

int
main(void)
{
	log_init("gate", 1);
	test_verdict();
	test_renewed();
	test_preferred();
	test_pick();
	return (tap_done());
}
