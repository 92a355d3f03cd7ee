/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store.c: opening and closing a store, and the frame every operation
 * runs in.  The backends only carry out numbered statements
 * (store_int.h), so a claim, its resolution after a lost connection
 * and the retries are written once, in the files of lock/; this one
 * holds what they all use.
 *
 * Failure handling.  Every public operation runs through lk_run(),
 * which (re)connects with back-off, runs the operation's body, rolls
 * back an open transaction on failure, retries a deadlock up to
 * sc_retries times (a lock wait that timed out once) and, after a lost
 * connection, reconnects once at once and runs the body again.  Each
 * body is written so that running it again after a lost result is safe
 * and tells the truth: claims read their claims row (see store.h), run
 * starts find their own row by its unique key, table updates recognise
 * their own write.  When the reconnection fails the operation returns
 * an error with se_lost set and later calls retry connecting no sooner
 * than the back-off allows (50 ms doubling to 5 s).
 *
 * A transaction whose statement failed is never committed.  On a
 * Galera cluster a transaction that another server's write set aborts
 * is rolled back there and then: its statement fails with a deadlock
 * (1213), and a COMMIT sent after it would succeed having committed
 * nothing; on any server a lock wait that timed out undoes the
 * statement only.  So a failed statement dooms the transaction (a
 * duplicate key excepted: the operations that expect one carry on, and
 * the statement alone failed), lk_commit() refuses a doomed one, and
 * lk_run() rolls it back.
 *
 * Several servers (the MariaDB backend, a URL naming the servers of a
 * Galera cluster): a lost connection moves the store on to the next
 * server, and the reconnection above goes there.  How long a server
 * may take to answer before its connection counts as lost is
 * sc_read_timeout, 8 s by default with several servers: more than a
 * Galera cluster's writes stall while it drops a server that froze
 * (about 6 s with its default evs.suspect_timeout of 5 s), and little
 * enough that a node whose server froze moves on before its lease runs
 * out.  lk_check() asks the server, every CHECK_EVERY ms of use, whether
 * it may still be used (store_mysql.c says what that means).
 */

#include <sys/socket.h>

#include <errno.h>
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

struct op1;

static void	 retry_pause(unsigned int);
static int	 op1_fn(struct store *, void *, struct store_error *);

struct store_error	 lk_scratch;

/* ------------------------------------------------------------------ */
/* Errors and values. */

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

struct store_error *
lk_err_init(struct store_error *err)
{
	if (err == NULL)
		err = &lk_scratch;
	memset(err, 0, sizeof(*err));
	return (err);
}

int
lk_nomem(struct store_error *err)
{
	store_seterr(err, STORE_FATAL, SE_OTHER, ENOMEM, "out of memory");
	return (-1);
}

/*
 * A row callback gave up: out of memory, or the row was shorter than
 * the statement's columns (a store whose schema is not the one this
 * program wrote, or a backend that lost columns on the way).
 */
void
lk_row_error(int rc, enum stmt s, size_t n, struct store_error *err)
{
	if (rc == ROW_SHORT)
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "statement %d: "
		    "a row with fewer columns than it reads (%zu given)",
		    (int)s, n);
	else
		lk_nomem(err);
}

const char *
lk_str(const struct sval *v)
{
	return (v->v_type == SV_TEXT || v->v_type == SV_BLOB ? v->v_str : "");
}

int64_t
lk_int(const struct sval *v)
{
	return (v->v_type == SV_INT ? v->v_int : 0);
}

char *
lk_dupn(const char *s, size_t n)
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

void *
lk_vec_push(struct vec *v)
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

void
lk_vec_pop(struct vec *v)
{
	if (v->v_n > 0)
		v->v_n--;
}

/* The largest power of two not above n nor max. */
size_t
lk_piece(size_t n, size_t max)
{
	size_t	 k = 1;

	while (k * 2 <= n && k * 2 <= max)
		k *= 2;
	return (k);
}

/*
 * Bind n ids (ids[idx[i]] when idx is given) from p[at] on.  A backend
 * that keeps few prepared statements (MariaDB counts them against a
 * server-wide limit) gets the list padded to the next power of two by
 * repeating the last id, which changes nothing in an IN list.  Returns
 * the length bound.
 */
size_t
lk_pad_ids(struct store *st, struct sval *p, size_t at,
    const char *const *ids, const size_t *idx, size_t n)
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

/* ------------------------------------------------------------------ */
/* Statements, transactions, connection. */

/*
 * Servers whose connection was lost, shared by the stores of this
 * process (the daemon has two, its heartbeat's and the other's, used
 * one after the other): a store still connected to a server that
 * another store lost since it connected gives that connection up
 * before using it (lk_run()), instead of waiting out a read timeout of
 * its own on a server that froze.  At worst a connection is made again
 * for nothing.
 */
#define GONE_MAX	STORE_MAXHOSTS
static struct {
	char		 g_host[STORE_SERVERLEN];
	unsigned int	 g_port;
	int64_t		 g_at;
} gone[GONE_MAX];

static int
gone_find(const char *host, unsigned int port)
{
	int	 i;

	for (i = 0; i < GONE_MAX; i++)
		if (gone[i].g_at != 0 && gone[i].g_port == port &&
		    strcmp(gone[i].g_host, host) == 0)
			return (i);
	return (-1);
}

static void
gone_note(struct store *st)
{
	const char	*host = st->s_hosts[st->s_cur];
	unsigned int	 port = st->s_ports[st->s_cur];
	int		 i, k;

	if ((k = gone_find(host, port)) == -1)
		for (i = k = 0; i < GONE_MAX; i++)
			if (gone[i].g_at < gone[k].g_at)
				k = i;
	strlcpy(gone[k].g_host, host, sizeof(gone[k].g_host));
	gone[k].g_port = port;
	gone[k].g_at = clock_mono();
}

/* Another store of this process lost our server since we connected. */
static int
gone_since(struct store *st)
{
	int	 k;

	if (!st->s_connected || st->s_nhosts < 2)
		return (0);
	k = gone_find(st->s_hosts[st->s_cur], st->s_ports[st->s_cur]);
	return (k != -1 && gone[k].g_at > st->s_since);
}

/* The connection is gone: the next one tries the next server first. */
void
lk_lost(struct store *st)
{
	if (st->s_connected && st->s_nhosts > 1)
		gone_note(st);
	if (st->s_connected)
		st->s_ops->o_disconnect(st);
	st->s_connected = 0;
	st->s_in_trx = 0;
	if (st->s_nhosts > 1)
		st->s_cur = (st->s_cur + 1) % st->s_nhosts;
}

/*
 * Carry out one statement at a named fault point: "<point>.before" is
 * checked before the statement, "<point>.after" once it has been
 * carried out (a drop there loses a result the server has committed).
 */
int
lk_exec(struct store *st, const char *point, enum stmt s, size_t n,
    const struct sval *p, size_t np, store_row_fn row, void *arg,
    int64_t *changed, struct store_error *err)
{
	if (changed != NULL)
		*changed = 0;
	if (!st->s_connected) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store");
		return (-1);
	}
	if (lk_fault_before(st, point, NULL, row != NULL ? &row : NULL,
	    &arg, err) == -1)
		return (-1);
	if (st->s_ops->o_exec(st, s, n, p, np, row, arg, changed, err) == -1) {
		if (err->se_kind != SE_DUP)
			st->s_doomed = 1;
		if (err->se_kind == SE_LOST)
			lk_lost(st);
		return (-1);
	}
	return (lk_fault_after(st, point, NULL, err));
}

int
lk_begin(struct store *st, struct store_error *err)
{
	if (!st->s_connected) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store");
		return (-1);
	}
	if (st->s_ops->o_begin(st, err) == -1) {
		if (err->se_kind == SE_LOST)
			lk_lost(st);
		return (-1);
	}
	st->s_in_trx = 1;
	st->s_doomed = 0;
	return (0);
}

/*
 * Commit at the fault point "<point>.commit", unless a statement of the
 * transaction failed: then nothing is sent, the transaction counts as
 * lost to a deadlock, and lk_run() rolls it back.
 */
int
lk_commit(struct store *st, const char *point, struct store_error *err)
{
	if (st->s_in_trx && st->s_doomed) {
		store_seterr(err, STORE_TRANSIENT, SE_RETRY, 0, "a statement "
		    "of the transaction failed: not committed");
		return (-1);
	}
	if (lk_fault_before(st, point, "commit", NULL, NULL, err) == -1)
		return (-1);
	if (st->s_ops->o_commit(st, err) == -1) {
		if (err->se_kind == SE_LOST)
			lk_lost(st);
		return (-1);
	}
	st->s_in_trx = 0;
	return (lk_fault_after(st, point, "commit", err));
}

void
store_retry_now(struct store *st)
{
	st->s_next_connect = 0;
}

/* Connect if not connected, no sooner than the back-off allows. */
int
lk_connect(struct store *st, struct store_error *err)
{
	int64_t	 now;

	if (st->s_connected)
		return (0);
	if (atomic_load(&st->s_abort)) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "the store was given up (the daemon stops)");
		return (-1);
	}
	now = clock_mono();
	if (now < st->s_next_connect) {
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "not connected to the store; next attempt in %lld ms",
		    (long long)(st->s_next_connect - now));
		return (-1);
	}
	/* The option files are read again at each connection. */
	if (lk_fault_connect(err) == -1 ||
	    (st->s_ops == &store_mysql_ops &&
	    lk_optfile_check(st, err) == -1) ||
	    st->s_ops->o_connect(st, err) == -1) {
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
	st->s_checked = st->s_since = clock_mono();
	return (0);
}

int
lk_check(struct store *st, int force, struct store_error *err)
{
	int64_t	 now;

	if (!st->s_connected || st->s_ops->o_check == NULL)
		return (0);
	now = clock_mono();
	if (!force && now - st->s_checked < CHECK_EVERY)
		return (0);
	st->s_checked = now;
	if (st->s_ops->o_check(st, err) == -1) {
		if (err->se_kind == SE_LOST)
			lk_lost(st);
		return (-1);
	}
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

/*
 * From another thread: every call from now on fails at once without
 * waiting on the server, and the one blocked on it now, if any, fails
 * as on a lost connection once its socket is shut down.  A socket
 * closed and its number taken again meanwhile could be another's, but
 * only the store opens sockets while the loop is in a store call.
 */
void
store_abort(struct store *st)
{
	int	 fd;

	if (st == NULL)
		return;
	atomic_store(&st->s_abort, 1);
	if ((fd = atomic_load(&st->s_sock)) >= 0)
		(void)shutdown(fd, SHUT_RDWR);
}

int
lk_run(struct store *st, op_fn fn, void *arg, struct store_error *err)
{
	unsigned int	 tries = 0, reconnects = 0;

	for (;;) {
		memset(err, 0, sizeof(*err));
		if (gone_since(st))
			lk_lost(st);
		if (lk_connect(st, err) == -1)
			return (-1);
		if (lk_check(st, 0, err) == 0 && fn(st, arg, err) == 0)
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
		    st->s_backoff == 0 && !atomic_load(&st->s_abort))
			continue;
		return (-1);
	}
}

/* ------------------------------------------------------------------ */
/* Operations of one statement. */

struct op1 {
	const char		*point;
	enum stmt		 s;
	const struct sval	*p;
	size_t			 np;
	int			 read;	/* read an integer */
	struct lk_int		 v;
	int64_t			 changed;
};

int
lk_int_row(void *arg, const struct sval *c, size_t n)
{
	struct lk_int	*v = arg;

	ROW_NEED(n, 1);
	v->i_found = 1;
	v->i_v = lk_int(&c[0]);
	return (0);
}

/* Run again after a lost connection: the answer starts afresh. */
static int
op1_fn(struct store *st, void *arg, struct store_error *err)
{
	struct op1	*a = arg;

	memset(&a->v, 0, sizeof(a->v));
	return (lk_exec(st, a->point, a->s, 0, a->p, a->np,
	    a->read ? lk_int_row : NULL, &a->v, &a->changed, err));
}

int
lk_op_int(struct store *st, const char *point, enum stmt s,
    const struct sval *p, size_t np, int64_t *v, int *found,
    struct store_error *err)
{
	struct op1	 a;

	*v = 0;
	if (found != NULL)
		*found = 0;
	memset(&a, 0, sizeof(a));
	a.point = point;
	a.s = s;
	a.p = p;
	a.np = np;
	a.read = 1;
	if (lk_run(st, op1_fn, &a, err) == -1)
		return (-1);
	*v = a.v.i_v;
	if (found != NULL)
		*found = a.v.i_found;
	return (0);
}

int
lk_op_write(struct store *st, const char *point, enum stmt s,
    const struct sval *p, size_t np, int64_t *changed,
    struct store_error *err)
{
	struct op1	 a;

	if (changed != NULL)
		*changed = 0;
	memset(&a, 0, sizeof(a));
	a.point = point;
	a.s = s;
	a.p = p;
	a.np = np;
	if (lk_run(st, op1_fn, &a, err) == -1)
		return (-1);
	if (changed != NULL)
		*changed = a.changed;
	return (0);
}

/* ------------------------------------------------------------------ */
/* Opening and closing. */

int
store_open(const struct store_config *cf, struct store **out,
    struct store_error *err)
{
	struct store	*st;
	char		 host[256];

	err = lk_err_init(err);
	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return (lk_nomem(err));
	atomic_init(&st->s_sock, -1);
	atomic_init(&st->s_abort, 0);
	if (lk_url_take(st, cf->sc_url, err) == -1)
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
	/* Servers the option files list, when the URL names none. */
	if (st->s_ops == &store_mysql_ops && lk_optfile_hosts(st, err) == -1)
		goto fail;
	st->s_connect_timeout = cf->sc_connect_timeout != 0 ?
	    cf->sc_connect_timeout : 5;
	st->s_read_timeout = cf->sc_read_timeout != 0 ?
	    cf->sc_read_timeout : st->s_nhosts > 1 ? 8 : 30;
	st->s_idle_trx_timeout = cf->sc_idle_trx_timeout;
	st->s_busy_timeout = cf->sc_busy_timeout != 0 ?
	    cf->sc_busy_timeout : 5000;
	st->s_output_max = cf->sc_output_max != 0 ? cf->sc_output_max : 4096;
	if (st->s_output_max > STORE_OUTPUT_LIMIT)
		st->s_output_max = STORE_OUTPUT_LIMIT;
	st->s_retries = cf->sc_retries != 0 ? cf->sc_retries : 5;
	st->s_beat_first = 1;
	if (lk_connect(st, err) == -1)
		goto fail;
	if (lk_schema_setup(st, cf->sc_schema > 0 && cf->sc_schema <
	    STORE_SCHEMA ? cf->sc_schema : STORE_SCHEMA, err) == -1)
		goto fail;
	*out = st;
	return (0);
nomem:
	lk_nomem(err);
fail:
	store_close(st);
	return (-1);
}

void
store_close(struct store *st)
{
	size_t	 i;

	if (st == NULL)
		return;
	if (st->s_connected)
		st->s_ops->o_disconnect(st);
	free(st->s_be);
	free(st->s_path);
	for (i = 0; i < st->s_nhosts; i++)
		free(st->s_hosts[i]);
	free(st->s_socket);
	free(st->s_db);
	free(st->s_mysql_file);
	free(st->s_mysql_group);
	free(st->s_node);
	free(st->s_uncertain);
	free(st->s_lostids);
	lk_trim_free(st);
	free(st);
}

const char *
store_backend(const struct store *st)
{
	return (st->s_ops->o_name);
}

int
store_now(struct store *st, int64_t *now, struct store_error *err)
{
	err = lk_err_init(err);
	return (lk_op_int(st, "now", S_NOW, NULL, 0, now, NULL, err));
}
