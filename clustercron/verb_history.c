/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_history.c: clustercron history lists the recorded runs, newest
 * first, of every job or of one: where and when each ran, how it ended
 * and how its output began, with the owner and command of its job.
 * Missed and skipped fires are records too (attempt 0), so that a fire
 * nobody ran still shows.
 *
 * A job whose tables are gone from every node has left the store, but
 * its runs stay until they are trimmed, and so does what the job was
 * (store_jobs_gone()): such a job is named and shown as any other.
 *
 * The attempts of a one-shot job (at:N) are runs too: they show its
 * owner, its commands on one line (at_summary()) and, after each
 * attempt's result, what followed it: "retried" for an earlier one,
 * the job's state (retrying, done, failed) for its last.  A one-shot
 * job trimmed before its runs shows as gone.
 */

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "atjob.h"
#include "clustercron.h"
#include "common.h"
#include "json.h"
#include "parser.h"
#include "pathnames.h"
#include "store.h"

#define HIST_DEFAULT	20
#define HIST_MAX	1000000
#define HEAD_MAX	40	/* characters of output shown to people */
#define GETS_MAX	64	/* jobs read one by one, beyond: all of them */

enum {
	C_JOB, C_OWNER, C_NODE, C_FIRE, C_ATTEMPT, C_STARTED, C_ENDED,
	C_DURATION, C_STATE, C_RESULT, C_CMD, C_OUTPUT, C_COUNT
};
static const char *const head[C_COUNT] = {
	"JOB", "OWNER", "NODE", "FIRE", "ATTEMPT", "STARTED", "ENDED",
	"DURATION", "STATE", "RESULT", "COMMAND", "OUTPUT"
};
static const size_t colmax[C_COUNT] = {
	[C_OWNER] = 16, [C_NODE] = 24, [C_CMD] = 32, [C_OUTPUT] = HEAD_MAX
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 }
};

/*
 * What the store says of the runs' jobs: arrays it returned, and the
 * jobs in them sorted by identity.
 */
struct descs {
	struct store_job	**d_lists;
	size_t			 *d_lens;
	size_t			  d_nlists;
	const struct store_job	**d_byid;
	size_t			  d_n;
};

static void	 usage(void) __attribute__((__noreturn__));
static int	 job_cmp(const void *, const void *);
static int	 runjob_cmp(const void *, const void *);
static void	 descs_add(struct descs *, struct store_job *, size_t);
static void	 descs_read(struct admin *, struct descs *,
		    const struct store_run *, size_t);
static const struct store_job *descs_find(const struct descs *,
		    const char *);
static void	 descs_free(struct descs *);
static int	 at_cmp(const void *, const void *);
static const struct store_atjob *at_find(const struct store_atjob *,
		    size_t, const char *);
static void	 at_follow(const struct store_run *,
		    const struct store_atjob *, char *, size_t);

static void
usage(void)
{
	fprintf(stderr, "usage: clustercron history [--json] [-c file] "
	    "[-n count] [job]\n");
	exit(1);
}

static int
job_cmp(const void *a, const void *b)
{
	return (strcmp((*(const struct store_job *const *)a)->j_id,
	    (*(const struct store_job *const *)b)->j_id));
}

static int
runjob_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Take over an array of n jobs from the store (NULL: none). */
static void
descs_add(struct descs *d, struct store_job *jobs, size_t n)
{
	size_t	 i;

	if (jobs == NULL)
		return;
	d->d_lists = xreallocarray(d->d_lists, d->d_nlists + 1,
	    sizeof(*d->d_lists));
	d->d_lens = xreallocarray(d->d_lens, d->d_nlists + 1,
	    sizeof(*d->d_lens));
	d->d_lists[d->d_nlists] = jobs;
	d->d_lens[d->d_nlists++] = n;
	d->d_byid = xreallocarray(d->d_byid, d->d_n + n + 1,
	    sizeof(*d->d_byid));
	for (i = 0; i < n; i++)
		d->d_byid[d->d_n++] = &jobs[i];
}

/*
 * The jobs of the runs: those that exist, each read alone when the
 * runs have few jobs, else all of them; and those that are gone.
 */
static void
descs_read(struct admin *a, struct descs *d, const struct store_run *runs,
    size_t nruns)
{
	struct store_error	 se;
	struct store_job	*jobs;
	const char		**ids;
	size_t			 i, k, n;

	memset(d, 0, sizeof(*d));
	ids = xreallocarray(NULL, nruns + 1, sizeof(*ids));
	for (i = 0; i < nruns; i++)
		ids[i] = runs[i].r_job;
	qsort(ids, nruns, sizeof(*ids), runjob_cmp);
	for (i = k = 0; i < nruns; i++)
		if (k == 0 || strcmp(ids[k - 1], ids[i]) != 0)
			ids[k++] = ids[i];
	if (k > GETS_MAX) {
		if (store_jobs_list(a->a_st, NULL, &jobs, &n, &se) == -1)
			admin_storefail(a, "listing the jobs", &se);
		descs_add(d, jobs, n);
	} else {
		for (i = 0; i < k; i++) {
			if (store_job_get(a->a_st, ids[i], &jobs, &se) == -1)
				admin_storefail(a, "reading a job", &se);
			descs_add(d, jobs, 1);
		}
	}
	free(ids);
	if (store_jobs_gone(a->a_st, &jobs, &n, &se) == -1)
		admin_storefail(a, "listing the jobs that are gone", &se);
	descs_add(d, jobs, n);
	if (d->d_n > 0)
		qsort(d->d_byid, d->d_n, sizeof(*d->d_byid), job_cmp);
}

static const struct store_job *
descs_find(const struct descs *d, const char *id)
{
	struct store_job	 key;
	const struct store_job	*kp = &key, *const *hit;

	if (d->d_n == 0)
		return (NULL);
	key.j_id = (char *)id;
	hit = bsearch(&kp, d->d_byid, d->d_n, sizeof(*d->d_byid), job_cmp);
	return (hit != NULL ? *hit : NULL);
}

static void
descs_free(struct descs *d)
{
	size_t	 i;

	for (i = 0; i < d->d_nlists; i++)
		store_jobs_free(d->d_lists[i], d->d_lens[i]);
	free(d->d_lists);
	free(d->d_lens);
	free(d->d_byid);
}

static int
at_cmp(const void *a, const void *b)
{
	int64_t	 x = *(const int64_t *)a;
	int64_t	 y = ((const struct store_atjob *)b)->a_id;

	return (x < y ? -1 : x > y);
}

/* The one-shot job a run's job names (at:N), from jobs by id; or NULL. */
static const struct store_atjob *
at_find(const struct store_atjob *jobs, size_t n, const char *runjob)
{
	const char	*errstr;
	int64_t		 id;

	if (n == 0 || strncmp(runjob, "at:", 3) != 0)
		return (NULL);
	id = strtonum(runjob + 3, 1, INT64_MAX, &errstr);
	if (errstr != NULL)
		return (NULL);
	return (bsearch(&id, jobs, n, sizeof(*jobs), at_cmp));
}

/*
 * The result of an attempt of a one-shot job, then what followed it:
 * "exit 3; retried", "exit 0; done", "lost; failed".
 */
static void
at_follow(const struct store_run *r, const struct store_atjob *aj,
    char *buf, size_t len)
{
	const char	*then;

	if (r->r_state == RUN_RUNNING) {
		strlcpy(buf, "-", len);
		return;
	}
	if (r->r_attempt < aj->a_attempt)
		then = "retried";
	else if (aj->a_state == AT_RUNNING)
		then = NULL;
	else
		then = store_at_state_name(aj->a_state);
	if (r->r_state == RUN_FINISHED)
		admin_result(r, buf, len);
	else
		strlcpy(buf, store_run_state_name(r->r_state), len);
	if (then != NULL) {
		strlcat(buf, "; ", len);
		strlcat(buf, then, len);
	}
}

int
verb_history(int argc, char **argv)
{
	struct admin		 a;
	struct store_error	 se;
	struct store_job	*jobs = NULL, *gone = NULL;
	struct store_atjob	*ats = NULL;
	const struct store_atjob *aj;
	struct store_run	*runs = NULL, *r;
	const struct store_job	*j = NULL;
	struct descs		 d;
	struct json		 js;
	struct tbl		 t;
	const char		*conffile = PATH_CONF, *errstr, *id = NULL;
	char			 buf[ADMIN_TIMELEN], *line;
	char			 cmd[STORE_AT_HEADMAX + 1];
	size_t			 njobs = 0, ngone = 0, nruns = 0, nats = 0, i;
	size_t			 len;
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
		 * A job that is gone from every table is named as the
		 * others, after them; a whole identity names the runs of
		 * any job, even one the store no longer describes.
		 */
		if (admin_job_match(jobs, njobs, argv[0], &i) == 0) {
			if (store_jobs_gone(a.a_st, &gone, &ngone, &se) == -1)
				admin_storefail(&a, "listing the jobs that "
				    "are gone", &se);
			if (admin_job_match(gone, ngone, argv[0], &i) > 0)
				j = admin_job_pick(&a, gone, ngone, argv[0]);
			else if ((strlen(argv[0]) == CRON_IDLEN &&
			    strspn(argv[0], "0123456789abcdef") ==
			    CRON_IDLEN) || (strncmp(argv[0], "at:", 3) == 0 &&
			    argv[0][3] != '\0' && strspn(argv[0] + 3,
			    "0123456789") == strlen(argv[0] + 3)))
				/* A one-shot job's attempts: at:N. */
				id = argv[0];
		}
		if (j == NULL && id == NULL)
			j = admin_job_pick(&a, jobs, njobs, argv[0]);
		if (j != NULL)
			id = j->j_id;
	}
	if (store_runs_list(a.a_st, id, (size_t)count, &runs, &nruns,
	    &se) == -1)
		admin_storefail(&a, "listing the runs", &se);
	memset(&d, 0, sizeof(d));
	if (argc == 0)
		descs_read(&a, &d, runs, nruns);
	/* One-shot jobs' attempts: what the store keeps of their jobs. */
	for (i = 0; i < nruns; i++)
		if (strncmp(runs[i].r_job, "at:", 3) == 0)
			break;
	if (i < nruns && store_at_heads(a.a_st, NULL, 1, &ats, &nats,
	    &se) == -1)
		admin_storefail(&a, "listing the one-shot jobs", &se);

	if (json) {
		json_init(&js, stdout);
		json_begin(&js, '[');
	} else
		tbl_init(&t, C_COUNT, head, colmax);
	for (i = 0; i < nruns; i++) {
		r = &runs[i];
		if (argc == 0)
			j = descs_find(&d, r->r_job);
		if ((aj = at_find(ats, nats, r->r_job)) != NULL)
			at_summary(aj->a_cmd, aj->a_cmdlen, cmd, sizeof(cmd));
		if (json) {
			json_begin(&js, '{');
			admin_json_run(&js, r);
			json_key(&js, "owner");
			json_str(&js, aj != NULL ? aj->a_owner : j != NULL ?
			    j->j_owner : NULL);
			json_key(&js, "name");
			json_str(&js, aj != NULL ? (*aj->a_key != '\0' ?
			    aj->a_key : NULL) : j != NULL ? admin_job_name(j) :
			    NULL);
			json_key(&js, "command");
			json_str(&js, aj != NULL ? cmd : j != NULL ? j->j_cmd :
			    NULL);
			json_key(&js, "gone");
			json_bool(&js, aj == NULL && (j == NULL ||
			    j->j_gone != 0));
			json_key(&js, "job_state");
			json_str(&js, aj != NULL ?
			    store_at_state_name(aj->a_state) : NULL);
			json_end(&js, '}');
			continue;
		}
		tbl_addf(&t, "%.*s", ADMIN_SHORTID, r->r_job);
		tbl_add(&t, aj != NULL ? aj->a_owner : j != NULL ? j->j_owner :
		    NULL);
		tbl_add(&t, r->r_node);
		admin_local((int64_t)r->r_fire * 1000, buf, sizeof(buf));
		tbl_add(&t, buf);
		tbl_addf(&t, "%d", r->r_attempt);
		admin_local(r->r_start, buf, sizeof(buf));
		tbl_add(&t, buf);
		admin_local(r->r_end, buf, sizeof(buf));
		tbl_add(&t, buf);
		if (r->r_end != 0 && r->r_start != 0 && r->r_attempt > 0)
			admin_dur(r->r_end - r->r_start, buf, sizeof(buf));
		else
			strlcpy(buf, "-", sizeof(buf));
		tbl_add(&t, buf);
		tbl_add(&t, store_run_state_name(r->r_state));
		if (aj != NULL)
			at_follow(r, aj, buf, sizeof(buf));
		else if (r->r_state == RUN_FINISHED)
			admin_result(r, buf, sizeof(buf));
		else
			strlcpy(buf, "-", sizeof(buf));
		tbl_add(&t, buf);
		tbl_add(&t, aj != NULL ? cmd : j != NULL ? j->j_cmd : NULL);
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
	if (json) {
		json_end(&js, ']');
		json_done(&js);
	} else {
		tbl_print(&t, stdout);
		tbl_free(&t);
	}
	descs_free(&d);
	store_runs_free(runs, nruns);
	store_jobs_free(jobs, njobs);
	store_jobs_free(gone, ngone);
	store_atjobs_free(ats, nats);
	admin_close(&a);
	return (admin_done());
}
