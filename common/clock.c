/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * clock.c: the one place that reads the time.  Everything above takes
 * "now" as an argument, so tests can hand it any instant.  In test
 * builds (libcommon_test.a, CLUSTERCRON_TEST defined) harnesses that
 * run whole programs shift the wall clock with
 * CLUSTERCRON_TEST_CLOCK_OFFSET (seconds, may be negative); what ships
 * has no such override.
 */

#include <stdlib.h>
#include <time.h>

#include "common.h"

#ifdef CLUSTERCRON_TEST
static int64_t	 clock_offset(void);

static int64_t
clock_offset(void)
{
	static int	 done;
	static int64_t	 offset;
	const char	*s;
	const char	*errstr;

	if (!done) {
		done = 1;
		if ((s = getenv("CLUSTERCRON_TEST_CLOCK_OFFSET")) != NULL) {
			offset = strtonum(s, -1000000000LL, 1000000000LL,
			    &errstr);
			if (errstr != NULL)
				offset = 0;
		}
	}
	return (offset);
}
#else
#define clock_offset()	0
#endif

time_t
clock_now(void)
{
	return ((time_t)(clock_now_ms() / 1000));
}

int64_t
clock_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
	    clock_offset() * 1000);
}

int64_t
clock_mono(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

int
clock_sleep(const int64_t *a, const int64_t *b, int64_t *ms)
{
	const int64_t	*first;

	if (a == NULL && b == NULL)
		return (0);
	first = a == NULL || (b != NULL && *b < *a) ? b : a;
	*ms = *first > 0 ? *first : 0;
	return (1);
}
