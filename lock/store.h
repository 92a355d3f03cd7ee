/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store.h: the store, clustercron's only door to a database.  One
 * interface, two backends picked at run time by the URL: SQLite (one
 * machine, the embedded default) and MySQL/MariaDB (a cluster); test
 * builds add memory stores (see the end of this file).  It
 * holds the jobs and their claims, the runs, the nodes' heartbeats,
 * the tables ctab stores and the leases that take turns at chores.
 *
 * Why a claim has one winner.  Every job has one row whose last_fire
 * column holds the latest fire (scheduled instant, UTC seconds) that
 * some node claimed.  A claim is one conditional write on that row by
 * primary key:
 *
 *	UPDATE jobs SET last_fire = F, claimed_by = N, ...
 *	    WHERE id = J AND last_fire < F AND paused = 0
 *
 * The database's row lock serialises the contenders; the first to
 * commit changes the row and every later one finds last_fire >= F and
 * changes nothing.  A node won iff its statement changed one row.  No
 * lock is held across more than the few round trips of the claim's
 * own transaction, and no range is locked.
 *
 * Why a lost result is still known.  The write that wins also inserts,
 * in the same transaction, the row (J, F) -> N of the claims table
 * (primary key (job, fire)), so the claim and its record commit
 * together or not at all.  The job's row cannot be the record: later
 * fires overwrite it, and a node cut off after its COMMIT went out
 * would, once back, find the row naming another node and a later fire
 * and take a fire it had won for lost (nobody would run it).  When the
 * connection drops while a claim is in flight the outcome is not
 * guessed: the store reconnects, issues the same write again (on
 * MariaDB it waits behind a still-running earlier attempt on the row
 * lock) and, when that changes nothing, reads the claims row: the fire
 * is ours iff it names us.  Claims rows are trimmed with the history.
 *
 * A struct store is one connection (one SQLite handle or one MariaDB
 * session) and is not safe for concurrent use; a daemon that wants its
 * heartbeats not to queue behind job work opens a second store.
 *
 * Conventions.  Functions return 0 on success or -1 with *err filled
 * (err may be NULL when the caller does not care).  OUT pointers are
 * NULL (or zero) on failure.  Strings passed in are borrowed for the
 * duration of the call.  Lists returned are arrays the caller frees
 * with the matching *_free function.  Times: fires are UTC seconds;
 * every other time is milliseconds since the epoch, either the caller's
 * (node) clock where the caller passes it or the store's clock where
 * the store stamps it, as each function says.
 */

#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct store;

/* Error classes: what the caller should do about it. */
enum store_class {
	STORE_OK = 0,
	STORE_TRANSIENT,	/* try again later (busy, deadlock, down) */
	STORE_CONFLICT,		/* someone else changed it first */
	STORE_FATAL		/* configuration, schema or a bug */
};

#define STORE_MSGLEN	256
struct store_error {
	enum store_class se_class;
	int		 se_lost;	/* the connection was lost */
	int		 se_code;	/* backend error number, or 0 */
	int		 se_kind;	/* private: retry/duplicate/... */
	char		 se_msg[STORE_MSGLEN]; /* never holds a password */
};

/*
 * What store_open() needs.  Every pointer is borrowed for the duration
 * of store_open() only.  Zero numbers mean the default.
 *
 * sc_url:	"sqlite:/path/file.db" or a bare path for SQLite;
 *		"mysql://host[:port]/db", "mysql:///db?socket=/path" or
 *		"mysql:///db" (host or socket from the option file) for
 *		MySQL/MariaDB, and "mysql://db1,db2:3307,db3/db" for the
 *		servers of one Galera cluster, tried in turn (see
 *		"Several servers" below); "memory:NAME" in test builds.
 *		A URL never holds a user or password.
 * sc_mysql_file, sc_mysql_group: the option file and group the user,
 *		password (and defaults for host, socket) are read from,
 *		as the mysql tools read them.  A file holding a password
 *		that is readable by group or others is refused.
 */
struct store_config {
	const char	*sc_url;
	const char	*sc_mysql_file;
	const char	*sc_mysql_group;	/* default "client" */
	const char	*sc_node;		/* this node's name */
	unsigned int	 sc_connect_timeout;	/* seconds, default 5 */
	/*
	 * Seconds to wait for a server's answer before taking the
	 * connection for lost: by default 30 with one server, 8 with
	 * several (see "Several servers" below).
	 */
	unsigned int	 sc_read_timeout;
	/*
	 * MariaDB: a transaction of this connection left idle this many
	 * seconds is rolled back and the connection closed by the server
	 * (idle_transaction_timeout), so that a process stopped inside
	 * one does not hold its row locks for good; 0, the default,
	 * leaves the server's setting.  Ignored where the server has no
	 * such variable (MySQL).
	 */
	unsigned int	 sc_idle_trx_timeout;
	unsigned int	 sc_busy_timeout;	/* SQLite, ms, default 5000 */
	size_t		 sc_output_max;		/* bytes per run, 4096 */
#define STORE_OUTPUT_LIMIT	(4 * 1024 * 1024)	/* at most */
	unsigned int	 sc_retries;		/* deadlock retries, 5 */
	int		 sc_schema;		/* tests: 0 current, else N */
};

/*
 * A store URL taken apart, as store_open() reads it: which backend it
 * names and, for SQLite, the database file.  Programs ask here rather
 * than read URLs themselves (mysql:// and mariadb:// are one backend;
 * sqlite:PATH, sqlite://PATH and a bare path are another; memory:NAME,
 * STORE_MEMORY with su_path NAME, exists in test builds only and is
 * refused by the others).
 * store_url_parse() fills *su with strings of its own, or returns -1
 * with *su zeroed and *err saying what is wrong (a URL holding a user
 * or password is refused); store_url_free() frees them and accepts a
 * zeroed or freed struct.
 */
enum store_backend { STORE_SQLITE = 1, STORE_MYSQL, STORE_MEMORY };

#define STORE_MAXHOSTS	16	/* servers a URL may name */
struct store_url {
	enum store_backend su_backend;
	char		*su_path;	/* SQLite: the database file */
					/* memory: the name */
	char		*su_host;	/* MySQL: NULL from option file */
	unsigned int	 su_port;	/* 0 for the default */
	char		*su_db;
	char		*su_socket;	/* NULL for the default */
	/*
	 * Every server the URL names, in its order (su_host and su_port
	 * are the first): su_nhosts of them, 0 when the host comes from
	 * the option file or the URL names a socket.
	 */
	size_t		 su_nhosts;
	char		*su_hosts[STORE_MAXHOSTS];
	unsigned int	 su_ports[STORE_MAXHOSTS];
};

int	 store_url_parse(const char *, struct store_url *,
	    struct store_error *);
void	 store_url_free(struct store_url *);

/*
 * store_open() connects as the config says, creates the schema or
 * migrates it forward to the current version, and returns the store in
 * *out.  A schema newer than this program's is refused (STORE_FATAL),
 * and so is a MariaDB/MySQL set-up where a fail-over could lose
 * committed claims: a read-only server or a replica, a primary with
 * asynchronous replicas it can see, or semi-synchronous replication
 * that does not wait AFTER_SYNC (STORE_FATAL, one line naming the safe
 * set-ups); a Galera node outside the primary component or not synced
 * is a server that cannot be used now (STORE_TRANSIENT).
 * Returns 0, or -1 with *out NULL and *err filled.  The caller closes
 * the store with store_close(), which accepts NULL.
 *
 * Several servers.  A MariaDB URL may name the servers of one Galera
 * cluster, "mysql://db1,db2,db3/clustercron".  Each connection uses one
 * of them: the first, in the URL's order, that answers and may be used
 * (a Galera node ready, Synced and in the primary component).  When its
 * server dies, freezes past sc_read_timeout, leaves the primary
 * component (errors 1047 and 1180), or stops being of use (looked at
 * again every few seconds of use), the connection is dropped as lost,
 * and the next one goes to the next server: the operation under way is
 * carried out again there, and a claim whose answer was lost is in
 * doubt until asked again, as after any lost connection (store_claim()
 * below).  Claims stay exactly-once across servers because each is
 * one transaction whose COMMIT certification decides, and the reads
 * that decide something wait for every commit of the cluster before
 * them (wsrep_sync_wait; lock/store_mysql.c lists them).
 */
int	 store_open(const struct store_config *, struct store **,
	    struct store_error *);
void	 store_close(struct store *);
/* "sqlite", "mysql" (or "memory"); static storage. */
const char *store_backend(const struct store *);
/* The schema version this program writes. */
int	 store_schema_current(void);
/* The version recorded in the open store. */
int	 store_schema_version(struct store *, int *, struct store_error *);
/* The store's clock, ms since the epoch. */
int	 store_now(struct store *, int64_t *, struct store_error *);

/*
 * Jobs.  A job is known by its identity (parser's cron_entry_id()).
 * Registering writes the descriptive columns and leaves the claim
 * columns alone, so re-registering a job never forgets its last fire;
 * unchanged rows are not rewritten.
 *
 * Which jobs exist.  Every node holds the jobs of its own tables, and a
 * job stays in the store exactly as long as some node holds it.  The
 * store records which node holds which job: registering records that
 * this node (sc_node) holds the jobs, releasing that it no longer does,
 * and a job that no node holds any longer is deleted then, in the same
 * transaction, with its claim state (paused, last fire); its runs stay
 * until trimmed, and so does its description (j_owner .. j_name), for
 * the history, in the jobs that are gone.  Time plays no part: the
 * tables of /etc/cron.d and the spool are each node's own, so node A
 * may have dropped a table that node B still runs, and a node that is
 * down or stopped still has its tables; its jobs go when it lets go of
 * them, at its next start.  Jobs of nodes that never come back stay.
 *
 * Why a deleted job is safe.  A node claims only the jobs it holds, so
 * no node claims a job once it is deleted, except one whose record of
 * holding it was not yet written (it read its table while the store was
 * away) or a node of an older clustercron.  Its claim then finds no row
 * and is not won; once it has registered the job, the job's row starts
 * afresh with no last fire, and what keeps such a row from letting a
 * fire be won twice is the claims table: a fire that has a claims row
 * is never claimed again (see store_claim()).  On MariaDB, writers of
 * jobs and holds take turns through a lock, a row of the store (so that
 * it holds across the servers of a Galera cluster too), so that a job
 * one node registers is never deleted by another releasing it at the
 * same moment; one that cannot have the lock within STORE_LOCK_WAIT
 * seconds fails with STORE_CONFLICT, and the caller tries again later.
 * The lock of a writer that died is free STORE_LOCK_TTL seconds after
 * its last write.
 */
#define STORE_IDLEN	64
/* Longer descriptive texts are cut to these many bytes when stored. */
#define STORE_OWNERMAX	255
#define STORE_SCHEDMAX	255
#define STORE_ZONEMAX	64
#define STORE_CMDMAX	1024
#define STORE_NAMEMAX	255
/* Seconds a writer of jobs waits for the others (MariaDB). */
#define STORE_LOCK_WAIT	10
/* Seconds the lock of a writer of jobs lasts after its last write. */
#define STORE_LOCK_TTL	15
struct store_job {
	char		*j_id;
	char		*j_name;	/* CLUSTERCRON_NAME, or "" (or NULL) */
	char		*j_owner;
	char		*j_sched;	/* schedule text as written */
	char		*j_zone;	/* CRON_TZ, or "" */
	char		*j_cmd;		/* command summary */
	int		 j_scope;	/* enum cron_scope */
	int		 j_overlap;	/* enum cron_overlap */
	int		 j_misfire;	/* enum cron_misfire */
	uint32_t	 j_grace;	/* seconds */
	int		 j_paused;
	/* Read-only: filled by the listing functions. */
	time_t		 j_last_fire;	/* 0: never claimed */
	char		*j_claimed_by;	/* "" when never claimed */
	int64_t		 j_claimed_at;	/* store clock, ms */
	int64_t		 j_gone;	/* store_jobs_gone(): when, ms */
};

/*
 * store_jobs_register() inserts or updates n jobs (their j_id .. j_grace
 * members and j_name, NULL meaning ""; j_paused is left as the store
 * has it) and records that this node holds them.  Borrowed.  A row is
 * unchanged, and not written, when all of these are as stored.  Done in
 * one transaction on SQLite and in multi-row batches on MariaDB.  The
 * listing functions return j_name as a string, "" for a job without
 * one.
 *
 * store_jobs_sync() registers the n jobs as this node's whole set: it
 * also releases every other job this node held (what a daemon does at
 * its start, with the jobs of all its tables).  store_jobs_release()
 * records that this node no longer holds the n jobs ids[] (borrowed).
 * Both delete the jobs that no node holds any longer and set *gone to
 * how many went (when a call is carried out again after a lost
 * connection, those of the earlier attempt may not be counted).
 */
int	 store_jobs_register(struct store *, const struct store_job *,
	    size_t, struct store_error *);
int	 store_jobs_sync(struct store *, const struct store_job *, size_t,
	    size_t *, struct store_error *);
int	 store_jobs_release(struct store *, const char *const *, size_t,
	    size_t *, struct store_error *);
/*
 * store_jobs_sync_fill() is store_jobs_sync() with the jobs asked for
 * in pieces, sorted by identity, instead of passed in one array; the
 * stored jobs are read in pages in the same order, so that neither the
 * caller's memory nor the store's grows with the number of jobs:
 * fill(arg, from, rows, max) fills rows[] with at most max jobs, the
 * from-th on, and returns how many, 0 past the last; from is 0 again
 * when the store starts over (after a lost connection).  The rows'
 * strings are borrowed until the next call.  A job given out of order
 * fails the sync (STORE_FATAL); one given twice in a row counts once.
 */
typedef size_t	(*store_fill_fn)(void *, size_t, struct store_job *, size_t);
int	 store_jobs_sync_fill(struct store *, store_fill_fn, void *, size_t *,
	    struct store_error *);
/* The same as store_jobs_register(), in pieces likewise. */
int	 store_jobs_register_fill(struct store *, store_fill_fn, void *,
	    struct store_error *);
/* Set or clear the paused flag; 0, or -1 (STORE_CONFLICT: no job). */
int	 store_job_pause(struct store *, const char *, int,
	    struct store_error *);
/*
 * store_jobs_list() returns all jobs (owner NULL) or one owner's, sorted
 * by owner and id, in a new array *out of *n the caller frees with
 * store_jobs_free(*out, *n).  store_job_get() returns one job in *out
 * (NULL and 0 when there is none).
 */
int	 store_jobs_list(struct store *, const char *, struct store_job **,
	    size_t *, struct store_error *);
int	 store_job_get(struct store *, const char *, struct store_job **,
	    struct store_error *);
/*
 * store_jobs_fired() returns, of all jobs (owner NULL) or one owner's,
 * those ever claimed, as their identity and last claimed fire only:
 * at most max of them, the first whose identities come after `after'
 * ("" for the first page), sorted by identity, in a new array *out of
 * *n the caller frees with free().  What the misfire pass needs,
 * without the descriptions (store_jobs_list() makes seven strings a
 * job, 22 MB for 100,000), a page at a time.
 */
struct store_fired {
	char		 f_id[STORE_IDLEN + 1];
	time_t		 f_last;	/* j_last_fire, never 0 */
};
int	 store_jobs_fired(struct store *, const char *, const char *, size_t,
	    struct store_fired **, size_t *, struct store_error *);
/*
 * store_jobs_gone() returns the jobs that left the store and still have
 * runs, as store_jobs_list() returns jobs: only the descriptive members
 * are filled in, and j_gone, when they left (store clock, ms).  A job
 * registered again is not among them.
 */
int	 store_jobs_gone(struct store *, struct store_job **, size_t *,
	    struct store_error *);
void	 store_jobs_free(struct store_job *, size_t);

/*
 * Claims.  store_claim() tries to claim the fire (job id, instant) for
 * this node.  Returns 0 with *won set to 1 (ours) or 0 (someone else
 * has it or a later fire, the job is paused or unknown), or -1 with
 * *won 0 and *err filled: then the outcome is unknown and the caller
 * must not start the job (fail closed).  A later call with the same
 * job and fire, single or batched, resolves it truthfully (it returns
 * won = 1 if an earlier attempt of ours committed, however many later
 * fires other nodes have claimed since): the store remembers every
 * claim whose result it lost until it is asked again or this node
 * claims (or loses the result of) a later fire of the job.
 * store_claim_check() only reads: won iff the claims table says this
 * node claimed exactly that fire (and it has not been trimmed).  A fire
 * recorded in the claims table is never won again, whatever the job's
 * row says (it may be the new row of a job deleted and registered
 * again), so claims that are trimmed away bound how long this holds.
 */
int	 store_claim(struct store *, const char *, time_t, int *,
	    struct store_error *);
int	 store_claim_check(struct store *, const char *, time_t, int *,
	    struct store_error *);
/*
 * store_claim_batch() claims at most max of the n jobs ids[], all due at
 * the same instant, in one transaction.  won[i] is set to
 *
 *	1  won: the fire is this node's;
 *	2  not won, but the job's row still read free just after the
 *	   batch: on MariaDB another node's batch held it (SKIP LOCKED
 *	   skips such rows, so contending nodes split the batch), or max
 *	   jobs were won before it was reached.  It may be free once that
 *	   other transaction ends: a caller with a slot left tries it
 *	   alone with store_claim(), which waits for the row and tells;
 *	0  not won and not worth trying alone: another node (or an
 *	   earlier call) holds this fire or a later one, or the job is
 *	   paused or unknown.
 *
 * *nwon counts the 1s only.  Telling 2 from 0 costs one plain read of
 * the rows not won, after the batch's commit; when that read fails,
 * every job not won is reported 2, and the call still succeeds.  On
 * failure every won[i] is 0 and, as with store_claim(), asking again
 * settles what was in flight: every job an earlier lost attempt
 * claimed is then reported won, even beyond max (*nwon counts them
 * too), since no other node will run them.
 */
int	 store_claim_batch(struct store *, const char *const *, size_t,
	    time_t, size_t, unsigned char *, size_t *, struct store_error *);
/*
 * store_claim_free() reads, without claiming or locking, which of the n
 * jobs ids[] are still free at the instant fire (their row says no
 * later or equal fire was claimed, and they are not paused): isfree[i]
 * 1 or 0.  A node that is not a fire's preferred claimant asks this
 * first and claims only what is left, so that a fire its preferred
 * node took costs it one read per batch of jobs rather than a
 * transaction per job.  The answer is a hint: only a claim decides.
 * On failure every isfree[i] is 0.
 *
 * store_holds_shared() sets *shared to whether each of the n nodes
 * nodes[] holds every job this node holds (store_jobs_register()): if
 * so, whichever of them is a fire's preferred claimant has the job.
 * More nodes than a statement's list takes: *shared 0.
 *
 * store_statements() reads how many statements the database server
 * has carried out since it started, every client's (MariaDB's
 * Questions): what the benchmarks and tests count the cost of a fire
 * by.  SQLite has no server and counts none: -1.
 */
int	 store_claim_free(struct store *, const char *const *, size_t, time_t,
	    unsigned char *, struct store_error *);
int	 store_holds_shared(struct store *, const char *const *, size_t, int *,
	    struct store_error *);
int	 store_statements(struct store *, int64_t *, struct store_error *);

/*
 * store_abort() gives the store up, for a daemon that stops while a
 * call may be blocked on a server that no longer answers: it is the one
 * function another thread may call on a store in use.  The call blocked
 * now (MariaDB: its socket is shut down) and every later one fail at
 * once, as on a lost connection, and nothing reconnects.
 */
void	 store_abort(struct store *);

/*
 * store_retry_now(): the next call may connect at once, whatever the
 * back-off after failed connections (50 ms doubling to 5 s), as when
 * another connection to the same store has just been answered.  A
 * failed attempt then lengthens the back-off as before.
 */
void	 store_retry_now(struct store *);

/*
 * Runs.  A fire's life: claimed -> running -> finished | lost; or
 * claimed -> failed (the job could not be started); or a fire nobody
 * started: missed | skipped.  One row per (job, fire, attempt, node):
 * a job of node scope runs on every node and each node records its own
 * run, while a cluster fire is started, and so recorded, only by the
 * node whose claim won it.  Attempt 0 is reserved for missed and
 * skipped fires.
 */
enum store_run_state {
	RUN_RUNNING = 0,
	RUN_FINISHED,
	RUN_LOST,	/* its node stopped heartbeating */
	RUN_MISSED,	/* no node could start it in time */
	RUN_SKIPPED,	/* overlap forbidden: the previous run still ran */
	RUN_FAILED	/* could not start: fork, exec, user lookup... */
};
const char *store_run_state_name(enum store_run_state);

struct store_run {
	int64_t		 r_id;
	char		*r_job;
	time_t		 r_fire;
	int		 r_attempt;
	char		*r_node;
	int		 r_pid;
	int64_t		 r_start;	/* ms, node clock */
	int64_t		 r_end;		/* ms, node clock; 0 running */
	enum store_run_state r_state;
	int		 r_exit;	/* exit status, or -1 */
	int		 r_signal;	/* terminating signal, or 0 */
	char		*r_output;	/* head, NUL-terminated */
	size_t		 r_outlen;	/* bytes kept in r_output */
	int64_t		 r_outtotal;	/* bytes the run wrote */
};

/*
 * store_run_start() records that this node started attempt (>= 1) of a
 * fire as pid at start (node clock, ms) and returns the run's id in
 * *id.  Idempotent for this node: recording the same attempt again
 * returns the first id.  Another node recording the same attempt gets
 * a row of its own (node scope).
 */
int	 store_run_start(struct store *, const char *, time_t, int, int,
	    int64_t, int64_t *, struct store_error *);
/*
 * store_run_end() records the end (node clock, ms) of run id: the wait
 * status as waitpid() gave it and the output, of which at most
 * sc_output_max bytes are kept (outlen is the whole length written).
 * The run becomes RUN_FINISHED, or stays RUN_LOST if it was marked so
 * meanwhile (see store_runs_mark_lost()); a finished run is not
 * changed again.
 */
int	 store_run_end(struct store *, int64_t, int64_t, int, const char *,
	    size_t, struct store_error *);
/*
 * The same for many runs at once, in one transaction each call (the
 * daemon records the starts of one turn of its loop, and the ends it
 * reaped in one turn, together: one commit instead of one per run).
 * store_runs_start_batch() records the n starts of rs[] and puts their
 * ids in ids[], in order; each is idempotent for this node exactly as
 * store_run_start() is, so after a failure the caller passes the same
 * starts again and gets the first ids, with no row twice.
 * store_runs_end_batch() records the n ends of re[] as store_run_end()
 * does.  Both borrow their arguments.  Returns 0, or -1 with *err
 * filled and, for starts, every ids[i] 0: then none of the batch may
 * be taken as recorded (some may be), and the whole batch is passed
 * again later.
 */
struct store_run_start {
	const char	*rs_job;
	time_t		 rs_fire;
	int		 rs_attempt;	/* >= 1 */
	int		 rs_pid;
	int64_t		 rs_start;	/* ms, node clock */
};
struct store_run_end {
	int64_t		 re_id;
	int64_t		 re_end;	/* ms, node clock */
	int		 re_status;	/* as waitpid() gave it */
	const char	*re_out;	/* may be NULL when re_outlen is 0 */
	size_t		 re_outlen;	/* bytes the run wrote */
};
int	 store_runs_start_batch(struct store *, const struct store_run_start *,
	    size_t, int64_t *, struct store_error *);
int	 store_runs_end_batch(struct store *, const struct store_run_end *,
	    size_t, struct store_error *);
/*
 * store_run_fail() records that this node could not start attempt
 * (>= 1) of a fire: one row in state RUN_FAILED at `when' (node clock,
 * ms) as both start and end, exit status -1, and the reason `why' as
 * its output (cut to sc_output_max).  Recording it again keeps the
 * first record, and so does a row this node already has for that
 * attempt.
 */
int	 store_run_fail(struct store *, const char *, time_t, int, int64_t,
	    const char *, struct store_error *);
/*
 * store_fire_note() records a fire that was not started, as RUN_MISSED
 * or RUN_SKIPPED (attempt 0, this node, at `when', ms).  Noting it
 * twice from one node keeps the first note; each node's note is its
 * own row (node scope; a cluster fire is noted by its claimant).
 */
int	 store_fire_note(struct store *, const char *, time_t,
	    enum store_run_state, int64_t, struct store_error *);
/*
 * store_fire_note_batch() notes the n fires jobs[i] at fires[i] as
 * store_fire_note() does, all with one state and time, in one
 * transaction (the misfire pass notes every job's missed fire at once).
 * On failure none may be taken as noted; noting them again is harmless.
 */
int	 store_fire_note_batch(struct store *, const char *const *,
	    const time_t *, size_t, enum store_run_state, int64_t,
	    struct store_error *);
/*
 * store_fire_notes() notes n fires as store_fire_note() does, each with
 * its own state, time and reason (sn_why, NULL: none; kept as the
 * note's output, cut as a run's), in one transaction: the fires a
 * daemon's limits skipped or let miss in one turn (issue 12).
 */
struct store_note {
	const char	*sn_job;
	time_t		 sn_fire;
	enum store_run_state sn_state;
	int64_t		 sn_when;	/* ms, node clock */
	const char	*sn_why;
};
int	 store_fire_notes(struct store *, const struct store_note *, size_t,
	    struct store_error *);
/*
 * store_runs_list() returns the newest runs first, at most limit (0: no
 * limit), of one job or of all (job NULL), in a new array the caller
 * frees with store_runs_free().  store_runs_running() lists the runs
 * still running, all nodes (node NULL) or one.
 */
int	 store_runs_list(struct store *, const char *, size_t,
	    struct store_run **, size_t *, struct store_error *);
int	 store_runs_running(struct store *, const char *, struct store_run **,
	    size_t *, struct store_error *);
/*
 * store_job_busy() sets *busy when a run of the job for another fire
 * than the one given is still running on any node: what a job that
 * forbids overlap asks before it starts.
 */
int	 store_job_busy(struct store *, const char *, time_t, int *,
	    struct store_error *);
/*
 * store_job_inflight() sets *n to the number of the job's fires in
 * [fire - window, fire) that some node claimed but for which no run,
 * note or failure is recorded yet: a node records a run only after it
 * won the claim and started the job, so for a moment (longer while it
 * cannot write) a run in flight shows in the claims alone.  What a job
 * that forbids overlap asks besides store_runs_running().
 */
int	 store_job_inflight(struct store *, const char *, time_t, time_t,
	    int *, struct store_error *);
/*
 * store_runs_latest() returns the newest record of every job that has
 * one (its last result, missed and skipped fires included), for the
 * jobs listing, in a new array the caller frees with store_runs_free().
 */
int	 store_runs_latest(struct store *, struct store_run **, size_t *,
	    struct store_error *);
void	 store_runs_free(struct store_run *, size_t);

/*
 * Nodes.  store_heartbeat() records that this node is alive, with its
 * own clock now (ms) and its number of running jobs, and returns the
 * store's clock in *store_ms (the node's skew is node_ms - *store_ms,
 * give or take a round trip) and whether the node is draining.  It
 * records the beat (store clock), that skew and the running count;
 * the first heartbeat of a process also records its start, and every
 * one the database server it went through and that server's state (on
 * MariaDB).  store_nodes_list() returns every node that ever beat,
 * sorted by name, in a new array the caller frees with
 * store_nodes_free().
 *
 * A heartbeat also carries the node's cover (NULL: none), which the
 * store keeps for the other nodes and does not read: the span of due
 * times (ms) over which the node settled, by a claim of its own or by
 * finding it taken, every cluster fire it was the preferred claimant of
 * among the live nodes whose names hash to c_view, of the jobs whose
 * identities hash to c_jobs (the daemon's claim.c says how).  c_to 0:
 * nothing covered, as before a node's first beat since schema 9.
 */
enum store_node_state { NODE_ACTIVE = 0, NODE_DRAINING };
struct store_cover {
	int64_t		 c_from;	/* due times, ms */
	int64_t		 c_to;
	uint64_t	 c_view;
	uint64_t	 c_jobs;
};
struct store_node {
	char		*n_name;
	int64_t		 n_started;	/* store clock, ms */
	int64_t		 n_beat;	/* store clock, ms */
	int64_t		 n_skew;	/* node clock - store clock, ms */
	enum store_node_state n_state;
	int		 n_running;
	/*
	 * The database server of the node's last heartbeat, as the URL
	 * names it ("db2:3306", a socket's path), with a Galera node's
	 * name after it ("db2:3306 (db2)"), and its state when the beat
	 * went through: a Galera node's "Synced, primary of 3", or
	 * "primary" ("primary, semi-sync"); "" on SQLite, or before a
	 * node's first beat since the store's schema 7.
	 */
	char		*n_db;
	char		*n_dbstate;
	struct store_cover n_cover;
};
int	 store_heartbeat(struct store *, int64_t, int,
	    const struct store_cover *, int64_t *, int *,
	    struct store_error *);
/* Drain (1) or resume (0) a node by name; STORE_CONFLICT if unknown. */
int	 store_node_drain(struct store *, const char *, int,
	    struct store_error *);
int	 store_nodes_list(struct store *, struct store_node **, size_t *,
	    struct store_error *);
void	 store_nodes_free(struct store_node *, size_t);
/*
 * Failure detection.  store_runs_mark_lost() marks RUN_LOST the running
 * runs of every node other than this one whose last heartbeat is older
 * than timeout_ms by the store's clock.  Each run is marked by its own
 * conditional write (only if it still runs), so that when several
 * nodes call this at once exactly one of them marks each run; the runs
 * this call marked are returned in a new array *lost of *n copies
 * (r_state RUN_LOST, r_end the store's clock when marked), which the
 * caller frees with store_runs_free(), to log them and start again
 * those whose job asks for it.  *lost is NULL when none.  A mark names
 * the node that made it, so when the connection drops as the marks
 * commit, the call (or, once the store answers, a later one) reads
 * them back and still returns those it made; a node therefore calls
 * this through one store handle only.
 *
 * store_run_lost() marks run id lost if it still runs: for a node that
 * restarts and finds runs of its own whose process is gone.  *marked is
 * 1 when this call changed it, 0 when it had already ended or been
 * marked lost (by another node), and 0 too, erring on the side of not
 * running a job twice, if the connection dropped just as the mark
 * committed.
 *
 * A run marked lost that ends after all (store_run_end()) keeps the
 * state RUN_LOST and gets its end, exit status and output: its end
 * became known later.
 */
int	 store_runs_mark_lost(struct store *, int64_t, struct store_run **,
	    size_t *, struct store_error *);
int	 store_run_lost(struct store *, int64_t, int *, struct store_error *);
/*
 * Claims without a record.  A node records a run only after its claim
 * won and the job exec'd, so a node that dies in between leaves a claim
 * and nothing else: the job may or may not have started.  Such a claim
 * becomes attempt 1 recorded as running by the claimant, with pid 0 and
 * its claim time as start, and is then marked lost like any run of that
 * node: store_runs_mark_lost() does it first for the claims of the dead
 * nodes (fires within the timeout and a minute of their last
 * heartbeat); store_claims_unrun() does it for this node's own claims
 * of fires from `from' on, which a daemon calls at its start, before it
 * claims anything, and then finds them among its runs of an earlier
 * life.  *n is the number of claims so turned into runs.  Should the
 * claimant record the start after all, it finds that row, fills in its
 * pid and start, and keeps its state.
 *
 * store_fire_recorded() sets *n to the number of records (runs and
 * notes) of a fire: what a node asks before it starts a fire it won
 * long ago, which another node may have taken for lost meanwhile.
 */
int	 store_claims_unrun(struct store *, time_t, size_t *,
	    struct store_error *);
/*
 * store_claims_list() returns every claim the claims table holds (those
 * not yet trimmed), by fire then job, in a new array the caller frees
 * with store_claims_free(): what tests and tools read to see which node
 * won which fire.
 */
struct store_claim {
	char		*c_job;
	time_t		 c_fire;
	char		*c_node;
	int64_t		 c_at;		/* store clock, ms */
};
int	 store_claims_list(struct store *, struct store_claim **, size_t *,
	    struct store_error *);
void	 store_claims_free(struct store_claim *, size_t);
/*
 * The sweep after nodes died (a fire each of whose first claimants
 * died before the others saw them gone is claimed by no node).
 * store_claims_span() returns the claims of the fires from `from' to
 * `to' (inclusive), as store_claims_list() does.  store_fire_sweep()
 * notes RUN_MISSED, as store_fire_note() does at `when' (ms), each of
 * the n fires jobs[i] at fires[i] that no node may claim any longer
 * (a later fire of its job is claimed: claims only move forward),
 * that has neither claim nor record, and that comes after a recorded
 * fire of its job (before the first, the cluster had not run the job
 * yet): it claims each such fire for this
 * node and notes it in the same transaction, so that a fire is never
 * both run and noted, nor noted by two sweeps.  noted[i] is set for
 * those, *nnoted counts them.  Returns 0, or -1 with *err filled and
 * nothing taken as noted (some may be; sweeping again notes no fire
 * twice).
 */
int	 store_claims_span(struct store *, time_t, time_t,
	    struct store_claim **, size_t *, struct store_error *);
int	 store_fire_sweep(struct store *, const char *const *, const time_t *,
	    size_t, int64_t, unsigned char *, size_t *, struct store_error *);
int	 store_fire_recorded(struct store *, const char *, time_t, int *,
	    struct store_error *);

/*
 * Leases: a named row held by one node until it expires (store clock),
 * so that chores run on one node at a time.  store_lease_take() takes
 * or renews the lease for ttl_ms and sets *held; store_lease_drop()
 * gives it up if held.
 */
int	 store_lease_take(struct store *, const char *, int64_t, int *,
	    struct store_error *);
int	 store_lease_drop(struct store *, const char *, struct store_error *);

/*
 * store_trim() deletes, under the lease "trim" (held for ttl_ms), the
 * finished runs older than max_age_ms by the store's clock (0: none by
 * age) and all but the newest max_runs of each job (0: no limit), and
 * the claims of fires older than max_age and of all but the newest
 * max_runs instants, the descriptions of jobs that are gone whose
 * runs are all trimmed, and the one-shot jobs done, failed or cancelled
 * whose last change is older than max_age.  Returns in *n how many
 * runs went; *n is 0 when another node holds the lease.
 */
int	 store_trim(struct store *, int64_t, size_t, int64_t, size_t *,
	    struct store_error *);
/*
 * store_trim_pass() is one pass of bounded work under the lease "trim"
 * (held for ttl_ms): the finished runs older than tr_age; then, of
 * each job, the finished runs beyond its newest tr_job_runs and beyond
 * its newest that keep tr_job_bytes of output between them; then the
 * same of each owner's runs across all his jobs (his one-shot jobs'
 * included) with tr_user_runs and tr_user_bytes; the oldest first
 * (by fire, then id), a run still running never (it counts, though).
 * A run's output is counted as the bytes it wrote, up to this store's
 * sc_output_max.  0 is no limit throughout.  Then the claims, jobs
 * gone and one-shot jobs as store_trim() does.  At most tr_budget runs
 * go (0: no limit); td_more says the pass stopped there, with work
 * left for the next.  tr_over, when set, is called after the pass for
 * each owner of whom runs went by his own limits (the owner
 * borrowed).  *out is filled on success: td_held is 0 when another
 * node holds the lease (nothing was done).
 */
struct store_trim {
	int64_t		 tr_age;	/* ms */
	size_t		 tr_job_runs;
	uint64_t	 tr_job_bytes;
	size_t		 tr_user_runs;
	uint64_t	 tr_user_bytes;
	size_t		 tr_budget;
	void		(*tr_over)(void *, const char *, size_t, uint64_t);
	void		*tr_arg;
};
struct store_trimmed {
	int		 td_held;
	size_t		 td_runs;	/* runs deleted */
	uint64_t	 td_bytes;	/* their output, as counted */
	int		 td_more;
};
int	 store_trim_pass(struct store *, const struct store_trim *, int64_t,
	    struct store_trimmed *, struct store_error *);

/*
 * Tables, for ctab: one text per owner with a version that grows by
 * one on every change, deletion included (a deleted table keeps its
 * row and version, so versions never go back).  store_table_get()
 * returns a copy of the text in *text (the caller frees it) and its
 * version: NULL and version 0 when the owner never had one, NULL and
 * the version of the deletion when it was deleted.  store_table_put()
 * replaces it only if the stored version is still `expected' (0: there
 * was never one); otherwise STORE_CONFLICT, so a stale editor never
 * rolls a table back.  text NULL deletes the table.  *version receives
 * the new version.  store_tables_list() lists the tables that exist.
 */
int	 store_table_get(struct store *, const char *, char **, int64_t *,
	    struct store_error *);
int	 store_table_put(struct store *, const char *, const char *,
	    int64_t, int64_t *, struct store_error *);
struct store_table {
	char		*t_owner;
	char		*t_text;
	int64_t		 t_version;
	int64_t		 t_updated;	/* store clock, ms */
};
int	 store_tables_list(struct store *, struct store_table **, size_t *,
	    struct store_error *);
void	 store_tables_free(struct store_table *, size_t);

/*
 * One-shot jobs: at(1) for the cluster.  A one-shot job is one row of
 * its own, made by store_at_submit() and known by a_id, a number the
 * store gives out in increasing order (AUTO_INCREMENT on MariaDB,
 * AUTOINCREMENT on SQLite): small as at's job numbers, the same on
 * every node since the store is the one place that hands them out, and
 * never given out twice, even after the job is trimmed, so that an
 * atrm that comes late never removes another job.
 *
 * A job's life (a_state):
 *
 *	waiting -> running		claimed (store_at_claim())
 *	running -> done | failed	its attempt ended (store_at_finish())
 *	running -> retrying		its attempt failed, another is due
 *					at a_next (store_at_finish())
 *	retrying -> running		the next attempt claimed
 *	waiting | retrying -> cancelled	removed (store_at_cancel())
 *
 * and nothing leaves done, failed or cancelled: those rows stay for
 * the history until store_trim() deletes them by age.  A running job
 * cannot be cancelled.
 *
 * Why an attempt has one winner.  Attempts count from 1; a_attempt is
 * the number of the last one claimed.  Claiming attempt k is one
 * conditional write on the job's row by primary key,
 *
 *	UPDATE atjobs SET attempt = k, state = running, claimed_by = N
 *	    WHERE id = J AND attempt = k - 1 AND state IN (waiting,
 *	    retrying)
 *
 * so that, as for a cron fire, the row lock serialises the contenders
 * and the condition "not yet claimed for this attempt" decides: the
 * first to commit moves the row on, every later one changes nothing.
 * The same transaction records the attempt as a run (below), so the
 * claim and its record commit together.  A claim whose result was lost
 * is carried out again and, when it changes nothing, reads the row: the
 * attempt is ours iff the row still says running, attempt k, claimed
 * by us.  An attempt that the cluster has meanwhile taken for lost and
 * moved past is not ours any longer: it is not started (at most once).
 *
 * Attempts are runs.  Attempt k of job J is the run (job "at:J", fire
 * a_due, attempt k, node) of the runs table (store_at_runjob() makes
 * the name): a retry is another attempt of the same fire, as a cron
 * job's rerun is, so the history lists one-shot attempts beside cron
 * runs, trimming keeps or deletes them by the same rules, and a node
 * that dies while one runs has it marked lost by store_runs_mark_lost()
 * like any run.  The claim writes the run's row (pid 0, start = the
 * store's clock at the claim); store_at_start() fills in the pid and
 * start, store_at_finish() the end, exit status and output.
 *
 * Submitting twice.  Each submission carries a token the caller makes
 * afresh (random, unique), and may carry a key (at -k): both are unique
 * in the store, the key per owner.  A submission carried out again
 * after a lost connection, or sent again by a client that timed out,
 * finds its token and returns the job it made (*isnew 1); a token of
 * another owner's job is refused (STORE_CONFLICT); one that
 * finds the owner's key already taken returns that job, unchanged, with
 * *isnew 0, whatever its state: a key names one job for as long as the
 * store keeps it.
 */
enum store_at_state {
	AT_WAITING = 0,
	AT_RUNNING,
	AT_RETRYING,
	AT_DONE,
	AT_FAILED,
	AT_CANCELLED
};
const char *store_at_state_name(enum store_at_state);

/* Longest texts a one-shot job may have; longer ones are refused. */
#define STORE_AT_KEYMAX		128
#define STORE_AT_TOKENMAX	64
#define STORE_AT_BACKOFFMAX	255
#define STORE_AT_CWDMAX		4096
#define STORE_AT_SCRIPTMAX	(1024 * 1024)	/* cmd and env together */
/* store_at_runjob()'s buffer. */
#define STORE_AT_RUNJOBLEN	32

struct store_atjob {
	int64_t		 a_id;
	char		*a_owner;
	char		*a_key;		/* idempotency key, "" for none */
	char		*a_token;	/* the submission's token */
	char		 a_queue;	/* a-z, A-Z */
	time_t		 a_due;		/* the instant asked for, UTC */
	time_t		 a_next;	/* when the next attempt is due */
	enum store_at_state a_state;
	int		 a_attempt;	/* attempts claimed so far */
	int		 a_retries;	/* further attempts after a failure */
	char		*a_backoff;	/* the retries' delays, as written */
	int		 a_mail;	/* -1 never, 0 output, 1 always */
	int		 a_lost;	/* a lost attempt: 0 mark, 1 rerun */
	int		 a_umask;
	char		*a_cwd;
	char		*a_env;		/* NAME=value\0 ... */
	size_t		 a_envlen;
	char		*a_cmd;		/* the commands, as read */
	size_t		 a_cmdlen;
	/* Read-only: filled by the store. */
	char		*a_node;	/* the node it was submitted on */
	char		*a_claimed_by;	/* "" before its first claim */
	int64_t		 a_claimed_at;	/* store clock, ms */
	int64_t		 a_created;	/* store clock, ms */
	int64_t		 a_updated;	/* store clock, ms */
	int		 a_fenced;	/* attempts not started in time */
};

/*
 * store_at_submit() stores a new job from j's members a_owner ..
 * a_cmdlen (borrowed; a_key NULL or "" for none; a_token required),
 * in state waiting with a_next = a_due, unless the owner already has
 * max_pending jobs waiting, running or retrying (0: no limit; then
 * STORE_CONFLICT, saying so, and nothing stored).  Returns 0 with the
 * job's id in *id and *isnew as described above, or -1 with *id 0.
 * Texts over the limits above are refused (STORE_FATAL).
 */
int	 store_at_submit(struct store *, const struct store_atjob *, size_t,
	    int64_t *, int *, struct store_error *);
/*
 * store_at_get() returns one job, every member filled, in a new
 * *out the caller frees with store_atjobs_free(*out, 1) (NULL when
 * there is no such job).  store_at_list() returns the jobs of one
 * owner (owner NULL: all), those waiting, running or retrying only
 * unless all is set, by a_next then a_id, without their a_env and
 * a_cmd (NULL, lengths 0).  store_at_due() returns the jobs waiting or
 * retrying whose a_next is no later than `before', at most max (0: no
 * limit), earliest first, every member filled: what a node claims.
 * store_at_pending() sets *n to the number of an owner's jobs waiting,
 * running or retrying.
 */
int	 store_at_get(struct store *, int64_t, struct store_atjob **,
	    struct store_error *);
int	 store_at_list(struct store *, const char *, int,
	    struct store_atjob **, size_t *, struct store_error *);
int	 store_at_due(struct store *, time_t, size_t, struct store_atjob **,
	    size_t *, struct store_error *);
int	 store_at_pending(struct store *, const char *, size_t *,
	    struct store_error *);
/*
 * store_at_heads() returns what listings show of the jobs (the admin
 * verbs' jobs and history): those of one owner (NULL: all), finished
 * ones too when all is set, by a_id, every member but a_env (empty)
 * and a_cmd, which holds the first STORE_AT_HEADMAX bytes of the
 * commands (a_cmdlen of them).
 */
#define STORE_AT_HEADMAX	256
int	 store_at_heads(struct store *, const char *, int,
	    struct store_atjob **, size_t *, struct store_error *);
/*
 * store_at_lost() returns the jobs running whose attempt's run is no
 * longer running (marked lost, its node taken for dead; or ended
 * without the job's row following), at most max (0: no limit), every
 * member filled: what a node settles with store_at_finish(), re NULL.
 * store_at_next() sets *next to the earliest a_next of the jobs
 * waiting or retrying, 0 when there is none.
 */
int	 store_at_lost(struct store *, size_t, struct store_atjob **,
	    size_t *, struct store_error *);
int	 store_at_next(struct store *, time_t *, struct store_error *);
void	 store_atjobs_free(struct store_atjob *, size_t);
/*
 * store_at_cancel() cancels job id, if it is waiting or retrying and,
 * owner not NULL, belongs to owner.  *res says what happened:
 * AT_CANCEL_DONE, AT_CANCEL_NONE (no such job), AT_CANCEL_NOTOWNER,
 * AT_CANCEL_RUNNING (an attempt runs: at(1) would delete the job and
 * let the attempt go on, we keep it, since its end decides whether it
 * is retried) or AT_CANCEL_FINISHED (done, failed or cancelled
 * already; cancelling it again is not an error but says so).  A cancel
 * carried out again after a lost connection that finds the job
 * cancelled reports AT_CANCEL_DONE.
 */
enum store_at_cancel {
	AT_CANCEL_DONE = 0,
	AT_CANCEL_NONE,
	AT_CANCEL_NOTOWNER,
	AT_CANCEL_RUNNING,
	AT_CANCEL_FINISHED
};
int	 store_at_cancel(struct store *, int64_t, const char *,
	    enum store_at_cancel *, struct store_error *);
/*
 * store_at_claim() tries to claim attempt (>= 1) of job id for this
 * node: 0 with *won 1 (ours) or 0 (another node's, an earlier or later
 * attempt, the job cancelled or finished or unknown), or -1 with *won
 * 0 and *err filled: the outcome is then unknown, the caller must not
 * start it, and a later call with the same arguments tells the truth.
 */
int	 store_at_claim(struct store *, int64_t, int, int *,
	    struct store_error *);
/*
 * store_at_start() records that this node started attempt of job id as
 * pid at start (node clock, ms) and returns the run's id in *run: the
 * row the claim made, which the call fills in once (again: the same
 * id).  STORE_CONFLICT when this node has no claim of that attempt.
 */
int	 store_at_start(struct store *, int64_t, int, int, int64_t,
	    int64_t *, struct store_error *);
/*
 * store_at_finish() ends attempt of job id in one transaction: the
 * run's end (re, its re_id ignored: the run this node's claim wrote;
 * with re_status STORE_AT_NOSTART the attempt did not start, the run
 * is RUN_FAILED at re_end and re_out says why; with STORE_AT_FENCED it
 * was not started in time, the run is RUN_MISSED, which a_fenced
 * counts) or,
 * re NULL, when the attempt's end is not known (its node died, say),
 * the mark that its run, if it still runs, is lost; and the job's move
 * from running to `to': AT_DONE, AT_FAILED, or AT_RETRYING with the
 * next attempt due at `next'.  Which one is the caller's decision
 * (its retries, back-off and lost policy).  The move is conditional on
 * the row still being at this attempt and running: *moved is 1 when
 * this call (or an earlier one whose result was lost) made it, 0 when
 * the job had moved on otherwise.
 */
int	 store_at_finish(struct store *, int64_t, int,
	    const struct store_run_end *, enum store_at_state, time_t, int *,
	    struct store_error *);
#define STORE_AT_NOSTART	(-1)
#define STORE_AT_FENCED		(-2)
/* The runs' job name of one-shot job id: "at:ID". */
void	 store_at_runjob(int64_t, char *, size_t);

#ifdef CLUSTERCRON_TEST
/*
 * Testing.  What follows exists only in test builds: the library
 * liblock_test.a, compiled with CLUSTERCRON_TEST defined, and the
 * programs built on it with the same define (tests/unit/store,
 * tests/testbin/clustercron, ...): in a Makemodule.am, a test program
 * adds $(TEST_CPPFLAGS) to its CPPFLAGS and links $(LOCK_TEST_LIBS).
 * The shipped library has none of it, and its store_url_parse()
 * refuses memory:NAME.
 *
 * The fault hook, inert until set: the nth time (1 = next) the named
 * point is reached (NULL or "*": any point) in this process, the store
 * behaves as the fault says.  STORE_FAULT_DROP drops the connection
 * there (for a point named *.after, once the statement has been
 * carried out, so its result is lost: *.commit.after loses the answer
 * of a commit that went through); STORE_FAULT_RETRY makes the statement
 * fail as a deadlock would; STORE_FAULT_FAIL as a fatal error;
 * STORE_FAULT_STOP stops the process there (SIGSTOP to itself, a node
 * that hangs) until something continues it, and then goes on as if
 * nothing had happened; STORE_FAULT_STALL makes the thread that reached
 * the point sleep (5 s, or the seconds store_fault_stall() or the spec
 * "stall:SECS" give), a daemon's loop stuck in a slow statement while
 * its heartbeat thread goes on; STORE_FAULT_SHORT hands the statement's rows
 * over one column short (a *.before point of a statement that returns
 * rows), which the operation must refuse with STORE_FATAL.
 * store_fault_set() replaces every armed fault (kind STORE_FAULT_NONE
 * disarms all); store_fault_add() arms one more (up to sixteen), to hit a
 * point reached only while recovering from another.
 * store_fault_points() lists the point names, NULL-ended.
 * store_fault_hits() says how often a fault fired since the last set.
 * store_fault_spec() arms the faults a text lists, "point:nth:kind,..."
 * with kind drop, retry, fail, stop, short or stall[:secs] (what the
 * test daemon reads from CLUSTERCRON_TEST_FAULTS), replacing those
 * armed; 0, or -1 with *err saying what is malformed and nothing armed.  A connection
 * that cannot be made is tried again only after a back-off (50 ms,
 * doubling); store_fault_reconnect() lets the next call of this store
 * try at once, so that a test need not wait for it.
 *
 * A dropped connection alone is often healed within the call: the
 * store reconnects once at once and carries the operation out again,
 * and a claim then reads its claims row.  To leave the caller a claim
 * in doubt, fail the reconnection too:
 *
 *	store_fault_set("claim.commit.after", 1, STORE_FAULT_DROP);
 *	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
 *	store_claim(st, id, fire, &won, &err);	-1, err.se_lost, won 0
 *	store_fault_reconnect(st);
 *	store_claim(st, id, fire, &won, &err);	0, won 1: it had committed
 *
 * and with "claim.commit.before" instead, the second claim wins afresh
 * (nothing was committed), unless another node claimed meanwhile.
 */
enum store_fault {
	STORE_FAULT_NONE = 0,
	STORE_FAULT_DROP,
	STORE_FAULT_RETRY,
	STORE_FAULT_FAIL,
	STORE_FAULT_STOP,
	STORE_FAULT_SHORT,
	STORE_FAULT_STALL
};
void	 store_fault_set(const char *, unsigned int, enum store_fault);
void	 store_fault_add(const char *, unsigned int, enum store_fault);
void	 store_fault_stall(const char *, unsigned int, enum store_fault,
	    unsigned int);
const char *const *store_fault_points(void);
unsigned int store_fault_hits(void);
int	 store_fault_spec(const char *, struct store_error *);
void	 store_fault_reconnect(struct store *);

/*
 * Memory stores.  The URL "memory:NAME" (NAME: 1 to 64 letters, digits,
 * '.', '_' or '-') opens a store held in this process's memory: the
 * SQLite backend, with the same statements, schema and semantics, on
 * a database of SQLite's own memdb VFS instead of a file, so a test of
 * the daemon's core needs neither a server nor a file.  Every store
 * opened on one NAME in this process shares its database: open two
 * with different sc_node and they are two nodes of one cluster.  The
 * database outlives its stores (a store closed and opened again, a
 * node restarting, finds its rows, and so does one whose connection
 * the fault hook dropped) until store_memory_drop() or the end of the
 * process.  store_backend() says "memory".  The fault hook works as on
 * SQLite: a drop closes the store's connection, rolling back what it
 * had not committed, and the next call connects again.
 *
 * store_memory_clock() sets the store's clock of NAME, the time its
 * statements see (what store_now() and store_heartbeat() return, what
 * claims, beats, leases, lost runs and trimming are stamped and judged
 * by), to ms since the epoch, until set again; 0 gives it back the
 * real time.  It may be set before any store is opened on NAME.  The
 * node's own clock is whatever the test passes (store_heartbeat(),
 * store_run_start(), ...).  store_memory_drop() forgets NAME once no
 * store has it open (STORE_CONFLICT while one does); 0 when it was
 * never made.  Neither is thread-safe, and a child of fork() has a
 * copy of each database, not a share of it.
 */
int	 store_memory_clock(const char *, int64_t, struct store_error *);
int	 store_memory_drop(const char *, struct store_error *);

/*
 * store_schema_force() records another schema version, to test
 * refusal; store_test_seed_v1() fills a store opened at schema version
 * 1 (sc_schema = 1) with sample rows of that old layout, to test
 * migration.
 */
int	 store_schema_force(struct store *, int, struct store_error *);
int	 store_test_seed_v1(struct store *, struct store_error *);
#endif /* CLUSTERCRON_TEST */

#endif /* STORE_H */
