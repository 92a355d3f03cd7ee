/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * fire.c: a fire's life on this node, under claim.c and node.c in the
 * daemon's chain (daemon.h); it starts attempts through proc.c and
 * records them through record.c.  A fire is every attempt of one (job,
 * scheduled instant): claimed first when the job is cluster-wide, then
 * started, retried, recorded, mailed.  What may happen to a fire is the
 * table below, one row per (state, event), each with its next state and
 * its action; fire_step() is the only place a fire's state changes, and
 * it logs every transition at debug level ("FIRE" lines).  An action
 * may yield a further event (a start that fails at once), which is
 * stepped in turn; a fire that reaches a final state is freed.
 *
 * The claim is the only decision point between nodes: whatever a node
 * does with a cluster fire (run it, note it skipped or missed) it does
 * after winning the fire's claim, so exactly one node decides each
 * fire.  The states before CLAIMED are claim.c's to leave (it talks to
 * the store); from CLAIMED on the events come from claim.c (start or
 * skip), proc.c (the attempt's life) and this file's retry timer.
 *
 * A fire copies what its attempts need from its job when it first
 * starts, and holds its job otherwise only by handle and identity: the
 * job may be read again or go away meanwhile.
 *
 * The environment is cron's: SHELL=/bin/sh, HOME, LOGNAME, USER,
 * PATH=/usr/bin:/bin, then the table's variables (which may replace all
 * but LOGNAME and USER), then the fire: CLUSTERCRON_FIRE_ID (the job's
 * identity, '@', the instant in UTC), CLUSTERCRON_FIRE_TIME,
 * CLUSTERCRON_JOB_ID, CLUSTERCRON_NODE and CLUSTERCRON_ATTEMPT.
 * Nothing of the daemon's own environment or configuration reaches it.
 *
 * An attempt that outlives CLUSTERCRON_TIMEOUT is killed (proc.c).  A
 * failed attempt (exit status other than 0, or a signal) of a job with
 * CLUSTERCRON_RETRY is started again after the next delay, as an
 * attempt of the same fire, without a new claim: the fire is ours.
 * Each attempt is a run in the store and mails its own output.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/tree.h>
#include <sys/wait.h>

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * The actions.  Each runs after the fire took its new state and may
 * return a further event (FE_NEVENTS: none), with its data.
 */
enum fire_action {
	A_NONE,
	A_KEEP,		/* keep it to settle later: the pass is owed */
	A_CLAIMED,	/* say CLAIMED */
	A_RERUN,	/* ours without a claim: a lost run's rerun */
	A_NOT_WON,	/* say NOT CLAIMED (debug) */
	A_RECORDED,	/* say LOST: another node recorded it */
	A_SKIP,		/* say SKIPPED, note it */
	A_START,	/* start an attempt */
	A_NEXT,		/* start the next attempt */
	A_EXEC,		/* say CMD, record the start */
	A_NOSTART,	/* say CMD FAILED, record the failure */
	A_FENCED,	/* say FENCED, keep it to settle later */
	A_LOST_LATE,	/* say LOST: a rerun past its lease */
	A_RENEW,	/* start it again under the lease renewed since */
	A_TIMEOUT,	/* say TIMEOUT (proc.c kills) */
	A_END,		/* the attempt ended: say, record */
	A_RETRY,	/* the same, then wait for the next attempt */
	A_ADOPT,	/* a run of an earlier life: record its start */
	A_VANISHED,	/* say LOST: its end is unknown; record it */
	A_LIMITED	/* a limit skipped it, or let it miss: note why */
};

struct row {
	uint8_t		 r_valid;
	uint8_t		 r_to;
	uint8_t		 r_act;
};
#define T(to, act)	{ 1, (to), (act) }

/*
 * The transition table: trans[state][event].  A pair not listed cannot
 * happen; fire_step() refuses it loudly.
 */
static const struct row trans[FS_NSTATES][FE_NEVENTS] = {
	[FS_NEW] = {
		[FE_DUE] =		T(FS_DUE, A_NONE),
		[FE_LOCAL] =		T(FS_CLAIMED, A_NONE),
		[FE_RERUN] =		T(FS_CLAIMED, A_RERUN),
		[FE_ADOPT] =		T(FS_RUNNING, A_ADOPT),
	},
	[FS_DUE] = {
		[FE_WON] =		T(FS_CLAIMED, A_CLAIMED),
		[FE_WON_LATE] =		T(FS_MISSED, A_NONE),
		[FE_NOT_WON] =		T(FS_OTHER, A_NOT_WON),
		[FE_NO_ANSWER] =	T(FS_DOUBT, A_KEEP),
		[FE_HOLD] =		T(FS_DROPPED, A_KEEP),
		[FE_LEAVE] =		T(FS_LEFT, A_NONE),
		[FE_GONE] =		T(FS_GONE, A_NONE),
	},
	[FS_DOUBT] = {
		[FE_WON] =		T(FS_CLAIMED, A_CLAIMED),
		[FE_WON_LATE] =		T(FS_MISSED, A_NONE),
		[FE_NOT_WON] =		T(FS_OTHER, A_NONE),
		[FE_RECORDED] =		T(FS_LOST, A_RECORDED),
		[FE_GONE] =		T(FS_GONE, A_NONE),
	},
	[FS_DROPPED] = {
		[FE_WON] =		T(FS_CLAIMED, A_CLAIMED),
		[FE_WON_LATE] =		T(FS_MISSED, A_NONE),
		[FE_NOT_WON] =		T(FS_OTHER, A_NONE),
		[FE_RECORDED] =		T(FS_LOST, A_RECORDED),
		[FE_GONE] =		T(FS_GONE, A_NONE),
	},
	[FS_CLAIMED] = {
		[FE_START] =		T(FS_STARTING, A_START),
		[FE_BUSY] =		T(FS_SKIPPED, A_SKIP),
		[FE_UNSURE] =		T(FS_UNSURE, A_NONE),
	},
	[FS_STARTING] = {
		[FE_EXEC] =		T(FS_RUNNING, A_EXEC),
		[FE_NOSTART] =		T(FS_FAILED, A_NOSTART),
		[FE_LATE] =		T(FS_DROPPED, A_FENCED),
		[FE_RENEWED] =		T(FS_STARTING, A_RENEW),
		[FE_LATE_RERUN] =	T(FS_LOST, A_LOST_LATE),
		[FE_TIMEOUT] =		T(FS_STARTING, A_TIMEOUT),
		[FE_OVER] =		T(FS_SKIPPED, A_LIMITED),
		[FE_TOO_LATE] =		T(FS_MISSED, A_LIMITED),
	},
	[FS_RUNNING] = {
		[FE_TIMEOUT] =		T(FS_RUNNING, A_TIMEOUT),
		[FE_ENDED] =		T(FS_FINISHED, A_END),
		[FE_ENDED_RETRY] =	T(FS_RETRY, A_RETRY),
		[FE_VANISHED] =		T(FS_LOST, A_VANISHED),
	},
	[FS_RETRY] = {
		[FE_RETRY_DUE] =	T(FS_STARTING, A_NEXT),
		[FE_STOP] =		T(FS_STOPPED, A_NONE),
	},
};

static const char *const state_names[FS_NSTATES] = {
	"new", "due", "in doubt", "dropped", "claimed", "starting",
	"running", "waiting to retry", "finished", "another node's",
	"left to others", "skipped", "missed", "failed", "lost",
	"not run (overlap unknown)", "gone", "stopped"
};

static const char *const event_names[FE_NEVENTS] = {
	"due", "due here", "rerun", "won", "won too late", "not won",
	"no answer", "held", "left", "recorded elsewhere", "job gone",
	"start", "busy", "overlap unknown", "did not start", "late",
	"rerun late", "exec'd", "timeout", "ended", "failed, retrying",
	"retry due", "stop", "adopted", "runner gone", "over a limit",
	"not started in time", "lease renewed"
};

struct fire {
	TAILQ_ENTRY(fire) f_entry;
	enum fire_state	 f_state;
	struct jobref	 f_ref;
	char		 f_id[CRON_IDLEN + 1];
	time_t		 f_instant;	/* the scheduled instant */
	int		 f_attempt;	/* 1 for the first */
	int		 f_cluster;	/* claimed in the store */
	unsigned int	 f_marks;	/* FF_*: claim.c's */
	int64_t		 f_until;	/* mono ms: no start after; 0 none */
	/* What its attempts need, copied at its first start. */
	char		*f_owner;
	char		*f_cmd;		/* as logged, escaped */
	char		*f_label;	/* job_label(): "job: command" */
	char		*f_rawcmd;
	char		*f_input;
	size_t		 f_inputlen;
	char		**f_env;
	uint8_t		 f_nretry;
	uint32_t	 f_retry[CRON_MAXRETRY];
	uint32_t	 f_timeout;
	int		 f_badmail;	/* MAILTO refused: say so at the end */
	int		 f_system;	/* of a system table: no user limits */
	/* The attempt in flight. */
	struct proc	*f_proc;
	pid_t		 f_pid;
	struct rec	*f_rec;
	int64_t		 f_start;	/* ms, wall clock */
	struct mtimer	 f_timer;	/* the delay before a retry */
};
TAILQ_HEAD(fires, fire);

/*
 * Fires waiting on the store (due, in doubt, dropped) and the others,
 * which run here or are about to.
 */
static struct fires	 waiting = TAILQ_HEAD_INITIALIZER(waiting);
static struct fires	 live = TAILQ_HEAD_INITIALIZER(live);

/*
 * The attempts between their start and their exec (FS_STARTING), and
 * how many have left that state since the daemon started: what claim.c
 * measures this node's start rate by.
 */
static size_t		 nstarting;
static uint64_t		 nstarted;

/* Attempts in flight here, by job identity: what overlap asks. */
struct inflight {
	RB_ENTRY(inflight) i_entry;
	char		 i_id[CRON_IDLEN + 1];
	size_t		 i_n;
};
int	 inflight_cmp(struct inflight *, struct inflight *);
RB_HEAD(inflights, inflight);
RB_PROTOTYPE(inflights, inflight, i_entry, inflight_cmp);
RB_GENERATE(inflights, inflight, i_entry, inflight_cmp);
static struct inflights	 inflights = RB_INITIALIZER(&inflights);

static enum fire_event act(struct fire *, enum fire_action,
		    const struct fire_data *, struct fire_data *,
		    struct tick *);
static enum fire_event attempt_start(struct fire *, const struct job *,
		    struct fire_data *, struct tick *);
static void	 attempt_end(struct fire *, const struct fire_data *,
		    struct tick *);
static void	 prepare(struct fire *, const struct job *);
static void	 unprepare(struct fire *);
static void	 fire_free(struct fire *);
static void	 inflight_add(const char *, int);
static void	 on_proc(const struct proc_event *, struct tick *);
static void	 retry_timer(struct mtimer *, struct tick *);
static char	*input_lines(const char *, size_t *);
static struct passwd *owner_pw(const char *, const struct tick *);
static char	**env_build(const struct fire *, const struct job *,
		    const struct passwd *);
static const struct mail_req *mail_settings(struct fire *,
		    const struct passwd *, struct mail_req *);
static void	 adopted(const struct proc_event *, struct tick *);
static void	 log_job(const struct fire *, const char *);
static void	 log_output(const struct fire *, const struct outbuf *);
static int	 is_final(enum fire_state);
static int	 job_system(const struct job *);
static int	 renewed(const struct fire *, const struct tick *);

int
inflight_cmp(struct inflight *a, struct inflight *b)
{
	return (strcmp(a->i_id, b->i_id));
}

void
fire_init(void)
{
	proc_init(on_proc);
}

const char *
fire_state_name(enum fire_state s)
{
	return (s < FS_NSTATES ? state_names[s] : "?");
}

const char *
fire_event_name(enum fire_event e)
{
	return (e < FE_NEVENTS ? event_names[e] : "?");
}

/*
 * The table itself, for its tests: whether (s, e) is a transition, and
 * its next state in *to.
 */
int
fire_transition(enum fire_state s, enum fire_event e, enum fire_state *to)
{
	if (s >= FS_NSTATES || e >= FE_NEVENTS || !trans[s][e].r_valid)
		return (0);
	*to = trans[s][e].r_to;
	return (1);
}

static int
is_final(enum fire_state s)
{
	return (s >= FS_FINISHED);
}

static int
is_waiting(enum fire_state s)
{
	return (s == FS_DUE || s == FS_DOUBT || s == FS_DROPPED);
}

/*
 * A new fire of the job of handle ref and identity id, at the scheduled
 * instant `fire' (UTC s), whose first attempt is number attempt.
 */
struct fire *
fire_new(const struct jobref *ref, const char *id, time_t fire, int attempt)
{
	struct fire	*f;

	f = xcalloc(1, sizeof(*f));
	f->f_state = FS_NEW;
	f->f_ref = *ref;
	strlcpy(f->f_id, id, sizeof(f->f_id));
	f->f_instant = fire;
	f->f_attempt = attempt;
	mtimer_init(&f->f_timer, retry_timer, f);
	TAILQ_INSERT_TAIL(&live, f, f_entry);
	return (f);
}

/*
 * Feed the fire an event: look the transition up, log it, take the new
 * state, carry out the action, and go on with the event the action
 * yields, if any.  A fire that ends in a final state is freed.  An
 * event its state has no row for is a bug: it is logged and the fire
 * is left as it was.
 */
void
fire_step(struct fire *f, enum fire_event ev, struct fire_data *d,
    struct tick *tk)
{
	const struct row	*r;
	struct fire_data	 next, cur;
	enum fire_state		 from;

	memset(&cur, 0, sizeof(cur));
	if (d != NULL)
		cur = *d;
	while (ev != FE_NEVENTS) {
		from = f->f_state;
		r = &trans[from][ev];
		if (!r->r_valid) {
			log_warnx("(CRON) ERROR (fire %s@%lld: no transition "
			    "from %s on %s)", f->f_id, (long long)f->f_instant,
			    fire_state_name(from), fire_event_name(ev));
			return;
		}
		if (D.d_debug)
			fire_log(LOG_DEBUG, "CRON", "FIRE", D.d_conf.c_node,
			    f->f_instant, f->f_id, "%s -> %s on %s",
			    fire_state_name(from), fire_state_name(r->r_to),
			    fire_event_name(ev));
		if (is_waiting(r->r_to) != is_waiting(from)) {
			TAILQ_REMOVE(is_waiting(from) ? &waiting : &live, f,
			    f_entry);
			TAILQ_INSERT_TAIL(is_waiting(r->r_to) ? &waiting :
			    &live, f, f_entry);
		}
		if (from == FS_STARTING && r->r_to != FS_STARTING) {
			nstarting--;
			nstarted++;
		} else if (from != FS_STARTING && r->r_to == FS_STARTING)
			nstarting++;
		f->f_state = r->r_to;
		memset(&next, 0, sizeof(next));
		ev = act(f, r->r_act, &cur, &next, tk);
		cur = next;
	}
	if (is_final(f->f_state))
		fire_free(f);
}

static enum fire_event
act(struct fire *f, enum fire_action a, const struct fire_data *d,
    struct fire_data *out, struct tick *tk)
{
	const struct job	*j = d->fd_job;
	char			 label[JOB_LABELLEN];

	switch (a) {
	case A_NONE:
		break;
	case A_KEEP:
		/* Settled by the misfire pass, which it now owes. */
		gate_owe(0);
		break;
	case A_CLAIMED:
		/* Beyond cron's lines: debug level unless -L 16. */
		f->f_cluster = 1;
		f->f_until = d->fd_until;
		if (j == NULL || !(D.d_debug || D.d_loglevel & LL_FIRES))
			break;
		job_label(j, label, sizeof(label));
		fire_log(D.d_loglevel & LL_FIRES ? LOG_INFO : LOG_DEBUG,
		    job_owner(j), "CLAIMED", D.d_conf.c_node, f->f_instant,
		    label, d->fd_catchup == 2 ? "late, held through an "
		    "outage" : d->fd_catchup ? "catching up" : NULL);
		break;
	case A_RERUN:
		/*
		 * The conditional write that marked the run lost made this
		 * node the only one to act on it: no new claim, but the
		 * lease of this node bounds the start all the same.
		 */
		f->f_cluster = 1;
		f->f_until = d->fd_until;
		break;
	case A_NOT_WON:
		if (j == NULL || !D.d_debug)
			break;
		job_label(j, label, sizeof(label));
		fire_log(LOG_DEBUG, job_owner(j), "NOT CLAIMED",
		    D.d_conf.c_node, f->f_instant, label, "another node won");
		break;
	case A_RECORDED:
		fire_log(LOG_INFO, job_owner(j), "LOST", D.d_conf.c_node,
		    f->f_instant, job_label(j, label, sizeof(label)),
		    "taken for dead meanwhile, recorded by another node, "
		    "not started");
		break;
	case A_SKIP:
		fire_log(LOG_INFO, job_owner(j), "SKIPPED", D.d_conf.c_node,
		    f->f_instant, job_label(j, label, sizeof(label)),
		    "still running");
		metrics_fire_noted(f->f_id, job_owner(j), RUN_SKIPPED);
		if (f->f_cluster)
			(void)record_note(f->f_id, f->f_instant, RUN_SKIPPED,
			    tk->tk_wall);
		break;
	case A_LIMITED:
		/*
		 * Its owner's doing (issue 12): proc.c logged the limit, a
		 * few lines a minute; the fire is noted with the reason,
		 * whatever its scope, as this node decided it.
		 */
		if (D.d_debug)
			fire_log(LOG_DEBUG, f->f_owner != NULL ? f->f_owner :
			    job_owner(j), f->f_state == FS_SKIPPED ? "SKIPPED" :
			    "MISSED", D.d_conf.c_node, f->f_instant, f->f_id,
			    "%s", d->fd_why);
		tick_read(tk);
		metrics_fire_noted(f->f_id, f->f_owner != NULL ? f->f_owner :
		    job_owner(j), f->f_state == FS_SKIPPED ? RUN_SKIPPED :
		    RUN_MISSED);
		record_note_why(f->f_id, f->f_instant, f->f_state ==
		    FS_SKIPPED ? RUN_SKIPPED : RUN_MISSED, d->fd_why,
		    tk->tk_wall);
		break;
	case A_START:
		return (attempt_start(f, j, out, tk));
	case A_NEXT:
		/* The node's own retry, not a claim: no lease bounds it. */
		f->f_until = 0;
		f->f_attempt++;
		return (attempt_start(f, NULL, out, tk));
	case A_EXEC:
		if (D.d_loglevel & LL_START)
			log_job(f, "CMD");
		f->f_rec = record_start(f->f_id, f->f_instant, f->f_attempt,
		    f->f_pid, f->f_start);
		break;
	case A_NOSTART:
		fire_log(LOG_ERR, f->f_owner, "CMD FAILED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%s", d->fd_why);
		tick_read(tk);
		record_fail(f->f_id, f->f_instant, f->f_attempt, d->fd_why,
		    tk->tk_wall, d->fd_spool);
		break;
	case A_FENCED:
		/*
		 * A claimed fire got to its start past the lease it was
		 * claimed under: the others may have taken this node for
		 * dead and marked the claim lost.  It is not started on
		 * that old claim but settled as a fire dropped while
		 * fenced: by then the store says whether it was taken,
		 * else the job's misfire policy decides.
		 */
		fire_log(LOG_INFO, f->f_owner, "FENCED", D.d_conf.c_node,
		    f->f_instant, f->f_label, "%.1f s past the lease of its "
		    "claim, not started", (double)d->fd_late / 1000);
		unprepare(f);
		gate_owe(0);
		break;
	case A_RENEW:
		/*
		 * Past the lease it was claimed under, but that lease was
		 * renewed without a break since (gate_renewed()): nobody
		 * can have taken this node for dead, the claim still holds,
		 * and the attempt, which did not start, is queued again
		 * under the current lease.  A burst this node starts more
		 * slowly than it guessed is not lost for it.
		 */
		if (D.d_debug)
			fire_log(LOG_DEBUG, f->f_owner, "RENEWED",
			    D.d_conf.c_node, f->f_instant, f->f_label,
			    "%.1f s past the lease of its claim, renewed "
			    "since: queued again", (double)d->fd_late / 1000);
		f->f_until = gate_lease_until(gate_state());
		return (attempt_start(f, NULL, out, tk));
	case A_LOST_LATE:
		/* A rerun is not tried again. */
		fire_log(LOG_ERR, f->f_owner, "LOST", D.d_conf.c_node,
		    f->f_instant, f->f_label, "attempt %d, not run again, "
		    "%.1f s past the lease, not started", f->f_attempt,
		    (double)d->fd_late / 1000);
		break;
	case A_TIMEOUT:
		fire_log(LOG_INFO, f->f_owner, "TIMEOUT", D.d_conf.c_node,
		    f->f_instant, f->f_label, "after %us, killing it",
		    d->fd_timeout);
		break;
	case A_END:
		attempt_end(f, d, tk);
		break;
	case A_ADOPT:
		if (D.d_debug || D.d_loglevel & LL_FIRES)
			fire_log(D.d_loglevel & LL_FIRES ? LOG_INFO : LOG_DEBUG,
			    f->f_owner, "ADOPTED", D.d_conf.c_node,
			    f->f_instant, f->f_label, "attempt %d, pid %ld, "
			    "started by an earlier life", f->f_attempt,
			    (long)f->f_pid);
		f->f_rec = record_start(f->f_id, f->f_instant, f->f_attempt,
		    f->f_pid, f->f_start);
		break;
	case A_VANISHED:
		fire_log(LOG_INFO, f->f_owner, "LOST", D.d_conf.c_node,
		    f->f_instant, f->f_label, "attempt %d, its end is unknown: "
		    "its runner died", f->f_attempt);
		metrics_runs_lost(D.d_conf.c_node, 1);
		if (f->f_rec != NULL)
			record_lost(f->f_rec, d->fd_spool, tk);
		f->f_rec = NULL;
		break;
	case A_RETRY:
		attempt_end(f, d, tk);
		fire_log(D.d_loglevel & LL_FAILED ? LOG_INFO : LOG_DEBUG,
		    f->f_owner, "RETRY", D.d_conf.c_node, f->f_instant,
		    f->f_label, "attempt %d in %us", f->f_attempt + 1,
		    f->f_retry[f->f_attempt - 1]);
		mtimer_set(&f->f_timer, tk->tk_mono +
		    (int64_t)f->f_retry[f->f_attempt - 1] * 1000);
		break;
	}
	return (FE_NEVENTS);
}

/*
 * Start an attempt of f; j is its job when it has none of the copies an
 * attempt needs yet (its first start).  Returns FE_NEVENTS once queued
 * (proc.c tells the rest: its start, or why not, or that it came to its
 * start too late), or FE_NOSTART with why in out.
 */
static enum fire_event
attempt_start(struct fire *f, const struct job *j, struct fire_data *out,
    struct tick *tk)
{
	static char		 why[300];
	struct spawn_req	 sr;
	struct proc_req		 pr;
	struct mail_req		 mr;
	struct passwd		*pw;
	char			 title[128], num[16];

	/*
	 * A fire's first start: within its owner's rate (proc.c)?  The
	 * system tables are the administrator's: no limit.
	 */
	if (f->f_owner == NULL && f->f_attempt == 1 && !job_system(j) &&
	    !proc_admit(job_owner(j), tk, why, sizeof(why))) {
		out->fd_why = why;
		out->fd_job = j;
		return (FE_OVER);
	}
	if (f->f_owner == NULL)
		prepare(f, j);
	if ((pw = owner_pw(f->f_owner, tk)) == NULL) {
		snprintf(why, sizeof(why), "no such user %s", f->f_owner);
		out->fd_why = why;
		return (FE_NOSTART);
	}
	if (f->f_env == NULL)
		f->f_env = env_build(f, j, pw);
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
	memset(&pr, 0, sizeof(pr));
	pr.pr_spawn = &sr;
	pr.pr_mail = mail_settings(f, pw, &mr);
	pr.pr_owner = f;
	pr.pr_who = f->f_owner;
	pr.pr_what = f->f_cmd;
	pr.pr_label = f->f_label;
	pr.pr_id = f->f_id;
	pr.pr_fire = f->f_instant;
	pr.pr_attempt = f->f_attempt;
	pr.pr_timeout = f->f_timeout;
	pr.pr_until = f->f_until;
	pr.pr_deadline = tk->tk_mono + D.d_conf.c_start_grace_ms;
	pr.pr_exempt = f->f_system;
	if (proc_start(&pr, tk, &f->f_proc, why, sizeof(why)) == PS_QUEUED) {
		inflight_add(f->f_id, 1);
		return (FE_NEVENTS);
	}
	out->fd_why = why;
	return (FE_NOSTART);
}

/* What proc.c says of a fire's attempt. */
static void
on_proc(const struct proc_event *pe, struct tick *tk)
{
	struct fire		*f = pe->pe_owner;
	struct fire_data	 d;
	struct spawn_status	 ss;
	int			 failed;

	memset(&d, 0, sizeof(d));
	switch (pe->pe_kind) {
	case PE_ADOPTED:
		adopted(pe, tk);
		return;
	case PE_STARTED:
		f->f_pid = pe->pe_pid;
		f->f_start = pe->pe_start;
		fire_step(f, FE_EXEC, &d, tk);
		return;
	case PE_NOSTART:
		f->f_proc = NULL;
		inflight_add(f->f_id, -1);
		d.fd_why = pe->pe_why;
		d.fd_spool = pe->pe_spool;
		fire_step(f, FE_NOSTART, &d, tk);
		return;
	case PE_LOST:
		f->f_proc = NULL;
		inflight_add(f->f_id, -1);
		d.fd_spool = pe->pe_spool;
		fire_step(f, FE_VANISHED, &d, tk);
		return;
	case PE_MISSED:
		f->f_proc = NULL;
		inflight_add(f->f_id, -1);
		d.fd_why = pe->pe_why;
		fire_step(f, f->f_attempt == 1 ? FE_TOO_LATE : FE_NOSTART, &d,
		    tk);
		return;
	case PE_LATE:
		f->f_proc = NULL;
		inflight_add(f->f_id, -1);
		d.fd_late = pe->pe_late;
		tick_read(tk);
		if (renewed(f, tk))
			fire_step(f, FE_RENEWED, &d, tk);
		else
			fire_step(f, f->f_attempt > 1 ? FE_LATE_RERUN :
			    FE_LATE, &d, tk);
		return;
	case PE_TIMEOUT:
		d.fd_timeout = pe->pe_timeout;
		fire_step(f, FE_TIMEOUT, &d, tk);
		return;
	case PE_ENDED:
		f->f_proc = NULL;
		inflight_add(f->f_id, -1);
		d.fd_wstatus = pe->pe_wstatus;
		d.fd_end = pe->pe_end;
		d.fd_out = pe->pe_out;
		d.fd_spool = pe->pe_spool;
		spawn_status_decode(pe->pe_wstatus, &ss);
		failed = !ss.ss_exited || ss.ss_code != 0;
		fire_step(f, failed && f->f_attempt <= f->f_nretry &&
		    !D.d_stopping ? FE_ENDED_RETRY : FE_ENDED, &d, tk);
		return;
	}
}

/*
 * Whether fire f, which got to its start past the lease it was claimed
 * under (f_until, the end of the lease the heartbeat sent at f_until
 * less node-timeout less heartbeat-interval renewed), may be started
 * under the current one: that lease was renewed without a break since,
 * and the current one has not run out.
 */
static int
renewed(const struct fire *f, const struct tick *tk)
{
	const struct gate	*g = gate_state();

	if (f->f_until <= 1 || !D.d_mysql || D.d_stopping)
		return (0);
	return (gate_renewed(g, f->f_until - (D.d_conf.c_node_timeout_ms -
	    D.d_conf.c_heartbeat_ms)) && !gate_fence_due(g, tk->tk_mono));
}

/*
 * An attempt ended: say so as cron does, record it, and log its output
 * (-s); its runner mails it.
 */
static void
attempt_end(struct fire *f, const struct fire_data *d, struct tick *tk)
{
	struct spawn_status	 ss;
	char			 how[128], pre[32] = "";
	int64_t			 end;
	int			 failed;

	spawn_status_decode(d->fd_wstatus, &ss);
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
		    (long)f->f_pid, how);
	}
	if (D.d_loglevel & LL_END)
		log_job(f, "END");
	if ((end = d->fd_end) == 0) {
		tick_read(tk);
		end = tk->tk_wall;
	}
	metrics_run_end(f->f_id, f->f_owner, f->f_start, end, d->fd_wstatus);
	if (f->f_rec != NULL)
		record_end(f->f_rec, end, d->fd_wstatus, d->fd_out,
		    d->fd_spool, tk);
	f->f_rec = NULL;
	if (D.d_output_log)
		log_output(f, d->fd_out);
	else if (f->f_badmail && d->fd_out->ob_total > 0)
		log_warnx("(%s) MAIL (bad MAILTO %s, output of %s dropped)",
		    f->f_owner, jobenv_get(f->f_env, "MAILTO"), f->f_cmd);
}

static void
retry_timer(struct mtimer *t, struct tick *tk)
{
	fire_step(t->mt_arg, FE_RETRY_DUE, NULL, tk);
}

/* Copy from the job what the fire's attempts need. */
static void
prepare(struct fire *f, const struct job *j)
{
	f->f_owner = xstrdup(job_owner(j));
	f->f_rawcmd = xstrdup(job_cmd(j));
	f->f_cmd = cmd_escape(job_cmd(j));
	/* job_label(), from what is made already: this is every start. */
	xasprintf(&f->f_label, "%s: %s", job_opts(j)->o_name != NULL ?
	    job_opts(j)->o_name : f->f_id, f->f_cmd);
	if (job_input(j) != NULL)
		f->f_input = input_lines(job_input(j), &f->f_inputlen);
	f->f_nretry = job_opts(j)->o_nretry;
	memcpy(f->f_retry, job_opts(j)->o_retry, sizeof(f->f_retry));
	f->f_timeout = job_opts(j)->o_timeout;
	f->f_system = job_system(j);
}

/* Whether j is of /etc/crontab or /etc/cron.d, the administrator's. */
static int
job_system(const struct job *j)
{
	enum tb_kind	 k = j->j_kind->k_table->tb_kind;

	return (k == TB_SYSTEM || k == TB_CROND);
}

/* Drop the copies: the fire will be started anew from its job. */
static void
unprepare(struct fire *f)
{
	jobenv_free(f->f_env);
	free(f->f_owner);
	free(f->f_cmd);
	free(f->f_label);
	free(f->f_rawcmd);
	free(f->f_input);
	f->f_env = NULL;
	f->f_owner = f->f_cmd = f->f_label = f->f_rawcmd = f->f_input = NULL;
	f->f_inputlen = 0;
}

static void
fire_free(struct fire *f)
{
	mtimer_del(&f->f_timer);
	TAILQ_REMOVE(is_waiting(f->f_state) ? &waiting : &live, f, f_entry);
	if (f->f_rec != NULL)
		record_drop(f->f_rec);
	unprepare(f);
	free(f);
}

/* n more (or fewer) attempts of job id are in flight. */
static void
inflight_add(const char *id, int n)
{
	struct inflight	 key, *i;

	strlcpy(key.i_id, id, sizeof(key.i_id));
	if ((i = RB_FIND(inflights, &inflights, &key)) == NULL) {
		if (n < 0)
			return;
		i = xcalloc(1, sizeof(*i));
		strlcpy(i->i_id, id, sizeof(i->i_id));
		RB_INSERT(inflights, &inflights, i);
	}
	if (n < 0 && i->i_n < (size_t)-n)
		i->i_n = 0;
	else
		i->i_n += n;
	if (i->i_n == 0) {
		RB_REMOVE(inflights, &inflights, i);
		free(i);
	}
}

size_t
fire_inflight(const char *id)
{
	struct inflight	 key, *i;

	strlcpy(key.i_id, id, sizeof(key.i_id));
	i = RB_FIND(inflights, &inflights, &key);
	return (i != NULL ? i->i_n : 0);
}

/*
 * The attempts started and not yet exec'd (or failed), and the count of
 * those that got past that since the daemon started: exec'd, failed to
 * start, or too late to.
 */
size_t
fire_starting(void)
{
	return (nstarting);
}

uint64_t
fire_started(void)
{
	return (nstarted);
}

/*
 * Whether a run recorded as running is one of this node's in flight:
 * its id in the store, or its fire.
 */
int
fire_owns_run(int64_t runid, const char *id, time_t fire)
{
	struct fire	*f;

	TAILQ_FOREACH(f, &live, f_entry) {
		if (f->f_rec != NULL && runid != 0 &&
		    record_runid(f->f_rec) == runid)
			return (1);
		if (strcmp(f->f_id, id) == 0 && f->f_instant == fire)
			return (1);
	}
	return (0);
}

/*
 * The fires in the states of mask, in a new array the caller frees; the
 * fires are borrowed until each is stepped.
 */
size_t
fire_list(unsigned int mask, struct fire ***out)
{
	struct fire	*f, **v = NULL;
	size_t		 n = 0, cap = 0;
	int		 i;

	for (i = 0; i < 2; i++) {
		TAILQ_FOREACH(f, i == 0 ? &waiting : &live, f_entry) {
			if (!(mask & FSM(f->f_state)))
				continue;
			if (n == cap) {
				cap = cap == 0 ? 64 : cap * 2;
				v = xreallocarray(v, cap, sizeof(*v));
			}
			v[n++] = f;
		}
	}
	*out = v;
	return (n);
}

/* claim.c's marks on a fire (FF_*), set and read. */
void
fire_mark(struct fire *f, unsigned int marks)
{
	f->f_marks |= marks;
}

unsigned int
fire_marks(const struct fire *f)
{
	return (f->f_marks);
}

enum fire_state
fire_state(const struct fire *f)
{
	return (f->f_state);
}

const char *
fire_id(const struct fire *f)
{
	return (f->f_id);
}

time_t
fire_instant(const struct fire *f)
{
	return (f->f_instant);
}

struct jobref *
fire_ref(struct fire *f)
{
	return (&f->f_ref);
}

/* The daemon stops: the attempts waiting for a retry are dropped. */
void
fire_stop(struct tick *tk)
{
	struct fire	*f, *next;

	TAILQ_FOREACH_SAFE(f, &live, f_entry, next)
		if (f->f_state == FS_RETRY)
			fire_step(f, FE_STOP, NULL, tk);
}

/*
 * The attempts an earlier life of the daemon left to their runners:
 * each becomes a fire again (adopted()), in FS_RUNNING, whose end is
 * recorded when its runner writes it.
 */
void
fire_adopt(struct tick *tk)
{
	proc_adopt(tk);
}

/*
 * A run of an earlier life (PE_ADOPTED): a fire of its job, running,
 * which owns the proc.  Its strings come from the run file, as its job
 * may be gone; it is not tried again (no retries: the earlier life's
 * would have been dropped as it stopped).
 */
static void
adopted(const struct proc_event *pe, struct tick *tk)
{
	const struct runfile	*rf = pe->pe_run;
	struct jobref		 ref;
	struct fire		*f;

	memset(&ref, 0, sizeof(ref));
	(void)job_find(rf->rf_id, &ref);
	f = fire_new(&ref, rf->rf_id, (time_t)rf->rf_fire, rf->rf_attempt);
	f->f_owner = xstrdup(rf->rf_user != NULL ? rf->rf_user : "CRON");
	f->f_cmd = xstrdup(rf->rf_what != NULL ? rf->rf_what : "?");
	f->f_label = xstrdup(rf->rf_label != NULL ? rf->rf_label : rf->rf_id);
	f->f_pid = rf->rf_pid;
	f->f_start = rf->rf_start;
	f->f_proc = pe->pe_proc;
	proc_own(pe->pe_proc, f);
	inflight_add(f->f_id, 1);
	fire_step(f, FE_ADOPT, NULL, tk);
}

void
fire_free_all(void)
{
	struct fire	*f;
	struct inflight	*i, *next;

	while ((f = TAILQ_FIRST(&waiting)) != NULL)
		fire_free(f);
	while ((f = TAILQ_FIRST(&live)) != NULL)
		fire_free(f);
	nstarting = 0;
	RB_FOREACH_SAFE(i, inflights, &inflights, next) {
		RB_REMOVE(inflights, &inflights, i);
		free(i);
	}
}

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
owner_pw(const char *name, const struct tick *tk)
{
	static struct passwd	 pw;
	static char		*buf, last[256];
	static size_t		 buflen;
	static uint64_t		 turn;
	static int		 valid;
	struct passwd		*res;
	int			 e;

	if (valid && turn == tk->tk_turn && strcmp(last, name) == 0)
		return (&pw);
	valid = 0;
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
	if (strlcpy(last, name, sizeof(last)) < sizeof(last)) {
		turn = tk->tk_turn;
		valid = 1;
	}
	return (&pw);
}

/*
 * The job's environment: cron's (common/jobenv_build()), then the fire.
 * CLUSTERCRON_ATTEMPT is set again for each attempt.
 */
static char **
env_build(const struct fire *f, const struct job *j, const struct passwd *pw)
{
	char	**env, when[32], fireid[CRON_IDLEN + 40];

	if (jobenv_build(pw, job_env(j), &env) == -1)
		fatal("environment");
	/* -P: the daemon's PATH where the table sets none, as cronie's. */
	if (D.d_path != NULL &&
	    jobenv_get((char *const *)job_env(j), "PATH") == NULL &&
	    jobenv_set(&env, "PATH", D.d_path) == -1)
		fatal("environment");
	fmt_utc(f->f_instant, when, sizeof(when));
	snprintf(fireid, sizeof(fireid), "%s@%s", f->f_id, when);
	if (jobenv_set(&env, "CLUSTERCRON_FIRE_ID", fireid) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_FIRE_TIME", when) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_JOB_ID", f->f_id) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_NODE", D.d_conf.c_node) == -1 ||
	    jobenv_set(&env, "CLUSTERCRON_ATTEMPT", "1") == -1)
		fatal("environment");
	return (env);
}

/* cron's line about a job's start or end: CMD or END, with -L 8 its pid. */
static void
log_job(const struct fire *f, const char *event)
{
	if (D.d_loglevel & LL_PID)
		log_info("(%s) %s ([%ld] %s)", f->f_owner, event,
		    (long)f->f_pid, f->f_cmd);
	else
		log_info("(%s) %s (%s)", f->f_owner, event, f->f_cmd);
}

/*
 * How the runner mails the output of an attempt (into mr, which it
 * returns), or NULL for no mail: none asked (MAILTO empty), none sent
 * (-s, or no mailer), or a MAILTO that is refused (said at the end, if
 * there is output).  The subject says "(failed)" when the job failed
 * and failures are logged (-L 4), as Debian's cron words it.
 */
static const struct mail_req *
mail_settings(struct fire *f, const struct passwd *pw, struct mail_req *mr)
{
	const char	*to;

	f->f_badmail = 0;
	if (D.d_output_log)
		return (NULL);
	if ((to = mail_recipient(f->f_env, f->f_owner)) == NULL)
		return (NULL);
	if (D.d_conf.c_sendmail != NULL && *D.d_conf.c_sendmail == '\0')
		return (NULL);
	if (!mail_address_ok(to)) {
		f->f_badmail = 1;
		return (NULL);
	}
	memset(mr, 0, sizeof(*mr));
	mr->mr_sendmail = D.d_conf.c_sendmail;
	mr->mr_from = jobenv_get(f->f_env, "MAILFROM");
	mr->mr_to = to;
	mr->mr_user = f->f_owner;
	/* The subject names the command (mr_cmd NULL): the runner has it. */
	mr->mr_env = f->f_env;
	mr->mr_pw = pw;
	mr->mr_failed = (D.d_loglevel & LL_FAILED) != 0;
	mr->mr_fqdn = D.d_fqdn;
	return (mr);
}

/*
 * cronie's -s: the output goes to the log, a CMDOUT line for each of
 * its lines (escaped and cut as commands are), instead of a mail.
 */
static void
log_output(const struct fire *f, const struct outbuf *ob)
{
	const char	*p, *end, *nl;
	char		*line, *esc;
	size_t		 len;

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
