/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * crontab_fault.c: crontab_parse() when memory runs out.  The parser's
 * allocations are wrapped at link time (-Wl,--wrap) so that the Nth
 * one fails; for every N until a parse needs no more, crontab_parse()
 * must return -1 with errno ENOMEM and *out NULL, and free what it
 * had (run under valgrind or ASan to see leaks).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "tap.h"

void	*__wrap_malloc(size_t);
void	*__wrap_calloc(size_t, size_t);
void	*__wrap_realloc(void *, size_t);
void	*__wrap_reallocarray(void *, size_t, size_t);
void	*__real_malloc(size_t);
void	*__real_calloc(size_t, size_t);
void	*__real_realloc(void *, size_t);
void	*__real_reallocarray(void *, size_t, size_t);

static long	 fail_at = -1;	/* the allocation to fail, from 0 */
static long	 calls;

static int	 failing(void);

static int
failing(void)
{
	return (fail_at >= 0 && calls++ == fail_at);
}

void *
__wrap_malloc(size_t n)
{
	return (failing() ? NULL : __real_malloc(n));
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return (failing() ? NULL : __real_calloc(n, size));
}

void *
__wrap_realloc(void *p, size_t n)
{
	return (failing() ? NULL : __real_realloc(p, n));
}

void *
__wrap_reallocarray(void *p, size_t n, size_t size)
{
	return (failing() ? NULL : __real_reallocarray(p, n, size));
}

int
main(void)
{
	static const char	 table[] =
	    "SHELL=/bin/sh\n"
	    "CRON_TZ=Europe/Paris\n"
	    "CLUSTERCRON_NAME=first\n"
	    "0 0 * * * root one%input\n"
	    "60 * * * * root bad\n"
	    "MAILTO=x\n"
	    "*/5 * */2 * 1 daemon two\n"
	    "@daily root three\n";
	struct crontab		*ct;
	char			*big;
	size_t			 i, len;
	long			 n;
	int			 rc, good = 1;

	/* Enough entries to grow the arrays several times. */
	len = strlen(table) * 40 + 1;
	if ((big = __real_malloc(len)) == NULL)
		return (99);
	big[0] = '\0';
	for (i = 0; i < 40; i++)
		(void)strlcat(big, table, len);
	/* The repeated CLUSTERCRON_NAME is an error after the first. */
	len = strlen(big);

	for (n = 0;; n++) {
		fail_at = n;
		calls = 0;
		ct = (struct crontab *)&ct;
		errno = 0;
		rc = crontab_parse("fault", big, len, CRON_SYSTEM, &ct);
		fail_at = -1;
		if (rc != -1) {
			ok(rc == 1 && ct != NULL && ct->ct_nent > 0,
			    "parse succeeds once allocation %ld is not "
			    "reached", n);
			crontab_free(ct);
			break;
		}
		if (errno != ENOMEM || ct != NULL) {
			good = 0;
			diag("allocation %ld: errno %d, out %p", n, errno,
			    (void *)ct);
		}
	}
	ok(good, "each of %ld failing allocations gives -1, ENOMEM and "
	    "*out NULL", n);
	ok(n >= 5, "the parse needed several allocations (%ld)", n);
	free(big);
	return (tap_done());
}
