/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * fileutil.c: reading whole files with a size bound, and finding the
 * compiled zone file behind a zone name.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define TZDIR_DEFAULT	"/usr/share/zoneinfo"
#define LOCALTIME	"/etc/localtime"
#define TZ_MAXFILE	(1024 * 1024)

int
file_read_fd(int fd, size_t maxlen, char **bufp, size_t *lenp)
{
	char	*buf = NULL, *nbuf;
	size_t	 len = 0, cap = 0;
	ssize_t	 n;
	int	 saved;

	*bufp = NULL;
	*lenp = 0;
	for (;;) {
		if (len + 1 >= cap) {
			cap = cap == 0 ? 8192 : cap * 2;
			if (cap > maxlen + 2)
				cap = maxlen + 2;
			if ((nbuf = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nbuf;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > maxlen) {
			errno = EFBIG;
			goto fail;
		}
	}
	if (buf == NULL && (buf = malloc(1)) == NULL)
		goto fail;
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return (0);
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return (-1);
}

int
file_read(const char *path, size_t maxlen, char **bufp, size_t *lenp)
{
	struct stat	 st;
	int		 fd, rv, saved;

	*bufp = NULL;
	*lenp = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return (-1);
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return (-1);
	}
	if ((uintmax_t)st.st_size > maxlen) {
		close(fd);
		errno = EFBIG;
		return (-1);
	}
	rv = file_read_fd(fd, maxlen, bufp, lenp);
	saved = errno;
	close(fd);
	errno = saved;
	return (rv);
}

/*
 * A zone name is a relative path of letters, digits and "-_+/." that
 * never climbs out of the zone directory.
 */
static int
tzname_ok(const char *name)
{
	const char	*p;

	if (*name == '\0' || *name == '/' || strlen(name) > 255)
		return (0);
	for (p = name; *p != '\0'; p++) {
		if (p[0] == '.' && p[1] == '.')
			return (0);
		if (!(( *p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-_+/.", *p) != NULL))
			return (0);
	}
	return (1);
}

int
tzfile_read(const char *name, char **bufp, size_t *lenp, int *isrule)
{
	const char	*dir;
	char		 path[1024];
	char		*buf;
	size_t		 len;

	*bufp = NULL;
	*lenp = 0;
	*isrule = 0;
	if (name == NULL || *name == '\0') {
		name = getenv("TZ");
		if (name == NULL || *name == '\0')
			name = NULL;
		else if (*name == ':')
			name++;
		else if (strchr(name, '/') == NULL &&
		    strpbrk(name, "0123456789") != NULL) {
			/* A POSIX rule such as EST5EDT,M3.2.0,M11.1.0. */
			if ((*bufp = strdup(name)) == NULL)
				return (-1);
			*lenp = strlen(name);
			*isrule = 1;
			return (0);
		}
	}
	if (name == NULL) {
		if (file_read(LOCALTIME, TZ_MAXFILE, &buf, &len) == -1) {
			/* No local zone configured: cron then runs on UTC. */
			name = "UTC";
		} else
			goto check;
	}
	if (!tzname_ok(name)) {
		errno = ENOENT;
		return (-1);
	}
	if ((dir = getenv("TZDIR")) == NULL || *dir == '\0')
		dir = TZDIR_DEFAULT;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	if (file_read(path, TZ_MAXFILE, &buf, &len) == -1) {
		if (errno == EISDIR || errno == EINVAL)
			errno = ENOENT;
		return (-1);
	}
check:
	if (len < 44 || memcmp(buf, "TZif", 4) != 0) {
		free(buf);
		errno = ENOENT;
		return (-1);
	}
	*bufp = buf;
	*lenp = len;
	return (0);
}
