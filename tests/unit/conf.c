/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * conf.c: unit tests of common/conf.c, the clustercron.conf reader:
 * every type, quotes and blanks, defaults, every error at once with its
 * exact "FILE:LINE:" message, secrets kept out of messages, and the
 * private-file check on real files.
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

enum {
	K_STORE,
	K_HOST,
	K_PORT,
	K_USER,
	K_PASSWORD,
	K_FOREGROUND,
	K_HEARTBEAT,
	K_TIMEOUT,
	K_OUTPUT,
	K_MAIL,
	K_EMPTY,
	K_SENDMAIL,
	K_COUNT
};

static const struct conf_key keys[K_COUNT] = {
	[K_STORE] = { "store", CONF_STRING, CONF_NONEMPTY, 0, 0, "sqlite" },
	[K_HOST] = { "store.host", CONF_STRING, 0, 0, 0, NULL },
	[K_PORT] = { "store.port", CONF_UINT, 0, 1, 65535, "3306" },
	[K_USER] = { "store.user", CONF_STRING, CONF_REQUIRED, 0, 0, NULL },
	[K_PASSWORD] = { "store.password", CONF_STRING, CONF_SECRET, 0, 0,
	    NULL },
	[K_FOREGROUND] = { "foreground", CONF_BOOL, 0, 0, 0, "no" },
	[K_HEARTBEAT] = { "heartbeat", CONF_DURATION, 0, 1, 3600, "10s" },
	[K_TIMEOUT] = { "job.timeout", CONF_DURATION, 0, 0, 7 * 86400, "0" },
	[K_OUTPUT] = { "output.max", CONF_BYTES, 0, 0, 1024 * 1024 * 1024,
	    "4K" },
	[K_MAIL] = { "mail.max", CONF_BYTES, 0, 0, 1024 * 1024 * 1024,
	    "1M" },
	[K_EMPTY] = { "empty", CONF_STRING, 0, 0, 0, "x" },
	[K_SENDMAIL] = { "sendmail", CONF_STRING, 0, 0, 0,
	    "/usr/sbin/sendmail -i" },
};

static char	 tmpdir[] = "/tmp/cc-conf.XXXXXX";

static char *
datafile(const char *name, size_t *lenp)
{
	const char	*top;
	char		 path[1024];
	char		*buf;

	if ((top = getenv("top_srcdir")) == NULL)
		top = ".";
	snprintf(path, sizeof(path), "%s/tests/data/conf/%s", top, name);
	if (file_read(path, 1 << 20, &buf, lenp) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
	return (buf);
}

static int
parse_str(const char *text, struct conf **c, struct conf_errors *errs)
{
	return (conf_parse("t.conf", text, strlen(text), keys, K_COUNT, c,
	    errs));
}

static void
test_good(void)
{
	struct conf_errors	 errs = { 0 };
	struct conf		*c;
	char			*buf;
	size_t			 len;

	buf = datafile("good.conf", &len);
	ok(conf_parse("good.conf", buf, len, keys, K_COUNT, &c, &errs) == 0,
	    "good.conf parses");
	is_int((long long)errs.ce_count, 0, "good.conf: no messages");
	if (c == NULL) {
		free(buf);
		return;
	}
	is_str(conf_str(c, K_STORE), "mysql", "string");
	is_str(conf_str(c, K_HOST), "db1.example.org",
	    "blanks around key and value trimmed");
	is_str(conf_str(c, K_PASSWORD), "p#ss = word ",
	    "quoted value kept verbatim inside the quotes");
	is_int((long long)conf_num(c, K_PORT), 3306, "unsigned number");
	is_int((long long)conf_num(c, K_FOREGROUND), 1, "yes is 1");
	is_int((long long)conf_num(c, K_HEARTBEAT), 300, "5m is 300 s");
	is_int((long long)conf_num(c, K_TIMEOUT), 2 * 86400, "2d");
	is_int((long long)conf_num(c, K_OUTPUT), 65536, "64K");
	is_int((long long)conf_num(c, K_MAIL), 2 * 1048576, "2M");
	is_str(conf_str(c, K_EMPTY), "", "\"\" is the empty string");
	is_str(conf_str(c, K_SENDMAIL), "/usr/sbin/sendmail -i",
	    "default string");
	ok(conf_isset(c, K_PORT) && !conf_isset(c, K_SENDMAIL),
	    "conf_isset tells the file from the default");
	is_int(conf_get(c, K_HEARTBEAT)->cv_line, 9, "line of a value");
	is_int(conf_lookup(c, "job.timeout"), K_TIMEOUT, "conf_lookup");
	is_int(conf_lookup(c, "nosuch"), -1, "conf_lookup of unknown key");
	ok(conf_get(c, K_COUNT) == NULL && conf_str(c, K_COUNT) == NULL,
	    "index out of range");
	conf_free(c);
	conf_free(NULL);
	free(buf);
}

static void
test_bad(void)
{
	struct conf_errors	 errs = { 0 };
	struct conf		*c = (struct conf *)1;
	char			*buf, *want, *line, *next;
	size_t			 len, wlen, i;

	buf = datafile("bad.conf", &len);
	want = datafile("bad.expected", &wlen);
	ok(conf_parse("bad.conf", buf, len, keys, K_COUNT, &c, &errs) == -1 &&
	    errno == EINVAL, "bad.conf fails with EINVAL");
	ok(c == NULL, "OUT pointer NULL on failure");
	for (i = 0, line = want; *line != '\0'; line = next, i++) {
		next = strchr(line, '\n');
		*next++ = '\0';
		is_str(i < errs.ce_count ? errs.ce_msg[i] : NULL, line,
		    "message %zu", i + 1);
	}
	is_int((long long)errs.ce_count, (long long)i,
	    "every error reported, none more");
	for (i = 0; i < errs.ce_count; i++)
		if (strstr(errs.ce_msg[i], "hunter2") != NULL)
			break;
	ok(i == errs.ce_count, "no message holds the password");
	conf_errors_free(&errs);
	conf_errors_free(&errs);
	free(buf);
	free(want);
}

static void
test_edges(void)
{
	struct conf_errors	 errs = { 0 };
	struct conf		*c;
	static const struct conf_key badkey[] = {
		{ "n", CONF_UINT, 0, 5, 10, "3" },
	};
	static const struct conf_key secret[] = {
		{ "pw", CONF_UINT, CONF_SECRET, 0, 10, NULL },
	};
	char			 big[4096];
	size_t			 i;

	ok(parse_str("store.user=u\r\nstore.port=1\r\n", &c, &errs) == 0,
	    "CRLF line ends and no blanks");
	if (c != NULL) {
		is_int((long long)conf_num(c, K_PORT), 1, "port 1 with CR");
		conf_free(c);
	}
	ok(parse_str("store.user = u\nstore = \"\"\n", &c, &errs) == -1,
	    "CONF_NONEMPTY refuses the empty string");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL,
	    "t.conf:2: store: expected a non-empty string", "its message");
	conf_errors_free(&errs);

	ok(parse_str("store.user = u\nstore.port\n", &c, &errs) == -1,
	    "key without =");
	conf_errors_free(&errs);
	ok(parse_str("store.user = u", &c, &errs) == 0,
	    "last line without newline");
	conf_free(c);
	ok(parse_str("store.user = \"a\"b\"\n", &c, &errs) == 0,
	    "inner quotes kept");
	if (c != NULL) {
		is_str(conf_str(c, K_USER), "a\"b", "value a\"b");
		conf_free(c);
	}
	ok(parse_str("store.user = u # not a comment\n", &c, &errs) == 0,
	    "a # after a value");
	if (c != NULL) {
		is_str(conf_str(c, K_USER), "u # not a comment",
		    "is part of the value");
		conf_free(c);
	}
	ok(parse_str("store.user = u\nheartbeat = 0s\n", &c, &errs) == -1,
	    "below the lower bound");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL,
	    "t.conf:2: heartbeat: expected a duration (a number with s, m, h "
	    "or d) from 1s to 3600s, not \"0s\"", "its message");
	conf_errors_free(&errs);
	ok(parse_str("store.user = u\nheartbeat = 60\nfoo.bar=x\n", &c,
	    &errs) == -1, "bare number is seconds; unknown key still fails");
	is_int((long long)errs.ce_count, 1, "one message");
	conf_errors_free(&errs);
	ok(parse_str("store.user = u\nstore.port = 18446744073709551616\n",
	    &c, &errs) == -1, "2^64 overflows");
	conf_errors_free(&errs);
	ok(parse_str("store.user = u\nforeground = \033[2J0123456789"
	    "0123456789012345678901234567890123456789\n", &c, &errs) == -1,
	    "long value with an escape");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL,
	    "t.conf:2: foreground: expected yes or no, not \"?[2J012345678901"
	    "234567890123456789012345...\"", "echoed tamed and cut");
	conf_errors_free(&errs);

	ok(conf_parse("x", "", 0, badkey, 1, &c, &errs) == -1,
	    "a default outside its bounds is an error");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL,
	    "(default): n: expected a whole number from 5 to 10, not \"3\"",
	    "its message");
	conf_errors_free(&errs);

	ok(conf_parse("x", "pw = 11", 7, secret, 1, &c, &errs) == -1,
	    "a bad secret value");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL,
	    "x:1: pw: expected a whole number from 0 to 10",
	    "is not echoed");
	conf_errors_free(&errs);

	/* 150 bad lines: 100 messages, then one "too many errors". */
	big[0] = '\0';
	for (i = 0; i < 150; i++)
		strlcat(big, "bad\n", sizeof(big));
	ok(conf_parse("x", big, strlen(big), keys, K_COUNT, &c, &errs) == -1,
	    "150 bad lines");
	is_int((long long)errs.ce_count, 101, "101 messages kept");
	is_str(errs.ce_count == 101 ? errs.ce_msg[100] : NULL,
	    "x:101: too many errors", "the last says too many");
	conf_errors_free(&errs);

	ok(conf_parse("x", "a\0b = c\n", 8, keys, K_COUNT, &c, &errs) == -1,
	    "NUL in a line");
	conf_errors_free(&errs);
	ok(parse_str("store.user = u\n", &c, NULL) == 0, "errs may be NULL");
	conf_free(c);
}

static int
writefile(const char *path, const char *text, mode_t mode)
{
	int	 fd;

	unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1)
		return (-1);
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    fchmod(fd, mode) == -1) {
		close(fd);
		return (-1);
	}
	return (close(fd));
}

static void
test_files(void)
{
	struct conf_errors	 errs = { 0 };
	struct conf		*c;
	char			 path[256], err[256], want[512];
	const char		*secret = "store.user = u\n"
				    "store.password = hunter2\n";

	snprintf(path, sizeof(path), "%s/c.conf", tmpdir);
	if (writefile(path, secret, 0600) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
	ok(conf_load(path, keys, K_COUNT, &c, &errs) == 0,
	    "private file with a secret loads");
	if (c != NULL)
		is_str(conf_str(c, K_PASSWORD), "hunter2", "secret read");
	conf_free(c);
	ok(conf_check_private(path, err, sizeof(err)) == 0,
	    "0600 file owned by us is private");

	chmod(path, 0640);
	ok(conf_check_private(path, err, sizeof(err)) == -1,
	    "0640 is not private");
	snprintf(want, sizeof(want), "%s: holds secrets but has mode 0640; "
	    "it must not be open to group or others (chmod 600)", path);
	is_str(err, want, "message names the mode and the fix");
	ok(conf_load(path, keys, K_COUNT, &c, &errs) == -1 && c == NULL,
	    "conf_load refuses a readable file that sets a secret");
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL, want,
	    "same message from conf_load");
	ok(errs.ce_count > 0 && strstr(errs.ce_msg[0], "hunter2") == NULL,
	    "no password in it");
	conf_errors_free(&errs);

	if (writefile(path, "store.user = u\n", 0644) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
	ok(conf_load(path, keys, K_COUNT, &c, &errs) == 0,
	    "a 0644 file without secrets loads");
	conf_free(c);

	chmod(path, 0664);
	ok(conf_load(path, keys, K_COUNT, &c, &errs) == -1,
	    "a group-writable file is refused");
	snprintf(want, sizeof(want), "%s: writable by group or others "
	    "(mode 0664)", path);
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL, want,
	    "its message");
	conf_errors_free(&errs);

	if (geteuid() == 0) {
		chmod(path, 0600);
		if (chown(path, 1, 1) == -1)
			diag("chown: %s", strerror(errno));
		ok(conf_check_private(path, err, sizeof(err)) == -1,
		    "a file owned by another user is not private");
		snprintf(want, sizeof(want), "%s: owned by uid 1, neither "
		    "root nor the running user", path);
		is_str(err, want, "its message");
		/* Without secrets, as clustercron.conf: still refused. */
		chmod(path, 0644);
		ok(conf_load(path, keys, K_COUNT, &c, &errs) == -1 &&
		    c == NULL, "conf_load refuses a file another user owns");
		is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL, want,
		    "its message names the file and the owner");
		conf_errors_free(&errs);
	} else {
		tap_skip("foreign owner needs root to chown");
		tap_skip("foreign owner needs root to chown");
		tap_skip("foreign owner needs root to chown");
		tap_skip("foreign owner needs root to chown");
	}
	unlink(path);

	ok(conf_load(path, keys, K_COUNT, &c, &errs) == -1 && errno == ENOENT,
	    "missing file");
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	is_str(errs.ce_count > 0 ? errs.ce_msg[0] : NULL, want,
	    "its message");
	conf_errors_free(&errs);
	ok(conf_load(tmpdir, keys, K_COUNT, &c, &errs) == -1,
	    "a directory");
	conf_errors_free(&errs);
	ok(conf_check_private(tmpdir, err, sizeof(err)) == -1,
	    "a directory is not a private file");
}

/* The directories leading to a file (conf_check_dirs()). */
static void
test_dirs(void)
{
	char	 d1[100], d2[200], path[300], err[1024] = "", want[1200];

	snprintf(d1, sizeof(d1), "%s/d1", tmpdir);
	snprintf(d2, sizeof(d2), "%s/d2", d1);
	snprintf(path, sizeof(path), "%s/f.cnf", d2);
	if (mkdir(d1, 0755) == -1 || mkdir(d2, 0755) == -1 ||
	    writefile(path, "x\n", 0600) == -1) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(99);
	}
	ok(conf_check_dirs(path, err, sizeof(err)) == 0,
	    "directories of root or ours, written by no one else: %s",
	    err);
	chmod(d1, 0777);
	ok(conf_check_dirs(path, err, sizeof(err)) == -1,
	    "a directory on the way that others may write is refused");
	snprintf(want, sizeof(want), "%s: writable by group or others (mode "
	    "0777), who could put another file in place of %s", d1, path);
	is_str(err, want, "its message names the directory and the file");
	chmod(d1, 01777);
	ok(conf_check_dirs(path, err, sizeof(err)) == 0,
	    "unless it has the sticky bit, as /tmp");
	chmod(d1, 0755);
	chmod(d2, 0775);
	ok(conf_check_dirs(path, err, sizeof(err)) == -1,
	    "the file's own directory too, writable by its group");
	chmod(d2, 0755);
	if (geteuid() == 0) {
		if (chown(d2, 1, 1) == -1)
			diag("chown: %s", strerror(errno));
		ok(conf_check_dirs(path, err, sizeof(err)) == -1,
		    "a directory another user owns is refused");
		snprintf(want, sizeof(want), "%s: owned by uid 1, neither "
		    "root nor the running user, who could put another file "
		    "in place of %s", d2, path);
		is_str(err, want, "its message");
	} else {
		tap_skip("foreign owner needs root to chown");
		tap_skip("foreign owner needs root to chown");
	}
	unlink(path);
	rmdir(d2);
	rmdir(d1);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return (99);
	}
	test_good();
	test_bad();
	test_edges();
	test_files();
	test_dirs();
	rmdir(tmpdir);
	return (tap_done());
}
