/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * attime.c: tests of the at(1) time parser (parser/attime.c).
 *
 * The tables of tests/data/at give, for a timespec, a now and a zone,
 * our answer and Debian's at's (tests/at-debian.sh checks the latter
 * against the real at); each row's answer is checked here, and so is
 * the rule that the two agree unless the row says why not.  Then the
 * interface's corners, and properties checked over random instants in
 * zones with DST, against libc: a time of day is the first instant
 * after now whose clock shows it (or the jump over it), minutes are
 * elapsed time, days keep the time of day.
 */

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "parser.h"
#include "../tap.h"

#define NZONE_CACHE	16

struct zcache {
	char		*zc_name;
	struct cron_tz	*zc_tz;
};

static struct zcache	 zones[NZONE_CACHE];
static size_t		 nzones;
static int		 nloads;
static uint64_t		 rng_state = 0x2545f4914f6cdd1dULL;

static struct cron_tz *load_tz(const char *);
static const struct cron_tz *zone(const char *);
static struct cron_tz *loader(const char *, void *);
static int	 parse_iso(const char *, int64_t *);
static void	 answer(const char *, time_t, const struct cron_tz *, char *,
		    size_t);
static void	 test_file(const char *, const char *);
static void	 test_tables(void);
static void	 test_api(void);
static void	 test_random(void);

static uint64_t
rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL);
}

/* A fresh zone, owned by the caller. */
static struct cron_tz *
load_tz(const char *name)
{
	struct cron_diag d;
	struct cron_tz	*z;
	char		*buf;
	size_t		 len;
	int		 isrule;

	if (strcmp(name, "UTC") == 0)
		return (tz_utc(&z) == -1 ? NULL : z);
	if (tzfile_read(name, &buf, &len, &isrule) == -1)
		return (NULL);
	if (tz_parse(name, buf, len, isrule, &z, &d) == -1)
		z = NULL;
	free(buf);
	return (z);
}

static const struct cron_tz *
zone(const char *name)
{
	struct cron_tz	*z;
	size_t		 i;

	for (i = 0; i < nzones; i++)
		if (strcmp(zones[i].zc_name, name) == 0)
			return (zones[i].zc_tz);
	if (nzones == NZONE_CACHE || (z = load_tz(name)) == NULL)
		return (NULL);
	zones[nzones].zc_name = strdup(name);
	zones[nzones].zc_tz = z;
	nzones++;
	return (z);
}

/* The loader at_parse() calls for zone names; the parser frees. */
static struct cron_tz *
loader(const char *name, void *arg)
{
	(void)arg;
	nloads++;
	return (load_tz(name));
}

/* YYYY-MM-DDTHH:MM:SSZ to seconds since the epoch. */
static int
parse_iso(const char *s, int64_t *tp)
{
	int	 y, mo, d, h, mi, sec, n = 0;

	if (sscanf(s, "%d-%d-%dT%d:%d:%dZ%n", &y, &mo, &d, &h, &mi, &sec,
	    &n) != 6 || s[n] != '\0')
		return (-1);
	*tp = civil_to_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	return (0);
}

/* Our answer as the tables write it. */
static void
answer(const char *spec, time_t now, const struct cron_tz *tz, char *buf,
    size_t len)
{
	struct cron_diag d;
	time_t		 t;
	int		 rc;

	if (strncmp(spec, "-t ", 3) == 0)
		rc = at_parse_posix(spec + 3, now, tz, &t, &d);
	else
		rc = at_parse(spec, now, tz, loader, NULL, &t, &d);
	if (rc == 0) {
		cron_fmt_iso8601(tz, t, buf, len);
		return;
	}
	if (t != 0)
		snprintf(buf, len, "error: *out is %lld on failure",
		    (long long)t);
	else if (d.d_col == 0)
		snprintf(buf, len, "error: %s", d.d_msg);
	else
		snprintf(buf, len, "error: column %zu: %s", d.d_col, d.d_msg);
}

/*
 * One table: timespec, now, zone, ours, Debian's, why.  Ours must be
 * what the parser answers; without a why, Debian's must agree (the
 * same instant, or a refusal for our error); with one, it must not.
 */
static void
test_file(const char *path, const char *name)
{
	FILE		*fp;
	char		*line = NULL, *f[7], *p, got[512];
	size_t		 cap = 0, lineno = 0;
	ssize_t		 n;
	int64_t		 now;
	const struct cron_tz *tz;
	int		 nf, agree, rows = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		ok(0, "open %s: %s", path, strerror(errno));
		return;
	}
	while ((n = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		for (nf = 0, p = line; nf < 7; nf++) {
			f[nf] = p;
			if ((p = strchr(p, '\t')) == NULL) {
				nf++;
				break;
			}
			*p++ = '\0';
		}
		if (nf != 6 || parse_iso(f[1], &now) == -1) {
			ok(0, "%s:%zu: six fields, now as "
			    "YYYY-MM-DDTHH:MM:SSZ", name, lineno);
			continue;
		}
		if ((tz = zone(f[2])) == NULL) {
			ok(0, "%s:%zu: zone %s", name, lineno, f[2]);
			continue;
		}
		rows++;
		answer(f[0], (time_t)now, tz, got, sizeof(got));
		is_str(got, f[3], "%s:%zu: %s (now %s, %s)", name, lineno,
		    f[0], f[1], f[2]);
		if (strncmp(f[3], "error: ", 7) == 0)
			agree = strncmp(f[4], "refused: ", 9) == 0;
		else
			agree = strcmp(f[3], f[4]) == 0;
		if (f[5][0] == '\0')
			ok(agree, "%s:%zu: agrees with Debian's at (%s)", name,
			    lineno, f[4]);
		else
			ok(!agree, "%s:%zu: differs from Debian's at (%s): %s",
			    name, lineno, f[4], f[5]);
	}
	free(line);
	fclose(fp);
	ok(rows > 0, "%s: %d rows", name, rows);
}

static int
namecmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static void
test_tables(void)
{
	const char	*top;
	struct dirent	*de;
	DIR		*dir;
	char		 path[1024], *names[64], full[1100];
	size_t		 n = 0, i, len;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	snprintf(path, sizeof(path), "%s/tests/data/at", top);
	if ((dir = opendir(path)) == NULL) {
		ok(0, "open %s: %s", path, strerror(errno));
		return;
	}
	while ((de = readdir(dir)) != NULL && n < 64) {
		len = strlen(de->d_name);
		if (len > 4 && strcmp(de->d_name + len - 4, ".tsv") == 0)
			names[n++] = strdup(de->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(names[0]), namecmp);
	ok(n > 0, "tables found in %s", path);
	for (i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		test_file(full, names[i]);
		free(names[i]);
	}
}

/* What the tables cannot hold: empty text, bytes, the loader. */
static void
test_api(void)
{
	const struct cron_tz *utc = zone("UTC");
	struct cron_diag d;
	char		 buf[512];
	time_t		 t, now = 1773234000;	/* 2026-03-11T13:00:00Z */
	int		 before;

	answer("", now, utc, buf, sizeof(buf));
	is_str(buf, "error: column 1: found nothing, expected a time (such "
	    "as now, 10:30, 4pm, noon or tomorrow)", "empty timespec");
	answer("  \t ", now, utc, buf, sizeof(buf));
	is_str(buf, "error: column 1: found nothing, expected a time (such "
	    "as now, 10:30, 4pm, noon or tomorrow)", "blanks only");
	answer("-t ", now, utc, buf, sizeof(buf));
	is_str(buf, "error: column 1: found nothing, expected "
	    "[[CC]YY]MMDDhhmm[.SS]", "empty -t");
	answer("noon \001", now, utc, buf, sizeof(buf));
	is_str(buf, "error: column 6: found byte 0x01, expected a date, utc, "
	    "a zone name, '+', '-' or the end", "a control byte is named");
	answer("noon \xc3\xa9t\xc3\xa9", now, utc, buf, sizeof(buf));
	is_str(buf, "error: column 6: found byte 0xc3, expected a date, utc, "
	    "a zone name, '+', '-' or the end", "a non-ASCII byte is named");
	answer("now + 1 dayyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", now, utc, buf,
	    sizeof(buf));
	is_str(buf, "error: column 12: found \"yyyyyyyyyyyyyyyyyyyyyyyy...\" "
	    "in \"dayyyyyyyyyyyyyyyyyyyyyy...\", expected the end (one "
	    "increment only)",
	    "a long word is cut in the message");
	answer("noon\ntomorrow", now, utc, buf, sizeof(buf));
	is_str(buf, "2026-03-12T12:00:00+00:00", "a newline is a blank, as "
	    "in at");

	/* Without a loader, zone names are refused; utc is not a name. */
	t = 1;
	is_int(at_parse("10:00 Europe/Paris", now, utc, NULL, NULL, &t, &d),
	    -1, "no loader: a zone name is refused");
	is_int(t, 0, "... and *out is 0");
	is_int((long long)d.d_col, 7, "... at its column");
	is_str(d.d_msg, "found \"Europe/Paris\", expected utc (zone names "
	    "are not available here)", "... saying why");
	is_int(at_parse("10:00 utc", now, utc, NULL, NULL, &t, &d), 0,
	    "no loader: utc is still known");
	is_int(t, now + 21 * 3600, "... 10:00 UTC tomorrow");

	/* The loader is asked once, and its zone freed (valgrind). */
	before = nloads;
	is_int(at_parse("10:00 Europe/Paris", now, utc, loader, NULL, &t,
	    &d), 0, "the loader gives Europe/Paris");
	is_int(nloads - before, 1, "... asked once");
	before = nloads;
	is_int(at_parse("10:00 Etc/GMT+5", now, utc, loader, NULL, &t, &d), 0,
	    "a zone name with '+'");
	is_int(t, now + 2 * 3600, "... is five hours behind UTC");
	is_int(at_parse("10:00 Europe/Paris +", now, utc, loader, NULL, &t,
	    &d), -1, "an error after a loaded zone");
	is_int(nloads - before, 2, "... frees it too (valgrind)");
	is_int(at_parse("10:00 Europe/../../etc/passwd", now, utc, loader,
	    NULL, &t, &d), -1, "no dots in zone names");
	is_str(d.d_msg, "found \"Europe/../../etc/passwd\", expected a date, "
	    "utc, a zone name, '+', '-' or the end",
	    "... so a name cannot climb out of the zone directory");
	is_int(at_parse("10:00 Ab/Cdefghijklmnopqrstuvwxyzabcdefghijklmnopqr"
	    "stuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabc"
	    "defghijklmnopqrstuvwxyz", now, utc, loader, NULL, &t, &d), -1,
	    "an over-long zone name");
	is_str(d.d_msg, "found \"Ab/Cdefghijklmnopqrstuvw...\", expected utc "
	    "or a known time zone", "... is an unknown zone");

	/* Year 9999 is the limit, without overflow on the way. */
	is_int(at_parse("now + 9999999 hours", now, utc, NULL, NULL, &t,
	    &d), 0, "9999999 hours are before 9999");
	is_int(t, now + 9999999LL * 3600, "... elapsed");
	is_int(at_parse("now + 99999999 hours", now, utc, NULL, NULL, &t,
	    &d), -1, "99999999 hours are after 9999");
	is_int(at_parse("now - 99999999 years", now, utc, NULL, NULL, &t,
	    &d), -1, "99999999 years ago");
	is_str(d.d_msg, "found -99997973-03-11T13:00:00+00:00, which is in "
	    "the past, expected a time from 2026-03-11T13:00:00+00:00 on",
	    "... is in the past, without overflow");
	is_int(at_parse("dec 31 9999 + 1 day", now, utc, NULL, NULL, &t,
	    &d), -1, "a day after 9999-12-31");
	is_int(at_parse("23:59 dec 31 9999", now, utc, NULL, NULL, &t, &d),
	    0, "9999-12-31 23:59");
	is_int(at_parse("24:00 dec 31 9999", now, utc, NULL, NULL, &t, &d),
	    -1, "24:00 on 9999-12-31 is in 10000");
	is_int(at_parse_posix("999912312359.59", now, utc, &t, &d), 0,
	    "-t 999912312359.59");
}

/*
 * Properties over random instants of 2026 and 2027 in zones with DST,
 * checked with libc's localtime_r() (TZ set to the zone):
 *  - "HH:MM" is after now, within a day and an hour, and the clock
 *    there shows HH:MM, or HH:MM is skipped and the instant is the
 *    jump; no earlier instant after now shows HH:MM;
 *  - "now + N minutes" is now (seconds dropped) plus N minutes;
 *  - "now + N days" shows the time of day of now N days later, or the
 *    jump over it.
 */
static void
test_random(void)
{
	static const char *const names[] = {
		"America/New_York", "Europe/London", "Australia/Lord_Howe",
		"America/Santiago", "Asia/Kathmandu", "Africa/Casablanca",
	};
	const struct cron_tz *tz;
	struct cron_diag d;
	struct tm	 tm, tn, tp;
	char		 spec[64], *cases_env;
	time_t		 now, t, u, w, base;
	long		 cases = 3000, i;
	int		 bad = 0, hh, mm, n, z, showed;

	if ((cases_env = getenv("ATTIME_RANDOM_CASES")) != NULL)
		cases = strtol(cases_env, NULL, 10);
	for (i = 0; i < cases; i++) {
		z = (int)(rnd() % (sizeof(names) / sizeof(names[0])));
		if ((tz = zone(names[z])) == NULL) {
			ok(0, "zone %s", names[z]);
			return;
		}
		setenv("TZ", names[z], 1);
		tzset();
		now = (time_t)(1767225600 + (int64_t)(rnd() % (2 * 365 *
		    86400ULL)));
		localtime_r(&now, &tn);
		base = now - tn.tm_sec;

		hh = (int)(rnd() % 24);
		mm = (int)(rnd() % 60);
		snprintf(spec, sizeof(spec), "%02d:%02d", hh, mm);
		if (at_parse(spec, now, tz, NULL, NULL, &t, &d) == -1) {
			if (bad++ < 5)
				diag("%s at %lld in %s: %s", spec,
				    (long long)now, names[z], d.d_msg);
			continue;
		}
		localtime_r(&t, &tm);
		showed = tm.tm_hour == hh && tm.tm_min == mm;
		/* The jump: a second before, the clock read less. */
		u = t - 1;
		localtime_r(&u, &tn);
		if (t <= base || t > base + 25 * 3600 || (!showed &&
		    tn.tm_gmtoff >= tm.tm_gmtoff)) {
			if (bad++ < 5)
				diag("%s at %lld in %s: %lld", spec,
				    (long long)now, names[z], (long long)t);
			continue;
		}
		for (u = base + 60; u < t; u += 60) {
			localtime_r(&u, &tm);
			if (tm.tm_hour == hh && tm.tm_min == mm)
				break;
		}
		/*
		 * at's rule compares clocks: a time of day repeated after
		 * its first occurrence passed is tomorrow's.
		 */
		if (u < t) {
			localtime_r(&u, &tp);
			for (w = u - 7200; w < u; w += 60) {
				localtime_r(&w, &tm);
				if (tm.tm_hour == hh && tm.tm_min == mm &&
				    tm.tm_mday == tp.tm_mday)
					break;
			}
			if (w >= u || w > base) {
				if (bad++ < 5)
					diag("%s at %lld in %s: %lld, but %lld "
					    "showed it", spec, (long long)now,
					    names[z], (long long)t,
					    (long long)u);
			}
		}

		n = (int)(rnd() % 5000);
		snprintf(spec, sizeof(spec), "now + %d minutes", n);
		if (at_parse(spec, now, tz, NULL, NULL, &t, &d) == -1 ||
		    t != base + 60 * n) {
			if (bad++ < 5)
				diag("%s at %lld in %s", spec, (long long)now,
				    names[z]);
		}

		n = (int)(rnd() % 400);
		snprintf(spec, sizeof(spec), "now + %d days", n);
		localtime_r(&base, &tn);
		if (at_parse(spec, now, tz, NULL, NULL, &t, &d) == -1) {
			if (bad++ < 5)
				diag("%s: %s", spec, d.d_msg);
			continue;
		}
		localtime_r(&t, &tm);
		u = t - 1;
		localtime_r(&u, &tp);
		if (civil_to_days(tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday) - civil_to_days(tn.tm_year + 1900,
		    tn.tm_mon + 1, tn.tm_mday) != n ||
		    (!(tm.tm_hour == tn.tm_hour && tm.tm_min == tn.tm_min) &&
		    tp.tm_gmtoff >= tm.tm_gmtoff)) {
			if (bad++ < 5)
				diag("%s at %lld in %s: %lld", spec,
				    (long long)now, names[z], (long long)t);
		}
	}
	unsetenv("TZ");
	tzset();
	is_int(bad, 0, "%ld random times of day, minutes and days agree with "
	    "libc", cases);
}

int
main(void)
{
	size_t	 i;

	test_tables();
	test_api();
	test_random();
	for (i = 0; i < nzones; i++) {
		free(zones[i].zc_name);
		tz_free(zones[i].zc_tz);
	}
	return (tap_done());
}
