/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * log.c: one logging API for the daemon and the tools.  The daemon logs
 * to syslog with the cron facility so that operators' greps keep
 * working; in the foreground, and in the tools, lines go to standard
 * error prefixed with the program's name; with a log file, lines are
 * appended to it, each stamped with the time, the tag and the pid of
 * the process that logs it, as syslog would write them.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static void	vlog(int, const char *, va_list)
		    __attribute__((__format__ (printf, 2, 0)));
static void	logit(int, const char *, ...)
		    __attribute__((__format__ (printf, 2, 3)));
static void	file_write(const char *, va_list)
		    __attribute__((__format__ (printf, 1, 0)));

enum log_dest { DEST_STDERR, DEST_SYSLOG, DEST_FILE };

static enum log_dest	 log_dest = DEST_STDERR;
static int		 log_verbose;
static int		 log_fd = -1;
static char		*log_path;
static const char	*log_ident = "";

void
log_init(const char *ident, int to_stderr)
{
	log_ident = ident;
	log_dest = to_stderr ? DEST_STDERR : DEST_SYSLOG;
	if (log_dest == DEST_SYSLOG)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_CRON);
}

int
log_init_file(const char *ident, const char *path)
{
	char	*copy;
	int	 fd;

	if ((copy = strdup(path)) == NULL)
		return (-1);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOCTTY, 0640)) == -1) {
		free(copy);
		return (-1);
	}
	if (log_fd != -1)
		close(log_fd);
	free(log_path);
	log_fd = fd;
	log_path = copy;
	log_ident = ident;
	log_dest = DEST_FILE;
	return (0);
}

int
log_reopen(void)
{
	int	 fd;

	if (log_dest != DEST_FILE)
		return (0);
	if ((fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOCTTY, 0640)) == -1)
		return (-1);
	close(log_fd);
	log_fd = fd;
	return (0);
}

/*
 * Whether standard error is the journal: systemd sets JOURNAL_STREAM
 * to the device and inode of the stream it connects a service's
 * standard output and error to, as "DEV:INODE".
 */
int
log_stderr_is_journal(void)
{
	struct stat	 sb;
	const char	*js;
	uintmax_t	 dev, ino;
	char		 c;

	if ((js = getenv("JOURNAL_STREAM")) == NULL)
		return (0);
	if (sscanf(js, "%ju:%ju%c", &dev, &ino, &c) != 2)
		return (0);
	if (fstat(STDERR_FILENO, &sb) == -1)
		return (0);
	return ((uintmax_t)sb.st_dev == dev && (uintmax_t)sb.st_ino == ino);
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

/* One line to the log file, written at once so that lines never mix. */
static void
file_write(const char *fmt, va_list ap)
{
	struct tm	 tm;
	time_t		 now;
	char		 buf[2048];
	size_t		 n;
	int		 k;

	now = time(NULL);
	if (localtime_r(&now, &tm) == NULL ||
	    (n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S%z ", &tm)) == 0)
		n = 0;
	k = snprintf(buf + n, sizeof(buf) - n, "%s[%ld]: ", log_ident,
	    (long)getpid());
	if (k > 0 && (size_t)k < sizeof(buf) - n)
		n += (size_t)k;
	k = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (k > 0)
		n += (size_t)k;
	if (n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;	/* cut, as syslog cuts */
	buf[n++] = '\n';
	if (write(log_fd, buf, n) == -1) {
		/* There is nowhere left to say so. */
	}
}

static void
vlog(int pri, const char *fmt, va_list ap)
{
	switch (log_dest) {
	case DEST_STDERR:
		fprintf(stderr, "%s: ", getprogname());
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
		break;
	case DEST_SYSLOG:
		vsyslog(pri, fmt, ap);
		break;
	case DEST_FILE:
		file_write(fmt, ap);
		break;
	}
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
