/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * common.h: what every clustercron program shares: logging, exiting
 * allocators, the clock and whole-file reading.  Uses libc and libbsd
 * only.
 */

#ifndef COMMON_H
#define COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * log.c: the daemon logs to syslog (LOG_CRON) in cron's shape; with
 * log_init(..., 1) everything goes to standard error instead, prefixed
 * with the program's name.  log_init_file() appends lines to a file
 * instead (created mode 0640), stamped as syslog stamps them: time,
 * tag[pid]; it returns 0, or -1 with errno set and the log unchanged.
 * log_reopen() opens the file again (after a rotation) and returns 0,
 * or -1 with errno set, logging on to the old one.
 * log_stderr_is_journal() says whether standard error is systemd's
 * journal ($JOURNAL_STREAM names its device and inode).  fatal() and
 * fatalx() log and exit 1.
 */
void	 log_init(const char *, int);
int	 log_init_file(const char *, const char *);
int	 log_reopen(void);
int	 log_stderr_is_journal(void);
void	 log_setverbose(int);
void	 log_warn(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_warnx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_info(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 log_debug(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));
void	 fatal(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2), __noreturn__));
void	 fatalx(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2), __noreturn__));

/*
 * sdnotify.c: the service manager's notification protocol (systemd's
 * sd_notify(3)) without libsystemd.  sdnotify_init() takes the socket
 * from $NOTIFY_SOCKET (a path, or an abstract name written with a
 * leading '@') and removes the variable from the environment, so that
 * no child ever inherits it; it returns 1 when there is a socket, 0
 * when there is none, -1 with errno set when the value is unusable.
 * sdnotify() sends one datagram of "NAME=value" lines (printf-style)
 * and returns 0, also when there is no socket, or -1 with errno set.
 */
int	 sdnotify_init(void);
int	 sdnotify(const char *, ...)
	    __attribute__((__format__ (printf, 1, 2)));

/*
 * xmalloc.c: allocators for programs; they exit with a message when
 * memory runs out.  Libraries never use them.
 */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((__format__ (printf, 2, 3)));

/*
 * clock.c: the only place that reads the time.  clock_now() is the
 * wall clock in seconds since the epoch, clock_mono() a monotonic
 * clock in milliseconds.  In test builds only (CLUSTERCRON_TEST
 * defined), when the environment variable CLUSTERCRON_TEST_CLOCK_OFFSET
 * holds a number of seconds, clock_now() is shifted by it.
 */
time_t	 clock_now(void);
int64_t	 clock_now_ms(void);
int64_t	 clock_mono(void);
/*
 * clock_sleep(a, b, &ms): how long to sleep for the earlier of two
 * deadlines, each its distance from now in ms (negative: overdue) or
 * NULL for none.  Returns 1 with *ms set (0 when one is overdue), or 0
 * when there is neither: sleep until something else happens.
 */
int	 clock_sleep(const int64_t *, const int64_t *, int64_t *);

/*
 * fileutil.c: file_read() reads a whole regular file of at most maxlen
 * bytes into a NUL-terminated buffer the caller frees.  Returns 0, or
 * -1 with errno set (EFBIG when the file is larger than maxlen).  *bufp
 * stays NULL on failure.  file_read_fd() does the same from an open
 * descriptor (a pipe or standard input included).
 */
int	 file_read(const char *, size_t, char **, size_t *);
int	 file_read_fd(int, size_t, char **, size_t *);

/*
 * tzfile_read() finds and reads the compiled zone file for a zone name
 * (as in CRON_TZ or TZ): NULL or "" means the system's local zone (the
 * TZ environment variable, else /etc/localtime).  Names are looked up
 * under $TZDIR or /usr/share/zoneinfo; a name that is absolute, climbs
 * with "..", or is not a TZif file fails with ENOENT.  When TZ holds a
 * POSIX rule rather than a name, *bufp receives that rule text itself
 * and *isrule is set.  The buffer is the caller's to free.
 */
int	 tzfile_read(const char *, char **, size_t *, int *);

/*
 * conf.c: the reader of clustercron.conf: "key = value" lines, whole-line
 * "#" comments, blank lines, blanks around key and value trimmed, and
 * optionally one pair of double quotes around the value (kept verbatim
 * inside; a "#" after a value is part of the value).  The caller passes
 * a table of the keys it knows; each key has a type and, for numbers,
 * bounds (durations in seconds, sizes in bytes, both inclusive):
 *
 *	CONF_STRING	any text (CONF_NONEMPTY refuses "")
 *	CONF_BOOL	yes or no, read as 1 or 0 through conf_num()
 *	CONF_UINT	a decimal number
 *	CONF_DURATION	a number with an optional unit s, m, h or d
 *			(no unit: seconds); "90s", "5m", "1d"
 *	CONF_BYTES	a number with an optional K, M or G (powers of 1024)
 *
 * ck_default is text parsed as if it came from the file (NULL: none;
 * conf_str() then returns NULL and conf_num() 0).  CONF_REQUIRED keys
 * must be set in the file.  CONF_SECRET keys never have their value in a
 * message, are wiped when freed, and a file that sets one must pass
 * conf_check_private().
 */
enum conf_type {
	CONF_STRING,
	CONF_BOOL,
	CONF_UINT,
	CONF_DURATION,
	CONF_BYTES
};

#define CONF_REQUIRED	0x1
#define CONF_SECRET	0x2
#define CONF_NONEMPTY	0x4

struct conf_key {
	const char	*ck_name;
	enum conf_type	 ck_type;
	int		 ck_flags;
	uint64_t	 ck_min;
	uint64_t	 ck_max;
	const char	*ck_default;
};

struct conf_value {
	char		*cv_str;	/* CONF_STRING, owned by the conf */
	uint64_t	 cv_num;	/* everything else */
	unsigned int	 cv_line;	/* line that set it, 0 for default */
};

/*
 * Every problem found, in file order, each "FILE:LINE: message" (or
 * "FILE: message" for the whole file); the caller zeroes the struct
 * before use and frees the messages with conf_errors_free().  After 100
 * messages one "too many errors" line ends the list.
 */
struct conf_errors {
	char		**ce_msg;
	size_t		  ce_count;
	size_t		  ce_dropped;
};

struct conf;

/*
 * conf_parse() reads the text buf of len bytes, named name in messages,
 * against keys (borrowed: the table must outlive the conf).  Returns 0
 * and a new conf in *confp, or -1 with *confp NULL, errno EINVAL and the
 * messages appended to errs (errs may be NULL), or errno ENOMEM.
 * conf_load() does the same for a file (at most 1 MiB), which must be a
 * regular file owned by root or the effective user, not writable by
 * group or others, and private (see
 * conf_check_private()) when it sets a CONF_SECRET key; the file is
 * checked and read through one descriptor.
 *
 * conf_lookup() gives the index of a key by name, or -1; conf_get(),
 * conf_str(), conf_num() and conf_isset() read a value by the index of
 * its key in the table (borrowed; conf_str()'s pointer lives as long as
 * the conf).  conf_free(NULL) is a no-op.
 */
int	 conf_parse(const char *, const char *, size_t,
	    const struct conf_key *, size_t, struct conf **,
	    struct conf_errors *);
int	 conf_load(const char *, const struct conf_key *, size_t,
	    struct conf **, struct conf_errors *);
void	 conf_free(struct conf *);
void	 conf_errors_free(struct conf_errors *);
int	 conf_lookup(const struct conf *, const char *);
const struct conf_value *conf_get(const struct conf *, size_t);
const char *conf_str(const struct conf *, size_t);
uint64_t conf_num(const struct conf *, size_t);
int	 conf_isset(const struct conf *, size_t);

/*
 * conf_check_private() checks that a file holding secrets is a regular
 * file owned by root or the effective user and open to neither group
 * nor others (no permission bit in 077).  Returns 0, or -1 with the
 * reason in errbuf.  conf_check_private_fd() checks an open descriptor,
 * so that a caller checks and reads the same file.
 */
int	 conf_check_private(const char *, char *, size_t);
int	 conf_check_private_fd(int, const char *, char *, size_t);
/*
 * conf_check_dirs() checks the directories that lead to path, from /
 * down to the one that holds it (symbolic links resolved): each must be
 * owned by root or the effective user and writable by neither group
 * nor others, unless it has the sticky bit (as /tmp).  Then nobody else
 * can put another file in path's place between a check of the file and
 * a later read by name.  Returns 0, or -1 with the reason in errbuf.
 */
int	 conf_check_dirs(const char *, char *, size_t);

#include <sys/types.h>		/* pid_t, for what follows */

/*
 * privdrop.c: privdrop() makes the process the user pw for good:
 * setgid(), initgroups(), setuid(), each checked, then a check that
 * every real, effective and saved id changed and that setuid(0) fails.
 * Not running as root, only the current user is allowed (a no-op);
 * anything else fails with EPERM.  Returns 0, or -1 with errno set, the
 * failed step in *stepp and a message in errbuf (both may be NULL).
 * Meant for a child about to exec; pw is borrowed.
 */
struct passwd;

enum privdrop_step {
	PRIVDROP_OK,
	PRIVDROP_NOTROOT,
	PRIVDROP_SETGID,
	PRIVDROP_INITGROUPS,
	PRIVDROP_SETUID,
	PRIVDROP_VERIFY,
	PRIVDROP_REGAIN
};

int	 privdrop(const struct passwd *, enum privdrop_step *, char *,
	    size_t);
const char *privdrop_stepname(enum privdrop_step);

/*
 * privdrop.c, with PAM (HAVE_PAM): a job's passage through the PAM
 * stack of a service, as cron's jobs pass through /etc/pam.d/cron, in
 * the child, as root, before privdrop().  privdrop_pam_open() starts
 * service for pw (PAM_TTY "cron"), checks the account
 * (pam_acct_mgmt()), establishes the credentials and opens a session
 * (where pam_limits sets the limits and pam_env the environment the
 * process and its children get); it returns the handle, or NULL with
 * why in errbuf: "account of alice: Authentication failure".
 * privdrop_pam_env() returns env with the PAM environment under it (a
 * variable env sets wins), in memory never freed, for an exec; env on
 * failure.  privdrop_pam_close() deletes the credentials, closes the
 * session and ends the handle.  PAM_SILENT throughout: a module's
 * messages are dropped, its prompts refused.  privdrop_pam_preload(),
 * in the parent, keeps the service's modules loaded for its children.
 */
struct privdrop_pam;
struct privdrop_pam *privdrop_pam_open(const char *, const struct passwd *,
	    char *, size_t);
char	**privdrop_pam_env(struct privdrop_pam *, char *const *);
void	 privdrop_pam_close(struct privdrop_pam *);
void	 privdrop_pam_preload(const char *);

/*
 * spawn.c: output buffers.  An outbuf keeps the first ob_max bytes of a
 * job's output (outbuf_init() with 0: OUTBUF_DEFAULT), NUL-terminated
 * in ob_buf (NULL while empty), and counts every byte in ob_total;
 * outbuf_truncated() tells whether some were not kept.  The run record
 * takes a head with outbuf_head(), which points *p at the text (never
 * NULL) and returns its length, at most n; the mail takes the whole
 * kept text.  outbuf_add() copies and returns 0, or -1 with ENOMEM.
 * outbuf_free() frees the text and leaves the buffer empty.
 */
#define OUTBUF_DEFAULT	(256 * 1024)

struct outbuf {
	char		*ob_buf;
	size_t		 ob_len;
	size_t		 ob_cap;
	size_t		 ob_max;
	uint64_t	 ob_total;
};

void	 outbuf_init(struct outbuf *, size_t);
int	 outbuf_add(struct outbuf *, const void *, size_t);
void	 outbuf_free(struct outbuf *);
size_t	 outbuf_head(const struct outbuf *, size_t, const char **);
int	 outbuf_truncated(const struct outbuf *);

/*
 * spawn.c: starting a job as cron does.  The request is borrowed for the
 * duration of spawn_launch() only (the input is copied):
 *
 *	sr_cmd		run as "$SHELL -c sr_cmd", SHELL taken from sr_env
 *			(else /bin/sh); or NULL and
 *	sr_argv		argv, executed as is: argv[0] is the path (no PATH
 *			search)
 *	sr_env		the job's whole environment, NULL-terminated
 *			"NAME=value" strings passed unchanged (NULL: empty)
 *	sr_input	standard input text (cron's "%" input) and its
 *	sr_inputlen	length; standard input is always a pipe, closed at
 *			once when there is no input
 *	sr_pw		the user to become with privdrop(), or NULL
 *	sr_dir		working directory; NULL: HOME from sr_env, else
 *			sr_pw's home, else "/"; a job whose directory
 *			cannot be entered does not start (as in cronie)
 *	sr_title	the child's name (prctl PR_SET_NAME, 15 bytes) until
 *			it execs, or NULL
 *	sr_outmax	output bytes kept (0: OUTBUF_DEFAULT)
 *	sr_startms	bound on the wait for the child to reach execve()
 *			(0: 10 s)
 *	sr_pam		the PAM service whose account and session stack
 *			the job passes first, as a cron job passes
 *			/etc/pam.d/cron (NULL: none; only as root, only
 *			in a build with PAM); a job the stack refuses
 *			does not start: SPAWN_PAM, se_msg saying why
 *
 * The child gets its own session and process group, default signal
 * dispositions and an empty mask, standard output and standard error
 * on one pipe, and no other descriptor.  Nothing here waits for it:
 * spawn_launch() returns 0 once the child is forked, with a new job in
 * *jobp, so that a caller can have many children on their way to
 * execve() at once.  It fails (-1, *jobp NULL, err filled) only for
 * what the parent does itself: pipes, fork(), memory.  Whether the
 * child started is settled later, through the status pipe, which
 * spawn_pollfds() adds while it is open: spawn_started() reads it
 * without blocking and returns 1 once the child has exec'd, 0 while it
 * cannot tell yet, and -1 when the job did not start, with err filled
 * (also on every later call): se_step says where (SPAWN_EXEC,
 * SPAWN_CHDIR, SPAWN_PRIVDROP with se_privstep...), se_errno why and
 * se_msg says both ("exec /bin/nosuch: No such file or directory").  A
 * job that did not start has been sent SIGKILL (unless already reaped)
 * but not waited for: reap it as any other.  Once its process is
 * reaped, spawn_started() no longer returns 0.  When sr_startms passes
 * before the child reaches execve(), spawn_started() kills it and says
 * SPAWN_TIMEOUT; sj_startby is that instant (clock_mono()), for a
 * caller that sleeps until then.
 *
 * The job's descriptors are non-blocking: poll what spawn_pollfds()
 * fills (at most SPAWN_NPOLLFD) and call spawn_io(), which writes what
 * input it can and reads what output there is into sj_output; call
 * spawn_started() too while the start is not settled.  spawn_io()
 * returns 1 when the output reached end of file and the input is done
 * (written, or refused because the job stopped reading), 0 when there
 * is more to come, -1 on error.  The caller reaps the process itself
 * (waitpid()) and hands the status over with spawn_exited().
 * spawn_kill() signals the job's whole process group (a timeout), and
 * the child itself while its start is not settled (it may not have its
 * own group yet): do it before the leader is reaped, since after that
 * the group id may be reused.  spawn_free() closes and frees (it
 * neither kills nor waits); spawn_free(NULL) is a no-op.
 */
#define SPAWN_NPOLLFD	3

enum spawn_step {
	SPAWN_OK,
	SPAWN_NOMEM,
	SPAWN_PIPE,
	SPAWN_FORK,
	SPAWN_SIGNALS,
	SPAWN_SETSID,
	SPAWN_FDS,
	SPAWN_PRIVDROP,
	SPAWN_CHDIR,
	SPAWN_EXEC,
	SPAWN_TIMEOUT,
	SPAWN_LATE,
	SPAWN_PAM
};

struct spawn_req {
	const char		*sr_cmd;
	char *const		*sr_argv;
	char *const		*sr_env;
	const char		*sr_input;
	size_t			 sr_inputlen;
	const struct passwd	*sr_pw;
	const char		*sr_dir;
	const char		*sr_title;
	size_t			 sr_outmax;
	int			 sr_startms;
	/*
	 * Monotonic ms (clock_mono()); 0 for none.  The child execs only
	 * before it: one that gets there later, its parent stopped or
	 * starved on the way, fails at step SPAWN_LATE and runs nothing.
	 */
	int64_t			 sr_until;
	/*
	 * The PAM service whose stack the job passes (account, session)
	 * before it becomes sr_pw, or NULL for none; used only by root,
	 * in a build with PAM.  See spawn.c.
	 */
	const char		*sr_pam;
};

struct spawn_err {
	int		 se_step;	/* enum spawn_step */
	int		 se_privstep;	/* enum privdrop_step */
	int		 se_errno;
	char		 se_msg[256];
};

/* Read the members; only spawn.c writes them. */
struct spawn_job {
	pid_t		 sj_pid;	/* also its session and group id */
	int		 sj_in;		/* -1 once the input is done */
	int		 sj_out;	/* -1 at end of output */
	char		*sj_input;
	size_t		 sj_inlen;
	size_t		 sj_inoff;
	char		*sj_path;	/* what was exec'd */
	char		*sj_dir;	/* working directory */
	char		*sj_user;	/* sr_pw's name, or NULL */
	int		 sj_plain;	/* exec'd without the shell if it can */
	struct outbuf	 sj_output;
	int		 sj_reaped;
	int		 sj_wstatus;
	int		 sj_st;		/* status pipe, -1 once settled */
	int		 sj_started;	/* 1 exec'd, -1 did not, 0 unknown */
	int64_t		 sj_startby;	/* clock_mono() bound on the start */
	int		 sj_step;	/* why it did not start: the */
	int		 sj_privstep;	/* spawn_err of spawn_started() */
	int		 sj_errno;
	char		 sj_why[160];	/* PAM's word, at SPAWN_PAM */
};

/* How a job ended: exited with ss_code, or killed by ss_signal. */
struct spawn_status {
	int		 ss_exited;
	int		 ss_code;
	int		 ss_signal;
	int		 ss_core;
};

struct pollfd;

int	 spawn_launch(const struct spawn_req *, struct spawn_job **,
	    struct spawn_err *);
int	 spawn_started(struct spawn_job *, struct spawn_err *);
int	 spawn_pollfds(const struct spawn_job *, struct pollfd *);
int	 spawn_io(struct spawn_job *);
void	 spawn_exited(struct spawn_job *, int);
int	 spawn_kill(const struct spawn_job *, int);
void	 spawn_free(struct spawn_job *);
const char *spawn_stepname(int);
/*
 * spawn_alive() says whether pid is a live process (one that exists,
 * EPERM included) that may be the one started at start_ms (wall clock,
 * ms since the epoch; 0: not checked): as far as /proc tells, it did
 * not start more than a minute after that, as a process that got the
 * pid again would.  Where /proc cannot tell, an existing pid counts.
 */
int	 spawn_alive(pid_t, int64_t);
/*
 * spawn_plain() returns the words of cmd when /bin/sh would do nothing
 * with it but split it at blanks and exec its first word (or second,
 * after "exec"), a path: a NULL-terminated array in one allocation, to
 * free().  NULL when the command needs the shell, or memory ran out.
 * spawn_launch() execs such a command of a job whose SHELL is /bin/sh
 * without the shell.
 */
char	**spawn_plain(const char *);
/*
 * spawn_nofile_raise() raises this process's soft limit on open files
 * to its hard limit, and makes every child spawned from then on put the
 * original soft limit back before its exec.  0, or -1 with errno.
 */
int	 spawn_nofile_raise(void);
/*
 * spawn_nofile_orig() gives the soft and hard limits spawn_nofile_raise()
 * raised (INT64_MAX for unlimited) and returns 1, or 0 when it raised none.
 */
int	 spawn_nofile_orig(int64_t *, int64_t *);

/*
 * spawn_status_decode() turns a waitpid() status into a spawn_status;
 * spawn_status_str() writes "exit status 3" or "killed by signal 9
 * (Killed)" into buf and returns what snprintf() does.
 */
void	 spawn_status_decode(int, struct spawn_status *);
int	 spawn_status_str(const struct spawn_status *, char *, size_t);

/*
 * mail.c: mailing a job's output as cron(8) does.  mail_recipient()
 * applies cron's MAILTO rule to a job's environment: MAILTO unset means
 * the owner (user), MAILTO empty means no mail (NULL).  Mail is sent
 * only when the job wrote something and there is a recipient; the
 * caller checks both.  mail_address_ok() is cronie's check of MAILTO
 * and MAILFROM: letters and digits, then also "@!:%-.,_+" (so no blank,
 * no newline, no leading "-").
 *
 * The request, all borrowed:
 *	mr_sendmail	the mail command, split on blanks, no shell; the
 *			first word an absolute path (NULL: MAIL_SENDMAIL);
 *			the recipient is added as its last argument, as
 *			cron does, unless it has a -t argument (the mailer
 *			then reads it from the To header)
 *	mr_from		MAILFROM, or NULL (or unsafe): "root (Cron Daemon)"
 *	mr_to		the recipient, from mail_recipient()
 *	mr_user		the owner, and mr_host the host (NULL: this host),
 *	mr_cmd		and the command, for "Subject: Cron <user@host> cmd";
 *			the host is cut at its first dot unless mr_fqdn
 *	mr_failed	set: the subject ends in " (failed)"
 *	mr_env		the job's environment: one X-Cron-Env line each;
 *			CONTENT_TYPE and CONTENT_TRANSFER_ENCODING in it
 *			set those headers
 *	mr_pw		the user the mailer runs as (NULL: as we are)
 *	mr_subject	set: the mail is at(1)'s (atd's) instead: the
 *			headers Subject mr_subject and To alone (no From:
 *			the mailer makes it; none of the above), then the
 *			output, and mr_sendmail NULL is MAIL_SENDMAIL_AT
 *
 * Control characters in header values become blanks.  The body is the
 * kept output, followed by a note when it was truncated.  mail_format()
 * builds the message into a buffer the caller frees.  mail_start()
 * starts the mailer through spawn with the message as its input and a
 * fixed environment (PATH, USER, LOGNAME, HOME), for callers that pump
 * jobs in their own loop: like spawn_launch() it returns once forked,
 * and the caller learns from spawn_started() whether the mailer
 * started.  Both return 0, or -1 with a message in errbuf.
 */
#define MAIL_SENDMAIL	"/usr/sbin/sendmail -FCronDaemon -i -B8BITMIME -oem"
#define MAIL_SENDMAIL_AT "/usr/sbin/sendmail -i"

struct mail_req {
	const char		*mr_sendmail;
	const char		*mr_from;
	const char		*mr_to;
	const char		*mr_user;
	const char		*mr_host;
	const char		*mr_cmd;
	char *const		*mr_env;
	const struct passwd	*mr_pw;
	int			 mr_fqdn;
	int			 mr_failed;
	const char		*mr_subject;
	int			 mr_always;	/* even without output */
};

const char *mail_recipient(char *const *, const char *);
int	 mail_address_ok(const char *);
int	 mail_format(const struct mail_req *, const struct outbuf *, char **,
	    size_t *, char *, size_t);
int	 mail_start(const struct mail_req *, const struct outbuf *,
	    struct spawn_job **, char *, size_t);

/*
 * jobenv.c: environments, NULL-terminated arrays of "NAME=value".
 * jobenv_get() returns the value of name, or NULL (env may be NULL).
 * jobenv_set() sets name to value (both copied) in the array *envp,
 * which it owns and grows (*envp may start NULL); a name already there
 * keeps its place.  Returns 0, or -1 with errno (EINVAL for a name that
 * is empty or holds "=").  jobenv_count() counts the strings;
 * jobenv_free() frees the array and its strings (NULL is a no-op).
 *
 * jobenv_build() builds the environment cron(8) gives a job of the user
 * pw: the table's variables in order (table as the parser keeps them,
 * borrowed), then SHELL=/bin/sh, HOME from pw and PATH=/usr/bin:/bin
 * where the table set none, then LOGNAME and USER from pw, which the
 * table cannot override.  The caller adds its own (jobenv_set()) and
 * frees the result with jobenv_free().  Returns 0, or -1 with ENOMEM and
 * *envp NULL.
 */
const char *jobenv_get(char *const *, const char *);
int	 jobenv_set(char ***, const char *, const char *);
size_t	 jobenv_count(char *const *);
void	 jobenv_free(char **);
int	 jobenv_build(const struct passwd *, const char *const *, char ***);

/*
 * runrec.c: the daemon and its runners.  The daemon starts every job
 * through a runner (runner/runner.c), which stays between the daemon
 * and the job as cron's intermediate process does.  The daemon hands
 * the runner a request on a socket; the runner answers with messages
 * on the same socket; the runs directory holds a run file for each
 * run, NAME.run while the job runs and NAME.end once it ended, NAME
 * being runfile_name()'s.  Each is a record: a frame of four bytes (the
 * length of what follows) and fields; runrec_framed() says whether buf
 * (len bytes) holds a whole frame (1, its length in *flen), not yet
 * (0), or a length beyond RUNREC_MAX (-1, EFBIG).
 *
 * The request (runreq_encode() into a new frame the caller frees,
 * runreq_decode() into *rq, whose strings runreq_free() frees; 0, or
 * -1 with errno ENOMEM, EFBIG or EINVAL):
 *
 *	rq_id, rq_fire,		the run: its job, scheduled instant (UTC
 *	rq_attempt, rq_node	s), attempt and node
 *	rq_start		when the daemon started it, wall ms
 *	rq_dir			the runs directory
 *	rq_user, rq_uid,	the owner, as spawn_req's sr_pw
 *	rq_gid, rq_home
 *	rq_cmd ... rq_until	as spawn_req's sr_cmd ... sr_until
 *	rq_pam			as spawn_req's sr_pam (NULL: none)
 *	rq_timeout		s the job may run (0: no bound), then
 *				SIGTERM to its group, SIGKILL 5 s later
 *	rq_nofile_cur, _max	the limit on open files the job gets
 *				(INT64_MAX: unlimited; -1: the runner's
 *				own)
 *	rq_log, rq_logfile,	where the runner logs (RQ_LOG_*) and
 *	rq_debug		whether at debug level
 *	rq_what, rq_label	the command, escaped for the log, and
 *				the job's label ("NAME: COMMAND")
 *	rq_mailto ...		the mail of the output (NULL: none), as
 *				mail_req's members; rq_failsubj: the
 *				subject says "(failed)" when the job failed
 *	rq_subject		a subject of its own, the mail then as atd
 *				writes it (mail_req's mr_subject; NULL:
 *				cron's, with the command)
 *	rq_mailall		mail even when the job wrote nothing (at's
 *				-m); else only output is mailed
 *
 * A message (runmsg_encode() into a new frame, runmsg_decode()):
 * RM_STARTED (rm_num the job's pid) when the job exec'd, RM_FAILED
 * (rm_why) when the runner could not get as far as starting it, and
 * RM_TIMEOUT (rm_num s) when the job outlived its timeout and is being
 * killed, from the runner; RM_KILL (rm_num a signal) from the daemon,
 * for the runner to send to the job's process group.
 *
 * A run file (runfile_encode(), runfile_decode() into *rf, whose
 * strings and output runfile_free() frees): rf_kind RUNF_RUNNING (the
 * job runs: rf_pid, rf_start), RUNF_ENDED (it ended: rf_end, rf_wstatus
 * as waitpid() gave it, rf_out the head of its output and ob_total all
 * it wrote) or RUNF_FAILED (it did not start: rf_why).
 */
#define RUNREC_MAX	(80 * 1024 * 1024)
#define RQ_LOG_STDERR	0
#define RQ_LOG_SYSLOG	1
#define RQ_LOG_FILE	2

struct runreq {
	char		*rq_id;
	int64_t		 rq_fire;
	int		 rq_attempt;
	char		*rq_node;
	int64_t		 rq_start;
	char		*rq_dir;
	char		*rq_user;
	uid_t		 rq_uid;
	gid_t		 rq_gid;
	char		*rq_home;
	char		*rq_cmd;
	char		**rq_env;
	char		*rq_input;
	size_t		 rq_inputlen;
	char		*rq_title;
	char		*rq_pam;
	size_t		 rq_outmax;
	int		 rq_startms;
	int64_t		 rq_until;
	uint32_t	 rq_timeout;
	int64_t		 rq_nofile_cur;
	int64_t		 rq_nofile_max;
	int		 rq_log;
	char		*rq_logfile;
	int		 rq_debug;
	char		*rq_what;
	char		*rq_label;
	char		*rq_mailto;
	char		*rq_mailfrom;
	char		*rq_sendmail;
	int		 rq_fqdn;
	int		 rq_failsubj;
	char		*rq_subject;
	int		 rq_mailall;
};

enum runmsg_kind { RM_STARTED, RM_FAILED, RM_TIMEOUT, RM_KILL };
struct runmsg {
	int		 rm_kind;
	int64_t		 rm_num;
	char		 rm_why[256];
};

enum runfile_kind { RUNF_RUNNING, RUNF_ENDED, RUNF_FAILED };
struct runfile {
	int		 rf_kind;
	char		*rf_id;
	int64_t		 rf_fire;
	int		 rf_attempt;
	char		*rf_node;
	char		*rf_user;	/* the owner, for the log */
	char		*rf_what;	/* the command, escaped */
	char		*rf_label;	/* the job's label */
	pid_t		 rf_pid;	/* the job's; 0 before its exec */
	int64_t		 rf_start;	/* wall ms */
	int64_t		 rf_end;
	int		 rf_wstatus;
	char		*rf_why;
	struct outbuf	 rf_out;
};

int	 runrec_framed(const char *, size_t, size_t *);
int	 runreq_encode(const struct runreq *, char **, size_t *);
int	 runreq_decode(const char *, size_t, struct runreq *);
void	 runreq_free(struct runreq *);
int	 runmsg_encode(const struct runmsg *, char **, size_t *);
int	 runmsg_decode(const char *, size_t, struct runmsg *);
int	 runfile_encode(const struct runfile *, char **, size_t *);
int	 runfile_decode(const char *, size_t, struct runfile *);
void	 runfile_free(struct runfile *);
/*
 * runfile_name() writes "ID-FIRE-ATTEMPT" and suffix (".run", ".end")
 * into buf: 0, or -1 with ENAMETOOLONG.
 */
int	 runfile_name(char *, size_t, const char *, int64_t, int,
	    const char *);

#endif /* COMMON_H */
