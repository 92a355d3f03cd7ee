/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_at.c: the store's one-shot jobs (lock/store_at.c), on a
 * temporary SQLite file or, as tests/unit/store does, on the store
 * CLUSTERCRON_TEST_STORE names (a memory store through
 * tests/integration/store-memory.sh, a private MariaDB through
 * tests/integration/store-mysql.sh, with CLUSTERCRON_TEST_STORE2 for an
 * empty second database to migrate).  Two handles with different node
 * names stand for two nodes; two processes race for the same attempts
 * and submit the same keys at once; every fault point of the one-shot
 * operations is walked.
 */

#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "tap.h"

static char		 tmpdir[] = "/tmp/ccstoreat.XXXXXX";
static char		 url1[512], url2[512];
static const char	*cnf;
static int		 is_mysql, is_memory;
static unsigned int	 ntoken;

static struct store *open_node(const char *, const char *, int);
static void	 job_init(struct store_atjob *, const char *, const char *,
		    time_t);
static int64_t	 submit(struct store *, struct store_atjob *, int *);
static int	 state_of(struct store *, int64_t, int *, int *);
static int	 runs_of(struct store *, int64_t, struct store_run **,
		    size_t *);
static void	 test_submit(struct store *, struct store *);
static void	 test_refused(struct store *);
static void	 test_list(struct store *, struct store *);
static void	 test_cancel(struct store *, struct store *);
static void	 test_attempts(struct store *, struct store *);
static void	 test_lost(struct store *, struct store *);
static void	 test_trim(struct store *);
static int	 in_lost(struct store *, int64_t);
static void	 test_runner(struct store *, struct store *);
static void	 test_faults(struct store *, struct store *);
static void	 test_short(struct store *);
static void	 test_race_claims(void);
static void	 test_race_keys(void);
static void	 test_migrate(void);

static struct store *
open_node(const char *url, const char *node, int schema)
{
	struct store_config	 cf;
	struct store_error	 err;
	struct store		*st;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = url;
	cf.sc_node = node;
	cf.sc_mysql_file = cnf;
	cf.sc_output_max = 16;
	cf.sc_schema = schema;
	if (store_open(&cf, &st, &err) == -1) {
		diag("store_open %s: %s", url, err.se_msg);
		return (NULL);
	}
	return (st);
}

/* A job as a client submits it, with a fresh token. */
static void
job_init(struct store_atjob *j, const char *owner, const char *cmd,
    time_t due)
{
	static char	 tokens[64][40];
	static const char env[] = "HOME=/home/x\0PATH=/bin\0LOGNAME=x";
	char		*t = tokens[ntoken % 64];

	memset(j, 0, sizeof(*j));
	snprintf(t, sizeof(tokens[0]), "tok-%d-%u-%u", (int)getpid(), ntoken++,
	    arc4random());
	j->a_owner = (char *)owner;
	j->a_token = t;
	j->a_queue = 'a';
	j->a_due = due;
	j->a_cwd = "/home/x";
	j->a_umask = 022;
	j->a_env = (char *)env;
	j->a_envlen = sizeof(env);
	j->a_cmd = (char *)cmd;
	j->a_cmdlen = strlen(cmd);
}

static int64_t
submit(struct store *st, struct store_atjob *j, int *isnew)
{
	struct store_error	 err;
	int64_t			 id;
	int			 dummy;

	if (store_at_submit(st, j, 0, &id, isnew == NULL ? &dummy : isnew,
	    &err) == -1) {
		diag("store_at_submit: %s", err.se_msg);
		return (0);
	}
	return (id);
}

/* The job's state and attempt; -1 when there is no such job. */
static int
state_of(struct store *st, int64_t id, int *state, int *attempt)
{
	struct store_error	 err;
	struct store_atjob	*j;

	*state = *attempt = -1;
	if (store_at_get(st, id, &j, &err) == -1 || j == NULL)
		return (-1);
	*state = j->a_state;
	*attempt = j->a_attempt;
	store_atjobs_free(j, 1);
	return (0);
}

static int
runs_of(struct store *st, int64_t id, struct store_run **r, size_t *n)
{
	struct store_error	 err;
	char			 job[STORE_AT_RUNJOBLEN];

	store_at_runjob(id, job, sizeof(job));
	return (store_runs_list(st, job, 0, r, n, &err));
}

static void
test_submit(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_atjob	 j, *got;
	static const char	 cmd[] = "echo 'hi'\n\0binary\n";
	int64_t			 id, id2, id3;
	int			 isnew;
	char			 name[STORE_AT_RUNJOBLEN];

	job_init(&j, "alice", cmd, 2000000000);
	j.a_cmdlen = sizeof(cmd) - 1;
	j.a_queue = 'Q';
	j.a_retries = 3;
	j.a_backoff = "1m,5m,30m";
	j.a_mail = 1;
	j.a_lost = 1;
	j.a_umask = 027;
	id = submit(a, &j, &isnew);
	ok(id > 0 && isnew, "submit: a new job, id %lld", (long long)id);
	ok(store_at_get(b, id, &got, &err) == 0 && got != NULL,
	    "submit: another node reads it");
	if (got != NULL) {
		is_str(got->a_owner, "alice", "submit: its owner");
		is_str(got->a_key, "", "submit: no key");
		is_int(got->a_queue, 'Q', "submit: its queue");
		is_int(got->a_due, 2000000000, "submit: its due time");
		is_int(got->a_next, 2000000000, "submit: next attempt then");
		is_int(got->a_state, AT_WAITING, "submit: waiting");
		is_int(got->a_attempt, 0, "submit: no attempt yet");
		is_int(got->a_retries, 3, "submit: its retries");
		is_str(got->a_backoff, "1m,5m,30m", "submit: its back-off");
		is_int(got->a_mail, 1, "submit: mail always");
		is_int(got->a_lost, 1, "submit: lost attempts rerun");
		is_int(got->a_umask, 027, "submit: its umask");
		is_str(got->a_cwd, "/home/x", "submit: its directory");
		ok(got->a_envlen == j.a_envlen &&
		    memcmp(got->a_env, j.a_env, j.a_envlen) == 0,
		    "submit: its environment, NULs and all");
		ok(got->a_cmdlen == j.a_cmdlen &&
		    memcmp(got->a_cmd, cmd, j.a_cmdlen) == 0,
		    "submit: its commands, byte for byte");
		is_str(got->a_node, "nodeA", "submit: the node it came from");
		is_str(got->a_claimed_by, "", "submit: claimed by nobody");
		ok(got->a_created > 0 && got->a_updated >= got->a_created,
		    "submit: stamped by the store");
	}
	store_atjobs_free(got, 1);
	ok(store_at_get(a, id + 1000, &got, &err) == 0 && got == NULL,
	    "get: no such job, NULL");

	/* The same token again: the same submission, the same job. */
	id2 = submit(b, &j, &isnew);
	ok(id2 == id && isnew, "submit: the same token again is the same "
	    "job, still new to its submitter");
	/* Another owner's token is no way to another's job. */
	{
		struct store_atjob	 k = j;
		int64_t			 kid;

		k.a_owner = "mallory";
		ok(store_at_submit(b, &k, 0, &kid, &isnew, &err) == -1 &&
		    kid == 0 && err.se_class == STORE_CONFLICT &&
		    strstr(err.se_msg, "alice") == NULL, "submit: another "
		    "owner's token is refused, naming nobody (%s)",
		    err.se_msg);
	}
	/* Ids grow; they are not reused. */
	job_init(&j, "alice", "true", 2000000000);
	id2 = submit(a, &j, &isnew);
	ok(id2 > id && isnew, "submit: the next job has a larger id");

	/* A key: the first submission makes the job, later ones find it. */
	job_init(&j, "bob", "make report", 2000000100);
	j.a_key = "report-2026-11";
	id = submit(a, &j, &isnew);
	ok(id > 0 && isnew, "key: the first submission is new");
	job_init(&j, "bob", "something else", 2000009999);
	j.a_key = "report-2026-11";
	id2 = submit(b, &j, &isnew);
	ok(id2 == id && !isnew, "key: a second one, another node, another "
	    "token, returns the same job, not new");
	ok(store_at_get(a, id, &got, &err) == 0 && got != NULL &&
	    got->a_due == 2000000100 && got->a_cmdlen == 11 &&
	    strcmp(got->a_key, "report-2026-11") == 0,
	    "key: the job is unchanged by the second");
	store_atjobs_free(got, 1);
	job_init(&j, "carol", "make report", 2000000100);
	j.a_key = "report-2026-11";
	id3 = submit(a, &j, &isnew);
	ok(id3 > 0 && id3 != id && isnew, "key: another owner's same key is "
	    "another job");
	store_at_runjob(42, name, sizeof(name));
	is_str(name, "at:42", "runs: a one-shot job's runs are job at:ID");
}

/* What the store refuses, and the limit of pending jobs. */
static void
test_refused(struct store *a)
{
	struct store_error	 err;
	struct store_atjob	 j;
	char			 big[200];
	int64_t			 id;
	size_t			 n;
	int			 isnew, i, rc;

	job_init(&j, "alice", "true", 2000000000);
	j.a_queue = '1';
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == -1 && id == 0 &&
	    err.se_class == STORE_FATAL && strstr(err.se_msg, "queue"),
	    "refused: a queue that is not a letter (%s)", err.se_msg);
	job_init(&j, "alice", "true", 2000000000);
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	j.a_key = big;
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == -1 &&
	    strstr(err.se_msg, "key"), "refused: a key over 128 bytes (%s)",
	    err.se_msg);
	job_init(&j, "alice", "true", 2000000000);
	j.a_token = NULL;
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == -1 &&
	    strstr(err.se_msg, "token"), "refused: no token");
	job_init(&j, "alice", "true", 2000000000);
	j.a_cmdlen = STORE_AT_SCRIPTMAX;
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == -1 &&
	    strstr(err.se_msg, "1 MiB"), "refused: over 1 MiB (%s)",
	    err.se_msg);
	job_init(&j, "", "true", 2000000000);
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == -1,
	    "refused: no owner");

	/* At most max_pending waiting, running or retrying per owner. */
	for (i = 0; i < 3; i++) {
		job_init(&j, "limited", "true", 2000000000 + i);
		if (store_at_submit(a, &j, 3, &id, &isnew, &err) == -1)
			break;
	}
	is_int(i, 3, "limit: three pending jobs accepted");
	ok(store_at_pending(a, "limited", &n, &err) == 0 && n == 3,
	    "limit: three pending");
	job_init(&j, "limited", "true", 2000000009);
	rc = store_at_submit(a, &j, 3, &id, &isnew, &err);
	ok(rc == -1 && id == 0 && err.se_class == STORE_CONFLICT &&
	    strstr(err.se_msg, "pending") != NULL,
	    "limit: the fourth is refused, saying why (%s)", err.se_msg);
	ok(store_at_pending(a, "limited", &n, &err) == 0 && n == 3,
	    "limit: nothing stored");
	ok(store_at_submit(a, &j, 4, &id, &isnew, &err) == 0 && isnew,
	    "limit: accepted under a higher limit");
	ok(store_at_submit(a, &j, 4, &id, &isnew, &err) == 0 && isnew,
	    "limit: the same token again at the limit finds its job");
}

static void
test_list(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_atjob	 j, *l;
	enum store_at_cancel	 res;
	char			 long_cmd[STORE_AT_HEADMAX * 2 + 1];
	size_t			 n, i;
	int64_t			 id[3], id3;
	int			 sorted = 1, won, moved;

	/* Bytes of every value, as commands may hold (a NUL ends it). */
	for (i = 0; i < sizeof(long_cmd) - 1; i++)
		long_cmd[i] = (char)(1 + i % 255);
	long_cmd[sizeof(long_cmd) - 1] = '\0';

	job_init(&j, "lister", "third", 2000000300);
	id[2] = submit(a, &j, NULL);
	job_init(&j, "lister", "first", 2000000100);
	id[0] = submit(a, &j, NULL);
	job_init(&j, "lister", "second", 2000000200);
	id[1] = submit(a, &j, NULL);
	ok(store_at_list(b, "lister", 0, &l, &n, &err) == 0 && n == 3,
	    "list: an owner's pending jobs");
	for (i = 0; i < n && i < 3; i++)
		sorted &= l[i].a_id == id[i];
	ok(sorted, "list: by due time");
	ok(n == 0 || (l[0].a_cmd == NULL && l[0].a_env == NULL &&
	    l[0].a_cmdlen == 0), "list: without commands or environment");
	store_atjobs_free(l, n);
	if (store_at_list(b, NULL, 0, &l, &n, &err) == -1)
		n = 0;
	ok(n > 3, "list: everyone's pending jobs");
	store_atjobs_free(l, n);

	/* Finished jobs are listed only when all are asked for. */
	ok(store_at_claim(a, id[0], 1, &won, &err) == 0 && won &&
	    store_at_finish(a, id[0], 1, NULL, AT_DONE, 0, &moved, &err) ==
	    0 && moved, "list: the first runs and is done");
	ok(store_at_list(b, "lister", 0, &l, &n, &err) == 0 && n == 2 &&
	    l[0].a_id == id[1], "list: pending jobs only");
	store_atjobs_free(l, n);
	ok(store_at_list(b, "lister", 1, &l, &n, &err) == 0 && n == 3,
	    "list: all of them");
	store_atjobs_free(l, n);

	/* Heads: the listings' view, the head of the commands. */
	job_init(&j, "lister", long_cmd, 2000000400);
	id3 = submit(a, &j, NULL);
	ok(store_at_heads(b, "lister", 0, &l, &n, &err) == 0 && n == 3 &&
	    l[0].a_id == id[2] && l[1].a_id == id[1] && l[2].a_id == id3,
	    "heads: an owner's pending jobs, by id");
	ok(n == 3 && l[1].a_cmdlen == 6 && memcmp(l[1].a_cmd, "second", 7) ==
	    0 && l[1].a_envlen == 0 && strcmp(l[1].a_owner, "lister") == 0 &&
	    l[1].a_state == AT_WAITING, "heads: a short command whole");
	ok(n == 3 && l[2].a_cmdlen == STORE_AT_HEADMAX &&
	    memcmp(l[2].a_cmd, long_cmd, STORE_AT_HEADMAX) == 0 &&
	    l[2].a_cmd[STORE_AT_HEADMAX] == '\0',
	    "heads: a long one cut at STORE_AT_HEADMAX bytes");
	store_atjobs_free(l, n);
	ok(store_at_heads(b, "lister", 1, &l, &n, &err) == 0 && n == 4 &&
	    l[1].a_id == id[0] && l[1].a_state == AT_DONE &&
	    memcmp(l[1].a_cmd, "first", 6) == 0,
	    "heads: finished jobs too when all are asked for");
	store_atjobs_free(l, n);
	ok(store_at_heads(b, NULL, 1, &l, &n, &err) == 0 && n > 4,
	    "heads: everyone's");
	store_atjobs_free(l, n);
	ok(store_at_heads(b, "nobody-here", 1, &l, &n, &err) == 0 && n == 0,
	    "heads: an owner without jobs, none");
	store_atjobs_free(l, n);
	ok(store_at_cancel(a, id3, NULL, &res, &err) == 0 &&
	    res == AT_CANCEL_DONE, "heads: the long one cancelled");

	/* Due: waiting or retrying, no later than asked, earliest first. */
	ok(store_at_due(b, 2000000250, 0, &l, &n, &err) == 0,
	    "due: listed");
	for (i = 0; i < n; i++)
		if (l[i].a_id == id[0] || l[i].a_id == id[2])
			break;
	ok(i == n, "due: neither the one done nor the later one");
	for (i = 0; i < n; i++)
		if (l[i].a_id == id[1])
			break;
	ok(i < n && l[i].a_cmdlen == 6 && memcmp(l[i].a_cmd, "second", 6) ==
	    0, "due: the second, with its commands");
	for (i = 1; i < n; i++)
		if (l[i].a_next < l[i - 1].a_next)
			break;
	ok(i >= n, "due: earliest first");
	store_atjobs_free(l, n);
	ok(store_at_due(b, 2000000250, 1, &l, &n, &err) == 0 && n == 1,
	    "due: at most max");
	store_atjobs_free(l, n);
}

static void
test_cancel(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_atjob	 j;
	enum store_at_cancel	 res;
	int64_t			 id, id2;
	int			 s, at, won;

	job_init(&j, "dave", "true", 2000000000);
	id = submit(a, &j, NULL);
	ok(store_at_cancel(b, id, "erin", &res, &err) == 0 &&
	    res == AT_CANCEL_NOTOWNER, "cancel: not by another user");
	ok(state_of(a, id, &s, &at) == 0 && s == AT_WAITING,
	    "cancel: ... which changes nothing");
	ok(store_at_cancel(b, id, "dave", &res, &err) == 0 &&
	    res == AT_CANCEL_DONE, "cancel: by its owner");
	ok(state_of(a, id, &s, &at) == 0 && s == AT_CANCELLED,
	    "cancel: cancelled, and kept");
	ok(store_at_cancel(b, id, "dave", &res, &err) == 0 &&
	    res == AT_CANCEL_FINISHED, "cancel: again: it is over already");
	ok(store_at_claim(a, id, 1, &won, &err) == 0 && !won,
	    "cancel: a cancelled job is never claimed");
	ok(store_at_cancel(b, id + 100000, NULL, &res, &err) == 0 &&
	    res == AT_CANCEL_NONE, "cancel: no such job");

	job_init(&j, "dave", "true", 2000000000);
	id2 = submit(a, &j, NULL);
	ok(store_at_claim(a, id2, 1, &won, &err) == 0 && won,
	    "cancel: another job is claimed");
	ok(store_at_cancel(b, id2, NULL, &res, &err) == 0 &&
	    res == AT_CANCEL_RUNNING, "cancel: not while it runs, even by "
	    "root");
	ok(state_of(a, id2, &s, &at) == 0 && s == AT_RUNNING,
	    "cancel: ... it still runs");
	ok(store_at_finish(a, id2, 1, NULL, AT_RETRYING, 2000000600, &won,
	    &err) == 0 && won, "cancel: its attempt fails, a retry is due");
	ok(store_at_cancel(b, id2, NULL, &res, &err) == 0 &&
	    res == AT_CANCEL_DONE, "cancel: a retrying job is cancelled");
	ok(store_at_claim(a, id2, 2, &won, &err) == 0 && !won,
	    "cancel: and its retry never claimed");
}

/*
 * Attempts: one winner per attempt; the claim records the run; the
 * start fills it in; the end records the run's end and moves the job;
 * a retry is the next attempt of the same fire, on any node.
 */
static void
test_attempts(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_atjob	 j, *got;
	struct store_run	*r;
	struct store_run_end	 re;
	int64_t			 id, run, run2;
	size_t			 n;
	int			 won, moved, s, at;

	job_init(&j, "frank", "false", 2000001000);
	j.a_retries = 1;
	id = submit(a, &j, NULL);
	ok(store_at_claim(a, id, 2, &won, &err) == 0 && !won,
	    "attempts: attempt 2 cannot be claimed before 1");
	ok(store_at_claim(a, id, 0, &won, &err) == -1 && !won,
	    "attempts: attempts count from 1");
	ok(store_at_claim(a, id, 1, &won, &err) == 0 && won,
	    "attempts: A claims attempt 1");
	ok(store_at_claim(b, id, 1, &won, &err) == 0 && !won,
	    "attempts: B does not");
	ok(store_at_claim(a, id, 1, &won, &err) == 0 && won,
	    "attempts: A asking again is told it is its own");
	ok(store_at_get(b, id, &got, &err) == 0 && got != NULL &&
	    got->a_state == AT_RUNNING && got->a_attempt == 1 &&
	    strcmp(got->a_claimed_by, "nodeA") == 0 && got->a_claimed_at > 0,
	    "attempts: the row says running, attempt 1, by A");
	store_atjobs_free(got, 1);
	ok(runs_of(b, id, &r, &n) == 0 && n == 1 && r[0].r_attempt == 1 &&
	    r[0].r_fire == 2000001000 && strcmp(r[0].r_node, "nodeA") == 0 &&
	    r[0].r_state == RUN_RUNNING && r[0].r_pid == 0,
	    "attempts: the claim wrote the attempt's run, fire = due time");
	store_runs_free(r, n);

	ok(store_at_start(b, id, 1, 99, 1000, &run, &err) == -1 &&
	    err.se_class == STORE_CONFLICT, "attempts: B cannot start A's "
	    "attempt");
	ok(store_at_start(a, id, 1, 4242, 2000001000123LL, &run, &err) == 0 &&
	    run > 0, "attempts: A records the start");
	ok(store_at_start(a, id, 1, 1, 1, &run2, &err) == 0 && run2 == run,
	    "attempts: again: the same run, unchanged");
	ok(runs_of(b, id, &r, &n) == 0 && n == 1 && r[0].r_pid == 4242 &&
	    r[0].r_start == 2000001000123LL, "attempts: the run has its pid "
	    "and start");
	store_runs_free(r, n);

	memset(&re, 0, sizeof(re));
	re.re_end = 2000001005000LL;
	re.re_status = 3 << 8;
	re.re_out = "oops, it failed with a long message";
	re.re_outlen = strlen(re.re_out);
	ok(store_at_finish(b, id, 1, &re, AT_RETRYING, 2000001060, &moved,
	    &err) == -1, "attempts: B cannot end A's attempt");
	ok(state_of(a, id, &s, &at) == 0 && s == AT_RUNNING,
	    "attempts: ... which still runs");
	ok(store_at_finish(a, id, 1, &re, AT_RETRYING, 2000001060, &moved,
	    &err) == 0 && moved, "attempts: A ends it: retrying");
	ok(store_at_get(b, id, &got, &err) == 0 && got != NULL &&
	    got->a_state == AT_RETRYING && got->a_next == 2000001060 &&
	    got->a_due == 2000001000, "attempts: next at the back-off, the "
	    "due time kept");
	store_atjobs_free(got, 1);
	ok(runs_of(b, id, &r, &n) == 0 && n == 1 &&
	    r[0].r_state == RUN_FINISHED && r[0].r_exit == 3 &&
	    r[0].r_end == 2000001005000LL && r[0].r_outtotal == 35 &&
	    r[0].r_outlen == 16, "attempts: the run's end, status, output "
	    "head");
	store_runs_free(r, n);
	ok(store_at_finish(a, id, 1, &re, AT_DONE, 0, &moved, &err) == 0 &&
	    !moved, "attempts: an attempt ends once");

	ok(store_at_claim(a, id, 1, &won, &err) == 0 && !won,
	    "attempts: attempt 1 is never claimed again");
	ok(store_at_claim(b, id, 2, &won, &err) == 0 && won,
	    "attempts: B claims the retry, attempt 2");
	ok(store_at_claim(a, id, 2, &won, &err) == 0 && !won,
	    "attempts: not A");
	re.re_status = 0;
	re.re_out = "fine";
	re.re_outlen = 4;
	ok(store_at_start(b, id, 2, 77, 2000001060000LL, &run, &err) == 0 &&
	    store_at_finish(b, id, 2, &re, AT_DONE, 0, &moved, &err) == 0 &&
	    moved, "attempts: B runs it: done");
	ok(store_at_get(a, id, &got, &err) == 0 && got != NULL &&
	    got->a_state == AT_DONE && got->a_attempt == 2 &&
	    got->a_next == 2000001060, "attempts: done after 2 attempts");
	store_atjobs_free(got, 1);
	ok(runs_of(a, id, &r, &n) == 0 && n == 2 && r[0].r_attempt == 2 &&
	    strcmp(r[0].r_node, "nodeB") == 0 && r[0].r_exit == 0 &&
	    r[1].r_attempt == 1 && strcmp(r[1].r_node, "nodeA") == 0,
	    "attempts: the history has both, each with its node");
	store_runs_free(r, n);
	ok(store_at_claim(a, id, 3, &won, &err) == 0 && !won,
	    "attempts: a job done is never claimed again");
	ok(store_at_finish(a, id, 1, NULL, AT_WAITING, 0, &moved, &err) ==
	    -1 && store_at_finish(a, id, 1, NULL, AT_RETRYING, 0, &moved,
	    &err) == -1, "attempts: an end goes to done, failed or retrying "
	    "at a time");
}

/*
 * A node that dies while an attempt runs: the run is marked lost like
 * any run, and the job is moved on by whoever handles the loss.
 */
static void
test_lost(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_atjob	 j;
	struct store_run	*r;
	struct store		*c;
	int64_t			 id, sms, run;
	size_t			 n, i;
	int			 won, moved, dr, s, at, found = 0;

	job_init(&j, "gina", "sleep 100", 2000002000);
	id = submit(a, &j, NULL);
	if ((c = open_node(url1, "doomed", 0)) == NULL) {
		ok(0, "lost: node C");
		return;
	}
	ok(store_heartbeat(c, clock_now_ms(), 1, NULL, &sms, &dr, &err) == 0 &&
	    store_at_claim(c, id, 1, &won, &err) == 0 && won &&
	    store_at_start(c, id, 1, 555, clock_now_ms(), &run, &err) == 0,
	    "lost: C claims and starts attempt 1, then falls silent");
	store_close(c);
	ok(in_lost(b, id) == 0, "lost: store_at_lost: not while it runs");
	ok(store_runs_mark_lost(b, -3600000, &r, &n, &err) == 0,
	    "lost: B marks the silent node's runs lost");
	for (i = 0; i < n; i++)
		if (r[i].r_id == run && r[i].r_state == RUN_LOST)
			found = 1;
	ok(found, "lost: the attempt's run among them");
	store_runs_free(r, n);
	ok(state_of(a, id, &s, &at) == 0 && s == AT_RUNNING && at == 1,
	    "lost: the job still says running until the loss is handled");
	ok(in_lost(a, id) == 1, "lost: store_at_lost: A finds it");
	ok(store_at_finish(b, id, 1, NULL, AT_RETRYING, 2000002060, &moved,
	    &err) == 0 && moved, "lost: B moves it on (rerun)");
	ok(in_lost(a, id) == 0, "lost: store_at_lost: not once moved on");
	ok(store_at_claim(a, id, 2, &won, &err) == 0 && won,
	    "lost: A claims attempt 2");
	if ((c = open_node(url1, "doomed", 0)) == NULL) {
		ok(0, "lost: node C back");
		return;
	}
	ok(store_at_claim(c, id, 1, &won, &err) == 0 && !won,
	    "lost: C, back, asks about its attempt: not its own any more");
	memset(&err, 0, sizeof(err));
	ok(store_at_finish(c, id, 1, NULL, AT_DONE, 0, &moved, &err) == 0 &&
	    !moved, "lost: and its late end moves nothing");
	store_close(c);
	ok(state_of(a, id, &s, &at) == 0 && s == AT_RUNNING && at == 2,
	    "lost: attempt 2 runs on");
}

/* Whether store_at_lost() lists job id: 1, 0, or -1 on failure. */
static int
in_lost(struct store *st, int64_t id)
{
	struct store_error	 err;
	struct store_atjob	*v;
	size_t			 i, n;
	int			 found = 0;

	if (store_at_lost(st, 0, &v, &n, &err) == -1) {
		diag("store_at_lost: %s", err.se_msg);
		return (-1);
	}
	for (i = 0; i < n; i++)
		if (v[i].a_id == id && v[i].a_cmd != NULL &&
		    v[i].a_state == AT_RUNNING)
			found = 1;
	store_atjobs_free(v, n);
	return (found);
}

/*
 * What the daemon's runner asks besides: the earliest attempt due, and
 * an attempt that did not start, recorded as a failed run with why.
 */
static void
test_runner(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_run_end	 re;
	struct store_atjob	 j, *got = NULL;
	struct store_run	*r;
	time_t			 next;
	int64_t			 id, run;
	size_t			 n;
	int			 won, moved, s, at;

	job_init(&j, "hugo", "true", 1000);
	id = submit(a, &j, NULL);
	ok(store_at_next(b, &next, &err) == 0 && next == 1000,
	    "next: the earliest attempt due");
	ok(store_at_claim(b, id, 1, &won, &err) == 0 && won,
	    "next: B claims it");
	ok(store_at_next(a, &next, &err) == 0 && next > 1000,
	    "next: a running job is not due");
	memset(&re, 0, sizeof(re));
	re.re_end = 1000500;
	re.re_status = STORE_AT_NOSTART;
	re.re_out = "no such user";
	re.re_outlen = strlen(re.re_out);
	ok(store_at_finish(b, id, 1, &re, AT_RETRYING, 1060, &moved, &err) ==
	    0 && moved, "nostart: recorded, the job retrying");
	ok(runs_of(a, id, &r, &n) == 0 && n == 1 &&
	    r[0].r_state == RUN_FAILED && r[0].r_exit == -1 &&
	    r[0].r_end == 1000500 && r[0].r_outlen == 12 &&
	    strcmp(r[0].r_output, "no such user") == 0,
	    "nostart: its run failed, with why as its output");
	if (n > 0)
		store_runs_free(r, n);
	ok(state_of(a, id, &s, &at) == 0 && s == AT_RETRYING && at == 1,
	    "nostart: the job waits for attempt 2");
	ok(store_at_next(a, &next, &err) == 0 && next == 1060,
	    "next: its retry is the earliest");
	ok(in_lost(a, id) == 0, "nostart: not lost");
	ok(store_at_claim(a, id, 2, &won, &err) == 0 && won &&
	    store_at_finish(a, id, 2, NULL, AT_DONE, 0, &moved, &err) == 0 &&
	    moved, "next: attempt 2 claimed and ended");

	/*
	 * Fenced: claimed, not started in time.  Its run is missed, and
	 * the job's rows count it apart, so that it takes none of the
	 * job's retries (a lost attempt 2 is then its first that ran).
	 */
	job_init(&j, "hugo", "true", 1000);
	id = submit(a, &j, NULL);
	re.re_status = STORE_AT_FENCED;
	re.re_out = "past the lease of its claim";
	re.re_outlen = strlen(re.re_out);
	ok(store_at_claim(b, id, 1, &won, &err) == 0 && won &&
	    store_at_finish(b, id, 1, &re, AT_RETRYING, 1000, &moved, &err) ==
	    0 && moved, "fenced: recorded, the job due again");
	ok(runs_of(a, id, &r, &n) == 0 && n == 1 &&
	    r[0].r_state == RUN_MISSED && r[0].r_attempt == 1,
	    "fenced: its run is missed, not failed");
	if (n > 0)
		store_runs_free(r, n);
	ok(store_at_claim(a, id, 2, &won, &err) == 0 && won &&
	    store_at_get(b, id, &got, &err) == 0 && got != NULL &&
	    got->a_attempt == 2 && got->a_fenced == 1,
	    "fenced: attempt 2 claimed, one of two not started in time");
	store_atjobs_free(got, 1);
	ok(store_at_start(a, id, 2, 555, 1001000, &run, &err) == 0 &&
	    store_at_finish(a, id, 2, NULL, AT_FAILED, 0, &moved, &err) == 0 &&
	    moved && store_at_get(b, id, &got, &err) == 0 && got != NULL &&
	    got->a_attempt == 2 && got->a_fenced == 1,
	    "fenced: an attempt that started is not counted so");
	store_atjobs_free(got, 1);
}

static void
test_trim(struct store *a)
{
	struct store_error	 err;
	struct store_atjob	 j;
	enum store_at_cancel	 res;
	int64_t			 done, waiting, next;
	size_t			 n;
	int			 won, moved, s, at;

	job_init(&j, "henry", "true", 2000003000);
	done = submit(a, &j, NULL);
	job_init(&j, "henry", "true", 2000003000);
	waiting = submit(a, &j, NULL);
	ok(store_at_claim(a, done, 1, &won, &err) == 0 && won &&
	    store_at_finish(a, done, 1, NULL, AT_DONE, 0, &moved, &err) == 0,
	    "trim: one job done");
	ok(store_trim(a, 3600000, 0, 60000, &n, &err) == 0 &&
	    state_of(a, done, &s, &at) == 0, "trim: a job done just now "
	    "stays");
	/* A millisecond: everything finished before now goes. */
	usleep(5000);
	ok(store_trim(a, 1, 0, 60000, &n, &err) == 0,
	    "trim: by an age everything finished is past");
	ok(state_of(a, done, &s, &at) == -1, "trim: the job done is gone");
	ok(state_of(a, waiting, &s, &at) == 0 && s == AT_WAITING,
	    "trim: the waiting one stays");
	ok(store_at_cancel(a, waiting, NULL, &res, &err) == 0 &&
	    res == AT_CANCEL_DONE && usleep(5000) == 0 && store_trim(a, 1, 0,
	    60000, &n, &err) == 0 && state_of(a, waiting, &s, &at) == -1,
	    "trim: once cancelled, it goes too");
	job_init(&j, "henry", "true", 2000003000);
	next = submit(a, &j, NULL);
	ok(next > waiting, "trim: the ids of trimmed jobs are not given "
	    "out again (%lld after %lld)", (long long)next,
	    (long long)waiting);
	store_lease_drop(a, "trim", &err);
}

/*
 * Every fault point of the one-shot operations: the connection drops
 * there (before the statement, or after it ran, its result lost), the
 * operation is carried out again as lk_run() does once it reconnects
 * or, when it reports the loss, as the caller would, and the outcome
 * is the truth: one job per token, one winner per attempt, one move
 * per end, one cancel.
 */
static void
test_faults(struct store *a, struct store *b)
{
	static const char *const points[] = {
		"at.submit.before", "at.submit.after",
		"at.submit.commit.before", "at.submit.commit.after",
		"at.claim.before", "at.claim.after",
		"at.claim.run.before", "at.claim.run.after",
		"at.claim.commit.before", "at.claim.commit.after",
		"at.peek.before", "at.peek.after",
		"at.cancel.before", "at.cancel.after",
		"at.start.before", "at.start.after",
		"at.finish.before", "at.finish.after",
		"at.finish.run.before", "at.finish.run.after",
		"at.finish.commit.before", "at.finish.commit.after",
		NULL
	};
	const char *const	*pt, *const *all;
	struct store_error	 err;
	struct store_atjob	 j, *l;
	struct store_run	*r;
	struct store_run_end	 re;
	enum store_at_cancel	 res;
	int64_t			 id, id2, run;
	size_t			 n;
	int			 rc, won, moved, isnew, s, at, reached = 0;
	char			 owner[64];

	/* Every at.* point the hook knows is walked here. */
	for (all = store_fault_points(); *all != NULL; all++) {
		if (strncmp(*all, "at.", 3) != 0)
			continue;
		for (pt = points; *pt != NULL; pt++)
			if (strcmp(*pt, *all) == 0)
				break;
		ok(*pt != NULL, "faults: %s is walked", *all);
	}
	memset(&re, 0, sizeof(re));
	re.re_end = 1;
	re.re_out = "x";
	re.re_outlen = 1;
	for (pt = points; *pt != NULL; pt++) {
		snprintf(owner, sizeof(owner), "f-%s", *pt);
		job_init(&j, owner, "true", 2000004000);
		j.a_key = "k";
		if (strncmp(*pt, "at.submit.", 10) == 0) {
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_at_submit(a, &j, 0, &id, &isnew, &err);
			if (rc == -1 && err.se_lost)
				rc = store_at_submit(a, &j, 0, &id, &isnew,
				    &err);
			ok(rc == 0 && id > 0 && isnew, "%s: submitted, new",
			    *pt);
			ok(store_at_list(b, owner, 1, &l, &n, &err) == 0 &&
			    n == 1 && l[0].a_id == id, "%s: once", *pt);
			store_atjobs_free(l, n);
		} else if (strncmp(*pt, "at.claim.", 9) == 0 ||
		    strncmp(*pt, "at.peek.", 8) == 0) {
			id = submit(a, &j, NULL);
			/* The row is read when the claim changed nothing. */
			if (strncmp(*pt, "at.peek.", 8) == 0)
				store_fault_set("at.claim.commit.after", 1,
				    STORE_FAULT_DROP);
			else
				store_fault_set(NULL, 1, STORE_FAULT_NONE);
			store_fault_add(*pt, 1, STORE_FAULT_DROP);
			rc = store_at_claim(a, id, 1, &won, &err);
			if (rc == -1) {
				ok(err.se_lost && !won, "%s: lost, reported "
				    "so", *pt);
				rc = store_at_claim(a, id, 1, &won, &err);
			}
			ok(rc == 0 && won, "%s: the attempt is ours", *pt);
			ok(store_at_claim(b, id, 1, &won, &err) == 0 && !won,
			    "%s: and no one else's", *pt);
			ok(runs_of(b, id, &r, &n) == 0 && n == 1,
			    "%s: one run", *pt);
			store_runs_free(r, n);
		} else if (strncmp(*pt, "at.cancel.", 10) == 0) {
			id = submit(a, &j, NULL);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_at_cancel(a, id, owner, &res, &err);
			if (rc == -1)
				rc = store_at_cancel(a, id, owner, &res, &err);
			ok(rc == 0 && res == AT_CANCEL_DONE, "%s: cancelled "
			    "(%d)", *pt, (int)res);
			ok(state_of(b, id, &s, &at) == 0 &&
			    s == AT_CANCELLED, "%s: and it is", *pt);
		} else if (strncmp(*pt, "at.start.", 9) == 0) {
			id = submit(a, &j, NULL);
			store_at_claim(a, id, 1, &won, &err);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_at_start(a, id, 1, 321, 5, &run, &err);
			if (rc == -1)
				rc = store_at_start(a, id, 1, 321, 5, &run,
				    &err);
			ok(rc == 0 && run > 0, "%s: started", *pt);
			ok(runs_of(b, id, &r, &n) == 0 && n == 1 &&
			    r[0].r_pid == 321, "%s: once, with its pid", *pt);
			store_runs_free(r, n);
		} else {
			id = submit(a, &j, NULL);
			store_at_claim(a, id, 1, &won, &err);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_at_finish(a, id, 1, &re, AT_FAILED, 0,
			    &moved, &err);
			if (rc == -1)
				rc = store_at_finish(a, id, 1, &re, AT_FAILED,
				    0, &moved, &err);
			ok(rc == 0 && moved, "%s: ended, and said so", *pt);
			ok(state_of(b, id, &s, &at) == 0 && s == AT_FAILED,
			    "%s: failed", *pt);
			ok(runs_of(b, id, &r, &n) == 0 && n == 1 &&
			    r[0].r_state == RUN_FINISHED, "%s: its run ended",
			    *pt);
			store_runs_free(r, n);
		}
		if (store_fault_hits() > 0)
			reached++;
		else
			diag("%s is not reached on %s", *pt,
			    store_backend(a));
		store_fault_set(NULL, 1, STORE_FAULT_NONE);
	}
	ok(reached >= (is_mysql ? 18 : 20), "faults: %d points reached",
	    reached);

	/*
	 * Lost results and no way back: the call says so, and a later
	 * call tells the truth.  A submission sent again (the client
	 * timed out) makes no second job; a claim asked again is ours.
	 */
	job_init(&j, "lostres", "true", 2000004000);
	store_fault_set("at.submit.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_at_submit(a, &j, 0, &id, &isnew, &err);
	ok(rc == -1 && err.se_lost && id == 0 && store_fault_hits() == 2,
	    "lost result: the submission reports the loss");
	store_fault_reconnect(a);
	ok(store_at_submit(a, &j, 0, &id, &isnew, &err) == 0 && id > 0 &&
	    isnew, "lost result: sent again, it finds its job");
	ok(store_at_list(b, "lostres", 1, &l, &n, &err) == 0 && n == 1,
	    "lost result: one job");
	store_atjobs_free(l, n);
	store_fault_set("at.claim.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_at_claim(a, id, 1, &won, &err);
	ok(rc == -1 && err.se_lost && !won, "lost result: a claim reports "
	    "the loss, not a win");
	ok(store_at_claim(b, id, 1, &won, &err) == 0 && !won,
	    "lost result: B cannot have it meanwhile");
	store_fault_reconnect(a);
	ok(store_at_claim(a, id, 1, &won, &err) == 0 && won,
	    "lost result: asked again, it was A's");
	store_fault_set("at.claim.commit.before", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	job_init(&j, "lostres", "true", 2000004000);
	id2 = submit(b, &j, NULL);
	rc = store_at_claim(a, id2, 1, &won, &err);
	ok(rc == -1 && err.se_lost && !won, "cut before the commit: lost");
	store_fault_reconnect(a);
	ok(store_at_claim(b, id2, 1, &won, &err) == 0 && won,
	    "cut before the commit: nothing was claimed, B wins");
	ok(store_at_claim(a, id2, 1, &won, &err) == 0 && !won,
	    "cut before the commit: A learns it did not");
	/* A deadlock is retried; a failure is no win. */
	job_init(&j, "lostres", "true", 2000004000);
	id2 = submit(b, &j, NULL);
	store_fault_set("at.claim.before", 1, STORE_FAULT_RETRY);
	ok(store_at_claim(a, id2, 1, &won, &err) == 0 && won &&
	    store_fault_hits() == 1, "a deadlock is retried");
	job_init(&j, "lostres", "true", 2000004000);
	id2 = submit(b, &j, NULL);
	store_fault_set("at.claim.before", 1, STORE_FAULT_FAIL);
	ok(store_at_claim(a, id2, 1, &won, &err) == -1 && !won &&
	    err.se_class == STORE_FATAL, "a failure is no win");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	ok(store_at_claim(a, id2, 1, &won, &err) == 0 && won,
	    "and the attempt is still there to claim");
}

/* Rows a column short are refused, as every listing's are. */
static void
test_short(struct store *a)
{
	struct store_error	 err;
	struct store_atjob	 j, *l;
	enum store_at_cancel	 res;
	int64_t			 id, id2, run;
	size_t			 n;
	int			 won;

	job_init(&j, "shorty", "true", 2000005000);
	id = submit(a, &j, NULL);
	l = (struct store_atjob *)&err;
	store_fault_set("list.before", 1, STORE_FAULT_SHORT);
	ok(store_at_list(a, "shorty", 0, &l, &n, &err) == -1 && l == NULL &&
	    n == 0 && err.se_class == STORE_FATAL &&
	    strstr(err.se_msg, "columns") != NULL, "short rows: a list is "
	    "refused (%s)", err.se_msg);
	store_fault_set("list.before", 1, STORE_FAULT_SHORT);
	ok(store_at_get(a, id, &l, &err) == -1 && l == NULL,
	    "short rows: a job is refused");
	store_fault_set("list.before", 1, STORE_FAULT_SHORT);
	ok(store_at_due(a, 2000005000, 0, &l, &n, &err) == -1 && l == NULL,
	    "short rows: the due jobs are refused");
	store_fault_set("at.peek.before", 1, STORE_FAULT_SHORT);
	ok(store_at_cancel(a, id, "someone", &res, &err) == -1 &&
	    strstr(err.se_msg, "columns") != NULL,
	    "short rows: the row a cancel reads is refused");
	store_fault_set("at.submit.find.before", 1, STORE_FAULT_SHORT);
	ok(store_at_submit(a, &j, 0, &id2, &won, &err) == -1 &&
	    strstr(err.se_msg, "columns") != NULL,
	    "short rows: the token's row is refused");
	ok(store_at_claim(a, id, 1, &won, &err) == 0 && won,
	    "short rows: claimed");
	store_fault_set("at.start.find.before", 1, STORE_FAULT_SHORT);
	ok(store_at_start(a, id, 1, 1, 1, &run, &err) == -1 &&
	    strstr(err.se_msg, "columns") != NULL,
	    "short rows: the run's row is refused");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	ok(store_at_list(a, "shorty", 0, &l, &n, &err) == 0 && n == 1,
	    "short rows: the store goes on");
	store_atjobs_free(l, n);
}

/*
 * Two processes, two nodes, claim attempt 1 of the same jobs at once,
 * then attempt 2 after each job's end: every attempt has one winner,
 * never two, and is claimed.
 */
#define NRACE	120

static void
race_child(const char *node, const int64_t *ids, int go, int out)
{
	struct store_error	 err;
	struct store		*st;
	char			 c, line[64];
	int			 i, k, won, moved, len;

	if ((st = open_node(url1, node, 0)) == NULL)
		_exit(2);
	if (read(go, &c, 1) != 1)
		_exit(3);
	for (k = 1; k <= 2; k++)
		for (i = 0; i < NRACE; i++) {
			if (store_at_claim(st, ids[i], k, &won, &err) == -1) {
				/* Unknown: asked again, as a node would. */
				if (store_at_claim(st, ids[i], k, &won,
				    &err) == -1)
					_exit(4);
			}
			if (!won)
				continue;
			len = snprintf(line, sizeof(line), "%d %lld %s\n", k,
			    (long long)ids[i], node);
			if (write(out, line, (size_t)len) != len)
				_exit(5);
			if (store_at_finish(st, ids[i], k, NULL, k == 1 ?
			    AT_RETRYING : AT_DONE, 2000006001, &moved,
			    &err) == -1 || !moved)
				_exit(6);
		}
	store_close(st);
	_exit(0);
}

static void
test_race_claims(void)
{
	struct store_error	 err;
	struct store_atjob	 j;
	struct store		*st;
	int64_t			 ids[NRACE], id;
	pid_t			 pid[2];
	FILE			*f;
	char			 node[16];
	int			 go[2], out[2], status, i, k, n, bad = 0;
	int			 wins[NRACE][3], done, s, at;

	if (is_memory) {
		diag("race: a memory store is not shared with a child process");
		return;
	}
	if ((st = open_node(url1, "racer", 0)) == NULL) {
		ok(0, "race: open");
		return;
	}
	for (i = 0; i < NRACE; i++) {
		job_init(&j, "racer", "true", 2000006000);
		j.a_retries = 1;
		ids[i] = submit(st, &j, NULL);
	}
	memset(wins, 0, sizeof(wins));
	/* A connection is not carried across fork(): reopened after. */
	store_close(st);
	if (pipe(go) == -1 || pipe(out) == -1) {
		ok(0, "race: pipe");
		return;
	}
	fflush(stdout);
	for (k = 0; k < 2; k++) {
		snprintf(node, sizeof(node), "race%d", k);
		if ((pid[k] = fork()) == 0) {
			close(go[1]);
			close(out[0]);
			race_child(node, ids, go[0], out[1]);
		}
	}
	close(go[0]);
	close(out[1]);
	/* Both start together. */
	(void)write(go[1], "gg", 2);
	close(go[1]);
	f = fdopen(out[0], "r");
	while (f != NULL && fscanf(f, "%d %lld %15s", &k, (long long *)&id,
	    node) == 3) {
		for (i = 0; i < NRACE && ids[i] != id; i++)
			;
		if (i == NRACE || k < 1 || k > 2)
			bad++;
		else
			wins[i][k]++;
	}
	if (f != NULL)
		fclose(f);
	for (k = 0; k < 2; k++) {
		waitpid(pid[k], &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "race: contender %d ran through (%d)", k, status);
	}
	if ((st = open_node(url1, "racer", 0)) == NULL) {
		ok(0, "race: open again");
		return;
	}
	n = 0;
	done = 0;
	for (i = 0; i < NRACE; i++) {
		if (wins[i][1] != 1 || wins[i][2] != 1)
			n++;
		if (state_of(st, ids[i], &s, &at) == 0 && s == AT_DONE &&
		    at == 2)
			done++;
	}
	ok(bad == 0 && n == 0, "race: %d attempts, each won exactly once "
	    "(%d not)", 2 * NRACE, n);
	is_int(done, NRACE, "race: every job done after two attempts");
	store_close(st);
	(void)err;
}

/*
 * A submitter that retries: two processes submit the same keys at the
 * same moment, each with tokens of its own.  Each key makes one job,
 * new to exactly one of them, and both are given its id.
 */
#define NKEYS	40

static void
test_race_keys(void)
{
	struct store_atjob	 j;
	struct store		*st;
	struct store_error	 err;
	struct store_atjob	*l;
	char			 key[32], c, line[64];
	int64_t			 got[2][NKEYS], id;
	int			 isnew[2][NKEYS], go[2], out[2], k, i, len;
	int			 status, same = 0, once = 0, isn;
	pid_t			 pid[2];
	size_t			 n;
	FILE			*f;

	if (is_memory) {
		diag("keys: a memory store is not shared with a child process");
		return;
	}
	if (pipe(go) == -1 || pipe(out) == -1) {
		ok(0, "keys: pipe");
		return;
	}
	fflush(stdout);
	for (k = 0; k < 2; k++) {
		if ((pid[k] = fork()) != 0)
			continue;
		close(go[1]);
		close(out[0]);
		if ((st = open_node(url1, k == 0 ? "keyA" : "keyB", 0)) ==
		    NULL || read(go[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < NKEYS; i++) {
			snprintf(key, sizeof(key), "nightly-%d", i);
			job_init(&j, "keyed", "true", 2000007000);
			j.a_key = key;
			if (store_at_submit(st, &j, 0, &id, &isn, &err) == -1)
				_exit(3);
			len = snprintf(line, sizeof(line), "%d %d %lld %d\n",
			    k, i, (long long)id, isn);
			if (write(out[1], line, (size_t)len) != len)
				_exit(4);
		}
		store_close(st);
		_exit(0);
	}
	close(go[0]);
	close(out[1]);
	(void)write(go[1], "gg", 2);
	close(go[1]);
	memset(got, 0, sizeof(got));
	memset(isnew, 0, sizeof(isnew));
	f = fdopen(out[0], "r");
	while (f != NULL && fscanf(f, "%d %d %lld %d", &k, &i,
	    (long long *)&id, &isn) == 4)
		if (k >= 0 && k < 2 && i >= 0 && i < NKEYS) {
			got[k][i] = id;
			isnew[k][i] = isn;
		}
	if (f != NULL)
		fclose(f);
	for (k = 0; k < 2; k++) {
		waitpid(pid[k], &status, 0);
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "keys: submitter %d ran through (%d)", k, status);
	}
	for (i = 0; i < NKEYS; i++) {
		same += got[0][i] > 0 && got[0][i] == got[1][i];
		once += isnew[0][i] + isnew[1][i] == 1;
	}
	is_int(same, NKEYS, "keys: both submitters were given the same job "
	    "for each key");
	is_int(once, NKEYS, "keys: new to exactly one of them");
	if ((st = open_node(url1, "keyC", 0)) != NULL) {
		if (store_at_list(st, "keyed", 1, &l, &n, &err) == -1)
			n = 0;
		is_int(n, NKEYS, "keys: %d jobs in the store", NKEYS);
		store_atjobs_free(l, n);
		store_close(st);
	}
}

/*
 * A store of the version before the one-shot jobs' table (schema 6
 * added it) gets it when opened.
 */
#define AT_SCHEMA	6
static void
test_migrate(void)
{
	struct store_error	 err;
	struct store_atjob	 j;
	struct store		*st;
	int64_t			 id;
	int			 v, isnew;

	if (*url2 == '\0') {
		ok(0, "migrate: no second store");
		return;
	}
	if ((st = open_node(url2, "nodeA", AT_SCHEMA - 1)) == NULL) {
		ok(0, "migrate: open at the version before one-shot jobs");
		return;
	}
	if (store_schema_version(st, &v, &err) == -1)
		v = -1;
	is_int(v, AT_SCHEMA - 1, "migrate: a version %d store",
	    AT_SCHEMA - 1);
	job_init(&j, "old", "true", 2000008000);
	ok(store_at_submit(st, &j, 0, &id, &isnew, &err) == -1,
	    "migrate: it has no one-shot jobs");
	store_close(st);
	if ((st = open_node(url2, "nodeA", 0)) == NULL) {
		ok(0, "migrate: open and migrate");
		return;
	}
	if (store_schema_version(st, &v, &err) == -1)
		v = -1;
	is_int(v, store_schema_current(), "migrate: to version %d",
	    store_schema_current());
	ok(store_at_submit(st, &j, 0, &id, &isnew, &err) == 0 && id == 1 &&
	    isnew, "migrate: the first one-shot job is number 1");
	store_close(st);
	if ((st = open_node(url2, "nodeB", 0)) == NULL) {
		ok(0, "migrate: open again");
		return;
	}
	ok(store_at_submit(st, &j, 0, &id, &isnew, &err) == 0 && id == 1,
	    "migrate: opened again, the job is there");
	store_close(st);
}

int
main(void)
{
	struct store_url su;
	struct store	*a, *b;
	const char	*env;
	char		 cmd[600];

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return (99);
	}
	env = getenv("CLUSTERCRON_TEST_STORE");
	if (env != NULL && *env != '\0') {
		strlcpy(url1, env, sizeof(url1));
		env = getenv("CLUSTERCRON_TEST_STORE2");
		strlcpy(url2, env != NULL ? env : "", sizeof(url2));
		cnf = getenv("CLUSTERCRON_TEST_MYSQL_CNF");
		is_mysql = store_url_parse(url1, &su, NULL) == 0 &&
		    su.su_backend == STORE_MYSQL;
		is_memory = su.su_backend == STORE_MEMORY;
		store_url_free(&su);
		if (is_memory) {
			strlcpy(url2, url1, sizeof(url2));
			strlcat(url2, ".old", sizeof(url2));
		}
	} else {
		snprintf(url1, sizeof(url1), "sqlite:%s/a.db", tmpdir);
		snprintf(url2, sizeof(url2), "%s/old.db", tmpdir);
	}
	diag("store %s", url1);
	a = open_node(url1, "nodeA", 0);
	b = open_node(url1, "nodeB", 0);
	ok(a != NULL && b != NULL, "two nodes open the store");
	if (a == NULL || b == NULL)
		return (tap_done());
	test_submit(a, b);
	test_refused(a);
	test_list(a, b);
	test_cancel(a, b);
	test_attempts(a, b);
	test_lost(a, b);
	test_runner(a, b);
	test_trim(a);
	test_faults(a, b);
	test_short(a);
	store_close(a);
	store_close(b);
	test_race_claims();
	test_race_keys();
	test_migrate();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	(void)system(cmd);
	return (tap_done());
}
