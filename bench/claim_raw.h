/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * claim_raw.h: a minimal raw client for bench/claim, issuing the same
 * SQL as the store straight through libmariadb or sqlite3.
 */

#ifndef CLAIM_RAW_H
#define CLAIM_RAW_H

#include <stddef.h>
#include <time.h>

struct raw;

struct raw	*raw_open(const char *, const char *, const char *);
void		 raw_close(struct raw *);
int		 raw_claim(struct raw *, const char *, time_t, int *);
int		 raw_batch(struct raw *, const char *const *, size_t, time_t,
		    size_t, unsigned char *, size_t *);
const char	*raw_error(struct raw *);

#endif /* CLAIM_RAW_H */
