/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * lint.c: checking a table without installing it.  The parser finds
 * syntax errors and portability warnings; here the zones are loaded, so
 * unknown CRON_TZ values, schedules that never fire and fixed-time
 * entries that meet a DST change are reported too, and in a system
 * table the users this machine does not have.
 */

#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustercron.h"
#include "common.h"
#include "ctab.h"
#include "parser.h"

#define LINT_HORIZON	(366 * 86400)	/* how far ahead DST is checked */
#define LINT_MAXZONES	64

struct zone_cache {
	const char	*zc_name;	/* borrowed from the crontab */
	struct cron_tz	*zc_tz;		/* NULL: the zone does not load */
	char		 zc_err[128];
};

static void	 report(const char *, size_t, size_t, int, const char *,
		    ...) __attribute__((__format__ (printf, 5, 6)));
static int	 civil_matches(const struct cron_sched *, int64_t);
static int	 first_match(const struct cron_sched *, int64_t, int64_t,
		    int64_t *);
static void	 lint_dst(const char *, const struct cron_entry *,
		    const struct cron_tz *, time_t);
static void	 civil_hm(int64_t, char *, size_t);
static size_t	 user_col(const char *, size_t, const struct cron_entry *);

static void
report(const char *file, size_t line, size_t col, int warning,
    const char *fmt, ...)
{
	va_list	 ap;

	if (col > 0)
		fprintf(stderr, "%s: %s:%zu:%zu: %s", getprogname(), file,
		    line, col, warning ? "warning: " : "");
	else
		fprintf(stderr, "%s: %s:%zu: %s", getprogname(), file, line,
		    warning ? "warning: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Does the schedule fire at this wall-clock second (days*86400+secs)? */
static int
civil_matches(const struct cron_sched *s, int64_t c)
{
	int64_t	 days = c / 86400, y;
	int	 secs = (int)(c % 86400), m, d, wd, dom, dow;

	days_to_civil(days, &y, &m, &d);
	wd = (int)(((days % 7) + 11) % 7);	/* 1970-01-01 was a Thursday */
	if (!(s->s_mon & (1U << m)) || !(s->s_hour & (1UL << (secs / 3600))) ||
	    !(s->s_min & (1ULL << (secs / 60 % 60))) ||
	    !(s->s_sec & (1ULL << (secs % 60))))
		return (0);
	dom = (s->s_dom & (1UL << d)) != 0;
	dow = (s->s_dow & (1U << wd)) != 0;
	return (sched_days(s, (uint32_t)dom, (uint32_t)dow) != 0);
}

/*
 * The first wall-clock second in [from, to) at which the schedule
 * fires.  DST changes span at most a few hours, so a scan is cheap
 * here; the calculator never scans.
 */
static int
first_match(const struct cron_sched *s, int64_t from, int64_t to,
    int64_t *at)
{
	int64_t	 c;

	for (c = from; c < to; c++) {
		if (civil_matches(s, c)) {
			*at = c;
			return (1);
		}
	}
	return (0);
}

static void
civil_hm(int64_t c, char *buf, size_t len)
{
	int64_t	 y;
	int	 m, d;

	days_to_civil(c / 86400, &y, &m, &d);
	snprintf(buf, len, "%04lld-%02d-%02d %02d:%02d", (long long)y, m, d,
	    (int)(c % 86400 / 3600), (int)(c % 3600 / 60));
}

/*
 * A fixed-time entry meets DST when one of its wall-clock times falls
 * in an interval its zone skips (it then runs once at the jump) or
 * repeats (it runs once, at the first occurrence).  Both are what
 * cron(8) does, but rarely what the author pictured, so say so.
 */
static void
lint_dst(const char *file, const struct cron_entry *e,
    const struct cron_tz *tz, time_t now)
{
	const struct cron_sched	*s = &e->e_sched;
	time_t			 t = now, jump;
	int32_t			 ob, oa;
	int64_t			 at;
	char			 when[32], lo[32], hi[32];

	if (s->s_flags & (SCHED_MIN_STAR | SCHED_HOUR_STAR | SCHED_REBOOT))
		return;
	while (tz_transition(tz, t, now + LINT_HORIZON, &jump, &ob, &oa)) {
		t = jump;
		if (oa > ob && first_match(s, jump + ob, jump + oa, &at)) {
			civil_hm(at, when, sizeof(when));
			civil_hm(jump + ob, lo, sizeof(lo));
			civil_hm(jump + oa, hi, sizeof(hi));
			report(file, e->e_line, 0, 1, "%s falls in the DST gap "
			    "of %s (%s to %s is skipped); it runs once at %s",
			    when, tz_name(tz), lo + 11, hi + 11, hi + 11);
		} else if (oa < ob &&
		    first_match(s, jump + oa, jump + ob, &at)) {
			civil_hm(at, when, sizeof(when));
			report(file, e->e_line, 0, 1, "%s comes twice in %s "
			    "(DST ends); it runs once, at the first", when,
			    tz_name(tz));
		}
	}
}

/*
 * The column of a system table entry's user field: the line's first
 * blank-delimited text is the schedule as written (e_when), the user
 * follows it.  0 when the line does not read so.
 */
static size_t
user_col(const char *buf, size_t len, const struct cron_entry *e)
{
	size_t	 i = 0, line = 1, p, wl = strlen(e->e_when);

	while (i < len && line < e->e_line)
		if (buf[i++] == '\n')
			line++;
	for (p = i; p < len && (buf[p] == ' ' || buf[p] == '\t'); p++)
		;
	if (len - p < wl || memcmp(buf + p, e->e_when, wl) != 0)
		return (0);
	for (p += wl; p < len && (buf[p] == ' ' || buf[p] == '\t'); p++)
		;
	return (p - i + 1);
}

size_t
lint_table(const char *file, const char *buf, size_t len, int flags,
    time_t now)
{
	struct crontab		*ct;
	struct zone_cache	 zones[LINT_MAXZONES];
	struct zone_cache	*zc;
	const struct cron_entry	*e;
	const struct cron_diag	*d;
	size_t			 i, j, nzones = 0, nerr, lines = 0;

	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			lines++;
	if (lines > CTAB_MAXLINES) {
		fprintf(stderr, "%s: %s: table has %zu lines, more than "
		    "%d\n", getprogname(), file, lines, CTAB_MAXLINES);
		return (1);
	}
	if (crontab_parse(file, buf, len, flags, &ct) == -1)
		fatal("%s", file);
	for (i = 0; i < ct->ct_ndiag; i++) {
		d = &ct->ct_diag[i];
		report(file, d->d_line, d->d_col, d->d_warning, "%s",
		    d->d_msg);
	}
	nerr = ct->ct_nerr;

	for (i = 0; i < ct->ct_nent; i++) {
		e = &ct->ct_ent[i];
		/*
		 * cron reads a table naming an unknown user as bad, the whole
		 * of it; the user may exist on the machines it is meant for.
		 */
		if (e->e_user != NULL && (i == 0 || e->e_user !=
		    ct->ct_ent[i - 1].e_user) && getpwnam(e->e_user) == NULL)
			report(file, e->e_line, user_col(buf, len, e), 1,
			    "no user %s on this machine: cron and clustercron "
			    "ignore the whole table while it names one",
			    e->e_user);
		for (j = 0; j < nzones; j++) {
			if ((zones[j].zc_name == NULL && e->e_tz == NULL) ||
			    (zones[j].zc_name != NULL && e->e_tz != NULL &&
			    strcmp(zones[j].zc_name, e->e_tz) == 0))
				break;
		}
		zc = &zones[j];
		if (j == nzones) {
			if (nzones == LINT_MAXZONES) {
				report(file, e->e_line, 0, 0, "more than %d "
				    "time zones in one table", LINT_MAXZONES);
				nerr++;
				continue;
			}
			zc->zc_name = e->e_tz;
			zc->zc_tz = tz_load(e->e_tz, zc->zc_err,
			    sizeof(zc->zc_err));
			nzones++;
		}
		if (zc->zc_tz == NULL) {
			report(file, e->e_line, 0, 0, "CRON_TZ: %s", zc->zc_err);
			nerr++;
			continue;
		}
		if (sched_never(&e->e_sched) &&
		    !(e->e_sched.s_flags & SCHED_REBOOT)) {
			report(file, e->e_line, 0, 1, "%s never fires: no such "
			    "date", e->e_when);
			continue;
		}
		lint_dst(file, e, zc->zc_tz, now);
	}
	for (j = 0; j < nzones; j++)
		tz_free(zones[j].zc_tz);
	crontab_free(ct);
	return (nerr);
}
