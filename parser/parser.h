/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * parser.h: cron syntax and time.  Expressions and whole crontab files
 * (user and system format) become entries; the next-fire calculator
 * turns an entry's schedule, a zone and an instant into the next
 * instant.  Pure code: no I/O, no globals.  Callers read files (and
 * zone files) and hand the bytes in.
 */

#ifndef PARSER_H
#define PARSER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * A schedule: one bitset per field.  Five-field entries have only
 * second 0 set in s_sec.  Day-of-week 7 is folded into 0 (Sunday).
 *
 * The *_STAR flags record whether a field's text begins with '*': the
 * day-of-month/day-of-week rule (both must match when either begins
 * with '*', otherwise either is enough) and the DST rule (a job is at
 * a fixed time unless its minute or hour begins with '*') are decided
 * by the text, not by the bits, exactly as Vixie cron does.
 */
struct cron_sched {
	uint64_t	 s_sec;		/* bit n: second n, 0-59 */
	uint64_t	 s_min;		/* bit n: minute n, 0-59 */
	uint32_t	 s_hour;	/* bit n: hour n, 0-23 */
	uint32_t	 s_dom;		/* bit n: day n, 1-31 */
	uint16_t	 s_mon;		/* bit n: month n, 1-12 */
	uint8_t		 s_dow;		/* bit n: weekday n, 0-6 */
	uint8_t		 s_flags;
};
#define SCHED_MIN_STAR	0x01	/* minute field begins with '*' */
#define SCHED_HOUR_STAR	0x02	/* hour field begins with '*' */
#define SCHED_DOM_STAR	0x04	/* day-of-month field begins with '*' */
#define SCHED_DOW_STAR	0x08	/* day-of-week field begins with '*' */
#define SCHED_REBOOT	0x10	/* @reboot: at start-up, no instants */
#define SCHED_SECONDS	0x20	/* six fields: s_sec came from the text */

/*
 * An error or a warning with its place: file (borrowed from the
 * caller), 1-based line and column (column 0 when the whole line is
 * meant) and a sentence saying what was found and what was expected.
 */
#define CRON_MSGLEN	192
struct cron_diag {
	const char	*d_file;
	size_t		 d_line;
	size_t		 d_col;
	int		 d_warning;	/* 0 error, 1 warning */
	char		 d_msg[CRON_MSGLEN];
};

/* Flags for cron_expr_parse() and crontab_parse(). */
#define CRON_SECONDS	0x01	/* six-field expressions with seconds */
#define CRON_SYSTEM	0x02	/* system table: a user field follows */

/*
 * cron_expr_parse() parses a schedule expression: five fields (six
 * with CRON_SECONDS) or one of the @ macros, without command.  Returns
 * 0, or -1 with *diag filled (d_file NULL, d_line 1, d_col the column
 * at fault).  *out is left zeroed on failure.
 */
int	 cron_expr_parse(const char *, int, struct cron_sched *,
	    struct cron_diag *);

/* Entry options: clustercron's own variable lines (see ctab(5)). */
enum cron_scope		{ SCOPE_CLUSTER, SCOPE_NODE };
enum cron_overlap	{ OVERLAP_ALLOW, OVERLAP_FORBID };
enum cron_misfire	{ MISFIRE_SKIP, MISFIRE_CATCHUP };
enum cron_lost		{ LOST_MARK, LOST_RERUN };

#define CRON_MAXRETRY	8
struct cron_opts {
	enum cron_scope	 o_scope;	/* CLUSTERCRON_SCOPE */
	enum cron_overlap o_overlap;	/* CLUSTERCRON_OVERLAP */
	enum cron_misfire o_misfire;	/* CLUSTERCRON_MISFIRE */
	enum cron_lost	 o_lost;	/* CLUSTERCRON_LOST */
	uint32_t	 o_grace;	/* catch-up window, seconds */
	uint32_t	 o_timeout;	/* CLUSTERCRON_TIMEOUT, 0 none */
	uint32_t	 o_spread;	/* CLUSTERCRON_SPREAD, 0 none */
	uint32_t	 o_retry[CRON_MAXRETRY]; /* CLUSTERCRON_RETRY delays */
	uint8_t		 o_nretry;
	const char	*o_name;	/* CLUSTERCRON_NAME, or NULL */
};

/*
 * One crontab entry.  Every pointer is owned by the crontab it came
 * from and lives as long as it does.
 */
struct cron_entry {
	struct cron_sched e_sched;
	struct cron_opts e_opts;
	const char	*e_user;	/* system tables: user field */
	const char	*e_cmd;		/* command up to the first '%' */
	const char	*e_input;	/* standard input, or NULL */
	const char	*e_tz;		/* CRON_TZ in force, or NULL */
	const char	*e_when;	/* schedule text as written */
	const char *const *e_env;	/* NAME=value in force, NULL-ended */
	size_t		 e_line;
};

struct crontab {
	struct cron_entry *ct_ent;
	size_t		 ct_nent;
	struct cron_diag *ct_diag;	/* errors and warnings, in order */
	size_t		 ct_ndiag;
	size_t		 ct_nerr;	/* how many of them are errors */
	struct cron_arena *ct_arena;	/* private */
};

/*
 * crontab_parse() parses a whole table of len bytes (need not be
 * NUL-terminated).  name is borrowed and used in diagnostics; flags as
 * above.  Every bad line is reported, not only the first; bad lines
 * give no entry.  Returns 0 and *out when the table parsed (warnings
 * may be present), 1 and *out when it has errors (ct_nerr > 0), or -1
 * with errno ENOMEM and *out NULL.  The caller frees *out with
 * crontab_free().
 */
int	 crontab_parse(const char *, const char *, size_t, int,
	    struct crontab **);
void	 crontab_free(struct crontab *);
/*
 * crontab_parse_each() is crontab_parse() keeping no entry: each is
 * handed to fn(arg, entry) once read, so that a caller that copies
 * what it needs holds no array of the whole table.  The entry itself
 * is good only during the call; what it points to lives as long as
 * *out.  *out then has ct_ent NULL and ct_nent the number of entries
 * handed over; its diagnostics are as crontab_parse() gives them (so
 * entries may have been handed over from a table with errors).
 */
typedef void	(*crontab_entry_fn)(void *, const struct cron_entry *);
int	 crontab_parse_each(const char *, const char *, size_t, int,
	    crontab_entry_fn, void *, struct crontab **);

/*
 * cron_entry_id() writes the entry's identity, stable across nodes:
 * 32 lower-case hex digits derived from its owner (owner argument, or
 * e_user in a system table), and from CLUSTERCRON_NAME when the table
 * gives one, otherwise from the canonical schedule, the zone and the
 * command with its input.
 */
#define CRON_IDLEN	32
void	 cron_entry_id(const struct cron_entry *, const char *,
	    char [CRON_IDLEN + 1]);

/*
 * Zones (tz.c).  tz_parse() builds a zone from the bytes of a compiled
 * TZif file (version 1, 2 or 3, footer rule included) or, with isrule
 * set, from a POSIX TZ rule such as "EST5EDT,M3.2.0,M11.1.0".  name is
 * copied.  Returns 0 and *out, or -1 with *diag filled and *out NULL.
 * tz_utc() gives UTC and cannot fail except for ENOMEM.
 */
struct cron_tz;
int	 tz_parse(const char *, const void *, size_t, int,
	    struct cron_tz **, struct cron_diag *);
int	 tz_utc(struct cron_tz **);
void	 tz_free(struct cron_tz *);
const char *tz_name(const struct cron_tz *);
/* Offset east of UTC in seconds in force at a UTC instant. */
int32_t	 tz_offset(const struct cron_tz *, time_t);
/*
 * tz_transition() finds the first change of offset strictly after a
 * UTC instant and before limit: returns 1 with the instant and the
 * offsets before and after, or 0 when there is none.
 */
int	 tz_transition(const struct cron_tz *, time_t, time_t, time_t *,
	    int32_t *, int32_t *);
/*
 * tz_local_to_utc() turns a wall-clock time in a zone (seconds since
 * the epoch as if the zone were UTC) into the first UTC instant whose
 * local time is at least that: the instant itself when the clock shows
 * it, the first occurrence of a repeated time, the jump for a skipped
 * one; which is when a fixed-time job written for that local time
 * fires.  A NULL zone is UTC.
 */
int64_t	 tz_local_to_utc(const struct cron_tz *, int64_t);

/*
 * The next-fire calculator (next.c).  sched_next() finds the first
 * instant strictly after `after' at which the schedule fires in the
 * zone, following DESIGN.md's DST rules: a fixed-time job whose time
 * falls in a skipped interval fires once at the jump, in a repeated
 * interval once at its first occurrence; a job whose minute or hour
 * begins with '*' follows the wall clock.  Field-skipping, never
 * minute by minute.  Returns 0 and *next, or -1 when the schedule never
 * fires again (a date that never comes, @reboot, past year 9999).
 * sched_never() tells, without searching, whether the schedule can
 * never fire at all (such as 0 0 30 2 *).
 */
int	 sched_next(const struct cron_sched *, const struct cron_tz *,
	    time_t, time_t *);
int	 sched_never(const struct cron_sched *);
/*
 * sched_days() is the day-of-month/day-of-week rule, the one place it
 * is written.  Given a set of days (a bit each, in any numbering the
 * caller likes) with dom the days whose date the day-of-month field
 * matches and dow those whose weekday the day-of-week field matches,
 * it returns the days on which the schedule fires.  Vixie cron's rule:
 * when either field's text begins with '*' a day must match both;
 * otherwise matching either is enough.  The text decides, not the
 * bits: "*\/2" in the day of month restricts the days and still asks
 * for both, while "1-31" matches every date and still lets the day of
 * week alone decide (so "0 0 1-31 * 1" fires every day).  With single
 * days passed as 0 or 1 it answers for one day.
 */
uint32_t sched_days(const struct cron_sched *, uint32_t, uint32_t);

/*
 * cron_fmt_iso8601() writes a UTC instant as the zone's local time with
 * a numeric offset, 2026-03-08T03:00:00-04:00 (seconds offsets, as in
 * old local mean times, as -04:56:02), into a buffer of at least
 * CRON_ISOLEN bytes.  fmt.c.
 */
#define CRON_ISOLEN	40
void	 cron_fmt_iso8601(const struct cron_tz *, time_t, char *, size_t);

/*
 * at(1) times (attime.c).  at_parse() reads a timespec, at's words
 * joined by blanks (now + 5 minutes, 10:30 tomorrow, noon utc, 4pm jul
 * 31, 2026-07-31, ...), as Debian's at reads it, at instant `now' in
 * the zone tz (text and zone borrowed).  A zone name after the time of day
 * (Europe/Paris) is turned into a zone by load(name, arg), which
 * returns a zone the parser frees with tz_free(), or NULL when it has
 * none; with load NULL only utc is known.  at_parse_posix() reads at
 * -t's [[CC]YY]MMDDhhmm[.SS].  Both return 0 and the UTC instant in
 * *out, or -1 with *diag filled (d_col the 1-based column of the text
 * at fault, 0 when the time as a whole is, such as one in the past)
 * and *out 0.  attime.c says where they differ from Debian's at.
 */
int	 at_parse(const char *, time_t, const struct cron_tz *,
	    struct cron_tz *(*)(const char *, void *), void *, time_t *,
	    struct cron_diag *);
int	 at_parse_posix(const char *, time_t, const struct cron_tz *,
	    time_t *, struct cron_diag *);

/* Civil time helpers shared by the calculator, zones and tools. */
int64_t	 civil_to_days(int64_t, int, int);
void	 days_to_civil(int64_t, int64_t *, int *, int *);

#endif /* PARSER_H */
