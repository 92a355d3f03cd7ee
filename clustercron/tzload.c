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
