/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * timerq.c: the daemon's queue of next fire instants, a binary min-heap
 * of (instant, id) pairs.  Ids are small dense numbers the caller owns
 * (an entry's index in its table); a side array maps each id to its
 * place in the heap, so that an entry's instant can be moved or removed
 * in O(log n) when a table is reloaded, without a scan.  Pairs are
 * ordered by instant, then by id, so that entries due at the same
 * instant come out in a stable, repeatable order.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

struct timerq_node {
	int64_t		 n_when;
	uint32_t	 n_id;
};

struct timerq {
	struct timerq_node	*q_heap;
	size_t			 q_count;
	size_t			 q_cap;
	uint32_t		*q_pos;		/* by id: heap index + 1, 0 absent */
	size_t			 q_npos;
};

static int	before(const struct timerq_node *, const struct timerq_node *);
static void	place(struct timerq *, size_t, struct timerq_node);
static void	sift_up(struct timerq *, size_t);
static void	sift_down(struct timerq *, size_t);

static int
before(const struct timerq_node *a, const struct timerq_node *b)
{
	if (a->n_when != b->n_when)
		return (a->n_when < b->n_when);
	return (a->n_id < b->n_id);
}

static void
place(struct timerq *q, size_t i, struct timerq_node n)
{
	q->q_heap[i] = n;
	q->q_pos[n.n_id] = (uint32_t)(i + 1);
}

static void
sift_up(struct timerq *q, size_t i)
{
	struct timerq_node	 n = q->q_heap[i];
	size_t			 parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!before(&n, &q->q_heap[parent]))
			break;
		place(q, i, q->q_heap[parent]);
		i = parent;
	}
	place(q, i, n);
}

static void
sift_down(struct timerq *q, size_t i)
{
	struct timerq_node	 n = q->q_heap[i];
	size_t			 child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= q->q_count)
			break;
		if (child + 1 < q->q_count &&
		    before(&q->q_heap[child + 1], &q->q_heap[child]))
			child++;
		if (!before(&q->q_heap[child], &n))
			break;
		place(q, i, q->q_heap[child]);
		i = child;
	}
	place(q, i, n);
}

struct timerq *
timerq_new(void)
{
	return (calloc(1, sizeof(struct timerq)));
}

void
timerq_free(struct timerq *q)
{
	if (q == NULL)
		return;
	free(q->q_heap);
	free(q->q_pos);
	free(q);
}

size_t
timerq_count(const struct timerq *q)
{
	return (q->q_count);
}

int
timerq_set(struct timerq *q, uint32_t id, int64_t when)
{
	struct timerq_node	*nheap;
	uint32_t		*npos;
	size_t			 ncap, i;

	if (id == UINT32_MAX) {
		errno = EINVAL;
		return (-1);
	}
	if (id >= q->q_npos) {
		ncap = q->q_npos == 0 ? 64 : q->q_npos;
		while (ncap <= id)
			ncap *= 2;
		if ((npos = reallocarray(q->q_pos, ncap, sizeof(*npos))) ==
		    NULL)
			return (-1);
		memset(npos + q->q_npos, 0, (ncap - q->q_npos) * sizeof(*npos));
		q->q_pos = npos;
		q->q_npos = ncap;
	}
	if (q->q_pos[id] != 0) {
		i = q->q_pos[id] - 1;
		if (when < q->q_heap[i].n_when) {
			q->q_heap[i].n_when = when;
			sift_up(q, i);
		} else {
			q->q_heap[i].n_when = when;
			sift_down(q, i);
		}
		return (0);
	}
	if (q->q_count == q->q_cap) {
		ncap = q->q_cap == 0 ? 64 : q->q_cap * 2;
		if ((nheap = reallocarray(q->q_heap, ncap, sizeof(*nheap))) ==
		    NULL)
			return (-1);
		q->q_heap = nheap;
		q->q_cap = ncap;
	}
	i = q->q_count++;
	q->q_heap[i].n_when = when;
	q->q_heap[i].n_id = id;
	sift_up(q, i);
	return (0);
}

int
timerq_get(const struct timerq *q, uint32_t id, int64_t *whenp)
{
	if (id >= q->q_npos || q->q_pos[id] == 0)
		return (0);
	if (whenp != NULL)
		*whenp = q->q_heap[q->q_pos[id] - 1].n_when;
	return (1);
}

int
timerq_del(struct timerq *q, uint32_t id)
{
	size_t	 i;

	if (id >= q->q_npos || q->q_pos[id] == 0)
		return (0);
	i = q->q_pos[id] - 1;
	q->q_pos[id] = 0;
	if (--q->q_count == i)
		return (1);
	/* The last node fills the hole, then finds its place. */
	place(q, i, q->q_heap[q->q_count]);
	if (i > 0 && before(&q->q_heap[i], &q->q_heap[(i - 1) / 2]))
		sift_up(q, i);
	else
		sift_down(q, i);
	return (1);
}

int
timerq_peek(const struct timerq *q, uint32_t *idp, int64_t *whenp)
{
	if (q->q_count == 0)
		return (0);
	if (idp != NULL)
		*idp = q->q_heap[0].n_id;
	if (whenp != NULL)
		*whenp = q->q_heap[0].n_when;
	return (1);
}

int
timerq_pop(struct timerq *q, uint32_t *idp, int64_t *whenp)
{
	uint32_t	 id;

	if (!timerq_peek(q, &id, whenp))
		return (0);
	if (idp != NULL)
		*idp = id;
	(void)timerq_del(q, id);
	return (1);
}
