/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ccstore.c: the daemon tests' window on the store, through store.h
 * only.
 *
 *	ccstore [-m file] url runs
 *		one line per run, oldest first:
 *		job fire attempt node state exit signal outlen
 *	ccstore [-m file] url history
 *		one line per run, oldest first, with its process and times:
 *		job fire attempt node state pid started ended
 *		(started and ended in ms by the node's clock; ended 0
 *		while it runs)
 *	ccstore [-m file] url claims
 *		one line per claim not yet trimmed, by fire then job:
 *		job fire node
 *	ccstore [-m file] url commands
 *		one line per job, by owner and id, with its command as
 *		stored but for control characters, newline included,
 *		shown as ^X by vis(3):
 *		job command
 *	ccstore [-m file] url nodes
 *		one line per node that ever beat, by name, with its clock's
 *		offset from the store's as the store measured it (ms):
 *		node skew
 *	ccstore [-m file] url fire-path LOG
 *		of the statements a MariaDB general log LOG lists: all
 *		those carried out, those of a fire's path (fire_path[]
 *		and the transactions around them) and the fires claimed:
 *		all path claims
 *	ccstore [-m file] url covers
 *		one line per node that ever beat, by name, with the span of
 *		due times (ms) its last heartbeat's cover says it claimed
 *		(claim.c), both 9223372036854775807 once it stopped:
 *		node from to
 *	ccstore [-m file] url servers
 *		one line per node that ever beat, by name, with the
 *		database server its last heartbeat went through and that
 *		server's state then (a Galera node's "Synced, primary of 3"):
 *		node server | state
 *	ccstore [-m file] url outputs
 *		one line per run, oldest first, with the head of its
 *		output (for a failed run, why it did not start) last,
 *		escaped by vis(3) so that it holds no blank or newline:
 *		job fire attempt node state output
 *	ccstore [-m file] url jobs
 *		one line per job, by owner and id:
 *		job owner paused name ("-" when it has none)
 *	ccstore [-m file] url usage
 *		one line per owner with runs in the store, by owner: how
 *		many runs and how many bytes of output the store keeps of
 *		his (his jobs' and his jobs' that are gone; the runs of
 *		jobs of neither, one-shot jobs', under "?"):
 *		owner runs bytes
 *	ccstore [-m file] url put owner file
 *		store a table for owner, as ctab does
 *	ccstore [-m file] url job id owner schedule [name [command]]
 *		register a job of that identity (and name, and command:
 *		"true" by default) that no table has, so that a test can
 *		choose identities and what the admin verbs show; the node
 *		"ccstore" holds it, so that no daemon letting go of its own
 *		jobs deletes it
 *	ccstore [-m file] url beat node
 *		record a heartbeat of that node
 *	ccstore [-m file] url claim node id fire
 *		claim a fire as that node and record nothing else, as a
 *		node that dies before it records the start; exits 1 when
 *		the claim was not won
 *	ccstore [-m file] url claimall node fire
 *		claim that fire of every job as that node, in batches, as a
 *		cluster that has run a while leaves the store
 *	ccstore [-m file] url statements
 *		the statements the database server carried out since it
 *		started, every client's (MariaDB's Questions; this one's
 *		own read counts too); fails on SQLite
 */

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include "common.h"
#include "store.h"
/* The statements themselves, as the MariaDB backend has them. */
#define NOW	"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
#define INSERT_IGNORE	"INSERT IGNORE"
#include "store_sql.h"

struct use {
	const char	*u_owner;
	size_t		 u_runs;
	size_t		 u_bytes;
};

static int
use_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct use *)a)->u_owner,
	    ((const struct use *)b)->u_owner));
}

/*
 * The statements of a fire's path: its claim (alone or in a batch, with
 * the claims' row), the reads of whether it is free or whose its claim
 * is, the start and end of its run.  A general log shows each as the
 * backend's text with '?' for parameters and the lists expanded: the
 * text up to its first '?' or list (%R) is what is compared.
 */
static const char *const fire_path[] = {
	SQL_CLAIM, SQL_CLAIM_READ, SQL_BATCH_SELECT, SQL_BATCH_UPDATE,
	SQL_BATCH_MINE, SQL_BATCH_FREE, SQL_CLAIM_NOTE, SQL_RUN_INSERT,
	SQL_RUN_END, NULL
};

static int
on_path(const char *s)
{
	const char *const	*p;
	size_t			 n;

	for (p = fire_path; *p != NULL; p++) {
		n = strcspn(*p, "?%");
		if (strncmp(s, *p, n) == 0)
			return (1);
	}
	return (0);
}

/*
 * A MariaDB general log, file: "ALL PATH CLAIMS", the statements carried
 * out, those of a fire's path (with the transactions around them: a
 * transaction counts when a statement of the path is in it) and the
 * fires claimed (the claims' rows written).  A line is
 * "[time]<TAB>[<TAB>]  thread Command<TAB>text".
 */
static void
fire_path_print(const char *file)
{
	FILE		*fp;
	char		*line = NULL, *cmd, *text, *end;
	size_t		 cap = 0, all = 0, path = 0, claims = 0, i;
	ssize_t		 len;
	long		 th;
	unsigned char	 used[65536];

	if ((fp = fopen(file, "r")) == NULL)
		err(1, "%s", file);
	memset(used, 0, sizeof(used));
	while ((len = getline(&line, &cap, fp)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		/* The text after the last tab, the command before it. */
		if ((text = strrchr(line, '\t')) == NULL)
			continue;
		*text++ = '\0';
		cmd = (cmd = strrchr(line, '\t')) != NULL ? cmd + 1 : line;
		th = strtol(cmd, &end, 10);
		while (*end == ' ')
			end++;
		if (th < 0 || (strcmp(end, "Query") != 0 &&
		    strcmp(end, "Execute") != 0))
			continue;
		i = (size_t)th % sizeof(used);
		all++;
		if (strncmp(text, "START TRANSACTION", 17) == 0)
			used[i] = 0;
		else if (strncmp(text, "COMMIT", 6) == 0 ||
		    strncmp(text, "ROLLBACK", 8) == 0) {
			if (used[i])
				path += 2;
			used[i] = 0;
		} else if (on_path(text)) {
			path++;
			used[i] = 1;
			if (strncmp(text, SQL_CLAIM_NOTE, 18) == 0)
				claims++;
		}
	}
	free(line);
	fclose(fp);
	printf("%zu %zu %zu\n", all, path, claims);
}

/* The runs and bytes of output the store keeps of each owner. */
static void
usage_print(struct store *st)
{
	struct store_error	 se;
	struct store_job	*jobs, *gone;
	struct store_run	*runs;
	struct use		*u;
	const char		*owner;
	size_t			 nj, ng, nr, nu = 0, i, k;

	if (store_jobs_list(st, NULL, &jobs, &nj, &se) == -1 ||
	    store_jobs_gone(st, &gone, &ng, &se) == -1 ||
	    store_runs_list(st, NULL, 0, &runs, &nr, &se) == -1)
		errx(1, "%s", se.se_msg);
	if ((u = calloc(nr + 1, sizeof(*u))) == NULL)
		err(1, NULL);
	for (i = 0; i < nr; i++) {
		owner = "?";
		for (k = 0; k < nj; k++)
			if (strcmp(jobs[k].j_id, runs[i].r_job) == 0)
				owner = jobs[k].j_owner;
		for (k = 0; k < ng && *owner == '?'; k++)
			if (strcmp(gone[k].j_id, runs[i].r_job) == 0)
				owner = gone[k].j_owner;
		for (k = 0; k < nu; k++)
			if (strcmp(u[k].u_owner, owner) == 0)
				break;
		if (k == nu)
			u[nu++].u_owner = owner;
		u[k].u_runs++;
		u[k].u_bytes += runs[i].r_outlen;
	}
	qsort(u, nu, sizeof(*u), use_cmp);
	for (k = 0; k < nu; k++)
		printf("%s %zu %zu\n", u[k].u_owner, u[k].u_runs,
		    u[k].u_bytes);
	free(u);
	store_runs_free(runs, nr);
	store_jobs_free(gone, ng);
	store_jobs_free(jobs, nj);
}

static void
usage(void)
{
	fprintf(stderr, "usage: ccstore [-m file] url runs | history | "
	    "outputs | claims | jobs | commands | nodes | usage | "
	    "put owner file | "
	    "job id owner schedule [name [command]] | beat node | "
	    "claim node id fire | claimall node fire | statements\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct store		*st;
	struct store_run	*runs, *r;
	struct store_job	*jobs;
	struct store_claim	*claims;
	struct store_node	*nodes;
	char			*vis;
	struct store_job	 job;
	int64_t			 now;
	int			 draining, won;
	char			*text, *old;
	const char		**ids;
	unsigned char		*wonv;
	size_t			 n, i, k, len, nwon;
	int64_t			 version, nv;
	int			 ch;

	memset(&sc, 0, sizeof(sc));
	while ((ch = getopt(argc, argv, "m:")) != -1) {
		switch (ch) {
		case 'm':
			sc.sc_mysql_file = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	sc.sc_url = argv[0];
	sc.sc_node = (argc == 3 && strcmp(argv[1], "beat") == 0) ||
	    (argc == 4 && strcmp(argv[1], "claimall") == 0) ||
	    (argc == 5 && strcmp(argv[1], "claim") == 0) ? argv[2] :
	    "ccstore";
	if (store_open(&sc, &st, &se) == -1)
		errx(1, "%s", se.se_msg);
	if (strcmp(argv[1], "runs") == 0 && argc == 2) {
		if (store_runs_list(st, NULL, 0, &runs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = n; i > 0; i--)
			printf("%s %lld %d %s %s %d %d %zu\n", runs[i - 1].r_job,
			    (long long)runs[i - 1].r_fire,
			    runs[i - 1].r_attempt, runs[i - 1].r_node,
			    store_run_state_name(runs[i - 1].r_state),
			    runs[i - 1].r_exit, runs[i - 1].r_signal,
			    runs[i - 1].r_outlen);
		store_runs_free(runs, n);
	} else if (strcmp(argv[1], "history") == 0 && argc == 2) {
		if (store_runs_list(st, NULL, 0, &runs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = n; i > 0; i--) {
			r = &runs[i - 1];
			printf("%s %lld %d %s %s %d %lld %lld\n", r->r_job,
			    (long long)r->r_fire, r->r_attempt, r->r_node,
			    store_run_state_name(r->r_state), r->r_pid,
			    (long long)r->r_start, (long long)r->r_end);
		}
		store_runs_free(runs, n);
	} else if (strcmp(argv[1], "claims") == 0 && argc == 2) {
		if (store_claims_list(st, &claims, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++)
			printf("%s %lld %s\n", claims[i].c_job,
			    (long long)claims[i].c_fire, claims[i].c_node);
		store_claims_free(claims, n);
	} else if (strcmp(argv[1], "commands") == 0 && argc == 2) {
		if (store_jobs_list(st, NULL, &jobs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++) {
			len = strlen(jobs[i].j_cmd);
			if ((vis = reallocarray(NULL, 4, len + 1)) == NULL)
				err(1, NULL);
			strvis(vis, jobs[i].j_cmd, VIS_NL | VIS_NOSLASH);
			printf("%s %s\n", jobs[i].j_id, vis);
			free(vis);
		}
		store_jobs_free(jobs, n);
	} else if (strcmp(argv[1], "statements") == 0 && argc == 2) {
		if (store_statements(st, &now, &se) == -1)
			errx(1, "%s", se.se_msg);
		printf("%lld\n", (long long)now);
	} else if (strcmp(argv[1], "nodes") == 0 && argc == 2) {
		if (store_nodes_list(st, &nodes, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++)
			printf("%s %lld\n", nodes[i].n_name,
			    (long long)nodes[i].n_skew);
		store_nodes_free(nodes, n);
	} else if (strcmp(argv[1], "fire-path") == 0 && argc == 3) {
		fire_path_print(argv[2]);
	} else if (strcmp(argv[1], "covers") == 0 && argc == 2) {
		if (store_nodes_list(st, &nodes, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++)
			printf("%s %lld %lld\n", nodes[i].n_name,
			    (long long)nodes[i].n_cover.c_from,
			    (long long)nodes[i].n_cover.c_to);
		store_nodes_free(nodes, n);
	} else if (strcmp(argv[1], "servers") == 0 && argc == 2) {
		if (store_nodes_list(st, &nodes, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++)
			printf("%s %s | %s\n", nodes[i].n_name,
			    nodes[i].n_db, nodes[i].n_dbstate);
		store_nodes_free(nodes, n);
	} else if (strcmp(argv[1], "outputs") == 0 && argc == 2) {
		if (store_runs_list(st, NULL, 0, &runs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = n; i > 0; i--) {
			r = &runs[i - 1];
			if ((vis = reallocarray(NULL, 4, r->r_outlen + 1)) ==
			    NULL)
				err(1, NULL);
			strvisx(vis, r->r_output, r->r_outlen,
			    VIS_WHITE | VIS_CSTYLE | VIS_OCTAL);
			printf("%s %lld %d %s %s %s\n", r->r_job,
			    (long long)r->r_fire, r->r_attempt, r->r_node,
			    store_run_state_name(r->r_state), vis);
			free(vis);
		}
		store_runs_free(runs, n);
	} else if (strcmp(argv[1], "jobs") == 0 && argc == 2) {
		if (store_jobs_list(st, NULL, &jobs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = 0; i < n; i++)
			printf("%s %s %d %s\n", jobs[i].j_id, jobs[i].j_owner,
			    jobs[i].j_paused, *jobs[i].j_name == '\0' ? "-" :
			    jobs[i].j_name);
		store_jobs_free(jobs, n);
	} else if (strcmp(argv[1], "usage") == 0 && argc == 2) {
		usage_print(st);
	} else if (strcmp(argv[1], "put") == 0 && argc == 4) {
		if (file_read(argv[3], 1024 * 1024, &text, &len) == -1)
			err(1, "%s", argv[3]);
		if (store_table_get(st, argv[2], &old, &version, &se) == -1)
			errx(1, "%s", se.se_msg);
		free(old);
		if (store_table_put(st, argv[2], text, version, &nv,
		    &se) == -1)
			errx(1, "%s", se.se_msg);
		free(text);
	} else if (strcmp(argv[1], "job") == 0 && argc >= 5 && argc <= 7) {
		memset(&job, 0, sizeof(job));
		job.j_id = argv[2];
		job.j_name = argc >= 6 ? argv[5] : NULL;
		job.j_owner = argv[3];
		job.j_sched = argv[4];
		job.j_zone = "";
		job.j_cmd = argc == 7 ? argv[6] : "true";
		if (store_jobs_register(st, &job, 1, &se) == -1)
			errx(1, "%s", se.se_msg);
	} else if (strcmp(argv[1], "beat") == 0 && argc == 3) {
		if (store_heartbeat(st, clock_now_ms(), 0, NULL, &now, &draining,
		    &se) == -1)
			errx(1, "%s", se.se_msg);
	} else if (strcmp(argv[1], "claim") == 0 && argc == 5) {
		if (store_claim(st, argv[3], (time_t)strtoll(argv[4], NULL, 10),
		    &won, &se) == -1)
			errx(1, "%s", se.se_msg);
		if (!won)
			errx(1, "claim of %s at %s not won", argv[3], argv[4]);
	} else if (strcmp(argv[1], "claimall") == 0 && argc == 4) {
		/* Every job claimed by node argv[2] at fire argv[3]. */
		if (store_jobs_list(st, NULL, &jobs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		ids = reallocarray(NULL, n + 1, sizeof(*ids));
		wonv = calloc(n + 1, 1);
		if (ids == NULL || wonv == NULL)
			err(1, NULL);
		for (i = 0; i < n; i++)
			ids[i] = jobs[i].j_id;
		for (i = 0; i < n; i += k) {
			k = n - i < 1000 ? n - i : 1000;
			if (store_claim_batch(st, ids + i, k,
			    (time_t)strtoll(argv[3], NULL, 10), k, wonv + i,
			    &nwon, &se) == -1)
				errx(1, "%s", se.se_msg);
		}
		free(ids);
		free(wonv);
		store_jobs_free(jobs, n);
	} else
		usage();
	store_close(st);
	return (0);
}
