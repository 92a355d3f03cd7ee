/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * verb_next.c: the time calculators, which schedule nothing.
 * clustercron next prints the next fire instants of an expression, one
 * per line; clustercron attime prints the instant an at(1) time names.
 * Both print ISO 8601 with a numeric offset, and take "now" from -f and
 * the zone from -z.
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

static int	parse_from(const char *, int64_t *, int *);
static time_t	from_time(const char *, const struct cron_tz *, int);
static struct cron_tz *attime_zone(const char *, void *);

/*
 * FROM is a wall-clock time in the zone: YYYY-MM-DD HH:MM[:SS], with a
 * space or a 'T' between date and time.  A suffix Z or +hh:mm / -hh:mm
 * makes it an instant, whatever the zone: *off is set to 1 and *civil
 * holds the instant.
 */
static int
parse_from(const char *s, int64_t *civil, int *abs)
{
	int	 y, mo, d, h, mi, sec = 0, n = 0, oh, om, m;
	char	 sep, sign;

	*abs = 0;
	if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi,
	    &n) != 6 || (sep != ' ' && sep != 'T'))
		return (-1);
	if (s[n] == ':') {
		m = 0;
		if (sscanf(s + n, ":%2d%n", &sec, &m) != 1 || m != 3)
			return (-1);
		n += m;
	}
	if (mo < 1 || mo > 12 || d < 1 || h > 23 || h < 0 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return (-1);
	/* Day within its month: compare against the first of the next. */
	if (d > (int)(civil_to_days(mo == 12 ? y + 1 : y, mo == 12 ? 1 :
	    mo + 1, 1) - civil_to_days(y, mo, 1)))
		return (-1);
	*civil = civil_to_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	if (s[n] == 'Z' && s[n + 1] == '\0') {
		*abs = 1;
		return (0);
	}
	if (s[n] == '+' || s[n] == '-') {
		m = 0;
		if (sscanf(s + n, "%c%2d:%2d%n", &sign, &oh, &om, &m) != 3 ||
		    m != 6 || s[n + m] != '\0' || oh < 0 || oh > 23 ||
		    om < 0 || om > 59)
			return (-1);
		*civil -= (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
		*abs = 1;
		return (0);
	}
	return (s[n] == '\0' ? 0 : -1);
}

/*
 * The instant of -f FROM in zone tz, or now.  FROM in a skipped hour
 * is the jump; with before set, the second before it, so that what is
 * strictly after FROM includes the jump.
 */
static time_t
from_time(const char *from, const struct cron_tz *tz, int before)
{
	int64_t	 civil;
	time_t	 t;
	int	 abs;

	if (from == NULL)
		return (clock_now());
	if (parse_from(from, &civil, &abs) == -1)
		errx(1, "-f %s: expected YYYY-MM-DD HH:MM[:SS], optionally "
		    "with Z or an offset", from);
	if (abs)
		return ((time_t)civil);
	t = tz_local_to_utc(tz, civil);
	if (before && tz_offset(tz, t) + (int64_t)t != civil)
		t--;
	return (t);
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
	/* "Strictly after FROM": a skipped FROM is already past. */
	t = from_time(from, tz, 1);

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

/* Zone names in a timespec (Europe/Paris) are the system's zones. */
static struct cron_tz *
attime_zone(const char *name, void *arg)
{
	char	 errbuf[256];

	(void)arg;
	return (tz_load(name, errbuf, sizeof(errbuf)));
}

/*
 * clustercron attime [-f from] [-z tz] -t time | timespec ...: the
 * words are joined by blanks, as at(1) joins them.  Options end at the
 * first word, so that "now - 1 hour" is a timespec.
 */
int
verb_attime(int argc, char **argv)
{
	struct cron_diag	 diag;
	struct cron_tz		*tz;
	const char		*zone = NULL, *from = NULL, *posix = NULL;
	char			 buf[CRON_ISOLEN], errbuf[256], *text;
	size_t			 len;
	time_t			 now, t;
	int			 ch, i, rc;

	while ((ch = getopt(argc, argv, "+f:t:z:")) != -1) {
		switch (ch) {
		case 'f':
			from = optarg;
			break;
		case 't':
			posix = optarg;
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
	if ((posix == NULL) == (argc == 0))
		goto usage;

	if ((tz = tz_load(zone, errbuf, sizeof(errbuf))) == NULL)
		errx(1, "-z: %s", errbuf);
	now = from_time(from, tz, 0);
	if (posix != NULL) {
		rc = at_parse_posix(posix, now, tz, &t, &diag);
		text = xstrdup(posix);
	} else {
		for (len = 0, i = 0; i < argc; i++)
			len += strlen(argv[i]) + 1;
		text = xmalloc(len);
		text[0] = '\0';
		for (i = 0; i < argc; i++) {
			if (i > 0)
				(void)strlcat(text, " ", len);
			(void)strlcat(text, argv[i], len);
		}
		rc = at_parse(text, now, tz, attime_zone, NULL, &t, &diag);
	}
	if (rc == -1) {
		tz_free(tz);
		if (diag.d_col == 0)
			errx(1, "%s%s: %s", posix != NULL ? "-t " : "", text,
			    diag.d_msg);
		errx(1, "%s%s: column %zu: %s", posix != NULL ? "-t " : "",
		    text, diag.d_col, diag.d_msg);
	}
	free(text);
	cron_fmt_iso8601(tz, t, buf, sizeof(buf));
	tz_free(tz);
	puts(buf);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	return (0);

usage:
	fprintf(stderr, "usage: clustercron attime [-z tz] "
	    "[-f 'YYYY-MM-DD HH:MM[:SS]'] -t [[CC]YY]MMDDhhmm[.SS] | "
	    "timespec ...\n");
	return (1);
}
