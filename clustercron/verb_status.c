/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_status.c: clustercron status shows the nodes the store knows,
 * with their heartbeats, and the runs in flight on any of them.
 *
 * Ages are measured by the store's clock, which stamped the heartbeats,
 * so that a node whose own clock is off is not taken for dead (its
 * skew is shown instead).  A node is dead when its last heartbeat is
 * older than node-timeout, the rule by which the daemons themselves
 * give its runs up for lost.  On SQLite there is one node and it
 * records its start only (an idle daemon never writes): it has no
 * heartbeat, so none is shown (the time since its start would read as
 * a heartbeat long stale) and it is not judged.
 */

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "clustercron.h"
#include "json.h"
#include "pathnames.h"
#include "store.h"

/* DATABASE only when a node's heartbeat named its server (MariaDB). */
enum { N_NODE, N_STATE, N_BEAT, N_SKEW, N_STARTED, N_RUNNING, N_DB,
    N_COUNT };
static const char *const node_head[N_COUNT] = {
	"NODE", "STATE", "HEARTBEAT", "SKEW", "STARTED", "RUNNING", "DATABASE"
};
enum { R_JOB, R_NODE, R_PID, R_FIRE, R_STARTED, R_COUNT };
static const char *const run_head[R_COUNT] = {
	"JOB", "NODE", "PID", "FIRE", "STARTED"
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 }
};

static void	 usage(void) __attribute__((__noreturn__));
static size_t	 running_on(const struct store_run *, size_t, const char *);
static void	 show_json(const struct store_node *, size_t,
		    const struct store_run *, size_t, int64_t, int64_t, int);
static void	 show_people(const struct store_node *, size_t,
		    const struct store_run *, size_t, int64_t, int64_t, int);

static void
usage(void)
{
	fprintf(stderr, "usage: clustercron status [--json] [-c file]\n");
	exit(1);
}

/* The runs in flight on a node, counted from the runs table. */
static size_t
running_on(const struct store_run *runs, size_t nruns, const char *node)
{
	size_t	 i, n = 0;

	for (i = 0; i < nruns; i++)
		if (strcmp(runs[i].r_node, node) == 0)
			n++;
	return (n);
}

static void
show_json(const struct store_node *nodes, size_t nnodes,
    const struct store_run *runs, size_t nruns, int64_t now,
    int64_t timeout, int judge)
{
	struct json	 js;
	size_t		 i;

	json_init(&js, stdout);
	json_begin(&js, '{');
	json_time(&js, "store_time", now);
	json_key(&js, "node_timeout_ms");
	if (judge)
		json_int(&js, timeout);
	else
		json_null(&js);
	json_key(&js, "nodes");
	json_begin(&js, '[');
	for (i = 0; i < nnodes; i++) {
		json_begin(&js, '{');
		json_key(&js, "name");
		json_str(&js, nodes[i].n_name);
		json_key(&js, "state");
		json_str(&js, nodes[i].n_state == NODE_DRAINING ?
		    "draining" : "active");
		json_key(&js, "dead");
		if (judge)
			json_bool(&js, now - nodes[i].n_beat > timeout);
		else
			json_null(&js);
		json_time(&js, "heartbeat", judge ? nodes[i].n_beat : 0);
		json_key(&js, "heartbeat_age_ms");
		if (judge)
			json_int(&js, now - nodes[i].n_beat);
		else
			json_null(&js);
		json_key(&js, "skew_ms");
		json_int(&js, nodes[i].n_skew);
		json_time(&js, "started", nodes[i].n_started);
		json_key(&js, "running");
		json_int(&js, (int64_t)running_on(runs, nruns,
		    nodes[i].n_name));
		json_key(&js, "database");
		json_str(&js, nodes[i].n_db);
		json_key(&js, "database_state");
		json_str(&js, nodes[i].n_dbstate);
		json_end(&js, '}');
	}
	json_end(&js, ']');
	json_key(&js, "running");
	json_begin(&js, '[');
	for (i = 0; i < nruns; i++) {
		json_begin(&js, '{');
		json_key(&js, "job");
		json_str(&js, runs[i].r_job);
		json_key(&js, "node");
		json_str(&js, runs[i].r_node);
		json_key(&js, "pid");
		json_int(&js, runs[i].r_pid);
		json_time(&js, "fire", (int64_t)runs[i].r_fire * 1000);
		json_key(&js, "attempt");
		json_int(&js, runs[i].r_attempt);
		json_time(&js, "started", runs[i].r_start);
		json_end(&js, '}');
	}
	json_end(&js, ']');
	json_end(&js, '}');
	json_done(&js);
}

static void
show_people(const struct store_node *nodes, size_t nnodes,
    const struct store_run *runs, size_t nruns, int64_t now,
    int64_t timeout, int judge)
{
	struct tbl	 t;
	char		 buf[ADMIN_TIMELEN];
	const char	*state;
	int64_t		 skew;
	size_t		 i, ncol = N_COUNT - 1;

	for (i = 0; i < nnodes; i++)
		if (*nodes[i].n_db != '\0')
			ncol = N_COUNT;
	tbl_init(&t, ncol, node_head, NULL);
	for (i = 0; i < nnodes; i++) {
		tbl_add(&t, nodes[i].n_name);
		state = nodes[i].n_state == NODE_DRAINING ? "draining" :
		    "active";
		if (judge && now - nodes[i].n_beat > timeout)
			tbl_addf(&t, "dead (%s)", state);
		else
			tbl_add(&t, state);
		if (judge) {
			admin_age(now - nodes[i].n_beat, buf, sizeof(buf));
			tbl_addf(&t, "%s ago", buf);
		} else
			tbl_add(&t, "-");
		skew = nodes[i].n_skew;
		admin_dur(skew < 0 ? -skew : skew, buf, sizeof(buf));
		tbl_addf(&t, "%c%s", skew < 0 ? '-' : '+', buf);
		admin_local(nodes[i].n_started, buf, sizeof(buf));
		tbl_add(&t, buf);
		tbl_addf(&t, "%zu", running_on(runs, nruns, nodes[i].n_name));
		if (ncol == N_COUNT)
			tbl_addf(&t, "%s%s%s", nodes[i].n_db,
			    *nodes[i].n_dbstate != '\0' ? ", " : "",
			    nodes[i].n_dbstate);
	}
	tbl_print(&t, stdout);
	tbl_free(&t);

	putchar('\n');
	tbl_init(&t, R_COUNT, run_head, NULL);
	for (i = 0; i < nruns; i++) {
		tbl_addf(&t, "%.*s", ADMIN_SHORTID, runs[i].r_job);
		tbl_add(&t, runs[i].r_node);
		tbl_addf(&t, "%d", runs[i].r_pid);
		admin_local((int64_t)runs[i].r_fire * 1000, buf, sizeof(buf));
		tbl_add(&t, buf);
		admin_local(runs[i].r_start, buf, sizeof(buf));
		tbl_add(&t, buf);
	}
	tbl_print(&t, stdout);
	tbl_free(&t);
}

int
verb_status(int argc, char **argv)
{
	struct admin		 a;
	struct store_error	 se;
	struct store_node	*nodes = NULL;
	struct store_run	*runs = NULL;
	const char		*conffile = PATH_CONF;
	size_t			 nnodes = 0, nruns = 0;
	int64_t			 now, timeout;
	int			 ch, json = 0, explicit = 0, judge;

	while ((ch = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			conffile = optarg;
			explicit = 1;
			break;
		case 'J':
			json = 1;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();

	admin_open(&a, "status", conffile, explicit);
	if (store_now(a.a_st, &now, &se) == -1)
		admin_storefail(&a, "reading the store's clock", &se);
	if (store_nodes_list(a.a_st, &nodes, &nnodes, &se) == -1)
		admin_storefail(&a, "listing the nodes", &se);
	if (store_runs_running(a.a_st, NULL, &runs, &nruns, &se) == -1)
		admin_storefail(&a, "listing the running jobs", &se);
	judge = strcmp(store_backend(a.a_st), "sqlite") != 0;
	timeout = a.a_conf.c_node_timeout_ms;
	if (json)
		show_json(nodes, nnodes, runs, nruns, now, timeout, judge);
	else
		show_people(nodes, nnodes, runs, nruns, now, timeout, judge);
	store_nodes_free(nodes, nnodes);
	store_runs_free(runs, nruns);
	admin_close(&a);
	return (admin_done());
}
