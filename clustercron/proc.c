/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * proc.c: the processes the daemon starts, under fire.c in the
 * daemon's chain (daemon.h).  Every process goes through common/spawn:
 * its own session and group, the owner's identity, standard output and
 * error on one pipe, input on standard input.  The loop polls the pipes
 * and reaps with waitpid(-1); a process ends when both its output
 * reached end of file and it was reaped, as cron waits for the output
 * of a job's background children.  What happens to a proc is told to
 * its owner as an event (daemon.h), never by calling up the chain: the
 * owner registered its handler with proc_init().  The interface is
 * narrow (start, events, kill, count) so that another way of running
 * jobs can take this file's place.
 *
 * Starting does not wait for the exec.  A proc is forked and left to
 * reach execve() on its own while the daemon forks the next one, so
 * that a thousand jobs due at once are on their way together and every
 * processor works at them; the child's status pipe is one more
 * descriptor in the poll set.  When it says the exec happened the
 * owner hears PE_STARTED; when it says what failed instead, PE_NOSTART
 * (or PE_LATE, past the start's deadline): "did not start" is never
 * "exited 127".  A child that takes more than the start bound is killed
 * and counts as not started; one timer (start_t) watches the oldest of
 * them.
 *
 * At most PROC_WINDOW procs are on their way to execve() at once: the
 * next fork waits (start_wait()) for one of them to settle.  More would
 * not start a burst any sooner, as the processors are busy anyway, but
 * each holds two or three descriptors, which every later child inherits
 * and must close, and which with a thousand jobs due at once would run
 * into the daemon's limit on open files.
 *
 * A proc that outlives its timeout gets SIGTERM on its whole process
 * group, and SIGKILL KILL_GRACE later.
 *
 * Mailers are procs of their own type: no owner, no events; a mailer
 * that does not start or exits non-zero is logged here, and one still
 * running after MAIL_TIMEOUT is killed.
 */

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"

#define KILL_GRACE	5000	/* ms from SIGTERM to SIGKILL */
#define MAIL_TIMEOUT	600	/* s a mailer may run, then is killed */

struct proc {
	LIST_ENTRY(proc) p_entry;
	struct spawn_job *p_sj;
	void		*p_owner;	/* NULL: a mailer */
	void		(*p_handler)(const struct proc_event *, struct tick *);
	const char	*p_who;		/* for the log: the owner */
	const char	*p_what;	/* ... and the command */
	char		*p_mailwho;	/* a mailer's copy of p_who */
	uint32_t	 p_timeout;	/* s, 0: none */
	int64_t		 p_until;	/* monotonic ms: no exec after */
	int		 p_eof;
	int		 p_exited;
	int		 p_wstatus;
	int		 p_killed;	/* 1 TERM sent, 2 KILL sent */
	struct mtimer	 p_timer;	/* timeout, then the kill's grace */
};

static LIST_HEAD(, proc) procs = LIST_HEAD_INITIALIZER(procs);
static size_t	 nprocs;		/* in the list */
static size_t	 nstarting;		/* between fork and exec */
static void	(*handler)(const struct proc_event *, struct tick *);

static int	 settle(struct proc *, struct tick *);
static void	 start_wait(struct tick *);
static void	 start_timer(struct mtimer *, struct tick *);
static void	 kill_timer(struct mtimer *, struct tick *);
static void	 ended(struct proc *, struct tick *);
static void	 deliver(struct proc *, struct proc_event *, struct tick *);
static void	 proc_unlink(struct proc *);
static void	 proc_destroy(struct proc *);

/* The start bound of the procs still on their way to execve(). */
static struct mtimer	 start_t = MTIMER_INIT(start_timer, NULL);

void
proc_init(void (*fn)(const struct proc_event *, struct tick *))
{
	handler = fn;
}

static void
deliver(struct proc *p, struct proc_event *ev, struct tick *tk)
{
	ev->pe_owner = p->p_owner;
	ev->pe_pid = p->p_sj != NULL ? p->p_sj->sj_pid : 0;
	(p->p_handler != NULL ? p->p_handler : handler)(ev, tk);
}

/*
 * A proc has said its last: out of the list (and the count) before its
 * owner hears of it, freed after.
 */
static void
proc_unlink(struct proc *p)
{
	mtimer_del(&p->p_timer);
	LIST_REMOVE(p, p_entry);
	nprocs--;
}

static void
proc_destroy(struct proc *p)
{
	spawn_free(p->p_sj);
	free(p->p_mailwho);
	free(p);
}

enum proc_start
proc_start(const struct proc_req *pr, struct tick *tk, struct proc **pp,
    int64_t *start, int64_t *late, char *why, size_t len)
{
	struct proc	*p;
	struct spawn_err se;
	struct spawn_req sr = *pr->pr_spawn;

	*pp = NULL;
	while (nstarting >= PROC_WINDOW)
		start_wait(tk);
	/*
	 * A claimed fire starts within the lease it was claimed under;
	 * the child looks once more just before its execve().  The time
	 * is read again: the forks before this one took some.
	 */
	tick_read(tk);
	sr.sr_until = pr->pr_until;
	if (pr->pr_until != 0 && (*late = tk->tk_mono - pr->pr_until) >= 0)
		return (PS_LATE);
	/* Before the fork: a daemon stopped inside it started the job. */
	*start = tk->tk_wall;
	p = xcalloc(1, sizeof(*p));
	if (spawn_launch(&sr, &p->p_sj, &se) == -1) {
		strlcpy(why, se.se_msg, len);
		free(p);
		return (PS_FAILED);
	}
	p->p_owner = pr->pr_owner;
	p->p_handler = pr->pr_handler;
	p->p_who = pr->pr_who;
	p->p_what = pr->pr_what;
	p->p_timeout = pr->pr_timeout;
	p->p_until = pr->pr_until;
	mtimer_init(&p->p_timer, kill_timer, p);
	LIST_INSERT_HEAD(&procs, p, p_entry);
	nprocs++;
	nstarting++;
	if (p->p_timeout > 0)
		mtimer_set(&p->p_timer, tk->tk_mono +
		    (int64_t)p->p_timeout * 1000);
	if (!mtimer_queued(&start_t))
		mtimer_set(&start_t, p->p_sj->sj_startby);
	*pp = p;
	return (PS_FORKED);
}

/*
 * Learn, without blocking, whether a proc has exec'd.  Returns 1 when
 * it has (its owner told, the first time), 0 when it cannot tell yet,
 * and -1 when it did not start: then its owner is told and the proc is
 * freed.
 */
static int
settle(struct proc *p, struct tick *tk)
{
	struct proc_event	 ev;
	struct spawn_err	 se;
	int			 r;

	if (p->p_sj->sj_started == 1)
		return (1);
	if ((r = spawn_started(p->p_sj, &se)) == 0)
		return (0);
	/* No start left to watch: no wake-up for nothing. */
	if (--nstarting == 0)
		mtimer_del(&start_t);
	memset(&ev, 0, sizeof(ev));
	if (r == 1) {
		if (p->p_owner != NULL) {
			ev.pe_kind = PE_STARTED;
			deliver(p, &ev, tk);
		}
		return (1);
	}
	proc_unlink(p);
	if (p->p_owner == NULL)
		log_warnx("(%s) MAIL (sendmail did not start: %s)", p->p_who,
		    se.se_msg);
	else if (se.se_step == SPAWN_LATE) {
		ev.pe_kind = PE_LATE;
		tick_read(tk);
		ev.pe_late = tk->tk_mono - p->p_until;
		deliver(p, &ev, tk);
	} else {
		ev.pe_kind = PE_NOSTART;
		ev.pe_why = se.se_msg;
		deliver(p, &ev, tk);
	}
	proc_destroy(p);
	return (-1);
}

/*
 * The start window is full: wait until at least one of the procs in it
 * has settled, or its start bound has passed.
 */
static void
start_wait(struct tick *tk)
{
	struct pollfd	*pfd;
	struct proc	*p, **pp;
	int64_t		 when = 0, left;
	size_t		 i, n = 0;

	pfd = xreallocarray(NULL, nstarting, sizeof(*pfd));
	pp = xreallocarray(NULL, nstarting, sizeof(*pp));
	LIST_FOREACH(p, &procs, p_entry) {
		if (p->p_sj->sj_started != 0 || n == nstarting)
			continue;
		pfd[n].fd = p->p_sj->sj_st;
		pfd[n].events = POLLIN;
		pp[n++] = p;
		if (when == 0 || p->p_sj->sj_startby < when)
			when = p->p_sj->sj_startby;
	}
	tick_read(tk);
	if ((left = when - tk->tk_mono) < 0)
		left = 0;
	if (n > 0 && poll(pfd, n, (int)left) == -1 && errno != EINTR)
		fatal("poll");
	tick_read(tk);
	for (i = 0; i < n; i++)
		if (pfd[i].revents != 0 ||
		    pp[i]->p_sj->sj_startby <= tk->tk_mono)
			(void)settle(pp[i], tk);
	free(pfd);
	free(pp);
	if (n == 0)
		nstarting = 0;		/* cannot happen; never spin */
}

/*
 * The oldest start bound came: settle every start that is due, which
 * kills the children past their bound, and wait for the next bound.
 */
static void
start_timer(struct mtimer *t, struct tick *tk)
{
	struct proc	*p, *next;
	int64_t		 when = 0;

	LIST_FOREACH_SAFE(p, &procs, p_entry, next) {
		if (p->p_sj->sj_started != 0)
			continue;
		if (settle(p, tk) == 0 &&
		    (when == 0 || p->p_sj->sj_startby < when))
			when = p->p_sj->sj_startby;
	}
	if (when != 0)
		mtimer_set(&start_t, when);
}

/* A proc's timer: its timeout, then the grace before SIGKILL. */
static void
kill_timer(struct mtimer *t, struct tick *tk)
{
	struct proc		*p = t->mt_arg;
	struct proc_event	 ev;

	if (p->p_killed == 0) {
		if (p->p_owner == NULL)
			log_warnx("(%s) MAIL (mailer still running after %us, "
			    "killing it)", p->p_who, p->p_timeout);
		else {
			memset(&ev, 0, sizeof(ev));
			ev.pe_kind = PE_TIMEOUT;
			ev.pe_timeout = p->p_timeout;
			deliver(p, &ev, tk);
		}
		spawn_kill(p->p_sj, SIGTERM);
		p->p_killed = 1;
		mtimer_set(&p->p_timer, tk->tk_mono + KILL_GRACE);
	} else {
		spawn_kill(p->p_sj, SIGKILL);
		p->p_killed = 2;
	}
}

/* A proc's output reached its end and it was reaped: it ended. */
static void
ended(struct proc *p, struct tick *tk)
{
	struct proc_event	 ev;
	struct spawn_status	 ss;
	char			 status[128];

	proc_unlink(p);
	if (p->p_owner == NULL) {
		if (!WIFEXITED(p->p_wstatus) ||
		    WEXITSTATUS(p->p_wstatus) != 0) {
			spawn_status_decode(p->p_wstatus, &ss);
			spawn_status_str(&ss, status, sizeof(status));
			log_warnx("(%s) MAIL (mailer: %s)", p->p_who, status);
		}
		proc_destroy(p);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	ev.pe_kind = PE_ENDED;
	ev.pe_wstatus = p->p_wstatus;
	ev.pe_out = &p->p_sj->sj_output;
	deliver(p, &ev, tk);
	proc_destroy(p);
}

/*
 * Mail output as mr says, for who: a mailer starts as a job does, but
 * does not wait for the start window: this may be proc_io() of another
 * proc, and start_wait() could free procs the loop has yet to visit.
 * A mailer is one more child, not a burst.  Returns 0, or -1 when it
 * could not be started (logged).
 */
int
proc_mail(const struct mail_req *mr, const struct outbuf *out,
    const char *who, struct tick *tk)
{
	struct proc	*p;
	char		 errbuf[256];

	p = xcalloc(1, sizeof(*p));
	if (mail_start(mr, out, &p->p_sj, errbuf, sizeof(errbuf)) == -1) {
		log_warnx("(%s) MAIL (%s)", who, errbuf);
		free(p);
		return (-1);
	}
	log_debug("(%s) MAIL (to %s, %llu bytes of output)", who, mr->mr_to,
	    (unsigned long long)out->ob_total);
	p->p_mailwho = xstrdup(who);
	p->p_who = p->p_mailwho;
	p->p_what = "(mail)";
	p->p_timeout = MAIL_TIMEOUT;
	mtimer_init(&p->p_timer, kill_timer, p);
	LIST_INSERT_HEAD(&procs, p, p_entry);
	nprocs++;
	/* Its start is learnt as a job's is (settle()). */
	nstarting++;
	if (!mtimer_queued(&start_t))
		mtimer_set(&start_t, p->p_sj->sj_startby);
	mtimer_set(&p->p_timer, tk->tk_mono + (int64_t)MAIL_TIMEOUT * 1000);
	return (0);
}

/* The descriptors of every proc. */
void
proc_pollfds(struct pollfd *pfd, size_t *np, size_t cap, struct proc **pp)
{
	struct proc	*p;
	size_t		 n = *np;
	int		 k, i;

	LIST_FOREACH(p, &procs, p_entry) {
		if (p->p_eof)
			continue;
		if (n + SPAWN_NPOLLFD > cap)
			break;
		k = spawn_pollfds(p->p_sj, &pfd[n]);
		for (i = 0; i < k; i++)
			pp[n + i] = p;
		n += (size_t)k;
	}
	*np = n;
}

/*
 * Output or input is ready for a proc, or its status pipe (which may
 * free the proc: call this once per proc and turn).
 */
void
proc_io(struct proc *p, short revents, struct tick *tk)
{
	int	 r;

	if (p->p_eof)
		return;
	if (settle(p, tk) == -1)
		return;
	r = spawn_io(p->p_sj);
	if (r == 0)
		return;
	if (r == -1)
		log_warn("(%s) ERROR (reading the output of %s)", p->p_who,
		    p->p_what);
	p->p_eof = 1;
	if (p->p_exited)
		ended(p, tk);
}

/* SIGCHLD: reap every child and end the procs that are done. */
void
proc_reap(struct tick *tk)
{
	struct proc	*p;
	pid_t		 pid;
	int		 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		LIST_FOREACH(p, &procs, p_entry)
			if (p->p_sj->sj_pid == pid)
				break;
		if (p == NULL)
			continue;
		spawn_exited(p->p_sj, status);
		/* Dead, it has said whether it started. */
		if (settle(p, tk) == -1)
			continue;
		p->p_exited = 1;
		p->p_wstatus = status;
		if (p->p_eof)
			ended(p, tk);
	}
}

/* Send sig to every proc's process group. */
void
proc_killall(int sig)
{
	struct proc	*p;

	LIST_FOREACH(p, &procs, p_entry)
		spawn_kill(p->p_sj, sig);
}

/* Attempts and mailers in flight. */
size_t
proc_count(void)
{
	return (nprocs);
}
