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

/*
 * ctab.c: one request to the daemon and its reply (tabproto.h): 0, or
 * CTAB_DOWN when no daemon listens (not said: ctab_say_down() says it,
 * with the way to start one), or -1 on another failure (said).
 */
struct tabmsg;
#define CTAB_DOWN	(-2)
int	 ctab_call(const struct tabmsg *, struct tabmsg *);
void	 ctab_say_down(void);

/*
 * at.c: at(1), atq, atrm and batch, by the name ctab was called by, or
 * ctab -A with at's arguments (mode AT_MODE_AT).  Returns the exit
 * status.
 */
enum { AT_MODE_AT, AT_MODE_ATQ, AT_MODE_ATRM, AT_MODE_BATCH };
int	 at_main(int, char **, int);

#endif /* CTAB_H */
