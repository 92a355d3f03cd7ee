/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * daemon.h: what the daemon's own files share, private to clustercron/.
 *
 * The daemon is a one-way chain of modules, one responsibility each;
 * a file calls only the files below it, never one above (checked from
 * the sources by tests/chain.sh, in make check):
 *
 *	daemon.c	the loop, signals, clock jumps, start and stop
 *	  loader.c	sources, inotify, parsing; registering jobs
 *	  claim.c	fires come due: batched claims, doubts, the
 *			misfire pass, reruns of lost runs
 *	  atrun.c	one-shot jobs (at): the due claimed, run,
 *			retried, the lost settled
 *	    node.c	heartbeat, skew, drain, the dead-node reaper,
 *			runs of an earlier life
 *	      fire.c	a fire's life: one transition table
 *	        proc.c	processes: the runners, their events, adoption
 *	        record.c	run records to the store
 *	        metrics.c	the Prometheus textfile
 *	          jobtab.c	tables of jobs, identities, handles, the
 *			wall-clock timers
 *	          gate.c	may this node claim now?  Store health,
 *			fence, drain, skew, owed recovery
 *	            dlog.c	the shape of the log lines about fires
 *	            heap.c	timer queues
 *	            tick.c	time as the core sees it
 *
 * and under all of them lock/ (the store), parser/ and common/.  Where
 * a lower module has news for one above, it keeps it for the caller to
 * take (node.c's lost runs, gate.c's misfire pass due) or calls a
 * function the upper one registered (proc.c's events, mtimer
 * callbacks); it never names a function above it.
 *
 * Shared state has one writer each.  D holds what the daemon was
 * started with (written by daemon.c before the loop) and the store
 * connection (opened, and replaced, by daemon.c only); every other
 * piece of state is static in the module that owns it and changes only
 * through that module's functions.
 *
 * Time comes down from the loop in a struct tick (tick.c): no module
 * below daemon.c reads a clock.  node.c's heartbeat thread, which paces
 * itself and stamps its renewals, reads a tick of its own through the
 * loop's reader (node.c says how its news reach the loop).
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
struct spawn_req;
struct passwd;
struct outbuf;
struct mail_req;

/*
 * The daemon's settings and its store: one, defined by the program
 * that links the core (daemon.c; a unit test), which alone writes it.
 */
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
	int		 d_mysql;	/* d_st is MariaDB: leases */
	struct tabsrv	*d_tabsrv;	/* ctab's socket, or NULL */
	int		 d_stopping;	/* SIGTERM: no new fire */
	int		 d_logmode;	/* RQ_LOG_*: where the log goes */
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

/*
 * store_config_fill() fills a store_config from D for a connection of
 * this daemon (sc_url .. sc_idle_trx_timeout; the caller adds the
 * rest).  A transaction of this node's may sit idle one
 * heartbeat-interval before the server rolls it back and closes its
 * connection: a node stopped inside a transaction (SIGSTOP, swapped
 * out) holds row locks the other nodes' claims wait for; this way they
 * wait at most that long, well within their own lease.  The daemon's
 * own transactions are a few statements back to back.
 */
static inline void
store_config_fill(struct store_config *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->sc_url = D.d_conf.c_store;
	sc->sc_mysql_file = D.d_conf.c_mysql_file;
	sc->sc_mysql_group = D.d_conf.c_mysql_group;
	sc->sc_node = D.d_conf.c_node;
	sc->sc_idle_trx_timeout = (unsigned int)(D.d_conf.c_heartbeat_ms /
	    1000);
}

/*
 * tick.c.  A turn's time: the wall clock (ms since the epoch) and the
 * monotonic clock (ms) as the loop read them, tk_floor the wall clock
 * after a small jump forward this turn (else 0: tick.c says why), and
 * tk_turn counting the turns.  tick_init() makes the first from the
 * clocks' readings and the function that reads them again; tick_next()
 * starts a turn with new readings and tells of a jump; tick_read()
 * reads the clocks again within a turn (tk_wall and tk_mono change,
 * nothing else).
 */
struct tick {
	int64_t		 tk_wall;
	int64_t		 tk_mono;
	int64_t		 tk_floor;
	uint64_t	 tk_turn;
	int64_t		 tk_turn_wall;	/* the readings at the turn's start */
	int64_t		 tk_turn_mono;
	void		(*tk_read)(struct tick *);
};
enum tick_jump { TICK_STEADY, TICK_AHEAD, TICK_BACK, TICK_FAR };
void	 tick_init(struct tick *, int64_t, int64_t, void (*)(struct tick *));
enum tick_jump tick_next(struct tick *, int64_t, int64_t, int64_t *);
void	 tick_read(struct tick *);

/*
 * heap.c.  A heap is a binary min-heap of its owner's elements (timers)
 * by an instant each holds (int64_t, ms on one of the two clocks); each
 * element also holds its place in the heap (uint32_t, TIMER_IDLE when
 * not queued), so that moving or removing one costs O(log n).  h_when
 * and h_idx are the offsets of the two in an element (HEAP_INIT()).
 * heap_set() queues or moves an element, heap_del() takes one out (one
 * not queued is left alone), heap_top() is the earliest or NULL,
 * heap_moved() follows a queued element its owner copied elsewhere.
 *
 * The monotonic timers are mtimers, in heap.c's own heap, each with the
 * function mtimer_run() calls (with the tick) once it is due;
 * mtimer_next() gives the earliest instant (1), or 0 when none is
 * queued.  MTIMER_INIT() is a static initializer.
 */
#define TIMER_IDLE	UINT32_MAX
struct heap {
	void		**h_v;
	size_t		 h_n;
	size_t		 h_cap;
	size_t		 h_when;	/* offset of the instant */
	size_t		 h_idx;		/* offset of the place */
};
#define HEAP_INIT(type, when, idx)					\
	{ NULL, 0, 0, offsetof(type, when), offsetof(type, idx) }

struct mtimer {
	int64_t		 mt_when;
	uint32_t	 mt_idx;
	void		(*mt_fn)(struct mtimer *, struct tick *);
	void		*mt_arg;
};
#define MTIMER_INIT(fn, arg)	{ 0, TIMER_IDLE, (fn), (arg) }

void	 heap_set(struct heap *, void *, int64_t);
void	 heap_del(struct heap *, void *);
void	 heap_moved(struct heap *, void *);
void	*heap_top(const struct heap *);
void	 heap_free(struct heap *);
void	 mtimer_init(struct mtimer *, void (*)(struct mtimer *, struct tick *),
	    void *);
void	 mtimer_set(struct mtimer *, int64_t);
void	 mtimer_del(struct mtimer *);
int	 mtimer_queued(const struct mtimer *);
void	 mtimer_run(struct tick *);
int	 mtimer_next(int64_t *);
void	 mtimer_free(void);

/*
 * dlog.c.  fmt_utc() writes an instant as 2026-03-08T08:00:00Z.
 * cmd_escape() returns a command escaped for the log and cut at
 * LOGCMD_MAX, allocated.  fire_log() logs "(OWNER) EVENT (NODE INSTANT
 * [DETAIL; ]LABEL)", DETAIL made from fmt (NULL: none), at priority pri
 * (LOG_ERR, LOG_INFO or LOG_DEBUG).  Strings are borrowed.
 */
#define LOGCMD_MAX	256
#define JOB_LABELLEN	(64 + 2 + LOGCMD_MAX + 1)
void	 fmt_utc(time_t, char *, size_t);
char	*cmd_escape(const char *);
void	 fire_log(int, const char *, const char *, const char *, time_t,
	    const char *, const char *, ...)
	    __attribute__((__format__ (printf, 7, 8)));

/*
 * FNV-1a over n bytes from h (FNV64_INIT to begin): the hashes of node
 * names and fires that the nodes must compute alike (gate.c, claim.c).
 */
#define FNV64_INIT	1469598103934665603ULL
static inline uint64_t
fnv64(uint64_t h, const void *p, size_t n)
{
	const unsigned char	*c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 1099511628211ULL;
	return (h);
}

/*
 * gate.c: may this node claim now, and the state that rests on (each
 * part written there only; gate.c's comment).  The writers are named
 * after what happened; gate_verdict(), gate_lease_until(), gate_rank()
 * and gate_preferred() are pure over the state and their arguments, and
 * gate_check() is gate_verdict() of this node's state.
 */
struct gate_node {
	char		*gn_name;
	int		 gn_load;	/* running jobs it reported */
	int		 gn_able;	/* may be a preferred claimant */
	int64_t		 gn_age;	/* its last beat's age then, ms */
	int64_t		 gn_wall;	/* ... sent at, by its clock */
	struct store_cover gn_cover;	/* ... and what it said it covered */
};

struct gate {
	int		 g_down;	/* a store call failed */
	int		 g_owed;	/* the misfire pass is owed */
	int		 g_kick;	/* ... and due at once */
	int64_t		 g_beat;	/* lease renewed, sent at (mono) */
	int64_t		 g_chain;	/* renewed without a break since */
	int		 g_fenced;	/* FENCED said, not lifted */
	int		 g_drained;
	int		 g_skewed;	/* clock beyond max-clock-skew */
	struct gate_node *g_nodes;	/* live, sorted by name */
	size_t		 g_nnodes;
	uint64_t	 g_view;	/* a hash of the candidates' names */
	uint64_t	 g_gen;		/* g_nodes read so many times */
};

enum gate_verdict {
	GATE_CLAIM,
	GATE_RECOVER,
	GATE_DOWN,
	GATE_DRAINED,
	GATE_FENCED,
	GATE_STOPPING
};

void	 gate_store_failed(const char *, const struct store_error *);
void	 gate_store_unopened(const char *);
void	 gate_store_opened(const char *);
void	 gate_store_ok(void);
void	 gate_owe(int);
void	 gate_pass(void);
int	 gate_kicked(void);
int	 gate_kick_pending(void);
void	 gate_beat(int64_t, int64_t);
int64_t	 gate_beat_sent(void);
void	 gate_drain(int, size_t);
void	 gate_skew(int64_t);
void	 gate_nodes(const struct store_node *, size_t, int64_t, size_t);
void	 gate_fenced(int64_t);
void	 gate_free(void);
const struct gate *gate_state(void);
int	 gate_store_up(void);
int	 gate_owed(void);
int	 gate_fence_due(const struct gate *, int64_t);
enum gate_verdict gate_verdict(const struct gate *, int64_t);
enum gate_verdict gate_check(int64_t);
int64_t	 gate_lease_until(const struct gate *);
int	 gate_renewed(const struct gate *, int64_t);
size_t	 gate_rank(const struct gate *, const char *, time_t, size_t);
size_t	 gate_pick(const struct gate *, const char *, time_t);
size_t	 gate_self(void);
int	 gate_preferred(const struct gate *, const char *, time_t, size_t);

/*
 * jobtab.c: the tables the daemon runs, their jobs, and the wall-clock
 * timers of the jobs' fires.
 *
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

/*
 * A table.  tb_slot and tb_gen make the handles of its jobs: tb_slot is
 * its place among the tables, for its life; tb_gen changes whenever its
 * array of jobs does (a reload), and is never used by another table.
 * The members from tb_dev to tb_version are the loader's, to tell a
 * change of the source; the rest are jobtab.c's.
 */
struct table {
	RB_ENTRY(table)	 tb_entry;
	enum tb_kind	 tb_kind;
	char		*tb_name;	/* path, or "store:USER" */
	char		*tb_owner;	/* spool and store tables */
	uint32_t	 tb_slot;
	uint32_t	 tb_gen;
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
	uint64_t	 tb_sum;	/* its share of jobtab_sum() */
	struct pool	*tb_pool;	/* the jobs' strings and options */
	struct jkind	*tb_kinds;
	size_t		 tb_nkinds;
	char		*tb_text;	/* the jobs' commands and input */
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
 * have the same schedule and context, one per table and kind.  A
 * jsched is the schedule as parsed and as written, with its zone,
 * shared by every job that has the same, across tables and counted.  A
 * jctx is the owner, environment and options in force at an entry, in
 * the table's pool: consecutive entries of a table usually share one.
 * j_text is where the command is in the table's text (the kind knows
 * where that is), followed by its standard input after the command's
 * NUL when JOB_INPUT is set.
 *
 * j_fire is the scheduled instant of the fire the job's timer is queued
 * for (UTC seconds): the fire's half of its identity, stored, never
 * worked back from the timer.  The timer (j_due, j_idx, in jobtab.c's
 * wall-clock heap) is due at that instant plus the job's spreading
 * delay (job_delay(), from the identity), later still while
 * JOB_DEFERRED.  The identity is not kept: job_id() makes
 * it again from the rest, as the parser made it.
 *
 * A table's jobs are one array, sorted by identity, which a reload
 * replaces: nothing outside jobtab.c holds a job's address across a
 * turn of the loop.  What must find a job again later holds a jobref
 * and the identity (job_get()).
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
	struct table	*k_table;	/* the table it is of */
};

#define JOB_NEW		0x1	/* not yet registered */
#define JOB_DEFERRED	0x2	/* preferred node first */
#define JOB_INPUT	0x4	/* j_text holds an input */
#define JOB_AWAIT	0x8	/* deferred for a cover (claim.c) */
#define JOB_TEXTMAX	(1U << 28)	/* j_text's bound: a table's text */

struct job {
	int64_t		 j_due;		/* wall ms: its timer */
	int64_t		 j_fire;	/* the timer's fire, UTC s */
	const struct jkind *j_kind;
	uint32_t	 j_idx;		/* its place in the wall heap */
	uint32_t	 j_text : 28;	/* command, then input */
	uint32_t	 j_flags : 4;
};

/* A handle on a job that outlives a reload (with the job's identity). */
struct jobref {
	uint32_t	 jr_slot;	/* its table's tb_slot */
	uint32_t	 jr_gen;	/* ... and tb_gen */
	uint32_t	 jr_index;	/* in the table's array */
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
 * The tables.  jobtab_tables() is the tree of them by name, to walk
 * (borrowed); table_get() finds one by name or makes it (strings
 * copied); table_drop() takes one away with its jobs, whose identities
 * it appends to lj (see table_load()).  jobtab_count() is the number
 * of jobs; jobtab_sum() a hash of the set of identities of the jobs of
 * cluster scope (the sum of their first 8 bytes, so that two nodes
 * holding the same jobs have the same sum whatever their order).
 * jobtab_free() frees everything.
 *
 * table_load() puts the entries of ct (NULL: none; freed here) in the
 * table, keeping what did not change: a job whose identity survives
 * keeps its timer and is rescheduled from `now' (UTC s) only if its
 * schedule, zone or spreading changed, or marked JOB_NEW (to register)
 * if its row in the store did (job_row()); new jobs are scheduled and
 * marked JOB_NEW; with stopping, nothing is scheduled.  The jobs that
 * went away are appended to lj (their identities and job_sum()s; the
 * caller's, which it may empty or shorten), for the loader to let go
 * of in the store.  Unknown zones are logged, and their entries left
 * out.
 */
struct jobleft {
	uint8_t		 l_id[JOB_IDLEN];
	uint32_t	 l_sum;
	int		 l_held;
};
struct leftjobs {
	struct jobleft	*lj_v;
	size_t		 lj_n;
	size_t		 lj_cap;
};
struct tables	*jobtab_tables(void);
struct table	*table_get(enum tb_kind, const char *, const char *);
void	 table_load(struct table *, struct crontab *, time_t, int,
	    struct leftjobs *);
/*
 * The same, entry by entry, for a parse that keeps no entries
 * (crontab_parse_each()): table_load_begin() starts a load of the
 * table, table_load_entry() takes an entry (copying what the job
 * needs), table_load_end() puts the jobs in the table as table_load()
 * does (NULL: none), table_load_abort() forgets them.
 */
struct tload;
struct tload	*table_load_begin(struct table *);
void	 table_load_entry(struct tload *, const struct cron_entry *);
void	 table_load_end(struct table *, struct tload *, time_t, int,
	    struct leftjobs *);
void	 table_load_abort(struct tload *);
void	 table_drop(struct table *, struct leftjobs *);
size_t	 jobtab_count(void);
uint64_t jobtab_sum(void);
void	 jobtab_free(void);

/*
 * Jobs.  job_id() writes the 32 hex digits of the job's identity into
 * buf and returns buf; table_job_id() the same for the table's job i.
 * job_ref() is a handle on the table's job i;
 * job_get() the job a handle names now, found again by the identity id
 * when a reload moved it (and the handle updated), or NULL when it is
 * gone; job_find() finds a job by identity alone (and its handle, when
 * ref is not NULL).  job_label() writes "NAME: COMMAND" (its
 * CLUSTERCRON_NAME, or else its identity, then its command as
 * cmd_escape() gives it) into buf, which it returns.  job_delay() is
 * the job's spreading delay (s), from its identity id (NULL: made
 * here).  job_row() fills the job's row in the store, all but j_id,
 * borrowing the job's strings, except a command longer than
 * JOB_CMDSUM cut into buf (JOB_CMDSUM + 1 bytes, or NULL when the
 * command is not that long).  job_sum() is a cheap hash of its owner
 * and command (jobs of one identity have the same).  job_spread() is
 * the spreading delay of an identity (bytes) for a spread (s).
 */
#define JOB_CMDSUM	200
const char *job_id(const struct job *, char [CRON_IDLEN + 1]);
const char *table_job_id(const struct table *, size_t,
	    char [CRON_IDLEN + 1]);
void	 job_ref(const struct table *, size_t, struct jobref *);
/*
 * Every job (with only_new, those marked JOB_NEW) in identity order:
 * jobiter_start() begins (again), jobiter_next() gives the next job's
 * table, index and identity and returns 1, or 0 past the last;
 * jobiter_free() frees.  Each table's jobs are sorted by identity, so
 * this merges the tables through a heap of their next jobs, making each
 * identity once.  Good for one turn of the loop (no reload between).
 */
struct jobsrc;
struct jobiter {
	struct jobsrc	*ji_h;
	size_t		 ji_n;
	int		 ji_new;
};
void	 jobiter_start(struct jobiter *, int);
int	 jobiter_next(struct jobiter *, struct table **, size_t *,
	    char [CRON_IDLEN + 1]);
void	 jobiter_free(struct jobiter *);
struct job *job_get(struct jobref *, const char *);
struct job *job_find(const char *, struct jobref *);
const char *job_label(const struct job *, char *, size_t);
uint32_t job_delay(const struct job *, const char *);
void	 job_row(const struct job *, struct store_job *, char *);
uint32_t job_sum(const struct job *);
uint32_t job_spread(const uint8_t *, uint32_t);
void	 id_bin(const char *, uint8_t *);
void	 id_hex(const uint8_t *, char [CRON_IDLEN + 1]);

/*
 * The wall-clock timers.  job_schedule() queues the job's next fire
 * strictly after `after' (UTC s): j_fire is that instant and the timer
 * is due at it plus the job's delay (id: its identity, or NULL); a
 * job that fires no more (@reboot, no next instant) is taken off.
 * job_defer() queues its timer again, ms later than it was due, marking
 * it JOB_DEFERRED until it is next scheduled; job_defer_to() queues it
 * for the wall instant at (ms), so marked too.  job_next() gives the
 * instant the job fires next strictly after `after' (0), or -1 when it
 * fires no more.  jobs_due() takes off and
 * returns the earliest job due at or before the wall instant now (ms),
 * with its handle in *ref, or NULL; jobs_next() gives the earliest
 * timer's instant (1), or 0 when none is queued.
 * jobs_reschedule_all() schedules every job from `now' (UTC s);
 * jobs_unschedule_all() takes every timer off.
 */
void	 job_schedule(struct job *, time_t, const char *);
void	 job_defer(struct job *, int64_t);
void	 job_defer_to(struct job *, int64_t);
int	 job_next(const struct job *, time_t, time_t *);
struct job *jobs_due(int64_t, struct jobref *);
int	 jobs_next(int64_t *);
void	 jobs_reschedule_all(time_t);
void	 jobs_unschedule_all(void);

/*
 * metrics.c: the Prometheus textfile, when metrics-file is set; every
 * call is a no-op otherwise.  Strings are borrowed.  state is
 * RUN_MISSED or RUN_SKIPPED; times are wall-clock ms; wstatus is as
 * waitpid() gave it.  metrics_runs_lost() counts runs of node marked
 * lost by this node.  metrics_job_gone() drops the samples of a job
 * this node no longer holds, so that the file, and the memory behind
 * it, keep no job that left every table.  The file is written at most
 * about once a second, and only after a change.
 */
void	 metrics_init(void);
void	 metrics_claims(size_t, size_t);
void	 metrics_fire_noted(const char *, const char *, int);
void	 metrics_run_end(const char *, const char *, int64_t, int64_t, int);
void	 metrics_runs_lost(const char *, size_t);
void	 metrics_job_gone(const char *);
void	 metrics_flush(const struct tick *);
void	 metrics_free(void);

/*
 * record.c: run records to the store.  The store is written at the end
 * of a turn (record_flush()), in batches, not between a fire and its
 * start; records it cannot take wait, in order, until it answers.
 *
 * record_start() says an attempt exec'd as pid at start (wall ms): its
 * start goes to the store at the end of the turn.  It returns the
 * run's record, which record_end() takes back when the attempt ended
 * (wall ms, waitpid() status, output borrowed: its head is copied),
 * freeing it, and record_lost() when its end cannot be known (its
 * runner died); record_runid() is its id in the store once its start
 * is in (0 before).  record_fail() records an attempt that did not
 * start, and why (copied), at `when' (wall ms).  The run file a record
 * comes from (spool, copied; NULL: none) is deleted once the store has
 * the record: until then, a daemon that dies leaves it to the next.
 * record_note() notes a fire that was not started, RUN_MISSED or
 * RUN_SKIPPED, now: 0, or -1 when the store failed (logged);
 * record_note_why() the same with the reason why (copied), at the end
 * of the turn with the turn's other records (a limit's fires, issue 12).
 * record_flush() writes what waits, at most RECORD_TURN runs a call;
 * record_busy() says whether more wait for the store, which answers;
 * record_pending_run() whether a record of a run (its id, or its job,
 * fire and attempt) waits;
 * record_final() tries one last time, at exit; record_drop() then lets
 * go of the record of an attempt still running.  Strings are borrowed.
 */
struct rec;
#define RECORD_TURN	1024
struct rec *record_start(const char *, time_t, int, pid_t, int64_t);
void	 record_end(struct rec *, int64_t, int, const struct outbuf *,
	    const char *, struct tick *);
void	 record_lost(struct rec *, const char *, struct tick *);
int64_t	 record_runid(const struct rec *);
void	 record_fail(const char *, time_t, int, const char *, int64_t,
	    const char *);
int	 record_note(const char *, time_t, enum store_run_state, int64_t);
void	 record_note_why(const char *, time_t, enum store_run_state,
	    const char *, int64_t);
void	 record_flush(struct tick *);
int	 record_busy(void);
int	 record_pending_run(int64_t, const char *, time_t, int);
void	 record_final(struct tick *);
void	 record_drop(struct rec *);
void	 record_free(void);

/*
 * proc.c: the processes the daemon starts: every attempt of a fire runs
 * under a runner (runner/runner.c), exec'd with posix_spawn(), which
 * starts the job, holds its output and its end, and mails it.  An
 * attempt is a proc with an owner (its fire, opaque here) to whom every
 * event is delivered through the function given to proc_init(), with
 * the tick: PE_STARTED (it exec'd, as pe_pid, handed over at pe_start,
 * wall ms), PE_NOSTART (it did not: pe_why), PE_LATE (it did not, as it
 * got to its exec pe_late ms past its deadline), PE_TIMEOUT (it
 * outlived its timeout of pe_timeout s: the runner sends SIGTERM, and
 * SIGKILL a little later), PE_ENDED (pe_wstatus at pe_end, wall ms;
 * its output's head in pe_out, borrowed for the call) and PE_LOST (its
 * runner died before the end: unknown).  After PE_NOSTART, PE_LATE,
 * PE_ENDED and PE_LOST the proc is gone; pe_spool is then the run file
 * that holds what the event says, for the record to delete once the
 * store has it (NULL: none), borrowed for the call.  A handler may
 * free its own fire, and may start procs.
 *
 * proc_start() makes a proc as pr says, queued for its turn: pr_spawn
 * (sr_cmd ... sr_outmax; sr_pw must be set) and pr_mail (the mail of
 * its output, NULL for none; its mr_cmd the subject's words after
 * cron's prefix, NULL for the command; mr_always to mail even without
 * output) are copied into the runner's request;
 * pr_who (the owner, for the log lines) is borrowed and must outlive
 * the proc; pr_id, pr_fire, pr_attempt name the run; pr_what and
 * pr_label are the escaped command and the job's label; pr_timeout in
 * s (0: none); pr_until the monotonic instant past which it must not
 * exec (0: no bound).  It returns PS_QUEUED with the proc in *pp, or
 * PS_FAILED with why in buf.  proc_run() starts the runners of at most
 * PROC_TURN queued procs, the users taking turns, for PROC_TURN_MS at
 * most; proc_queued() is how many wait that may start now.  Each user
 * has at most user-max-running runs under way (but for the starts with
 * pr_exempt set, of the system tables: their own turns, no limit, not
 * counted): his other starts wait,
 * and one still waiting at pr_deadline (0: none) is PE_MISSED (pe_why
 * says why), without a runner.  proc_admit() says whether the user may
 * fire once more (user-fire-rate): 1, or 0 with why in buf, the limit
 * counted and logged (LIMIT lines, a few per user and minute).
 * An owner of another kind (atrun.c's one-shot attempts) names its own
 * handler in pr_handler.
 *
 * proc_adopt() takes the runs an earlier life of the daemon left to
 * their runners (see proc.c): each is told to the handler as
 * PE_ADOPTED, its run file in pe_run and the proc in pe_proc, which the
 * handler owns with proc_own() (or leaves, untouched, to a later life);
 * its later events are those of any proc.  proc_adopt_handler() names
 * the handler of the adopted runs whose id starts with prefix (an
 * owner of another kind: atrun.c's "at:"), to be called before
 * proc_adopt().  proc_holds() says whether a proc in flight here
 * (adopted or not) is the run (id, fire, attempt).
 *
 * proc_count() is the attempts in flight.  proc_killall() sends sig to
 * every job.  proc_pollfds(), proc_io() and proc_reap() are the loop's:
 * the descriptors to poll, with the proc of each in pp[]; what poll
 * said of one proc (once per proc and turn); SIGCHLD.  proc_free()
 * forgets every proc, leaving the runners to themselves.
 */
struct proc;
struct runfile;
enum proc_ev {
	PE_STARTED, PE_NOSTART, PE_LATE, PE_TIMEOUT, PE_ENDED, PE_LOST,
	PE_ADOPTED, PE_MISSED
};
struct proc_event {
	enum proc_ev	 pe_kind;
	void		*pe_owner;
	struct proc	*pe_proc;
	pid_t		 pe_pid;
	int64_t		 pe_start;	/* wall ms */
	const char	*pe_why;	/* PE_NOSTART, PE_MISSED */
	int64_t		 pe_late;	/* PE_LATE: ms */
	uint32_t	 pe_timeout;	/* PE_TIMEOUT: s */
	int		 pe_wstatus;	/* PE_ENDED */
	int64_t		 pe_end;	/* PE_ENDED: wall ms */
	const struct outbuf *pe_out;	/* PE_ENDED */
	const char	*pe_spool;	/* the run file, or NULL */
	const struct runfile *pe_run;	/* PE_ADOPTED */
};
struct proc_req {
	const struct spawn_req *pr_spawn;
	const struct mail_req *pr_mail;
	void		*pr_owner;
	const char	*pr_who;
	const char	*pr_what;
	const char	*pr_label;
	const char	*pr_id;
	time_t		 pr_fire;
	int		 pr_attempt;
	uint32_t	 pr_timeout;
	int64_t		 pr_until;
	int64_t		 pr_deadline;	/* mono ms: start by, or missed */
	int		 pr_exempt;	/* a system table's: no user limit */
	/* Its events' handler; NULL: proc_init()'s. */
	void		(*pr_handler)(const struct proc_event *,
			    struct tick *);
};
enum proc_start { PS_QUEUED, PS_FAILED };
#define PROC_TURN	64
#define PROC_TURN_MS	50

void	 proc_init(void (*)(const struct proc_event *, struct tick *));
enum proc_start proc_start(const struct proc_req *, struct tick *,
	    struct proc **, char *, size_t);
void	 proc_run(struct tick *);
int	 proc_admit(const char *, struct tick *, char *, size_t);
size_t	 proc_queued(void);
size_t	 proc_count(void);
void	 proc_killall(int);
void	 proc_pollfds(struct pollfd *, size_t *, size_t, struct proc **);
void	 proc_io(struct proc *, short, struct tick *);
void	 proc_reap(struct tick *);
void	 proc_adopt(struct tick *);
void	 proc_own(struct proc *, void *);
void	 proc_adopt_handler(const char *,
	    void (*)(const struct proc_event *, struct tick *));
int	 proc_holds(const char *, time_t, int);
void	 proc_free(void);

/*
 * fire.c: a fire is every attempt of one (job, scheduled instant) on
 * this node, from the moment it comes due here until it is decided;
 * its life is one transition table (fire.c).  fire_new() makes one in
 * FS_NEW for the job of handle ref and identity id (copied), at
 * instant `fire'; fire_step() feeds it an event, with the event's data
 * (NULL: none), and it may be freed on the way (a final state).
 *
 * The fires waiting on a claim are read as an array: fire_list() gives
 * those in the states of mask (FSM(state) | ...), the array the
 * caller's to free, the fires borrowed until the next step of each.
 * fire_inflight() is how many attempts of the job id are in flight
 * here; fire_mark() and fire_marks() set and read claim.c's marks on
 * a fire (FF_*); fire_starting() how many attempts are started and not yet
 * exec'd, fire_started() how many got past that since the daemon
 * started (claim.c paces its claims by them); fire_owns_run() whether
 * a run (its id in the store, or its fire) is one of this node's in
 * flight now.  fire_stop() drops the
 * attempts that wait for a retry (the daemon stops).  fire_adopt()
 * takes, at the start, the attempts an earlier life of the daemon left
 * to their runners (proc.c), each a fire of its own, running.
 */
enum fire_state {
	FS_NEW,		/* made, nothing decided */
	FS_DUE,		/* a cluster fire due this turn: to claim */
	FS_DOUBT,	/* claimed, the answer lost */
	FS_DROPPED,	/* never claimed: the node could not */
	FS_CLAIMED,	/* this node's to run */
	FS_STARTING,	/* an attempt forked, not yet exec'd */
	FS_RUNNING,	/* an attempt runs */
	FS_RETRY,	/* waiting for the next attempt */
	/* Final: the fire is freed. */
	FS_FINISHED,	/* its last attempt ended */
	FS_OTHER,	/* another node's */
	FS_LEFT,	/* left to the other nodes (drained, stopping) */
	FS_SKIPPED,	/* overlap forbidden, a run in flight, or
			   over user-fire-rate: noted */
	FS_MISSED,	/* ours, too late to run (or to start, past
			   start-grace): noted */
	FS_FAILED,	/* could not start: recorded */
	FS_LOST,	/* not started: its claim may have been taken;
			   or started, its end unknown: its runner died */
	FS_UNSURE,	/* ours, but whether a run is in flight unknown */
	FS_GONE,	/* its job went away before it was settled */
	FS_STOPPED,	/* the daemon stopped before its next attempt */
	FS_NSTATES
};
#define FSM(s)		(1U << (s))

enum fire_event {
	FE_DUE,		/* a cluster fire came due */
	FE_LOCAL,	/* a fire of node scope (or @reboot) came due */
	FE_RERUN,	/* another node's lost run, rerun here */
	FE_WON,		/* the claim is ours */
	FE_WON_LATE,	/* ours, too late to run: noted missed */
	FE_NOT_WON,	/* another node has it */
	FE_NO_ANSWER,	/* the claim failed without an answer */
	FE_HOLD,	/* the node may not claim: keep it */
	FE_LEAVE,	/* drained, or stopping: not this node's */
	FE_RECORDED,	/* ours, but recorded by another node meanwhile */
	FE_GONE,	/* its job went away */
	FE_START,	/* no run in flight: start an attempt */
	FE_BUSY,	/* overlap forbidden and a run in flight */
	FE_UNSURE,	/* overlap forbidden and the store cannot tell */
	FE_NOSTART,	/* the attempt did not start */
	FE_LATE,	/* ... as it got there past its lease: a first */
	FE_LATE_RERUN,	/* ... the same, for a rerun */
	FE_EXEC,	/* the attempt exec'd */
	FE_TIMEOUT,	/* it outlived its timeout */
	FE_ENDED,	/* it ended, and the fire with it */
	FE_ENDED_RETRY,	/* it failed; another attempt follows */
	FE_RETRY_DUE,	/* time for that attempt */
	FE_STOP,	/* the daemon stops */
	FE_ADOPT,	/* a run of an earlier life, in its runner's hands */
	FE_VANISHED,	/* its runner died before the end */
	FE_OVER,	/* its owner is over user-fire-rate: skipped */
	FE_TOO_LATE,	/* not started within start-grace: missed */
	FE_RENEWED,	/* late for its lease, renewed since without a
			   break: started again under the current one */
	FE_NEVENTS
};

/*
 * An event's data: fd_job for FE_LOCAL, FE_RERUN and FE_START (the
 * fire's job, this turn), fd_until the lease a start is bound by
 * (monotonic ms; 0: none), fd_catchup that the claim was a catch-up
 * (1) or of a fire held unclaimed through an outage (2), logged so,
 * fd_why and fd_late for FE_NOSTART and FE_LATE (fd_why
 * also for FE_OVER and FE_TOO_LATE: the limit's words), and what
 * proc.c said of an ended attempt (fd_spool: the run file it said it
 * from).
 */
struct fire_data {
	const struct job *fd_job;
	int64_t		 fd_until;
	int		 fd_catchup;
	const char	*fd_why;
	int64_t		 fd_late;
	int		 fd_wstatus;
	int64_t		 fd_end;
	const struct outbuf *fd_out;
	uint32_t	 fd_timeout;
	const char	*fd_spool;
};

struct fire;
void	 fire_init(void);
struct fire *fire_new(const struct jobref *, const char *, time_t, int);
void	 fire_step(struct fire *, enum fire_event, struct fire_data *,
	    struct tick *);
enum fire_state fire_state(const struct fire *);
const char *fire_id(const struct fire *);
time_t	 fire_instant(const struct fire *);
struct jobref *fire_ref(struct fire *);
size_t	 fire_list(unsigned int, struct fire ***);
size_t	 fire_inflight(const char *);
void	 fire_mark(struct fire *, unsigned int);
unsigned int fire_marks(const struct fire *);
#define FF_PREF		0x1	/* this node its preferred claimant */
#define FF_CHECK	0x2	/* another node's: read whether free first */
#define FF_CHECKED	0x4	/* ... read */
#define FF_TAKEN	0x8	/* ... and found taken */
size_t	 fire_starting(void);
uint64_t fire_started(void);
int	 fire_owns_run(int64_t, const char *, time_t);
void	 fire_stop(struct tick *);
void	 fire_adopt(struct tick *);
void	 fire_free_all(void);
const char *fire_state_name(enum fire_state);
const char *fire_event_name(enum fire_event);
int	 fire_transition(enum fire_state, enum fire_event, enum fire_state *);

/*
 * node.c: this node in the cluster.  node_start() records the node (and
 * on MariaDB starts heartbeating, from a thread of its own on a
 * connection of its own) and looks for the runs an earlier life left
 * running.  node_turn() begins each turn of the loop: the thread learns
 * that the loop is alive, the loop what the thread learnt.
 * node_beat_now() is for a node whose lease ran out (gate.c): one
 * heartbeat at once, at most one every heartbeat-interval, as it may
 * only have slept.  What
 * the heartbeat learns for the modules above is kept for them to take:
 * node_lost() the runs of dead nodes this node marked lost (for
 * reruns; the array is the caller's to free), node_tables_due() whether
 * the stored tables are due to be read again, node_gone() the deaths
 * of other nodes whose fires claim.c is to sweep (the array is the
 * caller's to free).  node_leave() is the last heartbeat of a daemon
 * that leaves jobs to their runners.
 */
struct lostrun {
	char		 lr_id[CRON_IDLEN + 1];
	time_t		 lr_fire;
	int		 lr_attempt;
};
/* A node dead, and the instants (this node's clock) its fires span. */
struct gonenode {
	char		 gn_node[256];
	time_t		 gn_from;
	time_t		 gn_to;
};
void	 node_start(struct tick *);
void	 node_turn(struct tick *);
void	 node_beat_now(struct tick *);
void	 node_leave(struct tick *);
size_t	 node_lost(struct lostrun **);
size_t	 node_gone(struct gonenode **);
void	 node_cover(const struct store_cover *);
int	 node_tables_due(void);
void	 node_free(void);

/*
 * claim.c: what happens when jobs come due.  claim_due() takes every
 * job due by the tick from the wall-clock timers: a node-scope fire
 * starts, a cluster one waits for claim_flush(), which claims the
 * turn's fires together (one transaction per instant) and starts those
 * won.  claim_recover() is the misfire pass (and settles the claims in
 * doubt first); claim_sweep() notes the fires that dead nodes (node.c's
 * node_gone()) left claimed by no node; claim_rerun() reruns a lost run
 * (node.c's) when its job asks; claim_reboot() starts the @reboot
 * entries.  claim_leave() has the heartbeats say that this node claims
 * no more (the daemon stops); claim_free() lets go of everything.
 */
void	 claim_due(struct tick *);
void	 claim_flush(struct tick *);
void	 claim_recover(struct tick *);
void	 claim_sweep(const struct gonenode *, size_t, struct tick *);
void	 claim_rerun(const char *, time_t, int, struct tick *);
void	 claim_reboot(struct tick *);
void	 claim_leave(void);
void	 claim_free(void);

/*
 * atrun.c: one-shot jobs (at(1) for the cluster; atrun.c says how).
 * atrun_kick() has the store looked at now (a job was submitted here,
 * the store is back, the daemon started); after that atrun.c keeps its
 * own timer.  atrun_running() is the attempts running here.
 * atrun_final() tries once more to record what the store could not
 * take (the daemon stops); atrun_free() lets go of everything.
 * atrun_init(), before fire_adopt(), has the one-shot attempts of an
 * earlier life adopted by atrun.c rather than taken for cron fires.
 */
void	 atrun_init(void);
void	 atrun_kick(struct tick *);
size_t	 atrun_running(void);
void	 atrun_final(struct tick *);
void	 atrun_free(void);

/*
 * loader.c: the tables' sources.  loader_init() sets up change
 * detection (0, or -1 without inotify: the periodic check does all);
 * loader_fd() is inotify's descriptor for the loop (-1: none) and
 * loader_inotify() reads it; loader_scan_all() scans every source
 * (force: read every table again); loader_check_store() reads the
 * stored tables; loader_register() registers in the store the jobs that
 * are new or changed and lets go of those that left (all: hand it this
 * node's whole set).  loader_stop() stops watching.
 */
int	 loader_init(struct tick *);
int	 loader_fd(void);
void	 loader_inotify(struct tick *);
void	 loader_scan_all(int, struct tick *);
void	 loader_check_store(struct tick *);
void	 loader_register(int, struct tick *);
void	 loader_stop(void);
void	 loader_free(void);

/* daemon.c */
int	 daemon_main(int, char **);

#endif /* DAEMON_H */
