/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * runner.c: clustercron's runner, the process between the daemon and
 * one run of a job, as Vixie cron's intermediate child is between cron
 * and a job.  The daemon execs it (posix_spawn(): nothing of the user's
 * runs in the daemon's child) with a socket at descriptor 3 and writes
 * it a request there (common/runrec.c).  The runner
 *
 *  - takes the run's file in the runs directory, NAME.run, locked for
 *    as long as the runner lives, so that a daemon started later knows
 *    the run is in hand;
 *  - starts the job with spawn_launch() (common/spawn.c): the child's
 *    steps, the privilege drop and the exec are there, and "did not
 *    start" is told apart from "exited 127" there too;
 *  - tells the daemon that the job exec'd (RM_STARTED), or why it did
 *    not (RM_FAILED);
 *  - holds the job's output pipe, keeps the head of its output (what
 *    the record and the mail take, rq_outmax bytes) and counts the
 *    rest, and enforces the job's timeout itself;
 *  - once the job ended (its output closed and its process reaped),
 *    writes the end into the run file and renames it NAME.end, into
 *    the spool of ended runs: the daemon records it in the store and
 *    then deletes the file;
 *  - and mails the output, as cron does, when the job's table asks (at's
 *    jobs: with their own subject, and with -m even without output).
 *
 * The daemon may go away meanwhile, stopped, restarted by an upgrade,
 * or killed: the socket then reads end of file, and the runner carries
 * on alone.  Nothing changes for the job: its output is still read,
 * its end still written, its mail still sent; the next daemon on the
 * node finds the run file, locked while the job runs, renamed once it
 * ended, and records the end.  So a restart of the daemon kills no job
 * and loses no end.
 *
 * The runner ignores the signals that stop daemons (SIGTERM, SIGHUP,
 * SIGINT): it lives in a session of its own, and what is meant for the
 * job reaches the job, whose end it then records.  SIGKILL ends it: the
 * next daemon finds the run file unlocked and not renamed, and marks
 * the run lost, its end unknown.
 *
 * The runner is root's, as the daemon is; it talks to no store and
 * reads no configuration: everything comes in the request.  It stays
 * small, so that the exec per job costs little (bench/daemon/README).
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define CTL_FD		3	/* the socket to the daemon */
#define KILL_GRACE	5000	/* ms from SIGTERM to SIGKILL */
#define MAIL_TIMEOUT	600000	/* ms a mailer may run, then is killed */
#define NPOLL		(SPAWN_NPOLLFD + 1)

static volatile sig_atomic_t	 got_chld;

static struct runreq	 rq;
static struct passwd	 pw;
static struct spawn_job	*job;
static int		 ctl = CTL_FD;	/* -1: the daemon is gone */
static int		 runfd = -1;	/* NAME.run */
static int		 locked;	/* ... and it is ours */
static char		 runpath[PATH_MAX], endpath[PATH_MAX];
static char		 rbuf[512];	/* what the daemon says */
static size_t		 rlen;

static void	 sighandler(int);
static void	 signals(void);
static void	 read_request(void);
static void	 log_setup(void);
static void	 say(int, int64_t, const char *);
static void	 listen_ctl(void);
static void	 runfile_take(void);
static int	 runfile_put(int, pid_t, int64_t, int, const char *,
		    const struct outbuf *);
static void	 failed(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3), __noreturn__));
static void	 job_start(void);
static int	 job_watch(void);
static void	 mail(int, const struct outbuf *);
static int	 reap(struct spawn_job *);
static void	 wait_io(struct spawn_job *, int64_t);

static void
sighandler(int sig)
{
	got_chld = 1;
}

/*
 * SIGCHLD is taken only in the poll; what stops a daemon does not stop
 * the runner (see the comment at the top), and a write to a daemon that
 * has gone fails with EPIPE rather than killing the runner.  Every
 * child gets every signal back to default (spawn.c).
 */
static void
signals(void)
{
	static const int	 ign[] = { SIGPIPE, SIGHUP, SIGINT, SIGTERM,
				    SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP,
				    SIGTTIN, SIGTTOU };
	struct sigaction	 sa;
	sigset_t		 mask;
	size_t			 i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	for (i = 0; i < sizeof(ign) / sizeof(ign[0]); i++)
		(void)sigaction(ign[i], &sa, NULL);
	sa.sa_handler = sighandler;
	sa.sa_flags = SA_NOCLDSTOP;
	(void)sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	(void)sigprocmask(SIG_BLOCK, &mask, NULL);
}

/*
 * The request, whole, from the socket.  A daemon gone before it was
 * written started nothing: the runner leaves without a word.
 */
static void
read_request(void)
{
	char	*buf = NULL, *nb;
	size_t	 len = 0, cap = 0, flen = 0;
	ssize_t	 n;
	int	 r;

	while ((r = runrec_framed(buf, len, &flen)) == 0) {
		if (len == cap) {
			cap = cap == 0 ? 16384 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL)
				fatal("the daemon's request");
			buf = nb;
		}
		if ((n = read(ctl, buf + len, cap - len)) == -1) {
			if (errno == EINTR)
				continue;
			fatal("reading the daemon's request");
		}
		if (n == 0)
			exit(0);
		len += (size_t)n;
	}
	if (r == -1 || runreq_decode(buf, flen, &rq) == -1)
		fatal("the daemon's request");
	/* What follows it is a message: kept. */
	if (len - flen > sizeof(rbuf))
		fatalx("the daemon's request: too much after it");
	memcpy(rbuf, buf + flen, len - flen);
	rlen = len - flen;
	free(buf);
}

/* Where the daemon logs, the runner logs, with its own pid. */
static void
log_setup(void)
{
	switch (rq.rq_log) {
	case RQ_LOG_FILE:
		if (rq.rq_logfile != NULL &&
		    log_init_file("CRON", rq.rq_logfile) == 0)
			break;
		/* FALLTHROUGH */
	case RQ_LOG_SYSLOG:
		log_init("CRON", 0);
		break;
	default:
		log_init("CRON", 1);
		break;
	}
	log_setverbose(rq.rq_debug);
}

/* A message to the daemon, while it is there. */
static void
say(int kind, int64_t num, const char *why)
{
	struct runmsg	 rm;
	char		*buf;
	size_t		 len, off = 0;
	ssize_t		 n;

	if (ctl == -1)
		return;
	memset(&rm, 0, sizeof(rm));
	rm.rm_kind = kind;
	rm.rm_num = num;
	if (why != NULL)
		strlcpy(rm.rm_why, why, sizeof(rm.rm_why));
	if (runmsg_encode(&rm, &buf, &len) == -1)
		return;
	while (off < len) {
		if ((n = write(ctl, buf + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			/* Gone: from now on, alone. */
			close(ctl);
			ctl = -1;
			break;
		}
		off += (size_t)n;
	}
	free(buf);
}

/*
 * The daemon spoke, or went away: take its messages (RM_KILL), or carry
 * on alone.
 */
static void
listen_ctl(void)
{
	struct runmsg	 rm;
	size_t		 flen = 0;
	ssize_t		 n;
	int		 r;

	if (ctl == -1)
		return;
	if (rlen < sizeof(rbuf)) {
		n = read(ctl, rbuf + rlen, sizeof(rbuf) - rlen);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			log_debug("(%s) RUNNER (the daemon is gone: %s runs "
			    "on alone)", rq.rq_user, rq.rq_what);
			close(ctl);
			ctl = -1;
			return;
		}
		rlen += (size_t)n;
	}
	while ((r = runrec_framed(rbuf, rlen, &flen)) == 1) {
		if (runmsg_decode(rbuf, flen, &rm) == 0 &&
		    rm.rm_kind == RM_KILL && job != NULL && !job->sj_reaped)
			(void)spawn_kill(job, (int)rm.rm_num);
		memmove(rbuf, rbuf + flen, rlen - flen);
		rlen -= flen;
	}
	if (r == -1 || rlen == sizeof(rbuf)) {
		/* Not the daemon's words: stop listening. */
		close(ctl);
		ctl = -1;
	}
}

/*
 * Take the run's file.  A run whose end is there already, or whose file
 * another runner holds, is not started again: a fire starts at most
 * once on a node.
 */
static void
runfile_take(void)
{
	struct stat	 sb;
	char		 name[NAME_MAX + 1];

	if (runfile_name(name, sizeof(name), rq.rq_id, rq.rq_fire,
	    rq.rq_attempt, "") == -1 ||
	    (size_t)snprintf(runpath, sizeof(runpath), "%s/%s.run",
	    rq.rq_dir, name) >= sizeof(runpath) ||
	    (size_t)snprintf(endpath, sizeof(endpath), "%s/%s.end",
	    rq.rq_dir, name) >= sizeof(endpath))
		failed(0, "runs directory %s: name too long", rq.rq_dir);
	if (lstat(endpath, &sb) == 0)
		failed(0, "%s: the run has ended already", endpath);
	if ((runfd = open(runpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY, 0600)) == -1)
		failed(0, "%s: %s", runpath, strerror(errno));
	if (flock(runfd, LOCK_EX | LOCK_NB) == -1)
		failed(0, "%s: %s", runpath, errno == EWOULDBLOCK ?
		    "another runner holds the run" : strerror(errno));
	locked = 1;
	if (runfile_put(RUNF_RUNNING, 0, 0, 0, NULL, NULL) == -1)
		failed(0, "%s: %s", runpath, strerror(errno));
}

/*
 * Write the run file as kind says; for RUNF_ENDED the end, the wait
 * status and the output, for RUNF_FAILED why.  0, or -1 with errno.
 */
static int
runfile_put(int kind, pid_t pid, int64_t end, int wstatus, const char *why,
    const struct outbuf *out)
{
	struct runfile	 rf;
	char		*buf;
	size_t		 len, off = 0;
	ssize_t		 n;
	int		 saved;

	memset(&rf, 0, sizeof(rf));
	rf.rf_kind = kind;
	rf.rf_id = rq.rq_id;
	rf.rf_fire = rq.rq_fire;
	rf.rf_attempt = rq.rq_attempt;
	rf.rf_node = rq.rq_node;
	rf.rf_user = rq.rq_user;
	rf.rf_what = rq.rq_what;
	rf.rf_label = rq.rq_label;
	rf.rf_pid = pid;
	rf.rf_start = rq.rq_start;
	rf.rf_end = end;
	rf.rf_wstatus = wstatus;
	rf.rf_why = (char *)why;
	if (out != NULL)
		rf.rf_out = *out;
	if (runfile_encode(&rf, &buf, &len) == -1)
		return (-1);
	while (off < len) {
		if ((n = pwrite(runfd, buf + off, len - off,
		    (off_t)off)) == -1) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			errno = saved;
			return (-1);
		}
		off += (size_t)n;
	}
	free(buf);
	return (ftruncate(runfd, (off_t)len));
}

/*
 * The job did not start: write why into the run file, which becomes an
 * end, tell the daemon and leave.  Step 0 is a failure of the runner's
 * own, before the job: the run file is not had, or not kept.  A start
 * past its deadline leaves no file either: the daemon that claimed the
 * fire settles it.
 */
static void
failed(int step, const char *fmt, ...)
{
	va_list	 ap;
	char	 why[256];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (step == SPAWN_LATE || (step == 0 && locked)) {
		(void)unlink(runpath);
	} else if (step != 0) {
		if (runfile_put(RUNF_FAILED, 0, clock_now_ms(), 0, why,
		    NULL) == -1 || rename(runpath, endpath) == -1)
			log_warn("(%s) ERROR (%s)", rq.rq_user, runpath);
	}
	if (ctl == -1 && step != SPAWN_LATE)
		log_warnx("(%s) CMD FAILED (%s %s)", rq.rq_user, why,
		    rq.rq_label);
	say(RM_FAILED, step, why);
	exit(0);
}

static void
job_start(void)
{
	struct spawn_req	 sr;
	struct spawn_err	 se;
	struct rlimit		 rl;

	/* The limit on open files the daemon was started with. */
	if (rq.rq_nofile_cur >= 0) {
		rl.rlim_cur = rq.rq_nofile_cur == INT64_MAX ? RLIM_INFINITY :
		    (rlim_t)rq.rq_nofile_cur;
		rl.rlim_max = rq.rq_nofile_max == INT64_MAX ? RLIM_INFINITY :
		    (rlim_t)rq.rq_nofile_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_warn("(%s) ERROR (limit on open files)",
			    rq.rq_user);
	}
	pw.pw_name = rq.rq_user;
	pw.pw_uid = rq.rq_uid;
	pw.pw_gid = rq.rq_gid;
	pw.pw_dir = rq.rq_home;
	memset(&sr, 0, sizeof(sr));
	sr.sr_cmd = rq.rq_cmd;
	sr.sr_env = rq.rq_env;
	sr.sr_input = rq.rq_input;
	sr.sr_inputlen = rq.rq_inputlen;
	sr.sr_pw = &pw;
	sr.sr_title = rq.rq_title;
	sr.sr_pam = rq.rq_pam;
	sr.sr_outmax = rq.rq_outmax;
	sr.sr_startms = rq.rq_startms;
	sr.sr_until = rq.rq_until;
	if (spawn_launch(&sr, &job, &se) == -1)
		failed(se.se_step, "%s", se.se_msg);
}

/* Reap what has ended; 1 once the job (or mailer) j is reaped. */
static int
reap(struct spawn_job *j)
{
	pid_t	 pid;
	int	 status;

	got_chld = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (j != NULL && pid == j->sj_pid)
			spawn_exited(j, status);
	return (j != NULL && j->sj_reaped);
}

/*
 * Sleep until one of j's descriptors or the daemon's socket has
 * something, a child ended, or `until' (monotonic ms, 0: none) came.
 */
static void
wait_io(struct spawn_job *j, int64_t until)
{
	struct pollfd	 pfd[NPOLL];
	struct timespec	 ts, *tsp = NULL;
	sigset_t	 none;
	nfds_t		 n;
	int64_t		 ms;

	n = (nfds_t)spawn_pollfds(j, pfd);
	if (ctl != -1) {
		pfd[n].fd = ctl;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	if (until != 0) {
		if ((ms = until - clock_mono()) < 0)
			ms = 0;
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (ms % 1000) * 1000000;
		tsp = &ts;
	}
	sigemptyset(&none);
	if (!got_chld && ppoll(pfd, n, tsp, &none) == -1 && errno != EINTR)
		fatal("ppoll");
	if (ctl != -1 && pfd[n - 1].fd == ctl && pfd[n - 1].revents != 0)
		listen_ctl();
}

/*
 * The job's life: its start told, its output read, its timeout kept,
 * until it has ended.  Returns its wait status.
 */
static int
job_watch(void)
{
	struct spawn_err	 se;
	int64_t			 tmo = 0, killat = 0, wake;
	int			 r, told = 0, done = 0, killed = 0;

	for (;;) {
		if (job->sj_started == 0 &&
		    (r = spawn_started(job, &se)) != 0) {
			if (r == -1)
				failed(se.se_step, "%s", se.se_msg);
			if (runfile_put(RUNF_RUNNING, job->sj_pid, 0, 0, NULL,
			    NULL) == -1)
				log_warn("(%s) ERROR (%s)", rq.rq_user,
				    runpath);
			say(RM_STARTED, job->sj_pid, NULL);
			told = 1;
			if (rq.rq_timeout > 0)
				tmo = clock_mono() +
				    (int64_t)rq.rq_timeout * 1000;
		}
		if (!done && (r = spawn_io(job)) != 0) {
			if (r == -1)
				log_warn("(%s) ERROR (reading the output of %s)",
				    rq.rq_user, rq.rq_what);
			done = 1;
		}
		if (got_chld)
			(void)reap(job);
		/* A job that died before its start was read: read it. */
		if (job->sj_reaped && job->sj_started == 0)
			continue;
		if (done && job->sj_reaped && told)
			return (job->sj_wstatus);
		if (tmo != 0 && killed == 0 && clock_mono() >= tmo) {
			if (ctl != -1)
				say(RM_TIMEOUT, rq.rq_timeout, NULL);
			else
				log_info("(%s) TIMEOUT (%s after %us, killing "
				    "it; %s)", rq.rq_user, rq.rq_node,
				    rq.rq_timeout, rq.rq_label);
			(void)spawn_kill(job, SIGTERM);
			killed = 1;
			killat = clock_mono() + KILL_GRACE;
		}
		if (killed == 1 && clock_mono() >= killat) {
			if (!job->sj_reaped)
				(void)spawn_kill(job, SIGKILL);
			killed = 2;
		}
		wake = job->sj_started == 0 ? job->sj_startby : 0;
		if (tmo != 0 && killed == 0 && (wake == 0 || tmo < wake))
			wake = tmo;
		if (killed == 1 && (wake == 0 || killat < wake))
			wake = killat;
		wait_io(job, wake);
	}
}

/*
 * Mail the output as cron does, once the end is in the run file: the
 * mailer starts as a job does (spawn), as the job's owner, and is killed
 * when it outlives MAIL_TIMEOUT.  Its failures are logged.
 */
static void
mail(int wstatus, const struct outbuf *out)
{
	struct spawn_job	*mj;
	struct spawn_status	 ss;
	struct spawn_err	 se;
	struct mail_req		 mr;
	char			 errbuf[256], status[128];
	int64_t			 until, killat = 0;
	int			 failed_job, r;

	spawn_status_decode(wstatus, &ss);
	failed_job = !ss.ss_exited || ss.ss_code != 0;
	memset(&mr, 0, sizeof(mr));
	mr.mr_sendmail = rq.rq_sendmail;
	mr.mr_from = rq.rq_mailfrom;
	mr.mr_to = rq.rq_mailto;
	mr.mr_user = rq.rq_user;
	mr.mr_cmd = rq.rq_cmd;
	mr.mr_subject = rq.rq_subject;
	mr.mr_env = rq.rq_env;
	mr.mr_pw = &pw;
	mr.mr_failed = failed_job && rq.rq_failsubj;
	mr.mr_fqdn = rq.rq_fqdn;
	if (mail_start(&mr, out, &mj, errbuf, sizeof(errbuf)) == -1) {
		log_warnx("(%s) MAIL (%s)", rq.rq_user, errbuf);
		return;
	}
	log_debug("(%s) MAIL (to %s, %llu bytes of output)", rq.rq_user,
	    rq.rq_mailto, (unsigned long long)out->ob_total);
	until = clock_mono() + MAIL_TIMEOUT;
	for (;;) {
		if (mj->sj_started == 0 &&
		    (r = spawn_started(mj, &se)) == -1) {
			log_warnx("(%s) MAIL (sendmail did not start: %s)",
			    rq.rq_user, se.se_msg);
			while (!reap(mj))
				wait_io(mj, clock_mono() + 1000);
			break;
		}
		r = mj->sj_out == -1 && mj->sj_in == -1 ? 1 : spawn_io(mj);
		if (got_chld)
			(void)reap(mj);
		if (r != 0 && mj->sj_reaped && mj->sj_started != 0) {
			if (!WIFEXITED(mj->sj_wstatus) ||
			    WEXITSTATUS(mj->sj_wstatus) != 0) {
				spawn_status_decode(mj->sj_wstatus, &ss);
				spawn_status_str(&ss, status, sizeof(status));
				log_warnx("(%s) MAIL (mailer: %s)", rq.rq_user,
				    status);
			}
			break;
		}
		if (killat == 0 && clock_mono() >= until) {
			log_warnx("(%s) MAIL (mailer still running after %ds, "
			    "killing it)", rq.rq_user, MAIL_TIMEOUT / 1000);
			(void)spawn_kill(mj, SIGTERM);
			killat = clock_mono() + KILL_GRACE;
		} else if (killat != 0 && clock_mono() >= killat &&
		    !mj->sj_reaped)
			(void)spawn_kill(mj, SIGKILL);
		wait_io(mj, killat != 0 ? killat : mj->sj_started == 0 &&
		    mj->sj_startby < until ? mj->sj_startby : until);
	}
	spawn_free(mj);
}

int
main(int argc, char **argv)
{
	int	 wstatus, fd;

	/* Only the socket to the daemon: nothing else of its. */
	closefrom(CTL_FD + 1);
	if (fcntl(CTL_FD, F_GETFD) == -1) {
		fprintf(stderr, "%s: no daemon at descriptor %d: this program "
		    "is started by clustercron(8)\n", getprogname(), CTL_FD);
		return (2);
	}
	(void)fcntl(CTL_FD, F_SETFD, FD_CLOEXEC);
	log_init("CRON", 1);
	signals();
	read_request();
	log_setup();
	runfile_take();
	job_start();
	wstatus = job_watch();

	/*
	 * The end, into the spool of ended runs, before the daemon hears
	 * of it: whichever daemon reads it, this one or the next, finds
	 * it there.
	 */
	if (runfile_put(RUNF_ENDED, job->sj_pid, clock_now_ms(), wstatus,
	    NULL, &job->sj_output) == -1 || rename(runpath, endpath) == -1)
		log_warn("(%s) ERROR (the end of %s, %s)", rq.rq_user,
		    rq.rq_label, runpath);
	fd = runfd;
	runfd = -1;
	close(fd);
	if (ctl != -1) {
		close(ctl);
		ctl = -1;
	}
	if (rq.rq_mailto != NULL &&
	    (job->sj_output.ob_total > 0 || rq.rq_mailall))
		mail(wstatus, &job->sj_output);
	spawn_free(job);
	runreq_free(&rq);
	return (0);
}
