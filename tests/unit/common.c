/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * common.c: unit tests of the small pure parts of common/: the timer
 * queue (against a plain array, through a long deterministic sequence
 * of sets, moves, deletions and pops), output buffers, the decoding
 * of wait statuses, and environments as cron builds them for a job.
 */

#include <sys/wait.h>

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../tap.h"

#define NIDS	1000
#define NOPS	200000

static uint64_t	 rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64: the same sequence on every run and every machine. */
static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((uint32_t)(rng % n));
}

/* The least (when, id) in the model, or 0 when empty. */
static int
model_min(const int64_t *when, const int *in, uint32_t *idp, int64_t *wp)
{
	uint32_t	 i;
	int		 found = 0;

	for (i = 0; i < NIDS; i++) {
		if (!in[i])
			continue;
		if (!found || when[i] < *wp) {
			*idp = i;
			*wp = when[i];
			found = 1;
		}
	}
	return (found);
}

/*
 * clock_sleep(): the earlier of two optional deadlines.  A deadline
 * overdue by any amount, 1 ms included, is no sleep at all, never "no
 * deadline" (the daemon once slept for good on one 1 ms overdue).
 */
static void
test_sleep(void)
{
	static const struct {
		int		 has_a, has_b;
		int64_t		 a, b;
		int		 rv;
		int64_t		 ms;
	} c[] = {
		{ 0, 0, 0, 0, 0, -1 },
		{ 1, 0, 500, 0, 1, 500 },
		{ 0, 1, 0, 700, 1, 700 },
		{ 1, 1, 500, 700, 1, 500 },
		{ 1, 1, 900, 700, 1, 700 },
		{ 0, 1, 0, -1, 1, 0 },
		{ 1, 0, -1, 0, 1, 0 },
		{ 1, 1, 500, -1, 1, 0 },
		{ 1, 1, -1, 500, 1, 0 },
		{ 1, 1, -30000, -2, 1, 0 },
		{ 1, 0, 0, 0, 1, 0 },
	};
	size_t		 i;
	int64_t		 ms;
	int		 rv;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ms = -1;
		rv = clock_sleep(c[i].has_a ? &c[i].a : NULL,
		    c[i].has_b ? &c[i].b : NULL, &ms);
		ok(rv == c[i].rv && ms == c[i].ms, "clock_sleep(%s%lld, %s%lld)"
		    " -> %d, %lld ms", c[i].has_a ? "" : "none ",
		    (long long)c[i].a, c[i].has_b ? "" : "none ",
		    (long long)c[i].b, rv, (long long)ms);
	}
}

static void
test_timerq(void)
{
	static int64_t	 when[NIDS];
	static int	 in[NIDS];
	struct timerq	*q;
	uint32_t	 id, mid = 0, op;
	int64_t		 w, mw = 0, last;
	size_t		 count = 0;
	int		 i, bad = 0, r, mr;

	if ((q = timerq_new()) == NULL)
		exit(99);
	ok(timerq_peek(q, &id, &w) == 0 && timerq_pop(q, &id, &w) == 0,
	    "empty queue");
	ok(timerq_del(q, 5) == 0 && timerq_get(q, 5, &w) == 0,
	    "absent id");

	ok(timerq_set(q, 7, 100) == 0 && timerq_set(q, 3, 100) == 0 &&
	    timerq_set(q, 9, 50) == 0, "three sets");
	ok(timerq_pop(q, &id, &w) == 1 && id == 9 && w == 50, "least first");
	ok(timerq_pop(q, &id, &w) == 1 && id == 3 && w == 100,
	    "ties by id");
	ok(timerq_set(q, 7, 10) == 0 && timerq_get(q, 7, &w) == 1 &&
	    w == 10 && timerq_count(q) == 1, "set again moves, not adds");
	ok(timerq_pop(q, &id, &w) == 1 && id == 7 && w == 10 &&
	    timerq_count(q) == 0, "moved entry pops");
	ok(timerq_set(q, UINT32_MAX, 1) == -1, "UINT32_MAX refused");

	for (i = 0; i < NOPS; i++) {
		op = rnd(10);
		id = rnd(NIDS);
		if (op < 5) {
			w = (int64_t)rnd(100000) - 50000;
			if (timerq_set(q, id, w) == -1)
				exit(99);
			if (!in[id])
				count++;
			in[id] = 1;
			when[id] = w;
		} else if (op < 7) {
			r = timerq_del(q, id);
			if (r != in[id])
				bad++;
			if (in[id])
				count--;
			in[id] = 0;
		} else if (op < 9) {
			r = timerq_pop(q, &id, &w);
			mr = model_min(when, in, &mid, &mw);
			if (r != mr || (r && (id != mid || w != mw)))
				bad++;
			if (mr) {
				in[mid] = 0;
				count--;
			}
		} else {
			r = timerq_get(q, id, &w);
			if (r != in[id] || (r && w != when[id]))
				bad++;
		}
		if (timerq_count(q) != count)
			bad++;
		if (i % 97 == 0) {
			r = timerq_peek(q, &id, &w);
			mr = model_min(when, in, &mid, &mw);
			if (r != mr || (r && (id != mid || w != mw)))
				bad++;
		}
	}
	is_int(bad, 0, "%d random operations agree with a plain array",
	    NOPS);

	/* Draining gives nondecreasing (when, id). */
	last = INT64_MIN;
	mid = 0;
	bad = 0;
	while (timerq_pop(q, &id, &w) == 1) {
		if (w < last || (w == last && id <= mid))
			bad++;
		last = w;
		mid = id;
		count--;
	}
	is_int(bad, 0, "drained in order");
	is_int((long long)count, 0, "every entry drained");
	timerq_free(q);
	timerq_free(NULL);
}

static void
test_outbuf(void)
{
	struct outbuf	 ob;
	const char	*p;
	char		 big[10000];

	outbuf_init(&ob, 0);
	is_int((long long)ob.ob_max, OUTBUF_DEFAULT, "default cap");
	is_int((long long)outbuf_head(&ob, 10, &p), 0, "empty head");
	is_str(p, "", "empty head text");
	ok(!outbuf_truncated(&ob), "empty is not truncated");
	outbuf_free(&ob);

	outbuf_init(&ob, 6000);
	memset(big, 'x', sizeof(big));
	ok(outbuf_add(&ob, "abc", 3) == 0 && outbuf_add(&ob, big, 5000) == 0 &&
	    outbuf_add(&ob, big, 5000) == 0, "adds");
	is_int((long long)ob.ob_len, 6000, "kept up to the cap");
	is_int((long long)ob.ob_total, 10003, "all counted");
	ok(ob.ob_buf[6000] == '\0' && ob.ob_cap <= 6001,
	    "NUL-terminated, no more memory than the cap");
	ok(outbuf_truncated(&ob), "truncated");
	is_int((long long)outbuf_head(&ob, 4, &p), 4, "head of 4");
	ok(memcmp(p, "abcx", 4) == 0, "head text");
	outbuf_free(&ob);
	outbuf_free(&ob);
}

static void
test_status(void)
{
	struct spawn_status	 ss;
	char			 buf[128], want[128];

	spawn_status_decode(0, &ss);
	ok(ss.ss_exited && ss.ss_code == 0 && ss.ss_signal == 0,
	    "status 0");
	spawn_status_decode(42 << 8, &ss);
	ok(ss.ss_exited && ss.ss_code == 42, "exit 42");
	spawn_status_str(&ss, buf, sizeof(buf));
	is_str(buf, "exit status 42", "described");
	spawn_status_decode(SIGSEGV | 0x80, &ss);
	ok(!ss.ss_exited && ss.ss_signal == SIGSEGV && ss.ss_core,
	    "SIGSEGV with core");
	spawn_status_str(&ss, buf, sizeof(buf));
	snprintf(want, sizeof(want), "killed by signal %d (%s), core dumped",
	    SIGSEGV, strsignal(SIGSEGV));
	is_str(buf, want, "described");
	is_str(spawn_stepname(SPAWN_CHDIR), "chdir", "step name");
	is_str(privdrop_stepname(PRIVDROP_INITGROUPS), "initgroups",
	    "privdrop step name");
}

/* The environment as one string, "A=1 B=2 ...", for comparisons. */
static const char *
joined(char *const *env)
{
	static char	 buf[1024];
	size_t		 i;

	buf[0] = '\0';
	for (i = 0; env != NULL && env[i] != NULL; i++) {
		if (i > 0)
			strlcat(buf, " ", sizeof(buf));
		strlcat(buf, env[i], sizeof(buf));
	}
	return (buf);
}

static void
test_env(void)
{
	const char	*table[] = { "MAILTO=ops", "LOGNAME=root", "PATH=/opt",
			    "X=a=b", "bogus", NULL };
	const char	*home[] = { "HOME=/srv/h", "SHELL=/bin/bash", NULL };
	struct passwd	 pw;
	char		**env = NULL;

	memset(&pw, 0, sizeof(pw));
	pw.pw_name = (char *)"alice";
	pw.pw_dir = (char *)"/home/alice";

	ok(jobenv_set(&env, "A", "1") == 0 && jobenv_set(&env, "B", "") == 0 &&
	    jobenv_set(&env, "A", "3") == 0, "jobenv_set from NULL");
	is_str(joined(env), "A=3 B=", "replaced in place, empty value");
	is_int((long long)jobenv_count(env), 2, "jobenv_count");
	is_str(jobenv_get(env, "B"), "", "jobenv_get empty value");
	is_str(jobenv_get(env, "C"), NULL, "jobenv_get absent");
	is_str(jobenv_get(NULL, "A"), NULL, "jobenv_get on NULL");
	ok(jobenv_set(&env, "A=B", "x") == -1 && errno == EINVAL &&
	    jobenv_set(&env, "", "x") == -1, "bad names refused");
	jobenv_free(env);
	jobenv_free(NULL);

	ok(jobenv_build(&pw, table, &env) == 0, "jobenv_build");
	is_str(joined(env), "MAILTO=ops LOGNAME=alice PATH=/opt X=a=b "
	    "SHELL=/bin/sh HOME=/home/alice USER=alice",
	    "table first, defaults where unset, LOGNAME and USER forced");
	jobenv_free(env);
	ok(jobenv_build(&pw, home, &env) == 0, "jobenv_build with HOME and SHELL");
	is_str(joined(env), "HOME=/srv/h SHELL=/bin/bash PATH=/usr/bin:/bin "
	    "LOGNAME=alice USER=alice", "the table may set HOME and SHELL");
	jobenv_free(env);
	ok(jobenv_build(&pw, NULL, &env) == 0, "jobenv_build without a table");
	is_str(joined(env), "SHELL=/bin/sh HOME=/home/alice "
	    "PATH=/usr/bin:/bin LOGNAME=alice USER=alice", "cron's defaults");
	jobenv_free(env);
}

int
main(void)
{
	test_sleep();
	test_timerq();
	test_outbuf();
	test_status();
	test_env();
	return (tap_done());
}
