/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * forkrate.c: for latency.sh, the machine's ceiling of job starts in
 * the same run: how many fork() + execv() + waitpid() of a program
 * (stamp, writing to /dev/null) it completes in a given time, with as
 * many children at once as it has processors.  A daemon cannot start a
 * burst faster than this; latency.sh sets the burst's rate beside it.
 *
 *	forkrate SECONDS PROGRAM [ARG ...]
 *
 * Prints "fork ceiling: R starts/s (N in S s, P at once)".
 */

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec + ts.tv_nsec / 1e9);
}

static int
start(char **argv)
{
	pid_t	 pid;

	if ((pid = fork()) == -1)
		return (-1);
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return (0);
}

int
main(int argc, char **argv)
{
	double	 secs, t0, t;
	long	 par, running = 0, done = 0;
	int	 status;

	if (argc < 3 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: forkrate SECONDS PROGRAM [ARG ...]\n");
		return (2);
	}
	if ((par = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		par = 1;
	t0 = now();
	for (;;) {
		t = now() - t0;
		while (t < secs && running < par) {
			if (start(argv + 2) == -1) {
				perror("fork");
				return (1);
			}
			running++;
		}
		if (running == 0)
			break;
		if (wait(&status) == -1) {
			perror("wait");
			return (1);
		}
		running--;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "forkrate: %s failed\n", argv[2]);
			return (1);
		}
		done++;
	}
	t = now() - t0;
	printf("fork ceiling: %.0f starts/s (%ld in %.2f s, %ld at once)\n",
	    done / t, done, t, par);
	return (0);
}
