/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tz.c: tests of parser/tz.c.  Every zone under $TZDIR is parsed and
 * its offsets compared with libc's localtime_r() at random instants
 * and on both sides of each transition; so are POSIX rule strings and
 * the "slim" zone files in tests/data/tz (made by zic -b slim, nearly
 * all left to the footer rule), also compared with the fat files of
 * the same zones.  Broken input (every truncation of a zone
 * file, corrupted counts, random damage, bad rules) must be refused
 * with a message or parsed, never crash; run under valgrind or ASan
 * this checks the bounds.
 */

#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "parser.h"
#include "../tap.h"

#define Y1900	(-2208988800LL)
#define Y1970	0LL
#define Y2008	1199145600LL
#define Y2100	4102444800LL
#define Y2500	16725225600LL

static uint64_t	 rng_state = 0x2545f4914f6cdd1dULL;
static const char *tzdir;
static int	 nzone, nzonebad;

static uint32_t	 get32(const unsigned char *);
static size_t	 v2base(const unsigned char *);

static uint64_t
rnd(void)
{
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

static long
libc_off(int64_t t)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	localtime_r(&tt, &tm);
	return (tm.tm_gmtoff);
}

static void
set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/*
 * Compares the zone with libc (TZ already set) from lo to hi: random
 * instants, and both sides of every transition the zone reports.
 * Returns the number of disagreements; the first few are shown.
 */
static int
compare(const char *name, const struct cron_tz *z, int64_t lo, int64_t hi,
    int nrandom)
{
	time_t		 t, when;
	int64_t		 x;
	int32_t		 before, after;
	int		 i, bad = 0;

#define CHECK(at) do {							\
	x = (at);							\
	if (tz_offset(z, x) != libc_off(x)) {				\
		if (bad++ < 3)						\
			diag("%s at %lld: %d, libc %ld", name,		\
			    (long long)x, tz_offset(z, x), libc_off(x));\
	}								\
} while (0)

	for (i = 0; i < nrandom; i++)
		CHECK(rnd_range(lo, hi));
	t = lo;
	while (tz_transition(z, t, hi, &when, &before, &after)) {
		if (when <= t) {
			diag("%s: transition %lld not after %lld", name,
			    (long long)when, (long long)t);
			return (bad + 1);
		}
		CHECK(when - 1);
		CHECK(when);
		if (tz_offset(z, when - 1) != before ||
		    tz_offset(z, when) != after || before == after) {
			if (bad++ < 3)
				diag("%s: transition at %lld says %d to %d",
				    name, (long long)when, before, after);
		}
		t = when;
	}
#undef CHECK
	return (bad);
}

static struct cron_tz *
load_file(const char *path, const char *name)
{
	struct cron_diag d;
	struct cron_tz	*z;
	char		*buf;
	size_t		 len;

	if (file_read(path, 1 << 20, &buf, &len) == -1)
		return (NULL);
	if (tz_parse(name, buf, len, 0, &z, &d) == -1) {
		diag("%s: %s", path, d.d_msg);
		z = NULL;
	}
	free(buf);
	return (z);
}

static int
each_zone(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct cron_tz	*z;
	const char	*name;
	char		 magic[5] = "";
	FILE		*fp;
	int		 bad;

	(void)st;
	(void)ftw;
	name = path + strlen(tzdir) + 1;
	if (type != FTW_F || strncmp(name, "right/", 6) == 0 ||
	    strncmp(name, "posix/", 6) == 0 || strcmp(name, "localtime") == 0)
		return (0);
	if ((fp = fopen(path, "r")) == NULL)
		return (0);
	if (fread(magic, 1, 4, fp) != 4 || memcmp(magic, "TZif", 4) != 0) {
		fclose(fp);
		return (0);
	}
	fclose(fp);
	nzone++;
	if ((z = load_file(path, name)) == NULL) {
		nzonebad++;
		ok(0, "zone %s parses", name);
		return (0);
	}
	set_tz(name);
	bad = compare(name, z, Y1900, Y2100, 300) +
	    compare(name, z, Y2100, Y2500, 50);
	if (strcmp(tz_name(z), name) != 0)
		bad++;
	if (bad) {
		nzonebad++;
		ok(0, "zone %s agrees with localtime_r", name);
	}
	tz_free(z);
	return (0);
}

/* right/ counts leap seconds; posix/ repeats the others. */
static int
walk(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char	*name = path + strlen(tzdir);

	if (type == FTW_D && (strcmp(name, "/right") == 0 ||
	    strcmp(name, "/posix") == 0))
		return (FTW_SKIP_SUBTREE);
	return (each_zone(path, st, type, ftw));
}

static void
test_all_zones(void)
{
	if ((tzdir = getenv("TZDIR")) == NULL)
		tzdir = "/usr/share/zoneinfo";
	if (nftw(tzdir, walk, 16, FTW_PHYS | FTW_ACTIONRETVAL) == -1) {
		ok(0, "walk %s: %s", tzdir, strerror(errno));
		return;
	}
	ok(nzone > 300, "%d zones found under %s", nzone, tzdir);
	ok(nzonebad == 0, "all %d zones agree with localtime_r from 1900 "
	    "to 2500 (%d do not)", nzone, nzonebad);
}

/* The slim files in tests/data/tz against libc and the fat files. */
static void
test_slim(void)
{
	static const char *const names[] = {
		"America/New_York", "Europe/London", "Australia/Lord_Howe",
		"Asia/Kathmandu", "America/Nuuk", "Europe/Dublin",
		"Africa/Casablanca", "Pacific/Apia", "America/Santiago",
		"Australia/Eucla",
	};
	struct cron_tz	*slim, *fat;
	const char	*top;
	char		 path[1024], fpath[1024], tz[PATH_MAX + 1], *p;
	size_t		 i;
	int64_t		 t;
	int		 bad, k;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/tests/data/tz/slim-%s", top,
		    names[i]);
		for (p = path + strlen(path) - strlen(names[i]); *p != '\0';
		    p++)
			if (*p == '/')
				*p = '_';
		snprintf(fpath, sizeof(fpath), "%s/%s", tzdir, names[i]);
		slim = load_file(path, names[i]);
		fat = load_file(fpath, names[i]);
		if (slim == NULL || fat == NULL) {
			ok(0, "slim and fat %s parse", names[i]);
			tz_free(slim);
			tz_free(fat);
			continue;
		}
		/* libc reads the slim file itself, by absolute path. */
		tz[0] = ':';
		if (realpath(path, tz + 1) == NULL) {
			ok(0, "realpath %s", path);
			continue;
		}
		set_tz(tz);
		bad = compare(names[i], slim, Y1900, Y2500, 2000);
		ok(bad == 0, "slim %s agrees with libc", names[i]);
		/*
		 * The fat file comes from the system's tzdata, which may be
		 * newer than the slim copy: a difference is only shown.
		 */
		for (k = 0, bad = 0; k < 20000; k++) {
			t = rnd_range(Y1970, Y2500);
			if (tz_offset(slim, t) != tz_offset(fat, t) &&
			    bad++ < 3)
				diag("%s at %lld: slim %d, fat %d (is tzdata "
				    "newer than 2026f?)", names[i],
				    (long long)t, tz_offset(slim, t),
				    tz_offset(fat, t));
		}
		tz_free(slim);
		tz_free(fat);
	}
}

/* POSIX rule strings, parsed by us and by libc. */
static void
test_rules(void)
{
	static const char *const good[] = {
		"EST5EDT,M3.2.0,M11.1.0",
		"EST5EDT",
		"CET-1CEST,M3.5.0,M10.5.0/3",
		"GMT0BST,M3.5.0/1,M10.5.0",
		"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
		"NZST-12NZDT,M9.5.0,M4.1.0/3",
		"<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45",
		"IST-1GMT0,M10.5.0,M3.5.0/1",
		"<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
		"<-04>4<-03>,M9.1.6/24,M4.1.6/24",
		"JST-9",
		"<+0545>-5:45",
		"AAA3BBB,J60/2,J300/2",
		"AAA3BBB,59/2,299/2",
		"AAA-3BBB-4:30,M2.5.0/-22,M11.5.6/100",
		"XXX+0:30YYY-0:30,M1.1.0,M12.5.6/23:59:59",
		"UTC0",
	};
	static const char *const bad[] = {
		"", "EST", "E5", "EST5EDT,", "EST5EDT,M3.2.0",
		"EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
		"EST5EDT,M3.2.7,M11.1.0", "EST5EDT,M3.2.0,M11.1.0/168",
		"EST5EDT,M3.2.0,M11.1.0x", "EST25", "EST5:60",
		"<EST5", "<E>5", "EST5EDT,J0,J365", "EST5EDT,366,0",
		"EST5EDT,M3.2.0/2:3:,M11.1.0", "EST5 EDT",
	};
	struct cron_diag d;
	struct cron_tz	*z;
	size_t		 i;
	int		 nbad;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (tz_parse(good[i], good[i], strlen(good[i]), 1, &z, &d) ==
		    -1) {
			ok(0, "rule %s parses: %s", good[i], d.d_msg);
			continue;
		}
		set_tz(good[i]);
		/*
		 * glibc applies no rule before 1970, and for a rule without
		 * dates it takes them (and their history) from posixrules.
		 */
		nbad = compare(good[i], z, strchr(good[i], ',') == NULL ?
		    Y2008 : Y1970, Y2100, 3000) +
		    compare(good[i], z, Y2100, Y2500 * 3, 500);
		ok(nbad == 0, "rule %s agrees with localtime_r", good[i]);
		tz_free(z);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		z = (struct cron_tz *)&d;
		memset(&d, 0, sizeof(d));
		ok(tz_parse(bad[i], bad[i], strlen(bad[i]), 1, &z, &d) == -1 &&
		    z == NULL && d.d_msg[0] != '\0', "rule \"%s\" refused: %s",
		    bad[i], d.d_msg);
	}
	/* Permanent DST (RFC 8536's example), which glibc does not do. */
	ok(tz_parse("p", "EST5EDT,0/0,J365/25", 19, 1, &z, &d) == 0,
	    "permanent DST parses");
	if (z != NULL) {
		for (i = 0, nbad = 0; i < 5000; i++)
			if (tz_offset(z, rnd_range(-Y2500, Y2500 * 2)) !=
			    -14400)
				nbad++;
		is_int(nbad, 0, "permanent DST is always -04:00");
		tz_free(z);
	}
	/* Not NUL-terminated: only len bytes count. */
	ok(tz_parse("r", "EST5EDTX", 7, 1, &z, &d) == 0,
	    "rule length honoured");
	if (z != NULL) {
		is_int(tz_offset(z, 1767225600), -18000, "EST5EDT in January");
		is_int(tz_offset(z, 1783000000), -14400, "EST5EDT in July");
		tz_free(z);
	}
}

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Refusals of damaged zone files, and no crash on random damage. */
static void
test_broken(void)
{
	struct cron_diag d;
	struct cron_tz	*z;
	char		 path[1024];
	char		*buf;
	unsigned char	*cp;
	size_t		 len, n, v2, n2;
	int		 k, refused = 0, parsed = 0, j;

	snprintf(path, sizeof(path), "%s/America/New_York", tzdir);
	if (file_read(path, 1 << 20, &buf, &len) == -1) {
		ok(0, "read %s", path);
		return;
	}
	ok(tz_parse("NY", buf, len, 0, &z, &d) == 0, "New York parses");
	tz_free(z);
	for (n = 0; n < len; n++) {
		if (tz_parse("NY", buf, n, 0, &z, &d) == 0) {
			diag("prefix of %zu bytes accepted", n);
			tz_free(z);
		} else if (z == NULL && d.d_msg[0] != '\0')
			refused++;
	}
	is_int(refused, (long long)len, "every truncation of New York is "
	    "refused with a message");

	cp = malloc(len);
#define BROKEN(what, edit) do {						\
	memcpy(cp, buf, len);						\
	edit;								\
	memset(&d, 0, sizeof(d));					\
	ok(tz_parse("NY", cp, len, 0, &z, &d) == -1 && z == NULL,	\
	    "refused: %s (%s)", what, d.d_msg);				\
	tz_free(z);							\
} while (0)
	BROKEN("bad magic", cp[0] = 'X');
	BROKEN("unknown version", cp[4] = 'x');
	BROKEN("no types", put32(cp + 36, 0));
	BROKEN("huge transition count", put32(cp + 32, 0xffffffff));
	BROKEN("huge character count", put32(cp + 40, 0x7fffffff));
	BROKEN("isstd count not the type count", put32(cp + 24, 3));
	v2 = v2base((unsigned char *)buf);
	n2 = get32((unsigned char *)buf + v2 + 32);
	BROKEN("version 2 header damaged", cp[v2] = 'X');
	BROKEN("transition type out of range", cp[v2 + 44 + n2 * 8] = 200);
	BROKEN("transitions out of order",
	    memcpy(cp + v2 + 52, cp + v2 + 44, 8));
	BROKEN("footer without newline", cp[len - 1] = 'x');
	BROKEN("footer rule broken", memcpy(cp + len - 8, "M99.1.0", 7));
	BROKEN("type offset absurd", put32(cp + v2 + 44 + n2 * 9,
	    0x7fffffff));
	BROKEN("version 2 data truncated", put32(cp + v2 + 32, n2 + 100));
#undef BROKEN
	memcpy(cp, buf, len);
	cp[44 + get32(cp + 32) * 4] = 200;
	ok(tz_parse("NY", cp, len, 0, &z, &d) == 0,
	    "a damaged version 1 block is skipped in a version 2 file");
	tz_free(z);
	ok(tz_parse("x", NULL, 0, 0, &z, &d) == -1, "no bytes refused");

	/* Version 1 alone: the 32-bit data, no footer. */
	memcpy(cp, buf, len);
	cp[4] = '\0';
	if (tz_parse("NY1", cp, v2, 0, &z, &d) == 0) {
		set_tz("America/New_York");
		is_int(compare("NY1", z, -2147483647LL, 2147483647LL, 2000), 0,
		    "a version 1 file agrees with libc from 1901 to 2038");
		tz_free(z);
	} else
		ok(0, "a version 1 file parses: %s", d.d_msg);

	/* Random damage: bytes flipped, counts scrambled. */
	for (k = 0; k < 20000; k++) {
		memcpy(cp, buf, len);
		for (j = 0; j < 1 + (int)(rnd() % 4); j++) {
			n = rnd() % 3 == 0 ? 20 + rnd() % 24 : rnd() % len;
			cp[n] = (unsigned char)rnd();
		}
		n = rnd() % 8 == 0 ? rnd() % len : len;
		if (tz_parse("NY", cp, n, 0, &z, &d) == 0) {
			parsed++;
			(void)tz_offset(z, rnd_range(-Y2500, Y2500 * 4));
			tz_free(z);
		}
	}
	ok(1, "20000 damaged files: %d parsed, the rest refused, none "
	    "crashed", parsed);
	free(cp);
	free(buf);
}

static void
test_api(void)
{
	struct cron_diag d;
	struct cron_tz	*z;
	char		*buf;
	size_t		 len;
	time_t		 when;
	int32_t		 a, b;
	int		 isrule;

	ok(tz_utc(&z) == 0, "tz_utc");
	is_str(tz_name(z), "UTC", "UTC is named UTC");
	is_int(tz_offset(z, 1767225600), 0, "UTC offset 0");
	is_int(tz_transition(z, 0, INT64_MAX, &when, &a, &b), 0,
	    "UTC has no transitions");
	tz_free(z);
	tz_free(NULL);

	if (tzfile_read("America/New_York", &buf, &len, &isrule) == -1 ||
	    tz_parse("America/New_York", buf, len, isrule, &z, &d) == -1) {
		ok(0, "New York");
		return;
	}
	free(buf);
	is_str(tz_name(z), "America/New_York", "name copied");
	ok(tz_transition(z, 1767225600, INT64_MAX, &when, &a, &b) == 1 &&
	    when == 1772953200 && a == -18000 && b == -14400,
	    "after 2026-01-01 clocks go forward at 2026-03-08T07:00Z");
	ok(tz_transition(z, 1772953200, INT64_MAX, &when, &a, &b) == 1 &&
	    when == 1793512800 && a == -14400 && b == -18000,
	    "strictly after a transition: the next, 2026-11-01T06:00Z");
	is_int(tz_transition(z, 1767225600, 1772953200, &when, &a, &b), 0,
	    "no transition before the limit");
	ok(tz_transition(z, 1772953199, 1772953201, &when, &a, &b) == 1,
	    "a transition just inside the limit");
	/* 2400-03-12T07:00Z and 9999: the rule, folded by 400 years. */
	is_int(tz_offset(z, 13575625199LL), -18000, "2400-03-12 06:59:59Z");
	is_int(tz_offset(z, 13575625200LL), -14400, "2400-03-12 07:00:00Z");
	is_int(tz_offset(z, 253380000000LL), -14400, "9999-04-17 is EDT");
	is_int(tz_offset(z, (time_t)INT64_MAX), tz_offset(z, (time_t)1 << 60),
	    "the end of time does not overflow");
	(void)tz_offset(z, (time_t)INT64_MIN);
	ok(tz_offset(z, -5000000000LL) == -17762, "1811 is local mean time");
	tz_free(z);
}

static uint32_t
get32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3]);
}

/*
 * Where the version 2 header of a zone file starts: after the first
 * header and its 32-bit data, sized from that header's counts.
 */
static size_t
v2base(const unsigned char *p)
{
	return (44 + get32(p + 32) * 5 + get32(p + 36) * 6 + get32(p + 40) +
	    get32(p + 28) * 8 + get32(p + 24) + get32(p + 20));
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
	test_all_zones();
	test_slim();
	test_rules();
	test_broken();
	test_api();
	return (tap_done());
}
