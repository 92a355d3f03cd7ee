/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * atjob.h: what a one-shot job (at(1)) is, shared by ctab, which makes
 * one as at does, and the daemon, which stores it, prints it and, in
 * time, runs it: the back-off between retries, the environment at
 * leaves out, the shell script at would write, the decision of what
 * follows an attempt.  Pure code: no I/O, no globals, nothing printed.
 */

#ifndef ATJOB_H
#define ATJOB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Retries and back-off.  A job may be run again after a failed attempt,
 * at most AT_MAXRETRIES times.  The delays before the retries are
 * written either as a list, "1m,5m,30m" (the nth retry waits the nth
 * delay, later ones the last), or as a doubling with a cap, "30s..1h"
 * (30s, 1m, 2m, ... then 1h each time).  A delay is a number with an
 * optional unit s, m, h or d (no unit: seconds), from 1s to 30d; a list
 * has at most AT_MAXDELAYS delays.
 */
#define AT_MAXRETRIES	100
#define AT_MAXDELAYS	16
#define AT_MAXDELAY	(30 * 86400)
#define AT_DEFAULT_BACKOFF "1m..1h"

struct at_backoff {
	int		 b_doubling;	/* first delay doubled up to b_cap */
	uint32_t	 b_delay[AT_MAXDELAYS];
	int		 b_n;
	uint32_t	 b_cap;
};

/*
 * at_backoff_parse() reads a back-off as written; 0, or -1 with a
 * message naming the column at fault in err (of errlen bytes).
 * at_backoff_delay() is the delay in seconds before retry n (the first
 * retry is 1).
 */
int	 at_backoff_parse(const char *, struct at_backoff *, char *, size_t);
uint32_t at_backoff_delay(const struct at_backoff *, int);

/*
 * at_env_keep() says whether at(1) keeps a variable, given as
 * NAME=value, in a job's environment: not those it leaves out itself
 * (TERM, DISPLAY, _, SHELLOPTS, BASH_VERSINFO, EUID, GROUPS, UID), nor
 * those glibc takes from the set-user-ID at that Debian installs
 * (LD_PRELOAD, TMPDIR, ...), nor a name the shell could not set.
 */
int	 at_env_keep(const char *);

/*
 * at_script() writes the shell script of a job as at -c shows it and
 * as /bin/sh is to run it: the header (the owner's uid and gid, when
 * known, that is not negative; the mail line), the umask, each variable
 * of env (NAME=value, NUL-separated, envlen bytes) quoted as at quotes
 * it and exported, the change to cwd or a refusal to run elsewhere, and
 * the commands.  Returns a new string the caller frees (*len its
 * length: the commands may hold NUL bytes), or NULL when out of memory.
 */
char	*at_script(long, long, const char *, int, int, const char *,
	    const char *, size_t, const char *, size_t, size_t *);

/*
 * The decision after an attempt (what the daemon's runner asks when an
 * attempt ends, or when its node was found dead).  Given the job's
 * retries and back-off, the attempt that ended (from 1, counting only
 * the attempts that got to their start: fenced ones not), how it ended
 * and the job's lost policy, at_after() says whether the job is done,
 * failed, or retrying, and then when (now plus the back-off).  An
 * attempt that exited 0 is done.  One that failed (non-zero exit, a
 * signal, could not start) is retried while attempts <= retries.  One
 * whose end is unknown (its node died while it ran) is a failure under
 * the rerun policy (retried as a failure is, and when the job has no
 * retries once more, at once, as a lost cron run is rerun), and ends
 * the job failed under mark, the default, as a lost cron run is not
 * run again.  One that did not start because its node got to it past
 * the lease of its claim (AT_FENCED) ran nothing and is no failure of
 * the job: it is due again at once, whatever the retries, and takes
 * none of them: the caller leaves it out of the count of attempts (the
 * store keeps it as a missed run, store_atjob's a_fenced).
 */
enum at_outcome { AT_OK, AT_FAILED_RUN, AT_LOST, AT_FENCED };
enum at_next { AT_NEXT_DONE, AT_NEXT_FAILED, AT_NEXT_RETRY };
enum at_next at_after(int, const struct at_backoff *, int, enum at_outcome,
	    int, time_t, time_t *);

/* The queue letters at takes: a-z and A-Z ('=' is its running jobs). */
int	 at_queue_ok(int);

/*
 * at_summary() writes into buf (size > 0 bytes, always terminated) a
 * job's commands (len bytes, as stored, or their head) on one line, as
 * the admin verbs show a job's command: each line stripped of its
 * leading and trailing blanks, the empty ones and comments ('#')
 * left out, the others joined by "; "; a NUL byte ends the text.
 * What does not fit is cut.  The caller escapes it for its output.
 */
void	 at_summary(const char *, size_t, char *, size_t);

#endif /* ATJOB_H */
