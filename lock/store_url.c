/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * store_url.c: store URLs, the one place that reads them.  The
 * programs ask here which backend and which file a URL names, and
 * store_open() takes its connection's parts from here.
 */

#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "store.h"
#include "store_int.h"

#define MEMORY_NAMEMAX	64

static int	 url_memory(const char *, struct store_url *,
		    struct store_error *);
static int	 url_hosts(const char *, const char *, struct store_url *);

/*
 * URLs: "sqlite:PATH" (also "sqlite://PATH") or a bare path;
 * "mysql://[hosts]/db" with an optional "?socket=PATH" (also
 * "mariadb://"), hosts being one or more "host[:port]" separated by
 * commas (the servers of one Galera cluster: store.h); "memory:NAME"
 * in test builds.  User names and passwords are refused: they belong
 * in the option file only.
 */
int
store_url_parse(const char *url, struct store_url *su,
    struct store_error *err)
{
	const char	*p, *slash, *q;

	err = lk_err_init(err);
	memset(su, 0, sizeof(*su));
	if (url == NULL || *url == '\0') {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "no store configured");
		return (-1);
	}
	if (strncmp(url, "sqlite:", 7) == 0) {
		p = url + 7;
		if (strncmp(p, "//", 2) == 0)
			p += 2;
		if (*p == '\0')
			goto bad;
	} else if (strncmp(url, "mysql://", 8) == 0) {
		p = url + 8;
		goto mysql;
	} else if (strncmp(url, "mariadb://", 10) == 0) {
		p = url + 10;
		goto mysql;
	} else if (strncmp(url, "memory:", 7) == 0)
		return (url_memory(url, su, err));
	else if (strstr(url, "://") != NULL)
		goto bad;
	else
		p = url;
	su->su_backend = STORE_SQLITE;
	if ((su->su_path = strdup(p)) == NULL)
		goto nomem;
	return (0);

mysql:
	su->su_backend = STORE_MYSQL;
	if ((slash = strchr(p, '/')) == NULL)
		goto bad;
	if (memchr(p, '@', slash - p) != NULL) {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store URL must "
		    "not hold a user or password: put them in the option "
		    "file");
		goto fail;
	}
	switch (url_hosts(p, slash, su)) {
	case -1:
		goto bad;
	case -2:
		goto nomem;
	case -3:
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "bad store URL "
		    "\"%s\": more than %d servers", url, STORE_MAXHOSTS);
		goto fail;
	}
	p = slash + 1;
	q = strchr(p, '?');
	if ((q == NULL && *p == '\0') || q == p)
		goto bad;
	if ((su->su_db = lk_dupn(p, q == NULL ? strlen(p) :
	    (size_t)(q - p))) == NULL)
		goto nomem;
	if (q != NULL) {
		if (strncmp(q + 1, "socket=", 7) != 0 || q[8] == '\0')
			goto bad;
		/* A socket is one server's, on this machine. */
		if (su->su_nhosts > 1) {
			store_seterr(err, STORE_FATAL, SE_OTHER, 0, "bad store "
			    "URL \"%s\": a socket names one server, not "
			    "several", url);
			goto fail;
		}
		if ((su->su_socket = strdup(q + 8)) == NULL)
			goto nomem;
	}
	return (0);
bad:
	store_seterr(err, STORE_FATAL, SE_OTHER, 0, "bad store URL \"%s\": "
	    "expected sqlite:PATH, mysql://HOST[:PORT][,HOST[:PORT]...]/DB "
	    "or mysql:///DB?socket=PATH", url);
	goto fail;
nomem:
	lk_nomem(err);
fail:
	store_url_free(su);
	return (-1);
}

/*
 * The servers of a MySQL URL, from p up to end: none (the option file
 * says), or a list for lk_hosts_parse().  Returns 0, -1 when malformed,
 * -2 out of memory, -3 too many.
 */
static int
url_hosts(const char *p, const char *end, struct store_url *su)
{
	int	 r;

	if (p == end)
		return (0);
	if ((r = lk_hosts_parse(p, end, su->su_hosts, su->su_ports,
	    &su->su_nhosts)) != 0)
		return (r);
	if ((su->su_host = strdup(su->su_hosts[0])) == NULL)
		return (-2);
	su->su_port = su->su_ports[0];
	return (0);
}

int
lk_hosts_parse(const char *p, const char *end, char **hosts,
    unsigned int *ports, size_t *n)
{
	const char	*comma, *colon, *errstr;
	char		 port[8];
	size_t		 hl;
	int		 r = -1;

	*n = 0;
	for (;;) {
		if ((comma = memchr(p, ',', end - p)) == NULL)
			comma = end;
		if (*n == STORE_MAXHOSTS) {
			r = -3;
			goto fail;
		}
		hl = comma - p;
		ports[*n] = 0;
		if ((colon = memchr(p, ':', hl)) != NULL) {
			if ((size_t)(comma - colon - 1) >= sizeof(port))
				goto fail;
			memcpy(port, colon + 1, comma - colon - 1);
			port[comma - colon - 1] = '\0';
			ports[*n] = strtonum(port, 1, 65535, &errstr);
			if (errstr != NULL)
				goto fail;
			hl = colon - p;
		}
		if (hl == 0)
			goto fail;
		if ((hosts[*n] = lk_dupn(p, hl)) == NULL) {
			r = -2;
			goto fail;
		}
		(*n)++;
		if (comma == end)
			break;
		p = comma + 1;
	}
	return (0);
fail:
	while (*n > 0)
		free(hosts[--*n]);
	return (r);
}

/*
 * "memory:NAME": a store held in this process's memory, for tests (see
 * store.h).  The name is 1 to 64 letters, digits, '.', '_' or '-'.
 * Other builds refuse the URL rather than take it for a file name.
 */
static int
url_memory(const char *url, struct store_url *su, struct store_error *err)
{
#ifdef CLUSTERCRON_TEST
	const char	*name = url + 7;
	size_t		 len = strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	if (len == 0 || len > MEMORY_NAMEMAX || name[len] != '\0') {
		store_seterr(err, STORE_FATAL, SE_OTHER, 0, "bad store URL "
		    "\"%s\": expected memory:NAME, NAME of 1 to %d letters, "
		    "digits, '.', '_' or '-'", url, MEMORY_NAMEMAX);
		return (-1);
	}
	su->su_backend = STORE_MEMORY;
	if ((su->su_path = strdup(name)) == NULL)
		return (lk_nomem(err));
	return (0);
#else
	store_seterr(err, STORE_FATAL, SE_OTHER, 0, "store URL \"%s\": "
	    "memory stores exist only in test builds", url);
	return (-1);
#endif
}

void
store_url_free(struct store_url *su)
{
	size_t	 i;

	if (su == NULL)
		return;
	for (i = 0; i < su->su_nhosts; i++)
		free(su->su_hosts[i]);
	free(su->su_path);
	free(su->su_host);
	free(su->su_db);
	free(su->su_socket);
	memset(su, 0, sizeof(*su));
}

int
lk_url_take(struct store *st, const char *url, struct store_error *err)
{
	struct store_url	 su;

	if (store_url_parse(url, &su, err) == -1)
		return (-1);
	switch (su.su_backend) {
	case STORE_SQLITE:
		st->s_ops = &store_sqlite_ops;
		break;
	case STORE_MYSQL:
		st->s_ops = &store_mysql_ops;
		break;
#ifdef CLUSTERCRON_TEST
	case STORE_MEMORY:
		st->s_ops = &store_memory_ops;
		break;
#endif
	default:
		store_url_free(&su);
		store_seterr(err, STORE_FATAL, SE_OTHER, 0,
		    "store URL \"%s\": no such backend", url);
		return (-1);
	}
	st->s_path = su.su_path;
	st->s_db = su.su_db;
	st->s_socket = su.su_socket;
	for (st->s_nhosts = 0; st->s_nhosts < su.su_nhosts; st->s_nhosts++) {
		st->s_hosts[st->s_nhosts] = su.su_hosts[st->s_nhosts];
		st->s_ports[st->s_nhosts] = su.su_ports[st->s_nhosts];
	}
	free(su.su_host);
	return (0);
}
