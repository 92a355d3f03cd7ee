/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_sql.h: the statements both backends say alike, private to the
 * backends.  The includer defines NOW, its SQL expression for the
 * store's clock in milliseconds since the epoch, INSERT_IGNORE,
 * REPLACE_INTO, GREATEST and LEAST (the larger and the smaller of two
 * values), AT_RUNJOB(col) and AT_RUNKEY(col) (a one-shot job's id as
 * its runs' job, the second of the type of the runs' column).
 * Every statement is prepared; values are always bound, never spliced.
 * "%R" stands for a list the backend repeats n times.
 */

#ifndef STORE_SQL_H
#define STORE_SQL_H

#define SQL_META_GET	"SELECT v FROM meta WHERE k = 'schema'"
#define SQL_NOW		"SELECT " NOW
/* The schema lock (store_schema.c): meta's row 'lock', its expiry. */
#define SQL_LOCK	INSERT_IGNORE " INTO meta (k, v) VALUES ('lock', ?)"
#define SQL_LOCK_TAKE	"UPDATE meta SET v = ? WHERE k = 'lock' AND v < ?"
#define SQL_LOCK_RENEW	"UPDATE meta SET v = ? WHERE k = 'lock' AND v = ?"
#define SQL_UNLOCK	"DELETE FROM meta WHERE k = 'lock' AND v = ?"
/*
 * The jobs' writer lock (store_jobs.c): the lease row 'jobs.writer',
 * taken when free, expired or this holder's already; every writing
 * transaction of its holder renews it first, and the renewal always
 * changes the row, so that a holder whose lock was taken over finds
 * out (and, on Galera, two writers' transactions always conflict).
 */
#define SQL_JOBS_LOCK \
	"UPDATE leases SET holder = ?, token = ?, expires = " NOW " + ? " \
	"WHERE name = 'jobs.writer' AND (expires < " NOW " OR " \
	"(holder = ? AND token = ?))"
#define SQL_JOBS_LOCK_ADD \
	INSERT_IGNORE " INTO leases (name, holder, token, expires) VALUES " \
	"('jobs.writer', ?, ?, " NOW " + ?)"
#define SQL_JOBS_RENEW \
	"UPDATE leases SET expires = " GREATEST "(expires + 1, " NOW " + ?) " \
	"WHERE name = 'jobs.writer' AND holder = ? AND token = ?"
#define SQL_JOBS_UNLOCK \
	"DELETE FROM leases WHERE name = 'jobs.writer' AND holder = ? AND " \
	"token = ?"
/*
 * A fire whose claims row exists was won: never again, even by a row
 * that a job deleted and registered again has started afresh.
 */
#define SQL_CLAIM \
	"UPDATE jobs SET last_fire = ?, claimed_by = ?, claimed_at = " NOW \
	" WHERE id = ? AND last_fire < ? AND paused = 0 AND NOT EXISTS " \
	"(SELECT 1 FROM claims c WHERE c.fire = ? AND c.job = ?)"
#define SQL_CLAIM_READ	"SELECT node FROM claims WHERE job = ? AND fire = ?"
#define SQL_BATCH_SELECT \
	"SELECT id FROM jobs WHERE id IN (%R) AND last_fire < ? AND " \
	"paused = 0 AND NOT EXISTS (SELECT 1 FROM claims c WHERE " \
	"c.fire = ? AND c.job = jobs.id) LIMIT ?"
#define SQL_BATCH_UPDATE \
	"UPDATE jobs SET last_fire = ?, claimed_by = ?, claimed_at = " NOW \
	" WHERE id IN (%R) AND last_fire < ?"
#define SQL_BATCH_MINE \
	"SELECT job FROM claims WHERE job IN (%R) AND fire = ? AND node = ?"
/* Which jobs a batch did not win are still free: a plain read. */
#define SQL_BATCH_FREE \
	"SELECT id FROM jobs WHERE id IN (%R) AND last_fire < ? AND " \
	"paused = 0"
/*
 * The claims just won, copied from the jobs' rows this transaction has
 * changed (and holds); the includer adds what replaces an older row of
 * the same (fire, job), which the claims above never leave (a store
 * written by an older clustercron might).
 */
#define SQL_CLAIM_NOTE \
	"INSERT INTO claims (job, fire, node, claimed_at) SELECT id, " \
	"last_fire, claimed_by, claimed_at FROM jobs WHERE id IN (%R)"
#define SQL_JOB_INSERT \
	"INSERT INTO jobs (id, owner, sched, zone, cmd, scope, overlap, " \
	"misfire, grace, digest, name) VALUES %R"
#define SQL_JOB_ROW	"(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define SQL_JOB_DIGESTS	"SELECT id, digest FROM jobs"
/*
 * Which node holds which job.  A job no node holds any longer leaves
 * jobs; when it has runs, its description goes to jobs_gone, for the
 * history, until they are trimmed.
 */
#define SQL_HOLDS_MINE	"SELECT job FROM holds WHERE node = ?"
/* A sync in pages (store_jobs_sync_fill()): the jobs after an id. */
#define SQL_JOBS_PAGE \
	"SELECT jobs.id, jobs.digest, CASE WHEN holds.job IS NULL THEN 0 " \
	"ELSE 1 END FROM jobs LEFT JOIN holds ON holds.job = jobs.id AND " \
	"holds.node = ? WHERE jobs.id > ? ORDER BY jobs.id LIMIT ?"
/* This node's holds of jobs without a row. */
#define SQL_HOLDS_ORPHAN \
	"SELECT holds.job FROM holds LEFT JOIN jobs ON jobs.id = " \
	"holds.job WHERE holds.node = ? AND jobs.id IS NULL"
#define SQL_HOLD_ADD	INSERT_IGNORE " INTO holds (node, job) VALUES %R"
#define SQL_HOLD_ROW	"(?, ?)"
#define SQL_HOLD_DROP	"DELETE FROM holds WHERE node = ? AND job IN (%R)"
#define SQL_UNHELD \
	" FROM jobs WHERE id IN (%R) AND NOT EXISTS (SELECT 1 FROM holds h " \
	"WHERE h.job = jobs.id)"
/* (A probe of runs' key for each job, whatever the optimiser thinks.) */
#define SQL_GONE_KEEP \
	REPLACE_INTO " jobs_gone (id, owner, sched, zone, cmd, name, gone) " \
	"SELECT id, owner, sched, zone, cmd, name, " NOW SQL_UNHELD \
	" AND (SELECT 1 FROM runs r WHERE r.job_id = jobs.id LIMIT 1) IS " \
	"NOT NULL"
#define SQL_JOBS_UNHELD	"DELETE" SQL_UNHELD
#define SQL_GONE_LIST \
	"SELECT id, owner, sched, zone, cmd, name, gone FROM jobs_gone g " \
	"WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = g.id) " \
	"ORDER BY owner, id"
#define SQL_GONE_TRIM \
	"DELETE FROM jobs_gone WHERE NOT EXISTS (SELECT 1 FROM runs r " \
	"WHERE r.job_id = jobs_gone.id) OR EXISTS (SELECT 1 FROM jobs j " \
	"WHERE j.id = jobs_gone.id)"
#define SQL_JOB_PAUSE	"UPDATE jobs SET paused = ? WHERE id = ?"
#define SQL_JOBCOLS \
	"SELECT id, owner, sched, zone, cmd, scope, overlap, misfire, " \
	"grace, paused, last_fire, COALESCE(claimed_by, ''), " \
	"COALESCE(claimed_at, 0), name FROM jobs"
#define SQL_JOBS_LIST	SQL_JOBCOLS " ORDER BY owner, id"
#define SQL_JOBS_OWNER	SQL_JOBCOLS " WHERE owner = ? ORDER BY id"
#define SQL_JOB_GET	SQL_JOBCOLS " WHERE id = ?"
/* The jobs ever claimed (store_jobs_fired()), a page after an id. */
#define SQL_JOBS_FIRED \
	"SELECT id, last_fire FROM jobs WHERE last_fire > 0 AND id > ? " \
	"ORDER BY id LIMIT ?"
#define SQL_JOBS_FIRED_OWNER \
	"SELECT id, last_fire FROM jobs WHERE last_fire > 0 AND owner = ? " \
	"AND id > ? ORDER BY id LIMIT ?"
#define SQL_RUN_INSERT \
	"INSERT INTO runs (job_id, fire, attempt, node, pid, started, " \
	"state, exit_status, sig, output_len) " \
	"VALUES (?, ?, ?, ?, ?, ?, 0, -1, 0, 0)"
#define SQL_RUN_FIND \
	"SELECT id FROM runs WHERE job_id = ? AND fire = ? AND " \
	"attempt = ? AND node = ?"
/* A claim's row (store_claims_unrun()) gets the start it lacked. */
#define SQL_RUN_FILL \
	"UPDATE runs SET pid = ?, started = ? WHERE id = ? AND pid = 0 " \
	"AND state IN (0, 2)"
/* An attempt that could not be started: state 5, RUN_FAILED. */
#define SQL_RUN_FAIL \
	INSERT_IGNORE " INTO runs (job_id, fire, attempt, node, pid, " \
	"started, ended, state, exit_status, sig, output, output_len) " \
	"VALUES (?, ?, ?, ?, 0, ?, ?, 5, -1, 0, ?, ?)"
/* A run marked lost stays lost: its end became known later. */
#define SQL_RUN_END \
	"UPDATE runs SET ended = ?, state = CASE state WHEN 0 THEN 1 " \
	"ELSE state END, exit_status = ?, sig = ?, output = ?, " \
	"output_len = ? WHERE id = ? AND state IN (0, 2)"
/* The reason, if any, is the note's output (a limit hit, issue 12). */
#define SQL_FIRE_NOTE \
	INSERT_IGNORE " INTO runs (job_id, fire, attempt, node, pid, " \
	"started, ended, state, exit_status, sig, output, output_len) " \
	"VALUES (?, ?, 0, ?, 0, ?, ?, ?, -1, 0, ?, ?)"
#define SQL_RUNCOLS \
	"SELECT id, job_id, fire, attempt, node, pid, started, " \
	"COALESCE(ended, 0), state, COALESCE(exit_status, -1), sig, " \
	"output, output_len FROM runs"
/*
 * Runs' ids are given out in increasing order on one server; on a
 * Galera cluster each server gives out its own residue modulo the
 * servers' number, so ids written at the same moment through two
 * servers may come in either order.  The listings show runs newest
 * first by id (a few milliseconds of difference do not matter to
 * people); what decides something goes by fire: the latest record of a
 * job, and what trimming keeps.
 */
#define SQL_RUNS_LIST	SQL_RUNCOLS " ORDER BY id DESC LIMIT ?"
#define SQL_RUNS_JOB	SQL_RUNCOLS " WHERE job_id = ? ORDER BY id DESC LIMIT ?"
#define SQL_RUNS_RUNNING SQL_RUNCOLS " WHERE state = 0 ORDER BY id"
#define SQL_RUNS_RUNNING_NODE \
	SQL_RUNCOLS " WHERE state = 0 AND node = ? ORDER BY id"
/* Of each job's latest fire, the record written last. */
#define SQL_RUNS_LATEST \
	SQL_RUNCOLS " WHERE id IN (SELECT MAX(r.id) FROM runs r JOIN " \
	"(SELECT job_id, MAX(fire) AS f FROM runs GROUP BY job_id) m ON " \
	"r.job_id = m.job_id AND r.fire = m.f GROUP BY r.job_id) " \
	"ORDER BY job_id"
#define SQL_FIRE_RECORDED \
	"SELECT COUNT(*) FROM runs WHERE job_id = ? AND fire = ?"
#define SQL_JOB_BUSY \
	"SELECT COUNT(*) FROM runs WHERE job_id = ? AND fire <> ? AND " \
	"state = 0"
/*
 * Claims of a job's earlier fires, from `lo' on, whose run no node has
 * recorded yet: started, or about to be, by a node that has not written
 * its record (the record follows the claim by a loop turn, longer while
 * that node cannot write).  Through claims' key, by fire first.
 */
#define SQL_JOB_INFLIGHT \
	"SELECT COUNT(*) FROM claims c WHERE c.fire >= ? AND c.fire < ? " \
	"AND c.job = ? AND NOT EXISTS (SELECT 1 FROM runs r WHERE " \
	"r.job_id = c.job AND r.fire = c.fire)"
#define SQL_BEAT_READ \
	"SELECT " NOW ", (SELECT state FROM nodes WHERE name = ?)"
#define SQL_BEAT_INSERT \
	"INSERT INTO nodes (name, started, beat, skew, state, running, db, " \
	"db_state, cover_from, cover_to, cover_view, cover_jobs) VALUES " \
	"(?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)"
#define SQL_NODE_DRAIN	"UPDATE nodes SET state = ? WHERE name = ?"
#define SQL_CLAIMS_LIST \
	"SELECT job, fire, node, claimed_at FROM claims ORDER BY fire, job"
/* The claims of the fires of a span of instants, for the sweep. */
#define SQL_CLAIMS_SPAN \
	"SELECT job, fire, node, claimed_at FROM claims WHERE fire >= ? " \
	"AND fire <= ? ORDER BY fire, job"
/*
 * A fire the sweep found without a claim: claimed for this node only
 * if no node may claim it any longer (the job's row has moved past it:
 * claims only move forward), it has no record either, and an earlier
 * fire of the job has one (a fire from before the cluster first ran
 * the job was never its to run); the claims' key makes one sweep the
 * only one to claim it.
 */
#define SQL_SWEEP_CLAIM \
	INSERT_IGNORE " INTO claims (job, fire, node, claimed_at) SELECT " \
	"id, ?, ?, " NOW " FROM jobs WHERE id = ? AND last_fire > ? AND " \
	"NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = ? AND " \
	"r.fire = ?) AND EXISTS (SELECT 1 FROM runs e WHERE e.job_id = ? " \
	"AND e.fire < ?)"
#define SQL_NODES_LIST \
	"SELECT name, started, beat, skew, state, running, db, db_state, " \
	"cover_from, cover_to, cover_view, cover_jobs FROM nodes ORDER BY " \
	"name"
/*
 * The running runs of the other nodes gone silent, then each marked
 * lost by a write that changes it only if it still runs.
 */
#define SQL_LOST_FIND \
	SQL_RUNCOLS " WHERE state = 0 AND node <> ? AND node IN (SELECT " \
	"name FROM nodes WHERE beat < " NOW " - ?) ORDER BY id"
#define SQL_RUN_LOSE \
	"UPDATE runs SET state = 2, ended = ?, lost_by = ? WHERE id = ? AND " \
	"state = 0"
/*
 * Claims won and followed by no record at all: the claimant died (or
 * lost its records) between its claim and the record of the start.
 * Each becomes attempt 1 recorded as running by the claimant, with no
 * pid and its claim time as start, to be marked lost as a run of that
 * node would be; a late record of the start by the claimant finds the
 * row (the runs' key) and keeps it.  UNRUN_MINE: this node's own claims
 * from a fire on (at its start, before it claims anything).  UNRUN_DEAD:
 * the claims of the nodes other than this one silent for the timeout,
 * with fires around their last heartbeat (the window, ms, either side).
 * A fire no later than the job's oldest record kept is left alone: its
 * record may have been trimmed away (history-max-runs).
 */
#define SQL_UNRUN_INSERT \
	INSERT_IGNORE " INTO runs (job_id, fire, attempt, node, pid, " \
	"started, state, exit_status, sig, output_len) SELECT c.job, " \
	"c.fire, 1, c.node, 0, c.claimed_at, 0, -1, 0, 0 FROM claims c "
#define SQL_UNRUN_NONE \
	" AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = c.job AND " \
	"r.fire = c.fire) AND c.fire > COALESCE((SELECT MIN(r.fire) FROM " \
	"runs r WHERE r.job_id = c.job), 0)"
#define SQL_UNRUN_MINE \
	SQL_UNRUN_INSERT "WHERE c.fire >= ? AND c.node = ?" SQL_UNRUN_NONE
#define SQL_UNRUN_DEAD \
	SQL_UNRUN_INSERT "JOIN nodes n ON n.name = c.node WHERE " \
	"n.name <> ? AND n.beat < " NOW " - ? AND " \
	"c.fire >= (n.beat - ?) / 1000 AND c.fire <= (n.beat + ?) / 1000" \
	SQL_UNRUN_NONE
/* A run an earlier, cut-off attempt may have marked: ours iff it names us. */
#define SQL_LOST_MINE \
	SQL_RUNCOLS " WHERE id = ? AND state = 2 AND lost_by = ?"
#define SQL_LEASE_UPDATE \
	"UPDATE leases SET holder = ?, expires = " NOW " + ? WHERE " \
	"name = ? AND (holder = ? OR expires < " NOW ")"
#define SQL_LEASE_INSERT \
	INSERT_IGNORE " INTO leases (name, holder, expires) VALUES " \
	"(?, ?, " NOW " + ?)"
#define SQL_LEASE_READ \
	"SELECT holder FROM leases WHERE name = ? AND expires >= " NOW
#define SQL_LEASE_DROP	"DELETE FROM leases WHERE name = ? AND holder = ?"
/*
 * Trimming (store_trim.c) picks the runs to delete, at most a number
 * at a time, oldest first, with the bytes each keeps (its output,
 * counted as the bytes written up to output-max), and deletes them by
 * id in transactions of bounded size: no statement deletes an unbounded
 * number of rows, and none reads the whole of runs.  A run still
 * running is never picked.  By age: of the n oldest runs by id, those
 * that ended (or started) longer ago than the age.
 */
#define SQL_TRIM_AGE \
	"SELECT id, k FROM (SELECT id, state, COALESCE(ended, started) AS " \
	"t, " LEAST "(output_len, ?) AS k FROM runs ORDER BY id LIMIT ?) o " \
	"WHERE t < " NOW " - ? AND state <> 0 ORDER BY id"
#define SQL_TRIM_IDS \
	"DELETE FROM runs WHERE id IN (%R) AND state <> 0"
/*
 * The next n jobs with runs after an id, each with whether it keeps
 * more runs or more bytes than a job may (1 or 0): a range of the index
 * runs_trim, read in its order.
 */
#define SQL_TRIM_JOBS \
	"SELECT job_id, CASE WHEN COUNT(*) > ? OR SUM(" LEAST "(output_len, " \
	"?)) > ? THEN 1 ELSE 0 END FROM runs WHERE job_id > ? GROUP BY " \
	"job_id ORDER BY job_id LIMIT ?"
/* Every owner of a job, one that is gone or a one-shot one. */
#define SQL_TRIM_OWNERS \
	"SELECT owner FROM jobs UNION SELECT owner FROM jobs_gone UNION " \
	"SELECT owner FROM atjobs ORDER BY owner"
/* An owner's jobs' ids, as runs name them: his three times. */
#define SQL_OWNED \
	"(SELECT id FROM jobs WHERE owner = ? UNION SELECT id FROM " \
	"jobs_gone WHERE owner = ? UNION SELECT " AT_RUNKEY("id") " FROM " \
	"atjobs WHERE owner = ?) o JOIN runs r ON r.job_id = o.id"
/* Whether an owner keeps more runs or more bytes than a user may. */
#define SQL_TRIM_USER_SUM \
	"SELECT CASE WHEN COUNT(*) > ? OR COALESCE(SUM(" LEAST "(" \
	"r.output_len, ?)), 0) > ? THEN 1 ELSE 0 END FROM " SQL_OWNED
/*
 * Of the runs in `from', those beyond the newest n or beyond the
 * newest that keep b bytes between them, newest by fire, then by id:
 * within a job, by fire first, so that no record is trimmed while an
 * older fire's stays (a claim left without a record is judged by the
 * oldest fire whose record is kept: SQL_UNRUN_NONE).  Running runs
 * count but stay.  Parameters: output-max, those of `from', n, b, how
 * many at most.
 */
#define TRIM_OVER \
	" OVER (ORDER BY fire DESC, id DESC ROWS BETWEEN UNBOUNDED " \
	"PRECEDING AND CURRENT ROW)"
#define SQL_TRIM_BEYOND(from) \
	"SELECT id, k FROM (SELECT id, fire, state, k, COUNT(*)" TRIM_OVER \
	" AS n, SUM(k)" TRIM_OVER " AS b FROM (SELECT r.id, r.fire, " \
	"r.state, " LEAST "(r.output_len, ?) AS k FROM " from ") w) t " \
	"WHERE state <> 0 AND (n > ? OR b > ?) ORDER BY fire, id LIMIT ?"
#define SQL_TRIM_JOB	SQL_TRIM_BEYOND("runs r WHERE r.job_id = ?")
#define SQL_TRIM_USER	SQL_TRIM_BEYOND(SQL_OWNED)
/* Claims by the age of their fire, then all but the newest n instants. */
#define SQL_TRIM_CLAIMS_AGE \
	"DELETE FROM claims WHERE fire < (" NOW " - ?) / 1000"
#define SQL_TRIM_CLAIMS_CUT \
	"SELECT DISTINCT fire FROM claims ORDER BY fire DESC LIMIT 1 OFFSET ?"
#define SQL_TRIM_CLAIMS_FIRE	"DELETE FROM claims WHERE fire < ?"
#define SQL_TABLE_GET	"SELECT body, version FROM ctables WHERE owner = ?"
#define SQL_TABLE_INSERT \
	"INSERT INTO ctables (owner, body, version, updated, updated_by) " \
	"VALUES (?, ?, 1, " NOW ", ?)"
#define SQL_TABLE_UPDATE \
	"UPDATE ctables SET body = ?, version = version + 1, updated = " \
	NOW ", updated_by = ? WHERE owner = ? AND version = ?"
#define SQL_TABLES_LIST \
	"SELECT owner, body, version, updated FROM ctables ORDER BY owner"

/*
 * One-shot jobs (store_at.c).  A submission gets its id from the
 * table's counter; its token and (owner, key) are unique.
 */
#define SQL_AT_INSERT \
	"INSERT INTO atjobs (owner, ukey, token, queue, due, next_at, " \
	"retries, backoff, mail, lost, umask, cwd, env, cmd, node, " \
	"state, attempt, created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, " \
	"?, ?, ?, ?, ?, ?, ?, 0, 0, " NOW ", " NOW ")"
/* A token is unique, and found only for its owner. */
#define SQL_AT_BY_TOKEN	"SELECT id FROM atjobs WHERE token = ? AND owner = ?"
#define SQL_AT_BY_KEY	"SELECT id FROM atjobs WHERE owner = ? AND ukey = ?"
#define SQL_AT_PENDING \
	"SELECT COUNT(*) FROM atjobs WHERE owner = ? AND state IN (0, 1, 2)"
#define SQL_ATCOLS \
	"SELECT id, owner, COALESCE(ukey, ''), token, queue, due, next_at, " \
	"state, attempt, retries, backoff, mail, lost, umask, cwd, node, " \
	"COALESCE(claimed_by, ''), COALESCE(claimed_at, 0), created, updated, " \
	"(SELECT COUNT(*) FROM runs WHERE runs.job_id = " \
	AT_RUNJOB("atjobs.id") " AND runs.fire = atjobs.due AND runs.state = 3)"
#define SQL_AT_GET	SQL_ATCOLS ", env, cmd FROM atjobs WHERE id = ?"
#define SQL_AT_LIST \
	SQL_ATCOLS " FROM atjobs WHERE state IN (0, 1, 2) ORDER BY next_at, id"
#define SQL_AT_LIST_ALL	SQL_ATCOLS " FROM atjobs ORDER BY next_at, id"
#define SQL_AT_LIST_OWNER \
	SQL_ATCOLS " FROM atjobs WHERE owner = ? AND state IN (0, 1, 2) " \
	"ORDER BY next_at, id"
#define SQL_AT_LIST_OWNER_ALL \
	SQL_ATCOLS " FROM atjobs WHERE owner = ? ORDER BY next_at, id"
/* Through the index (state, next_at): two ranges, merged by the sort. */
#define SQL_AT_DUE \
	SQL_ATCOLS ", env, cmd FROM atjobs WHERE state IN (0, 2) AND " \
	"next_at <= ? ORDER BY next_at, id LIMIT ?"
#define SQL_AT_PEEK \
	"SELECT owner, state, attempt, COALESCE(claimed_by, '') FROM atjobs " \
	"WHERE id = ?"
#define SQL_AT_CANCEL \
	"UPDATE atjobs SET state = 5, updated = " NOW " WHERE id = ? AND " \
	"state IN (0, 2) AND (? IS NULL OR owner = ?)"
/*
 * The claim of an attempt: the row moves from attempt k - 1, waiting
 * or retrying, to attempt k, running, or does not change (store.h).
 */
#define SQL_AT_CLAIM \
	"UPDATE atjobs SET attempt = ?, state = 1, claimed_by = ?, " \
	"claimed_at = " NOW ", updated = " NOW " WHERE id = ? AND " \
	"attempt = ? AND state IN (0, 2)"
/* The attempt's run, written by the claim that won it. */
#define SQL_AT_RUN_INSERT \
	"INSERT INTO runs (job_id, fire, attempt, node, pid, started, state, " \
	"exit_status, sig, output_len) SELECT ?, due, ?, ?, 0, " NOW \
	", 0, -1, 0, 0 FROM atjobs WHERE id = ?"
#define SQL_AT_RUN_FIND \
	"SELECT id, pid FROM runs WHERE job_id = ? AND attempt = ? AND " \
	"node = ?"
/* An attempt whose end is not known: its run, if it still runs, lost. */
#define SQL_AT_RUN_LOSE \
	"UPDATE runs SET state = 2, ended = " NOW ", lost_by = ? WHERE " \
	"job_id = ? AND attempt = ? AND state = 0"
#define SQL_AT_MOVE \
	"UPDATE atjobs SET state = ?, next_at = CASE WHEN ? > 0 THEN ? ELSE " \
	"next_at END, updated = " NOW " WHERE id = ? AND attempt = ? AND " \
	"state = 1"
/*
 * The jobs whose attempt in flight has a run that ended without them:
 * marked lost (its node died) or ended otherwise.  AT_RUNJOB(col) is
 * the backend's "at:" || col.
 */
#define SQL_AT_LOST \
	SQL_ATCOLS ", env, cmd FROM atjobs WHERE state = 1 AND EXISTS " \
	"(SELECT 1 FROM runs WHERE runs.job_id = " AT_RUNJOB("atjobs.id") \
	" AND runs.fire = atjobs.due AND runs.attempt = atjobs.attempt AND " \
	"runs.state <> 0) ORDER BY id LIMIT ?"
/*
 * What listings show of the jobs: their columns, no environment, the
 * head of the commands; of an owner or all (NULL), the finished ones
 * too or not.
 */
/*
 * How many jobs this node holds, and how many holds the nodes listed
 * have of those jobs: every one of them holds every job of this node
 * iff the second is the first times their number.
 */
#define SQL_HOLDS_SHARED \
	"SELECT (SELECT COUNT(*) FROM holds WHERE node = ?), COUNT(*) " \
	"FROM holds h WHERE h.node IN (%R) AND EXISTS (SELECT 1 FROM " \
	"holds m WHERE m.node = ? AND m.job = h.job)"
#define SQL_AT_HEADS \
	SQL_ATCOLS ", NULL, SUBSTR(cmd, 1, ?) FROM atjobs WHERE (? IS NULL " \
	"OR owner = ?) AND (? <> 0 OR state IN (0, 1, 2)) ORDER BY id"
/* The earliest attempt due, 0 for none. */
#define SQL_AT_NEXT \
	"SELECT COALESCE(MIN(next_at), 0) FROM atjobs WHERE state IN (0, 2)"
/*
 * An attempt that did not start, and why: its run failed (RUN_FAILED),
 * or was not started in time (RUN_MISSED, fenced).
 */
#define SQL_AT_RUN_NOSTART \
	"UPDATE runs SET started = ?, ended = ?, state = ?, exit_status = -1, " \
	"sig = 0, output = ?, output_len = ? WHERE id = ? AND state = 0"
/* Finished one-shot jobs go with the history, by age. */
#define SQL_AT_TRIM \
	"DELETE FROM atjobs WHERE state IN (3, 4, 5) AND updated < " NOW " - ?"

/* The version 1 layout's sample rows, for the migration test. */
#define SQL_SEED_JOB \
	"INSERT INTO jobs (id, owner, sched, cmd, last_fire, claimed_by, " \
	"claimed_at) VALUES ('0123456789abcdef0123456789abcdef', 'alice', " \
	"'*/5 * * * *', 'backup', 1700000000, 'old-node', 1700000000123)"
#define SQL_SEED_RUNS \
	"INSERT INTO runs (job_id, fire, node, pid, started, ended, " \
	"exit_status, output) VALUES " \
	"('0123456789abcdef0123456789abcdef', 1699999700, 'old-node', 42, " \
	"1699999700000, 1699999701000, 3, 'done'), " \
	"('0123456789abcdef0123456789abcdef', 1700000000, 'old-node', 43, " \
	"1700000000000, NULL, NULL, NULL)"
#define SQL_SEED_NODE \
	"INSERT INTO nodes (name, beat) VALUES ('old-node', 1700000000000)"

#endif /* STORE_SQL_H */
