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

static const struct verb verbs[] = {
	{ "next", verb_next,
	    "next [-S] [-n count] [-z tz] [-f 'YYYY-MM-DD HH:MM[:SS]'] expr" },
	{ "status", verb_status, "status [--json] [-c file]" },
	{ "jobs", verb_jobs, "jobs [--json] [-c file] [-u owner]" },
	{ "history", verb_history,
	    "history [--json] [-c file] [-n count] [job]" },
	{ "drain", verb_drain, "drain [-c file] node" },
	{ "pause", verb_pause, "pause [-c file] job" },
	{ "resume", verb_resume,
	    "resume [-c file] [--node | --job] node | job" },
};

static void
usage(void)
{
	size_t	 i;

	fprintf(stderr, "usage: %s [-df] [-c file] [-n node]\n",
	    getprogname());
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(stderr, "       %s %s\n", getprogname(),
		    verbs[i].v_usage);
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
