/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_ctl.c: the admin verbs that change the store: clustercron drain
 * and resume for nodes, pause and resume for jobs.  Each is one write
 * through the store; the daemons see it at their next claim (a paused
 * job's claim changes nothing, so no node runs it) or heartbeat.
 */

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "clustercron.h"
#include "parser.h"
#include "pathnames.h"
#include "store.h"

/* What a word on the command line may name. */
#define CTL_NODE	0x1
#define CTL_JOB		0x2

static const struct option longopts[] = {
	{ "node", no_argument, NULL, 'N' },
	{ "job", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 }
};

static int	 ctl_main(int, char **, const char *, int, int);
static int	 node_known(struct admin *, const char *);
static void	 ctl_node(struct admin *, const char *, int);
static void	 ctl_job(struct admin *, const char *, int);

/* Whether the store knows a node of that name. */
static int
node_known(struct admin *a, const char *name)
{
	struct store_node	*nodes = NULL;
	struct store_error	 se;
	size_t			 n = 0, i;
	int			 found = 0;

	if (store_nodes_list(a->a_st, &nodes, &n, &se) == -1)
		admin_storefail(a, "listing the nodes", &se);
	for (i = 0; i < n; i++)
		if (strcmp(nodes[i].n_name, name) == 0)
			found = 1;
	store_nodes_free(nodes, n);
	return (found);
}

static void
ctl_node(struct admin *a, const char *name, int drain)
{
	struct store_error	 se;
	char			*esc;

	if (store_node_drain(a->a_st, name, drain, &se) == -1) {
		if (se.se_class == STORE_CONFLICT)
			errx(1, "%s: no node %s", a->a_verb, admin_esc(name));
		admin_storefail(a, drain ? "draining the node" :
		    "resuming the node", &se);
	}
	esc = admin_esc(name);
	printf("node %s: %s\n", esc, drain ? "draining" : "active");
	free(esc);
}

static void
ctl_job(struct admin *a, const char *word, int pause)
{
	struct store_job	*jobs = NULL;
	const struct store_job	*j;
	struct store_error	 se;
	const char		*name;
	char			*esc;
	size_t			 n = 0;

	if (store_jobs_list(a->a_st, NULL, &jobs, &n, &se) == -1)
		admin_storefail(a, "listing the jobs", &se);
	j = admin_job_pick(a, jobs, n, word);
	/*
	 * Only claims look at the flag, and a node-local job's fires are
	 * not claimed: pausing one would say it stopped when it did not.
	 */
	if (pause && j->j_scope == SCOPE_NODE)
		errx(1, "%s: job %.*s runs on every node without a claim: "
		    "pausing it would not stop it", a->a_verb, ADMIN_SHORTID,
		    j->j_id);
	if (store_job_pause(a->a_st, j->j_id, pause, &se) == -1) {
		if (se.se_class == STORE_CONFLICT)
			errx(1, "%s: job %s is gone", a->a_verb, j->j_id);
		admin_storefail(a, pause ? "pausing the job" :
		    "resuming the job", &se);
	}
	name = admin_job_name(j);
	esc = admin_esc(name != NULL ? name : "");
	printf("job %.*s%s%s%s: %s\n", ADMIN_SHORTID, j->j_id,
	    name != NULL ? " (" : "", name != NULL ? esc : "",
	    name != NULL ? ")" : "", pause ? "paused" : "resumed");
	free(esc);
	store_jobs_free(jobs, n);
}

/*
 * The verbs' common shape: [-c file] [--node | --job] word.  what says
 * which kinds the verb takes; on says whether it drains or pauses (1)
 * or resumes (0).
 */
static int
ctl_main(int argc, char **argv, const char *verb, int what, int on)
{
	struct admin		 a;
	struct store_job	*jobs = NULL;
	struct store_error	 se;
	const char		*conffile = PATH_CONF;
	size_t			 n = 0, first;
	int			 ch, explicit = 0, kind = 0, isnode, isjob;

	while ((ch = getopt_long(argc, argv, "c:", what == (CTL_NODE |
	    CTL_JOB) ? longopts : longopts + 2, NULL)) != -1) {
		switch (ch) {
		case 'c':
			conffile = optarg;
			explicit = 1;
			break;
		case 'N':
			kind = CTL_NODE;
			break;
		case 'J':
			kind = CTL_JOB;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		goto usage;
	if (*argv[0] == '\0')
		errx(1, "%s: empty %s", verb, what == CTL_NODE ? "node" :
		    what == CTL_JOB ? "job" : "node or job");

	admin_open(&a, verb, conffile, explicit);
	if (kind == 0 && what == (CTL_NODE | CTL_JOB)) {
		/* resume: a node, a job, or refuse to guess. */
		isnode = node_known(&a, argv[0]);
		if (store_jobs_list(a.a_st, NULL, &jobs, &n, &se) == -1)
			admin_storefail(&a, "listing the jobs", &se);
		isjob = admin_job_match(jobs, n, argv[0], &first) > 0;
		store_jobs_free(jobs, n);
		if (isnode && isjob)
			errx(1, "%s: %s names a node and a job: say which "
			    "with --node or --job", verb, admin_esc(argv[0]));
		if (!isnode && !isjob)
			errx(1, "%s: no node or job %s", verb,
			    admin_esc(argv[0]));
		kind = isnode ? CTL_NODE : CTL_JOB;
	} else if (kind == 0)
		kind = what;
	if (kind == CTL_NODE)
		ctl_node(&a, argv[0], on);
	else
		ctl_job(&a, argv[0], on);
	admin_close(&a);
	return (admin_done());

usage:
	if (what == CTL_NODE)
		fprintf(stderr, "usage: clustercron %s [-c file] node\n",
		    verb);
	else if (what == CTL_JOB)
		fprintf(stderr, "usage: clustercron %s [-c file] job\n",
		    verb);
	else
		fprintf(stderr, "usage: clustercron %s [-c file] "
		    "[--node | --job] node | job\n", verb);
	return (1);
}

int
verb_drain(int argc, char **argv)
{
	return (ctl_main(argc, argv, "drain", CTL_NODE, 1));
}

int
verb_pause(int argc, char **argv)
{
	return (ctl_main(argc, argv, "pause", CTL_JOB, 1));
}

int
verb_resume(int argc, char **argv)
{
	return (ctl_main(argc, argv, "resume", CTL_NODE | CTL_JOB, 0));
}
