/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * core.c: the daemon's core (clustercron/) driven as its loop drives it,
 * turn by turn, in time this test hands down, on a store of its own (a
 * memory store of the test build: lock/store.h) with the store's fault
 * hook.  The jobs are
 * real: they fork and exec (true, sleep), as only a run recorded in the
 * store proves a fire ran.  Each scenario checks the store's runs for
 * exactly once:
 *
 *  - a fire claimed and run, at its scheduled instant (stored, not
 *    worked back from a spread timer);
 *  - a lost commit: the claim committed, its answer lost and the store
 *    gone: the fire is in doubt, then found ours and run once when the
 *    store is back;
 *  - a claim in doubt that did not commit, which another node won
 *    meanwhile: never run here;
 *  - the fence at the lease's edge: a millisecond before it a fire is
 *    claimed and run, at it nothing is claimed, and the fire kept is
 *    settled by the misfire pass once the lease is renewed;
 *  - the wall clock jumping ahead (the fires of the gap run once),
 *    back (nothing twice) and far (nothing made up);
 *  - a table read again while a fire of it runs (the run is recorded,
 *    the job still counts as running for overlap), and between a fire
 *    coming due and its claim (the fire follows its job by identity;
 *    a job gone is not claimed);
 *  - the misfire pass over many jobs: every job's missed fire claimed
 *    in one batch and noted in one transaction, each once.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "parser.h"
#include "store.h"
#include "../tap.h"

/* The program's settings: this test's. */
struct daemon	 D;

#define T0	1893456000000LL		/* 2030-01-01T00:00:00Z, ms */
#define S0	(T0 / 1000)

static char	 dir[] = "/tmp/cc-core.XXXXXX";
static char	 url[300], logpath[300], runner[PATH_MAX], runsdir[300];
static char	 owner[64];
static struct tick tk;
static int64_t	 fake_wall, fake_mono;
static struct leftjobs left;

/* The test's clocks, read by the core through the tick. */
static void
reader(struct tick *t)
{
	t->tk_wall = fake_wall;
	t->tk_mono = fake_mono;
}

/*
 * One turn of the loop at wall instant wall (ms), the monotonic clock
 * moved as much (or by mono when not 0: a jump of the wall clock);
 * returns what the tick said of the clocks.
 */
static enum tick_jump
turn(int64_t wall, int64_t mono)
{
	enum tick_jump	 j;
	int64_t		 jump;

	fake_mono += mono != 0 ? mono : wall - fake_wall;
	fake_wall = wall;
	j = tick_next(&tk, fake_wall, fake_mono, &jump);
	if (j == TICK_FAR)
		jobs_reschedule_all((time_t)(tk.tk_wall / 1000));
	mtimer_run(&tk);
	if (gate_kicked()) {
		loader_register(0, &tk);
		claim_recover(&tk);
	}
	claim_due(&tk);
	claim_flush(&tk);
	proc_run(&tk);
	record_flush(&tk);
	return (j);
}

/* Let the jobs started end (real time, bounded), and record them. */
static void
settle(void)
{
	struct pollfd	 pfd[256];
	struct proc	*pp[256];
	int64_t		 deadline = clock_mono() + 20000;
	size_t		 n, i, k;
	short		 ev;

	while (proc_count() > 0 && clock_mono() < deadline) {
		proc_run(&tk);
		n = 0;
		proc_pollfds(pfd, &n, 256, pp);
		(void)poll(pfd, n, 50);
		for (i = 0; i < n; i = k) {
			ev = 0;
			for (k = i; k < n && pp[k] == pp[i]; k++)
				ev |= pfd[k].revents;
			if (ev != 0)
				proc_io(pp[i], ev, &tk);
		}
		proc_reap(&tk);
	}
	record_flush(&tk);
}

/* Read a table of owner's into the core, as the loader would. */
static struct table *
load(const char *name, const char *text)
{
	struct crontab	*ct;
	struct table	*tb;

	if (crontab_parse(name, text, strlen(text), 0, &ct) != 0) {
		printf("Bail out! %s does not parse\n", name);
		exit(99);
	}
	tb = table_get(TB_SPOOL, name, owner);
	table_load(tb, ct, (time_t)(fake_wall / 1000), 0, &left);
	loader_register(0, &tk);
	return (tb);
}

/* The identity of the table's job whose command is cmd. */
static const char *
id_of(const struct table *tb, const char *cmd, char buf[CRON_IDLEN + 1])
{
	size_t	 i;

	for (i = 0; i < tb->tb_njobs; i++)
		if (strcmp(job_cmd(&tb->tb_jobs[i]), cmd) == 0)
			return (table_job_id(tb, i, buf));
	printf("Bail out! no job %s\n", cmd);
	exit(99);
}

/*
 * The records of job id for fire (UTC s) in the store: how many, and
 * how many in state (-1: any).
 */
static int
runs(const char *id, time_t fire, int state)
{
	struct store_run	*r;
	struct store_error	 se;
	size_t			 i, n;
	int			 k = 0;

	if (store_runs_list(D.d_st, id, 0, &r, &n, &se) == -1) {
		printf("Bail out! runs: %s\n", se.se_msg);
		exit(99);
	}
	for (i = 0; i < n; i++)
		if (r[i].r_fire == fire && (state == -1 ||
		    (int)r[i].r_state == state))
			k++;
	store_runs_free(r, n);
	return (k);
}

/* All the records of job id. */
static int
runs_total(const char *id)
{
	struct store_run	*r;
	struct store_error	 se;
	size_t			 n;

	if (store_runs_list(D.d_st, id, 0, &r, &n, &se) == -1) {
		printf("Bail out! runs: %s\n", se.se_msg);
		exit(99);
	}
	store_runs_free(r, n);
	return ((int)n);
}

/* Whether the log has a line holding s. */
static int
logged(const char *s)
{
	char	*text;
	size_t	 len;
	int	 found;

	if (file_read(logpath, 1 << 24, &text, &len) == -1)
		return (0);
	found = strstr(text, s) != NULL;
	free(text);
	return (found);
}

/*
 * The store takes calls again at once: after a lost connection it
 * would wait out its back-off before it reconnects, in real time.
 */
static void
store_back(void)
{
	struct store_error	 se;
	int64_t			 ms;

	store_fault_reconnect(D.d_st);
	if (store_now(D.d_st, &ms, &se) == -1) {
		printf("Bail out! the store is not back: %s\n", se.se_msg);
		exit(99);
	}
}

static size_t
count(unsigned int mask)
{
	struct fire	**v;
	size_t		 n;

	n = fire_list(mask, &v);
	free(v);
	return (n);
}

/* How many records of job id are in state. */
static int
runs_in(const char *id, int state)
{
	struct store_run	*r;
	struct store_error	 se;
	size_t			 i, n;
	int			 k = 0;

	if (store_runs_list(D.d_st, id, 0, &r, &n, &se) == -1) {
		printf("Bail out! runs: %s\n", se.se_msg);
		exit(99);
	}
	for (i = 0; i < n; i++)
		k += (int)r[i].r_state == state;
	store_runs_free(r, n);
	return (k);
}

static void
setup(void)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct passwd		*pw;

	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(99);
	}
	/* A memory store (test builds): no server, no file. */
	snprintf(url, sizeof(url), "memory:core-%ld", (long)getpid());
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	if ((pw = getpwuid(geteuid())) == NULL)
		exit(99);
	strlcpy(owner, pw->pw_name, sizeof(owner));
	memset(&D, 0, sizeof(D));
	D.d_conf.c_store = url;
	D.d_conf.c_node = (char *)"n1";
	D.d_conf.c_heartbeat_ms = 1000;
	D.d_conf.c_node_timeout_ms = 5000;
	D.d_conf.c_output_max = 4096;
	/* clustercron.conf's default: a start late by this much is missed. */
	D.d_conf.c_start_grace_ms = 60000;
	D.d_conf.c_sendmail = (char *)"";
	/* The jobs run under the runner of the build tree. */
	snprintf(runner, sizeof(runner), "%s/runner/runner",
	    getenv("top_builddir") != NULL ? getenv("top_builddir") : ".");
	D.d_conf.c_runner = runner;
	snprintf(runsdir, sizeof(runsdir), "%s/runs", dir);
	if (mkdir(runsdir, 0700) == -1)
		exit(99);
	D.d_conf.c_runsdir = runsdir;
	D.d_loglevel = LL_ALL;
	D.d_debug = 1;
	D.d_root = geteuid() == 0;
	D.d_user = owner;
	D.d_uid = geteuid();
	if (log_init_file("core", logpath) == -1)
		exit(99);
	log_setverbose(1);
	store_config_fill(&sc);
	if (store_open(&sc, &D.d_st, &se) == -1) {
		printf("Bail out! %s: %s\n", url, se.se_msg);
		exit(99);
	}
	gate_store_opened(store_backend(D.d_st));
	fire_init();
	fake_wall = T0;
	fake_mono = clock_mono();
	tick_init(&tk, fake_wall, fake_mono, reader);
}

static void
test_run(void)
{
	struct table	*tb;
	uint32_t	 delay;
	char		 id[CRON_IDLEN + 1];
	int64_t		 t;

	tb = load("basic", "CLUSTERCRON_SECONDS=yes\n* * * * * * true\n");
	id_of(tb, "true", id);
	turn(T0 + 1000, 0);
	ok(proc_count() == 1 && fire_inflight(id) == 1,
	    "a fire due is claimed and started");
	settle();
	is_int(runs(id, S0 + 1, RUN_FINISHED), 1, "its run is recorded");
	ok(logged("(CRON) FIRE (n1 2030-01-01T00:00:01Z due -> claimed on "
	    "won; ") && logged("running -> finished on ended"),
	    "every step of its life is in the debug log");
	table_drop(tb, &left);

	/* A spread timer is due later; the fire keeps its instant. */
	tb = load("spread", "CLUSTERCRON_SPREAD=3600\n* * * * * /bin/true\n");
	id_of(tb, "/bin/true", id);
	delay = job_delay(job_find(id, NULL), id);
	t = (fake_wall / 60000 + 1) * 60000;
	turn(t, 0);
	settle();
	ok(delay == 0 || runs(id, t / 1000, -1) == 0,
	    "a spread fire waits its delay (%u s)", delay);
	turn(t + (int64_t)delay * 1000, 0);
	settle();
	is_int(runs(id, t / 1000, RUN_FINISHED), 1, "and runs as the fire of "
	    "its scheduled instant");
	table_drop(tb, &left);
}

static void
test_lost_commit(void)
{
	struct table	*tb;
	char		 id[CRON_IDLEN + 1];
	int64_t		 t = fake_wall / 1000 * 1000;

	tb = load("doubt", "CLUSTERCRON_SECONDS=yes\n* * * * * * true lost\n");
	id_of(tb, "true lost", id);
	turn(t + 1000, 0);
	settle();
	is_int(runs(id, t / 1000 + 1, RUN_FINISHED), 1, "a first fire runs");

	/* The claim commits, its answer is lost, the store is gone. */
	store_fault_set("claim.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	turn(t + 2000, 0);
	ok(store_fault_hits() == 2, "the commit's answer lost, the store "
	    "unreachable");
	ok(count(FSM(FS_DOUBT)) == 1 && proc_count() == 0,
	    "the fire is in doubt and not run");
	ok(!gate_store_up() && gate_owed(), "the store down, the misfire "
	    "pass owed");
	settle();

	/* The store answers: the doubt is settled first, then the rest. */
	store_back();
	turn(t + 3000, 0);
	settle();
	ok(count(FSM(FS_DOUBT)) == 0, "the doubt settled");
	is_int(runs(id, t / 1000 + 2, RUN_FINISHED), 1,
	    "found ours, run once");
	is_int(runs(id, t / 1000 + 3, RUN_FINISHED), 1,
	    "and the next fire as usual");
	ok(logged("catching up; "), "the settled fire logged as a catch-up");
	table_drop(tb, &left);
}

static void
test_doubt_other(void)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct store		*n2;
	struct table		*tb;
	char			 id[CRON_IDLEN + 1];
	int64_t			 t = fake_wall / 1000 * 1000;
	int			 won;

	tb = load("other", "CLUSTERCRON_SECONDS=yes\n* * * * * * true other\n");
	id_of(tb, "true other", id);
	/* The claim does not commit, and the store is gone. */
	store_fault_set("claim.commit.before", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	turn(t + 1000, 0);
	ok(count(FSM(FS_DOUBT)) == 1, "a claim without an answer: in doubt");
	/* Meanwhile another node claims that fire. */
	store_config_fill(&sc);
	sc.sc_node = "n2";
	if (store_open(&sc, &n2, &se) == -1 ||
	    store_claim(n2, id, t / 1000 + 1, &won, &se) == -1) {
		printf("Bail out! n2: %s\n", se.se_msg);
		exit(99);
	}
	ok(won, "another node wins the fire meanwhile");
	store_close(n2);
	store_back();
	turn(t + 2000, 0);
	settle();
	ok(count(FSM(FS_DOUBT)) == 0, "the doubt settled");
	is_int(runs(id, t / 1000 + 1, -1), 0, "another node's: not run here");
	is_int(runs(id, t / 1000 + 2, RUN_FINISHED), 1, "the next fire runs");
	table_drop(tb, &left);
}

static void
test_fence(void)
{
	struct store_error se;
	struct table	*tb;
	char		 id[CRON_IDLEN + 1];
	int64_t		 t = fake_wall / 1000 * 1000 + 1000, sent, edge;
	time_t		 s = (time_t)(t / 1000);
	int		 won;

	/* Leases are MariaDB's; the gate is asked as on a cluster. */
	D.d_mysql = 1;
	tb = load("fence", "CLUSTERCRON_SECONDS=yes\n* * * * * * true fence\n");
	id_of(tb, "true fence", id);
	sent = fake_mono + 1;
	gate_beat(sent, sent);
	edge = sent + D.d_conf.c_node_timeout_ms - D.d_conf.c_heartbeat_ms;
	/*
	 * Claims are made only while the lease left lets the node start
	 * them (claim.c's pace: half of what is left past a margin of
	 * 500 ms, at 50 starts a second at first): 600 ms before its end.
	 */
	turn(t, edge - 600 - fake_mono);
	settle();
	is_int(runs(id, s, RUN_FINISHED), 1,
	    "600 ms before the lease's end: claimed and run");
	/* At the edge; the heartbeat tried at once fails. */
	store_fault_set("beat.before", 1, STORE_FAULT_FAIL);
	turn(t + 1000, 600);
	ok(store_fault_hits() == 1, "a heartbeat tried at once, and failed");
	ok(count(FSM(FS_DROPPED)) == 1 && proc_count() == 0,
	    "at the lease's end: nothing claimed, the fire kept");
	ok(logged("(CRON) FENCED (no heartbeat for 4.0 s; starting no "
	    "cluster job)"), "the fence logged");
	if (store_claim_check(D.d_st, id, s + 1, &won, &se) == -1)
		exit(99);
	ok(!won, "no claim in the store");
	/*
	 * Renewed a second later: the kept fire is settled; still as
	 * recent as the misfire pass leaves to the nodes on time, and
	 * claimed by nobody, it runs, late, rather than being noted
	 * missed (tests/daemon/dropped.sh has older ones noted).
	 */
	gate_beat(fake_mono + 500, fake_mono + 500);
	turn(t + 2000, 500);
	settle();
	ok(count(FSM(FS_DROPPED)) == 0 && logged("(CRON) FENCED (lifted)"),
	    "renewed: the fence lifted, the fire settled");
	is_int(runs(id, s + 1, RUN_FINISHED), 1,
	    "run by no one on time, still recent: claimed and run late");
	is_int(runs(id, s + 1, -1), 1, "and run once");
	is_int(runs(id, s + 2, RUN_FINISHED), 1, "the next fire runs");
	D.d_mysql = 0;
	table_drop(tb, &left);
}

static void
test_jump(void)
{
	struct table	*tb;
	struct job	*j;
	char		 id[CRON_IDLEN + 1];
	int64_t		 t = fake_wall / 1000 * 1000;
	time_t		 s = (time_t)(t / 1000);
	int		 n;

	tb = load("jump", "CLUSTERCRON_SECONDS=yes\n* * * * * * true jump\n");
	id_of(tb, "true jump", id);
	turn(t + 1000, 0);
	settle();
	is_int(runs(id, s + 1, RUN_FINISHED), 1, "a fire before the jump");
	/* Ten minutes ahead on the wall clock, a second on the other. */
	n = runs_total(id);
	is_int(turn(t + 601000, 1000), TICK_AHEAD, "a jump ahead is seen");
	settle();
	is_int(runs_total(id) - n, 1, "the gap's fires run once, not one per "
	    "second");
	is_int(runs(id, s + 2, RUN_FINISHED), 1, "as the first of the gap");
	j = job_find(id, NULL);
	is_int((long long)j->j_fire, (long long)s + 602,
	    "then from the present");
	/* Back thirty seconds: nothing runs twice. */
	n = runs_total(id);
	is_int(turn(t + 571000, 1000), TICK_BACK, "a jump back is seen");
	settle();
	is_int(runs_total(id) - n, 0, "nothing runs before the old present "
	    "comes again");
	turn(t + 602000, 0);
	settle();
	is_int(runs(id, s + 602, RUN_FINISHED), 1, "then on as before");
	/* Four hours ahead: rescheduled from the present, no burst. */
	n = runs_total(id);
	is_int(turn(t + 602000 + 4 * 3600000LL, 1000), TICK_FAR,
	    "a far jump is seen");
	settle();
	is_int(runs_total(id) - n, 0, "nothing of the far gap runs");
	turn(t + 603000 + 4 * 3600000LL, 0);
	settle();
	is_int(runs_total(id) - n, 1, "the next second runs");
	table_drop(tb, &left);
}

static void
test_reload(void)
{
	struct table	*tb;
	struct jobref	 ref;
	struct job	*j;
	char		 a[CRON_IDLEN + 1], b[CRON_IDLEN + 1];
	int64_t		 t = fake_wall / 1000 * 1000;
	time_t		 s = (time_t)(t / 1000);
	uint32_t	 gen;
	int		 won;
	struct store_error se;
	const char	*one = "CLUSTERCRON_SECONDS=yes\n"
	    "CLUSTERCRON_OVERLAP=forbid\n* * * * * * sleep 1\n";
	const char	*two = "CLUSTERCRON_SECONDS=yes\n"
	    "* * * * * * true b1\n* * * * * * true b2\n* * * * * * true b3\n"
	    "CLUSTERCRON_OVERLAP=forbid\n* * * * * * sleep 1\n";
	const char	*three = "CLUSTERCRON_SECONDS=yes\n"
	    "* * * * * * true b1\n* * * * * * true b2\n* * * * * * true b3\n"
	    "* * * * * * true b4\n";

	tb = load("reload", one);
	id_of(tb, "sleep 1", a);
	turn(t + 1000, 0);
	ok(fire_inflight(a) == 1, "a fire of the job runs");
	gen = tb->tb_gen;
	load("reload", two);
	ok(tb->tb_gen != gen && tb->tb_njobs == 4, "the table read again, "
	    "its jobs in a new array");
	turn(t + 2000, 0);
	ok(fire_inflight(a) == 1 && count(FSM(FS_RUNNING) |
	    FSM(FS_STARTING)) == 4, "the run goes on, the job still counts "
	    "as running: its next fire is not started");
	settle();
	is_int(runs(a, s + 1, RUN_FINISHED), 1, "the run begun before the "
	    "reload is recorded to its end");
	is_int(runs(a, s + 2, RUN_SKIPPED), 1, "the fire while it ran: "
	    "skipped (overlap forbidden)");
	is_int(runs(id_of(tb, "true b2", b), s + 2, RUN_FINISHED), 1,
	    "the new jobs run");

	/* Read again between a fire coming due and its claim. */
	turn(t + 3000, 0);
	settle();
	fake_mono += 1000;
	fake_wall = t + 4000;
	tick_next(&tk, fake_wall, fake_mono, &(int64_t){ 0 });
	claim_due(&tk);
	is_int((long long)count(FSM(FS_DUE)), 4, "four fires due");
	load("reload", one);
	claim_flush(&tk);
	record_flush(&tk);
	settle();
	is_int(runs(a, s + 4, RUN_FINISHED), 1, "the job that survived the "
	    "reload: found by identity, claimed and run");
	if (store_claim_check(D.d_st, b, s + 4, &won, &se) == -1)
		exit(99);
	ok(!won && runs(b, s + 4, -1) == 0, "a job gone meanwhile: not "
	    "claimed, not run");
	ok(logged("due -> gone on job gone"), "its fire went with it");

	/*
	 * The same, a job gone and others in the array where it was: its
	 * fire must not take another job for its own.
	 */
	load("reload", two);
	turn(t + 5000, 0);
	settle();
	fake_mono += 1000;
	fake_wall = t + 6000;
	tick_next(&tk, fake_wall, fake_mono, &(int64_t){ 0 });
	claim_due(&tk);
	is_int((long long)count(FSM(FS_DUE)), 4, "four fires due again");
	load("reload", three);
	claim_flush(&tk);
	record_flush(&tk);
	settle();
	if (store_claim_check(D.d_st, a, s + 6, &won, &se) == -1)
		exit(99);
	ok(!won && runs(a, s + 6, -1) == 0, "the job gone: its fire not "
	    "claimed, nor run as another job");
	is_int(runs(b, s + 6, RUN_FINISHED), 1, "the jobs that stayed run");
	is_int(runs(id_of(tb, "true b4", b), s + 6, -1), 0, "the new one "
	    "waits for its first fire");
	load("reload", one);
	j = job_find(a, &ref);
	ok(j != NULL && ref.jr_gen == tb->tb_gen && job_get(&ref, a) == j,
	    "a handle names the job of this generation");
	table_drop(tb, &left);
	ok(job_get(&ref, a) == NULL, "and none once the table is gone");
}

/*
 * The misfire pass over many jobs (issue 16): a node that slept through
 * the fires of 40 jobs claims their latest missed fires in one batch
 * and notes them in one transaction.  A single claim, or a second
 * commit of notes, would meet the faults armed here.
 */
#define NMISS	40
static void
test_misfire_batch(void)
{
	struct table	*tb;
	char		 text[NMISS * 32 + 64], cmd[32], buf[64];
	char		 ids[NMISS][CRON_IDLEN + 1];
	size_t		 i, len;
	int64_t		 t = (fake_wall / 60000 + 1) * 60000;
	int		 once = 0;

	len = (size_t)snprintf(text, sizeof(text), "CLUSTERCRON_SECONDS=yes\n");
	for (i = 0; i < NMISS; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
		    "*/30 * * * * * true m%zu\n", i);
	tb = load("misfire", text);
	for (i = 0; i < NMISS; i++) {
		snprintf(cmd, sizeof(cmd), "true m%zu", i);
		id_of(tb, cmd, ids[i]);
	}
	turn(t, 0);
	settle();
	for (i = 0; i < NMISS; i++)
		once += runs(ids[i], t / 1000, RUN_FINISHED) == 1;
	is_int(once, NMISS, "%d jobs run their fire", NMISS);

	/*
	 * Fires slept through, the first more than a minute late, with no
	 * jump of the clock: the pass is owed, and noted the latest.
	 */
	store_fault_set("claim.before", 1, STORE_FAULT_FAIL);
	store_fault_add("note.commit.before", 2, STORE_FAULT_FAIL);
	turn(t + 150000, 0);
	turn(t + 150000, 0);
	settle();
	is_int(store_fault_hits(), 0, "no single claim, one commit of notes");
	for (i = once = 0; i < NMISS; i++)
		once += runs(ids[i], t / 1000 + 120, RUN_MISSED) == 1 &&
		    runs_in(ids[i], RUN_MISSED) == 1;
	is_int(once, NMISS, "each job's latest missed fire noted, once");
	snprintf(buf, sizeof(buf), "RECOVER (%d missed fires: 0 caught up, "
	    "%d noted", NMISS, NMISS);
	ok(logged(buf), "the pass says what it did");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	table_drop(tb, &left);
}

int
main(void)
{
	char	 cmd[400];

	setup();
	test_run();
	test_lost_commit();
	test_doubt_other();
	test_fence();
	test_jump();
	test_reload();
	test_misfire_batch();
	fire_free_all();
	record_free();
	jobtab_free();
	node_free();
	mtimer_free();
	store_close(D.d_st);
	free(left.lj_v);
	if (getenv("KEEP_TMP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			diag("%s left behind", dir);
	} else
		diag("kept %s", dir);
	return (tap_done());
}
