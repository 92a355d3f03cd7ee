/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * at.c: at(1), atq, atrm and batch for the whole cluster: ctab called
 * by one of those names (the package links them to ctab, as it links
 * crontab), or as ctab -A followed by at's arguments.  A job is kept in
 * the store, where every node sees it, and run once, on whichever node
 * is alive at its time; ctab asks the local daemon, as for tables
 * (tabproto.h), and never holds the store's credentials.
 *
 * It answers as Debian's at 3.2.5 does where at has an answer: the same
 * options, the same messages (with the program's name where at puts it,
 * none where it puts none), the prompts on a terminal, the same exit
 * statuses.  The time is read here, with at_parse() (parser/attime.c),
 * so that a malformed one is refused at once, naming its column, before
 * a job is read.  What at has no notion of (retries, a key that makes
 * submitting twice harmless, the daemon, the store) has options and
 * messages of its own, the latter with the program's name.
 */

#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atjob.h"
#include "clustercron.h"
#include "common.h"
#include "ctab.h"
#include "parser.h"
#include "tabproto.h"

extern char	**environ;

/* What at was asked to do. */
enum at_op { OP_SUBMIT, OP_QUEUE, OP_REMOVE, OP_CAT };

/* A job as atq lists it. */
struct at_row {
	int64_t		 r_id;
	time_t		 r_due;
	time_t		 r_next;
	char		 r_queue;
	char		 r_owner[256];
	char		 r_state[16];
	int		 r_attempt;
	int		 r_retries;
	char		 r_node[256];
};

static const char	*prog;
static struct cron_tz	*localtz;
static volatile sig_atomic_t interrupted;

static void	 at_usage(void) __attribute__((__noreturn__));
static void	 on_signal(int);
static struct cron_tz *zone_load(const char *, void *);
static void	 fmt_time(time_t, const char *, char *, size_t);
static int	 allowed(void);
static int	 reply_word(const struct tabmsg *, const char *);
static int	 job_number(const char *, int64_t *);
static char	*read_job(FILE *, int, size_t *);
static void	 make_token(char *, size_t);
static int	 submit(time_t, char, int, int, int, const char *,
		    const char *, const char *, int, const char *);
static int	 queue(int, char, const char *, char **, int);
static int	 job_numbers(char **, int, int64_t *);
static int	 remove_jobs(char **, int);
static int	 cat_jobs(char **, int);
static int	 list_rows(int, struct at_row **, size_t *);

static void
at_usage(void)
{
	fprintf(stderr,
	    "Usage: at [-V] [-q x] [-f file] [-mMv] [-k key] [-R retries] "
	    "[-B delays]\n"
	    "          [-L mark|rerun] timespec ...\n"
	    "       at [-V] [-q x] [-f file] [-mMv] [-k key] [-R retries] "
	    "[-B delays]\n"
	    "          [-L mark|rerun] -t [[CC]YY]MMDDhhmm[.ss]\n"
	    "       at -c job ...\n"
	    "       at [-V] -l [-a] [-o timeformat] [-q x] [job ...]\n"
	    "       atq [-V] [-a] [-o timeformat] [-q x] [job ...]\n"
	    "       at [ -rd ] job ...\n"
	    "       atrm [-V] job ...\n"
	    "       batch\n"
	    "       at -b\n"
	    "       ctab -A at-arguments ...\n");
	exit(1);
}

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static struct cron_tz *
zone_load(const char *name, void *arg)
{
	char	 errbuf[256];

	(void)arg;
	return (tz_load(name, errbuf, sizeof(errbuf)));
}

/*
 * An instant as the local clock shows it, with strftime(3)'s format
 * (at's own is "%a %b %e %H:%M:%S %Y"), through the zone the time was
 * read in, so that what is printed is what was meant.
 */
static void
fmt_time(time_t t, const char *fmt, char *buf, size_t len)
{
	struct tm	 tm;
	int64_t		 local, days, y, secs;
	int		 m, d;

	local = (int64_t)t + tz_offset(localtz, t);
	days = local / 86400 - (local % 86400 < 0);
	secs = local - days * 86400;
	days_to_civil(days, &y, &m, &d);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)(y - 1900);
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = (int)(secs / 3600);
	tm.tm_min = (int)(secs / 60 % 60);
	tm.tm_sec = (int)(secs % 60);
	tm.tm_wday = (int)(((days % 7) + 11) % 7);	/* 1970-01-01: Thu */
	tm.tm_yday = (int)(days - civil_to_days(y, 1, 1));
	tm.tm_isdst = -1;
	tm.tm_gmtoff = tz_offset(localtz, t);
	/* atq -o takes the user's format: strftime's, not printf's. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (strftime(buf, len, fmt, &tm) == 0)
		*buf = '\0';
#pragma GCC diagnostic pop
}

/*
 * Is the caller allowed to use at at all (at.allow, at.deny)?  Asked
 * first, as at checks before it reads anything.  1 yes; 0 refused (the
 * message said as at says it); -1 no daemon or another failure (said).
 */
static int
allowed(void)
{
	struct tabmsg	 req, rep;
	int		 rv;

	tab_set(&req, "atcheck", NULL, 0, NULL);
	if ((rv = ctab_call(&req, &rep)) != 0) {
		if (rv == CTAB_DOWN)
			ctab_say_down();
		return (-1);
	}
	tab_clear(&rep);
	if (strcmp(rep.tm_word, "ok") == 0)
		return (1);
	if (strcmp(rep.tm_word, "refused") == 0) {
		fprintf(stderr, "You do not have permission to use %s.\n",
		    prog);
		return (0);
	}
	warnx("%s", rep.tm_msg);
	return (-1);
}

/* A reply that is not ok, said as at says it; 1 for ok, else 0. */
static int
reply_word(const struct tabmsg *rep, const char *what)
{
	if (strcmp(rep->tm_word, "ok") == 0)
		return (1);
	if (strcmp(rep->tm_word, "none") == 0 ||
	    strcmp(rep->tm_word, "notowner") == 0)
		fprintf(stderr, "%s\n", rep->tm_msg);
	else if (strcmp(rep->tm_word, "refused") == 0)
		fprintf(stderr, "You do not have permission to use %s.\n",
		    prog);
	else
		warnx("%s%s%s", what, *what != '\0' ? ": " : "",
		    rep->tm_msg);
	return (0);
}

/* A job's number as at reads it: digits only. */
static int
job_number(const char *s, int64_t *id)
{
	const char	*errstr;

	if (*s < '0' || *s > '9')
		return (-1);
	*id = strtonum(s, 0, INT64_MAX, &errstr);
	return (errstr == NULL ? 0 : -1);
}

/*
 * The commands: the whole of f, at most max bytes.  On a terminal each
 * line is prompted for with "at> " and the end shown as <EOT>, as at
 * does.  NULL when too large, unreadable or interrupted (said).
 */
static char *
read_job(FILE *f, int tty, size_t *len)
{
	char	*buf = NULL, *line = NULL;
	size_t	 cap = 0, n = 0, lcap = 0;
	ssize_t	 got;
	int	 ch;

	*len = 0;
	if (!tty) {
		buf = xmalloc(8192);
		cap = 8192;
		while ((ch = getc(f)) != EOF && !interrupted) {
			if (n == TAB_MAXBYTES)
				goto big;
			if (n + 1 >= cap) {
				cap *= 2;
				buf = xreallocarray(buf, cap, 1);
			}
			buf[n++] = (char)ch;
		}
	} else {
		for (;;) {
			fputs("at> ", stderr);
			errno = 0;
			if ((got = getline(&line, &lcap, f)) == -1)
				break;
			if (n + (size_t)got + 1 > cap) {
				if (n + (size_t)got > TAB_MAXBYTES)
					goto big;
				cap = (n + (size_t)got + 1) * 2;
				buf = xreallocarray(buf, cap, 1);
			}
			memcpy(buf + n, line, (size_t)got);
			n += (size_t)got;
		}
		free(line);
		if (!interrupted)
			fputs("<EOT>\n", stderr);
	}
	if (interrupted || ferror(f)) {
		if (!interrupted)
			warn("reading the job");
		free(buf);
		return (NULL);
	}
	if (buf == NULL)
		buf = xstrdup("");
	else
		buf[n] = '\0';
	*len = n;
	return (buf);
big:
	warnx("the job is larger than %d bytes", TAB_MAXBYTES);
	free(buf);
	free(line);
	return (NULL);
}

/* A submission's token: 128 random bits in hex. */
static void
make_token(char *buf, size_t len)
{
	unsigned char	 r[16];
	size_t		 i;

	arc4random_buf(r, sizeof(r));
	for (i = 0; i < sizeof(r) && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
}

/*
 * Read the job, capture what at captures, send it, say what was
 * stored.  batch is 1 for at -b, which gives no warning, 2 for batch,
 * which does (it runs at -qb).
 */
static int
submit(time_t due, char q, int mail, int retries, int lost,
    const char *backoff, const char *key, const char *file, int batch,
    const char *fmt)
{
	struct tabmsg	 req, rep;
	struct tabbuf	 b;
	struct sigaction sa, oint, oterm, ohup;
	const char	*p, *end, *val;
	char		 cwd[PATH_MAX], token[40], when[128], name[32];
	char		 state[32] = "", *cmd, **e;
	size_t		 cmdlen, len;
	int64_t		 stored = due;
	mode_t		 mask;
	FILE		*f = stdin;
	int		 tty, rv;

	if (batch != 1)
		fputs("warning: commands will be executed using /bin/sh\n",
		    stderr);
	if (file != NULL && (f = fopen(file, "r")) == NULL) {
		fprintf(stderr, "Cannot open input file %s: %s\n", file,
		    strerror(errno));
		return (1);
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		warn("cannot get the current directory");
		return (1);
	}
	tty = file == NULL && isatty(STDIN_FILENO);
	fmt_time(due, fmt, when, sizeof(when));
	if (tty)
		fprintf(stderr, "at %s\n", when);
	/* An interrupted read submits nothing, and exits 1 as at does. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	sigaction(SIGHUP, &sa, &ohup);
	cmd = read_job(f, tty, &cmdlen);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	sigaction(SIGHUP, &ohup, NULL);
	if (f != stdin)
		fclose(f);
	if (cmd == NULL)
		return (1);

	mask = umask(0);
	umask(mask);
	make_token(token, sizeof(token));
	memset(&b, 0, sizeof(b));
	tab_field_num(&b, "due", due);
	tab_field_add(&b, "queue", &q, 1);
	tab_field_num(&b, "mail", mail);
	tab_field_num(&b, "retries", retries);
	tab_field_str(&b, "backoff", backoff);
	tab_field_num(&b, "lost", lost);
	if (key != NULL)
		tab_field_str(&b, "key", key);
	tab_field_str(&b, "token", token);
	tab_field_num(&b, "umask", (int64_t)mask);
	tab_field_str(&b, "cwd", cwd);
	for (e = environ; *e != NULL; e++)
		if (at_env_keep(*e))
			tab_field_str(&b, "env", *e);
	tab_field_add(&b, "cmd", cmd, cmdlen);
	free(cmd);
	if (b.b_len > TAB_MAXBYTES) {
		warnx("the job and its environment are larger than %d bytes",
		    TAB_MAXBYTES);
		free(b.b_p);
		return (1);
	}
	tab_set(&req, "atsubmit", NULL, 0, NULL);
	req.tm_body = b.b_p;
	req.tm_bodylen = b.b_len;
	rv = ctab_call(&req, &rep);
	free(b.b_p);
	if (rv != 0) {
		if (rv == CTAB_DOWN)
			ctab_say_down();
		return (1);
	}
	if (!reply_word(&rep, "")) {
		tab_clear(&rep);
		return (1);
	}
	p = rep.tm_body;
	end = p == NULL ? NULL : p + rep.tm_bodylen;
	while (p != NULL && tab_field_next(&p, end, name, sizeof(name), &val,
	    &len) == 1) {
		if (strcmp(name, "due") == 0)
			(void)tab_field_int(val, len, 0, INT64_MAX, &stored);
		else if (strcmp(name, "state") == 0 && len < sizeof(state)) {
			memcpy(state, val, len);
			state[len] = '\0';
		}
	}
	fmt_time((time_t)stored, fmt, when, sizeof(when));
	fprintf(stderr, "job %lld at %s\n", (long long)rep.tm_version, when);
	if (strcmp(rep.tm_msg, "existing") == 0)
		fprintf(stderr, "%s: key %s already names job %lld (%s): "
		    "nothing new submitted\n", prog, key != NULL ? key : "",
		    (long long)rep.tm_version, state);
	tab_clear(&rep);
	return (0);
}

/* Every job the caller may see (all: finished ones too), by time. */
static int
list_rows(int all, struct at_row **out, size_t *n)
{
	struct tabmsg	 req, rep;
	struct tabbuf	 b;
	struct at_row	*r = NULL;
	const char	*p, *end, *val;
	char		 name[32];
	size_t		 len, cap = 0;
	int64_t		 v;
	int		 rv;

	*out = NULL;
	*n = 0;
	memset(&b, 0, sizeof(b));
	tab_field_num(&b, "all", all);
	tab_set(&req, "atlist", NULL, 0, NULL);
	req.tm_body = b.b_p;
	req.tm_bodylen = b.b_len;
	rv = ctab_call(&req, &rep);
	free(b.b_p);
	if (rv != 0) {
		if (rv == CTAB_DOWN)
			ctab_say_down();
		return (-1);
	}
	if (!reply_word(&rep, "")) {
		tab_clear(&rep);
		return (-1);
	}
	p = rep.tm_body;
	end = p == NULL ? NULL : p + rep.tm_bodylen;
	while (p != NULL && (rv = tab_field_next(&p, end, name, sizeof(name),
	    &val, &len)) == 1) {
		if (strcmp(name, "id") == 0) {
			if (*n == cap) {
				cap = cap == 0 ? 32 : cap * 2;
				r = xreallocarray(r, cap, sizeof(*r));
			}
			memset(&r[*n], 0, sizeof(r[*n]));
			(*n)++;
		}
		if (*n == 0)
			continue;
		if (len < sizeof(r->r_owner) &&
		    (strcmp(name, "owner") == 0 || strcmp(name, "node") == 0)) {
			memcpy(strcmp(name, "owner") == 0 ? r[*n - 1].r_owner :
			    r[*n - 1].r_node, val, len);
			continue;
		}
		if (strcmp(name, "state") == 0 &&
		    len < sizeof(r->r_state)) {
			memcpy(r[*n - 1].r_state, val, len);
			continue;
		}
		if (strcmp(name, "queue") == 0 && len == 1) {
			r[*n - 1].r_queue = *val;
			continue;
		}
		if (tab_field_int(val, len, 0, INT64_MAX, &v) == -1)
			continue;
		if (strcmp(name, "id") == 0)
			r[*n - 1].r_id = v;
		else if (strcmp(name, "due") == 0)
			r[*n - 1].r_due = (time_t)v;
		else if (strcmp(name, "next") == 0)
			r[*n - 1].r_next = (time_t)v;
		else if (strcmp(name, "attempt") == 0)
			r[*n - 1].r_attempt = (int)v;
		else if (strcmp(name, "retries") == 0)
			r[*n - 1].r_retries = (int)v;
	}
	tab_clear(&rep);
	if (rv == -1) {
		warnx("a malformed list of jobs from the daemon");
		free(r);
		*n = 0;
		return (-1);
	}
	*out = r;
	return (0);
}

/*
 * atq: the caller's jobs (root: everyone's) waiting, running or
 * retrying, in at's layout: number, time (the next attempt's), queue
 * ('=' for one running), owner; with all, the finished ones too and
 * each line ending with its state and attempts.
 */
static int
queue(int all, char q, const char *fmt, char **ids, int nids)
{
	struct at_row	*r;
	int64_t		*want;
	size_t		 n, i;
	char		 when[256], qc;
	int		 k, show;

	want = xcalloc(nids > 0 ? (size_t)nids : 1, sizeof(*want));
	for (k = 0; k < nids; k++)
		if (job_number(ids[k], &want[k]) == -1) {
			fprintf(stderr, "%s: invalid job number\n", prog);
			free(want);
			return (1);
		}
	if (list_rows(all, &r, &n) == -1) {
		free(want);
		return (1);
	}
	for (i = 0; i < n; i++) {
		qc = strcmp(r[i].r_state, "running") == 0 ? '=' :
		    r[i].r_queue;
		if (q != '\0' && qc != q)
			continue;
		for (show = nids == 0, k = 0; k < nids && !show; k++)
			show = want[k] == r[i].r_id;
		if (!show)
			continue;
		fmt_time(r[i].r_next, fmt, when, sizeof(when));
		printf("%lld\t%s %c %s", (long long)r[i].r_id, when, qc,
		    r[i].r_owner);
		if (all)
			printf(" %s %d/%d", r[i].r_state, r[i].r_attempt,
			    r[i].r_retries + 1);
		putchar('\n');
	}
	free(r);
	free(want);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (1);
	}
	return (0);
}

/*
 * The jobs named, every one a number, or at's complaint about the first
 * that is not (and nothing done, as at does nothing then).
 */
static int
job_numbers(char **ids, int nids, int64_t *out)
{
	int	 k;

	for (k = 0; k < nids; k++)
		if (job_number(ids[k], &out[k]) == -1) {
			fprintf(stderr, "at: unknown jobid: %s\n", ids[k]);
			return (-1);
		}
	return (0);
}

/* atrm: each job in turn; 1 when any could not be removed. */
static int
remove_jobs(char **ids, int nids)
{
	struct tabmsg	 req, rep;
	int64_t		*id;
	int		 k, rv, failed = 0;

	id = xcalloc((size_t)nids, sizeof(*id));
	if (job_numbers(ids, nids, id) == -1) {
		free(id);
		return (1);
	}
	for (k = 0; k < nids; k++) {
		tab_set(&req, "atremove", NULL, id[k], NULL);
		if ((rv = ctab_call(&req, &rep)) != 0) {
			if (rv == CTAB_DOWN)
				ctab_say_down();
			free(id);
			return (1);
		}
		if (!reply_word(&rep, ""))
			failed = 1;
		tab_clear(&rep);
	}
	free(id);
	return (failed);
}

/* at -c: each job's script on the standard output. */
static int
cat_jobs(char **ids, int nids)
{
	struct tabmsg	 req, rep;
	int64_t		*id;
	int		 k, rv, failed = 0;

	id = xcalloc((size_t)nids, sizeof(*id));
	if (job_numbers(ids, nids, id) == -1) {
		free(id);
		return (1);
	}
	for (k = 0; k < nids; k++) {
		tab_set(&req, "atprint", NULL, id[k], NULL);
		if ((rv = ctab_call(&req, &rep)) != 0) {
			if (rv == CTAB_DOWN)
				ctab_say_down();
			free(id);
			return (1);
		}
		if (reply_word(&rep, "") && rep.tm_bodylen > 0)
			fwrite(rep.tm_body, 1, rep.tm_bodylen, stdout);
		else if (strcmp(rep.tm_word, "ok") != 0)
			failed = 1;
		tab_clear(&rep);
	}
	free(id);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		return (1);
	}
	return (failed);
}

int
at_main(int argc, char **argv, int mode)
{
	struct at_backoff	 bo;
	struct cron_diag	 diag;
	const char		*file = NULL, *key = NULL, *backoff = NULL;
	const char		*posix = NULL, *fmt = NULL, *errstr, *opts;
	char			*text = NULL, boerr[128], errbuf[256];
	enum at_op		 op;
	size_t			 len;
	time_t			 now, due;
	char			 q = '\0';
	int			 ch, i, rv, mail = 0, retries = -1, lost = 0;
	int			 verbose = 0, all = 0, batch = 0, version = 0;
	int			 k;

	prog = getprogname();
	switch (mode) {
	case AT_MODE_ATQ:
		op = OP_QUEUE;
		opts = "aVq:o:";
		break;
	case AT_MODE_ATRM:
		op = OP_REMOVE;
		opts = "V";
		break;
	case AT_MODE_BATCH:
		/*
		 * Debian's batch is a script that says this on its standard
		 * output, then runs "at -qb now": a batch job, warning and
		 * all (at -b gives none).
		 */
		if (argc > 1) {
			printf("batch accepts no parameters\n");
			return (1);
		}
		op = OP_SUBMIT;
		batch = 2;
		opts = "";
		break;
	default:
		op = OP_SUBMIT;
		opts = "aVq:f:mMlbvt:crdo:k:R:B:L:u:h";
		break;
	}
	while ((ch = getopt(argc, argv, opts)) != -1) {
		switch (ch) {
		case 'V':
			version = 1;
			break;
		case 'q':
			if (strlen(optarg) != 1 || !at_queue_ok(*optarg))
				at_usage();
			q = *optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'm':
			mail = 1;
			break;
		case 'M':
			mail = -1;
			break;
		case 'l':
			op = OP_QUEUE;
			break;
		case 'b':
			batch = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 't':
			posix = optarg;
			break;
		case 'c':
			op = OP_CAT;
			break;
		case 'r':
		case 'd':
			op = OP_REMOVE;
			break;
		case 'o':
			fmt = optarg;
			break;
		case 'a':
			all = 1;
			break;
		case 'k':
			key = optarg;
			len = strlen(key);
			for (k = 0; key[k] != '\0' && (unsigned char)key[k] >
			    ' ' && (unsigned char)key[k] < 127; k++)
				;
			if (len == 0 || len > 128 || key[k] != '\0') {
				fprintf(stderr, "%s: -k %s: a key is 1 to 128 "
				    "printable characters, without blanks\n",
				    prog, key);
				return (1);
			}
			break;
		case 'R':
			retries = (int)strtonum(optarg, 0, AT_MAXRETRIES,
			    &errstr);
			if (errstr != NULL) {
				fprintf(stderr, "%s: -R %s: retries are a "
				    "number from 0 to %d\n", prog, optarg,
				    AT_MAXRETRIES);
				return (1);
			}
			break;
		case 'B':
			if (at_backoff_parse(optarg, &bo, boerr,
			    sizeof(boerr)) == -1) {
				fprintf(stderr, "%s: -B %s: %s\n", prog, optarg,
				    boerr);
				return (1);
			}
			backoff = optarg;
			break;
		case 'L':
			if (strcmp(optarg, "mark") == 0)
				lost = 0;
			else if (strcmp(optarg, "rerun") == 0)
				lost = 1;
			else {
				fprintf(stderr, "%s: -L %s: expected mark or "
				    "rerun\n", prog, optarg);
				return (1);
			}
			break;
		case 'u':
			fprintf(stderr, "%s: -u %s: the output of a job is "
			    "mailed to its owner\n", prog, optarg);
			return (1);
		default:
			at_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (version) {
		fprintf(stderr, "%s version %s (clustercron)\n", prog,
		    PACKAGE_VERSION);
		if (op == OP_SUBMIT && argc == 0 && posix == NULL && !batch)
			return (0);
	}
	/* What goes with what, as at's usage says. */
	if (op != OP_SUBMIT && (file != NULL || mail != 0 || batch ||
	    verbose || posix != NULL || key != NULL || retries != -1 ||
	    backoff != NULL || lost != 0))
		at_usage();
	if (op != OP_QUEUE && (fmt != NULL || all))
		at_usage();
	if ((op == OP_REMOVE || op == OP_CAT) && (argc == 0 || q != '\0'))
		at_usage();
	if (op == OP_SUBMIT) {
		if (batch ? argc > 0 || posix != NULL :
		    (posix == NULL) == (argc == 0))
			at_usage();
		if (backoff != NULL && retries == -1) {
			/* A list says how many; a doubling does not. */
			if (bo.b_doubling) {
				fprintf(stderr, "%s: -B %s: say how many "
				    "retries with -R\n", prog, backoff);
				return (1);
			}
			retries = bo.b_n;
		}
		if (retries > 0 && backoff == NULL)
			backoff = AT_DEFAULT_BACKOFF;
		if (retries == -1)
			retries = 0;
		if (retries == 0)
			backoff = "";
		if (q == '\0')
			q = batch ? 'b' : 'a';
	}
	if ((localtz = tz_load(NULL, errbuf, sizeof(errbuf))) == NULL)
		errx(1, "the local time zone: %s", errbuf);
	if ((rv = allowed()) != 1)
		return (1);

	switch (op) {
	case OP_QUEUE:
		return (queue(all, q, fmt != NULL ? fmt :
		    "%a %b %e %H:%M:%S %Y", argv, argc));
	case OP_REMOVE:
		return (remove_jobs(argv, argc));
	case OP_CAT:
		return (cat_jobs(argv, argc));
	default:
		break;
	}

	now = clock_now();
	if (batch)
		due = now;
	else if (posix != NULL) {
		if (at_parse_posix(posix, now, localtz, &due, &diag) == -1) {
			if (diag.d_col == 0)
				fprintf(stderr, "%s: -t %s: %s\n", prog, posix,
				    diag.d_msg);
			else
				fprintf(stderr, "%s: -t %s: column %zu: %s\n",
				    prog, posix, diag.d_col, diag.d_msg);
			return (1);
		}
	} else {
		for (len = 0, i = 0; i < argc; i++)
			len += strlen(argv[i]) + 1;
		text = xmalloc(len);
		text[0] = '\0';
		for (i = 0; i < argc; i++) {
			if (i > 0)
				(void)strlcat(text, " ", len);
			(void)strlcat(text, argv[i], len);
		}
		if (at_parse(text, now, localtz, zone_load, NULL, &due,
		    &diag) == -1) {
			if (diag.d_col == 0)
				fprintf(stderr, "%s: %s: %s\n", prog, text,
				    diag.d_msg);
			else
				fprintf(stderr, "%s: %s: column %zu: %s\n",
				    prog, text, diag.d_col, diag.d_msg);
			free(text);
			return (1);
		}
		free(text);
	}
	if (verbose) {
		fmt_time(due, "%a %b %e %H:%M:%S %Y", errbuf, sizeof(errbuf));
		fprintf(stderr, "%s\n\n", errbuf);
	}
	rv = submit(due, q, mail, retries, lost, backoff, key, file,
	    batch, "%a %b %e %H:%M:%S %Y");
	tz_free(localtz);
	return (rv);
}
