/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * ctab.h: what ctab's files share.
 */

#ifndef CTAB_H
#define CTAB_H

#include <stddef.h>
#include <time.h>

/* A table larger than this, in bytes or lines, is refused. */
#define CTAB_MAXBYTES	(1024 * 1024)
#define CTAB_MAXLINES	10000

/*
 * lint_table() checks a table's text as ctab -T does: syntax errors and
 * warnings from the parser, zones that do not exist, schedules that
 * never fire, fixed-time entries that fall in a DST gap or overlap of
 * their zone within a year of now.  Prints every finding to standard
 * error as "ctab: FILE:LINE:COL: ...".  Returns the number of errors.
 */
size_t	 lint_table(const char *, const char *, size_t, int, time_t);

#endif /* CTAB_H */
