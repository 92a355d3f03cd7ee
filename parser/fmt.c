/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * fmt.c: instants as people and programs read them.
 */

#include <stdio.h>
#include <stdlib.h>

#include "parser.h"

void
cron_fmt_iso8601(const struct cron_tz *tz, time_t t, char *buf, size_t len)
{
	int64_t	 local, days, secs, y;
	int32_t	 off, aoff;
	int	 m, d;
	char	 zone[16];

	off = tz_offset(tz, t);
	local = (int64_t)t + off;
	days = local / 86400;
	secs = local % 86400;
	if (secs < 0) {
		secs += 86400;
		days--;
	}
	days_to_civil(days, &y, &m, &d);
	aoff = off < 0 ? -off : off;
	if (aoff % 60 != 0)
		snprintf(zone, sizeof(zone), "%c%02d:%02d:%02d",
		    off < 0 ? '-' : '+', (int)(aoff / 3600),
		    (int)(aoff / 60 % 60), (int)(aoff % 60));
	else
		snprintf(zone, sizeof(zone), "%c%02d:%02d",
		    off < 0 ? '-' : '+', (int)(aoff / 3600),
		    (int)(aoff / 60 % 60));
	snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d%s",
	    (long long)y, m, d, (int)(secs / 3600), (int)(secs / 60 % 60),
	    (int)(secs % 60), zone);
}
