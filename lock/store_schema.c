/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_schema.c: creating the schema and migrating it forward.  The
 * steps themselves are the backends' own SQL (o_steps); this file
 * runs them in order, records the version, and refuses a store newer
 * than this program.
 */

#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#ifdef CLUSTERCRON_TEST
static int	 seed_fn(struct store *, void *, struct store_error *);
#endif

/*
 * Create or migrate the schema to `target'.  SQLite does it in one
 * write transaction; on MariaDB, whose DDL commits on its own, a named
 * lock keeps two nodes from migrating at once and every step is
 * written to be run again safely (IF NOT EXISTS).
 */
int
lk_schema_setup(struct store *st, int target, struct store_error *err)
{
	const struct store_ops	*o = st->s_ops;
	const char *const	*q;
	struct lk_int		 m;
	struct sval		 p;
	int			 v, rc = -1;

	for (q = o->o_steps[0]; *q != NULL; q++)
		if (o->o_exec_sql(st, *q, err) == -1)
			return (-1);
	if (o->o_ddl_trx) {
		if (lk_begin(st, err) == -1)
			return (-1);
	} else {
		memset(&m, 0, sizeof(m));
		if (lk_exec(st, "schema", S_LOCK, 0, NULL, 0, lk_int_row, &m,
		    NULL, err) == -1)
			return (-1);
		if (!m.i_found || m.i_v != 1) {
			store_seterr(err, STORE_TRANSIENT, SE_OTHER, 0,
			    "another node holds the schema lock");
			return (-1);
		}
	}
	memset(&m, 0, sizeof(m));
	if (lk_exec(st, "schema", S_META_GET, 0, NULL, 0, lk_int_row, &m,
	    NULL, err) == -1)
		goto out;
	v = m.i_found ? (int)m.i_v : 0;
	if (v > STORE_SCHEMA) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store schema "
		    "version %d is newer than this clustercron (%d); upgrade "
		    "clustercron", v, STORE_SCHEMA);
		goto out;
	}
	for (v++; v <= target; v++) {
		for (q = o->o_steps[v]; *q != NULL; q++)
			if (o->o_exec_sql(st, *q, err) == -1)
				goto out;
		p = SVI(v);
		if (lk_exec(st, "schema", S_META_SET, 0, &p, 1, NULL, NULL,
		    NULL, err) == -1)
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
	} else if (st->s_connected)
		(void)o->o_exec(st, S_UNLOCK, 0, NULL, 0, NULL, NULL, NULL,
		    &lk_scratch);
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
