/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * spawn.c: starting a job and watching it.  Every process clustercron
 * starts for a user -- the job itself, the mailer -- goes through
 * spawn_launch(): a new session, standard input from a pipe the parent
 * fills, standard output and standard error into one pipe the parent
 * reads, nothing else open, the owner's identity, the owner's home as
 * working directory, then execve().  A failure on the way is sent up a
 * close-on-exec pipe as (step, errno), so that a job that "did not
 * start" is never mistaken for one that "exited 127".
 *
 * Why fork() and not vfork() or posix_spawn().  FACTS.md measured plain
 * fork() at 50-120 starts a second from a parent holding 1 GiB, against
 * ~1,000 from a small one, and vfork()/posix_spawn() unaffected by the
 * parent's size.  But the child has to change user: setgid(),
 * initgroups() (which reads the group database through NSS and
 * allocates) and setuid(), then chdir().  In a vfork() child those run
 * in the parent's memory: initgroups() is not async-signal-safe at all,
 * and glibc's setuid() and setgid() signal every thread of the process
 * to switch ids together, which in a child sharing the parent's
 * address space is undefined.  posix_spawn() can
 * reset the effective ids to the real ones but cannot become another
 * user or change directory (POSIX 2024's chdir action aside).  So we
 * fork(), and keep the daemon small (its memory is its tables and
 * timer heap; resident size is a tracked goal), which keeps fork() near
 * the ~1 ms a shell start costs anyway.  Should the daemon ever grow
 * large, the remedy is to fork a small spawner process early and send
 * it requests; it would call this same code.
 *
 * The parent never blocks on the job's pipes: both are non-blocking and
 * spawn_io() moves what it can, so a job that fills its output pipe
 * before reading its input cannot deadlock with us.
 *
 * Nor need it block between fork() and the child's execve().  That
 * stretch costs the child several times what fork() costs the parent
 * (resetting signals, the group database for initgroups(), execve()
 * itself), and a parent that waited for each child in turn started a
 * thousand jobs due at once one after another, leaving a processor
 * idle.  spawn_launch() returns once forked; the
 * close-on-exec status pipe stays open in the job, non-blocking, and
 * spawn_started() reads it when it polls readable: end of file means
 * the exec happened, a report says what failed.  Once the child is
 * dead the pipe holds its final word, so a caller that reaped it first
 * still learns the truth.  Nothing here ever waits for a child: the
 * caller polls and reaps in its own loop.
 *
 * The group database.  initgroups() in the child asks every source
 * nsswitch.conf names for the group database, and a source glibc has
 * not used yet in this process is a shared object to dlopen() and
 * relocate: on Debian's default "group: files systemd", loading
 * libnss_systemd cost each child about 0.5 ms of CPU here, a third of
 * all it takes to start /bin/true, paid again by every child, as the
 * daemon itself only ever looks up passwd entries (which "files"
 * answers).  So the parent asks the group database once, before its
 * first fork that changes user, and its children inherit the sources
 * loaded.
 *
 * PAM.  A job with sr_pam passes that service's stack first, as
 * cron's jobs pass /etc/pam.d/cron (privdrop.c says what each step
 * does), in the child: account, credentials, session.  Closing the
 * session needs root once the job is over, so the child then forks
 * again and stays, root, as the session's keeper (child_pam(), keeper())
 * while its own child becomes the job: cron's middle process.  The
 * keeper is the process the daemon knows, the group leader; it holds
 * none of the job's descriptors, ignores the signals that stop jobs,
 * and ends as the job ended, so that what the daemon reaps is the
 * job's exit status or signal.  A refusal is reported up the status
 * pipe with PAM's words, and the job does not start.
 *
 * Plain commands.  Most cron commands are one program and its
 * arguments, "/usr/local/bin/backup --full", and for those /bin/sh
 * only splits the words and execs the program in its own place (dash
 * execs the last command of -c without forking); yet starting the shell
 * costs the child about as much CPU as starting the program: half of a
 * thousand-job burst.  So a command the shell would run that way, and
 * only such a command (spawn_plain()), is exec'd directly, in the
 * environment the shell would have passed on: the same variables, as
 * the shell keeps only those whose names are valid, and PWD set as
 * the shell sets it (exec_plain()).  Should that exec fail for any
 * reason, the child execs the shell as usual, which then does what it
 * always does: runs a file without "#!" as a script, or says "not
 * found" and exits 127.  A table that sets SHELL to anything but
 * /bin/sh always gets its shell.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <paths.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define SPAWN_SHELL	_PATH_BSHELL
#define SPAWN_STARTMS	10000
#define SPAWN_READMAX	16	/* reads per spawn_io() call, for fairness */

/* What the child sends up the status pipe when it cannot go on. */
struct spawn_report {
	int	 r_step;
	int	 r_privstep;
	int	 r_errno;
	char	 r_why[160];	/* at SPAWN_PAM: what PAM said */
};

static void	child(const struct spawn_req *, const char *, char *const *,
		    char *const *, const char *, int, int, int)
		    __attribute__((__noreturn__));
static int	env_plain(char *const *);
static void	exec_plain(char *const *, char *const *);
static void	child_fail(int, int, int, int) __attribute__((__noreturn__));
static void	child_fail_why(int, int, int, int, const char *)
		    __attribute__((__noreturn__));
#ifdef HAVE_PAM
static char   **child_pam(const struct spawn_req *, char *const *, int);
static void	keeper(struct privdrop_pam *, pid_t, int)
		    __attribute__((__noreturn__));
static void	keeper_exit(int) __attribute__((__noreturn__));
static void	keeper_alarm(int);
#endif
static int	moveup(int);
static int	sig_default_raw(int);
static int	write_nosigpipe(int, const void *, size_t);
static void	err_set(struct spawn_err *, int, int, int, const char *);
static void	input_done(struct spawn_job *);
static void	start_failed(struct spawn_job *, int, int, int);
static void	start_err(const struct spawn_job *, struct spawn_err *);
static void	groups_load(const struct passwd *);

/* The limit on open files the process had before spawn_nofile_raise(). */
static struct rlimit	nofile_orig;
static int		nofile_raised;

const char *
spawn_stepname(int step)
{
	switch (step) {
	case SPAWN_OK:
		return ("ok");
	case SPAWN_PIPE:
		return ("pipe");
	case SPAWN_FORK:
		return ("fork");
	case SPAWN_SIGNALS:
		return ("signals");
	case SPAWN_SETSID:
		return ("setsid");
	case SPAWN_FDS:
		return ("descriptors");
	case SPAWN_PRIVDROP:
		return ("privileges");
	case SPAWN_CHDIR:
		return ("chdir");
	case SPAWN_EXEC:
		return ("exec");
	case SPAWN_TIMEOUT:
		return ("start timeout");
	case SPAWN_LATE:
		return ("start deadline");
	case SPAWN_NOMEM:
		return ("memory");
	case SPAWN_PAM:
		return ("PAM");
	}
	return ("unknown step");
}

static void
err_set(struct spawn_err *err, int step, int privstep, int errnum,
    const char *what)
{
	if (err == NULL)
		return;
	err->se_step = step;
	err->se_privstep = privstep;
	err->se_errno = errnum;
	if (step == SPAWN_PRIVDROP)
		snprintf(err->se_msg, sizeof(err->se_msg), "becoming %s: %s: %s",
		    what == NULL ? "the user" : what,
		    privdrop_stepname(privstep), strerror(errnum));
	else if (step == SPAWN_PAM)
		strlcpy(err->se_msg, what != NULL && *what != '\0' ? what :
		    "PAM refused the job", sizeof(err->se_msg));
	else
		snprintf(err->se_msg, sizeof(err->se_msg), "%s%s%s: %s",
		    spawn_stepname(step), what == NULL ? "" : " ",
		    what == NULL ? "" : what, strerror(errnum));
}

/*
 * glibc keeps two real-time signals for itself (32 and 33) and its
 * sigaction() refuses them; yet they can arrive ignored from whoever
 * started us, and an ignored signal stays ignored across execve().  Ask
 * the kernel directly.  An all-zero kernel sigaction is SIG_DFL with no
 * flags and an empty mask whatever the architecture's field order.
 */
static int
sig_default_raw(int sig)
{
#if defined(__linux__) && defined(SYS_rt_sigaction)
	unsigned long	 ksa[8];

	memset(ksa, 0, sizeof(ksa));
	return ((int)syscall(SYS_rt_sigaction, sig, ksa, NULL,
	    (size_t)(NSIG - 1) / 8));
#else
	errno = EINVAL;
	return (-1);
#endif
}

/* In the child: report (step, errno) to the parent and die. */
static void
child_fail(int fd, int step, int privstep, int errnum)
{
	child_fail_why(fd, step, privstep, errnum, NULL);
}

/* The same with words of the child's own (PAM's). */
static void
child_fail_why(int fd, int step, int privstep, int errnum, const char *why)
{
	struct spawn_report	 r;
	ssize_t			 n;

	memset(&r, 0, sizeof(r));
	r.r_step = step;
	r.r_privstep = privstep;
	r.r_errno = errnum;
	if (why != NULL)
		strlcpy(r.r_why, why, sizeof(r.r_why));
	do
		n = write(fd, &r, sizeof(r));
	while (n == -1 && errno == EINTR);
	_exit(127);
}

/* A descriptor at 3 or above, so that wiring 0-2 cannot clobber it. */
static int
moveup(int fd)
{
	if (fd > STDERR_FILENO)
		return (fd);
	return (fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
}

/*
 * The child, between fork() and execve().  Everything here is either a
 * system call or, for privdrop(), safe after fork() in a
 * single-threaded parent.
 */
static void
child(const struct spawn_req *req, const char *path, char *const *argv,
    char *const *words, const char *dir, int in, int out, int st)
{
	static char *const	 noenv[] = { NULL };
	char *const		*env;
	struct sigaction	 sa;
	sigset_t		 none;
	enum privdrop_step	 pstep;
	int			 sig, fd;

	/*
	 * Signals: the parent blocked them all around fork(); put every
	 * disposition back to default (ignored signals survive execve(),
	 * handlers would not make sense) and then unblock.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if (sigaction(sig, &sa, NULL) == -1)
			(void)sig_default_raw(sig);
	}
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		child_fail(st, SPAWN_SIGNALS, 0, errno);

	/* A session of its own: no terminal, and one group to kill. */
	if (setsid() == -1)
		child_fail(st, SPAWN_SETSID, 0, errno);

	/*
	 * Descriptors: lift ours above 2, wire 0 to the input pipe and 1
	 * and 2 to the output pipe, keep the status pipe at 3 (close on
	 * exec), close everything else.
	 */
	if ((fd = moveup(st)) == -1)
		child_fail(st, SPAWN_FDS, 0, errno);
	st = fd;
	if ((in = moveup(in)) == -1 || (out = moveup(out)) == -1)
		child_fail(st, SPAWN_FDS, 0, errno);
	if (dup2(in, STDIN_FILENO) == -1 || dup2(out, STDOUT_FILENO) == -1 ||
	    dup2(out, STDERR_FILENO) == -1)
		child_fail(st, SPAWN_FDS, 0, errno);
	if (st != 3) {
		if (dup2(st, 3) == -1)
			child_fail(st, SPAWN_FDS, 0, errno);
		st = 3;
	}
	if (fcntl(st, F_SETFD, FD_CLOEXEC) == -1)
		child_fail(st, SPAWN_FDS, 0, errno);
	closefrom(4);
	/* The limit on open files as cron's children would have it. */
	if (nofile_raised && setrlimit(RLIMIT_NOFILE, &nofile_orig) == -1)
		child_fail(st, SPAWN_FDS, 0, errno);

	env = req->sr_env != NULL ? req->sr_env : noenv;
#ifdef HAVE_PAM
	/* After the limits above: limits.conf's, if any, come on top. */
	if (req->sr_pam != NULL && req->sr_pw != NULL && geteuid() == 0)
		env = child_pam(req, env, st);
#endif

	if (req->sr_pw != NULL &&
	    privdrop(req->sr_pw, &pstep, NULL, 0) == -1)
		child_fail(st, SPAWN_PRIVDROP, (int)pstep, errno);

	/* cron(8) does not run a job whose home it cannot enter. */
	if (chdir(dir) == -1)
		child_fail(st, SPAWN_CHDIR, 0, errno);

	/*
	 * The title names the child until execve() replaces it, which is
	 * when it matters: a child stuck in the group database or on a
	 * dead home directory.  prctl() rather than setproctitle(), which
	 * without setproctitle_init() in main() writes a warning to
	 * standard error -- the job's output.
	 */
	if (req->sr_title != NULL)
		(void)prctl(PR_SET_NAME, req->sr_title, 0, 0, 0);

	/* The last thing before execve(): too late runs nothing. */
	if (req->sr_until != 0 && clock_mono() >= req->sr_until)
		child_fail(st, SPAWN_LATE, 0, ETIME);
	if (words != NULL)
		exec_plain(words, env);
	execve(path, argv, env);
	child_fail(st, SPAWN_EXEC, 0, errno);
}

#ifdef HAVE_PAM
/*
 * In the child, as root: the job's PAM stack (privdrop.c), then a fork.
 * This process keeps the session and closes it once the job is over,
 * as cron's middle process does: closing needs root, and the job is
 * the user by then.  The new child goes on to become the job, with
 * PAM's environment under the job's own.  PAM's time counts against
 * sr_startms and sr_until like the rest of the start: a module that
 * blocks makes the job fail to start in time, nothing more.
 */
static char **
child_pam(const struct spawn_req *req, char *const *env, int st)
{
	struct privdrop_pam	*pp;
	sigset_t		 all, none;
	char			 why[sizeof(((struct spawn_report *)0)->r_why)];
	char			**penv;
	pid_t			 pid;
	int			 saved;

	if ((pp = privdrop_pam_open(req->sr_pam, req->sr_pw, why,
	    sizeof(why))) == NULL)
		child_fail_why(st, SPAWN_PAM, 0, EPERM, why);
	penv = privdrop_pam_env(pp, env);
	/* No signal between the fork and the keeper's dispositions. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if ((pid = fork()) == -1) {
		saved = errno;
		privdrop_pam_close(pp);
		child_fail(st, SPAWN_FORK, 0, saved);
	}
	if (pid != 0)
		keeper(pp, pid, st);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		child_fail(st, SPAWN_SIGNALS, 0, errno);
	/* Whatever the modules left open stays with the keeper. */
	closefrom(4);
	return (penv);
}

/* The job's end, as the keeper's own: its exit status or its signal. */
static volatile sig_atomic_t	keeper_status;

static void
keeper_exit(int status)
{
	struct sigaction	 sa;
	struct rlimit		 rl;
	sigset_t		 one;

	if (WIFSIGNALED(status)) {
		/* No core of the keeper's for the job's. */
		rl.rlim_cur = rl.rlim_max = 0;
		(void)setrlimit(RLIMIT_CORE, &rl);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(WTERMSIG(status), &sa, NULL);
		sigemptyset(&one);
		sigaddset(&one, WTERMSIG(status));
		(void)sigprocmask(SIG_UNBLOCK, &one, NULL);
		(void)kill(getpid(), WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

static void
keeper_alarm(int sig)
{
	keeper_exit(keeper_status);
}

/*
 * The session's keeper: the process the daemon forked, the job's
 * parent, in the job's process group.  It holds nothing of the job's
 * (its output, its status pipe), ignores the signals that stop jobs
 * (the daemon signals the whole group; SIGKILL takes the keeper with
 * the job), waits for the job, closes the session and ends as the job
 * ended, so that the daemon sees the job's exit status or signal.  A
 * session close that takes more than KEEPER_CLOSE seconds is given up.
 */
#define KEEPER_CLOSE	10

static void
keeper(struct privdrop_pam *pp, pid_t pid, int st)
{
	static const int	 quiet[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
				    SIGUSR1, SIGUSR2, SIGPIPE, SIGTSTP,
				    SIGTTIN, SIGTTOU };
	struct sigaction	 sa;
	sigset_t		 none;
	size_t			 i;
	int			 fd, status;

	close(st);
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		(void)dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_IGN;
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		(void)sigaction(quiet[i], &sa, NULL);
	sa.sa_handler = keeper_alarm;
	(void)sigaction(SIGALRM, &sa, NULL);
	(void)prctl(PR_SET_NAME, "job session", 0, 0, 0);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			status = 127 << 8;
			break;
		}
	keeper_status = status;
	alarm(KEEPER_CLOSE);
	privdrop_pam_close(pp);
	alarm(0);
	keeper_exit(status);
}
#endif /* HAVE_PAM */

/*
 * The characters of a plain command: none of them means anything to
 * the shell in the middle of a word.  '=' does at the start of the
 * first word (an assignment), and spawn_plain() checks that apart.
 */
static int
plain_char(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("/._-+,:=@%", c) != NULL));
}

char **
spawn_plain(const char *cmd)
{
	char		**words, *p;
	const char	*s;
	size_t		 n = 0, len, i;
	int		 inword = 0;

	for (s = cmd; *s != '\0'; s++) {
		if (*s == ' ' || *s == '\t')
			inword = 0;
		else if (!plain_char((unsigned char)*s))
			return (NULL);
		else if (!inword) {
			inword = 1;
			n++;
		}
	}
	len = (size_t)(s - cmd);
	if (n == 0 || n > (SIZE_MAX - len - 1) / sizeof(*words) - 1 ||
	    (words = malloc((n + 1) * sizeof(*words) + len + 1)) == NULL)
		return (NULL);
	p = (char *)(words + n + 1);
	memcpy(p, cmd, len + 1);
	for (i = 0; *p != '\0'; ) {
		if (*p == ' ' || *p == '\t') {
			*p++ = '\0';
			continue;
		}
		words[i++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
	}
	words[i] = NULL;
	/*
	 * "exec prog args" is "prog args" here.  The program must be named
	 * by a path: the shell looks a name without '/' up among its
	 * built-ins, functions and PATH, and a first word with '=' may
	 * be an assignment.
	 */
	if (strcmp(words[0], "exec") == 0)
		memmove(words, words + 1, i-- * sizeof(*words));
	if (i == 0 || strchr(words[0], '/') == NULL ||
	    strchr(words[0], '=') != NULL) {
		free(words);
		return (NULL);
	}
	return (words);
}

/*
 * An environment the shell passes on as it is, PWD aside: every string
 * is NAME=value with a name the shell takes for a variable, no name
 * twice, and none of the variables dash sets for itself at start
 * whatever it inherited (IFS, OPTIND, PPID).
 */
static int
env_plain(char *const *env)
{
	size_t	 i, j, n;

	for (i = 0; env != NULL && env[i] != NULL; i++) {
		/* A name: letters, digits and '_', not a digit first. */
		n = strcspn(env[i], "=");
		if (env[i][n] != '=' || n == 0 ||
		    (env[i][0] >= '0' && env[i][0] <= '9') ||
		    strncmp(env[i], "IFS=", 4) == 0 ||
		    strncmp(env[i], "OPTIND=", 7) == 0 ||
		    strncmp(env[i], "PPID=", 5) == 0)
			return (0);
		for (j = 0; j < n; j++)
			if (env[i][j] != '_' &&
			    !(env[i][j] >= '0' && env[i][j] <= '9') &&
			    !(env[i][j] >= 'a' && env[i][j] <= 'z') &&
			    !(env[i][j] >= 'A' && env[i][j] <= 'Z'))
				return (0);
		for (j = 0; j < i; j++)
			if (strncmp(env[j], env[i], n + 1) == 0)
				return (0);
	}
	return (1);
}

/*
 * In the child, in its working directory: exec a plain command with PWD
 * as /bin/sh sets it -- the inherited value when it is an absolute
 * name of this directory, else the directory's physical name.  Returns
 * only when that failed; the caller execs the shell then.  The copy of
 * the environment is made here, where the directory is known; malloc()
 * is safe after fork() in a single-threaded parent.
 */
static void
exec_plain(char *const *words, char *const *env)
{
	struct stat	 a, b;
	const char	*pwd;
	char		 cwd[PATH_MAX], **e;
	size_t		 n, i, k = 0;

	pwd = jobenv_get(env, "PWD");
	if (pwd != NULL && pwd[0] == '/' && stat(pwd, &a) == 0 &&
	    stat(".", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		execve(words[0], words, env);
		return;
	}
	if (getcwd(cwd + 4, sizeof(cwd) - 4) == NULL)
		return;
	memcpy(cwd, "PWD=", 4);
	n = jobenv_count(env);
	if ((e = reallocarray(NULL, n + 2, sizeof(*e))) == NULL)
		return;
	for (i = 0; i < n; i++)
		if (strncmp(env[i], "PWD=", 4) != 0)
			e[k++] = env[i];
	e[k++] = cwd;
	e[k] = NULL;
	execve(words[0], words, e);
	free(e);
}

/*
 * The start failed at step (privstep, errnum): note it, close the
 * status pipe and make sure the child is on its way out.  A child
 * already reaped is left alone, as its pid may belong to another
 * process by now.
 */
static void
start_failed(struct spawn_job *job, int step, int privstep, int errnum)
{
	job->sj_started = -1;
	job->sj_step = step;
	job->sj_privstep = privstep;
	job->sj_errno = errnum;
	if (job->sj_st != -1) {
		close(job->sj_st);
		job->sj_st = -1;
	}
	/* The group: with PAM the job is the child's child (child_pam()). */
	if (!job->sj_reaped && kill(-job->sj_pid, SIGKILL) == -1)
		(void)kill(job->sj_pid, SIGKILL);
}

/* Why the job did not start, as a spawn_err. */
static void
start_err(const struct spawn_job *job, struct spawn_err *err)
{
	if (err == NULL)
		return;
	memset(err, 0, sizeof(*err));
	err_set(err, job->sj_step, job->sj_privstep, job->sj_errno,
	    job->sj_step == SPAWN_EXEC ? job->sj_path :
	    job->sj_step == SPAWN_CHDIR ? job->sj_dir :
	    job->sj_step == SPAWN_PRIVDROP ? job->sj_user :
	    job->sj_step == SPAWN_PAM ? job->sj_why :
	    job->sj_step == SPAWN_PIPE ? "status" : NULL);
}

int
spawn_started(struct spawn_job *job, struct spawn_err *err)
{
	struct spawn_report	 r;
	ssize_t			 n;

	if (job->sj_started == -1)
		start_err(job, err);
	if (job->sj_started != 0)
		return (job->sj_started);
	do
		n = read(job->sj_st, &r, sizeof(r));
	while (n == -1 && errno == EINTR);
	if (n == 0) {
		/* End of file: the pipe closed on execve(). */
		close(job->sj_st);
		job->sj_st = -1;
		job->sj_started = 1;
		return (1);
	}
	if (n == (ssize_t)sizeof(r)) {
		r.r_why[sizeof(r.r_why) - 1] = '\0';
		strlcpy(job->sj_why, r.r_why, sizeof(job->sj_why));
		start_failed(job, r.r_step, r.r_privstep, r.r_errno);
	}
	else if (n == -1 && errno == EAGAIN) {
		/*
		 * Nothing yet.  A dead child has said all it will: its
		 * end of the pipe is closed, so EAGAIN cannot happen
		 * then; a live one is given until sj_startby.
		 */
		if (clock_mono() < job->sj_startby)
			return (0);
		start_failed(job, SPAWN_TIMEOUT, 0, ETIMEDOUT);
	} else
		start_failed(job, SPAWN_PIPE, 0, n == -1 ? errno : EIO);
	start_err(job, err);
	return (-1);
}

/*
 * A daemon holds a descriptor or three for every job in flight, and a
 * burst of a thousand jobs with their mailers would run into the soft
 * limit on open files that cron's default (1024 on Linux) gives.  So
 * the soft limit is raised to the hard one for the daemon, and every
 * child gets the original back before its exec: the jobs see what
 * they would under cron.
 */
int
spawn_nofile_raise(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return (-1);
	if (rl.rlim_cur == rl.rlim_max)
		return (0);
	nofile_orig = rl;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		return (-1);
	nofile_raised = 1;
	return (0);
}

/*
 * The limit on open files this process had before spawn_nofile_raise(),
 * for a child started otherwise (the daemon's runners): 1 with *cur
 * and *max filled when the limit was raised, 0 when it was not.
 */
int
spawn_nofile_orig(int64_t *cur, int64_t *max)
{
	if (!nofile_raised)
		return (0);
	*cur = nofile_orig.rlim_cur == RLIM_INFINITY ? INT64_MAX :
	    (int64_t)nofile_orig.rlim_cur;
	*max = nofile_orig.rlim_max == RLIM_INFINITY ? INT64_MAX :
	    (int64_t)nofile_orig.rlim_max;
	return (1);
}

/*
 * Load the group database's sources in this process, once (see the
 * comment at the top of the file).  What getgrouplist() finds does not
 * matter: the child's initgroups() asks again.
 */
static void
groups_load(const struct passwd *pw)
{
	static int	 loaded;
	gid_t		 groups[32];
	int		 n = 32;

	if (loaded || pw->pw_name == NULL)
		return;
	loaded = 1;
	(void)getgrouplist(pw->pw_name, pw->pw_gid, groups, &n);
}

int
spawn_launch(const struct spawn_req *req, struct spawn_job **jobp,
    struct spawn_err *err)
{
	struct spawn_job	*job;
	sigset_t		 all, old;
	const char		*shell, *dir;
	char			*sargv[4], **words = NULL;
	char *const		*argv;
	int			 inp[2] = { -1, -1 }, outp[2] = { -1, -1 };
	int			 stp[2] = { -1, -1 };
	int			 saved, ms;

	*jobp = NULL;
	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if ((job = calloc(1, sizeof(*job))) == NULL) {
		err_set(err, SPAWN_NOMEM, 0, errno, NULL);
		return (-1);
	}
	job->sj_pid = -1;
	job->sj_in = job->sj_out = job->sj_st = -1;
	outbuf_init(&job->sj_output, req->sr_outmax);

	if (req->sr_cmd != NULL) {
		if ((shell = jobenv_get(req->sr_env, "SHELL")) == NULL ||
		    *shell == '\0')
			shell = SPAWN_SHELL;
		sargv[0] = (char *)shell;
		sargv[1] = (char *)"-c";
		sargv[2] = (char *)req->sr_cmd;
		sargv[3] = NULL;
		argv = sargv;
		if (strcmp(shell, SPAWN_SHELL) == 0 && env_plain(req->sr_env))
			words = spawn_plain(req->sr_cmd);
		job->sj_plain = words != NULL;
	} else if (req->sr_argv != NULL && req->sr_argv[0] != NULL)
		argv = req->sr_argv;
	else {
		err_set(err, SPAWN_EXEC, 0, EINVAL, "(no command)");
		errno = EINVAL;
		goto fail;
	}
	/* The working directory: as asked, else HOME, else the user's. */
	if ((dir = req->sr_dir) == NULL &&
	    (dir = jobenv_get(req->sr_env, "HOME")) == NULL &&
	    (req->sr_pw == NULL || (dir = req->sr_pw->pw_dir) == NULL))
		dir = "/";
	if ((job->sj_path = strdup(argv[0])) == NULL ||
	    (job->sj_dir = strdup(dir)) == NULL)
		goto nomem;
	if (req->sr_pw != NULL && req->sr_pw->pw_name != NULL &&
	    (job->sj_user = strdup(req->sr_pw->pw_name)) == NULL)
		goto nomem;
	if (req->sr_inputlen > 0) {
		if ((job->sj_input = malloc(req->sr_inputlen)) == NULL)
			goto nomem;
		memcpy(job->sj_input, req->sr_input, req->sr_inputlen);
		job->sj_inlen = req->sr_inputlen;
	}

	/*
	 * Our ends are non-blocking from the start; the child's stay
	 * blocking (O_NONBLOCK belongs to each end's open file).
	 */
	if (pipe2(inp, O_CLOEXEC) == -1 || pipe2(outp, O_CLOEXEC) == -1 ||
	    pipe2(stp, O_CLOEXEC) == -1) {
		err_set(err, SPAWN_PIPE, 0, errno, NULL);
		goto fail;
	}
	if (fcntl(inp[1], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(outp[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(stp[0], F_SETFL, O_NONBLOCK) == -1) {
		err_set(err, SPAWN_PIPE, 0, errno, "non-blocking");
		goto fail;
	}

	if (req->sr_pw != NULL)
		groups_load(req->sr_pw);
#ifdef HAVE_PAM
	if (req->sr_pam != NULL && req->sr_pw != NULL && geteuid() == 0)
		privdrop_pam_preload(req->sr_pam);
#endif

	/*
	 * Block every signal across fork() so that the child never runs
	 * one of the parent's handlers before it has reset them.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	job->sj_pid = fork();
	if (job->sj_pid == 0)
		child(req, argv[0], argv, words, job->sj_dir, inp[0],
		    outp[1], stp[1]);
	saved = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(words);
	words = NULL;
	if (job->sj_pid == -1) {
		err_set(err, SPAWN_FORK, 0, saved, NULL);
		errno = saved;
		goto fail;
	}

	close(inp[0]);
	close(outp[1]);
	close(stp[1]);
	job->sj_in = inp[1];
	job->sj_out = outp[0];
	job->sj_st = stp[0];
	ms = req->sr_startms > 0 ? req->sr_startms : SPAWN_STARTMS;
	job->sj_startby = clock_mono() + ms;
	if (job->sj_inlen == 0)
		input_done(job);
	*jobp = job;
	return (0);

nomem:
	err_set(err, SPAWN_NOMEM, 0, errno, NULL);
fail:
	saved = errno;
	free(words);
	if (inp[0] != -1)
		close(inp[0]);
	if (inp[1] != -1)
		close(inp[1]);
	if (outp[0] != -1)
		close(outp[0]);
	if (outp[1] != -1)
		close(outp[1]);
	if (stp[0] != -1)
		close(stp[0]);
	if (stp[1] != -1)
		close(stp[1]);
	spawn_free(job);
	errno = saved;
	return (-1);
}

void
spawn_free(struct spawn_job *job)
{
	if (job == NULL)
		return;
	if (job->sj_in != -1)
		close(job->sj_in);
	if (job->sj_out != -1)
		close(job->sj_out);
	if (job->sj_st != -1)
		close(job->sj_st);
	if (job->sj_input != NULL) {
		explicit_bzero(job->sj_input, job->sj_inlen);
		free(job->sj_input);
	}
	free(job->sj_path);
	free(job->sj_dir);
	free(job->sj_user);
	outbuf_free(&job->sj_output);
	free(job);
}

int
spawn_pollfds(const struct spawn_job *job, struct pollfd *pfd)
{
	int	 n = 0;

	if (job->sj_out != -1) {
		pfd[n].fd = job->sj_out;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	if (job->sj_in != -1) {
		pfd[n].fd = job->sj_in;
		pfd[n].events = POLLOUT;
		pfd[n].revents = 0;
		n++;
	}
	if (job->sj_st != -1) {
		pfd[n].fd = job->sj_st;
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		n++;
	}
	return (n);
}

/*
 * write() to a pipe whose reader has gone raises SIGPIPE, and a library
 * must not change the process's dispositions.  Block SIGPIPE around the
 * write; if the write failed with EPIPE, take the SIGPIPE it left
 * pending, unless one was pending already (that one is the caller's).
 */
static int
write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t	 pipeset, pending, old;
	struct timespec	 zero = { 0, 0 };
	ssize_t		 n;
	int		 saved, was_pending;

	sigemptyset(&pipeset);
	sigaddset(&pipeset, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipeset, &old);
	n = write(fd, buf, len);
	saved = errno;
	if (n == -1 && saved == EPIPE && !was_pending) {
		while (sigtimedwait(&pipeset, NULL, &zero) == -1 &&
		    errno == EINTR)
			;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return ((int)n);
}

/* The input is done with: close the pipe and let the copy go. */
static void
input_done(struct spawn_job *job)
{
	close(job->sj_in);
	job->sj_in = -1;
	if (job->sj_input != NULL) {
		explicit_bzero(job->sj_input, job->sj_inlen);
		free(job->sj_input);
		job->sj_input = NULL;
	}
}

int
spawn_io(struct spawn_job *job)
{
	char	 buf[16384];
	size_t	 chunk;
	ssize_t	 n;
	int	 i;

	while (job->sj_in != -1) {
		chunk = job->sj_inlen - job->sj_inoff;
		if (chunk > 65536)
			chunk = 65536;
		n = write_nosigpipe(job->sj_in, job->sj_input + job->sj_inoff,
		    chunk);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			/* EPIPE: nobody reads the rest; cron drops it too. */
			input_done(job);
			break;
		}
		job->sj_inoff += (size_t)n;
		if (job->sj_inoff == job->sj_inlen)
			input_done(job);
	}

	for (i = 0; job->sj_out != -1 && i < SPAWN_READMAX; i++) {
		n = read(job->sj_out, buf, sizeof(buf));
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return (-1);
		}
		if (n == 0) {
			close(job->sj_out);
			job->sj_out = -1;
			break;
		}
		if (outbuf_add(&job->sj_output, buf, (size_t)n) == -1)
			return (-1);
	}
	return (job->sj_out == -1 && job->sj_in == -1);
}

void
spawn_status_decode(int wstatus, struct spawn_status *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (WIFEXITED(wstatus)) {
		ss->ss_exited = 1;
		ss->ss_code = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		ss->ss_signal = WTERMSIG(wstatus);
#ifdef WCOREDUMP
		ss->ss_core = WCOREDUMP(wstatus) ? 1 : 0;
#endif
	}
}

int
spawn_status_str(const struct spawn_status *ss, char *buf, size_t len)
{
	if (ss->ss_exited)
		return (snprintf(buf, len, "exit status %d", ss->ss_code));
	return (snprintf(buf, len, "killed by signal %d (%s)%s",
	    ss->ss_signal, strsignal(ss->ss_signal),
	    ss->ss_core ? ", core dumped" : ""));
}

void
spawn_exited(struct spawn_job *job, int wstatus)
{
	job->sj_reaped = 1;
	job->sj_wstatus = wstatus;
}

int
spawn_kill(const struct spawn_job *job, int sig)
{
	if (job->sj_pid <= 0) {
		errno = ESRCH;
		return (-1);
	}
	if (kill(-job->sj_pid, sig) == 0)
		return (0);
	/* Before its setsid() the child has no group of its own. */
	if (errno == ESRCH && job->sj_started == 0 && !job->sj_reaped)
		return (kill(job->sj_pid, sig));
	return (-1);
}

/*
 * A process started this long after its run is another one that got the
 * pid again.  Generous, as the wall clock may have been set meanwhile.
 */
#define PID_REUSE_MS	60000

int
spawn_alive(pid_t pid, int64_t start_ms)
{
	FILE		*fp;
	char		 path[64], buf[1024], *p;
	unsigned long long ticks, btime = 0;
	long		 hz;
	int64_t		 started;
	int		 i;

	if (pid <= 0)
		return (0);
	if (kill(pid, 0) == -1 && errno != EPERM)
		return (0);
	if (start_ms == 0)
		return (1);
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return (1);
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	/* After the command, in parentheses, field 22 is the start. */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return (1);
	/* A zombie its new parent has not reaped yet is gone already. */
	if (p[1] == ' ' && p[2] == 'Z')
		return (0);
	for (i = 2; i < 22 && p != NULL; i++)
		if ((p = strchr(p + 1, ' ')) == NULL)
			return (1);
	if (sscanf(p, " %llu", &ticks) != 1)
		return (1);
	if ((fp = fopen("/proc/stat", "r")) == NULL)
		return (1);
	while (fgets(buf, sizeof(buf), fp) != NULL)
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(fp);
	if (btime == 0 || (hz = sysconf(_SC_CLK_TCK)) <= 0)
		return (1);
	started = (int64_t)btime * 1000 + (int64_t)(ticks * 1000 / hz);
	return (started <= start_ms + PID_REUSE_MS);
}

/* Output buffers. */

void
outbuf_init(struct outbuf *ob, size_t max)
{
	memset(ob, 0, sizeof(*ob));
	ob->ob_max = max > 0 ? max : OUTBUF_DEFAULT;
}

void
outbuf_free(struct outbuf *ob)
{
	free(ob->ob_buf);
	ob->ob_buf = NULL;
	ob->ob_len = ob->ob_cap = 0;
	ob->ob_total = 0;
}

int
outbuf_add(struct outbuf *ob, const void *data, size_t len)
{
	size_t	 keep, ncap;
	char	*nbuf;

	ob->ob_total += len;
	keep = ob->ob_max - ob->ob_len;
	if (len < keep)
		keep = len;
	if (keep == 0)
		return (0);
	if (ob->ob_len + keep + 1 > ob->ob_cap) {
		ncap = ob->ob_cap == 0 ? 4096 : ob->ob_cap;
		while (ncap < ob->ob_len + keep + 1)
			ncap *= 2;
		if (ncap > ob->ob_max + 1)
			ncap = ob->ob_max + 1;
		if ((nbuf = realloc(ob->ob_buf, ncap)) == NULL)
			return (-1);
		ob->ob_buf = nbuf;
		ob->ob_cap = ncap;
	}
	memcpy(ob->ob_buf + ob->ob_len, data, keep);
	ob->ob_len += keep;
	ob->ob_buf[ob->ob_len] = '\0';
	return (0);
}

size_t
outbuf_head(const struct outbuf *ob, size_t n, const char **p)
{
	*p = ob->ob_buf != NULL ? ob->ob_buf : "";
	return (ob->ob_len < n ? ob->ob_len : n);
}

int
outbuf_truncated(const struct outbuf *ob)
{
	return (ob->ob_total > ob->ob_len);
}
