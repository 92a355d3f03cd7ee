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
#include <stdint.h>

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
/* The listening descriptor. */
int	 tabsrv_fd(const struct tabsrv *);
/*
 * The server never waits on a client (tabsrv.c says how).
 * tabsrv_pollfds() fills pfd, which has room for tabsrv_npollfds(), with
 * the listening socket (unless listening is 0) and each connection, and
 * returns how many it filled; tabsrv_io() takes them back from poll(2)
 * with their revents: it accepts new connections, a few a call, reads
 * requests, answers the whole ones, using the store (NULL when
 * unreachable: the caller is told to try again), and writes replies,
 * each as far as the socket takes it.  now is the monotonic clock in
 * ms.  changed(owner, arg), when not NULL, is called for each table
 * replaced or removed.  tabsrv_io() returns the number of requests
 * answered.  tabsrv_expire() closes the connections past their
 * deadline and logs what a flood made it hold back; tabsrv_next()
 * gives in *when the instant it is next due (1), or 0 when never.
 * tabsrv_conns() is the number of connections open; tabsrv_limits()
 * sets how many a uid may have open and all together (TAB_CONN_PER_UID
 * and TAB_CONN_MAX until it is called; 0 per uid: no limit but the
 * total).
 */
struct pollfd;
size_t	 tabsrv_npollfds(const struct tabsrv *);
size_t	 tabsrv_pollfds(struct tabsrv *, struct pollfd *, int);
int	 tabsrv_io(struct tabsrv *, const struct pollfd *, size_t,
	    struct store *, int64_t, void (*)(const char *, void *), void *);
void	 tabsrv_expire(struct tabsrv *, int64_t);
int	 tabsrv_next(const struct tabsrv *, int64_t *);
size_t	 tabsrv_conns(const struct tabsrv *);
void	 tabsrv_limits(struct tabsrv *, size_t, size_t);

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
 * tabsrv_max_entries() refuses a table of more than max entries, naming
 * the limit (max-entries in clustercron.conf(5)); 0, as until it is
 * called, sets none.
 */
void	 tabsrv_max_entries(struct tabsrv *, size_t);

/*
 * tabsrv_at.c: at(1)'s requests (tabproto.h: atsubmit, atlist,
 * atremove, atprint).  tabsrv_at() answers req, from the user uid named
 * caller, in a frame put in out (tabproto.h) when it holds none yet,
 * using the store (NULL when unreachable: the caller is told to try
 * again); with check set, only when at.allow and at.deny
 * (allow, deny) let the caller use at.  at_allowed() applies them as
 * at(1) does: root always may; else a user whose name is a line of
 * at.allow, when it exists; else a user not a line of at.deny, when it
 * exists; else nobody.  A file that exists but cannot be read lets
 * nobody in.  Returns 1 or 0.
 */
struct tabmsg;
struct tabbuf;
void	 tabsrv_at(struct tabbuf *, struct store *, uid_t, const char *,
	    const struct tabmsg *, const char *, const char *, int);
int	 at_allowed(uid_t, const char *, const char *, const char *);

#endif /* TABSRV_H */
