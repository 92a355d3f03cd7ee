/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * heap.c: unit tests of the daemon's timer queues (clustercron/heap.c)
 * and of its ticks (tick.c).  The heap against a plain array, through
 * a long deterministic sequence of sets, moves, deletions, pops and
 * moves in memory, with elements laid out as a job's are (the instant
 * and the place at offsets of their own); the monotonic timers called
 * in order, each once, a timer set again from its own call included;
 * the kinds of clock jump a tick tells apart.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "../tap.h"

#define NELEM	1000
#define NOPS	200000

/* The program's settings, which heap.c and tick.c do not read. */
struct daemon	 D;

/* An element laid out as a job: other data around the two. */
struct elem {
	char		 e_pad1[3];
	int64_t		 e_when;
	char		 e_pad2[5];
	uint32_t	 e_idx;
	int		 e_id;
};

static uint64_t	 rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64: the same sequence on every run and every machine. */
static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((uint32_t)(rng % n));
}

static void
test_heap(void)
{
	static struct elem	 a[2][NELEM];
	static int64_t		 when[NELEM];
	static int		 in[NELEM];
	struct heap		 h = HEAP_INIT(struct elem, e_when, e_idx);
	struct elem		*e, *cur = a[0];
	int64_t			 w, last;
	size_t			 count = 0;
	int			 i, k, bad = 0, op, id, mid, found, side = 0;

	for (i = 0; i < NELEM; i++) {
		cur[i].e_idx = TIMER_IDLE;
		cur[i].e_id = i;
	}
	ok(heap_top(&h) == NULL, "an empty heap has no top");
	heap_del(&h, &cur[5]);
	ok(cur[5].e_idx == TIMER_IDLE, "deleting what is not queued: a no-op");

	for (i = 0; i < NOPS; i++) {
		op = (int)rnd(20);
		id = (int)rnd(NELEM);
		if (op < 9) {
			w = (int64_t)rnd(100000) - 50000;
			heap_set(&h, &cur[id], w);
			if (!in[id])
				count++;
			in[id] = 1;
			when[id] = w;
		} else if (op < 13) {
			heap_del(&h, &cur[id]);
			if (in[id])
				count--;
			in[id] = 0;
		} else if (op < 19) {
			e = heap_top(&h);
			found = 0;
			mid = -1;
			for (k = 0; k < NELEM; k++)
				if (in[k] && (!found || when[k] < when[mid])) {
					found = 1;
					mid = k;
				}
			if ((e == NULL) != !found ||
			    (e != NULL && e->e_when != when[mid]))
				bad++;
			if (e != NULL) {
				heap_del(&h, e);
				in[e->e_id] = 0;
				count--;
			}
		} else {
			/* The owner moves every element elsewhere. */
			side = !side;
			memcpy(a[side], cur, sizeof(a[side]));
			cur = a[side];
			for (k = 0; k < NELEM; k++)
				if (cur[k].e_idx != TIMER_IDLE)
					heap_moved(&h, &cur[k]);
		}
		if (h.h_n != count)
			bad++;
		for (k = 0; i % 997 == 0 && k < NELEM; k++)
			if ((cur[k].e_idx != TIMER_IDLE) != in[k])
				bad++;
	}
	is_int(bad, 0, "%d random operations agree with a plain array", NOPS);

	/* Draining gives nondecreasing instants. */
	last = INT64_MIN;
	bad = 0;
	while ((e = heap_top(&h)) != NULL) {
		if (e->e_when < last)
			bad++;
		last = e->e_when;
		heap_del(&h, e);
		count--;
	}
	is_int(bad, 0, "drained in order");
	is_int((long long)count, 0, "every element drained");
	heap_free(&h);
}

static int	 calls[4];
static int	 order[8], norder;

static void
timer_fn(struct mtimer *mt, struct tick *tk)
{
	int	 i = (int)(intptr_t)mt->mt_arg;

	calls[i]++;
	order[norder++] = i;
	/* Timer 2 comes again 100 ms later, once. */
	if (i == 2 && calls[2] == 1)
		mtimer_set(mt, tk->tk_mono + 100);
}

static void
test_mtimers(void)
{
	struct mtimer	 t[4];
	struct tick	 tk;
	int64_t		 when;
	int		 i;

	tick_init(&tk, 0, 1000, NULL);
	for (i = 0; i < 4; i++)
		mtimer_init(&t[i], timer_fn, (void *)(intptr_t)i);
	ok(!mtimer_next(&when), "no timer, no next");
	mtimer_set(&t[0], 1500);
	mtimer_set(&t[1], 1200);
	mtimer_set(&t[2], 1200);
	mtimer_set(&t[3], 5000);
	mtimer_set(&t[1], 1300);
	ok(mtimer_next(&when) && when == 1200, "the earliest is next");
	ok(mtimer_queued(&t[3]), "queued");
	mtimer_del(&t[3]);
	ok(!mtimer_queued(&t[3]), "deleted");
	mtimer_run(&tk);
	is_int(norder, 0, "nothing due yet");
	tk.tk_mono = 1300;
	mtimer_run(&tk);
	ok(norder == 2 && order[0] == 2 && order[1] == 1,
	    "due ones called earliest first");
	tk.tk_mono = 1400;
	mtimer_run(&tk);
	ok(norder == 3 && order[2] == 2, "one set again from its call comes "
	    "back");
	tk.tk_mono = 9999;
	mtimer_run(&tk);
	ok(norder == 4 && order[3] == 0 && calls[0] == 1 && calls[1] == 1 &&
	    calls[2] == 2 && calls[3] == 0, "each once; a deleted one never");
	ok(!mtimer_next(&when), "then none left");
	mtimer_free();
}

static void
test_tick(void)
{
	struct tick	 tk;
	int64_t		 jump;
	enum tick_jump	 j;

	tick_init(&tk, 1000000, 5000, NULL);
	j = tick_next(&tk, 1001000, 6000, &jump);
	ok(j == TICK_STEADY && jump == 0 && tk.tk_floor == 0 &&
	    tk.tk_turn == 1, "a second on both clocks: steady");
	j = tick_next(&tk, 1003900, 7000, &jump);
	ok(j == TICK_STEADY, "1.9 s of slack: steady");
	j = tick_next(&tk, 1605000, 8000, &jump);
	ok(j == TICK_AHEAD && jump == 600100 && tk.tk_floor == 1605000,
	    "ten minutes forward: a jump ahead, fires from now (%lld)",
	    (long long)jump);
	j = tick_next(&tk, 1606000, 9000, &jump);
	ok(j == TICK_STEADY && tk.tk_floor == 0, "the floor lasts a turn");
	j = tick_next(&tk, 1577000, 10000, &jump);
	ok(j == TICK_BACK && jump == -30000 && tk.tk_floor == 0,
	    "thirty seconds back: nothing to make up");
	j = tick_next(&tk, 1577000 + 4 * 3600 * 1000LL, 11000, &jump);
	ok(j == TICK_FAR, "four hours ahead: too far to make up");
	/* tick_read() does not hide a jump from the next turn. */
	tk.tk_wall += 3600 * 1000;
	j = tick_next(&tk, 1577000 + 4 * 3600 * 1000LL + 2000, 12000, &jump);
	ok(j == TICK_STEADY, "readings within a turn do not count as the "
	    "turn's");
}

int
main(void)
{
	test_heap();
	test_mtimers();
	test_tick();
	return (tap_done());
}
