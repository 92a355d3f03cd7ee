/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * expr.c: unit tests of cron_expr_parse(), table-driven from
 * tests/data/expr/.  accept.txt lines are
 *
 *	FIELDS <tab> EXPRESSION <tab> EXPECTED
 *
 * with FIELDS 5 or 6 (CRON_SECONDS) and EXPECTED a list of sec=, min=,
 * hour=, dom=, mon=, dow= (values and ranges such as 0,15,30-32 or
 * "none"; sec defaults to 0, any other field left out is not checked)
 * and flags= (MIN,HOUR,DOM,DOW,REBOOT,SECONDS or none, default none).
 * reject.txt lines are
 *
 *	FIELDS <tab> EXPRESSION <tab> COLUMN <tab> MESSAGE
 *
 * In expressions \t stands for a tab.  Lines beginning with '#' and
 * blank lines are skipped.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "tap.h"
#include "testdata.h"

static void	 unescape(char *);
static int	 parse_flags(const char *, unsigned int *);
static void	 set_str(uint64_t, char *, size_t);
static int	 check_accept(const char *, int, char *, char *);
static int	 check_reject(const char *, int, char *, char *, char *,
		    char *);
static int	 run_file(const char *, int);

static void
unescape(char *s)
{
	char	*o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] == 't') {
			*o++ = '\t';
			s++;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

static int
parse_flags(const char *s, unsigned int *flags)
{
	static const struct {
		const char	*name;
		unsigned int	 flag;
	} names[] = {
		{ "MIN", SCHED_MIN_STAR }, { "HOUR", SCHED_HOUR_STAR },
		{ "DOM", SCHED_DOM_STAR }, { "DOW", SCHED_DOW_STAR },
		{ "REBOOT", SCHED_REBOOT }, { "SECONDS", SCHED_SECONDS },
	};
	char		 buf[128], *p, *tok;
	size_t		 i;

	*flags = 0;
	if (strcmp(s, "none") == 0)
		return (0);
	(void)strlcpy(buf, s, sizeof(buf));
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(tok, names[i].name) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return (-1);
		*flags |= names[i].flag;
	}
	return (0);
}

/* A bitset back into the readable form, for diagnostics. */
static void
set_str(uint64_t bits, char *buf, size_t size)
{
	char	 one[16];
	int	 v, w;

	buf[0] = '\0';
	for (v = 0; v < 64; v++) {
		if ((bits & ((uint64_t)1 << v)) == 0)
			continue;
		for (w = v; w < 63 && (bits & ((uint64_t)1 << (w + 1))); w++)
			;
		if (w == v)
			(void)snprintf(one, sizeof(one), "%s%d",
			    buf[0] ? "," : "", v);
		else
			(void)snprintf(one, sizeof(one), "%s%d-%d",
			    buf[0] ? "," : "", v, w);
		(void)strlcat(buf, one, size);
		v = w;
	}
	if (buf[0] == '\0')
		(void)strlcpy(buf, "none", size);
}

static int
check_accept(const char *where, int flags, char *expr, char *expected)
{
	struct cron_sched	 s;
	struct cron_diag	 d;
	char			*tok, *val, got[256], want[256];
	uint64_t		 bits, have;
	unsigned int		 wflags = 0;
	int			 pass = 1, rc;

	rc = cron_expr_parse(expr, flags, &s, &d);
	if (!ok(rc == 0, "%s: accept \"%s\"", where, expr)) {
		diag("col %zu: %s", d.d_col, d.d_msg);
		return (0);
	}
	/* Seconds default to 0 unless given. */
	if (!ok(strstr(expected, "sec=") != NULL || s.s_sec == 1,
	    "%s: \"%s\" sec=0", where, expr))
		pass = 0;
	while ((tok = strsep(&expected, " ")) != NULL) {
		if (*tok == '\0')
			continue;
		if ((val = strchr(tok, '=')) == NULL) {
			ok(0, "%s: bad expectation \"%s\"", where, tok);
			return (0);
		}
		*val++ = '\0';
		if (strcmp(tok, "flags") == 0) {
			if (parse_flags(val, &wflags) == -1) {
				ok(0, "%s: bad flags \"%s\"", where, val);
				return (0);
			}
			continue;
		}
		if (td_parse_set(val, &bits) == -1) {
			ok(0, "%s: bad set \"%s\"", where, val);
			return (0);
		}
		if (strcmp(tok, "sec") == 0)
			have = s.s_sec;
		else if (strcmp(tok, "min") == 0)
			have = s.s_min;
		else if (strcmp(tok, "hour") == 0)
			have = s.s_hour;
		else if (strcmp(tok, "dom") == 0)
			have = s.s_dom;
		else if (strcmp(tok, "mon") == 0)
			have = s.s_mon;
		else if (strcmp(tok, "dow") == 0)
			have = s.s_dow;
		else {
			ok(0, "%s: bad field \"%s\"", where, tok);
			return (0);
		}
		set_str(have, got, sizeof(got));
		set_str(bits, want, sizeof(want));
		if (!is_str(got, want, "%s: \"%s\" %s", where, expr, tok))
			pass = 0;
	}
	if (!is_int(s.s_flags, wflags, "%s: \"%s\" flags", where, expr))
		pass = 0;
	return (pass);
}

static int
check_reject(const char *where, int flags, char *expr, char *col,
    char *msg, char *unused)
{
	struct cron_sched	 s, zero;
	struct cron_diag	 d;
	int			 rc;

	(void)unused;
	memset(&s, 0xa5, sizeof(s));
	memset(&zero, 0, sizeof(zero));
	rc = cron_expr_parse(expr, flags, &s, &d);
	if (!ok(rc == -1, "%s: reject \"%s\"", where, expr))
		return (0);
	ok(memcmp(&s, &zero, sizeof(s)) == 0, "%s: \"%s\" leaves *out zeroed",
	    where, expr);
	is_int((long long)d.d_col, atoll(col), "%s: \"%s\" column", where,
	    expr);
	ok(d.d_line == 1 && d.d_file == NULL && d.d_warning == 0,
	    "%s: \"%s\" line 1, no file, an error", where, expr);
	return (is_str(d.d_msg, msg, "%s: \"%s\" message", where, expr));
}

static int
run_file(const char *name, int reject)
{
	const char	*top;
	char		 path[1024], where[1100], *line = NULL, *p, *f[4];
	size_t		 cap = 0, lineno = 0;
	ssize_t		 n;
	FILE		*fp;
	int		 i, flags, cases = 0;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	(void)snprintf(path, sizeof(path), "%s/tests/data/expr/%s", top,
	    name);
	if ((fp = fopen(path, "r")) == NULL) {
		ok(0, "open %s: %s", path, strerror(errno));
		return (0);
	}
	while ((n = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		p = line;
		for (i = 0; i < 4; i++)
			f[i] = strsep(&p, "\t");
		(void)snprintf(where, sizeof(where), "%s:%zu", name, lineno);
		if (f[1] == NULL || f[2] == NULL ||
		    (reject && f[3] == NULL)) {
			ok(0, "%s: malformed test line", where);
			continue;
		}
		flags = strcmp(f[0], "6") == 0 ? CRON_SECONDS : 0;
		unescape(f[1]);
		if (reject)
			check_reject(where, flags, f[1], f[2], f[3], NULL);
		else
			check_accept(where, flags, f[1], f[2]);
		cases++;
	}
	free(line);
	fclose(fp);
	diag("%s: %d cases", name, cases);
	return (cases);
}

int
main(void)
{
	struct cron_sched	 a, b;
	struct cron_diag	 d;

	run_file("accept.txt", 0);
	run_file("reject.txt", 1);

	/* Spellings of one schedule give the same bitsets. */
	ok(cron_expr_parse("0 0 * * 7", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 0 * * SUN", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "7 and SUN are the same");
	ok(cron_expr_parse("@daily", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 0 * * *", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "@daily is 0 0 * * *");
	ok(cron_expr_parse("@hourly", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 * * * *", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "@hourly is 0 * * * *");
	ok(cron_expr_parse("@weekly", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 0 * * 0", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "@weekly is 0 0 * * 0");
	ok(cron_expr_parse("@monthly", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 0 1 * *", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "@monthly is 0 0 1 * *");
	ok(cron_expr_parse("@yearly", 0, &a, &d) == 0 &&
	    cron_expr_parse("0 0 1 1 *", 0, &b, &d) == 0 &&
	    memcmp(&a, &b, sizeof(a)) == 0, "@yearly is 0 0 1 1 *");
	return (tap_done());
}
