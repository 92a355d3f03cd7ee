/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * sqlrace.c: the claim rule of clustercron at the SQL level, straight
 * through libmariadb and never through lock/, on a Galera cluster (or
 * on a single server, to compare).  Each contender is a thread with a
 * connection of its own, named by a client option file whose [client]
 * group says which server; "FILE@HOST:PORT" connects over TCP instead.
 * Test and benchmark code only: the product's SQL lives in lock/.
 *
 *	sqlrace race [-qt] [-r 0|1] [-n rounds] CNF CNF ...
 *		Rounds of contenders racing the same conditional UPDATE
 *		of one row (v < round), released together by a barrier;
 *		-t in explicit transactions that also INSERT the claim's
 *		row when the UPDATE matched, otherwise in autocommit; -r
 *		sets wsrep_retry_autocommit for the session; -q sends the
 *		UPDATE as text (COM_QUERY), not as a prepared statement.  A loser
 *		that gets 1213 (deadlock, certification failure) tries
 *		again as the store does, until the statement decides.
 *		After each round a causal read (wsrep_sync_wait) checks
 *		that exactly one contender won and that the row names it.
 *	sqlrace bench [-b slots] [-j jobs] [-f fires] [-l label] CNF ...
 *		Claims per second and the latency of one claim, each
 *		contender claiming every job at every fire in the store's
 *		shape (conditional UPDATE of the job's row and INSERT of
 *		its claims row, one transaction), starting at different
 *		jobs so that they meet now and then, as nodes do.  With
 *		-b, every contender at each fire at once claims in batches
 *		of up to `slots' jobs, as store_claim_batch() does (SELECT
 *		... FOR UPDATE SKIP LOCKED, conditional UPDATE ... IN,
 *		INSERT of the claims rows won), until none is free: the
 *		latency is then that of one batch.
 *	sqlrace inflight [-p every] CNF CNF2
 *		Commit small transactions through CNF until its server
 *		goes away, then say what the client saw and find out on
 *		CNF2, with a causal read, whether the transaction in
 *		flight committed.
 *	sqlrace watch [-u stopfile] [-i id] [-T timeout] CNF
 *		Write through CNF every 20 ms until stopfile exists,
 *		reconnecting after errors; print "first write", each
 *		error as it comes, "writes again" at the first write after
 *		errors, and, at the end, the longest time without a write.
 *	sqlrace stale [-n rounds] CNF CNF2
 *		Write through CNF, read at once through CNF2, without and
 *		then with wsrep_sync_wait: how often is the read stale,
 *		and what does a causal read cost?
 *	sqlrace locks CNF CNF2
 *		Do GET_LOCK, SELECT ... FOR UPDATE and SKIP LOCKED reach
 *		from one connection to the other?  What does a no-op
 *		CREATE TABLE IF NOT EXISTS on the second do to a
 *		transaction of the first writing to that table?
 *	sqlrace probe CNF
 *		What a client with the store's privileges can learn of
 *		its server: Galera state, read_only, replication; and
 *		the class of set-up it concludes.
 *
 * Every mode prints "name: value" lines for the tests to read and exits
 * 1 when what it checks does not hold, 2 on bad usage.
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mysql.h>

#define NTALLY		32
#define MAXTRY		1000	/* attempts of one claim before giving up */
#define MAXB		100	/* most jobs in one batch */
#define NOW3		"CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"
#define BUFSZ		256

enum { WON = 1, LOST = 0, FAILED = 2 };

struct tally {
	struct {
		char		 stage;
		unsigned int	 err;
		unsigned long	 n;
	}		 e[NTALLY];
	size_t		 n;
};

struct racer {
	int		 id;		/* 1, 2, ... */
	const char	*cnf;
	MYSQL		*m;
	MYSQL_STMT	*upd, *ins;
	struct tally	 first;		/* errors of first attempts */
	struct tally	 all;		/* errors of every attempt */
	unsigned long	 won, won1, lost, zero, retries, late;
	uint32_t	*lat;		/* per claim, microseconds */
	size_t		 nlat;
	unsigned char	*out;		/* race: per round, WON/LOST/FAILED */
	unsigned char	*matched;	/* race: the first UPDATE matched */
	unsigned char	*conflict;	/* race: the first attempt got 1213 */
	MYSQL_STMT	*sel;		/* bench -b: the batch's SELECT */
	MYSQL_STMT	*bupd[MAXB + 1], *bins[MAXB + 1];
	unsigned long	 batches;
	int		 bad;
};

static struct racer	*racers;
static int		 nracers;
static pthread_barrier_t bar;
static long		 rounds = 2000;
static int		 trx, text, retry_ac = -1;
static MYSQL		*chk;
static int		 violations;
static long		 njobs = 200, nfires = 10, slots;
static pthread_barrier_t fbar;
static unsigned int	 connect_errno;
static char		 connect_error[BUFSZ];
static int		 quiet;

static void	 usage(void);
static uint64_t	 now_us(void);
static int	 cmp_u32(const void *, const void *);
static const char *stage_name(char);
static void	 tally_add(struct tally *, char, unsigned int);
static void	 tally_merge(struct tally *, const struct tally *);
static void	 tally_print(const char *, const struct tally *);
static MYSQL	*db_connect(const char *, unsigned int);
static MYSQL	*db_must(const char *, unsigned int);
static unsigned int db_exec(MYSQL *, const char *);
static void	 db_must_exec(MYSQL *, const char *);
static unsigned int db_value(MYSQL *, const char *, char *, size_t);
static unsigned int db_rows(MYSQL *, const char *, unsigned long *);
static long long db_int(MYSQL *, const char *);
static MYSQL_STMT *db_prep(MYSQL *, const char *);
static unsigned int db_run(MYSQL_STMT *, MYSQL_BIND *, my_ulonglong *);
static void	 bind_ll(MYSQL_BIND *, long long *);
static void	 bind_str(MYSQL_BIND *, char *, unsigned long *);
static int	 is_lost(unsigned int);
static void	 session(MYSQL *);
static void	 racers_free(void);
static void	 percentiles(uint32_t *, size_t, uint32_t *, uint32_t *);
static long long status_sum(const char *);
static int	 race_claim(struct racer *, long long);
static void	 race_check(long long);
static void	*race_thread(void *);
static int	 race(int, char **);
static int	 bench_claim(struct racer *, const char *, long long);
static MYSQL_STMT *batch_stmt(struct racer *, int, size_t);
static int	 bench_batch(struct racer *, long long);
static void	*bench_thread(void *);
static int	 bench(int, char **);
static int	 inflight(int, char **);
static int	 watch(int, char **);
static int	 stale(int, char **);
static int	 locks(int, char **);
static void	 probe_show(MYSQL *, const char *, const char *);
static int	 probe(int, char **);

static void
usage(void)
{
	fprintf(stderr, "usage: sqlrace race [-qt] [-r 0|1] [-n rounds] "
	    "CNF CNF ...\n"
	    "       sqlrace bench [-b slots] [-j jobs] [-f fires] [-l label] "
	    "CNF ...\n"
	    "       sqlrace inflight [-p every] CNF CNF2\n"
	    "       sqlrace watch [-u stopfile] [-i id] [-T timeout] CNF\n"
	    "       sqlrace stale [-n rounds] CNF CNF2\n"
	    "       sqlrace locks CNF CNF2\n"
	    "       sqlrace probe CNF\n");
	exit(2);
}

static uint64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	 x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}

static const char *
stage_name(char s)
{
	switch (s) {
	case 'b':
		return ("START TRANSACTION");
	case 'u':
		return ("UPDATE");
	case 'i':
		return ("INSERT");
	case 'c':
		return ("COMMIT");
	case 'r':
		return ("SELECT");
	case 'C':
		return ("connect");
	}
	return ("?");
}

static void
tally_add(struct tally *t, char stage, unsigned int e)
{
	size_t	 i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].stage == stage && t->e[i].err == e) {
			t->e[i].n++;
			return;
		}
	if (t->n == NTALLY)
		return;
	t->e[t->n].stage = stage;
	t->e[t->n].err = e;
	t->e[t->n++].n = 1;
}

static void
tally_merge(struct tally *to, const struct tally *from)
{
	size_t		 i;
	unsigned long	 k;

	for (i = 0; i < from->n; i++)
		for (k = 0; k < from->e[i].n; k++)
			tally_add(to, from->e[i].stage, from->e[i].err);
}

static void
tally_print(const char *what, const struct tally *t)
{
	size_t	 i;

	printf("%s:", what);
	if (t->n == 0)
		printf(" none");
	for (i = 0; i < t->n; i++)
		printf("%s %lu x %u at %s", i > 0 ? "," : "", t->e[i].n,
		    t->e[i].err, stage_name(t->e[i].stage));
	printf("\n");
}

/*
 * Connect as the option file says; "FILE@HOST:PORT" overrides the
 * file's socket with TCP to HOST:PORT.  NULL on failure, with the
 * error printed.
 */
static MYSQL *
db_connect(const char *arg, unsigned int timeout)
{
	MYSQL		*m;
	char		 file[PATH_MAX], host[64];
	const char	*at, *colon;
	unsigned int	 port = 0, ct = 3;
	my_bool		 off = 0;

	host[0] = '\0';
	strlcpy(file, arg, sizeof(file));
	if ((at = strrchr(arg, '@')) != NULL &&
	    (colon = strrchr(at, ':')) != NULL) {
		file[at - arg] = '\0';
		snprintf(host, sizeof(host), "%.*s", (int)(colon - at - 1),
		    at + 1);
		port = (unsigned int)strtoul(colon + 1, NULL, 10);
	}
	if ((m = mysql_init(NULL)) == NULL)
		return (NULL);
	mysql_options(m, MYSQL_READ_DEFAULT_FILE, file);
	mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "client");
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &ct);
	mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_OPT_RECONNECT, &off);
	if (port != 0) {
		unsigned int	 proto = MYSQL_PROTOCOL_TCP;

		mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
	}
	if (mysql_real_connect(m, host[0] == '\0' ? NULL : host, NULL, NULL,
	    "cctest", port, NULL, 0) == NULL) {
		connect_errno = mysql_errno(m);
		strlcpy(connect_error, mysql_error(m), sizeof(connect_error));
		if (!quiet)
			fprintf(stderr, "sqlrace: connect %s: %s (%u)\n", arg,
			    connect_error, connect_errno);
		mysql_close(m);
		return (NULL);
	}
	return (m);
}

static MYSQL *
db_must(const char *cnf, unsigned int timeout)
{
	MYSQL	*m;

	if ((m = db_connect(cnf, timeout)) == NULL)
		exit(1);
	session(m);
	return (m);
}

/* Run a statement without values; 0 or the server's error number. */
static unsigned int
db_exec(MYSQL *m, const char *sql)
{
	MYSQL_RES	*res;

	if (mysql_query(m, sql) != 0)
		return (mysql_errno(m));
	if ((res = mysql_store_result(m)) != NULL)
		mysql_free_result(res);
	return (mysql_errno(m));
}

static void
db_must_exec(MYSQL *m, const char *sql)
{
	if (db_exec(m, sql) != 0) {
		fprintf(stderr, "sqlrace: %s: %s (%u)\n", sql, mysql_error(m),
		    mysql_errno(m));
		exit(1);
	}
}

/*
 * The first column of the first row into buf ("NULL" for NULL, "" for
 * no row); 0 or the server's error number.
 */
static unsigned int
db_value(MYSQL *m, const char *sql, char *buf, size_t len)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;

	buf[0] = '\0';
	if (mysql_query(m, sql) != 0)
		return (mysql_errno(m));
	if ((res = mysql_store_result(m)) == NULL)
		return (mysql_errno(m));
	if ((row = mysql_fetch_row(res)) != NULL)
		strlcpy(buf, row[0] == NULL ? "NULL" : row[0], len);
	mysql_free_result(res);
	return (0);
}

/* How many rows a statement returns; 0 or the server's error number. */
static unsigned int
db_rows(MYSQL *m, const char *sql, unsigned long *n)
{
	MYSQL_RES	*res;

	*n = 0;
	if (mysql_query(m, sql) != 0)
		return (mysql_errno(m));
	if ((res = mysql_store_result(m)) == NULL)
		return (mysql_errno(m));
	*n = (unsigned long)mysql_num_rows(res);
	mysql_free_result(res);
	return (0);
}

static long long
db_int(MYSQL *m, const char *sql)
{
	char		 buf[BUFSZ];
	unsigned int	 e;

	if ((e = db_value(m, sql, buf, sizeof(buf))) != 0) {
		fprintf(stderr, "sqlrace: %s: %s (%u)\n", sql, mysql_error(m),
		    e);
		exit(1);
	}
	return (strtoll(buf, NULL, 10));
}

static MYSQL_STMT *
db_prep(MYSQL *m, const char *sql)
{
	MYSQL_STMT	*s;

	if ((s = mysql_stmt_init(m)) == NULL ||
	    mysql_stmt_prepare(s, sql, strlen(sql)) != 0) {
		fprintf(stderr, "sqlrace: prepare %s: %s (%u)\n", sql,
		    mysql_error(m), mysql_errno(m));
		exit(1);
	}
	return (s);
}

/* Execute a prepared statement; 0 or the error number. */
static unsigned int
db_run(MYSQL_STMT *s, MYSQL_BIND *b, my_ulonglong *changed)
{
	if ((b != NULL && mysql_stmt_bind_param(s, b) != 0) ||
	    mysql_stmt_execute(s) != 0)
		return (mysql_stmt_errno(s));
	if (mysql_stmt_field_count(s) > 0 && (mysql_stmt_store_result(s) != 0
	    || mysql_stmt_free_result(s) != 0))
		return (mysql_stmt_errno(s));
	if (changed != NULL)
		*changed = mysql_stmt_affected_rows(s);
	return (0);
}

static void
bind_ll(MYSQL_BIND *b, long long *v)
{
	memset(b, 0, sizeof(*b));
	b->buffer_type = MYSQL_TYPE_LONGLONG;
	b->buffer = v;
}

static void
bind_str(MYSQL_BIND *b, char *s, unsigned long *len)
{
	memset(b, 0, sizeof(*b));
	*len = strlen(s);
	b->buffer_type = MYSQL_TYPE_STRING;
	b->buffer = s;
	b->buffer_length = *len;
	b->length = len;
}

/* Errors that leave the outcome of a statement in flight unknown. */
static int
is_lost(unsigned int e)
{
	return ((e >= 2000 && e < 3000) || e == 1053 || e == 1927 ||
	    e == 4031);
}

/*
 * The session as the store sets it up: READ COMMITTED, short lock
 * waits; and wsrep_retry_autocommit when asked.  A server without
 * Galera's variables (1193) leaves them alone.
 */
static void
session(MYSQL *m)
{
	char	 sql[80];

	db_must_exec(m, "SET SESSION TRANSACTION ISOLATION LEVEL "
	    "READ COMMITTED");
	db_must_exec(m, "SET SESSION innodb_lock_wait_timeout = 10");
	if (retry_ac >= 0) {
		snprintf(sql, sizeof(sql), "SET SESSION "
		    "wsrep_retry_autocommit = %d", retry_ac);
		if (db_exec(m, sql) != 0 && mysql_errno(m) != 1193) {
			fprintf(stderr, "sqlrace: %s: %s\n", sql,
			    mysql_error(m));
			exit(1);
		}
	}
}

/* The contenders, their statements and connections, and chk. */
static void
racers_free(void)
{
	struct racer	*r;
	size_t		 j;
	int		 i;

	for (i = 0; i < nracers; i++) {
		r = &racers[i];
		if (r->upd != NULL)
			mysql_stmt_close(r->upd);
		if (r->ins != NULL)
			mysql_stmt_close(r->ins);
		if (r->sel != NULL)
			mysql_stmt_close(r->sel);
		for (j = 0; j <= MAXB; j++) {
			if (r->bupd[j] != NULL)
				mysql_stmt_close(r->bupd[j]);
			if (r->bins[j] != NULL)
				mysql_stmt_close(r->bins[j]);
		}
		mysql_close(r->m);
		free(r->lat);
		free(r->out);
		free(r->matched);
		free(r->conflict);
	}
	free(racers);
	racers = NULL;
	nracers = 0;
	if (chk != NULL)
		mysql_close(chk);
	chk = NULL;
}

static void
percentiles(uint32_t *v, size_t n, uint32_t *p50, uint32_t *p99)
{
	*p50 = *p99 = 0;
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u32);
	*p50 = v[n / 2];
	*p99 = v[n * 99 / 100];
}

/* A global status counter summed over the contenders' distinct servers. */
static long long
status_sum(const char *var)
{
	char		 sql[128], buf[BUFSZ];
	long long	 sum = 0;
	int		 i, j;

	snprintf(sql, sizeof(sql), "SELECT VARIABLE_VALUE FROM "
	    "information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '%s'",
	    var);
	for (i = 0; i < nracers; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(racers[j].cnf, racers[i].cnf) == 0)
				break;
		if (j < i)
			continue;
		if (db_value(racers[i].m, sql, buf, sizeof(buf)) == 0)
			sum += strtoll(buf, NULL, 10);
	}
	return (sum);
}

/*
 * One claim of round k, as the store makes one: in autocommit, the
 * conditional UPDATE decides by itself; in a transaction, the UPDATE
 * and, when it matched, the INSERT of the claim's row, and the claim
 * is won only when COMMIT succeeds.  1213 and 1205 undo the attempt,
 * and the claim is tried again: a conditional write that lost cannot
 * win on a later try once another has committed.
 */
static int
race_claim(struct racer *r, long long k)
{
	MYSQL_BIND	 b[3];
	char		 sql[128];
	long long	 v = k, w = r->id, c = k;
	my_ulonglong	 n = 0;
	unsigned int	 e;
	int		 attempt;
	char		 stage;

	for (attempt = 0; attempt < MAXTRY; attempt++) {
		n = 0;
		stage = 'b';
		if (trx && (e = db_exec(r->m, "START TRANSACTION")) != 0)
			goto failed;
		stage = 'u';
		bind_ll(&b[0], &v);
		bind_ll(&b[1], &w);
		bind_ll(&b[2], &c);
		if (text) {
			/* Our own integers: nothing to escape. */
			snprintf(sql, sizeof(sql), "UPDATE race SET v = %lld, "
			    "w = %lld WHERE id = 1 AND v < %lld", v, w, c);
			if ((e = db_exec(r->m, sql)) != 0)
				goto failed;
			n = mysql_affected_rows(r->m);
		} else if ((e = db_run(r->upd, b, &n)) != 0)
			goto failed;
		if (attempt == 0)
			r->matched[k - 1] = n == 1;
		stage = 'i';
		if (trx && n == 1 && (e = db_run(r->ins, b, NULL)) != 0)
			goto failed;
		stage = 'c';
		if (trx && (e = db_exec(r->m, "COMMIT")) != 0)
			goto failed;
		if (n == 1) {
			r->won++;
			if (attempt == 0)
				r->won1++;
			return (WON);
		}
		if (attempt == 0)
			r->zero++;
		r->lost++;
		return (LOST);
failed:
		if (attempt == 0) {
			tally_add(&r->first, stage, e);
			if (e == 1213)
				r->conflict[k - 1] = 1;
		}
		tally_add(&r->all, stage, e);
		if (trx && stage != 'b')
			db_exec(r->m, "ROLLBACK");
		if (n == 1)
			r->late++;
		if (e != 1213 && e != 1205) {
			fprintf(stderr, "sqlrace: contender %d, round %lld: %s: "
			    "%s (%u)\n", r->id, k, stage_name(stage),
			    mysql_error(r->m), e);
			r->bad = 1;
			return (FAILED);
		}
		r->retries++;
	}
	fprintf(stderr, "sqlrace: contender %d, round %lld: no decision\n",
	    r->id, k);
	r->bad = 1;
	return (FAILED);
}

/* After round k: one winner, and the row, read causally, names it. */
static void
race_check(long long k)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	long long	 v = -1, w = -1;
	int		 i, nwon = 0, who = 0;

	for (i = 0; i < nracers; i++)
		if (racers[i].out[k - 1] == WON) {
			nwon++;
			who = racers[i].id;
		}
	if (mysql_query(chk, "SELECT v, w FROM race WHERE id = 1") != 0 ||
	    (res = mysql_store_result(chk)) == NULL) {
		fprintf(stderr, "sqlrace: check: %s\n", mysql_error(chk));
		exit(1);
	}
	if ((row = mysql_fetch_row(res)) != NULL) {
		v = strtoll(row[0], NULL, 10);
		w = strtoll(row[1], NULL, 10);
	}
	mysql_free_result(res);
	if (nwon != 1 || v != k || w != who) {
		if (violations++ < 10)
			fprintf(stderr, "sqlrace: round %lld: %d winners, the "
			    "row says v %lld by %lld\n", k, nwon, v, w);
	}
}

static void *
race_thread(void *arg)
{
	struct racer	*r = arg;
	long		 k;
	uint64_t	 t0;

	mysql_thread_init();
	for (k = 1; k <= rounds; k++) {
		pthread_barrier_wait(&bar);
		if (r->bad)
			r->out[k - 1] = FAILED;
		else {
			t0 = now_us();
			r->out[k - 1] = race_claim(r, k);
			r->lat[r->nlat++] = (uint32_t)(now_us() - t0);
		}
		pthread_barrier_wait(&bar);
		if (r->id == 1)
			race_check(k);
	}
	mysql_thread_end();
	return (NULL);
}

static int
race(int argc, char **argv)
{
	struct tally	 first, all;
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	pthread_t	*th;
	const char	*errstr;
	uint32_t	*lat, p50, p99;
	unsigned long	 won1 = 0, zero = 0, retries = 0, late = 0, matched;
	long long	 cf0, bf0, cf, bf, f;
	long		 k, nconf = 0, none = 0, one = 0, many = 0, nrows = 0;
	size_t		 nlat = 0;
	int		 ch, i, nw, bad = 0;

	while ((ch = getopt(argc, argv, "n:qr:t")) != -1)
		switch (ch) {
		case 'q':
			text = 1;
			break;
		case 'n':
			rounds = strtonum(optarg, 1, 10000000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'r':
			retry_ac = strtonum(optarg, 0, 10, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 't':
			trx = 1;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	nracers = argc;
	if ((racers = calloc(nracers, sizeof(*racers))) == NULL ||
	    (th = calloc(nracers, sizeof(*th))) == NULL)
		exit(1);
	for (i = 0; i < nracers; i++) {
		racers[i].id = i + 1;
		racers[i].cnf = argv[i];
		racers[i].m = db_must(argv[i], 60);
		if ((racers[i].lat = calloc(rounds, sizeof(uint32_t))) ==
		    NULL || (racers[i].out = calloc(rounds, 1)) == NULL ||
		    (racers[i].matched = calloc(rounds, 1)) == NULL ||
		    (racers[i].conflict = calloc(rounds, 1)) == NULL)
			exit(1);
	}
	db_must_exec(racers[0].m, "DROP TABLE IF EXISTS race, race_claims");
	db_must_exec(racers[0].m, "CREATE TABLE race (id INT PRIMARY KEY, "
	    "v BIGINT NOT NULL, w INT NOT NULL) ENGINE=InnoDB");
	db_must_exec(racers[0].m, "CREATE TABLE race_claims (fire BIGINT "
	    "PRIMARY KEY, node INT NOT NULL) ENGINE=InnoDB");
	db_must_exec(racers[0].m, "INSERT INTO race VALUES (1, 0, 0)");
	chk = db_must(argv[0], 60);
	if (db_exec(chk, "SET SESSION wsrep_sync_wait = 1") != 0 &&
	    mysql_errno(chk) != 1193)
		db_must_exec(chk, "SET SESSION wsrep_sync_wait = 1");
	for (i = 0; i < nracers; i++) {
		/* Each sees the row before the first round. */
		if (db_exec(racers[i].m, "SET SESSION wsrep_sync_wait = 1")
		    == 0) {
			db_int(racers[i].m, "SELECT v FROM race WHERE id = 1");
			db_must_exec(racers[i].m,
			    "SET SESSION wsrep_sync_wait = DEFAULT");
		}
		racers[i].upd = db_prep(racers[i].m, "UPDATE race SET v = ?, "
		    "w = ? WHERE id = 1 AND v < ?");
		racers[i].ins = db_prep(racers[i].m, "INSERT INTO race_claims "
		    "(fire, node) VALUES (?, ?)");
	}
	cf0 = status_sum("wsrep_local_cert_failures");
	bf0 = status_sum("wsrep_local_bf_aborts");
	pthread_barrier_init(&bar, NULL, nracers);
	for (i = 0; i < nracers; i++)
		pthread_create(&th[i], NULL, race_thread, &racers[i]);
	for (i = 0; i < nracers; i++)
		pthread_join(th[i], NULL);
	cf = status_sum("wsrep_local_cert_failures") - cf0;
	bf = status_sum("wsrep_local_bf_aborts") - bf0;

	memset(&first, 0, sizeof(first));
	memset(&all, 0, sizeof(all));
	for (i = 0; i < nracers; i++) {
		won1 += racers[i].won1;
		zero += racers[i].zero;
		retries += racers[i].retries;
		late += racers[i].late;
		bad |= racers[i].bad;
		tally_merge(&first, &racers[i].first);
		tally_merge(&all, &racers[i].all);
		nlat += racers[i].nlat;
	}
	for (k = 0; k < rounds; k++) {
		for (i = nw = 0, matched = 0; i < nracers; i++) {
			nw += racers[i].out[k] == WON;
			matched += racers[i].matched[k];
			if (racers[i].conflict[k])
				matched = nracers;
		}
		if (nw == 0)
			none++;
		else if (nw == 1)
			one++;
		else
			many++;
		if (matched > 1)
			nconf++;
	}
	/* In transactions, the claims' rows: one per round, the winner's. */
	if (trx) {
		if (mysql_query(chk, "SELECT fire, node FROM race_claims "
		    "ORDER BY fire") != 0 ||
		    (res = mysql_store_result(chk)) == NULL) {
			fprintf(stderr, "sqlrace: %s\n", mysql_error(chk));
			exit(1);
		}
		while ((row = mysql_fetch_row(res)) != NULL) {
			f = strtoll(row[0], NULL, 10);
			nw = (int)strtol(row[1], NULL, 10);
			nrows++;
			if (f < 1 || f > rounds || nw < 1 || nw > nracers ||
			    racers[nw - 1].out[f - 1] != WON) {
				if (violations++ < 10)
					fprintf(stderr, "sqlrace: claims row "
					    "%lld names %d, who did not win "
					    "it\n", f, nw);
			}
		}
		mysql_free_result(res);
		if (nrows != rounds) {
			violations++;
			fprintf(stderr, "sqlrace: %ld claims rows for %ld "
			    "rounds\n", nrows, rounds);
		}
	}
	if ((lat = calloc(nlat + 1, sizeof(*lat))) == NULL)
		exit(1);
	for (i = 0, nlat = 0; i < nracers; i++) {
		memcpy(lat + nlat, racers[i].lat, racers[i].nlat *
		    sizeof(*lat));
		nlat += racers[i].nlat;
	}
	percentiles(lat, nlat, &p50, &p99);

	printf("race: %d contenders, %ld rounds, %s, %s, "
	    "wsrep_retry_autocommit %s\n", nracers, rounds,
	    trx ? "transactions" : "autocommit",
	    text ? "text protocol" : "prepared statements",
	    retry_ac < 0 ? "default" : retry_ac ? "1" : "0");
	printf("rounds: %ld one winner, %ld none, %ld several\n", one, none,
	    many);
	printf("wins:");
	for (i = 0; i < nracers; i++)
		printf(" %d:%lu", racers[i].id, racers[i].won);
	printf("\n");
	printf("first attempts: %lu won, %lu matched 0 rows\n", won1, zero);
	tally_print("first attempt errors", &first);
	tally_print("all errors", &all);
	printf("retries: %lu\n", retries);
	printf("matched then failed: %lu\n", late);
	printf("conflicts: %ld of %ld rounds (%.1f%%)\n", nconf, rounds,
	    100.0 * nconf / rounds);
	printf("cert failures: %lld\n", cf);
	printf("bf aborts: %lld\n", bf);
	printf("latency: p50 %u us, p99 %u us\n", p50, p99);
	printf("violations: %d\n", violations);
	free(lat);
	free(th);
	racers_free();
	pthread_barrier_destroy(&bar);
	return (violations > 0 || bad || many > 0 || none > 0);
}

/*
 * One claim of a job at a fire, in the store's shape: the conditional
 * UPDATE of the job's row, guarded by the absence of a claims row, and,
 * when it matched, the claims row copied from the job's row, in one
 * transaction; 1213 and 1205 try again.
 */
static int
bench_claim(struct racer *r, const char *id, long long fire)
{
	MYSQL_BIND	 b[6];
	char		 ids[40], node[16];
	unsigned long	 l1, l2, l3, l4;
	long long	 f1 = fire, f2 = fire, f3 = fire;
	my_ulonglong	 n = 0;
	unsigned int	 e;
	int		 attempt;
	char		 stage;

	strlcpy(ids, id, sizeof(ids));
	snprintf(node, sizeof(node), "bench%d", r->id);
	for (attempt = 0; attempt < MAXTRY; attempt++) {
		n = 0;
		stage = 'b';
		if ((e = db_exec(r->m, "START TRANSACTION")) != 0)
			goto failed;
		stage = 'u';
		bind_ll(&b[0], &f1);
		bind_str(&b[1], node, &l1);
		bind_str(&b[2], ids, &l2);
		bind_ll(&b[3], &f2);
		bind_ll(&b[4], &f3);
		bind_str(&b[5], ids, &l3);
		if ((e = db_run(r->upd, b, &n)) != 0)
			goto failed;
		stage = 'i';
		bind_str(&b[0], ids, &l4);
		if (n == 1 && (e = db_run(r->ins, b, NULL)) != 0)
			goto failed;
		stage = 'c';
		if ((e = db_exec(r->m, "COMMIT")) != 0)
			goto failed;
		if (n == 1)
			r->won++;
		else
			r->lost++;
		return (n == 1 ? WON : LOST);
failed:
		tally_add(&r->all, stage, e);
		if (stage != 'b')
			db_exec(r->m, "ROLLBACK");
		if (e != 1213 && e != 1205) {
			fprintf(stderr, "sqlrace: contender %d: %s: %s (%u)\n",
			    r->id, stage_name(stage), mysql_error(r->m), e);
			r->bad = 1;
			return (FAILED);
		}
		r->retries++;
	}
	r->bad = 1;
	return (FAILED);
}

/* The batch's UPDATE (upd) or INSERT of n jobs, prepared once. */
static MYSQL_STMT *
batch_stmt(struct racer *r, int upd, size_t n)
{
	MYSQL_STMT	**s = upd ? &r->bupd[n] : &r->bins[n];
	char		 sql[1024];
	size_t		 i;

	if (*s != NULL)
		return (*s);
	if (upd)
		strlcpy(sql, "UPDATE bench_jobs SET last_fire = ?, claimed_by "
		    "= ?, claimed_at = " NOW3 " WHERE last_fire < ? AND id IN "
		    "(", sizeof(sql));
	else
		strlcpy(sql, "INSERT INTO bench_claims (job, fire, node, "
		    "claimed_at) SELECT id, last_fire, claimed_by, claimed_at "
		    "FROM bench_jobs WHERE last_fire = ? AND claimed_by = ? AND "
		    "id IN (", sizeof(sql));
	for (i = 0; i < n; i++)
		strlcat(sql, i == 0 ? "?" : ", ?", sizeof(sql));
	strlcat(sql, ")", sizeof(sql));
	*s = db_prep(r->m, sql);
	return (*s);
}

/*
 * The claims of one fire in batches, in the shape of the store's
 * store_claim_batch(): in one transaction, SELECT up to `slots' free
 * jobs FOR UPDATE SKIP LOCKED, UPDATE them conditionally, INSERT the
 * claims rows of those won; again until no job of the fire is free.
 */
static int
bench_batch(struct racer *r, long long fire)
{
	MYSQL_BIND	 b[MAXB + 3], out[1];
	char		 ids[MAXB][40], node[16], got[65];
	unsigned long	 len[MAXB + 3], glen;
	long long	 f1 = fire, f2 = fire, lim = slots;
	my_ulonglong	 n;
	uint64_t	 t0;
	unsigned int	 e;
	size_t		 k, i;
	int		 attempt;
	char		 stage;

	snprintf(node, sizeof(node), "bench%d", r->id);
	for (;;) {
		t0 = now_us();
		for (attempt = 0; attempt < MAXTRY; attempt++) {
			k = 0;
			n = 0;
			stage = 'b';
			if ((e = db_exec(r->m, "START TRANSACTION")) != 0)
				goto failed;
			stage = 'r';
			bind_ll(&b[0], &f1);
			bind_ll(&b[1], &lim);
			memset(out, 0, sizeof(out));
			out[0].buffer_type = MYSQL_TYPE_STRING;
			out[0].buffer = got;
			out[0].buffer_length = sizeof(got);
			out[0].length = &glen;
			if (mysql_stmt_bind_param(r->sel, b) != 0 ||
			    mysql_stmt_execute(r->sel) != 0 ||
			    mysql_stmt_bind_result(r->sel, out) != 0 ||
			    mysql_stmt_store_result(r->sel) != 0) {
				e = mysql_stmt_errno(r->sel);
				goto failed;
			}
			while (k < MAXB && mysql_stmt_fetch(r->sel) == 0) {
				got[glen < sizeof(got) ? glen : sizeof(got) - 1] =
				    '\0';
				strlcpy(ids[k++], got, sizeof(ids[0]));
			}
			mysql_stmt_free_result(r->sel);
			if (k == 0) {
				db_exec(r->m, "COMMIT");
				return (0);
			}
			stage = 'u';
			bind_ll(&b[0], &f1);
			bind_str(&b[1], node, &len[1]);
			bind_ll(&b[2], &f2);
			for (i = 0; i < k; i++)
				bind_str(&b[3 + i], ids[i], &len[3 + i]);
			if ((e = db_run(batch_stmt(r, 1, k), b, &n)) != 0)
				goto failed;
			stage = 'i';
			bind_ll(&b[0], &f1);
			bind_str(&b[1], node, &len[1]);
			for (i = 0; i < k; i++)
				bind_str(&b[2 + i], ids[i], &len[2 + i]);
			if (n > 0 && (e = db_run(batch_stmt(r, 0, k), b,
			    NULL)) != 0)
				goto failed;
			stage = 'c';
			if ((e = db_exec(r->m, "COMMIT")) != 0)
				goto failed;
			r->won += n;
			r->batches++;
			break;
failed:
			tally_add(&r->all, stage, e);
			if (stage != 'b')
				db_exec(r->m, "ROLLBACK");
			if (e != 1213 && e != 1205) {
				fprintf(stderr, "sqlrace: contender %d: %s: %s "
				    "(%u)\n", r->id, stage_name(stage),
				    mysql_error(r->m), e);
				r->bad = 1;
				return (-1);
			}
			r->retries++;
		}
		if (attempt == MAXTRY) {
			r->bad = 1;
			return (-1);
		}
		r->lat[r->nlat++] = (uint32_t)(now_us() - t0);
	}
}

static void *
bench_thread(void *arg)
{
	struct racer	*r = arg;
	char		 id[40];
	long		 f, i, j, off;
	uint64_t	 t0;

	mysql_thread_init();
	off = (long)(r->id - 1) * njobs / nracers;
	pthread_barrier_wait(&bar);
	for (f = 1; f <= nfires && !r->bad; f++) {
		if (slots > 0) {
			/* Every node at the fire's instant at once. */
			pthread_barrier_wait(&fbar);
			bench_batch(r, 1900000000LL + 60 * f);
			continue;
		}
		for (i = 0; i < njobs && !r->bad; i++) {
			j = (i + off) % njobs;
			snprintf(id, sizeof(id), "j%031ld", j);
			t0 = now_us();
			bench_claim(r, id, 1900000000LL + 60 * f);
			r->lat[r->nlat++] = (uint32_t)(now_us() - t0);
		}
	}
	if (r->bad && slots > 0)
		for (f++; f <= nfires; f++)
			pthread_barrier_wait(&fbar);
	pthread_barrier_wait(&bar);
	mysql_thread_end();
	return (NULL);
}

static int
bench(int argc, char **argv)
{
	struct tally	 all;
	MYSQL_STMT	*s;
	MYSQL_BIND	 b[1];
	pthread_t	*th;
	const char	*errstr, *label = "server";
	char		 id[40];
	unsigned long	 l, won = 0, retries = 0;
	uint32_t	*lat, p50, p99;
	uint64_t	 t0, t1;
	size_t		 nlat = 0;
	long		 j;
	long long	 nclaims, rows;
	double		 secs;
	int		 ch, i, bad = 0;

	while ((ch = getopt(argc, argv, "b:f:j:l:")) != -1)
		switch (ch) {
		case 'b':
			slots = strtonum(optarg, 1, MAXB, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'f':
			nfires = strtonum(optarg, 1, 100000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'j':
			njobs = strtonum(optarg, 1, 100000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'l':
			label = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	nracers = argc;
	if ((racers = calloc(nracers, sizeof(*racers))) == NULL ||
	    (th = calloc(nracers, sizeof(*th))) == NULL)
		exit(1);
	for (i = 0; i < nracers; i++) {
		racers[i].id = i + 1;
		racers[i].cnf = argv[i];
		racers[i].m = db_must(argv[i], 60);
		if ((racers[i].lat = calloc(njobs * nfires + nfires + 1,
		    sizeof(uint32_t))) == NULL)
			exit(1);
	}
	db_must_exec(racers[0].m, "DROP TABLE IF EXISTS bench_jobs, "
	    "bench_claims");
	db_must_exec(racers[0].m, "CREATE TABLE bench_jobs (id VARCHAR(64) "
	    "CHARACTER SET ascii COLLATE ascii_bin PRIMARY KEY, "
	    "last_fire BIGINT NOT NULL DEFAULT 0, claimed_by VARCHAR(255), "
	    "claimed_at BIGINT, paused TINYINT NOT NULL DEFAULT 0) "
	    "ENGINE=InnoDB");
	db_must_exec(racers[0].m, "CREATE TABLE bench_claims (fire BIGINT "
	    "NOT NULL, job VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin "
	    "NOT NULL, node VARCHAR(255) NOT NULL, claimed_at BIGINT NOT "
	    "NULL, PRIMARY KEY (fire, job)) ENGINE=InnoDB");
	s = db_prep(racers[0].m, "INSERT INTO bench_jobs (id) VALUES (?)");
	db_must_exec(racers[0].m, "START TRANSACTION");
	for (j = 0; j < njobs; j++) {
		snprintf(id, sizeof(id), "j%031ld", j);
		bind_str(&b[0], id, &l);
		if (db_run(s, b, NULL) != 0) {
			fprintf(stderr, "sqlrace: %s\n", mysql_stmt_error(s));
			exit(1);
		}
	}
	db_must_exec(racers[0].m, "COMMIT");
	mysql_stmt_close(s);
	for (i = 0; i < nracers; i++) {
		if (db_exec(racers[i].m, "SET SESSION wsrep_sync_wait = 1")
		    == 0) {
			db_int(racers[i].m, "SELECT COUNT(*) FROM bench_jobs");
			db_must_exec(racers[i].m,
			    "SET SESSION wsrep_sync_wait = DEFAULT");
		}
		racers[i].upd = db_prep(racers[i].m, "UPDATE bench_jobs SET "
		    "last_fire = ?, claimed_by = ?, claimed_at = "
		    "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) WHERE "
		    "id = ? AND last_fire < ? AND paused = 0 AND NOT EXISTS "
		    "(SELECT 1 FROM bench_claims c WHERE c.fire = ? AND "
		    "c.job = ?)");
		racers[i].ins = db_prep(racers[i].m, "INSERT INTO bench_claims "
		    "(job, fire, node, claimed_at) SELECT id, last_fire, "
		    "claimed_by, claimed_at FROM bench_jobs WHERE id = ?");
		racers[i].sel = db_prep(racers[i].m, "SELECT id FROM "
		    "bench_jobs WHERE last_fire < ? AND paused = 0 ORDER BY id "
		    "LIMIT ? FOR UPDATE SKIP LOCKED");
		/*
		 * All before the run: on Galera a PREPARE in a transaction
		 * another node's write set has aborted fails with 1213.
		 */
		for (j = 1; j <= slots; j++) {
			batch_stmt(&racers[i], 1, j);
			batch_stmt(&racers[i], 0, j);
		}
	}
	pthread_barrier_init(&bar, NULL, nracers + 1);
	pthread_barrier_init(&fbar, NULL, nracers);
	for (i = 0; i < nracers; i++)
		pthread_create(&th[i], NULL, bench_thread, &racers[i]);
	pthread_barrier_wait(&bar);
	t0 = now_us();
	pthread_barrier_wait(&bar);
	t1 = now_us();
	for (i = 0; i < nracers; i++)
		pthread_join(th[i], NULL);
	secs = (double)(t1 - t0) / 1e6;

	memset(&all, 0, sizeof(all));
	for (i = 0; i < nracers; i++) {
		won += racers[i].won;
		retries += racers[i].retries;
		bad |= racers[i].bad;
		nlat += racers[i].nlat;
		tally_merge(&all, &racers[i].all);
	}
	if ((lat = calloc(nlat + 1, sizeof(*lat))) == NULL)
		exit(1);
	for (i = 0, nlat = 0; i < nracers; i++) {
		memcpy(lat + nlat, racers[i].lat, racers[i].nlat *
		    sizeof(*lat));
		nlat += racers[i].nlat;
	}
	percentiles(lat, nlat, &p50, &p99);
	nclaims = (long long)nracers * njobs * nfires;
	if (slots > 0)
		for (i = 0, nclaims = 0; i < nracers; i++)
			nclaims += racers[i].batches;
	chk = db_must(argv[0], 60);
	db_exec(chk, "SET SESSION wsrep_sync_wait = 1");
	rows = db_int(chk, "SELECT COUNT(*) FROM bench_claims");
	if (rows != (long long)njobs * nfires || won != (unsigned long)rows) {
		fprintf(stderr, "sqlrace: %lu claims won, %lld claims rows, "
		    "%ld fires\n", won, rows, njobs * nfires);
		bad = 1;
	}
	printf("bench %s k %d jobs %ld fires %ld %s %lld secs %.3f "
	    "%s_s %.0f won_s %.0f p50_us %u p99_us %u retries %lu\n",
	    label, nracers, njobs, nfires, slots > 0 ? "batches" : "claims",
	    nclaims, secs, slots > 0 ? "batches" : "claims", nclaims / secs,
	    won / secs, p50, p99, retries);
	tally_print("errors", &all);
	free(lat);
	free(th);
	racers_free();
	pthread_barrier_destroy(&bar);
	pthread_barrier_destroy(&fbar);
	return (bad);
}

/*
 * Commit through the first server until it goes, then resolve the
 * transaction in flight on the second.
 */
static int
inflight(int argc, char **argv)
{
	MYSQL		*a, *b;
	MYSQL_STMT	*ins;
	MYSQL_BIND	 bd[1];
	const char	*errstr;
	char		 sql[160];
	long long	 start, seq, acked, n, top, present;
	long		 every = 100;
	unsigned int	 e = 0;
	uint64_t	 until;
	int		 ch, bad = 0;
	char		 stage = 'b';

	while ((ch = getopt(argc, argv, "p:")) != -1)
		switch (ch) {
		case 'p':
			every = strtonum(optarg, 1, 1000000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();
	a = db_must(argv[0], 30);
	db_must_exec(a, "CREATE TABLE IF NOT EXISTS inflight (seq BIGINT "
	    "PRIMARY KEY, pad VARCHAR(255) NOT NULL) ENGINE=InnoDB");
	db_exec(a, "SET SESSION wsrep_sync_wait = 1");
	start = db_int(a, "SELECT COALESCE(MAX(seq), 0) + 1 FROM inflight");
	db_exec(a, "SET SESSION wsrep_sync_wait = DEFAULT");
	ins = db_prep(a, "INSERT INTO inflight (seq, pad) VALUES (?, "
	    "REPEAT('x', 200))");
	acked = start - 1;
	printf("start: %lld\n", start);
	fflush(stdout);
	for (seq = start;; seq++) {
		stage = 'b';
		if ((e = db_exec(a, "START TRANSACTION")) != 0)
			break;
		stage = 'i';
		bind_ll(&bd[0], &seq);
		if ((e = db_run(ins, bd, NULL)) != 0)
			break;
		stage = 'c';
		if ((e = db_exec(a, "COMMIT")) != 0)
			break;
		acked = seq;
		if ((seq - start + 1) % every == 0) {
			printf("committed: %lld\n", seq - start + 1);
			fflush(stdout);
		}
	}
	printf("error: %u at %s (%s)\n", e, stage_name(stage),
	    mysql_error(a));
	printf("in flight: %lld, acknowledged up to %lld\n", seq, acked);
	fflush(stdout);
	mysql_stmt_close(ins);
	mysql_close(a);
	if (!is_lost(e)) {
		printf("outcome: known (the server answered)\n");
		return (e == 1213 ? 0 : 1);
	}
	/* The outcome is unknown here: ask the other server, causally. */
	until = now_us() + 60 * 1000000ULL;
	while ((b = db_connect(argv[1], 30)) == NULL) {
		if (now_us() > until)
			return (1);
		usleep(100000);
	}
	session(b);
	if (db_exec(b, "SET SESSION wsrep_sync_wait = 1") != 0)
		fprintf(stderr, "sqlrace: wsrep_sync_wait: %s\n",
		    mysql_error(b));
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM inflight WHERE "
	    "seq = %lld", seq);
	n = db_int(b, sql);
	snprintf(sql, sizeof(sql), "SELECT COALESCE(MAX(seq), 0) FROM "
	    "inflight WHERE seq >= %lld", start);
	top = db_int(b, sql);
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM inflight WHERE "
	    "seq BETWEEN %lld AND %lld", start, acked);
	present = db_int(b, sql);
	printf("outcome: %s\n", n == 1 ? "committed" : "not committed");
	printf("other server holds up to: %lld\n", top);
	if (present != acked - start + 1) {
		printf("lost acknowledged commits: %lld\n", acked - start + 1 -
		    present);
		bad = 1;
	}
	if (top > seq || (top == seq) != (n == 1)) {
		printf("inconsistent: top %lld, in flight %lld\n", top, seq);
		bad = 1;
	}
	if (n == 1 && stage != 'c') {
		printf("committed before COMMIT was sent\n");
		bad = 1;
	}
	mysql_close(b);
	return (bad);
}

/* Write every 20 ms until told to stop; report errors and the gaps. */
static int
watch(int argc, char **argv)
{
	struct tally	 errs;
	MYSQL		*m = NULL;
	MYSQL_STMT	*upd = NULL;
	MYSQL_BIND	 b[1];
	const char	*errstr, *stop = NULL;
	char		 sql[128];
	long long	 id = 1;
	unsigned long	 ok = 0;
	unsigned int	 e, timeout = 3;
	uint64_t	 t0, t, last, gap = 0, worst = 0, lat;
	int		 ch, failing = 0;

	while ((ch = getopt(argc, argv, "i:T:u:")) != -1)
		switch (ch) {
		case 'i':
			id = strtonum(optarg, 1, 1000000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'T':
			timeout = strtonum(optarg, 1, 3600, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'u':
			stop = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc != 1 || stop == NULL)
		usage();
	memset(&errs, 0, sizeof(errs));
	quiet = 1;
	t0 = last = now_us();
	while (access(stop, F_OK) == -1) {
		t = now_us();
		if (m == NULL) {
			if ((m = db_connect(argv[0], timeout)) == NULL) {
				printf("%.3f s: %u at connect after %.3f s "
				    "(%s)\n", (t - t0) / 1e6, connect_errno,
				    (now_us() - t) / 1e6, connect_error);
				tally_add(&errs, 'C', connect_errno);
				failing = 1;
				usleep(100000);
				continue;
			}
			snprintf(sql, sizeof(sql), "INSERT IGNORE INTO race "
			    "(id, v, w) VALUES (%lld, 0, 0)", id);
			upd = NULL;
			/*
			 * DDL only when the table is missing: even a no-op
			 * CREATE TABLE IF NOT EXISTS is replicated in total
			 * order and aborts the writes of others on it.
			 */
			if ((e = db_exec(m, sql)) == 1146 &&
			    (e = db_exec(m, "CREATE TABLE IF NOT EXISTS race "
			    "(id INT PRIMARY KEY, v BIGINT NOT NULL, w INT NOT "
			    "NULL) ENGINE=InnoDB")) == 0)
				e = db_exec(m, sql);
			if (e == 0)
				upd = db_prep(m, "UPDATE race SET v = v + 1 "
				    "WHERE id = ?");
			if (upd == NULL) {
				printf("%.3f s: %u at connect (%s)\n",
				    (t - t0) / 1e6, e, mysql_error(m));
				fflush(stdout);
				tally_add(&errs, 'C', e);
				failing = 1;
				mysql_close(m);
				m = NULL;
				usleep(100000);
				continue;
			}
		}
		bind_ll(&b[0], &id);
		if ((e = db_run(upd, b, NULL)) != 0) {
			printf("%.3f s: %u after %.3f s (%s)\n", (t - t0) / 1e6,
			    e, (now_us() - t) / 1e6, mysql_stmt_error(upd));
			fflush(stdout);
			tally_add(&errs, 'u', e);
			failing = 1;
			mysql_stmt_close(upd);
			mysql_close(m);
			m = NULL;
			continue;
		}
		ok++;
		lat = now_us() - t;
		if (ok == 1)
			printf("%.3f s: first write\n", (t - t0) / 1e6);
		else if (failing)
			printf("%.3f s: writes again after %.3f s\n",
			    (t - t0) / 1e6, (now_us() - last) / 1e6);
		failing = 0;
		if (lat > worst)
			worst = lat;
		if (now_us() - last > gap)
			gap = now_us() - last;
		last = now_us();
		usleep(20000);
	}
	if (now_us() - last > gap)
		gap = now_us() - last;
	printf("writes: %lu\n", ok);
	tally_print("errors", &errs);
	printf("longest gap: %.3f s\n", gap / 1e6);
	printf("slowest write: %.3f s\n", worst / 1e6);
	if (m != NULL) {
		mysql_stmt_close(upd);
		mysql_close(m);
	}
	return (0);
}

/* A write on one server, then a read on the other at once. */
static int
stale(int argc, char **argv)
{
	MYSQL		*a, *b;
	MYSQL_STMT	*upd;
	MYSQL_BIND	 bd[1];
	const char	*errstr;
	long long	 k, v, nstale[2] = { 0, 0 };
	long		 i;
	uint32_t	*lat[2], p50[2], p99[2];
	uint64_t	 t0;
	int		 ch, pass;

	while ((ch = getopt(argc, argv, "n:")) != -1)
		switch (ch) {
		case 'n':
			rounds = strtonum(optarg, 1, 10000000, &errstr);
			if (errstr != NULL)
				usage();
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();
	a = db_must(argv[0], 30);
	b = db_must(argv[1], 30);
	db_must_exec(a, "CREATE TABLE IF NOT EXISTS race (id INT PRIMARY "
	    "KEY, v BIGINT NOT NULL, w INT NOT NULL) ENGINE=InnoDB");
	db_must_exec(a, "REPLACE INTO race VALUES (100, 0, 0)");
	db_exec(b, "SET SESSION wsrep_sync_wait = 1");
	db_int(b, "SELECT COUNT(*) FROM race WHERE id = 100");
	upd = db_prep(a, "UPDATE race SET v = ? WHERE id = 100");
	if ((lat[0] = calloc(rounds, sizeof(uint32_t))) == NULL ||
	    (lat[1] = calloc(rounds, sizeof(uint32_t))) == NULL)
		exit(1);
	k = 0;
	for (pass = 0; pass < 2; pass++) {
		db_must_exec(b, pass == 0 ? "SET SESSION wsrep_sync_wait = 0" :
		    "SET SESSION wsrep_sync_wait = 1");
		for (i = 0; i < rounds; i++) {
			k++;
			bind_ll(&bd[0], &k);
			if (db_run(upd, bd, NULL) != 0) {
				fprintf(stderr, "sqlrace: %s\n",
				    mysql_stmt_error(upd));
				exit(1);
			}
			t0 = now_us();
			v = db_int(b, "SELECT v FROM race WHERE id = 100");
			lat[pass][i] = (uint32_t)(now_us() - t0);
			if (v != k)
				nstale[pass]++;
		}
		percentiles(lat[pass], rounds, &p50[pass], &p99[pass]);
	}
	printf("stale without wsrep_sync_wait: %lld of %ld\n", nstale[0],
	    rounds);
	printf("stale with wsrep_sync_wait=1: %lld of %ld\n", nstale[1],
	    rounds);
	printf("read latency without: p50 %u us, p99 %u us\n", p50[0],
	    p99[0]);
	printf("read latency with: p50 %u us, p99 %u us\n", p50[1], p99[1]);
	free(lat[0]);
	free(lat[1]);
	mysql_stmt_close(upd);
	mysql_close(a);
	mysql_close(b);
	return (nstale[1] > 0);
}

/* Which locks of one connection does the other see? */
static int
locks(int argc, char **argv)
{
	MYSQL		*a, *b;
	char		 va[BUFSZ], vb[BUFSZ];
	unsigned int	 e;
	uint64_t	 t0;

	if (argc != 3)
		usage();
	a = db_must(argv[1], 30);
	b = db_must(argv[2], 30);
	db_must_exec(a, "CREATE TABLE IF NOT EXISTS race (id INT PRIMARY "
	    "KEY, v BIGINT NOT NULL, w INT NOT NULL) ENGINE=InnoDB");
	db_must_exec(a, "REPLACE INTO race VALUES (200, 0, 0)");
	db_exec(b, "SET SESSION wsrep_sync_wait = 1");
	db_int(b, "SELECT COUNT(*) FROM race WHERE id = 200");
	db_exec(b, "SET SESSION wsrep_sync_wait = DEFAULT");
	db_must_exec(a, "SET SESSION innodb_lock_wait_timeout = 2");
	db_must_exec(b, "SET SESSION innodb_lock_wait_timeout = 2");

	/* A named lock. */
	db_value(a, "SELECT GET_LOCK('sqlrace.lock', 0)", va, sizeof(va));
	e = db_value(b, "SELECT GET_LOCK('sqlrace.lock', 0)", vb, sizeof(vb));
	printf("get_lock: first %s, second %s\n", va, e != 0 ?
	    mysql_error(b) : vb);
	db_exec(a, "DO RELEASE_LOCK('sqlrace.lock')");
	db_exec(b, "DO RELEASE_LOCK('sqlrace.lock')");

	/* A row lock, then both write the row. */
	db_must_exec(a, "START TRANSACTION");
	db_must_exec(a, "SELECT v FROM race WHERE id = 200 FOR UPDATE");
	db_must_exec(b, "START TRANSACTION");
	t0 = now_us();
	e = db_exec(b, "SELECT v FROM race WHERE id = 200 FOR UPDATE");
	printf("for update: second %s after %.1f s\n", e == 0 ? "got it" :
	    mysql_error(b), (now_us() - t0) / 1e6);
	if (e == 0) {
		e = db_exec(b, "UPDATE race SET v = v + 1 WHERE id = 200");
		if (e == 0)
			e = db_exec(b, "COMMIT");
		printf("for update: second writes and commits: %u%s%s\n", e,
		    e != 0 ? " " : "", e != 0 ? mysql_error(b) : "");
	} else
		db_exec(b, "ROLLBACK");
	e = db_exec(a, "UPDATE race SET v = v + 1 WHERE id = 200");
	if (e == 0)
		printf("for update: first writes: 0\n");
	else
		printf("for update: first writes: %u %s\n", e, mysql_error(a));
	e = db_exec(a, "COMMIT");
	printf("for update: first commits: %u%s%s\n", e, e != 0 ? " " : "",
	    e != 0 ? mysql_error(a) : "");
	db_exec(a, "ROLLBACK");

	/* A no-op DDL on the table under a transaction writing to it. */
	db_must_exec(b, "SET SESSION lock_wait_timeout = 2");
	db_must_exec(a, "START TRANSACTION");
	db_must_exec(a, "UPDATE race SET v = v + 1 WHERE id = 200");
	t0 = now_us();
	e = db_exec(b, "CREATE TABLE IF NOT EXISTS race (id INT PRIMARY "
	    "KEY, v BIGINT NOT NULL, w INT NOT NULL) ENGINE=InnoDB");
	printf("ddl: second's CREATE TABLE IF NOT EXISTS: %u%s%s after "
	    "%.1f s\n", e, e != 0 ? " " : "", e != 0 ? mysql_error(b) : "",
	    (now_us() - t0) / 1e6);
	e = db_exec(a, "COMMIT");
	printf("ddl: first commits: %u%s%s\n", e, e != 0 ? " " : "",
	    e != 0 ? mysql_error(a) : "");
	db_exec(a, "ROLLBACK");

	/* SKIP LOCKED. */
	db_must_exec(a, "START TRANSACTION");
	db_must_exec(a, "SELECT v FROM race WHERE id = 200 FOR UPDATE");
	db_must_exec(b, "START TRANSACTION");
	e = db_value(b, "SELECT id FROM race WHERE id = 200 FOR UPDATE "
	    "SKIP LOCKED", vb, sizeof(vb));
	printf("skip locked: second sees %s\n", e != 0 ? mysql_error(b) :
	    vb[0] == '\0' ? "no row" : "the row");
	db_exec(b, "ROLLBACK");
	db_exec(a, "ROLLBACK");
	mysql_close(a);
	mysql_close(b);
	return (0);
}

/* Print a statement's first row as "name: col=value ...", or its error. */
static void
probe_show(MYSQL *m, const char *name, const char *sql)
{
	MYSQL_RES	*res;
	MYSQL_ROW	 row;
	MYSQL_FIELD	*f;
	unsigned int	 i, nf;
	unsigned long	 nrows;

	if (mysql_query(m, sql) != 0) {
		printf("%s: error %u (%s)\n", name, mysql_errno(m),
		    mysql_error(m));
		return;
	}
	if ((res = mysql_store_result(m)) == NULL) {
		printf("%s: ok\n", name);
		return;
	}
	nrows = (unsigned long)mysql_num_rows(res);
	nf = mysql_num_fields(res);
	f = mysql_fetch_fields(res);
	printf("%s: %lu rows", name, nrows);
	while ((row = mysql_fetch_row(res)) != NULL) {
		printf(" |");
		for (i = 0; i < nf && i < 16; i++)
			printf(" %s=%s", f[i].name, row[i] == NULL ? "NULL" :
			    row[i]);
	}
	printf("\n");
	mysql_free_result(res);
}

/*
 * What the server is, as the store's user can tell.  The class rests
 * only on what every user may read (global variables and status):
 *	galera		wsrep_on
 *	replica		read_only, or a replication thread running here
 *			(Slaves_running), or replication configured
 *			(SHOW SLAVE STATUS, where the privilege allows)
 *	primary+async	replicas connected (Slaves_connected) without
 *			semi-synchronous replication, or with it waiting
 *			AFTER_COMMIT
 *	primary+semisync-off
 *			rpl_semi_sync_master_enabled but the status
 *			Rpl_semi_sync_master_status OFF: semi-synchronous
 *			replication fell back to asynchronous (no replica
 *			answered within rpl_semi_sync_master_timeout)
 *	primary+semisync-after-sync
 *			rpl_semi_sync_master_enabled, wait point AFTER_SYNC,
 *			and Rpl_semi_sync_master_status ON
 *	single		none of these (a replica whose threads are stopped,
 *			read_only off, looks single without SLAVE MONITOR;
 *			so does a primary whose replicas are disconnected)
 */
static int
probe(int argc, char **argv)
{
	MYSQL		*m;
	char		 wsrep[BUFSZ], ro[BUFSZ], running[BUFSZ];
	char		 connected[BUFSZ], ss_on[BUFSZ], ss_wp[BUFSZ];
	char		 ss_status[BUFSZ];
	unsigned long	 slaves;
	unsigned int	 e;
	const char	*cls;

	if (argc != 2)
		usage();
	m = db_must(argv[1], 30);
	probe_show(m, "version", "SELECT @@version");
	probe_show(m, "user", "SELECT CURRENT_USER() AS user, "
	    "(SELECT GROUP_CONCAT(PRIVILEGE_TYPE) FROM "
	    "information_schema.USER_PRIVILEGES) AS global_privileges");
	probe_show(m, "wsrep variables", "SELECT @@GLOBAL.wsrep_on AS on_, "
	    "@@GLOBAL.wsrep_provider AS provider, "
	    "@@SESSION.wsrep_sync_wait AS sync_wait, "
	    "@@SESSION.wsrep_retry_autocommit AS retry_autocommit");
	probe_show(m, "wsrep status", "SELECT VARIABLE_NAME, VARIABLE_VALUE "
	    "FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN "
	    "('WSREP_READY', 'WSREP_LOCAL_STATE', "
	    "'WSREP_LOCAL_STATE_COMMENT', 'WSREP_CLUSTER_STATUS', "
	    "'WSREP_CLUSTER_SIZE', 'WSREP_CONNECTED')");
	probe_show(m, "read only", "SELECT @@GLOBAL.read_only AS read_only, "
	    "@@SESSION.tx_read_only AS tx_read_only, "
	    "@@GLOBAL.innodb_read_only AS innodb_read_only");
	probe_show(m, "binlog", "SELECT @@GLOBAL.log_bin AS log_bin, "
	    "@@GLOBAL.server_id AS server_id, "
	    "@@GLOBAL.gtid_slave_pos AS gtid_slave_pos, "
	    "@@GLOBAL.gtid_binlog_pos AS gtid_binlog_pos");
	probe_show(m, "replication status", "SELECT VARIABLE_NAME, "
	    "VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE "
	    "VARIABLE_NAME IN ('SLAVES_RUNNING', 'SLAVES_CONNECTED', "
	    "'SLAVE_RUNNING', 'RPL_SEMI_SYNC_MASTER_STATUS', "
	    "'RPL_SEMI_SYNC_MASTER_CLIENTS', 'RPL_SEMI_SYNC_SLAVE_STATUS')");
	probe_show(m, "semisync variables", "SELECT "
	    "@@GLOBAL.rpl_semi_sync_master_enabled AS master_enabled, "
	    "@@GLOBAL.rpl_semi_sync_master_wait_point AS wait_point, "
	    "@@GLOBAL.rpl_semi_sync_master_timeout AS timeout, "
	    "@@GLOBAL.rpl_semi_sync_master_wait_no_slave AS wait_no_slave, "
	    "@@GLOBAL.rpl_semi_sync_slave_enabled AS slave_enabled");
	probe_show(m, "show slave status", "SHOW SLAVE STATUS");
	probe_show(m, "show all slaves status", "SHOW ALL SLAVES STATUS");
	probe_show(m, "show slave hosts", "SHOW SLAVE HOSTS");
	probe_show(m, "binlog dump threads", "SELECT COUNT(*) FROM "
	    "information_schema.PROCESSLIST WHERE COMMAND LIKE "
	    "'Binlog Dump%'");

	db_value(m, "SELECT @@GLOBAL.wsrep_on", wsrep, sizeof(wsrep));
	db_value(m, "SELECT @@GLOBAL.read_only", ro, sizeof(ro));
	db_value(m, "SELECT VARIABLE_VALUE FROM information_schema."
	    "GLOBAL_STATUS WHERE VARIABLE_NAME = 'SLAVES_RUNNING'", running,
	    sizeof(running));
	db_value(m, "SELECT VARIABLE_VALUE FROM information_schema."
	    "GLOBAL_STATUS WHERE VARIABLE_NAME = 'SLAVES_CONNECTED'",
	    connected, sizeof(connected));
	db_value(m, "SELECT @@GLOBAL.rpl_semi_sync_master_enabled", ss_on,
	    sizeof(ss_on));
	db_value(m, "SELECT @@GLOBAL.rpl_semi_sync_master_wait_point", ss_wp,
	    sizeof(ss_wp));
	db_value(m, "SELECT VARIABLE_VALUE FROM information_schema."
	    "GLOBAL_STATUS WHERE VARIABLE_NAME = "
	    "'RPL_SEMI_SYNC_MASTER_STATUS'", ss_status, sizeof(ss_status));
	e = db_rows(m, "SHOW ALL SLAVES STATUS", &slaves);
	if (strcmp(wsrep, "1") == 0)
		cls = "galera";
	else if (strcmp(ro, "1") == 0 || strtol(running, NULL, 10) > 0 ||
	    (e == 0 && slaves > 0))
		cls = "replica";
	else if (strcmp(ss_on, "1") == 0 && strcmp(ss_status, "ON") != 0)
		cls = "primary+semisync-off";
	else if (strcmp(ss_on, "1") == 0 && strcmp(ss_wp, "AFTER_SYNC") == 0)
		cls = "primary+semisync-after-sync";
	else if (strtol(connected, NULL, 10) > 0 || strcmp(ss_on, "1") == 0)
		cls = "primary+async";
	else
		cls = "single";
	printf("class: %s\n", cls);
	mysql_close(m);
	return (0);
}

int
main(int argc, char *argv[])
{
	int	 rc;

	if (argc < 2)
		usage();
	if (mysql_library_init(0, NULL, NULL) != 0)
		return (1);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "race") == 0)
		rc = race(argc - 1, argv + 1);
	else if (strcmp(argv[1], "bench") == 0)
		rc = bench(argc - 1, argv + 1);
	else if (strcmp(argv[1], "inflight") == 0)
		rc = inflight(argc - 1, argv + 1);
	else if (strcmp(argv[1], "watch") == 0)
		rc = watch(argc - 1, argv + 1);
	else if (strcmp(argv[1], "stale") == 0)
		rc = stale(argc - 1, argv + 1);
	else if (strcmp(argv[1], "locks") == 0)
		rc = locks(argc - 1, argv + 1);
	else if (strcmp(argv[1], "probe") == 0)
		rc = probe(argc - 1, argv + 1);
	else
		usage();
	mysql_library_end();
	return (rc);
}
