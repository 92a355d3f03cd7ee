/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * common.h: what every clustercron program shares: logging, exiting
 * allocators, the clock and whole-file reading.  Uses libc and libbsd
 * only.
 */

#ifndef COMMON_H
#define COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * log.c: the daemon logs to syslog (LOG_CRON) in cron's shape; with
 * log_init(..., 1) everything goes to standard error instead, prefixed
 * with the program's name.  fatal() and fatalx() log and exit 1.
 */
void	 log_init(const char *, int);
void	 log_setverbose(int);
void	 log_warn(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_warnx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_info(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_debug(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 fatal(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2), __noreturn__));
void	 fatalx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2), __noreturn__));

/*
 * xmalloc.c: allocators for programs; they exit with a message when
 * memory runs out.  Libraries never use them.
 */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));

/*
 * clock.c: the only place that reads the time.  clock_now() is the
 * wall clock in seconds since the epoch, clock_mono() a monotonic
 * clock in milliseconds.  When the environment variable
 * CLUSTERCRON_TEST_CLOCK_OFFSET holds a number of seconds (test builds
 * and test harnesses only), clock_now() is shifted by it.
 */
time_t	 clock_now(void);
int64_t	 clock_now_ms(void);
int64_t	 clock_mono(void);

/*
 * fileutil.c: file_read() reads a whole regular file of at most maxlen
 * bytes into a NUL-terminated buffer the caller frees.  Returns 0, or
 * -1 with errno set (EFBIG when the file is larger than maxlen).  *bufp
 * stays NULL on failure.  file_read_fd() does the same from an open
 * descriptor (a pipe or standard input included).
 */
int	 file_read(const char *, size_t, char **, size_t *);
int	 file_read_fd(int, size_t, char **, size_t *);

/*
 * tzfile_read() finds and reads the compiled zone file for a zone name
 * (as in CRON_TZ or TZ): NULL or "" means the system's local zone (the
 * TZ environment variable, else /etc/localtime).  Names are looked up
 * under $TZDIR or /usr/share/zoneinfo; a name that is absolute, climbs
 * with "..", or is not a TZif file fails with ENOENT.  When TZ holds a
 * POSIX rule rather than a name, *bufp receives that rule text itself
 * and *isrule is set.  The buffer is the caller's to free.
 */
int	 tzfile_read(const char *, char **, size_t *, int *);

#endif /* COMMON_H */
