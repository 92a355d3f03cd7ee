/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * stamp.c: for latency.sh, a job that appends its fire, the time it
 * started and its node to the file named by its argument.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct timespec	 ts;
	char		 buf[256];
	const char	*f, *n;
	int		 fd, len;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (argc != 3)
		return (2);
	f = getenv("CLUSTERCRON_FIRE_TIME");
	n = getenv("CLUSTERCRON_NODE");
	len = snprintf(buf, sizeof(buf), "%s %lld.%06ld %s %s\n",
	    f != NULL ? f : "-", (long long)ts.tv_sec, ts.tv_nsec / 1000,
	    n != NULL ? n : "-", argv[2]);
	if ((fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644)) == -1)
		return (1);
	write(fd, buf, (size_t)len);
	close(fd);
	return (0);
}
