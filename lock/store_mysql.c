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
 */

#include <sys/socket.h>

#include <errno.h>
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
#include "store_sql.h"

#define NCLASS	10	/* list lengths 1, 2, 4, ... 512 */
#define NCOLS	24
#define BUFLEN	288	/* bytes per text column before fetching more */

struct mysql_be {
	MYSQL		*m;
	MYSQL_STMT	*stmts[S_COUNT][NCLASS];
	MYSQL_STMT	*last;
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
static int	 my_galera(struct store *, struct store_error *);
static int	 my_kind(unsigned int);
static void	 my_seterr(struct store *, unsigned int, const char *,
		    const char *, struct store_error *);
static void	 my_err(struct store *, const char *, struct store_error *);
static void	 my_stmt_err(struct store *, MYSQL_STMT *, const char *,
		    struct store_error *);
static void	 wipe(char *);
static int	 my_lost(struct store *, struct store_error *);
static const char *my_unit(enum stmt);
static unsigned int	 my_class(size_t);
static char	*my_expand(const char *, const char *, size_t);
static MYSQL_STMT *my_stmt(struct store *, enum stmt, size_t,
		    struct store_error *);
static int	 is_int_type(enum enum_field_types);

static const char *const my_text[S_COUNT] = {
	[S_META_GET] = SQL_META_GET,
	[S_META_SET] = "REPLACE INTO meta (k, v) VALUES ('schema', ?)",
	[S_NOW] = SQL_NOW,
	[S_LOCK] = "SELECT GET_LOCK('clustercron.schema', 60)",
	[S_UNLOCK] = "SELECT RELEASE_LOCK('clustercron.schema')",
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
	/*
	 * Writers of jobs and holds take turns (store.c says why).  The
	 * server releases the lock of a connection that dies.
	 */
	[S_JOBS_LOCK] = "SELECT GET_LOCK('clustercron.jobs', ?)",
	[S_JOBS_UNLOCK] = "SELECT RELEASE_LOCK('clustercron.jobs')",
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
	    "running = VALUES(running)",
	[S_NODE_DRAIN] = SQL_NODE_DRAIN,
	[S_NODES_LIST] = SQL_NODES_LIST,
	[S_CLAIMS_LIST] = SQL_CLAIMS_LIST,
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
	[S_TRIM_JOBS] = SQL_TRIM_JOBS,
	[S_TRIM_CUT] = SQL_TRIM_CUT,
	[S_TRIM_JOB] = SQL_TRIM_JOB,
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

static const char *const *const my_steps[] = {
	my_step0, my_step1, my_step2, my_step3, my_step4, my_step5, my_step6
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
	case 1053:	/* ER_SERVER_SHUTDOWN */
	case 1927:	/* ER_CONNECTION_KILLED */
	case 4031:	/* ER_CLIENT_INTERACTION_TIMEOUT */
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
	store_seterr(err, cls, kind, (int)e, "mysql %s: %s: %s (%u)",
	    st->s_db, what, msg, e);
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

static void
wipe(char *s)
{
	if (s != NULL)
		explicit_bzero(s, strlen(s));
}

static int
my_connect(struct store *st, struct store_error *err)
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
	const char *const *q;
	my_bool		 off = 0;

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
	if (mysql_real_connect(be->m, st->s_host, NULL, NULL, st->s_db,
	    st->s_port, st->s_socket, 0) == NULL) {
		e = mysql_errno(be->m);
		/* Refused credentials or a missing database: no retry. */
		store_seterr(err, my_kind(e) == SE_LOST ? STORE_TRANSIENT :
		    STORE_FATAL, my_kind(e) == SE_LOST ? SE_LOST : SE_OTHER,
		    (int)e, "cannot connect to mysql database %s: %s (%u)",
		    st->s_db, mysql_error(be->m), e);
		wipe(be->m->options.password);
		wipe(be->m->passwd);
		mysql_close(be->m);
		be->m = NULL;
		return (-1);
	}
	wipe(be->m->options.password);
	wipe(be->m->passwd);
	for (q = setup; *q != NULL; q++)
		if (my_exec_sql(st, *q, err) == -1) {
			my_disconnect(st);
			return (-1);
		}
	if (my_idle_trx(st, err) == -1 || my_galera(st, err) == -1) {
		my_disconnect(st);
		return (-1);
	}
	return (0);
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
 * A Galera cluster certifies each writer's transactions on commit
 * instead of serialising the writers through row locks, so FOR UPDATE
 * (and SKIP LOCKED) mean nothing across its nodes (the trouble Quartz
 * met, its issue 470).  Until a test shows that the claims still have
 * one winner there, refuse it, even a cluster of one node (it may grow
 * without us knowing), and say what is supported.  Servers without the
 * variable (MySQL) are not Galera.  tests/integration/galera-mysql.sh
 * starts a real Galera node to check this.
 */
static int
my_galera(struct store *st, struct store_error *err)
{
	struct mysql_be	*be = st->s_be;
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	int		 on = 0;

	if (mysql_query(be->m, "SELECT @@GLOBAL.wsrep_on") != 0)
		return (0);
	if ((res = mysql_store_result(be->m)) == NULL)
		return (0);
	if ((row = mysql_fetch_row(res)) != NULL && row[0] != NULL)
		on = strcmp(row[0], "1") == 0 || strcasecmp(row[0], "ON") == 0;
	mysql_free_result(res);
	if (on) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "mysql %s: the "
		    "server is a Galera node (wsrep_on): multi-writer Galera "
		    "is not supported, its writers are not serialised by row "
		    "locks; point every node at one MariaDB/MySQL primary "
		    "(replicas for fail-over only)", st->s_db);
		return (-1);
	}
	return (0);
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

static char *
my_expand(const char *text, const char *unit, size_t n)
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
	if ((text = my_expand(my_text[s], my_unit(s), n == 0 ? 1 : n)) ==
	    NULL) {
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
				my_stmt_err(st, stmt, "fetch", err);
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
