/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tick.c: time as the daemon's core sees it, at the bottom of its chain
 * (daemon.h).  The core never reads a clock.  Each turn of the loop,
 * daemon.c reads both clocks (common/clock) and hands them down as one
 * tick; every decision of that turn takes its time from the tick, and
 * a unit test hands down whatever time it likes.  A module that must
 * measure real time within a turn (a heartbeat's round trip, the start
 * of a job forked after a thousand others) reads it again through the
 * tick (tick_read()), which calls the reader the tick was made with:
 * daemon.c's, or a test's.
 *
 * Jumps.  Fires are instants on the wall clock, and the wall clock can
 * jump: a suspended laptop resumes hours later, NTP steps the clock, an
 * operator sets it.  Every turn compares how far the wall clock moved
 * with how far the monotonic clock moved since the last turn; a
 * difference of more than TICK_SLACK is a jump.  As cron(8) does:
 *
 *  - a small jump forward (up to three hours) runs what it skipped,
 *    each job once: every job whose timer fell in the gap fires once
 *    and is then rescheduled from the present (tk_floor, claim.c);
 *  - a small jump backward runs nothing twice: the timers were set for
 *    instants after the old present and simply wait for them;
 *  - a jump of more than three hours either way is not made up for:
 *    every job is rescheduled from the present (daemon.c).
 *
 * DST is not a jump: fires are UTC instants computed by sched_next(),
 * which applies cron's rules for skipped and repeated local times.
 */

#include <stdint.h>

#include "daemon.h"

#define TICK_SLACK	2000			/* ms */
#define TICK_BIG	(3 * 3600 * 1000LL)	/* ms */

/*
 * Make the first tick from the clocks' readings (ms) and their reader,
 * which tick_read() calls (borrowed: it must outlive the tick).
 */
void
tick_init(struct tick *tk, int64_t wall, int64_t mono,
    void (*reader)(struct tick *))
{
	tk->tk_wall = tk->tk_turn_wall = wall;
	tk->tk_mono = tk->tk_turn_mono = mono;
	tk->tk_floor = 0;
	tk->tk_turn = 0;
	tk->tk_read = reader;
}

/*
 * A new turn, with the clocks read anew (ms): compare them with the
 * readings of the last turn (not those of tick_read() meanwhile, which
 * would hide a jump that happened within the turn).  Returns what the
 * wall clock did, its jump in *jump (ms, negative backward, 0 with
 * TICK_STEADY); after a small jump forward tk_floor is the present.
 */
enum tick_jump
tick_next(struct tick *tk, int64_t wall, int64_t mono, int64_t *jump)
{
	int64_t	 expected, delta;

	expected = tk->tk_turn_wall + (mono - tk->tk_turn_mono);
	delta = wall - expected;
	tk->tk_wall = tk->tk_turn_wall = wall;
	tk->tk_mono = tk->tk_turn_mono = mono;
	tk->tk_floor = 0;
	tk->tk_turn++;
	*jump = 0;
	if (delta <= TICK_SLACK && delta >= -TICK_SLACK)
		return (TICK_STEADY);
	*jump = delta;
	if (delta > TICK_BIG || delta < -TICK_BIG)
		return (TICK_FAR);
	if (delta < 0)
		return (TICK_BACK);
	tk->tk_floor = wall;
	return (TICK_AHEAD);
}

/* Read the clocks again, within the turn. */
void
tick_read(struct tick *tk)
{
	tk->tk_read(tk);
}
