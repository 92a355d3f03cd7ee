/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_optfile.c: the MySQL option files, checked before every
 * connection.  The client library reads the store's credentials from
 * them by name, at every connection (store_mysql.c), so each file it
 * would read must be one that nobody but root and the daemon's user can
 * change or put in its place, and one that holds a password must be
 * readable by its owner alone.  Otherwise a local user could point the
 * daemon at a server of their own, or read the password of the store
 * every node trusts.
 *
 * Which files.  The files MariaDB Connector/C (libmariadb) reads: the
 * file mysql-defaults-file names, alone; without one, /etc/my.cnf,
 * /etc/mysql/my.cnf, my.cnf in $MARIADB_HOME (else $MYSQL_HOME) and
 * ~/.my.cnf, those that are readable.  In any of them "!include FILE"
 * reads FILE and "!includedir DIR" reads DIR/my.cnf (Connector/C 3.3,
 * Debian 12's) or every file of DIR whose name ends in ".cnf" (later
 * versions); all of those are checked, which covers both.  Includes
 * nest at most 64 deep, as the library stops there.  A file or
 * directory that does not exist is skipped, as the library skips it;
 * the one mysql-defaults-file names must exist.
 *
 * What each must be.  A regular file owned by root or the running user,
 * writable by neither group nor others, in directories that pass
 * conf_check_dirs(); the directory of an !includedir likewise, since a
 * file added there would be read.  A file that sets a password, in a
 * group the library reads ([client], [client-server], [client-mariadb]
 * and mysql-group), must be open to neither group nor others.  The keys
 * that carry one are Connector/C's password and passwd and the
 * passphrases of a TLS key, ssl-passphrase and tls-passphrase ('_' and
 * '-' are the same to it); key and certificate files are only named.
 * Keys and group names are matched loosely (any case, blanks trimmed),
 * which may call a file secret that the library reads no password
 * from, never the reverse.  The files' bytes are wiped once read.
 *
 * Servers.  The same walk finds the last "host" the library would read;
 * when it lists several servers (a Galera cluster's), the store takes
 * them as it takes a URL's list (lk_optfile_hosts()).
 */

#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define OPT_MAX		(1024 * 1024)
#define OPT_DEPTH	64

struct optwalk {
	const char		*ow_group;
	struct store_error	*ow_err;
	char			*ow_host;	/* the last "host" read */
	char			*ow_host_file;	/* and the file it is in */
};

static int	 opt_file(struct optwalk *, const char *, const char *,
		    unsigned int);
static int	 opt_dir(struct optwalk *, const char *, const char *,
		    unsigned int);
static int	 opt_fail(struct optwalk *, const char *, const char *,
		    const char *, ...)
		    __attribute__((__format__ (printf, 4, 5)));
static int	 opt_secret(const char *, size_t);
static int	 opt_group(const struct optwalk *, const char *, size_t);
static char	*opt_trim(char *);
static int	 opt_host(struct optwalk *, const char *, char *);
static int	 opt_walk(struct store *, struct optwalk *);

/* A refusal naming the file, and the file that included it. */
static int
opt_fail(struct optwalk *w, const char *path, const char *from,
    const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[STORE_MSGLEN];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (from != NULL)
		store_seterr(w->ow_err, STORE_FATAL, SE_OTHER, EPERM,
		    "option file %s (included from %s): %s", path, from, msg);
	else
		store_seterr(w->ow_err, STORE_FATAL, SE_OTHER, EPERM,
		    "option file %s: %s", path, msg);
	return (-1);
}

/* Whether the key of len bytes carries a password. */
static int
opt_secret(const char *key, size_t len)
{
	static const char *const secret[] = { "password", "passwd",
	    "ssl-passphrase", "tls-passphrase" };
	size_t		 i, j;

	for (i = 0; i < sizeof(secret) / sizeof(secret[0]); i++) {
		if (strlen(secret[i]) != len)
			continue;
		for (j = 0; j < len; j++)
			if (tolower((unsigned char)key[j]) != secret[i][j] &&
			    !(key[j] == '_' && secret[i][j] == '-'))
				break;
		if (j == len)
			return (1);
	}
	return (0);
}

/* Whether the library reads the group of len bytes. */
static int
opt_group(const struct optwalk *w, const char *name, size_t len)
{
	static const char *const always[] = { "client", "client-server",
	    "client-mariadb" };
	size_t		 i;

	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (strlen(always[i]) == len &&
		    strncasecmp(always[i], name, len) == 0)
			return (1);
	return (strlen(w->ow_group) == len &&
	    strncasecmp(w->ow_group, name, len) == 0);
}

/* s without the blanks around it (in place). */
static char *
opt_trim(char *s)
{
	char	*e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return (s);
}

/*
 * Keep a "host" value (blanks and one pair of quotes around it taken
 * off) read in path, in place of any read before it, as the library
 * does.  -1 out of memory.
 */
static int
opt_host(struct optwalk *w, const char *path, char *v)
{
	size_t	 n;

	v = opt_trim(v);
	n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	free(w->ow_host);
	free(w->ow_host_file);
	w->ow_host = strdup(v);
	w->ow_host_file = strdup(path);
	if (w->ow_host == NULL || w->ow_host_file == NULL)
		return (-1);
	return (0);
}

/* One file: checked, then its lines read for passwords and includes. */
static int
opt_file(struct optwalk *w, const char *path, const char *from,
    unsigned int depth)
{
	struct stat	 sb;
	char		 why[PATH_MAX + 200];
	char		*buf = NULL, *line, *next, *p, *key, *value;
	size_t		 len, klen;
	int		 fd, secret = 0, reading = 0, ret = -1;

	if (depth > OPT_DEPTH)
		return (opt_fail(w, path, from, "includes nest more than %d "
		    "deep", OPT_DEPTH));
	if (conf_check_dirs(path, why, sizeof(why)) == -1)
		return (opt_fail(w, path, from, "%s", why));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1 || fstat(fd, &sb) == -1) {
		opt_fail(w, path, from, "%s", strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return (opt_fail(w, path, from, "not a regular file"));
	}
	if (sb.st_uid != 0 && sb.st_uid != geteuid()) {
		close(fd);
		return (opt_fail(w, path, from, "owned by uid %ju, neither "
		    "root nor the daemon's user", (uintmax_t)sb.st_uid));
	}
	if ((sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		close(fd);
		return (opt_fail(w, path, from, "writable by group or others "
		    "(mode %04o), who could point the store elsewhere",
		    (unsigned int)(sb.st_mode & 07777)));
	}
	if (file_read_fd(fd, OPT_MAX, &buf, &len) == -1) {
		opt_fail(w, path, from, "%s", strerror(errno));
		close(fd);
		return (-1);
	}
	close(fd);
	for (line = buf; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		p = opt_trim(line);
		if (*p == '!') {
			/* "!include FILE", "!includedir DIR". */
			key = p + 1;
			p = key + strcspn(key, " \t");
			if (*p == '\0')
				continue;
			*p++ = '\0';
			p = opt_trim(p);
			if (*p == '\0')
				continue;
			if (strcmp(key, "include") == 0 &&
			    access(p, F_OK) == 0 &&
			    opt_file(w, p, path, depth + 1) == -1)
				goto out;
			if (strcmp(key, "includedir") == 0 &&
			    opt_dir(w, p, path, depth + 1) == -1)
				goto out;
			continue;
		}
		if (*p == '#' || *p == ';' || *p == '\0')
			continue;
		if (*p == '[') {
			key = p + 1;
			if ((p = strchr(key, ']')) == NULL)
				continue;
			*p = '\0';
			key = opt_trim(key);
			reading = opt_group(w, key, strlen(key));
			continue;
		}
		if (!reading)
			continue;
		/* "key = value" or a bare "key". */
		klen = strcspn(p, "=");
		value = p[klen] == '=' ? p + klen + 1 : NULL;
		p[klen] = '\0';
		key = opt_trim(p);
		if (opt_secret(key, strlen(key)))
			secret = 1;
		if (value != NULL && strcasecmp(key, "host") == 0 &&
		    opt_host(w, path, value) == -1) {
			lk_nomem(w->ow_err);
			goto out;
		}
	}
	if (secret && (sb.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		opt_fail(w, path, from, "holds a password but is readable by "
		    "group or others (mode %04o); chmod 600 it",
		    (unsigned int)(sb.st_mode & 07777));
		goto out;
	}
	ret = 0;
out:
	explicit_bzero(buf, len);
	free(buf);
	return (ret);
}

/* An !includedir: the directory, then each file .cnf in it. */
static int
opt_dir(struct optwalk *w, const char *dir, const char *from,
    unsigned int depth)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*dp;
	char		 path[PATH_MAX], why[PATH_MAX + 200];
	size_t		 n;
	int		 ret = 0;

	if ((dp = opendir(dir)) == NULL)
		return (errno == ENOENT || errno == ENOTDIR ? 0 :
		    opt_fail(w, dir, from, "%s", strerror(errno)));
	/* The directory itself, through the names read in it. */
	snprintf(path, sizeof(path), "%s/*.cnf", dir);
	if (conf_check_dirs(path, why, sizeof(why)) == -1) {
		closedir(dp);
		return (opt_fail(w, dir, from, "%s", why));
	}
	while (ret == 0 && (de = readdir(dp)) != NULL) {
		n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".cnf") != 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) >= sizeof(path))
			continue;
		/* The library reads only what it may read. */
		if (stat(path, &sb) == -1 || access(path, R_OK) == -1)
			continue;
		ret = opt_file(w, path, from, depth);
	}
	closedir(dp);
	return (ret);
}

/* Every file the library would read for st, in its order. */
static int
opt_walk(struct store *st, struct optwalk *w)
{
	const char	*home;
	char		 path[PATH_MAX];

	if (st->s_mysql_file != NULL)
		return (opt_file(w, st->s_mysql_file, NULL, 0));
	if (access("/etc/my.cnf", R_OK) == 0 &&
	    opt_file(w, "/etc/my.cnf", NULL, 0) == -1)
		return (-1);
	if (access("/etc/mysql/my.cnf", R_OK) == 0 &&
	    opt_file(w, "/etc/mysql/my.cnf", NULL, 0) == -1)
		return (-1);
	if ((home = getenv("MARIADB_HOME")) == NULL)
		home = getenv("MYSQL_HOME");
	if (home != NULL && *home != '\0' &&
	    (size_t)snprintf(path, sizeof(path), "%s/my.cnf", home) <
	    sizeof(path) && access(path, R_OK) == 0 &&
	    opt_file(w, path, NULL, 0) == -1)
		return (-1);
	if ((home = getenv("HOME")) != NULL && *home != '\0' &&
	    (size_t)snprintf(path, sizeof(path), "%s/.my.cnf", home) <
	    sizeof(path) && access(path, R_OK) == 0 &&
	    opt_file(w, path, NULL, 0) == -1)
		return (-1);
	return (0);
}

int
lk_optfile_check(struct store *st, struct store_error *err)
{
	struct optwalk	 w;
	int		 r;

	memset(&w, 0, sizeof(w));
	w.ow_group = st->s_mysql_group != NULL ? st->s_mysql_group : "client";
	w.ow_err = err;
	r = opt_walk(st, &w);
	free(w.ow_host);
	free(w.ow_host_file);
	return (r);
}

/*
 * Servers from the option files.  A "host" the library reads names one
 * server, and the library connects there itself; one that lists
 * several, "host[:port],host[:port]...", is taken here as a URL's list
 * would be (the library never sees it: the store names the server at
 * each connection).  Read once, when the store is opened.
 */
int
lk_optfile_hosts(struct store *st, struct store_error *err)
{
	struct optwalk	 w;
	int		 r;

	if (st->s_nhosts > 0 || st->s_socket != NULL)
		return (0);
	memset(&w, 0, sizeof(w));
	w.ow_group = st->s_mysql_group != NULL ? st->s_mysql_group : "client";
	w.ow_err = err;
	if ((r = opt_walk(st, &w)) == 0 && w.ow_host != NULL &&
	    strchr(w.ow_host, ',') != NULL) {
		switch (lk_hosts_parse(w.ow_host, w.ow_host + strlen(w.ow_host),
		    st->s_hosts, st->s_ports, &st->s_nhosts)) {
		case 0:
			break;
		case -2:
			r = lk_nomem(err);
			break;
		case -3:
			store_seterr(err, STORE_FATAL, SE_OTHER, 0, "option "
			    "file %s: host: more than %d servers",
			    w.ow_host_file, STORE_MAXHOSTS);
			r = -1;
			break;
		default:
			store_seterr(err, STORE_FATAL, SE_OTHER, 0, "option "
			    "file %s: host \"%s\": expected HOST[:PORT],"
			    "HOST[:PORT]...", w.ow_host_file, w.ow_host);
			r = -1;
			break;
		}
	}
	free(w.ow_host);
	free(w.ow_host_file);
	return (r);
}
