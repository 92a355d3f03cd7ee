/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * testdata.h: readers for the notation of tests/data, header-only and
 * shared by the parser's unit tests.
 */

#ifndef TESTDATA_H
#define TESTDATA_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* "0,15,30-32" or "none" into a bitset; -1 on a malformed set. */
static int	 td_parse_set(const char *, uint64_t *)
		    __attribute__((__unused__));
static int
td_parse_set(const char *s, uint64_t *bits)
{
	char	*end;
	long	 lo, hi, v;

	*bits = 0;
	if (strcmp(s, "none") == 0)
		return (0);
	for (;;) {
		lo = strtol(s, &end, 10);
		if (end == s || lo < 0 || lo > 63)
			return (-1);
		hi = lo;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo || hi > 63)
				return (-1);
		}
		for (v = lo; v <= hi; v++)
			*bits |= (uint64_t)1 << v;
		if (*end == '\0')
			return (0);
		if (*end != ',')
			return (-1);
		s = end + 1;
	}
}

#endif /* TESTDATA_H */
