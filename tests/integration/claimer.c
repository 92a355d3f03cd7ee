/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * claimer.c: a contender for the claim tests.  Several run at once, as
 * nodes would, over the same jobs and fires; each writes what it won to
 * its own log before recording the run, so the test can compare the
 * contenders' own accounts with the store's.
 *
 *	claimer register URL CNF NJOBS
 *	claimer claim URL CNF NODE NJOBS FIRST LAST LOG single|batch
 *	claimer runs URL CNF		print "job fire node" of every run
 *	claimer jobs URL CNF		print "job last_fire claimed_by"
 *	claimer check URL CNF		read "job fire node" lines; print
 *					those the claims table does not
 *					say that node claimed
 *	claimer causal URL URL2 CNF ROUNDS
 *					one node, with a store open
 *					through each URL (two servers of
 *					a Galera cluster): it claims a
 *					fire of the first job registered
 *					through the first, then asks
 *					through the second whether the
 *					fire is its own (what a node does
 *					for a claim in doubt after moving
 *					to another server); prints how
 *					many times the second said no,
 *					exit 1 if any
 *	claimer hold URL CNF NODE NJOBS ROUNDS
 *					register and let go of jobs at
 *					random, as nodes whose tables
 *					change, one job at a time or the
 *					whole set as a daemon starting
 *					does; after each round, every
 *					job this node holds must be in the
 *					store; at the end print the jobs
 *					it holds
 *
 * A claim whose outcome is unknown (lost connection, server down) is
 * asked again until the store answers, for up to two minutes; what the
 * store then says is the truth.  Fires are 1800000000 + 60 * k.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "store.h"

#define BASE	1800000000
#define PATIENCE 120000		/* ms to wait for the store to answer */

static struct store	*st;
static int		 logfd = -1;
static const char	*node;
static unsigned int	 nlost;
static unsigned int	 nalone;

static void	 usage(void);
static void	 open_store(const char *, const char *, const char *);
static void	 job_id(char *, size_t, int);
static void	 patience(const struct store_error *, int64_t, const char *);
static void	 won(const char *, time_t);
static void	 claim_one(const char *, time_t);
static int	 claim(int, int, int, int);
static int	 check(const char *, const char *);
static int	 hold(int, int);
static int	 causal(const char *, const char *, const char *, int);

static void
usage(void)
{
	fprintf(stderr, "usage: claimer register URL CNF NJOBS\n"
	    "       claimer claim URL CNF NODE NJOBS FIRST LAST LOG "
	    "single|batch\n"
	    "       claimer runs|jobs|check URL CNF\n"
	    "       claimer hold URL CNF NODE NJOBS ROUNDS\n"
	    "       claimer causal URL URL2 CNF ROUNDS\n");
	exit(2);
}

static void
open_store(const char *url, const char *cnf, const char *name)
{
	struct store_config	 cf;
	struct store_error	 err;
	int64_t			 until = clock_mono() + PATIENCE;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = url;
	cf.sc_mysql_file = *cnf == '\0' ? NULL : cnf;
	cf.sc_node = name;
	cf.sc_busy_timeout = 20000;
	cf.sc_retries = 20;
	while (store_open(&cf, &st, &err) == -1) {
		if (err.se_class != STORE_TRANSIENT || clock_mono() > until) {
			fprintf(stderr, "claimer: %s\n", err.se_msg);
			exit(1);
		}
		usleep(20000);
	}
}

static void
job_id(char *buf, size_t len, int i)
{
	snprintf(buf, len, "k%031d", i);
}

/* Wait out transient failures; anything else ends the contender. */
static void
patience(const struct store_error *err, int64_t until, const char *what)
{
	if (err->se_class != STORE_TRANSIENT || clock_mono() > until) {
		fprintf(stderr, "claimer %s: %s: %s\n", node, what,
		    err->se_msg);
		exit(1);
	}
	if (err->se_lost)
		nlost++;
	usleep(10000);
}

static void
won(const char *id, time_t fire)
{
	struct store_error	 err;
	char			 line[128];
	int64_t			 rid, until = clock_mono() + PATIENCE;
	int			 len;

	len = snprintf(line, sizeof(line), "%s %lld %s\n", id,
	    (long long)fire, node);
	if (write(logfd, line, len) != len) {
		perror("claimer: log");
		exit(1);
	}
	while (store_run_start(st, id, fire, 1, (int)getpid(),
	    clock_now_ms(), &rid, &err) == -1)
		patience(&err, until, "run start");
}

static void
claim_one(const char *id, time_t fire)
{
	struct store_error	 err;
	int64_t			 until = clock_mono() + PATIENCE;
	int			 w;

	while (store_claim(st, id, fire, &w, &err) == -1)
		patience(&err, until, "claim");
	if (w)
		won(id, fire);
}

static int
claim(int njobs, int first, int last, int batch)
{
	struct store_error	 err;
	char			(*ids)[40];
	const char		**idp;
	unsigned char		*w;
	size_t			 nwon, slots;
	int64_t			 until;
	int			 f, i;
	time_t			 fire;

	ids = calloc(njobs, sizeof(*ids));
	idp = calloc(njobs, sizeof(*idp));
	w = calloc(njobs, 1);
	if (ids == NULL || idp == NULL || w == NULL)
		return (1);
	for (i = 0; i < njobs; i++) {
		job_id(ids[i], sizeof(ids[i]), i);
		idp[i] = ids[i];
	}
	for (f = first; f <= last; f++) {
		fire = BASE + 60 * (time_t)f;
		if (!batch) {
			for (i = 0; i < njobs; i++)
				claim_one(ids[i], fire);
			continue;
		}
		/* A node with some free slots takes a share... */
		slots = (size_t)njobs / 3 + 1;
		until = clock_mono() + PATIENCE;
		while (store_claim_batch(st, idp, njobs, fire, slots, w, &nwon,
		    &err) == -1)
			patience(&err, until, "batch claim");
		for (i = 0; i < njobs; i++)
			if (w[i] == 1)
				won(ids[i], fire);
		/*
		 * ...and tries alone, as the daemon does, only the jobs
		 * the batch says may still be free (2): a job said taken
		 * (0) that was free would go unclaimed by every contender
		 * and the test would count a fire short.
		 */
		for (i = 0; i < njobs; i++)
			if (w[i] == 2) {
				nalone++;
				claim_one(ids[i], fire);
			}
	}
	free(ids);
	free(idp);
	free(w);
	return (0);
}

/*
 * Every win a contender logged must be recorded in the claims table as
 * that node's: one store per node name, for store_claim_check().
 */
#define CHECK_NODES	16
static int
check(const char *url, const char *cnf)
{
	struct store_error	 err;
	struct store		*sts[CHECK_NODES];
	char			 names[CHECK_NODES][64], line[256];
	char			 id[128], name[64];
	long long		 fire;
	int			 i, n = 0, won, bad = 0;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "%127s %lld %63s", id, &fire, name) != 3)
			continue;
		for (i = 0; i < n && strcmp(names[i], name) != 0; i++)
			;
		if (i == n) {
			if (n == CHECK_NODES) {
				fprintf(stderr, "claimer: too many nodes\n");
				return (1);
			}
			open_store(url, cnf, name);
			sts[n] = st;
			strlcpy(names[n++], name, sizeof(names[0]));
		}
		if (store_claim_check(sts[i], id, (time_t)fire, &won,
		    &err) == -1) {
			fprintf(stderr, "claimer: %s\n", err.se_msg);
			return (1);
		}
		if (!won) {
			printf("%s %lld %s\n", id, fire, name);
			bad = 1;
		}
	}
	for (i = 0; i < n; i++)
		store_close(sts[i]);
	st = NULL;
	return (bad);
}

/*
 * Hold and let go of jobs at random.  Several nodes doing it at once
 * over a few jobs meet on them all the time: one registers a job as
 * another lets go of it, which must never delete it under the first.
 */
static int
hold(int njobs, int rounds)
{
	struct store_error	 err;
	struct store_job	 j, *got, *all;
	char			(*ids)[40];
	const char		*id;
	unsigned char		*held;
	size_t			 gone, n;
	int64_t			 until;
	int			 r, i, k, bad = 0;

	ids = calloc(njobs, sizeof(*ids));
	held = calloc(njobs, 1);
	if (ids == NULL || held == NULL)
		return (1);
	for (i = 0; i < njobs; i++)
		job_id(ids[i], sizeof(ids[i]), i);
	memset(&j, 0, sizeof(j));
	j.j_owner = "storm";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	if ((all = calloc(njobs, sizeof(*all))) == NULL)
		return (1);
	for (r = 0; r < rounds; r++) {
		i = (int)arc4random_uniform((uint32_t)njobs);
		id = ids[i];
		until = clock_mono() + PATIENCE;
		/* Every other round, the whole set at once, as at a start. */
		if (r % 2 == 1) {
			held[i] = !held[i];
			for (k = n = 0; k < njobs; k++) {
				if (!held[k])
					continue;
				all[n] = j;
				all[n++].j_id = ids[k];
			}
			while (store_jobs_sync(st, all, n, &gone, &err) == -1)
				if (err.se_class != STORE_CONFLICT)
					patience(&err, until, "sync");
		} else if (held[i]) {
			while (store_jobs_release(st, &id, 1, &gone,
			    &err) == -1)
				if (err.se_class != STORE_CONFLICT)
					patience(&err, until, "release");
			held[i] = 0;
		} else {
			j.j_id = ids[i];
			while (store_jobs_register(st, &j, 1, &err) == -1)
				if (err.se_class != STORE_CONFLICT)
					patience(&err, until, "register");
			held[i] = 1;
		}
		for (k = 0; k < njobs; k++) {
			if (!held[k])
				continue;
			until = clock_mono() + PATIENCE;
			while (store_job_get(st, ids[k], &got, &err) == -1)
				patience(&err, until, "get");
			if (got == NULL) {
				fprintf(stderr, "claimer %s: round %d: job %s "
				    "gone while held\n", node, r, ids[k]);
				bad = 1;
			}
			store_jobs_free(got, 1);
		}
	}
	for (i = 0; i < njobs; i++)
		if (held[i])
			printf("%s\n", ids[i]);
	free(all);
	free(ids);
	free(held);
	return (bad);
}

/*
 * A claim through one server, then the same node's check of it through
 * another: the claims row was committed cluster-wide before the check
 * began, so a causal read must see it.
 */
static int
causal(const char *url, const char *url2, const char *cnf, int rounds)
{
	struct store_error	 err;
	struct store		*st2;
	char			 id[40];
	time_t			 fire;
	int			 k, won, no = 0;

	node = "causal";
	open_store(url2, cnf, node);
	st2 = st;
	open_store(url, cnf, node);
	job_id(id, sizeof(id), 0);
	/* Fires after any other test's (claim's FIRST..LAST). */
	for (k = 1; k <= rounds; k++) {
		fire = BASE + 60 * (time_t)(100000 + k);
		if (store_claim(st, id, fire, &won, &err) == -1 || !won) {
			fprintf(stderr, "claimer: fire %d not won: %s\n", k,
			    err.se_msg);
			exit(1);
		}
		if (store_claim_check(st2, id, fire, &won, &err) == -1) {
			fprintf(stderr, "claimer: check of fire %d: %s\n", k,
			    err.se_msg);
			exit(1);
		}
		if (!won)
			no++;
	}
	store_close(st2);
	printf("%d of %d claims not seen through the other server\n", no,
	    rounds);
	return (no == 0 ? 0 : 1);
}

int
main(int argc, char *argv[])
{
	struct store_error	 err;
	struct store_job	*jobs;
	struct store_run	*runs;
	const char		*errstr;
	char			 id[40];
	size_t			 n, i;
	int			 njobs, first, last, rc = 0;

	if (argc < 4)
		usage();
	if (strcmp(argv[1], "register") == 0 && argc == 5) {
		njobs = strtonum(argv[4], 1, 1000000, &errstr);
		if (errstr != NULL)
			usage();
		open_store(argv[2], argv[3], "setup");
		if ((jobs = calloc(njobs, sizeof(*jobs))) == NULL)
			return (1);
		for (i = 0; i < (size_t)njobs; i++) {
			job_id(id, sizeof(id), (int)i);
			if ((jobs[i].j_id = strdup(id)) == NULL)
				return (1);
			jobs[i].j_owner = "storm";
			jobs[i].j_sched = "* * * * *";
			jobs[i].j_cmd = "true";
		}
		if (store_jobs_register(st, jobs, njobs, &err) == -1) {
			fprintf(stderr, "claimer: %s\n", err.se_msg);
			rc = 1;
		}
		for (i = 0; i < (size_t)njobs; i++)
			free(jobs[i].j_id);
		free(jobs);
	} else if (strcmp(argv[1], "claim") == 0 && argc == 10) {
		node = argv[4];
		njobs = strtonum(argv[5], 1, 1000000, &errstr);
		if (errstr == NULL)
			first = strtonum(argv[6], 0, 1000000, &errstr);
		if (errstr == NULL)
			last = strtonum(argv[7], 0, 1000000, &errstr);
		if (errstr != NULL)
			usage();
		if ((logfd = open(argv[8], O_WRONLY | O_CREAT | O_APPEND,
		    0644)) == -1) {
			perror(argv[8]);
			return (1);
		}
		open_store(argv[2], argv[3], node);
		rc = claim(njobs, first, last, strcmp(argv[9], "batch") == 0);
		close(logfd);
		if (nlost > 0)
			fprintf(stderr, "claimer %s: waited out %u lost "
			    "connections\n", node, nlost);
		if (nalone > 0)
			fprintf(stderr, "claimer %s: %u jobs a batch did not "
			    "win were tried alone\n", node, nalone);
	} else if (strcmp(argv[1], "runs") == 0) {
		open_store(argv[2], argv[3], "check");
		if (store_runs_list(st, NULL, 0, &runs, &n, &err) == -1) {
			fprintf(stderr, "claimer: %s\n", err.se_msg);
			return (1);
		}
		for (i = 0; i < n; i++)
			printf("%s %lld %s\n", runs[i].r_job,
			    (long long)runs[i].r_fire, runs[i].r_node);
		store_runs_free(runs, n);
	} else if (strcmp(argv[1], "jobs") == 0) {
		open_store(argv[2], argv[3], "check");
		if (store_jobs_list(st, NULL, &jobs, &n, &err) == -1) {
			fprintf(stderr, "claimer: %s\n", err.se_msg);
			return (1);
		}
		for (i = 0; i < n; i++)
			printf("%s %lld %s\n", jobs[i].j_id,
			    (long long)jobs[i].j_last_fire,
			    jobs[i].j_claimed_by);
		store_jobs_free(jobs, n);
	} else if (strcmp(argv[1], "check") == 0) {
		rc = check(argv[2], argv[3]);
	} else if (strcmp(argv[1], "causal") == 0 && argc == 6) {
		first = strtonum(argv[5], 1, 1000000, &errstr);
		if (errstr != NULL)
			usage();
		rc = causal(argv[2], argv[3], argv[4], first);
	} else if (strcmp(argv[1], "hold") == 0 && argc == 7) {
		node = argv[4];
		njobs = strtonum(argv[5], 1, 1000, &errstr);
		if (errstr == NULL)
			first = strtonum(argv[6], 1, 1000000, &errstr);
		if (errstr != NULL)
			usage();
		open_store(argv[2], argv[3], node);
		rc = hold(njobs, first);
	} else
		usage();
	store_close(st);
	return (rc);
}
