/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * id.c: a job's identity, the same on every node.  It is the first 16
 * bytes of a SHA-256 over a canonical encoding of what makes the job:
 * the owner, then either the name the table gives it
 * (CLUSTERCRON_NAME) or its schedule as bitsets and flags, its zone,
 * its command and its standard input.  Strings are length-prefixed and
 * numbers fixed-width, so fields cannot run into each other.
 *
 * Because the schedule enters as bitsets, spellings of the same
 * schedule (0 0 * * 7 and 0 0 * * sun, 1,2,3 and 1-3) give the same
 * identity; the star flags are part of it because they change when a
 * job fires (the day rule and DST).  SCHED_SECONDS is left out: "0 0 0
 * * * *" with seconds and "0 0 * * *" fire at the same instants.  The
 * environment and the CLUSTERCRON_ options are not part of it, so that
 * changing a timeout keeps a job's history; a changed command,
 * schedule, zone or owner is a new job.  Changing this encoding
 * changes every job's identity: bump the version tag when you must.
 */

#include <stdint.h>
#include <string.h>

#include <sha2.h>

#include "parser_int.h"

static void	 put_u64(SHA2_CTX *, uint64_t, int);
static void	 put_str(SHA2_CTX *, const char *);

/* A number as nbytes big-endian bytes. */
static void
put_u64(SHA2_CTX *ctx, uint64_t v, int nbytes)
{
	uint8_t	 b[8];
	int	 i;

	for (i = 0; i < nbytes; i++)
		b[i] = (uint8_t)(v >> (8 * (nbytes - 1 - i)));
	SHA256Update(ctx, b, (size_t)nbytes);
}

/* A string as a presence byte, a 64-bit length and the bytes. */
static void
put_str(SHA2_CTX *ctx, const char *s)
{
	size_t	 n;

	if (s == NULL) {
		put_u64(ctx, 0, 1);
		return;
	}
	n = strlen(s);
	put_u64(ctx, 1, 1);
	put_u64(ctx, n, 8);
	SHA256Update(ctx, (const uint8_t *)s, n);
}

void
cron_entry_id(const struct cron_entry *e, const char *owner,
    char out[CRON_IDLEN + 1])
{
	static const char	 hex[] = "0123456789abcdef";
	static const char	 tag[] = "clustercron-id-1";
	const struct cron_sched	*s = &e->e_sched;
	SHA2_CTX		 ctx;
	uint8_t			 md[SHA256_DIGEST_LENGTH];
	int			 i;

	SHA256Init(&ctx);
	SHA256Update(&ctx, (const uint8_t *)tag, sizeof(tag));
	put_str(&ctx, e->e_user != NULL ? e->e_user :
	    owner != NULL ? owner : "");
	if (e->e_opts.o_name != NULL) {
		put_u64(&ctx, 'N', 1);
		put_str(&ctx, e->e_opts.o_name);
	} else {
		put_u64(&ctx, 'S', 1);
		put_u64(&ctx, s->s_sec, 8);
		put_u64(&ctx, s->s_min, 8);
		put_u64(&ctx, s->s_hour, 4);
		put_u64(&ctx, s->s_dom, 4);
		put_u64(&ctx, s->s_mon, 2);
		put_u64(&ctx, s->s_dow, 1);
		put_u64(&ctx, s->s_flags & ~SCHED_SECONDS, 1);
		put_str(&ctx, e->e_tz != NULL ? e->e_tz : "");
		put_str(&ctx, e->e_cmd != NULL ? e->e_cmd : "");
		put_str(&ctx, e->e_input);
	}
	SHA256Final(md, &ctx);
	for (i = 0; i < CRON_IDLEN / 2; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 0xf];
	}
	out[CRON_IDLEN] = '\0';
}
