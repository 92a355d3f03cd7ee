/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_fault.c: the fault hook, compiled into test builds only (the
 * library liblock_test.a and the programs built on it, with
 * CLUSTERCRON_TEST defined), as SQLite compiles its own under
 * SQLITE_TEST: the shipped daemon has no hook to arm.  A fault is armed
 * at a named point for the nth time it is reached; store.h lists the
 * kinds.  The points are those lk_exec() and lk_commit() are given,
 * with ".before" or ".after", and "connect.before".
 */

#ifndef CLUSTERCRON_TEST
#error "store_fault.c is for test builds only"
#endif

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define FAULT_MAX	4

static enum store_fault fault_at(const char *, const char *, const char *);
static int	 short_row(void *, const struct sval *, size_t);

static struct {
	char		 f_point[64];
	unsigned int	 f_nth;
	enum store_fault f_kind;
}			 faults[FAULT_MAX];
static int		 nfaults;
static unsigned int	 fault_hits;

/* The row callback a short fault wraps (a statement at a time). */
static struct {
	store_row_fn	 s_row;
	void		*s_arg;
}			 shortened;

static const char *const fault_points[] = {
	"claim.before", "claim.after",
	"claim.commit.before", "claim.commit.after",
	"claim.note.before", "claim.note.after",
	"claim.read.before", "claim.read.after",
	"batch.mine.before", "batch.mine.after",
	"batch.select.before", "batch.select.after",
	"batch.update.before", "batch.update.after",
	"batch.note.before", "batch.note.after",
	"batch.commit.before", "batch.commit.after",
	"batch.hint.before", "batch.hint.after",
	"run_start.before", "run_start.after",
	"run_start.commit.before", "run_start.commit.after",
	"run_start.find.before", "run_start.find.after",
	"run_end.before", "run_end.after",
	"run_end.commit.before", "run_end.commit.after",
	"run_fail.before", "run_fail.after",
	"lost.before", "lost.after",
	"lost.commit.before", "lost.commit.after",
	"lost.mine.before", "lost.mine.after",
	"jobs.lock.before", "jobs.lock.after",
	"register.scan.before", "register.scan.after",
	"register.before", "register.after",
	"hold.before", "hold.after",
	"register.commit.before", "register.commit.after",
	"release.before", "release.after",
	"release.commit.before", "release.commit.after",
	"beat.read.before", "beat.read.after",
	"beat.before", "beat.after",
	"table.before", "table.after",
	"at.submit.before", "at.submit.after",
	"at.submit.commit.before", "at.submit.commit.after",
	"at.claim.before", "at.claim.after",
	"at.claim.run.before", "at.claim.run.after",
	"at.claim.commit.before", "at.claim.commit.after",
	"at.peek.before", "at.peek.after",
	"at.cancel.before", "at.cancel.after",
	"at.start.before", "at.start.after",
	"at.finish.before", "at.finish.after",
	"at.finish.run.before", "at.finish.run.after",
	"at.finish.commit.before", "at.finish.commit.after",
	"connect.before",
	NULL
};

static const char *const fault_kinds[] = {
	[STORE_FAULT_NONE] = "none",
	[STORE_FAULT_DROP] = "drop",
	[STORE_FAULT_RETRY] = "retry",
	[STORE_FAULT_FAIL] = "fail",
	[STORE_FAULT_STOP] = "stop",
	[STORE_FAULT_SHORT] = "short",
};

void
store_fault_set(const char *point, unsigned int nth, enum store_fault kind)
{
	nfaults = 0;
	fault_hits = 0;
	store_fault_add(point, nth, kind);
}

void
store_fault_add(const char *point, unsigned int nth, enum store_fault kind)
{
	if (kind == STORE_FAULT_NONE || nfaults == FAULT_MAX)
		return;
	strlcpy(faults[nfaults].f_point, point == NULL ? "*" : point,
	    sizeof(faults[nfaults].f_point));
	faults[nfaults].f_nth = nth == 0 ? 1 : nth;
	faults[nfaults].f_kind = kind;
	nfaults++;
}

const char *const *
store_fault_points(void)
{
	return (fault_points);
}

unsigned int
store_fault_hits(void)
{
	return (fault_hits);
}

/*
 * "point:nth:kind,...": every armed fault replaced by these.  Malformed
 * items are refused, so that a test cannot pass by arming nothing.
 */
int
store_fault_spec(const char *spec, struct store_error *err)
{
	char		*copy, *item, *p, *point, *nth, *kind;
	const char	*errstr;
	unsigned int	 n;
	size_t		 k;
	int		 narmed = 0;

	err = lk_err_init(err);
	if (spec == NULL || *spec == '\0')
		return (0);
	if ((p = copy = strdup(spec)) == NULL)
		return (lk_nomem(err));
	store_fault_set(NULL, 0, STORE_FAULT_NONE);
	while ((item = strsep(&p, ",")) != NULL) {
		point = strsep(&item, ":");
		nth = strsep(&item, ":");
		kind = item;
		if (*point == '\0' || nth == NULL || kind == NULL) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "%s: expected point:nth:kind", spec);
			goto fail;
		}
		n = (unsigned int)strtonum(nth, 1, 1000000, &errstr);
		if (errstr != NULL) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "nth %s is %s", nth, errstr);
			goto fail;
		}
		for (k = STORE_FAULT_DROP; k < sizeof(fault_kinds) /
		    sizeof(fault_kinds[0]); k++)
			if (strcmp(kind, fault_kinds[k]) == 0)
				break;
		if (k == sizeof(fault_kinds) / sizeof(fault_kinds[0])) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "kind %s: expected drop, retry, fail, stop or "
			    "short", kind);
			goto fail;
		}
		if (++narmed > FAULT_MAX) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "%s: more than %d faults", spec, FAULT_MAX);
			goto fail;
		}
		store_fault_add(point, n, (enum store_fault)k);
	}
	free(copy);
	return (0);
fail:
	store_fault_set(NULL, 0, STORE_FAULT_NONE);
	free(copy);
	return (-1);
}

void
store_fault_reconnect(struct store *st)
{
	st->s_backoff = 0;
	st->s_next_connect = 0;
}

/* The kind of the fault armed at "point[.sub].phase", if it is due. */
static enum store_fault
fault_at(const char *point, const char *sub, const char *phase)
{
	char		 name[64];
	enum store_fault kind;
	int		 i;

	if (nfaults == 0)
		return (STORE_FAULT_NONE);
	if (sub != NULL)
		snprintf(name, sizeof(name), "%s.%s.%s", point, sub, phase);
	else
		snprintf(name, sizeof(name), "%s.%s", point, phase);
	for (i = 0; i < nfaults; i++) {
		if (strcmp(faults[i].f_point, "*") != 0 &&
		    strcmp(faults[i].f_point, name) != 0)
			continue;
		if (--faults[i].f_nth > 0)
			continue;
		fault_hits++;
		kind = faults[i].f_kind;
		memmove(&faults[i], &faults[i + 1],
		    (nfaults - i - 1) * sizeof(faults[0]));
		nfaults--;
		return (kind);
	}
	return (STORE_FAULT_NONE);
}

/* The rows of a statement at a short fault, a column short. */
static int
short_row(void *arg, const struct sval *c, size_t n)
{
	return (shortened.s_row(shortened.s_arg, c, n > 0 ? n - 1 : 0));
}

int
lk_fault_before(struct store *st, const char *point, const char *sub,
    store_row_fn *row, void **arg, struct store_error *err)
{
	switch (fault_at(point, sub, "before")) {
	case STORE_FAULT_DROP:
		/* The statement then finds the connection gone. */
		st->s_ops->o_sever(st);
		break;
	case STORE_FAULT_RETRY:
		store_seterr(err, STORE_TRANSIENT, SE_RETRY, 0,
		    "injected deadlock at %s", point);
		return (-1);
	case STORE_FAULT_FAIL:
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "injected failure at %s", point);
		return (-1);
	case STORE_FAULT_STOP:
		raise(SIGSTOP);
		break;
	case STORE_FAULT_SHORT:
		if (row == NULL)
			break;
		shortened.s_row = *row;
		shortened.s_arg = *arg;
		*row = short_row;
		*arg = NULL;
		break;
	case STORE_FAULT_NONE:
		break;
	}
	return (0);
}

int
lk_fault_after(struct store *st, const char *point, const char *sub,
    struct store_error *err)
{
	switch (fault_at(point, sub, "after")) {
	case STORE_FAULT_DROP:
		st->s_ops->o_sever(st);
		lk_lost(st);
		store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
		    "connection lost after %s%s%s (injected)", point,
		    sub != NULL ? " " : "", sub != NULL ? sub : "");
		return (-1);
	case STORE_FAULT_STOP:
		raise(SIGSTOP);
		break;
	default:
		break;
	}
	return (0);
}

int
lk_fault_connect(struct store_error *err)
{
	if (fault_at("connect", NULL, "before") == STORE_FAULT_NONE)
		return (0);
	store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
	    "cannot connect to the store (injected)");
	return (-1);
}
