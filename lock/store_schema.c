/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_schema.c: creating the schema and migrating it forward.  The
 * steps themselves are the backends' own SQL (o_steps); this file
 * runs them in order, records the version, and refuses a store newer
 * than this program.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

static int	 version_read(struct store *, int *, struct store_error *);
static int	 schema_lock(struct store *, int64_t *, struct store_error *);
static int	 schema_renew(struct store *, int64_t *,
		    struct store_error *);
#ifdef CLUSTERCRON_TEST
static int	 seed_fn(struct store *, void *, struct store_error *);
#endif

/*
 * The schema lock (MariaDB).  A node migrating the schema holds meta's
 * row 'lock', whose value is the lock's expiry by the store's clock and
 * names the holder too: it is taken by a conditional write (a new row,
 * or one whose expiry has passed), renewed after every step and
 * deleted at the end, each time only if it still holds the value this
 * node wrote.  A named lock (GET_LOCK()) would do on one server but
 * not on a Galera cluster, whose servers each have their own; a write
 * to one row has one winner on both, and the expiry frees the lock of
 * a node that died migrating.  Steps are written to be run again, so a
 * migration that outlives the lock (it is renewed after each step, and
 * a step may take long on a big table) does no harm but time.
 */
#define SCHEMA_TTL	600000	/* ms */
#define SCHEMA_WAIT	60000	/* ms to wait for another node's migration */

/* The version recorded: 0 when the store has no meta table yet. */
static int
version_read(struct store *st, int *v, struct store_error *err)
{
	struct lk_int	 m;

	memset(&m, 0, sizeof(m));
	*v = 0;
	if (lk_exec(st, "schema", S_META_GET, 0, NULL, 0, lk_int_row, &m,
	    NULL, err) == -1) {
		if (err->se_kind != SE_NOTABLE)
			return (-1);
		memset(err, 0, sizeof(*err));
		return (0);
	}
	*v = m.i_found ? (int)m.i_v : 0;
	if (*v > STORE_SCHEMA) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store schema "
		    "version %d is newer than this clustercron (%d); upgrade "
		    "clustercron", *v, STORE_SCHEMA);
		return (-1);
	}
	return (0);
}

/* Take the schema lock until *until (store ms), waiting for it. */
static int
schema_lock(struct store *st, int64_t *until, struct store_error *err)
{
	struct lk_int	 now;
	struct sval	 p[2];
	int64_t		 changed, give_up = clock_mono() + SCHEMA_WAIT;

	for (;;) {
		memset(&now, 0, sizeof(now));
		if (lk_exec(st, "schema", S_NOW, 0, NULL, 0, lk_int_row, &now,
		    NULL, err) == -1)
			return (-1);
		*until = now.i_v + SCHEMA_TTL;
		p[0] = SVI(*until);
		p[1] = SVI(now.i_v);
		if (lk_exec(st, "schema", S_LOCK, 0, p, 1, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		if (changed == 0 && lk_exec(st, "schema", S_LOCK_TAKE, 0, p, 2,
		    NULL, NULL, &changed, err) == -1)
			return (-1);
		if (changed == 1)
			return (0);
		if (clock_mono() >= give_up) {
			store_seterr(err, STORE_TRANSIENT, SE_OTHER, 0,
			    "another node holds the schema lock");
			return (-1);
		}
		usleep(100000 + arc4random_uniform(100000));
	}
}

/* Renew the lock after a step: -1 when another node has it now. */
static int
schema_renew(struct store *st, int64_t *until, struct store_error *err)
{
	struct lk_int	 now;
	struct sval	 p[2];
	int64_t		 changed;

	memset(&now, 0, sizeof(now));
	if (lk_exec(st, "schema", S_NOW, 0, NULL, 0, lk_int_row, &now, NULL,
	    err) == -1)
		return (-1);
	p[0] = SVI(now.i_v + SCHEMA_TTL > *until ? now.i_v + SCHEMA_TTL :
	    *until + 1);
	p[1] = SVI(*until);
	if (lk_exec(st, "schema", S_LOCK_RENEW, 0, p, 2, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed != 1) {
		store_seterr(err, STORE_TRANSIENT, SE_OTHER, 0, "the schema "
		    "lock expired during a migration step; another node goes "
		    "on with it");
		return (-1);
	}
	*until = p[0].v_int;
	return (0);
}

/*
 * Create or migrate the schema to `target'.  The version is read first:
 * a store at the version wanted, what every open but the first finds,
 * costs that one read and no DDL, which on a Galera cluster would run
 * on every server at once and wait for each.  SQLite migrates in one
 * write transaction; on MariaDB, whose DDL commits on its own, the
 * schema lock above keeps two nodes from migrating at once and every
 * step is written to be run again safely (IF NOT EXISTS).
 */
int
lk_schema_setup(struct store *st, int target, struct store_error *err)
{
	const struct store_ops	*o = st->s_ops;
	const char *const	*q;
	struct sval		 p;
	int64_t			 until = 0;
	int			 v, locked = 0, rc = -1;

	if (version_read(st, &v, err) == -1)
		return (-1);
	if (v >= target)
		return (0);
	if (o->o_ddl_trx && lk_begin(st, err) == -1)
		return (-1);
	for (q = o->o_steps[0]; *q != NULL; q++)
		if (o->o_exec_sql(st, *q, err) == -1)
			goto out;
	if (!o->o_ddl_trx) {
		if (schema_lock(st, &until, err) == -1)
			goto out;
		locked = 1;
	}
	/* Under the lock (or in the transaction): as another left it. */
	if (version_read(st, &v, err) == -1)
		goto out;
	for (v++; v <= target; v++) {
		for (q = o->o_steps[v]; *q != NULL; q++)
			if (o->o_exec_sql(st, *q, err) == -1)
				goto out;
		p = SVI(v);
		if (lk_exec(st, "schema", S_META_SET, 0, &p, 1, NULL, NULL,
		    NULL, err) == -1)
			goto out;
		if (locked && v < target && schema_renew(st, &until, err) == -1)
			goto out;
	}
	if (o->o_ddl_trx && lk_commit(st, "schema", err) == -1)
		goto out;
	rc = 0;
out:
	if (o->o_ddl_trx) {
		if (st->s_in_trx)
			o->o_rollback(st);
		st->s_in_trx = 0;
	} else if (locked && st->s_connected) {
		p = SVI(until);
		(void)o->o_exec(st, S_UNLOCK, 0, &p, 1, NULL, NULL, NULL,
		    &lk_scratch);
	}
	return (rc);
}

int
store_schema_current(void)
{
	return (STORE_SCHEMA);
}

int
store_schema_version(struct store *st, int *v, struct store_error *err)
{
	int64_t	 got;

	err = lk_err_init(err);
	*v = 0;
	if (lk_op_int(st, "meta", S_META_GET, NULL, 0, &got, NULL, err) == -1)
		return (-1);
	*v = (int)got;
	return (0);
}

#ifdef CLUSTERCRON_TEST
int
store_schema_force(struct store *st, int v, struct store_error *err)
{
	struct sval	 p = SVI(v);

	err = lk_err_init(err);
	return (lk_op_write(st, "meta", S_META_SET, &p, 1, NULL, err));
}

static int
seed_fn(struct store *st, void *arg, struct store_error *err)
{
	const char *const	*q;

	for (q = st->s_ops->o_seed_v1; *q != NULL; q++)
		if (st->s_ops->o_exec_sql(st, *q, err) == -1)
			return (-1);
	return (0);
}

int
store_test_seed_v1(struct store *st, struct store_error *err)
{
	err = lk_err_init(err);
	return (lk_run(st, seed_fn, NULL, err));
}
#endif
