/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * record.c: run records to the store, under fire.c in the daemon's
 * chain (daemon.h).  Every attempt is a run in the store: its start
 * once it exec'd, its end once it ended; an attempt that did not start
 * is recorded as failed, with why; a fire not started (missed, skipped)
 * is noted.  Runs of node scope are recorded too, by every node that
 * runs them.
 *
 * The store's commits come at the end of a turn of the loop
 * (record_flush()), after the turn's forks, not between a fire and its
 * exec, and a burst costs one commit for its starts and one for its
 * ends, not one each.  History is trimmed now and then, after runs:
 * never on a timer of its own, so that an idle daemon does not wake up
 * for it.
 */

#include <sys/types.h>
#include <sys/queue.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/*
 * History is trimmed every history-trim-interval, in passes of bounded
 * work (store_trim_pass()): a pass deletes at most TRIM_BUDGET runs,
 * and one that had more to do is followed by the next TRIM_SOON later.
 */
#define TRIM_BUDGET	2048
#define TRIM_SOON	1000		/* ms */

/*
 * A run whose start this node is recording: queued for the end of the
 * turn (r_queued), then in the store as r_runid, until its end.
 */
struct rec {
	TAILQ_ENTRY(rec) r_entry;	/* in starts, while r_queued */
	int		 r_queued;
	char		 r_id[CRON_IDLEN + 1];
	time_t		 r_fire;
	int		 r_attempt;
	pid_t		 r_pid;
	int64_t		 r_start;	/* wall ms */
	int64_t		 r_runid;	/* 0: not in the store */
};
static TAILQ_HEAD(, rec) starts = TAILQ_HEAD_INITIALIZER(starts);
static size_t		 nstarts;
static int64_t		 trimmed;	/* last trim, monotonic ms */
static int		 trim_more;	/* it left work to do */

/*
 * Records not yet in the store: the start and end of a run whose start
 * was never recorded, the end of one whose start was, or a start that
 * failed.  Every end waits here for the end of the loop's turn, so
 * that the ends reaped in one turn go to the store together, in one
 * transaction (store_runs_end_batch()), as the starts of a turn do
 * (record_flush()).  The records the store could not take when they
 * happened (p_late) wait, in order, until it answers again (or is first
 * reached: a daemon started while MariaDB was away still runs its
 * node-local jobs), so that an outage leaves no run "running" for good
 * and none unrecorded.  While the store is known to be down they wait
 * for it to answer something else (SQLite's is tried again every
 * PENDING_RETRY); a run's end never waits on it.
 */
enum pending_kind { PK_RUN, PK_END, PK_FAIL, PK_LOST, PK_NOTE };
struct pending {
	TAILQ_ENTRY(pending) p_entry;
	enum pending_kind p_kind;
	int		 p_late;	/* the store failed to take it */
	char		 p_id[CRON_IDLEN + 1];
	time_t		 p_fire;
	int		 p_attempt;
	int		 p_pid;
	int64_t		 p_start;	/* ms; PK_FAIL, PK_NOTE: when */
	enum store_run_state p_state;	/* PK_NOTE */
	int64_t		 p_runid;	/* PK_END */
	int64_t		 p_end;
	int		 p_wstatus;
	char		*p_out;		/* output's head, or why */
	size_t		 p_outlen;	/* bytes of it held, for outheld */
	int		 p_ondisk;	/* the head left in the run file */
	size_t		 p_outtotal;	/* bytes the run wrote */
	char		*p_spool;	/* its run file, or NULL */
};
static TAILQ_HEAD(pendinghead, pending) pendings =
    TAILQ_HEAD_INITIALIZER(pendings);
static size_t		 npending;
static int64_t		 pending_tried;	/* monotonic ms */
#define PENDING_RETRY	5000		/* ms */
#define PENDING_MAX	10000		/* then the oldest go */
#define PENDING_BATCH	512		/* runs per transaction */
/*
 * The output heads of the ends held for the store, together: past it
 * (chatty jobs while the store is away), an end whose head is in its
 * run file leaves it there, read again when it is recorded, so that the
 * daemon's memory does not grow with PENDING_MAX times output-max.
 */
#define PENDING_OUTMAX	(16 * 1024 * 1024)
static size_t		 pending_outheld;


static void	 pending_add(int, const char *, time_t, int, pid_t, int64_t,
		    int64_t, int64_t, int, const struct outbuf *,
		    const char *, int, const char *);
static void	 pending_free(struct pending *);
static void	 pending_load(struct pending *);
static void	 pending_unload(struct pending **, size_t);
static void	 pending_done(struct pending *);
static void	 spool_done(const char *);
static int	 lost_mark(struct pending *, struct store_error *);
static int	 pending_batch(size_t, size_t *, size_t *, const char **,
		    struct store_error *);
static int	 pending_flush(int, struct tick *);
static void	 history_trim(struct tick *);
static void	 trim_over(void *, const char *, size_t, uint64_t);

struct rec *
record_start(const char *id, time_t fire, int attempt, pid_t pid,
    int64_t start)
{
	struct rec	*r;

	r = xcalloc(1, sizeof(*r));
	strlcpy(r->r_id, id, sizeof(r->r_id));
	r->r_fire = fire;
	r->r_attempt = attempt;
	r->r_pid = pid;
	r->r_start = start;
	r->r_queued = 1;
	TAILQ_INSERT_TAIL(&starts, r, r_entry);
	nstarts++;
	return (r);
}

int64_t
record_runid(const struct rec *r)
{
	return (r->r_runid);
}

/*
 * The attempt of r ended: its record waits for the end of the turn, with
 * the other ends reaped in it; a run whose start is not in the store
 * yet has both recorded then.
 */
void
record_end(struct rec *r, int64_t end, int wstatus, const struct outbuf *out,
    const char *spool, struct tick *tk)
{
	if (r->r_queued) {
		TAILQ_REMOVE(&starts, r, r_entry);
		nstarts--;
		pending_add(PK_RUN, r->r_id, r->r_fire, r->r_attempt,
		    r->r_pid, r->r_start, 0, end, wstatus, out, NULL,
		    !gate_store_up(), spool);
	} else if (r->r_runid != 0)
		pending_add(PK_END, r->r_id, r->r_fire, r->r_attempt,
		    r->r_pid, r->r_start, r->r_runid, end, wstatus, out, NULL,
		    !gate_store_up(), spool);
	free(r);
	history_trim(tk);
}

/*
 * The attempt of r will never say how it ended (its runner died): the
 * run is marked lost, its start recorded first when it is not in yet.
 */
void
record_lost(struct rec *r, const char *spool, struct tick *tk)
{
	if (r->r_queued) {
		TAILQ_REMOVE(&starts, r, r_entry);
		nstarts--;
	}
	pending_add(PK_LOST, r->r_id, r->r_fire, r->r_attempt, r->r_pid,
	    r->r_start, r->r_runid, 0, 0, NULL, NULL, !gate_store_up(), spool);
	free(r);
}

/*
 * An attempt that could not be started: recorded as failed, with why,
 * so that the history shows it (a cluster fire was claimed, and no
 * other node will run it).
 */
void
record_fail(const char *id, time_t fire, int attempt, const char *why,
    int64_t when, const char *spool)
{
	struct store_error	 se;

	if (gate_store_up() && store_run_fail(D.d_st, id, fire, attempt,
	    when, why, &se) == 0) {
		spool_done(spool);
		return;
	}
	if (gate_store_up())
		gate_store_failed("recording a run that did not start", &se);
	pending_add(PK_FAIL, id, fire, attempt, 0, when, 0, 0, 0, NULL, why, 1,
	    spool);
}

/* The store has what the run file at path says: it goes. */
static void
spool_done(const char *path)
{
	if (path != NULL && unlink(path) == -1 && errno != ENOENT)
		log_warn("(CRON) ERROR (%s)", path);
}

/* A fire not started, missed or skipped: noted now. */
int
record_note(const char *id, time_t fire, enum store_run_state state,
    int64_t when)
{
	struct store_error	 se;

	if (store_fire_note(D.d_st, id, fire, state, when, &se) == 0)
		return (0);
	gate_store_failed(state == RUN_SKIPPED ? "noting a skipped fire" :
	    "noting a missed fire", &se);
	return (-1);
}

/*
 * A fire a limit skipped or let miss (issue 12): noted with why at the
 * end of the turn, with the others of the turn, in one transaction (a
 * user over his limits has hundreds a second; a transaction each would
 * be his way to slow everyone down).
 */
void
record_note_why(const char *id, time_t fire, enum store_run_state state,
    const char *why, int64_t when)
{
	struct pending	*p;

	pending_add(PK_NOTE, id, fire, 0, 0, when, 0, 0, 0, NULL, why,
	    !gate_store_up(), NULL);
	p = TAILQ_LAST(&pendings, pendinghead);
	p->p_state = state;
}

/*
 * Write the notes at the head of the queue, at most max, in one
 * transaction.  0, or -1 with *se.
 */
static int
notes_flush(size_t max, size_t *n, size_t *late, struct store_error *se)
{
	static struct store_note	*sn;
	static size_t			 cap;
	struct pending			*p, *next;
	size_t				 i, k = 0;

	TAILQ_FOREACH(p, &pendings, p_entry) {
		if (p->p_kind != PK_NOTE || k == max)
			break;
		if (k == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			sn = xreallocarray(sn, cap, sizeof(*sn));
		}
		sn[k].sn_job = p->p_id;
		sn[k].sn_fire = p->p_fire;
		sn[k].sn_state = p->p_state;
		sn[k].sn_when = p->p_start;
		sn[k].sn_why = p->p_out;
		k++;
	}
	if (store_fire_notes(D.d_st, sn, k, se) == -1)
		return (-1);
	for (i = 0, p = TAILQ_FIRST(&pendings); i < k; i++, p = next) {
		next = TAILQ_NEXT(p, p_entry);
		*late += p->p_late;
		pending_done(p);
	}
	*n += k;
	return (0);
}

/*
 * Keep a record for the end of the turn, or for when the store answers
 * again (late set: it could not take it now): kind PK_RUN (a start and
 * its end), PK_END (the end of run runid), PK_FAIL (the attempt did
 * not start, for the reason why, at start) or PK_LOST (the run, runid
 * or not yet in, is lost); spool, the run file it comes from.
 */
static void
pending_add(int kind, const char *id, time_t fire, int attempt, pid_t pid,
    int64_t start, int64_t runid, int64_t end, int wstatus,
    const struct outbuf *ob, const char *why, int late, const char *spool)
{
	struct pending		*p;

	if (npending >= PENDING_MAX) {
		pending_free(TAILQ_FIRST(&pendings));
		log_warnx("(CRON) STORE (more than %d runs not recorded: "
		    "the oldest dropped)", PENDING_MAX);
	}
	p = xcalloc(1, sizeof(*p));
	p->p_kind = kind;
	p->p_late = late;
	strlcpy(p->p_id, id, sizeof(p->p_id));
	p->p_fire = fire;
	p->p_attempt = attempt;
	p->p_start = start;
	if (spool != NULL)
		p->p_spool = xstrdup(spool);
	if (kind == PK_FAIL || kind == PK_NOTE) {
		p->p_out = xstrdup(why);
		p->p_outtotal = strlen(why);
	} else if (kind == PK_LOST) {
		p->p_pid = (int)pid;
		p->p_runid = runid;
	} else {
		p->p_pid = (int)pid;
		p->p_runid = runid;
		p->p_end = end;
		p->p_wstatus = wstatus;
		p->p_outtotal = (size_t)ob->ob_total;
		if (spool != NULL &&
		    pending_outheld + ob->ob_len > PENDING_OUTMAX)
			p->p_ondisk = 1;
		else {
			p->p_out = xmalloc(ob->ob_len + 1);
			if (ob->ob_len > 0)
				memcpy(p->p_out, ob->ob_buf, ob->ob_len);
			p->p_out[ob->ob_len] = '\0';
			p->p_outlen = ob->ob_len;
			pending_outheld += p->p_outlen;
		}
	}
	TAILQ_INSERT_TAIL(&pendings, p, p_entry);
	npending++;
}

/*
 * Take a record off the queue and free it; its run file stays, for a
 * later life of the daemon.
 */
static void
pending_free(struct pending *p)
{
	TAILQ_REMOVE(&pendings, p, p_entry);
	pending_outheld -= p->p_outlen;
	free(p->p_out);
	free(p->p_spool);
	free(p);
	npending--;
}

/* A record the store took: its run file goes with it. */
static void
pending_done(struct pending *p)
{
	spool_done(p->p_spool);
	pending_free(p);
}

/*
 * Mark a run lost: its start first when it is not in the store yet (as
 * a record of the same attempt, this node's, which finds the row a
 * start or the claim made before).  0, or -1 with *se.
 */
static int
lost_mark(struct pending *p, struct store_error *se)
{
	int	 marked;

	if (p->p_runid == 0 && store_run_start(D.d_st, p->p_id, p->p_fire,
	    p->p_attempt, p->p_pid, p->p_start, &p->p_runid, se) == -1)
		return (-1);
	return (store_run_lost(D.d_st, p->p_runid, &marked, se));
}

/*
 * The head of an end left in its run file (p_ondisk), read back for its
 * record; a file that cannot be read is said, and the run recorded
 * without its output.
 */
static void
pending_load(struct pending *p)
{
	struct runfile	 rf;
	char		*buf = NULL;
	size_t		 len, n = 0;
	int		 ok;

	memset(&rf, 0, sizeof(rf));
	ok = file_read(p->p_spool, RUNREC_MAX, &buf, &len) == 0 &&
	    runfile_decode(buf, len, &rf) == 0;
	free(buf);
	if (ok)
		n = rf.rf_out.ob_len;
	else {
		log_warn("(CRON) ERROR (%s: a run's output, not read again)",
		    p->p_spool);
		p->p_outtotal = 0;
	}
	p->p_out = xmalloc(n + 1);
	if (n > 0)
		memcpy(p->p_out, rf.rf_out.ob_buf, n);
	p->p_out[n] = '\0';
	runfile_free(&rf);
	p->p_outlen = n;
	pending_outheld += n;
}

/* After a failed batch, the heads read back go back to their files. */
static void
pending_unload(struct pending **v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (v[i]->p_ondisk && v[i]->p_out != NULL) {
			pending_outheld -= v[i]->p_outlen;
			free(v[i]->p_out);
			v[i]->p_out = NULL;
			v[i]->p_outlen = 0;
		}
}

/*
 * Write the runs at the head of the queue, at most max of them and up
 * to the first PK_FAIL (PK_LOST, PK_NOTE): the ends of those whose
 * start is in, in one transaction; then the starts of the others in
 * one, and their ends in another.  Counts in *n the runs that went (in *late those kept
 * through a failure) and returns 0, or -1 with *se and *what filled
 * when the store failed: then what is left stays, with each start
 * that went in marked so.
 */
static int
pending_batch(size_t max, size_t *n, size_t *late, const char **what,
    struct store_error *se)
{
	static struct store_run_start	*rs;
	static struct store_run_end	*re;
	static struct pending		**pe, **ps;
	static int64_t			*ids;
	static size_t			 cap;
	struct pending			*p;
	size_t				 i, k = 0, ne = 0, ns = 0, loaded = 0;

	TAILQ_FOREACH(p, &pendings, p_entry) {
		if (p->p_kind == PK_FAIL || p->p_kind == PK_LOST ||
		    p->p_kind == PK_NOTE || k == max ||
		    (k > 0 && loaded > PENDING_OUTMAX))
			break;
		if (p->p_ondisk && p->p_out == NULL) {
			pending_load(p);
			loaded += p->p_outlen;
		}
		if (k == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			rs = xreallocarray(rs, cap, sizeof(*rs));
			re = xreallocarray(re, cap, sizeof(*re));
			pe = xreallocarray(pe, cap, sizeof(*pe));
			ps = xreallocarray(ps, cap, sizeof(*ps));
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		if (p->p_kind == PK_RUN)
			ps[ns++] = p;
		else
			pe[ne++] = p;
		k++;
	}
	*what = "recording the end of a run";
	for (i = 0; i < ne; i++) {
		p = pe[i];
		re[i].re_id = p->p_runid;
		re[i].re_end = p->p_end;
		re[i].re_status = p->p_wstatus;
		re[i].re_out = p->p_out;
		re[i].re_outlen = p->p_outtotal;
	}
	if (ne > 0 && store_runs_end_batch(D.d_st, re, ne, se) == -1) {
		pending_unload(pe, ne);
		pending_unload(ps, ns);
		return (-1);
	}
	for (i = 0; i < ne; i++) {
		*late += pe[i]->p_late;
		pending_done(pe[i]);
	}
	*n += ne;
	if (ns == 0)
		return (0);
	for (i = 0; i < ns; i++) {
		p = ps[i];
		rs[i].rs_job = p->p_id;
		rs[i].rs_fire = p->p_fire;
		rs[i].rs_attempt = p->p_attempt;
		rs[i].rs_pid = p->p_pid;
		rs[i].rs_start = p->p_start;
	}
	*what = "recording a run";
	if (store_runs_start_batch(D.d_st, rs, ns, ids, se) == -1) {
		pending_unload(ps, ns);
		return (-1);
	}
	/* Their starts are in: only the ends are left. */
	for (i = 0; i < ns; i++) {
		p = ps[i];
		p->p_runid = ids[i];
		p->p_kind = PK_END;
		re[i].re_id = p->p_runid;
		re[i].re_end = p->p_end;
		re[i].re_status = p->p_wstatus;
		re[i].re_out = p->p_out;
		re[i].re_outlen = p->p_outtotal;
	}
	*what = "recording the end of a run";
	if (store_runs_end_batch(D.d_st, re, ns, se) == -1) {
		pending_unload(ps, ns);
		return (-1);
	}
	for (i = 0; i < ns; i++) {
		*late += ps[i]->p_late;
		pending_done(ps[i]);
	}
	*n += ns;
	return (0);
}

/*
 * Write the records kept, oldest first: at once when the store is known
 * to answer or with force set, otherwise (SQLite) at most every
 * PENDING_RETRY; the first success says the store is back.  Runs go in
 * batches (pending_batch()), a failed start or a lost run alone; at most
 * RECORD_TURN runs a call unless forced, so that a backlog does not hold
 * up a turn of the loop (record_busy() says there is more).  Returns
 * -1, keeping what is left, when the store failed or was not tried.
 */
static int
pending_flush(int force, struct tick *tk)
{
	struct store_error	 se;
	struct pending		*p;
	const char		*what = NULL;
	int64_t			 now;
	size_t			 n = 0, late = 0, max = PENDING_BATCH;

	/*
	 * While the store is known to be down, MariaDB's is probed by the
	 * heartbeat (node.c), which says when it is back: a try here
	 * could wait out a connection timeout in the middle of the loop.
	 * SQLite's is tried again now and then.
	 */
	if (D.d_st == NULL)
		return (-1);
	tick_read(tk);
	now = tk->tk_mono;
	if (!gate_store_up() && !force && (D.d_mysql ||
	    now - pending_tried < PENDING_RETRY))
		return (-1);
	pending_tried = now;
	while ((p = TAILQ_FIRST(&pendings)) != NULL) {
		if (!force && n >= RECORD_TURN) {
			p = NULL;
			break;
		}
		if (p->p_kind == PK_FAIL || p->p_kind == PK_LOST) {
			what = p->p_kind == PK_FAIL ?
			    "recording a run that did not start" :
			    "marking a run lost";
			if ((p->p_kind == PK_FAIL ? store_run_fail(D.d_st,
			    p->p_id, p->p_fire, p->p_attempt, p->p_start,
			    p->p_out, &se) : lost_mark(p, &se)) == -1)
				break;
			late += p->p_late;
			pending_done(p);
			n++;
			continue;
		}
		if (p->p_kind == PK_NOTE) {
			what = "noting fires not started";
			if (notes_flush(force || n >= RECORD_TURN ?
			    PENDING_BATCH : RECORD_TURN - n, &n, &late,
			    &se) == -1)
				break;
			continue;
		}
		if (pending_batch(max, &n, &late, &what, &se) == 0)
			continue;
		/* A conflict: look for the run in the way one by one. */
		if (se.se_class != STORE_CONFLICT || max == 1) {
			p = TAILQ_FIRST(&pendings);
			break;
		}
		max = 1;
	}
	if (n > 0) {
		tick_read(tk);
		log_debug("(CRON) ENDS (%zu runs in %lld ms)", n,
		    (long long)(tk->tk_mono - now));
		if (late > 0)
			log_info("(CRON) STORE (%zu runs recorded late)",
			    late);
		gate_store_ok();
	}
	if (p != NULL) {
		if (se.se_class != STORE_CONFLICT) {
			gate_store_failed(what, &se);
			/* What waits now waits for the store. */
			TAILQ_FOREACH(p, &pendings, p_entry)
				p->p_late = 1;
			return (-1);
		}
		/* Someone else's row: this one cannot go in, ever. */
		log_warnx("(CRON) STORE (a run kept meanwhile is dropped: "
		    "%s)", se.se_msg);
		pending_done(p);
	}
	return (0);
}

/*
 * Record what is kept so far (pending_flush()), then the starts of the
 * attempts that exec'd since the last call, all of them in one
 * transaction: the loop calls this at the end of each turn.
 */
void
record_flush(struct tick *tk)
{
	static struct store_run_start	*rs;
	static struct rec		**rv;
	static int64_t			*ids;
	static size_t			 cap;
	struct store_error		 se;
	struct rec			*r;
	int64_t				 t0;
	size_t				 i, n = 0;

	if (npending > 0 && pending_flush(0, tk) == -1)
		return;
	if (nstarts == 0 || D.d_st == NULL)
		return;
	/* The store is down: the starts wait (record_end() keeps them). */
	if (!gate_store_up())
		return;
	tick_read(tk);
	t0 = tk->tk_mono;
	TAILQ_FOREACH(r, &starts, r_entry) {
		if (n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			rs = xreallocarray(rs, cap, sizeof(*rs));
			rv = xreallocarray(rv, cap, sizeof(*rv));
			ids = xreallocarray(ids, cap, sizeof(*ids));
		}
		rs[n].rs_job = r->r_id;
		rs[n].rs_fire = r->r_fire;
		rs[n].rs_attempt = r->r_attempt;
		rs[n].rs_pid = (int)r->r_pid;
		rs[n].rs_start = r->r_start;
		rv[n++] = r;
	}
	if (store_runs_start_batch(D.d_st, rs, n, ids, &se) == -1) {
		/* Kept for later. */
		gate_store_failed("recording a run", &se);
		return;
	}
	for (i = 0; i < n; i++) {
		r = rv[i];
		r->r_runid = ids[i];
		r->r_queued = 0;
		TAILQ_REMOVE(&starts, r, r_entry);
	}
	nstarts = 0;
	tick_read(tk);
	log_debug("(CRON) RECORD (%zu starts in %lld ms)", n,
	    (long long)(tk->tk_mono - t0));
}

/*
 * Whether a record of run runid (0: not known), or of attempt of the
 * fire of job id, waits for the store: the node must not take that run
 * for one of an earlier life that nobody holds (node.c).
 */
int
record_pending_run(int64_t runid, const char *id, time_t fire, int attempt)
{
	struct pending	*p;

	TAILQ_FOREACH(p, &pendings, p_entry)
		if ((runid != 0 && p->p_runid == runid) ||
		    (p->p_fire == fire && p->p_attempt == attempt &&
		    strcmp(p->p_id, id) == 0))
			return (1);
	return (0);
}

/* Whether records wait that the store, which answers, can take now. */
int
record_busy(void)
{
	return (npending > 0 && gate_store_up());
}

/*
 * The daemon stops: one last try at the records kept meanwhile.  What
 * the store does not take now is still in the run files, for the next
 * life of the daemon.
 */
void
record_final(struct tick *tk)
{
	if (npending > 0)
		(void)pending_flush(1, tk);
	if (npending > 0)
		log_warnx("(CRON) STORE (%zu runs could not be recorded)",
		    npending);
}

/*
 * Trim the history now and then, after runs: never on a timer of its
 * own, so that an idle daemon does not wake up for it.  The store takes
 * a lease so that one node of a cluster trims at a time.
 */
static void
history_trim(struct tick *tk)
{
	struct store_error	 se;
	struct store_trim	 l;
	struct store_trimmed	 td;

	if (D.d_st == NULL || (trimmed != 0 && tk->tk_mono - trimmed <
	    (trim_more ? TRIM_SOON : D.d_conf.c_hist_trim_ms)))
		return;
	trimmed = tk->tk_mono;
	memset(&l, 0, sizeof(l));
	l.tr_age = D.d_conf.c_hist_age_ms;
	l.tr_job_runs = D.d_conf.c_hist_runs;
	l.tr_job_bytes = D.d_conf.c_hist_output;
	l.tr_user_runs = D.d_conf.c_hist_user_runs;
	l.tr_user_bytes = D.d_conf.c_hist_user_output;
	l.tr_budget = TRIM_BUDGET;
	l.tr_over = trim_over;
	if (l.tr_age == 0 && l.tr_job_runs == 0 && l.tr_job_bytes == 0 &&
	    l.tr_user_runs == 0 && l.tr_user_bytes == 0)
		return;
	trim_more = 0;
	if (store_trim_pass(D.d_st, &l, 60000, &td, &se) == -1) {
		gate_store_failed("trimming the history", &se);
		return;
	}
	trim_more = td.td_more;
	if (td.td_runs > 0)
		log_debug("(CRON) TRIM (%zu runs%s)", td.td_runs,
		    td.td_more ? ", more to do" : "");
}

/* A user whose runs went by his own limits: the administrator's line. */
static void
trim_over(void *arg, const char *owner, size_t runs, uint64_t bytes)
{
	char	*vis;

	(void)arg;
	vis = cmd_escape(owner);
	log_info("(%s) TRIMMED (%zu runs, %llu bytes of output, over "
	    "history-max-runs-per-user %zu or history-max-output-per-user "
	    "%llu)", vis, runs, (unsigned long long)bytes,
	    D.d_conf.c_hist_user_runs,
	    (unsigned long long)D.d_conf.c_hist_user_output);
	free(vis);
}

/*
 * The daemon leaves with the attempt of r still running: its record
 * goes from memory (its run file tells the next life of the daemon).
 */
void
record_drop(struct rec *r)
{
	if (r->r_queued) {
		TAILQ_REMOVE(&starts, r, r_entry);
		nstarts--;
	}
	free(r);
}

void
record_free(void)
{
	struct rec	*r;

	while ((r = TAILQ_FIRST(&starts)) != NULL) {
		TAILQ_REMOVE(&starts, r, r_entry);
		free(r);
	}
	nstarts = 0;
	while (TAILQ_FIRST(&pendings) != NULL)
		pending_free(TAILQ_FIRST(&pendings));
}
