/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_history.c: clustercron history lists the recorded runs, newest
 * first, of every job or of one: where and when each ran, how it ended
 * and how its output began.  Missed and skipped fires are records too
 * (attempt 0), so that a fire nobody ran still shows.
 */

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "clustercron.h"
#include "common.h"
#include "json.h"
#include "parser.h"
#include "pathnames.h"
#include "store.h"

#define HIST_DEFAULT	20
#define HIST_MAX	1000000
#define HEAD_MAX	40	/* characters of output shown to people */

enum {
	C_JOB, C_NODE, C_FIRE, C_ATTEMPT, C_STARTED, C_ENDED, C_DURATION,
	C_STATE, C_RESULT, C_OUTPUT, C_COUNT
};
static const char *const head[C_COUNT] = {
	"JOB", "NODE", "FIRE", "ATTEMPT", "STARTED", "ENDED", "DURATION",
	"STATE", "RESULT", "OUTPUT"
};
static const size_t colmax[C_COUNT] = {
	[C_NODE] = 24, [C_OUTPUT] = HEAD_MAX
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 }
};

static void	 usage(void) __attribute__((__noreturn__));

static void
usage(void)
{
	fprintf(stderr, "usage: clustercron history [--json] [-c file] "
	    "[-n count] [job]\n");
	exit(1);
}

int
verb_history(int argc, char **argv)
{
	struct admin		 a;
	struct store_error	 se;
	struct store_job	*jobs = NULL;
	struct store_run	*runs = NULL, *r;
	const struct store_job	*j;
	struct json		 js;
	struct tbl		 t;
	const char		*conffile = PATH_CONF, *errstr, *id = NULL;
	char			 buf[ADMIN_TIMELEN], *line;
	size_t			 njobs = 0, nruns = 0, i, len;
	long long		 count = HIST_DEFAULT;
	int			 ch, json = 0, explicit = 0;

	while ((ch = getopt_long(argc, argv, "c:n:", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'c':
			conffile = optarg;
			explicit = 1;
			break;
		case 'n':
			count = strtonum(optarg, 0, HIST_MAX, &errstr);
			if (errstr != NULL)
				errx(1, "history: -n %s: count is %s (0 for "
				    "all, or up to %d)", optarg, errstr,
				    HIST_MAX);
			break;
		case 'J':
			json = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage();

	admin_open(&a, "history", conffile, explicit);
	if (argc == 1) {
		if (store_jobs_list(a.a_st, NULL, &jobs, &njobs, &se) == -1)
			admin_storefail(&a, "listing the jobs", &se);
		/*
		 * A whole identity names the runs of a job that is gone
		 * from the tables too: they stay until trimmed.
		 */
		if (admin_job_match(jobs, njobs, argv[0], &i) == 0 &&
		    strlen(argv[0]) == CRON_IDLEN &&
		    strspn(argv[0], "0123456789abcdef") == CRON_IDLEN)
			id = argv[0];
		else {
			j = admin_job_pick(&a, jobs, njobs, argv[0]);
			id = j->j_id;
		}
	}
	if (store_runs_list(a.a_st, id, (size_t)count, &runs, &nruns,
	    &se) == -1)
		admin_storefail(&a, "listing the runs", &se);

	if (json) {
		json_init(&js, stdout);
		json_begin(&js, '[');
		for (i = 0; i < nruns; i++) {
			json_begin(&js, '{');
			admin_json_run(&js, &runs[i]);
			json_end(&js, '}');
		}
		json_end(&js, ']');
		json_done(&js);
	} else {
		tbl_init(&t, C_COUNT, head, colmax);
		for (i = 0; i < nruns; i++) {
			r = &runs[i];
			tbl_addf(&t, "%.*s", ADMIN_SHORTID, r->r_job);
			tbl_add(&t, r->r_node);
			admin_local((int64_t)r->r_fire * 1000, buf,
			    sizeof(buf));
			tbl_add(&t, buf);
			tbl_addf(&t, "%d", r->r_attempt);
			admin_local(r->r_start, buf, sizeof(buf));
			tbl_add(&t, buf);
			admin_local(r->r_end, buf, sizeof(buf));
			tbl_add(&t, buf);
			if (r->r_end != 0 && r->r_start != 0 &&
			    r->r_attempt > 0)
				admin_dur(r->r_end - r->r_start, buf,
				    sizeof(buf));
			else
				strlcpy(buf, "-", sizeof(buf));
			tbl_add(&t, buf);
			tbl_add(&t, store_run_state_name(r->r_state));
			if (r->r_state == RUN_FINISHED)
				admin_result(r, buf, sizeof(buf));
			else
				strlcpy(buf, "-", sizeof(buf));
			tbl_add(&t, buf);
			/* The first line of the output, if any. */
			line = NULL;
			if (r->r_output != NULL && r->r_outlen > 0) {
				len = strcspn(r->r_output, "\n");
				if (len > r->r_outlen)
					len = r->r_outlen;
				line = xmalloc(len + 1);
				memcpy(line, r->r_output, len);
				line[len] = '\0';
			}
			tbl_add(&t, line);
			free(line);
		}
		tbl_print(&t, stdout);
		tbl_free(&t);
	}
	store_runs_free(runs, nruns);
	store_jobs_free(jobs, njobs);
	admin_close(&a);
	return (admin_done());
}
