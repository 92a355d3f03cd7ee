/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * crontab_fuzz.c: libFuzzer target for the parser.  Each input is
 * parsed as a user table and as a system table (each with and without
 * seconds), every entry's identity is computed and every string it
 * points to is read, so that the sanitizers see any bad pointer; the
 * input's first line is also parsed as an expression.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t	 touch(const char *);
static void	 parse_table(const char *, size_t, int);

static volatile size_t	 sink;

static size_t
touch(const char *s)
{
	return (s != NULL ? strlen(s) : 0);
}

static void
parse_table(const char *buf, size_t len, int flags)
{
	struct crontab		*ct;
	const struct cron_entry	*e;
	const char *const	*env;
	char			 id[CRON_IDLEN + 1];
	size_t			 i, n = 0;
	int			 rc;

	rc = crontab_parse("fuzz", buf, len, flags, &ct);
	if (rc == -1)
		return;
	if ((rc == 1) != (ct->ct_nerr > 0))
		abort();
	for (i = 0; i < ct->ct_nent; i++) {
		e = &ct->ct_ent[i];
		cron_entry_id(e, "fuzz", id);
		n += touch(e->e_user) + touch(e->e_cmd) + touch(e->e_input) +
		    touch(e->e_tz) + touch(e->e_when) + touch(e->e_opts.o_name);
		for (env = e->e_env; *env != NULL; env++)
			n += touch(*env);
		if (e->e_opts.o_nretry > CRON_MAXRETRY)
			abort();
	}
	for (i = 0; i < ct->ct_ndiag; i++) {
		if (memchr(ct->ct_diag[i].d_msg, '\0', CRON_MSGLEN) == NULL ||
		    ct->ct_diag[i].d_line == 0 ||
		    (i > 0 && ct->ct_diag[i].d_line <
		    ct->ct_diag[i - 1].d_line))
			abort();
	}
	sink += n;
	crontab_free(ct);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cron_sched	 s;
	struct cron_diag	 d;
	const char		*nl;
	char			*line;
	size_t			 n;

	parse_table((const char *)data, size, 0);
	parse_table((const char *)data, size, CRON_SYSTEM);
	parse_table((const char *)data, size, CRON_SECONDS);
	parse_table((const char *)data, size, CRON_SYSTEM | CRON_SECONDS);

	nl = memchr(data, '\n', size);
	n = nl != NULL ? (size_t)(nl - (const char *)data) : size;
	if ((line = malloc(n + 1)) == NULL)
		return (0);
	memcpy(line, data, n);
	line[n] = '\0';
	if (cron_expr_parse(line, 0, &s, &d) == -1 && d.d_col == 0)
		abort();
	(void)cron_expr_parse(line, CRON_SECONDS, &s, &d);
	free(line);
	return (0);
}
