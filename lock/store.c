/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store.c: the part of the store both backends share.  It reads the
 * URL and picks the backend, creates and migrates the schema, and
 * holds the logic of every operation: the backends only carry out
 * numbered statements (store_int.h), so a claim, its resolution after
 * a lost connection, the retries and the fault points are written once.
 *
 * Failure handling.  Every public operation runs through run_op(),
 * which (re)connects with back-off, runs the operation's body, rolls
 * back an open transaction on failure, retries a deadlock up to
 * sc_retries times (a lock wait that timed out once) and, after a lost
 * connection, reconnects once
 * at once and runs the body again.  Each body is written so that
 * running it again after a lost result is safe and tells the truth:
 * claims read their claims row (see store.h), run starts find their
 * own row by its unique key, table updates recognise their own write.
 * When the reconnection fails the operation returns an error with
 * se_lost set and later calls retry connecting no sooner than the
 * back-off allows (50 ms doubling to 5 s).
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define BACKOFF_MIN	50
#define BACKOFF_MAX	5000
#define OPTFILE_MAX	(1024 * 1024)

struct batch_arg;
struct claim_arg;
struct count_arg;
struct runs_arg;
struct vec;
struct wtrx;

/* The kinds of rows the listings return (see list_get()). */
enum list_kind { LK_JOBS, LK_GONE, LK_RUNS, LK_NODES, LK_TABLES, LK_CLAIMS };

typedef int	(*op_fn)(struct store *, void *, struct store_error *);

static int	 run_op(struct store *, op_fn, void *, struct store_error *);
static int	 store_ready(struct store *, struct store_error *);
static void	 mark_lost(struct store *);
static int	 xexec(struct store *, const char *, enum stmt, size_t,
		    const struct sval *, size_t, store_row_fn, void *,
		    int64_t *, struct store_error *);
static int	 xbegin(struct store *, struct store_error *);
static int	 xcommit(struct store *, const char *, struct store_error *);
static enum store_fault fault_at(const char *, const char *);
static int	 parse_url(struct store *, const char *, struct store_error *);
static int	 check_optfile(const char *, struct store_error *);
static int	 schema_setup(struct store *, int, struct store_error *);
static int	 cut_row(void *, const struct sval *, size_t);
static size_t	 piece(size_t, size_t);
static char	*dupn(const char *, size_t);
static struct store_error *err_init(struct store_error *);
static void	 retry_pause(unsigned int);
static const char *str_of(const struct sval *);
static int64_t	 int_of(const struct sval *);
static void	*vec_push(struct vec *);
static int	 nomem(struct store_error *);
static int	 meta_row(void *, const struct sval *, size_t);
static int	 version_fn(struct store *, void *, struct store_error *);
static int	 force_fn(struct store *, void *, struct store_error *);
static int	 seed_fn(struct store *, void *, struct store_error *);
static int	 now_fn(struct store *, void *, struct store_error *);
static struct sval clip(const char *, size_t);
static int64_t	 job_digest(const struct store_job *);
static int	 digest_row(void *, const struct sval *, size_t);
static int	 digest_cmp(const void *, const void *);
static void	 digests_free(struct vec *);
static int	 jobs_locked(struct store *, op_fn, void *,
		    struct store_error *);
static int	 wtrx_begin(struct store *, struct wtrx *,
		    struct store_error *);
static int	 wtrx_add(struct store *, struct wtrx *, size_t,
		    struct store_error *);
static int	 wtrx_end(struct store *, struct wtrx *,
		    struct store_error *);
static int	 str_cmp(const void *, const void *);
static int	 holds_add(struct store *, const char *const *, size_t,
		    struct wtrx *, struct store_error *);
static int	 holds_drop(struct store *, const char *const *, size_t,
		    struct wtrx *, size_t *, struct store_error *);
static int	 reg_fn(struct store *, void *, struct store_error *);
static int	 reg_locked(struct store *, void *, struct store_error *);
static int	 reg_check(const struct store_job *, size_t,
		    struct store_error *);
static int	 rel_fn(struct store *, void *, struct store_error *);
static int	 rel_locked(struct store *, void *, struct store_error *);
static int	 gone_row(void *, const struct sval *, size_t);
static int	 job_row(void *, const struct sval *, size_t);
static int	 list_fn(struct store *, void *, struct store_error *);
static int	 list_get(struct store *, enum list_kind, enum stmt,
		    const struct sval *, size_t, void **, size_t *,
		    struct store_error *);
static void	 jobs_free(void *, size_t);
static int	 count_row(void *, const struct sval *, size_t);
static int	 pause_fn(struct store *, void *, struct store_error *);
static int	 uncertain_find(struct store *, const char *, time_t);
static void	 uncertain_add(struct store *, const char *, time_t);
static void	 uncertain_del(struct store *, const char *, time_t);
static int	 claim_row(void *, const struct sval *, size_t);
static int	 claim_read(struct store *, struct claim_arg *,
		    struct store_error *);
static int	 claim_fn(struct store *, void *, struct store_error *);
static int	 batch_row(void *, const struct sval *, size_t);
static int	 idx_cmp(const void *, const void *);
static void	 batch_sort(struct batch_arg *);
static size_t	 pad_ids(struct store *, struct sval *, size_t,
		    const char *const *, const size_t *, size_t);
static int	 batch_resolve(struct store *, struct batch_arg *,
		    struct sval *, size_t, struct store_error *);
static int	 batch_fn(struct store *, void *, struct store_error *);
static int	 hint_row(void *, const struct sval *, size_t);
static int	 hint_fn(struct store *, void *, struct store_error *);
static void	 batch_hint(struct store *, struct batch_arg *);
static int	 find_row(void *, const struct sval *, size_t);
static int	 starts_fn(struct store *, void *, struct store_error *);
static int	 ends_fn(struct store *, void *, struct store_error *);
static int	 note_fn(struct store *, void *, struct store_error *);
static int	 fail_fn(struct store *, void *, struct store_error *);
static int	 run_row(void *, const struct sval *, size_t);
static void	 run_clear(struct store_run *);
static void	 runs_free(void *, size_t);
static int	 busy_fn(struct store *, void *, struct store_error *);
static int	 beat_row(void *, const struct sval *, size_t);
static int	 beat_fn(struct store *, void *, struct store_error *);
static int	 drain_fn(struct store *, void *, struct store_error *);
static int	 node_row(void *, const struct sval *, size_t);
static void	 nodes_free(void *, size_t);
static void	 lostids_add(struct store *, int64_t);
static int	 lost_fn(struct store *, void *, struct store_error *);
static int	 holder_row(void *, const struct sval *, size_t);
static int	 lease_take(struct store *, struct count_arg *,
		    struct store_error *);
static int	 lease_fn(struct store *, void *, struct store_error *);
static int	 drop_fn(struct store *, void *, struct store_error *);
static int	 trimjob_row(void *, const struct sval *, size_t);
static void	 strs_free(struct vec *);
static int	 trim_fn(struct store *, void *, struct store_error *);
static int	 trim_rest(struct store *, struct count_arg *,
		    struct store_error *);
static int	 trim_claims(struct store *, struct count_arg *,
		    struct store_error *);
static int	 table_row(void *, const struct sval *, size_t);
static int	 table_get_fn(struct store *, void *, struct store_error *);
static int	 same_text(const char *, const char *);
static int	 table_put_fn(struct store *, void *, struct store_error *);
static int	 tables_row(void *, const struct sval *, size_t);
static void	 tables_free(void *, size_t);
static int	 claims_row(void *, const struct sval *, size_t);
static void	 claims_free(void *, size_t);

/* Values. */
#define SVI(x)	((struct sval){ SV_INT, (int64_t)(x), NULL, 0 })
#define SVS(s)	((struct sval){ (s) == NULL ? SV_NULL : SV_TEXT, 0, (s), \
		    (s) == NULL ? 0 : strlen(s) })
#define SVB(p, n) ((struct sval){ SV_BLOB, 0, (p), (n) })

static struct store_error	 dummy_err;

/* ------------------------------------------------------------------ */
/* Errors. */

void
store_seterr(struct store_error *err, enum store_class cls, int kind,
    int code, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return;
	err->se_class = cls;
	err->se_kind = kind;
	err->se_code = code;
	err->se_lost = kind == SE_LOST;
	va_start(ap, fmt);
	vsnprintf(err->se_msg, sizeof(err->se_msg), fmt, ap);
	va_end(ap);
}

static struct store_error *
err_init(struct store_error *err)
{
	if (err == NULL)
		err = &dummy_err;
	memset(err, 0, sizeof(*err));
	return (err);
}

/* ------------------------------------------------------------------ */
/* The fault hook. */

#define FAULT_MAX	4
static struct {
	char		 f_point[64];
	unsigned int	 f_nth;
	enum store_fault f_kind;
}			 faults[FAULT_MAX];
static int		 nfaults;
static unsigned int	 fault_hits;

static const char *const fault_points[] = {
	"claim.before", "claim.after",
	"claim.commit.before", "claim.commit.after",
	"claim.note.before", "claim.note.after",
	"claim.read.before", "claim.read.after",
	"batch.mine.before", "batch.mine.after",
	"batch.select.before", "batch.select.after",
	"batch.update.before", "batch.update.after",
	"batch.note.before", "batch.note.after",
	"batch.commit.before", "batch.commit.after",
	"batch.hint.before", "batch.hint.after",
	"run_start.before", "run_start.after",
	"run_start.commit.before", "run_start.commit.after",
	"run_start.find.before", "run_start.find.after",
	"run_end.before", "run_end.after",
	"run_end.commit.before", "run_end.commit.after",
	"run_fail.before", "run_fail.after",
	"lost.before", "lost.after",
	"lost.commit.before", "lost.commit.after",
	"lost.mine.before", "lost.mine.after",
	"jobs.lock.before", "jobs.lock.after",
	"register.scan.before", "register.scan.after",
	"register.before", "register.after",
	"hold.before", "hold.after",
	"register.commit.before", "register.commit.after",
	"release.before", "release.after",
	"release.commit.before", "release.commit.after",
	"beat.read.before", "beat.read.after",
	"beat.before", "beat.after",
	"table.before", "table.after",
	"connect.before",
	NULL
};

void
store_fault_set(const char *point, unsigned int nth, enum store_fault kind)
{
	nfaults = 0;
	fault_hits = 0;
	store_fault_add(point, nth, kind);
}

void
store_fault_add(const char *point, unsigned int nth, enum store_fault kind)
{
	if (kind == STORE_FAULT_NONE || nfaults == FAULT_MAX)
		return;
	strlcpy(faults[nfaults].f_point, point == NULL ? "*" : point,
	    sizeof(faults[nfaults].f_point));
	faults[nfaults].f_nth = nth == 0 ? 1 : nth;
	faults[nfaults].f_kind = kind;
	nfaults++;
}

const char *const *
store_fault_points(void)
{
	return (fault_points);
}

unsigned int
store_fault_hits(void)
{
	return (fault_hits);
}

static enum store_fault
fault_at(const char *point, const char *phase)
{
	char		 name[64];
	enum store_fault kind;
	int		 i;

	if (nfaults == 0)
		return (STORE_FAULT_NONE);
	snprintf(name, sizeof(name), "%s.%s", point, phase);
	for (i = 0; i < nfaults; i++) {
		if (strcmp(faults[i].f_point, "*") != 0 &&
		    strcmp(faults[i].f_point, name) != 0)
			continue;
		if (--faults[i].f_nth > 0)
			continue;
		fault_hits++;
		kind = faults[i].f_kind;
		memmove(&faults[i], &faults[i + 1],
		    (nfaults - i - 1) * sizeof(faults[0]));
		nfaults--;
		return (kind);
	}
	return (STORE_FAULT_NONE);
}

/* ------------------------------------------------------------------ */
/* Statements, transactions, connection. */

static void
mark_lost(struct store *st)
{
	if (st->s_connected)
		st->s_ops->o_disconnect(st);
	st->s_connected = 0;
	st->s_in_trx = 0;
}

/*
 * Carry out one statement at a named fault point: "<point>.before" is
 * checked before the statement, "<point>.after" once it has been
 * carried out (a drop there loses a result the server has committed).
 */
static int
xexec(struct store *st, const char *point, enum stmt s, size_t n,
    const struct sval *p, size_t np, store_row_fn row, void *arg,
    int64_t *changed, struct store_error *err)
{
	enum store_fault f;

	if (changed != NULL)
		*changed = 0;
	if (!st->s_connected) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store");
		return (-1);
	}
	switch ((f = fault_at(point, "before"))) {
	case STORE_FAULT_DROP:
		st->s_ops->o_sever(st);
		break;
	case STORE_FAULT_RETRY:
		store_seterr(err, STORE_TRANSIENT, SE_RETRY, 0,
		    "injected deadlock at %s", point);
		return (-1);
	case STORE_FAULT_FAIL:
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "injected failure at %s", point);
		return (-1);
	case STORE_FAULT_STOP:
		raise(SIGSTOP);
		break;
	case STORE_FAULT_NONE:
		break;
	}
	if (st->s_ops->o_exec(st, s, n, p, np, row, arg, changed, err) == -1) {
		if (err->se_kind == SE_LOST)
			mark_lost(st);
		return (-1);
	}
	if ((f = fault_at(point, "after")) == STORE_FAULT_STOP)
		raise(SIGSTOP);
	if (f == STORE_FAULT_DROP) {
		st->s_ops->o_sever(st);
		mark_lost(st);
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "connection lost after %s (injected)", point);
		return (-1);
	}
	return (0);
}

static int
xbegin(struct store *st, struct store_error *err)
{
	if (!st->s_connected) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store");
		return (-1);
	}
	if (st->s_ops->o_begin(st, err) == -1) {
		if (err->se_kind == SE_LOST)
			mark_lost(st);
		return (-1);
	}
	st->s_in_trx = 1;
	return (0);
}

static int
xcommit(struct store *st, const char *point, struct store_error *err)
{
	char		 name[48];
	enum store_fault f;

	name[0] = '\0';
	if (nfaults > 0)
		snprintf(name, sizeof(name), "%s.commit", point);
	if ((f = fault_at(name, "before")) == STORE_FAULT_DROP)
		st->s_ops->o_sever(st);
	else if (f == STORE_FAULT_STOP)
		raise(SIGSTOP);
	if (st->s_ops->o_commit(st, err) == -1) {
		if (err->se_kind == SE_LOST)
			mark_lost(st);
		return (-1);
	}
	st->s_in_trx = 0;
	if ((f = fault_at(name, "after")) == STORE_FAULT_STOP)
		raise(SIGSTOP);
	if (f == STORE_FAULT_DROP) {
		st->s_ops->o_sever(st);
		mark_lost(st);
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "connection lost after %s commit (injected)", point);
		return (-1);
	}
	return (0);
}

/* Connect if not connected, no sooner than the back-off allows. */
static int
store_ready(struct store *st, struct store_error *err)
{
	int64_t	 now;

	if (st->s_connected)
		return (0);
	now = clock_mono();
	if (now < st->s_next_connect) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store; next attempt in %lld ms",
		    (long long)(st->s_next_connect - now));
		return (-1);
	}
	if (fault_at("connect", "before") != STORE_FAULT_NONE) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "cannot connect to the store (injected)");
		goto failed;
	}
	if (st->s_ops->o_connect(st, err) == -1) {
failed:
		st->s_backoff = st->s_backoff == 0 ? BACKOFF_MIN :
		    st->s_backoff * 2;
		if (st->s_backoff > BACKOFF_MAX)
			st->s_backoff = BACKOFF_MAX;
		st->s_next_connect = now + st->s_backoff;
		if (err->se_class == STORE_TRANSIENT)
			err->se_lost = 1;
		return (-1);
	}
	st->s_connected = 1;
	st->s_backoff = 0;
	st->s_next_connect = 0;
	return (0);
}

static void
retry_pause(unsigned int tries)
{
	struct timespec	 ts;
	uint32_t	 us;

	us = 200 + arc4random_uniform(1000U << (tries < 6 ? tries : 6));
	ts.tv_sec = 0;
	ts.tv_nsec = (long)us * 1000;
	nanosleep(&ts, NULL);
}

static int
run_op(struct store *st, op_fn fn, void *arg, struct store_error *err)
{
	unsigned int	 tries = 0, reconnects = 0;

	for (;;) {
		memset(err, 0, sizeof(*err));
		if (store_ready(st, err) == -1)
			return (-1);
		if (fn(st, arg, err) == 0)
			return (0);
		if (st->s_in_trx) {
			st->s_ops->o_rollback(st);
			st->s_in_trx = 0;
		}
		/*
		 * A deadlock costs little to retry; a lock wait that
		 * timed out has already waited long, so once is enough.
		 */
		if ((err->se_kind == SE_RETRY && tries < st->s_retries) ||
		    (err->se_kind == SE_WAITED && tries == 0)) {
			retry_pause(tries++);
			continue;
		}
		if (err->se_kind == SE_LOST && reconnects++ == 0 &&
		    st->s_backoff == 0)
			continue;
		return (-1);
	}
}

/* The largest power of two not above n nor max. */
static size_t
piece(size_t n, size_t max)
{
	size_t	 k = 1;

	while (k * 2 <= n && k * 2 <= max)
		k *= 2;
	return (k);
}

static char *
dupn(const char *s, size_t n)
{
	char	*p;

	if (s == NULL)
		return (strdup(""));
	if ((p = malloc(n + 1)) == NULL)
		return (NULL);
	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

static const char *
str_of(const struct sval *v)
{
	return (v->v_type == SV_TEXT || v->v_type == SV_BLOB ? v->v_str : "");
}

static int64_t
int_of(const struct sval *v)
{
	return (v->v_type == SV_INT ? v->v_int : 0);
}

/* A growing array of fixed-size elements. */
struct vec {
	void	*v_p;
	size_t	 v_n;
	size_t	 v_cap;
	size_t	 v_size;
};

static void *
vec_push(struct vec *v)
{
	void	*p;
	size_t	 cap;

	if (v->v_n == v->v_cap) {
		cap = v->v_cap == 0 ? 16 : v->v_cap * 2;
		if ((p = reallocarray(v->v_p, cap, v->v_size)) == NULL)
			return (NULL);
		v->v_p = p;
		v->v_cap = cap;
	}
	p = (char *)v->v_p + v->v_n++ * v->v_size;
	memset(p, 0, v->v_size);
	return (p);
}

static int
nomem(struct store_error *err)
{
	store_seterr(err, STORE_FATAL, SE_OTHER, ENOMEM, "out of memory");
	return (-1);
}

/* ------------------------------------------------------------------ */
/* Opening and closing. */

/*
 * URLs: "sqlite:PATH" (also "sqlite://PATH") or a bare path;
 * "mysql://[host[:port]]/db" with an optional "?socket=PATH" (also
 * "mariadb://").  User names and passwords are refused: they belong in
 * the option file only.  This is the one place that reads a store URL;
 * the programs ask here which backend and which file a URL names.
 */
int
store_url_parse(const char *url, struct store_url *su,
    struct store_error *err)
{
	const char	*p, *slash, *q, *colon, *errstr;
	char		 port[8];
	size_t		 hl;

	err = err_init(err);
	memset(su, 0, sizeof(*su));
	if (url == NULL || *url == '\0') {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "no store configured");
		return (-1);
	}
	if (strncmp(url, "sqlite:", 7) == 0) {
		p = url + 7;
		if (strncmp(p, "//", 2) == 0)
			p += 2;
		if (*p == '\0')
			goto bad;
	} else if (strncmp(url, "mysql://", 8) == 0) {
		p = url + 8;
		goto mysql;
	} else if (strncmp(url, "mariadb://", 10) == 0) {
		p = url + 10;
		goto mysql;
	} else if (strstr(url, "://") != NULL)
		goto bad;
	else
		p = url;
	su->su_backend = STORE_SQLITE;
	if ((su->su_path = strdup(p)) == NULL)
		goto nomem;
	return (0);

mysql:
	su->su_backend = STORE_MYSQL;
	if ((slash = strchr(p, '/')) == NULL)
		goto bad;
	if (memchr(p, '@', slash - p) != NULL) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store URL must "
		    "not hold a user or password: put them in the option "
		    "file");
		goto fail;
	}
	hl = slash - p;
	if ((colon = memchr(p, ':', hl)) != NULL) {
		if ((size_t)(slash - colon - 1) >= sizeof(port))
			goto bad;
		memcpy(port, colon + 1, slash - colon - 1);
		port[slash - colon - 1] = '\0';
		su->su_port = strtonum(port, 1, 65535, &errstr);
		if (errstr != NULL)
			goto bad;
		hl = colon - p;
	}
	if (hl > 0 && (su->su_host = dupn(p, hl)) == NULL)
		goto nomem;
	p = slash + 1;
	q = strchr(p, '?');
	if ((q == NULL && *p == '\0') || q == p)
		goto bad;
	if ((su->su_db = dupn(p, q == NULL ? strlen(p) :
	    (size_t)(q - p))) == NULL)
		goto nomem;
	if (q != NULL) {
		if (strncmp(q + 1, "socket=", 7) != 0 || q[8] == '\0')
			goto bad;
		if ((su->su_socket = strdup(q + 8)) == NULL)
			goto nomem;
	}
	return (0);
bad:
	store_seterr(err, STORE_FATAL, SE_OTHER, 0, "bad store URL \"%s\": "
	    "expected sqlite:PATH, mysql://HOST[:PORT]/DB or "
	    "mysql:///DB?socket=PATH", url);
	goto fail;
nomem:
	nomem(err);
fail:
	store_url_free(su);
	return (-1);
}

void
store_url_free(struct store_url *su)
{
	if (su == NULL)
		return;
	free(su->su_path);
	free(su->su_host);
	free(su->su_db);
	free(su->su_socket);
	memset(su, 0, sizeof(*su));
}

/* The store takes the URL's parts over. */
static int
parse_url(struct store *st, const char *url, struct store_error *err)
{
	struct store_url	 su;

	if (store_url_parse(url, &su, err) == -1)
		return (-1);
	st->s_ops = su.su_backend == STORE_SQLITE ? &store_sqlite_ops :
	    &store_mysql_ops;
	st->s_path = su.su_path;
	st->s_host = su.su_host;
	st->s_port = su.su_port;
	st->s_db = su.su_db;
	st->s_socket = su.su_socket;
	return (0);
}

/*
 * An option file that holds a password must be readable by its owner
 * only.  The file's bytes are wiped before they are freed.
 */
static int
check_optfile(const char *path, struct store_error *err)
{
	struct stat	 sb;
	char		*buf = NULL, *line, *p;
	size_t		 len;
	int		 fd, has = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &sb) == -1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, errno,
		    "option file %s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	if ((sb.st_mode & (S_IRWXG | S_IRWXO)) == 0) {
		close(fd);
		return (0);
	}
	if (file_read_fd(fd, OPTFILE_MAX, &buf, &len) == -1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, errno,
		    "option file %s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	close(fd);
	for (line = buf; line != NULL && *line != '\0'; line = p) {
		if ((p = strchr(line, '\n')) != NULL)
			p++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (strncasecmp(line, "password", 8) == 0) {
			line += 8;
			while (*line == ' ' || *line == '\t')
				line++;
			if (*line == '=' || *line == '\n' || *line == '\0')
				has = 1;
		}
	}
	explicit_bzero(buf, len);
	free(buf);
	if (has) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EPERM,
		    "option file %s holds a password but is readable by "
		    "group or others (mode %04o); chmod 600 it", path,
		    (unsigned int)(sb.st_mode & 07777));
		return (-1);
	}
	return (0);
}

struct meta_arg {
	int	 found;
	int64_t	 v;
};

static int
meta_row(void *arg, const struct sval *c, size_t n)
{
	struct meta_arg	*m = arg;

	m->found = 1;
	m->v = int_of(&c[0]);
	return (0);
}

/*
 * Create or migrate the schema to `target'.  SQLite does it in one
 * write transaction; on MariaDB, whose DDL commits on its own, a named
 * lock keeps two nodes from migrating at once and every step is
 * written to be run again safely (IF NOT EXISTS).
 */
static int
schema_setup(struct store *st, int target, struct store_error *err)
{
	const struct store_ops	*o = st->s_ops;
	const char *const	*q;
	struct meta_arg		 m;
	int			 v, rc = -1;

	for (q = o->o_steps[0]; *q != NULL; q++)
		if (o->o_exec_sql(st, *q, err) == -1)
			return (-1);
	if (o->o_ddl_trx) {
		if (xbegin(st, err) == -1)
			return (-1);
	} else {
		memset(&m, 0, sizeof(m));
		if (xexec(st, "schema", S_LOCK, 0, NULL, 0, meta_row, &m, NULL,
		    err) == -1)
			return (-1);
		if (!m.found || m.v != 1) {
			store_seterr(err, STORE_TRANSIENT, SE_OTHER, 0,
			    "another node holds the schema lock");
			return (-1);
		}
	}
	memset(&m, 0, sizeof(m));
	if (xexec(st, "schema", S_META_GET, 0, NULL, 0, meta_row, &m, NULL,
	    err) == -1)
		goto out;
	v = m.found ? (int)m.v : 0;
	if (v > STORE_SCHEMA) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store schema "
		    "version %d is newer than this clustercron (%d); upgrade "
		    "clustercron", v, STORE_SCHEMA);
		goto out;
	}
	for (v++; v <= target; v++) {
		struct sval	 p = SVI(v);

		for (q = o->o_steps[v]; *q != NULL; q++)
			if (o->o_exec_sql(st, *q, err) == -1)
				goto out;
		if (xexec(st, "schema", S_META_SET, 0, &p, 1, NULL, NULL, NULL,
		    err) == -1)
			goto out;
	}
	if (o->o_ddl_trx && xcommit(st, "schema", err) == -1)
		goto out;
	rc = 0;
out:
	if (o->o_ddl_trx) {
		if (st->s_in_trx)
			o->o_rollback(st);
		st->s_in_trx = 0;
	} else if (st->s_connected)
		(void)o->o_exec(st, S_UNLOCK, 0, NULL, 0, NULL, NULL, NULL,
		    &dummy_err);
	return (rc);
}

int
store_open(const struct store_config *cf, struct store **out,
    struct store_error *err)
{
	struct store	*st;
	char		 host[256];

	err = err_init(err);
	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return (nomem(err));
	if (parse_url(st, cf->sc_url, err) == -1)
		goto fail;
	if (cf->sc_node != NULL && *cf->sc_node != '\0')
		st->s_node = strdup(cf->sc_node);
	else {
		if (gethostname(host, sizeof(host)) == -1)
			strlcpy(host, "localhost", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		st->s_node = strdup(host);
	}
	if (st->s_node == NULL)
		goto nomem;
	if (strlen(st->s_node) > 255) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "node name longer than 255 bytes");
		goto fail;
	}
	if (cf->sc_mysql_file != NULL &&
	    (st->s_mysql_file = strdup(cf->sc_mysql_file)) == NULL)
		goto nomem;
	if ((st->s_mysql_group = strdup(cf->sc_mysql_group != NULL ?
	    cf->sc_mysql_group : "client")) == NULL)
		goto nomem;
	st->s_connect_timeout = cf->sc_connect_timeout != 0 ?
	    cf->sc_connect_timeout : 5;
	st->s_read_timeout = cf->sc_read_timeout != 0 ?
	    cf->sc_read_timeout : 30;
	st->s_idle_trx_timeout = cf->sc_idle_trx_timeout;
	st->s_busy_timeout = cf->sc_busy_timeout != 0 ?
	    cf->sc_busy_timeout : 5000;
	st->s_output_max = cf->sc_output_max != 0 ? cf->sc_output_max : 4096;
	if (st->s_output_max > STORE_OUTPUT_LIMIT)
		st->s_output_max = STORE_OUTPUT_LIMIT;
	st->s_retries = cf->sc_retries != 0 ? cf->sc_retries : 5;
	st->s_beat_first = 1;
	if (st->s_ops == &store_mysql_ops && st->s_mysql_file != NULL &&
	    check_optfile(st->s_mysql_file, err) == -1)
		goto fail;
	if (store_ready(st, err) == -1)
		goto fail;
	if (schema_setup(st, cf->sc_schema > 0 && cf->sc_schema <
	    STORE_SCHEMA ? cf->sc_schema : STORE_SCHEMA, err) == -1)
		goto fail;
	*out = st;
	return (0);
nomem:
	nomem(err);
fail:
	store_close(st);
	return (-1);
}

void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	if (st->s_connected)
		st->s_ops->o_disconnect(st);
	free(st->s_be);
	free(st->s_path);
	free(st->s_host);
	free(st->s_socket);
	free(st->s_db);
	free(st->s_mysql_file);
	free(st->s_mysql_group);
	free(st->s_node);
	free(st->s_uncertain);
	free(st->s_lostids);
	free(st);
}

const char *
store_backend(const struct store *st)
{
	return (st->s_ops->o_name);
}

int
store_schema_current(void)
{
	return (STORE_SCHEMA);
}

static int
version_fn(struct store *st, void *arg, struct store_error *err)
{
	struct meta_arg	*m = arg;

	memset(m, 0, sizeof(*m));
	return (xexec(st, "meta", S_META_GET, 0, NULL, 0, meta_row, m, NULL,
	    err));
}

int
store_schema_version(struct store *st, int *v, struct store_error *err)
{
	struct meta_arg	 m;

	err = err_init(err);
	*v = 0;
	if (run_op(st, version_fn, &m, err) == -1)
		return (-1);
	*v = (int)m.v;
	return (0);
}

static int
force_fn(struct store *st, void *arg, struct store_error *err)
{
	struct sval	 p = SVI(*(int *)arg);

	return (xexec(st, "meta", S_META_SET, 0, &p, 1, NULL, NULL, NULL,
	    err));
}

int
store_schema_force(struct store *st, int v, struct store_error *err)
{
	err = err_init(err);
	return (run_op(st, force_fn, &v, err));
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
	err = err_init(err);
	return (run_op(st, seed_fn, NULL, err));
}

static int
now_fn(struct store *st, void *arg, struct store_error *err)
{
	struct meta_arg	*m = arg;

	memset(m, 0, sizeof(*m));
	return (xexec(st, "now", S_NOW, 0, NULL, 0, meta_row, m, NULL, err));
}

int
store_now(struct store *st, int64_t *now, struct store_error *err)
{
	struct meta_arg	 m;

	err = err_init(err);
	*now = 0;
	if (run_op(st, now_fn, &m, err) == -1)
		return (-1);
	*now = m.v;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Jobs. */

struct reg_arg {
	const struct store_job	*jobs;
	size_t			 n;
	int			 sync;	/* release the others held */
	size_t			 gone;
};

/*
 * A descriptive text cut to what its column holds, at a character
 * boundary when the text is UTF-8.
 */
static struct sval
clip(const char *s, size_t max)
{
	size_t	 n;

	if (s == NULL)
		s = "";
	if ((n = strlen(s)) > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return ((struct sval){ SV_TEXT, 0, s, n });
}

/* A job's stored digest, to skip rows that would not change. */
struct digest {
	char	*d_id;
	int64_t	 d_sum;
	int	 d_held;	/* this node holds it */
	int	 d_seen;	/* among the jobs being registered */
};

#define REG_SCAN	256	/* from this many jobs, read digests first */
#define REG_TRX_ROWS	4096	/* MariaDB: rows per transaction */
#define HOLD_ROWS	256	/* rows per statement recording holds */

/*
 * FNV-1a over the descriptive columns, NUL-separated: what registering
 * would write.  A changed digest means the row must be written.  The
 * name counts only when there is one, so that the digests of unnamed
 * jobs stored before names were (schema 3) still match.
 */
static int64_t
job_digest(const struct store_job *j)
{
	const char	*f[6];
	char		 num[64];
	uint64_t	 h = 0xcbf29ce484222325ULL;
	size_t		 i, nf = 5;
	const char	*c;

	f[0] = j->j_owner;
	f[1] = j->j_sched;
	f[2] = j->j_zone;
	f[3] = j->j_cmd;
	snprintf(num, sizeof(num), "%d/%d/%d/%u", j->j_scope, j->j_overlap,
	    j->j_misfire, (unsigned int)j->j_grace);
	f[4] = num;
	if (j->j_name != NULL && *j->j_name != '\0')
		f[nf++] = j->j_name;
	for (i = 0; i < nf; i++) {
		for (c = f[i] != NULL ? f[i] : ""; *c != '\0'; c++) {
			h ^= (unsigned char)*c;
			h *= 0x100000001b3ULL;
		}
		h ^= 0;
		h *= 0x100000001b3ULL;
	}
	return ((int64_t)(h & 0x7fffffffffffffffULL));
}

static int
digest_row(void *arg, const struct sval *c, size_t n)
{
	struct digest	*d;

	if ((d = vec_push(arg)) == NULL)
		return (-1);
	if ((d->d_id = strdup(str_of(&c[0]))) == NULL) {
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	d->d_sum = int_of(&c[1]);
	return (0);
}

static int
digest_cmp(const void *a, const void *b)
{
	return (strcmp(((const struct digest *)a)->d_id,
	    ((const struct digest *)b)->d_id));
}

static void
digests_free(struct vec *v)
{
	size_t	 i;

	for (i = 0; i < v->v_n; i++)
		free(((struct digest *)v->v_p)[i].d_id);
	free(v->v_p);
	v->v_p = NULL;
	v->v_n = v->v_cap = 0;
}

/*
 * Writers of jobs and holds take turns.  Registering reads which jobs
 * exist (their digests) and then records that this node holds them,
 * writing only the rows that are new or changed; releasing deletes the
 * jobs no node holds.  Were the two to overlap, a node could record
 * that it holds a job another node was deleting, which it had read as
 * existing: the job would be gone under it.  On SQLite each runs in
 * one write transaction, and writers take turns already.  On MariaDB a
 * registration of many jobs spans several transactions, and its reads
 * take no locks (READ COMMITTED), so they hold a named lock instead,
 * which only such writers take: claims never wait for it.
 */
static int
jobs_locked(struct store *st, op_fn fn, void *arg, struct store_error *err)
{
	struct meta_arg	 m;
	struct sval	 p = SVI(STORE_LOCK_WAIT);
	int		 rc;

	memset(&m, 0, sizeof(m));
	if (xexec(st, "jobs.lock", S_JOBS_LOCK, 0, &p, 1, meta_row, &m, NULL,
	    err) == -1)
		return (-1);
	if (!m.found || m.v != 1) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0, "another node "
		    "held the lock of the jobs for %d s", STORE_LOCK_WAIT);
		return (-1);
	}
	rc = fn(st, arg, err);
	if (rc == -1 && st->s_in_trx) {
		st->s_ops->o_rollback(st);
		st->s_in_trx = 0;
	}
	if (st->s_connected)
		(void)st->s_ops->o_exec(st, S_JOBS_UNLOCK, 0, NULL, 0, NULL,
		    NULL, NULL, &dummy_err);
	return (rc);
}

/*
 * Writes of many rows: on SQLite all in the caller's transaction; on
 * MariaDB a commit every REG_TRX_ROWS rows, not one per statement.
 */
struct wtrx {
	int		 w_local;	/* SQLite: the caller's transaction */
	size_t		 w_rows;
	const char	*w_point;
};

static int
wtrx_begin(struct store *st, struct wtrx *w, struct store_error *err)
{
	if (w->w_local || st->s_in_trx)
		return (0);
	return (xbegin(st, err));
}

static int
wtrx_add(struct store *st, struct wtrx *w, size_t k, struct store_error *err)
{
	w->w_rows += k;
	if (w->w_local || w->w_rows < REG_TRX_ROWS)
		return (0);
	w->w_rows = 0;
	return (xcommit(st, w->w_point, err));
}

static int
wtrx_end(struct store *st, struct wtrx *w, struct store_error *err)
{
	w->w_rows = 0;
	return (st->s_in_trx ? xcommit(st, w->w_point, err) : 0);
}

static int
str_cmp(const void *a, const void *b)
{
	return (strcmp(*(const char *const *)a, *(const char *const *)b));
}

/* Record that this node holds the n jobs ids[]. */
static int
holds_add(struct store *st, const char *const *ids, size_t n, struct wtrx *w,
    struct store_error *err)
{
	struct sval	 p[2 * HOLD_ROWS];
	size_t		 off, k, i, max = st->s_ops->o_max_rows;

	if (max > HOLD_ROWS)
		max = HOLD_ROWS;
	for (off = 0; off < n; off += k) {
		k = piece(n - off, max);
		for (i = 0; i < k; i++) {
			p[2 * i] = SVS(st->s_node);
			p[2 * i + 1] = SVS(ids[off + i]);
		}
		if (wtrx_begin(st, w, err) == -1 ||
		    xexec(st, "hold", S_HOLD_ADD, k, p, 2 * k, NULL, NULL, NULL,
		    err) == -1 || wtrx_add(st, w, k, err) == -1)
			return (-1);
	}
	return (0);
}

/*
 * Record that this node no longer holds the n jobs ids[], and delete
 * those no node holds, keeping the description of those with runs;
 * *gone counts the deleted.
 */
static int
holds_drop(struct store *st, const char *const *ids, size_t n,
    struct wtrx *w, size_t *gone, struct store_error *err)
{
	struct sval	 p[LIST_MAX + 1];
	size_t		 off, k, m, max = st->s_ops->o_max_list;
	int64_t		 changed;

	if (max > LIST_MAX)
		max = LIST_MAX;
	for (off = 0; off < n; off += k) {
		k = piece(n - off, max);
		p[0] = SVS(st->s_node);
		m = pad_ids(st, p, 1, ids + off, NULL, k);
		if (wtrx_begin(st, w, err) == -1 ||
		    xexec(st, "release", S_HOLD_DROP, m, p, m + 1, NULL, NULL,
		    NULL, err) == -1 ||
		    xexec(st, "release", S_GONE_KEEP, m, p + 1, m, NULL, NULL,
		    NULL, err) == -1 ||
		    xexec(st, "release", S_JOBS_UNHELD, m, p + 1, m, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		*gone += (size_t)changed;
		if (wtrx_add(st, w, k, err) == -1)
			return (-1);
	}
	return (0);
}

/*
 * Register: write the rows that are new or changed and record that
 * this node holds them all.  With many jobs (a daemon starting) the
 * stored digests and this node's holds are read first, once, so that
 * only what differs is written; a sync then releases what this node
 * held and holds no longer.  A hold of a job that has no row (deleted
 * behind the store's back) is released too, unless the job is among
 * those registered, whose row is then written again.
 */
static int
reg_fn(struct store *st, void *arg, struct store_error *err)
{
	struct reg_arg		*a = arg;
	const struct store_job	*j, **todo = NULL;
	const char		**ids = NULL, **add = NULL, **rel = NULL;
	char			**held;
	struct digest		 key, *found, *d;
	struct vec		 dv, hv;
	struct wtrx		 w;
	struct sval		*p = NULL;
	size_t			 off, k, i, max, ntodo = 0, nadd = 0, nrel = 0;
	int64_t			 sum;
	int			 rc = -1;

	memset(&dv, 0, sizeof(dv));
	dv.v_size = sizeof(struct digest);
	memset(&hv, 0, sizeof(hv));
	hv.v_size = sizeof(char *);
	memset(&w, 0, sizeof(w));
	w.w_local = st->s_ops->o_ddl_trx;
	w.w_point = "register";
	a->gone = 0;
	max = st->s_ops->o_max_rows;
	if ((p = reallocarray(NULL, max, JOB_NCOLS * sizeof(*p))) == NULL ||
	    (todo = reallocarray(NULL, a->n + 1, sizeof(*todo))) == NULL ||
	    (add = reallocarray(NULL, a->n + 1, sizeof(*add))) == NULL) {
		nomem(err);
		goto out;
	}
	if (w.w_local && xbegin(st, err) == -1)
		goto out;
	if (a->n >= REG_SCAN || a->sync) {
		if (xexec(st, "register.scan", S_JOB_DIGESTS, 0, NULL, 0,
		    digest_row, &dv, NULL, err) == -1)
			goto out;
		if (dv.v_n > 0)
			qsort(dv.v_p, dv.v_n, sizeof(struct digest),
			    digest_cmp);
		p[0] = SVS(st->s_node);
		if (xexec(st, "register.scan", S_HOLDS_MINE, 0, p, 1,
		    trimjob_row, &hv, NULL, err) == -1)
			goto out;
		if (hv.v_n > 0)
			qsort(hv.v_p, hv.v_n, sizeof(char *), str_cmp);
		if ((rel = reallocarray(NULL, hv.v_n + 1, sizeof(*rel))) ==
		    NULL) {
			nomem(err);
			goto out;
		}
	}
	/* Mark the jobs held, both lists sorted; rel[] gets the others. */
	held = hv.v_p;
	d = dv.v_p;
	for (i = k = 0; i < hv.v_n; i++) {
		while (k < dv.v_n && strcmp(d[k].d_id, held[i]) < 0)
			k++;
		if (k < dv.v_n && strcmp(d[k].d_id, held[i]) == 0)
			d[k].d_held = 1;
		else
			rel[nrel++] = held[i];
	}
	for (i = 0; i < a->n; i++) {
		j = &a->jobs[i];
		found = NULL;
		if (dv.v_n > 0) {
			key.d_id = j->j_id;
			found = bsearch(&key, dv.v_p, dv.v_n,
			    sizeof(struct digest), digest_cmp);
		}
		if (found == NULL || !found->d_held)
			add[nadd++] = j->j_id;
		if (found != NULL) {
			found->d_seen = 1;
			if (found->d_sum == job_digest(j))
				continue;
		}
		todo[ntodo++] = j;
	}
	for (off = 0; off < ntodo; off += k) {
		k = piece(ntodo - off, max);
		for (i = 0; i < k; i++) {
			j = todo[off + i];
			sum = job_digest(j);
			p[i * JOB_NCOLS + 0] = SVS(j->j_id);
			p[i * JOB_NCOLS + 1] = clip(j->j_owner, STORE_OWNERMAX);
			p[i * JOB_NCOLS + 2] = clip(j->j_sched, STORE_SCHEDMAX);
			p[i * JOB_NCOLS + 3] = clip(j->j_zone, STORE_ZONEMAX);
			p[i * JOB_NCOLS + 4] = clip(j->j_cmd, STORE_CMDMAX);
			p[i * JOB_NCOLS + 5] = SVI(j->j_scope);
			p[i * JOB_NCOLS + 6] = SVI(j->j_overlap);
			p[i * JOB_NCOLS + 7] = SVI(j->j_misfire);
			p[i * JOB_NCOLS + 8] = SVI(j->j_grace);
			p[i * JOB_NCOLS + 9] = SVI(sum);
			p[i * JOB_NCOLS + 10] = clip(j->j_name, STORE_NAMEMAX);
		}
		if (wtrx_begin(st, &w, err) == -1 ||
		    xexec(st, "register", S_JOB_UPSERT, k, p, k * JOB_NCOLS,
		    NULL, NULL, NULL, err) == -1 ||
		    wtrx_add(st, &w, k, err) == -1)
			goto out;
	}
	if (holds_add(st, add, nadd, &w, err) == -1)
		goto out;
	if (a->sync) {
		/* Holds of no row: released unless registered now. */
		if (nrel > 0) {
			if ((ids = reallocarray(NULL, a->n + 1,
			    sizeof(*ids))) == NULL) {
				nomem(err);
				goto out;
			}
			for (i = 0; i < a->n; i++)
				ids[i] = a->jobs[i].j_id;
			qsort(ids, a->n, sizeof(*ids), str_cmp);
			for (i = k = 0; i < nrel; i++)
				if (bsearch(&rel[i], ids, a->n, sizeof(*ids),
				    str_cmp) == NULL)
					rel[k++] = rel[i];
			nrel = k;
		}
		for (i = 0; i < dv.v_n; i++)
			if (d[i].d_held && !d[i].d_seen)
				rel[nrel++] = d[i].d_id;
		if (holds_drop(st, rel, nrel, &w, &a->gone, err) == -1)
			goto out;
	}
	if (wtrx_end(st, &w, err) == -1)
		goto out;
	rc = 0;
out:
	digests_free(&dv);
	strs_free(&hv);
	free(rel);
	free(add);
	free(ids);
	free(todo);
	free(p);
	return (rc);
}

static int
reg_locked(struct store *st, void *arg, struct store_error *err)
{
	return (jobs_locked(st, reg_fn, arg, err));
}

static int
reg_check(const struct store_job *jobs, size_t n, struct store_error *err)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (jobs[i].j_id == NULL || *jobs[i].j_id == '\0' ||
		    strlen(jobs[i].j_id) > STORE_IDLEN) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "job %zu: bad identity", i);
			return (-1);
		}
	}
	return (0);
}

int
store_jobs_register(struct store *st, const struct store_job *jobs,
    size_t n, struct store_error *err)
{
	struct reg_arg	 a;

	err = err_init(err);
	if (reg_check(jobs, n, err) == -1)
		return (-1);
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.n = n;
	return (run_op(st, reg_locked, &a, err));
}

int
store_jobs_sync(struct store *st, const struct store_job *jobs, size_t n,
    size_t *gone, struct store_error *err)
{
	struct reg_arg	 a;

	err = err_init(err);
	*gone = 0;
	if (reg_check(jobs, n, err) == -1)
		return (-1);
	memset(&a, 0, sizeof(a));
	a.jobs = jobs;
	a.n = n;
	a.sync = 1;
	if (run_op(st, reg_locked, &a, err) == -1)
		return (-1);
	*gone = a.gone;
	return (0);
}

struct rel_arg {
	const char *const *ids;
	size_t		 n;
	size_t		 gone;
};

static int
rel_fn(struct store *st, void *arg, struct store_error *err)
{
	struct rel_arg	*a = arg;
	struct wtrx	 w;

	memset(&w, 0, sizeof(w));
	w.w_local = st->s_ops->o_ddl_trx;
	w.w_point = "release";
	a->gone = 0;
	if (w.w_local && xbegin(st, err) == -1)
		return (-1);
	if (holds_drop(st, a->ids, a->n, &w, &a->gone, err) == -1)
		return (-1);
	return (wtrx_end(st, &w, err));
}

static int
rel_locked(struct store *st, void *arg, struct store_error *err)
{
	return (jobs_locked(st, rel_fn, arg, err));
}

int
store_jobs_release(struct store *st, const char *const *ids, size_t n,
    size_t *gone, struct store_error *err)
{
	struct rel_arg	 a;
	size_t		 i;

	err = err_init(err);
	*gone = 0;
	for (i = 0; i < n; i++) {
		if (ids[i] == NULL || *ids[i] == '\0' ||
		    strlen(ids[i]) > STORE_IDLEN) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "job %zu: bad identity", i);
			return (-1);
		}
	}
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.ids = ids;
	a.n = n;
	if (run_op(st, rel_locked, &a, err) == -1)
		return (-1);
	*gone = a.gone;
	return (0);
}

static int
job_row(void *arg, const struct sval *c, size_t n)
{
	struct store_job	*j;

	if ((j = vec_push(arg)) == NULL)
		return (-1);
	if ((j->j_id = strdup(str_of(&c[0]))) == NULL ||
	    (j->j_owner = strdup(str_of(&c[1]))) == NULL ||
	    (j->j_sched = strdup(str_of(&c[2]))) == NULL ||
	    (j->j_zone = strdup(str_of(&c[3]))) == NULL ||
	    (j->j_cmd = strdup(str_of(&c[4]))) == NULL ||
	    (j->j_claimed_by = strdup(str_of(&c[11]))) == NULL ||
	    (j->j_name = strdup(str_of(&c[13]))) == NULL) {
		((struct vec *)arg)->v_n--;
		free(j->j_id);
		free(j->j_owner);
		free(j->j_sched);
		free(j->j_zone);
		free(j->j_cmd);
		free(j->j_claimed_by);
		return (-1);
	}
	j->j_scope = (int)int_of(&c[5]);
	j->j_overlap = (int)int_of(&c[6]);
	j->j_misfire = (int)int_of(&c[7]);
	j->j_grace = (uint32_t)int_of(&c[8]);
	j->j_paused = (int)int_of(&c[9]);
	j->j_last_fire = (time_t)int_of(&c[10]);
	j->j_claimed_at = int_of(&c[12]);
	return (0);
}

/*
 * The lists.  Each kind of row the listings return is read by its row
 * function into a growing array of its elements, which its free
 * function releases; a listing is a kind, a statement and at most two
 * parameters.
 */
static const struct {
	store_row_fn	 k_row;
	size_t		 k_size;
	void		(*k_free)(void *, size_t);
} list_kinds[] = {
	[LK_JOBS] = { job_row, sizeof(struct store_job), jobs_free },
	[LK_GONE] = { gone_row, sizeof(struct store_job), jobs_free },
	[LK_RUNS] = { run_row, sizeof(struct store_run), runs_free },
	[LK_NODES] = { node_row, sizeof(struct store_node), nodes_free },
	[LK_TABLES] = { tables_row, sizeof(struct store_table), tables_free },
	[LK_CLAIMS] = { claims_row, sizeof(struct store_claim), claims_free },
};

struct list_arg {
	enum list_kind	 kind;
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
	return (xexec(st, "list", a->s, 0, a->p, a->np,
	    list_kinds[a->kind].k_row, &a->v, NULL, err));
}

/*
 * Carry out listing s (np parameters p, borrowed) of rows of a kind and
 * return the new array in *out (NULL when empty or on failure) of *n.
 */
static int
list_get(struct store *st, enum list_kind kind, enum stmt s,
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
	if (run_op(st, list_fn, &a, err) == -1) {
		list_kinds[kind].k_free(a.v.v_p, a.v.v_n);
		return (-1);
	}
	*out = a.v.v_p;
	*n = a.v.v_n;
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
	for (i = 0; i < n; i++) {
		free(j[i].j_id);
		free(j[i].j_owner);
		free(j[i].j_sched);
		free(j[i].j_zone);
		free(j[i].j_cmd);
		free(j[i].j_claimed_by);
		free(j[i].j_name);
	}
	free(j);
}

int
store_jobs_list(struct store *st, const char *owner, struct store_job **out,
    size_t *n, struct store_error *err)
{
	struct sval	 p = SVS(owner);
	void		*v;
	int		 rc;

	err = err_init(err);
	rc = list_get(st, LK_JOBS, owner == NULL ? S_JOBS_LIST : S_JOBS_OWNER,
	    &p, owner == NULL ? 0 : 1, &v, n, err);
	*out = v;
	return (rc);
}

/* A job that is gone: its description and when it went. */
static int
gone_row(void *arg, const struct sval *c, size_t n)
{
	struct store_job	*j;

	if ((j = vec_push(arg)) == NULL)
		return (-1);
	if ((j->j_id = strdup(str_of(&c[0]))) == NULL ||
	    (j->j_owner = strdup(str_of(&c[1]))) == NULL ||
	    (j->j_sched = strdup(str_of(&c[2]))) == NULL ||
	    (j->j_zone = strdup(str_of(&c[3]))) == NULL ||
	    (j->j_cmd = strdup(str_of(&c[4]))) == NULL ||
	    (j->j_name = strdup(str_of(&c[5]))) == NULL ||
	    (j->j_claimed_by = strdup("")) == NULL) {
		((struct vec *)arg)->v_n--;
		free(j->j_id);
		free(j->j_owner);
		free(j->j_sched);
		free(j->j_zone);
		free(j->j_cmd);
		free(j->j_name);
		return (-1);
	}
	j->j_gone = int_of(&c[6]);
	return (0);
}

int
store_jobs_gone(struct store *st, struct store_job **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = err_init(err);
	rc = list_get(st, LK_GONE, S_GONE_LIST, NULL, 0, &v, n, err);
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

	err = err_init(err);
	rc = list_get(st, LK_JOBS, S_JOB_GET, &p, 1, &v, &n, err);
	*out = v;
	return (rc);
}

struct pause_arg {
	const char	*id;
	int		 paused;
};

static int
count_row(void *arg, const struct sval *c, size_t n)
{
	(*(int *)arg)++;
	return (0);
}

static int
pause_fn(struct store *st, void *arg, struct store_error *err)
{
	struct pause_arg	*a = arg;
	struct sval		 p[2];
	int64_t			 changed;
	int			 found = 0;

	p[0] = SVI(a->paused != 0);
	p[1] = SVS(a->id);
	if (xexec(st, "job", S_JOB_PAUSE, 0, p, 2, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed > 0)
		return (0);
	if (xexec(st, "job", S_JOB_GET, 0, &p[1], 1, count_row, &found, NULL,
	    err) == -1)
		return (-1);
	if (!found) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
		    "no job %s in the store", a->id);
		return (-1);
	}
	return (0);
}

int
store_job_pause(struct store *st, const char *id, int paused,
    struct store_error *err)
{
	struct pause_arg	 a = { id, paused };

	err = err_init(err);
	return (run_op(st, pause_fn, &a, err));
}

/* ------------------------------------------------------------------ */
/* Claims. */

/*
 * Claims whose result was lost.  A (job, fire) is remembered when the
 * connection drops while claiming it, and forgotten once a claim of it
 * has been settled by its claims row, or once this node claims a later
 * fire of the job or loses the result of one.  It only spares the
 * losers of ordinary claims a read of the claims table.  Normally
 * empty, so the linear searches cost nothing; after an outage it holds
 * the fires that were in flight, at most UNCERTAIN_MAX of them (the
 * oldest go first).
 */
static int
uncertain_find(struct store *st, const char *id, time_t fire)
{
	size_t	 i;

	for (i = 0; i < st->s_nuncertain; i++)
		if (st->s_uncertain[i].u_fire == fire &&
		    strcmp(st->s_uncertain[i].u_id, id) == 0)
			return ((int)i);
	return (-1);
}

/* Forget the job's fires up to and including `fire'. */
static void
uncertain_del(struct store *st, const char *id, time_t fire)
{
	size_t	 i, j;

	for (i = j = 0; i < st->s_nuncertain; i++) {
		if (st->s_uncertain[i].u_fire <= fire &&
		    strcmp(st->s_uncertain[i].u_id, id) == 0)
			continue;
		if (i != j)
			st->s_uncertain[j] = st->s_uncertain[i];
		j++;
	}
	st->s_nuncertain = j;
}

static void
uncertain_add(struct store *st, const char *id, time_t fire)
{
	struct uncertain	*u;
	size_t			 cap;

	if (uncertain_find(st, id, fire) != -1)
		return;
	uncertain_del(st, id, fire - 1);
	if (st->s_nuncertain == st->s_uncap) {
		cap = st->s_uncap == 0 ? 16 : st->s_uncap * 2;
		if (cap > UNCERTAIN_MAX ||
		    (u = reallocarray(st->s_uncertain, cap, sizeof(*u))) ==
		    NULL) {
			if (st->s_nuncertain == 0)
				return;
			memmove(&st->s_uncertain[0], &st->s_uncertain[1],
			    (st->s_nuncertain - 1) * sizeof(*u));
			st->s_nuncertain--;
		} else {
			st->s_uncertain = u;
			st->s_uncap = cap;
		}
	}
	u = &st->s_uncertain[st->s_nuncertain++];
	strlcpy(u->u_id, id, sizeof(u->u_id));
	u->u_fire = fire;
}

struct claim_arg {
	const char	*id;
	time_t		 fire;
	int		*won;
	int		 check;
	/* claim_read's answer */
	int		 found;
	char		 by[256];
};

static int
claim_row(void *arg, const struct sval *c, size_t n)
{
	struct claim_arg	*a = arg;

	a->found = 1;
	strlcpy(a->by, str_of(&c[0]), sizeof(a->by));
	return (0);
}

/* The fire is ours iff its claims row names us. */
static int
claim_read(struct store *st, struct claim_arg *a, struct store_error *err)
{
	struct sval	 p[2];

	p[0] = SVS(a->id);
	p[1] = SVI(a->fire);
	a->found = 0;
	if (xexec(st, "claim.read", S_CLAIM_READ, 0, p, 2, claim_row, a,
	    NULL, err) == -1)
		return (-1);
	*a->won = a->found && strcmp(a->by, st->s_node) == 0;
	return (0);
}

/*
 * One transaction: the conditional write on the job's row decides;
 * when it won, the claims row records it.  On MariaDB the transaction
 * costs a round trip more than an autocommitted UPDATE would, and a
 * losing one commits nothing.
 */
static int
claim_fn(struct store *st, void *arg, struct store_error *err)
{
	struct claim_arg	*a = arg;
	struct sval		 p[6];
	int64_t			 changed;

	*a->won = 0;
	if (a->check)
		return (claim_read(st, a, err));
	p[0] = SVI(a->fire);
	p[1] = SVS(st->s_node);
	p[2] = SVS(a->id);
	p[3] = SVI(a->fire);
	p[4] = SVI(a->fire);
	p[5] = SVS(a->id);
	if (xbegin(st, err) == -1)
		return (-1);
	if (xexec(st, "claim", S_CLAIM, 0, p, 6, NULL, NULL, &changed,
	    err) == -1)
		goto lost;
	if (changed == 1 && xexec(st, "claim.note", S_CLAIM_NOTE, 1, &p[2], 1,
	    NULL, NULL, NULL, err) == -1)
		goto lost;
	if (xcommit(st, "claim", err) == -1)
		goto lost;
	if (changed == 1) {
		uncertain_del(st, a->id, a->fire);
		*a->won = 1;
		return (0);
	}
	/*
	 * Nothing changed: someone holds this fire or a later one.  If an
	 * earlier attempt of ours lost its result, that someone may be us,
	 * and the claims row says so even when later fires have moved the
	 * job's row on.  (On MariaDB a transaction of ours whose connection
	 * was cut may still hold the row; the UPDATE above waited for it to
	 * end.)
	 */
	if (uncertain_find(st, a->id, a->fire) != -1) {
		if (claim_read(st, a, err) == -1)
			return (-1);
		uncertain_del(st, a->id, a->fire);
	}
	return (0);
lost:
	if (err->se_kind == SE_LOST)
		uncertain_add(st, a->id, a->fire);
	return (-1);
}

int
store_claim(struct store *st, const char *id, time_t fire, int *won,
    struct store_error *err)
{
	struct claim_arg	 a;

	err = err_init(err);
	*won = 0;
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.fire = fire;
	a.won = won;
	if (run_op(st, claim_fn, &a, err) == -1) {
		*won = 0;
		return (-1);
	}
	return (0);
}

int
store_claim_check(struct store *st, const char *id, time_t fire, int *won,
    struct store_error *err)
{
	struct claim_arg	 a;

	err = err_init(err);
	*won = 0;
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.fire = fire;
	a.won = won;
	a.check = 1;
	if (run_op(st, claim_fn, &a, err) == -1) {
		*won = 0;
		return (-1);
	}
	if (*won)
		uncertain_del(st, id, fire);
	return (0);
}

struct batch_arg {
	const char *const *ids;
	size_t		 n;
	time_t		 fire;
	size_t		 max;
	unsigned char	*won;
	size_t		*nwon;
	/*
	 * Which jobs may hold a claim of ours whose result was lost: those
	 * in doubt[] (remembered from earlier calls; NULL: none), and all
	 * of them once this call has lost a connection.
	 */
	unsigned char	*doubt;
	int		 lost;
	size_t		*dx;		/* n: scratch for their indexes */
	/* the piece at hand */
	size_t		 off;
	size_t		 k;
	size_t		*sel;
	size_t		 nsel;
	struct idx	*ord;		/* the piece's ids, sorted */
};

/* An id and its place in the caller's array, for matching rows. */
struct idx {
	const char	*x_id;
	size_t		 x_i;
};

/* Rows naming ids of the piece at hand: remember which. */
static int
batch_row(void *arg, const struct sval *c, size_t n)
{
	struct batch_arg	*a = arg;
	struct idx		 key, *x;

	key.x_id = str_of(&c[0]);
	x = bsearch(&key, a->ord, a->k, sizeof(*a->ord), idx_cmp);
	if (x != NULL && !a->won[x->x_i] && a->nsel < a->k)
		a->sel[a->nsel++] = x->x_i;
	return (0);
}

static int
idx_cmp(const void *p, const void *q)
{
	return (strcmp(((const struct idx *)p)->x_id,
	    ((const struct idx *)q)->x_id));
}

/* Sort the piece at hand, so that each row finds its id quickly. */
static void
batch_sort(struct batch_arg *a)
{
	size_t	 i;

	for (i = 0; i < a->k; i++) {
		a->ord[i].x_id = a->ids[a->off + i];
		a->ord[i].x_i = a->off + i;
	}
	qsort(a->ord, a->k, sizeof(*a->ord), idx_cmp);
}

/*
 * Bind n ids (ids[idx[i]] when idx is given) from p[at] on.  A backend
 * that keeps few prepared statements (MariaDB counts them against a
 * server-wide limit) gets the list padded to the next power of two by
 * repeating the last id, which changes nothing in an IN list.  Returns
 * the length bound.
 */
static size_t
pad_ids(struct store *st, struct sval *p, size_t at, const char *const *ids,
    const size_t *idx, size_t n)
{
	size_t	 m = 1, i;

	if (st->s_ops->o_pad_lists)
		while (m < n)
			m *= 2;
	else
		m = n;
	for (i = 0; i < m; i++)
		p[at + i] = SVS(ids[idx == NULL ? (i < n ? i : n - 1) :
		    idx[i < n ? i : n - 1]]);
	return (m);
}

/*
 * After a lost result: every job in doubt whose claims row for the
 * fire names us is ours, however many that is (an earlier call may
 * have had more free slots) and whatever its row says now.
 */
static int
batch_resolve(struct store *st, struct batch_arg *a, struct sval *p,
    size_t max, struct store_error *err)
{
	size_t	 nd = 0, off, i, m;

	for (i = 0; i < a->n; i++)
		if (a->lost || a->doubt[i])
			a->dx[nd++] = i;
	for (off = 0; off < nd; off += a->k) {
		a->k = nd - off < max ? nd - off : max;
		m = pad_ids(st, p, 0, a->ids, a->dx + off, a->k);
		p[m] = SVI(a->fire);
		p[m + 1] = SVS(st->s_node);
		for (i = 0; i < a->k; i++) {
			a->ord[i].x_id = a->ids[a->dx[off + i]];
			a->ord[i].x_i = a->dx[off + i];
		}
		qsort(a->ord, a->k, sizeof(*a->ord), idx_cmp);
		a->nsel = 0;
		if (xexec(st, "batch.mine", S_BATCH_MINE, m, p, m + 2,
		    batch_row, a, NULL, err) == -1)
			return (-1);
		for (i = 0; i < a->nsel; i++) {
			a->won[a->sel[i]] = 1;
			(*a->nwon)++;
		}
	}
	return (0);
}

static int
batch_fn(struct store *st, void *arg, struct store_error *err)
{
	struct batch_arg	*a = arg;
	struct sval		 p[LIST_MAX + 4];
	struct idx		 ord[LIST_MAX];
	size_t			 sel[LIST_MAX];
	size_t			 max = st->s_ops->o_max_list, j, k, m;
	size_t			 left;
	int64_t			 changed;
	int			 rc = -1;

	memset(a->won, 0, a->n);
	*a->nwon = 0;
	if (max > LIST_MAX)
		max = LIST_MAX;
	a->sel = sel;
	a->ord = ord;
	/* After a lost result: first take what is already ours. */
	if ((a->lost || a->doubt != NULL) &&
	    batch_resolve(st, a, p, max, err) == -1)
		goto lost;
	if (xbegin(st, err) == -1)
		goto lost;
	for (a->off = 0; a->off < a->n && *a->nwon < a->max;
	    a->off += a->k) {
		a->k = a->n - a->off < max ? a->n - a->off : max;
		left = a->max - *a->nwon;
		m = pad_ids(st, p, 0, a->ids + a->off, NULL, a->k);
		p[m] = SVI(a->fire);
		p[m + 1] = SVI(a->fire);
		p[m + 2] = SVI(left);
		a->nsel = 0;
		batch_sort(a);
		if (xexec(st, "batch.select", S_BATCH_SELECT, m, p, m + 3,
		    batch_row, a, NULL, err) == -1)
			goto lost;
		if (a->nsel > left)
			a->nsel = left;
		if (a->nsel == 0)
			continue;
		/* Update the rows selected (and locked); record the claims. */
		k = a->nsel;
		p[0] = SVI(a->fire);
		p[1] = SVS(st->s_node);
		m = pad_ids(st, p, 2, a->ids, a->sel, k);
		p[m + 2] = SVI(a->fire);
		if (xexec(st, "batch.update", S_BATCH_UPDATE, m, p, m + 3,
		    NULL, NULL, &changed, err) == -1)
			goto lost;
		if ((size_t)changed != k) {
			store_seterr(err, STORE_TRANSIENT, SE_RETRY, 0,
			    "batch claim changed %lld of %zu rows",
			    (long long)changed, k);
			goto out;
		}
		m = pad_ids(st, p, 0, a->ids, a->sel, k);
		if (xexec(st, "batch.note", S_CLAIM_NOTE, m, p, m, NULL, NULL,
		    NULL, err) == -1)
			goto lost;
		for (j = 0; j < k; j++)
			a->won[a->sel[j]] = 1;
		*a->nwon += k;
	}
	if (xcommit(st, "batch", err) == -1)
		goto lost;
	rc = 0;
	goto out;
lost:
	if (err->se_kind == SE_LOST)
		a->lost = 1;
out:
	if (rc == -1) {
		memset(a->won, 0, a->n);
		*a->nwon = 0;
	}
	a->sel = NULL;
	a->ord = NULL;
	return (rc);
}

/* Rows of jobs the batch did not win that are still free. */
static int
hint_row(void *arg, const struct sval *c, size_t n)
{
	struct batch_arg	*a = arg;
	struct idx		 key, *x;

	key.x_id = str_of(&c[0]);
	x = bsearch(&key, a->ord, a->k, sizeof(*a->ord), idx_cmp);
	if (x != NULL && a->won[x->x_i] == 0)
		a->won[x->x_i] = 2;
	return (0);
}

static int
hint_fn(struct store *st, void *arg, struct store_error *err)
{
	struct batch_arg	*a = arg;
	struct sval		 p[LIST_MAX + 1];
	struct idx		 ord[LIST_MAX];
	size_t			 max = st->s_ops->o_max_list, nd, off, i, m;
	int			 rc = 0;

	if (max > LIST_MAX)
		max = LIST_MAX;
	for (i = nd = 0; i < a->n; i++) {
		if (a->won[i] == 1)
			continue;
		a->won[i] = 0;
		a->dx[nd++] = i;
	}
	a->ord = ord;
	for (off = 0; off < nd && rc == 0; off += a->k) {
		a->k = nd - off < max ? nd - off : max;
		m = pad_ids(st, p, 0, a->ids, a->dx + off, a->k);
		p[m] = SVI(a->fire);
		for (i = 0; i < a->k; i++) {
			ord[i].x_id = a->ids[a->dx[off + i]];
			ord[i].x_i = a->dx[off + i];
		}
		qsort(ord, a->k, sizeof(*ord), idx_cmp);
		rc = xexec(st, "batch.hint", S_BATCH_FREE, m, p, m + 1,
		    hint_row, a, NULL, err);
	}
	a->ord = NULL;
	return (rc);
}

/*
 * Tell the jobs the batch did not win apart: those still free at the
 * fire when read just after it (2: skipped under another transaction's
 * lock, or not reached once max were won) from those taken, paused or
 * unknown (0).  The read takes no lock, so on MariaDB a row another
 * node's batch still holds reads as its last committed state, free:
 * claimed alone, it waits for that batch and then tells.  When the
 * read fails, every job not won may be free; the batch's own result
 * stands (its claims are committed), so the failure is not reported.
 */
static void
batch_hint(struct store *st, struct batch_arg *a)
{
	struct store_error	 herr;
	size_t			 i;

	if (run_op(st, hint_fn, a, &herr) == 0)
		return;
	for (i = 0; i < a->n; i++)
		if (a->won[i] != 1)
			a->won[i] = 2;
}

int
store_claim_batch(struct store *st, const char *const *ids, size_t n,
    time_t fire, size_t max, unsigned char *won, size_t *nwon,
    struct store_error *err)
{
	struct batch_arg	 a;
	size_t			 i, nd = 0;
	int			 rc;

	err = err_init(err);
	*nwon = 0;
	memset(won, 0, n);
	if (n == 0 || max == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.ids = ids;
	a.n = n;
	a.fire = fire;
	a.max = max;
	a.won = won;
	a.nwon = nwon;
	if ((a.dx = reallocarray(NULL, n, sizeof(*a.dx))) == NULL)
		return (nomem(err));
	if (st->s_nuncertain > 0) {
		if ((a.doubt = calloc(n, 1)) == NULL) {
			free(a.dx);
			return (nomem(err));
		}
		for (i = 0; i < n; i++)
			if ((a.doubt[i] = uncertain_find(st, ids[i], fire) !=
			    -1))
				nd++;
		if (nd == 0) {
			free(a.doubt);
			a.doubt = NULL;
		}
	}
	rc = run_op(st, batch_fn, &a, err);
	if (rc == 0 && *nwon < n)
		batch_hint(st, &a);
	/*
	 * What was in flight and is not found ours stays in doubt, to be
	 * settled when asked again.  On MariaDB a transaction of ours cut
	 * off with its connection may still be running: batch.mine waits
	 * for the claims rows it wrote, but if it was cut before writing
	 * them it still holds job rows, which this call skipped (SKIP
	 * LOCKED) and which it can only roll back; a single claim waits
	 * for such a row and then tells.
	 */
	for (i = 0; i < n; i++) {
		if (rc == 0 && won[i] == 1) {
			if (st->s_nuncertain > 0)
				uncertain_del(st, ids[i], fire);
		} else if (a.lost)
			uncertain_add(st, ids[i], fire);
	}
	free(a.doubt);
	free(a.dx);
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Runs. */

const char *
store_run_state_name(enum store_run_state s)
{
	switch (s) {
	case RUN_RUNNING:
		return ("running");
	case RUN_FINISHED:
		return ("finished");
	case RUN_LOST:
		return ("lost");
	case RUN_MISSED:
		return ("missed");
	case RUN_SKIPPED:
		return ("skipped");
	case RUN_FAILED:
		return ("failed");
	}
	return ("unknown");
}

struct run_arg {
	const char	*job;
	time_t		 fire;
	int		 attempt;
	int64_t		 t;
	/* store_run_fail(), store_fire_note() */
	const char	*out;
	size_t		 outlen;
	int64_t		 total;
	int		 state;
	/* S_RUN_FIND's answer */
	int		 found;
	int64_t		 fid;
	char		 node[256];
};

static int
find_row(void *arg, const struct sval *c, size_t n)
{
	struct run_arg	*a = arg;

	a->found = 1;
	a->fid = int_of(&c[0]);
	strlcpy(a->node, str_of(&c[1]), sizeof(a->node));
	return (0);
}

/*
 * Run starts and ends, one or many.  Many go in one transaction, one
 * statement per run: the commit, not the statement, is what a run's
 * record cost when each had its own (bench/daemon/README), and a
 * prepared statement carried out n times keeps each run's id
 * (o_insert_id()) and its own answer to a duplicate.  A batch whose
 * connection drops before its commit is known to have gone through
 * is rolled back by the server, or committed whole; run again, each
 * start that is in already is found by its unique key (job, fire,
 * attempt, node) and keeps its first id, so no row is written twice.
 * On MariaDB a single run is one autocommitted statement, as before.
 */
struct runs_arg {
	const struct store_run_start	*rs;
	const struct store_run_end	*re;
	size_t				 n;
	int64_t				*ids;
};

static int
starts_fn(struct store *st, void *arg, struct store_error *err)
{
	struct runs_arg			*a = arg;
	const struct store_run_start	*r;
	struct run_arg			 f;
	struct sval			 p[6];
	size_t				 i;
	int				 trx;

	trx = st->s_ops->o_ddl_trx || a->n > 1;
	if (trx && xbegin(st, err) == -1)
		return (-1);
	for (i = 0; i < a->n; i++) {
		r = &a->rs[i];
		p[0] = SVS(r->rs_job);
		p[1] = SVI(r->rs_fire);
		p[2] = SVI(r->rs_attempt);
		p[3] = SVS(st->s_node);
		p[4] = SVI(r->rs_pid);
		p[5] = SVI(r->rs_start);
		if (xexec(st, "run_start", S_RUN_INSERT, 0, p, 6, NULL, NULL,
		    NULL, err) == 0) {
			a->ids[i] = st->s_ops->o_insert_id(st);
			continue;
		}
		if (err->se_kind != SE_DUP)
			return (-1);
		/*
		 * Recorded already, by us: an earlier call whose result
		 * was lost.  Only the statement failed; the transaction
		 * goes on.
		 */
		memset(err, 0, sizeof(*err));
		memset(&f, 0, sizeof(f));
		if (xexec(st, "run_start.find", S_RUN_FIND, 0, p, 4, find_row,
		    &f, NULL, err) == -1)
			return (-1);
		if (!f.found) {
			store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
			    "attempt %d of fire %lld of job %s on node %s: "
			    "recorded, then not found", r->rs_attempt,
			    (long long)r->rs_fire, r->rs_job, st->s_node);
			return (-1);
		}
		a->ids[i] = f.fid;
		/*
		 * Or by another node, from our claim, when we were taken
		 * for dead before we could record it: the start is known
		 * now (store_claims_unrun()).
		 */
		p[0] = SVI(r->rs_pid);
		p[1] = SVI(r->rs_start);
		p[2] = SVI(f.fid);
		if (xexec(st, "run_start.fill", S_RUN_FILL, 0, p, 3, NULL,
		    NULL, NULL, err) == -1)
			return (-1);
	}
	if (trx && xcommit(st, "run_start", err) == -1)
		return (-1);
	return (0);
}

int
store_runs_start_batch(struct store *st, const struct store_run_start *rs,
    size_t n, int64_t *ids, struct store_error *err)
{
	struct runs_arg	 a;
	size_t		 i;

	err = err_init(err);
	for (i = 0; i < n; i++) {
		ids[i] = 0;
		if (rs[i].rs_attempt < 1) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "run attempts count from 1");
			return (-1);
		}
	}
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.rs = rs;
	a.n = n;
	a.ids = ids;
	if (run_op(st, starts_fn, &a, err) == -1) {
		memset(ids, 0, n * sizeof(*ids));
		return (-1);
	}
	return (0);
}

int
store_run_start(struct store *st, const char *job, time_t fire,
    int attempt, int pid, int64_t start, int64_t *id,
    struct store_error *err)
{
	struct store_run_start	 rs;

	memset(&rs, 0, sizeof(rs));
	rs.rs_job = job;
	rs.rs_fire = fire;
	rs.rs_attempt = attempt;
	rs.rs_pid = pid;
	rs.rs_start = start;
	return (store_runs_start_batch(st, &rs, 1, id, err));
}

static int
ends_fn(struct store *st, void *arg, struct store_error *err)
{
	struct runs_arg			*a = arg;
	const struct store_run_end	*r;
	struct sval			 p[6];
	size_t				 i, keep;
	int				 trx;

	trx = st->s_ops->o_ddl_trx || a->n > 1;
	if (trx && xbegin(st, err) == -1)
		return (-1);
	for (i = 0; i < a->n; i++) {
		r = &a->re[i];
		p[0] = SVI(r->re_end);
		if (WIFSIGNALED(r->re_status)) {
			p[1] = SVI(-1);
			p[2] = SVI(WTERMSIG(r->re_status));
		} else {
			p[1] = SVI(WEXITSTATUS(r->re_status));
			p[2] = SVI(0);
		}
		keep = r->re_outlen < st->s_output_max ? r->re_outlen :
		    st->s_output_max;
		p[3] = SVB(r->re_out != NULL ? r->re_out : "",
		    r->re_out != NULL ? keep : 0);
		p[4] = SVI(r->re_outlen);
		p[5] = SVI(r->re_id);
		if (xexec(st, "run_end", S_RUN_END, 0, p, 6, NULL, NULL, NULL,
		    err) == -1)
			return (-1);
	}
	if (trx && xcommit(st, "run_end", err) == -1)
		return (-1);
	return (0);
}

int
store_runs_end_batch(struct store *st, const struct store_run_end *re,
    size_t n, struct store_error *err)
{
	struct runs_arg	 a;

	err = err_init(err);
	if (n == 0)
		return (0);
	memset(&a, 0, sizeof(a));
	a.re = re;
	a.n = n;
	return (run_op(st, ends_fn, &a, err));
}

int
store_run_end(struct store *st, int64_t id, int64_t end, int status,
    const char *out, size_t outlen, struct store_error *err)
{
	struct store_run_end	 re;

	memset(&re, 0, sizeof(re));
	re.re_id = id;
	re.re_end = end;
	re.re_status = status;
	re.re_out = out;
	re.re_outlen = outlen;
	return (store_runs_end_batch(st, &re, 1, err));
}

static int
note_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[6];

	p[0] = SVS(a->job);
	p[1] = SVI(a->fire);
	p[2] = SVS(st->s_node);
	p[3] = SVI(a->t);
	p[4] = SVI(a->t);
	p[5] = SVI(a->state);
	return (xexec(st, "note", S_FIRE_NOTE, 0, p, 6, NULL, NULL, NULL,
	    err));
}

static int
fail_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[8];

	p[0] = SVS(a->job);
	p[1] = SVI(a->fire);
	p[2] = SVI(a->attempt);
	p[3] = SVS(st->s_node);
	p[4] = SVI(a->t);
	p[5] = SVI(a->t);
	p[6] = SVB(a->out, a->outlen);
	p[7] = SVI(a->total);
	return (xexec(st, "run_fail", S_RUN_FAIL, 0, p, 8, NULL, NULL, NULL,
	    err));
}

int
store_run_fail(struct store *st, const char *job, time_t fire, int attempt,
    int64_t when, const char *why, struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	if (attempt < 1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "run attempts count from 1");
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.job = job;
	a.fire = fire;
	a.attempt = attempt;
	a.t = when;
	a.out = why != NULL ? why : "";
	a.total = (int64_t)strlen(a.out);
	a.outlen = (size_t)a.total < st->s_output_max ? (size_t)a.total :
	    st->s_output_max;
	return (run_op(st, fail_fn, &a, err));
}

int
store_fire_note(struct store *st, const char *job, time_t fire,
    enum store_run_state state, int64_t when, struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	if (state != RUN_MISSED && state != RUN_SKIPPED) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "only missed and skipped fires are noted");
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.job = job;
	a.fire = fire;
	a.t = when;
	a.state = state;
	return (run_op(st, note_fn, &a, err));
}

static int
run_row(void *arg, const struct sval *c, size_t n)
{
	struct store_run	*r;

	if ((r = vec_push(arg)) == NULL)
		return (-1);
	r->r_id = int_of(&c[0]);
	r->r_fire = (time_t)int_of(&c[2]);
	r->r_attempt = (int)int_of(&c[3]);
	r->r_pid = (int)int_of(&c[5]);
	r->r_start = int_of(&c[6]);
	r->r_end = int_of(&c[7]);
	r->r_state = (enum store_run_state)int_of(&c[8]);
	r->r_exit = (int)int_of(&c[9]);
	r->r_signal = (int)int_of(&c[10]);
	r->r_outlen = c[11].v_type == SV_NULL ? 0 : c[11].v_len;
	r->r_outtotal = int_of(&c[12]);
	if ((r->r_job = strdup(str_of(&c[1]))) == NULL ||
	    (r->r_node = strdup(str_of(&c[4]))) == NULL ||
	    (r->r_output = dupn(str_of(&c[11]), r->r_outlen)) == NULL) {
		free(r->r_job);
		free(r->r_node);
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	return (0);
}

static void
run_clear(struct store_run *r)
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
		run_clear(&r[i]);
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

	err = err_init(err);
	if (limit == 0 || limit > INT32_MAX)
		limit = INT32_MAX;
	p[0] = SVS(job);
	p[1] = SVI(limit);
	if (job == NULL)
		rc = list_get(st, LK_RUNS, S_RUNS_LIST, &p[1], 1, &v, n, err);
	else
		rc = list_get(st, LK_RUNS, S_RUNS_JOB, p, 2, &v, n, err);
	*out = v;
	return (rc);
}

int
store_runs_latest(struct store *st, struct store_run **out, size_t *n,
    struct store_error *err)
{
	void	*v;
	int	 rc;

	err = err_init(err);
	rc = list_get(st, LK_RUNS, S_RUNS_LATEST, NULL, 0, &v, n, err);
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

	err = err_init(err);
	rc = list_get(st, LK_RUNS, node == NULL ? S_RUNS_RUNNING :
	    S_RUNS_RUNNING_NODE, &p, node == NULL ? 0 : 1, &v, n, err);
	*out = v;
	return (rc);
}

static int
busy_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[2];

	p[0] = SVS(a->job);
	p[1] = SVI(a->fire);
	a->fid = 0;
	return (xexec(st, "list", S_JOB_BUSY, 0, p, 2, cut_row, &a->fid,
	    NULL, err));
}

int
store_job_busy(struct store *st, const char *job, time_t fire, int *busy,
    struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	*busy = 0;
	memset(&a, 0, sizeof(a));
	a.job = job;
	a.fire = fire;
	if (run_op(st, busy_fn, &a, err) == -1)
		return (-1);
	*busy = a.fid > 0;
	return (0);
}

static int
inflight_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[3];

	p[0] = SVI(a->t);
	p[1] = SVI(a->fire);
	p[2] = SVS(a->job);
	a->fid = 0;
	return (xexec(st, "list", S_JOB_INFLIGHT, 0, p, 3, cut_row, &a->fid,
	    NULL, err));
}

int
store_job_inflight(struct store *st, const char *job, time_t fire,
    time_t window, int *n, struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.job = job;
	a.fire = fire;
	a.t = (int64_t)fire - (int64_t)window;
	if (run_op(st, inflight_fn, &a, err) == -1)
		return (-1);
	*n = (int)a.fid;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Nodes. */

struct beat_arg {
	int64_t		 clock;
	int		 running;
	const char	*name;
	int		 drain;
	/* S_BEAT_READ's answer */
	int64_t		 now;
	int		 has;
	int		 state;
};

static int
beat_row(void *arg, const struct sval *c, size_t n)
{
	struct beat_arg	*a = arg;

	a->now = int_of(&c[0]);
	a->has = c[1].v_type != SV_NULL;
	a->state = (int)int_of(&c[1]);
	return (0);
}

static int
beat_fn(struct store *st, void *arg, struct store_error *err)
{
	struct beat_arg	*a = arg;
	struct sval	 p[6];

	p[0] = SVS(st->s_node);
	if (xexec(st, "beat.read", S_BEAT_READ, 0, p, 1, beat_row, a, NULL,
	    err) == -1)
		return (-1);
	p[1] = SVI(a->now);
	p[2] = SVI(a->now);
	p[3] = SVI(a->clock - a->now);
	p[4] = SVI(a->running);
	p[5] = SVI(st->s_beat_first);
	if (xexec(st, "beat", S_BEAT, 0, p, 6, NULL, NULL, NULL, err) == -1)
		return (-1);
	st->s_beat_first = 0;
	return (0);
}

int
store_heartbeat(struct store *st, int64_t clock, int running,
    int64_t *store_ms, int *draining, struct store_error *err)
{
	struct beat_arg	 a;

	err = err_init(err);
	*store_ms = 0;
	*draining = 0;
	memset(&a, 0, sizeof(a));
	a.clock = clock;
	a.running = running;
	if (run_op(st, beat_fn, &a, err) == -1)
		return (-1);
	*store_ms = a.now;
	*draining = a.has && a.state == NODE_DRAINING;
	return (0);
}

static int
drain_fn(struct store *st, void *arg, struct store_error *err)
{
	struct beat_arg	*a = arg;
	struct sval	 p[2];
	int64_t		 changed;

	p[0] = SVI(a->drain ? NODE_DRAINING : NODE_ACTIVE);
	p[1] = SVS(a->name);
	if (xexec(st, "node", S_NODE_DRAIN, 0, p, 2, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed > 0)
		return (0);
	a->has = 0;
	if (xexec(st, "node", S_BEAT_READ, 0, &p[1], 1, beat_row, a, NULL,
	    err) == -1)
		return (-1);
	if (!a->has) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, 0,
		    "no node %s in the store", a->name);
		return (-1);
	}
	return (0);
}

int
store_node_drain(struct store *st, const char *name, int drain,
    struct store_error *err)
{
	struct beat_arg	 a;

	err = err_init(err);
	memset(&a, 0, sizeof(a));
	a.name = name;
	a.drain = drain;
	return (run_op(st, drain_fn, &a, err));
}

static int
node_row(void *arg, const struct sval *c, size_t n)
{
	struct store_node	*nd;

	if ((nd = vec_push(arg)) == NULL)
		return (-1);
	if ((nd->n_name = strdup(str_of(&c[0]))) == NULL) {
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	nd->n_started = int_of(&c[1]);
	nd->n_beat = int_of(&c[2]);
	nd->n_skew = int_of(&c[3]);
	nd->n_state = (enum store_node_state)int_of(&c[4]);
	nd->n_running = (int)int_of(&c[5]);
	return (0);
}

void
store_nodes_free(struct store_node *nd, size_t n)
{
	size_t	 i;

	if (nd == NULL)
		return;
	for (i = 0; i < n; i++)
		free(nd[i].n_name);
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

	err = err_init(err);
	rc = list_get(st, LK_NODES, S_NODES_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

struct count_arg {
	int64_t		 a1;
	int64_t		 a2;
	size_t		 a3;
	const char	*name;
	size_t		 n;
	int		 held;
	char		 holder[256];
	int		 found;
	struct vec	 jobs;
};

/*
 * Runs marked lost.  The candidates are read, then each is marked by a
 * write that changes it only if it still runs, all in one transaction:
 * of several nodes doing this at once, each run's write changes it for
 * exactly one (on MariaDB the others wait on the row lock, then find
 * it lost already), and only that one returns it.  Rows are locked in
 * id order, so two such transactions do not deadlock on each other.
 *
 * The write also names the node that marked the run (lost_by).  Until
 * the transaction's commit is known to have succeeded, the runs it
 * marked are remembered in the store; should the result be lost, the
 * next attempt (in this call or a later one) reads each back and
 * returns those that name this node, so that a mark whose commit went
 * through is still handed to its caller.  Nothing else ever writes a
 * lost run's lost_by, so the answer is final.
 */
struct lost_arg {
	int64_t		 timeout;
	int64_t		 id;		/* store_run_lost(); 0: every node */
	int		 marked;
	struct vec	 v;		/* the runs this call marked */
	struct vec	 cand;		/* candidates */
};

static void
lostids_add(struct store *st, int64_t id)
{
	int64_t	*p;
	size_t	 i, cap;

	for (i = 0; i < st->s_nlostids; i++)
		if (st->s_lostids[i] == id)
			return;
	if (st->s_nlostids == st->s_lostcap) {
		cap = st->s_lostcap == 0 ? 16 : st->s_lostcap * 2;
		if (cap > LOSTIDS_MAX || (p = reallocarray(st->s_lostids,
		    cap, sizeof(*p))) == NULL) {
			if (st->s_nlostids == 0)
				return;
			memmove(&st->s_lostids[0], &st->s_lostids[1],
			    (st->s_nlostids - 1) * sizeof(*p));
			st->s_nlostids--;
		} else {
			st->s_lostids = p;
			st->s_lostcap = cap;
		}
	}
	st->s_lostids[st->s_nlostids++] = id;
}

static int
lost_fn(struct store *st, void *arg, struct store_error *err)
{
	struct lost_arg		*a = arg;
	struct store_run	*r, *to;
	struct meta_arg		 m;
	struct sval		 p[4];
	int64_t			 changed;
	size_t			 i;
	unsigned char		*mark = NULL;
	int			 rc = -1;

	store_runs_free(a->v.v_p, a->v.v_n);
	store_runs_free(a->cand.v_p, a->cand.v_n);
	a->v.v_p = a->cand.v_p = NULL;
	a->v.v_n = a->v.v_cap = a->cand.v_n = a->cand.v_cap = 0;
	a->marked = 0;
	memset(&m, 0, sizeof(m));
	if (xexec(st, "lost", S_NOW, 0, NULL, 0, meta_row, &m, NULL,
	    err) == -1)
		return (-1);
	if (a->id != 0) {
		p[0] = SVI(m.v);
		p[1] = SVS(st->s_node);
		p[2] = SVI(a->id);
		if (xexec(st, "lost", S_RUN_LOSE, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->marked = changed == 1;
		return (0);
	}
	if (xbegin(st, err) == -1)
		return (-1);
	for (i = 0; i < st->s_nlostids; i++) {
		p[0] = SVI(st->s_lostids[i]);
		p[1] = SVS(st->s_node);
		if (xexec(st, "lost.mine", S_LOST_MINE, 0, p, 2, run_row,
		    &a->v, NULL, err) == -1)
			goto out;
	}
	/* The claims dead nodes left without a record become runs. */
	p[0] = SVS(st->s_node);
	p[1] = SVI(a->timeout);
	p[2] = SVI(UNRUN_WINDOW + (a->timeout > 0 ? a->timeout : 0));
	p[3] = p[2];
	if (xexec(st, "lost.unrun", S_UNRUN_DEAD, 0, p, 4, NULL, NULL, NULL,
	    err) == -1)
		goto out;
	if (xexec(st, "lost", S_LOST_FIND, 0, p, 2, run_row, &a->cand, NULL,
	    err) == -1)
		goto out;
	if (a->cand.v_n > 0 && (mark = calloc(a->cand.v_n, 1)) == NULL) {
		nomem(err);
		goto out;
	}
	r = a->cand.v_p;
	for (i = 0; i < a->cand.v_n; i++) {
		p[0] = SVI(m.v);
		p[1] = SVS(st->s_node);
		p[2] = SVI(r[i].r_id);
		if (xexec(st, "lost", S_RUN_LOSE, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			goto out;
		if ((mark[i] = changed == 1))
			lostids_add(st, r[i].r_id);
	}
	if (xcommit(st, "lost", err) == -1)
		goto out;
	/* Hand over the runs marked; free the other candidates. */
	for (i = 0; i < a->cand.v_n; i++) {
		if (!mark[i]) {
			run_clear(&r[i]);
			continue;
		}
		if ((to = vec_push(&a->v)) == NULL) {
			/* Still remembered: a later call returns them. */
			for (; i < a->cand.v_n; i++)
				run_clear(&r[i]);
			a->cand.v_n = 0;
			nomem(err);
			goto out;
		}
		*to = r[i];
		to->r_state = RUN_LOST;
		to->r_end = m.v;
	}
	a->cand.v_n = 0;
	rc = 0;
out:
	free(mark);
	return (rc);
}

int
store_runs_mark_lost(struct store *st, int64_t timeout,
    struct store_run **lost, size_t *n, struct store_error *err)
{
	struct lost_arg	 a;
	int		 rc;

	err = err_init(err);
	*lost = NULL;
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.timeout = timeout;
	a.v.v_size = a.cand.v_size = sizeof(struct store_run);
	rc = run_op(st, lost_fn, &a, err);
	store_runs_free(a.cand.v_p, a.cand.v_n);
	if (rc == -1) {
		store_runs_free(a.v.v_p, a.v.v_n);
		return (-1);
	}
	/* Every mark in doubt is settled: returned now if it was ours. */
	st->s_nlostids = 0;
	if (a.v.v_n == 0)
		free(a.v.v_p);
	else {
		*lost = a.v.v_p;
		*n = a.v.v_n;
	}
	return (0);
}

static int
unrun_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[2];

	p[0] = SVI(a->fire);
	p[1] = SVS(st->s_node);
	return (xexec(st, "unrun", S_UNRUN_MINE, 0, p, 2, NULL, NULL, &a->fid,
	    err));
}

int
store_claims_unrun(struct store *st, time_t from, size_t *n,
    struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.fire = from;
	if (run_op(st, unrun_fn, &a, err) == -1)
		return (-1);
	*n = (size_t)a.fid;
	return (0);
}

static int
recorded_fn(struct store *st, void *arg, struct store_error *err)
{
	struct run_arg	*a = arg;
	struct sval	 p[2];

	p[0] = SVS(a->job);
	p[1] = SVI(a->fire);
	a->fid = 0;
	return (xexec(st, "list", S_FIRE_RECORDED, 0, p, 2, cut_row, &a->fid,
	    NULL, err));
}

int
store_fire_recorded(struct store *st, const char *job, time_t fire,
    int *n, struct store_error *err)
{
	struct run_arg	 a;

	err = err_init(err);
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.job = job;
	a.fire = fire;
	if (run_op(st, recorded_fn, &a, err) == -1)
		return (-1);
	*n = (int)a.fid;
	return (0);
}

int
store_run_lost(struct store *st, int64_t id, int *marked,
    struct store_error *err)
{
	struct lost_arg	 a;

	err = err_init(err);
	*marked = 0;
	if (id <= 0) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "no run %lld", (long long)id);
		return (-1);
	}
	memset(&a, 0, sizeof(a));
	a.id = id;
	a.v.v_size = a.cand.v_size = sizeof(struct store_run);
	if (run_op(st, lost_fn, &a, err) == -1)
		return (-1);
	*marked = a.marked;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Leases and trimming. */

static int
holder_row(void *arg, const struct sval *c, size_t n)
{
	struct count_arg	*a = arg;

	a->found = 1;
	strlcpy(a->holder, str_of(&c[0]), sizeof(a->holder));
	return (0);
}

static int
lease_take(struct store *st, struct count_arg *a, struct store_error *err)
{
	struct sval	 p[4];
	int64_t		 changed;

	a->held = 0;
	p[0] = SVS(st->s_node);
	p[1] = SVI(a->a1);
	p[2] = SVS(a->name);
	p[3] = SVS(st->s_node);
	if (xexec(st, "lease", S_LEASE_UPDATE, 0, p, 4, NULL, NULL, &changed,
	    err) == -1)
		return (-1);
	if (changed == 0) {
		p[0] = SVS(a->name);
		p[1] = SVS(st->s_node);
		p[2] = SVI(a->a1);
		if (xexec(st, "lease", S_LEASE_INSERT, 0, p, 3, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
	}
	if (changed == 0) {
		a->found = 0;
		if (xexec(st, "lease", S_LEASE_READ, 0, p, 1, holder_row, a,
		    NULL, err) == -1)
			return (-1);
		a->held = a->found && strcmp(a->holder, st->s_node) == 0;
	} else
		a->held = 1;
	return (0);
}

static int
lease_fn(struct store *st, void *arg, struct store_error *err)
{
	return (lease_take(st, arg, err));
}

int
store_lease_take(struct store *st, const char *name, int64_t ttl, int *held,
    struct store_error *err)
{
	struct count_arg	 a;

	err = err_init(err);
	*held = 0;
	memset(&a, 0, sizeof(a));
	a.name = name;
	a.a1 = ttl;
	if (run_op(st, lease_fn, &a, err) == -1)
		return (-1);
	*held = a.held;
	return (0);
}

static int
drop_fn(struct store *st, void *arg, struct store_error *err)
{
	struct count_arg	*a = arg;
	struct sval		 p[2];

	p[0] = SVS(a->name);
	p[1] = SVS(st->s_node);
	return (xexec(st, "lease", S_LEASE_DROP, 0, p, 2, NULL, NULL, NULL,
	    err));
}

int
store_lease_drop(struct store *st, const char *name, struct store_error *err)
{
	struct count_arg	 a;

	err = err_init(err);
	memset(&a, 0, sizeof(a));
	a.name = name;
	return (run_op(st, drop_fn, &a, err));
}

static int
trimjob_row(void *arg, const struct sval *c, size_t n)
{
	char	**p;

	if ((p = vec_push(arg)) == NULL)
		return (-1);
	if ((*p = strdup(str_of(&c[0]))) == NULL) {
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	return (0);
}

static int
cut_row(void *arg, const struct sval *c, size_t n)
{
	*(int64_t *)arg = int_of(&c[0]);
	return (0);
}

static void
strs_free(struct vec *v)
{
	size_t	 i;

	for (i = 0; i < v->v_n; i++)
		free(((char **)v->v_p)[i]);
	free(v->v_p);
	v->v_p = NULL;
	v->v_n = v->v_cap = 0;
}

static int
trim_fn(struct store *st, void *arg, struct store_error *err)
{
	struct count_arg	*a = arg;
	struct sval		 p[2];
	int64_t			 changed, cut, ttl = a->a1;
	size_t			 i;
	char			*job;

	a->n = 0;
	a->name = "trim";
	if (lease_take(st, a, err) == -1)
		return (-1);
	if (!a->held)
		return (0);
	if (a->a2 > 0) {
		p[0] = SVI(a->a2);
		if (xexec(st, "trim", S_TRIM_AGE, 0, p, 1, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->n += (size_t)changed;
	}
	if (a->a3 == 0)
		return (trim_rest(st, a, err));
	strs_free(&a->jobs);
	a->jobs.v_size = sizeof(char *);
	p[0] = SVI(a->a3);
	if (xexec(st, "trim", S_TRIM_JOBS, 0, p, 1, trimjob_row, &a->jobs,
	    NULL, err) == -1)
		return (-1);
	for (i = 0; i < a->jobs.v_n; i++) {
		job = ((char **)a->jobs.v_p)[i];
		p[0] = SVS(job);
		p[1] = SVI(a->a3 - 1);
		cut = 0;
		if (xexec(st, "trim", S_TRIM_CUT, 0, p, 2, cut_row, &cut,
		    NULL, err) == -1)
			return (-1);
		if (cut == 0)
			continue;
		p[1] = SVI(cut);
		if (xexec(st, "trim", S_TRIM_JOB, 0, p, 2, NULL, NULL,
		    &changed, err) == -1)
			return (-1);
		a->n += (size_t)changed;
	}
	(void)ttl;
	return (trim_rest(st, a, err));
}

/*
 * The claims rows, then the descriptions of the jobs that are gone and
 * have no runs left (or are back).
 */
static int
trim_rest(struct store *st, struct count_arg *a, struct store_error *err)
{
	if (trim_claims(st, a, err) == -1)
		return (-1);
	return (xexec(st, "trim", S_GONE_TRIM, 0, NULL, 0, NULL, NULL, NULL,
	    err));
}

/*
 * The claims rows go with the history (not counted in *n): those of
 * fires older than the age, and all but those of the newest max_runs
 * instants, which for a job due every minute still keeps hours of
 * them.  A claims row is needed only until a node that lost the
 * claim's result asks again, soon after.  Both are range deletes on
 * the claims' key, which starts with the fire.
 */
static int
trim_claims(struct store *st, struct count_arg *a, struct store_error *err)
{
	struct sval	 p;
	int64_t		 cut = 0;

	if (a->a2 > 0) {
		p = SVI(a->a2);
		if (xexec(st, "trim", S_TRIM_CLAIMS_AGE, 0, &p, 1, NULL, NULL,
		    NULL, err) == -1)
			return (-1);
	}
	if (a->a3 == 0)
		return (0);
	p = SVI(a->a3 - 1);
	if (xexec(st, "trim", S_TRIM_CLAIMS_CUT, 0, &p, 1, cut_row, &cut,
	    NULL, err) == -1)
		return (-1);
	if (cut == 0)
		return (0);
	p = SVI(cut);
	return (xexec(st, "trim", S_TRIM_CLAIMS_FIRE, 0, &p, 1, NULL, NULL,
	    NULL, err));
}

int
store_trim(struct store *st, int64_t max_age, size_t max_runs, int64_t ttl,
    size_t *n, struct store_error *err)
{
	struct count_arg	 a;
	int			 rc;

	err = err_init(err);
	*n = 0;
	memset(&a, 0, sizeof(a));
	a.a1 = ttl > 0 ? ttl : 60000;
	a.a2 = max_age;
	a.a3 = max_runs;
	rc = run_op(st, trim_fn, &a, err);
	strs_free(&a.jobs);
	if (rc == 0)
		*n = a.n;
	return (rc);
}

/* ------------------------------------------------------------------ */
/* Tables. */

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

	a->found = 1;
	a->version = int_of(&c[1]);
	free(a->got);
	a->got = NULL;
	if (c[0].v_type != SV_NULL &&
	    (a->got = dupn(c[0].v_str, c[0].v_len)) == NULL)
		return (-1);
	return (0);
}

static int
table_get_fn(struct store *st, void *arg, struct store_error *err)
{
	struct table_arg	*a = arg;
	struct sval		 p = SVS(a->owner);

	a->found = 0;
	a->version = 0;
	return (xexec(st, "table.get", S_TABLE_GET, 0, &p, 1, table_row, a,
	    NULL, err));
}

int
store_table_get(struct store *st, const char *owner, char **text,
    int64_t *version, struct store_error *err)
{
	struct table_arg	 a;

	err = err_init(err);
	*text = NULL;
	*version = 0;
	memset(&a, 0, sizeof(a));
	a.owner = owner;
	if (run_op(st, table_get_fn, &a, err) == -1) {
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
		if (xexec(st, "table", S_TABLE_INSERT, 0, p, 3, NULL, NULL,
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
		if (xexec(st, "table", S_TABLE_UPDATE, 0, p, 4, NULL, NULL,
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

	err = err_init(err);
	*version = 0;
	memset(&a, 0, sizeof(a));
	a.owner = owner;
	a.text = text;
	a.expected = expected;
	rc = run_op(st, table_put_fn, &a, err);
	free(a.got);
	if (rc == 0)
		*version = a.version;
	return (rc);
}

static int
tables_row(void *arg, const struct sval *c, size_t n)
{
	struct store_table	*t;

	if (c[1].v_type == SV_NULL)
		return (0);	/* deleted */
	if ((t = vec_push(arg)) == NULL)
		return (-1);
	if ((t->t_owner = strdup(str_of(&c[0]))) == NULL ||
	    (t->t_text = dupn(c[1].v_str, c[1].v_len)) == NULL) {
		free(t->t_owner);
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	t->t_version = int_of(&c[2]);
	t->t_updated = int_of(&c[3]);
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

	err = err_init(err);
	rc = list_get(st, LK_TABLES, S_TABLES_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}

/* The claims table as it stands (store_claims_list()). */
static int
claims_row(void *arg, const struct sval *c, size_t n)
{
	struct store_claim	*cl;

	if ((cl = vec_push(arg)) == NULL)
		return (-1);
	if ((cl->c_job = strdup(str_of(&c[0]))) == NULL ||
	    (cl->c_node = strdup(str_of(&c[2]))) == NULL) {
		free(cl->c_job);
		((struct vec *)arg)->v_n--;
		return (-1);
	}
	cl->c_fire = (time_t)int_of(&c[1]);
	cl->c_at = int_of(&c[3]);
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

	err = err_init(err);
	rc = list_get(st, LK_CLAIMS, S_CLAIMS_LIST, NULL, 0, &v, n, err);
	*out = v;
	return (rc);
}
