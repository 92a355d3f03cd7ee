/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabproto.h: how ctab and the daemon talk.  ctab never sees the
 * store's credentials: it asks the local daemon over a unix socket, and
 * the daemon, knowing the caller's uid from the kernel (SO_PEERCRED),
 * reads or writes that user's table in the store.
 *
 * One request and one reply per connection, each a frame: four bytes of
 * length (big-endian) and then
 *
 *	word \n user \n version \n message \n body
 *
 * Requests use the words get, open (a get for an edit, which must be
 * allowed to install afterwards), put and del; replies ok, none,
 * conflict, denied, refused (cron.allow or cron.deny forbids the
 * owner's table; ctab words that itself, as crontab(1) does), invalid,
 * error and busy (too many connections open: the caller's uid, or all
 * of them; the message says which).  user is the table's owner (empty: the caller), version
 * the table version a put or del expects (0: there is none) or a
 * reply's current version, message one line of text for people, body
 * the table's text.
 *
 * One-shot jobs (at(1), atq, atrm, at -c) use the same frames with the
 * words atcheck, atsubmit, atlist, atremove and atprint; their bodies
 * are lists of fields (below).  atcheck asks whether the caller may use
 * at at all (ok or refused), before at reads a job.  atsubmit's body is the job: due, queue, mail,
 * retries, backoff, lost, key, token, umask, cwd, one env field per
 * variable, cmd; the reply ok carries the job's id as its version, the
 * message "new" or "existing" (a key already named it), and the fields
 * due and state of the stored job.  atlist's body may say all 1 (the
 * finished jobs too); its reply holds one record per job, each starting
 * with its id field: id, due, next, queue, owner, state, attempt,
 * retries, node.  atremove and atprint name the job by the version;
 * atprint's reply body is the job's script.  Replies besides ok: none
 * (no such job), notowner, running (atremove of a job whose attempt
 * runs: the message names the node), finished (atremove of a job done,
 * failed or cancelled), refused (at.allow or at.deny forbids the
 * caller), invalid, conflict (a limit), denied and error.
 */

#ifndef TABPROTO_H
#define TABPROTO_H

#include <stddef.h>
#include <stdint.h>

#define TAB_MAXBYTES	(1024 * 1024)	/* a table's text */
#define TAB_MAXLINES	10000
#define TAB_MAXFRAME	(TAB_MAXBYTES + 1024)
/*
 * The daemon serves many connections at once, never waiting on one
 * (tabsrv.c): each has TAB_CONN_MS from its accept to send its request
 * and read the reply, after which it is closed.  A uid may have
 * TAB_CONN_PER_UID connections open at once, and all users together
 * TAB_CONN_MAX; one over either is answered busy at once and closed.
 * ctab waits longer than the daemon gives, since the daemon may be busy
 * starting jobs and the store may be a network away.
 */
#define TAB_CONN_MS		10000
#define TAB_CONN_PER_UID	8
#define TAB_CONN_MAX		256
#define TAB_CLIENT_MS		15000

/* One-shot jobs a user may have waiting, running or retrying. */
#define AT_MAXPENDING	1000

struct tabmsg {
	char		 tm_word[16];
	char		 tm_user[64];
	int64_t		 tm_version;
	char		 tm_msg[512];
	char		*tm_body;	/* owned; NULL for none */
	size_t		 tm_bodylen;
};

/*
 * tab_send() writes a message to a socket, tab_recv() reads one (the
 * body is allocated and NUL-terminated; free it with tab_clear()),
 * each giving up after timeout ms.  Both return 0, or -1 with errno set
 * (ETIMEDOUT, EPROTO for a malformed frame, EFBIG for one too large;
 * EPIPE when the peer has gone: no SIGPIPE is raised).
 *
 * For a server that never waits: tab_frame() appends a message's frame
 * to a buffer (0, or -1 with errno EINVAL or EFBIG); tab_frame_len()
 * reads a frame's four bytes of length; tab_parse() makes a message of
 * a frame's len bytes in buf, which must have room for one byte more,
 * and takes buf (the body, or freed): 0, or -1 with errno EPROTO.
 */
struct tabbuf;
int	 tab_send(int, const struct tabmsg *, int);
int	 tab_recv(int, struct tabmsg *, int);
int	 tab_frame(const struct tabmsg *, struct tabbuf *);
size_t	 tab_frame_len(const unsigned char *);
int	 tab_parse(char *, size_t, struct tabmsg *);
void	 tab_clear(struct tabmsg *);
/* Sets the fields of a message; body is borrowed until sent. */
void	 tab_set(struct tabmsg *, const char *, const char *, int64_t,
	    const char *);

/*
 * tab_sockaddr() fills a unix socket address for path; -1 with errno
 * ENAMETOOLONG when the path does not fit.
 */
struct sockaddr_un;
int	 tab_sockaddr(const char *, struct sockaddr_un *);

/*
 * tab_count_lines() counts the lines of a table's text as cron does:
 * a last line without newline counts too.
 */
size_t	 tab_count_lines(const char *, size_t);

/*
 * Fields: a list of named values, each written "name length\nvalue\n"
 * (the length in decimal, so that a value may hold any byte, newlines
 * and NULs included).  tab_field_add() appends one to a growing buffer
 * (the program exits when out of memory, as xmalloc does), tab_field_str()
 * a string and tab_field_num() a number.  tab_field_next() reads the
 * field at *p, before end: 1 with its name copied into name (namelen
 * bytes) and *val, *vallen pointing into the buffer (the value is not
 * NUL-terminated), *p moved past it; 0 at the end; -1 when malformed.
 * tab_field_int() reads a value as a number between min and max: 0, or
 * -1 when it is not one.
 */
struct tabbuf {
	char		*b_p;
	size_t		 b_len;
	size_t		 b_cap;
};
void	 tab_field_add(struct tabbuf *, const char *, const void *, size_t);
void	 tab_field_str(struct tabbuf *, const char *, const char *);
void	 tab_field_num(struct tabbuf *, const char *, int64_t);
int	 tab_field_next(const char **, const char *, char *, size_t,
	    const char **, size_t *);
int	 tab_field_int(const char *, size_t, int64_t, int64_t, int64_t *);

#endif /* TABPROTO_H */
