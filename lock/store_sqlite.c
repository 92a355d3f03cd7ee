/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_sqlite.c: the SQLite backend, the embedded store for one
 * machine.  The file is in WAL mode so readers never block the writer;
 * every write runs in a BEGIN IMMEDIATE transaction, which takes the
 * write lock first and so never fails half-way on a stale snapshot;
 * waits for the lock go through a short-napping busy handler bounded
 * by sc_busy_timeout (SQLite's own handler sleeps up to 100 ms at a
 * time and starved waiting writers for seconds).  Several processes may
 * share the file; they take turns, so keep one writer (the daemon).
 *
 * synchronous = FULL.  In WAL mode NORMAL is about fifteen times faster
 * but a power cut can roll back the last commits, among them claims of
 * fires whose jobs had already started: after the reboot the misfire
 * policy could start them again.  FULL syncs the WAL at every commit,
 * a few thousand claims per second, which is plenty for one machine and
 * keeps "at most once" true through power loss.
 *
 * Privacy.  The store holds every user's commands and the heads of
 * their output, so no one but the daemon's user may read it, nor write
 * where it lies, whatever path the configuration gives (sq_private()).
 * SQLite makes the WAL and the shared-memory file with the database
 * file's own mode (and owner, when run by root), so making that one
 * private before SQLite opens it is enough for the files to come; those
 * already there, from an older daemon or a copy, are made private too.
 */

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define NOW	"CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
#define INSERT_IGNORE	"INSERT OR IGNORE"
#define REPLACE_INTO	"INSERT OR REPLACE INTO"
#define AT_RUNJOB(col)	"('at:' || " col ")"
#define AT_RUNKEY(col)	"('at:' || " col ")"
#define LEAST	"MIN"
#define GREATEST	"MAX"
#include "store_sql.h"

#define NCLASS	10	/* list lengths 1, 2, 4, ... 512 */
#define NODD	128	/* other lengths of the batch statements */
#define NBATCH	(S_CLAIM_NOTE - S_BATCH_SELECT + 1)	/* and how many */

struct sqlite_be {
	sqlite3		*db;
	sqlite3_stmt	*stmts[S_COUNT][NCLASS];
	/* Batch statements of other lengths, prepared as they come. */
	sqlite3_stmt	*odd[NBATCH][NODD + 1];
	sqlite3_stmt	*begin, *commit;
	int64_t		 busy_start;
	unsigned int	 busy_timeout;
};

static int	 sq_private(struct store *, struct store_error *);
static int	 sq_own_dir(int, const char *);
static int	 sq_connect(struct store *, struct store_error *);
static void	 sq_disconnect(struct store *);
static void	 sq_sever(struct store *);
static int	 sq_exec(struct store *, enum stmt, size_t,
		    const struct sval *, size_t, store_row_fn, void *,
		    int64_t *, struct store_error *);
static int	 sq_exec_sql(struct store *, const char *,
		    struct store_error *);
static int	 sq_begin(struct store *, struct store_error *);
static int	 sq_commit(struct store *, struct store_error *);
static void	 sq_rollback(struct store *);
static int64_t	 sq_insert_id(struct store *);
static const char *sq_unit(enum stmt);
static void	 sq_error(struct store *, int, const char *,
		    struct store_error *);
static int	 sq_busy(void *, int);
static int	 sq_lost(struct store *, struct store_error *);
static unsigned int	 sq_class(size_t);
static char	*sq_expand(const char *, const char *, size_t);
static sqlite3_stmt *sq_stmt(struct store *, enum stmt, size_t,
		    struct store_error *);
static int	 sq_simple(struct store *, sqlite3_stmt **, const char *,
		    struct store_error *);

static const char *const sq_text[S_COUNT] = {
	[S_META_GET] = SQL_META_GET,
	[S_META_SET] = "INSERT OR REPLACE INTO meta (k, v) VALUES "
	    "('schema', ?)",
	[S_NOW] = SQL_NOW,
	/* Not used: the schema changes in one write transaction. */
	[S_LOCK] = SQL_LOCK,
	[S_LOCK_TAKE] = SQL_LOCK_TAKE,
	[S_LOCK_RENEW] = SQL_LOCK_RENEW,
	[S_UNLOCK] = SQL_UNLOCK,
	[S_CLAIM] = SQL_CLAIM,
	[S_CLAIM_READ] = SQL_CLAIM_READ,
	[S_BATCH_SELECT] = SQL_BATCH_SELECT,
	[S_BATCH_UPDATE] = SQL_BATCH_UPDATE,
	[S_BATCH_FREE] = SQL_BATCH_FREE,
	[S_BATCH_MINE] = SQL_BATCH_MINE,
	[S_CLAIM_NOTE] = SQL_CLAIM_NOTE " ON CONFLICT (fire, job) DO UPDATE "
	    "SET node = excluded.node, claimed_at = excluded.claimed_at",
	[S_JOB_UPSERT] = SQL_JOB_INSERT " ON CONFLICT (id) DO UPDATE SET "
	    "owner = excluded.owner, sched = excluded.sched, "
	    "zone = excluded.zone, cmd = excluded.cmd, "
	    "scope = excluded.scope, overlap = excluded.overlap, "
	    "misfire = excluded.misfire, grace = excluded.grace, "
	    "digest = excluded.digest, name = excluded.name "
	    "WHERE digest IS NOT excluded.digest",
	[S_JOB_DIGESTS] = SQL_JOB_DIGESTS,
	/* Not used: writers take turns already (BEGIN IMMEDIATE). */
	[S_JOBS_LOCK] = SQL_JOBS_LOCK,
	[S_JOBS_LOCK_ADD] = SQL_JOBS_LOCK_ADD,
	[S_JOBS_RENEW] = SQL_JOBS_RENEW,
	[S_JOBS_UNLOCK] = SQL_JOBS_UNLOCK,
	[S_HOLDS_MINE] = SQL_HOLDS_MINE,
	[S_JOBS_PAGE] = SQL_JOBS_PAGE,
	[S_HOLDS_ORPHAN] = SQL_HOLDS_ORPHAN,
	[S_HOLD_ADD] = SQL_HOLD_ADD,
	[S_HOLD_DROP] = SQL_HOLD_DROP,
	[S_GONE_KEEP] = SQL_GONE_KEEP,
	[S_JOBS_UNHELD] = SQL_JOBS_UNHELD,
	[S_GONE_LIST] = SQL_GONE_LIST,
	[S_GONE_TRIM] = SQL_GONE_TRIM,
	[S_JOB_PAUSE] = SQL_JOB_PAUSE,
	[S_JOBS_LIST] = SQL_JOBS_LIST,
	[S_JOBS_OWNER] = SQL_JOBS_OWNER,
	[S_JOB_GET] = SQL_JOB_GET,
	[S_JOBS_FIRED] = SQL_JOBS_FIRED,
	[S_JOBS_FIRED_OWNER] = SQL_JOBS_FIRED_OWNER,
	[S_RUN_INSERT] = SQL_RUN_INSERT,
	[S_RUN_FIND] = SQL_RUN_FIND,
	[S_RUN_FAIL] = SQL_RUN_FAIL,
	[S_RUN_END] = SQL_RUN_END,
	[S_FIRE_NOTE] = SQL_FIRE_NOTE,
	[S_RUNS_LIST] = SQL_RUNS_LIST,
	[S_RUNS_JOB] = SQL_RUNS_JOB,
	[S_RUNS_RUNNING] = SQL_RUNS_RUNNING,
	[S_RUNS_RUNNING_NODE] = SQL_RUNS_RUNNING_NODE,
	[S_JOB_BUSY] = SQL_JOB_BUSY,
	[S_FIRE_RECORDED] = SQL_FIRE_RECORDED,
	[S_RUN_FILL] = SQL_RUN_FILL,
	[S_JOB_INFLIGHT] = SQL_JOB_INFLIGHT,
	[S_RUNS_LATEST] = SQL_RUNS_LATEST,
	[S_BEAT_READ] = SQL_BEAT_READ,
	[S_BEAT] = SQL_BEAT_INSERT " ON CONFLICT (name) DO UPDATE SET "
	    "started = CASE WHEN ? THEN excluded.started ELSE started END, "
	    "beat = excluded.beat, skew = excluded.skew, "
	    "running = excluded.running, db = excluded.db, "
	    "db_state = excluded.db_state, cover_from = excluded.cover_from, "
	    "cover_to = excluded.cover_to, cover_view = excluded.cover_view, "
	    "cover_jobs = excluded.cover_jobs",
	[S_NODE_DRAIN] = SQL_NODE_DRAIN,
	[S_NODES_LIST] = SQL_NODES_LIST,
	[S_CLAIMS_LIST] = SQL_CLAIMS_LIST,
	[S_CLAIMS_SPAN] = SQL_CLAIMS_SPAN,
	[S_SWEEP_CLAIM] = SQL_SWEEP_CLAIM,
	[S_UNRUN_MINE] = SQL_UNRUN_MINE,
	[S_UNRUN_DEAD] = SQL_UNRUN_DEAD,
	[S_LOST_FIND] = SQL_LOST_FIND,
	[S_RUN_LOSE] = SQL_RUN_LOSE,
	[S_LOST_MINE] = SQL_LOST_MINE,
	[S_LEASE_UPDATE] = SQL_LEASE_UPDATE,
	[S_LEASE_INSERT] = SQL_LEASE_INSERT,
	[S_LEASE_READ] = SQL_LEASE_READ,
	[S_LEASE_DROP] = SQL_LEASE_DROP,
	[S_TRIM_AGE] = SQL_TRIM_AGE,
	[S_TRIM_IDS] = SQL_TRIM_IDS,
	[S_TRIM_JOBS] = SQL_TRIM_JOBS,
	[S_TRIM_OWNERS] = SQL_TRIM_OWNERS,
	[S_TRIM_USER_SUM] = SQL_TRIM_USER_SUM,
	[S_TRIM_JOB] = SQL_TRIM_JOB,
	[S_TRIM_USER] = SQL_TRIM_USER,
	[S_TRIM_CLAIMS_AGE] = SQL_TRIM_CLAIMS_AGE,
	[S_TRIM_CLAIMS_CUT] = SQL_TRIM_CLAIMS_CUT,
	[S_TRIM_CLAIMS_FIRE] = SQL_TRIM_CLAIMS_FIRE,
	[S_TABLE_GET] = SQL_TABLE_GET,
	[S_TABLE_INSERT] = SQL_TABLE_INSERT,
	[S_TABLE_UPDATE] = SQL_TABLE_UPDATE,
	[S_TABLES_LIST] = SQL_TABLES_LIST,
	[S_AT_INSERT] = SQL_AT_INSERT,
	[S_AT_BY_TOKEN] = SQL_AT_BY_TOKEN,
	[S_AT_BY_KEY] = SQL_AT_BY_KEY,
	[S_AT_PENDING] = SQL_AT_PENDING,
	[S_AT_GET] = SQL_AT_GET,
	[S_AT_LIST] = SQL_AT_LIST,
	[S_AT_LIST_ALL] = SQL_AT_LIST_ALL,
	[S_AT_LIST_OWNER] = SQL_AT_LIST_OWNER,
	[S_AT_LIST_OWNER_ALL] = SQL_AT_LIST_OWNER_ALL,
	[S_AT_DUE] = SQL_AT_DUE,
	[S_AT_PEEK] = SQL_AT_PEEK,
	[S_AT_CANCEL] = SQL_AT_CANCEL,
	[S_AT_CLAIM] = SQL_AT_CLAIM,
	[S_AT_RUN_INSERT] = SQL_AT_RUN_INSERT,
	[S_AT_RUN_FIND] = SQL_AT_RUN_FIND,
	[S_AT_RUN_LOSE] = SQL_AT_RUN_LOSE,
	[S_AT_MOVE] = SQL_AT_MOVE,
	[S_AT_TRIM] = SQL_AT_TRIM,
	[S_AT_LOST] = SQL_AT_LOST,
	[S_AT_NEXT] = SQL_AT_NEXT,
	[S_AT_RUN_NOSTART] = SQL_AT_RUN_NOSTART,
	[S_AT_HEADS] = SQL_AT_HEADS,
	[S_HOLDS_SHARED] = SQL_HOLDS_SHARED,
	/* No server: nothing counted. */
	[S_QUESTIONS] = "SELECT -1",
};

/* The unit each statement's "%R" repeats. */
static const char *
sq_unit(enum stmt s)
{
	if (s == S_JOB_UPSERT)
		return (SQL_JOB_ROW);
	return (s == S_HOLD_ADD ? SQL_HOLD_ROW : "?");
}

static const char *const sq_step0[] = {
	"CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, "
	    "v INTEGER NOT NULL)",
	NULL
};

/* Version 1: the first layout, kept to test migration from it. */
static const char *const sq_step1[] = {
	"CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
	    "sched TEXT NOT NULL, cmd TEXT NOT NULL, "
	    "last_fire INTEGER NOT NULL DEFAULT 0, claimed_by TEXT, "
	    "claimed_at INTEGER)",
	"CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, "
	    "job_id TEXT NOT NULL, fire INTEGER NOT NULL, node TEXT NOT NULL, "
	    "pid INTEGER NOT NULL, started INTEGER NOT NULL, ended INTEGER, "
	    "exit_status INTEGER, output BLOB)",
	"CREATE INDEX runs_job ON runs (job_id, fire)",
	"CREATE TABLE nodes (name TEXT PRIMARY KEY, beat INTEGER NOT NULL)",
	NULL
};

/*
 * Version 2: job options and pausing, attempts and states of runs with
 * one row per (job, fire, attempt), node state and skew, stored tables
 * and leases.
 */
static const char *const sq_step2[] = {
	"ALTER TABLE jobs ADD COLUMN zone TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE jobs ADD COLUMN scope INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN overlap INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN misfire INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN grace INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN paused INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE jobs ADD COLUMN digest INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE runs ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1",
	"ALTER TABLE runs ADD COLUMN state INTEGER NOT NULL DEFAULT 1",
	"ALTER TABLE runs ADD COLUMN sig INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE runs ADD COLUMN output_len INTEGER NOT NULL DEFAULT 0",
	"UPDATE runs SET state = 0 WHERE ended IS NULL",
	"UPDATE runs SET exit_status = -1 WHERE exit_status IS NULL",
	"UPDATE runs SET output_len = length(output) WHERE output IS NOT NULL",
	"DROP INDEX IF EXISTS runs_job",
	"CREATE UNIQUE INDEX runs_fire ON runs (job_id, fire, attempt)",
	"CREATE INDEX runs_state ON runs (state, node)",
	"ALTER TABLE nodes ADD COLUMN started INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN skew INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN state INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN running INTEGER NOT NULL DEFAULT 0",
	"CREATE TABLE ctables (owner TEXT PRIMARY KEY, body TEXT, "
	    "version INTEGER NOT NULL, updated INTEGER NOT NULL, "
	    "updated_by TEXT NOT NULL)",
	"CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, "
	    "expires INTEGER NOT NULL)",
	NULL
};

/*
 * Version 3: every claim, won by the conditional write on the job's
 * row, is also recorded in claims within the same transaction, so that
 * a node that lost the result learns it even after later fires moved
 * the row on.  The jobs' current claims are carried over.  Keyed by
 * fire first: the claims of one instant go to neighbouring rows (a
 * batch of claims dirties a page or two, not one page per job) and
 * trimming deletes a range.
 */
static const char *const sq_step3[] = {
	"CREATE TABLE claims (fire INTEGER NOT NULL, job TEXT NOT NULL, "
	    "node TEXT NOT NULL, claimed_at INTEGER NOT NULL, "
	    "PRIMARY KEY (fire, job)) WITHOUT ROWID",
	"INSERT OR IGNORE INTO claims (job, fire, node, claimed_at) "
	    "SELECT id, last_fire, claimed_by, COALESCE(claimed_at, 0) "
	    "FROM jobs WHERE last_fire > 0 AND claimed_by IS NOT NULL",
	NULL
};

/*
 * Version 4: a run is one row per (job, fire, attempt, node), since a
 * node-scope job runs on every node and each records its own run (a
 * cluster fire still has one run: only its claimant starts it); jobs
 * get the table's explicit name; a run marked lost names the node that
 * marked it, which tells that node the mark was its own when the
 * result of its write was lost.  Runs that could not start (state 5)
 * need no change.
 */
static const char *const sq_step4[] = {
	"ALTER TABLE jobs ADD COLUMN name TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE runs ADD COLUMN lost_by TEXT",
	"DROP INDEX IF EXISTS runs_fire",
	"CREATE UNIQUE INDEX runs_once ON runs (job_id, fire, attempt, node)",
	NULL
};

/*
 * Version 5: which node holds which job (holds), so that a job leaves
 * the store when no node's tables have it any longer, and what the
 * history needs of a job that left (jobs_gone).  Keyed by node first:
 * a node reads and replaces its own; the index by job tells whether
 * any node still holds one.  The jobs of an older store are taken to
 * be held by every node it knows, each of which lets go of those it
 * does not have when it next starts.
 */
static const char *const sq_step5[] = {
	"CREATE TABLE holds (node TEXT NOT NULL, job TEXT NOT NULL, "
	    "PRIMARY KEY (node, job)) WITHOUT ROWID",
	"CREATE INDEX holds_job ON holds (job)",
	"CREATE TABLE jobs_gone (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
	    "sched TEXT NOT NULL, zone TEXT NOT NULL, cmd TEXT NOT NULL, "
	    "name TEXT NOT NULL, gone INTEGER NOT NULL)",
	"INSERT OR IGNORE INTO holds (node, job) SELECT n.name, j.id "
	    "FROM nodes n, jobs j",
	NULL
};

/*
 * Version 6: one-shot jobs (store.h, store_at.c).  The id is the
 * table's own counter: AUTOINCREMENT, so that an id is never given
 * out again, even once the newest job is trimmed.  Pending jobs are
 * found by state and time; a token and an owner's key are unique (a
 * NULL key is no key, and NULLs are distinct).
 */
static const char *const sq_step6[] = {
	"CREATE TABLE atjobs (id INTEGER PRIMARY KEY AUTOINCREMENT, "
	    "owner TEXT NOT NULL, ukey TEXT, token TEXT NOT NULL, "
	    "queue TEXT NOT NULL, due INTEGER NOT NULL, "
	    "next_at INTEGER NOT NULL, state INTEGER NOT NULL DEFAULT 0, "
	    "attempt INTEGER NOT NULL DEFAULT 0, "
	    "retries INTEGER NOT NULL DEFAULT 0, "
	    "backoff TEXT NOT NULL DEFAULT '', "
	    "mail INTEGER NOT NULL DEFAULT 0, lost INTEGER NOT NULL DEFAULT 0, "
	    "umask INTEGER NOT NULL DEFAULT 18, cwd BLOB NOT NULL, "
	    "env BLOB NOT NULL, cmd BLOB NOT NULL, node TEXT NOT NULL, "
	    "claimed_by TEXT, claimed_at INTEGER, created INTEGER NOT NULL, "
	    "updated INTEGER NOT NULL)",
	"CREATE UNIQUE INDEX atjobs_token ON atjobs (token)",
	"CREATE UNIQUE INDEX atjobs_key ON atjobs (owner, ukey)",
	"CREATE INDEX atjobs_next ON atjobs (state, next_at)",
	NULL
};

/*
 * Version 7: which database server each node's heartbeat went through
 * and its state, for status (empty here: one file), and the token of
 * the lease that lets writers of jobs take turns on MariaDB.
 */
static const char *const sq_step7[] = {
	"ALTER TABLE nodes ADD COLUMN db TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE nodes ADD COLUMN db_state TEXT NOT NULL DEFAULT ''",
	"ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0",
	NULL
};

/*
 * Version 8: what trimming reads of every run (store_trim.c), in an
 * index of its own, so that the totals of each job and each user are
 * read from it alone and not from the rows, whose output comes first.
 */
static const char *const sq_step8[] = {
	"CREATE INDEX IF NOT EXISTS runs_trim ON runs (job_id, fire, state, "
	    "output_len)",
	NULL
};

/*
 * Version 9: what each node's heartbeat says it covered of the fires
 * it was the preferred claimant of (store.h); one node here, whose
 * cover nobody reads, but the schema is the same.
 */
static const char *const sq_step9[] = {
	"ALTER TABLE nodes ADD COLUMN cover_from INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN cover_to INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN cover_view INTEGER NOT NULL DEFAULT 0",
	"ALTER TABLE nodes ADD COLUMN cover_jobs INTEGER NOT NULL DEFAULT 0",
	NULL
};

static const char *const *const sq_steps[] = {
	sq_step0, sq_step1, sq_step2, sq_step3, sq_step4, sq_step5, sq_step6,
	sq_step7, sq_step8, sq_step9
};

static const char *const sq_seed[] = {
	SQL_SEED_JOB, SQL_SEED_RUNS, SQL_SEED_NODE, NULL
};

const struct store_ops store_sqlite_ops = {
	.o_name = "sqlite",
	.o_connect = sq_connect,
	.o_disconnect = sq_disconnect,
	.o_sever = sq_sever,
	.o_exec = sq_exec,
	.o_exec_sql = sq_exec_sql,
	.o_begin = sq_begin,
	.o_commit = sq_commit,
	.o_rollback = sq_rollback,
	.o_insert_id = sq_insert_id,
	.o_steps = sq_steps,
	.o_seed_v1 = sq_seed,
	.o_ddl_trx = 1,
	.o_max_list = 128,
	.o_pad_lists = 0,
	.o_max_rows = 256,
};

#ifdef CLUSTERCRON_TEST
/* The same on a database in memory (store_memory.c). */
const struct store_ops store_memory_ops = {
	.o_name = "memory",
	.o_connect = sq_connect,
	.o_disconnect = sq_disconnect,
	.o_sever = sq_sever,
	.o_exec = sq_exec,
	.o_exec_sql = sq_exec_sql,
	.o_begin = sq_begin,
	.o_commit = sq_commit,
	.o_rollback = sq_rollback,
	.o_insert_id = sq_insert_id,
	.o_steps = sq_steps,
	.o_seed_v1 = sq_seed,
	.o_ddl_trx = 1,
	.o_max_list = 128,
	.o_pad_lists = 0,
	.o_max_rows = 256,
};
#endif

static void
sq_error(struct store *st, int rc, const char *what, struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;
	const char		*msg;

	msg = be != NULL && be->db != NULL ? sqlite3_errmsg(be->db) :
	    sqlite3_errstr(rc);
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		/*
		 * A stale snapshot fails at once and is worth retrying;
		 * plain busy comes after the busy handler waited its fill.
		 */
		store_seterr(err, STORE_TRANSIENT, rc == SQLITE_BUSY_SNAPSHOT ||
		    (rc & 0xff) == SQLITE_LOCKED ? SE_RETRY : SE_WAITED, rc,
		    "sqlite %s: %s: %s", st->s_path, what, msg);
		break;
	case SQLITE_CONSTRAINT:
		store_seterr(err, STORE_CONFLICT, SE_DUP, rc,
		    "sqlite %s: %s: %s", st->s_path, what, msg);
		break;
	case SQLITE_ERROR:
		/* A store not made yet (store_schema.c asks). */
		store_seterr(err, STORE_FATAL, strncmp(msg, "no such table",
		    13) == 0 ? SE_NOTABLE : SE_OTHER, rc, "sqlite %s: %s: %s",
		    st->s_path, what, msg);
		break;
	default:
		store_seterr(err, STORE_FATAL, SE_OTHER, rc,
		    "sqlite %s: %s: %s", st->s_path, what, msg);
		break;
	}
}

/*
 * Wait for the lock in short naps until the timeout, so that a waiting
 * writer takes the lock soon after it is free: 200 to 400 microseconds
 * for the first twenty milliseconds or so, then 0.5 to 1.5 ms.  Shorter
 * naps only spend the holder's CPU on waking waiters.
 */
static int
sq_busy(void *arg, int count)
{
	struct sqlite_be	*be = arg;
	struct timespec		 ts;

	if (count == 0)
		be->busy_start = clock_mono();
	else if (clock_mono() - be->busy_start >= be->busy_timeout)
		return (0);
	ts.tv_sec = 0;
	ts.tv_nsec = count < 64 ? 200000L + (long)arc4random_uniform(200000) :
	    500000L + (long)arc4random_uniform(1000000);
	nanosleep(&ts, NULL);
	return (1);
}

/* The names SQLite gives the files beside the database. */
static const char *const sq_suffix[] = { "", "-wal", "-shm", "-journal" };
#define NSUFFIX	(sizeof(sq_suffix) / sizeof(sq_suffix[0]))

/*
 * Whether the directory open as dfd holds nothing but the files of the
 * database base: then it is the store's own, which may be made private
 * without taking anything from anyone.  0 or 1.
 */
static int
sq_own_dir(int dfd, const char *base)
{
	struct dirent	*de;
	DIR		*dp;
	size_t		 i, bl = strlen(base);
	int		 fd, own = 1;

	if ((fd = dup(dfd)) == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return (0);
	}
	while (own && (de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		own = 0;
		for (i = 0; i < NSUFFIX; i++)
			if (strncmp(de->d_name, base, bl) == 0 &&
			    strcmp(de->d_name + bl, sq_suffix[i]) == 0)
				own = 1;
	}
	closedir(dp);
	return (own);
}

/*
 * Make the store private before SQLite opens it (see the top of the
 * file).  The directories leading to it must let no one else replace
 * it (conf_check_dirs()).  Its own directory must be readable and
 * writable by its owner alone, who is root or the running user.  A
 * directory others may write is refused, as sshd refuses what others
 * could change: what they put there may already be in the way.  One
 * that others may only read, and that holds nothing but the store's
 * files, is the store's own and is made private (0755 becomes 0711),
 * as postfix makes its own directories private; any other that others
 * may read (/var/lib itself) is refused, since changing its mode would
 * take from others what is theirs.  A directory others
 * may only search (mode 0711) is kept: they can neither list it nor,
 * the files being private, read them.  The database and the files
 * beside it must be owned by root or the running user, and are made
 * mode 0600; a missing database is made so.  A database that is not a
 * regular file is left to SQLite, which refuses it.
 */
static int
sq_private(struct store *st, struct store_error *err)
{
	struct stat	 sb;
	char		 path[PATH_MAX], dir[PATH_MAX], name[NAME_MAX + 1];
	char		 why[PATH_MAX + 200];
	const char	*base;
	char		*slash;
	size_t		 i;
	int		 dfd = -1, fd, ret = -1;

	if (*st->s_path == '\0' || strcmp(st->s_path, ":memory:") == 0)
		return (0);
	/* SQLite follows a link to the database: so do the checks. */
	if (realpath(st->s_path, path) == NULL) {
		if (errno != ENOENT ||
		    strlcpy(path, st->s_path, sizeof(path)) >= sizeof(path)) {
			store_seterr(err, STORE_FATAL, SE_OTHER, errno,
			    "sqlite %s: %s", st->s_path, strerror(errno));
			return (-1);
		}
	}
	if ((slash = strrchr(path, '/')) == NULL) {
		strlcpy(dir, ".", sizeof(dir));
		base = path;
	} else if (slash == path) {
		strlcpy(dir, "/", sizeof(dir));
		base = slash + 1;
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		base = slash + 1;
	}
	if (*base == '\0' || strlen(base) + 9 > NAME_MAX)
		return (0);	/* SQLite says what is wrong with it */
	if (conf_check_dirs(path, why, sizeof(why)) == -1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EPERM,
		    "sqlite %s: %s", st->s_path, why);
		return (-1);
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fstat(dfd, &sb) == -1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, errno,
		    "sqlite %s: %s: %s", st->s_path, dir, strerror(errno));
		goto out;
	}
	if ((sb.st_mode & 022) == 0 && (sb.st_mode & 044) != 0 &&
	    sq_own_dir(dfd, base) && fchmod(dfd, sb.st_mode & 07711) == 0)
		sb.st_mode &= 07711;
	if ((sb.st_mode & 066) != 0) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EPERM,
		    "sqlite %s: directory %s is %s by group or others (mode "
		    "%04o), who could read or replace the store: give the "
		    "store a directory of its own", st->s_path, dir,
		    (sb.st_mode & 022) != 0 ? "writable" : "readable",
		    (unsigned int)(sb.st_mode & 07777));
		goto out;
	}
	for (i = 0; i < NSUFFIX; i++) {
		snprintf(name, sizeof(name), "%s%s", base, sq_suffix[i]);
		if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT)
				goto fail;
			if (i > 0)
				continue;
			/* A new store is private from its first byte. */
			if ((fd = openat(dfd, name, O_WRONLY | O_CREAT |
			    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 &&
			    errno != EEXIST)
				goto fail;
			if (fd != -1)
				close(fd);
			if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
				goto fail;
		}
		if (!S_ISREG(sb.st_mode)) {
			if (i == 0)
				break;
			store_seterr(err, STORE_FATAL, SE_OTHER, EPERM,
			    "sqlite %s: %s/%s: not a regular file",
			    st->s_path, dir, name);
			goto out;
		}
		if (sb.st_uid != 0 && sb.st_uid != geteuid()) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EPERM,
			    "sqlite %s: %s/%s: owned by uid %ju, neither root "
			    "nor the running user", st->s_path, dir, name,
			    (uintmax_t)sb.st_uid);
			goto out;
		}
		if ((sb.st_mode & 077) != 0 &&
		    fchmodat(dfd, name, sb.st_mode & 0600, 0) == -1)
			goto fail;
	}
	ret = 0;
	goto out;
fail:
	store_seterr(err, STORE_FATAL, SE_OTHER, errno, "sqlite %s: %s/%s: %s",
	    st->s_path, dir, name, strerror(errno));
out:
	if (dfd != -1)
		close(dfd);
	return (ret);
}

static int
sq_connect(struct store *st, struct store_error *err)
{
	struct sqlite_be	*be;
	int			 rc;

	if (st->s_be == NULL &&
	    (st->s_be = calloc(1, sizeof(struct sqlite_be))) == NULL) {
		lk_nomem(err);
		return (-1);
	}
	be = st->s_be;
	memset(be, 0, sizeof(*be));
	be->busy_timeout = st->s_busy_timeout;
#ifdef CLUSTERCRON_TEST
	if (st->s_ops == &store_memory_ops) {
		if (lk_memory_open(st->s_path, &be->db, err) == -1)
			return (-1);
	} else
#endif
	if (sq_private(st, err) == -1)
		return (-1);
	else if ((rc = sqlite3_open_v2(st->s_path, &be->db,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	    NULL)) != SQLITE_OK) {
		sq_error(st, rc, "open", err);
		sq_disconnect(st);
		return (-1);
	}
	sqlite3_extended_result_codes(be->db, 1);
	sqlite3_busy_handler(be->db, sq_busy, be);
	/*
	 * A small page cache: the daemon's working set is a few rows per
	 * fire, and the default 2 MB per connection is as much as the
	 * daemon's whole schedule of 100,000 jobs.
	 */
	if (sq_exec_sql(st, "PRAGMA journal_mode = WAL", err) == -1 ||
	    sq_exec_sql(st, "PRAGMA synchronous = FULL", err) == -1 ||
	    sq_exec_sql(st, "PRAGMA cache_size = -256", err) == -1 ||
	    sq_exec_sql(st, "PRAGMA foreign_keys = OFF", err) == -1) {
		sq_disconnect(st);
		return (-1);
	}
	return (0);
}

static void
sq_disconnect(struct store *st)
{
	struct sqlite_be	*be = st->s_be;
	size_t			 i, j;

	if (be == NULL || be->db == NULL)
		return;
	for (i = 0; i < S_COUNT; i++)
		for (j = 0; j < NCLASS; j++) {
			sqlite3_finalize(be->stmts[i][j]);
			be->stmts[i][j] = NULL;
		}
	for (i = 0; i < NBATCH; i++)
		for (j = 0; j <= NODD; j++) {
			sqlite3_finalize(be->odd[i][j]);
			be->odd[i][j] = NULL;
		}
	sqlite3_finalize(be->begin);
	sqlite3_finalize(be->commit);
	be->begin = be->commit = NULL;
	sqlite3_close_v2(be->db);
	be->db = NULL;
#ifdef CLUSTERCRON_TEST
	if (st->s_ops == &store_memory_ops)
		lk_memory_closed(st->s_path);
#endif
}

/* A file has no connection to lose: closing it stands in for that. */
static void
sq_sever(struct store *st)
{
	sq_disconnect(st);
}

static int
sq_lost(struct store *st, struct store_error *err)
{
	store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
	    "sqlite %s: not open", st->s_path);
	return (-1);
}

static unsigned int
sq_class(size_t n)
{
	unsigned int	 c = 0;

	while (((size_t)1 << c) < n)
		c++;
	return (c);
}

/* Expand "%R" into n copies of the unit, comma-separated. */
static char *
sq_expand(const char *text, const char *unit, size_t n)
{
	const char	*r;
	char		*out, *p;
	size_t		 ul = strlen(unit), len, i;

	if ((r = strstr(text, "%R")) == NULL)
		return (strdup(text));
	len = strlen(text) + n * (ul + 2);
	if ((out = malloc(len)) == NULL)
		return (NULL);
	p = out;
	memcpy(p, text, r - text);
	p += r - text;
	for (i = 0; i < n; i++) {
		if (i > 0) {
			*p++ = ',';
			*p++ = ' ';
		}
		memcpy(p, unit, ul);
		p += ul;
	}
	strlcpy(p, r + 2, len - (p - out));
	return (out);
}

static sqlite3_stmt *
sq_stmt(struct store *st, enum stmt s, size_t n, struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;
	sqlite3_stmt		*stmt, **slot;
	unsigned int		 c = n == 0 ? 0 : sq_class(n);
	char			*text;
	int			 rc;

	if (n != 0 && ((size_t)1 << c) != n &&
	    s >= S_BATCH_SELECT && s <= S_CLAIM_NOTE && n <= NODD)
		slot = &be->odd[s - S_BATCH_SELECT][n];
	else if (c >= NCLASS || (n != 0 && ((size_t)1 << c) != n)) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "sqlite: list of %zu items", n);
		return (NULL);
	} else
		slot = &be->stmts[s][c];
	if ((stmt = *slot) != NULL)
		return (stmt);
	if ((text = sq_expand(sq_text[s], sq_unit(s), n == 0 ? 1 : n)) ==
	    NULL) {
		lk_nomem(err);
		return (NULL);
	}
	rc = sqlite3_prepare_v3(be->db, text, -1, SQLITE_PREPARE_PERSISTENT,
	    &stmt, NULL);
	free(text);
	if (rc != SQLITE_OK) {
		sq_error(st, rc, "prepare", err);
		return (NULL);
	}
	*slot = stmt;
	return (stmt);
}

static int
sq_exec(struct store *st, enum stmt s, size_t n, const struct sval *p,
    size_t np, store_row_fn row, void *arg, int64_t *changed,
    struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;
	sqlite3_stmt		*stmt;
	struct sval		 cols[24];
	size_t			 i, nc;
	int			 rc, ret = -1;

	if (be == NULL || be->db == NULL)
		return (sq_lost(st, err));
	if ((stmt = sq_stmt(st, s, n, err)) == NULL)
		return (-1);
	for (i = 0; i < np; i++) {
		switch (p[i].v_type) {
		case SV_NULL:
			rc = sqlite3_bind_null(stmt, (int)i + 1);
			break;
		case SV_INT:
			rc = sqlite3_bind_int64(stmt, (int)i + 1, p[i].v_int);
			break;
		case SV_TEXT:
			rc = sqlite3_bind_text(stmt, (int)i + 1, p[i].v_str,
			    (int)p[i].v_len, SQLITE_STATIC);
			break;
		case SV_BLOB:
		default:
			rc = sqlite3_bind_blob(stmt, (int)i + 1, p[i].v_str,
			    (int)p[i].v_len, SQLITE_STATIC);
			break;
		}
		if (rc != SQLITE_OK) {
			sq_error(st, rc, "bind", err);
			goto out;
		}
	}
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (row == NULL)
			continue;
		nc = (size_t)sqlite3_column_count(stmt);
		if (nc > sizeof(cols) / sizeof(cols[0]))
			nc = sizeof(cols) / sizeof(cols[0]);
		for (i = 0; i < nc; i++) {
			memset(&cols[i], 0, sizeof(cols[i]));
			switch (sqlite3_column_type(stmt, (int)i)) {
			case SQLITE_NULL:
				cols[i].v_type = SV_NULL;
				break;
			case SQLITE_INTEGER:
			case SQLITE_FLOAT:
				cols[i].v_type = SV_INT;
				cols[i].v_int = sqlite3_column_int64(stmt,
				    (int)i);
				break;
			case SQLITE_TEXT:
				cols[i].v_type = SV_TEXT;
				cols[i].v_str = (const char *)
				    sqlite3_column_text(stmt, (int)i);
				cols[i].v_len = (size_t)
				    sqlite3_column_bytes(stmt, (int)i);
				break;
			default:
				cols[i].v_type = SV_BLOB;
				cols[i].v_str = sqlite3_column_blob(stmt,
				    (int)i);
				cols[i].v_len = (size_t)
				    sqlite3_column_bytes(stmt, (int)i);
				break;
			}
		}
		if ((rc = row(arg, cols, nc)) != 0) {
			lk_row_error(rc, s, nc, err);
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		sq_error(st, rc, "step", err);
		goto out;
	}
	if (changed != NULL)
		*changed = sqlite3_changes(be->db);
	ret = 0;
out:
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return (ret);
}

static int
sq_exec_sql(struct store *st, const char *sql, struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;
	int			 rc;

	if (be == NULL || be->db == NULL)
		return (sq_lost(st, err));
	if ((rc = sqlite3_exec(be->db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		sq_error(st, rc, "exec", err);
		return (-1);
	}
	return (0);
}

/* BEGIN IMMEDIATE and COMMIT, prepared once: they run at every write. */
static int
sq_simple(struct store *st, sqlite3_stmt **stp, const char *sql,
    struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;
	int			 rc;

	if (be == NULL || be->db == NULL)
		return (sq_lost(st, err));
	if (*stp == NULL && (rc = sqlite3_prepare_v3(be->db, sql, -1,
	    SQLITE_PREPARE_PERSISTENT, stp, NULL)) != SQLITE_OK) {
		sq_error(st, rc, "prepare", err);
		return (-1);
	}
	rc = sqlite3_step(*stp);
	sqlite3_reset(*stp);
	if (rc != SQLITE_DONE) {
		sq_error(st, rc, sql, err);
		return (-1);
	}
	return (0);
}

static int
sq_begin(struct store *st, struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;

	return (sq_simple(st, be == NULL ? NULL : &be->begin,
	    "BEGIN IMMEDIATE", err));
}

static int
sq_commit(struct store *st, struct store_error *err)
{
	struct sqlite_be	*be = st->s_be;

	return (sq_simple(st, be == NULL ? NULL : &be->commit, "COMMIT",
	    err));
}

static void
sq_rollback(struct store *st)
{
	struct sqlite_be	*be = st->s_be;

	if (be != NULL && be->db != NULL &&
	    !sqlite3_get_autocommit(be->db))
		(void)sqlite3_exec(be->db, "ROLLBACK", NULL, NULL, NULL);
}

static int64_t
sq_insert_id(struct store *st)
{
	struct sqlite_be	*be = st->s_be;

	return (be != NULL && be->db != NULL ?
	    sqlite3_last_insert_rowid(be->db) : 0);
}
