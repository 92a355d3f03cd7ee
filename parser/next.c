/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * next.c: the next-fire calculator.  Given a schedule, a zone and an
 * instant, the first later instant at which the schedule fires.
 *
 * The search runs in local (wall-clock) time, counted like UTC as
 * seconds since 1970-01-01 but on the zone's clock.  civil_next()
 * finds the first local time at or after a given one whose fields all
 * match, skipping whole fields with the bitsets: a month whose bit is
 * clear is passed over at once, the matching days of a month are one
 * mask, then the next set hour, minute and second are bit scans.  A
 * schedule that fires once in years costs one step per year.
 *
 * Local time then becomes UTC through the zone, and here DST decides
 * (DESIGN.md, "Time"), following cron(8):
 *
 * - A job whose minute or hour field begins with '*' follows the wall
 *   clock: it fires at every UTC instant whose local time matches, so
 *   not at all for times the clocks skip, and twice for times they
 *   repeat.  The zone is walked by segments of constant offset, inside
 *   which local time is UTC plus that offset.
 *
 * - A job at a fixed time fires once for every matching local time: at
 *   its first occurrence when the clocks repeat it, and at the jump
 *   itself when they skip it (several skipped times make one fire).
 *   Put differently, the local time L fires at the first UTC instant
 *   whose local time reaches L (tz_local_to_utc()).  That map is
 *   monotone, so the next fire after an instant is the image of the
 *   first matching local time above the latest local time shown so
 *   far, which is the instant's own local time except in the hour
 *   after the clocks went back (tz_highwater()).
 */

#include <stdint.h>

#include "next_int.h"

/* 0001-01-01 and 10000-01-01 as seconds since the epoch. */
#define TIME_FIRST	(-62135596800LL)
#define TIME_END	(253402300800LL)
#define NONE		INT64_MAX

#define MON_ALL		0x1ffeU			/* bits 1-12 */
#define DOW_ALL		0x7fU
#define HOUR_ALL	0xffffffU
#define SIXTY_ALL	0x0fffffffffffffffULL	/* bits 0-59 */

static int64_t	 civil_next(const struct cron_sched *, int64_t);
static uint32_t	 day_mask(const struct cron_sched *, int, int);
static int	 bit_from64(uint64_t, int);
static int	 bit_from32(uint32_t, int);

/*
 * The days (bit d for day d) of a month matching the schedule, given
 * the month's length and the weekday of its first day.  The weekday
 * set is rotated so that bit j says whether day j + 1 matches, then
 * repeated every seven days.
 *
 * Day of month and day of week combine by sched_days().
 */
static uint32_t
day_mask(const struct cron_sched *s, int mdays, int wd1)
{
	uint32_t	 dow, pat, week, valid;

	dow = s->s_dow & DOW_ALL;
	pat = ((dow >> wd1) | (dow << (7 - wd1))) & DOW_ALL;
	week = (pat | pat << 7 | pat << 14 | pat << 21 | pat << 28) << 1;
	valid = (uint32_t)((2ULL << mdays) - 2);
	return (sched_days(s, s->s_dom, week) & valid);
}

uint32_t
sched_days(const struct cron_sched *s, uint32_t dom, uint32_t dow)
{
	if (s->s_flags & (SCHED_DOM_STAR | SCHED_DOW_STAR))
		return (dom & dow);
	return (dom | dow);
}

/* The lowest set bit at or above `from' (from < 64), or -1. */
static int
bit_from64(uint64_t set, int from)
{
	set &= ~0ULL << from;
	return (set == 0 ? -1 : __builtin_ctzll(set));
}

static int
bit_from32(uint32_t set, int from)
{
	set &= ~0U << from;
	return (set == 0 ? -1 : __builtin_ctz(set));
}

/*
 * The first local time at or after `local' whose month, day, hour,
 * minute and second match, or NONE when there is none before the year
 * 10000.  Each level either accepts its current value or moves to the
 * next set bit, resetting the levels below; when none is left the
 * level above moves on by one.
 */
static int64_t
civil_next(const struct cron_sched *s, int64_t local)
{
	int64_t		 days, y;
	uint32_t	 mon, hours;
	int		 mo, d, h, mi, sec, sod, mdays, n, wd1;

	mon = s->s_mon & MON_ALL;
	hours = s->s_hour & HOUR_ALL;
	days = floordiv(local, SECS_PER_DAY);
	sod = (int)(local - days * SECS_PER_DAY);
	days_to_civil(days, &y, &mo, &d);
	h = sod / 3600;
	mi = sod / 60 % 60;
	sec = sod % 60;
	goto month;

next_month:
	d = 1;
	h = mi = sec = 0;
	if (++mo > 12) {
		mo = 1;
		y++;
	}
month:
	if ((n = bit_from32(mon, mo)) == -1) {
		y++;
		n = __builtin_ctz(mon);
	}
	if (n != mo) {
		mo = n;
		d = 1;
		h = mi = sec = 0;
	}
	if (y > 9999)
		return (NONE);
	mdays = civil_mdays(y, mo);
	wd1 = civil_weekday(civil_to_days(y, mo, 1));
	goto day;

next_day:
	h = mi = sec = 0;
	if (++d > mdays)
		goto next_month;
day:
	if ((n = bit_from32(day_mask(s, mdays, wd1), d)) == -1)
		goto next_month;
	if (n != d) {
		d = n;
		h = mi = sec = 0;
	}
	goto hour;

next_hour:
	mi = sec = 0;
	if (++h > 23)
		goto next_day;
hour:
	if ((n = bit_from32(hours, h)) == -1)
		goto next_day;
	if (n != h) {
		h = n;
		mi = sec = 0;
	}
	goto minute;

next_minute:
	sec = 0;
	if (++mi > 59)
		goto next_hour;
minute:
	if ((n = bit_from64(s->s_min & SIXTY_ALL, mi)) == -1)
		goto next_hour;
	if (n != mi) {
		mi = n;
		sec = 0;
	}
	if ((n = bit_from64(s->s_sec & SIXTY_ALL, sec)) == -1)
		goto next_minute;
	sec = n;

	return (civil_to_days(y, mo, d) * SECS_PER_DAY + h * 3600 + mi * 60 +
	    sec);
}

/*
 * sched_never(): see parser.h.  A schedule never fires when it is
 * @reboot, when a field has no value at all, or when no day can ever
 * match: every valid date falls on every weekday over 400 years, so
 * with both day fields restricted (either one suffices) any weekday or
 * any existing date of a chosen month is enough, and with a '*' among
 * them (both must match) an existing date and any weekday are needed.
 * 29 February exists.
 */
int
sched_never(const struct cron_sched *s)
{
	static const unsigned char	 maxdays[13] = {
		0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	uint32_t	 mon, dates = 0;
	int		 m, dom_ok, dow_ok;

	mon = s->s_mon & MON_ALL;
	if ((s->s_flags & SCHED_REBOOT) || mon == 0 ||
	    (s->s_sec & SIXTY_ALL) == 0 || (s->s_min & SIXTY_ALL) == 0 ||
	    (s->s_hour & HOUR_ALL) == 0)
		return (1);
	for (m = 1; m <= 12; m++)
		if (mon & (1U << m))
			dates |= (uint32_t)((2ULL << maxdays[m]) - 2);
	dom_ok = (s->s_dom & dates) != 0;
	dow_ok = (s->s_dow & DOW_ALL) != 0;
	return (sched_days(s, (uint32_t)dom_ok, (uint32_t)dow_ok) == 0);
}

/*
 * sched_next(): see parser.h.  A NULL zone is UTC.
 */
int
sched_next(const struct cron_sched *s, const struct cron_tz *z,
    time_t after, time_t *next)
{
	int64_t	 t, local, m, start, end;
	int32_t	 off, noff;

	if (sched_never(s) || after >= TIME_END)
		return (-1);
	/* The calendar starts with the year 1. */
	if (after < TIME_FIRST - 1)
		after = TIME_FIRST - 1;

	if (!(s->s_flags & (SCHED_MIN_STAR | SCHED_HOUR_STAR))) {
		/* A fixed time: see the comment at the top. */
		m = civil_next(s, tz_highwater(z, after) + 1);
		if (m == NONE)
			return (-1);
		*next = tz_local_to_utc(z, m);
		return (0);
	}

	/*
	 * The wall clock: the first match in the segment holding t, else
	 * on to a later segment.  When the clocks go back at the segment's
	 * end, the next one repeats local times that may match; otherwise
	 * its local times lie beyond this one's and nothing before m can
	 * match, so the search jumps to the first instant whose local time
	 * can reach m.
	 */
	t = after + 1;
	for (;;) {
		off = tz_segment(z, t, &start, &end, &noff);
		local = t + off;
		if (local >= TIME_END)
			return (-1);
		if ((m = civil_next(s, local)) == NONE)
			return (-1);
		if (end == INT64_MAX || m - off < end) {
			*next = m - off;
			return (0);
		}
		t = end;
		if (noff >= off && m - tz_offmax(z) > t)
			t = m - tz_offmax(z);
	}
}
