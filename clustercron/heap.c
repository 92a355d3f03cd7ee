/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * heap.c: the daemon's timer queues.  A binary min-heap of timers by
 * instant; each timer knows its place, so that moving or removing one
 * costs O(log n) and the daemon never scans its jobs to find the next.
 */

#include <stdlib.h>

#include "common.h"
#include "daemon.h"

static void	 heap_swap(struct heap *, size_t, size_t);
static void	 heap_up(struct heap *, size_t);
static void	 heap_down(struct heap *, size_t);

void
timer_init(struct mtimer *mt, void (*fn)(struct mtimer *), void *arg)
{
	mt->mt_timer.t_when = 0;
	mt->mt_timer.t_idx = TIMER_IDLE;
	mt->mt_fn = fn;
	mt->mt_arg = arg;
}

/* Queue an mtimer on the monotonic heap, or move it. */
void
mtimer_set(struct mtimer *mt, int64_t when)
{
	heap_set(&D.d_mono, &mt->mt_timer, when);
}

void
mtimer_del(struct mtimer *mt)
{
	heap_del(&D.d_mono, &mt->mt_timer);
}

int
mtimer_queued(const struct mtimer *mt)
{
	return (mt->mt_timer.t_idx != TIMER_IDLE);
}

static void
heap_swap(struct heap *h, size_t a, size_t b)
{
	struct timer	*t;

	t = h->h_v[a];
	h->h_v[a] = h->h_v[b];
	h->h_v[b] = t;
	h->h_v[a]->t_idx = a;
	h->h_v[b]->t_idx = b;
}

static void
heap_up(struct heap *h, size_t i)
{
	size_t	 p;

	while (i > 0) {
		p = (i - 1) / 2;
		if (h->h_v[p]->t_when <= h->h_v[i]->t_when)
			break;
		heap_swap(h, p, i);
		i = p;
	}
}

static void
heap_down(struct heap *h, size_t i)
{
	size_t	 l, m;

	for (;;) {
		l = 2 * i + 1;
		if (l >= h->h_n)
			break;
		m = l;
		if (l + 1 < h->h_n &&
		    h->h_v[l + 1]->t_when < h->h_v[l]->t_when)
			m = l + 1;
		if (h->h_v[i]->t_when <= h->h_v[m]->t_when)
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Queue the timer at `when', or move it there if it is queued. */
void
heap_set(struct heap *h, struct timer *t, int64_t when)
{
	size_t	 ncap;

	if (t->t_idx != TIMER_IDLE) {
		t->t_when = when;
		heap_up(h, t->t_idx);
		heap_down(h, t->t_idx);
		return;
	}
	if (h->h_n == h->h_cap) {
		ncap = h->h_cap == 0 ? 64 : h->h_cap * 2;
		h->h_v = xreallocarray(h->h_v, ncap, sizeof(*h->h_v));
		h->h_cap = ncap;
	}
	t->t_when = when;
	t->t_idx = h->h_n;
	h->h_v[h->h_n++] = t;
	heap_up(h, t->t_idx);
}

/* Take the timer out of the heap; a timer not queued is left alone. */
void
heap_del(struct heap *h, struct timer *t)
{
	size_t	 i = t->t_idx;

	if (i == TIMER_IDLE)
		return;
	t->t_idx = TIMER_IDLE;
	h->h_n--;
	if (i == h->h_n)
		return;
	h->h_v[i] = h->h_v[h->h_n];
	h->h_v[i]->t_idx = i;
	heap_up(h, i);
	heap_down(h, h->h_v[i]->t_idx);
}

/* A queued timer was moved in memory: its slot follows it. */
void
heap_moved(struct heap *h, struct timer *t)
{
	h->h_v[t->t_idx] = t;
}

/* The earliest timer, or NULL. */
struct timer *
heap_top(const struct heap *h)
{
	return (h->h_n == 0 ? NULL : h->h_v[0]);
}

void
heap_free(struct heap *h)
{
	free(h->h_v);
	h->h_v = NULL;
	h->h_n = h->h_cap = 0;
}
