/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * admin.h: what the admin verbs that read the store share (admin.c):
 * finding and opening the daemon's store, naming jobs, and the two
 * shapes of output, aligned tables for people and JSON for programs.
 */

#ifndef ADMIN_H
#define ADMIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clustercron.h"

struct json;
struct store;
struct store_error;
struct store_job;
struct store_run;

/* An admin verb's view of the cluster: the configuration and store. */
struct admin {
	struct dconf	 a_conf;
	struct store	*a_st;
	const char	*a_verb;	/* for messages */
};

/*
 * admin_open() reads the configuration as the daemon does (conffile,
 * explicit when given with -c) and opens its store.  A SQLite store
 * that does not exist is not created: the verbs only look (and pause
 * or drain).  Exits with a message on failure.  admin_close() closes
 * the store and frees the configuration.
 */
void	 admin_open(struct admin *, const char *, const char *, int);
void	 admin_close(struct admin *);
/* Exit with the store's message, naming what was being done. */
void	 admin_storefail(struct admin *, const char *,
	    const struct store_error *) __attribute__((__noreturn__));

/*
 * Naming a job on the command line: its explicit name, or a prefix of
 * its identity of at least ADMIN_PREFIXMIN hex digits.
 * admin_job_match() returns how many of the n jobs the word names (an
 * explicit name first: when some job has that name, prefixes are not
 * looked at) and the index of the first in *first.  admin_job_pick()
 * returns the one job the word names, or exits with a message listing
 * the candidates (borrowed: a pointer into jobs).
 */
#define ADMIN_PREFIXMIN	6
#define ADMIN_SHORTID	12	/* identity digits shown to people */
size_t	 admin_job_match(const struct store_job *, size_t, const char *,
	    size_t *);
const struct store_job *admin_job_pick(struct admin *,
	    const struct store_job *, size_t, const char *);
/* The job's explicit name, or NULL. */
const char *admin_job_name(const struct store_job *);

/*
 * A table for people: cells added row by row, left to right, then
 * printed with a header line and every column as wide as its widest
 * cell, two blanks apart.  Cells are copied; a tab becomes a blank,
 * every other character uni_unsafe() names (controls, bidirectional
 * controls) a \u escape such as "\u202e", bytes that are not UTF-8
 * '?', and a cell longer than the column's limit (0: none) is cut,
 * ending in "...".  An empty or NULL cell shows as "-".  admin_esc()
 * returns a cell's text so escaped, whole, for a message (the caller
 * frees it).
 */
struct tbl {
	size_t		  t_ncol;
	const char *const *t_head;
	const size_t	 *t_max;	/* per column, or NULL */
	char		**t_cell;
	size_t		  t_ncell;
	size_t		  t_cap;
};
void	 tbl_init(struct tbl *, size_t, const char *const *,
	    const size_t *);
void	 tbl_add(struct tbl *, const char *);
void	 tbl_addf(struct tbl *, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));
void	 tbl_print(struct tbl *, FILE *);
char	*admin_esc(const char *);
void	 tbl_free(struct tbl *);

/*
 * Times.  admin_local() writes ms since the epoch as local time,
 * "2026-03-08 03:00:00" (0: "-"); admin_dur() a duration in ms as
 * "0.012s", "59.000s", "5m03s", "2h05m03s" or "3d04h05m"; admin_age()
 * an age, the same but in whole seconds under a minute ("4s").
 * json_time() writes two members: key, the time in ISO 8601 UTC
 * ("2026-03-08T08:00:00Z"), and key_ms, ms since the epoch; both null
 * when ms is 0.
 */
#define ADMIN_TIMELEN	32
void	 admin_local(int64_t, char *, size_t);
void	 admin_dur(int64_t, char *, size_t);
void	 admin_age(int64_t, char *, size_t);
void	 json_time(struct json *, const char *, int64_t);

/*
 * A run's outcome in a word or two: "running", "exit 0", "signal 9",
 * "lost", "missed", "skipped".  admin_json_run() writes the members
 * that describe a run (the caller opens and closes the object):
 * job, node, fire, attempt, pid, started, ended, duration_ms, state,
 * exit, signal, output (the head kept, whole) and output_bytes.
 */
void	 admin_result(const struct store_run *, char *, size_t);
void	 admin_json_run(struct json *, const struct store_run *);

/* Finish standard output: exit 1 when it could not be written. */
int	 admin_done(void);

#endif /* ADMIN_H */
