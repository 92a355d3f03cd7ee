/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * next_int.h: what civil.c, tz.c and next.c share privately.  The
 * calculator walks a zone by segments of constant UTC offset and needs
 * a little more of the zone than parser.h shows.
 */

#ifndef NEXT_INT_H
#define NEXT_INT_H

#include <stdint.h>

#include "parser.h"

#define SECS_PER_DAY	86400

/* Floor division and the matching remainder for a positive divisor. */
static inline int64_t
floordiv(int64_t a, int64_t b)
{
	return (a >= 0 ? a / b : -((-a - 1) / b) - 1);
}

static inline int64_t
floormod(int64_t a, int64_t b)
{
	return (a - floordiv(a, b) * b);
}

/* civil.c */
int	 civil_leap(int64_t);
int	 civil_mdays(int64_t, int);
int	 civil_weekday(int64_t);

/*
 * tz.c.  tz_segment() returns the offset in force at UTC instant t and
 * the segment of constant offset around it, [*start, *end), with
 * INT64_MIN or INT64_MAX for an unbounded side; *nextoff is the offset
 * from *end on.  tz_highwater() is the latest local (wall-clock) time
 * shown at or before t: more than t's own local time just after the
 * clocks went back.  tz_offmax() is the largest offset the zone ever
 * uses.  (tz_local_to_utc(), in parser.h, goes the other way.)
 */
int32_t	 tz_segment(const struct cron_tz *, int64_t, int64_t *, int64_t *,
	    int32_t *);
int64_t	 tz_highwater(const struct cron_tz *, int64_t);
int32_t	 tz_offmax(const struct cron_tz *);

#endif /* NEXT_INT_H */
