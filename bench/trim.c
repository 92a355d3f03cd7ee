/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * trim.c: how long a pass of trimming takes on a big store.
 *
 *	bench/trim [-r runs] [-u users] [-j jobs] [-o bytes] URL [CNF]
 *
 * Fills the store with users x jobs jobs and runs runs between them
 * (each with bytes of output), then times rounds of passes of the
 * daemon's budget: with the daemon's defaults, which find nothing over
 * a limit (what trimming costs on a store within its limits); with runs
 * per user lowered by a quarter (every user over); and again.  Each
 * pass is timed: the longest is how long trimming may hold the daemon.
 * A benchmark only measures: it reads the monotonic clock itself.
 */

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

#define BATCH	256
#define BUDGET	2048		/* as the daemon's TRIM_BUDGET */

static void	 round_of(struct store *, const struct store_trim *,
		    const char *);

static double
now_s(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* One round of passes, timed: passes, the longest, all of them. */
static void
round_of(struct store *st, const struct store_trim *l, const char *what)
{
	struct store_trimmed	 td;
	struct store_error	 e;
	double			 t, dt, worst = 0, total = 0;
	size_t			 gone = 0;
	long			 passes = 0;

	do {
		t = now_s();
		if (store_trim_pass(st, l, 60000, &td, &e) == -1)
			errx(1, "trim: %s", e.se_msg);
		dt = now_s() - t;
		total += dt;
		if (dt > worst)
			worst = dt;
		passes++;
		gone += td.td_runs;
	} while (td.td_more);
	printf("%s: %zu runs deleted in %ld passes, %.3f s the longest, "
	    "%.3f s in all\n", what, gone, passes, worst, total);
}

int
main(int argc, char **argv)
{
	struct store_config	 cf;
	struct store_error	 e;
	struct store		*st;
	struct store_job	*jobs;
	struct store_run_start	*rs;
	struct store_run_end	*re;
	struct store_trim	 l;
	char			(*ids)[40], (*own)[24], *out;
	int64_t			*rid;
	long			 runs = 200000, users = 200, perjob = 10;
	long			 obytes = 512, i, k, n, njobs;
	double			 t;
	int			 ch;

	while ((ch = getopt(argc, argv, "r:u:j:o:")) != -1) {
		switch (ch) {
		case 'r':
			runs = strtol(optarg, NULL, 10);
			break;
		case 'u':
			users = strtol(optarg, NULL, 10);
			break;
		case 'j':
			perjob = strtol(optarg, NULL, 10);
			break;
		case 'o':
			obytes = strtol(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 || argc > 2 || runs < 1 || users < 1 || perjob < 1 ||
	    obytes < 0) {
usage:
		fprintf(stderr, "usage: trim [-r runs] [-u users] [-j jobs] "
		    "[-o bytes] URL [CNF]\n");
		return (2);
	}
	memset(&cf, 0, sizeof(cf));
	cf.sc_url = argv[0];
	cf.sc_mysql_file = argc == 2 ? argv[1] : NULL;
	cf.sc_node = "bench";
	cf.sc_output_max = 256 * 1024;
	if (store_open(&cf, &st, &e) == -1)
		errx(1, "%s", e.se_msg);

	njobs = users * perjob;
	ids = calloc(njobs, sizeof(*ids));
	own = calloc(njobs, sizeof(*own));
	jobs = calloc(njobs, sizeof(*jobs));
	rs = calloc(BATCH, sizeof(*rs));
	re = calloc(BATCH, sizeof(*re));
	rid = calloc(BATCH, sizeof(*rid));
	out = malloc(obytes + 1);
	if (ids == NULL || own == NULL || jobs == NULL || rs == NULL ||
	    re == NULL || rid == NULL || out == NULL)
		err(1, NULL);
	memset(out, 'x', obytes);
	for (i = 0; i < njobs; i++) {
		snprintf(ids[i], sizeof(ids[i]), "%032lx", i + 1);
		snprintf(own[i], sizeof(own[i]), "u%ld", i / perjob);
		jobs[i].j_id = ids[i];
		jobs[i].j_owner = own[i];
		jobs[i].j_sched = "* * * * *";
		jobs[i].j_zone = "";
		jobs[i].j_cmd = "true";
	}
	if (store_jobs_register(st, jobs, njobs, &e) == -1)
		errx(1, "register: %s", e.se_msg);
	t = now_s();
	for (i = 0; i < runs; i += n) {
		n = runs - i < BATCH ? runs - i : BATCH;
		for (k = 0; k < n; k++) {
			rs[k].rs_job = ids[(i + k) % njobs];
			rs[k].rs_fire = 1900000000 + (i + k) / njobs * 60;
			rs[k].rs_attempt = 1;
			rs[k].rs_pid = 1;
			rs[k].rs_start = 1000;
		}
		if (store_runs_start_batch(st, rs, n, rid, &e) == -1)
			errx(1, "starts: %s", e.se_msg);
		for (k = 0; k < n; k++) {
			re[k].re_id = rid[k];
			re[k].re_end = 2000;
			re[k].re_out = out;
			re[k].re_outlen = obytes;
		}
		if (store_runs_end_batch(st, re, n, &e) == -1)
			errx(1, "ends: %s", e.se_msg);
	}
	printf("%s: %ld runs of %ld bytes, %ld users x %ld jobs, filled in "
	    "%.1f s\n", st == NULL ? "" : argv[0], runs, obytes, users,
	    perjob, now_s() - t);

	/* The daemon's defaults: nothing over (runs are "young": age 0). */
	memset(&l, 0, sizeof(l));
	l.tr_job_runs = 1000;
	l.tr_job_bytes = 16 << 20;
	l.tr_user_runs = 50000;
	l.tr_user_bytes = 256 << 20;
	l.tr_budget = BUDGET;
	for (k = 0; k < 2; k++)
		round_of(st, &l, "a round with nothing over a limit");

	/* Every user over by a quarter of his runs. */
	l.tr_user_runs = (size_t)(runs / users * 3 / 4);
	round_of(st, &l, "a round with runs per user lowered by a quarter");
	round_of(st, &l, "a round with nothing over a limit again");
	store_close(st);
	return (0);
}
