/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * atrun.c: the daemon runs one-shot jobs (at(1) for the cluster), under
 * daemon.c in the daemon's chain (daemon.h), beside claim.c.  The jobs
 * are rows of the store (store.h says what they are and why an attempt
 * has one winner); this file looks at the store, claims, starts and
 * ends their attempts, and settles those whose node died.
 *
 * Looking.  One monotonic timer: at the earliest attempt due
 * (store_at_next()), and at the latest AT_RESCAN later, since another
 * node (or ctab on this one: atrun_kick()) may have submitted one in
 * between.  Each look claims at most AT_BATCH due attempts, one
 * conditional write each (store_at_claim()), and looks again at once
 * when there were that many.  Nodes start their look at a different
 * place of the list of due jobs, so that in a burst they contend less
 * for the same rows.
 *
 * An attempt won is started through proc.c (under a runner, as cron
 * fires are) as its owner, the script atjob.c writes (the captured
 * environment, umask and directory, then the commands) on /bin/sh's
 * standard input, as atd does.  When it ends, at_after() decides:
 * done, failed, or retrying at the back-off; store_at_finish() records
 * the run's end and the job's move in one transaction, and then the
 * run file its end was read from goes (kept while the store cannot
 * take it).  The runner mails the owner as at does: the output, with
 * the subject "Output from your job N", or with -m a mail even without
 * output.  A runner that dies before the end loses the attempt (its
 * end unknown), which the job's lost policy settles.
 *
 * A daemon that stops leaves its attempts to their runners; the next
 * one adopts them (proc.c hands the runs whose id starts "at:" to
 * adopted() here), rebuilds each from the store and records its end
 * when it comes.
 *
 * A node that dies while an attempt runs: the reaper marks its run lost
 * as it marks cron runs (node.c), and a node that restarts marks lost
 * the runs its earlier life left; each look (every AT_SETTLE at most)
 * asks the store for the jobs whose attempt's run is no longer running
 * (store_at_lost()), and at_after() decides as the job's lost policy
 * says (mark: failed; rerun: retried).  The move is conditional, so
 * that when several nodes settle at once one moves the job.
 *
 * Catch-up: a job submitted and due before this daemon first looked at
 * the store (it was down, or the store was) is run at once, and a
 * CATCH-UP line says how late; its run's start in the history says it
 * too.
 *
 * What the store cannot take when it happens (a claim whose answer was
 * lost, a start, an end) is kept and tried again at the next look: a
 * claim in doubt is claimed again (the store tells the truth then), an
 * end is recorded once the store answers.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/wait.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"
#include "atjob.h"

#define AT_BATCH	256	/* attempts claimed per look */
#define AT_RESCAN	60000	/* ms: look at least this often (SQLite) */
#define AT_SETTLE	5000	/* ms: lost attempts looked for */
#define AT_RETRY	1000	/* ms: a store that failed, tried again */
#define AT_DOUBTMAX	1024	/* claims in doubt kept */
#define AT_RUNPREFIX	"at:"	/* the runs of one-shot jobs: "at:N" */

/* An attempt of this node's, from its claim until its end is stored. */
struct attempt {
	LIST_ENTRY(attempt) t_entry;
	int64_t		 t_id;
	int		 t_num;		/* from 1 */
	int		 t_fenced;	/* earlier ones not started in time */
	time_t		 t_due;		/* the job's instant */
	char		 t_label[STORE_AT_RUNJOBLEN];	/* "at:N" */
	char		 t_what[64];	/* "at job N", for the log */
	char		*t_owner;
	int		 t_retries;
	struct at_backoff t_backoff;
	int		 t_lost;	/* rerun */
	int		 t_mail;
	char		**t_env;
	char		*t_script;
	size_t		 t_scriptlen;
	struct proc	*t_proc;
	pid_t		 t_pid;
	int64_t		 t_start;	/* wall ms */
	int		 t_recstart;	/* its start is to be stored */
	int		 t_ended;	/* its end is to be stored */
	int		 t_unknown;	/* ... and is unknown (lost) */
	int		 t_needjob;	/* adopted: the job not read yet */
	enum at_outcome	 t_how;
	time_t		 t_endsec;	/* the end, rounded up, for at_after */
	struct store_run_end t_re;
	char		*t_out;
	char		*t_spool;	/* the run file its end is in */
	enum store_at_state t_to;
	time_t		 t_next;
};
LIST_HEAD(attempts, attempt);

static struct attempts	 running = LIST_HEAD_INITIALIZER(running);
static struct attempts	 ended = LIST_HEAD_INITIALIZER(ended);
static size_t		 nrunning;

/* Claims whose answer was lost: claimed again at the next look. */
struct doubt {
	int64_t		 d_id;
	int		 d_num;
};
static struct doubt	 doubts[AT_DOUBTMAX];
static size_t		 ndoubts;

static int64_t		 first_look;	/* wall ms of the first look, 0 */
static int64_t		 settled;	/* mono ms of the last settling */
static uint32_t		 rotor;		/* where this node starts */

static void	 look(struct mtimer *, struct tick *);
static void	 look_at(struct tick *, int64_t);
static int	 claim_at(struct tick *);
static int	 settle_doubts(struct tick *);
static int	 settle_lost(struct tick *);
static int	 flush(struct tick *);
static int	 record(struct attempt *, struct tick *);
static void	 start(const struct store_atjob *, int, struct tick *);
static void	 nostart(struct attempt *, const char *, int, struct tick *);
static void	 finish(struct attempt *, enum at_outcome, int,
		    const struct outbuf *, int64_t, struct tick *);
static void	 decide(struct attempt *, struct tick *);
static void	 lost_end(struct attempt *, struct tick *);
static void	 on_proc(const struct proc_event *, struct tick *);
static void	 adopted(const struct proc_event *, struct tick *);
static void	 job_read(struct attempt *, const struct store_atjob *);
static const struct mail_req *mail_settings(struct attempt *,
		    const struct passwd *, struct mail_req *, char *, size_t);
static void	 attempt_free(struct attempt *);

static struct mtimer	 look_t = MTIMER_INIT(look, NULL);

/* Where in a list of due jobs this node starts (FNV-1a of its name). */
static uint32_t
node_hash(const char *s)
{
	uint32_t	 h = 2166136261U;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619U;
	return (h);
}

/*
 * Before the runs of an earlier life are adopted (proc_adopt()): the
 * one-shot attempts among them are this file's.
 */
void
atrun_init(void)
{
	proc_adopt_handler(AT_RUNPREFIX, on_proc);
}

/* Look at the store at once: a job was submitted, the store is back. */
void
atrun_kick(struct tick *tk)
{
	if (mtimer_queued(&look_t) && look_t.mt_when <= tk->tk_mono)
		return;
	mtimer_set(&look_t, tk->tk_mono);
}

size_t
atrun_running(void)
{
	return (nrunning);
}

/*
 * The next look no later than wall instant `wall' (ms; 0: none due), and
 * at most AT_RESCAN away: a look queued sooner stays.
 */
static void
look_at(struct tick *tk, int64_t wall)
{
	int64_t	 rescan, delay;

	rescan = D.d_mysql && D.d_conf.c_heartbeat_ms > 0 ?
	    D.d_conf.c_heartbeat_ms : AT_RESCAN;
	delay = wall == 0 ? rescan : wall - tk->tk_wall;
	if (delay > rescan)
		delay = rescan;
	if (delay < 0)
		delay = 0;
	if (mtimer_queued(&look_t) && look_t.mt_when <= tk->tk_mono + delay)
		return;
	mtimer_set(&look_t, tk->tk_mono + delay);
}

static void
look(struct mtimer *t, struct tick *tk)
{
	struct store_error	 se;
	time_t			 next;
	int			 more;

	if (D.d_st == NULL || !gate_store_up()) {
		/* The store's return kicks (daemon.c); meanwhile, now and then. */
		look_at(tk, tk->tk_wall + AT_RESCAN);
		return;
	}
	if (flush(tk) == -1 || D.d_stopping) {
		if (!D.d_stopping)
			look_at(tk, tk->tk_wall + AT_RETRY);
		return;
	}
	tick_read(tk);
	switch (gate_check(tk->tk_mono)) {
	case GATE_CLAIM:
	case GATE_RECOVER:
		break;
	default:
		/* Down, fenced, drained: not this node's to run now. */
		look_at(tk, 0);
		return;
	}
	if (first_look == 0) {
		first_look = tk->tk_wall;
		rotor = node_hash(D.d_conf.c_node);
	}
	if (settle_doubts(tk) == -1 || settle_lost(tk) == -1 ||
	    (more = claim_at(tk)) == -1) {
		look_at(tk, tk->tk_wall + AT_RETRY);
		return;
	}
	if (more) {
		look_at(tk, tk->tk_wall);
		return;
	}
	if (store_at_next(D.d_st, &next, &se) == -1) {
		gate_store_failed("reading the one-shot jobs", &se);
		look_at(tk, tk->tk_wall + AT_RETRY);
		return;
	}
	tick_read(tk);
	/* One due now that no look took: not before a second from now. */
	if (next != 0 && (int64_t)next * 1000 <= tk->tk_wall)
		look_at(tk, tk->tk_wall + AT_RETRY);
	else
		look_at(tk, next == 0 ? 0 : (int64_t)next * 1000);
	if (ndoubts > 0 || !LIST_EMPTY(&ended))
		look_at(tk, tk->tk_wall + AT_RETRY);
}

/* Claims in doubt, claimed again: the store now says whose they are. */
static int
settle_doubts(struct tick *tk)
{
	struct store_atjob	*j;
	struct store_error	 se;
	struct doubt		 d;
	int			 won;

	while (ndoubts > 0) {
		d = doubts[ndoubts - 1];
		if (store_at_claim(D.d_st, d.d_id, d.d_num, &won, &se) == -1) {
			gate_store_failed("claiming a one-shot job", &se);
			return (-1);
		}
		ndoubts--;
		if (!won)
			continue;
		if (store_at_get(D.d_st, d.d_id, &j, &se) == -1) {
			gate_store_failed("reading a one-shot job", &se);
			doubts[ndoubts++] = d;
			return (-1);
		}
		if (j != NULL)
			start(j, d.d_num, tk);
		store_atjobs_free(j, 1);
	}
	return (0);
}

/*
 * The jobs whose attempt's run ended without them (marked lost: its
 * node died): done by the job's lost policy.
 */
static int
settle_lost(struct tick *tk)
{
	struct store_atjob	*v;
	struct store_error	 se;
	struct at_backoff	 b;
	enum at_next		 nx;
	enum store_at_state	 to;
	time_t			 next;
	size_t			 i, n;
	int			 moved;
	char			 err[128], label[STORE_AT_RUNJOBLEN];

	if (settled != 0 && tk->tk_mono - settled < AT_SETTLE)
		return (0);
	if (store_at_lost(D.d_st, AT_BATCH, &v, &n, &se) == -1) {
		gate_store_failed("reading the one-shot jobs", &se);
		return (-1);
	}
	settled = tk->tk_mono;
	for (i = 0; i < n; i++) {
		if (at_backoff_parse(*v[i].a_backoff != '\0' ? v[i].a_backoff :
		    AT_DEFAULT_BACKOFF, &b, err, sizeof(err)) == -1)
			(void)at_backoff_parse(AT_DEFAULT_BACKOFF, &b, err,
			    sizeof(err));
		nx = at_after(v[i].a_retries, &b,
		    v[i].a_attempt - v[i].a_fenced, AT_LOST,
		    v[i].a_lost, (time_t)(tk->tk_wall / 1000), &next);
		to = nx == AT_NEXT_RETRY ? AT_RETRYING : AT_FAILED;
		if (store_at_finish(D.d_st, v[i].a_id, v[i].a_attempt, NULL,
		    to, next, &moved, &se) == -1) {
			gate_store_failed("settling a lost one-shot job", &se);
			store_atjobs_free(v, n);
			return (-1);
		}
		if (!moved)
			continue;
		store_at_runjob(v[i].a_id, label, sizeof(label));
		fire_log(LOG_INFO, v[i].a_owner, "LOST", D.d_conf.c_node,
		    v[i].a_due, label, "at job %lld, attempt %d on %s, its end "
		    "is unknown; %s", (long long)v[i].a_id, v[i].a_attempt,
		    v[i].a_claimed_by, to == AT_RETRYING ? "retrying" :
		    v[i].a_lost ? "no retry left, failed" :
		    "not run again (lost policy mark), failed");
	}
	store_atjobs_free(v, n);
	return (0);
}

/*
 * Claim the attempts due and start those won.  Returns 1 when there
 * may be more due than one look takes, 0, or -1 when the store failed.
 */
static int
claim_at(struct tick *tk)
{
	struct store_atjob	*v;
	struct store_error	 se;
	size_t			 i, k, n, tried = 0;
	int			 won, num;

	tick_read(tk);
	if (store_at_due(D.d_st, (time_t)(tk->tk_wall / 1000), AT_BATCH, &v,
	    &n, &se) == -1) {
		gate_store_failed("reading the one-shot jobs", &se);
		return (-1);
	}
	for (k = 0; k < n && !D.d_stopping; k++) {
		i = (k + rotor) % n;
		/* A daemon not run by root runs its own user's alone. */
		if (!D.d_root && (D.d_user == NULL ||
		    strcmp(v[i].a_owner, D.d_user) != 0))
			continue;
		num = v[i].a_attempt + 1;
		tried++;
		if (store_at_claim(D.d_st, v[i].a_id, num, &won, &se) == -1) {
			gate_store_failed("claiming a one-shot job", &se);
			if (ndoubts < AT_DOUBTMAX) {
				doubts[ndoubts].d_id = v[i].a_id;
				doubts[ndoubts++].d_num = num;
			}
			store_atjobs_free(v, n);
			return (-1);
		}
		if (won)
			start(&v[i], num, tk);
	}
	store_atjobs_free(v, n);
	/* Only what this node may claim calls for another look at once. */
	return (n == AT_BATCH && tried > 0);
}

/* What the job's row says of its attempts, into t. */
static void
job_read(struct attempt *t, const struct store_atjob *j)
{
	char	 err[128];

	t->t_due = j->a_due;
	t->t_retries = j->a_retries;
	t->t_lost = j->a_lost;
	t->t_mail = j->a_mail;
	if (at_backoff_parse(*j->a_backoff != '\0' ? j->a_backoff :
	    AT_DEFAULT_BACKOFF, &t->t_backoff, err, sizeof(err)) == -1)
		(void)at_backoff_parse(AT_DEFAULT_BACKOFF, &t->t_backoff, err,
		    sizeof(err));
	t->t_fenced = j->a_fenced;
	t->t_needjob = 0;
}

/* Attempt num of job j is this node's: start it. */
static void
start(const struct store_atjob *j, int num, struct tick *tk)
{
	static char		 why[300];
	struct attempt		*t;
	struct passwd		*pw;
	struct spawn_req	 sr;
	struct proc_req		 pr;
	struct mail_req		 mr;
	char			 title[128], buf[32], subject[64];

	t = xcalloc(1, sizeof(*t));
	t->t_id = j->a_id;
	t->t_num = num;
	store_at_runjob(j->a_id, t->t_label, sizeof(t->t_label));
	snprintf(t->t_what, sizeof(t->t_what), "at job %lld",
	    (long long)j->a_id);
	t->t_owner = xstrdup(j->a_owner);
	job_read(t, j);
	LIST_INSERT_HEAD(&running, t, t_entry);
	nrunning++;

	tick_read(tk);
	if (num == 1 && j->a_created < first_look &&
	    (int64_t)j->a_due * 1000 < first_look - 1000)
		fire_log(LOG_INFO, t->t_owner, "CATCH-UP", D.d_conf.c_node,
		    j->a_due, t->t_label, "%s, %lld s late: due while no "
		    "node ran", t->t_what,
		    (long long)(tk->tk_wall / 1000 - j->a_due));
	if ((pw = getpwnam(t->t_owner)) == NULL) {
		snprintf(why, sizeof(why), "no such user %s", t->t_owner);
		nostart(t, why, 0, tk);
		return;
	}
	if (jobenv_build(pw, NULL, &t->t_env) == -1)
		fatal("environment");
	snprintf(buf, sizeof(buf), "%d", num);
	if (jobenv_set(&t->t_env, "CLUSTERCRON_JOB_ID", t->t_label) == -1 ||
	    jobenv_set(&t->t_env, "CLUSTERCRON_NODE", D.d_conf.c_node) == -1 ||
	    jobenv_set(&t->t_env, "CLUSTERCRON_ATTEMPT", buf) == -1)
		fatal("environment");
	t->t_script = at_script((long)pw->pw_uid, (long)pw->pw_gid,
	    t->t_owner, j->a_mail > 0, j->a_umask, j->a_cwd, j->a_env,
	    j->a_envlen, j->a_cmd, j->a_cmdlen, &t->t_scriptlen);
	if (t->t_script == NULL)
		fatal("a one-shot job's script");
	snprintf(title, sizeof(title), "job %s %s", t->t_owner, t->t_label);
	memset(&sr, 0, sizeof(sr));
	/*
	 * The shell itself, reading the script on its input: the job's
	 * SHELL is /bin/sh (jobenv_build()), so spawn execs it as is.
	 */
	sr.sr_cmd = "/bin/sh";
	sr.sr_env = t->t_env;
	sr.sr_input = t->t_script;
	sr.sr_inputlen = t->t_scriptlen;
	sr.sr_pw = pw;
	sr.sr_title = title;
	sr.sr_outmax = D.d_conf.c_output_max;
	sr.sr_pam = D.d_conf.c_pam_service;
	memset(&pr, 0, sizeof(pr));
	pr.pr_spawn = &sr;
	pr.pr_mail = mail_settings(t, pw, &mr, subject, sizeof(subject));
	pr.pr_owner = t;
	pr.pr_who = t->t_owner;
	pr.pr_what = t->t_what;
	pr.pr_label = t->t_label;
	pr.pr_id = t->t_label;
	pr.pr_fire = t->t_due;
	pr.pr_attempt = num;
	pr.pr_until = gate_lease_until(gate_state());
	pr.pr_handler = on_proc;
	if (proc_start(&pr, tk, &t->t_proc, why, sizeof(why)) == PS_QUEUED)
		return;
	nostart(t, why, 0, tk);
}

/* What proc.c says of an attempt. */
static void
on_proc(const struct proc_event *pe, struct tick *tk)
{
	struct attempt		*t = pe->pe_owner;
	struct spawn_status	 ss;
	char			 why[64];

	if (pe->pe_kind == PE_ADOPTED) {
		adopted(pe, tk);
		return;
	}
	if (pe->pe_spool != NULL) {
		free(t->t_spool);
		t->t_spool = xstrdup(pe->pe_spool);
	}
	switch (pe->pe_kind) {
	case PE_ADOPTED:
		break;
	case PE_STARTED:
		t->t_pid = pe->pe_pid;
		t->t_start = pe->pe_start;
		if (D.d_loglevel & LL_START)
			fire_log(LOG_INFO, t->t_owner, "CMD", D.d_conf.c_node,
			    t->t_due, t->t_label, "%s, attempt %d", t->t_what,
			    t->t_num);
		t->t_recstart = 1;
		(void)record(t, tk);
		return;
	case PE_NOSTART:
	case PE_MISSED:		/* not asked for (no pr_deadline) */
		t->t_proc = NULL;
		nostart(t, pe->pe_why, 0, tk);
		return;
	case PE_LATE:
		t->t_proc = NULL;
		snprintf(why, sizeof(why), "%.1f s past the lease of its "
		    "claim", (double)pe->pe_late / 1000);
		nostart(t, why, 1, tk);
		return;
	case PE_TIMEOUT:
		return;
	case PE_LOST:
		t->t_proc = NULL;
		lost_end(t, tk);
		return;
	case PE_ENDED:
		t->t_proc = NULL;
		if (t->t_pid == 0)
			t->t_pid = pe->pe_pid;
		spawn_status_decode(pe->pe_wstatus, &ss);
		finish(t, ss.ss_exited && ss.ss_code == 0 ? AT_OK :
		    AT_FAILED_RUN, pe->pe_wstatus, pe->pe_out, pe->pe_end, tk);
		return;
	}
}

/*
 * A run of an earlier life whose id is "at:N" (PE_ADOPTED): an attempt
 * again, running (or its end already in the run file, told next), which
 * owns the proc.  What the job says of its retries comes from the
 * store, now or, when the store does not answer, before its end is
 * recorded; the rest from the run file.
 */
static void
adopted(const struct proc_event *pe, struct tick *tk)
{
	const struct runfile	*rf = pe->pe_run;
	struct store_atjob	*j = NULL;
	struct store_error	 se;
	struct attempt		*t;
	char			*end;
	long long		 id;

	id = strtoll(rf->rf_id + strlen(AT_RUNPREFIX), &end, 10);
	if (*end != '\0' || id <= 0) {
		log_warnx("(CRON) ERROR (a run of an earlier life, %s: not a "
		    "one-shot job's; left alone)", rf->rf_id);
		return;
	}
	t = xcalloc(1, sizeof(*t));
	t->t_id = id;
	t->t_num = rf->rf_attempt;
	t->t_due = (time_t)rf->rf_fire;
	store_at_runjob(id, t->t_label, sizeof(t->t_label));
	snprintf(t->t_what, sizeof(t->t_what), "at job %lld", id);
	t->t_owner = xstrdup(rf->rf_user != NULL ? rf->rf_user : "CRON");
	t->t_pid = rf->rf_pid;
	t->t_start = rf->rf_start;
	t->t_proc = pe->pe_proc;
	/* Its start, recorded again: the store keeps the first. */
	t->t_recstart = rf->rf_pid > 0;
	t->t_needjob = 1;
	if (D.d_st != NULL && gate_store_up()) {
		if (store_at_get(D.d_st, id, &j, &se) == -1)
			gate_store_failed("reading a one-shot job", &se);
		else if (j != NULL)
			job_read(t, j);
		store_atjobs_free(j, 1);
	}
	LIST_INSERT_HEAD(&running, t, t_entry);
	nrunning++;
	proc_own(pe->pe_proc, t);
	if (D.d_debug || D.d_loglevel & LL_FIRES)
		fire_log(D.d_loglevel & LL_FIRES ? LOG_INFO : LOG_DEBUG,
		    t->t_owner, "ADOPTED", D.d_conf.c_node, t->t_due,
		    t->t_label, "%s, attempt %d, pid %ld, started by an earlier "
		    "life", t->t_what, t->t_num, (long)t->t_pid);
	if (!t->t_needjob)
		(void)record(t, tk);
}

/*
 * The attempt did not start: a failed attempt, and why.  One that got
 * to its start past the lease it was claimed under (fenced: the node
 * may have been taken for dead) ran nothing, and is not the job's
 * failure: the job is due again at once, for whichever node claims it
 * (unless another node took the attempt for lost meanwhile and moved
 * the job on, which the conditional end then finds).
 */
static void
nostart(struct attempt *t, const char *why, int fenced, struct tick *tk)
{
	struct outbuf	 ob;

	fire_log(LOG_ERR, t->t_owner, fenced ? "FENCED" : "CMD FAILED",
	    D.d_conf.c_node, t->t_due, t->t_label, "%s, attempt %d: %s%s",
	    t->t_what, t->t_num, why, fenced ? ", not started; due again" :
	    "");
	memset(&ob, 0, sizeof(ob));
	ob.ob_buf = (char *)why;
	ob.ob_len = strlen(why);
	ob.ob_total = ob.ob_len;
	t->t_recstart = 0;
	tick_read(tk);
	finish(t, fenced ? AT_FENCED : AT_FAILED_RUN,
	    fenced ? STORE_AT_FENCED : STORE_AT_NOSTART, &ob,
	    tk->tk_wall, tk);
}

/*
 * The attempt ended at end (wall ms; wstatus as waitpid() gave it, or
 * STORE_AT_NOSTART or STORE_AT_FENCED): decide what follows, say it, and record it.  Its
 * runner mailed the output.
 */
static void
finish(struct attempt *t, enum at_outcome how, int wstatus,
    const struct outbuf *out, int64_t end, struct tick *tk)
{
	struct spawn_status	 ss;
	char			 status[128];

	if (wstatus != STORE_AT_NOSTART && wstatus != STORE_AT_FENCED) {
		if (how != AT_OK && D.d_loglevel & LL_FAILED) {
			spawn_status_decode(wstatus, &ss);
			spawn_status_str(&ss, status, sizeof(status));
			fire_log(LOG_INFO, t->t_owner, "FAILED",
			    D.d_conf.c_node, t->t_due, t->t_label,
			    "%s, attempt %d, %s", t->t_what, t->t_num, status);
		}
		if (D.d_loglevel & LL_END)
			fire_log(LOG_INFO, t->t_owner, "END", D.d_conf.c_node,
			    t->t_due, t->t_label, "%s, attempt %d", t->t_what,
			    t->t_num);
	}
	t->t_how = how;
	/* The back-off counts from the end, in whole seconds: rounded up. */
	t->t_endsec = (time_t)((end + 999) / 1000);
	t->t_re.re_end = end;
	t->t_re.re_status = wstatus;
	t->t_out = xmalloc(out->ob_len + 1);
	if (out->ob_len > 0)
		memcpy(t->t_out, out->ob_buf, out->ob_len);
	t->t_out[out->ob_len] = '\0';
	/* The head kept is what the store keeps: the same output-max. */
	t->t_re.re_out = t->t_out;
	t->t_re.re_outlen = out->ob_len;
	t->t_ended = 1;
	if (!t->t_needjob)
		decide(t, tk);
	LIST_REMOVE(t, t_entry);
	nrunning--;
	LIST_INSERT_HEAD(&ended, t, t_entry);
	if (record(t, tk) == -1)
		look_at(tk, tk->tk_wall + AT_RETRY);
}

/*
 * The runner of the attempt died before its end: the end is unknown,
 * and the job's lost policy says what follows (as settle_lost()).
 */
static void
lost_end(struct attempt *t, struct tick *tk)
{
	fire_log(LOG_INFO, t->t_owner, "LOST", D.d_conf.c_node, t->t_due,
	    t->t_label, "%s, attempt %d: its runner died, its end is "
	    "unknown", t->t_what, t->t_num);
	tick_read(tk);
	t->t_how = AT_LOST;
	t->t_endsec = (time_t)((tk->tk_wall + 999) / 1000);
	t->t_unknown = 1;
	t->t_ended = 1;
	if (!t->t_needjob)
		decide(t, tk);
	LIST_REMOVE(t, t_entry);
	nrunning--;
	LIST_INSERT_HEAD(&ended, t, t_entry);
	if (record(t, tk) == -1)
		look_at(tk, tk->tk_wall + AT_RETRY);
}

/* What follows an attempt that ended as t_how says: said, and kept. */
static void
decide(struct attempt *t, struct tick *tk)
{
	enum at_next	 nx;

	nx = at_after(t->t_retries, &t->t_backoff, t->t_num - t->t_fenced,
	    t->t_how,
	    t->t_lost, t->t_endsec, &t->t_next);
	t->t_to = nx == AT_NEXT_DONE ? AT_DONE : nx == AT_NEXT_RETRY ?
	    AT_RETRYING : AT_FAILED;
	tick_read(tk);
	if (t->t_to == AT_RETRYING)
		fire_log(D.d_loglevel & LL_FAILED ? LOG_INFO : LOG_DEBUG,
		    t->t_owner, "RETRY", D.d_conf.c_node, t->t_due,
		    t->t_label, "%s, attempt %d in %llds", t->t_what,
		    t->t_num + 1, (long long)(t->t_next - tk->tk_wall / 1000));
	else if (t->t_to == AT_FAILED)
		fire_log(LOG_INFO, t->t_owner, "AT FAILED", D.d_conf.c_node,
		    t->t_due, t->t_label, "%s, after %d attempt%s", t->t_what,
		    t->t_num, t->t_num == 1 ? "" : "s");
}

/*
 * Store what is to be stored of t: its start, then its end and the
 * job's move (t freed then, and the run file its end came from
 * deleted).  0, or -1 when the store failed (kept).
 */
static int
record(struct attempt *t, struct tick *tk)
{
	struct store_atjob	*j;
	struct store_error	 se;
	int64_t			 run;
	int			 moved, retry;
	time_t			 next;
	char			 err[128];

	if (D.d_st == NULL || !gate_store_up())
		return (-1);
	if (t->t_needjob) {
		/* Adopted while the store did not answer: its job now. */
		if (store_at_get(D.d_st, t->t_id, &j, &se) == -1) {
			gate_store_failed("reading a one-shot job", &se);
			return (-1);
		}
		if (j != NULL)
			job_read(t, j);
		else {
			/* Gone from the store: nothing to retry. */
			(void)at_backoff_parse(AT_DEFAULT_BACKOFF,
			    &t->t_backoff, err, sizeof(err));
			t->t_needjob = 0;
		}
		store_atjobs_free(j, 1);
		if (t->t_ended)
			decide(t, tk);
	}
	if (t->t_recstart) {
		if (store_at_start(D.d_st, t->t_id, t->t_num, (int)t->t_pid,
		    t->t_start, &run, &se) == -1) {
			gate_store_failed("recording a one-shot job's start",
			    &se);
			return (-1);
		}
		t->t_recstart = 0;
	}
	if (!t->t_ended)
		return (0);
	if (store_at_finish(D.d_st, t->t_id, t->t_num, t->t_unknown ? NULL :
	    &t->t_re, t->t_to, t->t_next, &moved, &se) == -1) {
		gate_store_failed("recording a one-shot job's end", &se);
		return (-1);
	}
	if (!moved)
		fire_log(LOG_INFO, t->t_owner, "LOST", D.d_conf.c_node,
		    t->t_due, t->t_label, "%s, attempt %d: taken for lost "
		    "meanwhile, settled by another node", t->t_what,
		    t->t_num);
	/* The store has the end: its run file goes. */
	if (t->t_spool != NULL && unlink(t->t_spool) == -1 &&
	    errno != ENOENT)
		log_warn("(CRON) ERROR (%s)", t->t_spool);
	retry = moved && t->t_to == AT_RETRYING;
	next = t->t_next;
	LIST_REMOVE(t, t_entry);
	attempt_free(t);
	if (retry)
		look_at(tk, (int64_t)next * 1000);
	return (0);
}

/* What waits for the store: the ends, and the starts of those running. */
static int
flush(struct tick *tk)
{
	struct attempt	*t, *next;

	LIST_FOREACH_SAFE(t, &ended, t_entry, next)
		if (record(t, tk) == -1)
			return (-1);
	LIST_FOREACH(t, &running, t_entry)
		if ((t->t_recstart || t->t_needjob) && record(t, tk) == -1)
			return (-1);
	return (0);
}

/*
 * The mail of the attempt's output, as atd sends it (into mr, which it
 * returns, its subject in subj), or NULL for none: to the owner, the
 * output, or with -m (a_mail 1) a mail even without output, under
 * "Subject: Output from your job N" and To, nothing else; the mailer
 * atd's, /usr/sbin/sendmail -i, unless sendmail is set to another than
 * cron's default.  None with -M (a_mail -1), with -s (the output goes
 * to the log), or without a mailer.
 */
static const struct mail_req *
mail_settings(struct attempt *t, const struct passwd *pw,
    struct mail_req *mr, char *subj, size_t len)
{
	if (t->t_mail < 0 || D.d_output_log)
		return (NULL);
	if (D.d_conf.c_sendmail != NULL && *D.d_conf.c_sendmail == '\0')
		return (NULL);
	/* atd's subject: the job number right-aligned in eight columns. */
	snprintf(subj, len, "Output from your job %8lld", (long long)t->t_id);
	memset(mr, 0, sizeof(*mr));
	/* atd's mailer (sendmail -i), unless another than cron's is set. */
	if (D.d_conf.c_sendmail != NULL &&
	    strcmp(D.d_conf.c_sendmail, MAIL_SENDMAIL) != 0)
		mr->mr_sendmail = D.d_conf.c_sendmail;
	mr->mr_to = t->t_owner;
	mr->mr_user = t->t_owner;
	mr->mr_cmd = subj;
	mr->mr_subject = subj;
	mr->mr_env = t->t_env;
	mr->mr_pw = pw;
	mr->mr_fqdn = D.d_fqdn;
	mr->mr_always = t->t_mail > 0;
	return (mr);
}

static void
attempt_free(struct attempt *t)
{
	jobenv_free(t->t_env);
	free(t->t_owner);
	free(t->t_script);
	free(t->t_out);
	free(t->t_spool);
	free(t);
}

/* The daemon stops: one last try at the records kept. */
void
atrun_final(struct tick *tk)
{
	struct attempt	*t;
	size_t		 n = 0;

	if (!LIST_EMPTY(&ended))
		(void)flush(tk);
	LIST_FOREACH(t, &ended, t_entry)
		n++;
	if (n > 0)
		log_warnx("(CRON) STORE (%zu one-shot attempts could not be "
		    "recorded)", n);
}

void
atrun_free(void)
{
	struct attempt	*t;

	mtimer_del(&look_t);
	while ((t = LIST_FIRST(&running)) != NULL) {
		LIST_REMOVE(t, t_entry);
		attempt_free(t);
	}
	while ((t = LIST_FIRST(&ended)) != NULL) {
		LIST_REMOVE(t, t_entry);
		attempt_free(t);
	}
	nrunning = 0;
	ndoubts = 0;
}
