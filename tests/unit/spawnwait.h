/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * spawnwait.h: the unit tests' own small loop around common/spawn's
 * calls, which never wait: settle a start on the status pipe, pump the
 * output, reap with waitpid() and hand the status over, each bounded,
 * as the daemon's loop does it for many children at once.  Static
 * functions, for the tests that start children (spawn.c, mail.c).
 */

#ifndef SPAWNWAIT_H
#define SPAWNWAIT_H

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>

#include "common.h"

/*
 * Poll a launched job until its start is settled or the monotonic
 * instant deadline passes.  Returns what spawn_started() returned last.
 */
static int __attribute__((__unused__))
sw_settle(struct spawn_job *job, int64_t deadline, struct spawn_err *err)
{
	struct pollfd	 pfd;
	int64_t		 left;
	int		 r;

	while ((r = spawn_started(job, err)) == 0) {
		if ((left = deadline - clock_mono()) <= 0)
			break;
		if (job->sj_startby - clock_mono() < left)
			left = job->sj_startby - clock_mono();
		pfd.fd = job->sj_st;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, left > 0 ? (int)left : 0);
	}
	return (r);
}

/*
 * Reap the job's process: with block, wait for it; otherwise only look.
 * Returns 1 once reaped (*ss filled when not NULL), 0 while it runs, -1
 * on error.
 */
static int __attribute__((__unused__))
sw_reap(struct spawn_job *job, int block, struct spawn_status *ss)
{
	pid_t	 pid;
	int	 status;

	if (!job->sj_reaped) {
		do
			pid = waitpid(job->sj_pid, &status,
			    block ? 0 : WNOHANG);
		while (pid == -1 && errno == EINTR);
		if (pid == -1)
			return (-1);
		if (pid == 0)
			return (0);
		spawn_exited(job, status);
	}
	if (ss != NULL)
		spawn_status_decode(job->sj_wstatus, ss);
	return (1);
}

/*
 * Launch and wait for the start.  Returns 0 once the child has exec'd,
 * with the job in *jobp; -1 with *jobp NULL, err filled and the child
 * reaped when it did not start.
 */
static int __attribute__((__unused__))
sw_start(const struct spawn_req *req, struct spawn_job **jobp,
    struct spawn_err *err)
{
	struct spawn_job	*job;
	int			 saved;

	if (spawn_launch(req, jobp, err) == -1)
		return (-1);
	job = *jobp;
	if (sw_settle(job, job->sj_startby, err) == 1)
		return (0);
	saved = job->sj_errno;
	(void)sw_reap(job, 1, NULL);
	spawn_free(job);
	*jobp = NULL;
	errno = saved;
	return (-1);
}

/*
 * Run a launched job to its end within ms milliseconds: its start, its
 * input and output, its exit.  Returns 0 when it ended, 1 when the time
 * ran out and its group was killed (and reaped), -1 when it did not
 * start (reaped) or on error; *ss says how it ended.
 */
static int __attribute__((__unused__))
sw_run(struct spawn_job *job, int64_t ms, struct spawn_status *ss)
{
	struct pollfd	 pfd[SPAWN_NPOLLFD];
	int64_t		 deadline, left;
	int		 n, r, timedout = 0;

	deadline = clock_mono() + ms;
	if ((r = sw_settle(job, deadline, NULL)) == -1) {
		(void)sw_reap(job, 1, ss);
		errno = job->sj_errno;
		return (-1);
	}
	if (r == 0)
		timedout = 1;
	while (!timedout && (r = spawn_io(job)) == 0) {
		if ((left = deadline - clock_mono()) <= 0)
			timedout = 1;
		else {
			n = spawn_pollfds(job, pfd);
			if (poll(pfd, (nfds_t)n, (int)left) == -1 &&
			    errno != EINTR)
				return (-1);
		}
	}
	if (r == -1)
		return (-1);
	while (!timedout && (r = sw_reap(job, 0, ss)) == 0) {
		if (deadline - clock_mono() <= 0)
			timedout = 1;
		else	/* Nothing to poll for an exit: look again soon. */
			(void)poll(NULL, 0, 10);
	}
	if (!timedout)
		return (r == 1 ? 0 : -1);
	(void)spawn_kill(job, SIGKILL);
	r = sw_reap(job, 1, ss);
	/* What is in the pipe already is kept. */
	if (job->sj_out != -1)
		(void)spawn_io(job);
	return (r == 1 ? 1 : -1);
}

#endif /* SPAWNWAIT_H */
