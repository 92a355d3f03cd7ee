/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * dlog.c: how the daemon writes what happens to fires, at the bottom
 * of its chain (daemon.h): instants in UTC, commands escaped for the
 * log, and the one shape of every line about a fire.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#define LIBBSD_OPENBSD_VIS
#include <vis.h>

#include "common.h"
#include "daemon.h"

/* Write an instant as 2026-03-08T08:00:00Z. */
void
fmt_utc(time_t t, char *buf, size_t len)
{
	struct tm	 tm;

	if (gmtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "%lld", (long long)t);
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The command as logged: escaped, and cut at LOGCMD_MAX. */
char *
cmd_escape(const char *cmd)
{
	char	*s;

	if (stravis(&s, cmd, VIS_CSTYLE | VIS_TAB | VIS_NL) == -1)
		fatal("stravis");
	if (strlen(s) > LOGCMD_MAX)
		strlcpy(s + LOGCMD_MAX - 3, "...", 4);
	return (s);
}

/*
 * Every line about a fire has one shape, so that one grep finds all
 * that happened to a job: the owner, the event, then in parentheses
 * the node, the fire's instant in UTC, what happened when there is more
 * to say (never holding a ';'), and last the job, whose command may
 * hold anything.
 */
void
fire_log(int pri, const char *owner, const char *event, const char *node,
    time_t fire, const char *label, const char *fmt, ...)
{
	va_list	 ap;
	char	 when[32], detail[512];

	fmt_utc(fire, when, sizeof(when));
	detail[0] = '\0';
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	switch (pri) {
	case LOG_ERR:
		log_warnx("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	case LOG_DEBUG:
		log_debug("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	default:
		log_info("(%s) %s (%s %s %s%s%s)", owner, event, node, when,
		    detail, *detail != '\0' ? "; " : "", label);
		break;
	}
}
