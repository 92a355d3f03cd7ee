/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * proc.c: the processes the daemon starts, under fire.c in the daemon's
 * chain (daemon.h).  Every attempt of a fire runs under a runner
 * (runner/runner.c), a small program of the daemon's own that stays
 * between the daemon and the job, as cron's intermediate process does:
 * it starts the job (privilege drop, exec: common/spawn.c), holds its
 * output and its exit status, enforces its timeout, writes its end into
 * the run file in the runs directory and mails its output.  What
 * happens to a proc is told to its owner as an event (daemon.h), never
 * by calling up the chain: the owner registered its handler with
 * proc_init().  The interface is narrow (start, events, kill, count) so
 * that another way of running jobs can take this file's place.
 *
 * Starting never waits on the job.  The daemon's child only execs the
 * runner (posix_spawn(): no code of the daemon's runs in it, so the
 * daemon may have threads, node.c), with a socket to the daemon at its
 * descriptor 3 and nothing else; the request follows on the socket,
 * written as the socket takes it.  All the runner says comes back on
 * the socket as events of the loop: the job exec'd (PE_STARTED), did
 * not (PE_NOSTART, PE_LATE), outlived its timeout (PE_TIMEOUT).  When
 * the socket reads end of file the runner has finished with the job:
 * its end is in the run file NAME.end, which is read here (PE_ENDED)
 * and deleted by record.c once the store has it; a runner that died
 * before it wrote an end leaves NAME.run, and the run is lost
 * (PE_LOST), its end unknown.  A user who stops his own job between
 * its fork and its exec holds up that job's runner, never the loop.
 *
 * The work of a turn is bounded: at most PROC_TURN runners are started
 * per turn, for PROC_TURN_MS at most (proc_run()); the others wait,
 * and the loop comes back to them after its poll, without sleeping
 * (proc_queued()).  A start bound by a lease (pr_until) that has passed
 * when its turn comes is PE_LATE, without a runner.
 *
 * Fair shares (issue 12).  The starts wait in one queue per user (the
 * job's owner), in the order they came, and the users with starts
 * waiting take turns, one start each (round robin): a user with
 * thousands of starts waiting delays another user's start by at most
 * one start of his, never by his backlog.  A user has at most
 * user-max-running runs under way on this node (runners started, and
 * runs of an earlier life): his further starts wait in his queue, and
 * the other users' go on.  A start that waits longer than start-grace
 * (pr_deadline) is PE_MISSED, without a runner: lateness is bounded,
 * nothing starts late for ever.  proc_admit() is the rate of a user's
 * fires, a token bucket: user-fire-rate fires a second, user-fire-burst
 * at once; a fire beyond it is refused before any work is done for it.
 * Every limit hit is logged as a LIMIT line naming the user and the
 * limit, at most one line per user, limit and LIMIT_LOG_MS (the rest
 * are counted and said in the next one), so that a user cannot flood
 * the log.
 *
 * Runs of an earlier life.  A daemon that stops, is restarted or is
 * killed leaves its runners running: they carry on alone (runner.c).
 * proc_adopt(), at the start of the next daemon, reads the runs
 * directory: each run file of this node becomes a proc again, told to
 * the owner's handler as PE_ADOPTED (the one proc_adopt_handler() names
 * for its id's prefix, else proc_init()'s), which takes it
 * (proc_own()); an end found there is PE_ENDED at once; a run whose
 * runner still holds its file is watched (PROBE_MS) until its end
 * comes, and one whose runner died without an end is PE_LOST.  The
 * directory is read again at each probe for ADOPT_WINDOW after the
 * start, in case a runner of the earlier life took its file only after
 * the first reading.
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/tree.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <paths.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"

#define PROBE_MS	1000	/* runs of an earlier life looked at */
#define ADOPT_WINDOW	10000	/* ms the directory is read again */
#define RUNNER_NAME	"clustercron-runner"
#define LIMIT_LOG_MS	60000	/* a LIMIT line per user and limit */
#define SWEEP_MS	1000	/* the counts said, idle users freed */

/* The limits a user may hit (LIMIT lines). */
enum limit { LIM_RATE, LIM_RUNNING, LIM_GRACE, LIM_COUNT };

/*
 * A user with starts waiting, runs under way, a bucket not full or
 * limits hit not yet said: his queue of starts, his count of runs,
 * his bucket of fires (in thousandths of a fire) and his LIMIT lines.
 */
struct puser {
	RB_ENTRY(puser)	 u_entry;
	TAILQ_ENTRY(puser) u_ring;	/* while u_nq > 0 */
	TAILQ_HEAD(, proc) u_q;
	size_t		 u_nq;
	size_t		 u_nrun;
	int64_t		 u_tokens;	/* thousandths of a fire */
	int64_t		 u_filled;	/* monotonic ms of the last fill */
	uint64_t	 u_hits[LIM_COUNT];	/* not yet said */
	int64_t		 u_said[LIM_COUNT];	/* monotonic ms; 0 never */
	int		 u_exempt;	/* his system tables' starts */
	char		*u_name;
};
int	 puser_cmp(struct puser *, struct puser *);
RB_HEAD(pusers, puser);
RB_PROTOTYPE(pusers, puser, u_entry, puser_cmp);
RB_GENERATE(pusers, puser, u_entry, puser_cmp);
static struct pusers	 pusers = RB_INITIALIZER(&pusers);
static TAILQ_HEAD(, puser) ring = TAILQ_HEAD_INITIALIZER(ring);
static int64_t		 swept;		/* monotonic ms */
static struct mtimer	 expire_t;	/* a held start's deadline */

enum pstate {
	P_QUEUED,	/* waiting for its turn to start */
	P_SPAWNED,	/* its runner runs */
	P_ADOPTED	/* of an earlier life: watched by its run file */
};

struct proc {
	LIST_ENTRY(proc) p_entry;
	TAILQ_ENTRY(proc) p_qentry;	/* while P_QUEUED */
	enum pstate	 p_state;
	struct puser	*p_user;	/* its owner's queue and count */
	int		 p_counted;	/* in p_user's u_nrun */
	int		 p_held;	/* waited for user-max-running */
	int64_t		 p_deadline;	/* monotonic ms: start by; 0 none */
	void		*p_owner;
	void		(*p_handler)(const struct proc_event *, struct tick *);
	const char	*p_who;		/* for the log: the owner */
	char		 p_name[NAME_MAX + 1];	/* ID-FIRE-ATTEMPT */
	pid_t		 p_runner;
	pid_t		 p_pid;		/* the job's, once it exec'd */
	int64_t		 p_start;	/* wall ms, handed over */
	int64_t		 p_until;	/* monotonic ms: no exec after */
	int		 p_fd;		/* the runner's socket, or -1 */
	char		*p_out;		/* what is to be written to it */
	size_t		 p_outlen;
	size_t		 p_outoff;
	char		 p_in[512];	/* what it said, not yet read */
	size_t		 p_inlen;
	int		 p_started;	/* RM_STARTED heard, or adopted */
	int		 p_failed;	/* RM_FAILED heard: p_step, p_why */
	int		 p_step;
	char		 p_why[256];
	char		*p_whocopy;	/* an adopted proc's owner */
	int		 p_orphan;	/* its runner died, its job lives */
};

static LIST_HEAD(, proc) procs = LIST_HEAD_INITIALIZER(procs);
static size_t	 nprocs;		/* in the list */
static size_t	 nqueued;
static size_t	 nadopted;
static int64_t	 adopt_until;		/* monotonic ms: read the dir */
static void	(*handler)(const struct proc_event *, struct tick *);
/* The handlers of adopted runs by the prefix of their id. */
#define ADOPTERS_MAX	4
static struct {
	const char	*a_prefix;
	void		(*a_fn)(const struct proc_event *, struct tick *);
} adopters[ADOPTERS_MAX];
static size_t	 nadopters;
static struct mtimer	 probe_t;
/*
 * The runs told to their owners from their run files, whose files stay
 * until the store has their records (record.c deletes them): scan()
 * must not take them for runs of an earlier life.
 */
static char	(*handed)[NAME_MAX + 1];
static size_t	 nhanded, caphanded;

static void	 deliver(struct proc *, struct proc_event *, struct tick *);
static void	 proc_destroy(struct proc *);
static char	**runner_env(void);
static int	 spawn_runner(struct proc *, char *, size_t);
static void	 pump(struct proc *);
static void	 hear(struct proc *, struct tick *);
static void	 gone(struct proc *, struct tick *);
static void	 ended(struct proc *, const char *, struct tick *);
static int	 file_get(const char *, struct runfile *);
static int	 held(const char *);
static void	 path_of(const struct proc *, const char *, char *, size_t);
static void	 send_msg(struct proc *, int, int64_t);
static void	 probe(struct mtimer *, struct tick *);
static void	 lost(struct proc *, const char *, struct tick *);
static void	 scan(struct tick *);
static struct proc *find(const char *);
static void	 hand(const struct proc *, const char *);
static int	 handed_has(const char *);
static void	 handed_prune(void);
static void	 adopt(const char *, const struct runfile *, int,
		    struct tick *);
static struct puser *puser_get(const char *, int);
static int	 held_back(const struct puser *);
static void	 dequeue(struct proc *);
static void	 count_run(struct proc *);
static void	 limit_hit(struct puser *, enum limit, struct tick *);
static void	 limit_say(struct puser *, enum limit, int64_t);
static void	 sweep(struct tick *);
static void	 expire_held(struct tick *);
static void	 miss_why(const struct proc *, const struct tick *, char *,
		    size_t);
static void	 expire_wake(struct mtimer *, struct tick *);

void
proc_init(void (*fn)(const struct proc_event *, struct tick *))
{
	handler = fn;
	mtimer_init(&probe_t, probe, NULL);
	mtimer_init(&expire_t, expire_wake, NULL);
}

int
puser_cmp(struct puser *a, struct puser *b)
{
	int	 c;

	if ((c = strcmp(a->u_name, b->u_name)) != 0)
		return (c);
	return (a->u_exempt - b->u_exempt);
}

/*
 * The user named name, made with a full bucket when new; with exempt
 * set, the starts of his jobs of the system tables, which take their
 * own turns and are held back by no limit.
 */
static struct puser *
puser_get(const char *name, int exempt)
{
	struct puser	 key, *u;

	key.u_name = (char *)name;
	key.u_exempt = exempt;
	if ((u = RB_FIND(pusers, &pusers, &key)) != NULL)
		return (u);
	u = xcalloc(1, sizeof(*u));
	u->u_name = xstrdup(name);
	u->u_exempt = exempt;
	TAILQ_INIT(&u->u_q);
	u->u_tokens = (int64_t)D.d_conf.c_user_fire_burst * 1000;
	RB_INSERT(pusers, &pusers, u);
	return (u);
}

/* Whether the user's starts wait for one of his runs to end. */
static int
held_back(const struct puser *u)
{
	return (D.d_conf.c_user_max_running != 0 && !u->u_exempt &&
	    u->u_nrun >= D.d_conf.c_user_max_running);
}

/* Take a queued proc off its user's queue. */
static void
dequeue(struct proc *p)
{
	struct puser	*u = p->p_user;

	TAILQ_REMOVE(&u->u_q, p, p_qentry);
	if (--u->u_nq == 0)
		TAILQ_REMOVE(&ring, u, u_ring);
	nqueued--;
}

/* The proc's run is under way: it counts against its user's limit. */
static void
count_run(struct proc *p)
{
	if (p->p_user == NULL)
		p->p_user = puser_get(p->p_who, 0);
	p->p_user->u_nrun++;
	p->p_counted = 1;
}

/*
 * Whether user may fire once more now (user-fire-rate): 1, taking a
 * fire from his bucket, or 0, the limit hit and counted, with why.
 */
int
proc_admit(const char *user, struct tick *tk, char *why, size_t len)
{
	struct puser	*u;
	int64_t		 cap;

	if (D.d_conf.c_user_fire_rate == 0)
		return (1);
	u = puser_get(user, 0);
	cap = (int64_t)D.d_conf.c_user_fire_burst * 1000;
	if (u->u_filled != 0 && u->u_tokens < cap) {
		u->u_tokens += (tk->tk_mono - u->u_filled) *
		    (int64_t)D.d_conf.c_user_fire_rate;
		if (u->u_tokens > cap)
			u->u_tokens = cap;
	}
	u->u_filled = tk->tk_mono;
	if (u->u_tokens >= 1000) {
		u->u_tokens -= 1000;
		return (1);
	}
	snprintf(why, len, "skipped: over user-fire-rate (%u fires a "
	    "second, burst %u)", D.d_conf.c_user_fire_rate,
	    D.d_conf.c_user_fire_burst);
	limit_hit(u, LIM_RATE, tk);
	return (0);
}

/*
 * The user hit a limit: said at once if not said for LIMIT_LOG_MS,
 * else counted for the next line (sweep()).
 */
static void
limit_hit(struct puser *u, enum limit k, struct tick *tk)
{
	u->u_hits[k]++;
	if (u->u_said[k] != 0 && tk->tk_mono - u->u_said[k] < LIMIT_LOG_MS)
		return;
	limit_say(u, k, tk->tk_mono);
	u->u_said[k] = tk->tk_mono;
}

/*
 * Say that the user hit limit k: the first time what it is, later how
 * many fires it concerned since the last line (now: monotonic ms).
 */
static void
limit_say(struct puser *u, enum limit k, int64_t now)
{
	static const char *const what[LIM_COUNT] = {
		"skipped: over user-fire-rate",
		"waiting: user-max-running reached",
		"missed: not started within start-grace"
	};
	char	 lim[64];
	uint64_t n = u->u_hits[k];

	switch (k) {
	case LIM_RATE:
		snprintf(lim, sizeof(lim), "%u fires a second, burst %u",
		    D.d_conf.c_user_fire_rate, D.d_conf.c_user_fire_burst);
		break;
	case LIM_RUNNING:
		snprintf(lim, sizeof(lim), "%zu runs on this node",
		    D.d_conf.c_user_max_running);
		break;
	default:
		snprintf(lim, sizeof(lim), "%lld s",
		    (long long)(D.d_conf.c_start_grace_ms / 1000));
		break;
	}
	if (u->u_said[k] == 0)
		log_warnx("(%s) LIMIT (fires %s (%s); said again at most "
		    "every %d s, with a count)", u->u_name, what[k], lim,
		    LIMIT_LOG_MS / 1000);
	else
		log_warnx("(%s) LIMIT (%llu fire%s %s (%s) in the last %lld "
		    "s)", u->u_name, (unsigned long long)n, n == 1 ? "" : "s",
		    what[k], lim, (long long)((now - u->u_said[k]) / 1000));
	u->u_hits[k] = 0;
}

/*
 * Once a second: the limits hit and not said for LIMIT_LOG_MS are
 * said, and a user with nothing left here (no start, no run, a full
 * bucket, nothing to say) is forgotten.
 */
static void
sweep(struct tick *tk)
{
	struct puser	*u, *next;
	int64_t		 cap;
	int		 k, keep;

	if (swept != 0 && tk->tk_mono - swept < SWEEP_MS)
		return;
	swept = tk->tk_mono;
	cap = (int64_t)D.d_conf.c_user_fire_burst * 1000;
	RB_FOREACH_SAFE(u, pusers, &pusers, next) {
		keep = u->u_nq > 0 || u->u_nrun > 0;
		for (k = 0; k < LIM_COUNT; k++) {
			if (u->u_hits[k] > 0 &&
			    tk->tk_mono - u->u_said[k] >= LIMIT_LOG_MS) {
				limit_say(u, k, tk->tk_mono);
				u->u_said[k] = tk->tk_mono;
			}
			if (u->u_hits[k] > 0 || (u->u_said[k] != 0 &&
			    tk->tk_mono - u->u_said[k] < LIMIT_LOG_MS))
				keep = 1;
		}
		if (u->u_filled != 0 && u->u_tokens + (tk->tk_mono -
		    u->u_filled) * (int64_t)D.d_conf.c_user_fire_rate < cap)
			keep = 1;
		if (keep)
			continue;
		RB_REMOVE(pusers, &pusers, u);
		free(u->u_name);
		free(u);
	}
}

/* The held-back start due to expire first wakes the loop. */
static void
expire_wake(struct mtimer *t, struct tick *tk)
{
}

static void
deliver(struct proc *p, struct proc_event *ev, struct tick *tk)
{
	ev->pe_owner = p->p_owner;
	ev->pe_proc = p;
	if (ev->pe_pid == 0)
		ev->pe_pid = p->p_pid;
	ev->pe_start = p->p_start;
	(p->p_handler != NULL ? p->p_handler : handler)(ev, tk);
}

/*
 * A proc has said its last: out of the lists (and the counts) before
 * its owner hears of it, freed after.
 */
static void
proc_unlink(struct proc *p)
{
	if (p->p_state == P_QUEUED)
		dequeue(p);
	else if (p->p_state == P_ADOPTED)
		nadopted--;
	if (p->p_counted) {
		p->p_user->u_nrun--;
		p->p_counted = 0;
	}
	LIST_REMOVE(p, p_entry);
	nprocs--;
}

static void
proc_destroy(struct proc *p)
{
	if (p->p_fd != -1)
		close(p->p_fd);
	free(p->p_out);
	free(p->p_whocopy);
	free(p);
}

/* The path of the proc's run file with suffix (".run", ".end"). */
static void
path_of(const struct proc *p, const char *suffix, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s", D.d_conf.c_runsdir, p->p_name, suffix);
}

enum proc_start
proc_start(const struct proc_req *pr, struct tick *tk, struct proc **pp,
    char *why, size_t len)
{
	const struct spawn_req	*sr = pr->pr_spawn;
	const struct mail_req	*mr = pr->pr_mail;
	struct runreq		 rq;
	struct proc		*p;
	int64_t			 cur, max;

	*pp = NULL;
	p = xcalloc(1, sizeof(*p));
	p->p_fd = -1;
	if (runfile_name(p->p_name, sizeof(p->p_name), pr->pr_id,
	    pr->pr_fire, pr->pr_attempt, "") == -1) {
		snprintf(why, len, "runs directory: %s", strerror(errno));
		free(p);
		return (PS_FAILED);
	}
	memset(&rq, 0, sizeof(rq));
	rq.rq_id = (char *)pr->pr_id;
	rq.rq_fire = pr->pr_fire;
	rq.rq_attempt = pr->pr_attempt;
	rq.rq_node = D.d_conf.c_node;
	rq.rq_dir = D.d_conf.c_runsdir;
	rq.rq_user = sr->sr_pw->pw_name;
	rq.rq_uid = sr->sr_pw->pw_uid;
	rq.rq_gid = sr->sr_pw->pw_gid;
	rq.rq_home = sr->sr_pw->pw_dir;
	rq.rq_cmd = (char *)sr->sr_cmd;
	rq.rq_env = (char **)sr->sr_env;
	rq.rq_input = (char *)sr->sr_input;
	rq.rq_inputlen = sr->sr_inputlen;
	rq.rq_title = (char *)sr->sr_title;
	rq.rq_pam = (char *)sr->sr_pam;
	rq.rq_outmax = sr->sr_outmax;
	rq.rq_startms = sr->sr_startms;
	rq.rq_until = pr->pr_until;
	rq.rq_timeout = pr->pr_timeout;
	rq.rq_nofile_cur = rq.rq_nofile_max = -1;
	if (spawn_nofile_orig(&cur, &max)) {
		rq.rq_nofile_cur = cur;
		rq.rq_nofile_max = max;
	}
	rq.rq_log = D.d_logmode;
	rq.rq_logfile = D.d_conf.c_log_file;
	rq.rq_debug = D.d_debug;
	rq.rq_what = (char *)pr->pr_what;
	rq.rq_label = (char *)pr->pr_label;
	if (mr != NULL) {
		rq.rq_mailto = (char *)mr->mr_to;
		rq.rq_mailfrom = (char *)mr->mr_from;
		rq.rq_sendmail = (char *)mr->mr_sendmail;
		rq.rq_fqdn = mr->mr_fqdn;
		rq.rq_failsubj = mr->mr_failed;
		rq.rq_subject = (char *)mr->mr_subject;
		rq.rq_mailall = mr->mr_always;
	}
	/* The start: as the daemon counts it, when it hands it over. */
	tick_read(tk);
	rq.rq_start = p->p_start = tk->tk_wall;
	if (runreq_encode(&rq, &p->p_out, &p->p_outlen) == -1) {
		snprintf(why, len, "request: %s", strerror(errno));
		free(p);
		return (PS_FAILED);
	}
	p->p_state = P_QUEUED;
	p->p_owner = pr->pr_owner;
	p->p_handler = pr->pr_handler;
	p->p_who = pr->pr_who;
	p->p_until = pr->pr_until;
	p->p_deadline = pr->pr_deadline;
	p->p_user = puser_get(pr->pr_who, pr->pr_exempt);
	LIST_INSERT_HEAD(&procs, p, p_entry);
	TAILQ_INSERT_TAIL(&p->p_user->u_q, p, p_qentry);
	if (p->p_user->u_nq++ == 0)
		TAILQ_INSERT_TAIL(&ring, p->p_user, u_ring);
	if (held_back(p->p_user)) {
		p->p_held = 1;
		limit_hit(p->p_user, LIM_RUNNING, tk);
	}
	nprocs++;
	nqueued++;
	*pp = p;
	return (PS_QUEUED);
}

/*
 * The runner's environment, made once: TZ, for its log's times, and the
 * variables of the tests' hooks (CLUSTERCRON_TEST_*), which only the
 * runner built for the tests reads (tests/testbin).  Nothing else of
 * the daemon's: the job's comes in the request.
 */
static char **
runner_env(void)
{
	static char	**env;
	extern char	**environ;
	size_t		 i, n = 0;

	if (env != NULL)
		return (env);
	for (i = 0; environ[i] != NULL; i++)
		;
	env = xcalloc(i + 1, sizeof(*env));
	for (i = 0; environ[i] != NULL; i++)
		if (strncmp(environ[i], "TZ=", 3) == 0 ||
		    strncmp(environ[i], "CLUSTERCRON_TEST_", 17) == 0)
			env[n++] = xstrdup(environ[i]);
	return (env);
}

/*
 * Exec the runner with the socket at descriptor 3, standard input and
 * output on /dev/null and the daemon's standard error (where it logs in
 * the foreground), in a session of its own, with default signals and
 * an empty mask.  0, or -1 with why.
 */
static int
spawn_runner(struct proc *p, char *why, size_t len)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t	 attr;
	sigset_t		 all, none;
	char			*argv[4];
	int			 sv[2], fd, r;
	short			 flags;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(why, len, "socketpair: %s", strerror(errno));
		return (-1);
	}
	/* Not at 3 already: dup2() onto itself would keep close-on-exec. */
	if (sv[1] == 3) {
		if ((fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 4)) == -1) {
			snprintf(why, len, "fcntl: %s", strerror(errno));
			close(sv[0]);
			close(sv[1]);
			return (-1);
		}
		close(sv[1]);
		sv[1] = fd;
	}
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1) {
		snprintf(why, len, "fcntl: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return (-1);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, _PATH_DEVNULL,
	    O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, _PATH_DEVNULL,
	    O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
#ifdef HAVE_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	posix_spawn_file_actions_addclosefrom_np(&fa, 4);
#endif
	posix_spawnattr_init(&attr);
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setsigmask(&attr, &none);
	flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_SETSID
	flags |= POSIX_SPAWN_SETSID;
#endif
	posix_spawnattr_setflags(&attr, flags);
	argv[0] = (char *)RUNNER_NAME;
	argv[1] = (char *)p->p_who;
	argv[2] = p->p_name;
	argv[3] = NULL;
	r = posix_spawn(&p->p_runner, D.d_conf.c_runner, &fa, &attr, argv,
	    runner_env());
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(sv[1]);
	if (r != 0) {
		snprintf(why, len, "runner %s: %s", D.d_conf.c_runner,
		    strerror(r));
		close(sv[0]);
		return (-1);
	}
	p->p_fd = sv[0];
	return (0);
}

/*
 * Start the runners of queued procs, the users taking turns, each
 * user's in the order they came: at most PROC_TURN of them, and none
 * after PROC_TURN_MS (an exec takes a few ms on a busy machine), so
 * that the loop is back at its signals and sockets within a fraction
 * of a second.  A user held back by user-max-running is passed over;
 * his starts past their deadline are missed meanwhile (expire_held()).
 */
void
proc_run(struct tick *tk)
{
	struct proc_event	 ev;
	struct puser		*u;
	struct proc		*p;
	char			 why[300];
	int64_t			 t0;
	int			 n;

	tick_read(tk);
	t0 = tk->tk_mono;
	expire_held(tk);
	for (n = 0; n < PROC_TURN && (n == 0 || tk->tk_mono - t0 <
	    PROC_TURN_MS); n++, tick_read(tk)) {
		TAILQ_FOREACH(u, &ring, u_ring)
			if (!held_back(u))
				break;
		if (u == NULL)
			break;
		/* His turn is taken: the others come first next time. */
		TAILQ_REMOVE(&ring, u, u_ring);
		TAILQ_INSERT_TAIL(&ring, u, u_ring);
		p = TAILQ_FIRST(&u->u_q);
		dequeue(p);
		memset(&ev, 0, sizeof(ev));
		if (p->p_until != 0 && tk->tk_mono >= p->p_until &&
		    !p->p_held) {
			p->p_state = P_SPAWNED;
			proc_unlink(p);
			ev.pe_kind = PE_LATE;
			ev.pe_late = tk->tk_mono - p->p_until;
			deliver(p, &ev, tk);
			proc_destroy(p);
			continue;
		}
		/* Past start-grace, or held back past its lease. */
		if ((p->p_deadline != 0 && tk->tk_mono >= p->p_deadline) ||
		    (p->p_until != 0 && tk->tk_mono >= p->p_until)) {
			p->p_state = P_SPAWNED;
			proc_unlink(p);
			limit_hit(u, LIM_GRACE, tk);
			miss_why(p, tk, why, sizeof(why));
			ev.pe_kind = PE_MISSED;
			ev.pe_why = why;
			deliver(p, &ev, tk);
			proc_destroy(p);
			continue;
		}
		if (spawn_runner(p, why, sizeof(why)) == -1) {
			p->p_state = P_SPAWNED;
			proc_unlink(p);
			ev.pe_kind = PE_NOSTART;
			ev.pe_why = why;
			deliver(p, &ev, tk);
			proc_destroy(p);
			continue;
		}
		p->p_state = P_SPAWNED;
		/* Its start is now, not when it was queued. */
		p->p_start = tk->tk_wall;
		count_run(p);
		pump(p);
	}
	if (n > 0)
		log_debug("(CRON) RUNNERS (%d runs taken in %lld ms, %zu wait)",
		    n, (long long)(tk->tk_mono - t0), nqueued);
	expire_held(tk);
	sweep(tk);
}

/*
 * Why the start of p, taken off its queue now, is missed: start-grace
 * is over, or the lease of its claim while its owner was held back.
 */
static void
miss_why(const struct proc *p, const struct tick *tk, char *buf,
    size_t len)
{
	long long	 grace = D.d_conf.c_start_grace_ms / 1000;

	if (!p->p_held)
		snprintf(buf, len, "missed: not started within start-grace "
		    "(%lld s): %zu starts waited here", grace, nqueued + 1);
	else if (p->p_deadline != 0 && tk->tk_mono >= p->p_deadline)
		snprintf(buf, len, "missed: not started within start-grace "
		    "(%lld s): user-max-running (%zu) reached", grace,
		    D.d_conf.c_user_max_running);
	else
		snprintf(buf, len, "missed: not started within the lease of "
		    "its claim: user-max-running (%zu) reached",
		    D.d_conf.c_user_max_running);
}

/*
 * The starts of users held back by user-max-running: those past their
 * deadline are missed (PE_MISSED), the others wait; the first deadline
 * of those left wakes the loop (expire_t).  A start's deadline is
 * start-grace after it was queued, or the lease of its claim when that
 * ends first: a start held back by its owner's limit is missed then
 * too, for that reason, rather than fenced (PE_LATE, which leaves the
 * fire to the misfire pass: a catch-up would run it after all).  Each
 * user's starts are looked at in order, up to the first that may still
 * wait.
 */
static void
expire_held(struct tick *tk)
{
	struct proc_event	 ev;
	struct puser		*u, *next;
	struct proc		*p, *pn;
	char			 why[300];
	int64_t			 first = 0, by;

	TAILQ_FOREACH_SAFE(u, &ring, u_ring, next) {
		if (!held_back(u))
			continue;
		TAILQ_FOREACH_SAFE(p, &u->u_q, p_qentry, pn) {
			if (!p->p_held) {
				p->p_held = 1;
				limit_hit(u, LIM_RUNNING, tk);
			}
			by = p->p_deadline;
			if (p->p_until != 0 && (by == 0 || p->p_until < by))
				by = p->p_until;
			if (by == 0)
				continue;
			if (tk->tk_mono < by) {
				if (first == 0 || by < first)
					first = by;
				break;
			}
			proc_unlink(p);
			limit_hit(u, LIM_GRACE, tk);
			miss_why(p, tk, why, sizeof(why));
			memset(&ev, 0, sizeof(ev));
			ev.pe_kind = PE_MISSED;
			ev.pe_why = why;
			deliver(p, &ev, tk);
			proc_destroy(p);
		}
	}
	if (first != 0)
		mtimer_set(&expire_t, first);
	else
		mtimer_del(&expire_t);
}

/* Write what waits for the runner, as far as its socket takes it. */
static void
pump(struct proc *p)
{
	ssize_t	 n;

	while (p->p_out != NULL && p->p_fd != -1) {
		n = send(p->p_fd, p->p_out + p->p_outoff,
		    p->p_outlen - p->p_outoff, MSG_NOSIGNAL);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* Gone: its end of file says the rest. */
			break;
		}
		p->p_outoff += (size_t)n;
		if (p->p_outoff < p->p_outlen)
			continue;
		break;
	}
	free(p->p_out);
	p->p_out = NULL;
	p->p_outlen = p->p_outoff = 0;
}

/* A message for the runner, after whatever waits. */
static void
send_msg(struct proc *p, int kind, int64_t num)
{
	struct runmsg	 rm;
	char		*buf, *nb;
	size_t		 len;

	if (p->p_fd == -1)
		return;
	memset(&rm, 0, sizeof(rm));
	rm.rm_kind = kind;
	rm.rm_num = num;
	if (runmsg_encode(&rm, &buf, &len) == -1)
		return;
	if (p->p_out == NULL) {
		p->p_out = buf;
		p->p_outlen = len;
		p->p_outoff = 0;
	} else {
		nb = xreallocarray(p->p_out, p->p_outlen + len, 1);
		memcpy(nb + p->p_outlen, buf, len);
		p->p_out = nb;
		p->p_outlen += len;
		free(buf);
	}
	pump(p);
}

/*
 * What the runner said: its messages, or its end of file.  May free the
 * proc.
 */
static void
hear(struct proc *p, struct tick *tk)
{
	struct proc_event	 ev;
	struct runmsg		 rm;
	size_t			 flen = 0;
	ssize_t			 n;
	int			 r;

	n = read(p->p_fd, p->p_in + p->p_inlen, sizeof(p->p_in) - p->p_inlen);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		gone(p, tk);
		return;
	}
	p->p_inlen += (size_t)n;
	while ((r = runrec_framed(p->p_in, p->p_inlen, &flen)) == 1) {
		if (runmsg_decode(p->p_in, flen, &rm) == 0) {
			memset(&ev, 0, sizeof(ev));
			switch (rm.rm_kind) {
			case RM_STARTED:
				p->p_started = 1;
				p->p_pid = (pid_t)rm.rm_num;
				ev.pe_kind = PE_STARTED;
				deliver(p, &ev, tk);
				break;
			case RM_TIMEOUT:
				ev.pe_kind = PE_TIMEOUT;
				ev.pe_timeout = (uint32_t)rm.rm_num;
				deliver(p, &ev, tk);
				break;
			case RM_FAILED:
				p->p_failed = 1;
				p->p_step = (int)rm.rm_num;
				strlcpy(p->p_why, rm.rm_why, sizeof(p->p_why));
				break;
			default:
				break;
			}
		}
		memmove(p->p_in, p->p_in + flen, p->p_inlen - flen);
		p->p_inlen -= flen;
	}
	if (r == -1 || p->p_inlen == sizeof(p->p_in)) {
		log_warnx("(%s) ERROR (runner %ld: garbled words)", p->p_who,
		    (long)p->p_runner);
		gone(p, tk);
	}
}

/*
 * The runner closed its socket: it is done with the job, or died, or
 * (garbled words) no longer listens.  Its run file says which.
 */
static void
gone(struct proc *p, struct tick *tk)
{
	struct proc_event	 ev;
	char			 path[PATH_MAX];

	close(p->p_fd);
	p->p_fd = -1;
	free(p->p_out);
	p->p_out = NULL;
	path_of(p, ".end", path, sizeof(path));
	if (access(path, F_OK) == 0) {
		ended(p, path, tk);
		return;
	}
	memset(&ev, 0, sizeof(ev));
	if (p->p_failed && p->p_step == SPAWN_LATE) {
		proc_unlink(p);
		ev.pe_kind = PE_LATE;
		tick_read(tk);
		ev.pe_late = p->p_until != 0 ? tk->tk_mono - p->p_until : 0;
		deliver(p, &ev, tk);
		proc_destroy(p);
		return;
	}
	if (!p->p_started) {
		proc_unlink(p);
		ev.pe_kind = PE_NOSTART;
		ev.pe_why = p->p_failed ? p->p_why :
		    "the runner ended before the job started";
		deliver(p, &ev, tk);
		proc_destroy(p);
		return;
	}
	path_of(p, ".run", path, sizeof(path));
	if (held(path) == 1) {
		/* The runner lives on without its socket: watch its file. */
		p->p_state = P_ADOPTED;
		nadopted++;
		if (!mtimer_queued(&probe_t))
			mtimer_set(&probe_t, tk->tk_mono + PROBE_MS);
		return;
	}
	p->p_state = P_ADOPTED;
	nadopted++;
	lost(p, path, tk);
}

/*
 * The runner of p died before it wrote the end (its run file, at path,
 * unlocked and not renamed): the run is lost, its end unknown.  While
 * the job's process lives on without its runner, the run stays in
 * flight, watched (probe()), and is lost only once that process is
 * gone: a rerun of a lost run (CLUSTERCRON_LOST=rerun) must not overlap
 * it.  p is P_ADOPTED; it may be freed.
 */
static void
lost(struct proc *p, const char *path, struct tick *tk)
{
	struct proc_event	 ev;

	if (p->p_pid > 0 && spawn_alive(p->p_pid, p->p_start)) {
		if (!p->p_orphan)
			log_info("(%s) ERROR (the runner of %s died; its job, "
			    "pid %ld, runs on: lost once it ends)", p->p_who,
			    p->p_name, (long)p->p_pid);
		p->p_orphan = 1;
		if (!mtimer_queued(&probe_t))
			mtimer_set(&probe_t, tk->tk_mono + PROBE_MS);
		return;
	}
	proc_unlink(p);
	memset(&ev, 0, sizeof(ev));
	ev.pe_kind = PE_LOST;
	ev.pe_spool = access(path, F_OK) == 0 ? path : NULL;
	deliver(p, &ev, tk);
	hand(p, path);
	proc_destroy(p);
}

/* The proc's end is in the run file at path: tell its owner. */
static void
ended(struct proc *p, const char *path, struct tick *tk)
{
	struct proc_event	 ev;
	struct runfile		 rf;

	proc_unlink(p);
	memset(&ev, 0, sizeof(ev));
	if (file_get(path, &rf) == -1) {
		log_warn("(%s) ERROR (%s)", p->p_who, path);
		ev.pe_kind = p->p_started ? PE_LOST : PE_NOSTART;
		ev.pe_why = "its end could not be read";
		deliver(p, &ev, tk);
		proc_destroy(p);
		return;
	}
	ev.pe_spool = path;
	if (rf.rf_kind == RUNF_FAILED) {
		ev.pe_kind = PE_NOSTART;
		ev.pe_why = rf.rf_why != NULL ? rf.rf_why : "unknown";
	} else {
		ev.pe_kind = PE_ENDED;
		ev.pe_pid = rf.rf_pid;
		ev.pe_wstatus = rf.rf_wstatus;
		ev.pe_end = rf.rf_end;
		ev.pe_out = &rf.rf_out;
	}
	deliver(p, &ev, tk);
	hand(p, path);
	runfile_free(&rf);
	proc_destroy(p);
}

/*
 * p was told from its run file at path: kept while the file stays, as
 * long as scan() reads the directory (ADOPT_WINDOW after the start).
 */
static void
hand(const struct proc *p, const char *path)
{
	if (adopt_until == 0 || access(path, F_OK) == -1)
		return;
	if (nhanded == caphanded) {
		caphanded = caphanded == 0 ? 16 : caphanded * 2;
		handed = xreallocarray(handed, caphanded, sizeof(*handed));
	}
	strlcpy(handed[nhanded++], p->p_name, sizeof(handed[0]));
}

static int
handed_has(const char *name)
{
	size_t	 i;

	for (i = 0; i < nhanded; i++)
		if (strcmp(handed[i], name) == 0)
			return (1);
	return (0);
}

/* Forget the runs whose files the record took away. */
static void
handed_prune(void)
{
	char	 path[PATH_MAX];
	size_t	 i, k;

	for (i = k = 0; i < nhanded; i++) {
		snprintf(path, sizeof(path), "%s/%s.run", D.d_conf.c_runsdir,
		    handed[i]);
		if (access(path, F_OK) == -1) {
			snprintf(path, sizeof(path), "%s/%s.end",
			    D.d_conf.c_runsdir, handed[i]);
			if (access(path, F_OK) == -1)
				continue;
		}
		if (k != i)
			memcpy(handed[k], handed[i], sizeof(handed[0]));
		k++;
	}
	nhanded = k;
}

/* Read and decode a run file: 0, or -1 with errno. */
static int
file_get(const char *path, struct runfile *rf)
{
	char	*buf;
	size_t	 len;
	int	 r, saved;

	memset(rf, 0, sizeof(*rf));
	if (file_read(path, RUNREC_MAX, &buf, &len) == -1)
		return (-1);
	r = runfile_decode(buf, len, rf);
	saved = errno;
	free(buf);
	errno = saved;
	return (r);
}

/*
 * Whether a runner holds the run file at path: 1 it does, 0 it does
 * not (none does, or there is no such file), -1 cannot tell.
 */
static int
held(const char *path)
{
	int	 fd, r;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY)) == -1)
		return (errno == ENOENT ? 0 : -1);
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		r = 0;
	else
		r = errno == EWOULDBLOCK ? 1 : -1;
	close(fd);
	return (r);
}

/* The socket of a proc has news, or room (once per proc and turn). */
void
proc_io(struct proc *p, short revents, struct tick *tk)
{
	if (p->p_fd == -1)
		return;
	if (revents & POLLOUT)
		pump(p);
	if (revents & (POLLIN | POLLHUP | POLLERR))
		hear(p, tk);
}

/* The descriptors of every proc: one socket each. */
void
proc_pollfds(struct pollfd *pfd, size_t *np, size_t cap, struct proc **pp)
{
	struct proc	*p;
	size_t		 n = *np;

	LIST_FOREACH(p, &procs, p_entry) {
		if (p->p_fd == -1)
			continue;
		if (n == cap)
			break;
		pfd[n].fd = p->p_fd;
		pfd[n].events = POLLIN | (p->p_out != NULL ? POLLOUT : 0);
		pfd[n].revents = 0;
		pp[n++] = p;
	}
	*np = n;
}

/*
 * SIGCHLD: reap every child.  The daemon's children are runners, whose
 * news comes on their sockets; their statuses say nothing more.
 */
void
proc_reap(struct tick *tk)
{
	int	 status;

	while (waitpid(-1, &status, WNOHANG) > 0)
		;
}

/*
 * Send sig to every job: through its runner, or for a run of an earlier
 * life, whose runner has no socket to this daemon, to the job's process
 * group while its run file says it runs.
 */
void
proc_killall(int sig)
{
	struct runfile	 rf;
	struct proc	*p;
	char		 path[PATH_MAX];

	LIST_FOREACH(p, &procs, p_entry) {
		if (p->p_state == P_SPAWNED)
			send_msg(p, RM_KILL, sig);
		else if (p->p_state == P_ADOPTED && p->p_pid > 0) {
			path_of(p, ".run", path, sizeof(path));
			if (held(path) == 1 && file_get(path, &rf) == 0) {
				if (rf.rf_kind == RUNF_RUNNING &&
				    rf.rf_pid == p->p_pid)
					(void)kill(-p->p_pid, sig);
				runfile_free(&rf);
			}
		}
	}
}

/* Attempts in flight: queued, under a runner, or of an earlier life. */
size_t
proc_count(void)
{
	return (nprocs);
}

/*
 * Attempts waiting for their turn to start, that may start now: not
 * those held back by user-max-running, which wait for a run to end.
 */
size_t
proc_queued(void)
{
	struct puser	*u;
	size_t		 n = 0;

	TAILQ_FOREACH(u, &ring, u_ring)
		if (!held_back(u))
			n += u->u_nq;
	return (n);
}

/* The owner of an adopted proc, from the handler of PE_ADOPTED. */
void
proc_own(struct proc *p, void *owner)
{
	p->p_owner = owner;
}

/*
 * The handler of the runs of an earlier life whose id starts with
 * prefix (atrun.c's one-shot attempts, "at:"): their PE_ADOPTED and
 * later events go to fn rather than to proc_init()'s.
 */
void
proc_adopt_handler(const char *prefix,
    void (*fn)(const struct proc_event *, struct tick *))
{
	if (nadopters == ADOPTERS_MAX)
		fatalx("proc_adopt_handler: too many");
	adopters[nadopters].a_prefix = prefix;
	adopters[nadopters++].a_fn = fn;
}

/* Whether a proc in flight (adopted ones too) is run (id, fire, attempt). */
int
proc_holds(const char *id, time_t fire, int attempt)
{
	char	 name[NAME_MAX + 1];

	if (runfile_name(name, sizeof(name), id, (int64_t)fire, attempt,
	    "") == -1)
		return (0);
	return (find(name) != NULL);
}

/* The proc in flight whose run file is name, or NULL. */
static struct proc *
find(const char *name)
{
	struct proc	*p;

	LIST_FOREACH(p, &procs, p_entry)
		if (strcmp(p->p_name, name) == 0)
			return (p);
	return (NULL);
}

/*
 * A run of an earlier life, named name (without suffix), whose file
 * says rf: a proc again, told to the handler, which owns it.  With
 * live unset its runner is gone: the run has ended (rf's end) or is
 * lost.
 */
static void
adopt(const char *name, const struct runfile *rf, int live, struct tick *tk)
{
	struct proc_event	 ev;
	struct proc		*p;
	char			 path[PATH_MAX];
	size_t			 i;

	p = xcalloc(1, sizeof(*p));
	p->p_fd = -1;
	strlcpy(p->p_name, name, sizeof(p->p_name));
	p->p_state = P_ADOPTED;
	p->p_whocopy = xstrdup(rf->rf_user != NULL ? rf->rf_user : "CRON");
	p->p_who = p->p_whocopy;
	p->p_pid = rf->rf_pid;
	p->p_start = rf->rf_start;
	p->p_started = 1;
	LIST_INSERT_HEAD(&procs, p, p_entry);
	nprocs++;
	nadopted++;
	count_run(p);
	for (i = 0; i < nadopters; i++)
		if (rf->rf_id != NULL && strncmp(rf->rf_id,
		    adopters[i].a_prefix, strlen(adopters[i].a_prefix)) == 0) {
			p->p_handler = adopters[i].a_fn;
			break;
		}
	memset(&ev, 0, sizeof(ev));
	ev.pe_kind = PE_ADOPTED;
	ev.pe_run = rf;
	deliver(p, &ev, tk);
	if (p->p_owner == NULL) {
		/* Not taken: left to the next life. */
		proc_unlink(p);
		proc_destroy(p);
		return;
	}
	if (rf->rf_kind != RUNF_RUNNING) {
		path_of(p, ".end", path, sizeof(path));
		ended(p, path, tk);
		return;
	}
	if (!live) {
		path_of(p, ".run", path, sizeof(path));
		lost(p, path, tk);
		return;
	}
	if (!mtimer_queued(&probe_t))
		mtimer_set(&probe_t, tk->tk_mono + PROBE_MS);
}

/*
 * Read the runs directory for the runs of an earlier life of this node
 * that no proc holds yet: ended, running, or lost.
 */
static void
scan(struct tick *tk)
{
	struct runfile	 rf;
	struct dirent	*de;
	DIR		*dir;
	char		 name[NAME_MAX + 1], path[PATH_MAX];
	size_t		 len;
	int		 live, end;

	handed_prune();
	if ((dir = opendir(D.d_conf.c_runsdir)) == NULL) {
		if (errno != ENOENT)
			log_warn("(CRON) ERROR (%s)", D.d_conf.c_runsdir);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 4 || de->d_name[0] == '.')
			continue;
		end = strcmp(de->d_name + len - 4, ".end") == 0;
		if (!end && strcmp(de->d_name + len - 4, ".run") != 0)
			continue;
		memcpy(name, de->d_name, len - 4);
		name[len - 4] = '\0';
		if (find(name) != NULL || handed_has(name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", D.d_conf.c_runsdir,
		    de->d_name);
		live = 0;
		if (!end && (live = held(path)) == -1)
			continue;
		if (file_get(path, &rf) == -1) {
			/*
			 * A runner's file half written when it died, or not
			 * a run file at all: of no use to anyone.
			 */
			if (errno == ENOENT || live)
				continue;
			log_warnx("(CRON) ERROR (%s: not a run file, "
			    "removed)", path);
			(void)unlink(path);
			continue;
		}
		if (strcmp(rf.rf_node, D.d_conf.c_node) != 0) {
			log_warnx("(CRON) ERROR (%s: a run of node %s, not "
			    "this one: left alone)", path, rf.rf_node);
			runfile_free(&rf);
			continue;
		}
		/* A runner that died before its job exec'd started none. */
		if (!end && !live && rf.rf_pid == 0) {
			(void)unlink(path);
			runfile_free(&rf);
			continue;
		}
		adopt(name, &rf, live, tk);
		runfile_free(&rf);
	}
	closedir(dir);
}

/*
 * At the start of a daemon: the runs of its earlier lives (see the
 * comment at the top).
 */
void
proc_adopt(struct tick *tk)
{
	adopt_until = tk->tk_mono + ADOPT_WINDOW;
	scan(tk);
	if (!mtimer_queued(&probe_t))
		mtimer_set(&probe_t, tk->tk_mono + PROBE_MS);
}

/*
 * Look at the runs of an earlier life: an end written is told, a runner
 * gone without one is a run lost.
 */
static void
probe(struct mtimer *t, struct tick *tk)
{
	struct proc		*p, *next;
	char			 path[PATH_MAX];

	LIST_FOREACH_SAFE(p, &procs, p_entry, next) {
		if (p->p_state != P_ADOPTED)
			continue;
		if (p->p_orphan) {
			path_of(p, ".run", path, sizeof(path));
			lost(p, path, tk);
			continue;
		}
		path_of(p, ".end", path, sizeof(path));
		if (access(path, F_OK) == 0) {
			ended(p, path, tk);
			continue;
		}
		path_of(p, ".run", path, sizeof(path));
		if (held(path) != 0)
			continue;
		/* Renamed between the two looks? */
		path_of(p, ".end", path, sizeof(path));
		if (access(path, F_OK) == 0) {
			ended(p, path, tk);
			continue;
		}
		path_of(p, ".run", path, sizeof(path));
		lost(p, path, tk);
	}
	if (tk->tk_mono < adopt_until)
		scan(tk);
	else if (adopt_until != 0) {
		/* The window is over: scan() reads no more. */
		adopt_until = 0;
		free(handed);
		handed = NULL;
		nhanded = caphanded = 0;
	}
	if (nadopted > 0 || adopt_until != 0)
		mtimer_set(&probe_t, tk->tk_mono + PROBE_MS);
}

/* The daemon exits: what is left is the runners' (and the next life's). */
void
proc_free(void)
{
	struct proc	*p;
	struct puser	*u;

	mtimer_del(&probe_t);
	mtimer_del(&expire_t);
	while ((p = LIST_FIRST(&procs)) != NULL) {
		if (p->p_state == P_QUEUED)
			dequeue(p);
		LIST_REMOVE(p, p_entry);
		nprocs--;
		proc_destroy(p);
	}
	while ((u = RB_ROOT(&pusers)) != NULL) {
		RB_REMOVE(pusers, &pusers, u);
		free(u->u_name);
		free(u);
	}
	nadopted = 0;
	free(handed);
	handed = NULL;
	nhanded = caphanded = 0;
}
