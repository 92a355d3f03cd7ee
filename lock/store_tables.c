/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_tables.c: the tables ctab stores, one text per owner with a
 * version that only grows, replaced only by a writer that read the
 * version still stored (store.h).  A write whose result was lost
 * recognises itself when it is carried out again.
 */

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

static int	 table_row(void *, const struct sval *, size_t);
static int	 table_get_fn(struct store *, void *, struct store_error *);
static int	 same_text(const char *, const char *);
static int	 table_put_fn(struct store *, void *, struct store_error *);

struct table_arg {
	const char	*owner;
	const char	*text;
	int64_t		 expected;
	int64_t		 version;
	char		*got;
	int		 found;
	int		 resolve;
};

static int
table_row(void *arg, const struct sval *c, size_t n)
{
	struct table_arg	*a = arg;

	ROW_NEED(n, 2);
	a->found = 1;
	a->version = lk_int(&c[1]);
	free(a->got);
	a->got = NULL;
	if (c[0].v_type != SV_NULL &&
	    (a->got = lk_dupn(c[0].v_str, c[0].v_len)) == NULL)
		return (ROW_NOMEM);
	return (0);
}

static int
table_get_fn(struct store *st, void *arg, struct store_error *err)
{
	struct table_arg	*a = arg;
	struct sval		 p = SVS(a->owner);

	a->found = 0;
	a->version = 0;
	return (lk_exec(st, "table.get", S_TABLE_GET, 0, &p, 1, table_row, a,
	    NULL, err));
}

int
store_table_get(struct store *st, const char *owner, char **text,
    int64_t *version, struct store_error *err)
{
	struct table_arg	 a;

	err = lk_err_init(err);
	*text = NULL;
	*version = 0;
	memset(&a, 0, sizeof(a));
	a.owner = owner;
	if (lk_run(st, table_get_fn, &a, err) == -1) {
		free(a.got);
		return (-1);
	}
	*text = a.got;
	*version = a.version;
	return (0);
}

static int
same_text(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (strcmp(a, b) == 0);
}

static int
table_put_fn(struct store *st, void *arg, struct store_error *err)
{
	struct table_arg	*a = arg;
	struct sval		 p[4];
	int64_t			 changed = 0;

	if (a->expected == 0) {
		if (a->text == NULL) {
			/* Deleting nothing: fine if there is nothing. */
			if (table_get_fn(st, a, err) == -1)
				return (-1);
			if (a->found && a->got != NULL)
				goto conflict;
			a->version = a->found ? a->version : 0;
			return (0);
		}
		p[0] = SVS(a->owner);
		p[1] = SVS(a->text);
		p[2] = SVS(st->s_node);
		if (lk_exec(st, "table", S_TABLE_INSERT, 0, p, 3, NULL, NULL,
		    &changed, err) == 0) {
			a->version = 1;
			return (0);
		}
		if (err->se_kind == SE_LOST)
			a->resolve = 1;
		if (err->se_kind != SE_DUP)
			return (-1);
		memset(err, 0, sizeof(*err));
	} else {
		p[0] = SVS(a->text);
		p[1] = SVS(st->s_node);
		p[2] = SVS(a->owner);
		p[3] = SVI(a->expected);
		if (lk_exec(st, "table", S_TABLE_UPDATE, 0, p, 4, NULL, NULL,
		    &changed, err) == -1) {
			if (err->se_kind == SE_LOST)
				a->resolve = 1;
			return (-1);
		}
		if (changed == 1) {
			a->version = a->expected + 1;
			return (0);
		}
	}
	/* Not written now: perhaps by our own earlier attempt. */
	if (table_get_fn(st, a, err) == -1)
		return (-1);
	if (a->resolve && a->found && a->version == a->expected + 1 &&
	    same_text(a->got, a->text))
		return (0);
conflict:
	store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "the table of %s was "
	    "changed by someone else (now version %lld, expected %lld)",
	    a->owner, (long long)(a->found ? a->version : 0),
	    (long long)a->expected);
	return (-1);
}

int
store_table_put(struct store *st, const char *owner, const char *text,
    int64_t expected, int64_t *version, struct store_error *err)
{
	struct table_arg	 a;
	int			 rc;

	err = lk_err_init(err);
	*version = 0;
	memset(&a, 0, sizeof(a));
	a.owner = owner;
	a.text = text;
	a.expected = expected;
	rc = lk_run(st, table_put_fn, &a, err);
	free(a.got);
	if (rc == 0)
		*version = a.version;
	return (rc);
}
