/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * spawnhelper.c: a job for tests/unit/spawn.c to start.  It reports
 * what a job sees: its descriptors, ids, session, signal state,
 * environment, directory; or floods its output before reading its
 * input, to show that the parent cannot deadlock.
 *
 *	spawnhelper fds | ids | session | signals | env | cwd
 *	spawnhelper envsort | args ARG...
 *	spawnhelper flood BYTES
 *	spawnhelper exit CODE | raise SIGNAL
 */

#include <sys/types.h>

#include <dirent.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char	**environ;

static int
cmpint(const void *a, const void *b)
{
	return (*(const int *)a - *(const int *)b);
}

static int
cmpstr(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static int
fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 fd[256], n = 0, i;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return (1);
	while ((de = readdir(d)) != NULL && n < 256) {
		if (de->d_name[0] == '.')
			continue;
		fd[n] = atoi(de->d_name);
		if (fd[n] != dirfd(d))
			n++;
	}
	closedir(d);
	qsort(fd, (size_t)n, sizeof(fd[0]), cmpint);
	printf("fds");
	for (i = 0; i < n; i++)
		printf(" %d", fd[i]);
	printf("\n");
	return (0);
}

static int
ids(void)
{
	uid_t	 r, e, s;
	gid_t	 rg, eg, sg, g[NGROUPS_MAX];
	int	 n, i;

	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	printf("uid %u %u %u\n", r, e, s);
	printf("gid %u %u %u\n", rg, eg, sg);
	n = getgroups(NGROUPS_MAX, g);
	printf("groups");
	for (i = 0; i < n; i++)
		printf(" %u", g[i]);
	printf("\n");
	printf("setuid0 %s\n", setuid(0) == 0 ? "succeeded" : "failed");
	printf("setgid0 %s\n", setgid(0) == 0 ? "succeeded" : "failed");
	return (0);
}

static int
signals(void)
{
	FILE	*f;
	char	 line[256];

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return (1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "SigBlk:", 7) == 0 ||
		    strncmp(line, "SigIgn:", 7) == 0)
			fputs(line, stdout);
	fclose(f);
	return (0);
}

/* Write n bytes first, then read all input: a deadlock if done wrong. */
static int
flood(long n)
{
	char		 buf[8192];
	uint32_t	 sum = 0;
	size_t		 k, total = 0;
	ssize_t		 r;
	long		 i;

	for (i = 0; i < n; i++)
		putchar('a' + (int)(i % 26));
	fflush(stdout);
	while ((r = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
		for (k = 0; k < (size_t)r; k++)
			sum = sum * 31 + (unsigned char)buf[k];
		total += (size_t)r;
	}
	printf("\nread %zu sum %u\n", total, sum);
	return (0);
}

int
main(int argc, char *argv[])
{
	char	 buf[PATH_MAX];
	char	**e;
	size_t	 n;

	if (argc < 2)
		return (2);
	if (strcmp(argv[1], "fds") == 0)
		return (fds());
	if (strcmp(argv[1], "ids") == 0)
		return (ids());
	if (strcmp(argv[1], "session") == 0) {
		printf("sid %s pgid %s\n",
		    getsid(0) == getpid() ? "self" : "other",
		    getpgrp() == getpid() ? "self" : "other");
		return (0);
	}
	if (strcmp(argv[1], "signals") == 0)
		return (signals());
	if (strcmp(argv[1], "env") == 0) {
		for (e = environ; *e != NULL; e++)
			printf("%s\n", *e);
		return (0);
	}
	if (strcmp(argv[1], "envsort") == 0) {
		for (n = 0; environ[n] != NULL; n++)
			;
		qsort(environ, n, sizeof(*environ), cmpstr);
		for (e = environ; *e != NULL; e++)
			printf("%s\n", *e);
		return (0);
	}
	if (strcmp(argv[1], "args") == 0) {
		for (n = 0; n < (size_t)argc; n++)
			printf("<%s>", argv[n]);
		printf("\n");
		return (0);
	}
	if (strcmp(argv[1], "cwd") == 0) {
		if (getcwd(buf, sizeof(buf)) == NULL)
			return (1);
		printf("%s\n", buf);
		return (0);
	}
	if (strcmp(argv[1], "flood") == 0 && argc > 2)
		return (flood(atol(argv[2])));
	if (strcmp(argv[1], "exit") == 0 && argc > 2)
		return (atoi(argv[2]));
	if (strcmp(argv[1], "raise") == 0 && argc > 2) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return (3);
	}
	return (2);
}
