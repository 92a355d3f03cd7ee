/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabsrv.h: the daemon's side of ctab (see tabproto.h).
 */

#ifndef TABSRV_H
#define TABSRV_H

#include <sys/types.h>

#include <stddef.h>

struct store;
struct store_table;
struct tabsrv;

/*
 * tabsrv_open() listens on a unix socket at path (replacing a stale
 * one), open to every local user: who may do what is decided per
 * request from the caller's uid.  allow and deny are the cron.allow and
 * cron.deny files (borrowed; they must outlive the server; NULL: none).
 * copydir is where tabsrv_copies() keeps the users' copies (copied;
 * NULL or "": none kept).  A daemon not running as root serves only its
 * own user.  Returns 0 and *out, or -1 with a message in errbuf and
 * *out NULL.
 */
int	 tabsrv_open(const char *, const char *, const char *, const char *,
	    struct tabsrv **, char *, size_t);
void	 tabsrv_close(struct tabsrv *);
/* The listening descriptor, for the daemon's poll set. */
int	 tabsrv_fd(const struct tabsrv *);
/*
 * tabsrv_serve() accepts one connection and answers its request within
 * TAB_SERVER_MS, using the store (NULL when unreachable: the caller is told
 * to try again).  Returns 1 with the owner's name in changed when a
 * table was replaced or removed, 0 otherwise.
 */
int	 tabsrv_serve(struct tabsrv *, struct store *, char *, size_t);

/*
 * tabsrv_copies() brings the local copies up to date with the stored
 * tables (all of them, as store_tables_list() gives them; borrowed): a
 * copy for each owner with an account here (only the daemon's own user
 * when it does not run as root), written when its version changed,
 * owned by that user and readable by them alone; the copy of a table no
 * longer stored is removed.  ctab -l shows a copy while the daemon is
 * down.  Failures are logged, once until they clear.  ts may be NULL.
 */
void	 tabsrv_copies(struct tabsrv *, const struct store_table *, size_t);

/*
 * tab_allowed() applies cron.allow and cron.deny as crontab(1) does:
 * root always may; else a user listed in cron.allow, when it exists;
 * else a user not listed in cron.deny.  Either file existing but not
 * readable (or not a list of names: over 1 MiB, a NUL byte) refuses
 * everyone but root, as Debian's crontab does.  Returns 1 or 0.
 * tab_allowed_why() returns 1 or 0 likewise, or -1 when refused for a
 * file that cannot be read, with the file and the reason in why.
 */
int	 tab_allowed(const char *, const char *, const char *);
int	 tab_allowed_why(const char *, const char *, const char *, char *,
	    size_t);

/*
 * tabsrv_at_files() names the at.allow and at.deny files (borrowed;
 * they must outlive the server); until it is called they are those of
 * at(1), PATH_AT_ALLOW and PATH_AT_DENY.
 */
void	 tabsrv_at_files(struct tabsrv *, const char *, const char *);

/*
 * tabsrv_at.c: at(1)'s requests (tabproto.h: atsubmit, atlist,
 * atremove, atprint).  tabsrv_at() answers req, from the user uid named
 * caller, on fd, using the store (NULL when unreachable: the caller is
 * told to try again); with check set, only when at.allow and at.deny
 * (allow, deny) let the caller use at.  at_allowed() applies them as
 * at(1) does: root always may; else a user whose name is a line of
 * at.allow, when it exists; else a user not a line of at.deny, when it
 * exists; else nobody.  A file that exists but cannot be read lets
 * nobody in.  Returns 1 or 0.
 */
struct tabmsg;
void	 tabsrv_at(int, struct store *, uid_t, const char *,
	    const struct tabmsg *, const char *, const char *, int);
int	 at_allowed(uid_t, const char *, const char *, const char *);

#endif /* TABSRV_H */
