/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * runrec.c: what the daemon and its runners say to each other, and the
 * run files the runners keep.  The daemon starts every job through a
 * runner (runner/runner.c), a small program of its own that stays
 * between the daemon and the job as cron's intermediate process does:
 * the daemon hands it a request (struct runreq) on a socket, and the
 * runner tells it, in messages on the same socket (struct runmsg),
 * that the job started; the job's end goes into the run file (struct
 * runfile) the runner keeps in the daemon's runs directory, NAME.run
 * while the job runs and NAME.end once it ended, which the daemon, this
 * one or the next, records in the store.
 *
 * All three are records: a frame of four bytes holding the length of
 * what follows (little-endian), then fields, each a tag (one byte), a
 * length (four bytes, little-endian) and the value: a number is eight
 * bytes, little-endian; a string is its bytes, without a NUL.  A
 * reader skips a tag it does not know, so that a runner of one version
 * and a daemon of the next read each other's run files.
 */

#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* The fields.  Numbers are never reused. */
enum {
	T_END = 0,
	T_VERSION = 1,
	T_KIND,
	T_ID,
	T_FIRE,
	T_ATTEMPT,
	T_NODE,
	T_START,
	T_DIR,
	T_USER,
	T_UID,
	T_GID,
	T_HOME,
	T_CMD,
	T_ENV,
	T_INPUT,
	T_TITLE,
	T_OUTMAX,
	T_UNTIL,
	T_TIMEOUT,
	T_NOFILE_CUR,
	T_NOFILE_MAX,
	T_LOG,
	T_LOGFILE,
	T_DEBUG,
	T_WHAT,
	T_MAILTO,
	T_MAILFROM,
	T_SENDMAIL,
	T_FQDN,
	T_FAILSUBJ,
	T_PID,
	T_END_MS,
	T_WSTATUS,
	T_WHY,
	T_OUT,
	T_OUTTOTAL,
	T_NUM,
	T_STARTMS,
	T_LABEL,
	T_PAM,
	T_SUBJECT,
	T_MAILALL
};

#define RR_VERSION	1

/* A record being built; rb_err once memory ran out. */
struct rbuf {
	char	*rb_buf;
	size_t	 rb_len;
	size_t	 rb_cap;
	int	 rb_err;
};

struct field {
	int		 f_tag;
	const char	*f_val;
	size_t		 f_len;
};

static void	 rb_init(struct rbuf *);
static void	 rb_add(struct rbuf *, const void *, size_t);
static void	 rb_field(struct rbuf *, int, const void *, size_t);
static void	 rb_num(struct rbuf *, int, int64_t);
static void	 rb_str(struct rbuf *, int, const char *);
static int	 rb_seal(struct rbuf *, char **, size_t *);
static void	 put32(unsigned char *, uint32_t);
static uint32_t	 get32(const unsigned char *);
static int	 next_field(const char *, size_t, size_t *, struct field *);
static int64_t	 fnum(const struct field *);
static int	 fstr(const struct field *, char **);

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static uint32_t
get32(const unsigned char *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

/* A record starts with room for its frame and its version. */
static void
rb_init(struct rbuf *b)
{
	unsigned char	 frame[4] = { 0, 0, 0, 0 };

	memset(b, 0, sizeof(*b));
	rb_add(b, frame, sizeof(frame));
	rb_num(b, T_VERSION, RR_VERSION);
}

static void
rb_add(struct rbuf *b, const void *p, size_t len)
{
	size_t	 ncap;
	char	*nb;

	if (b->rb_err)
		return;
	if (len > RUNREC_MAX || b->rb_len + len > RUNREC_MAX) {
		b->rb_err = EFBIG;
		return;
	}
	if (b->rb_len + len > b->rb_cap) {
		ncap = b->rb_cap == 0 ? 1024 : b->rb_cap;
		while (ncap < b->rb_len + len)
			ncap *= 2;
		if ((nb = realloc(b->rb_buf, ncap)) == NULL) {
			b->rb_err = ENOMEM;
			return;
		}
		b->rb_buf = nb;
		b->rb_cap = ncap;
	}
	if (len > 0)
		memcpy(b->rb_buf + b->rb_len, p, len);
	b->rb_len += len;
}

static void
rb_field(struct rbuf *b, int tag, const void *p, size_t len)
{
	unsigned char	 hdr[5];

	if (len > UINT32_MAX) {
		b->rb_err = EFBIG;
		return;
	}
	hdr[0] = (unsigned char)tag;
	put32(hdr + 1, (uint32_t)len);
	rb_add(b, hdr, sizeof(hdr));
	rb_add(b, p, len);
}

static void
rb_num(struct rbuf *b, int tag, int64_t v)
{
	unsigned char	 n[8];
	uint64_t	 u = (uint64_t)v;
	int		 i;

	for (i = 0; i < 8; i++)
		n[i] = (u >> (8 * i)) & 0xff;
	rb_field(b, tag, n, sizeof(n));
}

/* A string; NULL is no field at all. */
static void
rb_str(struct rbuf *b, int tag, const char *s)
{
	if (s != NULL)
		rb_field(b, tag, s, strlen(s));
}

/* The frame's length filled in: the record is the caller's. */
static int
rb_seal(struct rbuf *b, char **out, size_t *lenp)
{
	*out = NULL;
	*lenp = 0;
	if (b->rb_err) {
		free(b->rb_buf);
		errno = b->rb_err;
		return (-1);
	}
	put32((unsigned char *)b->rb_buf, (uint32_t)(b->rb_len - 4));
	*out = b->rb_buf;
	*lenp = b->rb_len;
	return (0);
}

int
runrec_framed(const char *buf, size_t len, size_t *flen)
{
	uint32_t	 n;

	if (len < 4)
		return (0);
	n = get32((const unsigned char *)buf);
	if (n > RUNREC_MAX - 4) {
		errno = EFBIG;
		return (-1);
	}
	if (len < (size_t)n + 4)
		return (0);
	*flen = (size_t)n + 4;
	return (1);
}

/*
 * The next field of the frame buf (len bytes, the frame's header
 * included) from *off: 1 with *f filled, 0 at the end, -1 when the
 * record is malformed.
 */
static int
next_field(const char *buf, size_t len, size_t *off, struct field *f)
{
	uint32_t	 n;

	if (*off == 0)
		*off = 4;
	if (*off == len)
		return (0);
	if (len - *off < 5)
		return (-1);
	f->f_tag = (unsigned char)buf[*off];
	n = get32((const unsigned char *)buf + *off + 1);
	if (n > len - *off - 5)
		return (-1);
	f->f_val = buf + *off + 5;
	f->f_len = n;
	*off += 5 + (size_t)n;
	return (1);
}

static int64_t
fnum(const struct field *f)
{
	uint64_t	 u = 0;
	int		 i;

	if (f->f_len != 8)
		return (0);
	for (i = 7; i >= 0; i--)
		u = u << 8 | (unsigned char)f->f_val[i];
	return ((int64_t)u);
}

/* A string field as a new string; one holding a NUL is refused. */
static int
fstr(const struct field *f, char **sp)
{
	char	*s;

	if (memchr(f->f_val, '\0', f->f_len) != NULL) {
		errno = EINVAL;
		return (-1);
	}
	if ((s = malloc(f->f_len + 1)) == NULL)
		return (-1);
	memcpy(s, f->f_val, f->f_len);
	s[f->f_len] = '\0';
	free(*sp);
	*sp = s;
	return (0);
}

int
runreq_encode(const struct runreq *rq, char **out, size_t *lenp)
{
	struct rbuf	 b;
	size_t		 i;

	rb_init(&b);
	rb_str(&b, T_ID, rq->rq_id);
	rb_num(&b, T_FIRE, rq->rq_fire);
	rb_num(&b, T_ATTEMPT, rq->rq_attempt);
	rb_str(&b, T_NODE, rq->rq_node);
	rb_num(&b, T_START, rq->rq_start);
	rb_str(&b, T_DIR, rq->rq_dir);
	rb_str(&b, T_USER, rq->rq_user);
	rb_num(&b, T_UID, (int64_t)rq->rq_uid);
	rb_num(&b, T_GID, (int64_t)rq->rq_gid);
	rb_str(&b, T_HOME, rq->rq_home);
	rb_str(&b, T_CMD, rq->rq_cmd);
	for (i = 0; rq->rq_env != NULL && rq->rq_env[i] != NULL; i++)
		rb_str(&b, T_ENV, rq->rq_env[i]);
	if (rq->rq_inputlen > 0)
		rb_field(&b, T_INPUT, rq->rq_input, rq->rq_inputlen);
	rb_str(&b, T_TITLE, rq->rq_title);
	rb_str(&b, T_PAM, rq->rq_pam);
	rb_num(&b, T_OUTMAX, (int64_t)rq->rq_outmax);
	rb_num(&b, T_STARTMS, rq->rq_startms);
	rb_num(&b, T_UNTIL, rq->rq_until);
	rb_num(&b, T_TIMEOUT, rq->rq_timeout);
	rb_num(&b, T_NOFILE_CUR, rq->rq_nofile_cur);
	rb_num(&b, T_NOFILE_MAX, rq->rq_nofile_max);
	rb_num(&b, T_LOG, rq->rq_log);
	rb_str(&b, T_LOGFILE, rq->rq_logfile);
	rb_num(&b, T_DEBUG, rq->rq_debug);
	rb_str(&b, T_WHAT, rq->rq_what);
	rb_str(&b, T_LABEL, rq->rq_label);
	rb_str(&b, T_MAILTO, rq->rq_mailto);
	rb_str(&b, T_MAILFROM, rq->rq_mailfrom);
	rb_str(&b, T_SENDMAIL, rq->rq_sendmail);
	rb_num(&b, T_FQDN, rq->rq_fqdn);
	rb_num(&b, T_FAILSUBJ, rq->rq_failsubj);
	rb_str(&b, T_SUBJECT, rq->rq_subject);
	rb_num(&b, T_MAILALL, rq->rq_mailall);
	return (rb_seal(&b, out, lenp));
}

int
runreq_decode(const char *buf, size_t len, struct runreq *rq)
{
	struct field	 f;
	char		**env;
	size_t		 off = 0, nenv = 0;
	int		 r, version = 0;

	memset(rq, 0, sizeof(*rq));
	rq->rq_nofile_cur = rq->rq_nofile_max = -1;
	while ((r = next_field(buf, len, &off, &f)) == 1) {
		switch (f.f_tag) {
		case T_VERSION:
			version = (int)fnum(&f);
			break;
		case T_ID:
			r = fstr(&f, &rq->rq_id);
			break;
		case T_FIRE:
			rq->rq_fire = fnum(&f);
			break;
		case T_ATTEMPT:
			rq->rq_attempt = (int)fnum(&f);
			break;
		case T_NODE:
			r = fstr(&f, &rq->rq_node);
			break;
		case T_START:
			rq->rq_start = fnum(&f);
			break;
		case T_DIR:
			r = fstr(&f, &rq->rq_dir);
			break;
		case T_USER:
			r = fstr(&f, &rq->rq_user);
			break;
		case T_UID:
			rq->rq_uid = (uid_t)fnum(&f);
			break;
		case T_GID:
			rq->rq_gid = (gid_t)fnum(&f);
			break;
		case T_HOME:
			r = fstr(&f, &rq->rq_home);
			break;
		case T_CMD:
			r = fstr(&f, &rq->rq_cmd);
			break;
		case T_ENV:
			if ((env = reallocarray(rq->rq_env, nenv + 2,
			    sizeof(*env))) == NULL) {
				r = -1;
				break;
			}
			rq->rq_env = env;
			env[nenv] = env[nenv + 1] = NULL;
			if ((r = fstr(&f, &env[nenv])) == 0)
				nenv++;
			break;
		case T_INPUT:
			free(rq->rq_input);
			if ((rq->rq_input = malloc(f.f_len + 1)) == NULL) {
				r = -1;
				break;
			}
			memcpy(rq->rq_input, f.f_val, f.f_len);
			rq->rq_input[f.f_len] = '\0';
			rq->rq_inputlen = f.f_len;
			break;
		case T_TITLE:
			r = fstr(&f, &rq->rq_title);
			break;
		case T_PAM:
			r = fstr(&f, &rq->rq_pam);
			break;
		case T_OUTMAX:
			rq->rq_outmax = (size_t)fnum(&f);
			break;
		case T_STARTMS:
			rq->rq_startms = (int)fnum(&f);
			break;
		case T_UNTIL:
			rq->rq_until = fnum(&f);
			break;
		case T_TIMEOUT:
			rq->rq_timeout = (uint32_t)fnum(&f);
			break;
		case T_NOFILE_CUR:
			rq->rq_nofile_cur = fnum(&f);
			break;
		case T_NOFILE_MAX:
			rq->rq_nofile_max = fnum(&f);
			break;
		case T_LOG:
			rq->rq_log = (int)fnum(&f);
			break;
		case T_LOGFILE:
			r = fstr(&f, &rq->rq_logfile);
			break;
		case T_DEBUG:
			rq->rq_debug = (int)fnum(&f);
			break;
		case T_WHAT:
			r = fstr(&f, &rq->rq_what);
			break;
		case T_LABEL:
			r = fstr(&f, &rq->rq_label);
			break;
		case T_MAILTO:
			r = fstr(&f, &rq->rq_mailto);
			break;
		case T_MAILFROM:
			r = fstr(&f, &rq->rq_mailfrom);
			break;
		case T_SENDMAIL:
			r = fstr(&f, &rq->rq_sendmail);
			break;
		case T_FQDN:
			rq->rq_fqdn = (int)fnum(&f);
			break;
		case T_FAILSUBJ:
			rq->rq_failsubj = (int)fnum(&f);
			break;
		case T_SUBJECT:
			r = fstr(&f, &rq->rq_subject);
			break;
		case T_MAILALL:
			rq->rq_mailall = (int)fnum(&f);
			break;
		default:
			break;
		}
		if (r == -1)
			break;
		r = 1;
	}
	if (r == 0 && (version != RR_VERSION || rq->rq_id == NULL ||
	    rq->rq_node == NULL || rq->rq_dir == NULL ||
	    rq->rq_user == NULL || rq->rq_cmd == NULL || rq->rq_attempt < 1)) {
		errno = EINVAL;
		r = -1;
	}
	if (r == -1) {
		if (errno != ENOMEM)
			errno = EINVAL;
		runreq_free(rq);
		return (-1);
	}
	return (0);
}

void
runreq_free(struct runreq *rq)
{
	if (rq == NULL)
		return;
	free(rq->rq_id);
	free(rq->rq_node);
	free(rq->rq_dir);
	free(rq->rq_user);
	free(rq->rq_home);
	free(rq->rq_cmd);
	jobenv_free(rq->rq_env);
	if (rq->rq_input != NULL) {
		explicit_bzero(rq->rq_input, rq->rq_inputlen);
		free(rq->rq_input);
	}
	free(rq->rq_title);
	free(rq->rq_pam);
	free(rq->rq_logfile);
	free(rq->rq_what);
	free(rq->rq_label);
	free(rq->rq_mailto);
	free(rq->rq_mailfrom);
	free(rq->rq_sendmail);
	free(rq->rq_subject);
	memset(rq, 0, sizeof(*rq));
}

int
runfile_encode(const struct runfile *rf, char **out, size_t *lenp)
{
	struct rbuf	 b;

	rb_init(&b);
	rb_num(&b, T_KIND, rf->rf_kind);
	rb_str(&b, T_ID, rf->rf_id);
	rb_num(&b, T_FIRE, rf->rf_fire);
	rb_num(&b, T_ATTEMPT, rf->rf_attempt);
	rb_str(&b, T_NODE, rf->rf_node);
	rb_str(&b, T_USER, rf->rf_user);
	rb_str(&b, T_WHAT, rf->rf_what);
	rb_str(&b, T_LABEL, rf->rf_label);
	rb_num(&b, T_PID, rf->rf_pid);
	rb_num(&b, T_START, rf->rf_start);
	if (rf->rf_kind != RUNF_RUNNING) {
		rb_num(&b, T_END_MS, rf->rf_end);
		rb_num(&b, T_WSTATUS, rf->rf_wstatus);
	}
	rb_str(&b, T_WHY, rf->rf_why);
	if (rf->rf_kind == RUNF_ENDED) {
		rb_field(&b, T_OUT, rf->rf_out.ob_buf, rf->rf_out.ob_len);
		rb_num(&b, T_OUTTOTAL, (int64_t)rf->rf_out.ob_total);
	}
	return (rb_seal(&b, out, lenp));
}

int
runfile_decode(const char *buf, size_t len, struct runfile *rf)
{
	struct field	 f;
	size_t		 off = 0, flen;
	int		 r, version = 0;

	memset(rf, 0, sizeof(*rf));
	outbuf_init(&rf->rf_out, 0);
	if (runrec_framed(buf, len, &flen) != 1 || flen != len) {
		errno = EINVAL;
		return (-1);
	}
	rf->rf_kind = -1;
	while ((r = next_field(buf, len, &off, &f)) == 1) {
		switch (f.f_tag) {
		case T_VERSION:
			version = (int)fnum(&f);
			break;
		case T_KIND:
			rf->rf_kind = (int)fnum(&f);
			break;
		case T_ID:
			r = fstr(&f, &rf->rf_id);
			break;
		case T_FIRE:
			rf->rf_fire = fnum(&f);
			break;
		case T_ATTEMPT:
			rf->rf_attempt = (int)fnum(&f);
			break;
		case T_NODE:
			r = fstr(&f, &rf->rf_node);
			break;
		case T_USER:
			r = fstr(&f, &rf->rf_user);
			break;
		case T_WHAT:
			r = fstr(&f, &rf->rf_what);
			break;
		case T_LABEL:
			r = fstr(&f, &rf->rf_label);
			break;
		case T_PID:
			rf->rf_pid = (pid_t)fnum(&f);
			break;
		case T_START:
			rf->rf_start = fnum(&f);
			break;
		case T_END_MS:
			rf->rf_end = fnum(&f);
			break;
		case T_WSTATUS:
			rf->rf_wstatus = (int)fnum(&f);
			break;
		case T_WHY:
			r = fstr(&f, &rf->rf_why);
			break;
		case T_OUT:
			/* The head as kept: its bound is the file's. */
			rf->rf_out.ob_max = f.f_len > 0 ? f.f_len : 1;
			if (outbuf_add(&rf->rf_out, f.f_val, f.f_len) == -1)
				r = -1;
			break;
		case T_OUTTOTAL:
			rf->rf_out.ob_total = (uint64_t)fnum(&f);
			break;
		default:
			break;
		}
		if (r == -1)
			break;
		r = 1;
	}
	if (r == 0 && (version != RR_VERSION || rf->rf_id == NULL ||
	    rf->rf_node == NULL || rf->rf_attempt < 1 ||
	    rf->rf_kind < RUNF_RUNNING || rf->rf_kind > RUNF_FAILED)) {
		errno = EINVAL;
		r = -1;
	}
	if (r == -1) {
		if (errno != ENOMEM)
			errno = EINVAL;
		runfile_free(rf);
		return (-1);
	}
	if (rf->rf_out.ob_total < rf->rf_out.ob_len)
		rf->rf_out.ob_total = rf->rf_out.ob_len;
	return (0);
}

void
runfile_free(struct runfile *rf)
{
	if (rf == NULL)
		return;
	free(rf->rf_id);
	free(rf->rf_node);
	free(rf->rf_user);
	free(rf->rf_what);
	free(rf->rf_label);
	free(rf->rf_why);
	outbuf_free(&rf->rf_out);
	memset(rf, 0, sizeof(*rf));
}

int
runfile_name(char *buf, size_t len, const char *id, int64_t fire,
    int attempt, const char *suffix)
{
	int	 n;

	n = snprintf(buf, len, "%s-%lld-%d%s", id, (long long)fire, attempt,
	    suffix);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	return (0);
}

int
runmsg_encode(const struct runmsg *rm, char **out, size_t *lenp)
{
	struct rbuf	 b;

	rb_init(&b);
	rb_num(&b, T_KIND, rm->rm_kind);
	rb_num(&b, T_NUM, rm->rm_num);
	if (rm->rm_why[0] != '\0')
		rb_str(&b, T_WHY, rm->rm_why);
	return (rb_seal(&b, out, lenp));
}

int
runmsg_decode(const char *buf, size_t len, struct runmsg *rm)
{
	struct field	 f;
	size_t		 off = 0, n;
	int		 r;

	memset(rm, 0, sizeof(*rm));
	rm->rm_kind = -1;
	while ((r = next_field(buf, len, &off, &f)) == 1) {
		switch (f.f_tag) {
		case T_KIND:
			rm->rm_kind = (int)fnum(&f);
			break;
		case T_NUM:
			rm->rm_num = fnum(&f);
			break;
		case T_WHY:
			n = f.f_len < sizeof(rm->rm_why) - 1 ? f.f_len :
			    sizeof(rm->rm_why) - 1;
			memcpy(rm->rm_why, f.f_val, n);
			rm->rm_why[n] = '\0';
			break;
		default:
			break;
		}
	}
	if (r == -1 || rm->rm_kind < 0) {
		errno = EINVAL;
		return (-1);
	}
	return (0);
}
