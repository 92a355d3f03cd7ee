/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_int.h: what the files of lock/ share, private to lock/.
 * The backends own all SQL: each fills a struct store_ops whose
 * primitives carry out numbered statements (enum stmt) with typed
 * parameters and hand result rows to a callback.  The rest of lock/
 * holds the logic the backends share, one concern a file:
 *
 *	store.c		opening and closing, the frame every operation
 *			runs in (connection, back-off, retries), the
 *			helpers below
 *	store_url.c	store URLs
 *	store_schema.c	creating and migrating the schema
 *	store_jobs.c	registering and releasing jobs, holds, pausing
 *	store_claim.c	claims, single and batched, and claims in doubt
 *	store_runs.c	run records: starts, ends, failures, notes
 *	store_node.c	heartbeats, draining, runs lost and claims left
 *			without a run, leases
 *	store_trim.c	trimming the history
 *	store_list.c	the listings and the rows they return
 *	store_tables.c	the tables ctab stores
 *	store_at.c	one-shot jobs (at(1)): submitting, listing,
 *			cancelling, claiming attempts and ending them
 *	store_optfile.c	the MySQL option files, checked before connecting
 *	store_fault.c	the fault hook (test builds only)
 *	store_memory.c	memory stores (test builds only)
 *
 * Names private to lock/ but shared between its files begin with lk_.
 * Test builds define CLUSTERCRON_TEST (see lock/Makemodule.am).
 */

#ifndef STORE_INT_H
#define STORE_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	/*
	 * The schema lock (MariaDB): meta's row 'lock' holds its expiry,
	 * store clock ms, which names the holder too (store_schema.c).
	 */
	S_LOCK,			/* until */
	S_LOCK_TAKE,		/* until, now: an expired one */
	S_LOCK_RENEW,		/* until, old until */
	S_UNLOCK,		/* until */
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
	/*
	 * The jobs' writer lock (MariaDB): the lease row 'jobs', held by
	 * a node and a token (store_jobs.c).
	 */
	S_JOBS_LOCK,		/* node, token, ttl, node, token */
	S_JOBS_LOCK_ADD,	/* node, token, ttl */
	S_JOBS_RENEW,		/* ttl, node, token */
	S_JOBS_UNLOCK,		/* node, token */
	S_HOLDS_MINE,		/* node -> job */
	S_JOBS_PAGE,		/* node, after, limit -> id, digest, held */
	S_HOLDS_ORPHAN,		/* node -> job */
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
	S_JOBS_FIRED,		/* after, limit -> id, last_fire */
	S_JOBS_FIRED_OWNER,	/* owner, after, limit -> id, last_fire */
	S_RUN_INSERT,		/* job, fire, attempt, node, pid, start */
	S_RUN_FIND,		/* job, fire, attempt, node -> id */
	S_RUN_FAIL,		/* job, fire, attempt, node, when, when,
				   why, why length */
	S_RUN_END,		/* end, exit, sig, output, outtotal, id */
	S_FIRE_NOTE,		/* job, fire, node, when, when, state,
				   why, why length */
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
	S_BEAT,			/* name, now, now, clock-now, running, db,
				   db state, cover from, to, view, jobs,
				   first */
	S_NODE_DRAIN,		/* state, name */
	S_NODES_LIST,		/* -> nodecols */
	S_CLAIMS_LIST,		/* -> job, fire, node, claimed_at */
	S_CLAIMS_SPAN,		/* from, to -> job, fire, node, claimed_at */
	S_SWEEP_CLAIM,		/* fire, node, id, fire, id, fire */
	S_UNRUN_MINE,		/* from, node */
	S_UNRUN_DEAD,		/* node, timeout, window, window */
	S_LOST_FIND,		/* node, timeout -> runcols */
	S_RUN_LOSE,		/* ended, node, id */
	S_LOST_MINE,		/* id, node -> runcols (locking) */
	S_LEASE_UPDATE,		/* holder, ttl, name, holder */
	S_LEASE_INSERT,		/* name, holder, ttl */
	S_LEASE_READ,		/* name -> holder */
	S_LEASE_DROP,		/* name, holder */
	S_TRIM_AGE,		/* outmax, n, max age -> id, kept */
	S_TRIM_IDS,		/* n: ids */
	S_TRIM_JOBS,		/* runs, outmax, bytes, after, n */
	S_TRIM_OWNERS,		/* -> owner */
	S_TRIM_USER_SUM,	/* runs, outmax, bytes, owner x3 -> over */
	S_TRIM_JOB,		/* outmax, job, runs, bytes, n -> id, kept */
	S_TRIM_USER,		/* outmax, owner x3, runs, bytes, n */
	S_TRIM_CLAIMS_AGE,	/* max age */
	S_TRIM_CLAIMS_CUT,	/* offset -> fire */
	S_TRIM_CLAIMS_FIRE,	/* fire */
	S_TABLE_GET,		/* owner -> body, version */
	S_TABLE_INSERT,		/* owner, body, node */
	S_TABLE_UPDATE,		/* body, node, owner, version */
	S_TABLES_LIST,		/* -> owner, body, version, updated */
	/* One-shot jobs (store_at.c). */
	S_AT_INSERT,		/* owner .. cmd, node (AT_NINSERT) */
	S_AT_BY_TOKEN,		/* token, owner -> id */
	S_AT_BY_KEY,		/* owner, key -> id */
	S_AT_PENDING,		/* owner -> count */
	S_AT_GET,		/* id -> atcols, env, cmd */
	S_AT_LIST,		/* -> atcols (waiting, running, retrying) */
	S_AT_LIST_ALL,		/* -> atcols */
	S_AT_LIST_OWNER,	/* owner -> atcols (pending) */
	S_AT_LIST_OWNER_ALL,	/* owner -> atcols */
	S_AT_DUE,		/* before, limit -> atcols, env, cmd */
	S_AT_PEEK,		/* id -> owner, state, attempt, claimed_by */
	S_AT_CANCEL,		/* id, owner, owner */
	S_AT_CLAIM,		/* attempt, node, id, attempt - 1 */
	S_AT_RUN_INSERT,	/* runjob, attempt, node, id */
	S_AT_RUN_FIND,		/* runjob, attempt, node -> id, pid */
	S_AT_RUN_LOSE,		/* node, runjob, attempt */
	S_AT_MOVE,		/* state, next, next, id, attempt */
	S_AT_TRIM,		/* max age */
	S_AT_LOST,		/* limit -> atcols, env, cmd */
	S_AT_NEXT,		/* -> earliest next_at */
	S_AT_RUN_NOSTART,	/* when, when, state, why, len, run */
	S_AT_HEADS,		/* len, owner, owner, all -> atcols, "", head */
	S_HOLDS_SHARED,		/* n: node, nodes..., node -> mine, shared */
	S_QUESTIONS,		/* -> statements the server carried out */
	S_COUNT
};

/* Kinds of failure store.c acts on (struct store_error se_kind). */
#define SE_OTHER	0
#define SE_RETRY	1	/* deadlock, lock wait, busy: retry */
#define SE_LOST		2	/* connection lost: reconnect */
#define SE_DUP		3	/* unique key violated */
#define SE_WAITED	4	/* a lock wait timed out: retry once */
#define SE_NOTABLE	5	/* no such table (a store not yet made) */

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
	/*
	 * Whether the server this connection is on may still be used
	 * (MariaDB: ready, in the primary component of a Galera cluster,
	 * not a replica); refreshes s_dbstate.  0, or -1 with *err
	 * (SE_LOST when another server may do).  NULL: always.
	 */
	int	(*o_check)(struct store *, struct store_error *);
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
#define STORE_SCHEMA	9

/* Values per row of S_JOB_UPSERT. */
#define JOB_NCOLS	11

/* Values of S_AT_INSERT. */
#define AT_NINSERT	15

/* Claims whose result was lost, kept until settled (see store.c). */
#define UNCERTAIN_MAX	65536
struct uncertain {
	char		 u_id[STORE_IDLEN + 1];
	time_t		 u_fire;
};

/* Lengths of what status shows of a connection's server. */
#define STORE_SERVERLEN	256
#define STORE_STATELEN	64

struct store {
	const struct store_ops *s_ops;
	void		*s_be;		/* the backend's state */
	int		 s_connected;
	/*
	 * What store_abort(), from another thread, reads and writes: the
	 * connection's socket (MariaDB, -1 for none) and whether the
	 * store is given up.
	 */
	atomic_int	 s_sock;
	atomic_int	 s_abort;
	int		 s_in_trx;
	/*
	 * A statement of the open transaction failed: the server may have
	 * rolled the transaction back already (a deadlock, a certification
	 * failure), so it is never committed (lk_commit()).
	 */
	int		 s_doomed;
	/* The configuration, copied. */
	char		*s_path;	/* SQLite file */
	/*
	 * MariaDB: the servers, none when the option file names it; they
	 * are tried in turn from s_cur, and a connection lost moves s_cur
	 * on to the next (store_mysql.c).
	 */
	size_t		 s_nhosts;
	char		*s_hosts[STORE_MAXHOSTS];
	unsigned int	 s_ports[STORE_MAXHOSTS];
	size_t		 s_cur;
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
	/* The jobs' writer lock's token while this store holds it. */
	int64_t		 s_jobs_token;
	/*
	 * The server connected to and its state, as status shows them
	 * (store_mysql.c fills them; empty on SQLite), and when o_check()
	 * last looked (monotonic ms).
	 */
	char		 s_server[STORE_SERVERLEN];
	char		 s_dbstate[STORE_STATELEN];
	int64_t		 s_checked;
	int64_t		 s_since;	/* when connected (monotonic ms) */
	/*
	 * Trimming's round (store_trim.c): its phase, the last job whose
	 * runs it trimmed, the owners and the next one to look at.
	 */
	int		 s_trim_phase;
	char		 s_trim_job[STORE_IDLEN + 1];
	char		**s_trim_owners;
	size_t		 s_trim_nowners;
	size_t		 s_trim_owner;
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

/*
 * Errors.  store_seterr() fills *err (NULL: nothing); lk_err_init()
 * clears *err, or a scratch struct when err is NULL, and returns it:
 * every public function starts with it.  lk_nomem() sets ENOMEM and
 * returns -1.  lk_scratch takes errors nobody reads (an unlock).
 */
void	 store_seterr(struct store_error *, enum store_class, int, int,
	    const char *, ...)
	    __attribute__((__format__ (printf, 5, 6)));
struct store_error *lk_err_init(struct store_error *);
int	 lk_nomem(struct store_error *);
extern struct store_error lk_scratch;

/* Values to bind. */
#define SVI(x)	((struct sval){ SV_INT, (int64_t)(x), NULL, 0 })
#define SVS(s)	((struct sval){ (s) == NULL ? SV_NULL : SV_TEXT, 0, (s), \
		    (s) == NULL ? 0 : strlen(s) })
#define SVB(p, n) ((struct sval){ SV_BLOB, 0, (p), (n) })

/*
 * Values read: lk_str() is a column's text ("" unless TEXT or BLOB),
 * lk_int() its integer (0 unless INT).  lk_dupn() copies n bytes of s
 * into a new string ("" for NULL).
 */
const char *lk_str(const struct sval *);
int64_t	 lk_int(const struct sval *);
char	*lk_dupn(const char *, size_t);

/*
 * Row callbacks (store_row_fn) return 0, or ROW_NOMEM, or ROW_SHORT
 * when the row has fewer columns than they read: every callback checks
 * with ROW_NEED before it reads a column.  The backend then stops and
 * fills the error with lk_row_error().
 */
#define ROW_NOMEM	(-1)
#define ROW_SHORT	(-2)
#define ROW_NEED(n, want) do {						\
	if ((n) < (want))						\
		return (ROW_SHORT);					\
} while (0)
void	 lk_row_error(int, enum stmt, size_t, struct store_error *);

/*
 * A growing array of fixed-size elements (v_size bytes each).
 * lk_vec_push() appends a zeroed element and returns it, NULL when out
 * of memory; lk_vec_pop() takes the last one back.
 */
struct vec {
	void	*v_p;
	size_t	 v_n;
	size_t	 v_cap;
	size_t	 v_size;
};
void	*lk_vec_push(struct vec *);
void	 lk_vec_pop(struct vec *);

/*
 * The frame of every operation.  An operation is a function op_fn run
 * by lk_run(), which connects if need be (lk_connect(): no sooner than
 * the back-off allows), rolls back what a failed attempt left open,
 * retries deadlocks and, after a lost connection, reconnects once and
 * runs the function again: each must be safe to run again and tell
 * the truth then (see store.c).  Inside, statements are carried out by
 * lk_exec() and transactions opened and committed by lk_begin() and
 * lk_commit(), each at a named fault point.  lk_lost() marks the
 * connection gone.
 */
typedef int	(*op_fn)(struct store *, void *, struct store_error *);
int	 lk_run(struct store *, op_fn, void *, struct store_error *);
/*
 * lk_check() asks the backend whether the connection's server may still
 * be used (o_check()), when force is set or it last asked more than
 * CHECK_EVERY ms ago; -1 (the connection dropped, SE_LOST) when not.
 */
#define CHECK_EVERY	5000
int	 lk_check(struct store *, int, struct store_error *);
int	 lk_connect(struct store *, struct store_error *);
/*
 * lk_optfile_check() checks every MySQL option file the client library
 * would read for st, before each connection (store_optfile.c): 0, or -1
 * with a fatal error naming the file and what is wrong with it.
 */
int	 lk_optfile_check(struct store *, struct store_error *);
/*
 * lk_optfile_hosts() takes the store's servers from the option files
 * when the URL names none (and no socket): the last "host" setting the
 * library would read, when it lists several servers as a URL does.  0
 * (s_hosts filled, or left empty when the setting names one server or
 * none), or -1 with a fatal error naming the file.
 */
int	 lk_optfile_hosts(struct store *, struct store_error *);
void	 lk_lost(struct store *);
int	 lk_exec(struct store *, const char *, enum stmt, size_t,
	    const struct sval *, size_t, store_row_fn, void *, int64_t *,
	    struct store_error *);
int	 lk_begin(struct store *, struct store_error *);
int	 lk_commit(struct store *, const char *, struct store_error *);

/*
 * The shapes most operations take, folded.  lk_op_int() carries out
 * one statement as a whole operation and sets *v to the first column
 * of its (last) row, 0 when there is none, and *found (may be NULL)
 * to whether there was one.  lk_op_write() carries out one write as a
 * whole operation and sets *changed (may be NULL) to the rows it
 * changed.  lk_int_row() is the row callback of the first: it fills a
 * struct lk_int.  Parameters are borrowed.
 */
struct lk_int {
	int	 i_found;
	int64_t	 i_v;
};
int	 lk_op_int(struct store *, const char *, enum stmt,
	    const struct sval *, size_t, int64_t *, int *,
	    struct store_error *);
int	 lk_op_write(struct store *, const char *, enum stmt,
	    const struct sval *, size_t, int64_t *, struct store_error *);
int	 lk_int_row(void *, const struct sval *, size_t);

/* Lists of ids: pieces of at most max, padded for the backend. */
size_t	 lk_piece(size_t, size_t);
size_t	 lk_pad_ids(struct store *, struct sval *, size_t,
	    const char *const *, const size_t *, size_t);

/*
 * store_list.c: the kinds of rows the listings return, each read by
 * its row callback into a growing array.  lk_list() carries out
 * listing s (np parameters p, borrowed) and returns the new array in
 * *out (NULL when empty or on failure) of *n.  lk_run_row() reads a
 * run (SQL_RUNCOLS) into a struct vec of struct store_run, and
 * lk_run_clear() frees one's strings; lk_str_row() reads the first
 * column into a struct vec of strings, which lk_strs_free() frees.
 */
enum lk_list { LK_JOBS, LK_GONE, LK_RUNS, LK_NODES, LK_TABLES, LK_CLAIMS,
	LK_AT, LK_AT_FULL };
int	 lk_list(struct store *, enum lk_list, enum stmt, const struct sval *,
	    size_t, void **, size_t *, struct store_error *);
int	 lk_run_row(void *, const struct sval *, size_t);
void	 lk_run_clear(struct store_run *);
int	 lk_str_row(void *, const struct sval *, size_t);
void	 lk_strs_free(struct vec *);

/*
 * store_at.c: the rows of one-shot jobs for lk_list(): lk_at_row()
 * reads SQL_ATCOLS, lk_at_full_row() SQL_ATCOLS with env and cmd, into
 * a struct vec of struct store_atjob; lk_atjobs_free() frees an array.
 */
int	 lk_at_row(void *, const struct sval *, size_t);
int	 lk_at_full_row(void *, const struct sval *, size_t);
void	 lk_atjobs_free(void *, size_t);

/* store_url.c: the store takes the URL's parts over. */
int	 lk_url_take(struct store *, const char *, struct store_error *);
/*
 * lk_hosts_parse() reads "host[:port]" items separated by commas, none
 * empty, from p up to end, into hosts (allocated, the caller's) and
 * ports (0 where none is given), *n of them: 0, or -1 when malformed,
 * -2 out of memory, -3 more than STORE_MAXHOSTS (then nothing is kept).
 */
int	 lk_hosts_parse(const char *, const char *, char **, unsigned int *,
	    size_t *);

/* store_schema.c: create or migrate the schema to a version. */
int	 lk_schema_setup(struct store *, int, struct store_error *);

/* store_trim.c: forget the round (store_close()). */
void	 lk_trim_free(struct store *);

/* store_node.c: take or renew a lease for ttl ms; *held. */
int	 lk_lease_take(struct store *, const char *, int64_t, int *,
	    struct store_error *);

/*
 * store_fault.c, test builds only: the fault hook at a named point
 * (sub, when not NULL, is added to it: "claim" and "commit" make
 * "claim.commit").  lk_fault_before() is called before a statement or
 * commit: -1 with *err filled to fail it there; it may sever the
 * connection, stop the process, or (row not NULL) replace *row and
 * *arg by a callback that hands the rows on one column short.
 * lk_fault_after() is called once it has been carried out: -1 when it
 * severed the connection and the result is lost.  lk_fault_connect()
 * is -1 when a connection is to fail.  Other builds have no hook.
 */
#ifdef CLUSTERCRON_TEST
int	 lk_fault_before(struct store *, const char *, const char *,
	    store_row_fn *, void **, struct store_error *);
int	 lk_fault_after(struct store *, const char *, const char *,
	    struct store_error *);
int	 lk_fault_connect(struct store_error *);
#else
#define lk_fault_before(st, point, sub, row, arg, err)	0
#define lk_fault_after(st, point, sub, err)		0
#define lk_fault_connect(err)				0
#endif

#ifdef CLUSTERCRON_TEST
/*
 * store_memory.c: memory stores.  lk_memory_open() opens a connection
 * to the database NAME (made on first use) in *db; lk_memory_closed()
 * says one connection to it was closed.
 */
struct sqlite3;
extern const struct store_ops store_memory_ops;
int	 lk_memory_open(const char *, struct sqlite3 **,
	    struct store_error *);
void	 lk_memory_closed(const char *);
#endif

#endif /* STORE_INT_H */
