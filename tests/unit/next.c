/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * next.c: tests of the calendar helpers and the next-fire calculator.
 *
 * Three sources of truth: the calendar against libc's timegm(); the
 * hand-written tables in tests/data/next, one .tsv file per theme
 * (expression, zone, start instant, expected fire instants); and a
 * brute-force reference that
 * walks UTC minute by minute (second by second inside matching minutes)
 * asking libc's localtime_r() for the wall clock, which implements
 * DESIGN.md's DST rules for fixed-time jobs on its own.  Random
 * schedules, zones and instants are checked against it.  The number of
 * random cases can be lowered with NEXT_RANDOM_CASES (for valgrind).
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

#define NZONE_CACHE	64
#define REF_BEFORE	(3 * 3600 + 1)	/* reference starts this early */
#define REF_HORIZON	(2 * 86400)	/* and looks this far ahead */

struct zcache {
	char		*zc_name;
	struct cron_tz	*zc_tz;
};

static struct zcache	 zones[NZONE_CACHE];
static size_t		 nzones;
static uint64_t		 rng_state = 0x9e3779b97f4a7c15ULL;

static const struct cron_tz *zone(const char *);
static int	 parse_iso(const char *, int64_t *);
static void	 fmt_iso(const struct cron_tz *, int64_t, char *, size_t);
static void	 test_civil(void);
static void	 test_never(void);
static void	 test_tables(void);
static void	 test_file(const char *, const char *);
static void	 test_random(void);
static int64_t	 ref_next(const struct cron_sched *, int64_t, int64_t);
static void	 report(const char *, const struct cron_tz *,
		    const struct cron_sched *, int64_t, int64_t, int64_t);

static uint64_t
rnd(void)
{
	/* xorshift64*: reproducible runs. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 2685821657736338717ULL);
}

static int64_t
rnd_range(int64_t lo, int64_t hi)
{
	return (lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)));
}

static const struct cron_tz *
zone(const char *name)
{
	struct cron_diag d;
	struct cron_tz	*z;
	char		*buf;
	size_t		 i, len;
	int		 isrule;

	for (i = 0; i < nzones; i++)
		if (strcmp(zones[i].zc_name, name) == 0)
			return (zones[i].zc_tz);
	if (nzones == NZONE_CACHE)
		return (NULL);
	if (strcmp(name, "UTC") == 0) {
		if (tz_utc(&z) == -1)
			return (NULL);
	} else {
		if (tzfile_read(name, &buf, &len, &isrule) == -1)
			return (NULL);
		if (tz_parse(name, buf, len, isrule, &z, &d) == -1) {
			diag("%s", d.d_msg);
			free(buf);
			return (NULL);
		}
		free(buf);
	}
	zones[nzones].zc_name = strdup(name);
	zones[nzones].zc_tz = z;
	nzones++;
	return (z);
}

/* YYYY-MM-DDTHH:MM[:SS](Z|+hh:mm|-hh:mm) to seconds since the epoch. */
static int
parse_iso(const char *s, int64_t *tp)
{
	int	 y, mo, d, h, mi, sec = 0, oh, om, n = 0;
	char	 sign;

	if (sscanf(s, "%d-%d-%dT%d:%d%n", &y, &mo, &d, &h, &mi, &n) != 5)
		return (-1);
	s += n;
	if (*s == ':') {
		if (sscanf(s, ":%d%n", &sec, &n) != 1)
			return (-1);
		s += n;
	}
	*tp = civil_to_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	if (strcmp(s, "Z") == 0)
		return (0);
	if (sscanf(s, "%c%d:%d%n", &sign, &oh, &om, &n) != 3 || s[n] != '\0' ||
	    (sign != '+' && sign != '-'))
		return (-1);
	*tp -= (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
	return (0);
}

static void
fmt_iso(const struct cron_tz *z, int64_t t, char *buf, size_t len)
{
	int64_t	 y;
	int32_t	 off;
	int	 mo, d, sod, aoff;

	off = tz_offset(z, t);
	t += off;
	days_to_civil(t >= 0 ? t / 86400 : -((-t - 1) / 86400) - 1, &y, &mo,
	    &d);
	sod = (int)(t - civil_to_days(y, mo, d) * 86400);
	aoff = off < 0 ? -off : off;
	snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
	    (long long)y, mo, d, sod / 3600, sod / 60 % 60, sod % 60,
	    off < 0 ? '-' : '+', aoff / 3600, aoff / 60 % 60);
}

/*
 * The calendar: every day from 1600 to 2500 against timegm(), and
 * leap years across centuries.
 */
static void
test_civil(void)
{
	struct tm	 tm;
	time_t		 t;
	int64_t		 days, y;
	int		 m, d, bad = 0;

	for (days = civil_to_days(1600, 1, 1);
	    days < civil_to_days(2500, 1, 1); days++) {
		t = (time_t)days * 86400;
		gmtime_r(&t, &tm);
		days_to_civil(days, &y, &m, &d);
		if (y != tm.tm_year + 1900 || m != tm.tm_mon + 1 ||
		    d != tm.tm_mday || civil_to_days(y, m, d) != days) {
			if (bad++ < 5)
				diag("day %lld: %lld-%d-%d", (long long)days,
				    (long long)y, m, d);
		}
	}
	ok(bad == 0, "civil days 1600-2500 agree with gmtime and round-trip");
	is_int(civil_to_days(1970, 1, 1), 0, "1970-01-01 is day 0");
	is_int(civil_to_days(2000, 3, 1) - civil_to_days(2000, 2, 28), 2,
	    "2000 is a leap year");
	is_int(civil_to_days(2100, 3, 1) - civil_to_days(2100, 2, 28), 1,
	    "2100 is not a leap year");
	is_int(civil_to_days(1900, 3, 1) - civil_to_days(1900, 2, 28), 1,
	    "1900 is not a leap year");
	is_int(civil_to_days(2400, 3, 1) - civil_to_days(2400, 2, 28), 2,
	    "2400 is a leap year");
	is_int(civil_to_days(2096, 3, 1) - civil_to_days(2096, 2, 28), 2,
	    "2096 is a leap year");
	is_int(civil_to_days(10000, 1, 1) - civil_to_days(1, 1, 1),
	    3652059, "days from year 1 to 10000");
	days_to_civil(-719528, &y, &m, &d);
	ok(y == 0 && m == 1 && d == 1, "day -719528 is 0000-01-01");
	days_to_civil(civil_to_days(-4713, 11, 24), &y, &m, &d);
	ok(y == -4713 && m == 11 && d == 24, "negative years round-trip");
}

/* Schedules that never fire, and some that do, however rarely. */
static void
test_never(void)
{
	static const struct {
		const char	*expr;
		int		 never;
	} cases[] = {
		{ "0 0 30 2 *", 1 },
		{ "0 0 31 2 *", 1 },
		{ "0 0 31 4,6,9,11 *", 1 },
		{ "0 0 30,31 2 *", 1 },
		{ "0 0 29 2 *", 0 },
		{ "0 0 29 2 mon", 0 },
		{ "0 0 30 2 mon", 0 },		/* any Monday in February */
		{ "0 0 30 2 */1", 1 },		/* both must match */
		{ "0 0 31 4 0-6", 0 },		/* either: any April day */
		{ "0 0 31 4,5 *", 0 },
		{ "@reboot", 1 },
		{ "@yearly", 0 },
		{ "* * * * *", 0 },
		{ "0 0 */30 2 *", 0 },		/* day 1 */
	};
	struct cron_sched s;
	struct cron_diag d;
	time_t		 t;
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cron_expr_parse(cases[i].expr, 0, &s, &d) == -1) {
			ok(0, "parse %s: %s", cases[i].expr, d.d_msg);
			continue;
		}
		is_int(sched_never(&s), cases[i].never, "sched_never(%s)",
		    cases[i].expr);
		is_int(sched_next(&s, NULL, 0, &t), cases[i].never ? -1 : 0,
		    "sched_next(%s) %s", cases[i].expr,
		    cases[i].never ? "fails" : "finds a fire");
	}
	/* Bitsets built by hand: empty fields never fire. */
	memset(&s, 0, sizeof(s));
	s.s_sec = 1;
	s.s_min = 1;
	s.s_hour = 1;
	s.s_dom = 0xfffffffe;
	s.s_dow = 0x7f;
	s.s_flags = SCHED_DOM_STAR | SCHED_DOW_STAR;
	ok(sched_never(&s), "no month: never");
	s.s_mon = 0x1ffe;
	ok(!sched_never(&s), "all months: fires");
	s.s_sec = 0;
	ok(sched_never(&s), "no second: never");
}

static int
count_fields(const char *expr)
{
	int	 n = 0, in = 0;

	for (; *expr != '\0'; expr++) {
		if (*expr == ' ' || *expr == '\t')
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return (n);
}

/*
 * One table: lines "EXPR<TAB>ZONE<TAB>FROM<TAB>EXPECTED..." where
 * EXPECTED is a space-separated list of instants, "never" (the schedule
 * never fires: sched_never() and sched_next() both say so) or ending in
 * "none" (no more fires, as past the year 9999).  Six fields mean a
 * seconds field.
 */
static void
test_file(const char *path, const char *base)
{
	struct cron_sched s;
	struct cron_diag d;
	const struct cron_tz *z;
	FILE		*fp;
	char		 line[4096], got[64], *f[4], *p, *tok, *save;
	size_t		 lineno = 0;
	int64_t		 from;
	time_t		 t;
	int		 i, rv, nfail, ncase = 0;

	if ((fp = fopen(path, "r")) == NULL) {
		ok(0, "open %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		p = line;
		for (i = 0; i < 4; i++) {
			f[i] = p;
			if (i < 3) {
				if ((p = strchr(p, '\t')) == NULL)
					break;
				*p++ = '\0';
			}
		}
		if (i < 4) {
			ok(0, "%s:%zu: malformed line", base, lineno);
			continue;
		}
		ncase++;
		if (cron_expr_parse(f[0], count_fields(f[0]) == 6 ?
		    CRON_SECONDS : 0, &s, &d) == -1) {
			ok(0, "%s:%zu: %s: %s", base, lineno, f[0], d.d_msg);
			continue;
		}
		if ((z = zone(f[1])) == NULL) {
			ok(0, "%s:%zu: zone %s", base, lineno, f[1]);
			continue;
		}
		if (parse_iso(f[2], &from) == -1) {
			ok(0, "%s:%zu: bad instant %s", base, lineno, f[2]);
			continue;
		}
		t = from;
		nfail = 0;
		for (tok = strtok_r(f[3], " ", &save); tok != NULL;
		    tok = strtok_r(NULL, " ", &save)) {
			if (strcmp(tok, "never") == 0) {
				if (!sched_never(&s)) {
					diag("sched_never is 0");
					nfail++;
				}
				tok = "none";
			}
			rv = sched_next(&s, z, t, &t);
			if (rv == -1)
				strlcpy(got, "none", sizeof(got));
			else
				fmt_iso(z, t, got, sizeof(got));
			if (strcmp(got, tok) != 0) {
				diag("%s:%zu: got %s, want %s", base, lineno,
				    got, tok);
				nfail++;
				break;
			}
			if (rv == -1)
				break;
		}
		ok(nfail == 0, "%s:%zu: %s in %s from %s", base, lineno, f[0],
		    f[1], f[2]);
	}
	fclose(fp);
	ok(ncase > 0, "%s has cases", base);
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
	char		 path[1024], *names[256], full[1100];
	size_t		 n = 0, i, len;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	snprintf(path, sizeof(path), "%s/tests/data/next", top);
	if ((dir = opendir(path)) == NULL) {
		ok(0, "open %s: %s", path, strerror(errno));
		return;
	}
	while ((de = readdir(dir)) != NULL && n < 256) {
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

/*
 * The brute-force reference.  TZ is set to the zone and libc does the
 * zone arithmetic.  The day, hour and minute match as in Vixie cron;
 * a fixed-time job fires at instants whose local time exceeds every
 * local time shown before (first occurrences) and at a forward jump
 * when some skipped local time matched.
 */

static int
ref_match(const struct cron_sched *s, const struct tm *tm, int withsec)
{
	int	 dom, dow;

	if (!(s->s_mon & (1U << (tm->tm_mon + 1))) ||
	    !(s->s_hour & (1U << tm->tm_hour)) ||
	    !(s->s_min & (1ULL << tm->tm_min)) ||
	    (withsec && !(s->s_sec & (1ULL << tm->tm_sec))))
		return (0);
	dom = (s->s_dom >> tm->tm_mday) & 1;
	dow = (s->s_dow >> tm->tm_wday) & 1;
	if (s->s_flags & (SCHED_DOM_STAR | SCHED_DOW_STAR))
		return (dom && dow);
	return (dom || dow);
}

static int64_t
ref_local(int64_t t, struct tm *tm)
{
	time_t	 tt = (time_t)t;

	localtime_r(&tt, tm);
	return (t + tm->tm_gmtoff);
}

/* Does a local time in [lo, hi] match?  Civil fields by gmtime_r(). */
static int
ref_gap_match(const struct cron_sched *s, int64_t lo, int64_t hi)
{
	struct tm	 tm;
	time_t		 x;
	int64_t		 l;

	for (l = lo; l <= hi; l++) {
		x = (time_t)l;
		gmtime_r(&x, &tm);
		if (tm.tm_sec != 0 && !(s->s_flags & SCHED_SECONDS)) {
			l += 59 - tm.tm_sec;
			continue;
		}
		if (ref_match(s, &tm, 1))
			return (1);
	}
	return (0);
}

/*
 * The first fire after `after' within (after, after + horizon], or
 * INT64_MAX when none.
 */
static int64_t
ref_next(const struct cron_sched *s, int64_t after, int64_t horizon)
{
	struct tm	 tm, ptm;
	int64_t		 t, pt, l, pl, hw, lo, hi, mid, step;
	int		 fixed;

	fixed = !(s->s_flags & (SCHED_MIN_STAR | SCHED_HOUR_STAR));
	hw = INT64_MIN;
	pt = after - REF_BEFORE;
	pl = ref_local(pt, &ptm);
	t = pt + 1;
	while (t <= after + horizon) {
		l = ref_local(t, &tm);
		if (l - pl != t - pt) {
			/* The offset changed in (pt, t]: find where. */
			lo = pt;
			hi = t;
			while (hi - lo > 1) {
				mid = lo + (hi - lo) / 2;
				if (ref_local(mid, &ptm) - mid ==
				    l - t)
					hi = mid;
				else
					lo = mid;
			}
			t = hi;
			l = ref_local(t, &tm);
			pl = ref_local(t - 1, &ptm);
			lo = pl > hw ? pl + 1 : hw + 1;
			if (fixed && l > pl + 1 && t > after &&
			    ref_gap_match(s, lo, l - 1))
				return (t);
		}
		if (ref_match(s, &tm, 1) && t > after &&
		    (!fixed || l > hw))
			return (t);
		if (l > hw)
			hw = l;
		pt = t;
		pl = l;
		/* Step to the next local second worth looking at. */
		if (ref_match(s, &tm, 0) && (s->s_flags & SCHED_SECONDS))
			step = 1;
		else
			step = 60 - tm.tm_sec;
		t += step;
	}
	return (INT64_MAX);
}

static const char *const rzones[] = {
	"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe",
	"Asia/Kathmandu", "Australia/Eucla", "America/St_Johns",
	"Pacific/Chatham", "Europe/Dublin", "America/Santiago",
	"Asia/Tehran", "Africa/Casablanca", "Antarctica/Troll",
	"America/Nuuk", "Pacific/Apia", "Australia/Sydney", "Europe/Moscow",
	"America/Sao_Paulo",
};

static uint64_t
rnd_bits(int lo, int hi, int dense)
{
	uint64_t	 b = 0;
	int		 i, n;

	n = dense ? (int)rnd_range(1, hi - lo + 1) : (int)rnd_range(1, 3);
	for (i = 0; i < n; i++)
		b |= 1ULL << rnd_range(lo, hi);
	return (b);
}

/* A random schedule, biased to fire within the reference's horizon. */
static void
rnd_sched(struct cron_sched *s)
{
	memset(s, 0, sizeof(*s));
	if (rnd() % 5 == 0) {
		s->s_flags |= SCHED_SECONDS;
		s->s_sec = rnd() % 2 ? rnd_bits(0, 59, 1) : rnd_bits(0, 59, 0);
	} else
		s->s_sec = 1;
	switch (rnd() % 4) {
	case 0:
		s->s_min = (1ULL << 60) - 1;
		s->s_flags |= SCHED_MIN_STAR;
		break;
	case 1:
		s->s_min = rnd_bits(0, 59, 1);
		if (rnd() % 2)
			s->s_flags |= SCHED_MIN_STAR;	/* a step, * / n */
		break;
	default:
		s->s_min = rnd_bits(0, 59, 0);
		break;
	}
	switch (rnd() % 4) {
	case 0:
		s->s_hour = (1U << 24) - 1;
		s->s_flags |= SCHED_HOUR_STAR;
		break;
	case 1:
		s->s_hour = (uint32_t)rnd_bits(0, 23, 1);
		break;
	default:
		s->s_hour = (uint32_t)rnd_bits(0, 23, 0) |
		    (rnd() % 2 ? 0x1c : 0);	/* around DST changes */
		break;
	}
	s->s_mon = rnd() % 6 == 0 ? (uint16_t)(rnd_bits(1, 12, 1) & 0x1ffe) :
	    0x1ffe;
	switch (rnd() % 5) {
	case 0:
		s->s_dom = 0xfffffffe;
		s->s_dow = (uint8_t)rnd_bits(0, 6, 1);
		s->s_flags |= SCHED_DOM_STAR;
		break;
	case 1:
		s->s_dom = (uint32_t)rnd_bits(1, 31, 1);
		s->s_dow = 0x7f;
		s->s_flags |= SCHED_DOW_STAR;
		break;
	case 2:
		s->s_dom = (uint32_t)rnd_bits(1, 31, 0);
		s->s_dow = (uint8_t)rnd_bits(0, 6, 0);
		break;
	default:
		s->s_dom = 0xfffffffe;
		s->s_dow = 0x7f;
		s->s_flags |= SCHED_DOM_STAR | SCHED_DOW_STAR;
		break;
	}
}

static void
report(const char *zname, const struct cron_tz *z,
    const struct cron_sched *s, int64_t after, int64_t next, int64_t want)
{
	char	 a[64], b[64], c[64];

	fmt_iso(z, after, a, sizeof(a));
	fmt_iso(z, next, b, sizeof(b));
	if (want == INT64_MAX)
		strlcpy(c, "none in horizon", sizeof(c));
	else
		fmt_iso(z, want, c, sizeof(c));
	diag("%s sec %llx min %llx hour %x dom %x mon %x dow %x flags %x",
	    zname, (unsigned long long)s->s_sec,
	    (unsigned long long)s->s_min, s->s_hour, s->s_dom, s->s_mon,
	    s->s_dow, s->s_flags);
	diag("after %s: got %s, want %s", a, b, c);
}

static void
test_random(void)
{
	struct cron_sched s;
	const struct cron_tz *z;
	const char	*e;
	time_t		 when, next;
	int64_t		 after, want;
	int32_t		 o1, o2;
	long		 ncases = 3000, i, nfail = 0, nfound = 0, n;
	size_t		 zi;
	int		 k;

	if ((e = getenv("NEXT_RANDOM_CASES")) != NULL)
		ncases = strtol(e, NULL, 10);
	for (zi = 0; zi < sizeof(rzones) / sizeof(rzones[0]); zi++) {
		if ((z = zone(rzones[zi])) == NULL) {
			ok(0, "zone %s", rzones[zi]);
			continue;
		}
		setenv("TZ", rzones[zi], 1);
		tzset();
		n = ncases / (long)(sizeof(rzones) / sizeof(rzones[0]));
		for (i = 0; i < n; i++) {
			rnd_sched(&s);
			switch (rnd() % 4) {
			case 0:
				after = rnd_range(63072000, 4102444800LL);
				break;
			case 1:
				after = rnd_range(4102444800LL,
				    16725225600LL);	/* 2100-2500 */
				break;
			default:
				/* Near a change of offset. */
				after = rnd_range(63072000, 2840140800LL);
				if (tz_transition(z, after, INT64_MAX, &when,
				    &o1, &o2))
					after = when - rnd_range(-7200, 10800);
				break;
			}
			for (k = 0; k < 3; k++) {
				want = ref_next(&s, after, REF_HORIZON);
				if (sched_next(&s, z, after, &next) == -1)
					next = INT64_MAX;
				if (want == INT64_MAX ?
				    next <= after + REF_HORIZON :
				    next != want) {
					if (nfail++ < 10)
						report(rzones[zi], z, &s,
						    after, next, want);
					break;
				}
				if (want == INT64_MAX)
					break;
				nfound++;
				after = want;
			}
		}
	}
	ok(nfail == 0, "%ld random cases agree with the brute-force "
	    "reference (%ld fires compared)", ncases, nfound);
}

int
main(void)
{
	char	*buf;
	size_t	 len;
	int	 isrule;

	/* Without the system's zone files there is nothing to compare. */
	if (tzfile_read("America/New_York", &buf, &len, &isrule) == -1)
		return (tap_skip_all("no zone files under $TZDIR "
		    "(install tzdata)"));
	free(buf);
	test_civil();
	test_never();
	test_tables();
	test_random();
	return (tap_done());
}
