/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * atjob.c: what a one-shot job is (clustercron/atjob.c) and the fields
 * its requests travel in (clustercron/tabproto.c): back-offs as
 * written and the delays they give, the environment at keeps, the
 * script at -c prints (byte for byte as Debian's at 3.2.5 writes it),
 * the decision after an attempt, fields that carry any byte.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atjob.h"
#include "common.h"
#include "tabproto.h"
#include "tap.h"

static void	 test_backoff(void);
static void	 test_env(void);
static void	 test_script(void);
static void	 test_after(void);
static void	 test_fields(void);
static void	 test_summary(void);

static void
test_backoff(void)
{
	static const struct {
		const char	*text;
		const char	*err;		/* NULL: accepted */
		uint32_t	 delays[6];	/* retries 1 to 6 */
	} cases[] = {
		{ "1m,5m,30m", NULL, { 60, 300, 1800, 1800, 1800, 1800 } },
		{ "90", NULL, { 90, 90, 90, 90, 90, 90 } },
		{ "30s..5m", NULL, { 30, 60, 120, 240, 300, 300 } },
		{ "1h..1h", NULL, { 3600, 3600, 3600, 3600, 3600, 3600 } },
		{ "1d,30d", NULL, { 86400, 2592000, 2592000, 2592000,
		    2592000, 2592000 } },
		{ "", "column 1: expected a delay", { 0 } },
		{ "1m,", "column 4: expected a delay", { 0 } },
		{ "1m,5x", "column 4: expected a delay", { 0 } },
		{ "0s", "column 1: expected a delay", { 0 } },
		{ "31d", "column 1: expected a delay", { 0 } },
		{ "5m..1m", "column 5: expected a cap", { 0 } },
		{ "5m..", "column 5: expected a cap", { 0 } },
		{ "..5m", "column 1: expected a delay", { 0 } },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
		    "column 40: at most 16 delays", { 0 } },
	};
	struct at_backoff	 b;
	char			 err[128];
	size_t			 i;
	int			 k, rc, same;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = at_backoff_parse(cases[i].text, &b, err, sizeof(err));
		if (cases[i].err != NULL) {
			ok(rc == -1 && strncmp(err, cases[i].err,
			    strlen(cases[i].err)) == 0, "back-off \"%s\" "
			    "refused: %s", cases[i].text, rc == -1 ? err :
			    "(accepted)");
			continue;
		}
		for (same = rc == 0, k = 0; same && k < 6; k++)
			same = at_backoff_delay(&b, k + 1) ==
			    cases[i].delays[k];
		ok(same, "back-off \"%s\": its delays", cases[i].text);
	}
	ok(at_backoff_parse(AT_DEFAULT_BACKOFF, &b, err, sizeof(err)) == 0 &&
	    at_backoff_delay(&b, 1) == 60 && at_backoff_delay(&b, 7) == 3600,
	    "the default back-off, %s", AT_DEFAULT_BACKOFF);
	memset(&b, 0, sizeof(b));
	is_int(at_backoff_delay(&b, 3), 60, "no back-off: a minute");
}

static void
test_env(void)
{
	static const struct {
		const char	*var;
		int		 keep;
	} cases[] = {
		{ "HOME=/home/alice", 1 },
		{ "PATH=/usr/bin:/bin", 1 },
		{ "SHLVL=2", 1 },		/* at 3.2.5 keeps it */
		{ "PWD=/tmp", 1 },
		{ "E=1", 1 },			/* at drops it, by a slip */
		{ "LIBRARY_PATH=/x", 1 },
		{ "EMPTY=", 1 },
		{ "TERM=xterm", 0 },
		{ "DISPLAY=:0", 0 },
		{ "_=/usr/bin/at", 0 },
		{ "SHELLOPTS=braceexpand", 0 },
		{ "BASH_VERSINFO=5", 0 },
		{ "EUID=0", 0 },
		{ "UID=0", 0 },
		{ "GROUPS=0", 0 },
		{ "LD_PRELOAD=/x.so", 0 },	/* what the loader drops */
		{ "LD_LIBRARY_PATH=/x", 0 },
		{ "TMPDIR=/tmp/x", 0 },
		{ "TZDIR=/z", 0 },
		{ "NLSPATH=/n", 0 },
		{ "MALLOC_CHECK_=3", 0 },
		{ "GLIBC_TUNABLES=a", 0 },
		{ "A B=c", 0 },			/* names the shell cannot set */
		{ "x-y=1", 0 },
		{ "1X=1", 0 },
		{ "=v", 0 },
		{ "NOEQUALS", 0 },
	};
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(at_env_keep(cases[i].var), cases[i].keep, "env %s: %s",
		    cases[i].var, cases[i].keep ? "kept" : "left out");
}

/*
 * The script, as Debian's at 3.2.5 wrote it for the same job (read with
 * at -c): a value quoted byte by byte, a newline as "<newline>", the
 * directory with only letters, digits and '/' bare, the commands and a
 * newline after them.
 */
static void
test_script(void)
{
	static const char env[] = "Q=it's $x \"y\" `z` \\\\w\0"
	    "NL=a\nb\0V=\303\251%/{[]=}@+#,.:-_!^&*()<>?;|~x\0EMPTY=";
	static const char want[] =
	    "#!/bin/sh\n"
	    "# atrun uid=1003 gid=1004\n"
	    "# mail ccatx 1\n"
	    "umask 27\n"
	    "Q=it\\'s\\ \\$x\\ \\\"y\\\"\\ \\`z\\`\\ \\\\\\\\w; export Q\n"
	    "NL=a\"\n\"b; export NL\n"
	    "V=\\\303\\\251%/{[]=}@+#,.:-_\\!\\^\\&\\*\\(\\)\\<\\>\\?\\;\\|"
	    "\\~x; export V\n"
	    "EMPTY=; export EMPTY\n"
	    "cd /tmp/od\\ d/a\\-b\\.c\\_d\\+e\\~f\\'g\\$h || {\n"
	    "\t echo 'Execution directory inaccessible' >&2\n"
	    "\t exit 1\n"
	    "}\n"
	    "echo one\necho two\n";
	char	*s;
	size_t	 len;

	s = at_script(1003, 1004, "ccatx", 1, 027,
	    "/tmp/od d/a-b.c_d+e~f'g$h", env, sizeof(env) - 1,
	    "echo one\necho two", 17, &len);
	ok(s != NULL && len == strlen(want), "script: its length");
	is_str(s, want, "script: as at writes it");
	free(s);
	s = at_script(-1, -1, "nobody-here", -1, 022, "/", NULL, 0, "", 0,
	    &len);
	is_str(s, "#!/bin/sh\n# mail nobody-here -1\numask 22\ncd / || {\n"
	    "\t echo 'Execution directory inaccessible' >&2\n\t exit 1\n}\n"
	    "\n", "script: an owner unknown here, nothing else");
	free(s);
	s = at_script(0, 0, "root", 0, 022, "/", NULL, 0, "a\0b", 3, &len);
	ok(s != NULL && len > 4 && memcmp(s + len - 4, "a\0b\n", 4) == 0,
	    "script: commands with a NUL byte, kept");
	free(s);
}

static void
test_after(void)
{
	static const struct {
		int		 retries;
		int		 attempt;
		enum at_outcome	 how;
		int		 rerun;
		enum at_next	 want;
		time_t		 delay;
	} cases[] = {
		{ 0, 1, AT_OK, 0, AT_NEXT_DONE, 0 },
		{ 3, 2, AT_OK, 0, AT_NEXT_DONE, 0 },
		{ 0, 1, AT_FAILED_RUN, 0, AT_NEXT_FAILED, 0 },
		{ 3, 1, AT_FAILED_RUN, 0, AT_NEXT_RETRY, 60 },
		{ 3, 2, AT_FAILED_RUN, 0, AT_NEXT_RETRY, 300 },
		{ 3, 3, AT_FAILED_RUN, 0, AT_NEXT_RETRY, 1800 },
		{ 3, 4, AT_FAILED_RUN, 0, AT_NEXT_FAILED, 0 },
		{ 3, 1, AT_LOST, 0, AT_NEXT_FAILED, 0 },	/* mark */
		{ 3, 1, AT_LOST, 1, AT_NEXT_RETRY, 60 },	/* rerun */
		{ 3, 4, AT_LOST, 1, AT_NEXT_FAILED, 0 },
		{ 0, 1, AT_LOST, 1, AT_NEXT_RETRY, 0 },	/* once, at once */
		{ 0, 2, AT_LOST, 1, AT_NEXT_FAILED, 0 },
		{ 0, 1, AT_FENCED, 0, AT_NEXT_RETRY, 0 },	/* not started */
		{ 3, 4, AT_FENCED, 1, AT_NEXT_RETRY, 0 },
	};
	struct at_backoff	 b;
	char			 err[64];
	time_t			 next;
	size_t			 i;
	enum at_next		 got;

	at_backoff_parse("1m,5m,30m", &b, err, sizeof(err));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = at_after(cases[i].retries, &b, cases[i].attempt,
		    cases[i].how, cases[i].rerun, 1000, &next);
		ok(got == cases[i].want && next == (cases[i].want !=
		    AT_NEXT_RETRY ? 0 : 1000 + cases[i].delay), "after attempt %d of %d retries, "
		    "%s%s: %s", cases[i].attempt, cases[i].retries,
		    cases[i].how == AT_OK ? "ok" : cases[i].how == AT_LOST ?
		    "lost" : "failed", cases[i].rerun ? " (rerun)" : "",
		    got == AT_NEXT_DONE ? "done" : got == AT_NEXT_FAILED ?
		    "failed" : "retry");
	}
	ok(at_queue_ok('a') && at_queue_ok('Z') && !at_queue_ok('=') &&
	    !at_queue_ok('1') && !at_queue_ok(0xe9), "queues are letters");
}

static void
test_summary(void)
{
	static const char nul[] = "echo a\0rm -rf /\n";
	char	 buf[64], small[12];

	at_summary("echo hi\n", 8, buf, sizeof(buf));
	is_str(buf, "echo hi", "summary: one line");
	at_summary("#!/bin/sh\n\n  cd /srv \t\r\n# fetch\n\tmake all\n",
	    41, buf, sizeof(buf));
	is_str(buf, "cd /srv; make all", "summary: lines stripped, joined; "
	    "blank lines and comments left out");
	at_summary(nul, sizeof(nul) - 1, buf, sizeof(buf));
	is_str(buf, "echo a", "summary: a NUL byte ends the text");
	at_summary("echo one\necho two\n", 18, small, sizeof(small));
	is_str(small, "echo one; e", "summary: cut to fit");
	at_summary("echo one!!\necho two\n", 20, small, sizeof(small));
	is_str(small, "echo one!!", "summary: no dangling separator");
	at_summary("echo x\necho y", 10, buf, sizeof(buf));
	is_str(buf, "echo x; ech", "summary: len bytes only");
	at_summary(NULL, 0, buf, sizeof(buf));
	is_str(buf, "", "summary: none");
}

static void
test_fields(void)
{
	static const char bin[] = "a\nb\0c 12\n";
	struct tabbuf	 b;
	const char	*p, *end, *val;
	char		 name[16];
	size_t		 len;
	int64_t		 v;

	memset(&b, 0, sizeof(b));
	tab_field_str(&b, "key", "nightly");
	tab_field_add(&b, "cmd", bin, sizeof(bin) - 1);
	tab_field_num(&b, "due", -42);
	tab_field_str(&b, "empty", "");
	p = b.b_p;
	end = p + b.b_len;
	ok(tab_field_next(&p, end, name, sizeof(name), &val, &len) == 1 &&
	    strcmp(name, "key") == 0 && len == 7 && memcmp(val, "nightly",
	    7) == 0, "fields: a string");
	ok(tab_field_next(&p, end, name, sizeof(name), &val, &len) == 1 &&
	    strcmp(name, "cmd") == 0 && len == sizeof(bin) - 1 &&
	    memcmp(val, bin, len) == 0, "fields: newlines and NULs kept");
	ok(tab_field_next(&p, end, name, sizeof(name), &val, &len) == 1 &&
	    tab_field_int(val, len, INT64_MIN, 0, &v) == 0 && v == -42,
	    "fields: a number");
	ok(tab_field_next(&p, end, name, sizeof(name), &val, &len) == 1 &&
	    len == 0, "fields: an empty value");
	ok(tab_field_next(&p, end, name, sizeof(name), &val, &len) == 0,
	    "fields: the end");
	ok(tab_field_int("12x", 3, 0, 100, &v) == -1 &&
	    tab_field_int("", 0, 0, 100, &v) == -1 &&
	    tab_field_int("101", 3, 0, 100, &v) == -1, "fields: numbers "
	    "checked");
	free(b.b_p);

	/* Malformed: each refused, never read past the end. */
	{
		static const char *const bad[] = {
			"key 3\nabc",		/* no newline after */
			"key 9\nabc\n",		/* longer than there is */
			"key\nabc\n",		/* no length */
			" 3\nabc\n",		/* no name */
			"key x\nabc\n",		/* not a number */
			"key 3\nabcd",		/* wrong end */
			"key 1234567890\n",	/* absurd */
			"averyveryverylongname 1\na\n",
		};
		size_t	 i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			p = bad[i];
			ok(tab_field_next(&p, bad[i] + strlen(bad[i]), name,
			    sizeof(name), &val, &len) == -1, "fields: "
			    "malformed %zu refused", i);
		}
	}
}

int
main(void)
{
	test_backoff();
	test_env();
	test_script();
	test_after();
	test_fields();
	test_summary();
	return (tap_done());
}
