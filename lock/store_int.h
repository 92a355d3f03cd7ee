/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_int.h: what store.c shares with the backends, private to lock/.
 * The backends own all SQL: each fills a struct store_ops whose
 * primitives carry out numbered statements (enum stmt) with typed
 * parameters and hand result rows to a callback.  store.c holds the
 * logic both backends share: claims and how a lost result is resolved,
 * retries, reconnection with back-off, the schema's steps, the fault
 * hook and the lists.
 */

#ifndef STORE_INT_H
#define STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* A value bound to a statement or read from a row. */
enum sv_type { SV_NULL = 0, SV_INT, SV_TEXT, SV_BLOB };
struct sval {
	enum sv_type	 v_type;
	int64_t		 v_int;
	const char	*v_str;		/* TEXT/BLOB; NUL-terminated in rows */
	size_t		 v_len;
};

/*
 * The statements.  Those marked "n" hold a list repeated n times (an
 * IN list of ids, or rows of VALUES): the backend expands the text's
 * one "%R" into n copies of its repeat unit.
 */
enum stmt {
	S_META_GET,		/* -> v */
	S_META_SET,		/* v */
	S_NOW,			/* -> store ms */
	S_LOCK,			/* serialise schema changes (MariaDB) */
	S_UNLOCK,
	S_CLAIM,		/* fire, node, id, fire, fire, id */
	S_CLAIM_READ,		/* id, fire -> node */
	/* The list statements of claims, in a row (store_sqlite.c). */
	S_BATCH_SELECT,		/* n: ids..., fire, fire, limit -> id */
	S_BATCH_UPDATE,		/* n: fire, node, ids..., fire */
	S_BATCH_MINE,		/* n: ids..., fire, node -> job */
	S_BATCH_FREE,		/* n: ids..., fire -> id (not locking) */
	S_CLAIM_NOTE,		/* n: ids... (copies the jobs' claims) */
	S_JOB_UPSERT,		/* n rows of JOB_NCOLS */
	S_JOB_DIGESTS,		/* -> id, digest */
	S_JOBS_LOCK,		/* seconds -> 1 when taken (MariaDB) */
	S_JOBS_UNLOCK,
	S_HOLDS_MINE,		/* node -> job */
	S_HOLD_ADD,		/* n rows of node, job */
	S_HOLD_DROP,		/* n: node, ids... */
	S_GONE_KEEP,		/* n: ids... */
	S_JOBS_UNHELD,		/* n: ids... */
	S_GONE_LIST,		/* -> id, owner, sched, zone, cmd, name, gone */
	S_GONE_TRIM,
	S_JOB_PAUSE,		/* paused, id */
	S_JOBS_LIST,		/* -> jobcols */
	S_JOBS_OWNER,		/* owner -> jobcols */
	S_JOB_GET,		/* id -> jobcols */
	S_RUN_INSERT,		/* job, fire, attempt, node, pid, start */
	S_RUN_FIND,		/* job, fire, attempt, node -> id, node */
	S_RUN_FAIL,		/* job, fire, attempt, node, when, when,
				   why, why length */
	S_RUN_END,		/* end, exit, sig, output, outtotal, id */
	S_FIRE_NOTE,		/* job, fire, node, when, when, state */
	S_RUNS_LIST,		/* limit -> runcols */
	S_RUNS_JOB,		/* job, limit -> runcols */
	S_RUNS_RUNNING,		/* -> runcols */
	S_RUNS_RUNNING_NODE,	/* node -> runcols */
	S_JOB_BUSY,		/* job, fire -> count */
	S_FIRE_RECORDED,	/* job, fire -> count */
	S_RUN_FILL,		/* pid, started, id */
	S_JOB_INFLIGHT,		/* from, fire, job -> count */
	S_RUNS_LATEST,		/* -> runcols */
	S_BEAT_READ,		/* node -> now, state */
	S_BEAT,			/* name, now, now, clock-now, running, first */
	S_NODE_DRAIN,		/* state, name */
	S_NODES_LIST,		/* -> nodecols */
	S_CLAIMS_LIST,		/* -> job, fire, node, claimed_at */
	S_UNRUN_MINE,		/* from, node */
	S_UNRUN_DEAD,		/* node, timeout, window, window */
	S_LOST_FIND,		/* node, timeout -> runcols */
	S_RUN_LOSE,		/* ended, node, id */
	S_LOST_MINE,		/* id, node -> runcols (locking) */
	S_LEASE_UPDATE,		/* holder, ttl, name, holder */
	S_LEASE_INSERT,		/* name, holder, ttl */
	S_LEASE_READ,		/* name -> holder */
	S_LEASE_DROP,		/* name, holder */
	S_TRIM_AGE,		/* max age */
	S_TRIM_JOBS,		/* max runs -> job */
	S_TRIM_CUT,		/* job, offset -> id */
	S_TRIM_JOB,		/* job, id */
	S_TRIM_CLAIMS_AGE,	/* max age */
	S_TRIM_CLAIMS_CUT,	/* offset -> fire */
	S_TRIM_CLAIMS_FIRE,	/* fire */
	S_TABLE_GET,		/* owner -> body, version */
	S_TABLE_INSERT,		/* owner, body, node */
	S_TABLE_UPDATE,		/* body, node, owner, version */
	S_TABLES_LIST,		/* -> owner, body, version, updated */
	S_COUNT
};

/* Kinds of failure store.c acts on (struct store_error se_kind). */
#define SE_OTHER	0
#define SE_RETRY	1	/* deadlock, lock wait, busy: retry */
#define SE_LOST		2	/* connection lost: reconnect */
#define SE_DUP		3	/* unique key violated */
#define SE_WAITED	4	/* a lock wait timed out: retry once */

typedef int	(*store_row_fn)(void *, const struct sval *, size_t);

struct store_ops {
	const char	*o_name;
	/* Connect (again); the config is copied into the store. */
	int	(*o_connect)(struct store *, struct store_error *);
	/* Close the connection; safe when closed. */
	void	(*o_disconnect)(struct store *);
	/* Fault hook: sever the connection as a network would. */
	void	(*o_sever)(struct store *);
	/*
	 * Carry out statement s (with n list items, 0 for plain ones)
	 * with its parameters; call row for each result row (row may be
	 * NULL); set *changed to the rows changed when not NULL.
	 */
	int	(*o_exec)(struct store *, enum stmt, size_t,
		    const struct sval *, size_t, store_row_fn, void *,
		    int64_t *, struct store_error *);
	/* Run literal SQL text of the backend's own (schema steps). */
	int	(*o_exec_sql)(struct store *, const char *,
		    struct store_error *);
	int	(*o_begin)(struct store *, struct store_error *);
	int	(*o_commit)(struct store *, struct store_error *);
	void	(*o_rollback)(struct store *);
	int64_t	(*o_insert_id)(struct store *);
	/*
	 * Schema: o_steps[v] lists the statements taking version v - 1
	 * to v (o_steps[0] creates the meta table), NULL-ended lists;
	 * o_seed_v1 fills a version 1 store for the migration test.
	 * o_ddl_trx: schema changes are transactional (SQLite).
	 */
	const char *const *const *o_steps;
	const char *const *o_seed_v1;
	int		 o_ddl_trx;
	size_t		 o_max_list;	/* largest n for lists, <= LIST_MAX */
	int		 o_pad_lists;	/* lists padded to powers of two */
	size_t		 o_max_rows;	/* largest n for S_JOB_UPSERT */
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_mysql_ops;

/* The longest list of ids a backend may take in one statement. */
#define LIST_MAX	128

/* The schema version this program writes; o_steps has 1..it. */
#define STORE_SCHEMA	5

/* Values per row of S_JOB_UPSERT. */
#define JOB_NCOLS	11

/* Claims whose result was lost, kept until settled (see store.c). */
#define UNCERTAIN_MAX	65536
struct uncertain {
	char		 u_id[STORE_IDLEN + 1];
	time_t		 u_fire;
};

struct store {
	const struct store_ops *s_ops;
	void		*s_be;		/* the backend's state */
	int		 s_connected;
	int		 s_in_trx;
	/* The configuration, copied. */
	char		*s_path;	/* SQLite file */
	char		*s_host;	/* MariaDB: NULL from option file */
	unsigned int	 s_port;
	char		*s_socket;
	char		*s_db;
	char		*s_mysql_file;
	char		*s_mysql_group;
	char		*s_node;
	unsigned int	 s_connect_timeout;
	unsigned int	 s_read_timeout;
	unsigned int	 s_idle_trx_timeout;	/* seconds, 0 none */
	unsigned int	 s_busy_timeout;
	size_t		 s_output_max;
	unsigned int	 s_retries;
	/* Reconnection back-off, monotonic ms. */
	int64_t		 s_next_connect;
	int64_t		 s_backoff;
	/* Claims whose result was lost, resolved when asked again. */
	struct uncertain *s_uncertain;
	size_t		 s_nuncertain;
	size_t		 s_uncap;
	int		 s_beat_first;
	/* Runs marked lost by a transaction whose result was lost. */
	int64_t		*s_lostids;
	size_t		 s_nlostids;
	size_t		 s_lostcap;
};

/* At most this many such runs are remembered (the oldest go first). */
#define LOSTIDS_MAX	4096
/*
 * How far, in ms beyond the timeout, from a dead node's last heartbeat
 * the fires of its claims left without a record are looked for.
 */
#define UNRUN_WINDOW	60000

/* store.c helpers for the backends. */
void	 store_seterr(struct store_error *, enum store_class, int, int,
	    const char *, ...)
	    __attribute__((__format__ (printf, 5, 6)));

#endif /* STORE_INT_H */
