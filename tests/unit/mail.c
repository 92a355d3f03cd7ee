/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * mail.c: unit tests of common/mail.c.  A capture script stands in for
 * sendmail: it writes its arguments and its standard input to files,
 * which must hold cron's headers and the job's output exactly.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "../tap.h"
#include "spawnwait.h"

static char	 tmpdir[] = "/tmp/cc-mail.XXXXXX";
static char	 capture[256], failer[256], argsfile[256], msgfile[256];

static const char expect[] =
    "From: root (Cron Daemon)\n"
    "To: ops@example.org,alice\n"
    "Subject: Cron <alice@node1> echo hello  and more\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "Auto-Submitted: auto-generated\n"
    "X-Cron-Env: <SHELL=/bin/sh>\n"
    "X-Cron-Env: <HOME=/home/alice>\n"
    "X-Cron-Env: <MAILTO=ops@example.org,alice>\n"
    "X-Cron-Env: <MULTI=a b>\n"
    "\n"
    "hello\n"
    "world\n";

static void
cleanup(void)
{
	unlink(capture);
	unlink(failer);
	unlink(argsfile);
	unlink(msgfile);
	rmdir(tmpdir);
}

static void
script(const char *path, const char *text)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755)) == -1 ||
	    write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
}

static char *
slurp(const char *path)
{
	char	*buf;
	size_t	 len;

	if (file_read(path, 1 << 20, &buf, &len) == -1)
		return (NULL);
	return (buf);
}

/*
 * Mail the output and run the mailer to its end, as the daemon does
 * without blocking (spawnwait.h).  Returns 0 when it exited 0; -1 with
 * a message in err otherwise: mail_start()'s, why it did not start, or
 * how it ended and the first line it wrote.
 */
static int
mail(const struct mail_req *req, const struct outbuf *out, char *err,
    size_t len)
{
	struct spawn_job	*job;
	struct spawn_status	 ss;
	struct spawn_err	 se;
	char			 st[128];
	int			 r;

	if (mail_start(req, out, &job, err, len) == -1)
		return (-1);
	if (sw_settle(job, job->sj_startby, &se) != 1) {
		snprintf(err, len, "sendmail did not start: %s", se.se_msg);
		(void)sw_reap(job, 1, NULL);
		spawn_free(job);
		return (-1);
	}
	r = sw_run(job, 10000, &ss);
	if (r == 0 && (!ss.ss_exited || ss.ss_code != 0)) {
		spawn_status_str(&ss, st, sizeof(st));
		snprintf(err, len, "sendmail: %s: %.*s", st,
		    (int)strcspn(job->sj_output.ob_buf != NULL ?
		    job->sj_output.ob_buf : "", "\n"),
		    job->sj_output.ob_buf != NULL ? job->sj_output.ob_buf : "");
		r = -1;
	} else if (r != 0) {
		snprintf(err, len, "sendmail: did not end");
		r = -1;
	}
	spawn_free(job);
	return (r);
}

int
main(void)
{
	char			*env[] = { (char *)"SHELL=/bin/sh",
				    (char *)"HOME=/home/alice",
				    (char *)"MAILTO=ops@example.org,alice",
				    (char *)"MULTI=a\nb", NULL };
	char			*env2[] = { (char *)"MAILTO=", NULL };
	char			*env3[] = {
				    (char *)"CONTENT_TYPE=text/html\nBcc: x",
				    (char *)"CONTENT_TRANSFER_ENCODING=8bit",
				    NULL };
	struct mail_req		 req = { 0 };
	struct outbuf		 out;
	char			 cmd[1024], err[512], *msg, *got, want[1024];
	size_t			 len;

	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return (99);
	}
	atexit(cleanup);
	snprintf(capture, sizeof(capture), "%s/sendmail", tmpdir);
	snprintf(failer, sizeof(failer), "%s/failmail", tmpdir);
	snprintf(argsfile, sizeof(argsfile), "%s/args", tmpdir);
	snprintf(msgfile, sizeof(msgfile), "%s/msg", tmpdir);
	snprintf(cmd, sizeof(cmd), "#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s\n"
	    "cat > %s\n", argsfile, msgfile);
	script(capture, cmd);
	script(failer, "#!/bin/sh\ncat >/dev/null\n"
	    "echo 'no route to host'\necho 'second line'\nexit 75\n");

	/* MAILTO as cron reads it. */
	is_str(mail_recipient(env, "alice"), "ops@example.org,alice",
	    "MAILTO set");
	is_str(mail_recipient(env2, "alice"), NULL, "MAILTO empty: no mail");
	is_str(mail_recipient(env3, "alice"), "alice", "MAILTO unset: owner");
	is_str(mail_recipient(NULL, "alice"), "alice", "no environment");
	ok(mail_address_ok("ops@example.org,alice") &&
	    mail_address_ok("a+b@c"), "safe addresses");
	ok(!mail_address_ok("-oQ/tmp") && !mail_address_ok("a b") &&
	    !mail_address_ok("a\nCc: x") && !mail_address_ok("") &&
	    !mail_address_ok(NULL) && !mail_address_ok("\xc3\xa9"),
	    "unsafe addresses");

	outbuf_init(&out, 0);
	outbuf_add(&out, "hello\nworld\n", 12);
	req.mr_sendmail = NULL;
	req.mr_to = mail_recipient(env, "alice");
	req.mr_user = "alice";
	req.mr_host = "node1.example.org";
	req.mr_cmd = "echo hello\n and more";
	req.mr_env = env;
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0,
	    "mail_format");
	is_str(msg, expect, "headers as Debian's cron writes them, cronie's "
	    "Auto-Submitted, then the output");
	is_int((long long)len, (long long)strlen(expect), "length");
	free(msg);

	snprintf(cmd, sizeof(cmd), "%s -FCronDaemon -i  -B8BITMIME\t-oem -t",
	    capture);
	req.mr_sendmail = cmd;
	ok(mail(&req, &out, err, sizeof(err)) == 0,
	    "mailed through the capture program");
	got = slurp(msgfile);
	is_str(got, expect, "the mailer got the message on its input");
	free(got);
	got = slurp(argsfile);
	is_str(got, "-FCronDaemon\n-i\n-B8BITMIME\n-oem\n-t\n",
	    "command split on blanks; with -t no recipient argument");
	free(got);
	snprintf(cmd, sizeof(cmd), "%s -FCronDaemon -i -B8BITMIME -oem",
	    capture);
	ok(mail(&req, &out, err, sizeof(err)) == 0,
	    "mailed without -t");
	got = slurp(argsfile);
	is_str(got, "-FCronDaemon\n-i\n-B8BITMIME\n-oem\n"
	    "ops@example.org,alice\n",
	    "without -t the recipient is the last argument, as cron gives it");
	free(got);

	/* -n: the whole host name; a failure logged (-L 4): "(failed)". */
	req.mr_fqdn = 1;
	req.mr_failed = 1;
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0 &&
	    strstr(msg, "\nSubject: Cron <alice@node1.example.org> echo "
	    "hello  and more (failed)\n") != NULL, "FQDN and (failed)");
	free(msg);
	req.mr_fqdn = 0;
	req.mr_failed = 0;

	/* Injection through the environment stays inside one header. */
	req.mr_env = env3;
	req.mr_from = "-froot";
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0,
	    "format with CONTENT_TYPE");
	ok(strstr(msg, "Content-Type: text/html Bcc: x\n") != NULL &&
	    strstr(msg, "\nBcc:") == NULL, "newline in a header value blanked");
	ok(strstr(msg, "Content-Transfer-Encoding: 8bit\n") != NULL,
	    "CONTENT_TRANSFER_ENCODING");
	ok(strncmp(msg, "From: root (Cron Daemon)\n", 25) == 0,
	    "unsafe MAILFROM falls back to root");
	free(msg);
	req.mr_from = "cron-alerts";
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0 &&
	    strncmp(msg, "From: cron-alerts\n", 18) == 0,
	    "MAILFROM is the whole From header");
	free(msg);
	req.mr_from = NULL;
	req.mr_env = env;

	req.mr_to = "a b";
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == -1 &&
	    msg == NULL, "unsafe MAILTO refused");
	is_str(err, "unsafe or empty MAILTO", "its message");
	req.mr_to = "alice";

	/* at(1)'s mail, as atd writes it: Subject and To alone. */
	req.mr_subject = "Output from your job        7";
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0,
	    "format at's mail");
	is_str(msg, "Subject: Output from your job        7\nTo: alice\n\n"
	    "hello\nworld\n", "at's mail: Subject, To, the output");
	free(msg);
	req.mr_subject = NULL;

	/* Truncated output says so. */
	outbuf_free(&out);
	outbuf_init(&out, 5);
	outbuf_add(&out, "hello world\n", 12);
	ok(mail_format(&req, &out, &msg, &len, err, sizeof(err)) == 0,
	    "format truncated output");
	got = (char *)"\n\nhello\n[clustercron: output truncated, 5 of 12 "
	    "bytes shown]\n";
	ok(len > strlen(got) && strcmp(msg + len - strlen(got), got) == 0,
	    "truncation noted");
	free(msg);

	/* A mailer that fails, and one that is not there. */
	req.mr_sendmail = failer;
	ok(mail(&req, &out, err, sizeof(err)) == -1,
	    "failing mailer");
	is_str(err, "sendmail: exit status 75: no route to host",
	    "its status and words");
	req.mr_sendmail = "/nonexistent/sendmail -t";
	ok(mail(&req, &out, err, sizeof(err)) == -1,
	    "missing mailer");
	snprintf(want, sizeof(want), "sendmail did not start: exec "
	    "/nonexistent/sendmail: %s", strerror(ENOENT));
	is_str(err, want, "did not start");
	req.mr_sendmail = "sendmail -t";
	ok(mail(&req, &out, err, sizeof(err)) == -1,
	    "relative mailer path");
	is_str(err, "sendmail command must start with an absolute path",
	    "its message");
	req.mr_sendmail = "  ";
	ok(mail(&req, &out, err, sizeof(err)) == -1,
	    "empty mailer command");
	snprintf(cmd, sizeof(cmd), "%s", capture);
	for (len = 0; len < 40; len++)
		strlcat(cmd, " -x", sizeof(cmd));
	req.mr_sendmail = cmd;
	ok(mail(&req, &out, err, sizeof(err)) == -1,
	    "too many words");
	is_str(err, "sendmail command: too many arguments", "its message");
	outbuf_free(&out);
	return (tap_done());
}
