/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * parser_int.h: what the parser's files share privately.
 */

#ifndef PARSER_INT_H
#define PARSER_INT_H

#include "parser.h"

/*
 * expr_parse() parses the schedule part of a crontab line: the text is
 * line[0..len), parsing starts at *posp (which must not be a blank)
 * and stops at the first blank after the last field, or at the end.
 * On success *posp is that position and 0 is returned; on failure -1
 * with *diag filled (d_col 1-based within line, d_line 1, d_file
 * NULL) and *out zeroed.  eol names the end of the text in messages
 * ("end of line", "end of expression").  flags: CRON_SECONDS.
 */
int	 expr_parse(const char *, size_t, size_t *, int, const char *,
	    struct cron_sched *, struct cron_diag *);

#endif /* PARSER_INT_H */
