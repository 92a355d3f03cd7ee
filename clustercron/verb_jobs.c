/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_jobs.c: clustercron jobs lists the jobs the store knows, with
 * their next fire, their last claimed fire and their last result.
 *
 * The store keeps a job's schedule as written, not its instants, so
 * the next fire is computed here as the daemon computes it: the text
 * parsed again (six fields mean a seconds field) and sched_next() in
 * the job's zone, or the local zone when the table set none.
 *
 * One-shot jobs (at) follow the cron jobs, each as at:N, those done,
 * failed or cancelled too until they are trimmed with the history: the
 * time asked for as its schedule, the next attempt when one is due, and
 * the job's state (waiting, running, retrying, done, failed, cancelled)
 * with its last attempt's result.
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

enum {
	C_ID, C_NAME, C_OWNER, C_SCOPE, C_SCHED, C_ZONE, C_NEXT, C_PAUSED,
	C_LAST, C_LASTNODE, C_RESULT, C_CMD, C_COUNT
};
static const char *const head[C_COUNT] = {
	"JOB", "NAME", "OWNER", "SCOPE", "SCHEDULE", "ZONE", "NEXT",
	"PAUSED", "LAST_FIRE", "LAST_NODE", "RESULT", "COMMAND"
};
static const size_t colmax[C_COUNT] = {
	[C_NAME] = 24, [C_OWNER] = 16, [C_SCHED] = 32, [C_ZONE] = 24,
	[C_LASTNODE] = 24, [C_CMD] = 48
};

/* What sched text says about the next fire. */
enum next_kind { NEXT_AT, NEXT_REBOOT, NEXT_NEVER, NEXT_UNKNOWN };

/* The zones seen so far, loaded once each. */
struct zone {
	char		*z_name;	/* "" for the local zone */
	struct cron_tz	*z_tz;		/* NULL: could not be loaded */
};

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ NULL, 0, NULL, 0 }
};

static void	 usage(void) __attribute__((__noreturn__));
static const struct cron_tz *zone_get(struct zone **, size_t *,
		    const char *);
static enum next_kind job_next(const struct store_job *, struct zone **,
		    size_t *, time_t, time_t *);
static int	 run_cmp(const void *, const void *);
static const struct store_run *latest(const struct store_run *, size_t,
		    const char *);
static int64_t	 at_next(const struct store_atjob *);
static void	 at_json(struct json *, const struct store_atjob *,
		    const struct store_run *);
static void	 at_row(struct tbl *, const struct store_atjob *,
		    const struct store_run *);

static void
usage(void)
{
	fprintf(stderr, "usage: clustercron jobs [--json] [-c file] "
	    "[-u owner]\n");
	exit(1);
}

static const struct cron_tz *
zone_get(struct zone **zones, size_t *nzones, const char *name)
{
	char	 errbuf[256];
	size_t	 i;

	for (i = 0; i < *nzones; i++)
		if (strcmp((*zones)[i].z_name, name) == 0)
			return ((*zones)[i].z_tz);
	*zones = xreallocarray(*zones, *nzones + 1, sizeof(**zones));
	(*zones)[*nzones].z_name = xstrdup(name);
	(*zones)[*nzones].z_tz = tz_load(*name == '\0' ? NULL : name,
	    errbuf, sizeof(errbuf));
	if ((*zones)[*nzones].z_tz == NULL)
		warnx("jobs: %s", errbuf);
	return ((*zones)[(*nzones)++].z_tz);
}

/* The job's next fire strictly after now, in *next when NEXT_AT. */
static enum next_kind
job_next(const struct store_job *j, struct zone **zones, size_t *nzones,
    time_t now, time_t *next)
{
	struct cron_sched	 sched;
	struct cron_diag	 diag;
	const struct cron_tz	*tz;
	const char		*p;
	int			 nf = 0, flags = 0;

	/* Six fields: the table had CLUSTERCRON_SECONDS. */
	for (p = j->j_sched; *p != '\0';) {
		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		nf++;
		p += strcspn(p, " \t");
	}
	if (nf == 6)
		flags = CRON_SECONDS;
	if (cron_expr_parse(j->j_sched, flags, &sched, &diag) == -1)
		return (NEXT_UNKNOWN);
	if (sched.s_flags & SCHED_REBOOT)
		return (NEXT_REBOOT);
	if ((tz = zone_get(zones, nzones, j->j_zone)) == NULL)
		return (NEXT_UNKNOWN);
	if (sched_next(&sched, tz, now, next) == -1)
		return (NEXT_NEVER);
	return (NEXT_AT);
}

static int
run_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct store_run *)a)->r_job,
	    ((const struct store_run *)b)->r_job));
}

/* The latest record of a job, from runs sorted by job; or NULL. */
static const struct store_run *
latest(const struct store_run *runs, size_t n, const char *id)
{
	struct store_run	 key;

	if (n == 0)
		return (NULL);
	memset(&key, 0, sizeof(key));
	key.r_job = (char *)id;
	return (bsearch(&key, runs, n, sizeof(*runs), run_cmp));
}

/* A one-shot job's next attempt (ms), 0 when none is due. */
static int64_t
at_next(const struct store_atjob *a)
{
	return (a->a_state == AT_WAITING || a->a_state == AT_RETRYING ?
	    (int64_t)a->a_next * 1000 : 0);
}

static void
at_json(struct json *js, const struct store_atjob *a,
    const struct store_run *r)
{
	char	 id[STORE_AT_RUNJOBLEN], cmd[STORE_AT_HEADMAX + 1];

	store_at_runjob(a->a_id, id, sizeof(id));
	at_summary(a->a_cmd, a->a_cmdlen, cmd, sizeof(cmd));
	json_begin(js, '{');
	json_key(js, "id");
	json_str(js, id);
	json_key(js, "kind");
	json_str(js, "at");
	json_key(js, "name");
	json_str(js, *a->a_key != '\0' ? a->a_key : NULL);
	json_key(js, "owner");
	json_str(js, a->a_owner);
	json_key(js, "scope");
	json_str(js, "cluster");
	json_key(js, "queue");
	json_strn(js, &a->a_queue, 1);
	json_key(js, "command");
	json_str(js, cmd);
	json_key(js, "state");
	json_str(js, store_at_state_name(a->a_state));
	json_key(js, "attempts");
	json_int(js, a->a_attempt);
	json_key(js, "retries");
	json_int(js, a->a_retries);
	json_key(js, "backoff");
	json_str(js, *a->a_backoff != '\0' ? a->a_backoff : NULL);
	json_key(js, "lost");
	json_str(js, a->a_lost ? "rerun" : "mark");
	json_time(js, "due", (int64_t)a->a_due * 1000);
	json_time(js, "next", at_next(a));
	json_key(js, "submitted_on");
	json_str(js, a->a_node);
	json_time(js, "submitted", a->a_created);
	json_key(js, "claimed_by");
	json_str(js, *a->a_claimed_by != '\0' ? a->a_claimed_by : NULL);
	json_time(js, "claimed_at", a->a_claimed_at);
	json_time(js, "updated", a->a_updated);
	json_key(js, "last_run");
	if (r != NULL) {
		json_begin(js, '{');
		admin_json_run(js, r);
		json_end(js, '}');
	} else
		json_null(js);
	json_end(js, '}');
}

static void
at_row(struct tbl *t, const struct store_atjob *a, const struct store_run *r)
{
	char	 buf[ADMIN_TIMELEN], res[ADMIN_TIMELEN];
	char	 cmd[STORE_AT_HEADMAX + 1];

	tbl_addf(t, "at:%lld", (long long)a->a_id);
	tbl_add(t, a->a_key);
	tbl_add(t, a->a_owner);
	tbl_add(t, "cluster");
	admin_local((int64_t)a->a_due * 1000, buf, sizeof(buf));
	tbl_addf(t, "at %s", buf);
	tbl_add(t, NULL);
	admin_local(at_next(a), buf, sizeof(buf));
	tbl_add(t, buf);
	tbl_add(t, NULL);
	admin_local(a->a_claimed_at, buf, sizeof(buf));
	tbl_add(t, buf);
	tbl_add(t, a->a_claimed_by);
	/* The state, and how the last attempt ended (of how many). */
	if (a->a_state == AT_RUNNING)
		tbl_addf(t, "running (attempt %d)", a->a_attempt);
	else if (r != NULL && a->a_attempt > 0 &&
	    a->a_state != AT_WAITING) {
		admin_result(r, res, sizeof(res));
		tbl_addf(t, "%s: %s (%d attempt%s)",
		    store_at_state_name(a->a_state), res, a->a_attempt,
		    a->a_attempt == 1 ? "" : "s");
	} else
		tbl_add(t, store_at_state_name(a->a_state));
	at_summary(a->a_cmd, a->a_cmdlen, cmd, sizeof(cmd));
	tbl_add(t, cmd);
}

int
verb_jobs(int argc, char **argv)
{
	struct admin		 a;
	struct store_error	 se;
	struct store_job	*jobs = NULL;
	struct store_atjob	*ats = NULL;
	struct store_run	*runs = NULL;
	const struct store_run	*r;
	const struct store_job	*j;
	struct zone		*zones = NULL;
	struct json		 js;
	struct tbl		 t;
	enum next_kind		 nk;
	const char		*conffile = PATH_CONF, *owner = NULL;
	char			 buf[ADMIN_TIMELEN];
	char			 atid[STORE_AT_RUNJOBLEN];
	size_t			 njobs = 0, nats = 0, nruns = 0, nzones = 0, i;
	time_t			 now, next;
	int			 ch, json = 0, explicit = 0;

	while ((ch = getopt_long(argc, argv, "c:u:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			conffile = optarg;
			explicit = 1;
			break;
		case 'u':
			if (*optarg == '\0')
				errx(1, "jobs: -u: empty owner");
			owner = optarg;
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

	admin_open(&a, "jobs", conffile, explicit);
	if (store_jobs_list(a.a_st, owner, &jobs, &njobs, &se) == -1)
		admin_storefail(&a, "listing the jobs", &se);
	if (store_at_heads(a.a_st, owner, 1, &ats, &nats, &se) == -1)
		admin_storefail(&a, "listing the one-shot jobs", &se);
	if (store_runs_latest(a.a_st, &runs, &nruns, &se) == -1)
		admin_storefail(&a, "reading the last runs", &se);
	/* No runs yet, no array: qsort() and bsearch() want one. */
	if (nruns > 0)
		qsort(runs, nruns, sizeof(*runs), run_cmp);
	now = clock_now();

	if (json) {
		json_init(&js, stdout);
		json_begin(&js, '[');
	} else
		tbl_init(&t, C_COUNT, head, colmax);
	for (i = 0; i < njobs; i++) {
		j = &jobs[i];
		nk = job_next(j, &zones, &nzones, now, &next);
		r = latest(runs, nruns, j->j_id);
		if (json) {
			json_begin(&js, '{');
			json_key(&js, "id");
			json_str(&js, j->j_id);
			json_key(&js, "kind");
			json_str(&js, "cron");
			json_key(&js, "name");
			json_str(&js, admin_job_name(j));
			json_key(&js, "owner");
			json_str(&js, j->j_owner);
			json_key(&js, "scope");
			json_str(&js, j->j_scope == SCOPE_NODE ? "node" :
			    "cluster");
			json_key(&js, "schedule");
			json_str(&js, j->j_sched);
			json_key(&js, "zone");
			json_str(&js, *j->j_zone != '\0' ? j->j_zone : NULL);
			json_key(&js, "command");
			json_str(&js, j->j_cmd);
			json_key(&js, "overlap");
			json_str(&js, j->j_overlap == OVERLAP_FORBID ?
			    "forbid" : "allow");
			json_key(&js, "misfire");
			json_str(&js, j->j_misfire == MISFIRE_CATCHUP ?
			    "catchup" : "skip");
			json_key(&js, "grace_s");
			json_int(&js, j->j_grace);
			json_key(&js, "paused");
			json_bool(&js, j->j_paused);
			json_time(&js, "next", nk == NEXT_AT ?
			    (int64_t)next * 1000 : 0);
			json_key(&js, "next_kind");
			json_str(&js, nk == NEXT_AT ? "at" : nk ==
			    NEXT_REBOOT ? "reboot" : nk == NEXT_NEVER ?
			    "never" : "unknown");
			json_time(&js, "last_fire", (int64_t)j->j_last_fire *
			    1000);
			json_key(&js, "claimed_by");
			json_str(&js, *j->j_claimed_by != '\0' ?
			    j->j_claimed_by : NULL);
			json_time(&js, "claimed_at", j->j_claimed_at);
			json_key(&js, "last_run");
			if (r != NULL) {
				json_begin(&js, '{');
				admin_json_run(&js, r);
				json_end(&js, '}');
			} else
				json_null(&js);
			json_end(&js, '}');
			continue;
		}
		tbl_addf(&t, "%.*s", ADMIN_SHORTID, j->j_id);
		tbl_add(&t, admin_job_name(j));
		tbl_add(&t, j->j_owner);
		tbl_add(&t, j->j_scope == SCOPE_NODE ? "node" : "cluster");
		tbl_add(&t, j->j_sched);
		tbl_add(&t, j->j_zone);
		if (nk == NEXT_AT)
			admin_local((int64_t)next * 1000, buf, sizeof(buf));
		tbl_add(&t, nk == NEXT_AT ? buf : nk == NEXT_REBOOT ?
		    "@reboot" : nk == NEXT_NEVER ? "never" : "?");
		tbl_add(&t, j->j_paused ? "yes" : "no");
		admin_local((int64_t)j->j_last_fire * 1000, buf, sizeof(buf));
		tbl_add(&t, buf);
		tbl_add(&t, j->j_claimed_by);
		if (r != NULL)
			admin_result(r, buf, sizeof(buf));
		tbl_add(&t, r != NULL ? buf : "-");
		tbl_add(&t, j->j_cmd);
	}
	for (i = 0; i < nats; i++) {
		store_at_runjob(ats[i].a_id, atid, sizeof(atid));
		r = latest(runs, nruns, atid);
		if (json)
			at_json(&js, &ats[i], r);
		else
			at_row(&t, &ats[i], r);
	}
	if (json) {
		json_end(&js, ']');
		json_done(&js);
	} else {
		tbl_print(&t, stdout);
		tbl_free(&t);
	}
	for (i = 0; i < nzones; i++) {
		free(zones[i].z_name);
		tz_free(zones[i].z_tz);
	}
	free(zones);
	store_jobs_free(jobs, njobs);
	store_atjobs_free(ats, nats);
	store_runs_free(runs, nruns);
	admin_close(&a);
	return (admin_done());
}
