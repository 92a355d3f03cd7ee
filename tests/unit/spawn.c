/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * spawn.c: unit tests of common/spawn.c and common/privdrop.c with real
 * children: exit codes and signals, "did not start" against "exited
 * 127", standard input larger than a pipe alongside output larger than
 * a pipe, the exact environment, descriptors, session and signal state
 * of the child, killing a process group down to a grandchild, timeouts,
 * output caps; starts that do not wait for the exec (spawn_launch()):
 * a failure reported later through the status pipe, before or after
 * the child is reaped, and many children in flight at once.  The
 * tests wait for their children with spawnwait.h, as the daemon's loop
 * does.  Run as
 * root, it creates a throwaway user and group (removed at exit) and
 * checks the child's ids and that root cannot come back; otherwise it
 * says why it skips that part.
 */

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "../tap.h"
#include "spawnwait.h"

#define BOUND	10000		/* ms: no test child lives longer */

static char	 tmpdir[] = "/tmp/cc-spawn.XXXXXX";
static char	 helper[256];
static char	 uname_[32], gname[32];
static int	 user_made, group_made;

/*
 * Run a shadow tool (useradd, groupadd, userdel, groupdel) through the
 * shell, tried again for up to 20 s while another test holds the lock
 * on /etc/passwd or /etc/group: tests run side by side, and the tools
 * then fail at once.  What the last try said is on standard error.
 */
static int
shadow(const char *args)
{
	char	 cmd[512];

	snprintf(cmd, sizeof(cmd), "i=0; until %s 2>/tmp/cct-shadow.$$; do "
	    "grep -q lock /tmp/cct-shadow.$$ && [ $i -lt 200 ] || "
	    "{ cat /tmp/cct-shadow.$$ >&2; rm -f /tmp/cct-shadow.$$; "
	    "exit 1; }; i=$((i + 1)); sleep 0.1; done; "
	    "rm -f /tmp/cct-shadow.$$", args);
	return (system(cmd));
}

static void
cleanup(void)
{
	char	 cmd[256];

	if (user_made) {
		snprintf(cmd, sizeof(cmd), "userdel %s >/dev/null", uname_);
		if (shadow(cmd) != 0)
			fprintf(stderr, "spawn: could not remove user %s\n",
			    uname_);
		user_made = 0;
	}
	if (group_made) {
		snprintf(cmd, sizeof(cmd), "groupdel %s >/dev/null", gname);
		(void)shadow(cmd);
		group_made = 0;
	}
	if (helper[0] != '\0') {
		unlink(helper);
		helper[0] = '\0';
	}
	rmdir(tmpdir);
}

static void
onsignal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Start and run to the end; the output stays in job->sj_output. */
static int
run(const struct spawn_req *req, struct spawn_job **jobp,
    struct spawn_status *ss, struct spawn_err *err)
{
	int	 r;

	if (sw_start(req, jobp, err) == -1)
		return (-1);
	r = sw_run(*jobp, BOUND, ss);
	if (r != 0)
		diag("sw_run returned %d", r);
	return (r);
}

static const char *
out(const struct spawn_job *job)
{
	return (job->sj_output.ob_buf != NULL ? job->sj_output.ob_buf : "");
}

static void
test_exit(void)
{
	char			*argv[] = { helper, (char *)"exit", (char *)"3",
				    NULL };
	char			*env[] = { (char *)"PATH=/usr/bin:/bin", NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	char			 buf[128];

	req.sr_argv = argv;
	ok(run(&req, &job, &ss, &err) == 0, "argv job runs");
	ok(ss.ss_exited && ss.ss_code == 3, "exit status 3");
	spawn_status_str(&ss, buf, sizeof(buf));
	is_str(buf, "exit status 3", "described");
	spawn_free(job);

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "echo out; echo err >&2; exit 5";
	req.sr_env = env;
	ok(run(&req, &job, &ss, &err) == 0, "shell command runs");
	ok(ss.ss_exited && ss.ss_code == 5, "exit status 5");
	is_str(out(job), "out\nerr\n", "stdout and stderr in one stream");
	spawn_free(job);

	argv[1] = (char *)"raise";
	argv[2] = (char *)"15";
	memset(&req, 0, sizeof(req));
	req.sr_argv = argv;
	ok(run(&req, &job, &ss, &err) == 0, "job killed by a signal");
	ok(!ss.ss_exited && ss.ss_signal == SIGTERM, "signal 15 recorded");
	spawn_status_str(&ss, buf, sizeof(buf));
	snprintf(err.se_msg, sizeof(err.se_msg), "killed by signal 15 (%s)",
	    strsignal(SIGTERM));
	is_str(buf, err.se_msg, "described");
	spawn_free(job);

	/* A command the shell cannot find started: it exits 127. */
	memset(&req, 0, sizeof(req));
	req.sr_cmd = "/nonexistent/command";
	req.sr_env = env;
	ok(run(&req, &job, &ss, &err) == 0, "shell started");
	ok(ss.ss_exited && ss.ss_code == 127, "and exited 127");
	spawn_free(job);
}

static void
test_notstarted(void)
{
	char			*argv[] = { (char *)"/nonexistent/prog", NULL };
	char			*env[] = { (char *)"SHELL=/nonexistent/sh",
				    NULL };
	char			*home[] = { (char *)"HOME=/nonexistent/home",
				    NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job = (struct spawn_job *)1;
	struct spawn_err	 err;
	int			 status;

	req.sr_argv = argv;
	ok(sw_start(&req, &job, &err) == -1, "missing program: not started");
	ok(job == NULL, "no job");
	is_int(err.se_step, SPAWN_EXEC, "failed step is exec");
	is_int(err.se_errno, ENOENT, "errno ENOENT");
	is_str(err.se_msg, "exec /nonexistent/prog: No such file or directory",
	    "message");
	ok(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD,
	    "the failed child is already reaped");

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "true";
	req.sr_env = env;
	ok(sw_start(&req, &job, &err) == -1 && err.se_step == SPAWN_EXEC,
	    "SHELL from the table env, missing: not started");
	is_str(err.se_msg, "exec /nonexistent/sh: No such file or directory",
	    "message names the shell");

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "true";
	req.sr_env = home;
	ok(sw_start(&req, &job, &err) == -1 && err.se_step == SPAWN_CHDIR,
	    "HOME that does not exist: not started");
	is_str(err.se_msg, "chdir /nonexistent/home: No such file or "
	    "directory", "message");

	memset(&req, 0, sizeof(req));
	ok(sw_start(&req, &job, &err) == -1 && err.se_errno == EINVAL,
	    "no command at all");
}

static void
test_io(void)
{
	char			*argv[] = { helper, (char *)"flood",
				    (char *)"1048576", NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	char			*in, want[128];
	const char		*p;
	size_t			 n = 3 * 1024 * 1024 + 7, i;
	uint32_t		 sum = 0;

	req.sr_cmd = "cat";
	req.sr_input = "line 1\nline 2\n";
	req.sr_inputlen = strlen(req.sr_input);
	req.sr_title = "job alice 0123456789abcdef";
	ok(run(&req, &job, &ss, &err) == 0 && ss.ss_exited &&
	    ss.ss_code == 0, "cat with input");
	is_str(out(job), "line 1\nline 2\n",
	    "input delivered, nothing else in the output (title set)");
	spawn_free(job);

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "cat; echo eof";
	ok(run(&req, &job, &ss, &err) == 0, "no input");
	is_str(out(job), "eof\n", "standard input at end of file at once");
	spawn_free(job);

	/* 3 MiB in while 1 MiB comes out first: both beyond a pipe. */
	if ((in = malloc(n)) == NULL)
		exit(99);
	for (i = 0; i < n; i++) {
		in[i] = (char)(i * 7 + i / 4096);
		sum = sum * 31 + (unsigned char)in[i];
	}
	memset(&req, 0, sizeof(req));
	req.sr_argv = argv;
	req.sr_input = in;
	req.sr_inputlen = n;
	req.sr_outmax = 2 * 1024 * 1024;
	ok(run(&req, &job, &ss, &err) == 0 && ss.ss_exited &&
	    ss.ss_code == 0, "large input alongside large output");
	free(in);
	snprintf(want, sizeof(want), "\nread %zu sum %u\n", n, sum);
	ok(job->sj_output.ob_len == 1048576 + strlen(want) &&
	    strcmp(out(job) + 1048576, want) == 0,
	    "all output kept, all input read intact");
	for (i = 0, p = out(job); i < 1048576; i++)
		if (p[i] != 'a' + (int)(i % 26))
			break;
	is_int((long long)i, 1048576, "output intact");
	spawn_free(job);

	/* The job reads none of its input and exits: no hang, no SIGPIPE. */
	if ((in = calloc(1, n)) == NULL)
		exit(99);
	memset(&req, 0, sizeof(req));
	req.sr_cmd = "exit 0";
	req.sr_input = in;
	req.sr_inputlen = n;
	ok(run(&req, &job, &ss, &err) == 0 && ss.ss_exited,
	    "unread input is dropped without SIGPIPE");
	free(in);
	spawn_free(job);

	/* Output beyond the cap is counted, not kept. */
	argv[2] = (char *)"100000";
	memset(&req, 0, sizeof(req));
	req.sr_argv = argv;
	req.sr_outmax = 1000;
	ok(run(&req, &job, &ss, &err) == 0, "output beyond the cap");
	is_int((long long)job->sj_output.ob_len, 1000, "1000 bytes kept");
	is_int((long long)job->sj_output.ob_total, 100000 + 14,
	    "all counted");
	ok(outbuf_truncated(&job->sj_output), "truncated");
	is_int((long long)outbuf_head(&job->sj_output, 10, &p), 10,
	    "head of 10");
	ok(strncmp(p, "abcdefghij", 10) == 0, "head text");
	spawn_free(job);
}

static void
test_child_state(void)
{
	char			*argv[] = { helper, (char *)"env", NULL };
	char			*env[] = { (char *)"A=1",
				    (char *)"B=two words", (char *)"EMPTY=",
				    (char *)"SHELL=/bin/sh",
				    (char *)"HOME=/", NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	struct sigaction	 sa;
	sigset_t		 set, old;
	char			 want[256];
	int			 p[2], extra;

	req.sr_argv = argv;
	req.sr_env = env;
	ok(run(&req, &job, &ss, &err) == 0, "env job");
	is_str(out(job), "A=1\nB=two words\nEMPTY=\nSHELL=/bin/sh\nHOME=/\n",
	    "environment passed exactly");
	spawn_free(job);

	argv[1] = (char *)"cwd";
	ok(run(&req, &job, &ss, &err) == 0, "cwd job");
	is_str(out(job), "/\n", "working directory from HOME");
	spawn_free(job);
	req.sr_dir = tmpdir;
	ok(run(&req, &job, &ss, &err) == 0, "cwd job with sr_dir");
	snprintf(want, sizeof(want), "%s\n", tmpdir);
	is_str(out(job), want, "working directory sr_dir");
	spawn_free(job);
	req.sr_dir = NULL;

	/* Descriptors the parent leaves open without close-on-exec. */
	if (pipe(p) == -1 || (extra = open("/dev/null", O_RDONLY)) == -1)
		exit(99);
	argv[1] = (char *)"fds";
	ok(run(&req, &job, &ss, &err) == 0, "fds job");
	is_str(out(job), "fds 0 1 2\n", "only 0, 1 and 2 open in the child");
	spawn_free(job);
	close(p[0]);
	close(p[1]);
	close(extra);

	/* With 0-2 closed in the parent, the pipes land there. */
	extra = dup(STDIN_FILENO);
	close(STDIN_FILENO);
	req.sr_cmd = "cat";
	req.sr_argv = NULL;
	req.sr_input = "x";
	req.sr_inputlen = 1;
	ok(run(&req, &job, &ss, &err) == 0, "parent without stdin");
	is_str(out(job), "x", "input still wired");
	spawn_free(job);
	dup2(extra, STDIN_FILENO);
	close(extra);
	req.sr_cmd = NULL;
	req.sr_argv = argv;
	req.sr_input = NULL;
	req.sr_inputlen = 0;

	argv[1] = (char *)"session";
	ok(run(&req, &job, &ss, &err) == 0, "session job");
	is_str(out(job), "sid self pgid self\n",
	    "own session and process group");
	spawn_free(job);

	/* An ignored signal and a blocked one must not reach the job. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &old);
	argv[1] = (char *)"signals";
	ok(run(&req, &job, &ss, &err) == 0, "signals job");
	is_str(out(job), "SigBlk:\t0000000000000000\n"
	    "SigIgn:\t0000000000000000\n",
	    "no signal blocked or ignored in the child");
	spawn_free(job);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGRTMIN, &sa, NULL);
}

static void
test_kill(void)
{
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	struct pollfd		 pfd[2];
	int64_t			 deadline;
	pid_t			 gpid;
	int			 n, status;
	const char		*errstr;
	char			 num[32];

	/* Orphaned grandchildren come back to us, so we can reap them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		diag("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));

	req.sr_cmd = "sleep 60 & echo $!; wait";
	if (sw_start(&req, &job, &err) == -1) {
		ok(0, "grandchild job: %s", err.se_msg);
		return;
	}
	deadline = clock_mono() + BOUND;
	while (clock_mono() < deadline) {
		if (spawn_io(job) != 0 || strchr(out(job), '\n') != NULL)
			break;
		n = spawn_pollfds(job, pfd);
		poll(pfd, (nfds_t)n, (int)(deadline - clock_mono()));
	}
	strlcpy(num, out(job), sizeof(num));
	num[strcspn(num, "\n")] = '\0';
	gpid = (pid_t)strtonum(num, 2, INT32_MAX, &errstr);
	ok(errstr == NULL, "grandchild pid %s", num);
	ok(spawn_kill(job, SIGKILL) == 0, "kill the process group");
	is_int(sw_run(job, BOUND, &ss), 0, "job ends");
	ok(!ss.ss_exited && ss.ss_signal == SIGKILL, "shell killed");
	if (errstr == NULL) {
		ok(waitpid(gpid, &status, 0) == gpid && WIFSIGNALED(status) &&
		    WTERMSIG(status) == SIGKILL, "grandchild killed too");
	} else
		ok(0, "grandchild killed too");
	spawn_free(job);

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "echo started; exec sleep 60";
	if (sw_start(&req, &job, &err) == -1) {
		ok(0, "timeout job: %s", err.se_msg);
		return;
	}
	is_int(sw_run(job, 300, &ss), 1, "the run times out");
	ok(!ss.ss_exited && ss.ss_signal == SIGKILL, "and kills the job");
	is_str(out(job), "started\n", "output before the kill kept");
	ok(spawn_kill(job, 0) == -1, "group gone");
	spawn_free(job);
}

#define NFLIGHT	64

static void
test_launch(void)
{
	char			*argv[] = { (char *)"/nonexistent/prog",
				    NULL };
	char			*home[] = { (char *)"HOME=/nonexistent/home",
				    NULL };
	char			*cat[] = { (char *)"/bin/cat", NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job = NULL, *jobs[NFLIGHT];
	struct spawn_status	 ss;
	struct spawn_err	 err;
	struct pollfd		 pfd[NFLIGHT];
	int64_t			 deadline;
	size_t			 len;
	char			 in[NFLIGHT][32];
	int			 i, n, r, left, alive, same, status;

	/* An exec that fails is reported later, through the pipe. */
	req.sr_argv = argv;
	ok(spawn_launch(&req, &job, &err) == 0 && job != NULL,
	    "missing program: launched");
	if (job == NULL)
		return;
	n = spawn_pollfds(job, pfd);
	ok(n >= 1 && n <= SPAWN_NPOLLFD, "status pipe among the descriptors");
	is_int(sw_settle(job, clock_mono() + BOUND, &err), -1, "then reported as not started");
	is_int(err.se_step, SPAWN_EXEC, "failed step is exec");
	is_int(err.se_errno, ENOENT, "errno ENOENT");
	is_str(err.se_msg, "exec /nonexistent/prog: No such file or directory",
	    "message as from a start that waits");
	memset(&err, 0, sizeof(err));
	ok(spawn_started(job, &err) == -1 && err.se_step == SPAWN_EXEC,
	    "asked again: the same answer");
	is_int(sw_reap(job, 1, &ss), 1, "the child is left to reap");
	ok(!ss.ss_exited || ss.ss_code == 127, "and it is gone");
	spawn_free(job);

	/* Reaped before anyone read the pipe: the pipe still tells. */
	memset(&req, 0, sizeof(req));
	req.sr_cmd = "true";
	req.sr_env = home;
	ok(spawn_launch(&req, &job, &err) == 0, "bad HOME: launched");
	ok(waitpid(job->sj_pid, &status, 0) == job->sj_pid,
	    "reaped by the caller");
	spawn_exited(job, status);
	ok(spawn_started(job, &err) == -1 && err.se_step == SPAWN_CHDIR,
	    "then reported as not started (chdir)");
	spawn_free(job);

	memset(&req, 0, sizeof(req));
	req.sr_cmd = "exit 127";
	ok(spawn_launch(&req, &job, &err) == 0, "exit 127: launched");
	ok(waitpid(job->sj_pid, &status, 0) == job->sj_pid,
	    "reaped by the caller");
	spawn_exited(job, status);
	is_int(spawn_started(job, &err), 1, "it started");
	ok(sw_reap(job, 0, &ss) == 1 && ss.ss_exited && ss.ss_code == 127,
	    "and exited 127");
	spawn_free(job);

	/* A run waits for the start itself. */
	memset(&req, 0, sizeof(req));
	req.sr_cmd = "echo hi";
	ok(spawn_launch(&req, &job, &err) == 0 &&
	    sw_run(job, BOUND, &ss) == 0 && ss.ss_exited &&
	    ss.ss_code == 0, "a launched job run to its end");
	is_str(job != NULL ? out(job) : "", "hi\n", "its output");
	spawn_free(job);
	memset(&req, 0, sizeof(req));
	req.sr_argv = argv;
	ok(spawn_launch(&req, &job, &err) == 0 &&
	    sw_run(job, BOUND, &ss) == -1 && job->sj_reaped,
	    "a launch that fails: -1, reaped");
	spawn_free(job);

	/* Killed before its start is settled: the child itself dies. */
	memset(&req, 0, sizeof(req));
	req.sr_cmd = "exec sleep 60";
	ok(spawn_launch(&req, &job, &err) == 0, "sleep: launched");
	is_int(spawn_kill(job, SIGKILL), 0, "killed at once");
	ok(sw_reap(job, 1, &ss) == 1 && !ss.ss_exited &&
	    ss.ss_signal == SIGKILL, "by SIGKILL");
	spawn_free(job);

	/*
	 * Many in flight: each job is cat, which blocks on its input
	 * until spawn_io() writes it, so all of them have exec'd and are
	 * alive at once before any input goes out.
	 */
	memset(&req, 0, sizeof(req));
	req.sr_argv = cat;
	for (i = 0; i < NFLIGHT; i++) {
		snprintf(in[i], sizeof(in[i]), "job %d\n", i);
		req.sr_input = in[i];
		req.sr_inputlen = strlen(in[i]);
		jobs[i] = NULL;
		if (spawn_launch(&req, &jobs[i], &err) == -1)
			break;
	}
	is_int(i, NFLIGHT, "%d launched without waiting", NFLIGHT);
	n = i;
	deadline = clock_mono() + BOUND;
	left = n;
	while (left > 0 && clock_mono() < deadline) {
		for (i = 0, left = 0; i < n; i++) {
			if ((r = spawn_started(jobs[i], &err)) == -1)
				diag("job %d: %s", i, err.se_msg);
			if (r != 0)
				continue;
			pfd[left].fd = jobs[i]->sj_st;
			pfd[left].events = POLLIN;
			left++;
		}
		if (left > 0)
			poll(pfd, (nfds_t)left,
			    (int)(deadline - clock_mono()));
	}
	for (i = 0, same = 0, alive = 0; i < n; i++) {
		if (jobs[i]->sj_started == 1)
			same++;
		if (waitpid(jobs[i]->sj_pid, &status, WNOHANG) == 0)
			alive++;
	}
	is_int(same, n, "all started");
	is_int(alive, n, "all alive together");
	for (i = 0, same = 0; i < n; i++) {
		len = strlen(in[i]);
		if (sw_run(jobs[i], BOUND, &ss) == 0 && ss.ss_exited &&
		    ss.ss_code == 0 && jobs[i]->sj_output.ob_len == len &&
		    memcmp(out(jobs[i]), in[i], len) == 0)
			same++;
		spawn_free(jobs[i]);
	}
	is_int(same, n, "each got its input back and exited 0");
}

static int
gidcmp(const void *a, const void *b)
{
	gid_t	 x = *(const gid_t *)a, y = *(const gid_t *)b;

	return (x < y ? -1 : x > y);
}

static void
test_user(void)
{
	char			*argv[] = { helper, (char *)"ids", NULL };
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	struct passwd		*pw, upw, rootpw, bad;
	struct group		*gr;
	enum privdrop_step	 step;
	gid_t			 g[2];
	char			 want[512], closed[300], ebuf[256], cmd[256];
	pid_t			 pid;
	int			 status;

	if (geteuid() != 0) {
		tap_skip("user switching needs root (not root here)");
		return;
	}
	snprintf(uname_, sizeof(uname_), "cct%ld", (long)getpid());
	snprintf(gname, sizeof(gname), "cctg%ld", (long)getpid());
	snprintf(cmd, sizeof(cmd), "groupadd %s >/dev/null", gname);
	if (shadow(cmd) != 0) {
		tap_skip("groupadd failed: cannot create a test group");
		return;
	}
	group_made = 1;
	snprintf(cmd, sizeof(cmd), "useradd -M -N -G %s -d /nonexistent "
	    "-s /bin/sh %s >/dev/null", gname, uname_);
	if (shadow(cmd) != 0) {
		tap_skip("useradd failed: cannot create a test user");
		return;
	}
	user_made = 1;
	if ((pw = getpwnam(uname_)) == NULL || (gr = getgrnam(gname)) == NULL) {
		ok(0, "test user %s readable", uname_);
		return;
	}
	upw = *pw;
	upw.pw_name = uname_;
	upw.pw_dir = (char *)"/nonexistent";
	g[0] = upw.pw_gid;
	g[1] = gr->gr_gid;
	qsort(g, 2, sizeof(g[0]), gidcmp);

	req.sr_argv = argv;
	req.sr_pw = &upw;
	req.sr_dir = "/";
	ok(run(&req, &job, &ss, &err) == 0 && ss.ss_exited &&
	    ss.ss_code == 0, "job as %s", uname_);
	snprintf(want, sizeof(want), "uid %u %u %u\ngid %u %u %u\n"
	    "groups %u %u\nsetuid0 failed\nsetgid0 failed\n",
	    upw.pw_uid, upw.pw_uid, upw.pw_uid, upw.pw_gid, upw.pw_gid,
	    upw.pw_gid, g[0], g[1]);
	is_str(out(job), want, "real, effective, saved ids and groups "
	    "are the user's; root cannot come back");
	spawn_free(job);

	/* The user's home that the user cannot enter. */
	snprintf(closed, sizeof(closed), "%s/closed", tmpdir);
	mkdir(closed, 0700);
	req.sr_dir = closed;
	ok(sw_start(&req, &job, &err) == -1 && err.se_step == SPAWN_CHDIR &&
	    err.se_errno == EACCES, "home the user cannot enter: not started");
	rmdir(closed);

	/* Each step checked: a gid, then a uid, the kernel refuses. */
	bad = upw;
	bad.pw_gid = (gid_t)-1;
	req.sr_pw = &bad;
	req.sr_dir = "/";
	ok(sw_start(&req, &job, &err) == -1 &&
	    err.se_step == SPAWN_PRIVDROP &&
	    err.se_privstep == PRIVDROP_SETGID && err.se_errno == EINVAL,
	    "setgid refused: not started");
	snprintf(want, sizeof(want), "becoming %s: setgid: %s", uname_,
	    strerror(EINVAL));
	is_str(err.se_msg, want, "its message");
	bad = upw;
	bad.pw_uid = (uid_t)-1;
	ok(sw_start(&req, &job, &err) == -1 &&
	    err.se_step == SPAWN_PRIVDROP &&
	    err.se_privstep == PRIVDROP_SETUID && err.se_errno == EINVAL,
	    "setuid refused: not started");
	req.sr_pw = &upw;

	/* From the user, another identity is refused. */
	if ((pw = getpwuid(0)) == NULL)
		exit(99);
	rootpw = *pw;
	rootpw.pw_name = (char *)"root";
	if ((pid = fork()) == 0) {
		if (privdrop(&upw, &step, ebuf, sizeof(ebuf)) == -1)
			_exit(10);
		if (privdrop(&upw, &step, ebuf, sizeof(ebuf)) == -1)
			_exit(11);
		if (privdrop(&rootpw, &step, ebuf, sizeof(ebuf)) != -1 ||
		    step != PRIVDROP_NOTROOT || errno != EPERM ||
		    strcmp(ebuf, "not running as root, cannot become root: "
		    "Operation not permitted") != 0)
			_exit(12);
		req.sr_pw = &rootpw;
		req.sr_dir = "/";
		if (sw_start(&req, &job, &err) != -1 ||
		    err.se_step != SPAWN_PRIVDROP ||
		    err.se_privstep != PRIVDROP_NOTROOT)
			_exit(13);
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	    "privdrop child ran");
	is_int(WEXITSTATUS(status), 0, "as the user: becoming oneself is a "
	    "no-op, becoming root fails with PRIVDROP_NOTROOT, in spawn too");
}

/* spawn_plain(cmd) as one string: words between <>, or "shell". */
static void
plain_is(const char *cmd, const char *want)
{
	char	**w, got[512];
	size_t	 i;

	got[0] = '\0';
	if ((w = spawn_plain(cmd)) == NULL)
		strlcpy(got, "shell", sizeof(got));
	for (i = 0; w != NULL && w[i] != NULL; i++) {
		strlcat(got, "<", sizeof(got));
		strlcat(got, w[i], sizeof(got));
		strlcat(got, ">", sizeof(got));
	}
	free(w);
	is_str(got, want, "%s", cmd);
}

/* Run cmd in env; its output, or "" (the caller frees it). */
static char *
plain_run(const char *cmd, char **env, int *plain, int *code)
{
	struct spawn_req	 req = { 0 };
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	char			*o;

	req.sr_cmd = cmd;
	req.sr_env = env;
	*plain = -1;
	*code = -1;
	if (run(&req, &job, &ss, &err) != 0)
		return (xstrdup(""));
	*plain = job->sj_plain;
	*code = ss.ss_exited ? ss.ss_code : -1;
	o = xstrdup(out(job));
	spawn_free(job);
	return (o);
}

/*
 * The same job exec'd directly and through /bin/sh (its path in quotes,
 * which the shell alone takes off) sees the same arguments,
 * environment and directory.
 */
static void
plain_same(const char *args, char **env, int plain, const char *what)
{
	char	 direct[512], quoted[512], *a, *b;
	int	 pa, pb, ca, cb;

	snprintf(direct, sizeof(direct), "%s %s", helper, args);
	snprintf(quoted, sizeof(quoted), "'%s' %s", helper, args);
	a = plain_run(direct, env, &pa, &ca);
	b = plain_run(quoted, env, &pb, &cb);
	is_int(pa, plain, "%s: %s", what, plain ? "no shell" : "the shell");
	is_int(pb, 0, "%s: quoted, the shell", what);
	ok(ca == 0 && cb == 0 && *a != '\0', "%s: both ran", what);
	is_str(a, b, "%s: the job sees what it would under the shell", what);
	free(a);
	free(b);
}

static void
test_plain(void)
{
	char	 real[300], link_[300], script[300], home[320], pwd[320];
	char	 cmd[320], want[320], *o;
	char	*env[8] = { (char *)"A=1", (char *)"B=two words",
		    (char *)"SHELL=/bin/sh", home, NULL, NULL };
	char	*bad[] = { (char *)"X-Y=1", (char *)"HOME=/", NULL };
	char	*twice[] = { (char *)"A=1", (char *)"A=2", (char *)"HOME=/",
		    NULL };
	char	*ppid[] = { (char *)"PPID=1", (char *)"OPTIND=7",
		    (char *)"IFS=:", (char *)"HOME=/", NULL };
	char	*bash[] = { (char *)"SHELL=/bin/bash", (char *)"HOME=/",
		    NULL };
	int	 plain, code, fd;
	static const char *const shellish[] = { "$HOME", "*", "a;b", "'a'",
		"\"a\"", "a\\ b", "a|b", "a&", ">x", "<x", "~", "#c", "`x`",
		"(x)", "{a,b}", "[ab]", "a?", "!x", "a\nb", "^x", "\303\251" };
	size_t	 i;

	plain_is("/usr/bin/backup --full", "</usr/bin/backup><--full>");
	plain_is("  exec\t./run.sh a=b x,y:z@h%+1  ",
	    "<./run.sh><a=b><x,y:z@h%+1>");
	plain_is("backup --full", "shell");
	plain_is("exec backup", "shell");
	plain_is("exec", "shell");
	plain_is("", "shell");
	plain_is(" \t ", "shell");
	plain_is("A=/x /bin/true", "shell");
	plain_is("/bin/a=b", "shell");
	for (i = 0; i < sizeof(shellish) / sizeof(shellish[0]); i++) {
		snprintf(cmd, sizeof(cmd), "/bin/echo %s", shellish[i]);
		plain_is(cmd, "shell");
	}

	/* HOME through a symbolic link: PWD is its physical name. */
	snprintf(real, sizeof(real), "%s/real", tmpdir);
	snprintf(link_, sizeof(link_), "%s/link", tmpdir);
	snprintf(script, sizeof(script), "%s/noshebang", tmpdir);
	if (mkdir(real, 0755) == -1 || symlink(real, link_) == -1)
		exit(99);
	snprintf(home, sizeof(home), "HOME=%s", link_);
	plain_same("envsort", env, 1, "HOME a link, no PWD");
	plain_same("cwd", env, 1, "HOME a link, directory");
	snprintf(pwd, sizeof(pwd), "PWD=%s", link_);
	env[4] = pwd;
	plain_same("envsort", env, 1, "PWD naming the directory");
	env[4] = (char *)"PWD=/";
	plain_same("envsort", env, 1, "PWD naming another directory");
	env[4] = NULL;
	plain_same("args a  b=c\td,e x%y", env, 1, "arguments");
	snprintf(cmd, sizeof(cmd), "%s args a  b=c\td,e x%%y", helper);
	o = plain_run(cmd, env, &plain, &code);
	snprintf(want, sizeof(want), "<%s><args><a><b=c><d,e><x%%y>\n", helper);
	is_str(o, want, "arguments split at blanks only");
	free(o);
	plain_same("envsort", bad, 0, "a variable the shell drops");
	plain_same("envsort", twice, 0, "a variable twice");
	plain_same("envsort", ppid, 0, "variables the shell sets itself");
	if (access("/bin/bash", X_OK) == 0)
		plain_same("envsort", bash, 0, "SHELL other than /bin/sh");
	else
		tap_skip("SHELL other than /bin/sh: no /bin/bash");

	/* What the direct exec cannot do, the shell does as ever. */
	if ((fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755)) == -1 ||
	    write(fd, "echo script ran\n", 16) != 16 || close(fd) == -1)
		exit(99);
	o = plain_run(script, env, &plain, &code);
	ok(plain == 1 && code == 0, "a script without #!: tried directly");
	is_str(o, "script ran\n", "and run by the shell");
	free(o);
	o = plain_run("/nonexistent/command", env, &plain, &code);
	ok(plain == 1 && code == 127, "a missing program: exit status 127");
	ok(strstr(o, "/nonexistent/command: not found") != NULL,
	    "the shell's message: %s", o);
	free(o);
	unlink(script);
	unlink(link_);
	rmdir(real);
}

/*
 * A start deadline (sr_until): a child that reaches its execve() at or
 * after it runs nothing and says so; one before it runs as usual.  The
 * commands would leave a file behind had they run.
 */
static void
test_until(void)
{
	char			*env[] = { (char *)"PATH=/usr/bin:/bin", NULL };
	char			 mark[300], cmd[400];
	const char		*how[] = { "plain", "shell" };
	struct spawn_req	 req;
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 err;
	struct stat		 sb;
	int			 i;

	snprintf(mark, sizeof(mark), "%s/until", tmpdir);
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), i == 0 ? "/usr/bin/touch %s" :
		    "touch %s && true", mark);
		memset(&req, 0, sizeof(req));
		req.sr_cmd = cmd;
		req.sr_env = env;
		req.sr_until = clock_mono();
		ok(sw_start(&req, &job, &err) == -1, "%s command past its "
		    "deadline: not started", how[i]);
		is_int(err.se_step, SPAWN_LATE, "failed step is the deadline");
		is_str(err.se_msg, "start deadline: Timer expired", "message");
		ok(stat(mark, &sb) == -1 && errno == ENOENT, "it ran nothing");

		req.sr_until = clock_mono() + BOUND;
		ok(run(&req, &job, &ss, &err) == 0 && ss.ss_exited &&
		    ss.ss_code == 0, "%s command before its deadline runs",
		    how[i]);
		spawn_free(job);
		ok(stat(mark, &sb) == 0, "and did its work");
		unlink(mark);
	}
}

/* spawn_alive(): a live pid, a pid gone, a pid taken by a later process. */
static void
test_alive(void)
{
	pid_t	 pid;
	int	 status;

	ok(spawn_alive(getpid(), 0), "this process lives");
	ok(spawn_alive(getpid(), clock_now_ms()),
	    "and started before now");
	ok(!spawn_alive(getpid(), 946684800000LL),
	    "but not before 2000: a run started then had another pid");
	ok(spawn_alive(1, 0), "pid 1 lives");
	if ((pid = fork()) == 0)
		_exit(0);
	ok(pid > 0 && waitpid(pid, &status, 0) == pid, "a child reaped");
	ok(!spawn_alive(pid, 0), "its pid is gone");
	ok(!spawn_alive(0, 0) && !spawn_alive(-1, 0), "no pid at all");
}

int
main(void)
{
	const char	*top;
	char		 src[512];
	char		*buf;
	size_t		 len;
	int		 fd;

	signal(SIGINT, onsignal);
	signal(SIGTERM, onsignal);
	signal(SIGHUP, onsignal);
	signal(SIGABRT, onsignal);
	signal(SIGSEGV, onsignal);
	if (mkdtemp(tmpdir) == NULL || chmod(tmpdir, 0755) == -1) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return (99);
	}
	atexit(cleanup);

	/* A copy of the helper that any user can run. */
	if ((top = getenv("top_builddir")) == NULL)
		top = ".";
	snprintf(src, sizeof(src), "%s/tests/unit/spawnhelper", top);
	snprintf(helper, sizeof(helper), "%s/spawnhelper", tmpdir);
	if (file_read(src, 64 << 20, &buf, &len) == -1 ||
	    (fd = open(helper, O_WRONLY | O_CREAT | O_EXCL, 0755)) == -1 ||
	    write(fd, buf, len) != (ssize_t)len || close(fd) == -1) {
		printf("Bail out! %s: %s\n", src, strerror(errno));
		return (99);
	}
	free(buf);

	test_exit();
	test_notstarted();
	test_io();
	test_child_state();
	test_kill();
	test_alive();
	test_launch();
	test_plain();
	test_until();
	test_user();
	return (tap_done());
}
