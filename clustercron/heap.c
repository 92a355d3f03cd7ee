/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * heap.c: the daemon's timer queues, at the bottom of its chain
 * (daemon.h): a binary min-heap of timers by instant, each timer
 * knowing its place, so that moving or removing one costs O(log n) and
 * the daemon never scans to find the next.  Two heaps use it: the jobs'
 * fires on the wall clock (jobtab.c owns that one) and, here, every
 * other timer on the monotonic clock, each an mtimer that says what to
 * call when it comes due (mtimer_run()).  A timer is the instant and
 * the place kept in what it times, never allocated on its own: a job
 * has one, and a daemon may hold hundreds of thousands of jobs, so the
 * heap reaches the two through their offsets (HEAP_INIT()) rather than
 * a struct of its own that would cost each job its padding.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"

static int64_t	 when_of(const struct heap *, const void *);
static void	 idx_set(const struct heap *, void *, size_t);
static size_t	 idx_of(const struct heap *, const void *);
static void	 heap_swap(struct heap *, size_t, size_t);
static void	 heap_up(struct heap *, size_t);
static void	 heap_down(struct heap *, size_t);

/* The monotonic timers. */
static struct heap	 mono = HEAP_INIT(struct mtimer, mt_when, mt_idx);

void
mtimer_init(struct mtimer *mt, void (*fn)(struct mtimer *, struct tick *),
    void *arg)
{
	mt->mt_when = 0;
	mt->mt_idx = TIMER_IDLE;
	mt->mt_fn = fn;
	mt->mt_arg = arg;
}

/* Queue an mtimer at the monotonic instant when, or move it there. */
void
mtimer_set(struct mtimer *mt, int64_t when)
{
	heap_set(&mono, mt, when);
}

void
mtimer_del(struct mtimer *mt)
{
	heap_del(&mono, mt);
}

int
mtimer_queued(const struct mtimer *mt)
{
	return (mt->mt_idx != TIMER_IDLE);
}

/*
 * Call every mtimer due at tk's monotonic instant, earliest first,
 * taking each off the queue before its call (which may set it again).
 */
void
mtimer_run(struct tick *tk)
{
	struct mtimer	*mt;

	while ((mt = heap_top(&mono)) != NULL && mt->mt_when <= tk->tk_mono) {
		heap_del(&mono, mt);
		mt->mt_fn(mt, tk);
	}
}

/* The earliest mtimer's instant in *when: 1, or 0 when none is queued. */
int
mtimer_next(int64_t *when)
{
	struct mtimer	*mt;

	if ((mt = heap_top(&mono)) == NULL)
		return (0);
	*when = mt->mt_when;
	return (1);
}

void
mtimer_free(void)
{
	heap_free(&mono);
}

/* An element's instant, and its place, by the heap's offsets. */
static int64_t
when_of(const struct heap *h, const void *e)
{
	int64_t	 w;

	memcpy(&w, (const char *)e + h->h_when, sizeof(w));
	return (w);
}

static size_t
idx_of(const struct heap *h, const void *e)
{
	uint32_t	 i;

	memcpy(&i, (const char *)e + h->h_idx, sizeof(i));
	return (i == TIMER_IDLE ? SIZE_MAX : i);
}

static void
idx_set(const struct heap *h, void *e, size_t i)
{
	uint32_t	 v = i == SIZE_MAX ? TIMER_IDLE : (uint32_t)i;

	memcpy((char *)e + h->h_idx, &v, sizeof(v));
}

static void
heap_swap(struct heap *h, size_t a, size_t b)
{
	void	*t;

	t = h->h_v[a];
	h->h_v[a] = h->h_v[b];
	h->h_v[b] = t;
	idx_set(h, h->h_v[a], a);
	idx_set(h, h->h_v[b], b);
}

static void
heap_up(struct heap *h, size_t i)
{
	size_t	 p;

	while (i > 0) {
		p = (i - 1) / 2;
		if (when_of(h, h->h_v[p]) <= when_of(h, h->h_v[i]))
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
		    when_of(h, h->h_v[l + 1]) < when_of(h, h->h_v[l]))
			m = l + 1;
		if (when_of(h, h->h_v[i]) <= when_of(h, h->h_v[m]))
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

/* Queue the element at `when', or move it there if it is queued. */
void
heap_set(struct heap *h, void *e, int64_t when)
{
	size_t	 ncap, i = idx_of(h, e);

	memcpy((char *)e + h->h_when, &when, sizeof(when));
	if (i != SIZE_MAX) {
		heap_up(h, i);
		heap_down(h, idx_of(h, e));
		return;
	}
	if (h->h_n == h->h_cap) {
		ncap = h->h_cap == 0 ? 64 : h->h_cap * 2;
		h->h_v = xreallocarray(h->h_v, ncap, sizeof(*h->h_v));
		h->h_cap = ncap;
	}
	idx_set(h, e, h->h_n);
	h->h_v[h->h_n++] = e;
	heap_up(h, h->h_n - 1);
}

/* Take the element out of the heap; one not queued is left alone. */
void
heap_del(struct heap *h, void *e)
{
	size_t	 i = idx_of(h, e);

	if (i == SIZE_MAX)
		return;
	idx_set(h, e, SIZE_MAX);
	h->h_n--;
	if (i == h->h_n)
		return;
	h->h_v[i] = h->h_v[h->h_n];
	idx_set(h, h->h_v[i], i);
	heap_up(h, i);
	heap_down(h, idx_of(h, h->h_v[i]));
}

/*
 * A queued element was copied elsewhere in memory by its owner
 * (jobtab.c moves a table's jobs to a new array when it reads the
 * table again): its slot follows it.
 */
void
heap_moved(struct heap *h, void *e)
{
	h->h_v[idx_of(h, e)] = e;
}

/* The earliest element, or NULL. */
void *
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
