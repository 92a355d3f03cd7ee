/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * daemon.c: clustercron without a verb, the daemon.  It reads its
 * configuration, takes the pid file, detaches (unless -f), opens the
 * store, loads the tables and then lives in one loop that owns time: it
 * sleeps in ppoll() until the earliest timer, a signal, a table change
 * or a job's output, and does what is due.  There is no per-minute
 * scan: every job has one timer in a heap, due at its next fire.  This
 * file is the top of the daemon's chain (daemon.h): it alone reads the
 * clock, and it alone carries news from one module to another (lost
 * runs from node.c to claim.c, a misfire pass due from gate.c, stored
 * tables due from node.c to loader.c).
 *
 * Forks.  A store connection belongs to the process that opened it:
 * SQLite's POSIX locks are not inherited, and a MariaDB session cannot
 * be shared.  The daemon forks in three places, and none lets another
 * process touch a connection.  detach() forks before any is opened,
 * and its parent, which only waits for the child to be ready, leaves
 * through _exit().  Jobs and mailers are forked by common/spawn.c,
 * whose child never calls into the store, closes every descriptor but
 * its pipes (closing a descriptor drops no lock the parent holds), and
 * ends in execve() or _exit(): it runs no exit handler that could
 * finalise a connection.
 *
 * Time.  Each turn starts with both clocks read into a tick (tick.c),
 * which every module below takes its time from; a jump of the wall
 * clock is found there and handled here (a big one reschedules every
 * job; tick.c says why).
 *
 * The loop learns of a set clock at once, not at its next wake-up,
 * through a timerfd armed far in the future with
 * TFD_TIMER_CANCEL_ON_SET, which becomes readable when the clock is set.
 *
 * Signals are blocked except inside ppoll(); their handlers only set
 * flags.  SIGHUP reloads every table; SIGCHLD reaps; SIGTERM and SIGINT
 * stop: stop_begin().
 *
 * A store call blocked on a MariaDB server that stopped answering
 * (frozen, cut off without a reset) would hold SIGTERM up until the
 * connection's read timeout: a thread of its own, the stop watch,
 * looks four times a second whether SIGTERM or SIGINT waits while the
 * loop has begun no turn for STOP_WAIT_MS, and then gives the store up
 * (store_abort()): the blocked call fails at once, as on a lost
 * connection, and the loop comes back to its poll and stops.
 *
 * A turn's work is bounded, so that the loop comes back to its poll,
 * and to its signals, within a fraction of a second whatever the load:
 * at most PROC_TURN runners started (proc.c) and RECORD_TURN runs
 * recorded (record.c) a turn; what is left waits for the next turn,
 * which comes at once.  Nothing a user controls is waited for: a job
 * starts under a runner (proc.c), whose news are events of the poll.
 */

#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libutil.h>
#include <limits.h>
#include <malloc.h>
#include <paths.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustercron.h"
#include "common.h"
#include "daemon.h"
#include "pathnames.h"
#include "store.h"
#include "tabsrv.h"

#define FAR_FUTURE	7258118400LL		/* 2200-01-01 */
#define STOP_LOOK_MS	250	/* the stop watch looks this often */
#define STOP_WAIT_MS	500	/* ... for a loop away this long */

struct daemon	 D;
extern char	**environ;

static volatile sig_atomic_t	 got_hup, got_term, got_chld;
/* The stop watch's: the loop's last turn (mono ms), its store. */
static atomic_llong		 turn_began;
static _Atomic(struct store *)	 watched;
static atomic_int		 watch_quit;
static pthread_t		 watch_thread;
static int			 watching;
static struct pidfh		*pfh;
static int			 log_elsewhere;	/* not on stderr */
static int			 detached;	/* stderr: the parent */
static char			 open_error[STORE_MSGLEN];
static struct mtimer		 open_t;	/* store reconnection */
static struct mtimer		 stop_t;	/* the shutdown grace */
static int			 leaving;	/* ... is over */
static int			 killing;	/* shutdown-kill: sent */
static int64_t			 stop_starts;	/* monotonic ms: no start after */
static struct mtimer		 ctab_t;	/* ctab's connections: deadlines */

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void	 usage(void) __attribute__((__noreturn__));
static void	 start_warn(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2)));
static void	 start_fatal(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2), __noreturn__));
static void	 debug_flags(const char *);
static void	 mailer_set(const char *);
static void	 paths_absolute(void);
static void	 fds_open(void);
static void	 detach(void);
static int	 await_ready(int, pid_t);
static void	 log_setup(void);
static void	 ready(void);
static void	 sighandler(int);
static void	 store_connect(struct mtimer *, struct tick *);
static void	 stop_begin(struct tick *);
static void	 stop_expired(struct mtimer *, struct tick *);
static int	 stop_done(struct tick *);
static void	 loop(struct tick *);
static void	 clock_read(struct tick *);
static void	 clock_turn(struct tick *);
static void	 news(struct tick *);
static int	 timerfd_arm(int);
static void	 reboot_jobs(struct tick *);
static void	 mkparent(const char *);
static void	 runs_dir(void);
static void	 ctab_serve(const struct pollfd *, size_t, struct tick *);
static void	 ctab_changed(const char *, void *);
static void	 ctab_expired(struct mtimer *, struct tick *);
static void	 ctab_arm(void);
static void	*watch_main(void *);
static void	 watch_start(void);
static void	 watch_stop(void);

static void
usage(void)
{
	usage_print(0);
	exit(1);
}

/*
 * The stop watch (MariaDB): a SIGTERM or SIGINT that waits while the
 * loop is away gives the store up, once.  Signals stay the loop's: the
 * thread blocks them all and only looks at what is pending.
 */
static void *
watch_main(void *arg)
{
	struct timespec	 ts;
	sigset_t	 pend;

	(void)arg;
	ts.tv_sec = 0;
	ts.tv_nsec = STOP_LOOK_MS * 1000000L;
	while (!atomic_load(&watch_quit)) {
		(void)nanosleep(&ts, NULL);
		if (sigpending(&pend) == -1 || (!sigismember(&pend, SIGTERM) &&
		    !sigismember(&pend, SIGINT)))
			continue;
		if (clock_mono() - atomic_load(&turn_began) < STOP_WAIT_MS)
			continue;
		store_abort(atomic_load(&watched));
		break;
	}
	return (NULL);
}

static void
watch_start(void)
{
	sigset_t	 all, old;

	if (D.d_backend != STORE_MYSQL)
		return;
	atomic_store(&turn_began, clock_mono());
	atomic_store(&watched, D.d_st);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	watching = pthread_create(&watch_thread, NULL, watch_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!watching)
		log_warnx("(CRON) ERROR (no stop watch: SIGTERM may wait for "
		    "a store that does not answer)");
}

static void
watch_stop(void)
{
	if (!watching)
		return;
	atomic_store(&watch_quit, 1);
	(void)pthread_join(watch_thread, NULL);
	watching = 0;
}

static void
sighandler(int sig)
{
	switch (sig) {
	case SIGHUP:
		got_hup = 1;
		break;
	case SIGCHLD:
		got_chld = 1;
		break;
	default:
		got_term = 1;
		break;
	}
}

/*
 * Make the directories a file goes in when they are missing, as
 * mkdir -p: ~/.clustercron for a user, the state and run directories
 * for root.  Failures show when the file itself is made.
 */
static void
mkparent(const char *path)
{
	char	*dir, *p;

	if (path == NULL || *path == '\0')
		return;
	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) != NULL && p != dir) {
		*p = '\0';
		for (p = dir + 1; *p != '\0'; p++) {
			if (*p != '/')
				continue;
			*p = '\0';
			(void)mkdir(dir, 0755);
			*p = '/';
		}
		(void)mkdir(dir, D.d_root ? 0755 : 0700);
	}
	free(dir);
}

/*
 * The runs directory, where the runners keep the runs in their hands
 * and the ends of those the daemon has not recorded yet (proc.c): made
 * when missing, and the daemon's alone, as it holds the head of every
 * job's output.
 */
static void
runs_dir(void)
{
	struct stat	 sb;
	const char	*dir = D.d_conf.c_runsdir;

	mkparent(dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		start_fatal("%s: %s", dir, strerror(errno));
	if (lstat(dir, &sb) == -1)
		start_fatal("%s: %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
		start_fatal("%s: not a directory of this daemon's user", dir);
	if ((sb.st_mode & 077) != 0 && chmod(dir, 0700) == -1)
		start_fatal("%s: %s", dir, strerror(errno));
}

/*
 * Open the store, now or when the reconnection timer comes due.  The
 * store reconnects by itself once open; this is for a store that could
 * not be opened at all.
 */
static void
store_connect(struct mtimer *t, struct tick *tk)
{
	struct store_config	 sc;
	struct store_error	 se;

	store_config_fill(&sc);
	sc.sc_output_max = D.d_conf.c_output_max;
	sc.sc_busy_timeout = D.d_conf.c_busy_ms;
	if (store_open(&sc, &D.d_st, &se) == -1) {
		gate_store_unopened(se.se_msg);
		strlcpy(open_error, se.se_msg, sizeof(open_error));
		if (D.d_backend == STORE_MYSQL)
			mtimer_set(&open_t, tk->tk_mono + D.d_conf.c_retry_ms);
		return;
	}
	D.d_mysql = strcmp(store_backend(D.d_st), "mysql") == 0;
	gate_store_opened(store_backend(D.d_st));
	if (t != NULL) {
		/*
		 * Reconnected after a failed start: catch up, once the
		 * node has measured its clock (node.c).
		 */
		loader_register(1, tk);
		node_start(tk);
		claim_recover(tk);
		atrun_kick(tk);
	}
}

/*
 * SIGTERM (or SIGINT): stop as cron stops, without killing a job.  No
 * more fires are claimed and no retries started; the attempts already
 * claimed and queued still get their runners.  The daemon waits up to
 * shutdown-grace (none by default) for the jobs running to end, their
 * ends recorded by it, and then leaves: each job carries on under its
 * runner, which writes its end into the runs directory and mails its
 * output, and the next daemon on the node records it (proc.c).  The
 * node heartbeats while it waits, and once more as it leaves, so that a
 * restart within node-timeout leaves its runs to it rather than to the
 * other nodes' failure detection.  With shutdown-kill the jobs still
 * running after the grace are killed instead, and their ends awaited a
 * little (KILL_WAIT): cron's stop as systemd's KillMode=control-group
 * would make it.
 */
#define KILL_WAIT	5000	/* ms */
/*
 * The attempts claimed and queued when the stop began get their runners
 * for STOP_STARTS ms at most, so that the daemon leaves within a second
 * whatever the backlog.  Those still queued then are left as claims
 * without a record, as a daemon killed between a claim and a start
 * leaves them: the next start marks them lost (node.c).
 */
#define STOP_STARTS	500	/* ms */

static void
stop_begin(struct tick *tk)
{
	if (D.d_stopping)
		return;
	D.d_stopping = 1;
	stop_starts = tk->tk_mono + STOP_STARTS;
	(void)sdnotify("STOPPING=1\nSTATUS=stopping, %zu jobs running",
	    proc_count());
	if (proc_count() == 0)
		log_info("(CRON) STOPPING (0 running)");
	else if (D.d_conf.c_shutdown_ms > 0)
		log_info("(CRON) STOPPING (%zu running, waiting up to %llds, "
		    "then %s)", proc_count(),
		    (long long)(D.d_conf.c_shutdown_ms / 1000),
		    D.d_conf.c_shutdown_kill ? "killing them" :
		    "leaving them to their runners");
	else
		log_info("(CRON) STOPPING (%zu running, %s)", proc_count(),
		    D.d_conf.c_shutdown_kill ? "killing them" :
		    "left to their runners");
	/* No more fires, no retries. */
	jobs_unschedule_all();
	fire_stop(tk);
	/* node.c heartbeats on while jobs run: the node is alive. */
	loader_stop();
	mtimer_del(&open_t);
	mtimer_init(&stop_t, stop_expired, NULL);
	mtimer_set(&stop_t, tk->tk_mono + D.d_conf.c_shutdown_ms);
}

/* The grace is over: kill (shutdown-kill), or leave. */
static void
stop_expired(struct mtimer *t, struct tick *tk)
{
	if (proc_count() > 0 && D.d_conf.c_shutdown_kill && !killing) {
		if (D.d_conf.c_shutdown_ms > 0)
			log_warnx("(CRON) STOPPING (killing %zu jobs still "
			    "running after the grace)", proc_count());
		proc_killall(SIGKILL);
		killing = 1;
		mtimer_set(&stop_t, tk->tk_mono + KILL_WAIT);
		return;
	}
	leaving = 1;
}

/*
 * Whether the daemon may leave: stopping, every claimed attempt given
 * to its runner (or STOP_STARTS over), and no job running or the grace
 * over.
 */
static int
stop_done(struct tick *tk)
{
	if (!D.d_stopping)
		return (0);
	if (proc_queued() > 0) {
		tick_read(tk);
		if (tk->tk_mono < stop_starts || !leaving)
			return (0);
		log_warnx("(CRON) STOPPING (%zu claimed fires not started: "
		    "left as claims, marked lost at the next start)",
		    proc_queued());
		return (1);
	}
	return (proc_count() - proc_queued() == 0 || leaving);
}

/* The tick's reader: the clocks, read again within a turn. */
static void
clock_read(struct tick *tk)
{
	tk->tk_wall = clock_now_ms();
	tk->tk_mono = clock_mono();
}

/*
 * A new turn: the clocks read into the tick, and a jump of the wall
 * clock handled (tick.c).
 */
static void
clock_turn(struct tick *tk)
{
	enum tick_jump	 j;
	int64_t		 delta;

	j = tick_next(tk, clock_now_ms(), clock_mono(), &delta);
	if (j == TICK_STEADY)
		return;
	log_info("(CRON) TIME JUMP (%s %lld s)",
	    delta > 0 ? "forward" : "backward",
	    (long long)(delta > 0 ? delta : -delta) / 1000);
	if (D.d_stopping) {
		tk->tk_floor = 0;
		return;
	}
	if (j == TICK_FAR)
		jobs_reschedule_all((time_t)(tk->tk_wall / 1000));
	/* One-shot jobs: the store's times against the clock anew. */
	atrun_kick(tk);
}

/*
 * What the modules below have for one another: the runs node.c marked
 * lost go to claim.c for reruns, the stored tables node.c found due to
 * loader.c, a misfire pass gate.c says is due to claim.c (with the
 * registrations that failed meanwhile first), and the deaths node.c
 * saw to claim.c's sweep.
 */
static void
news(struct tick *tk)
{
	struct lostrun	*lost;
	struct gonenode	*gone;
	size_t		 i, n;

	if ((n = node_lost(&lost)) > 0) {
		for (i = 0; i < n; i++)
			claim_rerun(lost[i].lr_id, lost[i].lr_fire,
			    lost[i].lr_attempt, tk);
		free(lost);
	}
	if (node_tables_due())
		loader_check_store(tk);
	if (gate_kicked()) {
		loader_register(0, tk);
		claim_recover(tk);
		atrun_kick(tk);
	}
	n = node_gone(&gone);
	claim_sweep(gone, n, tk);
	free(gone);
}

/* Arm the clock-change detector; 0 or -1. */
static int
timerfd_arm(int fd)
{
	struct itimerspec	 its;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)FAR_FUTURE;
	return (timerfd_settime(fd, TFD_TIMER_ABSTIME |
	    TFD_TIMER_CANCEL_ON_SET, &its, NULL));
}

#define POLL_FIXED	2	/* inotify, timerfd; then ctab's socket */

static void
loop(struct tick *tk)
{
	struct pollfd	*pfd = NULL;
	struct proc	**pproc = NULL;
	struct timespec	 ts, *tsp;
	sigset_t	 empty;
	size_t		 n, cap = 0, i, k, nt;
	int64_t		 wait, m = 0, w = 0;
	int		 tfd, r, hm, hw;
	short		 ev;
	uint64_t	 exp;

	sigemptyset(&empty);
	tfd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd != -1 && timerfd_arm(tfd) == -1) {
		close(tfd);
		tfd = -1;
	}

	for (;;) {
		clock_turn(tk);
		atomic_store(&turn_began, tk->tk_mono);
		atomic_store(&watched, D.d_st);
		node_turn(tk);
		if (got_term) {
			got_term = 0;
			stop_begin(tk);
		}
		if (got_chld) {
			got_chld = 0;
			proc_reap(tk);
		}
		if (got_hup) {
			got_hup = 0;
			/* After a rotation, the log file anew. */
			if (log_reopen() == -1)
				log_warn("(CRON) ERROR (%s)",
				    D.d_conf.c_log_file);
			if (!D.d_stopping) {
				log_info("(CRON) RELOAD (SIGHUP)");
				loader_scan_all(1, tk);
			}
		}
		if (stop_done(tk))
			break;

		/* What is due: monotonic timers, then fires, then starts. */
		mtimer_run(tk);
		news(tk);
		claim_due(tk);
		claim_flush(tk);
		proc_run(tk);
		record_flush(tk);
		if (stop_done(tk))
			break;

		/*
		 * Sleep until the earliest of them; with none, until a
		 * signal or a descriptor.  A timer the turn ran past, or
		 * a misfire pass due, means no sleep at all.
		 */
		hm = mtimer_next(&m);
		if (hm)
			m -= tk->tk_mono;
		hw = jobs_next(&w);
		if (hw)
			w -= clock_now_ms();
		tsp = NULL;
		/* Work left by a bounded turn: no sleep. */
		if (gate_kick_pending() || proc_queued() > 0 ||
		    record_busy()) {
			hm = 1;
			m = 0;
		}
		if (clock_sleep(hm ? &m : NULL, hw ? &w : NULL, &wait)) {
			ts.tv_sec = wait / 1000;
			ts.tv_nsec = (wait % 1000) * 1000000;
			tsp = &ts;
		}

		n = proc_count() + POLL_FIXED + (D.d_tabsrv != NULL ?
		    tabsrv_npollfds(D.d_tabsrv) : 0);
		if (n > cap) {
			cap = n * 2;
			pfd = xreallocarray(pfd, cap, sizeof(*pfd));
			pproc = xreallocarray(pproc, cap, sizeof(*pproc));
		}
		pfd[0].fd = loader_fd();
		pfd[0].events = POLLIN;
		pfd[1].fd = tfd;
		pfd[1].events = POLLIN;
		/* ctab's socket and its connections, then the procs. */
		nt = D.d_tabsrv != NULL ? tabsrv_pollfds(D.d_tabsrv,
		    pfd + POLL_FIXED, !D.d_stopping) : 0;
		n = POLL_FIXED + nt;
		proc_pollfds(pfd, &n, cap, pproc);

		r = ppoll(pfd, n, tsp, &empty);
		if (r == -1) {
			if (errno != EINTR)
				fatal("ppoll");
			continue;
		}
		if (r == 0)
			continue;
		/* Time passed in the sleep. */
		tick_read(tk);
		if (pfd[0].revents != 0)
			loader_inotify(tk);
		if (pfd[1].revents != 0) {
			/* The clock was set: the next turn sees the jump. */
			if (read(tfd, &exp, sizeof(exp)) == -1 &&
			    errno == ECANCELED)
				timerfd_arm(tfd);
		}
		if (nt > 0)
			ctab_serve(pfd + POLL_FIXED, nt, tk);
		/*
		 * A proc's descriptors are next to each other; proc_io()
		 * once per proc, as it may free the proc.
		 */
		for (i = POLL_FIXED + nt; i < n; i = k) {
			ev = 0;
			for (k = i; k < n && pproc[k] == pproc[i]; k++)
				ev |= pfd[k].revents;
			if (ev != 0)
				proc_io(pproc[i], ev, tk);
		}
	}
	free(pfd);
	free(pproc);
	if (tfd != -1)
		close(tfd);
}

/*
 * ctab's socket and connections (tabsrv.c), none of which the loop
 * waits on.  A table that changed is in the store now: read the stored
 * tables again at once rather than waiting to notice the change.
 */
static void
ctab_serve(const struct pollfd *pfd, size_t n, struct tick *tk)
{
	int	 changed = 0;

	if (tabsrv_io(D.d_tabsrv, pfd, n, D.d_st, tk->tk_mono, ctab_changed,
	    &changed) > 0) {
		/* An at job may have been submitted: the store looked at. */
		atrun_kick(tk);
	}
	if (changed) {
		loader_check_store(tk);
		setproctitle("node %s, %zu jobs", D.d_conf.c_node,
		    jobtab_count());
	}
	ctab_arm();
}

static void
ctab_changed(const char *owner, void *arg)
{
	log_info("(%s) REPLACE (stored table, by ctab)", owner);
	*(int *)arg = 1;
}

/* A connection's deadline, or the end of a window of held log lines. */
static void
ctab_expired(struct mtimer *mt, struct tick *tk)
{
	(void)mt;
	if (D.d_tabsrv != NULL)
		tabsrv_expire(D.d_tabsrv, tk->tk_mono);
	ctab_arm();
}

static void
ctab_arm(void)
{
	int64_t	 when;

	if (D.d_tabsrv != NULL && tabsrv_next(D.d_tabsrv, &when))
		mtimer_set(&ctab_t, when);
	else if (mtimer_queued(&ctab_t))
		mtimer_del(&ctab_t);
}

/*
 * @reboot entries run on each node when the daemon starts for the first
 * time since the machine booted: the reboot file, on a file system
 * emptied at boot (/run), remembers that it has.
 */
static void
reboot_jobs(struct tick *tk)
{
	int	 fd;

	if (D.d_conf.c_rebootfile == NULL || *D.d_conf.c_rebootfile == '\0')
		return;
	fd = open(D.d_conf.c_rebootfile, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	if (fd == -1) {
		if (errno != EEXIST)
			log_warn("%s", D.d_conf.c_rebootfile);
		return;
	}
	close(fd);
	claim_reboot(tk);
}

/*
 * A problem at start-up goes to standard error, which the shell or the
 * service manager that starts the daemon sees (a detached daemon's
 * parent passes it on, see detach()), and to the log as well when the
 * log is elsewhere.  start_fatal() then gives up: the start fails.
 */
static void
start_warn(const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warnx("%s", buf);
	if (log_elsewhere)
		log_warnx("(CRON) ERROR (%s)", buf);
}

static void
start_fatal(const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warnx("%s", buf);
	if (log_elsewhere)
		log_warnx("(CRON) DEATH (%s)", buf);
	tabsrv_close(D.d_tabsrv);
	if (pfh != NULL)
		pidfile_remove(pfh);
	exit(1);
}

/*
 * -x: the debugging flags of Vixie cron and cronie, a comma-separated
 * list.  Each of them turns on the debug log (-d): ours is not split by
 * subsystem.  "test" is refused: there it means "run no command", a
 * mode this daemon does not have.
 */
static void
debug_flags(const char *arg)
{
	static const char *const known[] = {
		"ext", "sch", "proc", "pars", "load", "misc", "bit"
	};
	char	*copy, *p, *flag;
	size_t	 i;

	p = copy = xstrdup(arg);
	while ((flag = strsep(&p, ",")) != NULL) {
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strcmp(flag, known[i]) == 0)
				break;
		if (i < sizeof(known) / sizeof(known[0]))
			continue;
		if (strcmp(flag, "test") == 0)
			errx(1, "-x test: there is no mode that runs no "
			    "command; check a table with ctab -T");
		errx(1, "-x %s: unknown debugging flag; each of ext, sch, "
		    "proc, pars, load, misc and bit turns on the debug log, "
		    "as -d does", flag);
	}
	free(copy);
	D.d_debug = 1;
}

/*
 * -m: cronie's mail command, which replaces the sendmail key: "off"
 * sends no mail.  It is run as the sendmail key's command is, without a
 * shell, so it must be an absolute path (checked with the options).
 */
static void
mailer_set(const char *arg)
{
	free(D.d_conf.c_sendmail);
	D.d_conf.c_sendmail = xstrdup(strcmp(arg, "off") == 0 ? "" : arg);
}

/* A path made absolute from the working directory, in place. */
static void
path_absolute(char **pp)
{
	char	 cwd[PATH_MAX], *p;

	if (*pp == NULL || **pp == '\0' || **pp == '/')
		return;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		err(1, "getcwd");
	xasprintf(&p, "%s/%s", cwd, *pp);
	free(*pp);
	*pp = p;
}

/*
 * The daemon's paths are taken from the directory it was started in
 * and made absolute once: a detached daemon works from "/", and the
 * files it opens later (tables, reconnections, the pid file at exit)
 * must be the ones it opened at the start.
 */
static void
paths_absolute(void)
{
	struct store_url	 su;
	char			*s;

	path_absolute(&D.d_conf.c_crontab);
	path_absolute(&D.d_conf.c_crondir);
	path_absolute(&D.d_conf.c_spool);
	path_absolute(&D.d_conf.c_pidfile);
	path_absolute(&D.d_conf.c_rebootfile);
	path_absolute(&D.d_conf.c_socket);
	path_absolute(&D.d_conf.c_metrics_file);
	path_absolute(&D.d_conf.c_log_file);
#ifdef CLUSTERCRON_TEST
	/* Test builds: the runner built with the same hooks. */
	if (getenv("CLUSTERCRON_TEST_RUNNER") != NULL) {
		free(D.d_conf.c_runner);
		D.d_conf.c_runner = xstrdup(getenv("CLUSTERCRON_TEST_RUNNER"));
	}
#endif
	path_absolute(&D.d_conf.c_runner);
	path_absolute(&D.d_conf.c_runsdir);
	if (D.d_backend == STORE_SQLITE &&
	    store_url_parse(D.d_conf.c_store, &su, NULL) == 0) {
		if (*su.su_path != '/') {
			path_absolute(&su.su_path);
			xasprintf(&s, "sqlite:%s", su.su_path);
			free(D.d_conf.c_store);
			D.d_conf.c_store = s;
		}
		store_url_free(&su);
	}
}

/*
 * Standard input, output and error open, on /dev/null when they were
 * closed: otherwise the first descriptors the daemon opens (the pipe
 * of detach(), the store) would take their numbers and be clobbered
 * when they are wired to /dev/null.
 */
static void
fds_open(void)
{
	int	 fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		/* The lowest free descriptor: this one. */
		if (open(_PATH_DEVNULL, O_RDWR) != fd)
			exit(1);
	}
}

/*
 * Leave the shell or service manager that started the daemon, as
 * daemon(3) does, but before anything is opened: a SQLite store opened
 * before fork() would be used by a process that does not hold its
 * locks (POSIX locks are not inherited), and the next program to open
 * and close the database would take the write-ahead log away from
 * under it.  Every store connection is therefore opened in the process
 * that lives on.  The parent waits until that process is ready, with
 * its standard error as the child's: the child's start-up warnings and
 * errors reach the terminal or the service manager, and the parent
 * exits 0 once the child says it is ready (one NUL byte, see ready()),
 * or with the child's status when it dies before.  The pid file, taken
 * before, stays locked: the child shares its descriptor.
 */
static void
detach(void)
{
	pid_t	 pid;
	int	 pfd[2], fd;

	if (pipe2(pfd, O_CLOEXEC) == -1)
		start_fatal("pipe: %s", strerror(errno));
	switch (pid = fork()) {
	case -1:
		start_fatal("fork: %s", strerror(errno));
	case 0:
		break;
	default:
		close(pfd[1]);
		/* A standard error gone away must not kill the messenger. */
		(void)signal(SIGPIPE, SIG_IGN);
		/* The parent holds nothing to clean up: no exit handlers. */
		_exit(await_ready(pfd[0], pid));
	}
	close(pfd[0]);
	if (setsid() == -1)
		start_fatal("setsid: %s", strerror(errno));
	if (chdir("/") == -1)
		start_fatal("chdir /: %s", strerror(errno));
	if ((fd = open(_PATH_DEVNULL, O_RDWR)) == -1)
		start_fatal("%s: %s", _PATH_DEVNULL, strerror(errno));
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1 ||
	    dup2(pfd[1], STDERR_FILENO) == -1)
		start_fatal("dup2: %s", strerror(errno));
	if (fd > STDERR_FILENO)
		close(fd);
	close(pfd[1]);
	detached = 1;
}

/*
 * The parent of a detaching daemon: pass on what the child writes to
 * standard error until it is ready (0) or gone (its exit status, 1
 * after a signal).
 */
static int
await_ready(int fd, pid_t pid)
{
	char	 buf[1024], *nul;
	ssize_t	 n;
	size_t	 len;
	int	 status;

	for (;;) {
		if ((n = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0)
			break;
		nul = memchr(buf, '\0', (size_t)n);
		len = nul != NULL ? (size_t)(nul - buf) : (size_t)n;
		if (len > 0 && write(STDERR_FILENO, buf, len) == -1) {
			/* No one to tell; the child's readiness still counts. */
		}
		if (nul != NULL)
			return (0);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return (1);
	if (WIFEXITED(status))
		return (WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
	if (WIFSIGNALED(status))
		fprintf(stderr, "%s: the daemon died starting: %s\n",
		    getprogname(), strsignal(WTERMSIG(status)));
	return (1);
}

/*
 * Where the log goes: to log-file when it is set; in the foreground to
 * standard error, unless standard error is the journal (a unit's
 * ExecStart with -f), where the lines go through syslog as a detached
 * daemon's do, so that they land where cron's do with facility and
 * tag; detached, to syslog.
 */
static void
log_setup(void)
{
	if (D.d_conf.c_log_file != NULL) {
		mkparent(D.d_conf.c_log_file);
		if (log_init_file("CRON", D.d_conf.c_log_file) == -1)
			start_fatal("%s: %s", D.d_conf.c_log_file,
			    strerror(errno));
		log_elsewhere = 1;
		D.d_logmode = RQ_LOG_FILE;
	} else if (D.d_foreground && !log_stderr_is_journal()) {
		log_init("CRON", 1);
		log_elsewhere = 0;
		D.d_logmode = RQ_LOG_STDERR;
	} else {
		log_init("CRON", 0);
		log_elsewhere = 1;
		D.d_logmode = RQ_LOG_SYSLOG;
	}
	log_setverbose(D.d_debug);
}

/*
 * The daemon is ready: the store is open (or, on MariaDB, its retry
 * armed), the tables are loaded and ctab's socket answers.  Tell the
 * service manager, and the parent waiting in await_ready(), whose
 * standard error is then no longer the daemon's.
 */
static void
ready(void)
{
	int	 fd;

	/* MAINPID: a forking unit's manager knew only the parent. */
	(void)sdnotify("READY=1\nSTATUS=node %s, %zu jobs, store %s\n"
	    "MAINPID=%ld", D.d_conf.c_node, jobtab_count(), D.d_st != NULL ?
	    store_backend(D.d_st) : "down", (long)getpid());
	if (!detached)
		return;
	if (write(STDERR_FILENO, "", 1) == -1) {
		/* The parent is gone; nothing waits. */
	}
	if ((fd = open(_PATH_DEVNULL, O_WRONLY)) != -1) {
		(void)dup2(fd, STDERR_FILENO);
		if (fd != STDERR_FILENO)
			close(fd);
	}
	detached = 0;
}

int
daemon_main(int argc, char **argv)
{
	struct sigaction	 sa;
	struct store_url	 su;
	struct store_error	 se;
	sigset_t		 mask;
	pid_t			 other;
	const char		*conffile = PATH_CONF, *node = NULL, *errstr;
	const char		*mailer = NULL;
	struct tick		 tk;
	int			 ch, explicit = 0, notify;
	char			 errbuf[256];

	setproctitle_init(argc, argv, environ);
	fds_open();
	/* Read, and taken out of the environment, before any child. */
	notify = sdnotify_init();
	D.d_uid = getuid();
	D.d_root = geteuid() == 0;
	D.d_loglevel = LL_START;

	/*
	 * The flags of Debian's cron and of cronie's crond, with their
	 * meaning (clustercron(8)).  Where the two differ, Debian's wins:
	 * -n is the full host name in mail subjects (cronie's -n is -f).
	 */
	while ((ch = getopt_long(argc, argv, "c:dfhiL:lm:nN:PpsVx:", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			/* cronie's -c (clustering) takes no argument. */
			if (*optarg == '-')
				errx(1, "-c %s: -c names the configuration "
				    "file; cronie's -c (clustering) is what "
				    "clustercron always does", optarg);
			conffile = optarg;
			explicit = 1;
			break;
		case 'd':
			D.d_debug = 1;
			break;
		case 'f':
			D.d_foreground = 1;
			break;
		case 'L':
			D.d_loglevel = (int)strtonum(optarg, 0, LL_ALL, &errstr);
			if (errstr != NULL)
				errx(1, "-L %s: %s (a sum of 1 start, 2 end, "
				    "4 failure, 8 pid, 16 claims)", optarg,
				    errstr);
			break;
		case 'n':
			D.d_fqdn = 1;
			break;
		case 'h':
			usage_print(1);
			exit(0);
		case 'i':
			D.d_noinotify = 1;
			break;
		case 'l':
			D.d_lsbnames = 1;
			break;
		case 'm':
			if (strcmp(optarg, "off") != 0 && *optarg != '/')
				errx(1, "-m %s: give the mail command with an "
				    "absolute path, or off", optarg);
			mailer = optarg;
			break;
		case 'N':
			node = optarg;
			break;
		case 'P':
			D.d_inherit_path = 1;
			break;
		case 'p':
			D.d_permit_any = 1;
			break;
		case 's':
			D.d_output_log = 1;
			break;
		case 'V':
			printf("clustercron %s\n", CLUSTERCRON_VERSION);
			exit(0);
		case 'x':
			debug_flags(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();
	if (notify == -1)
		warnx("NOTIFY_SOCKET: not a socket name; not notifying");
	if (node != NULL)
		D.d_conf.c_node = xstrdup(node);
	dconf_read(&D.d_conf, conffile, explicit, D.d_root, D.d_uid,
	    &D.d_user);
	if (mailer != NULL)
		mailer_set(mailer);
	/* cronie's -P: jobs get the daemon's PATH where tables set none. */
	if (D.d_inherit_path && getenv("PATH") != NULL)
		D.d_path = xstrdup(getenv("PATH"));
	if (store_url_parse(D.d_conf.c_store, &su, &se) == -1)
		errx(1, "%s: %s", D.d_conf.c_file != NULL ? D.d_conf.c_file :
		    "store", se.se_msg);
	D.d_backend = su.su_backend;
	store_url_free(&su);
	paths_absolute();
#ifdef CLUSTERCRON_TEST
	/* Test builds: the store's fault hook, armed from the environment. */
	if (store_fault_spec(getenv("CLUSTERCRON_TEST_FAULTS"), &se) == -1)
		errx(1, "CLUSTERCRON_TEST_FAULTS: %s", se.se_msg);
#endif

	if (D.d_backend == STORE_SQLITE &&
	    store_url_parse(D.d_conf.c_store, &su, NULL) == 0) {
		mkparent(su.su_path);
		store_url_free(&su);
	}
	mkparent(D.d_conf.c_pidfile);
	if (*D.d_conf.c_pidfile != '\0') {
		pfh = pidfile_open(D.d_conf.c_pidfile, 0644, &other);
		if (pfh == NULL) {
			if (errno == EEXIST)
				errx(1, "already running, pid %ld",
				    (long)other);
			err(1, "%s", D.d_conf.c_pidfile);
		}
	}

	/*
	 * From here on, the process that lives on.  Nothing of the store
	 * is opened before this point (see detach()).
	 */
	if (!D.d_foreground)
		detach();
	log_setup();
	if (pfh != NULL && pidfile_write(pfh) == -1)
		start_warn("%s: %s", D.d_conf.c_pidfile, strerror(errno));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sighandler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	/*
	 * ctab's socket, once the pid file says this is the only daemon
	 * (tabsrv_open() replaces a socket left behind), and before the
	 * start is reported done, so that a failure is seen and ctab can
	 * reach the daemon as soon as the start returns.  Without it the
	 * daemon still runs every table; only ctab cannot reach it.
	 */
	if (D.d_conf.c_store_tables && *D.d_conf.c_socket != '\0') {
		mkparent(D.d_conf.c_socket);
		if (tabsrv_open(D.d_conf.c_socket,
		    *D.d_conf.c_allow != '\0' ? D.d_conf.c_allow : NULL,
		    *D.d_conf.c_deny != '\0' ? D.d_conf.c_deny : NULL,
		    D.d_conf.c_copydir, &D.d_tabsrv, errbuf,
		    sizeof(errbuf)) == -1)
			start_warn("%s: ctab cannot reach this daemon",
			    errbuf);
		else
			tabsrv_max_entries(D.d_tabsrv, D.d_conf.c_max_entries);
	}

	runs_dir();

	/* Room for a burst's sockets; jobs get the old limit (spawn.c). */
	if (spawn_nofile_raise() == -1)
		start_warn("raising the limit on open files: %s",
		    strerror(errno));

	tick_init(&tk, clock_now_ms(), clock_mono(), clock_read);
	fire_init();
	mtimer_init(&open_t, store_connect, NULL);
	mtimer_init(&ctab_t, ctab_expired, NULL);
	store_connect(NULL, &tk);
	if (D.d_st == NULL && D.d_backend != STORE_MYSQL)
		start_fatal("cannot open the store %s: %s", D.d_conf.c_store,
		    open_error);

	log_info("(CRON) STARTUP (clustercron %s, node %s, %s, %s%s)",
	    CLUSTERCRON_VERSION, D.d_conf.c_node,
	    D.d_st != NULL ? store_backend(D.d_st) : "store down",
	    D.d_conf.c_file != NULL ? D.d_conf.c_file : "no configuration",
	    D.d_root ? "" : ", user mode");
	if (!D.d_root)
		log_info("(CRON) INFO (not root: running the tables of %s "
		    "only)", D.d_user);

	if (loader_init(&tk) == -1)
		log_warnx("(CRON) INFO (%s: checking tables every %llds)",
		    D.d_noinotify ? "inotify disabled (-i)" :
		    "inotify unavailable",
		    (long long)(D.d_conf.c_check_ms / 1000));
	loader_scan_all(0, &tk);
	loader_register(1, &tk);
	setproctitle("node %s, %zu jobs", D.d_conf.c_node, jobtab_count());
	metrics_init();
	/*
	 * The runs an earlier life left to their runners, before the node
	 * looks at its runs in the store (node.c), which would take those
	 * not in hand for lost.
	 */
	atrun_init();
	fire_adopt(&tk);
	/* The node's clock is measured before the first claim (node.c). */
	if (gate_store_up()) {
		/*
		 * The adopted runs' records first, so that node.c finds
		 * them recorded and takes none of their claims for a
		 * claim without a run.
		 */
		record_flush(&tk);
		node_start(&tk);
		claim_recover(&tk);
	}
	atrun_kick(&tk);
	reboot_jobs(&tk);
	/*
	 * Give back what loading, registering and the misfire pass used
	 * for a while: the daemon's size also prices every fork().
	 */
	malloc_trim(0);

	ready();
	watch_start();
	loop(&tk);
	watch_stop();
	if (proc_count() > 0)
		log_info("(CRON) STOPPING (%zu jobs left to their runners)",
		    proc_count());
	claim_leave();
	node_leave(&tk);
	record_final(&tk);
	atrun_final(&tk);

	log_info("(CRON) DEATH (%s)", got_term || D.d_stopping ?
	    "stopped by signal" : "exiting");
	tabsrv_close(D.d_tabsrv);
	fire_free_all();
	atrun_free();
	proc_free();
	record_free();
	loader_free();
	jobtab_free();
	claim_free();
	node_free();
	metrics_free();
	mtimer_free();
	store_close(D.d_st);
	free(D.d_path);
	pidfile_remove(pfh);
	return (0);
}
