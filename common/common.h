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

/*
 * conf.c: the reader of clustercron.conf: "key = value" lines, whole-line
 * "#" comments, blank lines, blanks around key and value trimmed, and
 * optionally one pair of double quotes around the value (kept verbatim
 * inside; a "#" after a value is part of the value).  The caller passes
 * a table of the keys it knows; each key has a type and, for numbers,
 * bounds (durations in seconds, sizes in bytes, both inclusive):
 *
 *	CONF_STRING	any text (CONF_NONEMPTY refuses "")
 *	CONF_BOOL	yes or no, read as 1 or 0 through conf_num()
 *	CONF_UINT	a decimal number
 *	CONF_DURATION	a number with an optional unit s, m, h or d
 *			(no unit: seconds); "90s", "5m", "1d"
 *	CONF_BYTES	a number with an optional K, M or G (powers of 1024)
 *
 * ck_default is text parsed as if it came from the file (NULL: none;
 * conf_str() then returns NULL and conf_num() 0).  CONF_REQUIRED keys
 * must be set in the file.  CONF_SECRET keys never have their value in a
 * message, are wiped when freed, and a file that sets one must pass
 * conf_check_private().
 */
enum conf_type {
	CONF_STRING,
	CONF_BOOL,
	CONF_UINT,
	CONF_DURATION,
	CONF_BYTES
};

#define CONF_REQUIRED	0x1
#define CONF_SECRET	0x2
#define CONF_NONEMPTY	0x4

struct conf_key {
	const char	*ck_name;
	enum conf_type	 ck_type;
	int		 ck_flags;
	uint64_t	 ck_min;
	uint64_t	 ck_max;
	const char	*ck_default;
};

struct conf_value {
	char		*cv_str;	/* CONF_STRING, owned by the conf */
	uint64_t	 cv_num;	/* everything else */
	unsigned int	 cv_line;	/* line that set it, 0 for default */
};

/*
 * Every problem found, in file order, each "FILE:LINE: message" (or
 * "FILE: message" for the whole file); the caller zeroes the struct
 * before use and frees the messages with conf_errors_free().  After 100
 * messages one "too many errors" line ends the list.
 */
struct conf_errors {
	char		**ce_msg;
	size_t		  ce_count;
	size_t		  ce_dropped;
};

struct conf;

/*
 * conf_parse() reads the text buf of len bytes, named name in messages,
 * against keys (borrowed: the table must outlive the conf).  Returns 0
 * and a new conf in *confp, or -1 with *confp NULL, errno EINVAL and the
 * messages appended to errs (errs may be NULL), or errno ENOMEM.
 * conf_load() does the same for a file (at most 1 MiB), which must be a
 * regular file not writable by group or others, and private (see
 * conf_check_private()) when it sets a CONF_SECRET key; the file is
 * checked and read through one descriptor.
 *
 * conf_lookup() gives the index of a key by name, or -1; conf_get(),
 * conf_str(), conf_num() and conf_isset() read a value by the index of
 * its key in the table (borrowed; conf_str()'s pointer lives as long as
 * the conf).  conf_free(NULL) is a no-op.
 */
int	 conf_parse(const char *, const char *, size_t,
	    const struct conf_key *, size_t, struct conf **,
	    struct conf_errors *);
int	 conf_load(const char *, const struct conf_key *, size_t,
	    struct conf **, struct conf_errors *);
void	 conf_free(struct conf *);
void	 conf_errors_free(struct conf_errors *);
int	 conf_lookup(const struct conf *, const char *);
const struct conf_value *conf_get(const struct conf *, size_t);
const char *conf_str(const struct conf *, size_t);
uint64_t conf_num(const struct conf *, size_t);
int	 conf_isset(const struct conf *, size_t);

/*
 * conf_check_private() checks that a file holding secrets is a regular
 * file owned by root or the effective user and open to neither group
 * nor others (no permission bit in 077).  Returns 0, or -1 with the
 * reason in errbuf.  conf_check_private_fd() checks an open descriptor,
 * so that a caller checks and reads the same file.
 */
int	 conf_check_private(const char *, char *, size_t);
int	 conf_check_private_fd(int, const char *, char *, size_t);

#endif /* COMMON_H */
