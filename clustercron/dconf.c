/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * dconf.c: clustercron.conf as the daemon and the admin verbs read it,
 * so that a verb finds the daemon's store with the same file and the
 * same defaults.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <err.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustercron.h"
#include "common.h"
#include "pathnames.h"
#include "store.h"

static void	 conf_take(struct conf *, int, char **, const char *);

/*
 * The keys of clustercron.conf.  Defaults that depend on whether the
 * program runs as root are filled in by dconf_read().
 */
enum {
	K_STORE, K_MYSQL_FILE, K_MYSQL_GROUP, K_NODE, K_CRONTAB, K_CRONDIR,
	K_SPOOL, K_STORE_TABLES, K_PIDFILE, K_REBOOTFILE, K_SENDMAIL,
	K_SHUTDOWN, K_HEARTBEAT, K_CHECK, K_STORE_CHECK, K_DEFER,
	K_RETRY, K_OUTPUT_MAX, K_BUSY, K_HIST_AGE, K_HIST_RUNS, K_SOCKET,
	K_ALLOW, K_DENY, K_NODE_TIMEOUT, K_MAX_SKEW, K_METRICS,
	K_SPREADING, K_COPIES, K_LOG_FILE, K_RUNNER, K_RUNS_DIR,
	K_SHUTDOWN_KILL, K_PAM, K_MAX_ENTRIES, K_FIRE_RATE, K_FIRE_BURST,
	K_MAX_RUNNING, K_START_GRACE,
	K_HIST_OUTPUT, K_HIST_USER_RUNS, K_HIST_USER_OUTPUT, K_HIST_TRIM,
	K_COUNT
};

static const struct conf_key keys[K_COUNT] = {
	[K_STORE] = { "store", CONF_STRING, CONF_NONEMPTY, 0, 0, NULL },
	[K_MYSQL_FILE] = { "mysql-defaults-file", CONF_STRING, 0, 0, 0,
	    NULL },
	[K_MYSQL_GROUP] = { "mysql-group", CONF_STRING, CONF_NONEMPTY, 0,
	    0, "client" },
	[K_NODE] = { "node", CONF_STRING, CONF_NONEMPTY, 0, 0, NULL },
	[K_CRONTAB] = { "crontab", CONF_STRING, 0, 0, 0, NULL },
	[K_CRONDIR] = { "crontab-dir", CONF_STRING, 0, 0, 0, NULL },
	[K_SPOOL] = { "spool-dir", CONF_STRING, 0, 0, 0, NULL },
	[K_STORE_TABLES] = { "store-tables", CONF_BOOL, 0, 0, 1, "yes" },
	[K_PIDFILE] = { "pidfile", CONF_STRING, 0, 0, 0, NULL },
	[K_REBOOTFILE] = { "reboot-file", CONF_STRING, 0, 0, 0, NULL },
	/* atrun.c tells the default from a choice by this text. */
	[K_SENDMAIL] = { "sendmail", CONF_STRING, 0, 0, 0, MAIL_SENDMAIL },
	[K_SHUTDOWN] = { "shutdown-grace", CONF_DURATION, 0, 0, 86400,
	    "0" },
	[K_HEARTBEAT] = { "heartbeat-interval", CONF_DURATION, 0, 1, 3600,
	    "5s" },
	[K_CHECK] = { "table-check-interval", CONF_DURATION, 0, 0, 86400,
	    "60s" },
	[K_STORE_CHECK] = { "store-tables-interval", CONF_DURATION, 0, 0,
	    86400, "10s" },
	[K_DEFER] = { "claim-defer-ms", CONF_UINT, 0, 0, 60000, "200" },
	[K_RETRY] = { "store-retry-interval", CONF_DURATION, 0, 1, 3600,
	    "5s" },
	/* No more than the store keeps, rather than cut there unsaid. */
	[K_OUTPUT_MAX] = { "output-max", CONF_BYTES, 0, 1024,
	    STORE_OUTPUT_LIMIT, "256K" },
	/* Read by the store; see clustercron.conf(5). */
	[K_BUSY] = { "sqlite-busy-timeout", CONF_DURATION, 0, 0, 3600, "5s" },
	[K_HIST_AGE] = { "history-max-age", CONF_DURATION, 0, 0,
	    100 * 365 * 86400ULL, "30d" },
	[K_HIST_RUNS] = { "history-max-runs", CONF_UINT, 0, 0, 100000000,
	    "1000" },
	/* ctab's socket and who may use it. */
	[K_SOCKET] = { "ctab-socket", CONF_STRING, 0, 0, 0, NULL },
	[K_ALLOW] = { "cron-allow", CONF_STRING, 0, 0, 0, PATH_CRON_ALLOW },
	[K_DENY] = { "cron-deny", CONF_STRING, 0, 0, 0, PATH_CRON_DENY },
	/* Failure detection (node.c); node-timeout defaults to 3 beats. */
	[K_NODE_TIMEOUT] = { "node-timeout", CONF_DURATION, 0, 1, 86400,
	    NULL },
	[K_MAX_SKEW] = { "max-clock-skew", CONF_DURATION, 0, 0, 86400,
	    "2s" },
	[K_METRICS] = { "metrics-file", CONF_STRING, 0, 0, 0, NULL },
	[K_SPREADING] = { "load-spreading", CONF_BOOL, 0, 0, 1, "yes" },
	/* The users' copies of their tables, for ctab -l (tabsrv.c). */
	[K_COPIES] = { "ctab-copy-dir", CONF_STRING, 0, 0, 0, NULL },
	/* The daemon's log instead of syslog or standard error. */
	[K_LOG_FILE] = { "log-file", CONF_STRING, 0, 0, 0, NULL },
	/* The runners: their program, their runs, a stop (proc.c). */
	[K_RUNNER] = { "runner", CONF_STRING, CONF_NONEMPTY, 0, 0,
	    PATH_RUNNER },
	[K_RUNS_DIR] = { "runs-dir", CONF_STRING, CONF_NONEMPTY, 0, 0, NULL },
	[K_SHUTDOWN_KILL] = { "shutdown-kill", CONF_BOOL, 0, 0, 1, "no" },
	/* The PAM stack each job passes, as cron's /etc/pam.d/cron. */
	[K_PAM] = { "pam-service", CONF_STRING, 0, 0, 0, "clustercron" },
	/* Fair shares: the most entries a user's table may hold. */
	[K_MAX_ENTRIES] = { "max-entries", CONF_UINT, 0, 0, 1000000, "1000" },
	/* ... a user's fires a second, and at once (proc.c). */
	[K_FIRE_RATE] = { "user-fire-rate", CONF_UINT, 0, 0, 1000000, "50" },
	[K_FIRE_BURST] = { "user-fire-burst", CONF_UINT, 0, 1, 10000000,
	    "1000" },
	/* ... a user's runs under way on a node. */
	[K_MAX_RUNNING] = { "user-max-running", CONF_UINT, 0, 0, 1000000,
	    "500" },
	/* A fire not started this long after it came due is missed. */
	[K_START_GRACE] = { "start-grace", CONF_DURATION, 0, 1, 86400,
	    "60s" },
	/* What the store keeps of a job's and a user's runs (record.c). */
	[K_HIST_OUTPUT] = { "history-max-output", CONF_BYTES, 0, 0,
	    1ULL << 40, "16M" },
	[K_HIST_USER_RUNS] = { "history-max-runs-per-user", CONF_UINT, 0, 0,
	    1000000000, "50000" },
	[K_HIST_USER_OUTPUT] = { "history-max-output-per-user", CONF_BYTES,
	    0, 0, 1ULL << 40, "256M" },
	[K_HIST_TRIM] = { "history-trim-interval", CONF_DURATION, 0, 1,
	    86400, "1m" },
};

/* Set *dst to the key's value, or to dflt when the key is not set. */
static void
conf_take(struct conf *cf, int k, char **dst, const char *dflt)
{
	const char	*v;

	v = conf_str(cf, k);
	if (v == NULL)
		v = dflt;
	*dst = v == NULL ? NULL : xstrdup(v);
}

/*
 * Read the configuration file.  An explicit -c file must exist; the
 * default one may be missing, and the defaults then apply: as root the
 * system's paths, as an ordinary user paths under ~/.clustercron, so
 * that a user can try the daemon on tables and a store of their own.
 */
void
dconf_read(struct dconf *c, const char *path, int explicit, int root,
    uid_t uid, char **user)
{
	struct conf		*cf = NULL;
	struct conf_errors	 errs;
	struct passwd		*pw;
	struct stat		 sb;
	char			*home = NULL, *dflt_store, *dflt_pid;
	char			*dflt_boot;
	char			 host[256];
	size_t			 i;

	memset(&errs, 0, sizeof(errs));
	if (user != NULL)
		*user = NULL;
	if (!root) {
		if ((pw = getpwuid(uid)) == NULL)
			errx(1, "unknown user id %lu", (unsigned long)uid);
		if (user != NULL)
			*user = xstrdup(pw->pw_name);
		xasprintf(&home, "%s/.clustercron", pw->pw_dir);
		if (!explicit)
			xasprintf((char **)&path, "%s/clustercron.conf", home);
	}
	if (explicit || stat(path, &sb) == 0) {
		if (conf_load(path, keys, K_COUNT, &cf, &errs) == -1) {
			for (i = 0; i < errs.ce_count; i++)
				warnx("%s", errs.ce_msg[i]);
			if (errs.ce_count == 0)
				warn("%s", path);
			exit(1);
		}
		c->c_file = xstrdup(path);
	} else if (conf_parse("defaults", "", 0, keys, K_COUNT, &cf,
	    &errs) == -1)
		errx(1, "cannot set the defaults");
	conf_errors_free(&errs);

	if (root) {
		dflt_store = "sqlite:" PATH_STATEDIR "/clustercron.db";
		dflt_pid = PATH_RUNDIR "/clustercron.pid";
		dflt_boot = PATH_RUNDIR "/clustercron.reboot";
		conf_take(cf, K_STORE, &c->c_store, dflt_store);
		conf_take(cf, K_PIDFILE, &c->c_pidfile, dflt_pid);
		conf_take(cf, K_REBOOTFILE, &c->c_rebootfile, dflt_boot);
		conf_take(cf, K_SOCKET, &c->c_socket, PATH_CTAB_SOCKET);
		conf_take(cf, K_COPIES, &c->c_copydir, PATH_CTAB_COPIES);
		conf_take(cf, K_RUNS_DIR, &c->c_runsdir, PATH_STATEDIR "/runs");
	} else {
		xasprintf(&dflt_store, "sqlite:%s/clustercron.db", home);
		xasprintf(&dflt_pid, "%s/clustercron.pid", home);
		xasprintf(&dflt_boot, "%s/reboot", home);
		conf_take(cf, K_STORE, &c->c_store, dflt_store);
		conf_take(cf, K_PIDFILE, &c->c_pidfile, dflt_pid);
		conf_take(cf, K_REBOOTFILE, &c->c_rebootfile, dflt_boot);
		free(dflt_boot);
		xasprintf(&dflt_boot, "%s/clustercron.sock", home);
		conf_take(cf, K_SOCKET, &c->c_socket, dflt_boot);
		free(dflt_boot);
		xasprintf(&dflt_boot, "%s/tables", home);
		conf_take(cf, K_COPIES, &c->c_copydir, dflt_boot);
		free(dflt_boot);
		xasprintf(&dflt_boot, "%s/runs", home);
		conf_take(cf, K_RUNS_DIR, &c->c_runsdir, dflt_boot);
		free(dflt_store);
		free(dflt_pid);
		free(dflt_boot);
		free((char *)(explicit ? NULL : path));
	}
	free(home);
	conf_take(cf, K_MYSQL_FILE, &c->c_mysql_file, NULL);
	conf_take(cf, K_MYSQL_GROUP, &c->c_mysql_group, "client");
	if (c->c_node == NULL) {
		if (gethostname(host, sizeof(host)) == -1)
			strlcpy(host, "localhost", sizeof(host));
		host[sizeof(host) - 1] = '\0';
		conf_take(cf, K_NODE, &c->c_node, host);
	}
	conf_take(cf, K_CRONTAB, &c->c_crontab, "/etc/crontab");
	conf_take(cf, K_CRONDIR, &c->c_crondir, "/etc/cron.d");
	conf_take(cf, K_SPOOL, &c->c_spool, PATH_SPOOLDIR);
	conf_take(cf, K_SENDMAIL, &c->c_sendmail, NULL);
	conf_take(cf, K_ALLOW, &c->c_allow, NULL);
	conf_take(cf, K_DENY, &c->c_deny, NULL);
	c->c_store_tables = conf_num(cf, K_STORE_TABLES) != 0;
	c->c_shutdown_ms = (int64_t)conf_num(cf, K_SHUTDOWN) * 1000;
	c->c_shutdown_kill = conf_num(cf, K_SHUTDOWN_KILL) != 0;
	conf_take(cf, K_RUNNER, &c->c_runner, NULL);
	c->c_heartbeat_ms = (int64_t)conf_num(cf, K_HEARTBEAT) * 1000;
	c->c_check_ms = (int64_t)conf_num(cf, K_CHECK) * 1000;
	c->c_store_check_ms = (int64_t)conf_num(cf, K_STORE_CHECK) * 1000;
	c->c_defer_ms = (int64_t)conf_num(cf, K_DEFER);
	c->c_retry_ms = (int64_t)conf_num(cf, K_RETRY) * 1000;
	c->c_output_max = (size_t)conf_num(cf, K_OUTPUT_MAX);
	c->c_max_entries = (size_t)conf_num(cf, K_MAX_ENTRIES);
	c->c_user_fire_rate = (unsigned int)conf_num(cf, K_FIRE_RATE);
	c->c_user_fire_burst = (unsigned int)conf_num(cf, K_FIRE_BURST);
	c->c_user_max_running = (size_t)conf_num(cf, K_MAX_RUNNING);
	c->c_start_grace_ms = (int64_t)conf_num(cf, K_START_GRACE) * 1000;
	c->c_busy_ms = (unsigned int)conf_num(cf, K_BUSY) * 1000;
	c->c_hist_age_ms = (int64_t)conf_num(cf, K_HIST_AGE) * 1000;
	c->c_hist_runs = (size_t)conf_num(cf, K_HIST_RUNS);
	c->c_hist_output = conf_num(cf, K_HIST_OUTPUT);
	c->c_hist_user_runs = (size_t)conf_num(cf, K_HIST_USER_RUNS);
	c->c_hist_user_output = conf_num(cf, K_HIST_USER_OUTPUT);
	c->c_hist_trim_ms = (int64_t)conf_num(cf, K_HIST_TRIM) * 1000;
	/*
	 * A node fences itself node-timeout minus heartbeat-interval
	 * after its last renewal (node.c): that must leave it at least
	 * one more beat to renew in.
	 */
	if (conf_isset(cf, K_NODE_TIMEOUT))
		c->c_node_timeout_ms =
		    (int64_t)conf_num(cf, K_NODE_TIMEOUT) * 1000;
	else
		c->c_node_timeout_ms = 3 * c->c_heartbeat_ms;
	if (c->c_node_timeout_ms <= 2 * c->c_heartbeat_ms)
		errx(1, "%s: node-timeout (%llds) must be more than twice "
		    "heartbeat-interval (%llds)",
		    c->c_file != NULL ? c->c_file : "configuration",
		    (long long)(c->c_node_timeout_ms / 1000),
		    (long long)(c->c_heartbeat_ms / 1000));
	c->c_max_skew_ms = (int64_t)conf_num(cf, K_MAX_SKEW) * 1000;
	conf_take(cf, K_METRICS, &c->c_metrics_file, NULL);
	if (c->c_metrics_file != NULL && *c->c_metrics_file == '\0') {
		free(c->c_metrics_file);
		c->c_metrics_file = NULL;
	}
	c->c_load_spreading = conf_num(cf, K_SPREADING) != 0;
	conf_take(cf, K_LOG_FILE, &c->c_log_file, NULL);
	if (c->c_log_file != NULL && *c->c_log_file == '\0') {
		free(c->c_log_file);
		c->c_log_file = NULL;
	}
	/*
	 * Empty: no PAM.  A build without PAM runs its jobs without it,
	 * and refuses to be told otherwise.
	 */
	conf_take(cf, K_PAM, &c->c_pam_service, NULL);
#ifndef HAVE_PAM
	if (conf_isset(cf, K_PAM) && *c->c_pam_service != '\0')
		errx(1, "%s: pam-service: this clustercron was built without "
		    "PAM; set it empty, or build with PAM (libpam0g-dev)",
		    c->c_file != NULL ? c->c_file : "configuration");
	*c->c_pam_service = '\0';
#endif
	if (*c->c_pam_service == '\0') {
		free(c->c_pam_service);
		c->c_pam_service = NULL;
	}
	conf_free(cf);
}

/* Free what dconf_read() filled in; the struct itself is the caller's. */
void
dconf_free(struct dconf *c)
{
	if (c == NULL)
		return;
	free(c->c_file);
	free(c->c_store);
	free(c->c_mysql_file);
	free(c->c_mysql_group);
	free(c->c_node);
	free(c->c_crontab);
	free(c->c_crondir);
	free(c->c_spool);
	free(c->c_pidfile);
	free(c->c_rebootfile);
	free(c->c_sendmail);
	free(c->c_socket);
	free(c->c_copydir);
	free(c->c_allow);
	free(c->c_deny);
	free(c->c_metrics_file);
	free(c->c_log_file);
	free(c->c_runner);
	free(c->c_runsdir);
	free(c->c_pam_service);
	memset(c, 0, sizeof(*c));
}
