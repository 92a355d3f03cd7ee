/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * crontab.c: unit tests of crontab_parse() and cron_entry_id().
 *
 * Each tests/data/crontab/NAME.tab is parsed and compared with
 * NAME.exp, whose lines are:
 *
 *	flags system|seconds ...	parse flags (first, optional)
 *	rc N				crontab_parse()'s result
 *	entries N			how many entries
 *	diag TEXT			one diagnostic, rendered as
 *					"NAME.tab:LINE:COL: [warning: ]MSG"
 *					(":COL" left out when 0); every
 *					diagnostic is listed, in order
 *	entry LINE			the entry from that line; the
 *					indented lines below it check it:
 *	  when|user|cmd|input|tz|name TEXT   strings ("(null)" for NULL)
 *	  env TEXT			the environment joined with " | "
 *	  envsame LINE			shares the environment array with
 *					the entry of that line
 *	  usersame LINE			shares the user string likewise
 *	  sched min=... flags=...	as in tests/data/expr/accept.txt
 *	  scope|overlap|misfire|lost|grace|timeout|spread|retry VALUE
 *
 * In TEXT, \n \t \r and \\ stand for themselves.  identity.txt lines
 * are "same|differ <tab> A <tab> B", where A and B are
 * "OWNER|FORMAT|TABLE" (FORMAT u or s, TABLE with \n escapes): the
 * identities of the last entry of each table must be equal or differ.
 * Every file in tests/data/cron.d/ but README must parse in system
 * format without errors.
 */

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "tap.h"
#include "testdata.h"

#define MAXFILE	(1024 * 1024)

static const char *topdir(void);
static char	*slurp(const char *, size_t *);
static void	 unescape(char *);
static void	 render_diag(const struct cron_diag *, char *, size_t);
static void	 render_env(const char *const *, char *, size_t);
static void	 render_sched(const struct cron_sched *, const char *, char *,
		    size_t);
static void	 normalise_sched(const char *, char *, size_t);
static void	 render_opt(const struct cron_entry *, const char *, char *,
		    size_t);
static const struct cron_entry *find_entry(const struct crontab *, size_t);
static void	 check_key(const char *, const struct crontab *,
		    const struct cron_entry *, char *, char *);
static void	 run_case(const char *, const char *);
static void	 run_cases(void);
static int	 table_id(char *, char [CRON_IDLEN + 1]);
static void	 run_identity(void);
static void	 run_crond(void);
static void	 run_api(void);
static void	 run_long_lines(void);
static void	 run_env_bounds(void);
static void	 run_memory(void);

static const char *
topdir(void)
{
	const char	*top;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	return (top);
}

static char *
slurp(const char *path, size_t *lenp)
{
	FILE	*fp;
	char	*buf;
	size_t	 n;

	if ((fp = fopen(path, "rb")) == NULL)
		return (NULL);
	if ((buf = malloc(MAXFILE + 1)) == NULL) {
		fclose(fp);
		return (NULL);
	}
	n = fread(buf, 1, MAXFILE, fp);
	fclose(fp);
	buf[n] = '\0';
	*lenp = n;
	return (buf);
}

static void
unescape(char *s)
{
	char	*o = s;

	for (; *s != '\0'; s++) {
		if (s[0] != '\\' || s[1] == '\0') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'r':
			*o++ = '\r';
			break;
		default:
			*o++ = *s;
			break;
		}
	}
	*o = '\0';
}

static void
render_diag(const struct cron_diag *d, char *buf, size_t size)
{
	char	 col[32] = "";

	if (d->d_col != 0)
		(void)snprintf(col, sizeof(col), ":%zu", d->d_col);
	(void)snprintf(buf, size, "%s:%zu%s: %s%s", d->d_file ? d->d_file :
	    "(null)", d->d_line, col, d->d_warning ? "warning: " : "",
	    d->d_msg);
}

static void
render_env(const char *const *env, char *buf, size_t size)
{
	buf[0] = '\0';
	for (; env != NULL && *env != NULL; env++) {
		if (buf[0] != '\0')
			(void)strlcat(buf, " | ", size);
		(void)strlcat(buf, *env, size);
	}
}

/*
 * The schedule in the expectation's own terms: only the fields the
 * expectation names, in its order, so that it compares as a string.
 */
static void
render_sched(const struct cron_sched *s, const char *want, char *buf,
    size_t size)
{
	static const struct {
		const char	*name;
		unsigned int	 flag;
	} names[] = {
		{ "MIN", SCHED_MIN_STAR }, { "HOUR", SCHED_HOUR_STAR },
		{ "DOM", SCHED_DOM_STAR }, { "DOW", SCHED_DOW_STAR },
		{ "REBOOT", SCHED_REBOOT }, { "SECONDS", SCHED_SECONDS },
	};
	char		 copy[512], *p, *tok, one[256], *eq;
	uint64_t	 bits, have;
	size_t		 i;
	int		 v, w;

	buf[0] = '\0';
	(void)strlcpy(copy, want, sizeof(copy));
	p = copy;
	while ((tok = strsep(&p, " ")) != NULL) {
		if (*tok == '\0' || (eq = strchr(tok, '=')) == NULL)
			continue;
		*eq = '\0';
		if (buf[0] != '\0')
			(void)strlcat(buf, " ", size);
		(void)strlcat(buf, tok, size);
		(void)strlcat(buf, "=", size);
		if (strcmp(tok, "flags") == 0) {
			one[0] = '\0';
			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
				if ((s->s_flags & names[i].flag) == 0)
					continue;
				if (one[0] != '\0')
					(void)strlcat(one, ",", sizeof(one));
				(void)strlcat(one, names[i].name,
				    sizeof(one));
			}
			(void)strlcat(buf, one[0] ? one : "none", size);
			continue;
		}
		have = strcmp(tok, "sec") == 0 ? s->s_sec :
		    strcmp(tok, "min") == 0 ? s->s_min :
		    strcmp(tok, "hour") == 0 ? s->s_hour :
		    strcmp(tok, "dom") == 0 ? s->s_dom :
		    strcmp(tok, "mon") == 0 ? s->s_mon : s->s_dow;
		(void)td_parse_set("none", &bits);
		one[0] = '\0';
		for (v = 0; v < 64; v++) {
			if ((have & ((uint64_t)1 << v)) == 0)
				continue;
			for (w = v; w < 63 && (have & ((uint64_t)1 <<
			    (w + 1))); w++)
				;
			if (one[0] != '\0')
				(void)strlcat(one, ",", sizeof(one));
			(void)snprintf(one + strlen(one), sizeof(one) -
			    strlen(one), w == v ? "%d" : "%d-%d", v, w);
			v = w;
		}
		(void)strlcat(buf, one[0] ? one : "none", size);
	}
}

/* Normalise an expected set ("1,2,3" into "1-3") through the parser. */
static void
normalise_sched(const char *want, char *buf, size_t size)
{
	struct cron_sched	 s;
	char			 copy[512], *p, *tok, *eq;
	uint64_t		 bits;
	static const char *const fl[] = { "MIN", "HOUR", "DOM", "DOW",
	    "REBOOT", "SECONDS" };
	unsigned int		 i;

	memset(&s, 0, sizeof(s));
	(void)strlcpy(copy, want, sizeof(copy));
	p = copy;
	while ((tok = strsep(&p, " ")) != NULL) {
		if ((eq = strchr(tok, '=')) == NULL)
			continue;
		*eq++ = '\0';
		if (strcmp(tok, "flags") == 0) {
			for (i = 0; i < 6; i++)
				if (strstr(eq, fl[i]) != NULL)
					s.s_flags |= 1U << i;
			continue;
		}
		if (td_parse_set(eq, &bits) == -1)
			bits = 0;
		if (strcmp(tok, "sec") == 0)
			s.s_sec = bits;
		else if (strcmp(tok, "min") == 0)
			s.s_min = bits;
		else if (strcmp(tok, "hour") == 0)
			s.s_hour = (uint32_t)bits;
		else if (strcmp(tok, "dom") == 0)
			s.s_dom = (uint32_t)bits;
		else if (strcmp(tok, "mon") == 0)
			s.s_mon = (uint16_t)bits;
		else
			s.s_dow = (uint8_t)bits;
	}
	render_sched(&s, want, buf, size);
}

static void
render_opt(const struct cron_entry *e, const char *key, char *buf,
    size_t size)
{
	const struct cron_opts	*o = &e->e_opts;
	size_t			 i, n;

	buf[0] = '\0';
	if (strcmp(key, "scope") == 0)
		(void)strlcpy(buf, o->o_scope == SCOPE_NODE ? "node" :
		    "cluster", size);
	else if (strcmp(key, "overlap") == 0)
		(void)strlcpy(buf, o->o_overlap == OVERLAP_FORBID ? "forbid" :
		    "allow", size);
	else if (strcmp(key, "misfire") == 0)
		(void)strlcpy(buf, o->o_misfire == MISFIRE_CATCHUP ?
		    "catchup" : "skip", size);
	else if (strcmp(key, "lost") == 0)
		(void)strlcpy(buf, o->o_lost == LOST_RERUN ? "rerun" : "mark",
		    size);
	else if (strcmp(key, "grace") == 0)
		(void)snprintf(buf, size, "%u", o->o_grace);
	else if (strcmp(key, "timeout") == 0)
		(void)snprintf(buf, size, "%u", o->o_timeout);
	else if (strcmp(key, "spread") == 0)
		(void)snprintf(buf, size, "%u", o->o_spread);
	else if (strcmp(key, "retry") == 0) {
		for (i = 0; i < o->o_nretry; i++) {
			n = strlen(buf);
			(void)snprintf(buf + n, size - n, "%s%u", i ? "," : "",
			    o->o_retry[i]);
		}
		if (o->o_nretry == 0)
			(void)strlcpy(buf, "none", size);
	} else
		(void)strlcpy(buf, "(unknown key)", size);
}

static const struct cron_entry *
find_entry(const struct crontab *ct, size_t line)
{
	size_t	 i;

	for (i = 0; i < ct->ct_nent; i++)
		if (ct->ct_ent[i].e_line == line)
			return (&ct->ct_ent[i]);
	return (NULL);
}

static void
check_key(const char *where, const struct crontab *ct,
    const struct cron_entry *e, char *key, char *val)
{
	const struct cron_entry	*o;
	const char		*got;
	char			 buf[4096], want[4096];

	if (strcmp(key, "envsame") == 0) {
		o = find_entry(ct, (size_t)atoll(val));
		ok(o != NULL && o->e_env == e->e_env, "%s: environment "
		    "shared with line %s", where, val);
		return;
	}
	if (strcmp(key, "usersame") == 0) {
		o = find_entry(ct, (size_t)atoll(val));
		ok(o != NULL && o->e_user == e->e_user, "%s: user string "
		    "shared with line %s", where, val);
		return;
	}
	if (strcmp(key, "env") == 0) {
		render_env(e->e_env, buf, sizeof(buf));
		is_str(buf, val, "%s: env", where);
		return;
	}
	if (strcmp(key, "sched") == 0) {
		render_sched(&e->e_sched, val, buf, sizeof(buf));
		normalise_sched(val, want, sizeof(want));
		is_str(buf, want, "%s: schedule", where);
		return;
	}
	if (strcmp(key, "when") == 0 || strcmp(key, "user") == 0 ||
	    strcmp(key, "cmd") == 0 || strcmp(key, "input") == 0 ||
	    strcmp(key, "tz") == 0 || strcmp(key, "name") == 0) {
		got = strcmp(key, "when") == 0 ? e->e_when :
		    strcmp(key, "user") == 0 ? e->e_user :
		    strcmp(key, "cmd") == 0 ? e->e_cmd :
		    strcmp(key, "input") == 0 ? e->e_input :
		    strcmp(key, "tz") == 0 ? e->e_tz : e->e_opts.o_name;
		is_str(got, strcmp(val, "(null)") == 0 ? NULL : val,
		    "%s: %s", where, key);
		return;
	}
	render_opt(e, key, buf, sizeof(buf));
	is_str(buf, val, "%s: %s", where, key);
}

static void
run_case(const char *dir, const char *tab)
{
	struct crontab		*ct = NULL;
	const struct cron_entry	*e = NULL;
	char			 path[2100], where[2200], got[512];
	char			*buf, *exp, *line, *p, *key;
	size_t			 len, elen, lineno = 0, ndiag = 0;
	int			 flags = 0, rc = -2;
	int			 parsed = 0;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, tab);
	if ((buf = slurp(path, &len)) == NULL) {
		ok(0, "read %s: %s", path, strerror(errno));
		return;
	}
	(void)snprintf(path + strlen(path) - 4, 5, ".exp");
	if ((exp = slurp(path, &elen)) == NULL) {
		ok(0, "read %s: %s", path, strerror(errno));
		free(buf);
		return;
	}
	p = exp;
	while ((line = strsep(&p, "\n")) != NULL) {
		lineno++;
		(void)snprintf(where, sizeof(where), "%s:%zu", tab, lineno);
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, "flags", 5) == 0 && !parsed) {
			if (strstr(line, "system") != NULL)
				flags |= CRON_SYSTEM;
			if (strstr(line, "seconds") != NULL)
				flags |= CRON_SECONDS;
			continue;
		}
		if (!parsed) {
			rc = crontab_parse(tab, buf, len, flags, &ct);
			parsed = 1;
			if (!ok(rc != -1 && ct != NULL, "%s: parsed", tab))
				break;
		}
		while (*line == ' ' || *line == '\t')
			line++;
		key = strsep(&line, " ");
		if (line == NULL)
			line = "";
		unescape(line);
		if (strcmp(key, "rc") == 0)
			is_int(rc, atoi(line), "%s: result", where);
		else if (strcmp(key, "entries") == 0)
			is_int((long long)ct->ct_nent, atoll(line),
			    "%s: entries", where);
		else if (strcmp(key, "diag") == 0) {
			if (ndiag < ct->ct_ndiag)
				render_diag(&ct->ct_diag[ndiag], got,
				    sizeof(got));
			else
				(void)strlcpy(got, "(no more diagnostics)",
				    sizeof(got));
			is_str(got, line, "%s: diagnostic %zu", where, ndiag);
			ndiag++;
		} else if (strcmp(key, "entry") == 0) {
			e = find_entry(ct, (size_t)atoll(line));
			ok(e != NULL, "%s: an entry from line %s", where,
			    line);
		} else if (e != NULL)
			check_key(where, ct, e, key, line);
	}
	if (parsed && ct != NULL) {
		if (!is_int((long long)ct->ct_ndiag, (long long)ndiag,
		    "%s: every diagnostic listed", tab)) {
			for (; ndiag < ct->ct_ndiag; ndiag++) {
				render_diag(&ct->ct_diag[ndiag], got,
				    sizeof(got));
				diag("diag %s", got);
			}
		}
		for (len = 0, ndiag = 0; ndiag < ct->ct_ndiag; ndiag++)
			len += ct->ct_diag[ndiag].d_warning == 0;
		is_int((long long)ct->ct_nerr, (long long)len,
		    "%s: ct_nerr counts the errors", tab);
	}
	crontab_free(ct);
	free(exp);
	free(buf);
}

static int
cmp_names(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static void
run_cases(void)
{
	DIR		*d;
	struct dirent	*de;
	char		 dir[1024], **names = NULL, **nn;
	size_t		 n = 0, i, len;

	(void)snprintf(dir, sizeof(dir), "%s/tests/data/crontab", topdir());
	if ((d = opendir(dir)) == NULL) {
		ok(0, "open %s: %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".tab") != 0)
			continue;
		if ((nn = reallocarray(names, n + 1, sizeof(*names))) ==
		    NULL)
			break;
		names = nn;
		if ((names[n] = strdup(de->d_name)) == NULL)
			break;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		run_case(dir, names[i]);
		free(names[i]);
	}
	free(names);
	ok(n >= 10, "%zu crontab cases", n);
}

/* "OWNER|FORMAT|TABLE": the identity of the table's last entry. */
static int
table_id(char *spec, char id[CRON_IDLEN + 1])
{
	struct crontab	*ct;
	char		*owner, *format;
	int		 rc;

	owner = strsep(&spec, "|");
	format = strsep(&spec, "|");
	if (spec == NULL)
		return (-1);
	unescape(spec);
	rc = crontab_parse("id", spec, strlen(spec),
	    format[0] == 's' ? CRON_SYSTEM : 0, &ct);
	if (rc != 0 || ct->ct_nent == 0) {
		if (ct != NULL && ct->ct_ndiag > 0)
			diag("%s", ct->ct_diag[0].d_msg);
		crontab_free(ct);
		return (-1);
	}
	cron_entry_id(&ct->ct_ent[ct->ct_nent - 1],
	    strcmp(owner, "(null)") == 0 ? NULL : owner, id);
	crontab_free(ct);
	return (0);
}

static void
run_identity(void)
{
	char	 path[1024], *buf, *p, *line, *a, *b, *how;
	char	 ida[CRON_IDLEN + 1], idb[CRON_IDLEN + 1];
	size_t	 len, lineno = 0, i;
	int	 hex;

	(void)snprintf(path, sizeof(path), "%s/tests/data/crontab/"
	    "identity.txt", topdir());
	if ((buf = slurp(path, &len)) == NULL) {
		ok(0, "read %s: %s", path, strerror(errno));
		return;
	}
	p = buf;
	while ((line = strsep(&p, "\n")) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		how = strsep(&line, "\t");
		a = strsep(&line, "\t");
		b = line;
		if (a == NULL || b == NULL) {
			ok(0, "identity.txt:%zu: malformed", lineno);
			continue;
		}
		if (table_id(a, ida) == -1 || table_id(b, idb) == -1) {
			ok(0, "identity.txt:%zu: tables parse", lineno);
			continue;
		}
		for (hex = 1, i = 0; i < CRON_IDLEN; i++)
			hex &= strchr("0123456789abcdef", ida[i]) != NULL;
		ok(hex && strlen(ida) == CRON_IDLEN, "identity.txt:%zu: 32 "
		    "lower-case hex digits", lineno);
		if (strcmp(how, "same") == 0)
			is_str(ida, idb, "identity.txt:%zu: same identity",
			    lineno);
		else
			ok(strcmp(ida, idb) != 0, "identity.txt:%zu: "
			    "identities differ", lineno);
	}
	free(buf);
}

static void
run_crond(void)
{
	DIR		*d;
	struct dirent	*de;
	struct crontab	*ct;
	char		 dir[1024], path[2048], *buf;
	size_t		 len, i;
	int		 rc, n = 0;

	(void)snprintf(dir, sizeof(dir), "%s/tests/data/cron.d", topdir());
	if ((d = opendir(dir)) == NULL) {
		ok(0, "open %s: %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "README") == 0)
			continue;
		(void)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((buf = slurp(path, &len)) == NULL) {
			ok(0, "read %s", path);
			continue;
		}
		rc = crontab_parse(de->d_name, buf, len, CRON_SYSTEM, &ct);
		ok(rc == 0 && ct->ct_nent > 0 && ct->ct_ndiag == 0,
		    "cron.d/%s parses in system format without errors",
		    de->d_name);
		for (i = 0; ct != NULL && i < ct->ct_ndiag; i++)
			diag("%s:%zu:%zu: %s", de->d_name,
			    ct->ct_diag[i].d_line, ct->ct_diag[i].d_col,
			    ct->ct_diag[i].d_msg);
		crontab_free(ct);
		free(buf);
		n++;
	}
	closedir(d);
	ok(n >= 5, "%d Debian cron.d files", n);
}

/* The interface's promises that no data file shows. */
static void
run_api(void)
{
	struct crontab	*ct;
	const char	 text[] = "0 0 * * * one\n1 1 * * * two\nGARBAGE";
	int		 rc;

	crontab_free(NULL);
	ok(1, "crontab_free(NULL) is a no-op");

	/* The buffer need not be NUL-terminated: len bounds it. */
	rc = crontab_parse("t", text, strlen("0 0 * * * one\n1 1 * * * t"),
	    0, &ct);
	ok(rc == 0 && ct->ct_nent == 2, "len bounds the table");
	if (rc == 0) {
		is_str(ct->ct_ent[1].e_cmd, "t", "last command cut at len");
		is_int((long long)ct->ct_ndiag, 1, "one warning (newline)");
	}
	crontab_free(ct);

	rc = crontab_parse("t", "", 0, 0, &ct);
	ok(rc == 0 && ct->ct_nent == 0 && ct->ct_ndiag == 0,
	    "an empty table");
	crontab_free(ct);

	rc = crontab_parse("t", text, strlen(text), 0, &ct);
	ok(rc == 1 && ct->ct_nent == 2 && ct->ct_nerr == 1,
	    "a bad line gives no entry, the others stay");
	crontab_free(ct);

	/* A NUL byte is an error at its column; the next line is read. */
	rc = crontab_parse("t", "0 0 * * * a\0b\n1 1 * * * c\n", 26, 0, &ct);
	ok(rc == 1 && ct->ct_nent == 1 && ct->ct_ndiag == 1 &&
	    ct->ct_diag[0].d_line == 1 && ct->ct_diag[0].d_col == 12,
	    "a NUL byte is an error at its column");
	if (rc == 1)
		is_str(ct->ct_diag[0].d_msg, "found a NUL byte, expected text",
		    "NUL byte message");
	crontab_free(ct);

	run_long_lines();
	run_env_bounds();
}

/*
 * A hostile table cannot make the environment snapshots grow without
 * bound: at most 1000 variables, at most 8 Mi pointers in snapshots.
 */
static void
run_env_bounds(void)
{
	struct crontab	*ct;
	char		*buf;
	size_t		 i, len = 0, cap = 1024 * 1024;
	int		 rc;

	if ((buf = malloc(cap)) == NULL) {
		ok(0, "malloc");
		return;
	}
	for (i = 0; i < 1001; i++)
		len += (size_t)snprintf(buf + len, cap - len, "V%zu=x\n", i);
	len += (size_t)snprintf(buf + len, cap - len, "0 0 * * * c\n");
	rc = crontab_parse("env", buf, len, 0, &ct);
	ok(rc == 1 && ct->ct_nerr == 1 && ct->ct_nent == 1,
	    "the 1001st variable is an error");
	if (rc == 1) {
		is_str(ct->ct_diag[0].d_msg, "found environment variable "
		    "1001, expected at most 1000 in a table", "its message");
		is_int((long long)ct->ct_diag[0].d_line, 1001, "its line");
	}
	crontab_free(ct);

	/* 1000 variables, then an entry after each of 8400 changes. */
	len -= strlen("V1000=x\n0 0 * * * c\n");
	for (i = 0; i < 8400; i++)
		len += (size_t)snprintf(buf + len, cap - len,
		    "V1=%zu\n0 0 * * * c\n", i);
	rc = crontab_parse("env", buf, len, 0, &ct);
	ok(rc == 1 && ct->ct_nent == 256 * 1024 / 1001 &&
	    ct->ct_nerr == 8400 - ct->ct_nent,
	    "snapshots stop at 256 Ki pointers, with an error per entry");
	if (rc == 1)
		is_str(ct->ct_diag[0].d_msg, "found more environment lines "
		    "between entries than a table may have, expected at most "
		    "262144 variables in all snapshots", "its message");
	crontab_free(ct);
	free(buf);
}

/* Long lines: up to 64 KiB is read, longer is an error, not a crash. */
static void
run_long_lines(void)
{
	struct crontab	*ct;
	char		*buf;
	size_t		 n, len, cap = 200 * 1024;
	int		 rc;

	if ((buf = malloc(cap)) == NULL) {
		ok(0, "malloc");
		return;
	}
	/* A line of exactly 65536 bytes, then one of 65537. */
	len = (size_t)snprintf(buf, cap, "0 0 * * * echo ");
	n = 65536 - len;
	memset(buf + len, 'x', n);
	len += n;
	buf[len++] = '\n';
	len += (size_t)snprintf(buf + len, cap - len, "1 1 * * * echo ");
	memset(buf + len, 'y', n + 1);
	len += n + 1;
	buf[len++] = '\n';
	len += (size_t)snprintf(buf + len, cap - len, "2 2 * * * after\n");
	rc = crontab_parse("long", buf, len, 0, &ct);
	ok(rc == 1 && ct->ct_nent == 2, "a 64 KiB line is read, a longer "
	    "one is not");
	if (rc == 1) {
		is_int((long long)strlen(ct->ct_ent[0].e_cmd), 65536 - 10,
		    "the long command is whole");
		is_int((long long)ct->ct_diag[0].d_line, 2, "error on line 2");
		is_str(ct->ct_diag[0].d_msg, "found a line of 65537 bytes, "
		    "expected at most 65536", "long line message");
		is_int((long long)ct->ct_ent[1].e_line, 3,
		    "the next line is read");
	}
	crontab_free(ct);
	free(buf);
}

/*
 * Memory: a large table with a few environment lines shares its
 * snapshots; entries of a user table carry no user.
 */
static void
run_memory(void)
{
	struct crontab	*ct;
	char		*buf;
	size_t		 i, n, len = 0, cap = 4 * 1024 * 1024;
	int		 rc, shared = 1;

	if ((buf = malloc(cap)) == NULL) {
		ok(0, "malloc");
		return;
	}
	len += (size_t)snprintf(buf + len, cap - len, "SHELL=/bin/sh\n"
	    "MAILTO=ops\n");
	for (n = 0; n < 20000; n++) {
		if (n == 10000)
			len += (size_t)snprintf(buf + len, cap - len,
			    "MAILTO=\"\"\n");
		len += (size_t)snprintf(buf + len, cap - len,
		    "%zu %zu * * * /usr/bin/job%zu --flag\n", n % 60,
		    n % 24, n);
	}
	rc = crontab_parse("big", buf, len, 0, &ct);
	ok(rc == 0 && ct->ct_nent == 20000, "20000 entries");
	if (rc == 0) {
		for (i = 1; i < ct->ct_nent; i++)
			if (i != 10000 &&
			    ct->ct_ent[i].e_env != ct->ct_ent[i - 1].e_env)
				shared = 0;
		ok(shared, "consecutive entries share the environment");
		ok(ct->ct_ent[10000].e_env != ct->ct_ent[9999].e_env,
		    "an environment line makes a new snapshot");
		is_str(ct->ct_ent[10000].e_env[1], "MAILTO=",
		    "the later value replaces the earlier in place");
		is_str(ct->ct_ent[9999].e_env[1], "MAILTO=ops",
		    "the earlier snapshot is unchanged");
		ok(ct->ct_ent[5].e_user == NULL, "no user in a user table");
	}
	crontab_free(ct);
	free(buf);
}

/* The entries crontab_parse_each() hands over, copied. */
struct handed {
	struct cron_entry e[16];
	size_t		 n;
};

static void
hand(void *arg, const struct cron_entry *e)
{
	struct handed	*h = arg;

	if (h->n < 16)
		h->e[h->n] = *e;
	h->n++;
}

static int
str_same(const char *a, const char *b)
{
	return (a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0);
}

static int
entry_same(const struct cron_entry *a, const struct cron_entry *b)
{
	struct cron_opts oa = a->e_opts, ob = b->e_opts;
	size_t		 i;

	oa.o_name = ob.o_name = NULL;
	if (memcmp(&a->e_sched, &b->e_sched, sizeof(a->e_sched)) != 0 ||
	    memcmp(&oa, &ob, sizeof(oa)) != 0 ||
	    !str_same(a->e_opts.o_name, b->e_opts.o_name) ||
	    !str_same(a->e_user, b->e_user) || !str_same(a->e_cmd, b->e_cmd) ||
	    !str_same(a->e_input, b->e_input) || !str_same(a->e_tz, b->e_tz) ||
	    !str_same(a->e_when, b->e_when) || a->e_line != b->e_line)
		return (0);
	for (i = 0; a->e_env[i] != NULL || b->e_env[i] != NULL; i++)
		if (!str_same(a->e_env[i], b->e_env[i]))
			return (0);
	return (1);
}

/*
 * crontab_parse_each(): the entries crontab_parse() keeps, handed over
 * one by one instead, with the same diagnostics, and none kept.
 */
static void
run_each(void)
{
	static const char tab[] =
	    "MAILTO=ops\n"
	    "0 1 * * * root /bin/one%in\n"
	    "CRON_TZ=Europe/Paris\n"
	    "CLUSTERCRON_NAME=two\n"
	    "*/5 * * * * daemon /bin/two\n"
	    "61 * * * * root /bin/bad\n"
	    "CLUSTERCRON_MISFIRE=catchup\n"
	    "@daily root /bin/three\n";
	struct crontab	*a, *b;
	struct handed	 h;
	size_t		 i;
	int		 ra, rb, same;

	memset(&h, 0, sizeof(h));
	ra = crontab_parse("each", tab, sizeof(tab) - 1, CRON_SYSTEM, &a);
	rb = crontab_parse_each("each", tab, sizeof(tab) - 1, CRON_SYSTEM,
	    hand, &h, &b);
	ok(ra == 1 && rb == 1, "each: the same result (%d %d)", ra, rb);
	if (ra == -1 || rb == -1)
		return;
	ok(b->ct_ent == NULL && b->ct_nent == 3 && h.n == 3 &&
	    a->ct_nent == 3, "each: three entries handed over, none kept");
	for (i = 0, same = h.n == a->ct_nent; same && i < h.n; i++)
		same = entry_same(&h.e[i], &a->ct_ent[i]);
	ok(same, "each: each as crontab_parse() gives it");
	for (i = 0, same = a->ct_ndiag == b->ct_ndiag && a->ct_nerr ==
	    b->ct_nerr; same && i < a->ct_ndiag; i++)
		same = a->ct_diag[i].d_line == b->ct_diag[i].d_line &&
		    a->ct_diag[i].d_col == b->ct_diag[i].d_col &&
		    strcmp(a->ct_diag[i].d_msg, b->ct_diag[i].d_msg) == 0;
	ok(same && b->ct_nerr == 1, "each: the same diagnostics");
	crontab_free(a);
	crontab_free(b);
}

int
main(void)
{
	run_cases();
	run_each();
	run_identity();
	run_crond();
	run_api();
	run_memory();
	return (tap_done());
}
