/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * clustercron.h: what the daemon's and the admin verbs' files share.
 */

#ifndef CLUSTERCRON_H
#define CLUSTERCRON_H

#include <time.h>

struct cron_tz;

/*
 * An admin verb: name, entry point (argc/argv start at the verb) and
 * a one-line usage.
 */
struct verb {
	const char	*v_name;
	int		(*v_main)(int, char **);
	const char	*v_usage;
};

int	 verb_next(int, char **);

/* The daemon: clustercron without a verb (daemon.c). */
int	 daemon_main(int, char **);

/*
 * tz_load() reads and parses a zone by name (NULL: the local zone).
 * Returns the zone, or NULL with a message in errbuf.  Shared by the
 * verbs and the daemon.
 */
struct cron_tz *tz_load(const char *, char *, size_t);


/*
 * tz_local_to_utc() turns a wall-clock time in a zone (seconds since the
 * epoch as if the zone were UTC) into the UTC instant: the first
 * occurrence of a repeated time, the jump for a skipped one.
 */
time_t	 tz_local_to_utc(const struct cron_tz *, int64_t);

#endif /* CLUSTERCRON_H */
