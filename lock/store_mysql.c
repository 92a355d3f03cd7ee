/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_mysql.c: the MySQL/MariaDB backend, the store of a cluster.
 * Credentials come only from the option file and group named in the
 * configuration, read by the client library itself as the mysql tools
 * read them; this file never sees a password on a command line or in
 * a URL, and wipes the copies the library keeps once connected (it
 * reconnects by connecting afresh, reading the file again).
 *
 * Sessions run in READ COMMITTED, autocommit on, so no gap locks are
 * taken; a claim is a short transaction by primary key (the conditional
 * UPDATE of the job's row and, when it won, the INSERT of its claims
 * row).  CLIENT_FOUND_ROWS stays off: affected rows count rows changed,
 * and a claim changes last_fire whenever it matches, so one changed row
 * means the claim won.  Durability is the server's (leave
 * innodb_flush_log_at_trx_commit at 1: see clustercron.conf(5)).
 *
 * Which servers.  A URL may name several servers, those of one Galera
 * cluster: they are tried in turn, and a connection is made only to a
 * server that may be used (my_usable()): a Galera node ready, Synced
 * (or, when no server is, Donor/Desynced) and in the primary component,
 * without settings that would let a minority go on; any other server
 * only if it is a primary whose commits no fail-over can lose (no
 * replica, not read-only, no asynchronous replicas it can see).  The
 * same is asked again every CHECK_EVERY ms of use (store.c), and errors
 * that mean the server left the primary component (1047, 1180) drop
 * the connection, so that the store moves on to the next server.
 *
 * Galera.  Every claim is one transaction whose COMMIT decides it: a
 * losing claim through another server fails certification, at COMMIT
 * or at a statement, with 1213 (a deadlock, retried by store.c with the
 * same conditional write, never committed after it: see store.c), and
 * reads that decide something are causal (my_causal[], below).  The
 * schema and the jobs' writers take turns through rows, not named
 * locks (store_schema.c, store_jobs.c), and DDL runs only to migrate.
 */

#include <sys/socket.h>

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mysql.h>
#include <errmsg.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define NOW	"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
#define INSERT_IGNORE	"INSERT IGNORE"
#define REPLACE_INTO	"REPLACE INTO"
#define AT_RUNJOB(col)	"CONCAT('at:', " col ")"
#define AT_RUNKEY(col)	\
	"CONVERT(CONCAT('at:', " col ") USING ascii) COLLATE ascii_bin"
#define LEAST	"LEAST"
#define GREATEST	"GREATEST"
#include "store_sql.h"

#define NCLASS	10	/* list lengths 1, 2, 4, ... 512 */
#define NCOLS	24
#define BUFLEN	288	/* bytes per text column before fetching more */
#define VALLEN	64	/* bytes kept of a server variable's value */

struct mysql_be {
	MYSQL		*m;
	MYSQL_STMT	*stmts[S_COUNT][NCLASS];
	MYSQL_STMT	*last;
	int		 galera;	/* the server is a Galera node */
};

/* What my_usable() reads of a server. */
struct server {
	char	 wsrep_on[VALLEN], provider[VALLEN], node_name[VALLEN];
	char	 read_only[VALLEN], super_read_only[VALLEN];
	char	 innodb_read_only[VALLEN];
	char	 ss_enabled[VALLEN], ss_wait_point[VALLEN];
	char	 binlog_format[VALLEN];
	int	 ignore_sb, ignore_quorum;
	char	 ready[VALLEN], state[VALLEN], comment[VALLEN];
	char	 cluster_status[VALLEN], cluster_size[VALLEN];
	char	 slaves_running[VALLEN], slaves_connected[VALLEN];
	char	 ss_status[VALLEN];
};

/* What my_usable() concludes. */
enum usable {
	U_YES,		/* use it */
	U_SECOND,	/* use it if no other server will do (Desynced) */
	U_NOT_NOW,	/* not now: not in the primary component, joining */
	U_NEVER		/* a set-up that is not safe: refused */
};

static int	 my_connect(struct store *, struct store_error *);
static void	 my_disconnect(struct store *);
static void	 my_sever(struct store *);
static int	 my_exec(struct store *, enum stmt, size_t,
		    const struct sval *, size_t, store_row_fn, void *,
		    int64_t *, struct store_error *);
static int	 my_idle_trx(struct store *, struct store_error *);
static int	 my_exec_sql(struct store *, const char *,
		    struct store_error *);
static int	 my_begin(struct store *, struct store_error *);
static int	 my_commit(struct store *, struct store_error *);
static void	 my_rollback(struct store *);
static int64_t	 my_insert_id(struct store *);
static int	 my_connect_one(struct store *, size_t, int, enum usable *,
		    struct store_error *);
static int	 my_check(struct store *, struct store_error *);
static int	 my_show(MYSQL *, const char *, struct server *);
static void	 my_take(struct server *, const char *, const char *);
static int	 my_engines(MYSQL *, const char *, char *, size_t);
static void	 say(char *, size_t, const char *, ...)
		    __attribute__((__format__ (printf, 3, 4)));
static enum usable my_usable(struct store *, int, char *, size_t);
static const char *my_where(struct store *, char *, size_t);
static int	 my_kind(unsigned int);
static void	 my_seterr(struct store *, unsigned int, const char *,
		    const char *, struct store_error *);
static void	 my_err(struct store *, const char *, struct store_error *);
static void	 my_stmt_err(struct store *, MYSQL_STMT *, const char *,
		    struct store_error *);
static void	 my_fetch_err(struct store *, MYSQL_STMT *,
		    struct store_error *);
static void	 wipe(char *);
static int	 my_lost(struct store *, struct store_error *);
static const char *my_unit(enum stmt);
static unsigned int	 my_class(size_t);
static char	*my_expand(const char *, const char *, size_t, int);
static MYSQL_STMT *my_stmt(struct store *, enum stmt, size_t,
		    struct store_error *);
static int	 is_int_type(enum enum_field_types);

static const char *const my_text[S_COUNT] = {
	[S_META_GET] = SQL_META_GET,
	[S_META_SET] = "REPLACE INTO meta (k, v) VALUES ('schema', ?)",
	[S_NOW] = SQL_NOW,
	[S_LOCK] = SQL_LOCK,
	[S_LOCK_TAKE] = SQL_LOCK_TAKE,
	[S_LOCK_RENEW] = SQL_LOCK_RENEW,
	[S_UNLOCK] = SQL_UNLOCK,
	[S_CLAIM] = SQL_CLAIM,
	[S_CLAIM_READ] = SQL_CLAIM_READ,
	[S_BATCH_SELECT] = SQL_BATCH_SELECT " FOR UPDATE SKIP LOCKED",
	[S_BATCH_UPDATE] = SQL_BATCH_UPDATE,
	[S_BATCH_FREE] = SQL_BATCH_FREE,
	/*
	 * A locking read: a batch of ours whose connection was cut may
	 * still be committing its claims rows; wait for it to end.
	 */
	[S_BATCH_MINE] = SQL_BATCH_MINE " LOCK IN SHARE MODE",
	[S_CLAIM_NOTE] = SQL_CLAIM_NOTE " ON DUPLICATE KEY UPDATE "
	    "node = VALUES(node), claimed_at = VALUES(claimed_at)",
	[S_JOB_UPSERT] = SQL_JOB_INSERT " ON DUPLICATE KEY UPDATE "
	    "owner = VALUES(owner), sched = VALUES(sched), "
	    "zone = VALUES(zone), cmd = VALUES(cmd), scope = VALUES(scope), "
	    "overlap = VALUES(overlap), misfire = VALUES(misfire), "
	    "grace = VALUES(grace), digest = VALUES(digest), "
	    "name = VALUES(name)",
	[S_JOB_DIGESTS] = SQL_JOB_DIGESTS,
	/* Writers of jobs and holds take turns (store_jobs.c says why). */
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
	[S_BEAT] = SQL_BEAT_INSERT " ON DUPLICATE KEY UPDATE "
	    "started = IF(?, VALUES(started), started), "
	    "beat = VALUES(beat), skew = VALUES(skew), "
	    "running = VALUES(running), db = VALUES(db), "
	    "db_state = VALUES(db_state), cover_from = VALUES(cover_from), "
	    "cover_to = VALUES(cover_to), cover_view = VALUES(cover_view), "
	    "cover_jobs = VALUES(cover_jobs)",
	[S_NODE_DRAIN] = SQL_NODE_DRAIN,
	[S_NODES_LIST] = SQL_NODES_LIST,
	[S_CLAIMS_LIST] = SQL_CLAIMS_LIST,
	[S_CLAIMS_SPAN] = SQL_CLAIMS_SPAN,
	[S_SWEEP_CLAIM] = SQL_SWEEP_CLAIM,
	[S_UNRUN_MINE] = SQL_UNRUN_MINE,
	[S_UNRUN_DEAD] = SQL_UNRUN_DEAD,
	[S_LOST_FIND] = SQL_LOST_FIND,
	[S_RUN_LOSE] = SQL_RUN_LOSE,
	/*
	 * A locking read: a transaction of ours whose connection was cut
	 * may still be committing its marks; wait for it to end.
	 */
	[S_LOST_MINE] = SQL_LOST_MINE " LOCK IN SHARE MODE",
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
	[S_QUESTIONS] = "SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM "
	    "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = "
	    "'QUESTIONS'",
};

/*
 * Causal reads.  A Galera server applies the other servers' write sets
 * a moment after they commit, so a plain read there may miss what
 * another node has just committed through another server.  On a
 * Galera node the statements below are sent as "SET STATEMENT
 * wsrep_sync_wait = N FOR ...": the server first applies everything
 * committed cluster-wide before the statement began (N = 1 for a
 * SELECT, 4 for the SELECT inside an INSERT), or fails with 1205 when
 * it cannot catch up in time (repl.causal_read_timeout), which the
 * caller takes as "cannot tell": a claim stays in doubt.  The
 * conditional writes need none of it: a write that matched a stale row
 * conflicts, at certification, with the write set it had not seen, and
 * one that matched nothing lost or missed, never won twice.
 */
static const unsigned char my_causal[S_COUNT] = {
	/* Whose a claim is: a claim in doubt, a batch's own claims. */
	[S_CLAIM_READ] = 1,
	[S_BATCH_MINE] = 1,
	/* Which jobs a batch tries, and which it should try alone. */
	[S_BATCH_SELECT] = 1,
	[S_BATCH_FREE] = 1,
	/* Whether every live node holds this node's jobs. */
	[S_HOLDS_SHARED] = 1,
	/* A fire won long ago, perhaps taken for lost meanwhile. */
	[S_FIRE_RECORDED] = 1,
	/* Overlap: a run still running, a claim not yet recorded. */
	[S_JOB_BUSY] = 1,
	[S_JOB_INFLIGHT] = 1,
	/*
	 * Lost runs: which nodes are silent (their last heartbeat, written
	 * through another server, must not look older than it is) and
	 * which of their runs still run; which of them this node marked;
	 * the runs of its earlier life; whether a lost fire was rerun.
	 */
	[S_LOST_FIND] = 1,
	[S_LOST_MINE] = 1,
	[S_RUNS_RUNNING_NODE] = 1,
	[S_RUNS_JOB] = 1,
	/* Claims left without a record (INSERT ... SELECT). */
	[S_UNRUN_MINE] = 4,
	[S_UNRUN_DEAD] = 4,
	/* The sweep after nodes died: the claims left, the holes. */
	[S_CLAIMS_SPAN] = 1,
	[S_SWEEP_CLAIM] = 4,
	/* The misfire pass: the jobs' last fires. */
	[S_JOBS_LIST] = 1,
	[S_JOB_GET] = 1,
	/* The heartbeat: draining; leases; the schema's version. */
	[S_BEAT_READ] = 1,
	[S_LEASE_READ] = 1,
	[S_META_GET] = 1,
	/* Registering: the digests stored and this node's holds. */
	[S_JOB_DIGESTS] = 1,
	[S_HOLDS_MINE] = 1,
	/* A run's own row, found after its duplicate key. */
	[S_RUN_FIND] = 1,
	/* One-shot jobs: an attempt in doubt, those due, submissions. */
	[S_AT_PEEK] = 1,
	[S_AT_RUN_FIND] = 1,
	[S_AT_DUE] = 1,
	[S_AT_BY_TOKEN] = 1,
	[S_AT_BY_KEY] = 1,
	[S_AT_PENDING] = 1,
	/* Attempts whose run was marked lost: settled by their policy. */
	[S_AT_LOST] = 1,
	/* A table ctab edits: its version decides the next write. */
	[S_TABLE_GET] = 1,
};

#define ENGINE	" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
#define IDTYPE	"VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin"
#define NAMETYPE "VARCHAR(255)"

static const char *const my_step0[] = {
	"CREATE TABLE IF NOT EXISTS meta (k VARCHAR(64) PRIMARY KEY, "
	    "v BIGINT NOT NULL)" ENGINE,
	NULL
};

/*
 * DDL commits by itself in MariaDB, so every step can be run again
 * after a failure half-way (IF [NOT] EXISTS throughout).
 */
static const char *const my_step1[] = {
	"CREATE TABLE IF NOT EXISTS jobs (id " IDTYPE " PRIMARY KEY, "
	    "owner " NAMETYPE " NOT NULL, sched VARCHAR(255) NOT NULL, "
	    "cmd VARCHAR(1024) NOT NULL, last_fire BIGINT NOT NULL DEFAULT 0, "
	    "claimed_by " NAMETYPE ", claimed_at BIGINT)" ENGINE,
	"CREATE TABLE IF NOT EXISTS runs (id BIGINT AUTO_INCREMENT PRIMARY "
	    "KEY, job_id " IDTYPE " NOT NULL, fire BIGINT NOT NULL, "
	    "node " NAMETYPE " NOT NULL, pid INT NOT NULL, "
	    "started BIGINT NOT NULL, ended BIGINT, exit_status INT, "
	    "output MEDIUMBLOB, INDEX runs_job (job_id, fire))" ENGINE,
	"CREATE TABLE IF NOT EXISTS nodes (name " NAMETYPE " PRIMARY KEY, "
	    "beat BIGINT NOT NULL)" ENGINE,
	NULL
};

static const char *const my_step2[] = {
	/* Texts from tables are bytes: a command need not be UTF-8. */
	"ALTER TABLE jobs MODIFY owner VARBINARY(255) NOT NULL, "
	    "MODIFY sched VARBINARY(255) NOT NULL, "
	    "MODIFY cmd VARBINARY(1024) NOT NULL",
	"ALTER TABLE jobs ADD COLUMN IF NOT EXISTS zone VARBINARY(64) NOT NULL "
	    "DEFAULT '', "
	    "ADD COLUMN IF NOT EXISTS scope TINYINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS overlap TINYINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS misfire TINYINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS grace INT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS paused TINYINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS lease_until BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS digest BIGINT NOT NULL DEFAULT 0",
	"ALTER TABLE runs "
	    "ADD COLUMN IF NOT EXISTS attempt INT NOT NULL DEFAULT 1, "
	    "ADD COLUMN IF NOT EXISTS state TINYINT NOT NULL DEFAULT 1, "
	    "ADD COLUMN IF NOT EXISTS sig INT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS output_len BIGINT NOT NULL DEFAULT 0",
	"UPDATE runs SET state = 0 WHERE ended IS NULL AND state = 1",
	"UPDATE runs SET exit_status = -1 WHERE exit_status IS NULL",
	"UPDATE runs SET output_len = LENGTH(output) WHERE output IS NOT NULL",
	"ALTER TABLE runs DROP INDEX IF EXISTS runs_job, "
	    "ADD UNIQUE INDEX IF NOT EXISTS runs_fire (job_id, fire, attempt), "
	    "ADD INDEX IF NOT EXISTS runs_state (state, node)",
	"ALTER TABLE nodes "
	    "ADD COLUMN IF NOT EXISTS started BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS skew BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS state TINYINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS running INT NOT NULL DEFAULT 0",
	"CREATE TABLE IF NOT EXISTS ctables (owner " NAMETYPE " PRIMARY KEY, "
	    "body MEDIUMBLOB, version BIGINT NOT NULL, "
	    "updated BIGINT NOT NULL, updated_by " NAMETYPE " NOT NULL)"
	    ENGINE,
	"CREATE TABLE IF NOT EXISTS leases (name VARCHAR(64) PRIMARY KEY, "
	    "holder " NAMETYPE " NOT NULL, expires BIGINT NOT NULL)" ENGINE,
	NULL
};

/* Version 3: the claims, as in store_sqlite.c. */
static const char *const my_step3[] = {
	"CREATE TABLE IF NOT EXISTS claims (fire BIGINT NOT NULL, "
	    "job " IDTYPE " NOT NULL, node " NAMETYPE " NOT NULL, "
	    "claimed_at BIGINT NOT NULL, PRIMARY KEY (fire, job))" ENGINE,
	"INSERT IGNORE INTO claims (job, fire, node, claimed_at) "
	    "SELECT id, last_fire, claimed_by, COALESCE(claimed_at, 0) "
	    "FROM jobs WHERE last_fire > 0 AND claimed_by IS NOT NULL",
	NULL
};

/*
 * Version 4: runs per node, job names, and who marked a run lost, as in
 * store_sqlite.c.
 */
static const char *const my_step4[] = {
	"ALTER TABLE jobs ADD COLUMN IF NOT EXISTS name VARBINARY(255) "
	    "NOT NULL DEFAULT ''",
	"ALTER TABLE runs ADD COLUMN IF NOT EXISTS lost_by " NAMETYPE,
	"ALTER TABLE runs DROP INDEX IF EXISTS runs_fire, "
	    "ADD UNIQUE INDEX IF NOT EXISTS runs_once "
	    "(job_id, fire, attempt, node)",
	NULL
};

/* Version 5: holds and jobs_gone, as in store_sqlite.c. */
static const char *const my_step5[] = {
	"CREATE TABLE IF NOT EXISTS holds (node " NAMETYPE " NOT NULL, "
	    "job " IDTYPE " NOT NULL, PRIMARY KEY (node, job), "
	    "INDEX holds_job (job))" ENGINE,
	"CREATE TABLE IF NOT EXISTS jobs_gone (id " IDTYPE " PRIMARY KEY, "
	    "owner VARBINARY(255) NOT NULL, sched VARBINARY(255) NOT NULL, "
	    "zone VARBINARY(64) NOT NULL, cmd VARBINARY(1024) NOT NULL, "
	    "name VARBINARY(255) NOT NULL, gone BIGINT NOT NULL)" ENGINE,
	"INSERT IGNORE INTO holds (node, job) SELECT n.name, j.id "
	    "FROM nodes n CROSS JOIN jobs j",
	NULL
};

/*
 * Version 6: one-shot jobs, as in store_sqlite.c.  InnoDB keeps the
 * AUTO_INCREMENT counter across restarts (MariaDB 10.2.4 and later), so
 * an id is never given out twice.
 */
static const char *const my_step6[] = {
	"CREATE TABLE IF NOT EXISTS atjobs (id BIGINT AUTO_INCREMENT PRIMARY "
	    "KEY, owner VARBINARY(255) NOT NULL, ukey VARBINARY(128), "
	    "token " IDTYPE " NOT NULL, "
	    "queue CHAR(1) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, "
	    "due BIGINT NOT NULL, next_at BIGINT NOT NULL, "
	    "state TINYINT NOT NULL DEFAULT 0, attempt INT NOT NULL DEFAULT 0, "
	    "retries INT NOT NULL DEFAULT 0, "
	    "backoff VARBINARY(255) NOT NULL DEFAULT '', "
	    "mail TINYINT NOT NULL DEFAULT 0, lost TINYINT NOT NULL DEFAULT 0, "
	    "umask INT NOT NULL DEFAULT 18, cwd BLOB NOT NULL, "
	    "env MEDIUMBLOB NOT NULL, cmd MEDIUMBLOB NOT NULL, "
	    "node " NAMETYPE " NOT NULL, claimed_by " NAMETYPE ", "
	    "claimed_at BIGINT, created BIGINT NOT NULL, "
	    "updated BIGINT NOT NULL, UNIQUE INDEX atjobs_token (token), "
	    "UNIQUE INDEX atjobs_key (owner, ukey), "
	    "INDEX atjobs_next (state, next_at))" ENGINE,
	NULL
};

/*
 * Version 7: which database server each node's heartbeat went through
 * and its state, for status; the token of the lease that lets writers
 * of jobs take turns (store_jobs.c), which replaced a named lock.
 */
static const char *const my_step7[] = {
	"ALTER TABLE nodes ADD COLUMN IF NOT EXISTS db " NAMETYPE " NOT NULL "
	    "DEFAULT '', ADD COLUMN IF NOT EXISTS db_state VARCHAR(64) NOT "
	    "NULL DEFAULT ''",
	"ALTER TABLE leases ADD COLUMN IF NOT EXISTS token BIGINT NOT NULL "
	    "DEFAULT 0",
	NULL
};

/* Version 8: the index trimming reads, as in store_sqlite.c. */
static const char *const my_step8[] = {
	"ALTER TABLE runs ADD INDEX IF NOT EXISTS runs_trim "
	    "(job_id, fire, state, output_len)",
	NULL
};

/* Version 9: each node's cover, as in store_sqlite.c. */
static const char *const my_step9[] = {
	"ALTER TABLE nodes "
	    "ADD COLUMN IF NOT EXISTS cover_from BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS cover_to BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS cover_view BIGINT NOT NULL DEFAULT 0, "
	    "ADD COLUMN IF NOT EXISTS cover_jobs BIGINT NOT NULL DEFAULT 0",
	NULL
};

static const char *const *const my_steps[] = {
	my_step0, my_step1, my_step2, my_step3, my_step4, my_step5, my_step6,
	my_step7, my_step8, my_step9
};

static const char *const my_seed[] = {
	SQL_SEED_JOB, SQL_SEED_RUNS, SQL_SEED_NODE, NULL
};

const struct store_ops store_mysql_ops = {
	.o_name = "mysql",
	.o_connect = my_connect,
	.o_disconnect = my_disconnect,
	.o_sever = my_sever,
	.o_exec = my_exec,
	.o_exec_sql = my_exec_sql,
	.o_check = my_check,
	.o_begin = my_begin,
	.o_commit = my_commit,
	.o_rollback = my_rollback,
	.o_insert_id = my_insert_id,
	.o_steps = my_steps,
	.o_seed_v1 = my_seed,
	.o_ddl_trx = 0,
	.o_max_list = 128,
	.o_pad_lists = 1,
	.o_max_rows = 256,
};

/* Which errors mean what to store.c. */
static int
my_kind(unsigned int e)
{
	switch (e) {
	case 1213:	/* ER_LOCK_DEADLOCK */
	case 1317:	/* ER_QUERY_INTERRUPTED */
		return (SE_RETRY);
	case 1205:	/* ER_LOCK_WAIT_TIMEOUT */
		return (SE_WAITED);
	case 1062:	/* ER_DUP_ENTRY */
		return (SE_DUP);
	case 1146:	/* ER_NO_SUCH_TABLE: a store not made yet */
		return (SE_NOTABLE);
	case 1053:	/* ER_SERVER_SHUTDOWN */
	case 1927:	/* ER_CONNECTION_KILLED */
	case 4031:	/* ER_CLIENT_INTERACTION_TIMEOUT */
		return (SE_LOST);
	/*
	 * Galera: 1047 "WSREP has not yet prepared node for application
	 * use", the server is outside the primary component; 1180 "Got
	 * error 6 ... during COMMIT" (not connected to the primary
	 * component), a server that froze and was dropped.  Nothing was
	 * committed, but this server is no use: an outage of this
	 * connection, and another server may do.  So is a server that
	 * turned read-only (1290, 1792): a primary demoted.
	 */
	case 1047:	/* ER_UNKNOWN_COM_ERROR */
	case 1180:	/* ER_ERROR_DURING_COMMIT */
	case 1290:	/* ER_OPTION_PREVENTS_STATEMENT (read_only) */
	case 1792:	/* ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION */
		return (SE_LOST);
	}
	/* Client errors: the connection is gone or unusable. */
	if (e >= 2000 && e < 3000)
		return (SE_LOST);
	return (SE_OTHER);
}

static void
my_seterr(struct store *st, unsigned int e, const char *msg, const char *what,
    struct store_error *err)
{
	int		 kind = my_kind(e);
	enum store_class cls;
	char		 where[STORE_SERVERLEN + 8];

	switch (kind) {
	case SE_RETRY:
	case SE_WAITED:
	case SE_LOST:
		cls = STORE_TRANSIENT;
		break;
	case SE_DUP:
		cls = STORE_CONFLICT;
		break;
	default:
		cls = STORE_FATAL;
		break;
	}
	store_seterr(err, cls, kind, (int)e, "mysql %s%s: %s: %s (%u)",
	    st->s_db, my_where(st, where, sizeof(where)), what, msg, e);
}

/* " on HOST[:PORT]" when the URL names several servers, else "". */
static const char *
my_where(struct store *st, char *buf, size_t len)
{
	if (st->s_nhosts < 2)
		return ("");
	if (st->s_ports[st->s_cur] != 0)
		snprintf(buf, len, " on %s:%u", st->s_hosts[st->s_cur],
		    st->s_ports[st->s_cur]);
	else
		snprintf(buf, len, " on %s", st->s_hosts[st->s_cur]);
	return (buf);
}

static void
my_err(struct store *st, const char *what, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;

	my_seterr(st, mysql_errno(be->m), mysql_error(be->m), what, err);
}

static void
my_stmt_err(struct store *st, MYSQL_STMT *stmt, const char *what,
    struct store_error *err)
{
	my_seterr(st, mysql_stmt_errno(stmt), mysql_stmt_error(stmt), what,
	    err);
}

/*
 * A fetch of streamed rows that failed.  When the server ends the
 * result with an error (on Galera, another server's write set aborting
 * a SELECT ... FOR UPDATE under way: 1213), the client library may
 * leave it on the connection and not on the statement, or nowhere: an
 * error without a number is taken for a lost connection, whose answer
 * is in doubt, never for a fatal one.
 */
static void
my_fetch_err(struct store *st, MYSQL_STMT *stmt, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;

	if (mysql_stmt_errno(stmt) != 0)
		my_stmt_err(st, stmt, "fetch", err);
	else if (mysql_errno(be->m) != 0)
		my_err(st, "fetch", err);
	else
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0, "mysql %s: "
		    "fetch: failed without an error number; the connection "
		    "is taken for lost", st->s_db);
}

static void
wipe(char *s)
{
	if (s != NULL)
		explicit_bzero(s, strlen(s));
}

/*
 * Connect to a server that may be used, trying each the URL names in
 * turn from s_cur (where the last connection was made, or the next
 * after one that was lost): the first wholly fit, else one that will
 * do (a Galera node Donor/Desynced: it may lag, but causal reads wait
 * for it), else none.  When none can be used, the error is transient
 * if any server might do later (unreachable, not in the primary
 * component), and the refusal of an unsafe set-up otherwise.
 */
static int
my_connect(struct store *st, struct store_error *err)
{
	struct store_error	 e, never;
	size_t			 n = st->s_nhosts > 0 ? st->s_nhosts : 1;
	size_t			 i, k, second = n, first = st->s_cur;
	enum usable		 u;
	int			 refused = 0, other = 0;

	memset(&never, 0, sizeof(never));
	/* (my_connect_one() moves s_cur to the server it tries.) */
	for (i = 0; i < n; i++) {
		k = (first + i) % n;
		if (my_connect_one(st, k, 0, &u, &e) == 0)
			return (0);
		if (u == U_SECOND && second == n)
			second = k;
		else if (u == U_NEVER && !refused) {
			never = e;
			refused = 1;
		} else if (u != U_NEVER && u != U_SECOND) {
			*err = e;
			other = 1;
		}
	}
	if (second < n && my_connect_one(st, second, 1, &u, &e) == 0)
		return (0);
	if (!other && refused)
		*err = never;
	else if (!other)
		*err = e;
	return (-1);
}

/*
 * Connect to server k (s_hosts[k], or the option file's); *u says
 * whether it may be used (second: a U_SECOND one will do).  On success
 * s_cur is k.
 */
static int
my_connect_one(struct store *st, size_t k, int second, enum usable *u,
    struct store_error *err)
{
	struct mysql_be	*be;
	unsigned int	 ct = st->s_connect_timeout, rt = st->s_read_timeout;
	unsigned int	 e;
	static const char *const setup[] = {
		"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
		"SET SESSION sql_mode = 'STRICT_TRANS_TABLES,"
		    "NO_ENGINE_SUBSTITUTION,NO_AUTO_VALUE_ON_ZERO'",
		"SET SESSION innodb_lock_wait_timeout = 10",
		"SET SESSION time_zone = '+00:00'",
		NULL
	};
	/*
	 * On Galera: DDL in total order on every server (never applied
	 * to one alone), and no reads outside the primary component.
	 */
	static const char galera_setup[] = "SET SESSION wsrep_OSU_method = "
	    "'TOI', wsrep_dirty_reads = OFF";
	const char *const *q;
	char		 why[STORE_MSGLEN], where[STORE_SERVERLEN + 8];
	my_bool		 off = 0;

	*u = U_NOT_NOW;
	st->s_cur = k;
	if (st->s_be == NULL &&
	    (st->s_be = calloc(1, sizeof(struct mysql_be))) == NULL) {
		lk_nomem(err);
		return (-1);
	}
	be = st->s_be;
	memset(be, 0, sizeof(*be));
	if ((be->m = mysql_init(NULL)) == NULL) {
		lk_nomem(err);
		return (-1);
	}
	if (st->s_mysql_file != NULL)
		mysql_options(be->m, MYSQL_READ_DEFAULT_FILE, st->s_mysql_file);
	mysql_options(be->m, MYSQL_READ_DEFAULT_GROUP, st->s_mysql_group);
	mysql_options(be->m, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
	mysql_options(be->m, MYSQL_OPT_READ_TIMEOUT, &rt);
	mysql_options(be->m, MYSQL_OPT_WRITE_TIMEOUT, &rt);
	mysql_options(be->m, MYSQL_OPT_RECONNECT, &off);
	mysql_options(be->m, MYSQL_OPT_LOCAL_INFILE, &off);
	mysql_options(be->m, MYSQL_SET_CHARSET_NAME, "utf8mb4");
	if (mysql_real_connect(be->m, st->s_nhosts > 0 ? st->s_hosts[k] :
	    NULL, NULL, NULL, st->s_db, st->s_nhosts > 0 ? st->s_ports[k] : 0,
	    st->s_socket, 0) == NULL) {
		e = mysql_errno(be->m);
		/* Refused credentials or a missing database: no retry. */
		if (my_kind(e) != SE_LOST)
			*u = U_NEVER;
		store_seterr(err, my_kind(e) == SE_LOST ? STORE_TRANSIENT :
		    STORE_FATAL, my_kind(e) == SE_LOST ? SE_LOST : SE_OTHER,
		    (int)e, "cannot connect to mysql database %s%s: %s (%u)",
		    st->s_db, my_where(st, where, sizeof(where)),
		    mysql_error(be->m), e);
		wipe(be->m->options.password);
		wipe(be->m->passwd);
		mysql_close(be->m);
		be->m = NULL;
		return (-1);
	}
	/* What store_abort() shuts down, from here on (setup included). */
	atomic_store(&st->s_sock, (int)mysql_get_socket(be->m));
	if (atomic_load(&st->s_abort))
		(void)shutdown(atomic_load(&st->s_sock), SHUT_RDWR);
	wipe(be->m->options.password);
	wipe(be->m->passwd);
	for (q = setup; *q != NULL; q++)
		if (my_exec_sql(st, *q, err) == -1)
			goto fail;
	if (my_idle_trx(st, err) == -1)
		goto fail;
	*u = my_usable(st, 1, why, sizeof(why));
	if (*u == U_NEVER) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "mysql %s%s: "
		    "refused: %s; point the store at one primary, a Galera "
		    "cluster, or a primary with semi-synchronous replication "
		    "waiting AFTER_SYNC", st->s_db,
		    my_where(st, where, sizeof(where)), why);
		goto fail;
	}
	if (*u == U_NOT_NOW || (*u == U_SECOND && !second)) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0, "mysql %s%s: "
		    "%s", st->s_db, my_where(st, where, sizeof(where)), why);
		goto fail;
	}
	if (be->galera && my_exec_sql(st, galera_setup, err) == -1)
		goto fail;
	return (0);
fail:
	if (err->se_class == STORE_TRANSIENT && *u != U_SECOND)
		*u = U_NOT_NOW;
	my_disconnect(st);
	return (-1);
}

/*
 * The session's idle_transaction_timeout (MariaDB 10.3 and later), a
 * prepared statement like every other; a server without the variable
 * (MySQL: unknown system variable) keeps its locks until the connection
 * dies, as before.
 */
static int
my_idle_trx(struct store *st, struct store_error *err)
{
	static const char sql[] = "SET SESSION idle_transaction_timeout = ?";
	struct mysql_be	*be = st->s_be;
	MYSQL_STMT	*stmt;
	MYSQL_BIND	 b;
	unsigned long long v = st->s_idle_trx_timeout;
	int		 rv = 0;

	if (v == 0)
		return (0);
	if ((stmt = mysql_stmt_init(be->m)) == NULL) {
		my_err(st, "idle_transaction_timeout", err);
		return (-1);
	}
	memset(&b, 0, sizeof(b));
	b.buffer_type = MYSQL_TYPE_LONGLONG;
	b.buffer = &v;
	b.is_unsigned = 1;
	if (mysql_stmt_prepare(stmt, sql, sizeof(sql) - 1) != 0 ||
	    mysql_stmt_bind_param(stmt, &b) != 0 ||
	    mysql_stmt_execute(stmt) != 0) {
		/* 1193: ER_UNKNOWN_SYSTEM_VARIABLE */
		if (mysql_stmt_errno(stmt) != 1193) {
			my_stmt_err(st, stmt, "idle_transaction_timeout",
			    err);
			rv = -1;
		}
	}
	mysql_stmt_close(stmt);
	return (rv);
}

/*
 * Whether the server may be used, read from its global variables and
 * status, which any user may read; why[] says why not.  A Galera node
 * must be ready, in the primary component and Synced (Donor/Desynced
 * will do when nothing else does), and must not let a minority go on
 * (pc.ignore_sb, pc.ignore_quorum: two sides of a partition could each
 * claim a fire).  Any other server must be a primary whose committed
 * claims no fail-over can lose: not read-only, not replicating from
 * another (its replication threads running, or, when the privilege
 * allows SHOW ALL SLAVES STATUS, configured), and with no asynchronous
 * replica it can see: replicas connected (Slaves_connected) only under
 * semi-synchronous replication that waits AFTER_SYNC and is in force
 * (it falls back to asynchronous, silently for clients, when no
 * replica answers in time).  A replica whose threads are stopped and a
 * primary whose replicas are away look like a server alone: those are
 * excluded by documentation (clustercron.conf(5)).  Fills s_server and
 * s_dbstate, what status shows.  connect: at a connection (SHOW ALL
 * SLAVES STATUS is asked then only).
 */
static enum usable
my_usable(struct store *st, int connect, char *why, size_t len)
{
	struct mysql_be	*be = st->s_be;
	struct server	 v;
	MYSQL_RES	*res;
	char		 host[STORE_SERVERLEN];
	unsigned long	 slaves = 0;
	int		 state, k;

	memset(&v, 0, sizeof(v));
	say(why, len, "cannot read the server's state: %s",
	    mysql_error(be->m));
	if (my_show(be->m, "SHOW GLOBAL VARIABLES WHERE Variable_name IN "
	    "('wsrep_on', 'wsrep_provider', 'wsrep_provider_options', "
	    "'wsrep_node_name', 'read_only', 'super_read_only', "
	    "'innodb_read_only', 'rpl_semi_sync_master_enabled', "
	    "'rpl_semi_sync_master_wait_point', 'binlog_format')",
	    &v) == -1 ||
	    my_show(be->m, "SHOW GLOBAL STATUS WHERE Variable_name IN "
	    "('wsrep_ready', 'wsrep_local_state', "
	    "'wsrep_local_state_comment', 'wsrep_cluster_status', "
	    "'wsrep_cluster_size', 'Slaves_running', 'Slaves_connected', "
	    "'Rpl_semi_sync_master_status')", &v) == -1)
		return (U_NOT_NOW);
	if (connect && mysql_query(be->m, "SHOW ALL SLAVES STATUS") == 0 &&
	    (res = mysql_store_result(be->m)) != NULL) {
		slaves = (unsigned long)mysql_num_rows(res);
		mysql_free_result(res);
	}
	if (st->s_nhosts > 0 && st->s_ports[st->s_cur] != 0)
		say(host, sizeof(host), "%s:%u", st->s_hosts[st->s_cur],
		    st->s_ports[st->s_cur]);
	else if (st->s_nhosts > 0)
		strlcpy(host, st->s_hosts[st->s_cur], sizeof(host));
	else if (st->s_socket != NULL)
		strlcpy(host, st->s_socket, sizeof(host));
	else
		strlcpy(host, "(option file)", sizeof(host));
	be->galera = strcasecmp(v.wsrep_on, "ON") == 0 &&
	    *v.provider != '\0' && strcasecmp(v.provider, "none") != 0;
	if (be->galera && *v.node_name != '\0')
		say(st->s_server, sizeof(st->s_server), "%s (%s)", host,
		    v.node_name);
	else
		strlcpy(st->s_server, host, sizeof(st->s_server));

	if (strcasecmp(v.read_only, "ON") == 0 ||
	    strcasecmp(v.super_read_only, "ON") == 0 ||
	    strcasecmp(v.innodb_read_only, "ON") == 0) {
		say(why, len, "%s is read-only (a replica?)", host);
		return (U_NEVER);
	}
	if (strtol(v.slaves_running, NULL, 10) > 0 || slaves > 0) {
		say(why, len, "%s is a replica (it replicates from "
		    "another server)", host);
		return (U_NEVER);
	}
	if (be->galera) {
		say(st->s_dbstate, sizeof(st->s_dbstate), "%s, %s of %s",
		    *v.comment != '\0' ? v.comment : "?",
		    strcasecmp(v.cluster_status, "Primary") == 0 ? "primary" :
		    "non-primary", *v.cluster_size != '\0' ? v.cluster_size :
		    "?");
		if (v.ignore_sb || v.ignore_quorum) {
			say(why, len, "Galera node %s lets a minority "
			    "go on (pc.ignore_%s)", host, v.ignore_sb ? "sb" :
			    "quorum");
			return (U_NEVER);
		}
		/*
		 * Galera replicates row events only: a statement or mixed
		 * format would let a write be applied on one server only.
		 */
		if (strcasecmp(v.binlog_format, "ROW") != 0) {
			say(why, len, "Galera node %s has binlog_format %s: "
			    "Galera needs binlog_format = ROW", host,
			    v.binlog_format);
			return (U_NEVER);
		}
		state = (int)strtol(v.state, NULL, 10);
		if (strcasecmp(v.ready, "ON") != 0 ||
		    strcasecmp(v.cluster_status, "Primary") != 0 ||
		    (state != 4 && state != 2)) {
			say(why, len, "Galera node %s is not ready in "
			    "the primary component (%s)", host, st->s_dbstate);
			return (U_NOT_NOW);
		}
		if (connect && (k = my_engines(be->m, host, why, len)) != 0)
			return (k == -1 ? U_NEVER : U_NOT_NOW);
		if (state == 2) {
			say(why, len, "Galera node %s is %s", host,
			    st->s_dbstate);
			return (U_SECOND);
		}
		return (U_YES);
	}
	strlcpy(st->s_dbstate, "primary", sizeof(st->s_dbstate));
	if (strcmp(v.ss_enabled, "ON") == 0) {
		if (strcasecmp(v.ss_wait_point, "AFTER_SYNC") != 0) {
			say(why, len, "%s replicates semi-synchronously "
			    "waiting %s: a fail-over may lose claims", host,
			    v.ss_wait_point);
			return (U_NEVER);
		}
		if (strcasecmp(v.ss_status, "ON") != 0) {
			say(why, len, "%s replicates asynchronously now: "
			    "its semi-synchronous replication fell back (no "
			    "replica answered in time)", host);
			return (U_NOT_NOW);
		}
		strlcpy(st->s_dbstate, "primary, semi-sync",
		    sizeof(st->s_dbstate));
		return (U_YES);
	}
	if (strtol(v.slaves_connected, NULL, 10) > 0) {
		say(why, len, "%s has asynchronous replicas (%s "
		    "connected): a fail-over to one may lose claims", host,
		    v.slaves_connected);
		return (U_NEVER);
	}
	return (U_YES);
}

/*
 * Galera replicates InnoDB tables only: a table of the store turned to
 * another engine (ALTER TABLE ... ENGINE) would be written on one
 * server alone.  0; -1 with why[] when one is; -2 when the tables
 * cannot be read.
 */
static int
my_engines(MYSQL *m, const char *host, char *why, size_t len)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	int		 rc = 0;

	if (mysql_query(m, "SELECT TABLE_NAME, COALESCE(ENGINE, '?') FROM "
	    "information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND "
	    "TABLE_TYPE = 'BASE TABLE' AND (ENGINE IS NULL OR ENGINE <> "
	    "'InnoDB') LIMIT 1") != 0 ||
	    (res = mysql_store_result(m)) == NULL) {
		say(why, len, "cannot read the engines of the store's tables "
		    "on %s: %s", host, mysql_error(m));
		return (-2);
	}
	if ((row = mysql_fetch_row(res)) != NULL && row[0] != NULL &&
	    row[1] != NULL) {
		say(why, len, "table %s on Galera node %s is %s: Galera "
		    "replicates InnoDB tables only", row[0], host, row[1]);
		rc = -1;
	}
	mysql_free_result(res);
	return (rc);
}

/* snprintf(), whose truncation is fine here. */
static void
say(char *buf, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Read a SHOW's (name, value) rows into *v. */
static int
my_show(MYSQL *m, const char *sql, struct server *v)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;

	if (mysql_query(m, sql) != 0 || (res = mysql_store_result(m)) == NULL)
		return (-1);
	while ((row = mysql_fetch_row(res)) != NULL)
		if (row[0] != NULL && row[1] != NULL)
			my_take(v, row[0], row[1]);
	mysql_free_result(res);
	return (0);
}

/*
 * One variable.  Booleans read as the server writes them (ON, OFF; the
 * semi-sync switch as ON or 1); the provider's options are only looked
 * at for the two that must stay off.
 */
static void
my_take(struct server *v, const char *name, const char *val)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} f[] = {
		{ "wsrep_on", offsetof(struct server, wsrep_on) },
		{ "wsrep_provider", offsetof(struct server, provider) },
		{ "wsrep_node_name", offsetof(struct server, node_name) },
		{ "read_only", offsetof(struct server, read_only) },
		{ "super_read_only", offsetof(struct server, super_read_only) },
		{ "innodb_read_only",
		    offsetof(struct server, innodb_read_only) },
		{ "rpl_semi_sync_master_enabled",
		    offsetof(struct server, ss_enabled) },
		{ "rpl_semi_sync_master_wait_point",
		    offsetof(struct server, ss_wait_point) },
		{ "binlog_format", offsetof(struct server, binlog_format) },
		{ "wsrep_ready", offsetof(struct server, ready) },
		{ "wsrep_local_state", offsetof(struct server, state) },
		{ "wsrep_local_state_comment",
		    offsetof(struct server, comment) },
		{ "wsrep_cluster_status",
		    offsetof(struct server, cluster_status) },
		{ "wsrep_cluster_size", offsetof(struct server, cluster_size) },
		{ "Slaves_running", offsetof(struct server, slaves_running) },
		{ "Slaves_connected",
		    offsetof(struct server, slaves_connected) },
		{ "Rpl_semi_sync_master_status",
		    offsetof(struct server, ss_status) },
	};
	static const char *const yes[] = { "true", "yes", "on", "1" };
	const char	*p;
	size_t		 i, j;

	if (strcasecmp(name, "wsrep_provider_options") == 0) {
		for (i = 0; i < 2; i++) {
			p = strstr(val, i == 0 ? "pc.ignore_sb = " :
			    "pc.ignore_quorum = ");
			if (p == NULL)
				continue;
			p += i == 0 ? 15 : 19;
			for (j = 0; j < sizeof(yes) / sizeof(yes[0]); j++)
				if (strncasecmp(p, yes[j], strlen(yes[j])) == 0)
					*(i == 0 ? &v->ignore_sb :
					    &v->ignore_quorum) = 1;
		}
		return;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (strcasecmp(name, f[i].name) == 0) {
			strlcpy((char *)v + f[i].off, val, VALLEN);
			/* The semi-sync switch reads 1 on some servers. */
			if (strcmp((char *)v + f[i].off, "1") == 0 &&
			    f[i].off == offsetof(struct server, ss_enabled))
				strlcpy(v->ss_enabled, "ON", VALLEN);
			return;
		}
}

/*
 * Is the server still of use?  Asked every CHECK_EVERY ms (store.c)
 * and at every heartbeat: a Galera node may have left the primary
 * component or lost its sync, a primary may have been demoted or its
 * semi-synchronous replication may have fallen back.  When not, the
 * connection is given up (SE_LOST): the next one tries the others, and
 * says so plainly if it is to be refused.
 */
static int
my_check(struct store *st, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;
	enum usable	 u;
	char		 why[STORE_MSGLEN], where[STORE_SERVERLEN + 8];

	if (be == NULL || be->m == NULL)
		return (my_lost(st, err));
	u = my_usable(st, 0, why, sizeof(why));
	/*
	 * A node that fell Donor/Desynced (a state transfer, FLUSH TABLES
	 * WITH READ LOCK, wsrep_desync) may block writes for long: with
	 * other servers to go to, leave it (my_connect() comes back to it
	 * if none of them will do).
	 */
	if (u == U_YES || (u == U_SECOND && st->s_nhosts < 2))
		return (0);
	if (mysql_errno(be->m) >= 2000 && mysql_errno(be->m) < 3000)
		my_err(st, "state", err);
	else
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0, "mysql %s%s: "
		    "%s", st->s_db, my_where(st, where, sizeof(where)), why);
	return (-1);
}

static void
my_disconnect(struct store *st)
{
	struct mysql_be	*be = st->s_be;
	size_t		 i, j;

	if (be == NULL || be->m == NULL)
		return;
	for (i = 0; i < S_COUNT; i++)
		for (j = 0; j < NCLASS; j++)
			if (be->stmts[i][j] != NULL) {
				mysql_stmt_close(be->stmts[i][j]);
				be->stmts[i][j] = NULL;
			}
	be->last = NULL;
	atomic_store(&st->s_sock, -1);
	mysql_close(be->m);
	be->m = NULL;
}

/* Cut the socket under the library, as a network failure would. */
static void
my_sever(struct store *st)
{
	struct mysql_be	*be = st->s_be;

	if (be != NULL && be->m != NULL)
		shutdown(mysql_get_socket(be->m), SHUT_RDWR);
}

static int
my_lost(struct store *st, struct store_error *err)
{
	store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
	    "mysql %s: not connected", st->s_db);
	return (-1);
}

static const char *
my_unit(enum stmt s)
{
	if (s == S_JOB_UPSERT)
		return (SQL_JOB_ROW);
	return (s == S_HOLD_ADD ? SQL_HOLD_ROW : "?");
}

static unsigned int
my_class(size_t n)
{
	unsigned int	 c = 0;

	while (((size_t)1 << c) < n)
		c++;
	return (c);
}

/*
 * The text of a statement: its list repeated n times, and, causal not
 * 0, read causally with wsrep_sync_wait = causal (my_causal[]).
 */
static char *
my_expand(const char *text, const char *unit, size_t n, int causal)
{
	const char	*r;
	char		*out, *p;
	char		 pre[64];
	size_t		 ul = strlen(unit), len, i, pl;

	pre[0] = '\0';
	if (causal != 0)
		snprintf(pre, sizeof(pre), "SET STATEMENT wsrep_sync_wait = %d "
		    "FOR ", causal);
	pl = strlen(pre);
	if ((r = strstr(text, "%R")) == NULL) {
		len = pl + strlen(text) + 1;
		if ((out = malloc(len)) == NULL)
			return (NULL);
		memcpy(out, pre, pl);
		strlcpy(out + pl, text, len - pl);
		return (out);
	}
	len = pl + strlen(text) + n * (ul + 2);
	if ((out = malloc(len)) == NULL)
		return (NULL);
	memcpy(out, pre, pl);
	p = out + pl;
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

static MYSQL_STMT *
my_stmt(struct store *st, enum stmt s, size_t n, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;
	MYSQL_STMT	*stmt;
	unsigned int	 c = n == 0 ? 0 : my_class(n);
	char		*text;

	if (c >= NCLASS || (n != 0 && ((size_t)1 << c) != n)) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "mysql: list of %zu items", n);
		return (NULL);
	}
	if ((stmt = be->stmts[s][c]) != NULL)
		return (stmt);
	if ((stmt = mysql_stmt_init(be->m)) == NULL) {
		my_err(st, "statement", err);
		return (NULL);
	}
	if ((text = my_expand(my_text[s], my_unit(s), n == 0 ? 1 : n,
	    be->galera ? my_causal[s] : 0)) == NULL) {
		mysql_stmt_close(stmt);
		lk_nomem(err);
		return (NULL);
	}
	if (mysql_stmt_prepare(stmt, text, strlen(text)) != 0) {
		my_stmt_err(st, stmt, "prepare", err);
		free(text);
		mysql_stmt_close(stmt);
		return (NULL);
	}
	free(text);
	be->stmts[s][c] = stmt;
	return (stmt);
}

static int
is_int_type(enum enum_field_types t)
{
	switch (t) {
	case MYSQL_TYPE_TINY:
	case MYSQL_TYPE_SHORT:
	case MYSQL_TYPE_LONG:
	case MYSQL_TYPE_LONGLONG:
	case MYSQL_TYPE_INT24:
	case MYSQL_TYPE_YEAR:
		return (1);
	default:
		return (0);
	}
}

static int
my_exec(struct store *st, enum stmt s, size_t n, const struct sval *p,
    size_t np, store_row_fn row, void *arg, int64_t *changed,
    struct store_error *err)
{
	struct mysql_be	*be = st->s_be;
	MYSQL_STMT	*stmt;
	MYSQL_BIND	*pb = NULL, rb[NCOLS];
	MYSQL_RES	*meta = NULL;
	MYSQL_FIELD	*fields;
	struct sval	 cols[NCOLS];
	long long	 ints[NCOLS];
	unsigned long	 lens[NCOLS];
	my_bool		 nulls[NCOLS], errs[NCOLS];
	char		*bufs[NCOLS], *big[NCOLS];
	size_t		 caps[NCOLS], i, nc = 0;
	int		 rc, rrc, ret = -1, fetching = 0;

	memset(bufs, 0, sizeof(bufs));
	memset(big, 0, sizeof(big));
	if (be == NULL || be->m == NULL)
		return (my_lost(st, err));
	if ((stmt = my_stmt(st, s, n, err)) == NULL)
		return (-1);
	if (np > 0) {
		if ((pb = calloc(np, sizeof(*pb))) == NULL) {
			lk_nomem(err);
			return (-1);
		}
		for (i = 0; i < np; i++) {
			switch (p[i].v_type) {
			case SV_NULL:
				pb[i].buffer_type = MYSQL_TYPE_NULL;
				break;
			case SV_INT:
				pb[i].buffer_type = MYSQL_TYPE_LONGLONG;
				pb[i].buffer = (void *)&p[i].v_int;
				break;
			case SV_TEXT:
				pb[i].buffer_type = MYSQL_TYPE_STRING;
				pb[i].buffer = (void *)p[i].v_str;
				pb[i].buffer_length = p[i].v_len;
				break;
			case SV_BLOB:
			default:
				pb[i].buffer_type = MYSQL_TYPE_BLOB;
				pb[i].buffer = (void *)p[i].v_str;
				pb[i].buffer_length = p[i].v_len;
				break;
			}
		}
		if (mysql_stmt_bind_param(stmt, pb) != 0) {
			my_stmt_err(st, stmt, "bind", err);
			goto out;
		}
	}
	be->last = stmt;
	if (mysql_stmt_execute(stmt) != 0) {
		my_stmt_err(st, stmt, "execute", err);
		goto out;
	}
	if ((meta = mysql_stmt_result_metadata(stmt)) != NULL) {
		fetching = 1;
		nc = mysql_num_fields(meta);
		if (nc > NCOLS)
			nc = NCOLS;
		fields = mysql_fetch_fields(meta);
		memset(rb, 0, sizeof(rb));
		for (i = 0; i < nc; i++) {
			rb[i].is_null = &nulls[i];
			rb[i].length = &lens[i];
			rb[i].error = &errs[i];
			if (is_int_type(fields[i].type)) {
				rb[i].buffer_type = MYSQL_TYPE_LONGLONG;
				rb[i].buffer = &ints[i];
				rb[i].is_unsigned = 0;
			} else {
				/* Room for an id or a name; more on demand. */
				if ((bufs[i] = malloc(BUFLEN)) == NULL) {
					lk_nomem(err);
					goto out;
				}
				caps[i] = BUFLEN;
				rb[i].buffer_type = MYSQL_TYPE_BLOB;
				rb[i].buffer = bufs[i];
				rb[i].buffer_length = BUFLEN - 1;
			}
		}
		if (mysql_stmt_bind_result(stmt, rb) != 0) {
			my_stmt_err(st, stmt, "bind result", err);
			goto out;
		}
		for (;;) {
			rc = mysql_stmt_fetch(stmt);
			if (rc == MYSQL_NO_DATA)
				break;
			if (rc == 1) {
				my_fetch_err(st, stmt, err);
				goto out;
			}
			for (i = 0; i < nc; i++) {
				memset(&cols[i], 0, sizeof(cols[i]));
				if (nulls[i]) {
					cols[i].v_type = SV_NULL;
					continue;
				}
				if (rb[i].buffer_type == MYSQL_TYPE_LONGLONG) {
					cols[i].v_type = SV_INT;
					cols[i].v_int = ints[i];
					continue;
				}
				if (lens[i] >= caps[i]) {
					MYSQL_BIND	 b;
					char		*nb;

					/* Truncated: fetch it whole. */
					if ((nb = malloc(lens[i] + 1)) == NULL) {
						lk_nomem(err);
						goto out;
					}
					free(big[i]);
					big[i] = nb;
					memset(&b, 0, sizeof(b));
					b.buffer_type = MYSQL_TYPE_BLOB;
					b.buffer = nb;
					b.buffer_length = lens[i];
					if (mysql_stmt_fetch_column(stmt, &b,
					    (unsigned int)i, 0) != 0) {
						my_stmt_err(st, stmt, "fetch",
						    err);
						goto out;
					}
					nb[lens[i]] = '\0';
					cols[i].v_type = SV_TEXT;
					cols[i].v_str = nb;
					cols[i].v_len = lens[i];
					continue;
				}
				bufs[i][lens[i]] = '\0';
				cols[i].v_type = SV_TEXT;
				cols[i].v_str = bufs[i];
				cols[i].v_len = lens[i];
			}
			if (row != NULL && (rrc = row(arg, cols, nc)) != 0) {
				lk_row_error(rrc, s, nc, err);
				goto out;
			}
		}
	} else if (mysql_stmt_field_count(stmt) == 0 && changed != NULL)
		*changed = (int64_t)mysql_stmt_affected_rows(stmt);
	ret = 0;
out:
	/*
	 * A causal read that could not catch up with the cluster in
	 * repl.causal_read_timeout (1205): this server lags, and what it
	 * would have said is unknown.  Not a lock wait to retry here: the
	 * answer is in doubt, as after a lost connection, and the next
	 * connection tries the next server.
	 */
	if (ret == -1 && be->galera && my_causal[s] != 0 &&
	    err->se_code == 1205)
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 1205, "mysql %s: "
		    "a causal read timed out (1205): the server lags the "
		    "cluster; the answer is in doubt", st->s_db);
	/* Rows left unread would put the connection out of step. */
	if (fetching && ret == -1)
		mysql_stmt_reset(stmt);
	if (fetching)
		mysql_stmt_free_result(stmt);
	if (meta != NULL)
		mysql_free_result(meta);
	for (i = 0; i < NCOLS; i++) {
		free(bufs[i]);
		free(big[i]);
	}
	free(pb);
	return (ret);
}

static int
my_exec_sql(struct store *st, const char *sql, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;
	MYSQL_RES	*res;

	if (be == NULL || be->m == NULL)
		return (my_lost(st, err));
	if (mysql_real_query(be->m, sql, strlen(sql)) != 0) {
		my_err(st, "query", err);
		return (-1);
	}
	if ((res = mysql_store_result(be->m)) != NULL)
		mysql_free_result(res);
	else if (mysql_field_count(be->m) != 0) {
		my_err(st, "result", err);
		return (-1);
	}
	return (0);
}

static int
my_begin(struct store *st, struct store_error *err)
{
	return (my_exec_sql(st, "START TRANSACTION", err));
}

static int
my_commit(struct store *st, struct store_error *err)
{
	return (my_exec_sql(st, "COMMIT", err));
}

static void
my_rollback(struct store *st)
{
	struct mysql_be	*be = st->s_be;

	if (be != NULL && be->m != NULL)
		(void)mysql_real_query(be->m, "ROLLBACK", 8);
}

static int64_t
my_insert_id(struct store *st)
{
	struct mysql_be	*be = st->s_be;

	return (be != NULL && be->last != NULL ?
	    (int64_t)mysql_stmt_insert_id(be->last) : 0);
}
