/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tzload.c: zones by name for the programs: common reads the compiled
 * file, the parser makes a zone of its bytes.  Shared by clustercron
 * and ctab.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustercron.h"
#include "common.h"
#include "parser.h"

struct cron_tz *
tz_load(const char *name, char *errbuf, size_t errlen)
{
	struct cron_tz		*tz = NULL;
	struct cron_diag	 diag;
	char			*buf;
	size_t			 len;
	int			 isrule;

	if (name != NULL && strcmp(name, "UTC") == 0) {
		if (tz_utc(&tz) == -1)
			snprintf(errbuf, errlen, "%s", strerror(errno));
		return (tz);
	}
	if (tzfile_read(name, &buf, &len, &isrule) == -1) {
		if (errno == ENOENT)
			snprintf(errbuf, errlen, "unknown time zone %s",
			    name == NULL ? "(local)" : name);
		else
			snprintf(errbuf, errlen, "time zone %s: %s",
			    name == NULL ? "(local)" : name, strerror(errno));
		return (NULL);
	}
	if (tz_parse(name == NULL ? "localtime" : name, buf, len, isrule,
	    &tz, &diag) == -1)
		snprintf(errbuf, errlen, "time zone %s: %s",
		    name == NULL ? "(local)" : name, diag.d_msg);
	free(buf);
	return (tz);
}

/*
 * A wall-clock time c maps to the instants u with u + offset(u) == c.
 * Offsets change at most a day's worth, so the offsets in force a day
 * before and a day after c are the only candidates; the earlier
 * solution is the first occurrence.  With none, c was skipped, and the
 * answer is the instant of the jump, as cron runs skipped times then.
 */
time_t
tz_local_to_utc(const struct cron_tz *tz, int64_t c)
{
	int32_t	 before, after, ob, oa;
	time_t	 u, jump;

	before = tz_offset(tz, (time_t)(c - 86400));
	after = tz_offset(tz, (time_t)(c + 86400));
	u = (time_t)(c - before);
	if (tz_offset(tz, u) == before)
		return (u);
	u = (time_t)(c - after);
	if (tz_offset(tz, u) == after)
		return (u);
	/* Skipped: the jump lies in (c - after, c - before]. */
	if (tz_transition(tz, (time_t)(c - after - 1),
	    (time_t)(c - before + 1), &jump, &ob, &oa) == 1)
		return (jump);
	return ((time_t)(c - before));
}
