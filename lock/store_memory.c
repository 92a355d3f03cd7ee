/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_memory.c: memory stores, for tests (test builds only).  A
 * memory store is the SQLite backend on a database held in this
 * process's memory instead of a file: the same statements, schema,
 * transactions and answers, so whatever a test learns of the store
 * holds for SQLite, and nothing of the store's logic is written twice.
 *
 * Each name is one database, shared by every store opened on
 * "memory:NAME" in this process, so that two stores with different
 * node names are two nodes of one cluster.  It is SQLite's memdb VFS
 * with a name beginning with '/', which SQLite shares between the
 * connections of a process and locks as it locks a file (a writer
 * waits, through the busy handler, as on a file; SQLite's older
 * shared-cache mode would fail it at once with SQLITE_LOCKED instead).
 * Its journal is in memory, so there is no WAL, which one process
 * taking turns does not miss.  The database lives until the process
 * ends or store_memory_drop(): one connection of this file's own
 * anchors it, so that a store whose connection the fault hook severs,
 * or that is closed and opened again (a node restarting), finds its
 * rows again.
 *
 * The store's clock.  SQLite reads the time for 'now' through the
 * VFS, once per statement.  Each name gets a VFS of its own, the memdb
 * VFS with its clock replaced: the real time until the test sets one
 * with store_memory_clock(), then that instant until set again.  The
 * store's clock is the store's alone (heartbeats, leases, claimed_at,
 * marking runs lost, trimming); the node's clock is whatever the
 * caller passes.
 *
 * Not thread-safe: the registry of names has no lock.  A child of
 * fork() has a copy of each database, not a share of it.
 */

#ifndef CLUSTERCRON_TEST
#error "store_memory.c is for test builds only"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

/* The Julian day of the Unix epoch, in ms, as sqlite3_vfs counts. */
#define JD_EPOCH_MS	210866760000000LL

struct memdb {
	sqlite3_vfs	 m_vfs;		/* first: SQLite hands it back */
	struct memdb	*m_next;
	sqlite3_vfs	*m_base;	/* SQLite's memdb VFS */
	char		 m_name[65];
	char		 m_vfsname[96];	/* of the VFS and of the memdb */
	char		 m_uri[208];
	sqlite3		*m_anchor;
	int64_t		 m_clock;	/* ms since the epoch; 0: real */
	unsigned int	 m_conns;	/* stores' connections open */
};

static struct memdb	*memdbs;

static struct memdb *memdb_find(const char *);
static struct memdb *memdb_get(const char *, struct store_error *);
static int	 memdb_now(sqlite3_vfs *, sqlite3_int64 *);
static int	 memdb_check(const char *, struct store_error *);

static struct memdb *
memdb_find(const char *name)
{
	struct memdb	*m;

	for (m = memdbs; m != NULL; m = m->m_next)
		if (strcmp(m->m_name, name) == 0)
			return (m);
	return (NULL);
}

/* The clock of the database's statements. */
static int
memdb_now(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	struct memdb	*m = (struct memdb *)vfs;

	if (m->m_clock == 0)
		return (m->m_base->xCurrentTimeInt64(m->m_base, t));
	*t = m->m_clock + JD_EPOCH_MS;
	return (SQLITE_OK);
}

/* A name as store_url_parse() takes it. */
static int
memdb_check(const char *name, struct store_error *err)
{
	char		 url[128];
	struct store_url su;

	snprintf(url, sizeof(url), "memory:%s", name);
	if (strlen(name) > 64 || store_url_parse(url, &su, err) == -1) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "bad memory store name \"%s\"", name);
		return (-1);
	}
	store_url_free(&su);
	return (0);
}

/* The database NAME, made on first use with its VFS and anchor. */
static struct memdb *
memdb_get(const char *name, struct store_error *err)
{
	struct memdb	*m;
	sqlite3_vfs	*base;
	int		 rc;

	if ((m = memdb_find(name)) != NULL)
		return (m);
	if (memdb_check(name, err) == -1)
		return (NULL);
	if ((base = sqlite3_vfs_find("memdb")) == NULL) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "memory store: "
		    "this SQLite has no memdb VFS");
		return (NULL);
	}
	if ((m = calloc(1, sizeof(*m))) == NULL) {
		lk_nomem(err);
		return (NULL);
	}
	m->m_base = base;
	m->m_vfs = *base;
	strlcpy(m->m_name, name, sizeof(m->m_name));
	snprintf(m->m_vfsname, sizeof(m->m_vfsname), "clustercron-memory-%s",
	    name);
	snprintf(m->m_uri, sizeof(m->m_uri), "file:/%s?vfs=%s",
	    m->m_vfsname, m->m_vfsname);
	m->m_vfs.pNext = NULL;
	m->m_vfs.zName = m->m_vfsname;
	m->m_vfs.xCurrentTimeInt64 = memdb_now;
	m->m_vfs.xCurrentTime = NULL;
	if ((rc = sqlite3_vfs_register(&m->m_vfs, 0)) != SQLITE_OK)
		goto fail;
	if ((rc = sqlite3_open_v2(m->m_uri, &m->m_anchor,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
	    NULL)) != SQLITE_OK) {
		sqlite3_close(m->m_anchor);
		sqlite3_vfs_unregister(&m->m_vfs);
		goto fail;
	}
	m->m_next = memdbs;
	memdbs = m;
	return (m);
fail:
	store_seterr(err, STORE_FATAL, SE_OTHER, rc, "memory store %s: %s",
	    name, sqlite3_errstr(rc));
	free(m);
	return (NULL);
}

int
lk_memory_open(const char *name, struct sqlite3 **db,
    struct store_error *err)
{
	struct memdb	*m;
	int		 rc;

	*db = NULL;
	if ((m = memdb_get(name, err)) == NULL)
		return (-1);
	rc = sqlite3_open_v2(m->m_uri, db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		store_seterr(err, STORE_FATAL, SE_OTHER, rc,
		    "memory store %s: %s", name, sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return (-1);
	}
	m->m_conns++;
	return (0);
}

void
lk_memory_closed(const char *name)
{
	struct memdb	*m;

	if ((m = memdb_find(name)) != NULL && m->m_conns > 0)
		m->m_conns--;
}

int
store_memory_clock(const char *name, int64_t ms, struct store_error *err)
{
	struct memdb	*m;

	err = lk_err_init(err);
	if (ms < 0) {
		store_seterr(err, STORE_FATAL, SE_OTHER, EINVAL,
		    "memory store %s: clock %lld before the epoch", name,
		    (long long)ms);
		return (-1);
	}
	if ((m = memdb_get(name, err)) == NULL)
		return (-1);
	m->m_clock = ms;
	return (0);
}

int
store_memory_drop(const char *name, struct store_error *err)
{
	struct memdb	*m, **mp;

	err = lk_err_init(err);
	for (mp = &memdbs; (m = *mp) != NULL; mp = &m->m_next)
		if (strcmp(m->m_name, name) == 0)
			break;
	if (m == NULL)
		return (0);
	if (m->m_conns > 0) {
		store_seterr(err, STORE_CONFLICT, SE_OTHER, EBUSY,
		    "memory store %s: %u connections still open", name,
		    m->m_conns);
		return (-1);
	}
	*mp = m->m_next;
	sqlite3_close(m->m_anchor);
	sqlite3_vfs_unregister(&m->m_vfs);
	free(m);
	return (0);
}
