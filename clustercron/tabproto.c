/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * tabproto.c: framing of ctab's requests and the daemon's replies (see
 * tabproto.h).  Shared by ctab and the daemon.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "tabproto.h"

static int	 io_full(int, void *, size_t, int, int64_t);
static int	 field(char **, const char *, char *, size_t);

/*
 * Read or write exactly len bytes before the monotonic deadline,
 * whether or not the descriptor is non-blocking: a write never waits
 * for room for all it has (a blocking send of a large frame would, past
 * the deadline), only for some.  Writing to a socket whose peer has
 * gone fails with EPIPE rather than raising SIGPIPE.
 */
static int
io_full(int fd, void *buf, size_t len, int writing, int64_t deadline)
{
	struct pollfd	 pfd;
	char		*p = buf;
	ssize_t		 n;
	int64_t		 left;

	while (len > 0) {
		left = deadline - clock_mono();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return (-1);
		}
		pfd.fd = fd;
		pfd.events = writing ? POLLOUT : POLLIN;
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		if (pfd.revents == 0)
			continue;
		n = writing ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) :
		    read(fd, p, len);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return (-1);
		}
		if (n == 0) {
			errno = EPROTO;
			return (-1);
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

void
tab_set(struct tabmsg *m, const char *word, const char *user,
    int64_t version, const char *msg)
{
	char	*p;

	memset(m, 0, sizeof(*m));
	strlcpy(m->tm_word, word, sizeof(m->tm_word));
	strlcpy(m->tm_user, user == NULL ? "" : user, sizeof(m->tm_user));
	m->tm_version = version;
	strlcpy(m->tm_msg, msg == NULL ? "" : msg, sizeof(m->tm_msg));
	/* One line each: a newline would shift the fields. */
	for (p = m->tm_msg; *p != '\0'; p++)
		if (*p == '\n')
			*p = ' ';
}

int
tab_frame(const struct tabmsg *m, struct tabbuf *b)
{
	char		 head[1024];
	size_t		 total, need, cap;
	int		 n;

	if (strchr(m->tm_word, '\n') != NULL ||
	    strchr(m->tm_user, '\n') != NULL) {
		errno = EINVAL;
		return (-1);
	}
	n = snprintf(head, sizeof(head), "%s\n%s\n%lld\n%s\n", m->tm_word,
	    m->tm_user, (long long)m->tm_version, m->tm_msg);
	if (n < 0 || (size_t)n >= sizeof(head)) {
		errno = EINVAL;
		return (-1);
	}
	total = (size_t)n + m->tm_bodylen;
	if (total > TAB_MAXFRAME) {
		errno = EFBIG;
		return (-1);
	}
	need = b->b_len + 4 + total + 1;
	if (need > b->b_cap) {
		cap = b->b_cap == 0 ? 1024 : b->b_cap;
		while (cap < need)
			cap *= 2;
		b->b_p = xreallocarray(b->b_p, cap, 1);
		b->b_cap = cap;
	}
	b->b_p[b->b_len++] = (char)(total >> 24);
	b->b_p[b->b_len++] = (char)(total >> 16);
	b->b_p[b->b_len++] = (char)(total >> 8);
	b->b_p[b->b_len++] = (char)total;
	memcpy(b->b_p + b->b_len, head, (size_t)n);
	b->b_len += (size_t)n;
	if (m->tm_bodylen > 0)
		memcpy(b->b_p + b->b_len, m->tm_body, m->tm_bodylen);
	b->b_len += m->tm_bodylen;
	b->b_p[b->b_len] = '\0';
	return (0);
}

int
tab_send(int fd, const struct tabmsg *m, int timeout)
{
	struct tabbuf	 b;
	int64_t		 deadline = clock_mono() + timeout;
	int		 rv, saved;

	memset(&b, 0, sizeof(b));
	if (tab_frame(m, &b) == -1)
		return (-1);
	rv = io_full(fd, b.b_p, b.b_len, 1, deadline);
	saved = errno;
	free(b.b_p);
	errno = saved;
	return (rv);
}

/* Take the next newline-ended field of *pp into out. */
static int
field(char **pp, const char *end, char *out, size_t outlen)
{
	char	*nl;
	size_t	 n;

	if ((nl = memchr(*pp, '\n', (size_t)(end - *pp))) == NULL)
		return (-1);
	n = (size_t)(nl - *pp);
	if (n >= outlen || memchr(*pp, '\0', n) != NULL)
		return (-1);
	memcpy(out, *pp, n);
	out[n] = '\0';
	*pp = nl + 1;
	return (0);
}

size_t
tab_frame_len(const unsigned char *len)
{
	return ((size_t)len[0] << 24 | (size_t)len[1] << 16 |
	    (size_t)len[2] << 8 | len[3]);
}

int
tab_parse(char *buf, size_t total, struct tabmsg *m)
{
	char		*p, *end, num[32];
	const char	*errstr;

	memset(m, 0, sizeof(*m));
	buf[total] = '\0';
	p = buf;
	end = buf + total;
	if (field(&p, end, m->tm_word, sizeof(m->tm_word)) == -1 ||
	    field(&p, end, m->tm_user, sizeof(m->tm_user)) == -1 ||
	    field(&p, end, num, sizeof(num)) == -1 ||
	    field(&p, end, m->tm_msg, sizeof(m->tm_msg)) == -1)
		goto fail;
	m->tm_version = strtonum(num, 0, INT64_MAX, &errstr);
	if (errstr != NULL)
		goto fail;
	m->tm_bodylen = (size_t)(end - p);
	if (m->tm_bodylen > 0) {
		memmove(buf, p, m->tm_bodylen);
		buf[m->tm_bodylen] = '\0';
		m->tm_body = buf;
	} else
		free(buf);
	return (0);
fail:
	free(buf);
	memset(m, 0, sizeof(*m));
	errno = EPROTO;
	return (-1);
}

int
tab_recv(int fd, struct tabmsg *m, int timeout)
{
	unsigned char	 len[4];
	char		*buf;
	size_t		 total;
	int64_t		 deadline = clock_mono() + timeout;
	int		 saved;

	memset(m, 0, sizeof(*m));
	if (io_full(fd, len, 4, 0, deadline) == -1)
		return (-1);
	if ((total = tab_frame_len(len)) > TAB_MAXFRAME) {
		errno = EFBIG;
		return (-1);
	}
	if ((buf = malloc(total + 1)) == NULL)
		return (-1);
	if (io_full(fd, buf, total, 0, deadline) == -1) {
		saved = errno;
		free(buf);
		errno = saved;
		return (-1);
	}
	return (tab_parse(buf, total, m));
}

void
tab_clear(struct tabmsg *m)
{
	free(m->tm_body);
	m->tm_body = NULL;
	m->tm_bodylen = 0;
}

size_t
tab_count_lines(const char *text, size_t len)
{
	size_t	 i, n = 0;

	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	if (len > 0 && text[len - 1] != '\n')
		n++;
	return (n);
}

int
tab_sockaddr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

void
tab_field_add(struct tabbuf *b, const char *name, const void *val,
    size_t len)
{
	char	 head[96];
	int	 n;
	size_t	 need, cap;

	n = snprintf(head, sizeof(head), "%s %zu\n", name, len);
	if (n < 0 || (size_t)n >= sizeof(head))
		fatalx("tab_field_add: field name too long");
	need = b->b_len + (size_t)n + len + 2;
	if (need > b->b_cap) {
		cap = b->b_cap == 0 ? 1024 : b->b_cap;
		while (cap < need)
			cap *= 2;
		b->b_p = xreallocarray(b->b_p, cap, 1);
		b->b_cap = cap;
	}
	memcpy(b->b_p + b->b_len, head, (size_t)n);
	b->b_len += (size_t)n;
	if (len > 0)
		memcpy(b->b_p + b->b_len, val, len);
	b->b_len += len;
	b->b_p[b->b_len++] = '\n';
	b->b_p[b->b_len] = '\0';
}

void
tab_field_str(struct tabbuf *b, const char *name, const char *s)
{
	tab_field_add(b, name, s == NULL ? "" : s, s == NULL ? 0 : strlen(s));
}

void
tab_field_num(struct tabbuf *b, const char *name, int64_t v)
{
	char	 num[32];

	snprintf(num, sizeof(num), "%lld", (long long)v);
	tab_field_str(b, name, num);
}

int
tab_field_next(const char **pp, const char *end, char *name, size_t namelen,
    const char **val, size_t *vallen)
{
	const char	*p = *pp, *nl, *sp;
	size_t		 len = 0, i;

	if (p >= end)
		return (0);
	if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL ||
	    (sp = memchr(p, ' ', (size_t)(nl - p))) == NULL ||
	    sp == p || (size_t)(sp - p) >= namelen || sp + 1 == nl)
		return (-1);
	for (i = 0; sp + 1 + i < nl; i++) {
		if (sp[1 + i] < '0' || sp[1 + i] > '9' || i >= 9)
			return (-1);
		len = len * 10 + (size_t)(sp[1 + i] - '0');
	}
	if (len > (size_t)(end - nl - 1) || (size_t)(end - nl - 1) - len < 1 ||
	    nl[1 + len] != '\n')
		return (-1);
	memcpy(name, p, (size_t)(sp - p));
	name[sp - p] = '\0';
	if (memchr(name, '\0', (size_t)(sp - p)) != NULL)
		return (-1);
	*val = nl + 1;
	*vallen = len;
	*pp = nl + 1 + len + 1;
	return (1);
}

int
tab_field_int(const char *val, size_t len, int64_t min, int64_t max,
    int64_t *out)
{
	char		 num[32];
	const char	*errstr;

	if (len == 0 || len >= sizeof(num) || memchr(val, '\0', len) != NULL)
		return (-1);
	memcpy(num, val, len);
	num[len] = '\0';
	*out = strtonum(num, min, max, &errstr);
	return (errstr == NULL ? 0 : -1);
}
