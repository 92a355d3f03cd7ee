/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * atjob.c: what a one-shot job is (atjob.h): its back-off, the
 * environment at(1) captures, the script it writes, what follows an
 * attempt.  Shared by ctab and the daemon.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atjob.h"

struct sbuf {
	char	*s_p;
	size_t	 s_len;
	size_t	 s_cap;
	int	 s_fail;
};

static int	 parse_delay(const char *, size_t, uint32_t *);
static void	 sb_add(struct sbuf *, const char *, size_t);
static void	 sb_str(struct sbuf *, const char *);
static void	 sb_quoted(struct sbuf *, const char *, size_t, int);

/*
 * A delay: digits and an optional unit, from 1 second to AT_MAXDELAY.
 * Returns the length read, or 0 when there is no delay there.
 */
static int
parse_delay(const char *s, size_t n, uint32_t *out)
{
	uint64_t	 v = 0, mul = 1;
	size_t		 i;

	for (i = 0; i < n && isdigit((unsigned char)s[i]); i++) {
		if (i >= 9)
			return (0);
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0)
		return (0);
	if (i < n) {
		switch (s[i]) {
		case 's':
			break;
		case 'm':
			mul = 60;
			break;
		case 'h':
			mul = 3600;
			break;
		case 'd':
			mul = 86400;
			break;
		default:
			return (0);
		}
		i++;
	}
	if (i != n || v == 0 || v * mul > AT_MAXDELAY)
		return (0);
	*out = (uint32_t)(v * mul);
	return ((int)i);
}

int
at_backoff_parse(const char *text, struct at_backoff *b, char *err,
    size_t errlen)
{
	const char	*p, *end, *dots;
	size_t		 n;

	memset(b, 0, sizeof(*b));
	if ((dots = strstr(text, "..")) != NULL) {
		if (!parse_delay(text, (size_t)(dots - text), &b->b_delay[0])) {
			snprintf(err, errlen, "column 1: expected a delay "
			    "such as 30s, 5m, 2h or 1d (up to 30d)");
			return (-1);
		}
		if (!parse_delay(dots + 2, strlen(dots + 2), &b->b_cap) ||
		    b->b_cap < b->b_delay[0]) {
			snprintf(err, errlen, "column %zu: expected a cap of "
			    "at least the first delay and at most 30d",
			    (size_t)(dots - text) + 3);
			return (-1);
		}
		b->b_doubling = 1;
		b->b_n = 1;
		return (0);
	}
	for (p = text;; p = end + 1) {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (b->b_n == AT_MAXDELAYS) {
			snprintf(err, errlen, "column %zu: at most %d delays",
			    (size_t)(p - text) + 1, AT_MAXDELAYS);
			return (-1);
		}
		if (!parse_delay(p, n, &b->b_delay[b->b_n])) {
			snprintf(err, errlen, "column %zu: expected a delay "
			    "such as 30s, 5m, 2h or 1d (up to 30d)",
			    (size_t)(p - text) + 1);
			return (-1);
		}
		b->b_n++;
		if (*end == '\0')
			return (0);
	}
}

uint32_t
at_backoff_delay(const struct at_backoff *b, int n)
{
	uint64_t	 d;
	int		 i;

	if (b->b_n == 0)
		return (60);
	if (n < 1)
		n = 1;
	if (!b->b_doubling)
		return (b->b_delay[n <= b->b_n ? n - 1 : b->b_n - 1]);
	d = b->b_delay[0];
	for (i = 1; i < n && d < b->b_cap; i++)
		d *= 2;
	return (d > b->b_cap ? b->b_cap : (uint32_t)d);
}

/*
 * What at(1) leaves out of a job's environment.  Its own list: at 3.2.5
 * compares only as many characters as the name has, so that it also
 * drops E, T, U and the like, a slip not copied here.  Then what the
 * loader removes from a set-user-ID program's environment (glibc's
 * unsecure variables, and MALLOC_CHECK_), since Debian's at is one and
 * never sees them: a job submitted through it has none of them.
 */
static const char *const dropped[] = {
	"BASH_VERSINFO", "DISPLAY", "EUID", "GROUPS", "SHELLOPTS", "TERM",
	"UID", "_",
	"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES",
	"LOCALDOMAIN", "LOCPATH", "MALLOC_CHECK_", "MALLOC_TRACE",
	"NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR",
	"TZDIR",
	NULL
};

int
at_env_keep(const char *var)
{
	const char *const	*d;
	const char		*eq;
	size_t			 n, i;

	if ((eq = strchr(var, '=')) == NULL)
		return (0);
	n = (size_t)(eq - var);
	if (n == 0 || isdigit((unsigned char)var[0]))
		return (0);
	for (i = 0; i < n; i++)
		if (!isascii((unsigned char)var[i]) ||
		    (!isalnum((unsigned char)var[i]) && var[i] != '_'))
			return (0);
	if (n > 3 && strncmp(var, "LD_", 3) == 0)
		return (0);
	for (d = dropped; *d != NULL; d++)
		if (strlen(*d) == n && strncmp(var, *d, n) == 0)
			return (0);
	return (1);
}

static void
sb_add(struct sbuf *sb, const char *s, size_t n)
{
	char	*p;
	size_t	 cap;

	if (sb->s_fail)
		return;
	if (sb->s_len + n + 1 > sb->s_cap) {
		cap = sb->s_cap == 0 ? 1024 : sb->s_cap;
		while (cap < sb->s_len + n + 1)
			cap *= 2;
		if ((p = realloc(sb->s_p, cap)) == NULL) {
			sb->s_fail = 1;
			return;
		}
		sb->s_p = p;
		sb->s_cap = cap;
	}
	memcpy(sb->s_p + sb->s_len, s, n);
	sb->s_len += n;
	sb->s_p[sb->s_len] = '\0';
}

static void
sb_str(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

/*
 * A value as at quotes it: a newline becomes "<newline>" (closing and
 * reopening a quoted word), every other byte but a letter, a digit and
 * the harmless punctuation gets a backslash.  A directory keeps only
 * letters, digits and '/' bare.
 */
static void
sb_quoted(struct sbuf *sb, const char *s, size_t n, int dir)
{
	static const char bare[] = "%/{[]=}@+#,.:-_";
	size_t		 i;
	unsigned char	 c;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c == '\n') {
			sb_str(sb, "\"\n\"");
			continue;
		}
		if (!(isascii(c) && isalnum(c)) && (dir ? c != '/' :
		    c == '\0' || strchr(bare, c) == NULL))
			sb_add(sb, "\\", 1);
		sb_add(sb, (const char *)&s[i], 1);
	}
}

char *
at_script(long uid, long gid, const char *owner, int mail, int mask,
    const char *cwd, const char *env, size_t envlen, const char *cmd,
    size_t cmdlen, size_t *len)
{
	struct sbuf	 sb;
	const char	*p, *end, *eq;
	char		 line[128];

	memset(&sb, 0, sizeof(sb));
	sb_str(&sb, "#!/bin/sh\n");
	if (uid >= 0 && gid >= 0) {
		snprintf(line, sizeof(line), "# atrun uid=%ld gid=%ld\n", uid,
		    gid);
		sb_str(&sb, line);
	}
	sb_str(&sb, "# mail ");
	sb_str(&sb, owner);
	snprintf(line, sizeof(line), " %d\numask %o\n", mail, mask);
	sb_str(&sb, line);
	for (p = env; env != NULL && p < env + envlen; p = end + 1) {
		if ((end = memchr(p, '\0', envlen - (size_t)(p - env))) ==
		    NULL)
			end = env + envlen;
		if ((eq = memchr(p, '=', (size_t)(end - p))) == NULL)
			continue;
		sb_add(&sb, p, (size_t)(eq - p) + 1);
		sb_quoted(&sb, eq + 1, (size_t)(end - eq - 1), 0);
		sb_str(&sb, "; export ");
		sb_add(&sb, p, (size_t)(eq - p));
		sb_str(&sb, "\n");
	}
	sb_str(&sb, "cd ");
	sb_quoted(&sb, cwd, strlen(cwd), 1);
	sb_str(&sb, " || {\n\t echo 'Execution directory inaccessible' >&2\n"
	    "\t exit 1\n}\n");
	if (cmdlen > 0)
		sb_add(&sb, cmd, cmdlen);
	sb_str(&sb, "\n");
	if (sb.s_fail) {
		free(sb.s_p);
		return (NULL);
	}
	*len = sb.s_len;
	return (sb.s_p);
}

enum at_next
at_after(int retries, const struct at_backoff *b, int attempt,
    enum at_outcome how, int rerun, time_t now, time_t *next)
{
	int	 limit = retries;

	*next = 0;
	if (how == AT_OK)
		return (AT_NEXT_DONE);
	if (how == AT_FENCED) {
		*next = now;
		return (AT_NEXT_RETRY);
	}
	if (how == AT_LOST) {
		if (!rerun)
			return (AT_NEXT_FAILED);
		if (limit < 1) {
			/* The rerun of a job without retries: at once. */
			if (attempt > 1)
				return (AT_NEXT_FAILED);
			*next = now;
			return (AT_NEXT_RETRY);
		}
	}
	if (attempt > limit)
		return (AT_NEXT_FAILED);
	*next = now + (time_t)at_backoff_delay(b, attempt);
	return (AT_NEXT_RETRY);
}

int
at_queue_ok(int c)
{
	return (isascii(c) && isalpha(c));
}

void
at_summary(const char *cmd, size_t len, char *buf, size_t size)
{
	const char	*p, *end, *eol, *s, *e;
	size_t		 n = 0, k;

	buf[0] = '\0';
	if (cmd == NULL)
		return;
	if ((end = memchr(cmd, '\0', len)) == NULL)
		end = cmd + len;
	for (p = cmd; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		for (s = p; s < eol && strchr(" \t\r", *s) != NULL; s++)
			;
		for (e = eol; e > s && strchr(" \t\r", e[-1]) != NULL; e--)
			;
		if (s == e || *s == '#')
			continue;
		if (n > 0) {
			if (n + 2 >= size)
				break;
			memcpy(buf + n, "; ", 2);
			n += 2;
		}
		k = (size_t)(e - s);
		if (k > size - 1 - n)
			k = size - 1 - n;
		memcpy(buf + n, s, k);
		n += k;
		buf[n] = '\0';
		if (n == size - 1)
			break;
	}
}
