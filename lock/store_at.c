/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_at.c: one-shot jobs, at(1) for the cluster (store.h says what
 * they are, why an attempt has one winner and why submitting twice
 * makes one job).  Each operation is safe to carry out again after a
 * lost connection and tells the truth then: a submission finds its
 * token, a claim reads the row it would have written, a cancel or an
 * end that finds its own change already made says so.
 */

#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

/* The columns of SQL_ATCOLS, and with env and cmd (store_sql.h). */
#define AT_COLS		21
#define AT_FULL_COLS	23

struct submit_arg {
	const struct store_atjob *j;
	size_t		 max_pending;
	int64_t		 id;
	int		 isnew;
};

struct peek {
	int		 p_found;
	char		*p_owner;
	int		 p_state;
	int		 p_attempt;
	char		*p_by;
};

struct at_arg {
	int64_t		 id;
	int		 attempt;
	const char	*owner;
	int		 pid;
	int64_t		 start;
	const struct store_run_end *re;
	enum store_at_state to;
	time_t		 next;
	int		 tried;		/* carried out before: may resolve */
	/* answers */
	int		 won;
	int64_t		 run;
	enum store_at_cancel res;
};

static int	 check_job(const struct store_atjob *, struct store_error *);
static int	 find_id(struct store *, enum stmt, const struct sval *,
		    size_t, int64_t *, int *, struct store_error *);
static int	 submit_fn(struct store *, void *, struct store_error *);
static void	 peek_clear(struct peek *);
static int	 peek_row(void *, const struct sval *, size_t);
static int	 peek(struct store *, int64_t, struct peek *,
		    struct store_error *);
static int	 cancel_fn(struct store *, void *, struct store_error *);
static int	 claim_fn(struct store *, void *, struct store_error *);
static int	 run_row(void *, const struct sval *, size_t);
static int	 run_find(struct store *, const char *, int64_t, int,
		    int64_t *, int *, struct store_error *);
static int	 start_fn(struct store *, void *, struct store_error *);
static int	 finish_fn(struct store *, void *, struct store_error *);
static void	 atjob_clear(struct store_atjob *);
static int	 atjob_fill(struct store_atjob *, const struct sval *);

const char *
store_at_state_name(enum store_at_state s)
{
	switch (s) {
	case AT_WAITING:
		return ("waiting");
	case AT_RUNNING:
		return ("running");
	case AT_RETRYING:
		return ("retrying");
	case AT_DONE:
		return ("done");
	case AT_FAILED:
		return ("failed");
	case AT_CANCELLED:
		return ("cancelled");
	}
	return ("unknown");
}

void
store_at_runjob(int64_t id, char *buf, size_t len)
{
	snprintf(buf, len, "at:%lld", (long long)id);
}

/* ------------------------------------------------------------------ */
/* Submitting. */

/* What a job must be before it is stored. */
static int
check_job(const struct store_atjob *j, struct store_error *err)
{
	const char	*what = NULL;
	size_t		 keylen;

	keylen = j->a_key == NULL ? 0 : strlen(j->a_key);
	if (j->a_owner == NULL || *j->a_owner == '\0' ||
	    strlen(j->a_owner) > STORE_OWNERMAX)
		what = "an owner of 1 to 255 bytes";
	else if (keylen > STORE_AT_KEYMAX)
		what = "a key of at most 128 bytes";
	else if (j->a_token == NULL || *j->a_token == '\0' ||
	    strlen(j->a_token) > STORE_AT_TOKENMAX)
		what = "a token of 1 to 64 bytes";
	else if (!isascii((unsigned char)j->a_queue) ||
	    !isalpha((unsigned char)j->a_queue))
		what = "a queue that is a letter";
	else if (j->a_backoff != NULL &&
	    strlen(j->a_backoff) > STORE_AT_BACKOFFMAX)
		what = "a back-off of at most 255 bytes";
	else if (j->a_cwd == NULL || strlen(j->a_cwd) > STORE_AT_CWDMAX)
		what = "a working directory of at most 4096 bytes";
	else if (j->a_envlen > STORE_AT_SCRIPTMAX ||
	    j->a_cmdlen > STORE_AT_SCRIPTMAX - j->a_envlen)
		what = "commands and environment of at most 1 MiB";
	else if ((j->a_envlen > 0 && j->a_env == NULL) ||
	    (j->a_cmdlen > 0 && j->a_cmd == NULL))
		what = "its environment and commands";
	else if (j->a_mail < -1 || j->a_mail > 1 || j->a_lost < 0 ||
	    j->a_lost > 1 || j->a_retries < 0 || j->a_umask < 0 ||
	    j->a_umask > 0777 || j->a_due < 0)
		what = "mail, lost, retries, umask and due time in range";
	if (what == NULL)
		return (0);
	store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL, "a one-shot job "
	    "needs %s", what);
	return (-1);
}

/* The id a statement finds, *found when it finds one. */
static int
find_id(struct store *st, enum stmt s, const struct sval *p, size_t np,
    int64_t *id, int *found, struct store_error *err)
{
	struct lk_int	 v;

	memset(&v, 0, sizeof(v));
	if (lk_exec(st, "at.submit.find", s, 0, p, np, lk_int_row, &v, NULL,
	    err) == -1)
		return (-1);
	*id = v.i_v;
	*found = v.i_found;
	return (0);
}

/*
 * One transaction: the token (this submission, made before and its
 * answer lost), then the owner's key (the job the key names), then the
 * limit, then the new row.  On MariaDB two submissions of one key can
 * both find none and insert: the second waits on the unique index and
 * fails as a duplicate once the first commits, and reads the job.
 */
static int
submit_fn(struct store *st, void *arg, struct store_error *err)
{
	struct submit_arg		*a = arg;
	const struct store_atjob	*j = a->j;
	struct sval			 p[AT_NINSERT];
	const char			*key;
	char				 queue[2];
	int64_t				 n;
	int				 found, dup = 0;

	a->id = 0;
	a->isnew = 0;
	key = j->a_key != NULL && *j->a_key != '\0' ? j->a_key : NULL;
	if (lk_begin(st, err) == -1)
		return (-1);
again:
	p[0] = SVS(j->a_token);
	p[1] = SVS(j->a_owner);
	if (find_id(st, S_AT_BY_TOKEN, p, 2, &a->id, &found, err) == -1)
		return (-1);
	if (found) {
		a->isnew = 1;
		return (lk_commit(st, "at.submit", err));
	}
	if (key != NULL) {
		p[0] = SVS(j->a_owner);
		p[1] = SVS(key);
		if (find_id(st, S_AT_BY_KEY, p, 2, &a->id, &found, err) == -1)
			return (-1);
		if (found)
			return (lk_commit(st, "at.submit", err));
	}
	if (dup) {
		/* Another owner's token: refused, and told nothing of it. */
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "a one-shot job "
		    "of %s: its token is taken", j->a_owner);
		return (-1);
	}
	if (a->max_pending > 0) {
		p[0] = SVS(j->a_owner);
		if (find_id(st, S_AT_PENDING, p, 1, &n, &found, err) == -1)
			return (-1);
		if (n >= 0 && (size_t)n >= a->max_pending) {
			store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "%s has "
			    "%lld one-shot jobs pending, the most allowed",
			    j->a_owner, (long long)n);
			return (-1);
		}
	}
	p[0] = SVS(j->a_owner);
	p[1] = SVS(key);
	p[2] = SVS(j->a_token);
	queue[0] = j->a_queue;
	queue[1] = '\0';
	p[3] = SVS(queue);
	p[4] = SVI(j->a_due);
	p[5] = SVI(j->a_due);
	p[6] = SVI(j->a_retries);
	p[7] = SVS(j->a_backoff != NULL ? j->a_backoff : "");
	p[8] = SVI(j->a_mail);
	p[9] = SVI(j->a_lost);
	p[10] = SVI(j->a_umask);
	p[11] = SVB(j->a_cwd, strlen(j->a_cwd));
	p[12] = SVB(j->a_env != NULL ? j->a_env : "", j->a_envlen);
	p[13] = SVB(j->a_cmd != NULL ? j->a_cmd : "", j->a_cmdlen);
	p[14] = SVS(st->s_node);
	if (lk_exec(st, "at.submit", S_AT_INSERT, 0, p, AT_NINSERT, NULL,
	    NULL, NULL, err) == -1) {
		if (err->se_kind != SE_DUP)
			return (-1);
		/* Another submission of the key (or token) got there. */
		memset(err, 0, sizeof(*err));
		dup = 1;
		goto again;
	}
	a->id = st->s_ops->o_insert_id(st);
	a->isnew = 1;
	return (lk_commit(st, "at.submit", err));
}

int
store_at_submit(struct store *st, const struct store_atjob *j,
    size_t max_pending, int64_t *id, int *isnew, struct store_error *err)
{
	struct submit_arg	 a;

	err = lk_err_init(err);
	*id = 0;
	*isnew = 0;
	if (check_job(j, err) == -1)
		return (-1);
	memset(&a, 0, sizeof(a));
	a.j = j;
	a.max_pending = max_pending;
	if (lk_run(st, submit_fn, &a, err) == -1)
		return (-1);
	*id = a.id;
	*isnew = a.isnew;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Reading. */

static void
atjob_clear(struct store_atjob *j)
{
	free(j->a_owner);
	free(j->a_key);
	free(j->a_token);
	free(j->a_backoff);
	free(j->a_cwd);
	free(j->a_env);
	free(j->a_cmd);
	free(j->a_node);
	free(j->a_claimed_by);
	memset(j, 0, sizeof(*j));
}

/* The columns of SQL_ATCOLS into j; -1 when out of memory. */
static int
atjob_fill(struct store_atjob *j, const struct sval *c)
{
	const char	*q;

	j->a_id = lk_int(&c[0]);
	q = lk_str(&c[4]);
	j->a_queue = *q != '\0' ? *q : 'a';
	j->a_due = (time_t)lk_int(&c[5]);
	j->a_next = (time_t)lk_int(&c[6]);
	j->a_state = (enum store_at_state)lk_int(&c[7]);
	j->a_attempt = (int)lk_int(&c[8]);
	j->a_retries = (int)lk_int(&c[9]);
	j->a_mail = (int)lk_int(&c[11]);
	j->a_lost = (int)lk_int(&c[12]);
	j->a_umask = (int)lk_int(&c[13]);
	j->a_claimed_at = lk_int(&c[17]);
	j->a_created = lk_int(&c[18]);
	j->a_updated = lk_int(&c[19]);
	j->a_fenced = (int)lk_int(&c[20]);
	if ((j->a_owner = strdup(lk_str(&c[1]))) == NULL ||
	    (j->a_key = strdup(lk_str(&c[2]))) == NULL ||
	    (j->a_token = strdup(lk_str(&c[3]))) == NULL ||
	    (j->a_backoff = strdup(lk_str(&c[10]))) == NULL ||
	    (j->a_cwd = lk_dupn(c[14].v_type == SV_NULL ? NULL : c[14].v_str,
	    c[14].v_len)) == NULL ||
	    (j->a_node = strdup(lk_str(&c[15]))) == NULL ||
	    (j->a_claimed_by = strdup(lk_str(&c[16]))) == NULL)
		return (-1);
	return (0);
}

int
lk_at_row(void *arg, const struct sval *c, size_t n)
{
	struct store_atjob	*j;

	ROW_NEED(n, AT_COLS);
	if ((j = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if (atjob_fill(j, c) == -1) {
		atjob_clear(j);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	return (0);
}

int
lk_at_full_row(void *arg, const struct sval *c, size_t n)
{
	struct store_atjob	*j;
	const struct sval	*env = &c[AT_COLS], *cmd = &c[AT_COLS + 1];

	ROW_NEED(n, AT_FULL_COLS);
	if ((j = lk_vec_push(arg)) == NULL)
		return (ROW_NOMEM);
	if (atjob_fill(j, c) == -1 ||
	    (j->a_env = lk_dupn(env->v_type == SV_NULL ? NULL : env->v_str,
	    env->v_len)) == NULL ||
	    (j->a_cmd = lk_dupn(cmd->v_type == SV_NULL ? NULL : cmd->v_str,
	    cmd->v_len)) == NULL) {
		atjob_clear(j);
		lk_vec_pop(arg);
		return (ROW_NOMEM);
	}
	j->a_envlen = env->v_type == SV_NULL ? 0 : env->v_len;
	j->a_cmdlen = cmd->v_type == SV_NULL ? 0 : cmd->v_len;
	return (0);
}

void
lk_atjobs_free(void *p, size_t n)
{
	store_atjobs_free(p, n);
}

void
store_atjobs_free(struct store_atjob *j, size_t n)
{
	size_t	 i;

	if (j == NULL)
		return;
	for (i = 0; i < n; i++)
		atjob_clear(&j[i]);
	free(j);
}

int
store_at_get(struct store *st, int64_t id, struct store_atjob **out,
    struct store_error *err)
{
	struct sval	 p = SVI(id);
	size_t		 n;
	void		*v;

	err = lk_err_init(err);
	*out = NULL;
	if (lk_list(st, LK_AT_FULL, S_AT_GET, &p, 1, &v, &n, err) == -1)
		return (-1);
	*out = v;
	return (0);
}

int
store_at_list(struct store *st, const char *owner, int all,
    struct store_atjob **out, size_t *n, struct store_error *err)
{
	struct sval	 p = SVS(owner);
	enum stmt	 s;
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	if (owner == NULL)
		s = all ? S_AT_LIST_ALL : S_AT_LIST;
	else
		s = all ? S_AT_LIST_OWNER_ALL : S_AT_LIST_OWNER;
	rc = lk_list(st, LK_AT, s, &p, owner == NULL ? 0 : 1, &v, n, err);
	*out = v;
	return (rc);
}

int
store_at_heads(struct store *st, const char *owner, int all,
    struct store_atjob **out, size_t *n, struct store_error *err)
{
	struct sval	 p[4];
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	p[0] = SVI(STORE_AT_HEADMAX);
	p[1] = SVS(owner);
	p[2] = SVS(owner);
	p[3] = SVI(all != 0);
	rc = lk_list(st, LK_AT_FULL, S_AT_HEADS, p, 4, &v, n, err);
	*out = v;
	return (rc);
}

int
store_at_due(struct store *st, time_t before, size_t max,
    struct store_atjob **out, size_t *n, struct store_error *err)
{
	struct sval	 p[2];
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	p[0] = SVI(before);
	p[1] = SVI(max == 0 || max > INT64_MAX ? INT64_MAX : (int64_t)max);
	rc = lk_list(st, LK_AT_FULL, S_AT_DUE, p, 2, &v, n, err);
	*out = v;
	return (rc);
}

int
store_at_lost(struct store *st, size_t max, struct store_atjob **out,
    size_t *n, struct store_error *err)
{
	struct sval	 p;
	void		*v;
	int		 rc;

	err = lk_err_init(err);
	p = SVI(max == 0 || max > INT64_MAX ? INT64_MAX : (int64_t)max);
	rc = lk_list(st, LK_AT_FULL, S_AT_LOST, &p, 1, &v, n, err);
	*out = v;
	return (rc);
}

int
store_at_next(struct store *st, time_t *next, struct store_error *err)
{
	int64_t	 v;

	err = lk_err_init(err);
	*next = 0;
	if (lk_op_int(st, "at.next", S_AT_NEXT, NULL, 0, &v, NULL, err) == -1)
		return (-1);
	*next = (time_t)v;
	return (0);
}

int
store_at_pending(struct store *st, const char *owner, size_t *n,
    struct store_error *err)
{
	struct sval	 p = SVS(owner);
	int64_t		 v;

	err = lk_err_init(err);
	*n = 0;
	if (lk_op_int(st, "list", S_AT_PENDING, &p, 1, &v, NULL, err) == -1)
		return (-1);
	*n = (size_t)v;
	return (0);
}

/* ------------------------------------------------------------------ */
/* The row as it stands: who owns it, its state, attempt, claimant. */

static void
peek_clear(struct peek *k)
{
	free(k->p_owner);
	free(k->p_by);
	memset(k, 0, sizeof(*k));
}

static int
peek_row(void *arg, const struct sval *c, size_t n)
{
	struct peek	*k = arg;

	ROW_NEED(n, 4);
	peek_clear(k);
	k->p_found = 1;
	k->p_state = (int)lk_int(&c[1]);
	k->p_attempt = (int)lk_int(&c[2]);
	if ((k->p_owner = strdup(lk_str(&c[0]))) == NULL ||
	    (k->p_by = strdup(lk_str(&c[3]))) == NULL)
		return (ROW_NOMEM);
	return (0);
}

static int
peek(struct store *st, int64_t id, struct peek *k, struct store_error *err)
{
	struct sval	 p = SVI(id);

	peek_clear(k);
	return (lk_exec(st, "at.peek", S_AT_PEEK, 0, &p, 1, peek_row, k,
	    NULL, err));
}

/* ------------------------------------------------------------------ */
/* Cancelling. */

static int
cancel_fn(struct store *st, void *arg, struct store_error *err)
{
	struct at_arg	*a = arg;
	struct peek	 k;
	struct sval	 p[3];
	int64_t		 changed;
	int		 rc, again = a->tried;

	a->tried = 1;
	p[0] = SVI(a->id);
	p[1] = SVS(a->owner);
	p[2] = SVS(a->owner);
	if (lk_exec(st, "at.cancel", S_AT_CANCEL, 0, p, 3, NULL, NULL,
	    &changed, err) == -1)
		return (-1);
	if (changed == 1) {
		a->res = AT_CANCEL_DONE;
		return (0);
	}
	memset(&k, 0, sizeof(k));
	if ((rc = peek(st, a->id, &k, err)) == 0) {
		if (!k.p_found)
			a->res = AT_CANCEL_NONE;
		else if (a->owner != NULL && strcmp(k.p_owner, a->owner) != 0)
			a->res = AT_CANCEL_NOTOWNER;
		else if (k.p_state == AT_RUNNING)
			a->res = AT_CANCEL_RUNNING;
		else if (k.p_state == AT_CANCELLED && again)
			a->res = AT_CANCEL_DONE;
		else
			a->res = AT_CANCEL_FINISHED;
	}
	peek_clear(&k);
	return (rc);
}

int
store_at_cancel(struct store *st, int64_t id, const char *owner,
    enum store_at_cancel *res, struct store_error *err)
{
	struct at_arg	 a;

	err = lk_err_init(err);
	*res = AT_CANCEL_NONE;
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.owner = owner;
	if (lk_run(st, cancel_fn, &a, err) == -1)
		return (-1);
	*res = a.res;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Attempts: the claim, the start, the end. */

/*
 * One transaction: the conditional write decides and, when it won,
 * the attempt's run is written.  When it changed nothing the row is
 * read: an earlier call of ours whose result was lost may have won.
 */
static int
claim_fn(struct store *st, void *arg, struct store_error *err)
{
	struct at_arg	*a = arg;
	struct peek	 k;
	struct sval	 p[4];
	char		 job[STORE_AT_RUNJOBLEN];
	int64_t		 changed;
	int		 rc;

	a->won = 0;
	if (lk_begin(st, err) == -1)
		return (-1);
	p[0] = SVI(a->attempt);
	p[1] = SVS(st->s_node);
	p[2] = SVI(a->id);
	p[3] = SVI(a->attempt - 1);
	if (lk_exec(st, "at.claim", S_AT_CLAIM, 0, p, 4, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed == 1) {
		store_at_runjob(a->id, job, sizeof(job));
		p[0] = SVS(job);
		p[1] = SVI(a->attempt);
		p[2] = SVS(st->s_node);
		p[3] = SVI(a->id);
		if (lk_exec(st, "at.claim.run", S_AT_RUN_INSERT, 0, p, 4, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
		if (lk_commit(st, "at.claim", err) == -1)
			return (-1);
		a->won = 1;
		return (0);
	}
	if (lk_commit(st, "at.claim", err) == -1)
		return (-1);
	memset(&k, 0, sizeof(k));
	if ((rc = peek(st, a->id, &k, err)) == 0)
		a->won = k.p_found && k.p_state == AT_RUNNING &&
		    k.p_attempt == a->attempt &&
		    strcmp(k.p_by, st->s_node) == 0;
	peek_clear(&k);
	return (rc);
}

int
store_at_claim(struct store *st, int64_t id, int attempt, int *won,
    struct store_error *err)
{
	struct at_arg	 a;

	err = lk_err_init(err);
	*won = 0;
	if (attempt < 1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "attempts count from 1");
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.attempt = attempt;
	if (lk_run(st, claim_fn, &a, err) == -1)
		return (-1);
	*won = a.won;
	return (0);
}

struct run_find {
	int	 f_found;
	int64_t	 f_id;
	int64_t	 f_pid;
};

static int
run_row(void *arg, const struct sval *c, size_t n)
{
	struct run_find	*f = arg;

	ROW_NEED(n, 2);
	f->f_found = 1;
	f->f_id = lk_int(&c[0]);
	f->f_pid = lk_int(&c[1]);
	return (0);
}

/* This node's run of an attempt: *id, and *pid its recorded pid. */
static int
run_find(struct store *st, const char *point, int64_t job, int attempt,
    int64_t *id, int *pid, struct store_error *err)
{
	struct run_find	 f;
	struct sval	 p[3];
	char		 name[STORE_AT_RUNJOBLEN];

	store_at_runjob(job, name, sizeof(name));
	p[0] = SVS(name);
	p[1] = SVI(attempt);
	p[2] = SVS(st->s_node);
	memset(&f, 0, sizeof(f));
	if (lk_exec(st, point, S_AT_RUN_FIND, 0, p, 3, run_row, &f, NULL,
	    err) == -1)
		return (-1);
	if (!f.f_found) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "attempt %d of "
		    "one-shot job %lld was not claimed by node %s", attempt,
		    (long long)job, st->s_node);
		return (-1);
	}
	*id = f.f_id;
	*pid = (int)f.f_pid;
	return (0);
}

static int
start_fn(struct store *st, void *arg, struct store_error *err)
{
	struct at_arg	*a = arg;
	struct sval	 p[3];
	int		 pid;

	if (run_find(st, "at.start.find", a->id, a->attempt, &a->run, &pid,
	    err) == -1)
		return (-1);
	if (pid != 0)
		return (0);
	p[0] = SVI(a->pid);
	p[1] = SVI(a->start);
	p[2] = SVI(a->run);
	return (lk_exec(st, "at.start", S_RUN_FILL, 0, p, 3, NULL, NULL, NULL,
	    err));
}

int
store_at_start(struct store *st, int64_t id, int attempt, int pid,
    int64_t start, int64_t *run, struct store_error *err)
{
	struct at_arg	 a;

	err = lk_err_init(err);
	*run = 0;
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.attempt = attempt;
	a.pid = pid;
	a.start = start;
	if (lk_run(st, start_fn, &a, err) == -1)
		return (-1);
	*run = a.run;
	return (0);
}

/*
 * One transaction: the run's end, then the conditional move of the
 * job's row.  Carried out again after a lost connection, both change
 * nothing; the row then tells whether the earlier attempt moved it.
 */
static int
finish_fn(struct store *st, void *arg, struct store_error *err)
{
	struct at_arg			*a = arg;
	const struct store_run_end	*re = a->re;
	struct peek			 k;
	struct sval			 p[6];
	char				 job[STORE_AT_RUNJOBLEN];
	size_t				 keep;
	int64_t				 changed;
	int				 pid, rc, again = a->tried;

	a->tried = 1;
	a->won = 0;
	if (lk_begin(st, err) == -1)
		return (-1);
	if (re != NULL) {
		if (run_find(st, "at.finish.find", a->id, a->attempt, &a->run,
		    &pid, err) == -1)
			return (-1);
		if (re->re_status == STORE_AT_NOSTART ||
		    re->re_status == STORE_AT_FENCED) {
			/* Why it did not start, as its output. */
			keep = re->re_outlen < st->s_output_max ?
			    re->re_outlen : st->s_output_max;
			p[0] = SVI(re->re_end);
			p[1] = SVI(re->re_end);
			p[2] = SVI(re->re_status == STORE_AT_FENCED ?
			    RUN_MISSED : RUN_FAILED);
			p[3] = SVB(re->re_out != NULL ? re->re_out : "",
			    re->re_out != NULL ? keep : 0);
			p[4] = SVI(re->re_outlen);
			p[5] = SVI(a->run);
			if (lk_exec(st, "at.finish.run", S_AT_RUN_NOSTART, 0, p,
			    6, NULL, NULL, NULL, err) == -1)
				return (-1);
			goto move;
		}
		p[0] = SVI(re->re_end);
		if (WIFSIGNALED(re->re_status)) {
			p[1] = SVI(-1);
			p[2] = SVI(WTERMSIG(re->re_status));
		} else {
			p[1] = SVI(WEXITSTATUS(re->re_status));
			p[2] = SVI(0);
		}
		keep = re->re_outlen < st->s_output_max ? re->re_outlen :
		    st->s_output_max;
		p[3] = SVB(re->re_out != NULL ? re->re_out : "",
		    re->re_out != NULL ? keep : 0);
		p[4] = SVI(re->re_outlen);
		p[5] = SVI(a->run);
		if (lk_exec(st, "at.finish.run", S_RUN_END, 0, p, 6, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	} else {
		store_at_runjob(a->id, job, sizeof(job));
		p[0] = SVS(st->s_node);
		p[1] = SVS(job);
		p[2] = SVI(a->attempt);
		if (lk_exec(st, "at.finish.run", S_AT_RUN_LOSE, 0, p, 3, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	}
move:
	p[0] = SVI(a->to);
	p[1] = SVI(a->to == AT_RETRYING ? a->next : 0);
	p[2] = p[1];
	p[3] = SVI(a->id);
	p[4] = SVI(a->attempt);
	if (lk_exec(st, "at.finish", S_AT_MOVE, 0, p, 5, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (lk_commit(st, "at.finish", err) == -1)
		return (-1);
	if (changed == 1 || !again) {
		a->won = changed == 1;
		return (0);
	}
	memset(&k, 0, sizeof(k));
	if ((rc = peek(st, a->id, &k, err)) == 0)
		a->won = k.p_found && k.p_attempt == a->attempt &&
		    k.p_state == (int)a->to && strcmp(k.p_by, st->s_node) == 0;
	peek_clear(&k);
	return (rc);
}

int
store_at_finish(struct store *st, int64_t id, int attempt,
    const struct store_run_end *re, enum store_at_state to, time_t next,
    int *moved, struct store_error *err)
{
	struct at_arg	 a;

	err = lk_err_init(err);
	*moved = 0;
	if (attempt < 1 || (to != AT_DONE && to != AT_FAILED &&
	    to != AT_RETRYING) || (to == AT_RETRYING && next <= 0)) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL, "an attempt "
		    "(from 1) ends done, failed, or retrying at a time");
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.attempt = attempt;
	a.re = re;
	a.to = to;
	a.next = next;
	if (lk_run(st, finish_fn, &a, err) == -1)
		return (-1);
	*moved = a.won;
	return (0);
}
