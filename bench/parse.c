/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * parse.c: how fast crontab_parse() reads a large table, and how much
 * memory the entries take.  A 100,000-line crontab is generated in
 * memory (entries of every syntax, environment lines, CRON_TZ and
 * clustercron variables, comments, blank lines), parsed several times,
 * and the best run reported as lines per second and total seconds,
 * with the heap held by the parsed table.  The goal is under 0.2 s.
 *
 * usage: parse [lines [runs]]
 */

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parser.h"

#define GOAL_SECONDS	0.2

static uint32_t	 rnd(uint32_t *);
static char	*generate(size_t, size_t *, size_t *);
static double	 now(void);

/* A small deterministic generator, so every run parses the same table. */
static uint32_t
rnd(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return (*state);
}

static char *
generate(size_t lines, size_t *lenp, size_t *nentp)
{
	static const char *const sched[] = {
		"0 0 * * *", "*/5 * * * *", "30 4 1,15 * 5",
		"0 9-17 * * mon-fri",
		"15 3 * jan,jul sun", "@daily", "@hourly", "@reboot",
		"5-55/10 * * * *", "0 */2 * * *", "0 0 1 */3 *",
		"59 23 31 12 *", "0 0 * * 0,6", "1,2,3,4,5 8 * * *",
		"0 0 29 2 *", "0 12 * * 1-5",
	};
	static const char *const cmd[] = {
		"/usr/bin/backup --all >/dev/null 2>&1",
		"test -x /usr/sbin/anacron || run-parts /etc/cron.daily",
		"php /srv/www/cron.php",
		"/usr/local/bin/report --mail ops@example.com",
		"date +\\%Y-\\%m-\\%d >> /var/log/stamp",
		"mail -s report ops%Dear ops,%all is well.%",
		"cd /srv/app && ./manage.py clearsessions",
		"find /tmp -type f -mtime +7 -delete",
	};
	static const char *const env[] = {
		"MAILTO=ops@example.com", "SHELL=/bin/bash",
		"PATH=/usr/local/bin:/usr/bin:/bin", "CRON_TZ=Europe/Paris",
		"CRON_TZ=America/New_York", "CLUSTERCRON_OVERLAP=forbid",
		"CLUSTERCRON_MISFIRE=catchup:30m", "CLUSTERCRON_TIMEOUT=1h",
		"CLUSTERCRON_SCOPE=node", "CLUSTERCRON_SCOPE=cluster",
		"HOME = \"/home/app\"",
	};
	uint32_t	 st = 2463534242U, r;
	size_t		 i, len = 0, cap = lines * 120 + 1024, nent = 0;
	char		*buf;
	int		 n;

	if ((buf = malloc(cap)) == NULL)
		return (NULL);
	for (i = 0; i < lines; i++) {
		r = rnd(&st) % 100;
		if (r < 5)
			n = snprintf(buf + len, cap - len, "# comment %zu\n",
			    i);
		else if (r < 8)
			n = snprintf(buf + len, cap - len, "\n");
		else if (r < 10)
			n = snprintf(buf + len, cap - len, "%s\n",
			    env[rnd(&st) % (sizeof(env) / sizeof(env[0]))]);
		else {
			n = snprintf(buf + len, cap - len, "%s\t%s #%zu\n",
			    sched[rnd(&st) % (sizeof(sched) /
			    sizeof(sched[0]))], cmd[rnd(&st) %
			    (sizeof(cmd) / sizeof(cmd[0]))], i);
			nent++;
		}
		if (n < 0 || (size_t)n >= cap - len) {
			free(buf);
			return (NULL);
		}
		len += (size_t)n;
	}
	*lenp = len;
	*nentp = nent;
	return (buf);
}

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

int
main(int argc, char *argv[])
{
	struct crontab	*ct;
	struct mallinfo2 before, after;
	size_t		 lines = 100000, runs = 5, len, nent, i, held = 0;
	double		 t0, t, best = 1e9;
	char		*buf;
	int		 rc;

	if (argc > 1)
		lines = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		runs = strtoul(argv[2], NULL, 10);
	if (lines == 0 || runs == 0) {
		fprintf(stderr, "usage: parse [lines [runs]]\n");
		return (1);
	}
	if ((buf = generate(lines, &len, &nent)) == NULL) {
		fprintf(stderr, "parse: out of memory\n");
		return (1);
	}
	for (i = 0; i < runs; i++) {
		before = mallinfo2();
		t0 = now();
		rc = crontab_parse("bench", buf, len, 0, &ct);
		t = now() - t0;
		after = mallinfo2();
		if (rc != 0) {
			fprintf(stderr, "parse: generated table has %zu "
			    "errors\n", rc == 1 ? ct->ct_nerr : 0);
			crontab_free(ct);
			free(buf);
			return (1);
		}
		if (ct->ct_nent != nent) {
			fprintf(stderr, "parse: %zu entries, expected %zu\n",
			    ct->ct_nent, nent);
			crontab_free(ct);
			free(buf);
			return (1);
		}
		held = after.uordblks + after.hblkhd - before.uordblks -
		    before.hblkhd;
		crontab_free(ct);
		if (t < best)
			best = t;
	}
	printf("crontab_parse: %zu lines (%zu entries, %zu bytes), best of "
	    "%zu runs\n", lines, nent, len, runs);
	printf("  %.4f s total, %.0f lines/s, %.2f us per line\n", best,
	    (double)lines / best, best * 1e6 / (double)lines);
	printf("  heap held by the table: %zu bytes, %.0f bytes per entry "
	    "(struct cron_entry alone: %zu)\n", held,
	    (double)held / (double)nent, sizeof(struct cron_entry));
	printf("  goal under %.1f s: %s\n", GOAL_SECONDS,
	    best < GOAL_SECONDS ? "met" : "missed");
	free(buf);
	return (0);
}
