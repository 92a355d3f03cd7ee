/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * attime.c: the times of at(1).  A timespec is at's words joined by
 * blanks, read as Debian's at 3.2.5 reads it: the POSIX forms (now, an
 * hour, HH:MM, HHMM, am and pm, noon, midnight, utc, a month name and
 * day with an optional year, weekdays, today, tomorrow, increments of
 * minutes to years, next) and Debian's additions (teatime, the dates
 * MMDD[CC]YY, MM/DD/[CC]YY, DD.MM.[CC]YY and [CC]YY-MM-DD, "day month",
 * the separators h, ',', '.' and ' in HH:MM, "-" decrements).  The
 * second form is at -t's [[CC]YY]MMDDhhmm[.SS], as touch(1) has it.
 *
 * Words are cut as at's flex scanner cuts them: at each place the
 * longest of its patterns wins, case does not matter, and blanks are
 * needed only where two patterns would run together, so "noontomorrow"
 * is noon tomorrow and "mondays" is monday followed by a stray "s".
 * The grammar is at's, with the POSIX forms Debian's at refuses (a bare
 * hour such as "10", "next" as an increment after a date or now).
 *
 * What a timespec means follows at(1): an unset date is today, an unset
 * time of day the current minute (seconds are dropped).  A time of day
 * alone that is not ahead of the clock means tomorrow; a month and day
 * without a year that has passed this year means next year; anything
 * else before the current minute is refused.  Where Debian's at gets
 * it wrong we do better, and tests/data/at lists each such case with
 * what Debian's at does:
 *
 *  - Minutes and hours are elapsed time.  at adds them and then moves
 *    the wall clock back or forth by an hour when DST began or ended on
 *    the way, so "now + 30 minutes" just before the spring jump lands
 *    before now, and "now + 1 hour" just after the autumn one is two
 *    hours away.  Days, weeks, months and years keep the time of day.
 *  - A local time the clocks skip means the moment of the jump (02:30
 *    on the day clocks go from 02:00 to 03:00 is 03:00), as cron runs
 *    fixed-time jobs (DESIGN.md); at picks 03:30, or even 01:30 when
 *    "tomorrow" is reached by adding a day.  A local time the clocks
 *    repeat means its first occurrence, or the second when the first
 *    has passed; at's choice depends on what mktime() last did.
 *  - With utc (or a zone name) the date too is that zone's, and "past"
 *    compares times in that zone: at mixes the local date and the
 *    local clock with a UTC time of day, so "10:00 utc" can be refused
 *    as past although 10:00 UTC has not come yet.
 *  - Dates that do not exist (30 February, 31 April, day 0) and times
 *    past 24:00 or with minute 60 are refused; at rolls them into the
 *    next day or month.  A four-digit year is the year written (at
 *    reads 1899 as 3799).  Only a month and day without a year move to
 *    next year: at also moves "10:00 - 1 day" or "tomorrow - 2 days" a
 *    year ahead instead of calling them past.
 *
 * A zone name such as Europe/Paris may follow the time of day where utc
 * may (our extension): the caller's loader turns the name into a zone.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "next_int.h"

/* Token types; keywords carry a value (weekday, month, period). */
enum {
	TK_END, TK_CHAR, TK_INT, TK_DOTTED, TK_HYPHEN, TK_HOURMIN, TK_ZONE,
	TK_NOW, TK_AM, TK_PM, TK_NOON, TK_MIDNIGHT, TK_TEATIME, TK_DOW,
	TK_TODAY, TK_TOMORROW, TK_NEXT, TK_PERIOD, TK_MONTH, TK_UTC
};

/* Periods of increments. */
enum { P_MINUTE, P_HOUR, P_DAY, P_WEEK, P_MONTH, P_YEAR };

/* at's keywords: a stem and an optional ending (sun, sunday). */
struct keyword {
	const char	*kw_stem;
	const char	*kw_tail;
	int		 kw_type;
	int		 kw_val;
};

/* In at's order: the first of two matches of the same length wins. */
static const struct keyword keywords[] = {
	{ "now", "", TK_NOW, 0 },
	{ "am", "", TK_AM, 0 },
	{ "pm", "", TK_PM, 0 },
	{ "noon", "", TK_NOON, 0 },
	{ "midnight", "", TK_MIDNIGHT, 0 },
	{ "teatime", "", TK_TEATIME, 0 },
	{ "sun", "day", TK_DOW, 0 },
	{ "mon", "day", TK_DOW, 1 },
	{ "tue", "sday", TK_DOW, 2 },
	{ "wed", "nesday", TK_DOW, 3 },
	{ "thu", "rsday", TK_DOW, 4 },
	{ "fri", "day", TK_DOW, 5 },
	{ "sat", "urday", TK_DOW, 6 },
	{ "today", "", TK_TODAY, 0 },
	{ "tomorrow", "", TK_TOMORROW, 0 },
	{ "next", "", TK_NEXT, 0 },
	{ "min", "", TK_PERIOD, P_MINUTE },
	{ "minute", "s", TK_PERIOD, P_MINUTE },
	{ "hour", "s", TK_PERIOD, P_HOUR },
	{ "day", "s", TK_PERIOD, P_DAY },
	{ "week", "s", TK_PERIOD, P_WEEK },
	{ "month", "s", TK_PERIOD, P_MONTH },
	{ "year", "s", TK_PERIOD, P_YEAR },
	{ "jan", "uary", TK_MONTH, 1 },
	{ "feb", "ruary", TK_MONTH, 2 },
	{ "mar", "ch", TK_MONTH, 3 },
	{ "apr", "il", TK_MONTH, 4 },
	{ "may", "", TK_MONTH, 5 },
	{ "jun", "e", TK_MONTH, 6 },
	{ "jul", "y", TK_MONTH, 7 },
	{ "aug", "ust", TK_MONTH, 8 },
	{ "sep", "tember", TK_MONTH, 9 },
	{ "oct", "ober", TK_MONTH, 10 },
	{ "nov", "ember", TK_MONTH, 11 },
	{ "dec", "ember", TK_MONTH, 12 },
	{ "utc", "", TK_UTC, 0 },
};

static const char *const month_names[13] = {
	"", "January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"
};

struct tok {
	int		 k_type;
	int		 k_val;		/* keywords: weekday, month, period */
	size_t		 k_pos;		/* 0-based offset in the text */
	size_t		 k_len;
	int		 k_ndig;	/* TK_INT: digits */
	int64_t		 k_num;		/* TK_INT: value (capped) */
	int		 k_f[3];	/* fields of dates and HH:MM */
	int		 k_wide;	/* year of four digits */
};

/*
 * The parse: the text, the zones, and the time being built as a local
 * (wall-clock) date and time in the zone in force.  After an increment
 * of minutes or hours the time is an instant (a_pinned), which the
 * local fields mirror.
 */
struct atparse {
	const char	*a_text;
	size_t		 a_len;
	size_t		 a_pos;		/* where the next token starts */
	struct cron_diag *a_diag;
	const struct cron_tz *a_tz;	/* zone in force */
	struct cron_tz	*a_owned;	/* loaded zone, freed at the end */
	struct cron_tz	*(*a_load)(const char *, void *);
	void		*a_arg;
	int64_t		 a_now;		/* now, seconds dropped */

	int64_t		 a_tyear;	/* today in the zone in force */
	int		 a_tmon;
	int		 a_tday;
	int		 a_tmin;	/* minute of today, 0-1439 */

	int64_t		 a_year;	/* the time being built */
	int		 a_mon;
	int		 a_day;
	int		 a_hour;	/* 0-24: 24:00 is the next midnight */
	int		 a_min;
	int		 a_sec;
	int		 a_pinned;
	int64_t		 a_instant;

	int		 a_timeonly;	/* a time of day and no date */
	int		 a_mdnoyear;	/* month and day without a year */
	size_t		 a_mdpos;	/* where that date was written */
	size_t		 a_mdlen;
};

#define TOKMAX		24		/* longest token quoted */
#define COUNT_MAX	99999999	/* largest increment */
#define YEAR_MAX	9999

static void	 at_diag(struct atparse *, size_t, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4)));
static int	 is_blank(int);
static size_t	 run(const char *, size_t, size_t, int);
static size_t	 lex_keyword(const struct atparse *, size_t, struct tok *);
static size_t	 lex_dotted(const struct atparse *, size_t, struct tok *);
static size_t	 lex_hyphen(const struct atparse *, size_t, struct tok *);
static size_t	 lex_hourmin(const struct atparse *, size_t, struct tok *);
static size_t	 lex_zone(const struct atparse *, size_t);
static void	 lex(const struct atparse *, size_t, struct tok *);
static void	 peek(const struct atparse *, struct tok *);
static void	 take(struct atparse *, struct tok *);
static void	 describe(const struct atparse *, const struct tok *, char *,
		    size_t);
static int	 unexpected(struct atparse *, const struct tok *,
		    const char *);
static void	 set_local(struct atparse *, int64_t);
static void	 set_zone(struct atparse *, const struct cron_tz *);
static int64_t	 resolve(const struct atparse *);
static int	 check_year(struct atparse *, int64_t);
static void	 add_days(struct atparse *, int64_t);
static int	 add_period(struct atparse *, int64_t, int);
static int	 time_of_day(struct atparse *, int, int, const struct tok *);
static int	 parse_time(struct atparse *);
static int	 parse_zone(struct atparse *);
static int	 starts_date(const struct tok *);
static int	 year_of(const struct tok *, int64_t *);
static int	 set_date(struct atparse *, int64_t, int, int,
		    const struct tok *, size_t);
static int	 parse_monthday(struct atparse *);
static int	 parse_daymonth(struct atparse *);
static int	 parse_slashdate(struct atparse *);
static int	 parse_concat(struct atparse *, const struct tok *);
static int	 parse_date(struct atparse *);
static int	 parse_increment(struct atparse *);
static int	 finish(struct atparse *, time_t *);

/* Fill the caller's diagnostic; column is 1-based, 0 for the whole. */
static void
at_diag(struct atparse *a, size_t col, const char *fmt, ...)
{
	va_list	 ap;

	a->a_diag->d_file = NULL;
	a->a_diag->d_line = 1;
	a->a_diag->d_col = col;
	a->a_diag->d_warning = 0;
	va_start(ap, fmt);
	(void)vsnprintf(a->a_diag->d_msg, sizeof(a->a_diag->d_msg), fmt, ap);
	va_end(ap);
}

/* flex's [ \t\n]. */
static int
is_blank(int c)
{
	return (c == ' ' || c == '\t' || c == '\n');
}

/* The number of digits (what 1) or letters (what 0) from pos on. */
static size_t
run(const char *s, size_t len, size_t pos, int digits)
{
	size_t	 n = 0;

	while (pos + n < len && (digits ?
	    isdigit((unsigned char)s[pos + n]) :
	    isalpha((unsigned char)s[pos + n])))
		n++;
	return (n);
}

/* The longest keyword at pos, 0 when none. */
static size_t
lex_keyword(const struct atparse *a, size_t pos, struct tok *t)
{
	const struct keyword	*kw;
	size_t			 i, n, best = 0, sl, tl;

	for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
		kw = &keywords[i];
		sl = strlen(kw->kw_stem);
		tl = strlen(kw->kw_tail);
		if (pos + sl > a->a_len ||
		    strncasecmp(a->a_text + pos, kw->kw_stem, sl) != 0)
			continue;
		n = sl;
		if (tl > 0 && pos + sl + tl <= a->a_len &&
		    strncasecmp(a->a_text + pos + sl, kw->kw_tail, tl) == 0)
			n += tl;
		if (n > best) {
			best = n;
			t->k_type = kw->kw_type;
			t->k_val = kw->kw_val;
		}
	}
	return (best);
}

/* [0-9]{1,2}\.[0-9]{1,2}\.[0-9]{2}([0-9]{2})?: day, month, year. */
static size_t
lex_dotted(const struct atparse *a, size_t pos, struct tok *t)
{
	const char	*s = a->a_text;
	size_t		 n1, n2, n3, p;

	n1 = run(s, a->a_len, pos, 1);
	if (n1 < 1 || n1 > 2 || pos + n1 >= a->a_len || s[pos + n1] != '.')
		return (0);
	p = pos + n1 + 1;
	n2 = run(s, a->a_len, p, 1);
	if (n2 < 1 || n2 > 2 || p + n2 >= a->a_len || s[p + n2] != '.')
		return (0);
	p += n2 + 1;
	n3 = run(s, a->a_len, p, 1);
	if (n3 < 2)
		return (0);
	n3 = n3 >= 4 ? 4 : 2;
	t->k_f[0] = (int)strtol(s + pos, NULL, 10);
	t->k_f[1] = (int)strtol(s + pos + n1 + 1, NULL, 10);
	t->k_f[2] = (s[p] - '0') * 10 + (s[p + 1] - '0');
	if (n3 == 4)
		t->k_f[2] = t->k_f[2] * 100 + (s[p + 2] - '0') * 10 +
		    (s[p + 3] - '0');
	t->k_wide = n3 == 4;
	return (p + n3 - pos);
}

/* [0-9]{2}([0-9]{2})?-[0-9]{1,2}-[0-9]{1,2}: year, month, day. */
static size_t
lex_hyphen(const struct atparse *a, size_t pos, struct tok *t)
{
	const char	*s = a->a_text;
	size_t		 n1, n2, n3, p;
	int		 i;

	n1 = run(s, a->a_len, pos, 1);
	if ((n1 != 2 && n1 != 4) || pos + n1 >= a->a_len ||
	    s[pos + n1] != '-')
		return (0);
	p = pos + n1 + 1;
	n2 = run(s, a->a_len, p, 1);
	if (n2 < 1 || n2 > 2 || p + n2 >= a->a_len || s[p + n2] != '-')
		return (0);
	p += n2 + 1;
	n3 = run(s, a->a_len, p, 1);
	if (n3 < 1)
		return (0);
	if (n3 > 2)
		n3 = 2;
	t->k_f[0] = 0;
	for (i = 0; i < (int)n1; i++)
		t->k_f[0] = t->k_f[0] * 10 + (s[pos + i] - '0');
	t->k_f[1] = (int)strtol(s + pos + n1 + 1, NULL, 10);
	t->k_f[2] = s[p] - '0';
	if (n3 == 2)
		t->k_f[2] = t->k_f[2] * 10 + (s[p + 1] - '0');
	t->k_wide = n1 == 4;
	return (p + n3 - pos);
}

/* [012]?[0-9][:'h,.][0-9]{2}: hour, minute. */
static size_t
lex_hourmin(const struct atparse *a, size_t pos, struct tok *t)
{
	const char	*s = a->a_text;
	size_t		 n1, p;

	n1 = run(s, a->a_len, pos, 1);
	if (n1 < 1 || n1 > 2 || (n1 == 2 && s[pos] > '2') ||
	    pos + n1 >= a->a_len ||
	    strchr(":'hH,.", s[pos + n1]) == NULL)
		return (0);
	p = pos + n1 + 1;
	if (run(s, a->a_len, p, 1) < 2)
		return (0);
	t->k_f[0] = n1 == 1 ? s[pos] - '0' :
	    (s[pos] - '0') * 10 + (s[pos + 1] - '0');
	t->k_f[1] = (s[p] - '0') * 10 + (s[p + 1] - '0');
	return (p + 2 - pos);
}

/*
 * Our extension: a zone name such as America/New_York or Etc/GMT+5, a
 * letter then letters, digits and _+-, with at least one '/'.  No dots:
 * a name can never climb out of the zone directory.
 */
static size_t
lex_zone(const struct atparse *a, size_t pos)
{
	const char	*s = a->a_text;
	size_t		 p = pos;
	int		 slash = 0;

	if (!isalpha((unsigned char)s[p]))
		return (0);
	while (p < a->a_len && (isalnum((unsigned char)s[p]) ||
	    strchr("_+-/", s[p]) != NULL)) {
		if (s[p] == '/') {
			if (p + 1 >= a->a_len || s[p + 1] == '/' ||
			    s[p - 1] == '/')
				return (0);
			slash = 1;
		}
		p++;
	}
	if (!slash || s[p - 1] == '/')
		return (0);
	return (p - pos);
}

/*
 * The token at or after pos: blanks are skipped, then the longest
 * match wins, ties going to the earlier pattern as in flex: keywords,
 * integers, DD.MM.YY, YY-MM-DD, HH:MM, zone names, one character.
 */
static void
lex(const struct atparse *a, size_t pos, struct tok *t)
{
	struct tok	 c;
	size_t		 n, best;
	const char	*s = a->a_text;
	int64_t		 v;
	size_t		 i;

	while (pos < a->a_len && is_blank((unsigned char)s[pos]))
		pos++;
	memset(t, 0, sizeof(*t));
	t->k_pos = pos;
	if (pos >= a->a_len) {
		t->k_type = TK_END;
		return;
	}
	best = 0;
	memset(&c, 0, sizeof(c));
	if ((n = lex_keyword(a, pos, &c)) > 0) {
		best = n;
		t->k_type = c.k_type;
		t->k_val = c.k_val;
	}
	/* Keywords begin with a letter, integers with a digit. */
	if ((n = run(s, a->a_len, pos, 1)) > 0) {
		best = n;
		t->k_type = TK_INT;
		t->k_ndig = (int)n;
		for (v = 0, i = 0; i < n; i++)
			if (v <= COUNT_MAX)
				v = v * 10 + (s[pos + i] - '0');
		t->k_num = v;
	}
	memset(&c, 0, sizeof(c));
	if ((n = lex_dotted(a, pos, &c)) > best) {
		best = n;
		c.k_type = TK_DOTTED;
		c.k_pos = pos;
		*t = c;
	}
	memset(&c, 0, sizeof(c));
	if ((n = lex_hyphen(a, pos, &c)) > best) {
		best = n;
		c.k_type = TK_HYPHEN;
		c.k_pos = pos;
		*t = c;
	}
	memset(&c, 0, sizeof(c));
	if ((n = lex_hourmin(a, pos, &c)) > best) {
		best = n;
		c.k_type = TK_HOURMIN;
		c.k_pos = pos;
		*t = c;
	}
	if ((n = lex_zone(a, pos)) > best) {
		best = n;
		memset(t, 0, sizeof(*t));
		t->k_type = TK_ZONE;
		t->k_pos = pos;
	}
	if (best == 0) {
		t->k_type = TK_CHAR;
		best = 1;
	}
	t->k_len = best;
}

static void
peek(const struct atparse *a, struct tok *t)
{
	lex(a, a->a_pos, t);
}

static void
take(struct atparse *a, struct tok *t)
{
	lex(a, a->a_pos, t);
	a->a_pos = t->k_pos + t->k_len;
}

/*
 * A token for a message: "the end", a byte, or its text; a stray
 * letter is quoted with the rest of its word ("tomorow"), and one
 * glued to what came before with that word too ("s" in "mondays").
 */
static void
describe(const struct atparse *a, const struct tok *t, char *buf,
    size_t size)
{
	const char	*s = a->a_text;
	unsigned char	 c;
	size_t		 ws, we, n;

	if (t->k_type == TK_END) {
		(void)strlcpy(buf, "the end", size);
		return;
	}
	for (ws = t->k_pos; ws > 0 && !is_blank((unsigned char)s[ws - 1]);
	    ws--)
		;
	for (we = t->k_pos; we < a->a_len &&
	    !is_blank((unsigned char)s[we]); we++)
		;
	if (t->k_type != TK_CHAR) {
		n = t->k_len > TOKMAX ? TOKMAX : t->k_len;
		if (ws == t->k_pos && we == t->k_pos + t->k_len)
			(void)snprintf(buf, size, "\"%.*s%s\"", (int)n,
			    s + t->k_pos, t->k_len > TOKMAX ? "..." : "");
		else
			(void)snprintf(buf, size, "\"%.*s%s\" in \"%.*s%s\"",
			    (int)n, s + t->k_pos, t->k_len > TOKMAX ? "..." :
			    "", (int)(we - ws > TOKMAX ? TOKMAX : we - ws),
			    s + ws, we - ws > TOKMAX ? "..." : "");
		return;
	}
	c = (unsigned char)s[t->k_pos];
	if (!isprint(c) || c == ' ') {
		(void)snprintf(buf, size, "byte 0x%02x", c);
		return;
	}
	if (!isalnum(c)) {
		(void)snprintf(buf, size, "'%c'", c);
		return;
	}
	if (ws < t->k_pos) {
		n = run(s, a->a_len, t->k_pos, isdigit(c) != 0);
		(void)snprintf(buf, size, "\"%.*s%s\" in \"%.*s%s\"",
		    (int)(n > TOKMAX ? TOKMAX : n), s + t->k_pos,
		    n > TOKMAX ? "..." : "",
		    (int)(we - ws > TOKMAX ? TOKMAX : we - ws), s + ws,
		    we - ws > TOKMAX ? "..." : "");
		return;
	}
	n = we - t->k_pos;
	(void)snprintf(buf, size, "\"%.*s%s\"", (int)(n > TOKMAX ? TOKMAX :
	    n), s + t->k_pos, n > TOKMAX ? "..." : "");
}

static int
unexpected(struct atparse *a, const struct tok *t, const char *expected)
{
	char	 what[2 * TOKMAX + 32];

	describe(a, t, what, sizeof(what));
	at_diag(a, t->k_pos + 1, "found %s, expected %s", what, expected);
	return (-1);
}

/* Set the local fields from an instant in the zone in force. */
static void
set_local(struct atparse *a, int64_t t)
{
	int64_t	 local, secs;

	local = t + tz_offset(a->a_tz, (time_t)t);
	days_to_civil(floordiv(local, SECS_PER_DAY), &a->a_year, &a->a_mon,
	    &a->a_day);
	secs = floormod(local, SECS_PER_DAY);
	a->a_hour = (int)(secs / 3600);
	a->a_min = (int)(secs / 60 % 60);
	a->a_sec = (int)(secs % 60);
}

/*
 * A zone comes into force: today and the date being built become that
 * zone's.  Only a time of day can have been set before, so it is kept.
 */
static void
set_zone(struct atparse *a, const struct cron_tz *tz)
{
	int	 hour = a->a_hour, min = a->a_min;

	a->a_tz = tz;
	set_local(a, a->a_now);
	a->a_tyear = a->a_year;
	a->a_tmon = a->a_mon;
	a->a_tday = a->a_day;
	a->a_tmin = a->a_hour * 60 + a->a_min;
	a->a_hour = hour;
	a->a_min = min;
}

/*
 * The instant at which the zone's clock shows the local time being
 * built: as cron runs a fixed-time job (tz_local_to_utc(): the first
 * occurrence of a repeated time, the jump for a skipped one), except
 * that of two occurrences (clocks went back) the second is taken when
 * the first is before now.  Offsets change by less than a day, so the
 * offset in force a day after is the second's.
 */
static int64_t
resolve(const struct atparse *a)
{
	int64_t	 c, t, u2;
	int32_t	 after;

	if (a->a_pinned)
		return (a->a_instant);
	c = civil_to_days(a->a_year, a->a_mon, a->a_day) * SECS_PER_DAY +
	    a->a_hour * 3600 + a->a_min * 60 + a->a_sec;
	t = tz_local_to_utc(a->a_tz, c);
	if (t < a->a_now) {
		after = tz_offset(a->a_tz, (time_t)(c + SECS_PER_DAY));
		u2 = c - after;
		if (u2 > t &&
		    tz_offset(a->a_tz, (time_t)u2) == after)
			t = u2;
	}
	return (t);
}

/* Times beyond the year 9999 are refused before any arithmetic. */
static int
check_year(struct atparse *a, int64_t y)
{
	if (y > YEAR_MAX) {
		at_diag(a, 0, "found a time in the year %lld, expected one "
		    "before the year %d", (long long)y, YEAR_MAX + 1);
		return (-1);
	}
	return (0);
}

/* Move the date by n days, keeping the time of day. */
static void
add_days(struct atparse *a, int64_t n)
{
	days_to_civil(civil_to_days(a->a_year, a->a_mon, a->a_day) + n,
	    &a->a_year, &a->a_mon, &a->a_day);
	a->a_pinned = 0;
}

/*
 * An increment of n periods.  Minutes and hours are elapsed time from
 * the instant the time stands for; days and weeks move the date and
 * keep the time of day; months and years move the month or the year
 * and, as at (and mktime()) does, a day the new month lacks runs into
 * the next (31 January + 1 month is 3 March, or 2 March in a leap
 * year).
 */
static int
add_period(struct atparse *a, int64_t n, int period)
{
	int64_t	 t, m;

	switch (period) {
	case P_MINUTE:
	case P_HOUR:
		if (check_year(a, a->a_year) == -1)
			return (-1);
		t = resolve(a) + n * (period == P_MINUTE ? 60 : 3600);
		if (check_year(a, a->a_year + n / (period == P_MINUTE ?
		    525600 : 8760)) == -1)
			return (-1);
		a->a_instant = t;
		set_local(a, t);
		a->a_pinned = 1;
		return (0);
	case P_DAY:
		add_days(a, n);
		break;
	case P_WEEK:
		add_days(a, 7 * n);
		break;
	case P_MONTH:
		m = a->a_year * 12 + (a->a_mon - 1) + n;
		a->a_year = floordiv(m, 12);
		a->a_mon = (int)floormod(m, 12) + 1;
		add_days(a, 0);
		break;
	case P_YEAR:
		a->a_year += n;
		add_days(a, 0);
		break;
	}
	return (check_year(a, a->a_year));
}

/* A time of day from token t: hours 0-23, or 24:00. */
static int
time_of_day(struct atparse *a, int hour, int min, const struct tok *t)
{
	if (min > 59) {
		at_diag(a, t->k_pos + 1, "found minute %02d in \"%.*s\", "
		    "expected 00-59", min, (int)t->k_len, a->a_text + t->k_pos);
		return (-1);
	}
	if (hour > 24 || (hour == 24 && min != 0)) {
		at_diag(a, t->k_pos + 1, "found \"%.*s\", expected a time of "
		    "day from 00:00 to 23:59, or 24:00", (int)t->k_len,
		    a->a_text + t->k_pos);
		return (-1);
	}
	a->a_hour = hour;
	a->a_min = min;
	a->a_sec = 0;
	a->a_pinned = 0;
	return (0);
}

/*
 * time = HHMM | HH:MM [am|pm] | H[H] [am|pm] | noon | midnight |
 * teatime.  A bare hour is POSIX's (Debian's at wants am or pm).
 */
static int
parse_time(struct atparse *a)
{
	struct tok	 t, m;
	int		 hour, min;

	take(a, &t);
	switch (t.k_type) {
	case TK_NOON:
		return (time_of_day(a, 12, 0, &t));
	case TK_MIDNIGHT:
		return (time_of_day(a, 0, 0, &t));
	case TK_TEATIME:
		return (time_of_day(a, 16, 0, &t));
	case TK_INT:
		if (t.k_ndig == 4)
			return (time_of_day(a, (int)(t.k_num / 100),
			    (int)(t.k_num % 100), &t));
		hour = (int)t.k_num;
		min = 0;
		break;
	case TK_HOURMIN:
		hour = t.k_f[0];
		min = t.k_f[1];
		break;
	default:
		return (unexpected(a, &t, "a time of day"));
	}
	peek(a, &m);
	if (m.k_type == TK_AM || m.k_type == TK_PM) {
		if (hour > 12) {
			at_diag(a, t.k_pos + 1, "found hour %d before %s, "
			    "expected 0-12", hour, m.k_type == TK_AM ? "am" :
			    "pm");
			return (-1);
		}
		if (min > 59)
			return (time_of_day(a, hour, min, &t));
		take(a, &m);
		if (m.k_type == TK_AM && hour == 12)
			hour = 0;
		else if (m.k_type == TK_PM && hour < 12)
			hour += 12;
		return (time_of_day(a, hour, min, &t));
	}
	if (t.k_type == TK_INT && hour > 23) {
		at_diag(a, t.k_pos + 1, "found hour %d, expected 0-23",
		    hour);
		return (-1);
	}
	return (time_of_day(a, hour, min, &t));
}

/* An optional zone after the time of day: utc, or a name. */
static int
parse_zone(struct atparse *a)
{
	struct tok	 t;
	struct cron_tz	*tz;
	char		 name[128];

	peek(a, &t);
	if (t.k_type == TK_UTC) {
		take(a, &t);
		if (tz_utc(&a->a_owned) == -1) {
			at_diag(a, t.k_pos + 1, "out of memory");
			return (-1);
		}
		set_zone(a, a->a_owned);
		return (0);
	}
	if (t.k_type != TK_ZONE)
		return (0);
	take(a, &t);
	if (a->a_load == NULL) {
		at_diag(a, t.k_pos + 1, "found \"%.*s%s\", expected utc "
		    "(zone names are not available here)",
		    (int)(t.k_len > TOKMAX ? TOKMAX : t.k_len),
		    a->a_text + t.k_pos, t.k_len > TOKMAX ? "..." : "");
		return (-1);
	}
	tz = NULL;
	if (t.k_len < sizeof(name)) {
		memcpy(name, a->a_text + t.k_pos, t.k_len);
		name[t.k_len] = '\0';
		tz = a->a_load(name, a->a_arg);
	}
	if (tz == NULL) {
		at_diag(a, t.k_pos + 1, "found \"%.*s%s\", expected utc or "
		    "a known time zone", (int)(t.k_len > TOKMAX ? TOKMAX :
		    t.k_len), a->a_text + t.k_pos, t.k_len > TOKMAX ? "..." :
		    "");
		return (-1);
	}
	a->a_owned = tz;
	set_zone(a, tz);
	return (0);
}

/* Whether a token can begin a date. */
static int
starts_date(const struct tok *t)
{
	switch (t->k_type) {
	case TK_MONTH:
	case TK_DOW:
	case TK_TODAY:
	case TK_TOMORROW:
	case TK_HYPHEN:
	case TK_DOTTED:
	case TK_NEXT:
		return (1);
	case TK_INT:
		return (t->k_ndig <= 2 || (t->k_ndig >= 5 &&
		    t->k_ndig <= 8));
	default:
		return (0);
	}
}

/*
 * A year of two digits is 1970-2069 as in at; of four digits, itself
 * (at reads 0070-1900 as 1970-3800).
 */
static int
year_of(const struct tok *t, int64_t *y)
{
	if (t->k_type != TK_INT || (t->k_ndig != 2 && t->k_ndig != 4))
		return (-1);
	*y = t->k_num;
	if (t->k_ndig == 2)
		*y += t->k_num < 70 ? 2000 : 1900;
	return (0);
}

/*
 * Set the date from year y (-1: none given), month and day, checked
 * against the calendar; pos and t say where it was written.  A month
 * and day without a year take this year for now (finish() moves them
 * to next year when they have passed), but must exist in the year
 * they will have.
 */
static int
set_date(struct atparse *a, int64_t y, int mon, int day,
    const struct tok *t, size_t pos)
{
	int64_t	 cy;
	size_t	 len = a->a_pos - pos;

	if (mon < 1 || mon > 12) {
		at_diag(a, t->k_pos + 1, "found month %d in \"%.*s\", "
		    "expected 1-12", mon, (int)len, a->a_text + pos);
		return (-1);
	}
	cy = y;
	if (y == -1) {
		cy = a->a_tyear;
		if (mon < a->a_tmon || (mon == a->a_tmon && day < a->a_tday))
			cy++;
	}
	if (day < 1 || day > 31) {
		at_diag(a, t->k_pos + 1, "found day %d in \"%.*s\", expected "
		    "1-31", day, (int)len, a->a_text + pos);
		return (-1);
	}
	/* Without a year, only 29 February depends on the year. */
	if (day > civil_mdays(y == -1 ? 2000 : cy, mon)) {
		if (y == -1)
			at_diag(a, t->k_pos + 1, "found day %d in \"%.*s\", "
			    "expected 1-%d for %s", day, (int)len,
			    a->a_text + pos, civil_mdays(2000, mon),
			    month_names[mon]);
		else
			at_diag(a, t->k_pos + 1, "found day %d in \"%.*s\", "
			    "expected 1-%d for %s %lld", day, (int)len,
			    a->a_text + pos, civil_mdays(cy, mon),
			    month_names[mon], (long long)cy);
		return (-1);
	}
	if (day > civil_mdays(cy, mon)) {
		at_diag(a, t->k_pos + 1, "found day %d in \"%.*s\", expected "
		    "1-%d for %s %lld (give the year of a leap day)", day,
		    (int)len, a->a_text + pos, civil_mdays(cy, mon),
		    month_names[mon], (long long)cy);
		return (-1);
	}
	if (check_year(a, cy) == -1)
		return (-1);
	a->a_year = y == -1 ? a->a_tyear : y;
	a->a_mon = mon;
	a->a_day = day;
	a->a_pinned = 0;
	if (y == -1) {
		a->a_mdnoyear = 1;
		a->a_mdpos = pos;
		a->a_mdlen = len;
	}
	return (0);
}

/* month-name day [[','] year] */
static int
parse_monthday(struct atparse *a)
{
	struct tok	 m, d, y;
	int64_t		 year = -1;
	size_t		 pos;

	take(a, &m);
	pos = m.k_pos;
	take(a, &d);
	if (d.k_type != TK_INT || d.k_ndig > 2)
		return (unexpected(a, &d, "a day of the month (1-31)"));
	peek(a, &y);
	if (y.k_type == TK_CHAR && a->a_text[y.k_pos] == ',') {
		take(a, &y);
		take(a, &y);
		if (year_of(&y, &year) == -1)
			return (unexpected(a, &y, "a year (YY or CCYY)"));
	} else if (year_of(&y, &year) == 0)
		take(a, &y);
	return (set_date(a, year, m.k_val, (int)d.k_num, &d, pos));
}

/* day month-name [year] */
static int
parse_daymonth(struct atparse *a)
{
	struct tok	 d, m, y;
	int64_t		 year = -1;

	take(a, &d);
	take(a, &m);
	peek(a, &y);
	if (year_of(&y, &year) == 0)
		take(a, &y);
	return (set_date(a, year, m.k_val, (int)d.k_num, &d, d.k_pos));
}

/* MM/DD/[CC]YY */
static int
parse_slashdate(struct atparse *a)
{
	struct tok	 m, s, d, y;
	int64_t		 year;

	take(a, &m);
	take(a, &s);
	if (s.k_type != TK_CHAR || a->a_text[s.k_pos] != '/')
		return (unexpected(a, &s, "a month name (as in 31 jul) or "
		    "'/' (as in 7/31/2026) after the number"));
	take(a, &d);
	if (d.k_type != TK_INT || d.k_ndig > 2)
		return (unexpected(a, &d, "a day of the month (1-31) after "
		    "the month and '/'"));
	take(a, &s);
	if (s.k_type != TK_CHAR || a->a_text[s.k_pos] != '/')
		return (unexpected(a, &s, "'/' and a year after the day"));
	take(a, &y);
	if (year_of(&y, &year) == -1)
		return (unexpected(a, &y, "a year (YY or CCYY)"));
	if (m.k_num < 1 || m.k_num > 12)
		return (set_date(a, year, (int)m.k_num, (int)d.k_num, &m,
		    m.k_pos));
	return (set_date(a, year, (int)m.k_num, (int)d.k_num, &d, m.k_pos));
}

/* MMDDYY, MDDYY, MMDDCCYY or MDDCCYY. */
static int
parse_concat(struct atparse *a, const struct tok *t)
{
	const char	*s = a->a_text + t->k_pos;
	int		 mlen, mon, day, i;
	int64_t		 year;

	mlen = t->k_ndig % 2 == 1 ? 1 : 2;
	mon = mlen == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
	day = (s[mlen] - '0') * 10 + (s[mlen + 1] - '0');
	year = 0;
	for (i = mlen + 2; i < t->k_ndig; i++)
		year = year * 10 + (s[i] - '0');
	if (t->k_ndig - mlen - 2 == 2)
		year += year < 70 ? 2000 : 1900;
	return (set_date(a, year, mon, day, t, t->k_pos));
}

/*
 * date = month-name day [[','] year] | day month-name [year] |
 * MM/DD/[CC]YY | MMDD[CC]YY | DD.MM.[CC]YY | [CC]YY-MM-DD | weekday |
 * today | tomorrow | next period | next weekday
 */
static int
parse_date(struct atparse *a)
{
	struct tok	 t, u;
	int		 wday;

	peek(a, &t);
	switch (t.k_type) {
	case TK_MONTH:
		return (parse_monthday(a));
	case TK_DOW:
		take(a, &t);
		wday = civil_weekday(civil_to_days(a->a_year, a->a_mon,
		    a->a_day));
		add_days(a, (6 + t.k_val - wday) % 7 + 1);
		return (check_year(a, a->a_year));
	case TK_TODAY:
		take(a, &t);
		return (0);
	case TK_TOMORROW:
		take(a, &t);
		add_days(a, 1);
		return (check_year(a, a->a_year));
	case TK_HYPHEN:
		take(a, &t);
		return (set_date(a, t.k_wide ? t.k_f[0] : t.k_f[0] +
		    (t.k_f[0] < 70 ? 2000 : 1900), t.k_f[1], t.k_f[2], &t,
		    t.k_pos));
	case TK_DOTTED:
		take(a, &t);
		return (set_date(a, t.k_wide ? t.k_f[2] : t.k_f[2] +
		    (t.k_f[2] < 70 ? 2000 : 1900), t.k_f[1], t.k_f[0], &t,
		    t.k_pos));
	case TK_NEXT:
		take(a, &t);
		take(a, &u);
		if (u.k_type == TK_PERIOD)
			return (add_period(a, 1, u.k_val));
		if (u.k_type == TK_DOW) {
			wday = civil_weekday(civil_to_days(a->a_year,
			    a->a_mon, a->a_day));
			add_days(a, (6 + u.k_val - wday) % 7 + 1);
			return (check_year(a, a->a_year));
		}
		return (unexpected(a, &u, "minute, hour, day, week, month, "
		    "year or a weekday after next"));
	case TK_INT:
		if (t.k_ndig >= 5) {
			take(a, &t);
			return (parse_concat(a, &t));
		}
		lex(a, t.k_pos + t.k_len, &u);
		if (u.k_type == TK_MONTH)
			return (parse_daymonth(a));
		return (parse_slashdate(a));
	default:
		return (unexpected(a, &t, "a date"));
	}
}

/*
 * increment = ('+' | '-') count period | next period.  Days and
 * longer make a time of day alone a dated time (no move to tomorrow).
 */
static int
parse_increment(struct atparse *a)
{
	struct tok	 t, n, p;
	int		 sign;

	take(a, &t);
	if (t.k_type == TK_NEXT) {
		take(a, &p);
		if (p.k_type != TK_PERIOD)
			return (unexpected(a, &p, "minute, hour, day, week, "
			    "month or year after next"));
		if (p.k_val >= P_DAY)
			a->a_timeonly = 0;
		return (add_period(a, 1, p.k_val));
	}
	sign = a->a_text[t.k_pos] == '-' ? -1 : 1;
	take(a, &n);
	if (n.k_type != TK_INT)
		return (unexpected(a, &n, "a number after '+' or '-'"));
	if (n.k_ndig > 8) {
		at_diag(a, n.k_pos + 1, "found count %.*s%s, expected at most "
		    "%d", (int)(n.k_len > TOKMAX ? TOKMAX : n.k_len),
		    a->a_text + n.k_pos, n.k_len > TOKMAX ? "..." : "",
		    COUNT_MAX);
		return (-1);
	}
	take(a, &p);
	if (p.k_type != TK_PERIOD)
		return (unexpected(a, &p, "minutes, hours, days, weeks, "
		    "months or years"));
	if (p.k_val >= P_DAY)
		a->a_timeonly = 0;
	return (add_period(a, sign * n.k_num, p.k_val));
}

/*
 * at's last steps: a time of day alone that is not ahead of the clock
 * today means tomorrow; a month and day without a year that have
 * passed this year mean next year; then the instant, which must not be
 * before the current minute.
 */
static int
finish(struct atparse *a, time_t *out)
{
	char	 when[CRON_ISOLEN], from[CRON_ISOLEN];
	int64_t	 t;

	if (a->a_timeonly && a->a_year == a->a_tyear &&
	    a->a_mon == a->a_tmon && a->a_day == a->a_tday &&
	    a->a_hour * 60 + a->a_min <= a->a_tmin)
		add_days(a, 1);
	else if (a->a_mdnoyear && a->a_year == a->a_tyear &&
	    (a->a_mon < a->a_tmon || (a->a_mon == a->a_tmon &&
	    a->a_day < a->a_tday))) {
		a->a_year++;
		add_days(a, 0);
	}
	if (check_year(a, a->a_year) == -1)
		return (-1);
	t = resolve(a);
	if (t < a->a_now) {
		cron_fmt_iso8601(a->a_tz, (time_t)t, when, sizeof(when));
		cron_fmt_iso8601(a->a_tz, (time_t)a->a_now, from,
		    sizeof(from));
		at_diag(a, 0, "found %s, which is in the past, expected a "
		    "time from %s on", when, from);
		return (-1);
	}
	set_local(a, t);
	if (check_year(a, a->a_year) == -1)
		return (-1);
	*out = (time_t)t;
	return (0);
}

int
at_parse(const char *text, time_t now, const struct cron_tz *tz,
    struct cron_tz *(*load)(const char *, void *), void *arg, time_t *out,
    struct cron_diag *diag)
{
	struct atparse	 a;
	struct tok	 t, u;
	int		 rc = -1;

	memset(&a, 0, sizeof(a));
	a.a_text = text;
	a.a_len = strlen(text);
	a.a_diag = diag;
	a.a_load = load;
	a.a_arg = arg;
	a.a_tz = tz;
	/* at drops the seconds of now, those of the local clock. */
	a.a_now = (int64_t)now - floormod((int64_t)now +
	    tz_offset(tz, now), 60);
	set_local(&a, a.a_now);
	set_zone(&a, tz);
	*out = 0;

	peek(&a, &t);
	if (t.k_type == TK_END) {
		at_diag(&a, 1, "found nothing, expected a time (such as now, "
		    "10:30, 4pm, noon or tomorrow)");
		goto done;
	}
	if (t.k_type == TK_NOW) {
		take(&a, &t);
		a.a_pinned = 1;
		a.a_instant = a.a_now;
	} else if (t.k_type == TK_INT && t.k_ndig <= 2) {
		/* An hour, or the day of "31 jul" or "7/31/2026". */
		lex(&a, t.k_pos + t.k_len, &u);
		if (u.k_type == TK_MONTH || (u.k_type == TK_CHAR &&
		    a.a_text[u.k_pos] == '/')) {
			if (parse_date(&a) == -1)
				goto done;
		} else {
			if (parse_time(&a) == -1)
				goto done;
			a.a_timeonly = 1;
		}
	} else if ((t.k_type == TK_INT && t.k_ndig == 4) ||
	    t.k_type == TK_HOURMIN || t.k_type == TK_NOON ||
	    t.k_type == TK_MIDNIGHT || t.k_type == TK_TEATIME) {
		if (parse_time(&a) == -1)
			goto done;
		a.a_timeonly = 1;
	} else if (starts_date(&t)) {
		if (parse_date(&a) == -1)
			goto done;
	} else {
		(void)unexpected(&a, &t, "a time (such as now, 10:30, 4pm, "
		    "noon or midnight) or a date");
		goto done;
	}

	/* After a time of day: a zone, then a date. */
	if (a.a_timeonly) {
		if (parse_zone(&a) == -1)
			goto done;
		peek(&a, &t);
		if (starts_date(&t)) {
			a.a_timeonly = 0;
			if (parse_date(&a) == -1)
				goto done;
		} else if (t.k_type != TK_END && !(t.k_type == TK_CHAR &&
		    (a.a_text[t.k_pos] == '+' || a.a_text[t.k_pos] == '-'))) {
			(void)unexpected(&a, &t, a.a_owned != NULL ?
			    "a date, '+', '-' or the end" :
			    "a date, utc, a zone name, '+', '-' or the end");
			goto done;
		}
	}

	peek(&a, &t);
	if (t.k_type == TK_NEXT || (t.k_type == TK_CHAR &&
	    (a.a_text[t.k_pos] == '+' || a.a_text[t.k_pos] == '-'))) {
		if (parse_increment(&a) == -1)
			goto done;
		peek(&a, &t);
		if (t.k_type != TK_END) {
			(void)unexpected(&a, &t, "the end (one increment "
			    "only)");
			goto done;
		}
	} else if (t.k_type != TK_END) {
		(void)unexpected(&a, &t, "'+', '-', next or the end");
		goto done;
	}
	rc = finish(&a, out);
done:
	if (rc == -1)
		*out = 0;
	tz_free(a.a_owned);
	return (rc);
}

/*
 * at -t [[CC]YY]MMDDhhmm[.SS], as touch -t: a year of two digits is
 * 1969-2068 (POSIX), none is this year.  Unlike Debian's at, which
 * takes any such time and runs a job set in the past at once, a time
 * before the current minute is refused as a timespec's would be; a
 * skipped or repeated local time is read as a timespec's is (Debian's
 * at refuses the skipped ones and picks either of the repeated).
 */
int
at_parse_posix(const char *text, time_t now, const struct cron_tz *tz,
    time_t *out, struct cron_diag *diag)
{
	struct atparse	 a;
	size_t		 len, n, i, p;
	int		 f[4];
	int64_t		 year;
	unsigned char	 c;

	memset(&a, 0, sizeof(a));
	a.a_text = text;
	a.a_len = len = strlen(text);
	a.a_diag = diag;
	a.a_tz = tz;
	a.a_now = (int64_t)now - floormod((int64_t)now +
	    tz_offset(tz, now), 60);
	set_local(&a, a.a_now);
	set_zone(&a, tz);
	*out = 0;

	n = run(text, len, 0, 1);
	if (len == 0) {
		at_diag(&a, 1, "found nothing, expected [[CC]YY]MMDDhhmm[.SS]");
		return (-1);
	}
	if (n < len && text[n] != '.' && n < 12) {
		c = (unsigned char)text[n];
		if (isprint(c) && c != ' ')
			at_diag(&a, n + 1, "found '%c', expected a digit of "
			    "[[CC]YY]MMDDhhmm[.SS]", c);
		else
			at_diag(&a, n + 1, "found byte 0x%02x, expected a "
			    "digit of [[CC]YY]MMDDhhmm[.SS]", c);
		return (-1);
	}
	if (n != 8 && n != 10 && n != 12) {
		at_diag(&a, 1, "found %zu digit%s, expected 8, 10 or 12 "
		    "([[CC]YY]MMDDhhmm[.SS])", n, n == 1 ? "" : "s");
		return (-1);
	}
	if (n < len && (text[n] != '.' || len != n + 3 ||
	    !isdigit((unsigned char)text[n + 1]) ||
	    !isdigit((unsigned char)text[n + 2]))) {
		at_diag(&a, n + 1, "found \"%.*s%s\" after the minutes, "
		    "expected the end or .SS (two digits of seconds)",
		    (int)(len - n > TOKMAX ? TOKMAX : len - n), text + n,
		    len - n > TOKMAX ? "..." : "");
		return (-1);
	}
	p = 0;
	year = -1;
	if (n == 12) {
		year = (text[0] - '0') * 1000 + (text[1] - '0') * 100 +
		    (text[2] - '0') * 10 + (text[3] - '0');
		p = 4;
	} else if (n == 10) {
		year = (text[0] - '0') * 10 + (text[1] - '0');
		year += year <= 68 ? 2000 : 1900;
		p = 2;
	}
	for (i = 0; i < 4; i++)
		f[i] = (text[p + 2 * i] - '0') * 10 + (text[p + 2 * i + 1] -
		    '0');
	a.a_year = year == -1 ? a.a_tyear : year;
	if (f[0] < 1 || f[0] > 12) {
		at_diag(&a, p + 1, "found month %02d, expected 01-12", f[0]);
		return (-1);
	}
	if (f[1] < 1 || f[1] > civil_mdays(a.a_year, f[0])) {
		at_diag(&a, p + 3, "found day %02d, expected 01-%02d for %s "
		    "%lld", f[1], civil_mdays(a.a_year, f[0]),
		    month_names[f[0]], (long long)a.a_year);
		return (-1);
	}
	if (f[2] > 23) {
		at_diag(&a, p + 5, "found hour %02d, expected 00-23", f[2]);
		return (-1);
	}
	if (f[3] > 59) {
		at_diag(&a, p + 7, "found minute %02d, expected 00-59", f[3]);
		return (-1);
	}
	a.a_mon = f[0];
	a.a_day = f[1];
	a.a_hour = f[2];
	a.a_min = f[3];
	a.a_sec = 0;
	if (n < len) {
		a.a_sec = (text[n + 1] - '0') * 10 + (text[n + 2] - '0');
		if (a.a_sec > 59) {
			at_diag(&a, n + 2, "found second %02d, expected 00-59",
			    a.a_sec);
			return (-1);
		}
	}
	return (finish(&a, out));
}
