/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store.c: the whole store interface, on a temporary SQLite file or,
 * when CLUSTERCRON_TEST_STORE names a MariaDB URL (tests/integration/
 * store-mysql.sh sets it, with CLUSTERCRON_TEST_MYSQL_CNF for the
 * option file and CLUSTERCRON_TEST_STORE2 for an empty second
 * database), on a private MariaDB server.  Two handles with different
 * node names stand for two nodes.  Every fault point is walked.
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "tap.h"

static char		 tmpdir[] = "/tmp/ccstore.XXXXXX";
static char		 url1[512], url2[512], url3[512], url4[512];
static const char	*cnf;
static int		 is_mysql, is_memory;

static struct store *open_node(const char *, const char *, int);
static void	 mkid(char *, size_t, const char *, int);
static void	 test_open(void);
static void	 test_optfiles(void);
static void	 optfile(const char *, const char *, mode_t);
static void	 test_opthosts(void);
static void	 hostcase(const char *, const char *, const char *,
		    const char *, const char *);
static void	 optcase(const char *, const char *, const char *,
		    const char *);
static void	 test_url(void);
static void	 test_jobs(struct store *);
static void	 test_claims(struct store *, struct store *);
static void	 test_inflight(struct store *, struct store *);
static void	 test_sweep(struct store *, struct store *);
static void	 test_batch(struct store *, struct store *);
static void	 test_runs(struct store *, struct store *);
static void	 test_trim_claims(struct store *);
static void	 test_trim_limits(struct store *);
static void	 trim_over(void *, const char *, size_t, uint64_t);
static size_t	 trim_runs(struct store *, const char *, time_t *, size_t);
static int	 trim_round(struct store *, const struct store_trim *);
static void	 test_node_runs(struct store *, struct store *);
static void	 test_failed(struct store *, struct store *);
static void	 test_nodes(struct store *, struct store *, struct store *);
static void	 test_lost(struct store *, struct store *, struct store *);
static void	 test_unrun(struct store *);
static void	 test_tables(struct store *, struct store *);
static void	 test_holds(struct store *);
static void	 test_fill(void);
static void	 test_jobs_lock(struct store *, struct store_job *);
static void	 test_faults(struct store *, struct store *);
static void	 test_run_batches(struct store *, struct store *);
static int	 batch_rows(struct store *, const char *, time_t,
		    const char *);
static void	 test_batch_faults(struct store *, struct store *);
static int64_t	 silent_run(const char *, time_t);
static int	 lost_count(struct store *, int64_t, int *,
		    struct store_error *);
static int	 claim_again(struct store *, const char *, time_t, int *,
		    struct store_error *);
static int	 batch_again(struct store *, const char *const *, size_t,
		    time_t, size_t, unsigned char *, size_t *,
		    struct store_error *);
static int	 test_moved_on(struct store *, struct store *, const char *,
		    const char *const *, int);
static void	 test_schema(void);
static void	 test_migrate(const char *, int);
static void	 test_short_rows(struct store *, struct store *);
static void	 test_fault_spec(struct store *);
static void	 test_memory(void);
static void	 test_memory_clock(void);

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

static void
mkid(char *buf, size_t len, const char *prefix, int i)
{
	snprintf(buf, len, "%s%0*d", prefix, (int)(32 - strlen(prefix)), i);
}

static void
test_open(void)
{
	struct store_config	 cf;
	struct store_error	 err;
	struct store		*st = (struct store *)&cf;
	char			 path[600];
	int			 fd;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = "postgres://x/y";
	ok(store_open(&cf, &st, &err) == -1 && st == NULL &&
	    err.se_class == STORE_FATAL, "unknown scheme refused: %s",
	    err.se_msg);
	cf.sc_url = "mysql://bob:secret@host/db";
	st = (struct store *)&cf;
	ok(store_open(&cf, &st, &err) == -1 && st == NULL &&
	    strstr(err.se_msg, "secret") == NULL &&
	    strstr(err.se_msg, "option file") != NULL,
	    "credentials in the URL refused without echoing them: %s",
	    err.se_msg);
	store_close(NULL);
	ok(1, "store_close(NULL) is a no-op");

	/* An option file with a password, readable by others. */
	snprintf(path, sizeof(path), "%s/loose.cnf", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != -1) {
		(void)write(fd, "[client]\nuser=x\npassword = hunter2\n", 35);
		fchmod(fd, 0644);
		close(fd);
	}
	cf.sc_url = "mysql:///db?socket=/nonexistent/sock";
	cf.sc_mysql_file = path;
	st = (struct store *)&cf;
	ok(store_open(&cf, &st, &err) == -1 && st == NULL &&
	    strstr(err.se_msg, path) != NULL &&
	    strstr(err.se_msg, "hunter2") == NULL &&
	    err.se_class == STORE_FATAL,
	    "loose option file refused, naming it: %s", err.se_msg);
	chmod(path, 0600);
	ok(store_open(&cf, &st, &err) == -1 && st == NULL &&
	    strstr(err.se_msg, "chmod") == NULL && err.se_lost &&
	    err.se_class == STORE_TRANSIENT,
	    "mode 0600 accepted; no server is a lost connection: %s",
	    err.se_msg);
}

/* Write an option file (or any file) of that text and mode. */
static void
optfile(const char *path, const char *text, mode_t mode)
{
	int	 fd;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) == -1 || close(fd) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
}

/*
 * Open a store on no server with option file path (NULL: the default
 * files) and group: refused with a message holding each of want1 and
 * want2 (NULL: accepted, the connection then failing as lost).
 */
static void
optcase(const char *what, const char *path, const char *want1,
    const char *want2)
{
	struct store_config	 cf;
	struct store_error	 err;
	struct store		*st;
	int			 r;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = "mysql:///db?socket=/nonexistent/sock";
	cf.sc_mysql_file = path;
	cf.sc_mysql_group = "clustercron";
	r = store_open(&cf, &st, &err);
	if (want1 == NULL)
		ok(r == -1 && err.se_lost && strstr(err.se_msg,
		    "option file") == NULL, "%s: %s", what, err.se_msg);
	else
		ok(r == -1 && err.se_class == STORE_FATAL &&
		    strstr(err.se_msg, want1) != NULL &&
		    (want2 == NULL || strstr(err.se_msg, want2) != NULL) &&
		    strstr(err.se_msg, "hunter2") == NULL, "%s: %s", what,
		    err.se_msg);
}

/*
 * Every option file the client library would read: owner, mode,
 * passwords under any key and group it reads, !include and
 * !includedir, and the default files when none is named.
 */
static void
test_optfiles(void)
{
	char	 dir[100], main[200], inc[300], sub[200], sub2[200];
	char	 buf[1200], want[600];

	snprintf(dir, sizeof(dir), "%s/opt", tmpdir);
	snprintf(main, sizeof(main), "%s/main.cnf", dir);
	snprintf(inc, sizeof(inc), "%s/inc.cnf", dir);
	snprintf(sub, sizeof(sub), "%s/conf.d", dir);
	snprintf(sub2, sizeof(sub2), "%s/conf.d/50-client.cnf", dir);
	if (mkdir(dir, 0755) == -1 || mkdir(sub, 0755) == -1) {
		printf("Bail out! %s: %s\n", dir, strerror(errno));
		exit(99);
	}

	optfile(main, "[client]\nuser = x\nsocket = /x\n", 0644);
	optcase("a readable file without a password", main, NULL, NULL);
	chmod(main, 0664);
	snprintf(want, sizeof(want), "option file %s: writable by group or "
	    "others (mode 0664)", main);
	optcase("a group-writable file, even without a password", main, want,
	    NULL);
	chmod(main, 0646);
	optcase("an others-writable file", main, "(mode 0646)", NULL);
	if (geteuid() == 0) {
		chmod(main, 0600);
		if (chown(main, 1, 1) == -1)
			diag("chown: %s", strerror(errno));
		snprintf(want, sizeof(want), "option file %s: owned by uid 1, "
		    "neither root nor the daemon's user", main);
		optcase("a file another user owns", main, want, NULL);
		if (chown(main, 0, 0) == -1)
			diag("chown: %s", strerror(errno));
	} else
		tap_skip("foreign owner needs root to chown");
	optcase("a missing file", inc, inc, strerror(ENOENT));

	/* The keys that carry a password, in the groups read. */
	optfile(main, "[client]\npassword = hunter2\n", 0640);
	snprintf(want, sizeof(want), "option file %s: holds a password but "
	    "is readable by group or others (mode 0640); chmod 600 it", main);
	optcase("password, readable by the group", main, want, NULL);
	optfile(main, "[client-server]\n  passwd=hunter2\n", 0644);
	optcase("passwd in [client-server]", main, "holds a password", NULL);
	optfile(main, "[clustercron]\nssl_passphrase = hunter2\n", 0644);
	optcase("ssl_passphrase in mysql-group", main, "holds a password",
	    NULL);
	optfile(main, "[client-mariadb]\ntls-passphrase\n", 0644);
	optcase("a bare tls-passphrase", main, "holds a password", NULL);
	optfile(main, "[client]\nssl-key = /etc/x.key\nssl-cert = /c\n"
	    "[mysqld]\npassword = hunter2\n# password = x\n", 0644);
	optcase("a key's path and another program's password are no "
	    "secret of ours", main, NULL, NULL);
	optfile(main, "[client]\npassword = hunter2\n", 0600);
	optcase("a password, mode 0600", main, NULL, NULL);

	/* !include: the included file is checked as the one that names it. */
	snprintf(buf, sizeof(buf), "[client]\nuser = x\n!include %s\n", inc);
	optfile(main, buf, 0644);
	optfile(inc, "[client]\npassword = hunter2\n", 0644);
	snprintf(want, sizeof(want), "option file %s (included from %s): "
	    "holds a password", inc, main);
	optcase("!include of a readable file with a password", main, want,
	    NULL);
	chmod(inc, 0600);
	optcase("... made private", main, NULL, NULL);
	chmod(inc, 0620);
	snprintf(want, sizeof(want), "option file %s (included from %s): "
	    "writable by group or others (mode 0620)", inc, main);
	optcase("... writable by the group", main, want, NULL);
	unlink(inc);
	optcase("... missing, as the library skips it", main, NULL, NULL);
	snprintf(buf, sizeof(buf), "[client]\n!include %s\n", main);
	optfile(main, buf, 0644);
	optcase("a file that includes itself", main, "nest more than 64",
	    NULL);

	/* !includedir: the directory and each .cnf file in it. */
	snprintf(buf, sizeof(buf), "[client]\nuser = x\n!includedir %s\n",
	    sub);
	optfile(main, buf, 0644);
	optfile(sub2, "[client]\nsocket = /x\n", 0644);
	snprintf(inc, sizeof(inc), "%s/notes.txt", sub);
	optfile(inc, "[client]\npassword = hunter2\n", 0644);
	optcase("!includedir of harmless .cnf files", main, NULL, NULL);
	snprintf(inc, sizeof(inc), "%s/my.cnf", sub);
	optfile(inc, "[client]\npassword = hunter2\n", 0644);
	snprintf(want, sizeof(want), "option file %s (included from %s): "
	    "holds a password", inc, main);
	optcase("!includedir: its my.cnf with a password", main, want, NULL);
	unlink(inc);
	chmod(sub2, 0666);
	optcase("!includedir: a writable .cnf file there", main, sub2,
	    "writable by group or others");
	chmod(sub2, 0644);
	chmod(sub, 0777);
	snprintf(want, sizeof(want), "%s: writable by group or others (mode "
	    "0777)", sub);
	optcase("!includedir: a directory others may write", main, want,
	    NULL);
	chmod(sub, 0755);
	chmod(dir, 0777);
	optcase("a directory on the way that others may write", main,
	    "(mode 0777), who could put another file in place of", NULL);
	chmod(dir, 0755);

	/* No file named: the default ones, ~/.my.cnf among them. */
	snprintf(inc, sizeof(inc), "%s/.my.cnf", dir);
	optfile(inc, "[client]\npassword = hunter2\n", 0644);
	if (setenv("HOME", dir, 1) == -1)
		diag("setenv: %s", strerror(errno));
	snprintf(want, sizeof(want), "option file %s: holds a password", inc);
	optcase("no file named: ~/.my.cnf is read, so checked", NULL, want,
	    NULL);
	chmod(inc, 0600);
	optcase("... made private", NULL, NULL, NULL);
	unlink(inc);
	snprintf(inc, sizeof(inc), "%s/my.cnf", dir);
	optfile(inc, "[client]\npassword = hunter2\n", 0644);
	if (setenv("MYSQL_HOME", dir, 1) == -1)
		diag("setenv: %s", strerror(errno));
	optcase("no file named: $MYSQL_HOME/my.cnf likewise", NULL, inc,
	    "holds a password");
	unsetenv("MYSQL_HOME");
	unlink(inc);
}

/*
 * Open a store at url (on servers that refuse at once) with option file
 * path, group clustercron: refused with a fatal message holding want
 * (NULL: failing as lost, its message holding lost, or naming no
 * server of several when lost is NULL).
 */
static void
hostcase(const char *what, const char *url, const char *path,
    const char *want, const char *lost)
{
	struct store_config	 cf;
	struct store_error	 err;
	struct store		*st;
	int			 r;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = url;
	cf.sc_mysql_file = path;
	cf.sc_mysql_group = "clustercron";
	r = store_open(&cf, &st, &err);
	if (want != NULL)
		ok(r == -1 && err.se_class == STORE_FATAL &&
		    strstr(err.se_msg, want) != NULL, "%s: %s", what,
		    err.se_msg);
	else if (lost != NULL)
		ok(r == -1 && err.se_lost && strstr(err.se_msg, lost) != NULL,
		    "%s: %s", what, err.se_msg);
	else
		ok(r == -1 && err.se_lost && strstr(err.se_msg,
		    " on 127.0.0.1:") == NULL, "%s: %s", what, err.se_msg);
}

/*
 * The servers of a Galera cluster listed in the option file rather
 * than the URL ("host" with commas, in a group the library reads): the
 * store tries them in turn and names the one it failed on; the last
 * setting read wins; a URL's own servers or socket come first; a
 * malformed list is refused naming the file.
 */
static void
test_opthosts(void)
{
	char	 path[200], want[400];

	snprintf(path, sizeof(path), "%s/opt/hosts.cnf", tmpdir);
	optfile(path, "[clustercron]\nhost = 127.0.0.1:1,127.0.0.1:2\n",
	    0644);
	hostcase("option file hosts: several servers tried", "mysql:///db",
	    path, NULL, " on 127.0.0.1:");
	optfile(path, "[client]\nhost = 127.0.0.1:1,127.0.0.1:2\n"
	    "[clustercron]\nhost = \"127.0.0.1:3,127.0.0.1:4\"\n", 0644);
	hostcase("option file hosts: the last setting read", "mysql:///db",
	    path, NULL, "127.0.0.1:4");
	optfile(path, "[clustercron]\nhost = 127.0.0.1:1,127.0.0.1:2\n",
	    0644);
	hostcase("option file hosts: the URL's server first",
	    "mysql://127.0.0.1:5/db", path, NULL, NULL);
	optfile(path, "[clustercron]\nhost = db1,,db2\n", 0644);
	snprintf(want, sizeof(want), "option file %s: host \"db1,,db2\": "
	    "expected HOST[:PORT],HOST[:PORT]...", path);
	hostcase("option file hosts: an empty one refused", "mysql:///db",
	    path, want, NULL);
	optfile(path, "[clustercron]\nhost = db1:99999,db2\n", 0644);
	hostcase("option file hosts: a bad port refused", "mysql:///db",
	    path, "expected HOST[:PORT]", NULL);
	unlink(path);
}

static void
test_jobs(struct store *a)
{
	struct store_job	 j[3], *list, *one;
	struct store_error	 err;
	size_t			 n;
	char			 id[3][40];
	int			 i, won;

	memset(j, 0, sizeof(j));
	for (i = 0; i < 3; i++) {
		mkid(id[i], sizeof(id[i]), "a", i);
		j[i].j_id = id[i];
		j[i].j_owner = i == 2 ? "bob" : "alice";
		j[i].j_sched = "*/5 * * * *";
		j[i].j_zone = i == 1 ? "Europe/Paris" : "";
		j[i].j_cmd = "echo hi";
		j[i].j_grace = 30;
	}
	j[1].j_name = "nightly-backup";
	j[2].j_name = "";
	ok(store_jobs_register(a, j, 3, &err) == 0, "register 3 jobs");
	ok(store_jobs_list(a, NULL, &list, &n, &err) == 0 && n == 3,
	    "list all jobs");
	if (n == 3) {
		is_str(list[0].j_owner, "alice", "sorted by owner");
		is_str(list[1].j_zone, "Europe/Paris", "zone kept");
		is_int(list[2].j_grace, 30, "grace kept");
		is_int(list[0].j_last_fire, 0, "never claimed");
		is_str(list[0].j_claimed_by, "", "claimed by nobody");
		is_str(list[0].j_name, "", "no name: \"\"");
		is_str(list[1].j_name, "nightly-backup", "a name");
		is_str(list[2].j_name, "", "an empty name");
	}
	store_jobs_free(list, n);
	{
		char	 longname[400];

		memset(longname, 'n', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		j[2].j_name = longname;
		ok(store_jobs_register(a, &j[2], 1, &err) == 0 &&
		    store_job_get(a, id[2], &one, &err) == 0 && one != NULL &&
		    strlen(one->j_name) == STORE_NAMEMAX,
		    "a long name is cut to %d bytes", STORE_NAMEMAX);
		store_jobs_free(one, 1);
		j[2].j_name = NULL;
	}
	ok(store_jobs_list(a, "bob", &list, &n, &err) == 0 && n == 1,
	    "list one owner's jobs");
	store_jobs_free(list, n);

	ok(store_claim(a, id[0], 1000, &won, &err) == 0 && won,
	    "claim before re-registering");
	j[0].j_cmd = "echo changed";
	j[0].j_overlap = 1;
	ok(store_jobs_register(a, j, 3, &err) == 0, "register again");
	ok(store_job_get(a, id[0], &one, &err) == 0 && one != NULL,
	    "get one job");
	if (one != NULL) {
		is_str(one->j_cmd, "echo changed", "description updated");
		is_int(one->j_overlap, 1, "policy updated");
		is_int(one->j_last_fire, 1000, "claim state kept");
		is_str(one->j_claimed_by, "nodeA", "claimant kept");
	}
	store_jobs_free(one, 1);
	/* Texts longer than their columns, and not UTF-8. */
	{
		char	 longcmd[3001];
		size_t	 k;

		for (k = 0; k + 2 < sizeof(longcmd); k += 2)
			memcpy(longcmd + k, "\xc3\xa9", 2);
		longcmd[k] = '\0';
		longcmd[5] = '\xff';
		j[2].j_cmd = longcmd;
		ok(store_jobs_register(a, &j[2], 1, &err) == 0,
		    "a long command, not UTF-8, is registered: %s",
		    err.se_msg);
		ok(store_job_get(a, id[2], &one, &err) == 0 && one != NULL &&
		    strlen(one->j_cmd) == STORE_CMDMAX &&
		    memcmp(one->j_cmd, longcmd, STORE_CMDMAX) == 0,
		    "cut to %d bytes at a character boundary", STORE_CMDMAX);
		store_jobs_free(one, 1);
		j[2].j_cmd = "echo hi";
	}
	ok(store_job_get(a, "nosuchjob", &one, &err) == 0 && one == NULL,
	    "no such job: NULL");
	ok(store_job_pause(a, "nosuchjob", 1, &err) == -1 &&
	    err.se_class == STORE_CONFLICT, "pausing an unknown job fails");
}

static void
test_claims(struct store *a, struct store *b)
{
	struct store_job	 j;
	struct store_error	 err;
	struct store_claim	*cl;
	char			 id[40], got[200];
	size_t			 i, n;
	int			 won;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "c", 1);
	j.j_id = id;
	j.j_owner = "alice";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register claim job");
	ok(store_claim(a, id, 60, &won, &err) == 0 && won == 1,
	    "A wins the first fire");
	ok(store_claim(b, id, 60, &won, &err) == 0 && won == 0,
	    "B loses the same fire");
	ok(store_claim(a, id, 60, &won, &err) == 0 && won == 0,
	    "A does not win it twice");
	ok(store_claim_check(a, id, 60, &won, &err) == 0 && won == 1,
	    "the row says A holds it");
	ok(store_claim_check(b, id, 60, &won, &err) == 0 && won == 0,
	    "the row says B does not");
	ok(store_claim(b, id, 120, &won, &err) == 0 && won == 1,
	    "B wins the next fire");
	ok(store_claim(a, id, 60, &won, &err) == 0 && won == 0,
	    "an earlier fire cannot be claimed after a later one");
	ok(store_job_pause(a, id, 1, &err) == 0, "pause");
	ok(store_claim(a, id, 180, &won, &err) == 0 && won == 0,
	    "a paused job is not claimed");
	ok(store_job_pause(b, id, 0, &err) == 0, "resume");
	ok(store_claim(a, id, 180, &won, &err) == 0 && won == 1,
	    "claimed once resumed");
	ok(store_claim(a, "unknown", 180, &won, &err) == 0 && won == 0,
	    "an unknown job is not claimed");
	/* The claims table, as tests and tools list it. */
	ok(store_claims_list(b, &cl, &n, &err) == 0, "list the claims");
	got[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(cl[i].c_job, id) != 0)
			continue;
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
		    "%s%lld %s", *got == '\0' ? "" : ", ",
		    (long long)cl[i].c_fire, cl[i].c_node);
		if (cl[i].c_at <= 0)
			strlcat(got, " (no time)", sizeof(got));
	}
	is_str(got, "60 nodeA, 120 nodeB, 180 nodeA",
	    "each fire won, by fire, with its winner and time");
	store_claims_free(cl, n);
	store_claims_free(NULL, 0);
}

/*
 * A claim whose run is not recorded yet is a run in flight, for jobs
 * that forbid overlap: the claim is committed a loop turn (or, while
 * the claimant cannot write, longer) before the run's record.
 */
static void
test_inflight(struct store *a, struct store *b)
{
	struct store_job	 j;
	struct store_error	 err;
	char			 id[40];
	int64_t			 rid, now = clock_now_ms();
	int			 won, n;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "f", 1);
	j.j_id = id;
	j.j_owner = "alice";
	j.j_sched = "* * * * * *";
	j.j_cmd = "sleep 5";
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register the job");
	ok(store_job_inflight(b, id, 1001, 10, &n, &err) == 0 && n == 0,
	    "nothing in flight before any claim");
	ok(store_claim(a, id, 1000, &won, &err) == 0 && won == 1,
	    "A claims 1000");
	ok(store_job_inflight(b, id, 1001, 10, &n, &err) == 0 && n == 1,
	    "claimed, not yet recorded: in flight");
	ok(store_job_inflight(b, id, 1000, 10, &n, &err) == 0 && n == 0,
	    "the fire itself does not count");
	ok(store_job_inflight(b, id, 1011, 10, &n, &err) == 0 && n == 0,
	    "nor a claim older than the window");
	ok(store_run_start(a, id, 1000, 1, 4242, now, &rid, &err) == 0,
	    "A records its run");
	ok(store_job_inflight(b, id, 1001, 10, &n, &err) == 0 && n == 0,
	    "recorded: the runs tell from now on");
	ok(store_claim(b, id, 1001, &won, &err) == 0 && won == 1,
	    "B claims 1001");
	ok(store_fire_note(b, id, 1001, RUN_SKIPPED, now, &err) == 0,
	    "and notes it skipped");
	ok(store_claim(a, id, 1002, &won, &err) == 0 && won == 1,
	    "A claims 1002");
	ok(store_job_inflight(b, id, 1003, 10, &n, &err) == 0 && n == 1,
	    "a noted fire is not in flight, the unrecorded one is");
	ok(store_run_fail(a, id, 1002, 1, now, "no user", &err) == 0,
	    "1002 could not start");
	ok(store_job_inflight(b, id, 1003, 10, &n, &err) == 0 && n == 0,
	    "a failed start is not in flight");
	ok(store_run_end(a, rid, now + 1, 0, "", 0, &err) == 0, "end");
}

/*
 * The sweep after nodes died: a fire nobody claimed is noted missed,
 * and claimed for the sweeping node with it, only once no node may
 * claim it (a later fire of its job is claimed) and nothing records
 * it; a second sweep, by any node, notes nothing again; a fire still
 * claimable, claimed or recorded is left alone.
 */
static void
test_sweep(struct store *a, struct store *b)
{
	struct store_job	 j;
	struct store_error	 err;
	struct store_claim	*cl;
	struct store_run	*runs;
	const char		*ids[6];
	time_t			 fires[6];
	unsigned char		 noted[6];
	char			 id[40], got[200];
	int64_t			 rid, now = clock_now_ms();
	size_t			 i, k, n, nn;
	int			 won;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "w", 1);
	j.j_id = id;
	j.j_owner = "alice";
	j.j_sched = "* * * * * *";
	j.j_cmd = "true";
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register the job");
	ok(store_claim(a, id, 2001, &won, &err) == 0 && won == 1,
	    "A claims 2001");
	ok(store_run_start(a, id, 2001, 1, 4242, now, &rid, &err) == 0 &&
	    store_run_end(a, rid, now + 1, 0, "", 0, &err) == 0,
	    "and runs it");
	ok(store_claim(a, id, 2004, &won, &err) == 0 && won == 1,
	    "A claims 2004: 2002 and 2003 were nobody's");
	ok(store_fire_note(a, id, 2003, RUN_SKIPPED, now, &err) == 0,
	    "2003 has a record without a claim (an older store's)");
	for (i = 0; i < 6; i++) {
		ids[i] = id;
		fires[i] = 2000 + (time_t)i;
	}
	ok(store_fire_sweep(b, ids, fires, 6, now, noted, &nn, &err) == 0,
	    "B sweeps 2000 to 2005: %s", err.se_msg);
	snprintf(got, sizeof(got), "%zu: %d %d %d %d %d %d", nn, noted[0],
	    noted[1], noted[2], noted[3], noted[4], noted[5]);
	is_str(got, "1: 0 0 1 0 0 0", "only 2002 is noted (2000 came before "
	    "the job's first run, 2001 ran, 2003 is recorded, 2004 claimed, "
	    "2005 still claimable)");
	ok(store_claim(a, id, 2002, &won, &err) == 0 && won == 0,
	    "nobody claims 2002 after the sweep");
	ok(store_fire_sweep(a, ids, fires, 6, now, noted, &nn, &err) == 0 &&
	    nn == 0, "a second sweep, by another node, notes nothing");
	ok(store_fire_sweep(b, ids, fires, 6, now, noted, &nn, &err) == 0 &&
	    nn == 0, "nor does the same node's again");
	ok(store_claim(a, id, 2005, &won, &err) == 0 && won == 1,
	    "2005 is still claimed as usual");
	ok(store_runs_list(a, id, 0, &runs, &n, &err) == 0, "list the runs");
	got[0] = '\0';
	for (k = 0; k < 6; k++)
		for (i = 0; i < n; i++)
			if (runs[i].r_fire == fires[k])
				snprintf(got + strlen(got), sizeof(got) -
				    strlen(got), "%s%lld %s %d", *got == '\0' ?
				    "" : ", ", (long long)runs[i].r_fire,
				    runs[i].r_node, runs[i].r_state);
	is_str(got, "2001 nodeA 1, 2002 nodeB 3, 2003 nodeA 4",
	    "one note of 2002, by B, missed");
	store_runs_free(runs, n);
	ok(store_claims_span(a, 2002, 2004, &cl, &n, &err) == 0,
	    "the claims of 2002 to 2004");
	got[0] = '\0';
	for (i = 0; i < n; i++)
		if (strcmp(cl[i].c_job, id) == 0)
			snprintf(got + strlen(got), sizeof(got) - strlen(got),
			    "%s%lld %s", *got == '\0' ? "" : ", ",
			    (long long)cl[i].c_fire, cl[i].c_node);
	is_str(got, "2002 nodeB, 2004 nodeA",
	    "the sweep's claim of 2002 is B's; the span is inclusive");
	store_claims_free(cl, n);
}

/*
 * Which jobs exist: a job stays while some node holds it, and goes when
 * the last one lets go of it, with its claim state but not its runs,
 * whose job's description is kept for the history until they are
 * trimmed.  A fire claimed before the job went is not won again by the
 * fresh row of the job registered again.  Trimming is the lease
 * holder's (trimmer's).
 */
static void
test_holds(struct store *trimmer)
{
	struct store		*a, *b;
	struct store_job	 j[4], *one, *list;
	struct store_error	 err;
	struct store_run	*r;
	const char		*ids[4];
	char			 id[4][40];
	unsigned char		 w[1];
	size_t			 n, k, gone, nwon;
	int64_t			 rid;
	int			 i, won, found;

	/* Two nodes of their own: a sync lets go of all a node held. */
	a = open_node(url1, "nodeH", 0);
	b = open_node(url1, "nodeI", 0);
	if (a == NULL || b == NULL) {
		ok(0, "holds: two more nodes open the store");
		store_close(a);
		store_close(b);
		return;
	}
	memset(j, 0, sizeof(j));
	for (i = 0; i < 4; i++) {
		mkid(id[i], sizeof(id[i]), "h", i);
		ids[i] = id[i];
		j[i].j_id = id[i];
		j[i].j_owner = "holly";
		j[i].j_sched = "* * * * *";
		j[i].j_cmd = i == 0 ? "echo zero" : "echo other";
		j[i].j_name = i == 0 ? "h-zero" : NULL;
	}
	/* A holds jobs 0, 1 and 2; B holds 1 and 3. */
	ok(store_jobs_register(a, j, 3, &err) == 0 &&
	    store_jobs_register(b, &j[1], 1, &err) == 0 &&
	    store_jobs_register(b, &j[3], 1, &err) == 0,
	    "holds: A registers jobs 0-2, B jobs 1 and 3");
	ok(store_claim(a, id[0], 5940, &won, &err) == 0 && won &&
	    store_claim(a, id[0], 6000, &won, &err) == 0 && won &&
	    store_run_start(a, id[0], 6000, 1, 42, 6000000, &rid, &err) == 0 &&
	    store_run_end(a, rid, 6000500, 0, "done", 4, &err) == 0,
	    "holds: job 0 is claimed twice and runs");
	ok(store_claim(b, id[3], 6000, &won, &err) == 0 && won &&
	    store_run_start(b, id[3], 6000, 1, 43, 6000000, &rid, &err) == 0 &&
	    store_run_end(b, rid, 6000500, 0, "", 0, &err) == 0,
	    "holds: so does job 3");
	ok(store_job_pause(a, id[1], 1, &err) == 0, "holds: job 1 paused");
	ok(store_jobs_release(a, ids, 2, &gone, &err) == 0 && gone == 1,
	    "holds: A lets go of jobs 0 and 1, and one goes");
	ok(store_job_get(b, id[0], &one, &err) == 0 && one == NULL,
	    "holds: job 0, which no node holds, is gone");
	ok(store_job_get(b, id[1], &one, &err) == 0 && one != NULL &&
	    one->j_paused, "holds: job 1, which B holds, stays, paused");
	store_jobs_free(one, 1);
	ok(store_runs_list(b, id[0], 0, &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_state == RUN_FINISHED && r[0].r_exit == 0,
	    "holds: the run of job 0 stays");
	store_runs_free(r, n);
	ok(store_jobs_gone(b, &list, &n, &err) == 0, "holds: the jobs gone");
	for (k = 0, found = 0; k < n; k++) {
		if (strcmp(list[k].j_id, id[0]) == 0 &&
		    strcmp(list[k].j_owner, "holly") == 0 &&
		    strcmp(list[k].j_cmd, "echo zero") == 0 &&
		    strcmp(list[k].j_name, "h-zero") == 0 &&
		    strcmp(list[k].j_sched, "* * * * *") == 0 &&
		    list[k].j_gone > 0)
			found++;
		else if (strncmp(list[k].j_id, "h", 1) == 0)
			found += 10;
	}
	store_jobs_free(list, n);
	is_int(found, 1, "holds: job 0 among them, as it was");
	ok(store_jobs_release(a, ids, 2, &gone, &err) == 0 && gone == 0,
	    "holds: letting go again changes nothing");
	ok(store_jobs_release(b, &ids[1], 1, &gone, &err) == 0 && gone == 1 &&
	    store_job_get(a, id[1], &one, &err) == 0 && one == NULL,
	    "holds: B lets go of job 1 too, and it goes");
	/* A sync is a node's whole set: what it held besides goes. */
	ok(store_jobs_sync(b, NULL, 0, &gone, &err) == 0 && gone == 1 &&
	    store_job_get(a, id[3], &one, &err) == 0 && one == NULL,
	    "holds: B syncs with no job, and job 3 goes");
	ok(store_jobs_sync(a, j, 1, &gone, &err) == 0 && gone == 1,
	    "holds: A syncs with job 0 only: job 2 goes, job 0 is back");
	ok(store_job_get(b, id[2], &one, &err) == 0 && one == NULL,
	    "holds: job 2 is gone");
	ok(store_job_get(b, id[0], &one, &err) == 0 && one != NULL &&
	    one->j_last_fire == 0, "holds: job 0 starts afresh");
	store_jobs_free(one, 1);
	ok(store_claim_batch(b, ids, 1, 5940, 1, w, &nwon, &err) == 0 &&
	    nwon == 0 && w[0] != 1,
	    "holds: a fire claimed before it went is not won again");
	ok(store_claim(b, id[0], 6000, &won, &err) == 0 && !won,
	    "holds: nor alone");
	ok(store_claim(b, id[0], 6060, &won, &err) == 0 && won,
	    "holds: the next fire is");
	ok(store_jobs_gone(b, &list, &n, &err) == 0, "holds: the jobs gone");
	for (k = 0, found = 0; k < n; k++)
		if (strncmp(list[k].j_id, "h", 1) == 0)
			found++;
	store_jobs_free(list, n);
	is_int(found, 1, "holds: job 3 only (0 is back, 1 and 2 never ran)");
	ok(store_trim(trimmer, 3600000, 0, 60000, &n, &err) == 0 && n > 0,
	    "holds: the old runs trimmed");
	ok(store_jobs_gone(b, &list, &n, &err) == 0, "holds: the jobs gone");
	for (k = 0, found = 0; k < n; k++)
		if (strncmp(list[k].j_id, "h", 1) == 0)
			found++;
	store_jobs_free(list, n);
	is_int(found, 0, "holds: job 3's description goes with its runs");
	ok(store_jobs_release(a, ids, 1, &gone, &err) == 0 && gone == 1,
	    "holds: A lets go of job 0 again");
	if (is_mysql)
		test_jobs_lock(b, &j[3]);
	store_close(a);
	store_close(b);
}

/* The jobs of test_fill(), given in pieces. */
#define FILL_JOBS	2500
struct fill {
	struct store_job *f_jobs;
	size_t		 f_n;
	size_t		 f_calls;
	size_t		 f_max;		/* the largest piece asked for */
};

static size_t
fill_rows(void *arg, size_t from, struct store_job *out, size_t max)
{
	struct fill	*f = arg;
	size_t		 k;

	f->f_calls++;
	if (max > f->f_max)
		f->f_max = max;
	for (k = 0; from + k < f->f_n && k < max; k++)
		out[k] = f->f_jobs[from + k];
	return (k);
}

static size_t
fill_count(struct store *st)
{
	struct store_job	*list;
	struct store_error	 err;
	size_t			 n, k, found = 0;

	if (store_jobs_list(st, "filly", &list, &n, &err) == -1)
		return ((size_t)-1);
	for (k = 0; k < n; k++)
		found += strncmp(list[k].j_id, "pf", 2) == 0;
	store_jobs_free(list, n);
	return (found);
}

/*
 * store_jobs_sync_fill(): a sync whose jobs come in pieces, more than
 * one, against stored jobs read in pages (more than one); jobs given
 * twice, changed, out of order; store_jobs_fired(): the jobs ever
 * claimed, and only those, in pages.
 */
static void
test_fill(void)
{
	struct store		*st;
	struct store_job	*j, *one;
	struct store_fired	*fired;
	struct store_error	 err;
	struct fill		 f;
	char			(*id)[40];
	size_t			 i, n, gone, mine;
	int			 won;

	if ((st = open_node(url1, "nodeF", 0)) == NULL) {
		ok(0, "fill: a node opens the store");
		return;
	}
	j = calloc(FILL_JOBS, sizeof(*j));
	id = calloc(FILL_JOBS, sizeof(*id));
	for (i = 0; i < FILL_JOBS; i++) {
		mkid(id[i], sizeof(id[i]), "pf", (int)i);
		j[i].j_id = id[i];
		j[i].j_owner = "filly";
		j[i].j_sched = "* * * * *";
		j[i].j_cmd = i % 2 ? "echo odd" : "echo even";
	}
	memset(&f, 0, sizeof(f));
	f.f_jobs = j;
	f.f_n = FILL_JOBS;
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == 0 &&
	    gone == 0, "fill: %d jobs synced in pieces", FILL_JOBS);
	ok(f.f_calls >= 3 && f.f_max < FILL_JOBS,
	    "fill: asked for in pieces (%zu calls, at most %zu jobs)",
	    f.f_calls, f.f_max);
	is_int((int)fill_count(st), FILL_JOBS, "fill: every job stored");
	ok(store_jobs_fired(st, "filly", "", 100, &fired, &n, &err) == 0 &&
	    n == 0, "fill: none ever claimed, none listed as fired");
	free(fired);
	ok(store_claim(st, id[7], 6000, &won, &err) == 0 && won &&
	    store_claim(st, id[1999], 6060, &won, &err) == 0 && won,
	    "fill: two jobs claimed");
	ok(store_jobs_fired(st, "filly", "", 100, &fired, &n, &err) == 0 &&
	    n == 2 && strcmp(fired[0].f_id, id[7]) == 0 &&
	    fired[0].f_last == 6000 && strcmp(fired[1].f_id, id[1999]) == 0 &&
	    fired[1].f_last == 6060,
	    "fill: those two listed as fired, by identity, last fires kept");
	free(fired);
	ok(store_jobs_fired(st, "filly", "", 1, &fired, &n, &err) == 0 &&
	    n == 1 && strcmp(fired[0].f_id, id[7]) == 0,
	    "fill: a page of one: the first");
	free(fired);
	ok(store_jobs_fired(st, "filly", id[7], 1, &fired, &n, &err) == 0 &&
	    n == 1 && strcmp(fired[0].f_id, id[1999]) == 0,
	    "fill: the page after it: the second");
	free(fired);
	ok(store_jobs_fired(st, "filly", id[1999], 1, &fired, &n, &err) ==
	    0 && n == 0, "fill: and none after");
	free(fired);
	ok(store_jobs_fired(st, NULL, "", 100000, &fired, &n, &err) == 0,
	    "fill: all owners' fired jobs");
	for (i = mine = 0; i < n; i++)
		mine += strncmp(fired[i].f_id, "pf", 2) == 0;
	for (i = 1; i < n; i++)
		if (strcmp(fired[i - 1].f_id, fired[i].f_id) >= 0)
			break;
	ok(mine == 2 && i >= n, "fill: the two among them, sorted");
	free(fired);
	/* The whole set: what is not in it goes. */
	memset(&f, 0, sizeof(f));
	f.f_jobs = j;
	f.f_n = 1000;
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == 0 &&
	    gone == FILL_JOBS - 1000,
	    "fill: a sync of the first 1000 lets go of the others (%zu)",
	    gone);
	is_int((int)fill_count(st), 1000, "fill: 1000 left");
	/* Given twice in a row: once; a changed row: written again. */
	j[5].j_cmd = "echo changed";
	j[6] = j[5];
	memset(&f, 0, sizeof(f));
	f.f_jobs = j;
	f.f_n = 1000;
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == 0 &&
	    gone == 1 && fill_count(st) == 999,
	    "fill: a job given twice counts once, the one it hid goes");
	ok(store_job_get(st, id[5], &one, &err) == 0 && one != NULL &&
	    strcmp(one->j_cmd, "echo changed") == 0,
	    "fill: a changed command is written");
	store_jobs_free(one, 1);
	j[6].j_id = id[6];
	j[6].j_cmd = "echo even";
	/* Out of order: refused, nothing changes. */
	j[8].j_id = id[9];
	j[9].j_id = id[8];
	memset(&f, 0, sizeof(f));
	f.f_jobs = j;
	f.f_n = 1000;
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == -1 &&
	    err.se_class == STORE_FATAL, "fill: jobs out of order fail");
	j[8].j_id = id[8];
	j[9].j_id = id[9];
	is_int((int)fill_count(st), 999, "fill: and change nothing");
	j[3].j_id = "";
	memset(&f, 0, sizeof(f));
	f.f_jobs = j;
	f.f_n = 1000;
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == -1 &&
	    err.se_class == STORE_FATAL, "fill: a bad identity fails");
	is_int((int)fill_count(st), 999, "fill: and changes nothing");
	j[3].j_id = id[3];
	/* Registering in pieces adds, and lets go of nothing. */
	memset(&f, 0, sizeof(f));
	f.f_jobs = j + 1000;
	f.f_n = FILL_JOBS - 1000;
	ok(store_jobs_register_fill(st, fill_rows, &f, &err) == 0 &&
	    f.f_calls >= 2 && fill_count(st) == FILL_JOBS - 1,
	    "fill: %d more registered in pieces, none let go of",
	    FILL_JOBS - 1000);
	memset(&f, 0, sizeof(f));
	ok(store_jobs_sync_fill(st, fill_rows, &f, &gone, &err) == 0 &&
	    gone == FILL_JOBS - 1 && fill_count(st) == 0,
	    "fill: a sync of nothing lets go of all");
	free(j);
	free(id);
	store_close(st);
}

/*
 * MariaDB: a node stopped while it registers holds the lock of the
 * jobs; another waits STORE_LOCK_WAIT seconds for it and fails with a
 * conflict, to try again later, and has it once the server has seen
 * the stopped node's connection go.
 */
static void
test_jobs_lock(struct store *b, struct store_job *j)
{
	struct store_error	 err;
	struct store		*c;
	pid_t			 pid;
	int64_t			 t0;
	int			 status, i, rc;

	if ((pid = fork()) == -1) {
		ok(0, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if ((c = open_node(url1, "nodeJ", 0)) == NULL)
			_exit(1);
		store_fault_set("register.before", 1, STORE_FAULT_STOP);
		(void)store_jobs_register(c, j, 1, &err);
		_exit(0);
	}
	rc = waitpid(pid, &status, WUNTRACED);
	if (rc != pid || !WIFSTOPPED(status)) {
		ok(0, "jobs lock: the other node did not stop");
		return;
	}
	t0 = clock_mono();
	rc = store_jobs_register(b, j, 1, &err);
	ok(rc == -1 && err.se_class == STORE_CONFLICT &&
	    clock_mono() - t0 >= (STORE_LOCK_WAIT - 1) * 1000,
	    "jobs lock: held by a stopped node, a conflict after %d s: %s",
	    STORE_LOCK_WAIT, err.se_msg);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (i = 0; i < 100; i++) {
		if ((rc = store_jobs_register(b, j, 1, &err)) == 0)
			break;
		usleep(100000);
	}
	ok(rc == 0, "jobs lock: free once its holder's connection is gone");
}

#define NB	300

static void
test_batch(struct store *a, struct store *b)
{
	struct store_job	 j[NB], *one;
	struct store_error	 err;
	char			 id[NB][40];
	const char		*ids[NB];
	const char		*hids[4];
	unsigned char		 wa[NB], wb[NB];
	size_t			 i, k, na, nb, both = 0, none = 0;
	int64_t			 q;
	int			 won, agree = 1, rc;

	memset(j, 0, sizeof(j));
	for (i = 0; i < NB; i++) {
		mkid(id[i], sizeof(id[i]), "b", (int)i);
		ids[i] = id[i];
		j[i].j_id = id[i];
		j[i].j_owner = "batch";
		j[i].j_sched = "* * * * *";
		j[i].j_cmd = "true";
	}
	ok(store_jobs_register(a, j, NB, &err) == 0, "register %d jobs", NB);
	rc = store_claim_batch(a, ids, NB, 600, 100, wa, &na, &err);
	ok(rc == 0 && na == 100, "A batch-claims its 100 free slots (%zu)",
	    na);
	for (i = 0, k = 0; i < NB; i++)
		if (wa[i] == 2)
			k++;
	is_int(k, NB - 100, "the jobs not reached are said still free (2)");
	ok(store_claim_free(b, ids, NB, 600, wb, &err) == 0,
	    "B reads which jobs are still free at that instant");
	for (i = 0, k = 0; i < NB; i++)
		if (wb[i] != (wa[i] != 1))
			k++;
	is_int(k, 0, "free: those A did not claim, and only those");
	hids[0] = "nodeA";
	hids[1] = "nodeZ";
	ok(store_holds_shared(a, hids, 1, &rc, &err) == 0 && rc == 1,
	    "a node alone holds its own jobs");
	ok(store_holds_shared(a, hids, 2, &rc, &err) == 0 && rc == 0,
	    "a node that holds none of them: not shared");
	if (store_statements(a, &q, &err) == 0)
		ok(q > 0, "the server counts statements (%lld)",
		    (long long)q);
	else
		ok(strstr(err.se_msg, "counts no statements") != NULL,
		    "no server, no count: %s", err.se_msg);
	rc = store_claim_batch(b, ids, NB, 600, 1000, wb, &nb, &err);
	ok(rc == 0 && nb == NB - 100, "B batch-claims the other %d (%zu)",
	    NB - 100, nb);
	for (i = 0; i < NB; i++) {
		if (wa[i] == 1 && wb[i] == 1)
			both++;
		if (wa[i] != 1 && wb[i] != 1)
			none++;
		if (wb[i] == 2)
			agree = 0;
		if (store_claim_check(a, ids[i], 600, &won, &err) == -1 ||
		    won != (wa[i] == 1))
			agree = 0;
	}
	is_int(both, 0, "no job won by both");
	is_int(none, 0, "every job won by one");
	ok(agree, "the rows agree with the batch results; B was told that "
	    "A's are taken (0)");
	ok(store_claim_batch(a, ids, NB, 600, 1000, wa, &na, &err) == 0 &&
	    na == 0, "nothing left to claim at that instant");
	for (i = 0, k = 0; i < NB; i++)
		if (wa[i] != 0)
			k++;
	is_int(k, 0, "and nothing said worth trying alone");
	ok(store_claim_batch(a, ids, 7, 660, 1000, wa, &na, &err) == 0 &&
	    na == 7, "an odd-sized batch (7)");

	/*
	 * Enough jobs that registering compares the stored rows first:
	 * a row whose name alone changed is written.
	 */
	j[5].j_name = "renamed";
	ok(store_jobs_register(a, j, NB, &err) == 0, "register %d jobs, one "
	    "renamed", NB);
	ok(store_job_get(b, ids[5], &one, &err) == 0 && one != NULL &&
	    strcmp(one->j_name, "renamed") == 0 && one->j_last_fire == 660,
	    "the new name is written, the claim state kept");
	store_jobs_free(one, 1);
	j[5].j_name = NULL;
	ok(store_jobs_register(a, j, NB, &err) == 0 &&
	    store_job_get(b, ids[5], &one, &err) == 0 && one != NULL &&
	    *one->j_name == '\0', "and the name taken away again");
	store_jobs_free(one, 1);

	/* A paused and an unknown job are not worth trying alone. */
	ok(store_job_pause(a, ids[11], 1, &err) == 0, "pause one job");
	hids[0] = ids[10];
	hids[1] = ids[11];
	hids[2] = "nosuchjob";
	hids[3] = ids[12];
	rc = store_claim_batch(a, hids, 4, 720, 1, wa, &na, &err);
	ok(rc == 0 && na == 1 && wa[0] + wa[3] == 3 && wa[1] == 0 &&
	    wa[2] == 0, "max 1: one won, the other free one 2, paused and "
	    "unknown 0 (%d %d %d %d)", wa[0], wa[1], wa[2], wa[3]);
	ok(store_job_pause(a, ids[11], 0, &err) == 0, "resume it");
}

static void
test_runs(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_run	*r;
	size_t			 n, i;
	int64_t			 id, id2, now = clock_now_ms();
	char			 job[40];
	int			 rc, busy;
	const char		*out = "0123456789abcdefghijklmnopqrstuvwxyz";

	mkid(job, sizeof(job), "r", 1);
	ok(store_run_start(a, job, 60, 1, 4242, now, &id, &err) == 0 &&
	    id > 0, "run start gives an id");
	ok(store_run_start(a, job, 60, 1, 4242, now, &id2, &err) == 0 &&
	    id2 == id, "starting the same attempt again is idempotent");
	ok(store_run_start(a, job, 60, 0, 1, now, &id2, &err) == -1,
	    "attempt 0 is refused");
	ok(store_runs_running(a, "nodeA", &r, &n, &err) == 0 && n == 1,
	    "one run running on A");
	store_runs_free(r, n);
	ok(store_job_busy(b, job, 120, &busy, &err) == 0 && busy,
	    "the job is busy for another fire");
	ok(store_job_busy(b, job, 60, &busy, &err) == 0 && !busy,
	    "but not for its own");
	ok(store_run_end(a, id, now + 1500, 3 << 8, out, strlen(out),
	    &err) == 0, "run end");
	ok(store_job_busy(b, job, 120, &busy, &err) == 0 && !busy,
	    "not busy once ended");
	ok(store_run_start(a, job, 120, 1, 4243, now, &id2, &err) == 0,
	    "second run");
	ok(store_run_end(a, id2, now + 10, 9, "", 0, &err) == 0,
	    "killed by a signal");
	ok(store_fire_note(a, job, 180, RUN_MISSED, now, &err) == 0,
	    "note a missed fire");
	ok(store_fire_note(a, job, 180, RUN_SKIPPED, now + 1, &err) == 0,
	    "noting it again is harmless");
	rc = store_runs_list(a, job, 0, &r, &n, &err);
	ok(rc == 0 && n == 3, "three records for the job (%zu)", n);
	if (n == 3) {
		is_int(r[0].r_state, RUN_MISSED, "newest first: missed");
		is_int(r[0].r_attempt, 0, "missed fires are attempt 0");
		is_int(r[1].r_signal, 9, "signal recorded");
		is_int(r[1].r_exit, -1, "no exit status when signalled");
		is_int(r[2].r_exit, 3, "exit status recorded");
		is_int(r[2].r_state, RUN_FINISHED, "finished");
		is_int(r[2].r_pid, 4242, "pid");
		is_int(r[2].r_end - r[2].r_start, 1500, "start and end");
		is_int(r[2].r_outlen, 16, "output cut to output-max");
		is_str(r[2].r_output, "0123456789abcdef", "output head");
		is_int(r[2].r_outtotal, (long long)strlen(out),
		    "whole output length");
		is_str(r[2].r_node, "nodeA", "node");
	}
	store_runs_free(r, n);
	ok(store_runs_list(a, NULL, 2, &r, &n, &err) == 0 && n == 2,
	    "list with a limit");
	store_runs_free(r, n);
	ok(store_runs_latest(b, &r, &n, &err) == 0 && n >= 1,
	    "latest record of each job");
	for (i = 0; i < n; i++)
		if (strcmp(r[i].r_job, job) == 0)
			ok(r[i].r_state == RUN_MISSED && r[i].r_fire == 180,
			    "the job's latest is its missed fire");
	store_runs_free(r, n);
	for (i = 0; i < 10; i++)
		if (store_run_start(a, job, 1000 + (time_t)i, 1, 1, now,
		    &id, &err) == -1 ||
		    store_run_end(a, id, now, 0, "", 0, &err) == -1)
			break;
	ok(i == 10, "ten more runs");
	rc = store_trim(a, 0, 4, 60000, &n, &err);
	ok(rc == 0 && n == 9, "trim to four runs per job (%zu trimmed) %s",
	    n, err.se_msg);
	ok(store_trim(b, 0, 4, 60000, &n, &err) == 0 && n == 0,
	    "another node does not trim while the lease is held");
	ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 4,
	    "four left");
	store_runs_free(r, n);
	{
		const char	*bj[3] = { job, job, job };
		time_t		 bf[3] = { 2000, 2001, 2000 };

		ok(store_fire_note_batch(a, bj, bf, 3, RUN_MISSED, now + 2,
		    &err) == 0, "three fires noted in one batch %s",
		    err.se_msg);
		ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 6,
		    "... two records: a fire noted twice keeps one (%zu)", n);
		if (n == 6)
			ok(r[0].r_state == RUN_MISSED && r[0].r_fire == 2001 &&
			    r[1].r_state == RUN_MISSED && r[1].r_fire == 2000,
			    "... both missed");
		store_runs_free(r, n);
		ok(store_fire_note_batch(a, bj, bf, 3, RUN_FINISHED, now,
		    &err) == -1, "only missed and skipped fires are noted");
	}
	{
		/* A limit's notes (issue 12): each its state and reason. */
		struct store_note	 sn[2] = {
			{ job, 3000, RUN_SKIPPED, now + 3, "over the rate" },
			{ job, 3001, RUN_MISSED, now + 4, NULL }
		};

		ok(store_fire_notes(a, sn, 2, &err) == 0,
		    "two fires noted, each with its state %s", err.se_msg);
		ok(store_runs_list(a, job, 2, &r, &n, &err) == 0 && n == 2 &&
		    r[0].r_fire == 3001 && r[0].r_state == RUN_MISSED &&
		    r[0].r_attempt == 0 && r[0].r_outlen == 0 &&
		    r[1].r_fire == 3000 && r[1].r_state == RUN_SKIPPED &&
		    r[1].r_outlen == 13 && r[1].r_output != NULL &&
		    memcmp(r[1].r_output, "over the rate", 13) == 0,
		    "... the reason kept as the note's output");
		store_runs_free(r, n);
		sn[0].sn_state = RUN_FINISHED;
		ok(store_fire_notes(a, sn, 1, &err) == -1,
		    "... and only missed and skipped fires");
	}
	test_trim_claims(a);
	test_node_runs(a, b);
	test_failed(a, b);
}

/* A job of node scope: every node records its own run of a fire. */
static void
test_node_runs(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_run	*r;
	size_t			 n;
	int64_t			 ida, idb, id2, now = clock_now_ms();
	char			 job[40];

	mkid(job, sizeof(job), "n", 1);
	ok(store_run_start(a, job, 60, 1, 10, now, &ida, &err) == 0,
	    "node scope: A records its run");
	ok(store_run_start(b, job, 60, 1, 20, now, &idb, &err) == 0 &&
	    idb != ida, "B records its own run of the same attempt");
	ok(store_run_start(b, job, 60, 1, 20, now, &id2, &err) == 0 &&
	    id2 == idb, "B again: its own id");
	ok(store_run_start(a, job, 60, 1, 10, now, &id2, &err) == 0 &&
	    id2 == ida, "A again: its own id");
	ok(store_runs_running(b, "nodeB", &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_id == idb && r[0].r_pid == 20, "B's run is B's");
	store_runs_free(r, n);
	ok(store_run_end(a, ida, now + 1, 0, "a", 1, &err) == 0 &&
	    store_run_end(b, idb, now + 2, 1 << 8, "b", 1, &err) == 0,
	    "each ends its own");
	ok(store_fire_note(a, job, 120, RUN_SKIPPED, now, &err) == 0 &&
	    store_fire_note(b, job, 120, RUN_SKIPPED, now, &err) == 0 &&
	    store_fire_note(b, job, 120, RUN_SKIPPED, now + 9, &err) == 0,
	    "A notes a skipped fire, B twice");
	ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 4,
	    "four records: two runs, a note from each node (%zu)", n);
	if (n == 4) {
		is_str(r[0].r_node, "nodeB", "B's note");
		is_int(r[0].r_start, now, "its first");
		is_str(r[1].r_node, "nodeA", "A's note");
		is_int(r[2].r_exit, 1, "B's exit");
		is_int(r[3].r_exit, 0, "A's exit");
	}
	store_runs_free(r, n);
}

/* Attempts that could not be started. */
static void
test_failed(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_run	*r;
	size_t			 n;
	int64_t			 now = clock_now_ms();
	char			 job[40];
	const char		*why = "cannot exec /bin/nothing: No such "
	    "file or directory";

	mkid(job, sizeof(job), "x", 1);
	is_str(store_run_state_name(RUN_FAILED), "failed", "state name");
	ok(store_run_fail(a, job, 60, 0, now, "x", &err) == -1 &&
	    err.se_class == STORE_FATAL, "attempt 0 is refused");
	ok(store_run_fail(a, job, 60, 1, now, why, &err) == 0,
	    "a run that could not start");
	ok(store_run_fail(a, job, 60, 1, now + 5, "again", &err) == 0,
	    "recorded again");
	ok(store_run_fail(b, job, 60, 1, now, "no user", &err) == 0,
	    "and on another node");
	ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 2,
	    "one record per node (%zu)", n);
	if (n == 2) {
		is_str(r[1].r_node, "nodeA", "A's");
		is_int(r[1].r_state, RUN_FAILED, "failed");
		is_int(r[1].r_exit, -1, "no exit status");
		is_int(r[1].r_signal, 0, "nor signal");
		is_int(r[1].r_pid, 0, "nor pid");
		is_int(r[1].r_start, now, "when, the first time");
		is_int(r[1].r_end, now, "ended then");
		is_int(r[1].r_outlen, 16, "the reason, cut to output-max");
		ok(strncmp(r[1].r_output, why, 16) == 0, "as output: %s",
		    r[1].r_output);
		is_int(r[1].r_outtotal, (long long)strlen(why),
		    "its whole length");
		is_str(r[0].r_output, "no user", "B's reason");
	}
	store_runs_free(r, n);
	ok(store_runs_running(a, NULL, &r, &n, &err) == 0, "running list");
	for (; n > 0; n--)
		if (strcmp(r[n - 1].r_job, job) == 0)
			break;
	ok(n == 0, "a failed run is not running");
	store_runs_free(r, n);
}

/*
 * Claims rows go with the history: by the age of their fire, then all
 * but those of the newest instants (as many as runs are kept per job).
 */
static void
test_trim_claims(struct store *a)
{
	struct store_job	 j;
	struct store_error	 err;
	char			 id[40];
	size_t			 n;
	time_t			 f0 = 2000000000;
	int			 i, won, ok1 = 1;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "t", 1);
	j.j_id = id;
	j.j_owner = "trim";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register trim job");
	ok(store_claim(a, id, 60, &won, &err) == 0 && won, "an old claim");
	ok(store_claim(a, id, f0, &won, &err) == 0 && won, "a new one");
	ok(store_trim(a, 3600000, 0, 60000, &n, &err) == 0,
	    "trim an hour old");
	ok(store_claim_check(a, id, 60, &won, &err) == 0 && !won,
	    "the old claim goes");
	ok(store_claim_check(a, id, f0, &won, &err) == 0 && won,
	    "the new one stays");
	for (i = 1; i <= 10; i++)
		if (store_claim(a, id, f0 + 60 * i, &won, &err) == -1 || !won)
			ok1 = 0;
	ok(ok1, "ten more claims");
	ok(store_trim(a, 0, 4, 60000, &n, &err) == 0,
	    "trim to the newest four instants");
	ok(store_claim_check(a, id, f0 + 60 * 7, &won, &err) == 0 && won,
	    "the newest four claims stay");
	ok(store_claim_check(a, id, f0 + 60 * 6, &won, &err) == 0 && !won,
	    "older ones go");
	ok(store_claim(a, id, f0 + 60 * 6, &won, &err) == 0 && !won,
	    "the job's row still holds its last fire");
}

/* tr_over: the owners reported, one string. */
static void
trim_over(void *arg, const char *owner, size_t runs, uint64_t bytes)
{
	char	*s = arg;
	char	 buf[64];

	snprintf(buf, sizeof(buf), "%s:%zu:%llu ", owner, runs,
	    (unsigned long long)bytes);
	strlcat(s, buf, 256);
}

/* Passes until the round is over: 0, or -1 (diagnosed). */
static int
trim_round(struct store *st, const struct store_trim *l)
{
	struct store_trimmed	 td;
	struct store_error	 err;
	int			 i;

	for (i = 0; i < 100000; i++) {
		if (store_trim_pass(st, l, 60000, &td, &err) == -1) {
			diag("store_trim_pass: %s", err.se_msg);
			return (-1);
		}
		if (!td.td_held) {
			diag("store_trim_pass: the lease is another's");
			return (-1);
		}
		if (!td.td_more)
			return (0);
	}
	diag("store_trim_pass: no end to the round");
	return (-1);
}

/* The fires of a job's runs, newest first, in f[] (of max); how many. */
static size_t
trim_runs(struct store *st, const char *job, time_t *f, size_t max)
{
	struct store_error	 err;
	struct store_run	*r;
	size_t			 n, i, k = 0;

	if (store_runs_list(st, job, 0, &r, &n, &err) == -1)
		return ((size_t)-1);
	for (i = 0; i < n; i++)
		if (k < max)
			f[k++] = r[i].r_fire;
	store_runs_free(r, n);
	return (n);
}

/*
 * Trimming by bytes per job and by runs and bytes per user (the store
 * keeps 16 bytes of each output here), oldest first by fire across a
 * user's jobs, never a run still running, never another user's runs;
 * a pass stops at its budget and says there is more.
 */
static void
test_trim_limits(struct store *a)
{
	struct store_job	 j[3];
	struct store_trim	 l;
	struct store_trimmed	 td;
	struct store_error	 err;
	char			 ids[3][40], seen[256];
	char			*own[3] = { "hog", "hog", "good" };
	time_t			 f[16], base = 2100000000;
	int64_t			 id, now = clock_now_ms();
	size_t			 i, k, n;
	int			 bad = 0;

	memset(j, 0, sizeof(j));
	for (i = 0; i < 3; i++) {
		mkid(ids[i], sizeof(ids[i]), "lim", (int)i);
		j[i].j_id = ids[i];
		j[i].j_owner = own[i];
		j[i].j_sched = "* * * * *";
		j[i].j_cmd = "true";
	}
	ok(store_jobs_register(a, j, 3, &err) == 0, "register hog and good %s",
	    err.se_msg);
	/* hog's jobs take turns: fires base+0, +1, ... +19; the first runs. */
	if (store_run_start(a, ids[0], base, 1, 1, now, &id, &err) == -1)
		bad = 1;
	for (k = 1; k < 20 && !bad; k++)
		if (store_run_start(a, ids[k % 2], base + (time_t)k, 1, 1, now,
		    &id, &err) == -1 || store_run_end(a, id, now, 0,
		    "0123456789abcdefXXXX", 20, &err) == -1)
			bad = 1;
	for (k = 0; k < 3 && !bad; k++)
		if (store_run_start(a, ids[2], base + (time_t)k, 1, 1, now,
		    &id, &err) == -1 || store_run_end(a, id, now, 0,
		    "0123456789abcdefXXXX", 20, &err) == -1)
			bad = 1;
	ok(!bad, "twenty runs of hog's, one running, three of good's %s",
	    err.se_msg);

	/* 64 bytes a job: four finished runs each, and the running one. */
	memset(&l, 0, sizeof(l));
	l.tr_job_bytes = 64;
	ok(trim_round(a, &l) == 0, "trim to 64 bytes a job");
	n = trim_runs(a, ids[0], f, 16);
	ok(n == 5 && f[0] == base + 18 && f[3] == base + 12 && f[4] == base,
	    "hog's first job keeps its newest four and the running run (%zu)",
	    n);
	n = trim_runs(a, ids[1], f, 16);
	ok(n == 4 && f[0] == base + 19 && f[3] == base + 13,
	    "hog's second job keeps its newest four (%zu)", n);
	ok(trim_runs(a, ids[2], f, 16) == 3, "good's runs stay");

	/* 80 bytes a user: hog's newest five, across his two jobs. */
	memset(&l, 0, sizeof(l));
	l.tr_user_bytes = 80;
	*seen = '\0';
	l.tr_over = trim_over;
	l.tr_arg = seen;
	ok(trim_round(a, &l) == 0, "trim to 80 bytes a user");
	n = trim_runs(a, ids[0], f, 16);
	ok(n == 3 && f[0] == base + 18 && f[1] == base + 16 && f[2] == base,
	    "hog's first job keeps two and the running run (%zu)", n);
	n = trim_runs(a, ids[1], f, 16);
	ok(n == 3 && f[0] == base + 19 && f[2] == base + 15,
	    "hog's second job keeps three (%zu)", n);
	ok(trim_runs(a, ids[2], f, 16) == 3, "good's runs stay");
	ok(strstr(seen, "hog:3:48 ") != NULL && strstr(seen, "good:") == NULL,
	    "hog is reported, three runs and 48 bytes gone: %s", seen);

	/* A budget of one run: one goes, and there is more. */
	memset(&l, 0, sizeof(l));
	l.tr_user_runs = 3;
	l.tr_budget = 1;
	k = 0;
	do
		bad = store_trim_pass(a, &l, 60000, &td, &err) == -1;
	while (!bad && td.td_runs == 0 && td.td_more && ++k < 100);
	ok(!bad && td.td_runs == 1 && td.td_more,
	    "a pass stops at its budget, with more to do");
	l.tr_budget = 0;
	ok(trim_round(a, &l) == 0, "the next passes go on");
	n = trim_runs(a, ids[0], f, 16) + trim_runs(a, ids[1], f + 8, 8);
	ok(n == 4 && f[0] == base + 18 && f[1] == base && f[8] == base + 19 &&
	    f[9] == base + 17, "three runs a user: hog keeps three and the "
	    "running run (%zu)", n);
	ok(trim_runs(a, ids[2], f, 16) == 3, "good's runs stay");
}

static void
test_nodes(struct store *a, struct store *b, struct store *c)
{
	struct store_error	 err;
	struct store_node	*nd;
	struct store_cover	 cv;
	size_t			 n, i;
	int64_t			 sms, now = clock_now_ms();
	int			 dr, held;

	cv.c_from = now - 9000;
	cv.c_to = now - 1000;
	cv.c_view = 0xfedcba9876543210ULL;
	cv.c_jobs = 0x8000000000000001ULL;

	ok(store_heartbeat(a, now + 60000, 2, &cv, &sms, &dr, &err) == 0,
	    "heartbeat");
	ok(sms > now - 5000 && sms < now + 5000, "store clock near ours");
	ok(dr == 0, "not draining");
	ok(store_heartbeat(b, now, 0, NULL, &sms, &dr, &err) == 0, "B beats");
	ok(store_heartbeat(c, now, 0, NULL, &sms, &dr, &err) == 0, "C beats");
	ok(store_nodes_list(a, &nd, &n, &err) == 0 && n == 3, "three nodes");
	for (i = 0; i < n; i++)
		if (strcmp(nd[i].n_name, "nodeA") == 0) {
			ok(nd[i].n_skew > 55000 && nd[i].n_skew < 65000,
			    "skew of a node a minute fast (%lld ms)",
			    (long long)nd[i].n_skew);
			is_int(nd[i].n_running, 2, "running count");
			ok(nd[i].n_started > 0, "start recorded");
			ok(nd[i].n_beat >= nd[i].n_started &&
			    nd[i].n_beat > sms - 60000 &&
			    nd[i].n_beat <= sms, "beat recorded, store clock");
			is_int(nd[i].n_state, NODE_ACTIVE, "active");
			ok(memcmp(&nd[i].n_cover, &cv, sizeof(cv)) == 0,
			    "its cover, as it beat (hashes of all 64 bits)");
		} else
			ok(nd[i].n_cover.c_to == 0, "%s: no cover",
			    nd[i].n_name);
	store_nodes_free(nd, n);
	ok(store_node_drain(b, "nodeA", 1, &err) == 0, "drain A");
	ok(store_nodes_list(b, &nd, &n, &err) == 0 && n == 3 &&
	    strcmp(nd[0].n_name, "nodeA") == 0 &&
	    nd[0].n_state == NODE_DRAINING, "listed as draining");
	store_nodes_free(nd, n);
	ok(store_heartbeat(a, now, 0, NULL, &sms, &dr, &err) == 0 && dr == 1,
	    "A learns it drains");
	ok(store_node_drain(b, "nodeA", 0, &err) == 0, "resume A");
	ok(store_heartbeat(a, now, 0, NULL, &sms, &dr, &err) == 0 && dr == 0,
	    "A active again");
	ok(store_node_drain(b, "nodeZ", 1, &err) == -1 &&
	    err.se_class == STORE_CONFLICT, "draining an unknown node fails");

	test_lost(a, b, c);
	test_unrun(a);

	ok(store_lease_take(a, "chore", 60000, &held, &err) == 0 && held,
	    "A takes a lease");
	ok(store_lease_take(b, "chore", 60000, &held, &err) == 0 && !held,
	    "B cannot");
	ok(store_lease_take(a, "chore", 60000, &held, &err) == 0 && held,
	    "A renews it");
	ok(store_lease_drop(a, "chore", &err) == 0, "A drops it");
	ok(store_lease_take(b, "chore", 60000, &held, &err) == 0 && held,
	    "B takes it");
	ok(store_lease_take(a, "brief", -1, &held, &err) == 0 && held,
	    "A takes an already expired lease");
	ok(store_lease_take(b, "brief", 60000, &held, &err) == 0 && held,
	    "B takes it over");
}

#define NLOST	40
#define NMARKERS 4

/*
 * Runs of nodes gone silent are marked lost, each by exactly one of
 * the nodes that look, and handed to it; a node's own runs are not
 * its own to mark that way; a run marked lost that ends after all
 * stays lost with its end recorded.
 */
static void
test_lost(struct store *a, struct store *b, struct store *c)
{
	struct store_error	 err;
	struct store_run	*r;
	struct store		*d, *e;
	size_t			 n, i, k;
	int64_t			 now = clock_now_ms(), idc, ida, id, sms;
	int64_t			 ids[NLOST], got;
	int			 marked, dr, fd[2], seen[NLOST], twice = 0;
	int			 status, good = 1;
	pid_t			 pid[NMARKERS];
	char			 job[40];
	FILE			*fp;

	mkid(job, sizeof(job), "l", 1);
	ok(store_run_start(c, job, 60, 1, 99, now, &idc, &err) == 0,
	    "C starts a run");
	ok(store_run_start(a, job, 120, 1, 98, now, &ida, &err) == 0,
	    "A starts a run");
	ok(store_runs_mark_lost(a, 3600000, &r, &n, &err) == 0 && n == 0 &&
	    r == NULL, "nothing lost while every node beats");
	ok(store_runs_mark_lost(a, -3600000, &r, &n, &err) == 0 && n == 1 &&
	    r != NULL, "every beat too old: A marks one run");
	if (n == 1) {
		is_int(r[0].r_id, idc, "C's, not its own");
		is_int(r[0].r_state, RUN_LOST, "returned as lost");
		is_str(r[0].r_node, "nodeC", "naming its node");
		is_int(r[0].r_pid, 99, "and pid");
		ok(r[0].r_end > 0, "marked at the store's clock");
	}
	store_runs_free(r, n);
	ok(store_runs_mark_lost(b, -3600000, &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_id == ida, "B then marks only A's; C's was marked");
	store_runs_free(r, n);
	ok(store_runs_mark_lost(c, -3600000, &r, &n, &err) == 0 && n == 0,
	    "C finds nothing left");
	ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 2 &&
	    r[0].r_state == RUN_LOST && r[1].r_state == RUN_LOST,
	    "both lost in the history");
	store_runs_free(r, n);
	ok(store_run_end(c, idc, now + 5, 3 << 8, "late", 4, &err) == 0,
	    "a lost run that ends after all is recorded");
	ok(store_runs_list(a, job, 0, &r, &n, &err) == 0 && n == 2,
	    "listed");
	if (n == 2) {
		is_int(r[1].r_state, RUN_LOST, "it stays lost");
		is_int(r[1].r_exit, 3, "with its exit status");
		is_int(r[1].r_end, now + 5, "its end");
		is_str(r[1].r_output, "late", "and output");
	}
	store_runs_free(r, n);

	/* One run, marked by its own node after a restart. */
	ok(store_run_start(a, job, 180, 1, 97, now, &id, &err) == 0,
	    "A starts another run");
	ok(store_run_lost(a, id, &marked, &err) == 0 && marked == 1,
	    "A marks it lost");
	ok(store_run_lost(b, id, &marked, &err) == 0 && marked == 0,
	    "marking it again changes nothing");
	ok(store_run_end(a, ida, now + 7, 0, "x", 1, &err) == 0 &&
	    store_run_lost(a, ida, &marked, &err) == 0 && marked == 0,
	    "nor does marking an ended run");
	ok(store_run_start(a, job, 240, 1, 96, now, &id, &err) == 0 &&
	    store_run_end(a, id, now + 9, 0, "first", 5, &err) == 0 &&
	    store_run_end(a, id, now + 11, 1 << 8, "second", 6, &err) == 0,
	    "a finished run ended twice");
	ok(store_run_lost(a, id, &marked, &err) == 0 && marked == 0,
	    "is not marked lost");
	ok(store_runs_list(a, job, 1, &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_state == RUN_FINISHED && r[0].r_exit == 0 &&
	    strcmp(r[0].r_output, "first") == 0, "and keeps its first end");
	store_runs_free(r, n);

	/*
	 * Many runs of a silent node, several nodes marking at once: each
	 * run is handed to exactly one of them.
	 */
	d = open_node(url1, "nodeD", 0);
	ok(d != NULL && store_heartbeat(d, now, NLOST, NULL, &sms, &dr,
	    &err) == 0,
	    "D beats");
	mkid(job, sizeof(job), "ld", 1);
	for (i = 0; d != NULL && i < NLOST; i++)
		if (store_run_start(d, job, 60 * (time_t)(i + 1), 1,
		    (int)i + 1, now, &ids[i], &err) == -1)
			break;
	ok(i == NLOST, "D starts %d runs", NLOST);
	store_close(d);
	if (pipe(fd) == -1) {
		ok(0, "pipe");
		return;
	}
	for (k = 0; k < NMARKERS; k++) {
		/*
		 * A memory store is not shared with a child process: its
		 * markers take turns in this one.
		 */
		if (is_memory)
			pid[k] = 0;
		else if ((pid[k] = fork()) == -1)
			break;
		if (pid[k] > 0)
			continue;
		/* A marker: one pass; print the ids of D's it marked. */
		if (!is_memory)
			close(fd[0]);
		snprintf(job, sizeof(job), "marker%zu", k);
		if ((e = open_node(url1, job, 0)) == NULL ||
		    store_runs_mark_lost(e, -3600000, &r, &n, &err) == -1) {
			if (is_memory) {
				good = 0;
				continue;
			}
			_exit(1);
		}
		for (i = 0; i < n; i++)
			if (strcmp(r[i].r_node, "nodeD") == 0)
				dprintf(fd[1], "%lld\n",
				    (long long)r[i].r_id);
		store_runs_free(r, n);
		store_close(e);
		if (!is_memory)
			_exit(0);
	}
	close(fd[1]);
	memset(seen, 0, sizeof(seen));
	if ((fp = fdopen(fd[0], "r")) != NULL) {
		while (fscanf(fp, "%lld", (long long *)&got) == 1) {
			for (i = 0; i < NLOST && ids[i] != got; i++)
				;
			if (i == NLOST)
				good = 0;
			else if (seen[i]++)
				twice = 1;
		}
		fclose(fp);
	}
	for (i = 0; i < k && !is_memory; i++)
		if (waitpid(pid[i], &status, 0) == -1 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			good = 0;
	ok(good && k == NMARKERS, "%d markers ran", NMARKERS);
	for (i = 0; i < NLOST; i++)
		if (!seen[i])
			good = 0;
	ok(good && !twice, "each of D's runs was handed to exactly one");
}

/*
 * Claims that no record follows (the claimant died between its claim
 * and the record of the start): a dead node's become runs that the
 * node looking marks lost, with no pid, once; a node's own at its
 * start; a late record of the start finds the row and keeps it lost.
 */
static void
test_unrun(struct store *a)
{
	struct store_job	 j;
	struct store_error	 err;
	struct store_run	*r;
	struct store		*e;
	size_t			 n, i, k;
	int64_t			 sms, id;
	time_t			 f;
	int			 won, dr, rec;
	char			 id1[40], id2[40];

	memset(&j, 0, sizeof(j));
	mkid(id1, sizeof(id1), "u", 1);
	mkid(id2, sizeof(id2), "u", 2);
	j.j_owner = "alice";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	j.j_id = id1;
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register a job");
	j.j_id = id2;
	ok(store_jobs_register(a, &j, 1, &err) == 0, "and another");
	if ((e = open_node(url1, "nodeE", 0)) == NULL)
		return;
	ok(store_heartbeat(e, clock_now_ms(), 0, NULL, &sms, &dr, &err) == 0,
	    "E beats");
	f = (time_t)(sms / 1000) - 1;
	ok(store_claim(e, id1, f, &won, &err) == 0 && won,
	    "E claims a fire and records nothing");
	ok(store_claim(e, id2, f, &won, &err) == 0 && won &&
	    store_run_start(e, id2, f, 1, 42, sms, &id, &err) == 0,
	    "E claims another and records its start");
	ok(store_fire_recorded(a, id1, f, &rec, &err) == 0 && rec == 0,
	    "the first fire has no record");
	ok(store_fire_recorded(a, id2, f, &rec, &err) == 0 && rec == 1,
	    "the second has one");
	ok(store_runs_mark_lost(a, 3600000, &r, &n, &err) == 0 && n == 0,
	    "nothing lost while E beats");
	store_runs_free(r, n);
	ok(store_runs_mark_lost(a, -3600000, &r, &n, &err) == 0,
	    "E silent: A looks");
	for (i = k = 0; i < n; i++)
		if (strcmp(r[i].r_node, "nodeE") == 0 &&
		    strcmp(r[i].r_job, id1) == 0 && r[i].r_fire == f &&
		    r[i].r_attempt == 1 && r[i].r_pid == 0 &&
		    r[i].r_state == RUN_LOST)
			k++;
	store_runs_free(r, n);
	is_int(k, 1, "the claim without a record is handed to A as attempt "
	    "1 lost, with no pid");
	ok(store_fire_recorded(a, id1, f, &rec, &err) == 0 && rec == 1,
	    "the fire has a record now");
	ok(store_runs_mark_lost(a, -3600000, &r, &n, &err) == 0, "A looks "
	    "again");
	for (i = k = 0; i < n; i++)
		if (strcmp(r[i].r_job, id1) == 0)
			k++;
	store_runs_free(r, n);
	is_int(k, 0, "and is handed nothing of it twice");
	ok(store_run_start(e, id1, f, 1, 77, sms, &id, &err) == 0 &&
	    store_run_end(e, id, sms + 5, 0, "late", 4, &err) == 0,
	    "E records the start and end after all");
	ok(store_runs_list(a, id1, 0, &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_state == RUN_LOST && r[0].r_outlen == 4 &&
	    strcmp(r[0].r_output, "late") == 0 && r[0].r_pid == 77 &&
	    r[0].r_start == sms,
	    "one row, still lost, with its pid, start and end");
	store_runs_free(r, n);
	store_close(e);

	/* A node's own claims, at its next start. */
	if ((e = open_node(url1, "nodeF", 0)) == NULL)
		return;
	ok(store_claim(e, id1, f + 60, &won, &err) == 0 && won,
	    "F claims and records nothing");
	ok(store_claims_unrun(e, f + 61, &n, &err) == 0 && n == 0,
	    "a claim before the bound is left alone");
	ok(store_claims_unrun(e, f + 60, &n, &err) == 0 && n == 1,
	    "F's next life finds the claim without a record");
	ok(store_runs_running(e, "nodeF", &r, &n, &err) == 0 && n == 1 &&
	    r[0].r_pid == 0 && r[0].r_fire == f + 60 && r[0].r_attempt == 1,
	    "among its runs recorded running, with no pid");
	store_runs_free(r, n);
	ok(store_claims_unrun(e, f + 60, &n, &err) == 0 && n == 0,
	    "once");
	/* A claim older than the job's oldest record kept is left alone. */
	mkid(id2, sizeof(id2), "u", 3);
	j.j_id = id2;
	ok(store_jobs_register(a, &j, 1, &err) == 0 &&
	    store_claim(e, id2, 1000, &won, &err) == 0 && won &&
	    store_claim(e, id2, 2000, &won, &err) == 0 && won &&
	    store_run_start(e, id2, 2000, 1, 5, sms, &id, &err) == 0 &&
	    store_claim(e, id2, 3000, &won, &err) == 0 && won,
	    "F claims three fires, records the second");
	ok(store_claims_unrun(e, 0, &n, &err) == 0 && n == 1 &&
	    store_fire_recorded(a, id2, 3000, &rec, &err) == 0 && rec == 1 &&
	    store_fire_recorded(a, id2, 1000, &rec, &err) == 0 && rec == 0,
	    "only the one after the oldest record becomes a run (the "
	    "first's record may have been trimmed)");
	store_close(e);
}

static void
test_tables(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_table	*t;
	char			*text;
	int64_t			 v;
	size_t			 n;

	ok(store_table_get(a, "carol", &text, &v, &err) == 0 &&
	    text == NULL && v == 0, "no table yet");
	ok(store_table_put(a, "carol", "* * * * * true\n", 0, &v, &err) ==
	    0 && v == 1, "first version");
	ok(store_table_put(b, "carol", "0 * * * * b\n", 0, &v, &err) == -1 &&
	    err.se_class == STORE_CONFLICT, "second creator conflicts");
	ok(store_table_put(b, "carol", "0 * * * * b\n", 1, &v, &err) == 0 &&
	    v == 2, "update from version 1");
	ok(store_table_put(a, "carol", "stale\n", 1, &v, &err) == -1 &&
	    err.se_class == STORE_CONFLICT && v == 0,
	    "a stale editor conflicts: %s", err.se_msg);
	ok(store_table_get(a, "carol", &text, &v, &err) == 0 && v == 2 &&
	    text != NULL && strcmp(text, "0 * * * * b\n") == 0,
	    "the newer text stays");
	free(text);
	ok(store_tables_list(a, &t, &n, &err) == 0 && n == 1 &&
	    t[0].t_version == 2, "listed");
	store_tables_free(t, n);
	ok(store_table_put(a, "carol", NULL, 2, &v, &err) == 0 && v == 3,
	    "delete is a new version");
	ok(store_table_get(a, "carol", &text, &v, &err) == 0 &&
	    text == NULL && v == 3, "deleted, version kept");
	ok(store_tables_list(a, &t, &n, &err) == 0 && n == 0,
	    "not listed once deleted");
	store_tables_free(t, n);
	ok(store_table_put(a, "carol", "x\n", 1, &v, &err) == -1,
	    "an editor from before the deletion conflicts");
	ok(store_table_put(a, "carol", "x\n", 3, &v, &err) == 0 && v == 4,
	    "a new table after the deletion");
}

/* Retry a lost claim until the back-off lets the store answer. */
static int
claim_again(struct store *st, const char *id, time_t fire, int *won,
    struct store_error *err)
{
	int	 i, rc = -1;

	for (i = 0; i < 500; i++) {
		if ((rc = store_claim(st, id, fire, won, err)) == 0)
			break;
		usleep(10000);
	}
	return (rc);
}

static int
batch_again(struct store *st, const char *const *ids, size_t n, time_t fire,
    size_t max, unsigned char *won, size_t *nwon, struct store_error *err)
{
	int	 i, rc = -1;

	for (i = 0; i < 500; i++) {
		if ((rc = store_claim_batch(st, ids, n, fire, max, won, nwon,
		    err)) == 0)
			break;
		usleep(10000);
	}
	return (rc);
}

/*
 * A loses the result of a claim that committed and, before it can ask
 * again, B claims the next two fires, so the job's row names B and a
 * later fire: A must still learn that the fire was its own (else nobody
 * runs it), from the claims table.  Then the same for a batch, and for
 * a batch asked again with fewer free slots than it had claimed.
 * Returns the last fire used.
 */
static int
test_moved_on(struct store *a, struct store *b, const char *id,
    const char *const *bids, int fire)
{
	struct store_error	 err;
	unsigned char		 won4[4];
	size_t			 nwon;
	int			 won, rc;

	fire += 60;
	store_fault_set("claim.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim(a, id, fire, &won, &err);
	ok(rc == -1 && err.se_lost && !won && store_fault_hits() == 2,
	    "moved on: A's claim committed, its result lost");
	ok(store_claim(b, id, fire + 60, &won, &err) == 0 && won,
	    "moved on: B claims the next fire");
	ok(store_claim(b, id, fire + 120, &won, &err) == 0 && won,
	    "moved on: and the one after");
	ok(claim_again(a, id, fire, &won, &err) == 0 && won == 1,
	    "moved on: A asks again and the fire is its own");
	ok(store_claim(a, id, fire, &won, &err) == 0 && won == 0,
	    "moved on: but not twice");
	ok(store_claim_check(a, id, fire, &won, &err) == 0 && won == 1,
	    "moved on: the claim names A");
	ok(store_claim_check(b, id, fire, &won, &err) == 0 && won == 0,
	    "moved on: not B");
	ok(store_claim_check(b, id, fire + 120, &won, &err) == 0 && won == 1,
	    "moved on: B holds the latest");

	/* Cut before the commit: nothing was claimed, and that is said. */
	fire += 180;
	store_fault_set("claim.note.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim(a, id, fire, &won, &err);
	ok(rc == -1 && err.se_lost && !won,
	    "moved on: a claim cut before its commit is reported lost");
	ok(store_claim(b, id, fire + 60, &won, &err) == 0 && won,
	    "moved on: B claims the next fire");
	ok(claim_again(a, id, fire, &won, &err) == 0 && won == 0,
	    "moved on: A learns the cut claim did not win");
	ok(store_claim_check(b, id, fire, &won, &err) == 0 && won == 0,
	    "moved on: and nobody holds that fire");

	fire += 120;
	store_fault_set("batch.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == -1 && err.se_lost && nwon == 0,
	    "moved on: A's batch committed, its result lost");
	ok(store_claim_batch(b, bids, 4, fire + 60, 4, won4, &nwon, &err) ==
	    0 && nwon == 4, "moved on: B batch-claims the next fire");
	ok(store_claim_batch(b, bids, 4, fire + 120, 4, won4, &nwon, &err) ==
	    0 && nwon == 4, "moved on: and the one after");
	rc = batch_again(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == 0 && nwon == 4 && won4[0] && won4[1] && won4[2] && won4[3],
	    "moved on: A asks again and all four are its own (%zu)", nwon);
	ok(store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err) == 0 &&
	    nwon == 0, "moved on: but not twice");

	/* Asked again with fewer free slots than the lost batch took. */
	fire += 180;
	store_fault_set("batch.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == -1 && err.se_lost, "moved on: another batch lost");
	ok(store_claim(b, bids[0], fire + 60, &won, &err) == 0 && won,
	    "moved on: B claims a later fire of one of its jobs");
	rc = batch_again(a, bids, 4, fire, 2, won4, &nwon, &err);
	ok(rc == 0 && nwon == 4, "moved on: asked with 2 slots, all four it "
	    "claimed are reported (%zu)", nwon);
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	return (fire + 60);
}

/* A running run of a node that beat once and went silent. */
static int64_t
silent_run(const char *job, time_t fire)
{
	struct store_error	 err;
	struct store		*s;
	int64_t			 id = 0, sms;
	int			 dr;

	if ((s = open_node(url1, "silent", 0)) == NULL)
		return (0);
	if (store_heartbeat(s, clock_now_ms(), 1, NULL, &sms, &dr, &err) == -1 ||
	    store_run_start(s, job, fire, 1, 1, clock_now_ms(), &id,
	    &err) == -1)
		id = 0;
	store_close(s);
	return (id);
}

/* Mark the silent runs lost; count in *got how often run id came back. */
static int
lost_count(struct store *st, int64_t id, int *got, struct store_error *err)
{
	struct store_run	*r;
	size_t			 n, i;
	int			 rc;

	rc = store_runs_mark_lost(st, -3600000, &r, &n, err);
	for (i = 0; i < n; i++)
		if (r[i].r_id == id && r[i].r_state == RUN_LOST)
			(*got)++;
	store_runs_free(r, n);
	return (rc);
}

/*
 * Every fault point: drop the connection there (or fail the statement
 * as a deadlock would) and check that the outcome is still the truth.
 */
#define NREG	260

static void
test_faults(struct store *a, struct store *b)
{
	const char *const	*pt;
	struct store_error	 err;
	struct store_job	 j;
	char			 id[40], bid[4][40];
	const char		*bids[4];
	unsigned char		 won4[4];
	int64_t			 rid, v, sms;
	size_t			 nwon, k;
	int			 won, rc, dr, fire = 10000, i, reached = 0;
	int			 tries, hinted, nback;
	int64_t			 vid;
	struct store_job	 many[NREG], *got, *got2;
	char			 mid[NREG][40], cmdbuf[64];
	const char		*mids[NREG];
	size_t			 gone;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "f", 1);
	j.j_id = id;
	j.j_owner = "faults";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	ok(store_jobs_register(a, &j, 1, &err) == 0, "register fault job");
	for (k = 0; k < 4; k++) {
		mkid(bid[k], sizeof(bid[k]), "fb", (int)k);
		bids[k] = bid[k];
		j.j_id = bid[k];
		store_jobs_register(a, &j, 1, &err);
	}
	j.j_id = id;
	for (k = 0; k < NREG; k++) {
		mkid(mid[k], sizeof(mid[k]), "fr", (int)k);
		many[k] = j;
		many[k].j_id = mid[k];
		mids[k] = mid[k];
	}
	for (pt = store_fault_points(); *pt != NULL; pt++) {
		fire += 60;
		store_fault_set(*pt, 1, STORE_FAULT_DROP);
		/* Points reached only when resolving a lost result. */
		if (strncmp(*pt, "claim.read.", 11) == 0)
			store_fault_add("claim.commit.after", 1,
			    STORE_FAULT_DROP);
		if (strncmp(*pt, "batch.mine.", 11) == 0)
			store_fault_add("batch.commit.after", 1,
			    STORE_FAULT_DROP);
		if (strncmp(*pt, "claim.", 6) == 0) {
			rc = store_claim(a, id, fire, &won, &err);
			if (rc == -1) {
				ok(err.se_lost && !won,
				    "%s: lost, reported so", *pt);
				rc = store_claim(a, id, fire, &won, &err);
			}
			if (rc == -1 && err.se_lost)
				rc = store_claim(a, id, fire, &won, &err);
			ok(rc == 0 && won, "%s: the fire is ours", *pt);
			ok(store_claim(b, id, fire, &won, &err) == 0 && !won,
			    "%s: and no one else's", *pt);
		} else if (strncmp(*pt, "batch.hint.", 11) == 0) {
			/* B holds one of the four, so A reads the rest. */
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			ok(store_claim(b, bids[0], fire, &won, &err) == 0 &&
			    won, "%s: B claims one job", *pt);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_claim_batch(a, bids, 4, fire, 4, won4,
			    &nwon, &err);
			ok(rc == 0 && nwon == 3 && won4[0] == 0 &&
			    won4[1] == 1 && won4[2] == 1 && won4[3] == 1,
			    "%s: the batch stands, the read is done again "
			    "(%d %zu %d)", *pt, rc, nwon, won4[0]);
		} else if (strncmp(*pt, "batch.", 6) == 0) {
			tries = 0;
			rc = store_claim_batch(a, bids, 4, fire, 4, won4,
			    &nwon, &err);
			while (rc == -1 && err.se_lost && tries++ < 3)
				rc = store_claim_batch(a, bids, 4, fire, 4,
				    won4, &nwon, &err);
			/*
			 * Rows the cut transaction still locks (the server
			 * has not yet noticed the dropped connection) are
			 * skipped, as store.h says: claimed alone, as the
			 * daemon does, they wait for the lock.
			 */
			hinted = 1;
			for (k = 0; rc == 0 && k < 4; k++) {
				if (won4[k] == 1)
					continue;
				if (won4[k] != 2)
					hinted = 0;
				if (store_claim(a, bids[k], fire, &won,
				    &err) == -1)
					rc = -1;
				else if (won)
					nwon++;
			}
			ok(rc == 0 && nwon == 4, "%s: all four ours (%zu)",
			    *pt, nwon);
			ok(hinted, "%s: those skipped were said worth trying "
			    "alone (2)", *pt);
			ok(store_claim_batch(b, bids, 4, fire, 4, won4, &nwon,
			    &err) == 0 && nwon == 0, "%s: none B's", *pt);
		} else if (strncmp(*pt, "run_start.", 10) == 0) {
			rc = store_run_start(a, id, fire, 1, 1, fire, &rid,
			    &err);
			if (rc == -1)
				rc = store_run_start(a, id, fire, 1, 1, fire,
				    &rid, &err);
			ok(rc == 0 && rid > 0, "%s: run recorded once", *pt);
			ok(store_run_start(a, id, fire, 1, 1, fire, &v,
			    &err) == 0 && v == rid, "%s: and it is ours",
			    *pt);
			ok(store_run_start(b, id, fire, 1, 1, fire, &v,
			    &err) == 0 && v != rid, "%s: B's is another row",
			    *pt);
		} else if (strncmp(*pt, "run_end.", 8) == 0) {
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			rc = store_run_start(a, id, fire, 1, 1, fire, &rid,
			    &err);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_run_end(a, rid, fire, 0, "ok", 2, &err);
			if (rc == -1)
				rc = store_run_end(a, rid, fire, 0, "ok", 2,
				    &err);
			ok(rc == 0, "%s: run end recorded", *pt);
		} else if (strncmp(*pt, "run_fail.", 9) == 0) {
			struct store_run	*r;
			size_t			 nr;

			rc = store_run_fail(a, id, fire, 1, fire, *pt, &err);
			if (rc == -1)
				rc = store_run_fail(a, id, fire, 1, fire, *pt,
				    &err);
			ok(rc == 0, "%s: failure recorded", *pt);
			ok(store_runs_list(b, id, 1, &r, &nr, &err) == 0 &&
			    nr == 1 && r[0].r_fire == fire &&
			    r[0].r_state == RUN_FAILED, "%s: once", *pt);
			store_runs_free(r, nr);
		} else if (strncmp(*pt, "lost.", 5) == 0) {
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			vid = silent_run(id, fire);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			/* Reached only when settling a lost commit. */
			if (strncmp(*pt, "lost.mine.", 10) == 0)
				store_fault_add("lost.commit.after", 1,
				    STORE_FAULT_DROP);
			nback = 0;
			for (tries = 0; tries < 3; tries++) {
				rc = lost_count(a, vid, &nback, &err);
				if (rc == 0)
					break;
			}
			ok(vid > 0 && rc == 0 && nback == 1, "%s: the silent "
			    "node's run is handed over once (%d)", *pt, nback);
		} else if (strncmp(*pt, "jobs.lock.", 10) == 0 ||
		    strncmp(*pt, "hold.", 5) == 0) {
			/* Let go of first, so that all is written again. */
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			ok(store_jobs_release(a, mids, NREG, &gone, &err) == 0,
			    "%s: let go of", *pt);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_jobs_register(a, many, NREG, &err);
			if (rc == -1)
				rc = store_jobs_register(a, many, NREG, &err);
			ok(rc == 0, "%s: registered", *pt);
			/* Held by A: B letting go of them leaves them. */
			ok(store_jobs_release(b, mids, NREG, &gone, &err) ==
			    0 && gone == 0 && store_job_get(b,
			    many[NREG - 1].j_id, &got, &err) == 0 &&
			    got != NULL, "%s: and held", *pt);
			store_jobs_free(got, 1);
		} else if (strncmp(*pt, "release.", 8) == 0) {
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			ok(store_jobs_register(a, many, NREG, &err) == 0,
			    "%s: registered", *pt);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_jobs_release(a, mids, NREG, &gone, &err);
			if (rc == -1)
				rc = store_jobs_release(a, mids, NREG, &gone,
				    &err);
			ok(rc == 0, "%s: let go of", *pt);
			ok(store_job_get(b, many[0].j_id, &got, &err) == 0 &&
			    store_job_get(b, many[NREG - 1].j_id, &got2,
			    &err) == 0 && got == NULL && got2 == NULL,
			    "%s: and gone", *pt);
			store_jobs_free(got, 1);
			store_jobs_free(got2, 1);
		} else if (strncmp(*pt, "register.", 9) == 0) {
			/* Enough jobs to read the stored digests first. */
			strlcpy(cmdbuf, *pt, sizeof(cmdbuf));
			for (k = 0; k < NREG; k++)
				many[k].j_cmd = cmdbuf;
			rc = store_jobs_register(a, many, NREG, &err);
			if (rc == -1)
				rc = store_jobs_register(a, many, NREG, &err);
			ok(rc == 0, "%s: registered", *pt);
			ok(store_job_get(b, many[NREG - 1].j_id, &got,
			    &err) == 0 && got != NULL &&
			    strcmp(got->j_cmd, *pt) == 0,
			    "%s: and written", *pt);
			store_jobs_free(got, 1);
		} else if (strncmp(*pt, "beat", 4) == 0) {
			rc = store_heartbeat(a, clock_now_ms(), 0, NULL, &sms,
			    &dr, &err);
			if (rc == -1)
				rc = store_heartbeat(a, clock_now_ms(), 0,
				    NULL, &sms, &dr, &err);
			ok(rc == 0 && sms > 0, "%s: heartbeat", *pt);
		} else if (strncmp(*pt, "table.", 6) == 0) {
			char	*text;

			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			store_table_get(a, "dave", &text, &v, &err);
			free(text);
			store_fault_set(*pt, 1, STORE_FAULT_DROP);
			rc = store_table_put(a, "dave", *pt, v, &v, &err);
			if (rc == -1 && err.se_lost)
				rc = store_table_put(a, "dave", *pt, v, &v,
				    &err);
			ok(rc == 0, "%s: table written once (%s)", *pt,
			    err.se_msg);
		} else if (strncmp(*pt, "at.", 3) == 0) {
			/* One-shot jobs: walked by tests/unit/store_at. */
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			continue;
		} else if (strcmp(*pt, "connect.before") == 0) {
			/* Walked below, with the resolution it delays. */
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			reached++;
			continue;
		} else
			ok(0, "%s: fault point not walked", *pt);
		if (store_fault_hits() > 0)
			reached++;
		else
			diag("%s is not reached on %s", *pt,
			    store_backend(a));
		store_fault_set(NULL, 1, STORE_FAULT_NONE);
	}
	ok(reached >= (is_mysql ? 55 : 57), "%d fault points reached",
	    reached);

	/*
	 * The result is lost and so is the way back: the call reports
	 * the loss, and a later call, once the back-off allows, learns
	 * the truth from the row.
	 */
	fire += 60;
	store_fault_set(is_mysql ? "claim.after" : "claim.commit.after", 1,
	    STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim(a, id, fire, &won, &err);
	ok(rc == -1 && err.se_lost && !won,
	    "lost result, no reconnection: reported lost (%s)", err.se_msg);
	ok(store_fault_hits() == 2, "both faults hit");
	for (i = 0; i < 500; i++) {
		if ((rc = store_claim(a, id, fire, &won, &err)) == 0)
			break;
		usleep(10000);
	}
	ok(rc == 0 && won, "a later call finds the fire was ours");
	ok(store_claim(b, id, fire, &won, &err) == 0 && !won,
	    "and no one else's");
	fire += 60;
	store_fault_set("batch.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == -1 && err.se_lost && nwon == 0,
	    "batch: lost result, no reconnection: reported lost");
	for (i = 0; i < 500; i++) {
		if ((rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon,
		    &err)) == 0)
			break;
		usleep(10000);
	}
	ok(rc == 0 && nwon == 4, "batch: a later call finds all four ours");
	ok(store_claim_batch(b, bids, 4, fire, 4, won4, &nwon, &err) == 0 &&
	    nwon == 0, "batch: and none B's");
	/*
	 * The read after the batch fails and cannot reconnect: the batch's
	 * wins stand and every job not won is worth trying alone.
	 */
	fire += 60;
	ok(store_claim(b, bids[0], fire, &won, &err) == 0 && won,
	    "hint lost: B claims one job");
	store_fault_set("batch.hint.before", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == 0 && nwon == 3 && won4[0] == 2 && store_fault_hits() == 2,
	    "hint lost: three won, the fourth said worth trying alone");
	ok(claim_again(a, bids[0], fire, &won, &err) == 0 && !won,
	    "hint lost: alone, it is found B's");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	/*
	 * Runs marked lost by a commit whose result was lost, and no way
	 * back: a later call hands them over.
	 */
	fire += 60;
	vid = silent_run(id, fire);
	store_fault_set("lost.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	nback = 0;
	rc = lost_count(a, vid, &nback, &err);
	ok(rc == -1 && err.se_lost && nback == 0 && store_fault_hits() == 2,
	    "lost marks, result lost: reported lost");
	for (i = 0; i < 500; i++) {
		if ((rc = lost_count(a, vid, &nback, &err)) == 0)
			break;
		usleep(10000);
	}
	ok(rc == 0 && nback == 1, "a later call hands the run over (%d)",
	    nback);
	nback = 0;
	ok(lost_count(b, vid, &nback, &err) == 0 && nback == 0,
	    "and no other node gets it");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	/* A lost batch settled one claim at a time. */
	fire += 60;
	store_fault_set("batch.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim_batch(a, bids, 4, fire, 4, won4, &nwon, &err);
	ok(rc == -1 && err.se_lost, "batch lost again");
	for (i = 0; i < 500; i++) {
		if ((rc = store_claim(a, bids[0], fire, &won, &err)) == 0)
			break;
		usleep(10000);
	}
	for (k = 1; k < 4 && rc == 0 && won; k++)
		rc = store_claim(a, bids[k], fire, &won, &err);
	ok(rc == 0 && won && k == 4,
	    "each job of the lost batch is found ours by a single claim");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	fire = test_moved_on(a, b, id, bids, fire);

	/* A deadlock is retried; a failure is reported, never a win. */
	fire += 60;
	store_fault_set("claim.before", 1, STORE_FAULT_RETRY);
	ok(store_claim(a, id, fire, &won, &err) == 0 && won &&
	    store_fault_hits() == 1, "a deadlock is retried");
	fire += 60;
	store_fault_set("claim.before", 1, STORE_FAULT_FAIL);
	ok(store_claim(a, id, fire, &won, &err) == -1 && !won &&
	    err.se_class == STORE_FATAL, "a failure is no win");
	ok(store_claim(a, id, fire, &won, &err) == 0 && won,
	    "and the fire is still there to claim");
	/* The Nth call of any point. */
	for (i = 1; i <= 3; i++) {
		fire += 60;
		store_fault_set("*", (unsigned int)i, STORE_FAULT_DROP);
		rc = store_claim(a, id, fire, &won, &err);
		if (rc == -1)
			rc = store_claim(a, id, fire, &won, &err);
		ok(rc == 0 && won, "drop at call %d: the fire is ours", i);
	}
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
}

/* How many rows node has for (job, fire), seen from store st. */
static int
batch_rows(struct store *st, const char *job, time_t fire, const char *node)
{
	struct store_error	 err;
	struct store_run	*r;
	size_t			 n, i;
	int			 c = 0;

	if (store_runs_list(st, job, 0, &r, &n, &err) == -1)
		return (-1);
	for (i = 0; i < n; i++)
		if (r[i].r_fire == fire && strcmp(r[i].r_node, node) == 0)
			c++;
	store_runs_free(r, n);
	return (c);
}

#define NBATCH	5

/* Many starts and ends in one call: as the single calls, in order. */
static void
test_run_batches(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_run_start	 rs[NBATCH];
	struct store_run_end	 re[NBATCH];
	struct store_run	*r;
	int64_t			 ids[NBATCH], again[NBATCH], one, now;
	char			 job[NBATCH][40];
	size_t			 i, n, k;
	int			 good;
	static const char	*outs[NBATCH] = {
		"", "out", "0123456789abcdefghij", NULL, "x"
	};

	now = clock_now_ms();
	memset(rs, 0, sizeof(rs));
	for (i = 0; i < NBATCH; i++) {
		mkid(job[i], sizeof(job[i]), "rb", (int)i);
		rs[i].rs_job = job[i];
		rs[i].rs_fire = 600 + (time_t)i % 2;
		rs[i].rs_attempt = 1 + (int)(i == 3);
		rs[i].rs_pid = 100 + (int)i;
		rs[i].rs_start = now + (int64_t)i;
	}
	ok(store_runs_start_batch(a, rs, 0, ids, &err) == 0,
	    "an empty batch of starts");
	/* One of them recorded alone first: the batch finds it. */
	ok(store_run_start(a, job[2], rs[2].rs_fire, 1, 102, now, &one,
	    &err) == 0 && one > 0, "one start recorded alone");
	ok(store_runs_start_batch(a, rs, NBATCH, ids, &err) == 0,
	    "a batch of %d starts", NBATCH);
	good = ids[2] == one;
	for (i = 0; i < NBATCH; i++) {
		if (ids[i] <= 0)
			good = 0;
		for (k = 0; k < i; k++)
			if (ids[k] == ids[i])
				good = 0;
	}
	ok(good, "an id each, the one recorded before kept");
	ok(store_runs_start_batch(a, rs, NBATCH, again, &err) == 0 &&
	    memcmp(ids, again, sizeof(ids)) == 0,
	    "the same batch again gives the same ids");
	ok(store_run_start(a, job[4], rs[4].rs_fire, rs[4].rs_attempt, 1,
	    now, &one, &err) == 0 && one == ids[4],
	    "and so does a single start");
	ok(store_runs_start_batch(b, rs, NBATCH, again, &err) == 0 &&
	    again[0] != ids[0] && again[0] > 0,
	    "another node's batch gets rows of its own");
	for (i = good = 0; i < NBATCH; i++)
		good += batch_rows(b, job[i], rs[i].rs_fire, "nodeA") == 1;
	ok(good == NBATCH, "one row per start of the batch (%d)", good);
	rs[1].rs_attempt = 0;
	ok(store_runs_start_batch(a, rs, NBATCH, again, &err) == -1 &&
	    err.se_class == STORE_FATAL && again[0] == 0,
	    "a batch with attempt 0 is refused whole");
	rs[1].rs_attempt = 1;

	/* The ends. */
	memset(re, 0, sizeof(re));
	for (i = 0; i < NBATCH; i++) {
		re[i].re_id = ids[i];
		re[i].re_end = now + 1000 + (int64_t)i;
		re[i].re_status = i == 1 ? 15 : (int)i << 8;
		re[i].re_out = outs[i];
		re[i].re_outlen = outs[i] != NULL ? strlen(outs[i]) : 0;
	}
	ok(store_runs_end_batch(a, re, 0, &err) == 0,
	    "an empty batch of ends");
	/* Run 4 was marked lost meanwhile: it stays lost. */
	ok(store_run_lost(b, ids[4], &good, &err) == 0 && good,
	    "one run of the batch marked lost");
	ok(store_runs_end_batch(a, re, NBATCH, &err) == 0,
	    "a batch of %d ends", NBATCH);
	ok(store_runs_end_batch(a, re, NBATCH, &err) == 0,
	    "the same ends again");
	for (i = 0; i < NBATCH; i++) {
		if (store_runs_list(b, job[i], 0, &r, &n, &err) == -1)
			n = 0;
		/* Node A's row, not B's. */
		for (k = 0; k < n && r[k].r_id != ids[i]; k++)
			;
		if (k == n) {
			ok(0, "run %zu listed", i);
			store_runs_free(r, n);
			continue;
		}
		ok(r[k].r_end == re[i].re_end &&
		    r[k].r_state == (i == 4 ? RUN_LOST : RUN_FINISHED),
		    "end %zu recorded (%s)", i,
		    store_run_state_name(r[k].r_state));
		if (i == 1)
			ok(r[k].r_signal == 15 && r[k].r_exit == -1,
			    "end %zu: signalled", i);
		else
			ok(r[k].r_exit == (int)i && r[k].r_signal == 0,
			    "end %zu: exit status %d", i, r[k].r_exit);
		ok(r[k].r_outtotal == (int64_t)re[i].re_outlen &&
		    r[k].r_outlen == (re[i].re_outlen < 16 ? re[i].re_outlen :
		    16) && (r[k].r_outlen == 0 || memcmp(r[k].r_output,
		    outs[i], r[k].r_outlen) == 0), "end %zu: output", i);
		store_runs_free(r, n);
	}
}

/*
 * A batch cut at every statement, before it and once it was carried
 * out, and at its commit: the store reconnects and writes it again,
 * with no start twice and every end in.  With no way back, the call
 * fails with every id 0, and a later call puts it right.
 */
static void
test_batch_faults(struct store *a, struct store *b)
{
	static const char *const points[] = {
		"run_start.before", "run_start.after",
		"run_start.commit.before", "run_start.commit.after",
		"run_start.find.before", "run_start.find.after",
		"run_end.before", "run_end.after",
		"run_end.commit.before", "run_end.commit.after",
		NULL
	};
	const char *const	*pt;
	struct store_error	 err;
	struct store_run_start	 rs[NBATCH];
	struct store_run_end	 re[NBATCH];
	struct store_run	*r;
	int64_t			 ids[NBATCH], again[NBATCH];
	char			 job[NBATCH][40];
	size_t			 i, n;
	unsigned int		 nth, last;
	int			 rc, good, hits, fire = 5000;

	memset(rs, 0, sizeof(rs));
	memset(re, 0, sizeof(re));
	for (i = 0; i < NBATCH; i++) {
		mkid(job[i], sizeof(job[i]), "bf", (int)i);
		rs[i].rs_job = job[i];
		rs[i].rs_attempt = 1;
		rs[i].rs_pid = 1;
		re[i].re_out = "done";
		re[i].re_outlen = 4;
	}
	for (pt = points; *pt != NULL; pt++) {
		/* Statements are walked one by one, commits once. */
		last = strstr(*pt, ".commit.") != NULL ? 1 : NBATCH;
		for (nth = 1; nth <= last; nth++) {
			fire += 60;
			for (i = 0; i < NBATCH; i++) {
				rs[i].rs_fire = fire;
				rs[i].rs_start = fire;
				re[i].re_end = fire + 1;
			}
			/* Found only for starts already in: the first two. */
			if (strncmp(*pt, "run_start.find.", 15) == 0 &&
			    (nth > 2 || store_runs_start_batch(a, rs, 2, ids,
			    &err) == -1))
				continue;
			if (strncmp(*pt, "run_end.", 8) == 0 &&
			    store_runs_start_batch(a, rs, NBATCH, ids,
			    &err) == -1) {
				ok(0, "%s %u: starts", *pt, nth);
				continue;
			}
			store_fault_set(*pt, nth, STORE_FAULT_DROP);
			if (strncmp(*pt, "run_start.", 10) == 0) {
				rc = store_runs_start_batch(a, rs, NBATCH, ids,
				    &err);
				if (rc == -1 && err.se_lost)
					rc = store_runs_start_batch(a, rs,
					    NBATCH, ids, &err);
			} else {
				for (i = 0; i < NBATCH; i++)
					re[i].re_id = ids[i];
				rc = store_runs_end_batch(a, re, NBATCH, &err);
				if (rc == -1 && err.se_lost)
					rc = store_runs_end_batch(a, re, NBATCH,
					    &err);
			}
			hits = (int)store_fault_hits();
			store_fault_set(NULL, 1, STORE_FAULT_NONE);
			ok(rc == 0 && hits == 1, "%s %u: batch written (%s)",
			    *pt, nth, rc == 0 ? "" : err.se_msg);
			ok(store_runs_start_batch(a, rs, NBATCH, again,
			    &err) == 0 && memcmp(ids, again, sizeof(ids)) == 0,
			    "%s %u: the ids stand", *pt, nth);
			for (i = good = 0; i < NBATCH; i++)
				good += batch_rows(b, job[i], fire,
				    "nodeA") == 1;
			ok(good == NBATCH, "%s %u: each start once (%d)", *pt,
			    nth, good);
			if (strncmp(*pt, "run_end.", 8) != 0)
				continue;
			for (i = good = 0; i < NBATCH; i++) {
				if (store_runs_list(b, job[i], 1, &r, &n,
				    &err) == 0 && n == 1 &&
				    r[0].r_state == RUN_FINISHED &&
				    r[0].r_end == fire + 1)
					good++;
				store_runs_free(r, n);
			}
			ok(good == NBATCH, "%s %u: every end in (%d)", *pt,
			    nth, good);
		}
	}

	/* Cut mid-batch with no way back; later it goes in once. */
	fire += 60;
	for (i = 0; i < NBATCH; i++) {
		rs[i].rs_fire = fire;
		rs[i].rs_start = fire;
	}
	store_fault_set("run_start.after", 3, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_runs_start_batch(a, rs, NBATCH, ids, &err);
	for (i = good = 0; i < NBATCH; i++)
		good += ids[i] == 0;
	ok(rc == -1 && err.se_lost && good == NBATCH &&
	    store_fault_hits() == 2,
	    "cut with no way back: reported lost, no ids");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	for (i = 0; i < NBATCH; i++)
		good += batch_rows(b, job[i], fire, "nodeA");
	ok(good == NBATCH, "and nothing of it is in");
	for (i = 0; i < 500; i++) {
		if ((rc = store_runs_start_batch(a, rs, NBATCH, ids,
		    &err)) == 0)
			break;
		usleep(10000);
	}
	for (i = good = 0; rc == 0 && i < NBATCH; i++)
		good += batch_rows(b, job[i], fire, "nodeA") == 1;
	ok(rc == 0 && good == NBATCH, "a later call writes it once");
	/* The same at the commit, whose result is lost: it is in. */
	fire += 60;
	for (i = 0; i < NBATCH; i++) {
		rs[i].rs_fire = fire;
		rs[i].rs_start = fire;
	}
	store_fault_set("run_start.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_runs_start_batch(a, rs, NBATCH, ids, &err);
	ok(rc == -1 && err.se_lost && ids[0] == 0,
	    "commit's result lost, no way back: reported lost");
	store_fault_set(NULL, 1, STORE_FAULT_NONE);
	for (i = 0; i < 500; i++) {
		if ((rc = store_runs_start_batch(a, rs, NBATCH, ids,
		    &err)) == 0)
			break;
		usleep(10000);
	}
	for (i = good = 0; rc == 0 && i < NBATCH; i++)
		good += batch_rows(b, job[i], fire, "nodeA") == 1 &&
		    ids[i] > 0;
	ok(rc == 0 && good == NBATCH,
	    "a later call finds every start, each once");
}

static void
test_schema(void)
{
	struct store_error	 err;
	struct store		*st;
	int			 v, rc;

	if ((st = open_node(url1, "nodeA", 0)) == NULL) {
		ok(0, "reopen");
		return;
	}
	rc = store_schema_version(st, &v, &err);
	ok(rc == 0 && v == store_schema_current(), "schema at version %d", v);
	ok(store_schema_force(st, store_schema_current() + 1, &err) == 0,
	    "pretend a newer clustercron wrote it");
	store_close(st);
	ok(open_node(url1, "nodeA", 0) == NULL, "a newer schema is refused");
	{
		struct store_config	 cf;

		memset(&cf, 0, sizeof(cf));
		cf.sc_url = url1;
		cf.sc_mysql_file = cnf;
		st = NULL;
		ok(store_open(&cf, &st, &err) == -1 &&
		    strstr(err.se_msg, "newer than this clustercron") !=
		    NULL && strstr(err.se_msg, "upgrade") != NULL,
		    "with a clear message: %s", err.se_msg);
	}

	/*
	 * Migration from version 1 to 2, from 2 to 3, then from 3 to the
	 * current one, and from 4 to the current one (on SQLite also from
	 * 1 to the current one at once).
	 */
	if (!is_mysql) {
		test_migrate(url3, 0);
		test_migrate(url4, 4);
	}
	test_migrate(url2, 3);
}

/*
 * Migrate a version 1 store one version at a time up to `via', then
 * to the current version; at once when via is 0.
 */
static void
test_migrate(const char *url, int via)
{
	struct store_error	 err;
	struct store		*st;
	struct store_job	*job;
	struct store_run	*r;
	size_t			 n;
	int64_t			 id, id2;
	int			 v, won, rc, step;

	if ((st = open_node(url, "nodeA", 1)) == NULL) {
		ok(0, "open at version 1");
		return;
	}
	ok(store_schema_version(st, &v, &err) == 0 && v == 1,
	    "a version 1 store");
	ok(store_test_seed_v1(st, &err) == 0, "with old rows %s",
	    err.se_msg);
	store_close(st);
	for (step = 2; via != 0 && step <= via; step++) {
		if ((st = open_node(url, "nodeA", step)) == NULL) {
			ok(0, "migrate to version %d", step);
			return;
		}
		rc = store_schema_version(st, &v, &err);
		ok(rc == 0 && v == step, "migrated to version %d", v);
		store_close(st);
	}
	if ((st = open_node(url, "old-node", 0)) == NULL) {
		ok(0, "migrate");
		return;
	}
	rc = store_schema_version(st, &v, &err);
	ok(rc == 0 && v == store_schema_current(), "migrated to version %d",
	    v);
	ok(store_claim_check(st, "0123456789abcdef0123456789abcdef",
	    1700000000, &won, &err) == 0 && won,
	    "the job's last claim is carried into the claims");
	/* Version 4: runs are per node; the old run keeps its id. */
	ok(store_runs_list(st, "0123456789abcdef0123456789abcdef", 0, &r, &n,
	    &err) == 0 && n == 2, "old runs there");
	id = n == 2 ? r[1].r_id : -1;
	store_runs_free(r, n);
	ok(store_run_start(st, "0123456789abcdef0123456789abcdef", 1699999700,
	    1, 42, 1699999700000, &id2, &err) == 0 && id2 == id,
	    "its node finds its old run by the new key");
	store_close(st);
	if ((st = open_node(url, "nodeA", 0)) == NULL) {
		ok(0, "reopen migrated");
		return;
	}
	ok(store_job_get(st, "0123456789abcdef0123456789abcdef", &job,
	    &err) == 0 && job != NULL, "old job kept");
	if (job != NULL) {
		is_int(job->j_last_fire, 1700000000, "its last fire");
		is_str(job->j_claimed_by, "old-node", "its claimant");
		is_int(job->j_paused, 0, "not paused");
		is_str(job->j_name, "", "no name");
	}
	store_jobs_free(job, 1);
	ok(store_run_start(st, "0123456789abcdef0123456789abcdef", 1699999700,
	    1, 7, 1699999700000, &id2, &err) == 0 && id2 != id,
	    "another node records its own run of the old fire");
	ok(store_run_fail(st, "0123456789abcdef0123456789abcdef", 1699999700,
	    2, 1699999700000, "no such user", &err) == 0,
	    "and a run that failed to start");
	ok(store_runs_list(st, "0123456789abcdef0123456789abcdef", 0, &r, &n,
	    &err) == 0 && n == 4, "old runs kept");
	if (n == 4) {
		is_int(r[0].r_state, RUN_FAILED, "the new failed run");
		is_int(r[2].r_state, RUN_RUNNING, "unfinished run: running");
		is_int(r[3].r_state, RUN_FINISHED, "finished run");
		is_int(r[3].r_exit, 3, "its exit status");
		is_int(r[3].r_attempt, 1, "attempt 1");
		is_str(r[3].r_output, "done", "its output");
	}
	store_runs_free(r, n);
	ok(store_claim(st, "0123456789abcdef0123456789abcdef", 1700000000,
	    &won, &err) == 0 && !won, "an old claim still holds");
	ok(store_claim(st, "0123456789abcdef0123456789abcdef", 1700000300,
	    &won, &err) == 0 && won, "the next fire is claimed");
	ok(store_claim_check(st, "0123456789abcdef0123456789abcdef",
	    1700000300, &won, &err) == 0 && won, "and recorded");
	store_close(st);
	/*
	 * Version 5: the old job is taken to be held by every node the
	 * store knew, here old-node; nodeA, which never held it, letting
	 * go changes nothing, and old-node's first sync without it lets it
	 * go.  Its runs and description stay.
	 */
	if ((st = open_node(url, "nodeA", 0)) == NULL) {
		ok(0, "reopen migrated");
		return;
	}
	{
		const char	*old = "0123456789abcdef0123456789abcdef";
		size_t		 gone;

		ok(store_jobs_release(st, &old, 1, &gone, &err) == 0 &&
		    gone == 0 && store_job_get(st, old, &job, &err) == 0 &&
		    job != NULL, "the old job is held by the node the store "
		    "knew");
		store_jobs_free(job, 1);
		store_close(st);
		if ((st = open_node(url, "old-node", 0)) == NULL) {
			ok(0, "reopen migrated");
			return;
		}
		ok(store_jobs_sync(st, NULL, 0, &gone, &err) == 0 &&
		    gone == 1 && store_job_get(st, old, &job, &err) == 0 &&
		    job == NULL, "which lets go of it at its next start");
		ok(store_runs_list(st, old, 0, &r, &n, &err) == 0 && n == 4,
		    "its runs stay");
		store_runs_free(r, n);
		ok(store_jobs_gone(st, &job, &n, &err) == 0 && n == 1 &&
		    strcmp(job[0].j_owner, "alice") == 0 &&
		    strcmp(job[0].j_cmd, "backup") == 0 &&
		    strcmp(job[0].j_sched, "*/5 * * * *") == 0,
		    "and so does what it was");
		store_jobs_free(job, n);
	}
	store_close(st);
}

/*
 * Rows a column short (the fault hook's short kind), as a store whose
 * schema is not this program's might answer: every kind of row is
 * refused with a fatal error saying so, nothing is taken from it, and
 * the store goes on working.
 */
#define SHORT(point, nth, call, what) do {				\
	store_fault_set((point), (nth), STORE_FAULT_SHORT);		\
	ok((call) == -1 && err.se_class == STORE_FATAL &&		\
	    strstr(err.se_msg, "columns") != NULL &&			\
	    store_fault_hits() == 1, "short rows: %s refused (%s)",	\
	    (what), err.se_msg);					\
	store_fault_set(NULL, 0, STORE_FAULT_NONE);			\
} while (0)

static void
test_short_rows(struct store *a, struct store *b)
{
	struct store_error	 err;
	struct store_job	 j, *jl;
	struct store_run	*rl;
	struct store_node	*nl;
	struct store_table	*tl;
	struct store		*s;
	char			 id[40], gid[40], bid[3][40], *text;
	const char		*bids[3], *gids[1];
	unsigned char		 won3[3];
	size_t			 n, nwon, gone, i;
	int64_t			 v, rid, now = clock_now_ms();
	int			 won, held, dr, iv, rc;
	time_t			 fire = 50040;

	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "sr", 1);
	mkid(gid, sizeof(gid), "sg", 1);
	for (i = 0; i < 3; i++) {
		mkid(bid[i], sizeof(bid[i]), "sb", (int)i);
		bids[i] = bid[i];
	}
	gids[0] = gid;
	j.j_owner = "short";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	j.j_id = id;
	ok(store_jobs_register(a, &j, 1, &err) == 0 &&
	    store_claim(a, id, fire, &won, &err) == 0 && won &&
	    store_run_start(a, id, fire, 1, 42, now, &rid, &err) == 0,
	    "short rows: a job claimed and run");
	j.j_id = gid;
	ok(store_jobs_register(a, &j, 1, &err) == 0 &&
	    store_run_start(a, gid, fire, 1, 43, now, &v, &err) == 0 &&
	    store_jobs_release(a, gids, 1, &gone, &err) == 0 && gone == 1,
	    "short rows: a job gone, with a run");
	for (i = 0; i < 3; i++) {
		j.j_id = bid[i];
		ok(store_jobs_register(a, &j, 1, &err) == 0,
		    "short rows: batch job %zu", i);
	}
	j.j_id = id;
	ok(store_table_put(a, "shortowner", "* * * * * true\n", 0, &v,
	    &err) == 0 && store_heartbeat(a, now, 0, NULL, &v, &dr, &err) == 0 &&
	    store_lease_take(b, "shortlease", 600000, &held, &err) == 0 &&
	    held, "short rows: a table, a beat, B's lease");

	jl = (struct store_job *)&err;
	n = 1;
	SHORT("list.before", 1, store_jobs_list(a, "short", &jl, &n, &err),
	    "jobs");
	ok(jl == NULL && n == 0, "short rows: no jobs returned");
	SHORT("list.before", 1, store_job_get(a, id, &jl, &err), "a job");
	SHORT("list.before", 1, store_jobs_gone(a, &jl, &n, &err),
	    "jobs gone");
	SHORT("list.before", 1, store_runs_list(a, id, 0, &rl, &n, &err),
	    "runs");
	ok(rl == NULL && n == 0, "short rows: no runs returned");
	SHORT("list.before", 1, store_nodes_list(a, &nl, &n, &err), "nodes");
	SHORT("list.before", 1, store_tables_list(a, &tl, &n, &err),
	    "tables");
	SHORT("list.before", 1, store_fire_recorded(a, id, fire, &iv, &err),
	    "a count");
	SHORT("now.before", 1, store_now(a, &v, &err), "the store's clock");
	SHORT("meta.before", 1, store_schema_version(a, &iv, &err),
	    "the schema version");
	SHORT("claim.read.before", 1, store_claim_check(a, id, fire, &won,
	    &err), "a claims row");
	SHORT("batch.select.before", 1, store_claim_batch(a, bids, 3,
	    fire, 3, won3, &nwon, &err), "a batch's selection");
	ok(store_claim_batch(a, bids, 3, fire, 3, won3, &nwon, &err) == 0 &&
	    nwon == 3, "short rows: the batch refused had claimed nothing");
	/*
	 * The read after a batch, of the jobs it did not win: refused, it
	 * is not reported, and every job not won may be free (2) where B's
	 * would be 0.
	 */
	ok(store_claim(b, bids[0], fire + 60, &won, &err) == 0 && won,
	    "short rows: B claims one");
	store_fault_set("batch.hint.before", 1, STORE_FAULT_SHORT);
	ok(store_claim_batch(a, bids, 3, fire + 60, 1, won3, &nwon,
	    &err) == 0 && nwon == 1 && won3[0] == 2 && won3[1] == 1 &&
	    won3[2] == 2 && store_fault_hits() == 1, "short rows: the read "
	    "after a batch refused, its jobs not won said worth trying "
	    "alone");
	SHORT("run_start.find.before", 1, store_run_start(a, id, fire, 1, 42,
	    now, &v, &err), "a run found again");
	ok(store_run_start(a, id, fire, 1, 42, now, &v, &err) == 0 &&
	    v == rid, "short rows: found again without the fault");
	SHORT("beat.read.before", 1, store_heartbeat(a, now, 0, NULL, &v, &dr,
	    &err), "a heartbeat");
	SHORT("lease.before", 3, store_lease_take(a, "shortlease", 600000,
	    &held, &err), "a lease's holder");
	SHORT("table.get.before", 1, store_table_get(a, "shortowner", &text,
	    &v, &err), "a table");
	SHORT("lost.before", 1, store_runs_mark_lost(a, 3600000, &rl, &n,
	    &err), "the clock of runs lost");
	if ((s = open_node(url1, "nodeS", 0)) == NULL) {
		ok(0, "short rows: node S opens the store");
		return;
	}
	/* The lock of the jobs is taken by writes: no rows to cut short. */
	SHORT("register.scan.before", 1, store_jobs_sync(s, &j, 1, &gone,
	    &err), "digests");
	ok(store_jobs_register(s, &j, 1, &err) == 0, "short rows: S holds");
	SHORT("register.scan.before", 2, store_jobs_sync(s, &j, 1, &gone,
	    &err), "a node's holds");
	store_close(s);
	rc = store_jobs_list(a, "short", &jl, &n, &err);
	ok(rc == 0 && n == 4, "short rows: the store goes on (%zu jobs)", n);
	store_jobs_free(jl, n);
}
#undef SHORT

/*
 * The faults a text arms (CLUSTERCRON_TEST_FAULTS of the test daemon):
 * armed as written; malformed text refused, saying why, arming none.
 */
static void
test_fault_spec(struct store *a)
{
	static const char *const bad[] = {
		"now.before:1", "now.before:x:fail", "now.before:0:fail",
		"now.before:1:explode", ":1:fail",
		/* One more than FAULT_MAX (16). */
		"a.before:1:fail,b.before:1:fail,c.before:1:fail,"
		    "d.before:1:fail,e.before:1:fail,f.before:1:fail,"
		    "g.before:1:fail,h.before:1:fail,i.before:1:fail,"
		    "j.before:1:fail,k.before:1:fail,l.before:1:fail,"
		    "m.before:1:fail,n.before:1:fail,o.before:1:fail,"
		    "p.before:1:fail,now.before:1:fail",
	};
	struct store_error	 err;
	int64_t			 v;
	size_t			 i;

	ok(store_fault_spec(NULL, &err) == 0 &&
	    store_fault_spec("", &err) == 0, "fault spec: none");
	ok(store_fault_spec("meta.before:1:drop,now.before:2:fail", &err) ==
	    0, "fault spec: two faults");
	ok(store_now(a, &v, &err) == 0 && v > 0,
	    "fault spec: the first reach of a point passes");
	ok(store_now(a, &v, &err) == -1 && err.se_class == STORE_FATAL &&
	    strstr(err.se_msg, "injected") != NULL && store_fault_hits() == 1,
	    "fault spec: the second fails: %s", err.se_msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(store_fault_spec(bad[i], &err) == -1 &&
		    err.se_class == STORE_FATAL && *err.se_msg != '\0',
		    "fault spec \"%s\" refused: %s", bad[i], err.se_msg);
		ok(store_now(a, &v, &err) == 0 && store_now(a, &v, &err) == 0,
		    "... arming none");
	}
	store_fault_set(NULL, 0, STORE_FAULT_NONE);
}

/*
 * Memory stores: one database a name, shared by the stores of this
 * process, kept when a connection drops or its stores close, separate
 * from another name's; a claim whose commit's answer was lost is
 * settled truthfully without waiting for the back-off.
 */
static void
test_memory(void)
{
	static const char *const bad[] = {
		"memory:", "memory:a/b", "memory:a b",
		"memory:12345678901234567890123456789012345678901234567890"
		    "123456789012345",
	};
	struct store_error	 err;
	struct store_job	 j, *jl;
	struct store		*x, *y, *z;
	struct store_url	 su;
	char			 id[40];
	size_t			 i, n;
	int			 won, rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(store_url_parse(bad[i], &su, &err) == -1 &&
		    su.su_path == NULL, "memory: \"%s\" refused: %s", bad[i],
		    err.se_msg);
	ok(store_url_parse("memory:m-1.x_y", &su, &err) == 0 &&
	    su.su_backend == STORE_MEMORY &&
	    strcmp(su.su_path, "m-1.x_y") == 0, "memory: a name");
	store_url_free(&su);

	x = open_node("memory:mem1", "nodeX", 0);
	y = open_node("memory:mem1", "nodeY", 0);
	z = open_node("memory:mem2", "nodeZ", 0);
	ok(x != NULL && y != NULL && z != NULL, "memory: three stores open");
	if (x == NULL || y == NULL || z == NULL)
		goto out;
	is_str(store_backend(x), "memory", "memory: its backend");
	memset(&j, 0, sizeof(j));
	mkid(id, sizeof(id), "m", 1);
	j.j_id = id;
	j.j_owner = "mem";
	j.j_sched = "* * * * *";
	j.j_cmd = "true";
	ok(store_jobs_register(x, &j, 1, &err) == 0 &&
	    store_claim(x, id, 60, &won, &err) == 0 && won,
	    "memory: X registers and claims");
	ok(store_claim(y, id, 60, &won, &err) == 0 && !won,
	    "memory: Y, on the same name, does not win the fire");
	ok(store_jobs_list(z, NULL, &jl, &n, &err) == 0 && n == 0,
	    "memory: another name is another store");
	store_jobs_free(jl, n);

	/* The answer of a commit lost, and no way back at once. */
	store_fault_set("claim.commit.after", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim(x, id, 120, &won, &err);
	ok(rc == -1 && err.se_lost && !won && store_fault_hits() == 2,
	    "memory: a claim in doubt is reported lost (%s)", err.se_msg);
	ok(store_claim(x, id, 120, &won, &err) == -1 && err.se_lost,
	    "memory: the back-off holds the next call");
	store_fault_reconnect(x);
	ok(store_claim(x, id, 120, &won, &err) == 0 && won,
	    "memory: once let through, the fire is found X's");
	ok(store_claim(y, id, 120, &won, &err) == 0 && !won,
	    "memory: and not Y's");
	/* Cut before its commit: nothing of it is in the store. */
	store_fault_set("claim.commit.before", 1, STORE_FAULT_DROP);
	store_fault_add("connect.before", 1, STORE_FAULT_FAIL);
	rc = store_claim(x, id, 180, &won, &err);
	ok(rc == -1 && err.se_lost && !won && store_fault_hits() == 2,
	    "memory: a claim cut before its commit is reported lost");
	store_fault_reconnect(x);
	ok(store_claim(y, id, 180, &won, &err) == 0 && won,
	    "memory: nothing was committed: Y wins the fire");
	ok(store_claim(x, id, 180, &won, &err) == 0 && !won,
	    "memory: and X, asking again, learns it is Y's");

	/* Alone on its name, a store whose connection drops keeps it. */
	j.j_owner = "alone";
	ok(store_jobs_register(z, &j, 1, &err) == 0, "memory: Z registers");
	store_fault_set("list.before", 1, STORE_FAULT_DROP);
	ok(store_jobs_list(z, NULL, &jl, &n, &err) == 0 && n == 1 &&
	    store_fault_hits() == 1, "memory: its connection dropped, Z "
	    "reconnects and finds its job");
	store_jobs_free(jl, n);
	store_fault_set(NULL, 0, STORE_FAULT_NONE);
	ok(store_memory_drop("mem2", &err) == -1 &&
	    err.se_class == STORE_CONFLICT, "memory: not dropped while open");
	store_close(z);
	z = open_node("memory:mem2", "nodeZ", 0);
	ok(z != NULL && store_jobs_list(z, NULL, &jl, &n, &err) == 0 &&
	    n == 1, "memory: closed and opened again, the job is there");
	store_jobs_free(jl, n);
	store_close(z);
	ok(store_memory_drop("mem2", &err) == 0, "memory: dropped");
	z = open_node("memory:mem2", "nodeZ", 0);
	ok(z != NULL && store_jobs_list(z, NULL, &jl, &n, &err) == 0 &&
	    n == 0, "memory: and made afresh");
	store_jobs_free(jl, n);
out:
	store_close(x);
	store_close(y);
	store_close(z);
	ok(store_memory_drop("mem1", &err) == 0 &&
	    store_memory_drop("mem2", &err) == 0 &&
	    store_memory_drop("never", &err) == 0, "memory: all dropped");
}

/*
 * The clock of a memory store is the test's: the store's answers and
 * its judgements (leases, nodes gone silent) follow it exactly, to the
 * millisecond at the edge of a lease.
 */
static void
test_memory_clock(void)
{
	struct store_error	 err;
	struct store		*x, *y;
	struct store_run	*rl;
	int64_t			 t = 1800000000000LL, v, sms, rid;
	size_t			 n;
	int			 held, dr;

	ok(store_memory_clock("clk", t, &err) == 0,
	    "clock: set before any store");
	x = open_node("memory:clk", "nodeX", 0);
	y = open_node("memory:clk", "nodeY", 0);
	ok(x != NULL && y != NULL, "clock: two nodes");
	if (x == NULL || y == NULL)
		goto out;
	ok(store_now(x, &v, &err) == 0 && v == t, "clock: the store's now");
	ok(store_heartbeat(x, t + 250, 0, NULL, &sms, &dr, &err) == 0 &&
	    sms == t,
	    "clock: a heartbeat's answer");
	ok(store_lease_take(x, "edge", 10000, &held, &err) == 0 && held,
	    "clock: X takes a lease for 10 s");
	store_memory_clock("clk", t + 10000, NULL);
	ok(store_lease_take(y, "edge", 10000, &held, &err) == 0 && !held,
	    "clock: at its last millisecond it is still X's");
	store_memory_clock("clk", t + 10001, NULL);
	ok(store_lease_take(y, "edge", 10000, &held, &err) == 0 && held,
	    "clock: a millisecond later Y has it");

	/* Y beats and starts a run, then falls silent. */
	store_memory_clock("clk", t + 20000, NULL);
	ok(store_heartbeat(y, t + 20000, 1, NULL, &sms, &dr, &err) == 0 &&
	    store_run_start(y, "00000000000000000000000000clock1", 60, 1, 7,
	    t + 20000, &rid, &err) == 0, "clock: Y beats and runs a job");
	store_memory_clock("clk", t + 25000, NULL);
	ok(store_runs_mark_lost(x, 5000, &rl, &n, &err) == 0 && n == 0,
	    "clock: silent for the timeout exactly, Y is not lost");
	store_memory_clock("clk", t + 25001, NULL);
	ok(store_runs_mark_lost(x, 5000, &rl, &n, &err) == 0 && n == 1 &&
	    rl[0].r_id == rid && rl[0].r_end == t + 25001,
	    "clock: a millisecond more, its run is marked lost then");
	store_runs_free(rl, n);
	store_memory_clock("clk", 0, NULL);
	ok(store_now(x, &v, &err) == 0 && v > t - 1000000000000LL &&
	    llabs(v - clock_now_ms()) < 60000, "clock: the real time again");
out:
	store_close(x);
	store_close(y);
	ok(store_memory_drop("clk", &err) == 0, "clock: dropped");
}

/*
 * store_url_parse(): the one reader of store URLs.  mariadb:// is the
 * MySQL backend as mysql:// is (the daemon retries either at start).
 */
static void
test_url(void)
{
	static const struct {
		const char	*url;
		int		 backend;	/* 0: refused */
		const char	*path, *host, *db, *socket;
		unsigned int	 port;
	} cases[] = {
		{ "sqlite:/var/lib/cc.db", STORE_SQLITE, "/var/lib/cc.db",
		    NULL, NULL, NULL, 0 },
		{ "sqlite:///var/lib/cc.db", STORE_SQLITE, "/var/lib/cc.db",
		    NULL, NULL, NULL, 0 },
		{ "sqlite:rel.db", STORE_SQLITE, "rel.db", NULL, NULL, NULL,
		    0 },
		{ "/bare/path.db", STORE_SQLITE, "/bare/path.db", NULL, NULL,
		    NULL, 0 },
		{ "mysql://db1:3307/cc", STORE_MYSQL, NULL, "db1", "cc",
		    NULL, 3307 },
		{ "mariadb://db1/cc", STORE_MYSQL, NULL, "db1", "cc", NULL,
		    0 },
		{ "mariadb:///cc?socket=/run/m.sock", STORE_MYSQL, NULL,
		    NULL, "cc", "/run/m.sock", 0 },
		{ "mysql:///cc", STORE_MYSQL, NULL, NULL, "cc", NULL, 0 },
		/* The servers of a Galera cluster: the first is su_host. */
		{ "mysql://db1,db2:3307,db3/cc", STORE_MYSQL, NULL, "db1",
		    "cc", NULL, 0 },
		{ "mariadb://db1:3306,db2/cc", STORE_MYSQL, NULL, "db1", "cc",
		    NULL, 3306 },
		{ "mysql://db1,,db3/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql://db1,/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql://,db1/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql://db1,db2:x/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql://db1,db2/cc?socket=/run/m.sock", 0, NULL, NULL, NULL,
		    NULL, 0 },
		{ "mysql://a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q/cc", 0, NULL, NULL,
		    NULL, NULL, 0 },
		{ "mysql://bob:secret@db1/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mariadb://db1:0/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql://db1/", 0, NULL, NULL, NULL, NULL, 0 },
		{ "mysql:///cc?sock=/x", 0, NULL, NULL, NULL, NULL, 0 },
		{ "postgres://db1/cc", 0, NULL, NULL, NULL, NULL, 0 },
		{ "sqlite:", 0, NULL, NULL, NULL, NULL, 0 },
		{ "", 0, NULL, NULL, NULL, NULL, 0 },
	};
	struct store_url	 su;
	struct store_error	 err;
	size_t			 i;
	int			 r;

#define SAME(a, b)	((a) == NULL ? (b) == NULL : \
	    (b) != NULL && strcmp((a), (b)) == 0)
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = store_url_parse(cases[i].url, &su, &err);
		if (cases[i].backend == 0) {
			ok(r == -1 && su.su_path == NULL && su.su_db == NULL &&
			    strstr(err.se_msg, "secret") == NULL,
			    "url \"%s\" refused: %s", cases[i].url,
			    err.se_msg);
			continue;
		}
		ok(r == 0 && (int)su.su_backend == cases[i].backend &&
		    SAME(cases[i].path, su.su_path) &&
		    SAME(cases[i].host, su.su_host) &&
		    SAME(cases[i].db, su.su_db) &&
		    SAME(cases[i].socket, su.su_socket) &&
		    su.su_port == cases[i].port, "url \"%s\"", cases[i].url);
		store_url_free(&su);
		store_url_free(&su);
	}
#undef SAME
	/* Every server, in order, each with its port (0: the default). */
	r = store_url_parse("mysql://db1,db2:3307,db3/cc", &su, &err);
	ok(r == 0 && su.su_nhosts == 3 && strcmp(su.su_hosts[0], "db1") == 0 &&
	    su.su_ports[0] == 0 && strcmp(su.su_hosts[1], "db2") == 0 &&
	    su.su_ports[1] == 3307 && strcmp(su.su_hosts[2], "db3") == 0 &&
	    su.su_ports[2] == 0, "url: three servers in order");
	store_url_free(&su);
	r = store_url_parse("mysql://a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q/cc",
	    &su, &err);
	ok(r == -1 && strstr(err.se_msg, "more than 16 servers") != NULL,
	    "url: too many servers, said so (%s)", err.se_msg);
}

int
main(void)
{
	struct store_url su;
	struct store	*a, *b, *c;
	const char	*env;

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
			/* Migrations go to memory stores of their own. */
			strlcpy(url2, url1, sizeof(url2));
			strlcat(url2, ".old", sizeof(url2));
			strlcpy(url3, url1, sizeof(url3));
			strlcat(url3, ".old3", sizeof(url3));
			strlcpy(url4, url1, sizeof(url4));
			strlcat(url4, ".old4", sizeof(url4));
		}
	} else {
		snprintf(url1, sizeof(url1), "sqlite:%s/a.db", tmpdir);
		snprintf(url2, sizeof(url2), "%s/old.db", tmpdir);
		snprintf(url3, sizeof(url3), "%s/old3.db", tmpdir);
		snprintf(url4, sizeof(url4), "%s/old4.db", tmpdir);
	}
	diag("store %s", url1);
	test_url();
	test_open();
	test_optfiles();
	test_opthosts();
	a = open_node(url1, "nodeA", 0);
	b = open_node(url1, "nodeB", 0);
	c = open_node(url1, "nodeC", 0);
	ok(a != NULL && b != NULL && c != NULL, "three nodes open the store");
	if (a == NULL || b == NULL || c == NULL)
		return (tap_done());
	is_str(store_backend(a), is_mysql ? "mysql" : is_memory ? "memory" :
	    "sqlite", "backend");
	test_jobs(a);
	test_claims(a, b);
	test_inflight(a, b);
	test_sweep(a, b);
	test_batch(a, b);
	test_runs(a, b);
	test_nodes(a, b, c);
	test_tables(a, b);
	test_faults(a, b);
	test_run_batches(a, b);
	test_batch_faults(a, b);
	test_holds(a);
	test_fill();
	test_short_rows(a, b);
	test_fault_spec(a);
	test_trim_limits(a);
	store_close(a);
	store_close(b);
	store_close(c);
	test_schema();
	test_memory();
	test_memory_clock();
	{
		char	 cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		(void)system(cmd);
	}
	return (tap_done());
}
