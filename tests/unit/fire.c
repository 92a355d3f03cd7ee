/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * fire.c: unit tests of a fire's life (clustercron/fire.c), its one
 * transition table.  The table as a graph: every state is reached from
 * a new fire, every state that is not final leads to a final one, and
 * a final one leads nowhere; the paths the design promises, one by
 * one, and transitions it forbids (nothing runs before it is claimed
 * or settled as ours; no fire is decided twice).  Then fire_step()
 * itself: it walks a fire through the table, logs every transition at
 * debug level, refuses an event its state has no row for, and frees a
 * fire that reaches a final state.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "../tap.h"

/* The program's settings: this test's. */
struct daemon	 D;

static int
final(enum fire_state s)
{
	enum fire_event	 e;
	enum fire_state	 to;

	for (e = 0; e < FE_NEVENTS; e++)
		if (fire_transition(s, e, &to))
			return (0);
	return (1);
}

static void
test_graph(void)
{
	int		 reach[FS_NSTATES], ends[FS_NSTATES], changed, bad;
	enum fire_state	 s, to;
	enum fire_event	 e;

	/* Names for every state and event, for the log. */
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		if (strcmp(fire_state_name(s), "?") == 0)
			bad++;
	for (e = 0; e < FE_NEVENTS; e++)
		if (strcmp(fire_event_name(e), "?") == 0)
			bad++;
	is_int(bad, 0, "every state and event has a name");

	/* Final states are exactly those from FS_FINISHED on. */
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		if (final(s) != (s >= FS_FINISHED))
			bad++;
	is_int(bad, 0, "the final states, and only they, lead nowhere");

	/* Everything is reached from a new fire. */
	memset(reach, 0, sizeof(reach));
	reach[FS_NEW] = 1;
	do {
		changed = 0;
		for (s = 0; s < FS_NSTATES; s++)
			for (e = 0; reach[s] && e < FE_NEVENTS; e++)
				if (fire_transition(s, e, &to) && !reach[to])
					reach[to] = changed = 1;
	} while (changed);
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		if (!reach[s]) {
			diag("%s is never reached", fire_state_name(s));
			bad++;
		}
	is_int(bad, 0, "every state is reached from a new fire");

	/* And every state leads to an end: no fire is stuck. */
	memset(ends, 0, sizeof(ends));
	for (s = FS_FINISHED; s < FS_NSTATES; s++)
		ends[s] = 1;
	do {
		changed = 0;
		for (s = 0; s < FS_NSTATES; s++)
			for (e = 0; !ends[s] && e < FE_NEVENTS; e++)
				if (fire_transition(s, e, &to) && ends[to])
					ends[s] = changed = 1;
	} while (changed);
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		if (!ends[s]) {
			diag("%s leads to no end", fire_state_name(s));
			bad++;
		}
	is_int(bad, 0, "from every state a fire can end");

	/* Nothing goes back to new; nothing is due twice. */
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		for (e = 0; e < FE_NEVENTS; e++)
			if (fire_transition(s, e, &to) && (to == FS_NEW ||
			    (to == FS_DUE && s != FS_NEW)))
				bad++;
	is_int(bad, 0, "no fire comes due twice");
}

/* Walk the events of path from FS_NEW; ok when it ends in want. */
static void
path(const char *what, enum fire_state want, int n, ...)
{
	va_list		 ap;
	enum fire_state	 s = FS_NEW, to;
	enum fire_event	 e;
	int		 i, good = 1;

	va_start(ap, n);
	for (i = 0; i < n && good; i++) {
		e = va_arg(ap, int);
		if (!fire_transition(s, e, &to)) {
			diag("no transition from %s on %s",
			    fire_state_name(s), fire_event_name(e));
			good = 0;
		} else
			s = to;
	}
	va_end(ap);
	ok(good && s == want, "%s: %s", what, fire_state_name(want));
}

static void
test_paths(void)
{
	enum fire_state	 to;
	enum fire_state	 s;
	int		 bad;

	path("a cluster fire won and run", FS_FINISHED, 5, FE_DUE, FE_WON,
	    FE_START, FE_EXEC, FE_ENDED);
	path("retried after a failure", FS_RUNNING, 7, FE_DUE, FE_WON,
	    FE_START, FE_EXEC, FE_ENDED_RETRY, FE_RETRY_DUE, FE_EXEC);
	path("another node's", FS_OTHER, 2, FE_DUE, FE_NOT_WON);
	path("a node-scope fire, unclaimed", FS_RUNNING, 3, FE_LOCAL, FE_START,
	    FE_EXEC);
	path("a claim in doubt found ours", FS_STARTING, 4, FE_DUE,
	    FE_NO_ANSWER, FE_WON, FE_START);
	path("a claim in doubt found another's", FS_OTHER, 3, FE_DUE,
	    FE_NO_ANSWER, FE_NOT_WON);
	path("dropped in an outage, too late when the store came back",
	    FS_MISSED, 3, FE_DUE, FE_HOLD, FE_WON_LATE);
	path("ours in doubt, recorded by another node meanwhile", FS_LOST, 3,
	    FE_DUE, FE_NO_ANSWER, FE_RECORDED);
	path("won, at its start past the lease: kept, settled later",
	    FS_DROPPED, 4, FE_DUE, FE_WON, FE_START, FE_LATE);
	path("won, at its start past the lease, renewed since: queued again",
	    FS_STARTING, 4, FE_DUE, FE_WON, FE_START, FE_RENEWED);
	path("a rerun past the lease is not tried again", FS_LOST, 3, FE_RERUN,
	    FE_START, FE_LATE_RERUN);
	path("overlap forbidden, a run in flight", FS_SKIPPED, 3, FE_DUE,
	    FE_WON, FE_BUSY);
	path("overlap forbidden, the store cannot tell", FS_UNSURE, 3, FE_DUE,
	    FE_WON, FE_UNSURE);
	path("drained", FS_LEFT, 2, FE_DUE, FE_LEAVE);
	path("the job went away", FS_GONE, 3, FE_DUE, FE_HOLD, FE_GONE);
	path("did not start", FS_FAILED, 4, FE_DUE, FE_WON, FE_START,
	    FE_NOSTART);
	path("timed out, killed, ended", FS_FINISHED, 5, FE_LOCAL, FE_START,
	    FE_EXEC, FE_TIMEOUT, FE_ENDED);
	path("stopped while waiting to retry", FS_STOPPED, 5, FE_LOCAL,
	    FE_START, FE_EXEC, FE_ENDED_RETRY, FE_STOP);
	/* A user's limits (issue 12): decided, and never started. */
	path("won, its owner over user-fire-rate: skipped", FS_SKIPPED, 4,
	    FE_DUE, FE_WON, FE_START, FE_OVER);
	path("won, not started within start-grace: missed", FS_MISSED, 4,
	    FE_DUE, FE_WON, FE_START, FE_TOO_LATE);

	/* Nothing starts before it is claimed (or ours without a claim). */
	for (s = 0, bad = 0; s < FS_NSTATES; s++)
		if (s != FS_CLAIMED && fire_transition(s, FE_START, &to))
			bad++;
	is_int(bad, 0, "only a claimed fire starts");
	ok(!fire_transition(FS_DUE, FE_EXEC, &to) &&
	    !fire_transition(FS_DOUBT, FE_START, &to) &&
	    !fire_transition(FS_DROPPED, FE_START, &to),
	    "neither a due fire nor one in doubt runs");
	ok(!fire_transition(FS_CLAIMED, FE_WON, &to) &&
	    !fire_transition(FS_RUNNING, FE_WON, &to) &&
	    !fire_transition(FS_RUNNING, FE_NOT_WON, &to),
	    "a fire decided is not decided again");
	ok(fire_transition(FS_DUE, FE_NO_ANSWER, &to) && to == FS_DOUBT &&
	    fire_transition(FS_DUE, FE_HOLD, &to) && to == FS_DROPPED,
	    "a claim without answer is in doubt; one never made, dropped");
}

/* The test's clock, for the tick. */
static void
reader(struct tick *tk)
{
}

static void
test_step(void)
{
	struct jobref	 ref;
	struct fire	*f, **v;
	struct tick	 tk;
	char		 path_[] = "/tmp/cc-fire.XXXXXX", *log;
	size_t		 len, n;
	int		 fd;

	if ((fd = mkstemp(path_)) == -1)
		exit(99);
	close(fd);
	memset(&D, 0, sizeof(D));
	D.d_conf.c_node = (char *)"n1";
	D.d_debug = 1;
	if (log_init_file("fire", path_) == -1)
		exit(99);
	log_setverbose(1);
	tick_init(&tk, 1893456000000LL, 1000, reader);
	memset(&ref, 0, sizeof(ref));

	f = fire_new(&ref, "0123456789abcdef0123456789abcdef", 1893456001,
	    1);
	is_int(fire_state(f), FS_NEW, "a new fire");
	fire_step(f, FE_DUE, NULL, &tk);
	is_int(fire_state(f), FS_DUE, "due");
	n = fire_list(FSM(FS_DUE), &v);
	ok(n == 1 && v[0] == f, "listed among the due");
	free(v);
	fire_step(f, FE_EXEC, NULL, &tk);
	is_int(fire_state(f), FS_DUE, "an event with no row changes nothing");
	fire_step(f, FE_HOLD, NULL, &tk);
	ok(fire_state(f) == FS_DROPPED && gate_owed(),
	    "held: dropped, and the misfire pass owed");
	n = fire_list(FSM(FS_DUE), &v);
	is_int((long long)n, 0, "no longer due");
	free(v);
	fire_step(f, FE_GONE, NULL, &tk);
	n = fire_list(~0U, &v);
	is_int((long long)n, 0, "gone: a final state, the fire freed");
	free(v);

	if (file_read(path_, 1 << 20, &log, &len) == -1)
		exit(99);
	ok(strstr(log, "(CRON) FIRE (n1 2030-01-01T00:00:01Z new -> due on "
	    "due; 0123456789abcdef0123456789abcdef)") != NULL,
	    "a transition is a debug line");
	ok(strstr(log, "due -> dropped on held") != NULL &&
	    strstr(log, "dropped -> gone on job gone") != NULL,
	    "every transition is");
	ok(strstr(log, "no transition from due on exec'd") != NULL,
	    "an event with no row is an error in the log");
	free(log);
	unlink(path_);
	fire_free_all();
	gate_free();
}

int
main(void)
{
	test_graph();
	test_paths();
	test_step();
	return (tap_done());
}
