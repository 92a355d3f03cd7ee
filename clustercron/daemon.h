/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * daemon.h: what the daemon's own files share, private to clustercron/.
 * daemon.c owns the main loop and time; heap.c the timer queues;
 * tables.c the tables and their jobs; fire.c what happens at a fire
 * (claims, overlap, misfires); run.c the running jobs; node.c the
 * node's heartbeat.
 */

#ifndef DAEMON_H
#define DAEMON_H

#include <sys/queue.h>
#include <sys/tree.h>
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "clustercron.h"
#include "parser.h"
#include "store.h"

struct pollfd;
struct store;
struct tabsrv;
struct store_error;
struct spawn_job;
struct passwd;

/*
 * A timer: an instant in milliseconds on one of the two clocks.  t_idx
 * is its place in its heap, or TIMER_IDLE when it is not queued.
 * Timers are embedded in the things they time and never allocated on
 * their own.  The wall-clock heap holds only jobs' timers, which need
 * nothing more (a job has one for each of its fires, so every byte
 * counts); the monotonic heap holds mtimers, which say what to call.
 */
#define TIMER_IDLE	UINT32_MAX
struct timer {
	int64_t		 t_when;
	uint32_t	 t_idx;
};

struct mtimer {
	struct timer	 mt_timer;	/* first: the heap's pointer */
	void		(*mt_fn)(struct mtimer *);
	void		*mt_arg;
};

/* A binary min-heap of timers by t_when. */
struct heap {
	struct timer	**h_v;
	size_t		 h_n;
	size_t		 h_cap;
};

void	 timer_init(struct mtimer *, void (*)(struct mtimer *), void *);
void	 mtimer_set(struct mtimer *, int64_t);
void	 mtimer_del(struct mtimer *);
int	 mtimer_queued(const struct mtimer *);
void	 heap_set(struct heap *, struct timer *, int64_t);
void	 heap_del(struct heap *, struct timer *);
void	 heap_moved(struct heap *, struct timer *);
struct timer *heap_top(const struct heap *);
void	 heap_free(struct heap *);

/*
 * The source of a table: what format it is in, whose it is and where
 * it comes from.
 */
enum tb_kind {
	TB_SYSTEM,		/* /etc/crontab: system format */
	TB_CROND,		/* /etc/cron.d/NAME: system format */
	TB_SPOOL,		/* spool/USER: user format, owner USER */
	TB_STORE		/* ctab's table of USER in the store */
};

struct job;
struct pool;
struct jkind;

#define JOB_IDLEN	(CRON_IDLEN / 2)	/* an identity in bytes */

struct table {
	RB_ENTRY(table)	 tb_entry;
	enum tb_kind	 tb_kind;
	char		*tb_name;	/* path, or "store:USER" */
	char		*tb_owner;	/* spool and store tables */
	/* What the table was read from, to tell a change. */
	dev_t		 tb_dev;
	ino_t		 tb_ino;
	off_t		 tb_size;
	struct timespec	 tb_mtim;
	struct timespec	 tb_ctim;
	int64_t		 tb_version;
	int		 tb_seen;	/* mark of the current scan */
	int		 tb_read;	/* tb_dev .. tb_ctim are valid */
	int		 tb_loaded;	/* parsed without error once */
	int		 tb_pending;	/* has jobs to register */
	struct pool	*tb_pool;	/* the jobs' strings and options */
	struct jkind	*tb_kinds;
	size_t		 tb_nkinds;
	char		*tb_text;	/* the jobs' commands and input */
	uint8_t		(*tb_ids)[JOB_IDLEN]; /* for a while */
	struct job	*tb_jobs;	/* sorted by id */
	size_t		 tb_njobs;
};
RB_HEAD(tables, table);
int	 table_cmp(struct table *, struct table *);
RB_PROTOTYPE(tables, table, tb_entry, table_cmp);

/*
 * A job: one entry of a table, with its next fire.  A daemon may hold
 * hundreds of thousands of jobs, so a job is 32 bytes: it keeps only
 * what differs from job to job and points at what jobs share.
 *
 * j_kind is what the job shares with the other jobs of its table that
 * have the same schedule and context, one per table and kind
 * (tables.c).  A jsched is the schedule as parsed and as written, with
 * its zone, shared by every job that has the same, across tables and
 * counted.  A jctx is the owner, environment and options in force at
 * an entry, in the table's pool: consecutive entries of a table usually
 * share one.  j_text is where the command is in the table's text (the
 * kind knows where that is), followed by its standard input after the
 * command's NUL when JOB_INPUT is set.
 *
 * The identity is not kept: job_id() makes it again from the rest, as
 * the parser made it (a table keeps its jobs' identities from its load
 * until they are registered, tb_ids).  j_timer is due at the next
 * scheduled instant plus the job's spreading delay (job_delay(), from
 * the identity), and the deferral when JOB_DEFERRED is set: job_fire()
 * gets the instant back from it.  A table's jobs are one array, sorted
 * by identity; a job moves when its table is read again (see
 * table_jobs()).
 */
struct jsched {
	struct cron_sched js_sched;
	uint32_t	 js_refs;
	const struct cron_tz *js_tz;
	struct jsched	*js_next;	/* same hash */
	const char	*js_zone;	/* CRON_TZ, or NULL */
	char		 js_when[];	/* schedule as written */
};

struct jctx {
	struct cron_opts c_opts;
	const char	*c_owner;
	const char *const *c_env;
};

struct jkind {
	const struct jsched *k_sched;	/* a reference */
	const struct jctx *k_ctx;
	const char	*k_text;	/* the table's commands */
};

#define JOB_NEW		0x01	/* not yet registered */
#define JOB_DEFERRED	0x02	/* preferred node first */
#define JOB_INPUT	0x04	/* j_text holds an input */

struct job {
	struct timer	 j_timer;	/* first: the wall heap's */
	const struct jkind *j_kind;
	uint32_t	 j_text;	/* command, then input */
	uint16_t	 j_running;	/* runs of it in flight here */
	uint8_t		 j_flags;
};

static inline const struct jsched *
job_sched(const struct job *j)
{
	return (j->j_kind->k_sched);
}

static inline const struct cron_opts *
job_opts(const struct job *j)
{
	return (&j->j_kind->k_ctx->c_opts);
}

static inline const char *
job_owner(const struct job *j)
{
	return (j->j_kind->k_ctx->c_owner);
}

static inline const char *const *
job_env(const struct job *j)
{
	return (j->j_kind->k_ctx->c_env);
}

static inline const char *
job_cmd(const struct job *j)
{
	return (j->j_kind->k_text + j->j_text);
}

/* The job's standard input, or NULL. */
static inline const char *
job_input(const struct job *j)
{
	const char	*cmd = job_cmd(j);

	return (j->j_flags & JOB_INPUT ? cmd + strlen(cmd) + 1 : NULL);
}

/*
 * A fire being run: every attempt of one (job, instant) on this node.
 * It copies what it needs from its job, which may be reloaded or go
 * away meanwhile (f_job is then NULL).
 */
enum fire_state {
	FS_RUNNING,		/* an attempt is in flight */
	FS_WAIT_RETRY,		/* waiting to start the next attempt */
	FS_DONE
};

struct fire {
	LIST_ENTRY(fire) f_entry;
	struct job	*f_job;
	enum fire_state	 f_state;
	char		 f_id[CRON_IDLEN + 1];
	char		*f_owner;
	char		*f_cmd;		/* as logged, escaped */
	char		*f_label;	/* job_label(): "job: command" */
	char		*f_rawcmd;
	char		*f_input;
	size_t		 f_inputlen;
	char		**f_env;
	time_t		 f_instant;
	int		 f_cluster;	/* claimed in the store */
	int64_t		 f_until;	/* mono ms: no start after; 0 none */
	int		 f_mailer;	/* a mailer, not a job */
	int		 f_attempt;	/* 1 for the first */
	uint8_t		 f_nretry;
	uint32_t	 f_retry[CRON_MAXRETRY];
	uint32_t	 f_timeout;
	struct spawn_job *f_sj;
	int64_t		 f_runid;	/* 0: not recorded */
	int		 f_torecord;	/* start not yet recorded */
	int64_t		 f_start;	/* ms, wall clock */
	int64_t		 f_end;		/* ms, wall clock, at the end */
	int		 f_killed;	/* 1 TERM sent, 2 KILL sent */
	int		 f_exited;
	int		 f_eof;
	int		 f_wstatus;
	struct mtimer	 f_timer;	/* kill or retry */
};
LIST_HEAD(fires, fire);


/* The daemon's state: one, in daemon.c. */
struct daemon {
	struct dconf	 d_conf;
	int		 d_foreground;	/* -f */
	int		 d_debug;	/* -d, -x */
	int		 d_loglevel;	/* -L: LL_* bits */
	int		 d_fqdn;	/* -n: the full host name in mail */
	int		 d_lsbnames;	/* -l: LSB names in cron.d */
	int		 d_noinotify;	/* -i */
	int		 d_permit_any;	/* -p: any owner and mode */
	int		 d_output_log;	/* -s: output logged, not mailed */
	int		 d_inherit_path; /* -P */
	char		*d_path;	/* -P: the PATH jobs get */
	enum store_backend d_backend;	/* from the store's URL */
	int		 d_root;	/* running as root */
	uid_t		 d_uid;
	char		*d_user;	/* the user, when not root */
	struct store	*d_st;		/* NULL while unreachable */
	struct store	*d_hb;		/* heartbeats (MariaDB) */
	struct tabsrv	*d_tabsrv;	/* ctab's socket, or NULL */
	int		 d_mysql;
	int		 d_store_down;	/* logged once per outage */
	int		 d_recover;	/* misfire pass owed */
	struct heap	 d_wall;	/* fires, ms on the wall clock */
	struct heap	 d_mono;	/* everything else, monotonic */
	int64_t		 d_now;		/* wall clock, ms */
	int64_t		 d_mono_now;
	int64_t		 d_jump_floor;	/* after a jump forward */
	int64_t		 d_trimmed;	/* last trim, monotonic */
	struct tables	 d_tables;
	struct fires	 d_fires;	/* and mailers */
	size_t		 d_nrunning;
	size_t		 d_njobs;
	int		 d_stopping;
	/* Live nodes, sorted, for the preferred claimant. */
	char		**d_nodes;
	size_t		 d_nnodes;
	int		 d_ino;		/* inotify, or -1 */
	struct mtimer	 d_scan_timer;	/* debounce of changes */
	struct mtimer	 d_check_timer;	/* fallback check */
	struct mtimer	 d_beat_timer;
	struct mtimer	 d_open_timer;	/* store reconnection */
	struct mtimer	 d_stop_timer;
};

extern struct daemon	 D;

/*
 * What the daemon logs about jobs, Debian's cron -L LEVEL: the sum of
 * these bits (errors, and fires that did not run as scheduled, are
 * logged whatever the level).  LL_FIRES is ours: the per-fire lines of
 * the cluster (CLAIMED), otherwise debug lines.  The default is
 * LL_START, as cron's.
 */
#define LL_START	0x01	/* CMD: a job started */
#define LL_END		0x02	/* END: a job ended */
#define LL_FAILED	0x04	/* FAILED, and "(failed)" in the subject */
#define LL_PID		0x08	/* the pid in CMD and END */
#define LL_FIRES	0x10	/* CLAIMED */
#define LL_ALL		0x1f

/* daemon.c */
int	 daemon_main(int, char **);
void	 fmt_utc(time_t, char *, size_t);
int	 store_usable(void);
void	 store_failed(const char *, const struct store_error *);
unsigned int store_idle_trx(void);

/* tables.c */
int	 tables_init(void);
void	 tables_scan_all(int);
void	 tables_inotify(void);
void	 tables_free(void);
void	 tables_register(int);
void	 job_schedule(struct job *, time_t);
void	 jobs_reschedule_all(void);
void	 jobs_reboot(void);
void	 tables_check_store(void);
const char *job_id(const struct job *, char [CRON_IDLEN + 1]);
/*
 * How the log names a job, the end of every line about a fire:
 * job_label() writes "NAME: COMMAND" (its CLUSTERCRON_NAME, or else its
 * identity, then its command as cmd_escape() gives it) into buf, which
 * it returns.  cmd_escape() returns a command escaped for the log and
 * cut at LOGCMD_MAX, allocated.  fire_log() logs "(OWNER) EVENT (NODE
 * INSTANT[ DETAIL;] LABEL)", DETAIL made from fmt (NULL: none), at
 * priority pri (LOG_ERR, LOG_INFO or LOG_DEBUG).  Strings are borrowed.
 */
#define LOGCMD_MAX	256
#define JOB_LABELLEN	(64 + 2 + LOGCMD_MAX + 1)
const char *job_label(const struct job *, char *, size_t);
char	*cmd_escape(const char *);
void	 fire_log(int, const char *, const char *, const char *, time_t,
	    const char *, const char *, ...)
	    __attribute__((__format__ (printf, 7, 8)));
const char *table_job_id(const struct table *, size_t,
	    char [CRON_IDLEN + 1]);
void	 tables_ids_drop(void);
time_t	 job_fire(const struct job *);
uint32_t job_delay(const struct job *);

/* fire.c */
void	 fire_due(struct job *);
void	 fire_recover(void);
uint32_t job_spread(const uint8_t *, uint32_t);
void	 fire_store_ok(void);
void	 fire_flush(void);
void	 fire_forget(struct job *);
void	 fire_moved(const struct job *, size_t, struct job *const *);
/*
 * fire_rerun(id, fire, attempt): this node marked lost the run of
 * attempt `attempt' (the lost run's own number) of fire (id, fire);
 * when the job is here with CLUSTERCRON_LOST=rerun and the fire has not
 * been rerun yet, attempt + 1 starts here.  Strings are borrowed.
 */
void	 fire_rerun(const char *, time_t, int);
/*
 * fire_late(id, owner, label, fire, attempt, late): run.c did not start
 * attempt `attempt' of a claimed fire, as it got to its start `late'
 * ms past the lease under which it was claimed.
 */
void	 fire_late(const char *, const char *, const char *, time_t, int,
	    int64_t);

/*
 * run.c.  run_start(j, fire, cluster, until) starts attempt 1 of a fire
 * (run_attempt(), another attempt); a claimed one only before the
 * monotonic instant until (0: no bound), checked again by the child
 * just before its execve() (spawn.h's sr_until), else fire_late().
 */
int	 run_start(struct job *, time_t, int, int64_t);
int	 run_attempt(struct job *, time_t, int, int, int64_t);
void	 run_pollfds(struct pollfd *, size_t *, size_t, struct fire **);
void	 run_io(struct fire *, short);
void	 run_reap(void);
void	 run_killall(int);
void	 run_detach_job(struct job *);
void	 run_record(void);
void	 run_flush(void);
size_t	 run_count(void);

/* node.c */
void	 node_start(void);
void	 node_beat(struct mtimer *);
int	 node_preferred(const char *, time_t);
void	 node_free(void);
struct job *job_find(const char *);
/* id_label(): job_label() of the job of identity id, or the id alone. */
const char *id_label(const char *, char *, size_t);
/*
 * node_may_claim() says whether this node may claim cluster fires now.
 * NC_DRAINED: it is drained, or its clock is too far from the store's;
 * it claims nothing and the other nodes claim (the misfire pass is
 * owed, no fire is kept).  NC_FENCED: it could not renew its heartbeat
 * for node-timeout minus heartbeat-interval, so other nodes may soon
 * take it for dead; it acts as if the store were down (fires are kept
 * in doubt and settled later).  It may heartbeat once, synchronously,
 * before saying NC_FENCED.
 */
enum node_claim { NC_OK, NC_DRAINED, NC_FENCED };
enum node_claim node_may_claim(void);
/*
 * node_lease_until() is when this node's lease ends, monotonic ms, as
 * of its last renewal; 0 when it has none (SQLite).
 */
int64_t	 node_lease_until(void);

/*
 * metrics.c: the Prometheus textfile, when metrics-file is set; every
 * call is a no-op otherwise.  Strings are borrowed.  state is
 * RUN_MISSED or RUN_SKIPPED; times are wall-clock ms; wstatus is as
 * waitpid() gave it.  metrics_runs_lost() counts runs of node marked
 * lost by this node.  The file is written at most about once a second,
 * and only after a change.
 */
void	 metrics_init(void);
void	 metrics_claims(size_t, size_t);
void	 metrics_fire_noted(const char *, const char *, int);
void	 metrics_run_end(const char *, const char *, int64_t, int64_t, int);
void	 metrics_runs_lost(const char *, size_t);
void	 metrics_flush(void);
void	 metrics_free(void);

#endif /* DAEMON_H */
