/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ccstore.c: the daemon tests' window on the store, through store.h
 * only.
 *
 *	ccstore [-m file] url runs
 *		one line per run, oldest first:
 *		job fire attempt node state exit signal outlen
 *	ccstore [-m file] url put owner file
 *		store a table for owner, as ctab does
 */

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"

static void
usage(void)
{
	fprintf(stderr, "usage: ccstore [-m file] url runs | put owner "
	    "file\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct store		*st;
	struct store_run	*runs;
	char			*text, *old;
	size_t			 n, i, len;
	int64_t			 version, nv;
	int			 ch;

	memset(&sc, 0, sizeof(sc));
	while ((ch = getopt(argc, argv, "m:")) != -1) {
		switch (ch) {
		case 'm':
			sc.sc_mysql_file = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	sc.sc_url = argv[0];
	sc.sc_node = "ccstore";
	if (store_open(&sc, &st, &se) == -1)
		errx(1, "%s", se.se_msg);
	if (strcmp(argv[1], "runs") == 0 && argc == 2) {
		if (store_runs_list(st, NULL, 0, &runs, &n, &se) == -1)
			errx(1, "%s", se.se_msg);
		for (i = n; i > 0; i--)
			printf("%s %lld %d %s %s %d %d %zu\n", runs[i - 1].r_job,
			    (long long)runs[i - 1].r_fire,
			    runs[i - 1].r_attempt, runs[i - 1].r_node,
			    store_run_state_name(runs[i - 1].r_state),
			    runs[i - 1].r_exit, runs[i - 1].r_signal,
			    runs[i - 1].r_outlen);
		store_runs_free(runs, n);
	} else if (strcmp(argv[1], "put") == 0 && argc == 4) {
		if (file_read(argv[3], 1024 * 1024, &text, &len) == -1)
			err(1, "%s", argv[3]);
		if (store_table_get(st, argv[2], &old, &version, &se) == -1)
			errx(1, "%s", se.se_msg);
		free(old);
		if (store_table_put(st, argv[2], text, version, &nv,
		    &se) == -1)
			errx(1, "%s", se.se_msg);
		free(text);
	} else
		usage();
	store_close(st);
	return (0);
}
