/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_list.c: the listings (jobs, jobs gone, runs, nodes, tables)
 * and the rows they return.  Each kind of row is read by its row
 * callback into a growing array of its elements, which its free
 * function releases; a listing is a kind, a statement and at most two
 * parameters.  Every callback checks the row's width before it reads
 * a column.
 */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

/* The columns of SQL_JOBCOLS, SQL_GONE_LIST, ... (store_sql.h). */
#define JOB_COLS	14
#define GONE_COLS	7
#define RUN_COLS	13
#define NODE_COLS	12
#define TABLE_COLS	4
#define CLAIM_COLS	4

static void	 job_clear(struct store_job *);
static int	 job_row(void *, const struct sval *, size_t);
static int	 gone_row(void *, const struct sval *, size_t);
static int	 node_row(void *, const struct sval *, size_t);
static int	 tables_row(void *, const struct sval *, size_t);
static void	 jobs_free(void *, size_t);
static void	 runs_free(void *, size_t);
static void	 nodes_free(void *, size_t);
static void	 tables_free(void *, size_t);
static int	 claims_row(void *, const struct sval *, size_t);
static void	 claims_free(void *, size_t);
static int	 list_fn(struct store *, void *, struct store_error *);

static const struct {
	store_row_fn	 k_row;
	size_t		 k_size;
	void		(*k_free)(void *, size_t);
} list_kinds[] = {
	[LK_JOBS] = { job_row, sizeof(struct store_job), jobs_free },
	[LK_GONE] = { gone_row, sizeof(struct store_job), jobs_free },
	[LK_RUNS] = { lk_run_row, sizeof(struct store_run), runs_free },
	[LK_NODES] = { node_row, sizeof(struct store_node), nodes_free },
	[LK_TABLES] = { tables_row, sizeof(struct store_table), tables_free },
	[LK_CLAIMS] = { claims_row, sizeof(struct store_claim), claims_free },
	[LK_AT] = { lk_at_row, sizeof(struct store_atjob), lk_atjobs_free },
	[LK_AT_FULL] = { lk_at_full_row, sizeof(struct store_atjob),
	    lk_atjobs_free },
};

struct list_arg {
	enum lk_list	 kind;
	enum stmt	 s;
	const struct sval *p;
	size_t		 np;
	struct vec	 v;
};

/* Run again after a lost connection: start the array afresh. */
static int
list_fn(struct store *st, void *arg, struct store_error *err)
{
	struct list_arg	*a = arg;

	list_kinds[a->kind].k_free(a->v.v_p, a->v.v_n);
	a->v.v_p = NULL;
	a->v.v_n = a->v.v_cap = 0;
	return (lk_exec(st, "list", a->s, 0, a->p, a->np,
	    list_kinds[a->kind].k_row, &a->v, NULL, err));
}

int
lk_list(struct store *st, enum lk_list kind, enum stmt s,
    const struct sval *p, size_t np, void **out, size_t *n,
    struct store_error *err)
{
	struct list_arg	 a;

	*out = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.s = s;
	a.p = p;
	a.np = np;
	a.v.v_size = list_kinds[kind].k_size;
	if (lk_run(st, list_fn, &a, err) == -1) {
		list_kinds[kind].k_free(a.v.v_p, a.v.v_n);
		return (-1);
	}
	*out = a.v.v_p;
	*n = a.v.v_n;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Jobs. */

static void
job_clear(struct store_job *j)
{
	free(j->j_id);
	free(j->j_owner);
	free(j->j_sched);
	free(j->j_zone);
	free(j->j_cmd);
	free(j->j_claimed_by);
	free(j->j_name);
}

static int
job_row(void *arg, const struct sval *c, size_t n)
{
	struct store_job	*j;

	ROW_NEED(n, JOB_COLS);
	if ((j = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((j->j_id = strdup(lk_str(&c[0]))) == NULL ||
	    (j->j_owner = strdup(lk_str(&c[1]))) == NULL ||
	    (j->j_sched = strdup(lk_str(&c[2]))) == NULL ||
	    (j->j_zone = strdup(lk_str(&c[3]))) == NULL ||
	    (j->j_cmd = strdup(lk_str(&c[4]))) == NULL ||
	    (j->j_claimed_by = strdup(lk_str(&c[11]))) == NULL ||
	    (j->j_name = strdup(lk_str(&c[13]))) == NULL) {
		job_clear(j);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	j->j_scope = (int)lk_int(&c[5]);
	j->j_overlap = (int)lk_int(&c[6]);
	j->j_misfire = (int)lk_int(&c[7]);
	j->j_grace = (uint32_t)lk_int(&c[8]);
	j->j_paused = (int)lk_int(&c[9]);
	j->j_last_fire = (time_t)lk_int(&c[10]);
	j->j_claimed_at = lk_int(&c[12]);
	return (0);
}

/* A job that is gone: its description and when it went. */
static int
gone_row(void *arg, const struct sval *c, size_t n)
{
	struct store_job	*j;

	ROW_NEED(n, GONE_COLS);
	if ((j = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((j->j_id = strdup(lk_str(&c[0]))) == NULL ||
	    (j->j_owner = strdup(lk_str(&c[1]))) == NULL ||
	    (j->j_sched = strdup(lk_str(&c[2]))) == NULL ||
	    (j->j_zone = strdup(lk_str(&c[3]))) == NULL ||
	    (j->j_cmd = strdup(lk_str(&c[4]))) == NULL ||
	    (j->j_name = strdup(lk_str(&c[5]))) == NULL ||
	    (j->j_claimed_by = strdup("")) == NULL) {
		job_clear(j);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	j->j_gone = lk_int(&c[6]);
	return (0);
}

static void
jobs_free(void *p, size_t n)
{
	store_jobs_free(p, n);
}

void
store_jobs_free(struct store_job *j, size_t n)
{
	size_t	 i;

	if (j == NULL)
		return;
	for (i = 0; i < n; i++)
		job_clear(&j[i]);
	free(j);
}

int
store_jobs_list(struct store *st, const char *owner, struct store_job **out,
    size_t *n, struct store_error *err)
{
	struct sval	 p = SVS(owner);
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_JOBS, owner == NULL ? S_JOBS_LIST : S_JOBS_OWNER,
	    &p, owner == NULL ? 0 : 1, &v, n, err);
	*out = v;
	return (rc);
}

/* The jobs ever claimed: identity and last fire (SQL_JOBS_FIRED). */
static int
fired_row(void *arg, const struct sval *c, size_t n)
{
	struct store_fired	*f;
	const char		*id;
	time_t			 last;

	ROW_NEED(n, 2);
	if ((last = (time_t)lk_int(&c[1])) == 0)
		return (0);
	id = lk_str(&c[0]);
	if (strlen(id) > STORE_IDLEN)
		return (0);
	if ((f = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	strcpy(f->f_id, id);
	f->f_last = last;
	return (0);
}

static int
fired_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct store_fired *)a)->f_id,
	    ((const struct store_fired *)b)->f_id));
}

struct fired_arg {
	const char	*owner;
	const char	*after;
	size_t		 max;
	struct vec	 v;
};

/* Run again after a lost connection: start the array afresh. */
static int
fired_fn(struct store *st, void *arg, struct store_error *err)
{
	struct fired_arg	*a = arg;
	struct sval		 p[3];
	size_t			 np = 0;

	a->v.v_n = 0;
	if (a->owner != NULL)
		p[np++] = SVS(a->owner);
	p[np++] = SVS(a->after);
	p[np++] = SVI((int64_t)a->max);
	return (lk_exec(st, "list", a->owner == NULL ? S_JOBS_FIRED :
	    S_JOBS_FIRED_OWNER, 0, p, np, fired_row, &a->v, NULL, err));
}

int
store_jobs_fired(struct store *st, const char *owner, const char *after,
    size_t max, struct store_fired **out, size_t *n, struct store_error *err)
{
	struct fired_arg	 a;

	err = lk_err_init(err);
	*out = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.owner = owner;
	a.after = after != NULL ? after : "";
	a.max = max > INT32_MAX ? INT32_MAX : max;
	a.v.v_size = sizeof(struct store_fired);
	if (lk_run(st, fired_fn, &a, err) == -1) {
		free(a.v.v_p);
		return (-1);
	}
	/* The server's order, as C compares (ids are ASCII, binary). */
	if (a.v.v_n > 1)
		qsort(a.v.v_p, a.v.v_n, sizeof(struct store_fired),
		    fired_cmp);
	*out = a.v.v_p;
	*n = a.v.v_n;
	return (0);
}

int
store_jobs_gone(struct store *st, struct store_job **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_GONE, S_GONE_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

int
store_job_get(struct store *st, const char *id, struct store_job **out,
    struct store_error *err)
{
	struct sval	 p = SVS(id);
	void		*v;
	size_t		 n;
	int		 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_JOBS, S_JOB_GET, &p, 1, &v, &n, err);
	*out = v;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Runs. */

int
lk_run_row(void *arg, const struct sval *c, size_t n)
{
	struct store_run	*r;

	ROW_NEED(n, RUN_COLS);
	if ((r = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	r->r_id = lk_int(&c[0]);
	r->r_fire = (time_t)lk_int(&c[2]);
	r->r_attempt = (int)lk_int(&c[3]);
	r->r_pid = (int)lk_int(&c[5]);
	r->r_start = lk_int(&c[6]);
	r->r_end = lk_int(&c[7]);
	r->r_state = (enum store_run_state)lk_int(&c[8]);
	r->r_exit = (int)lk_int(&c[9]);
	r->r_signal = (int)lk_int(&c[10]);
	r->r_outlen = c[11].v_type == SV_NULL ? 0 : c[11].v_len;
	r->r_outtotal = lk_int(&c[12]);
	if ((r->r_job = strdup(lk_str(&c[1]))) == NULL ||
	    (r->r_node = strdup(lk_str(&c[4]))) == NULL ||
	    (r->r_output = lk_dupn(lk_str(&c[11]), r->r_outlen)) == NULL) {
		lk_run_clear(r);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	return (0);
}

void
lk_run_clear(struct store_run *r)
{
	free(r->r_job);
	free(r->r_node);
	free(r->r_output);
}

void
store_runs_free(struct store_run *r, size_t n)
{
	size_t	 i;

	if (r == NULL)
		return;
	for (i = 0; i < n; i++)
		lk_run_clear(&r[i]);
	free(r);
}

static void
runs_free(void *p, size_t n)
{
	store_runs_free(p, n);
}

int
store_runs_list(struct store *st, const char *job, size_t limit,
    struct store_run **out, size_t *n, struct store_error *err)
{
	struct sval	 p[2];
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	if (limit == 0 || limit > INT32_MAX)
		limit = INT32_MAX;
	p[0] = SVS(job);
	p[1] = SVI(limit);
	if (job == NULL)
		rc = lk_list(st, LK_RUNS, S_RUNS_LIST, &p[1], 1, &v, n, err);
	else
		rc = lk_list(st, LK_RUNS, S_RUNS_JOB, p, 2, &v, n, err);
	*out = v;
	return (rc);
}

int
store_runs_latest(struct store *st, struct store_run **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_RUNS, S_RUNS_LATEST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

int
store_runs_running(struct store *st, const char *node,
    struct store_run **out, size_t *n, struct store_error *err)
{
	struct sval	 p = SVS(node);
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_RUNS, node == NULL ? S_RUNS_RUNNING :
	    S_RUNS_RUNNING_NODE, &p, node == NULL ? 0 : 1, &v, n, err);
	*out = v;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Nodes. */

static int
node_row(void *arg, const struct sval *c, size_t n)
{
	struct store_node	*nd;

	ROW_NEED(n, NODE_COLS);
	if ((nd = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((nd->n_name = strdup(lk_str(&c[0]))) == NULL) {
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	nd->n_started = lk_int(&c[1]);
	nd->n_beat = lk_int(&c[2]);
	nd->n_skew = lk_int(&c[3]);
	nd->n_state = (enum store_node_state)lk_int(&c[4]);
	nd->n_running = (int)lk_int(&c[5]);
	if ((nd->n_db = strdup(lk_str(&c[6]))) == NULL ||
	    (nd->n_dbstate = strdup(lk_str(&c[7]))) == NULL) {
		free(nd->n_db);
		free(nd->n_name);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	nd->n_cover.c_from = lk_int(&c[8]);
	nd->n_cover.c_to = lk_int(&c[9]);
	nd->n_cover.c_view = (uint64_t)lk_int(&c[10]);
	nd->n_cover.c_jobs = (uint64_t)lk_int(&c[11]);
	return (0);
}

void
store_nodes_free(struct store_node *nd, size_t n)
{
	size_t	 i;

	if (nd == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(nd[i].n_name);
		free(nd[i].n_db);
		free(nd[i].n_dbstate);
	}
	free(nd);
}

static void
nodes_free(void *p, size_t n)
{
	store_nodes_free(p, n);
}

int
store_nodes_list(struct store *st, struct store_node **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_NODES, S_NODES_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Tables. */

static int
tables_row(void *arg, const struct sval *c, size_t n)
{
	struct store_table	*t;

	ROW_NEED(n, TABLE_COLS);
	if (c[1].v_type == SV_NULL)
		return (0);	/* deleted */
	if ((t = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((t->t_owner = strdup(lk_str(&c[0]))) == NULL ||
	    (t->t_text = lk_dupn(c[1].v_str, c[1].v_len)) == NULL) {
		free(t->t_owner);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	t->t_version = lk_int(&c[2]);
	t->t_updated = lk_int(&c[3]);
	return (0);
}

void
store_tables_free(struct store_table *t, size_t n)
{
	size_t	 i;

	if (t == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(t[i].t_owner);
		free(t[i].t_text);
	}
	free(t);
}

static void
tables_free(void *p, size_t n)
{
	store_tables_free(p, n);
}

int
store_tables_list(struct store *st, struct store_table **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_TABLES, S_TABLES_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Claims: the claims table as it stands, by fire then job. */

static int
claims_row(void *arg, const struct sval *c, size_t n)
{
	struct store_claim	*cl;

	ROW_NEED(n, CLAIM_COLS);
	if ((cl = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((cl->c_job = strdup(lk_str(&c[0]))) == NULL ||
	    (cl->c_node = strdup(lk_str(&c[2]))) == NULL) {
		free(cl->c_job);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	cl->c_fire = (time_t)lk_int(&c[1]);
	cl->c_at = lk_int(&c[3]);
	return (0);
}

void
store_claims_free(struct store_claim *cl, size_t n)
{
	size_t	 i;

	if (cl == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(cl[i].c_job);
		free(cl[i].c_node);
	}
	free(cl);
}

static void
claims_free(void *p, size_t n)
{
	store_claims_free(p, n);
}

int
store_claims_list(struct store *st, struct store_claim **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = lk_err_init(err);
	rc = lk_list(st, LK_CLAIMS, S_CLAIMS_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

int
store_claims_span(struct store *st, time_t from, time_t to,
    struct store_claim **out, size_t *n, struct store_error *err)
{
	struct sval	 p[2];
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	p[0] = SVI(from);
	p[1] = SVI(to);
	rc = lk_list(st, LK_CLAIMS, S_CLAIMS_SPAN, p, 2, &v, n, err);
	*out = v;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Strings. */

int
lk_str_row(void *arg, const struct sval *c, size_t n)
{
	char	**p;

	ROW_NEED(n, 1);
	if ((p = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if ((*p = strdup(lk_str(&c[0]))) == NULL) {
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	return (0);
}

void
lk_strs_free(struct vec *v)
{
	size_t	 i;

	for (i = 0; i < v->v_n; i++)
		free(((char **)v->v_p)[i]);
	free(v->v_p);
	v->v_p = NULL;
	v->v_n = v->v_cap = 0;
}
