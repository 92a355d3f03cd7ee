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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define FAULT_MAX	16
#define STALL_SECS	5	/* a stall armed without its length */

static enum store_fault fault_at(const char *, const char *, const char *,
		    unsigned int *);
static int	 short_row(void *, const struct sval *, size_t);
static void	 stall(unsigned int);

/*
 * The daemon heartbeats from a thread of its own (clustercron/node.c),
 * whose store calls reach the points too: the faults are under a
 * mutex.
 */
static pthread_mutex_t	 fault_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char		 f_point[64];
	unsigned int	 f_nth;
	enum store_fault f_kind;
	unsigned int	 f_secs;	/* stall */
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
	[STORE_FAULT_STALL] = "stall",
};

void
store_fault_set(const char *point, unsigned int nth, enum store_fault kind)
{
	pthread_mutex_lock(&fault_mu);
	nfaults = 0;
	fault_hits = 0;
	pthread_mutex_unlock(&fault_mu);
	store_fault_add(point, nth, kind);
}

void
store_fault_add(const char *point, unsigned int nth, enum store_fault kind)
{
	store_fault_stall(point, nth, kind, STALL_SECS);
}

void
store_fault_stall(const char *point, unsigned int nth, enum store_fault kind,
    unsigned int secs)
{
	if (kind == STORE_FAULT_NONE)
		return;
	pthread_mutex_lock(&fault_mu);
	if (nfaults < FAULT_MAX) {
		strlcpy(faults[nfaults].f_point, point == NULL ? "*" : point,
		    sizeof(faults[nfaults].f_point));
		faults[nfaults].f_nth = nth == 0 ? 1 : nth;
		faults[nfaults].f_kind = kind;
		faults[nfaults].f_secs = secs;
		nfaults++;
	}
	pthread_mutex_unlock(&fault_mu);
}

const char *const *
store_fault_points(void)
{
	return (fault_points);
}

unsigned int
store_fault_hits(void)
{
	unsigned int	 n;

	pthread_mutex_lock(&fault_mu);
	n = fault_hits;
	pthread_mutex_unlock(&fault_mu);
	return (n);
}

/*
 * "point:nth:kind,...": every armed fault replaced by these.  Malformed
 * items are refused, so that a test cannot pass by arming nothing.
 */
int
store_fault_spec(const char *spec, struct store_error *err)
{
	char		*copy, *item, *p, *point, *nth, *kind, *secs;
	const char	*errstr;
	unsigned int	 n, sn;
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
		sn = STALL_SECS;
		if (strncmp(kind, "stall:", 6) == 0) {
			secs = kind + 6;
			kind[5] = '\0';
			sn = (unsigned int)strtonum(secs, 1, 3600, &errstr);
			if (errstr != NULL) {
				store_seterr(err, STORE_FATAL, SE_OTHER,
				    EINVAL, "stall %s s is %s", secs, errstr);
				goto fail;
			}
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
			    "kind %s: expected drop, retry, fail, stop, "
			    "short or stall[:secs]", kind);
			goto fail;
		}
		if (++narmed > FAULT_MAX) {
			store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
			    "%s: more than %d faults", spec, FAULT_MAX);
			goto fail;
		}
		store_fault_stall(point, n, (enum store_fault)k, sn);
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
fault_at(const char *point, const char *sub, const char *phase,
    unsigned int *secs)
{
	char		 name[64];
	enum store_fault kind = STORE_FAULT_NONE;
	int		 i;

	pthread_mutex_lock(&fault_mu);
	if (nfaults == 0)
		goto out;
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
		if (secs != NULL)
			*secs = faults[i].f_secs;
		memmove(&faults[i], &faults[i + 1],
		    (nfaults - i - 1) * sizeof(faults[0]));
		nfaults--;
		break;
	}
out:
	pthread_mutex_unlock(&fault_mu);
	return (kind);
}

/* A stall: the calling thread sleeps secs, signals or not. */
static void
stall(unsigned int secs)
{
	struct timespec	 ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
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
	unsigned int	 secs = 0;

	switch (fault_at(point, sub, "before", &secs)) {
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
	case STORE_FAULT_STALL:
		stall(secs);
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
	unsigned int	 secs = 0;

	switch (fault_at(point, sub, "after", &secs)) {
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
	case STORE_FAULT_STALL:
		stall(secs);
		break;
	default:
		break;
	}
	return (0);
}

int
lk_fault_connect(struct store_error *err)
{
	if (fault_at("connect", NULL, "before", NULL) == STORE_FAULT_NONE)
		return (0);
	store_seterr(err, STORE_TRANSIENT, SE_LOST, 0,
	    "cannot connect to the store (injected)");
	return (-1);
}
