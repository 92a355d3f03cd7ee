/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_next.c: clustercron next prints the next fire instants of an
 * expression, one per line, in ISO 8601 with a numeric offset.
 */

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustercron.h"
#include "common.h"
#include "parser.h"

#define NEXT_MAXCOUNT	100000

static int	parse_from(const char *, int64_t *);

/*
 * FROM is a wall-clock time in the zone: YYYY-MM-DD HH:MM[:SS], with a
 * space or a 'T' between date and time.
 */
static int
parse_from(const char *s, int64_t *civil)
{
	int	 y, mo, d, h, mi, sec = 0, n = 0;
	char	 sep;

	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi,
	    &n) != 6 || (sep != ' ' && sep != 'T'))
		return (-1);
	if (s[n] == ':') {
		int	 m = 0;

		if (sscanf(s + n, ":%2d%n", &sec, &m) != 1 || m != 3)
			return (-1);
		n += m;
	}
	if (s[n] != '\0' || mo < 1 || mo > 12 || d < 1 || h > 23 || h < 0 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return (-1);
	/* Day within its month: compare against the first of the next. */
	if (d > (int)(civil_to_days(mo == 12 ? y + 1 : y, mo == 12 ? 1 :
	    mo + 1, 1) - civil_to_days(y, mo, 1)))
		return (-1);
	*civil = civil_to_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	return (0);
}

int
verb_next(int argc, char **argv)
{
	struct cron_sched	 sched;
	struct cron_diag	 diag;
	struct cron_tz		*tz;
	const char		*zone = NULL, *from = NULL, *errstr;
	char			 buf[CRON_ISOLEN], errbuf[256];
	long long		 count = 1, i;
	int64_t			 civil;
	time_t			 t, next;
	int			 ch, flags = 0;

	while ((ch = getopt(argc, argv, "f:n:Sz:")) != -1) {
		switch (ch) {
		case 'f':
			from = optarg;
			break;
		case 'n':
			count = strtonum(optarg, 1, NEXT_MAXCOUNT, &errstr);
			if (errstr != NULL)
				errx(1, "-n %s: count is %s (1 to %d)", optarg,
				    errstr, NEXT_MAXCOUNT);
			break;
		case 'S':
			flags |= CRON_SECONDS;
			break;
		case 'z':
			zone = optarg;
			break;
		default:
			goto usage;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		goto usage;

	if (cron_expr_parse(argv[0], flags, &sched, &diag) == -1)
		errx(1, "%s: column %zu: %s", argv[0], diag.d_col,
		    diag.d_msg);
	if ((tz = tz_load(zone, errbuf, sizeof(errbuf))) == NULL)
		errx(1, "-z: %s", errbuf);
	if (from != NULL) {
		if (parse_from(from, &civil) == -1)
			errx(1, "-f %s: expected YYYY-MM-DD HH:MM[:SS]", from);
		t = (time_t)tz_local_to_utc(tz, civil);
		/* "Strictly after FROM": a skipped FROM is already past. */
		if (tz_offset(tz, t) + (int64_t)t != civil)
			t--;
	} else
		t = clock_now();

	if (sched.s_flags & SCHED_REBOOT) {
		tz_free(tz);
		errx(1, "%s: @reboot runs at start-up, not at an instant",
		    argv[0]);
	}
	for (i = 0; i < count; i++) {
		if (sched_next(&sched, tz, t, &next) == -1)
			break;
		cron_fmt_iso8601(tz, next, buf, sizeof(buf));
		puts(buf);
		t = next;
	}
	tz_free(tz);
	if (i == 0)
		errx(1, "%s: never fires", argv[0]);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	return (0);

usage:
	fprintf(stderr, "usage: clustercron next [-S] [-n count] [-z tz] "
	    "[-f 'YYYY-MM-DD HH:MM[:SS]'] expr\n");
	return (1);
}
