/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * run.c: running a fire's attempts.  Every process goes through
 * common/spawn: its own session and group, the owner's identity,
 * standard output and error on one pipe, % input on standard input.
 * The main loop polls the pipes and reaps with waitpid(-1); an attempt
 * ends when both its output reached end of file and its process was
 * reaped, as cron waits for the output of a job's background children.
 *
 * The environment is cron's: SHELL=/bin/sh, HOME, LOGNAME, USER,
 * PATH=/usr/bin:/bin, then the table's variables (which may replace all
 * but LOGNAME and USER), then the fire: CLUSTERCRON_FIRE_ID (the job's
 * identity, '@', the instant in UTC), CLUSTERCRON_FIRE_TIME,
 * CLUSTERCRON_JOB_ID, CLUSTERCRON_NODE and CLUSTERCRON_ATTEMPT.
 * Nothing of the daemon's own environment or configuration reaches it.
 *
 * Starting does not wait for the exec.  An attempt is forked and left
 * to reach execve() on its own while the daemon forks the next one, so
 * that a thousand jobs due at once are on their way together and every
 * processor works at them; the child's status pipe is one more
 * descriptor in the poll set.  Only when it says the exec happened is
 * the attempt logged (CMD) and recorded in the store as running; when
 * it says what failed instead, the attempt is logged as CMD FAILED,
 * recorded as failed with the reason (store_run_fail()), and ends its
 * fire, exactly as when the start failed in the daemon itself: "did
 * not start" is never "exited 127".  Runs of node scope are recorded
 * too, by every node that runs them.
 * A child that takes more than the start bound is killed and counts as
 * not started; one timer (start_t) watches the oldest of them.
 *
 * At most START_WINDOW attempts are on their way to execve() at once:
 * the next fork waits (start_wait()) for one of them to settle.  More
 * would not start a burst any sooner, as the processors are busy
 * anyway, but each holds two or three descriptors, which every later
 * child inherits and must close, and which with a thousand jobs due at
 * once would run into the daemon's limit on open files.
 *
 * An attempt that outlives CLUSTERCRON_TIMEOUT gets SIGTERM on its
 * whole process group, and SIGKILL KILL_GRACE later.  A failed attempt
 * (exit status other than 0, or a signal) of a job with
 * CLUSTERCRON_RETRY is started again after the next delay, as an
 * attempt of the same fire, without a new claim: the fire is ours.
 * Each attempt is a run in the store and mails its own output.
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

#define KILL_GRACE	5000	/* ms from SIGTERM to SIGKILL */
#define TRIM_EVERY	(10 * 60 * 1000) /* ms between trims of history */
#define START_WINDOW	32	/* attempts between fork and exec */
#define MAIL_TIMEOUT	600	/* s a mailer may run, then is killed */

struct pending;

static char	*input_lines(const char *, size_t *);
static struct passwd *owner_pw(const char *);
static char	**env_build(const struct job *, const struct passwd *,
		    const char *, time_t);
static int	 attempt_start(struct fire *);
static int	 attempt_settle(struct fire *);
static void	 start_wait(void);
static void	 attempt_end(struct fire *);
static void	 start_timer(struct mtimer *);
static void	 fire_timer(struct mtimer *);
static void	 fire_free(struct fire *);
static void	 mail_output(struct fire *, const struct passwd *, int);
static void	 log_job(const struct fire *, const char *);
static void	 log_output(const struct fire *);
static void	 history_trim(void);
static void	 pending_add(const struct fire *, int, const char *, int);
static void	 pending_free(struct pending *);
static int	 pending_batch(size_t, size_t *, size_t *, const char **,
		    struct store_error *);
static int	 pending_flush(int);

/* The start bound of the attempts still on their way to execve(). */
static struct mtimer	 start_t = { { 0, TIMER_IDLE }, start_timer, NULL };
/* Attempts started and not yet recorded: run_record() has work. */
static size_t		 nrecord;
/* Attempts between fork and exec. */
static size_t		 nstarting;

/*
 * Records not yet in the store: the start and end of a run whose start
 * was never recorded, the end of one whose start was, or a start that
 * failed.  Every end waits here for the end of the loop's turn, so
 * that the ends reaped in one turn go to the store together, in one
 * transaction (store_runs_end_batch()), as the starts of a turn do
 * (run_record()).  The records the store could not take when they
 * happened (p_late) wait, in order, until it answers again (or is first
 * reached: a daemon started while MariaDB was away still runs its
 * node-local jobs), so that an outage leaves no run "running" for good
 * and none unrecorded.  While the store is known to be down they wait
 * for it to answer something else (SQLite's is tried again every
 * PENDING_RETRY); a run's end never waits on it.
 */
enum pending_kind { PK_RUN, PK_END, PK_FAIL };
struct pending {
	TAILQ_ENTRY(pending) p_entry;
	enum pending_kind p_kind;
	int		 p_late;	/* the store failed to take it */
	char		 p_id[CRON_IDLEN + 1];
	time_t		 p_fire;
	int		 p_attempt;
	int		 p_pid;
	int64_t		 p_start;	/* ms; PK_FAIL: when it was */
	int64_t		 p_runid;	/* PK_END */
	int64_t		 p_end;
	int		 p_wstatus;
	char		*p_out;		/* output's head, or why */
	size_t		 p_outtotal;	/* bytes the run wrote */
};
static TAILQ_HEAD(, pending) pendings = TAILQ_HEAD_INITIALIZER(pendings);
static size_t		 npending;
static int64_t		 pending_tried;	/* monotonic ms */
#define PENDING_RETRY	5000		/* ms */
#define PENDING_MAX	10000		/* then the oldest go */
#define PENDING_BATCH	512		/* runs per transaction */

/*
 * The standard input a job is given: the text after its '%' (the
 * parser already turned the later ones into newlines), ended by a
 * newline when it has none, as cron(8) writes it, so that the last line
 * is a line to read(1) and its kin.  An empty input stays empty.  The
 * job's identity comes from the text as parsed, not from this.
 */
static char *
input_lines(const char *in, size_t *lenp)
{
	size_t	 len = strlen(in);
	char	*s;

	s = xmalloc(len + 2);
	memcpy(s, in, len);
	if (len > 0 && in[len - 1] != '\n')
		s[len++] = '\n';
	s[len] = '\0';
	*lenp = len;
	return (s);
}

/*
 * The owner's password entry, read once per turn of the loop: a burst
 * starts hundreds of jobs in one turn, most of them one owner's, and
 * each getpwnam() reads the password file again (it was an eighth of
 * the daemon's CPU in a burst, bench/daemon/README).  The entry is a
 * copy, good until the next call for another owner; the file is read
 * again at the next turn, so a change to it is seen as soon as before.
 * NULL when there is no such user (not remembered).
 */
static struct passwd *
owner_pw(const char *name)
{
	static struct passwd	 pw;
	static char		*buf, last[256];
	static size_t		 buflen;
	static int64_t		 turn = -1;
	struct passwd		*res;
	int			 e;

	if (turn == D.d_mono_now && strcmp(last, name) == 0)
		return (&pw);
	turn = -1;
	if (buf == NULL) {
		buflen = 4096;
		buf = xmalloc(buflen);
	}
	while ((e = getpwnam_r(name, &pw, buf, buflen, &res)) == ERANGE &&
	    buflen < 1024 * 1024) {
		buflen *= 2;
		buf = xreallocarray(buf, buflen, 1);
	}
	if (e != 0 || res == NULL)
		return (NULL);
	if (strlcpy(last, name, sizeof(last)) < sizeof(last))
		turn = D.d_mono_now;
	return (&pw);
}

/*
 * The job's environment: cron's (common/jobenv_build()), then the fire.
 * CLUSTERCRON_ATTEMPT is set again for each attempt.
 */
static char **
env_build(const struct job *j, const struct passwd *pw, const char *fireid,
    time_t fire)
{
	char	**env, when[32], id[CRON_IDLEN + 1];

	if (jobenv_build(pw, job_env(j), &env) == -1)
		fatal("environment");
	/* -P: the daemon's PATH where the table sets none, as cronie's. */
	if (D.d_path != NULL &&
	    jobenv_get((char *const *)job_env(j), "PATH") == NULL &&
	    jobenv_set(&env, "PATH", D.d_path) == -1)
		fatal("environment");
	fmt_utc(fire, when, sizeof(when));
	if (jobenv_set(&env, "CLUSTERCRON_FIRE_ID", fireid) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_FIRE_TIME", when) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_JOB_ID", job_id(j, id)) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_NODE", D.d_conf.c_node) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_ATTEMPT", "1") == -1)
		fatal("environment");
	return (env);
}

/*
 * An attempt that could not be started: recorded as failed, with why,
 * so that the history shows it (a cluster fire was claimed, and no
 * other node will run it).
 */
static void
run_failed(const char *id, time_t fire, int attempt, const char *why)
{
	struct store_error	 se;
	struct fire		 f;

	if (store_usable() && store_run_fail(D.d_st, id, fire, attempt,
	    clock_now_ms(), why, &se) == 0)
		return;
	if (store_usable())
		store_failed("recording a run that did not start", &se);
	memset(&f, 0, sizeof(f));
	strlcpy(f.f_id, id, sizeof(f.f_id));
	f.f_instant = fire;
	f.f_attempt = attempt;
	pending_add(&f, PK_FAIL, why, 1);
}

/*
 * Start a fire of job j at instant `fire': cluster is set when its
 * claim was won.  Every run is recorded in the store, those of node
 * scope by each node.  Returns 0, or -1 when the job could not start.
 */
int
run_start(struct job *j, time_t fire, int cluster, int64_t until)
{
	return (run_attempt(j, fire, cluster, 1, until));
}

/*
 * Start attempt `attempt' of a fire: run_start()'s, for a fire that
 * starts at a later attempt (a rerun after a lost node, fire.c).
 */
int
run_attempt(struct job *j, time_t fire, int cluster, int attempt,
    int64_t until)
{
	struct fire	*f;
	struct passwd	*pw;
	char		 when[32], fireid[CRON_IDLEN + 40], why[300];
	char		 label[JOB_LABELLEN];

	if ((pw = owner_pw(job_owner(j))) == NULL) {
		snprintf(why, sizeof(why), "no such user %s", job_owner(j));
		fire_log(LOG_ERR, job_owner(j), "CMD FAILED", D.d_conf.c_node,
		    fire, job_label(j, label, sizeof(label)), "%s", why);
		run_failed(job_id(j, fireid), fire, attempt, why);
		return (-1);
	}
	f = xcalloc(1, sizeof(*f));
	f->f_job = j;
	job_id(j, f->f_id);
	f->f_owner = xstrdup(job_owner(j));
	f->f_rawcmd = xstrdup(job_cmd(j));
	f->f_cmd = cmd_escape(job_cmd(j));
	/* job_label(), from what is made already: this is every start. */
	xasprintf(&f->f_label, "%s: %s", job_opts(j)->o_name != NULL ?
	    job_opts(j)->o_name : f->f_id, f->f_cmd);
	if (job_input(j) != NULL)
		f->f_input = input_lines(job_input(j), &f->f_inputlen);
	fmt_utc(fire, when, sizeof(when));
	snprintf(fireid, sizeof(fireid), "%s@%s", f->f_id, when);
	f->f_env = env_build(j, pw, fireid, fire);
	f->f_instant = fire;
	f->f_cluster = cluster;
	f->f_attempt = attempt;
	f->f_until = until;
	f->f_nretry = job_opts(j)->o_nretry;
	memcpy(f->f_retry, job_opts(j)->o_retry, sizeof(f->f_retry));
	f->f_timeout = job_opts(j)->o_timeout;
	timer_init(&f->f_timer, fire_timer, f);
	LIST_INSERT_HEAD(&D.d_fires, f, f_entry);
	if (attempt_start(f) == -1) {
		fire_free(f);
		return (-1);
	}
	return (0);
}

static int
attempt_start(struct fire *f)
{
	struct spawn_req	 sr;
	struct spawn_err	 se;
	struct passwd		*pw;
	char			 title[128], num[16], why[300];
	int64_t			 late;

	if ((pw = owner_pw(f->f_owner)) == NULL) {
		snprintf(why, sizeof(why), "no such user %s", f->f_owner);
		fire_log(LOG_ERR, f->f_owner, "CMD FAILED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%s", why);
		run_failed(f->f_id, f->f_instant, f->f_attempt, why);
		return (-1);
	}
	snprintf(num, sizeof(num), "%d", f->f_attempt);
	if (jobenv_set(&f->f_env, "CLUSTERCRON_ATTEMPT", num) == -1)
		fatal("environment");
	snprintf(title, sizeof(title), "job %s %s", f->f_owner, f->f_id);
	memset(&sr, 0, sizeof(sr));
	sr.sr_cmd = f->f_rawcmd;
	sr.sr_env = f->f_env;
	sr.sr_input = f->f_input;
	sr.sr_inputlen = f->f_inputlen;
	sr.sr_pw = pw;
	sr.sr_title = title;
	sr.sr_outmax = D.d_conf.c_output_max;
	sr.sr_pam = D.d_conf.c_pam_service;
	while (nstarting >= START_WINDOW)
		start_wait();
	/*
	 * A claimed fire starts within the lease it was claimed under;
	 * the child looks once more just before its execve().
	 */
	sr.sr_until = f->f_until;
	if (f->f_until != 0 && (late = clock_mono() - f->f_until) >= 0) {
		fire_late(f->f_id, f->f_owner, f->f_label, f->f_instant,
		    f->f_attempt, late);
		return (-1);
	}
	/* Before the fork: a daemon stopped inside it started the job. */
	f->f_start = clock_now_ms();
	if (spawn_launch(&sr, &f->f_sj, &se) == -1) {
		fire_log(LOG_ERR, f->f_owner, "CMD FAILED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%s", se.se_msg);
		run_failed(f->f_id, f->f_instant, f->f_attempt, se.se_msg);
		return (-1);
	}
	f->f_state = FS_RUNNING;
	f->f_exited = f->f_eof = f->f_killed = 0;
	f->f_runid = 0;
	nstarting++;
	D.d_nrunning++;
	if (f->f_job != NULL)
		f->f_job->j_running++;
	/*
	 * Once it has exec'd, the start goes to the store at the end of
	 * a turn, after every job due then has been forked
	 * (run_record()).
	 */
	f->f_torecord = 1;
	if (f->f_timeout > 0)
		mtimer_set(&f->f_timer,
		    clock_mono() + (int64_t)f->f_timeout * 1000);
	if (!mtimer_queued(&start_t))
		mtimer_set(&start_t, f->f_sj->sj_startby);
	return (0);
}

/*
 * Learn, without blocking, whether a running attempt has exec'd.
 * Returns 1 when it has (logged now, the first time), 0 when it cannot
 * tell yet, and -1 when it did not start: then it is logged and its
 * fire is freed.
 */
static int
attempt_settle(struct fire *f)
{
	struct spawn_err	 se;
	int			 r;

	if (f->f_sj->sj_started == 1)
		return (1);
	if ((r = spawn_started(f->f_sj, &se)) == 0)
		return (0);
	/* No start left to watch: no wake-up for nothing. */
	if (--nstarting == 0)
		mtimer_del(&start_t);
	if (r == 1) {
		if (f->f_mailer)
			return (1);
		if (D.d_loglevel & LL_START)
			log_job(f, "CMD");
		if (f->f_torecord)
			nrecord++;
		return (1);
	}
	if (f->f_mailer)
		log_warnx("(%s) MAIL (sendmail did not start: %s)",
		    f->f_owner, se.se_msg);
	else if (se.se_step == SPAWN_LATE)
		fire_late(f->f_id, f->f_owner, f->f_label, f->f_instant,
		    f->f_attempt, clock_mono() - f->f_until);
	else {
		fire_log(LOG_ERR, f->f_owner, "CMD FAILED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%s", se.se_msg);
		run_failed(f->f_id, f->f_instant, f->f_attempt, se.se_msg);
	}
	D.d_nrunning--;
	if (f->f_job != NULL)
		f->f_job->j_running--;
	fire_free(f);
	return (-1);
}

/*
 * The start window is full: wait until at least one of the attempts in
 * it has settled, or its start bound has passed.
 */
static void
start_wait(void)
{
	struct pollfd	*pfd;
	struct fire	*f, **pf;
	int64_t		 when = 0, left;
	size_t		 i, n = 0;

	pfd = xreallocarray(NULL, nstarting, sizeof(*pfd));
	pf = xreallocarray(NULL, nstarting, sizeof(*pf));
	LIST_FOREACH(f, &D.d_fires, f_entry) {
		if (f->f_state != FS_RUNNING || f->f_sj == NULL ||
		    f->f_sj->sj_started != 0 || n == nstarting)
			continue;
		pfd[n].fd = f->f_sj->sj_st;
		pfd[n].events = POLLIN;
		pf[n++] = f;
		if (when == 0 || f->f_sj->sj_startby < when)
			when = f->f_sj->sj_startby;
	}
	if ((left = when - clock_mono()) < 0)
		left = 0;
	if (n > 0 && poll(pfd, n, (int)left) == -1 && errno != EINTR)
		fatal("poll");
	for (i = 0; i < n; i++)
		if (pfd[i].revents != 0 ||
		    pf[i]->f_sj->sj_startby <= clock_mono())
			(void)attempt_settle(pf[i]);
	free(pfd);
	free(pf);
	if (n == 0)
		nstarting = 0;		/* cannot happen; never spin */
}

/*
 * The oldest start bound came: settle every start that is due, which
 * kills the children past their bound, and wait for the next bound.
 */
static void
start_timer(struct mtimer *t)
{
	struct fire	*f, *next;
	int64_t		 when = 0;

	LIST_FOREACH_SAFE(f, &D.d_fires, f_entry, next) {
		if (f->f_state != FS_RUNNING || f->f_sj == NULL ||
		    f->f_sj->sj_started != 0)
			continue;
		if (attempt_settle(f) == 0 &&
		    (when == 0 || f->f_sj->sj_startby < when))
			when = f->f_sj->sj_startby;
	}
	if (when != 0)
		mtimer_set(&start_t, when);
}

/*
 * Record the ends kept so far (pending_flush()), then the starts of the
 * attempts that have exec'd since the last call, all of them in one
 * transaction: the loop calls this at the end of each turn, so that
 * the store's commits come after the turn's forks, not between a fire
 * and its exec, and a burst of starts costs one commit, not one each.
 */
void
run_record(void)
{
	static struct store_run_start	*rs;
	static struct fire		**fs;
	static int64_t			*ids;
	static size_t			 cap;
	struct store_error		 se;
	struct fire			*f;
	int64_t				 t0;
	size_t				 i, n = 0;

	if (npending > 0 && pending_flush(0) == -1)
		return;
	if (nrecord == 0 || D.d_st == NULL)
		return;
	/* The store is down: the starts wait (attempt_end() keeps them). */
	if (!store_usable())
		return;
	nrecord = 0;
	t0 = clock_mono();
	LIST_FOREACH(f, &D.d_fires, f_entry) {
		if (!f->f_torecord || f->f_sj == NULL ||
		    f->f_sj->sj_started != 1)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			rs = xreallocarray(rs, cap, sizeof(*rs));
			fs = xreallocarray(fs, cap, sizeof(*fs));
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		rs[n].rs_job = f->f_id;
		rs[n].rs_fire = f->f_instant;
		rs[n].rs_attempt = f->f_attempt;
		rs[n].rs_pid = (int)f->f_sj->sj_pid;
		rs[n].rs_start = f->f_start;
		fs[n++] = f;
	}
	if (n == 0)
		return;
	if (store_runs_start_batch(D.d_st, rs, n, ids, &se) == -1) {
		store_failed("recording a run", &se);
		/* Kept for later. */
		nrecord = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		fs[i]->f_runid = ids[i];
		fs[i]->f_torecord = 0;
	}
	log_debug("(CRON) RECORD (%zu starts in %lld ms)", n,
	    (long long)(clock_mono() - t0));
}

/* The descriptors of every running attempt and mailer. */
void
run_pollfds(struct pollfd *pfd, size_t *np, size_t cap, struct fire **pf)
{
	struct fire	*f;
	size_t		 n = *np;
	int		 k, i;

	LIST_FOREACH(f, &D.d_fires, f_entry) {
		if (f->f_state != FS_RUNNING || f->f_sj == NULL || f->f_eof)
			continue;
		if (n + SPAWN_NPOLLFD > cap)
			break;
		k = spawn_pollfds(f->f_sj, &pfd[n]);
		for (i = 0; i < k; i++)
			pf[n + i] = f;
		n += (size_t)k;
	}
	*np = n;
}

/*
 * Output or input is ready for an attempt, or its status pipe (which
 * may free the fire: call this once per fire and turn).
 */
void
run_io(struct fire *f, short revents)
{
	int	 r;

	if (f->f_state != FS_RUNNING || f->f_eof)
		return;
	if (attempt_settle(f) == -1)
		return;
	r = spawn_io(f->f_sj);
	if (r == 0)
		return;
	if (r == -1)
		log_warn("(%s) ERROR (reading the output of %s)", f->f_owner,
		    f->f_cmd);
	f->f_eof = 1;
	if (f->f_exited)
		attempt_end(f);
}

/* SIGCHLD: reap every child and end the attempts that are done. */
void
run_reap(void)
{
	struct fire	*f;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		LIST_FOREACH(f, &D.d_fires, f_entry)
			if (f->f_state == FS_RUNNING && f->f_sj != NULL &&
			    f->f_sj->sj_pid == pid)
				break;
		if (f == NULL)
			continue;
		spawn_exited(f->f_sj, status);
		/* Dead, it has said whether it started. */
		if (attempt_settle(f) == -1)
			continue;
		f->f_exited = 1;
		f->f_wstatus = status;
		if (f->f_eof)
			attempt_end(f);
	}
}

/* cron's line about a job's start or end: CMD or END, with -L 8 its pid. */
static void
log_job(const struct fire *f, const char *event)
{
	if (D.d_loglevel & LL_PID)
		log_info("(%s) %s ([%ld] %s)", f->f_owner, event,
		    (long)f->f_sj->sj_pid, f->f_cmd);
	else
		log_info("(%s) %s (%s)", f->f_owner, event, f->f_cmd);
}

/*
 * Mail the output of an attempt; its subject says "(failed)" when it
 * failed and failures are logged (-L 4), as Debian's cron words it.
 */
static void
mail_output(struct fire *f, const struct passwd *pw, int failed)
{
	struct mail_req	 mr;
	struct fire	*m;
	const char	*to;
	char		 errbuf[256];

	if (f->f_sj->sj_output.ob_total == 0)
		return;
	if ((to = mail_recipient(f->f_env, f->f_owner)) == NULL)
		return;
	if (D.d_conf.c_sendmail != NULL && *D.d_conf.c_sendmail == '\0')
		return;
	if (!mail_address_ok(to)) {
		log_warnx("(%s) MAIL (bad MAILTO %s, output of %s dropped)",
		    f->f_owner, to, f->f_cmd);
		return;
	}
	memset(&mr, 0, sizeof(mr));
	mr.mr_sendmail = D.d_conf.c_sendmail;
	mr.mr_from = jobenv_get(f->f_env, "MAILFROM");
	mr.mr_to = to;
	mr.mr_user = f->f_owner;
	mr.mr_cmd = f->f_rawcmd;
	mr.mr_env = f->f_env;
	mr.mr_pw = pw;
	mr.mr_failed = failed && D.d_loglevel & LL_FAILED;
	mr.mr_fqdn = D.d_fqdn;
	m = xcalloc(1, sizeof(*m));
	if (mail_start(&mr, &f->f_sj->sj_output, &m->f_sj, errbuf,
	    sizeof(errbuf)) == -1) {
		log_warnx("(%s) MAIL (%s)", f->f_owner, errbuf);
		free(m);
		return;
	}
	log_debug("(%s) MAIL (to %s, %llu bytes of output)", f->f_owner, to,
	    (unsigned long long)f->f_sj->sj_output.ob_total);
	m->f_owner = xstrdup(f->f_owner);
	m->f_cmd = xstrdup("(mail)");
	m->f_state = FS_RUNNING;
	m->f_mailer = 1;
	m->f_timeout = MAIL_TIMEOUT;
	timer_init(&m->f_timer, fire_timer, m);
	LIST_INSERT_HEAD(&D.d_fires, m, f_entry);
	D.d_nrunning++;
	/*
	 * Its start is learnt as a job's is (attempt_settle()), but it
	 * does not wait for the start window: this may be run_io() of
	 * another fire, and start_wait() could free fires the loop has
	 * yet to visit.  A mailer is one more child, not a burst.
	 */
	nstarting++;
	if (!mtimer_queued(&start_t))
		mtimer_set(&start_t, m->f_sj->sj_startby);
	mtimer_set(&m->f_timer, clock_mono() + (int64_t)MAIL_TIMEOUT * 1000);
}

/*
 * cronie's -s: the output goes to the log, a CMDOUT line for each of
 * its lines (escaped and cut as commands are), instead of a mail.
 */
static void
log_output(const struct fire *f)
{
	const struct outbuf	*ob = &f->f_sj->sj_output;
	const char		*p, *end, *nl;
	char			*line, *esc;
	size_t			 len;

	p = ob->ob_buf;
	end = p == NULL ? NULL : p + ob->ob_len;
	while (p != NULL && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		line = xmalloc(len + 1);
		memcpy(line, p, len);
		line[len] = '\0';
		esc = cmd_escape(line);
		log_info("(%s) CMDOUT (%s)", f->f_owner, esc);
		free(esc);
		free(line);
		p = nl != NULL ? nl + 1 : end;
	}
	if (outbuf_truncated(ob))
		log_info("(%s) CMDOUT (%llu more bytes not kept)", f->f_owner,
		    (unsigned long long)(ob->ob_total - ob->ob_len));
}

/*
 * An attempt ended: record it, mail its output, then retry or finish
 * the fire.
 */
static void
attempt_end(struct fire *f)
{
	struct spawn_status	 ss;
	struct passwd		*pw;
	char			 status[128], how[128], pre[32] = "";
	int			 failed;
	uint32_t		 delay;

	mtimer_del(&f->f_timer);
	D.d_nrunning--;
	if (f->f_mailer) {
		if (!WIFEXITED(f->f_wstatus) ||
		    WEXITSTATUS(f->f_wstatus) != 0) {
			spawn_status_decode(f->f_wstatus, &ss);
			spawn_status_str(&ss, status, sizeof(status));
			log_warnx("(%s) MAIL (mailer: %s)", f->f_owner,
			    status);
		}
		fire_free(f);
		return;
	}
	if (f->f_job != NULL)
		f->f_job->j_running--;
	spawn_status_decode(f->f_wstatus, &ss);
	spawn_status_str(&ss, status, sizeof(status));
	failed = !ss.ss_exited || ss.ss_code != 0;
	if (failed && D.d_loglevel & LL_FAILED) {
		/* cron's words for how it failed, with the job's. */
		if (ss.ss_exited)
			snprintf(how, sizeof(how), "failed with exit status %d",
			    ss.ss_code);
		else
			snprintf(how, sizeof(how), "terminated by signal %d%s",
			    ss.ss_signal, ss.ss_core ? " (core dumped)" : "");
		if (f->f_attempt > 1)
			snprintf(pre, sizeof(pre), "attempt %d, ",
			    f->f_attempt);
		fire_log(LOG_INFO, f->f_owner, "FAILED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%sgrandchild #%ld %s", pre,
		    (long)f->f_sj->sj_pid, how);
	}
	if (D.d_loglevel & LL_END)
		log_job(f, "END");
	f->f_end = clock_now_ms();
	metrics_run_end(f->f_id, f->f_owner, f->f_start, f->f_end,
	    f->f_wstatus);
	/*
	 * Recorded at the end of the turn (run_record()), with the other
	 * ends reaped in it; a run whose start is not recorded yet has
	 * both recorded then.
	 */
	if (f->f_torecord) {
		pending_add(f, PK_RUN, NULL, !store_usable());
		f->f_torecord = 0;
	} else if (f->f_runid != 0)
		pending_add(f, PK_END, NULL, !store_usable());
	/* Only a run with output to mail needs its owner's entry. */
	if (D.d_output_log)
		log_output(f);
	else if (f->f_sj->sj_output.ob_total > 0 &&
	    (pw = owner_pw(f->f_owner)) != NULL)
		mail_output(f, pw, failed);
	history_trim();
	spawn_free(f->f_sj);
	f->f_sj = NULL;

	if (failed && f->f_attempt <= f->f_nretry && !D.d_stopping) {
		delay = f->f_retry[f->f_attempt - 1];
		fire_log(D.d_loglevel & LL_FAILED ? LOG_INFO : LOG_DEBUG,
		    f->f_owner, "RETRY", D.d_conf.c_node, f->f_instant,
		    f->f_label, "attempt %d in %us", f->f_attempt + 1, delay);
		f->f_state = FS_WAIT_RETRY;
		mtimer_set(&f->f_timer,
		    clock_mono() + (int64_t)delay * 1000);
		return;
	}
	fire_free(f);
}

/*
 * Keep a record for the end of the turn, or for when the store answers
 * again (late set: it could not take it now): kind PK_RUN (f's start
 * and end), PK_END (f's end, its start recorded as f_runid) or PK_FAIL
 * (f_id, f_instant and f_attempt did not start, for the reason why).
 */
static void
pending_add(const struct fire *f, int kind, const char *why, int late)
{
	struct pending		*p;
	const struct outbuf	*ob;

	if (npending >= PENDING_MAX) {
		pending_free(TAILQ_FIRST(&pendings));
		log_warnx("(CRON) STORE (more than %d runs not recorded: "
		    "the oldest dropped)", PENDING_MAX);
	}
	p = xcalloc(1, sizeof(*p));
	p->p_kind = kind;
	p->p_late = late;
	strlcpy(p->p_id, f->f_id, sizeof(p->p_id));
	p->p_fire = f->f_instant;
	p->p_attempt = f->f_attempt;
	if (kind == PK_FAIL) {
		p->p_start = clock_now_ms();
		p->p_out = xstrdup(why);
		p->p_outtotal = strlen(why);
	} else {
		p->p_pid = (int)f->f_sj->sj_pid;
		p->p_start = f->f_start;
		p->p_runid = f->f_runid;
		p->p_end = f->f_end;
		p->p_wstatus = f->f_wstatus;
		ob = &f->f_sj->sj_output;
		p->p_out = xmalloc(ob->ob_len + 1);
		if (ob->ob_len > 0)
			memcpy(p->p_out, ob->ob_buf, ob->ob_len);
		p->p_out[ob->ob_len] = '\0';
		p->p_outtotal = (size_t)ob->ob_total;
	}
	TAILQ_INSERT_TAIL(&pendings, p, p_entry);
	npending++;
}

/* Take a record off the queue and free it. */
static void
pending_free(struct pending *p)
{
	TAILQ_REMOVE(&pendings, p, p_entry);
	free(p->p_out);
	free(p);
	npending--;
}

/*
 * Write the runs at the head of the queue, at most max of them and up
 * to the first PK_FAIL: the ends of those whose start is in, in one
 * transaction; then the starts of the others in one, and their ends in
 * another.  Counts in *n the runs that went (in *late those kept
 * through a failure) and returns 0, or -1 with *se and *what filled
 * when the store failed: then what is left stays, with each start
 * that went in marked so.
 */
static int
pending_batch(size_t max, size_t *n, size_t *late, const char **what,
    struct store_error *se)
{
	static struct store_run_start	*rs;
	static struct store_run_end	*re;
	static struct pending		**pe, **ps;
	static int64_t			*ids;
	static size_t			 cap;
	struct pending			*p;
	size_t				 i, k = 0, ne = 0, ns = 0;

	TAILQ_FOREACH(p, &pendings, p_entry) {
		if (p->p_kind == PK_FAIL || k == max)
			break;
		if (k == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			rs = xreallocarray(rs, cap, sizeof(*rs));
			re = xreallocarray(re, cap, sizeof(*re));
			pe = xreallocarray(pe, cap, sizeof(*pe));
			ps = xreallocarray(ps, cap, sizeof(*ps));
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		if (p->p_kind == PK_RUN)
			ps[ns++] = p;
		else
			pe[ne++] = p;
		k++;
	}
	*what = "recording the end of a run";
	for (i = 0; i < ne; i++) {
		p = pe[i];
		re[i].re_id = p->p_runid;
		re[i].re_end = p->p_end;
		re[i].re_status = p->p_wstatus;
		re[i].re_out = p->p_out;
		re[i].re_outlen = p->p_outtotal;
	}
	if (ne > 0 && store_runs_end_batch(D.d_st, re, ne, se) == -1)
		return (-1);
	for (i = 0; i < ne; i++) {
		*late += pe[i]->p_late;
		pending_free(pe[i]);
	}
	*n += ne;
	if (ns == 0)
		return (0);
	for (i = 0; i < ns; i++) {
		p = ps[i];
		rs[i].rs_job = p->p_id;
		rs[i].rs_fire = p->p_fire;
		rs[i].rs_attempt = p->p_attempt;
		rs[i].rs_pid = p->p_pid;
		rs[i].rs_start = p->p_start;
	}
	*what = "recording a run";
	if (store_runs_start_batch(D.d_st, rs, ns, ids, se) == -1)
		return (-1);
	/* Their starts are in: only the ends are left. */
	for (i = 0; i < ns; i++) {
		p = ps[i];
		p->p_runid = ids[i];
		p->p_kind = PK_END;
		re[i].re_id = p->p_runid;
		re[i].re_end = p->p_end;
		re[i].re_status = p->p_wstatus;
		re[i].re_out = p->p_out;
		re[i].re_outlen = p->p_outtotal;
	}
	*what = "recording the end of a run";
	if (store_runs_end_batch(D.d_st, re, ns, se) == -1)
		return (-1);
	for (i = 0; i < ns; i++) {
		*late += ps[i]->p_late;
		pending_free(ps[i]);
	}
	*n += ns;
	return (0);
}

/*
 * Write the records kept, oldest first: at once when the store is known
 * to answer or with force set, otherwise (SQLite) at most every
 * PENDING_RETRY; the first success says the store is back.  Runs go in
 * batches (pending_batch()), a failed start alone.  Returns -1, keeping
 * what is left, when the store failed or was not tried.
 */
static int
pending_flush(int force)
{
	struct store_error	 se;
	struct pending		*p;
	const char		*what = NULL;
	int64_t			 now = clock_mono();
	size_t			 n = 0, late = 0, max = PENDING_BATCH;

	/*
	 * While the store is known to be down, MariaDB's is probed by the
	 * heartbeat (node.c), which says when it is back: a try here
	 * could wait out a connection timeout in the middle of the loop.
	 * SQLite's is tried again now and then.
	 */
	if (D.d_st == NULL)
		return (-1);
	if (!store_usable() && !force && (D.d_mysql ||
	    now - pending_tried < PENDING_RETRY))
		return (-1);
	pending_tried = now;
	while ((p = TAILQ_FIRST(&pendings)) != NULL) {
		if (p->p_kind == PK_FAIL) {
			what = "recording a run that did not start";
			if (store_run_fail(D.d_st, p->p_id, p->p_fire,
			    p->p_attempt, p->p_start, p->p_out, &se) == -1)
				break;
			late += p->p_late;
			pending_free(p);
			n++;
			continue;
		}
		if (pending_batch(max, &n, &late, &what, &se) == 0)
			continue;
		/* A conflict: look for the run in the way one by one. */
		if (se.se_class != STORE_CONFLICT || max == 1) {
			p = TAILQ_FIRST(&pendings);
			break;
		}
		max = 1;
	}
	if (n > 0) {
		log_debug("(CRON) ENDS (%zu runs in %lld ms)", n,
		    (long long)(clock_mono() - now));
		if (late > 0)
			log_info("(CRON) STORE (%zu runs recorded late)",
			    late);
		fire_store_ok();
	}
	if (p != NULL) {
		if (se.se_class != STORE_CONFLICT) {
			store_failed(what, &se);
			/* What waits now waits for the store. */
			TAILQ_FOREACH(p, &pendings, p_entry)
				p->p_late = 1;
			return (-1);
		}
		/* Someone else's row: this one cannot go in, ever. */
		log_warnx("(CRON) STORE (a run kept meanwhile is dropped: "
		    "%s)", se.se_msg);
		pending_free(p);
	}
	return (0);
}

/* The daemon stops: one last try at the records kept meanwhile. */
void
run_flush(void)
{
	if (npending > 0)
		(void)pending_flush(1);
	if (npending > 0)
		log_warnx("(CRON) STORE (%zu runs could not be recorded)",
		    npending);
}

/*
 * Trim the history now and then, after runs: never on a timer of its
 * own, so that an idle daemon does not wake up for it.  The store takes
 * a lease so that one node of a cluster trims at a time.
 */
static void
history_trim(void)
{
	struct store_error	 se;
	size_t			 n;
	int64_t			 now = clock_mono();

	if (D.d_st == NULL || (D.d_trimmed != 0 &&
	    now - D.d_trimmed < TRIM_EVERY))
		return;
	D.d_trimmed = now;
	if (D.d_conf.c_hist_age_ms == 0 && D.d_conf.c_hist_runs == 0)
		return;
	if (store_trim(D.d_st, D.d_conf.c_hist_age_ms, D.d_conf.c_hist_runs,
	    60000, &n, &se) == -1)
		store_failed("trimming the history", &se);
	else if (n > 0)
		log_debug("(CRON) TRIM (%zu runs)", n);
}

/* A fire's timer: the timeout of an attempt, or a retry's delay. */
static void
fire_timer(struct mtimer *t)
{
	struct fire	*f = t->mt_arg;

	if (f->f_state == FS_WAIT_RETRY) {
		/* The node's own retry, not a claim: no lease bounds it. */
		f->f_until = 0;
		f->f_attempt++;
		if (attempt_start(f) == -1)
			fire_free(f);
		return;
	}
	if (f->f_state != FS_RUNNING || f->f_sj == NULL)
		return;
	if (f->f_killed == 0) {
		if (f->f_mailer)
			log_warnx("(%s) MAIL (mailer still running after %us, "
			    "killing it)", f->f_owner, f->f_timeout);
		else
			fire_log(LOG_INFO, f->f_owner, "TIMEOUT",
			    D.d_conf.c_node, f->f_instant, f->f_label,
			    "after %us, killing it", f->f_timeout);
		spawn_kill(f->f_sj, SIGTERM);
		f->f_killed = 1;
		mtimer_set(&f->f_timer, clock_mono() + KILL_GRACE);
	} else {
		spawn_kill(f->f_sj, SIGKILL);
		f->f_killed = 2;
	}
}

static void
fire_free(struct fire *f)
{
	mtimer_del(&f->f_timer);
	LIST_REMOVE(f, f_entry);
	spawn_free(f->f_sj);
	jobenv_free(f->f_env);
	free(f->f_owner);
	free(f->f_cmd);
	free(f->f_label);
	free(f->f_rawcmd);
	free(f->f_input);
	free(f);
}

/*
 * Shutting down: with sig 0, drop the retries still waiting; with a
 * signal, send it to every running job's process group, and to every
 * mailer's: a mailer that hangs must not keep the daemon from exiting.
 */
void
run_killall(int sig)
{
	struct fire	*f, *next;

	LIST_FOREACH_SAFE(f, &D.d_fires, f_entry, next) {
		if (f->f_state == FS_WAIT_RETRY)
			fire_free(f);
		else if (sig != 0 && f->f_state == FS_RUNNING &&
		    f->f_sj != NULL)
			spawn_kill(f->f_sj, sig);
	}
}

/* The job goes away; its fires run on without it. */
void
run_detach_job(struct job *j)
{
	struct fire	*f;

	LIST_FOREACH(f, &D.d_fires, f_entry)
		if (f->f_job == j)
			f->f_job = NULL;
}

/* Attempts and mailers in flight. */
size_t
run_count(void)
{
	return (D.d_nrunning);
}
