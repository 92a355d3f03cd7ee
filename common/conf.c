/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * conf.c: the reader of clustercron.conf.  The file is a list of
 * "key = value" lines; whole-line "#" comments and blank lines are
 * skipped, blanks around the key and the value are trimmed, and a value
 * may be wrapped in one pair of double quotes (kept verbatim inside, so
 * that a password may hold "#", "=" or blanks).  The caller describes
 * the keys it knows in a table; every value is checked against its
 * type and bounds, and every problem in the file is reported, not only
 * the first, as "FILE:LINE: message".
 *
 * The file says which programs the daemon runs as root (sendmail) and
 * where its store and tables are, so it must be owned by root or the
 * user reading it and writable by no one else.  Some keys hold secrets;
 * their values never appear in a message, and a file that sets one
 * must not be readable by anyone but its owner either.
 * clustercron.conf itself has no such key (the store's password lives
 * in the MySQL option file, which lock/ checks the same way, with the
 * directories leading to it: conf_check_dirs()).
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define CONF_MAXFILE	(1024 * 1024)
#define CONF_MAXERRORS	100

struct conf {
	const struct conf_key	*c_keys;
	size_t			 c_nkeys;
	struct conf_value	*c_values;
};

static int	conf_error(struct conf_errors *, const char *, unsigned int,
		    const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
static int	conf_value(const struct conf_key *, const char *,
		    struct conf_value *, char *, size_t);
static int	parse_u64(const char *, const char **, uint64_t *);
static int	parse_scaled(const char *, const char *, const uint64_t *,
		    uint64_t *);
static const char *type_expect(const struct conf_key *, char *, size_t);
static int	check_private_st(const struct stat *, const char *, char *,
		    size_t);
static int	check_dir(const char *, const char *, char *, size_t);

/*
 * Append one message to the list, prefixed with "FILE:LINE: ", or
 * "FILE: " when line is 0, or nothing when file is NULL.  Returns 0, or
 * -1 with errno ENOMEM (the list then holds what it could).  Past
 * CONF_MAXERRORS messages, one "too many errors" line ends the list and
 * the rest are only counted.
 */
static int
conf_error(struct conf_errors *errs, const char *file, unsigned int line,
    const char *fmt, ...)
{
	va_list	  ap;
	char	  msg[512];
	char	 *s, **nmsg;
	int	  r;

	if (errs == NULL)
		return (0);
	if (errs->ce_count > CONF_MAXERRORS) {
		errs->ce_dropped++;
		return (0);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (errs->ce_count == CONF_MAXERRORS) {
		errs->ce_dropped++;
		strlcpy(msg, "too many errors", sizeof(msg));
	}
	if (file == NULL)
		r = asprintf(&s, "%s", msg);
	else if (line > 0)
		r = asprintf(&s, "%s:%u: %s", file, line, msg);
	else
		r = asprintf(&s, "%s: %s", file, msg);
	if (r == -1)
		return (-1);
	nmsg = reallocarray(errs->ce_msg, errs->ce_count + 1, sizeof(*nmsg));
	if (nmsg == NULL) {
		free(s);
		return (-1);
	}
	errs->ce_msg = nmsg;
	errs->ce_msg[errs->ce_count++] = s;
	return (0);
}

void
conf_errors_free(struct conf_errors *errs)
{
	size_t	 i;

	if (errs == NULL)
		return;
	for (i = 0; i < errs->ce_count; i++)
		free(errs->ce_msg[i]);
	free(errs->ce_msg);
	errs->ce_msg = NULL;
	errs->ce_count = 0;
	errs->ce_dropped = 0;
}

/*
 * An unsigned decimal number: digits only, no sign, no blanks.  *endp
 * is left on the first character after the digits.  Returns 0, or -1
 * when there are no digits or the number overflows.
 */
static int
parse_u64(const char *s, const char **endp, uint64_t *vp)
{
	uint64_t	 v = 0;
	const char	*p;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return (-1);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return (-1);
	*endp = p;
	*vp = v;
	return (0);
}

/*
 * A number followed by at most one unit letter from units (the letter
 * at index i multiplies by mult[i]); no letter means a multiplier of 1.
 */
static int
parse_scaled(const char *s, const char *units, const uint64_t *mult,
    uint64_t *vp)
{
	const char	*end, *u;
	uint64_t	 v;

	if (parse_u64(s, &end, &v) == -1)
		return (-1);
	if (*end == '\0') {
		*vp = v;
		return (0);
	}
	if (end[1] != '\0' || (u = strchr(units, *end)) == NULL)
		return (-1);
	if (v > UINT64_MAX / mult[u - units])
		return (-1);
	*vp = v * mult[u - units];
	return (0);
}

/* What a key of this type expects, for messages. */
static const char *
type_expect(const struct conf_key *k, char *buf, size_t len)
{
	switch (k->ck_type) {
	case CONF_STRING:
		return ("a string");
	case CONF_BOOL:
		return ("yes or no");
	case CONF_UINT:
		snprintf(buf, len, "a whole number from %" PRIu64 " to %"
		    PRIu64, k->ck_min, k->ck_max);
		return (buf);
	case CONF_DURATION:
		snprintf(buf, len, "a duration (a number with s, m, h or d) "
		    "from %" PRIu64 "s to %" PRIu64 "s", k->ck_min, k->ck_max);
		return (buf);
	case CONF_BYTES:
		snprintf(buf, len, "a size (a number with K, M or G) "
		    "from %" PRIu64 " to %" PRIu64 " bytes", k->ck_min,
		    k->ck_max);
		return (buf);
	}
	return ("a value");
}

/*
 * Convert the text of one value (quotes already removed) to the key's
 * type.  Returns 0, or -1 with a message in why (which never holds the
 * value of a secret key).  cv_str is allocated for strings only.
 */
static int
conf_value(const struct conf_key *k, const char *text, struct conf_value *v,
    char *why, size_t whylen)
{
	static const uint64_t	 tmult[] = { 1, 60, 3600, 86400 };
	static const uint64_t	 bmult[] = { 1024, 1024, 1048576, 1048576,
				    1073741824, 1073741824 };
	char			 ebuf[160], shown[44];
	uint64_t		 n;
	size_t			 i;
	int			 r = -1;

	switch (k->ck_type) {
	case CONF_STRING:
		if ((k->ck_flags & CONF_NONEMPTY) && *text == '\0') {
			snprintf(why, whylen, "%s: expected a non-empty "
			    "string", k->ck_name);
			return (-1);
		}
		if ((v->cv_str = strdup(text)) == NULL) {
			snprintf(why, whylen, "%s: %s", k->ck_name,
			    strerror(errno));
			return (-1);
		}
		return (0);
	case CONF_BOOL:
		if (strcmp(text, "yes") == 0) {
			v->cv_num = 1;
			return (0);
		}
		if (strcmp(text, "no") == 0) {
			v->cv_num = 0;
			return (0);
		}
		break;
	case CONF_UINT:
		r = parse_scaled(text, "", NULL, &n);
		break;
	case CONF_DURATION:
		r = parse_scaled(text, "smhd", tmult, &n);
		break;
	case CONF_BYTES:
		r = parse_scaled(text, "KkMmGg", bmult, &n);
		break;
	}
	if (r == 0 && n >= k->ck_min && n <= k->ck_max) {
		v->cv_num = n;
		return (0);
	}
	if (k->ck_flags & CONF_SECRET) {
		snprintf(why, whylen, "%s: expected %s", k->ck_name,
		    type_expect(k, ebuf, sizeof(ebuf)));
		return (-1);
	}
	/* Echo the value, tamed: printable, and 40 bytes at most. */
	for (i = 0; text[i] != '\0' && i < sizeof(shown) - 4; i++)
		shown[i] = text[i] >= ' ' && text[i] <= '~' ? text[i] : '?';
	strlcpy(shown + i, text[i] != '\0' ? "..." : "", sizeof(shown) - i);
	snprintf(why, whylen, "%s: expected %s, not \"%s\"", k->ck_name,
	    type_expect(k, ebuf, sizeof(ebuf)), shown);
	return (-1);
}

void
conf_free(struct conf *c)
{
	size_t	 i;

	if (c == NULL)
		return;
	for (i = 0; i < c->c_nkeys; i++) {
		if (c->c_values[i].cv_str == NULL)
			continue;
		if (c->c_keys[i].ck_flags & CONF_SECRET)
			explicit_bzero(c->c_values[i].cv_str,
			    strlen(c->c_values[i].cv_str));
		free(c->c_values[i].cv_str);
	}
	free(c->c_values);
	free(c);
}

/* Characters allowed in a key. */
static int
keychar(int ch)
{
	return ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-');
}

static int
blank(int ch)
{
	return (ch == ' ' || ch == '\t' || ch == '\r');
}

int
conf_parse(const char *name, const char *buf, size_t len,
    const struct conf_key *keys, size_t nkeys, struct conf **confp,
    struct conf_errors *errs)
{
	struct conf	*c;
	const char	*p, *end, *nl, *eq, *ks, *ke, *vs, *ve;
	char		*text = NULL;
	char		 why[512];
	size_t		 i, klen;
	unsigned int	 line = 0;
	int		 bad = 0;

	*confp = NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return (-1);
	c->c_keys = keys;
	c->c_nkeys = nkeys;
	if ((c->c_values = calloc(nkeys == 0 ? 1 : nkeys,
	    sizeof(*c->c_values))) == NULL)
		goto nomem;

	/* Defaults first: they pass through the same checks. */
	for (i = 0; i < nkeys; i++) {
		if (keys[i].ck_default == NULL)
			continue;
		if (conf_value(&keys[i], keys[i].ck_default, &c->c_values[i],
		    why, sizeof(why)) == -1) {
			bad = 1;
			if (conf_error(errs, "(default)", 0, "%s", why) == -1)
				goto nomem;
		}
	}

	for (p = buf, end = buf + len; p < end; p = nl + 1) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		ks = p;
		while (ks < nl && blank(*ks))
			ks++;
		if (ks == nl || *ks == '#')
			continue;
		if (memchr(p, '\0', (size_t)(nl - p)) != NULL) {
			bad = 1;
			if (conf_error(errs, name, line,
			    "NUL character in line") == -1)
				goto nomem;
			continue;
		}
		for (ke = ks; ke < nl && keychar(*ke); ke++)
			;
		eq = ke;
		while (eq < nl && blank(*eq))
			eq++;
		if (ke == ks || eq == nl || *eq != '=') {
			/* The line may be a stray password: never echo it. */
			bad = 1;
			if (conf_error(errs, name, line,
			    "expected \"key = value\"") == -1)
				goto nomem;
			continue;
		}
		klen = (size_t)(ke - ks);
		for (i = 0; i < nkeys; i++)
			if (strlen(keys[i].ck_name) == klen &&
			    memcmp(keys[i].ck_name, ks, klen) == 0)
				break;
		if (i == nkeys) {
			bad = 1;
			if (conf_error(errs, name, line, "unknown key \"%.*s\"",
			    (int)klen, ks) == -1)
				goto nomem;
			continue;
		}
		if (c->c_values[i].cv_line != 0) {
			bad = 1;
			if (conf_error(errs, name, line, "%s: duplicate key, "
			    "first set on line %u", keys[i].ck_name,
			    c->c_values[i].cv_line) == -1)
				goto nomem;
			continue;
		}
		vs = eq + 1;
		while (vs < nl && blank(*vs))
			vs++;
		ve = nl;
		while (ve > vs && blank(ve[-1]))
			ve--;
		if (ve > vs && (*vs == '"' || ve[-1] == '"')) {
			if (ve - vs < 2 || *vs != '"' || ve[-1] != '"') {
				bad = 1;
				if (conf_error(errs, name, line, "%s: "
				    "unmatched double quote",
				    keys[i].ck_name) == -1)
					goto nomem;
				continue;
			}
			vs++;
			ve--;
		}
		if ((text = strndup(vs, (size_t)(ve - vs))) == NULL)
			goto nomem;
		/* A default already there is replaced. */
		if (c->c_values[i].cv_str != NULL) {
			free(c->c_values[i].cv_str);
			c->c_values[i].cv_str = NULL;
		}
		if (conf_value(&keys[i], text, &c->c_values[i], why,
		    sizeof(why)) == -1) {
			bad = 1;
			if (conf_error(errs, name, line, "%s", why) == -1)
				goto nomem;
		}
		c->c_values[i].cv_line = line;
		explicit_bzero(text, strlen(text));
		free(text);
		text = NULL;
	}

	for (i = 0; i < nkeys; i++) {
		if ((keys[i].ck_flags & CONF_REQUIRED) &&
		    c->c_values[i].cv_line == 0) {
			bad = 1;
			if (conf_error(errs, name, 0, "%s: required but not "
			    "set", keys[i].ck_name) == -1)
				goto nomem;
		}
	}
	if (bad) {
		conf_free(c);
		errno = EINVAL;
		return (-1);
	}
	*confp = c;
	return (0);

nomem:
	free(text);
	conf_free(c);
	errno = ENOMEM;
	return (-1);
}

static int
check_private_st(const struct stat *st, const char *path, char *errbuf,
    size_t errlen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(errbuf, errlen, "%s: not a regular file", path);
		return (-1);
	}
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(errbuf, errlen, "%s: owned by uid %ju, neither root "
		    "nor the running user", path, (uintmax_t)st->st_uid);
		return (-1);
	}
	if (st->st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(errbuf, errlen, "%s: holds secrets but has mode "
		    "%04o; it must not be open to group or others "
		    "(chmod 600)", path, (unsigned int)(st->st_mode & 07777));
		return (-1);
	}
	return (0);
}

int
conf_check_private_fd(int fd, const char *path, char *errbuf, size_t errlen)
{
	struct stat	 st;

	if (fstat(fd, &st) == -1) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return (-1);
	}
	return (check_private_st(&st, path, errbuf, errlen));
}

int
conf_check_private(const char *path, char *errbuf, size_t errlen)
{
	int	 fd, r, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) ==
	    -1) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return (-1);
	}
	r = conf_check_private_fd(fd, path, errbuf, errlen);
	saved = errno;
	close(fd);
	errno = saved;
	return (r);
}

/* One directory on the way to path: see conf_check_dirs(). */
static int
check_dir(const char *dir, const char *path, char *errbuf, size_t errlen)
{
	struct stat	 st;

	if (stat(dir, &st) == -1) {
		snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(errbuf, errlen, "%s: owned by uid %ju, neither root "
		    "nor the running user, who could put another file in "
		    "place of %s", dir, (uintmax_t)st.st_uid, path);
		return (-1);
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (st.st_mode & S_ISVTX) == 0) {
		snprintf(errbuf, errlen, "%s: writable by group or others "
		    "(mode %04o), who could put another file in place of %s",
		    dir, (unsigned int)(st.st_mode & 07777), path);
		return (-1);
	}
	return (0);
}

/*
 * The directories from / down to the one holding path, with symbolic
 * links resolved: none may let anyone but root and the running user
 * put another file in path's place.  A directory writable by group or
 * others is refused unless it has the sticky bit (as /tmp), where
 * nobody may rename or remove what another owns.
 */
int
conf_check_dirs(const char *path, char *errbuf, size_t errlen)
{
	char		 dir[PATH_MAX], real[PATH_MAX], *p;
	size_t		 len, i;
	int		 c;

	if (strlcpy(dir, path, sizeof(dir)) >= sizeof(dir)) {
		snprintf(errbuf, errlen, "%s: %s", path,
		    strerror(ENAMETOOLONG));
		return (-1);
	}
	if ((p = strrchr(dir, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (p == dir)
		p[1] = '\0';
	else
		*p = '\0';
	if (realpath(dir, real) == NULL) {
		snprintf(errbuf, errlen, "%s: %s", dir, strerror(errno));
		return (-1);
	}
	if (check_dir("/", path, errbuf, errlen) == -1)
		return (-1);
	/* Then each longer prefix in turn: "/a", "/a/b", ... */
	len = strlen(real);
	for (i = 2; i <= len; i++) {
		if (i < len && real[i] != '/')
			continue;
		c = real[i];
		real[i] = '\0';
		if (check_dir(real, path, errbuf, errlen) == -1)
			return (-1);
		real[i] = (char)c;
	}
	return (0);
}

int
conf_load(const char *path, const struct conf_key *keys, size_t nkeys,
    struct conf **confp, struct conf_errors *errs)
{
	struct stat	 st;
	char		 why[512];
	char		*buf = NULL;
	size_t		 len, i;
	int		 fd = -1, saved;

	*confp = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) ==
	    -1 || fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		if (conf_error(errs, path, 0, "not a regular file") == -1)
			goto fail;
		goto fail_quiet;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		errno = EPERM;
		if (conf_error(errs, path, 0, "owned by uid %ju, neither root "
		    "nor the running user", (uintmax_t)st.st_uid) == -1)
			goto fail;
		goto fail_quiet;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		errno = EPERM;
		if (conf_error(errs, path, 0, "writable by group or others "
		    "(mode %04o)", (unsigned int)(st.st_mode & 07777)) == -1)
			goto fail;
		goto fail_quiet;
	}
	if ((uintmax_t)st.st_size > CONF_MAXFILE) {
		errno = EFBIG;
		goto fail;
	}
	if (file_read_fd(fd, CONF_MAXFILE, &buf, &len) == -1)
		goto fail;
	if (conf_parse(path, buf, len, keys, nkeys, confp, errs) == -1) {
		saved = errno;
		explicit_bzero(buf, len);
		free(buf);
		close(fd);
		errno = saved;
		return (-1);
	}
	explicit_bzero(buf, len);
	free(buf);
	buf = NULL;

	/* A file that sets a secret must be private. */
	for (i = 0; i < nkeys; i++) {
		if (!(keys[i].ck_flags & CONF_SECRET) ||
		    (*confp)->c_values[i].cv_line == 0)
			continue;
		if (check_private_st(&st, path, why, sizeof(why)) == -1) {
			conf_free(*confp);
			*confp = NULL;
			errno = EPERM;
			if (conf_error(errs, NULL, 0, "%s", why) == -1)
				goto fail;
			goto fail_quiet;
		}
		break;
	}
	close(fd);
	return (0);

fail:
	saved = errno;
	(void)conf_error(errs, path, 0, "%s", strerror(saved));
	errno = saved;
fail_quiet:
	saved = errno;
	free(buf);
	if (fd != -1)
		close(fd);
	errno = saved;
	return (-1);
}

int
conf_lookup(const struct conf *c, const char *name)
{
	size_t	 i;

	for (i = 0; i < c->c_nkeys; i++)
		if (strcmp(c->c_keys[i].ck_name, name) == 0)
			return ((int)i);
	return (-1);
}

const struct conf_value *
conf_get(const struct conf *c, size_t i)
{
	if (i >= c->c_nkeys)
		return (NULL);
	return (&c->c_values[i]);
}

const char *
conf_str(const struct conf *c, size_t i)
{
	if (i >= c->c_nkeys)
		return (NULL);
	return (c->c_values[i].cv_str);
}

uint64_t
conf_num(const struct conf *c, size_t i)
{
	if (i >= c->c_nkeys)
		return (0);
	return (c->c_values[i].cv_num);
}

int
conf_isset(const struct conf *c, size_t i)
{
	if (i >= c->c_nkeys)
		return (0);
	return (c->c_values[i].cv_line != 0);
}
