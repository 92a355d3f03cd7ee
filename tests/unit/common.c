/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * common.c: unit tests of the small pure parts of common/: the sleep
 * of the main loop, output buffers, the decoding of wait statuses, and
 * environments as cron builds them for a job.
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
	test_outbuf();
	test_status();
	test_env();
	return (tap_done());
}
