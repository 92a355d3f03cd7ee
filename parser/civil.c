/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * civil.c: the proleptic Gregorian calendar as day counts from
 * 1970-01-01.  The year is counted from March, so that the leap day is
 * the last day of its year and the months March to February have a
 * length pattern the formula 153 * m / 5 reproduces; years come in eras
 * of 400 years, 146097 days, which repeat exactly.
 */

#include <stdint.h>

#include "next_int.h"

#define DAYS_PER_ERA	146097		/* 400 years */
#define EPOCH_SHIFT	719468		/* 0000-03-01 to 1970-01-01 */

/*
 * Days since 1970-01-01 of year y, month m (1-12), day d (1-31).  The
 * date is not checked: day 0 or 32 simply counts on from the month.
 */
int64_t
civil_to_days(int64_t y, int m, int d)
{
	int64_t	 era, yoe, doy, doe;
	int	 mar;

	/* Years begin on 1 March: January and February close the year. */
	if (m <= 2)
		y--;
	era = floordiv(y, 400);
	yoe = y - era * 400;				/* 0-399 */
	mar = m > 2 ? m - 3 : m + 9;			/* 0 is March */
	doy = (153 * mar + 2) / 5 + d - 1;		/* 0-365 */
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;	/* 0-146096 */
	return (era * DAYS_PER_ERA + doe - EPOCH_SHIFT);
}

/* The inverse of civil_to_days(). */
void
days_to_civil(int64_t days, int64_t *yp, int *mp, int *dp)
{
	int64_t	 era, doe, yoe, doy, y;
	int	 mar;

	days += EPOCH_SHIFT;
	era = floordiv(days, DAYS_PER_ERA);
	doe = days - era * DAYS_PER_ERA;
	/*
	 * Remove the leap days before doe (one every 1460 days, but none
	 * at 36524 and again one at 146096) so that the year is a plain
	 * division by 365.
	 */
	yoe = (doe - doe / 1460 + doe / 36524 - doe / (DAYS_PER_ERA - 1)) /
	    365;
	doy = doe - (yoe * 365 + yoe / 4 - yoe / 100);
	mar = (int)((5 * doy + 2) / 153);
	y = era * 400 + yoe;
	*dp = (int)(doy - (153 * mar + 2) / 5 + 1);
	*mp = mar < 10 ? mar + 3 : mar - 9;
	*yp = *mp <= 2 ? y + 1 : y;
}

int
civil_leap(int64_t y)
{
	return ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
}

/* Days in month m (1-12) of year y. */
int
civil_mdays(int64_t y, int m)
{
	static const unsigned char	 len[13] = {
		0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	if (m == 2 && civil_leap(y))
		return (29);
	return (len[m]);
}

/* Weekday, 0 for Sunday, of a day count; 1970-01-01 was a Thursday. */
int
civil_weekday(int64_t days)
{
	return ((int)floormod(days + 4, 7));
}
