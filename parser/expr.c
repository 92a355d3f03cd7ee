/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * expr.c: schedule expressions.  Five fields (six with a leading
 * seconds field) or an @ macro become one bitset per field, following
 * Vixie cron and cronie: lists, ranges, steps, month and weekday names
 * (three letters, any case, also as range ends), day-of-week 0-7 with 7
 * folded into Sunday.  What they reject is rejected here too, and a few
 * things they let through silently are rejected as well because they
 * hide mistakes: a reversed range such as 30-10 (older Vixie rejects
 * it, newer cronie accepts a line that never runs), a step after a
 * single number such as 5/15 (Debian cron rejects it, newer cronie
 * reads 5-59/15) and characters glued to the end of a field such as
 * "*x" (Vixie skips them).  Every message names what was found, what
 * was expected and the column at fault.
 */

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parser_int.h"

struct field {
	const char	*f_name;	/* in messages */
	int		 f_low;		/* accepted numbers */
	int		 f_high;
	const char *const *f_names;	/* three-letter names, or NULL */
	int		 f_namebase;	/* number of the first name */
	const char	*f_expect;	/* in messages */
	uint8_t		 f_star;	/* SCHED_*_STAR, 0 for seconds */
};

static const char *const month_names[] = {
	"jan", "feb", "mar", "apr", "may", "jun",
	"jul", "aug", "sep", "oct", "nov", "dec", NULL
};
static const char *const dow_names[] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL
};

enum { F_SEC, F_MIN, F_HOUR, F_DOM, F_MON, F_DOW, F_COUNT };

static const struct field fields[F_COUNT] = {
	{ "second", 0, 59, NULL, 0, "0-59", 0 },
	{ "minute", 0, 59, NULL, 0, "0-59", SCHED_MIN_STAR },
	{ "hour", 0, 23, NULL, 0, "0-23", SCHED_HOUR_STAR },
	{ "day-of-month", 1, 31, NULL, 0, "1-31", SCHED_DOM_STAR },
	{ "month", 1, 12, month_names, 1, "1-12 or jan-dec", 0 },
	{ "day-of-week", 0, 7, dow_names, 0, "0-7 or sun-sat",
	    SCHED_DOW_STAR },
};

/*
 * The macros, as in cronie: @yearly is 0 0 1 1 *, @monthly 0 0 1 * *,
 * @weekly 0 0 * * 0, @daily 0 0 * * *, @hourly 0 * * * *.  The star
 * flags are those the five-field spelling would have.
 */
struct macro {
	const char	*m_name;
	uint64_t	 m_min;
	uint32_t	 m_hour;
	uint32_t	 m_dom;
	uint16_t	 m_mon;
	uint8_t		 m_dow;
	uint8_t		 m_flags;
};

#define ALL_HOURS	0x00ffffffU
#define ALL_DOMS	0xfffffffeU
#define ALL_MONS	0x1ffeU
#define ALL_DOWS	0x7fU

static const struct macro macros[] = {
	{ "@reboot", 0, 0, 0, 0, 0, SCHED_REBOOT },
	{ "@yearly", 1, 1, 1U << 1, 1U << 1, ALL_DOWS, SCHED_DOW_STAR },
	{ "@annually", 1, 1, 1U << 1, 1U << 1, ALL_DOWS, SCHED_DOW_STAR },
	{ "@monthly", 1, 1, 1U << 1, ALL_MONS, ALL_DOWS, SCHED_DOW_STAR },
	{ "@weekly", 1, 1, ALL_DOMS, ALL_MONS, 1, SCHED_DOM_STAR },
	{ "@daily", 1, 1, ALL_DOMS, ALL_MONS, ALL_DOWS,
	    SCHED_DOM_STAR | SCHED_DOW_STAR },
	{ "@midnight", 1, 1, ALL_DOMS, ALL_MONS, ALL_DOWS,
	    SCHED_DOM_STAR | SCHED_DOW_STAR },
	{ "@hourly", 1, ALL_HOURS, ALL_DOMS, ALL_MONS, ALL_DOWS,
	    SCHED_HOUR_STAR | SCHED_DOM_STAR | SCHED_DOW_STAR },
};

/* The text being parsed. */
struct scan {
	const char	*s_line;
	size_t		 s_len;
	const char	*s_eol;		/* "end of line" and the like */
	struct cron_diag *s_diag;
};

/* Longest token quoted in a message. */
#define TOKMAX	24

static int	 is_blank(int);
static void	 expr_diag(struct cron_diag *, size_t, int, const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
static void	 describe(const struct scan *, size_t, char *, size_t);
static size_t	 word_end(const struct scan *, size_t);
static int	 parse_macro(struct scan *, size_t *, struct cron_sched *);
static int	 parse_value(struct scan *, const struct field *, size_t *,
		    int *);
static int	 parse_step(struct scan *, const struct field *, size_t *,
		    int *);
static void	 reversed(struct scan *, const struct field *, size_t,
		    size_t, int);
static int	 parse_field(struct scan *, const struct field *, size_t *,
		    uint64_t *, int *);

static int
is_blank(int c)
{
	return (c == ' ' || c == '\t');
}

/* Fill a diagnostic; the message is truncated to fit. */
static void
expr_diag(struct cron_diag *d, size_t col, int warning, const char *fmt,
    ...)
{
	va_list	 ap;

	d->d_file = NULL;
	d->d_line = 1;
	d->d_col = col;
	d->d_warning = warning;
	va_start(ap, fmt);
	(void)vsnprintf(d->d_msg, sizeof(d->d_msg), fmt, ap);
	va_end(ap);
}

/* Describe the character at pos for a message: 'x', a blank, ... */
static void
describe(const struct scan *s, size_t pos, char *buf, size_t size)
{
	unsigned char	 c;

	if (pos >= s->s_len) {
		(void)strlcpy(buf, s->s_eol, size);
		return;
	}
	c = (unsigned char)s->s_line[pos];
	if (c == ' ')
		(void)strlcpy(buf, "a blank", size);
	else if (c == '\t')
		(void)strlcpy(buf, "a tab", size);
	else if (isprint(c))
		(void)snprintf(buf, size, "'%c'", c);
	else
		(void)snprintf(buf, size, "byte 0x%02x", c);
}

/* The end of the blank-delimited word starting at pos. */
static size_t
word_end(const struct scan *s, size_t pos)
{
	while (pos < s->s_len && !is_blank(s->s_line[pos]))
		pos++;
	return (pos);
}

static int
parse_macro(struct scan *s, size_t *posp, struct cron_sched *out)
{
	const struct macro	*m;
	size_t			 pos, end, i, n;

	pos = *posp;
	end = word_end(s, pos);
	n = end - pos;
	for (i = 0; i < sizeof(macros) / sizeof(macros[0]); i++) {
		m = &macros[i];
		if (strlen(m->m_name) == n &&
		    memcmp(m->m_name, s->s_line + pos, n) == 0)
			break;
	}
	if (i == sizeof(macros) / sizeof(macros[0])) {
		expr_diag(s->s_diag, pos + 1, 0, "found \"%.*s%s\", expected "
		    "@reboot, @yearly, @annually, @monthly, @weekly, @daily, "
		    "@midnight or @hourly", (int)(n > TOKMAX ? TOKMAX : n),
		    s->s_line + pos, n > TOKMAX ? "..." : "");
		return (-1);
	}
	memset(out, 0, sizeof(*out));
	/* With seconds, macros fire at second 0; never for @reboot. */
	if ((m->m_flags & SCHED_REBOOT) == 0)
		out->s_sec = 1;
	out->s_min = m->m_min;
	out->s_hour = m->m_hour;
	out->s_dom = m->m_dom;
	out->s_mon = m->m_mon;
	out->s_dow = m->m_dow;
	out->s_flags = m->m_flags;
	*posp = end;
	return (0);
}

/*
 * A number or, where the field has them, a name.  Numbers are checked
 * against the field's range here, so that the column is the number's.
 */
static int
parse_value(struct scan *s, const struct field *f, size_t *posp, int *vp)
{
	const char	*line = s->s_line;
	char		 what[32];
	size_t		 pos, start, n;
	long		 v;
	int		 i;

	start = pos = *posp;
	if (pos < s->s_len && isdigit((unsigned char)line[pos])) {
		v = 0;
		while (pos < s->s_len && isdigit((unsigned char)line[pos])) {
			if (v < 1000000)
				v = v * 10 + (line[pos] - '0');
			pos++;
		}
		n = pos - start;
		if (v < f->f_low || v > f->f_high) {
			expr_diag(s->s_diag, start + 1, 0, "found %.*s%s in "
			    "the %s field, expected %s", (int)(n > TOKMAX ?
			    TOKMAX : n), line + start, n > TOKMAX ? "..." : "",
			    f->f_name, f->f_expect);
			return (-1);
		}
		*vp = (int)v;
		*posp = pos;
		return (0);
	}
	if (pos < s->s_len && isalpha((unsigned char)line[pos])) {
		while (pos < s->s_len && isalpha((unsigned char)line[pos]))
			pos++;
		n = pos - start;
		if (f->f_names == NULL) {
			/* Quote the whole word, not only its letters. */
			while (pos < s->s_len && !is_blank(line[pos]) &&
			    strchr(",-/", line[pos]) == NULL)
				pos++;
			n = pos - start;
			expr_diag(s->s_diag, start + 1, 0, "found \"%.*s%s\" "
			    "in the %s field, expected %s (names are only for "
			    "month and day-of-week)", (int)(n > TOKMAX ?
			    TOKMAX : n), line + start, n > TOKMAX ? "..." : "",
			    f->f_name, f->f_expect);
			return (-1);
		}
		for (i = 0; n == 3 && f->f_names[i] != NULL; i++) {
			if (strncasecmp(f->f_names[i], line + start, 3) == 0) {
				*vp = f->f_namebase + i;
				*posp = pos;
				return (0);
			}
		}
		/* Quote the whole word, bytes that are not letters too. */
		while (pos < s->s_len && !is_blank(line[pos]) &&
		    strchr(",-/", line[pos]) == NULL)
			pos++;
		n = pos - start;
		expr_diag(s->s_diag, start + 1, 0, "found \"%.*s%s\" in the %s "
		    "field, expected %s", (int)(n > TOKMAX ? TOKMAX : n),
		    line + start, n > TOKMAX ? "..." : "", f->f_name,
		    f->f_expect);
		return (-1);
	}
	describe(s, pos, what, sizeof(what));
	expr_diag(s->s_diag, pos + 1, 0, "found %s in the %s field, expected "
	    "%s or '*'", what, f->f_name, f->f_expect);
	return (-1);
}

/* The number after '/': at least 1, names not allowed (as in cron). */
static int
parse_step(struct scan *s, const struct field *f, size_t *posp, int *vp)
{
	const char	*line = s->s_line;
	char		 what[32];
	size_t		 pos, start;
	long		 v;

	start = pos = *posp;
	if (pos >= s->s_len || !isdigit((unsigned char)line[pos])) {
		describe(s, pos, what, sizeof(what));
		expr_diag(s->s_diag, pos + 1, 0, "found %s after '/' in the %s "
		    "field, expected a step (a number of at least 1)", what,
		    f->f_name);
		return (-1);
	}
	v = 0;
	while (pos < s->s_len && isdigit((unsigned char)line[pos])) {
		if (v < 1000000)
			v = v * 10 + (line[pos] - '0');
		pos++;
	}
	if (v == 0) {
		expr_diag(s->s_diag, start + 1, 0, "found step 0 in the %s "
		    "field, expected a step of at least 1", f->f_name);
		return (-1);
	}
	/*
	 * cron accepts a step longer than the field (a step of 90 in
	 * the minute field selects only the first value); so do we,
	 * within reason.
	 */
	if (v >= 1000000) {
		expr_diag(s->s_diag, start + 1, 0, "found step %.*s in the %s "
		    "field, expected a step below 1000000", (int)(pos - start >
		    TOKMAX ? TOKMAX : pos - start), line + start, f->f_name);
		return (-1);
	}
	*vp = (int)v;
	*posp = pos;
	return (0);
}

/*
 * A reversed range such as 30-10: older Vixie cron rejects it, newer
 * cronie accepts it and never runs the line.  Sunday at the end of a
 * range (mon-sun) is the likely mistake in the day-of-week field.
 */
static void
reversed(struct scan *s, const struct field *f, size_t start, size_t end,
    int hi)
{
	int	 n;

	n = (int)(end - start > TOKMAX ? TOKMAX : end - start);
	if (f->f_names == dow_names && hi == 0)
		expr_diag(s->s_diag, start + 1, 0, "found reversed range %.*s "
		    "in the %s field, expected low-high with low <= high "
		    "(Sunday is 7 at the end of a range)", n,
		    s->s_line + start, f->f_name);
	else
		expr_diag(s->s_diag, start + 1, 0, "found reversed range %.*s "
		    "in the %s field, expected low-high with low <= high "
		    "(cron would never run it)", n, s->s_line + start,
		    f->f_name);
}

/*
 * field = item {',' item}
 * item  = '*' ['/' step] | value ['-' value ['/' step]]
 */
static int
parse_field(struct scan *s, const struct field *f, size_t *posp,
    uint64_t *bitsp, int *starp)
{
	const char	*line = s->s_line;
	char		 what[32];
	uint64_t	 bits = 0;
	size_t		 pos, start, end;
	int		 lo, hi, step, v, isrange, hasstep;

	pos = *posp;
	*starp = pos < s->s_len && line[pos] == '*';
	for (;;) {
		start = pos;
		isrange = hasstep = 0;
		step = 1;
		if (pos < s->s_len && line[pos] == '*') {
			lo = f->f_low;
			hi = f->f_high;
			isrange = 1;
			pos++;
		} else {
			if (parse_value(s, f, &pos, &lo) == -1)
				return (-1);
			hi = lo;
			if (pos < s->s_len && line[pos] == '-') {
				pos++;
				if (parse_value(s, f, &pos, &hi) == -1)
					return (-1);
				if (lo > hi) {
					reversed(s, f, start, pos, hi);
					return (-1);
				}
				isrange = 1;
			}
		}
		if (pos < s->s_len && line[pos] == '/') {
			if (!isrange) {
				for (end = pos + 1; end < s->s_len &&
				    end - pos < 8 &&
				    isdigit((unsigned char)line[end]); end++)
					;
				expr_diag(s->s_diag, pos + 1, 0, "found '/' "
				    "after the single value %.*s in the %s "
				    "field, expected a range or '*' before a "
				    "step (such as %d-%d/%.*s)", (int)(pos -
				    start > TOKMAX ? TOKMAX : pos - start),
				    line + start, f->f_name, lo, f->f_high,
				    end > pos + 1 ? (int)(end - pos - 1) : 3,
				    end > pos + 1 ? line + pos + 1 : "...");
				return (-1);
			}
			pos++;
			if (parse_step(s, f, &pos, &step) == -1)
				return (-1);
			hasstep = 1;
		}
		for (v = lo; v <= hi; v += step)
			bits |= (uint64_t)1 << v;
		if (pos >= s->s_len || is_blank(line[pos]))
			break;
		if (line[pos] != ',') {
			describe(s, pos, what, sizeof(what));
			expr_diag(s->s_diag, pos + 1, 0, "found %s in the %s "
			    "field, expected %s", what, f->f_name,
			    hasstep ? "',' or a blank" : isrange ?
			    "',', '/' or a blank" : "',', '-' or a blank");
			return (-1);
		}
		pos++;
	}
	*bitsp = bits;
	*posp = pos;
	return (0);
}

int
expr_parse(const char *line, size_t len, size_t *posp, int flags,
    const char *eol, struct cron_sched *out, struct cron_diag *diag)
{
	struct scan	 s;
	uint64_t	 bits[F_COUNT];
	char		 what[32];
	size_t		 pos;
	int		 i, first, nfields, star;

	memset(out, 0, sizeof(*out));
	s.s_line = line;
	s.s_len = len;
	s.s_eol = eol;
	s.s_diag = diag;
	pos = *posp;
	if (pos < len && line[pos] == '@') {
		if (parse_macro(&s, &pos, out) == -1)
			return (-1);
		*posp = pos;
		return (0);
	}

	first = (flags & CRON_SECONDS) ? F_SEC : F_MIN;
	nfields = F_COUNT - first;
	bits[F_SEC] = 1;
	for (i = first; i < F_COUNT; i++) {
		if (i != first) {
			while (pos < len && is_blank(line[pos]))
				pos++;
		}
		if (pos >= len) {
			describe(&s, pos, what, sizeof(what));
			expr_diag(diag, pos + 1, 0, "found %s, expected the %s "
			    "field (a schedule has %d fields)", what,
			    fields[i].f_name, nfields);
			memset(out, 0, sizeof(*out));
			return (-1);
		}
		if (parse_field(&s, &fields[i], &pos, &bits[i], &star) == -1) {
			memset(out, 0, sizeof(*out));
			return (-1);
		}
		if (star)
			out->s_flags |= fields[i].f_star;
	}
	/* Sunday may be written 7; keep it as 0. */
	if (bits[F_DOW] & (1U << 7))
		bits[F_DOW] = (bits[F_DOW] | 1) & ALL_DOWS;
	out->s_sec = bits[F_SEC];
	out->s_min = bits[F_MIN];
	out->s_hour = (uint32_t)bits[F_HOUR];
	out->s_dom = (uint32_t)bits[F_DOM];
	out->s_mon = (uint16_t)bits[F_MON];
	out->s_dow = (uint8_t)bits[F_DOW];
	if (flags & CRON_SECONDS)
		out->s_flags |= SCHED_SECONDS;
	*posp = pos;
	return (0);
}

/*
 * cron_expr_parse() parses a NUL-terminated expression; blanks may
 * surround it, nothing else may follow it.
 */
int
cron_expr_parse(const char *text, int flags, struct cron_sched *out,
    struct cron_diag *diag)
{
	size_t	 len, pos, end;

	len = strlen(text);
	pos = 0;
	while (pos < len && is_blank(text[pos]))
		pos++;
	if (pos == len) {
		memset(out, 0, sizeof(*out));
		expr_diag(diag, pos + 1, 0, "found an empty expression, "
		    "expected %d fields or an @ macro",
		    (flags & CRON_SECONDS) ? 6 : 5);
		return (-1);
	}
	if (expr_parse(text, len, &pos, flags, "end of expression", out,
	    diag) == -1)
		return (-1);
	while (pos < len && is_blank(text[pos]))
		pos++;
	if (pos < len) {
		end = pos;
		while (end < len && !is_blank(text[end]))
			end++;
		memset(out, 0, sizeof(*out));
		expr_diag(diag, pos + 1, 0, "found \"%.*s%s\" after the "
		    "schedule, expected end of expression", (int)(end - pos >
		    TOKMAX ? TOKMAX : end - pos), text + pos,
		    end - pos > TOKMAX ? "..." : "");
		return (-1);
	}
	return (0);
}
