/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * mail.c: mailing a job's output the way cron(8) does.  When a job
 * wrote anything and MAILTO is not empty, the output goes to the
 * sendmail command, with the recipient as its last argument, and with
 * the headers of Debian's cron: From "root (Cron Daemon)" or MAILFROM,
 * To MAILTO, Subject "Cron <user@host> command", with " (failed)" when
 * asked, MIME-Version, Content-Type and Content-Transfer-Encoding, then
 * cronie's Auto-Submitted (RFC 3834: no vacation replies to cron), one
 * X-Cron-Env line per variable of the job's environment, then the
 * output.  A one-shot job's mail is at(1)'s instead, as Debian's atd
 * writes it: Subject and To, then the output.  The mailer is
 * started through spawn, as the job's owner, with a small fixed
 * environment (never the daemon's).  mail_start() does not wait for
 * the mailer's exec: the daemon learns whether it started as it learns
 * it of jobs, so that a slow mailer never holds up its loop.
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

#include "common.h"

#define MAIL_MAXARGS	32

struct buf {
	char	*b_data;
	size_t	 b_len;
	size_t	 b_cap;
	int	 b_err;
};

static void	buf_add(struct buf *, const char *, size_t);
static void	buf_puts(struct buf *, const char *);
static void	buf_header(struct buf *, const char *, const char *,
		    const char *, const char *);

static void
buf_add(struct buf *b, const char *s, size_t len)
{
	size_t	 ncap;
	char	*nd;

	if (b->b_err)
		return;
	if (b->b_len + len + 1 > b->b_cap) {
		ncap = b->b_cap == 0 ? 4096 : b->b_cap;
		while (ncap < b->b_len + len + 1)
			ncap *= 2;
		if ((nd = realloc(b->b_data, ncap)) == NULL) {
			b->b_err = 1;
			return;
		}
		b->b_data = nd;
		b->b_cap = ncap;
	}
	memcpy(b->b_data + b->b_len, s, len);
	b->b_len += len;
	b->b_data[b->b_len] = '\0';
}

static void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/*
 * One header line "Name: pre value post\n" (pre and post may be NULL).
 * A value never breaks the header: control characters (a newline in a
 * command, an environment value) become spaces, so that no one can add
 * headers of their own.
 */
static void
buf_header(struct buf *b, const char *name, const char *pre,
    const char *value, const char *post)
{
	const char	*p;
	char		 c;

	buf_puts(b, name);
	buf_puts(b, ": ");
	if (pre != NULL)
		buf_puts(b, pre);
	for (p = value; *p != '\0'; p++) {
		c = iscntrl((unsigned char)*p) ? ' ' : *p;
		buf_add(b, &c, 1);
	}
	if (post != NULL)
		buf_puts(b, post);
	buf_puts(b, "\n");
}

const char *
mail_recipient(char *const *env, const char *user)
{
	const char	*to;

	if ((to = jobenv_get(env, "MAILTO")) == NULL)
		return (user);
	if (*to == '\0')
		return (NULL);
	return (to);
}

int
mail_address_ok(const char *s)
{
	const char	*p;

	if (s == NULL || *s == '\0')
		return (0);
	for (p = s; *p != '\0'; p++) {
		if (!isascii((unsigned char)*p))
			return (0);
		if (isalnum((unsigned char)*p))
			continue;
		if (p == s || strchr("@!:%-.,_+", *p) == NULL)
			return (0);
	}
	return (1);
}

int
mail_format(const struct mail_req *req, const struct outbuf *out,
    char **msgp, size_t *lenp, char *errbuf, size_t errlen)
{
	struct buf	 b = { NULL, 0, 0, 0 };
	char		 host[256], subj[512], note[160];
	const char	*from, *ct, *cte;
	char *const	*e;

	*msgp = NULL;
	*lenp = 0;
	if (!mail_address_ok(req->mr_to)) {
		snprintf(errbuf, errlen, "unsafe or empty MAILTO");
		errno = EINVAL;
		return (-1);
	}
	from = req->mr_from;
	if (from == NULL || !mail_address_ok(from))
		from = "root";
	if (req->mr_host != NULL)
		strlcpy(host, req->mr_host, sizeof(host));
	else if (gethostname(host, sizeof(host)) == -1)
		strlcpy(host, "localhost", sizeof(host));
	host[sizeof(host) - 1] = '\0';
	if (!req->mr_fqdn)
		host[strcspn(host, ".")] = '\0';

	if (req->mr_subject != NULL) {
		/* atd's: the subject and the recipient, nothing else. */
		buf_header(&b, "Subject", NULL, req->mr_subject, NULL);
		buf_header(&b, "To", NULL, req->mr_to, NULL);
		goto body;
	}
	buf_header(&b, "From", NULL, from, req->mr_from == from ? NULL :
	    " (Cron Daemon)");
	buf_header(&b, "To", NULL, req->mr_to, NULL);
	snprintf(subj, sizeof(subj), "Cron <%s@%s> ", req->mr_user, host);
	buf_header(&b, "Subject", subj, req->mr_cmd, req->mr_failed ?
	    " (failed)" : NULL);
	buf_header(&b, "MIME-Version", NULL, "1.0", NULL);
	if ((ct = jobenv_get(req->mr_env, "CONTENT_TYPE")) == NULL)
		ct = "text/plain; charset=UTF-8";
	buf_header(&b, "Content-Type", NULL, ct, NULL);
	if ((cte = jobenv_get(req->mr_env, "CONTENT_TRANSFER_ENCODING")) ==
	    NULL)
		cte = "8bit";
	buf_header(&b, "Content-Transfer-Encoding", NULL, cte, NULL);
	buf_header(&b, "Auto-Submitted", NULL, "auto-generated", NULL);
	for (e = req->mr_env; e != NULL && *e != NULL; e++)
		buf_header(&b, "X-Cron-Env", "<", *e, ">");
body:
	buf_puts(&b, "\n");
	if (out->ob_len > 0)
		buf_add(&b, out->ob_buf, out->ob_len);
	if (outbuf_truncated(out)) {
		snprintf(note, sizeof(note), "%s[clustercron: output "
		    "truncated, %zu of %ju bytes shown]\n",
		    out->ob_len > 0 && out->ob_buf[out->ob_len - 1] != '\n' ?
		    "\n" : "", out->ob_len, (uintmax_t)out->ob_total);
		buf_puts(&b, note);
	}
	if (b.b_err) {
		free(b.b_data);
		snprintf(errbuf, errlen, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return (-1);
	}
	*msgp = b.b_data;
	*lenp = b.b_len;
	return (0);
}

/*
 * Start the mailer, and return once it is forked, as jobs are: a mailer
 * whose start is slow (a sendmail on a dead network file system, a
 * group database that does not answer) must not hold up a daemon's
 * loop.
 */
int
mail_start(const struct mail_req *req, const struct outbuf *out,
    struct spawn_job **jobp, char *errbuf, size_t errlen)
{
	struct spawn_req	 sr;
	struct spawn_err	 se;
	char			*cmd = NULL, *msg = NULL, *p, *rest;
	char			*argv[MAIL_MAXARGS];
	char			 user[300], logname[300], home[1100];
	char			*env[5];
	size_t			 len;
	int			 argc = 0, i, r = -1, saved;

	*jobp = NULL;
	if (mail_format(req, out, &msg, &len, errbuf, errlen) == -1)
		return (-1);
	if ((cmd = strdup(req->mr_sendmail != NULL ? req->mr_sendmail :
	    req->mr_subject != NULL ? MAIL_SENDMAIL_AT : MAIL_SENDMAIL)) ==
	    NULL) {
		snprintf(errbuf, errlen, "%s", strerror(errno));
		goto done;
	}
	for (rest = cmd; (p = strsep(&rest, " \t")) != NULL;) {
		if (*p == '\0')
			continue;
		if (argc == MAIL_MAXARGS - 1) {
			snprintf(errbuf, errlen, "sendmail command: too many "
			    "arguments");
			errno = E2BIG;
			goto done;
		}
		argv[argc++] = p;
	}
	/* cron's way: the recipient as the last argument, unless -t. */
	for (i = 1; i < argc && strcmp(argv[i], "-t") != 0; i++)
		;
	if (argc > 0 && i == argc) {
		if (argc == MAIL_MAXARGS - 1) {
			snprintf(errbuf, errlen, "sendmail command: too many "
			    "arguments");
			errno = E2BIG;
			goto done;
		}
		argv[argc++] = (char *)req->mr_to;
	}
	argv[argc] = NULL;
	if (argc == 0 || argv[0][0] != '/') {
		snprintf(errbuf, errlen, "sendmail command must start with "
		    "an absolute path");
		errno = EINVAL;
		goto done;
	}

	/* A small fixed environment, never the daemon's or the job's. */
	env[0] = (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	env[1] = env[2] = env[3] = env[4] = NULL;
	if (req->mr_pw != NULL) {
		snprintf(user, sizeof(user), "USER=%s", req->mr_pw->pw_name);
		snprintf(logname, sizeof(logname), "LOGNAME=%s",
		    req->mr_pw->pw_name);
		snprintf(home, sizeof(home), "HOME=%s", req->mr_pw->pw_dir);
		env[1] = user;
		env[2] = logname;
		env[3] = home;
	}

	memset(&sr, 0, sizeof(sr));
	sr.sr_argv = argv;
	sr.sr_env = env;
	sr.sr_input = msg;
	sr.sr_inputlen = len;
	sr.sr_pw = req->mr_pw;
	sr.sr_dir = "/";
	sr.sr_outmax = 4096;
	if (spawn_launch(&sr, jobp, &se) == -1) {
		snprintf(errbuf, errlen, "sendmail did not start: %s",
		    se.se_msg);
		errno = se.se_errno;
		goto done;
	}
	r = 0;
done:
	saved = errno;
	free(cmd);
	free(msg);
	errno = saved;
	return (r);
}
