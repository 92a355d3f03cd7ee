/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * next.c: next-fire computations per second for a fixed set of
 * ordinary and rare expressions.  Each expression is chained from
 * 2026-01-01T00:00:00Z (every result is the start of the next call),
 * the chain restarting from the beginning every CHAIN calls, as
 * bench/peers/ do for croniter, cron-parser and croner.  With -p the
 * first COUNT instants of each chain are printed instead, as seconds
 * since the epoch, for bench/run-next.sh to compare with the peers;
 * -e reads other expressions from a file (one a line) and -s starts
 * from another instant.
 *
 *	next [-p count] [-n calls] [-z zone] [-e file] [-s start]
 */

#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "parser.h"

#define START	1767225600	/* 2026-01-01T00:00:00Z */
#define CHAIN	500
#define MAXEXPR	64

/* Keep in step with bench/peers/exprs.txt. */
static const char *builtin[] = {
	"*/5 * * * *",
	"0 0 * * *",
	"30 2 * * 1-5",
	"0 0 1 * *",
	"0 0 29 2 *",
	"0 0 */2 * 1",
	"0 12 * * 0",
	"*/15 9-17 * * mon-fri",
	"0 0 1 1 *",
	"0 0 1,15 * 1",
};
#define NBUILTIN	(sizeof(builtin) / sizeof(builtin[0]))

static void __attribute__((__noreturn__))
usage(void)
{
	fprintf(stderr, "usage: next [-p count] [-n calls] [-z zone] "
	    "[-e file] [-s start]\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	struct cron_sched sched[MAXEXPR];
	struct cron_diag d;
	struct cron_tz	*z;
	const char	*zname = "UTC", *errstr, **exprs = builtin;
	char		*buf, line[256];
	size_t		 len, i, nexpr = NBUILTIN;
	time_t		 t, from = START;
	FILE		*fp;
	int64_t		 ncalls = 2000000, n, start, el, total = 0, totms = 0;
	int64_t		 sum = 0;
	int		 ch, isrule, print = 0, k;

	while ((ch = getopt(argc, argv, "e:n:p:s:z:")) != -1) {
		switch (ch) {
		case 'e':
			if ((fp = fopen(optarg, "r")) == NULL)
				err(1, "%s", optarg);
			exprs = xcalloc(MAXEXPR, sizeof(*exprs));
			nexpr = 0;
			while (nexpr < MAXEXPR &&
			    fgets(line, sizeof(line), fp) != NULL) {
				line[strcspn(line, "\n")] = '\0';
				if (line[0] != '\0')
					exprs[nexpr++] = xstrdup(line);
			}
			fclose(fp);
			break;
		case 'n':
			ncalls = strtonum(optarg, 1, INT64_MAX / 2, &errstr);
			if (errstr != NULL)
				errx(1, "calls %s: %s", optarg, errstr);
			break;
		case 'p':
			print = (int)strtonum(optarg, 1, CHAIN, &errstr);
			if (errstr != NULL)
				errx(1, "count %s: %s", optarg, errstr);
			break;
		case 's':
			from = strtonum(optarg, 0, INT64_MAX / 2, &errstr);
			if (errstr != NULL)
				errx(1, "start %s: %s", optarg, errstr);
			break;
		case 'z':
			zname = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();

	if (strcmp(zname, "UTC") == 0) {
		if (tz_utc(&z) == -1)
			err(1, "tz_utc");
	} else {
		if (tzfile_read(zname, &buf, &len, &isrule) == -1)
			err(1, "%s", zname);
		if (tz_parse(zname, buf, len, isrule, &z, &d) == -1)
			errx(1, "%s", d.d_msg);
		free(buf);
	}
	for (i = 0; i < nexpr; i++)
		if (cron_expr_parse(exprs[i], 0, &sched[i], &d) == -1)
			errx(1, "%s: %s", exprs[i], d.d_msg);

	if (print) {
		for (i = 0; i < nexpr; i++) {
			printf("%s\t", exprs[i]);
			t = from;
			for (k = 0; k < print; k++) {
				if (sched_next(&sched[i], z, t, &t) == -1)
					break;
				printf("%s%lld", k > 0 ? " " : "",
				    (long long)t);
			}
			printf("\n");
		}
		tz_free(z);
		return (0);
	}

	for (i = 0; i < nexpr; i++) {
		t = START;
		k = 0;
		start = clock_mono();
		for (n = 0; n < ncalls; n++) {
			if (sched_next(&sched[i], z, t, &t) == -1 ||
			    ++k == CHAIN) {
				t = START;
				k = 0;
			}
			sum += t;
		}
		el = clock_mono() - start;
		if (el == 0)
			el = 1;
		total += ncalls;
		totms += el;
		printf("%s\t%s\t%lld\t%.3f\t%.0f\n", zname, exprs[i],
		    (long long)ncalls, el / 1000.0, ncalls * 1000.0 / el);
	}
	printf("%s\toverall\t%lld\t%.3f\t%.0f\n", zname, (long long)total,
	    totms / 1000.0, total * 1000.0 / totms);
	/* The sum keeps the compiler from dropping the calls. */
	if (sum == 42)
		printf("#\n");
	tz_free(z);
	return (0);
}
