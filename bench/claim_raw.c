/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * claim_raw.c: the raw client bench/claim compares the store with.  It
 * prepares the store's own claim statements (single: one conditional
 * UPDATE and, when it won, the INSERT of its claims row, in one
 * transaction; batch: SELECT ... FOR UPDATE SKIP LOCKED, UPDATE ... IN
 * and INSERT INTO claims ... SELECT, in one transaction) and runs them
 * with nothing around them: no retries, no reconnection, no fault
 * points, no resolution of lost results.  Benchmark code only; the
 * product's SQL lives in lock/.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>
#include <sqlite3.h>

#include "claim_raw.h"
#include "store.h"

#define MYNOW	"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
#define SQNOW	"CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
#define CLAIM(now) \
	"UPDATE jobs SET last_fire = ?, claimed_by = ?, claimed_at = " now \
	" WHERE id = ? AND last_fire < ? AND paused = 0"
#define NB	100
#define NOTE \
	"INSERT INTO claims (job, fire, node, claimed_at) SELECT id, " \
	"last_fire, claimed_by, claimed_at FROM jobs WHERE id IN ("
#define MYNOTE	") ON DUPLICATE KEY UPDATE node = VALUES(node), " \
	"claimed_at = VALUES(claimed_at)"
#define SQNOTE	") ON CONFLICT (fire, job) DO UPDATE SET node = " \
	"excluded.node, claimed_at = excluded.claimed_at"

struct raw {
	MYSQL		*m;
	MYSQL_STMT	*claim, *sel, *upd[NB + 1], *note[NB + 1];
	sqlite3		*db;
	sqlite3_stmt	*sq_claim, *sq_sel, *sq_upd[NB + 1], *sq_begin;
	sqlite3_stmt	*sq_note[NB + 1];
	sqlite3_stmt	*sq_commit;
	char		 node[64];
	char		 err[256];
};

static char	*in_list(const char *, size_t, const char *);
static MYSQL_STMT *my_prep(struct raw *, const char *);
static sqlite3_stmt *sq_prep(struct raw *, const char *);
static int	 sq_busy(void *, int);
static int	 sq_step(struct raw *, sqlite3_stmt *);
static int	 raw_note(struct raw *, const char *const *, size_t);

static char *
in_list(const char *pre, size_t n, const char *post)
{
	char	*s;
	size_t	 len = strlen(pre) + 3 * n + strlen(post) + 1, i;

	if ((s = malloc(len)) == NULL)
		return (NULL);
	strlcpy(s, pre, len);
	for (i = 0; i < n; i++)
		strlcat(s, i == 0 ? "?" : ", ?", len);
	strlcat(s, post, len);
	return (s);
}

static MYSQL_STMT *
my_prep(struct raw *r, const char *sql)
{
	MYSQL_STMT	*st;

	if ((st = mysql_stmt_init(r->m)) == NULL ||
	    mysql_stmt_prepare(st, sql, strlen(sql)) != 0) {
		snprintf(r->err, sizeof(r->err), "prepare: %s",
		    mysql_error(r->m));
		return (NULL);
	}
	return (st);
}

static sqlite3_stmt *
sq_prep(struct raw *r, const char *sql)
{
	sqlite3_stmt	*st;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(r->err, sizeof(r->err), "prepare: %s",
		    sqlite3_errmsg(r->db));
		return (NULL);
	}
	return (st);
}

static int
sq_busy(void *arg, int count)
{
	struct timespec	 ts = { 0, 300000 };

	(void)arg;
	if (count > 100000)
		return (0);
	nanosleep(&ts, NULL);
	return (1);
}

/* The URL is read by the store's own reader (store_url_parse()). */
struct raw *
raw_open(const char *url, const char *cnf, const char *node)
{
	struct store_url	 su;
	struct store_error	 se;
	struct raw		*r;
	char			*sql;
	unsigned int		 to = 30;

	if (store_url_parse(url, &su, &se) == -1) {
		fprintf(stderr, "raw: %s\n", se.se_msg);
		return (NULL);
	}
	if ((r = calloc(1, sizeof(*r))) == NULL)
		goto fail;
	strlcpy(r->node, node, sizeof(r->node));
	if (su.su_backend == STORE_MYSQL) {
		r->m = mysql_init(NULL);
		if (cnf != NULL)
			mysql_options(r->m, MYSQL_READ_DEFAULT_FILE, cnf);
		mysql_options(r->m, MYSQL_READ_DEFAULT_GROUP, "client");
		mysql_options(r->m, MYSQL_OPT_READ_TIMEOUT, &to);
		if (mysql_real_connect(r->m, su.su_host, NULL, NULL, su.su_db,
		    su.su_port, su.su_socket, 0) == NULL) {
			fprintf(stderr, "raw: %s\n", mysql_error(r->m));
			goto fail;
		}
		mysql_query(r->m, "SET SESSION TRANSACTION ISOLATION LEVEL "
		    "READ COMMITTED");
		if ((r->claim = my_prep(r, CLAIM(MYNOW))) == NULL)
			goto fail;
		sql = in_list("SELECT id FROM jobs WHERE id IN (", NB,
		    ") AND last_fire < ? AND paused = 0 LIMIT ? "
		    "FOR UPDATE SKIP LOCKED");
		r->sel = my_prep(r, sql);
		free(sql);
		if (r->sel == NULL)
			goto fail;
		store_url_free(&su);
		return (r);
	}
	if (su.su_backend != STORE_SQLITE) {
		fprintf(stderr, "raw: %s: not a SQLite or MySQL store\n", url);
		goto fail;
	}
	if (sqlite3_open_v2(su.su_path, &r->db, SQLITE_OPEN_READWRITE,
	    NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_handler(r->db, sq_busy, NULL);
	sqlite3_exec(r->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	r->sq_claim = sq_prep(r, CLAIM(SQNOW));
	r->sq_begin = sq_prep(r, "BEGIN IMMEDIATE");
	r->sq_commit = sq_prep(r, "COMMIT");
	sql = in_list("SELECT id FROM jobs WHERE id IN (", NB,
	    ") AND last_fire < ? AND paused = 0 LIMIT ?");
	r->sq_sel = sq_prep(r, sql);
	free(sql);
	if (r->sq_claim == NULL || r->sq_begin == NULL ||
	    r->sq_commit == NULL || r->sq_sel == NULL)
		goto fail;
	store_url_free(&su);
	return (r);
fail:
	store_url_free(&su);
	raw_close(r);
	return (NULL);
}

void
raw_close(struct raw *r)
{
	size_t	 i;

	if (r == NULL)
		return;
	if (r->m != NULL) {
		if (r->claim != NULL)
			mysql_stmt_close(r->claim);
		if (r->sel != NULL)
			mysql_stmt_close(r->sel);
		for (i = 0; i <= NB; i++) {
			if (r->upd[i] != NULL)
				mysql_stmt_close(r->upd[i]);
			if (r->note[i] != NULL)
				mysql_stmt_close(r->note[i]);
		}
		mysql_close(r->m);
	}
	if (r->db != NULL) {
		sqlite3_finalize(r->sq_claim);
		sqlite3_finalize(r->sq_sel);
		for (i = 0; i <= NB; i++) {
			sqlite3_finalize(r->sq_upd[i]);
			sqlite3_finalize(r->sq_note[i]);
		}
		sqlite3_finalize(r->sq_begin);
		sqlite3_finalize(r->sq_commit);
		sqlite3_close(r->db);
	}
	free(r);
}

const char *
raw_error(struct raw *r)
{
	return (r->err);
}

static int
sq_step(struct raw *r, sqlite3_stmt *st)
{
	int	 rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		snprintf(r->err, sizeof(r->err), "%s", sqlite3_errmsg(r->db));
		return (-1);
	}
	return (0);
}

/* Record the claims of k jobs just won, in the open transaction. */
static int
raw_note(struct raw *r, const char *const *ids, size_t k)
{
	MYSQL_BIND	 b[NB];
	char		*sql;
	size_t		 i;

	if (r->m != NULL) {
		if (r->note[k] == NULL) {
			sql = in_list(NOTE, k, MYNOTE);
			r->note[k] = my_prep(r, sql);
			free(sql);
			if (r->note[k] == NULL)
				return (-1);
		}
		memset(b, 0, sizeof(b));
		for (i = 0; i < k; i++) {
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = (char *)ids[i];
			b[i].buffer_length = strlen(ids[i]);
		}
		if (mysql_stmt_bind_param(r->note[k], b) != 0 ||
		    mysql_stmt_execute(r->note[k]) != 0) {
			snprintf(r->err, sizeof(r->err), "%s",
			    mysql_stmt_error(r->note[k]));
			return (-1);
		}
		return (0);
	}
	if (r->sq_note[k] == NULL) {
		sql = in_list(NOTE, k, SQNOTE);
		r->sq_note[k] = sq_prep(r, sql);
		free(sql);
		if (r->sq_note[k] == NULL)
			return (-1);
	}
	for (i = 0; i < k; i++)
		sqlite3_bind_text(r->sq_note[k], (int)i + 1, ids[i], -1,
		    SQLITE_STATIC);
	return (sq_step(r, r->sq_note[k]));
}

int
raw_claim(struct raw *r, const char *id, time_t fire, int *won)
{
	MYSQL_BIND	 b[4];
	long long	 f = fire;
	unsigned long	 idl = strlen(id), nl = strlen(r->node);

	*won = 0;
	if (r->m != NULL) {
		memset(b, 0, sizeof(b));
		b[0].buffer_type = MYSQL_TYPE_LONGLONG;
		b[0].buffer = &f;
		b[1].buffer_type = MYSQL_TYPE_STRING;
		b[1].buffer = r->node;
		b[1].buffer_length = nl;
		b[2].buffer_type = MYSQL_TYPE_STRING;
		b[2].buffer = (char *)id;
		b[2].buffer_length = idl;
		b[3] = b[0];
		if (mysql_query(r->m, "START TRANSACTION") != 0) {
			snprintf(r->err, sizeof(r->err), "%s",
			    mysql_error(r->m));
			return (-1);
		}
		if (mysql_stmt_bind_param(r->claim, b) != 0 ||
		    mysql_stmt_execute(r->claim) != 0) {
			snprintf(r->err, sizeof(r->err), "%s",
			    mysql_stmt_error(r->claim));
			mysql_query(r->m, "ROLLBACK");
			return (-1);
		}
		*won = mysql_stmt_affected_rows(r->claim) == 1;
		if (*won && raw_note(r, &id, 1) == -1) {
			*won = 0;
			mysql_query(r->m, "ROLLBACK");
			return (-1);
		}
		if (mysql_query(r->m, "COMMIT") != 0) {
			*won = 0;
			snprintf(r->err, sizeof(r->err), "%s",
			    mysql_error(r->m));
			return (-1);
		}
		return (0);
	}
	if (sq_step(r, r->sq_begin) == -1)
		return (-1);
	sqlite3_bind_int64(r->sq_claim, 1, f);
	sqlite3_bind_text(r->sq_claim, 2, r->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(r->sq_claim, 3, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(r->sq_claim, 4, f);
	if (sq_step(r, r->sq_claim) == -1) {
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		return (-1);
	}
	*won = sqlite3_changes(r->db) == 1;
	if (*won && raw_note(r, &id, 1) == -1) {
		*won = 0;
		sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		return (-1);
	}
	return (sq_step(r, r->sq_commit));
}

/* The batch form, for up to NB ids: select the free ones, update them. */
int
raw_batch(struct raw *r, const char *const *ids, size_t n, time_t fire,
    size_t max, unsigned char *won, size_t *nwon)
{
	MYSQL_BIND	 b[NB + 3], rb;
	long long	 f = fire, lim = (long long)max;
	char		 got[NB][40], idbuf[40], *sql;
	const char	*gotp[NB];
	unsigned long	 len;
	size_t		 i, j, k = 0;
	int		 rc;

	*nwon = 0;
	memset(won, 0, n);
	if (n > NB)
		return (-1);
	if (r->m != NULL) {
		mysql_query(r->m, "START TRANSACTION");
		memset(b, 0, sizeof(b));
		for (i = 0; i < NB; i++) {
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = (char *)ids[i < n ? i : n - 1];
			b[i].buffer_length = strlen(b[i].buffer);
		}
		b[NB].buffer_type = MYSQL_TYPE_LONGLONG;
		b[NB].buffer = &f;
		b[NB + 1].buffer_type = MYSQL_TYPE_LONGLONG;
		b[NB + 1].buffer = &lim;
		memset(&rb, 0, sizeof(rb));
		rb.buffer_type = MYSQL_TYPE_STRING;
		rb.buffer = idbuf;
		rb.buffer_length = sizeof(idbuf);
		rb.length = &len;
		if (mysql_stmt_bind_param(r->sel, b) != 0 ||
		    mysql_stmt_execute(r->sel) != 0 ||
		    mysql_stmt_bind_result(r->sel, &rb) != 0)
			goto myfail;
		while ((rc = mysql_stmt_fetch(r->sel)) == 0)
			strlcpy(got[k++], idbuf, sizeof(got[0]));
		mysql_stmt_free_result(r->sel);
		if (k > 0) {
			if (r->upd[k] == NULL) {
				sql = in_list("UPDATE jobs SET last_fire = ?, "
				    "claimed_by = ?, claimed_at = " MYNOW
				    " WHERE id IN (", k, ") AND last_fire < ?");
				r->upd[k] = my_prep(r, sql);
				free(sql);
				if (r->upd[k] == NULL)
					return (-1);
			}
			memset(b, 0, sizeof(b));
			b[0].buffer_type = MYSQL_TYPE_LONGLONG;
			b[0].buffer = &f;
			b[1].buffer_type = MYSQL_TYPE_STRING;
			b[1].buffer = r->node;
			b[1].buffer_length = strlen(r->node);
			for (i = 0; i < k; i++) {
				b[2 + i].buffer_type = MYSQL_TYPE_STRING;
				b[2 + i].buffer = got[i];
				b[2 + i].buffer_length = strlen(got[i]);
			}
			b[2 + k] = b[0];
			if (mysql_stmt_bind_param(r->upd[k], b) != 0 ||
			    mysql_stmt_execute(r->upd[k]) != 0)
				goto myfail;
			for (i = 0; i < k; i++)
				gotp[i] = got[i];
			if (raw_note(r, gotp, k) == -1) {
				mysql_query(r->m, "ROLLBACK");
				return (-1);
			}
		}
		if (mysql_query(r->m, "COMMIT") != 0)
			goto myfail;
	} else {
		if (sq_step(r, r->sq_begin) == -1)
			return (-1);
		for (i = 0; i < NB; i++)
			sqlite3_bind_text(r->sq_sel, (int)i + 1,
			    ids[i < n ? i : n - 1], -1, SQLITE_STATIC);
		sqlite3_bind_int64(r->sq_sel, NB + 1, f);
		sqlite3_bind_int64(r->sq_sel, NB + 2, lim);
		while (sqlite3_step(r->sq_sel) == SQLITE_ROW)
			strlcpy(got[k++], (const char *)
			    sqlite3_column_text(r->sq_sel, 0), sizeof(got[0]));
		sqlite3_reset(r->sq_sel);
		if (k > 0) {
			if (r->sq_upd[k] == NULL) {
				sql = in_list("UPDATE jobs SET last_fire = ?, "
				    "claimed_by = ?, claimed_at = " SQNOW
				    " WHERE id IN (", k, ") AND last_fire < ?");
				r->sq_upd[k] = sq_prep(r, sql);
				free(sql);
				if (r->sq_upd[k] == NULL)
					return (-1);
			}
			sqlite3_bind_int64(r->sq_upd[k], 1, f);
			sqlite3_bind_text(r->sq_upd[k], 2, r->node, -1,
			    SQLITE_STATIC);
			for (i = 0; i < k; i++)
				sqlite3_bind_text(r->sq_upd[k], (int)i + 3,
				    got[i], -1, SQLITE_STATIC);
			sqlite3_bind_int64(r->sq_upd[k], (int)k + 3, f);
			if (sq_step(r, r->sq_upd[k]) == -1)
				return (-1);
			for (i = 0; i < k; i++)
				gotp[i] = got[i];
			if (raw_note(r, gotp, k) == -1)
				return (-1);
		}
		if (sq_step(r, r->sq_commit) == -1)
			return (-1);
	}
	for (i = 0; i < k; i++)
		for (j = 0; j < n; j++)
			if (!won[j] && strcmp(ids[j], got[i]) == 0) {
				won[j] = 1;
				(*nwon)++;
				break;
			}
	return (0);
myfail:
	snprintf(r->err, sizeof(r->err), "%s", mysql_error(r->m));
	mysql_query(r->m, "ROLLBACK");
	return (-1);
}
