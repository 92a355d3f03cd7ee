/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * log.c: one logging API for the daemon and the tools.  The daemon logs
 * to syslog with the cron facility so that operators' greps keep
 * working; in the foreground, and in the tools, lines go to standard
 * error prefixed with the program's name.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "common.h"

static void	vlog(int, const char *, va_list)
		    __attribute__((__format__ (printf, 2, 0)));
static void	logit(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));

static int	 log_stderr = 1;
static int	 log_verbose;

void
log_init(const char *ident, int to_stderr)
{
	log_stderr = to_stderr;
	if (!log_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_CRON);
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

static void
vlog(int pri, const char *fmt, va_list ap)
{
	if (log_stderr) {
		fprintf(stderr, "%s: ", getprogname());
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
	} else
		vsyslog(pri, fmt, ap);
}

static void
logit(int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

static void
log_errno(int pri, const char *fmt, va_list ap)
{
	char	 buf[1024];
	int	 saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	logit(pri, "%s: %s", buf, strerror(saved));
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_errno(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_errno(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
