/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * clustercron.h: what the daemon's and the admin verbs' files share.
 */

#ifndef CLUSTERCRON_H
#define CLUSTERCRON_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct cron_tz;

/*
 * An admin verb: name, entry point (argc/argv start at the verb) and
 * a one-line usage.
 */
struct verb {
	const char	*v_name;
	int		(*v_main)(int, char **);
	const char	*v_usage;
	const char	*v_what;	/* for --help */
};

/*
 * usage_print(help): the synopsis of the daemon and of every verb on
 * standard error; with help, on standard output, followed by what each
 * option and verb does (main.c).
 */
void	 usage_print(int);

int	 verb_next(int, char **);
int	 verb_attime(int, char **);
/* The admin verbs that read or change the store (admin.h). */
int	 verb_status(int, char **);
int	 verb_jobs(int, char **);
int	 verb_history(int, char **);
int	 verb_drain(int, char **);
int	 verb_pause(int, char **);
int	 verb_resume(int, char **);

/*
 * The daemon's settings, from clustercron.conf and the command line;
 * the admin verbs read the same (dconf.c).
 */
struct dconf {
	char		*c_file;	/* configuration file, or NULL */
	char		*c_store;
	char		*c_mysql_file;
	char		*c_mysql_group;
	char		*c_node;
	char		*c_crontab;	/* system table, "" for none */
	char		*c_crondir;	/* system tables' directory */
	char		*c_spool;	/* users' tables, "" none */
	int		 c_store_tables; /* run the tables ctab stores */
	char		*c_pidfile;
	char		*c_rebootfile;
	char		*c_sendmail;
	char		*c_socket;	/* ctab's, "" for none */
	char		*c_copydir;	/* users' copies, "" for none */
	char		*c_allow;	/* cron.allow */
	char		*c_deny;	/* cron.deny */
	int64_t		 c_shutdown_ms;	/* wait for jobs at a stop */
	int		 c_shutdown_kill; /* ... then kill them */
	int64_t		 c_heartbeat_ms;
	int64_t		 c_check_ms;	/* check without inotify */
	int64_t		 c_store_check_ms; /* store tables, MariaDB */
	int64_t		 c_defer_ms;	/* wait for the preferred */
	int64_t		 c_retry_ms;	/* store reconnection */
	size_t		 c_output_max;
	size_t		 c_max_entries;	/* a user's table; 0: no limit */
	unsigned int	 c_user_fire_rate; /* a user's fires a second; 0 */
	unsigned int	 c_user_fire_burst; /* ... at once */
	size_t		 c_user_max_running; /* per node; 0: no limit */
	int64_t		 c_start_grace_ms; /* a fire this late is missed */
	unsigned int	 c_busy_ms;	/* SQLite */
	int64_t		 c_hist_age_ms;
	size_t		 c_hist_runs;
	uint64_t	 c_hist_output;	/* bytes kept a job; 0: none */
	size_t		 c_hist_user_runs;
	uint64_t	 c_hist_user_output;
	int64_t		 c_hist_trim_ms; /* between passes of trimming */
	int64_t		 c_node_timeout_ms; /* a silent node is dead */
	int64_t		 c_max_skew_ms;	/* 0: not checked */
	char		*c_metrics_file; /* NULL for none */
	int		 c_load_spreading; /* busy nodes yield */
	char		*c_log_file;	/* NULL: syslog or stderr */
	char		*c_runner;	/* the runner program */
	char		*c_runsdir;	/* runs in their runners' hands */
	char		*c_pam_service;	/* the jobs' PAM service, or NULL */
};

/*
 * dconf_read() fills *c from the configuration file path (explicit: given
 * with -c, so it must exist) with the defaults of root (root != 0) or
 * of the user uid, whose name it returns in *user (NULL for root; the
 * caller frees it).  c_node is kept when already set (-N).  Exits with
 * a message on stderr on a bad file.  dconf_free() frees the strings.
 */
void	 dconf_read(struct dconf *, const char *, int, int, uid_t, char **);
void	 dconf_free(struct dconf *);

/* The daemon: clustercron without a verb (daemon.c). */
int	 daemon_main(int, char **);

/*
 * tz_load() reads and parses a zone by name (NULL: the local zone).
 * Returns the zone, or NULL with a message in errbuf.  Shared by the
 * verbs and the daemon.
 */
struct cron_tz *tz_load(const char *, char *, size_t);

#endif /* CLUSTERCRON_H */
