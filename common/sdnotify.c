/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * sdnotify.c: tell a service manager that the daemon is ready or
 * stopping, as systemd's sd_notify(3) does, without linking libsystemd.
 * The protocol is one datagram per message on the unix socket named by
 * $NOTIFY_SOCKET, holding newline-separated NAME=value assignments
 * (READY=1, STOPPING=1, STATUS=text).  A name starting with '@' is in
 * the abstract namespace: the address then starts with a NUL byte and
 * its length counts only the bytes of the name.
 *
 * The variable is read once and removed from the environment: the jobs
 * and mailers get environments built from scratch anyway, but nothing
 * the daemon starts, now or later, should be able to speak for it.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static struct sockaddr_un	 notify_sun;
static socklen_t		 notify_len;

int
sdnotify_init(void)
{
	const char	*e;
	size_t		 len;

	notify_len = 0;
	e = getenv("NOTIFY_SOCKET");
	if (e == NULL || *e == '\0') {
		(void)unsetenv("NOTIFY_SOCKET");
		return (0);
	}
	len = strlen(e);
	if ((*e != '/' && *e != '@') || len < 2 ||
	    len >= sizeof(notify_sun.sun_path)) {
		(void)unsetenv("NOTIFY_SOCKET");
		errno = EINVAL;
		return (-1);
	}
	memset(&notify_sun, 0, sizeof(notify_sun));
	notify_sun.sun_family = AF_UNIX;
	memcpy(notify_sun.sun_path, e, len);
	if (*e == '@') {
		notify_sun.sun_path[0] = '\0';
		notify_len = (socklen_t)(offsetof(struct sockaddr_un,
		    sun_path) + len);
	} else
		notify_len = (socklen_t)sizeof(notify_sun);
	(void)unsetenv("NOTIFY_SOCKET");
	return (1);
}

int
sdnotify(const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[512];
	int	 fd, n, saved;
	ssize_t	 r;

	if (notify_len == 0)
		return (0);
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return (-1);
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	do
		r = sendto(fd, buf, (size_t)n, MSG_NOSIGNAL,
		    (struct sockaddr *)&notify_sun, notify_len);
	while (r == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	errno = saved;
	return (r == -1 ? -1 : 0);
}
