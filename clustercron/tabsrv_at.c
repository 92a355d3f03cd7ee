/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabsrv_at.c: the daemon answers at(1), atq, atrm and at -c (ctab's at
 * personality, ctab/at.c), on ctab's socket (tabsrv.c hands it the
 * requests; tabproto.h has the words and fields).  As for tables,
 * every rule is checked here, never trusted to the client: the kernel
 * names the caller, who owns the jobs they submit, lists, prints and
 * removes their own (root everyone's), and may use at at all only as
 * at.allow and at.deny say.  A job is stored, and so on every node,
 * before the reply says so.
 */

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atjob.h"
#include "common.h"
#include "parser.h"
#include "store.h"
#include "tabproto.h"
#include "tabsrv.h"

/* Instants a job may be due at: from 1970 to the end of year 9999. */
#define AT_DUE_MAX	253402300799LL

static void	 at_reply(struct tabbuf *, const char *, int64_t,
		    const struct tabbuf *,
		    const char *, ...)
		    __attribute__((__format__ (printf, 5, 6)));
static int	 in_file(const char *, const char *);
static int	 token_ok(const char *, size_t);
static int	 key_ok(const char *, size_t);
static char	*field_dup(const char *, size_t);
static int	 at_decode(const struct tabmsg *, struct store_atjob *,
		    struct tabbuf *, char *, size_t);
static void	 at_submit(struct tabbuf *, struct store *, const char *,
		    const struct tabmsg *);
static void	 at_list(struct tabbuf *, struct store *, uid_t, const char *,
		    const struct tabmsg *);
static void	 at_remove(struct tabbuf *, struct store *, uid_t, const char *,
		    const struct tabmsg *);
static void	 at_print(struct tabbuf *, struct store *, uid_t, const char *,
		    const struct tabmsg *);

/* The reply, into out: the first one made, if more were. */
static void
at_reply(struct tabbuf *out, const char *word, int64_t version,
    const struct tabbuf *b, const char *fmt, ...)
{
	struct tabmsg	 m;
	char		 msg[512];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tab_set(&m, word, NULL, version, msg);
	if (b != NULL) {
		m.tm_body = b->b_p;
		m.tm_bodylen = b->b_len;
	}
	if (out->b_len == 0 && tab_frame(&m, out) == -1)
		out->b_len = 0;
}

/*
 * Is name a line of file, exactly, as at reads at.allow and at.deny
 * (no blanks trimmed)?  1 or 0; -1 when the file does not exist; -2
 * when it cannot be read, which closes the door (fail closed).
 */
static int
in_file(const char *file, const char *name)
{
	char	*buf, *line, *end;
	size_t	 len;
	int	 found = 0;

	if (file_read(file, 1024 * 1024, &buf, &len) == -1)
		return (errno == ENOENT ? -1 : -2);
	for (line = buf; line < buf + len && !found; line = end + 1) {
		if ((end = memchr(line, '\n', len - (size_t)(line - buf))) ==
		    NULL)
			end = buf + len;
		found = (size_t)(end - line) == strlen(name) &&
		    memcmp(line, name, (size_t)(end - line)) == 0;
	}
	free(buf);
	return (found);
}

int
at_allowed(uid_t uid, const char *name, const char *allow, const char *deny)
{
	int	 l;

	if (uid == 0)
		return (1);
	if ((l = in_file(allow, name)) != -1)
		return (l == 1);
	if ((l = in_file(deny, name)) != -1)
		return (l == 0);
	return (0);
}

/* A token is what ctab makes: 16 to 64 letters, digits and '-'. */
static int
token_ok(const char *s, size_t n)
{
	size_t	 i;

	if (n < 16 || n > STORE_AT_TOKENMAX)
		return (0);
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) ||
		    (!isalnum((unsigned char)s[i]) && s[i] != '-'))
			return (0);
	return (1);
}

/* A key: 1 to 128 printable ASCII characters, no blank. */
static int
key_ok(const char *s, size_t n)
{
	size_t	 i;

	if (n < 1 || n > STORE_AT_KEYMAX)
		return (0);
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !isgraph((unsigned char)s[i]))
			return (0);
	return (1);
}

static char *
field_dup(const char *s, size_t n)
{
	char	*p;

	p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

/*
 * The job of an atsubmit request, into j (strings of its own, which the
 * caller frees; env gathered in envb).  0, or -1 with a message in err.
 */
static int
at_decode(const struct tabmsg *req, struct store_atjob *j,
    struct tabbuf *envb, char *err, size_t errlen)
{
	struct at_backoff	 bo;
	const char		*p, *end, *val;
	char			 name[32], boerr[128], *var;
	size_t			 len;
	int64_t			 v;
	int			 have = 0, n = 0;

	p = req->tm_body;
	end = p == NULL ? NULL : p + req->tm_bodylen;
	j->a_mail = 0;
	j->a_umask = 022;
	while (p != NULL && tab_field_next(&p, end, name, sizeof(name),
	    &val, &len) == 1) {
		n++;
		if (strcmp(name, "due") == 0) {
			if (tab_field_int(val, len, 0, AT_DUE_MAX, &v) == -1)
				goto bad;
			j->a_due = (time_t)v;
			have |= 1;
		} else if (strcmp(name, "queue") == 0) {
			if (len != 1 || !at_queue_ok((unsigned char)*val))
				goto bad;
			j->a_queue = *val;
			have |= 2;
		} else if (strcmp(name, "mail") == 0) {
			if (tab_field_int(val, len, -1, 1, &v) == -1)
				goto bad;
			j->a_mail = (int)v;
		} else if (strcmp(name, "retries") == 0) {
			if (tab_field_int(val, len, 0, AT_MAXRETRIES, &v) ==
			    -1)
				goto bad;
			j->a_retries = (int)v;
		} else if (strcmp(name, "backoff") == 0) {
			free(j->a_backoff);
			j->a_backoff = field_dup(val, len);
			if (len > 0 && (memchr(val, '\0', len) != NULL ||
			    at_backoff_parse(j->a_backoff, &bo, boerr,
			    sizeof(boerr)) == -1)) {
				snprintf(err, errlen, "back-off %s: %s",
				    j->a_backoff, boerr);
				return (-1);
			}
		} else if (strcmp(name, "lost") == 0) {
			if (tab_field_int(val, len, 0, 1, &v) == -1)
				goto bad;
			j->a_lost = (int)v;
		} else if (strcmp(name, "key") == 0) {
			if (!key_ok(val, len)) {
				snprintf(err, errlen, "a key is 1 to %d "
				    "printable characters, without blanks",
				    STORE_AT_KEYMAX);
				return (-1);
			}
			free(j->a_key);
			j->a_key = field_dup(val, len);
		} else if (strcmp(name, "token") == 0) {
			if (!token_ok(val, len))
				goto bad;
			free(j->a_token);
			j->a_token = field_dup(val, len);
			have |= 4;
		} else if (strcmp(name, "umask") == 0) {
			if (tab_field_int(val, len, 0, 0777, &v) == -1)
				goto bad;
			j->a_umask = (int)v;
		} else if (strcmp(name, "cwd") == 0) {
			if (len == 0 || len > STORE_AT_CWDMAX || *val != '/' ||
			    memchr(val, '\0', len) != NULL)
				goto bad;
			free(j->a_cwd);
			j->a_cwd = field_dup(val, len);
			have |= 8;
		} else if (strcmp(name, "env") == 0) {
			if (memchr(val, '\0', len) != NULL)
				goto bad;
			var = field_dup(val, len);
			if (!at_env_keep(var)) {
				snprintf(err, errlen, "environment variable "
				    "%.64s: a name the shell cannot set, or "
				    "one at leaves out", var);
				free(var);
				return (-1);
			}
			free(var);
			if (envb->b_len + len + 1 > envb->b_cap) {
				envb->b_cap = (envb->b_len + len + 1) * 2;
				envb->b_p = xreallocarray(envb->b_p,
				    envb->b_cap, 1);
			}
			memcpy(envb->b_p + envb->b_len, val, len);
			envb->b_len += len;
			envb->b_p[envb->b_len++] = '\0';
		} else if (strcmp(name, "cmd") == 0) {
			free(j->a_cmd);
			j->a_cmd = field_dup(val, len);
			j->a_cmdlen = len;
			have |= 16;
		} else
			goto bad;
	}
	if (p != NULL && p != end)
		goto bad;
	if (have != 31) {
		snprintf(err, errlen, "a job needs a time, a queue, a token, a "
		    "directory and commands");
		return (-1);
	}
	j->a_env = envb->b_p;
	j->a_envlen = envb->b_len;
	if (j->a_envlen > 0)
		j->a_envlen--;		/* no NUL after the last */
	return (0);
bad:
	snprintf(err, errlen, "malformed field %d of the job", n + 1);
	return (-1);
}

static void
at_submit(struct tabbuf *rep, struct store *st, const char *caller,
    const struct tabmsg *req)
{
	struct store_atjob	 j, *got = NULL;
	struct store_error	 se;
	struct tabbuf		 envb, out;
	struct cron_tz		*utc = NULL;
	char			 err[256], when[CRON_ISOLEN];
	int64_t			 id;
	int			 isnew;

	memset(&j, 0, sizeof(j));
	memset(&envb, 0, sizeof(envb));
	memset(&out, 0, sizeof(out));
	if (at_decode(req, &j, &envb, err, sizeof(err)) == -1) {
		at_reply(rep, "invalid", 0, NULL, "%s", err);
		goto done;
	}
	j.a_owner = (char *)caller;
	if (store_at_submit(st, &j, AT_MAXPENDING, &id, &isnew, &se) == -1) {
		at_reply(rep, se.se_class == STORE_CONFLICT ? "conflict" :
		    se.se_class == STORE_FATAL && se.se_code == EINVAL ?
		    "invalid" : "error", 0, NULL, "%s", se.se_msg);
		goto done;
	}
	/* What is stored, which differs when a key named an older job. */
	if (store_at_get(st, id, &got, &se) == -1 || got == NULL) {
		at_reply(rep, "error", 0, NULL, "job %lld stored, then not read "
		    "back: %s", (long long)id, got == NULL ? "gone" :
		    se.se_msg);
		goto done;
	}
	tab_field_num(&out, "due", got->a_due);
	tab_field_str(&out, "state", store_at_state_name(got->a_state));
	at_reply(rep, "ok", id, &out, "%s", isnew ? "new" : "existing");
	if (tz_utc(&utc) == 0)
		cron_fmt_iso8601(utc, got->a_due, when, sizeof(when));
	else
		snprintf(when, sizeof(when), "%lld", (long long)got->a_due);
	log_info("(%s) AT (job %lld, due %s%s)", caller, (long long)id, when,
	    isnew ? "" : ", submitted before");
	tz_free(utc);
done:
	store_atjobs_free(got, 1);
	free(j.a_key);
	free(j.a_token);
	free(j.a_backoff);
	free(j.a_cwd);
	free(j.a_cmd);
	free(envb.b_p);
	free(out.b_p);
}

static void
at_list(struct tabbuf *rep, struct store *st, uid_t uid, const char *caller,
    const struct tabmsg *req)
{
	struct store_atjob	*l;
	struct store_error	 se;
	struct tabbuf		 out;
	const char		*p, *end, *val;
	char			 name[32];
	size_t			 n, i, len;
	int64_t			 v;
	int			 all = 0;

	p = req->tm_body;
	end = p == NULL ? NULL : p + req->tm_bodylen;
	while (p != NULL && tab_field_next(&p, end, name, sizeof(name), &val,
	    &len) == 1)
		if (strcmp(name, "all") == 0 &&
		    tab_field_int(val, len, 0, 1, &v) == 0)
			all = (int)v;
	if (store_at_list(st, uid == 0 ? NULL : caller, all, &l, &n,
	    &se) == -1) {
		at_reply(rep, "error", 0, NULL, "%s", se.se_msg);
		return;
	}
	memset(&out, 0, sizeof(out));
	for (i = 0; i < n; i++) {
		tab_field_num(&out, "id", l[i].a_id);
		tab_field_num(&out, "due", l[i].a_due);
		tab_field_num(&out, "next", l[i].a_next);
		tab_field_add(&out, "queue", &l[i].a_queue, 1);
		tab_field_str(&out, "owner", l[i].a_owner);
		tab_field_str(&out, "state",
		    store_at_state_name(l[i].a_state));
		tab_field_num(&out, "attempt", l[i].a_attempt);
		tab_field_num(&out, "retries", l[i].a_retries);
		tab_field_str(&out, "node", l[i].a_claimed_by);
		if (out.b_len > TAB_MAXBYTES)
			break;
	}
	if (i < n)
		at_reply(rep, "error", 0, NULL, "more jobs than one answer "
		    "holds (%zu)", n);
	else
		at_reply(rep, "ok", (int64_t)n, &out, "%zu jobs", n);
	store_atjobs_free(l, n);
	free(out.b_p);
}

static void
at_remove(struct tabbuf *rep, struct store *st, uid_t uid, const char *caller,
    const struct tabmsg *req)
{
	struct store_atjob	*j = NULL;
	struct store_error	 se;
	enum store_at_cancel	 res;
	long long		 id = (long long)req->tm_version;

	if (store_at_cancel(st, req->tm_version, uid == 0 ? NULL : caller,
	    &res, &se) == -1) {
		at_reply(rep, "error", 0, NULL, "%s", se.se_msg);
		return;
	}
	switch (res) {
	case AT_CANCEL_DONE:
		at_reply(rep, "ok", id, NULL, "removed");
		log_info("(%s) AT REMOVE (job %lld)", caller, id);
		break;
	case AT_CANCEL_NONE:
		at_reply(rep, "none", id, NULL, "Cannot find jobid %lld", id);
		break;
	case AT_CANCEL_NOTOWNER:
		at_reply(rep, "notowner", id, NULL, "%lld: Not owner", id);
		break;
	case AT_CANCEL_RUNNING:
		(void)store_at_get(st, req->tm_version, &j, &se);
		at_reply(rep, "running", id, NULL, "%lld: running on %s; a "
		    "running job cannot be removed", id, j != NULL &&
		    *j->a_claimed_by != '\0' ? j->a_claimed_by : "a node");
		store_atjobs_free(j, 1);
		break;
	case AT_CANCEL_FINISHED:
		(void)store_at_get(st, req->tm_version, &j, &se);
		at_reply(rep, "finished", id, NULL, "%lld: %s already", id,
		    j != NULL ? store_at_state_name(j->a_state) : "finished");
		store_atjobs_free(j, 1);
		break;
	}
}

static void
at_print(struct tabbuf *rep, struct store *st, uid_t uid, const char *caller,
    const struct tabmsg *req)
{
	struct store_atjob	*j;
	struct store_error	 se;
	struct passwd		*pw;
	struct tabbuf		 out;
	long long		 id = (long long)req->tm_version;

	if (store_at_get(st, req->tm_version, &j, &se) == -1) {
		at_reply(rep, "error", 0, NULL, "%s", se.se_msg);
		return;
	}
	if (j == NULL) {
		at_reply(rep, "none", id, NULL, "Cannot find jobid %lld", id);
		return;
	}
	if (uid != 0 && strcmp(j->a_owner, caller) != 0) {
		at_reply(rep, "notowner", id, NULL, "%lld: Not owner", id);
		store_atjobs_free(j, 1);
		return;
	}
	pw = getpwnam(j->a_owner);
	memset(&out, 0, sizeof(out));
	if ((out.b_p = at_script(pw != NULL ? (long)pw->pw_uid : -1,
	    pw != NULL ? (long)pw->pw_gid : -1, j->a_owner, j->a_mail,
	    j->a_umask, j->a_cwd, j->a_env, j->a_envlen, j->a_cmd, j->a_cmdlen,
	    &out.b_len)) == NULL)
		at_reply(rep, "error", 0, NULL, "out of memory");
	else if (out.b_len > TAB_MAXBYTES)
		at_reply(rep, "error", 0, NULL, "job %lld is larger than one "
		    "answer holds", id);
	else
		at_reply(rep, "ok", id, &out, "job %lld", id);
	free(out.b_p);
	store_atjobs_free(j, 1);
}

void
tabsrv_at(struct tabbuf *rep, struct store *st, uid_t uid, const char *caller,
    const struct tabmsg *req, const char *allow, const char *deny,
    int check)
{
	if (check && !at_allowed(uid, caller, allow, deny)) {
		at_reply(rep, "refused", 0, NULL, "%s may not use at (at.allow, "
		    "at.deny)", caller);
		log_info("(%s) AUTH (at command not allowed)", caller);
		return;
	}
	if (st == NULL && strcmp(req->tm_word, "atcheck") != 0) {
		at_reply(rep, "error", 0, NULL, "the store cannot be reached; "
		    "try again later");
		return;
	}
	if (strcmp(req->tm_word, "atcheck") == 0)
		at_reply(rep, "ok", 0, NULL, "allowed");
	else if (strcmp(req->tm_word, "atsubmit") == 0)
		at_submit(rep, st, caller, req);
	else if (strcmp(req->tm_word, "atlist") == 0)
		at_list(rep, st, uid, caller, req);
	else if (strcmp(req->tm_word, "atremove") == 0)
		at_remove(rep, st, uid, caller, req);
	else if (strcmp(req->tm_word, "atprint") == 0)
		at_print(rep, st, uid, caller, req);
	else
		at_reply(rep, "invalid", 0, NULL, "unknown request");
}
