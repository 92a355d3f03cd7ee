/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tz.c: time zones from compiled TZif files (RFC 8536, versions 1 to
 * 4) or from POSIX TZ rules, reduced to what the calculator needs: the
 * UTC offset in force at any instant.
 *
 * A zone is kept as one sorted table of transitions, each the instant
 * at which a new offset begins.  A TZif file gives its explicit
 * transitions (the 64-bit ones when present); the POSIX rule in its
 * footer says what happens after the last of them, and Debian's "slim"
 * files leave nearly everything to that rule.  At parse time the rule
 * is expanded into the table for 400 years beyond the last explicit
 * transition.  Rules name dates by month, week and weekday or by day of
 * the year, so they repeat exactly every 400 Gregorian years (146097
 * days, a whole number of weeks): an instant beyond the table is
 * folded back by whole cycles, looked up, and shifted forward again.
 * Every query is therefore one binary search.
 *
 * Transitions that do not change the offset (only the abbreviation or
 * the DST flag) are dropped: the calculator cares about offsets only.
 * Leap-second records are skipped.  The code reads bytes it was handed
 * and checks every count and index against the buffer, so any input,
 * however broken, gives a zone or an error, never a crash.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "next_int.h"

#define CYCLE_DAYS	146097			/* 400 Gregorian years */
#define CYCLE		((int64_t)CYCLE_DAYS * SECS_PER_DAY)
#define MARGIN		(3 * SECS_PER_DAY)	/* see tz_fold() */
#define OFF_LIMIT	(26 * 3600)		/* largest |offset| accepted */
#define TIME_LIMIT	((int64_t)1 << 60)	/* instants are clamped */
#define RULE_TIME_MAX	(167 * 3600 + 59 * 60 + 59)

/* A date in a POSIX rule: Jn, n or Mm.w.d, and the time of day. */
enum rdate_kind { RD_JULIAN, RD_ZERO, RD_MWD };
struct rdate {
	enum rdate_kind	 rd_kind;
	int		 rd_day;	/* Jn: 1-365, n: 0-365 */
	int		 rd_mon;	/* Mm.w.d */
	int		 rd_week;
	int		 rd_wday;
	int32_t		 rd_time;	/* seconds from local midnight */
};

struct rule {
	int32_t		 r_std;		/* offsets east of UTC */
	int32_t		 r_dst;
	int		 r_hasdst;
	struct rdate	 r_start;	/* into DST, in standard time */
	struct rdate	 r_end;		/* out of DST, in DST */
};

struct cron_tz {
	char		*z_name;
	size_t		 z_n;
	int64_t		*z_at;		/* transition instants, ascending */
	int64_t		*z_lkey;	/* z_at[k] + offset before it */
	int32_t		*z_off;		/* offset from z_at[k] on */
	int32_t		 z_off0;	/* offset before z_at[0] */
	int32_t		 z_offmax;
	int		 z_cycle;	/* the rule repeats from z_cyclo */
	int		 z_foldback;	/* and also before it (rule only) */
	int64_t		 z_cyclo;	/* a rule transition */
};

/* A growing list of transitions while a zone is built. */
struct tlist {
	int64_t		*tl_at;
	int32_t		*tl_off;
	size_t		 tl_n;
	size_t		 tl_cap;
	int32_t		 tl_off0;
};

static int	 tl_push(struct tlist *, int64_t, int32_t, size_t);
static void	 tl_free(struct tlist *);
static int	 finish(const char *, struct tlist *, const struct rule *,
		    int, struct cron_tz **);
static int	 expand_rule(struct tlist *, const struct rule *, int,
		    int64_t *);
static int	 rule_year(const struct rule *, int64_t, int64_t [2],
		    int32_t [2]);
static int64_t	 rdate_day(const struct rdate *, int64_t);
static int	 rule_name(const char *, size_t, size_t *);
static int	 rule_hms(const char *, size_t, size_t *, int, int32_t *);
static int	 rule_num(const char *, size_t, size_t *, int, int, int *);
static int	 rule_date(const char *, size_t, size_t *, struct rdate *);
static int	 rule_parse(const char *, size_t, struct rule *, size_t *,
		    const char **);
static uint32_t	 be32(const unsigned char *);
static int64_t	 be64(const unsigned char *);
static int	 tzif_block(const unsigned char *, size_t, size_t *, int,
		    struct tlist *, const char **);
static int	 tzif_parse(const unsigned char *, size_t, struct tlist *,
		    struct rule *, int *, const char **);
static int64_t	 tz_fold(const struct cron_tz *, int64_t, int64_t *);
static size_t	 upper(const int64_t *, size_t, int64_t);
static size_t	 tz_find(const struct cron_tz *, int64_t, int64_t *);
static int32_t	 seg_off(const struct cron_tz *, size_t);
static void	 set_diag(struct cron_diag *, const char *, size_t,
		    const char *, const char *);

/*
 * Transition lists.
 */

/*
 * Appends a transition to off at instant at.  A transition that does
 * not change the offset is dropped.  Entries from index keep on (rule
 * transitions) at or after `at' are overwritten: when two rule
 * transitions coincide, the later one in the rule's order wins.
 */
static int
tl_push(struct tlist *tl, int64_t at, int32_t off, size_t keep)
{
	size_t	 ncap;
	void	*p;

	while (tl->tl_n > keep && tl->tl_at[tl->tl_n - 1] >= at)
		tl->tl_n--;
	if ((tl->tl_n == 0 ? tl->tl_off0 : tl->tl_off[tl->tl_n - 1]) == off)
		return (0);
	if (tl->tl_n == tl->tl_cap) {
		ncap = tl->tl_cap == 0 ? 64 : tl->tl_cap * 2;
		if ((p = reallocarray(tl->tl_at, ncap, sizeof(int64_t))) ==
		    NULL)
			return (-1);
		tl->tl_at = p;
		if ((p = reallocarray(tl->tl_off, ncap, sizeof(int32_t))) ==
		    NULL)
			return (-1);
		tl->tl_off = p;
		tl->tl_cap = ncap;
	}
	tl->tl_at[tl->tl_n] = at;
	tl->tl_off[tl->tl_n] = off;
	tl->tl_n++;
	return (0);
}

static void
tl_free(struct tlist *tl)
{
	free(tl->tl_at);
	free(tl->tl_off);
	memset(tl, 0, sizeof(*tl));
}

/*
 * POSIX rules.
 */

/* The local day (days since 1970-01-01) a rule date names in year y. */
static int64_t
rdate_day(const struct rdate *rd, int64_t y)
{
	int64_t	 jan1, first;
	int	 wd1, day;

	jan1 = civil_to_days(y, 1, 1);
	switch (rd->rd_kind) {
	case RD_JULIAN:
		/* Jn counts 1-365 and never names 29 February. */
		day = rd->rd_day - 1;
		if (civil_leap(y) && rd->rd_day >= 60)
			day++;
		return (jan1 + day);
	case RD_ZERO:
		return (jan1 + rd->rd_day);
	case RD_MWD:
	default:
		first = civil_to_days(y, rd->rd_mon, 1);
		wd1 = civil_weekday(first);
		day = (rd->rd_wday - wd1 + 7) % 7 + (rd->rd_week - 1) * 7;
		/* Week 5 means the last such weekday of the month. */
		while (day >= civil_mdays(y, rd->rd_mon))
			day -= 7;
		return (first + day);
	}
}

/*
 * The two transitions of year y, in order: instants and the offsets
 * they bring.  Returns how many (0 when the rule has no DST).
 */
static int
rule_year(const struct rule *r, int64_t y, int64_t at[2], int32_t off[2])
{
	int64_t	 s, e;

	if (!r->r_hasdst)
		return (0);
	s = rdate_day(&r->r_start, y) * SECS_PER_DAY + r->r_start.rd_time -
	    r->r_std;
	e = rdate_day(&r->r_end, y) * SECS_PER_DAY + r->r_end.rd_time -
	    r->r_dst;
	if (s <= e) {
		at[0] = s;
		off[0] = r->r_dst;
		at[1] = e;
		off[1] = r->r_std;
	} else {
		at[0] = e;
		off[0] = r->r_std;
		at[1] = s;
		off[1] = r->r_dst;
	}
	return (2);
}

/*
 * Appends the rule's transitions after the list's last one for 400
 * years and a little more; *cyclo receives the first of them, where
 * the repeating part of the table begins.  Returns 1 when the rule
 * changes the offset at all, 0 when it does not, -1 on ENOMEM.
 */
static int
expand_rule(struct tlist *tl, const struct rule *r, int ruleonly,
    int64_t *cyclo)
{
	int64_t	 at[2], y, y0, last, first, hi;
	int32_t	 off[2];
	size_t	 n0;
	int	 i, n, mo, d;

	if (ruleonly) {
		/* Start in 1969 with the offset the rule has at its end. */
		y0 = 1969;
		n = rule_year(r, y0 - 1, at, off);
		tl->tl_off0 = n == 0 ? r->r_std : off[n - 1];
		last = INT64_MIN;
	} else {
		last = tl->tl_n == 0 ? INT64_MIN : tl->tl_at[tl->tl_n - 1];
		if (last == INT64_MIN)
			y0 = 1969;
		else {
			days_to_civil(floordiv(last, SECS_PER_DAY), &y0, &mo,
			    &d);
			y0--;
		}
	}
	n0 = tl->tl_n;
	first = INT64_MIN;
	hi = INT64_MAX;
	for (y = y0; ; y++) {
		n = rule_year(r, y, at, off);
		if (n == 0)
			return (0);
		for (i = 0; i < n; i++) {
			if (at[i] <= last)
				continue;
			if (hi != INT64_MAX && at[i] > hi)
				goto done;
			if (tl_push(tl, at[i], off[i], n0) == -1)
				return (-1);
			if (first == INT64_MIN && tl->tl_n > n0) {
				first = tl->tl_at[n0];
				/* The table covers a cycle and a year more. */
				hi = first + CYCLE + 400 * SECS_PER_DAY;
			}
		}
		if (y > y0 + 1000)
			break;
	}
done:
	if (tl->tl_n == n0)
		return (0);
	*cyclo = tl->tl_at[n0];
	return (1);
}

static int
rule_name(const char *s, size_t len, size_t *ip)
{
	size_t	 i = *ip, start;

	if (i < len && s[i] == '<') {
		start = ++i;
		while (i < len && (isalnum((unsigned char)s[i]) ||
		    s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= len || s[i] != '>' || i - start < 3)
			return (-1);
		*ip = i + 1;
		return (0);
	}
	start = i;
	while (i < len && ((s[i] >= 'a' && s[i] <= 'z') ||
	    (s[i] >= 'A' && s[i] <= 'Z')))
		i++;
	if (i - start < 3)
		return (-1);
	*ip = i;
	return (0);
}

/* [+-]hh[:mm[:ss]] with hh at most maxh; the value in seconds. */
static int
rule_hms(const char *s, size_t len, size_t *ip, int maxh, int32_t *vp)
{
	size_t	 i = *ip;
	int32_t	 v, part;
	int	 neg = 0, k, digits;

	if (i < len && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	v = 0;
	for (k = 0; k < 3; k++) {
		if (k > 0) {
			if (i >= len || s[i] != ':')
				break;
			i++;
		}
		part = 0;
		digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 3) {
			part = part * 10 + (s[i++] - '0');
			digits++;
		}
		if (digits == 0 || (k > 0 && (digits > 2 || part > 59)) ||
		    (k == 0 && part > maxh))
			return (-1);
		v = v * 60 + part;
	}
	while (k++ < 3)
		v *= 60;
	*vp = neg ? -v : v;
	*ip = i;
	return (0);
}

static int
rule_num(const char *s, size_t len, size_t *ip, int lo, int hi, int *vp)
{
	size_t	 i = *ip;
	int	 v = 0, digits = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 4) {
		v = v * 10 + (s[i++] - '0');
		digits++;
	}
	if (digits == 0 || v < lo || v > hi)
		return (-1);
	*vp = v;
	*ip = i;
	return (0);
}

static int
rule_date(const char *s, size_t len, size_t *ip, struct rdate *rd)
{
	size_t	 i = *ip;

	memset(rd, 0, sizeof(*rd));
	if (i < len && s[i] == 'J') {
		i++;
		rd->rd_kind = RD_JULIAN;
		if (rule_num(s, len, &i, 1, 365, &rd->rd_day) == -1)
			return (-1);
	} else if (i < len && s[i] == 'M') {
		i++;
		rd->rd_kind = RD_MWD;
		if (rule_num(s, len, &i, 1, 12, &rd->rd_mon) == -1 ||
		    i >= len || s[i++] != '.' ||
		    rule_num(s, len, &i, 1, 5, &rd->rd_week) == -1 ||
		    i >= len || s[i++] != '.' ||
		    rule_num(s, len, &i, 0, 6, &rd->rd_wday) == -1)
			return (-1);
	} else {
		rd->rd_kind = RD_ZERO;
		if (rule_num(s, len, &i, 0, 365, &rd->rd_day) == -1)
			return (-1);
	}
	rd->rd_time = 2 * 3600;
	if (i < len && s[i] == '/') {
		i++;
		/* RFC 8536 version 3 allows -167 to 167 hours. */
		if (rule_hms(s, len, &i, 167, &rd->rd_time) == -1)
			return (-1);
	}
	*ip = i;
	return (0);
}

/*
 * Parses a POSIX TZ rule of len bytes: std offset [dst [offset]
 * [,start[/time],end[/time]]].  A rule naming DST without dates uses
 * the United States' dates, as tzcode does.  On failure *errp says
 * what went wrong and *colp where (0-based).
 */
static int
rule_parse(const char *s, size_t len, struct rule *r, size_t *colp,
    const char **errp)
{
	size_t	 i = 0;
	int32_t	 v;

	memset(r, 0, sizeof(*r));
	if (rule_name(s, len, &i) == -1) {
		*errp = "expected a zone abbreviation of 3 or more letters";
		goto bad;
	}
	if (rule_hms(s, len, &i, 24, &v) == -1) {
		*errp = "expected an offset [+-]hh[:mm[:ss]]";
		goto bad;
	}
	r->r_std = -v;
	if (i == len)
		return (0);
	if (rule_name(s, len, &i) == -1) {
		*errp = "expected a DST abbreviation of 3 or more letters";
		goto bad;
	}
	r->r_hasdst = 1;
	r->r_dst = r->r_std + 3600;
	if (i < len && s[i] != ',') {
		if (rule_hms(s, len, &i, 24, &v) == -1) {
			*errp = "expected a DST offset [+-]hh[:mm[:ss]]";
			goto bad;
		}
		r->r_dst = -v;
	}
	if (i == len) {
		r->r_start.rd_kind = r->r_end.rd_kind = RD_MWD;
		r->r_start.rd_mon = 3;
		r->r_start.rd_week = 2;
		r->r_end.rd_mon = 11;
		r->r_end.rd_week = 1;
		r->r_start.rd_time = r->r_end.rd_time = 2 * 3600;
		return (0);
	}
	if (s[i++] != ',' || rule_date(s, len, &i, &r->r_start) == -1) {
		*errp = "expected a start date Jn, n or Mm.w.d[/time]";
		goto bad;
	}
	if (i >= len || s[i++] != ',' ||
	    rule_date(s, len, &i, &r->r_end) == -1) {
		*errp = "expected an end date Jn, n or Mm.w.d[/time]";
		goto bad;
	}
	if (i != len) {
		*errp = "unexpected text after the rule";
		goto bad;
	}
	return (0);
bad:
	*colp = i;
	return (-1);
}

/*
 * TZif.
 */

static uint32_t
be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

static int64_t
be64(const unsigned char *p)
{
	return ((int64_t)((uint64_t)be32(p) << 32 | be32(p + 4)));
}

/*
 * Reads one header and data block at *pos, 4-byte (v1) or 8-byte times,
 * into tl (with tl_off0 the offset of type 0), or only checks its size
 * and steps over it when tl is NULL.  Returns 0 or -1 with *errp.
 */
static int
tzif_block(const unsigned char *b, size_t len, size_t *pos, int tsize,
    struct tlist *tl, const char **errp)
{
	uint64_t	 isut, isstd, leap, timecnt, typecnt, charcnt, need;
	const unsigned char *h, *times, *idx, *types;
	int64_t		 at, prev = 0;
	int32_t		 off;
	uint64_t	 i;

	if (len - *pos < 44 || memcmp(b + *pos, "TZif", 4) != 0) {
		*errp = "not a TZif file (bad or truncated header)";
		return (-1);
	}
	h = b + *pos + 20;
	isut = be32(h);
	isstd = be32(h + 4);
	leap = be32(h + 8);
	timecnt = be32(h + 12);
	typecnt = be32(h + 16);
	charcnt = be32(h + 20);
	if (typecnt == 0 || typecnt > 256 || charcnt == 0 ||
	    (isut != 0 && isut != typecnt) ||
	    (isstd != 0 && isstd != typecnt)) {
		*errp = "TZif header has inconsistent counts";
		return (-1);
	}
	/* Counts are at most 2^32 each: the sum cannot overflow. */
	need = timecnt * (uint64_t)tsize + timecnt + typecnt * 6 + charcnt +
	    leap * (uint64_t)(tsize + 4) + isstd + isut;
	*pos += 44;
	if (need > len - *pos) {
		*errp = "TZif data is truncated";
		return (-1);
	}
	if (tl == NULL) {
		/* Version 2 and later: the 32-bit data is only skipped. */
		*pos += need;
		return (0);
	}
	times = b + *pos;
	idx = times + timecnt * tsize;
	types = idx + timecnt;
	tl->tl_n = 0;
	tl->tl_off0 = (int32_t)be32(types);
	for (i = 0; i < typecnt; i++) {
		off = (int32_t)be32(types + i * 6);
		if (off < -OFF_LIMIT || off > OFF_LIMIT ||
		    types[i * 6 + 4] > 1 || types[i * 6 + 5] >= charcnt) {
			*errp = "TZif local time type out of range";
			return (-1);
		}
	}
	for (i = 0; i < timecnt; i++) {
		at = tsize == 4 ? (int32_t)be32(times + i * 4) :
		    be64(times + i * 8);
		if (idx[i] >= typecnt) {
			*errp = "TZif transition names a missing type";
			return (-1);
		}
		if ((i > 0 && at <= prev) || at < -TIME_LIMIT ||
		    at > TIME_LIMIT) {
			*errp = "TZif transition times out of order";
			return (-1);
		}
		prev = at;
		if (tl_push(tl, at, (int32_t)be32(types + idx[i] * 6),
		    tl->tl_n) == -1) {
			*errp = "out of memory";
			return (-1);
		}
	}
	*pos += need;
	return (0);
}

/*
 * Parses a whole TZif file into tl and, when the footer has one, the
 * rule (*hasrule set).
 */
static int
tzif_parse(const unsigned char *b, size_t len, struct tlist *tl,
    struct rule *r, int *hasrule, const char **errp)
{
	const unsigned char *nl;
	size_t		 pos = 0, col;
	int		 version;

	*hasrule = 0;
	if (len < 44 || memcmp(b, "TZif", 4) != 0) {
		*errp = "not a TZif file (bad or truncated header)";
		return (-1);
	}
	version = b[4] == 0 ? 1 : b[4] - '0';
	if (version < 1 || version > 9) {
		*errp = "unknown TZif version";
		return (-1);
	}
	if (tzif_block(b, len, &pos, 4, version == 1 ? tl : NULL, errp) ==
	    -1)
		return (-1);
	if (version == 1)
		return (0);
	if (tzif_block(b, len, &pos, 8, tl, errp) == -1)
		return (-1);
	/* The footer: a newline, the rule (maybe empty), a newline. */
	if (pos >= len || b[pos] != '\n' ||
	    (nl = memchr(b + pos + 1, '\n', len - pos - 1)) == NULL) {
		*errp = "TZif footer missing or not ended by a newline";
		return (-1);
	}
	if (nl == b + pos + 1)
		return (0);
	if (rule_parse((const char *)b + pos + 1, nl - (b + pos + 1), r,
	    &col, errp) == -1)
		return (-1);
	*hasrule = 1;
	return (0);
}

/*
 * Building the zone.
 */

static int
finish(const char *name, struct tlist *tl, const struct rule *r,
    int ruleonly, struct cron_tz **out)
{
	struct cron_tz	*z;
	int64_t		 cyclo = 0;
	size_t		 k;
	int		 cyc = 0;

	if (r != NULL && r->r_hasdst) {
		if ((cyc = expand_rule(tl, r, ruleonly, &cyclo)) == -1)
			return (-1);
		if (cyc == 0 && ruleonly)
			tl->tl_off0 = r->r_std;
	} else if (r != NULL && (ruleonly || tl->tl_n == 0))
		tl->tl_off0 = r->r_std;
	else if (r != NULL && r->r_std != tl->tl_off[tl->tl_n - 1]) {
		/* The footer's fixed offset follows the last transition. */
		if (tl_push(tl, tl->tl_at[tl->tl_n - 1] + 1, r->r_std,
		    tl->tl_n) == -1)
			return (-1);
	}
	if ((z = calloc(1, sizeof(*z))) == NULL)
		return (-1);
	if ((z->z_name = strdup(name == NULL ? "" : name)) == NULL)
		goto fail;
	z->z_n = tl->tl_n;
	z->z_off0 = tl->tl_off0;
	z->z_offmax = tl->tl_off0;
	if (tl->tl_n > 0) {
		z->z_at = tl->tl_at;
		z->z_off = tl->tl_off;
		tl->tl_at = NULL;
		tl->tl_off = NULL;
		if ((z->z_lkey = reallocarray(NULL, z->z_n,
		    sizeof(int64_t))) == NULL)
			goto fail;
	}
	for (k = 0; k < z->z_n; k++) {
		z->z_lkey[k] = z->z_at[k] + (k == 0 ? z->z_off0 :
		    z->z_off[k - 1]);
		/*
		 * Keys must ascend for tz_local_to_utc(); they do in
		 * every real zone (no segment is shorter than the step
		 * back before it), and a broken one is flattened rather
		 * than trusted.
		 */
		if (k > 0 && z->z_lkey[k] < z->z_lkey[k - 1])
			z->z_lkey[k] = z->z_lkey[k - 1];
		if (z->z_off[k] > z->z_offmax)
			z->z_offmax = z->z_off[k];
	}
	z->z_cycle = cyc;
	z->z_foldback = cyc && ruleonly;
	z->z_cyclo = cyclo;
	tl_free(tl);
	*out = z;
	return (0);
fail:
	tz_free(z);
	return (-1);
}

static void
set_diag(struct cron_diag *diag, const char *name, size_t col,
    const char *what, const char *err)
{
	if (diag == NULL)
		return;
	memset(diag, 0, sizeof(*diag));
	diag->d_line = col > 0 ? 1 : 0;
	diag->d_col = col;
	snprintf(diag->d_msg, sizeof(diag->d_msg), "%s%s%s: %s",
	    what, name != NULL && *name != '\0' ? " " : "",
	    name != NULL ? name : "", err);
}

/*
 * tz_parse(): see parser.h.  The buffer is borrowed; name is copied.
 */
int
tz_parse(const char *name, const void *buf, size_t len, int isrule,
    struct cron_tz **out, struct cron_diag *diag)
{
	struct tlist	 tl;
	struct rule	 r;
	const char	*err = NULL;
	size_t		 col = 0;
	int		 hasrule = 0;

	*out = NULL;
	memset(&tl, 0, sizeof(tl));
	if (buf == NULL && len > 0) {
		set_diag(diag, name, 0, "zone", "no data");
		return (-1);
	}
	if (isrule) {
		if (rule_parse(buf, len, &r, &col, &err) == -1) {
			set_diag(diag, name, col + 1, "TZ rule", err);
			return (-1);
		}
		hasrule = 1;
	} else if (tzif_parse(buf, len, &tl, &r, &hasrule, &err) == -1) {
		tl_free(&tl);
		set_diag(diag, name, 0, "zone", err);
		return (-1);
	}
	if (finish(name, &tl, hasrule ? &r : NULL, isrule || (hasrule &&
	    tl.tl_n == 0), out) == -1) {
		tl_free(&tl);
		set_diag(diag, name, 0, "zone", strerror(ENOMEM));
		errno = ENOMEM;
		return (-1);
	}
	return (0);
}

/* tz_utc(): UTC, a zone without transitions. */
int
tz_utc(struct cron_tz **out)
{
	struct cron_tz	*z;

	*out = NULL;
	if ((z = calloc(1, sizeof(*z))) == NULL)
		return (-1);
	if ((z->z_name = strdup("UTC")) == NULL) {
		free(z);
		return (-1);
	}
	*out = z;
	return (0);
}

void
tz_free(struct cron_tz *z)
{
	if (z == NULL)
		return;
	free(z->z_name);
	free(z->z_at);
	free(z->z_lkey);
	free(z->z_off);
	free(z);
}

/* The name given to tz_parse(), owned by the zone. */
const char *
tz_name(const struct cron_tz *z)
{
	return (z->z_name);
}

/*
 * Queries.
 */

/*
 * Folds t into the table: instants beyond it (and, for a bare rule,
 * before it) are moved by whole 400-year cycles into
 * [z_cyclo + MARGIN, z_cyclo + CYCLE + MARGIN); *shift is what was
 * taken off.  The margin keeps a folded instant more than two days past
 * the start of the repeating part, so that the transitions
 * tz_highwater() looks back on are the rule's too.
 */
static int64_t
tz_fold(const struct cron_tz *z, int64_t t, int64_t *shift)
{
	int64_t	 base, k;

	*shift = 0;
	if (t > TIME_LIMIT)
		t = TIME_LIMIT;
	else if (t < -TIME_LIMIT)
		t = -TIME_LIMIT;
	if (!z->z_cycle)
		return (t);
	base = z->z_cyclo + MARGIN;
	if (t >= base + CYCLE || (z->z_foldback && t < base)) {
		k = floordiv(t - base, CYCLE);
		*shift = k * CYCLE;
	}
	return (t - *shift);
}

/*
 * The number of entries of keys[0..n) that are <= t: the index of the
 * segment containing t, where segment k + 1 starts at keys[k].
 */
static size_t
upper(const int64_t *keys, size_t n, int64_t t)
{
	size_t	 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (keys[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* Index of the segment (0 before the first transition) holding t. */
static size_t
tz_find(const struct cron_tz *z, int64_t t, int64_t *shift)
{
	return (upper(z->z_at, z->z_n, tz_fold(z, t, shift)));
}

static int32_t
seg_off(const struct cron_tz *z, size_t seg)
{
	return (seg == 0 ? z->z_off0 : z->z_off[seg - 1]);
}

/* tz_offset(): see parser.h. */
int32_t
tz_offset(const struct cron_tz *z, time_t t)
{
	int64_t	 shift;

	if (z == NULL || z->z_n == 0)
		return (z == NULL ? 0 : z->z_off0);
	return (seg_off(z, tz_find(z, t, &shift)));
}

int32_t
tz_segment(const struct cron_tz *z, int64_t t, int64_t *start, int64_t *end,
    int32_t *nextoff)
{
	int64_t	 shift;
	size_t	 seg;
	int32_t	 off;

	*start = INT64_MIN;
	*end = INT64_MAX;
	if (z == NULL || z->z_n == 0) {
		*nextoff = off = z == NULL ? 0 : z->z_off0;
		return (off);
	}
	seg = tz_find(z, t, &shift);
	off = seg_off(z, seg);
	*nextoff = off;
	if (seg > 0)
		*start = z->z_at[seg - 1] + shift;
	if (seg < z->z_n) {
		*end = z->z_at[seg] + shift;
		*nextoff = z->z_off[seg];
	}
	return (off);
}

/* tz_transition(): see parser.h. */
int
tz_transition(const struct cron_tz *z, time_t t, time_t limit,
    time_t *when, int32_t *before, int32_t *after)
{
	int64_t	 start, end;
	int32_t	 off, noff;

	off = tz_segment(z, t, &start, &end, &noff);
	if (end == INT64_MAX || end >= limit)
		return (0);
	*when = end;
	*before = off;
	*after = noff;
	return (1);
}

int64_t
tz_highwater(const struct cron_tz *z, int64_t t)
{
	int64_t	 shift, hw, span;
	size_t	 seg;

	if (z == NULL || z->z_n == 0)
		return (t + (z == NULL ? 0 : z->z_off0));
	seg = tz_find(z, t, &shift);
	t -= shift;
	hw = t + seg_off(z, seg);
	/*
	 * A transition at T moving the clock back leaves the local time
	 * T - 1 + (offset before) behind; only transitions within a day
	 * or so of t can matter.
	 */
	span = 2 * OFF_LIMIT;
	while (seg > 0 && z->z_at[seg - 1] > t - span) {
		if (z->z_at[seg - 1] - 1 + seg_off(z, seg - 1) > hw)
			hw = z->z_at[seg - 1] - 1 + seg_off(z, seg - 1);
		seg--;
	}
	return (hw + shift);
}

int64_t
tz_local_to_utc(const struct cron_tz *z, int64_t local)
{
	int64_t	 shift = 0, base, k, t;
	size_t	 seg;

	if (z == NULL || z->z_n == 0)
		return (local - (z == NULL ? 0 : z->z_off0));
	if (local > TIME_LIMIT)
		local = TIME_LIMIT;
	else if (local < -TIME_LIMIT)
		local = -TIME_LIMIT;
	if (z->z_cycle) {
		base = z->z_cyclo + MARGIN;
		if (local >= base + CYCLE || (z->z_foldback && local < base)) {
			k = floordiv(local - base, CYCLE);
			shift = k * CYCLE;
		}
	}
	local -= shift;
	/*
	 * Segment k + 1 is the last whose transition happens at a local
	 * time (seen on the clock before it) not after `local': there
	 * `local' is either shown (local - offset), or was skipped by the
	 * jump, which is then the answer.
	 */
	seg = upper(z->z_lkey, z->z_n, local);
	t = local - seg_off(z, seg);
	if (seg > 0 && t < z->z_at[seg - 1])
		t = z->z_at[seg - 1];
	return (t + shift);
}

int32_t
tz_offmax(const struct cron_tz *z)
{
	return (z == NULL ? 0 : z->z_offmax);
}
