/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * main.c: clustercron with an admin verb runs the verb; without one (no
 * argument, or options only) it is the daemon (daemon.c).
 */

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustercron.h"
#include "common.h"
#include "pathnames.h"

static const struct verb verbs[] = {
	{ "next", verb_next,
	    "next [-S] [-n count] [-z tz] [-f 'YYYY-MM-DD HH:MM[:SS]'] expr",
	    "the next fire instants of a schedule" },
	{ "attime", verb_attime,
	    "attime [-z tz] [-f 'YYYY-MM-DD HH:MM[:SS]'] "
	    "-t [[CC]YY]MMDDhhmm[.SS] | timespec ...",
	    "the instant an at(1) time names" },
	{ "status", verb_status, "status [--json] [-c file]",
	    "the nodes, their heartbeats and the runs in flight" },
	{ "jobs", verb_jobs, "jobs [--json] [-c file] [-u owner]",
	    "the jobs with their next and last fires" },
	{ "history", verb_history,
	    "history [--json] [-c file] [-n count] [job]",
	    "the recorded runs" },
	{ "drain", verb_drain, "drain [-c file] node",
	    "a node stops claiming cluster jobs" },
	{ "pause", verb_pause, "pause [-c file] job",
	    "a job stops firing on every node" },
	{ "resume", verb_resume,
	    "resume [-c file] [--node | --job] node | job",
	    "undo drain or pause" },
};

/*
 * The daemon's options, as clustercron(8) lists them.  The letters are
 * those of Debian's cron and cronie's crond, with their meaning.
 */
static const char *const daemon_help[] = {
	"-c file", "read the configuration from file (default "
	    PATH_CONF ")",
	"-d", "log debugging messages too",
	"-f", "stay in the foreground, logging to standard error",
	"-h, --help", "print this help and exit",
	"-i", "do not watch the tables with inotify; look every "
	    "table-check-interval",
	"-L level", "log job lines by level, a sum of 1 start, 2 end, "
	    "4 failure, 8 pid, 16 claims (default 1)",
	"-l", "read the LSB's names in cron.d, as Debian's cron -l does",
	"-m mailer", "mail jobs' output with mailer (an absolute path), or "
	    "off: none",
	"-n", "the host's full name in mail subjects",
	"-N node", "this node's name, instead of the node key",
	"-P", "jobs inherit the daemon's PATH where tables set none",
	"-p", "run tables whatever their owner and mode",
	"-s", "log jobs' output (CMDOUT) instead of mailing it",
	"-V, --version", "print the version and exit",
	"-x flags", "debugging: any of ext,sch,proc,pars,load,misc,bit "
	    "(as -d)",
};

void
usage_print(int help)
{
	FILE	*fp = help ? stdout : stderr;
	size_t	 i;

	fprintf(fp, "usage: %s [-dfilnPpsV] [-c file] [-L level] [-m mailer] "
	    "[-N node] [-x flags]\n", getprogname());
	fprintf(fp, "       %s -h | --help | --version\n", getprogname());
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(fp, "       %s %s\n", getprogname(),
		    verbs[i].v_usage);
	if (!help)
		return;
	fprintf(fp, "\nWithout a verb, the cron daemon:\n");
	for (i = 0; i + 1 < sizeof(daemon_help) / sizeof(daemon_help[0]);
	    i += 2)
		fprintf(fp, "  %-14s %s\n", daemon_help[i], daemon_help[i + 1]);
	fprintf(fp, "\nVerbs:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(fp, "  %-14s %s\n", verbs[i].v_name, verbs[i].v_what);
	fprintf(fp, "\nSee clustercron(8).\n");
}

static void
usage(void)
{
	usage_print(0);
	exit(1);
}

int
main(int argc, char **argv)
{
	size_t	 i;

	if (argc < 2 || argv[1][0] == '-')
		return (daemon_main(argc, argv));
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (strcmp(argv[1], verbs[i].v_name) == 0) {
			/* getopt starts again at the verb's own options. */
			return (verbs[i].v_main(argc - 1, argv + 1));
		}
	}
	warnx("unknown verb %s", argv[1]);
	usage();
}
