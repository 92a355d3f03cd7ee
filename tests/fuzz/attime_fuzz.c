/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * attime_fuzz.c: libFuzzer target for the at(1) time parser.  The
 * input's first byte picks a zone (POSIX rules, so that no file is
 * read), the next eight a "now" between 1900 and 2200, the rest is the
 * text, read as a timespec and as at -t's time.  A zone name in the
 * text is given as UTC by a loader that reads nothing.  The answers must
 * keep the parser's promises: an instant not before the current minute
 * and before the year 10000, or an error with a terminated message, a
 * column within the text and *out 0.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct cron_tz *loader(const char *, void *);
static void	 check(int, time_t, time_t, const struct cron_diag *,
		    size_t);

static const char *const rules[] = {
	"UTC0",
	"EST5EDT,M3.2.0,M11.1.0",
	"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
	"GMT0BST,M3.5.0/1,M10.5.0",
	"<-04>4<-03>,M9.1.6/24,M4.1.6/24",
	"<+0545>-5:45",
	"<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
};

static struct cron_tz *zones[sizeof(rules) / sizeof(rules[0])];

static struct cron_tz *
loader(const char *name, void *arg)
{
	struct cron_tz	*tz;

	(void)arg;
	if (strchr(name, '/') == NULL || tz_utc(&tz) == -1)
		abort();
	return (tz);
}

static void
check(int rc, time_t now, time_t t, const struct cron_diag *d, size_t len)
{
	if (rc == 0) {
		/* Not before the current minute, before 10000. */
		if (t < now - 60 || t >= (time_t)253402300800LL)
			abort();
		return;
	}
	if (rc != -1 || t != 0 || d->d_col > len + 1 ||
	    memchr(d->d_msg, '\0', sizeof(d->d_msg)) == NULL ||
	    d->d_msg[0] == '\0')
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cron_diag d;
	struct cron_diag dz;
	const struct cron_tz *tz;
	char		*text;
	uint64_t	 v = 0;
	time_t		 now, t;
	size_t		 i, z;
	int		 rc;

	if (size < 9)
		return (0);
	z = data[0] % (sizeof(rules) / sizeof(rules[0]));
	if (zones[z] == NULL && tz_parse(rules[z], rules[z],
	    strlen(rules[z]), 1, &zones[z], &dz) == -1)
		abort();
	tz = zones[z];
	for (i = 1; i < 9; i++)
		v = v << 8 | data[i];
	/* 1900-01-01 to 2200-01-01. */
	now = (time_t)(-2208988800LL + (int64_t)(v % 9467280000ULL));
	size -= 9;
	if ((text = malloc(size + 1)) == NULL)
		return (0);
	memcpy(text, data + 9, size);
	text[size] = '\0';
	size = strlen(text);

	t = 1;
	rc = at_parse(text, now, tz, loader, NULL, &t, &d);
	check(rc, now, t, &d, size);
	t = 1;
	rc = at_parse(text, now, tz, NULL, NULL, &t, &d);
	check(rc, now, t, &d, size);
	t = 1;
	rc = at_parse_posix(text, now, tz, &t, &d);
	check(rc, now, t, &d, size);
	free(text);
	return (0);
}
