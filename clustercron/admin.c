/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * admin.c: what the admin verbs share (admin.h).  The verbs find the
 * store through the daemon's own configuration, so that "clustercron
 * status" on a node looks at what that node's daemon uses, and they
 * name jobs the way people do: by an explicit name or by the start of
 * the identity they see in listings and logs.
 */

#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "clustercron.h"
#include "common.h"
#include "json.h"
#include "store.h"

#define TBL_GAP		2

static int	 is_prefix(const char *);
static const char *job_word(const char *, const char **, size_t *);
static int	 job_named(const struct store_job *, const char *, size_t,
		    const char *, int *);
static size_t	 job_match(const struct store_job *, size_t, const char *,
		    size_t *);
static int	 tbl_piece(const char *, size_t, size_t, char *, size_t *);
static char	*tbl_clean(const char *, size_t, size_t *);
static void	 fmt_dur(int64_t, int, char *, size_t);

void
admin_open(struct admin *a, const char *verb, const char *conffile,
    int explicit)
{
	struct store_config	 sc;
	struct store_error	 se;
	struct store_url	 su;
	struct stat		 sb;
	const char		*url, *path = NULL;

	memset(a, 0, sizeof(*a));
	a->a_verb = verb;
	dconf_read(&a->a_conf, conffile, explicit, geteuid() == 0, getuid(),
	    NULL);
	url = a->a_conf.c_store;
	if (store_url_parse(url, &su, &se) == -1)
		errx(1, "%s: %s", verb, se.se_msg);
	if (su.su_backend == STORE_SQLITE)
		path = su.su_path;
	if (path != NULL && stat(path, &sb) == -1) {
		if (errno == ENOENT)
			errx(1, "%s: no store at %s: has the daemon run with "
			    "%s?", verb, path, a->a_conf.c_file != NULL ?
			    a->a_conf.c_file : "the default configuration");
		err(1, "%s: %s", verb, path);
	}
	store_url_free(&su);
	memset(&sc, 0, sizeof(sc));
	sc.sc_url = url;
	sc.sc_mysql_file = a->a_conf.c_mysql_file;
	sc.sc_mysql_group = a->a_conf.c_mysql_group;
	sc.sc_node = a->a_conf.c_node;
	sc.sc_busy_timeout = a->a_conf.c_busy_ms;
	if (store_open(&sc, &a->a_st, &se) == -1)
		errx(1, "%s: store %s: %s", verb, url, se.se_msg);
}

void
admin_close(struct admin *a)
{
	store_close(a->a_st);
	a->a_st = NULL;
	dconf_free(&a->a_conf);
}

void
admin_storefail(struct admin *a, const char *what,
    const struct store_error *se)
{
	errx(1, "%s: %s: %s", a->a_verb, what, se->se_msg);
}

const char *
admin_job_name(const struct store_job *j)
{
	return (j->j_name != NULL && *j->j_name != '\0' ? j->j_name : NULL);
}

/* Whether word is a prefix of an identity: hex digits, long enough. */
static int
is_prefix(const char *word)
{
	size_t	 i;

	for (i = 0; word[i] != '\0'; i++)
		if (!isxdigit((unsigned char)word[i]))
			return (0);
	return (i >= ADMIN_PREFIXMIN && i <= STORE_IDLEN);
}

/*
 * Split word into the owner it names ("owner:rest"; NULL when it names
 * none) and the rest.
 */
static const char *
job_word(const char *word, const char **owner, size_t *olen)
{
	const char	*colon;

	if ((colon = strchr(word, ':')) == NULL) {
		*owner = NULL;
		*olen = 0;
		return (word);
	}
	*owner = word;
	*olen = (size_t)(colon - word);
	return (colon + 1);
}

/*
 * Whether job j is named by word (owner, olen and rest as job_word()
 * split it): the job of that owner, if any is named, whose explicit
 * name is rest or whose identity begins with it (a prefix of at least
 * ADMIN_PREFIXMIN hex digits).  *exact says the identity is rest whole.
 */
static int
job_named(const struct store_job *j, const char *owner, size_t olen,
    const char *rest, int *exact)
{
	const char	*name;

	*exact = 0;
	if (owner != NULL && (strlen(j->j_owner) != olen ||
	    strncmp(j->j_owner, owner, olen) != 0))
		return (0);
	if (is_prefix(rest) && strncasecmp(j->j_id, rest, strlen(rest)) == 0) {
		*exact = j->j_id[strlen(rest)] == '\0';
		return (1);
	}
	name = admin_job_name(j);
	return (name != NULL && strcmp(name, rest) == 0);
}

/*
 * How many jobs word names, the first in *first.  A name and an
 * identity prefix count alike: a job whose CLUSTERCRON_NAME is the
 * start of another job's identity makes the word name both, which is
 * refused as ambiguous rather than settled in favour of either (one
 * user could otherwise take the name another job is known by).  A whole
 * identity names its job alone; owner:word narrows to one owner's jobs.
 */
static size_t
job_match(const struct store_job *jobs, size_t n, const char *word,
    size_t *first)
{
	const char	*owner, *rest;
	size_t		 i, olen, count = 0;
	int		 exact;

	*first = 0;
	rest = job_word(word, &owner, &olen);
	for (i = 0; i < n; i++) {
		if (!job_named(&jobs[i], owner, olen, rest, &exact))
			continue;
		if (exact) {
			*first = i;
			return (1);
		}
		if (count++ == 0)
			*first = i;
	}
	return (count);
}

size_t
admin_job_match(const struct store_job *jobs, size_t n, const char *word,
    size_t *first)
{
	return (job_match(jobs, n, word, first));
}

const struct store_job *
admin_job_pick(struct admin *a, const struct store_job *jobs, size_t n,
    const char *word)
{
	const char	*name, *owner, *rest;
	char		*eo, *es, *en, *ew;
	size_t		 i, first, count, olen;
	int		 exact;

	count = job_match(jobs, n, word, &first);
	if (count == 1)
		return (&jobs[first]);
	rest = job_word(word, &owner, &olen);
	ew = admin_esc(word);
	if (count == 0) {
		if (!is_prefix(rest) && strspn(rest,
		    "0123456789abcdefABCDEF") == strlen(rest))
			errx(1, "%s: no job named %s (an identity prefix has "
			    "at least %d hex digits)", a->a_verb, ew,
			    ADMIN_PREFIXMIN);
		errx(1, "%s: no job %s", a->a_verb, ew);
	}
	warnx("%s: %s names %zu jobs:", a->a_verb, ew, count);
	free(ew);
	for (i = first; i < n; i++) {
		if (!job_named(&jobs[i], owner, olen, rest, &exact))
			continue;
		name = admin_job_name(&jobs[i]);
		eo = admin_esc(jobs[i].j_owner);
		es = admin_esc(jobs[i].j_sched);
		en = admin_esc(name != NULL ? name : "");
		fprintf(stderr, "  %s  %s  %s%s%s%s\n", jobs[i].j_id, eo, es,
		    name != NULL ? "  (" : "", name != NULL ? en : "",
		    name != NULL ? ")" : "");
		free(eo);
		free(es);
		free(en);
	}
	fprintf(stderr, "%s: give owner:name, the whole identity or a "
	    "longer identity prefix\n", getprogname());
	exit(1);
}

void
tbl_init(struct tbl *t, size_t ncol, const char *const *head,
    const size_t *max)
{
	memset(t, 0, sizeof(*t));
	t->t_ncol = ncol;
	t->t_head = head;
	t->t_max = max;
}

/*
 * One character of s at i (len bytes in all), as a table shows it: in
 * piece (NUL-terminated, up to 7 bytes), *pw its width.  Returns the
 * bytes of s it stands for.
 */
static int
tbl_piece(const char *s, size_t i, size_t len, char *piece, size_t *pw)
{
	uint32_t	 cp;
	int		 n;

	*pw = 1;
	if (s[i] == '\t') {
		strlcpy(piece, " ", 8);
		return (1);
	}
	if ((n = utf8_char(s + i, len - i)) < 0) {
		strlcpy(piece, "?", 8);
		return (-n);
	}
	if (uni_unsafe(cp = utf8_decode(s + i, n))) {
		snprintf(piece, 8, "\\u%04x", (unsigned int)cp);
		*pw = strlen(piece);
		return (n);
	}
	memcpy(piece, s + i, (size_t)n);
	piece[n] = '\0';
	return (n);
}

/*
 * A copy of s fit for a terminal, of at most max characters (0: any)
 * ending in "..." when cut; *width is its width in characters.
 */
static char *
tbl_clean(const char *s, size_t max, size_t *width)
{
	char	*out, *o, piece[8];
	size_t	 len, i, w, pw, total = 0;
	int	 n;

	if (s == NULL || *s == '\0')
		s = "-";
	len = strlen(s);
	for (i = 0; i < len; i += (size_t)n) {
		n = tbl_piece(s, i, len, piece, &pw);
		total += pw;
	}
	/* Every byte may become a six-character escape. */
	o = out = xreallocarray(NULL, len + 1, 6);
	for (i = 0, w = 0; i < len; i += (size_t)n) {
		n = tbl_piece(s, i, len, piece, &pw);
		if (max > 0 && total > max && w + pw + 3 > max)
			break;
		o += strlcpy(o, piece, 8);
		w += pw;
	}
	if (i < len) {
		/* Too long: cut where three characters fit. */
		memcpy(o, "...", 3);
		o += 3;
		w += 3;
	}
	*o = '\0';
	*width = w;
	return (out);
}

char *
admin_esc(const char *s)
{
	size_t	 w;

	return (tbl_clean(s, 0, &w));
}

void
tbl_add(struct tbl *t, const char *s)
{
	if (t->t_ncell == t->t_cap) {
		t->t_cap = t->t_cap == 0 ? 64 : t->t_cap * 2;
		t->t_cell = xreallocarray(t->t_cell, t->t_cap,
		    sizeof(*t->t_cell));
	}
	t->t_cell[t->t_ncell++] = xstrdup(s != NULL ? s : "");
}

void
tbl_addf(struct tbl *t, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		err(1, NULL);
	va_end(ap);
	tbl_add(t, s);
	free(s);
}

void
tbl_print(struct tbl *t, FILE *fp)
{
	char	**clean;
	size_t	 *w, *cw, i, c, nrow, max;

	nrow = t->t_ncell / t->t_ncol;
	w = xcalloc(t->t_ncol, sizeof(*w));
	cw = xcalloc(t->t_ncell, sizeof(*cw));
	clean = xcalloc(t->t_ncell, sizeof(*clean));
	for (c = 0; c < t->t_ncol; c++)
		w[c] = strlen(t->t_head[c]);
	for (i = 0; i < nrow * t->t_ncol; i++) {
		c = i % t->t_ncol;
		max = t->t_max != NULL ? t->t_max[c] : 0;
		clean[i] = tbl_clean(t->t_cell[i], max, &cw[i]);
		if (cw[i] > w[c])
			w[c] = cw[i];
	}
	for (c = 0; c < t->t_ncol; c++)
		fprintf(fp, "%s%*s", t->t_head[c], c + 1 < t->t_ncol ?
		    (int)(w[c] - strlen(t->t_head[c]) + TBL_GAP) : 0, "");
	putc('\n', fp);
	for (i = 0; i < nrow * t->t_ncol; i++) {
		c = i % t->t_ncol;
		if (c + 1 < t->t_ncol)
			fprintf(fp, "%s%*s", clean[i],
			    (int)(w[c] - cw[i] + TBL_GAP), "");
		else
			fprintf(fp, "%s\n", clean[i]);
		free(clean[i]);
	}
	free(clean);
	free(cw);
	free(w);
}

void
tbl_free(struct tbl *t)
{
	size_t	 i;

	for (i = 0; i < t->t_ncell; i++)
		free(t->t_cell[i]);
	free(t->t_cell);
	memset(t, 0, sizeof(*t));
}

void
admin_local(int64_t ms, char *buf, size_t len)
{
	struct tm	 tm;
	time_t		 t;

	if (ms == 0) {
		strlcpy(buf, "-", len);
		return;
	}
	t = (time_t)(ms / 1000);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "%lld", (long long)t);
}

/* A duration; under a minute in ms when exact, else in seconds. */
static void
fmt_dur(int64_t ms, int exact, char *buf, size_t len)
{
	int64_t	 s;

	if (ms < 0)
		ms = 0;
	s = ms / 1000;
	if (s < 60 && exact)
		snprintf(buf, len, "%lld.%03llds", (long long)s,
		    (long long)(ms % 1000));
	else if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm%02llds", (long long)(s / 60),
		    (long long)(s % 60));
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm%02llds",
		    (long long)(s / 3600), (long long)(s / 60 % 60),
		    (long long)(s % 60));
	else
		snprintf(buf, len, "%lldd%02lldh%02lldm",
		    (long long)(s / 86400), (long long)(s / 3600 % 24),
		    (long long)(s / 60 % 60));
}

void
admin_dur(int64_t ms, char *buf, size_t len)
{
	fmt_dur(ms, 1, buf, len);
}

void
admin_age(int64_t ms, char *buf, size_t len)
{
	fmt_dur(ms, 0, buf, len);
}

void
json_time(struct json *js, const char *key, int64_t ms)
{
	struct tm	 tm;
	time_t		 t;
	char		 buf[ADMIN_TIMELEN], k[64];

	json_key(js, key);
	t = (time_t)(ms / 1000);
	if (ms == 0 || gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		json_null(js);
	else
		json_str(js, buf);
	snprintf(k, sizeof(k), "%s_ms", key);
	json_key(js, k);
	if (ms == 0)
		json_null(js);
	else
		json_int(js, ms);
}

void
admin_result(const struct store_run *r, char *buf, size_t len)
{
	if (r->r_state != RUN_FINISHED)
		strlcpy(buf, store_run_state_name(r->r_state), len);
	else if (r->r_signal != 0)
		snprintf(buf, len, "signal %d", r->r_signal);
	else
		snprintf(buf, len, "exit %d", r->r_exit);
}

void
admin_json_run(struct json *js, const struct store_run *r)
{
	json_key(js, "job");
	json_str(js, r->r_job);
	json_key(js, "node");
	json_str(js, r->r_node);
	json_time(js, "fire", (int64_t)r->r_fire * 1000);
	json_key(js, "attempt");
	json_int(js, r->r_attempt);
	json_key(js, "pid");
	if (r->r_pid > 0)
		json_int(js, r->r_pid);
	else
		json_null(js);
	json_time(js, "started", r->r_start);
	json_time(js, "ended", r->r_end);
	json_key(js, "duration_ms");
	if (r->r_end != 0 && r->r_start != 0)
		json_int(js, r->r_end - r->r_start);
	else
		json_null(js);
	json_key(js, "state");
	json_str(js, store_run_state_name(r->r_state));
	json_key(js, "exit");
	if (r->r_state == RUN_FINISHED && r->r_signal == 0)
		json_int(js, r->r_exit);
	else
		json_null(js);
	json_key(js, "signal");
	if (r->r_signal != 0)
		json_int(js, r->r_signal);
	else
		json_null(js);
	json_key(js, "output");
	if (r->r_output != NULL)
		json_strn(js, r->r_output, r->r_outlen);
	else
		json_str(js, "");
	json_key(js, "output_bytes");
	json_int(js, r->r_outtotal);
}

int
admin_done(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	return (0);
}
