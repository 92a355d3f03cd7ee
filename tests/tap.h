/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tap.h: the Test Anything Protocol for unit tests, header-only.  Each
 * test program includes it once, calls ok()/is_int()/is_str() and ends
 * with return (tap_done()).  Output goes to standard output for
 * automake's tap-driver.sh.
 *
 * A check that cannot run here is passed over with tap_skip(), and a
 * whole program with return (tap_skip_all(...)) before its first check,
 * both saying why; nothing else prints a SKIP.  When the environment
 * variable CI is set (.ci/run sets it) either is a failure instead,
 * with the same reason: CI installs every tool the tests use and runs
 * them as root, so there a test that cannot run is a broken machine or
 * a broken test (tests/lib/skip.sh does the same for the scripts).
 */

#ifndef TAP_H
#define TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

static int	 tap_ci(void) __attribute__((__unused__));
static int
tap_ci(void)
{
	const char	*ci;

	ci = getenv("CI");
	return (ci != NULL && *ci != '\0');
}

static void	 tap_skip(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2), __unused__));
static void
tap_skip(const char *fmt, ...)
{
	va_list	 ap;

	tap_n++;
	if (tap_ci()) {
		tap_failed++;
		printf("not ok %d - cannot run here, and CI is set: ", tap_n);
	} else
		printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int	 tap_skip_all(const char *, ...)
		    __attribute__((__format__ (printf, 1, 2), __unused__));
static int
tap_skip_all(const char *fmt, ...)
{
	va_list	 ap;

	printf(tap_ci() ? "Bail out! cannot run here, and CI is set: " :
	    "1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return (tap_ci() ? 99 : 0);
}

static int	 tap_done(void) __attribute__((__unused__));
static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return (tap_failed == 0 ? 0 : 1);
}

#endif /* TAP_H */
