/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tap.h: the Test Anything Protocol for unit tests, header-only.  Each
 * test program includes it once, calls ok()/is_int()/is_str() and ends
 * with return (tap_done()).  Output goes to standard output for
 * automake's tap-driver.sh.
 */

#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int	 tap_n;
static int	 tap_failed;

static void	 tap_result(int, const char *, va_list)
		    __attribute__((__format__ (printf, 2, 0)));

static void
tap_result(int pass, const char *fmt, va_list ap)
{
	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static int	 ok(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3), __unused__));
static int
ok(int pass, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	tap_result(pass, fmt, ap);
	va_end(ap);
	return (pass);
}

static void	 diag(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2), __unused__));
static void
diag(const char *fmt, ...)
{
	va_list	 ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int	 is_int(long long, long long, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4), __unused__));
static int
is_int(long long got, long long want, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	tap_result(got == want, fmt, ap);
	va_end(ap);
	if (got != want)
		diag("got %lld, want %lld", got, want);
	return (got == want);
}

static int	 is_str(const char *, const char *, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4), __unused__));
static int
is_str(const char *got, const char *want, const char *fmt, ...)
{
	va_list	 ap;
	int	 pass;

	pass = (got == NULL && want == NULL) ||
	    (got != NULL && want != NULL && strcmp(got, want) == 0);
	va_start(ap, fmt);
	tap_result(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("got \"%s\", want \"%s\"", got ? got : "(null)",
		    want ? want : "(null)");
	return (pass);
}

static int	 tap_done(void) __attribute__((__unused__));
static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return (tap_failed == 0 ? 0 : 1);
}

#endif /* TAP_H */
