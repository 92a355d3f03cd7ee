/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * claim.c: claims per second and latency, through the store and through
 * a minimal raw client issuing the same SQL (claim_raw.c), in one run.
 *
 *	bench/claim [-j jobs] [-a attempts] [-k 1,4,16] URL [CNF]
 *
 * For each number of contenders K, each mode (single: one conditional
 * UPDATE per claim; batch: claims of up to 100 jobs due at one instant
 * in one transaction) and each client (store, raw), K processes each
 * try to claim every job at every fire of the run, starting at a
 * different job so that they meet on rows now and then, as nodes do.
 * Reported: attempts per second (each process's claim calls), fires won
 * per second, the latency of one call (p50, p99) and the contenders'
 * own CPU time per call (connecting included), which shows what the
 * store adds to the client's work without the noise of disk flushes.
 * A benchmark only measures: it reads the monotonic clock itself, at
 * microsecond grain.
 */

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "claim_raw.h"

#define BATCH	100
#define MAXLAT	(1 << 22)

struct result {
	double		 secs;
	double		 cpu;		/* contenders' CPU seconds */
	uint64_t	 calls;
	uint64_t	 won;
	uint32_t	*lat;		/* shared, per call, microseconds */
	size_t		 nlat;
};

static const char	*url, *cnf;
static int		 njobs = 1000;
static long		 attempts = 6000;
static char		(*ids)[40];
static const char	**idp;
static time_t		 fire_base = 1900000000;

static uint64_t	 now_us(void);
static int	 cmp_u32(const void *, const void *);
static struct store *open_store(const char *);
static void	 contend(int, int, int, int, time_t, int, uint32_t *, size_t,
		    uint64_t *, uint64_t *, int);
static void	 run(int, int, int, struct result *);
static void	 merge(struct result *, struct result *);
static void	 report(const char *, const char *, int, const char *,
		    struct result *);

static uint64_t
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t	 x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y ? -1 : x > y);
}

static struct store *
open_store(const char *node)
{
	struct store_config	 cf;
	struct store_error	 e;
	struct store		*st;

	memset(&cf, 0, sizeof(cf));
	cf.sc_url = url;
	cf.sc_mysql_file = cnf;
	cf.sc_node = node;
	cf.sc_busy_timeout = 30000;
	cf.sc_retries = 50;
	if (store_open(&cf, &st, &e) == -1)
		errx(1, "%s", e.se_msg);
	return (st);
}

/*
 * One contender: claims every job at every fire from fire0, starting
 * at job `start', with the store or the raw client.  Latencies go to
 * lat[], counts to *calls and *won.
 */
static void
contend(int raw, int batch, int me, int k, time_t fire0, int nfires,
    uint32_t *lat, size_t maxlat, uint64_t *calls, uint64_t *won, int go)
{
	struct store		*st = NULL;
	struct raw		*rc = NULL;
	struct store_error	 e;
	unsigned char		 w[BATCH];
	char			 node[32], c;
	size_t			 nw, nlat = 0;
	uint64_t		 t0;
	int			 f, i, j, start, n, r, wn;

	snprintf(node, sizeof(node), "bench%d", me);
	if (raw) {
		if ((rc = raw_open(url, cnf, node)) == NULL)
			errx(1, "raw client cannot connect");
	} else
		st = open_store(node);
	start = (int)((long)njobs * me / k);
	if (read(go, &c, 1) != 1)
		err(1, "barrier");
	for (f = 0; f < nfires; f++) {
		time_t	 fire = fire0 + 60 * (time_t)f;

		for (i = 0; i < njobs; i += n) {
			j = (start + i) % njobs;
			n = batch ? BATCH : 1;
			if (j + n > njobs)
				n = njobs - j;
			if (i + n > njobs)
				n = njobs - i;
			t0 = now_us();
			if (!batch) {
				r = raw ? raw_claim(rc, ids[j], fire, &wn) :
				    store_claim(st, ids[j], fire, &wn, &e);
				nw = wn;
			} else
				r = raw ? raw_batch(rc, &idp[j], (size_t)n,
				    fire, BATCH, w, &nw) :
				    store_claim_batch(st, &idp[j], (size_t)n,
				    fire, BATCH, w, &nw, &e);
			if (r == -1)
				errx(1, "claim failed: %s", raw ?
				    raw_error(rc) : e.se_msg);
			if (nlat < maxlat)
				lat[nlat++] = (uint32_t)(now_us() - t0);
			(*calls)++;
			*won += nw;
		}
	}
	raw_close(rc);
	store_close(st);
}

static void
run(int raw, int batch, int k, struct result *res)
{
	uint64_t	*counts, t0;
	uint32_t	*lat;
	struct rusage	 ru0, ru1;
	size_t		 per = MAXLAT / k, i, n;
	pid_t		*pids;
	int		 p[2], nfires, c, status;
	long		 per_fire;

	/* Rows tried per fire; batches get ten times the rows. */
	per_fire = (long)k * njobs;
	nfires = (int)(attempts * (batch ? 10 : 1) / per_fire);
	if (nfires < 1)
		nfires = 1;
	lat = mmap(NULL, MAXLAT * sizeof(*lat), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	counts = mmap(NULL, 2 * k * sizeof(*counts), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED || counts == MAP_FAILED)
		err(1, "mmap");
	memset(counts, 0, 2 * k * sizeof(*counts));
	memset(lat, 0xff, MAXLAT * sizeof(*lat));
	if (pipe(p) == -1 || (pids = calloc(k, sizeof(*pids))) == NULL)
		err(1, "pipe");
	for (c = 0; c < k; c++) {
		if ((pids[c] = fork()) == -1)
			err(1, "fork");
		if (pids[c] == 0) {
			close(p[1]);
			contend(raw, batch, c, k, fire_base, nfires,
			    lat + per * c, per, &counts[2 * c],
			    &counts[2 * c + 1], p[0]);
			_exit(0);
		}
	}
	close(p[0]);
	getrusage(RUSAGE_CHILDREN, &ru0);
	/* Let them connect, then release all at once. */
	usleep(300000);
	t0 = now_us();
	for (c = 0; c < k; c++)
		if (write(p[1], "g", 1) != 1)
			err(1, "barrier");
	close(p[1]);
	for (c = 0; c < k; c++) {
		if (waitpid(pids[c], &status, 0) == -1 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			errx(1, "a contender failed");
	}
	res->secs = (double)(now_us() - t0) / 1e6;
	getrusage(RUSAGE_CHILDREN, &ru1);
	res->cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec +
	    ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
	    (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec +
	    ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	res->calls = res->won = 0;
	for (c = 0; c < k; c++) {
		res->calls += counts[2 * c];
		res->won += counts[2 * c + 1];
	}
	fire_base += 60 * (time_t)nfires + 600;
	/* Gather the latencies actually written. */
	for (i = n = 0; i < MAXLAT; i++)
		if (lat[i] != UINT32_MAX)
			lat[n++] = lat[i];
	if (n > MAXLAT / 2)
		n = MAXLAT / 2;
	qsort(lat, n, sizeof(*lat), cmp_u32);
	res->lat = lat;
	res->nlat = n;
	munmap(counts, 2 * k * sizeof(*counts));
	free(pids);
}

/* Add the second run of a pair to the first. */
static void
merge(struct result *a, struct result *b)
{
	uint32_t	*lat;
	size_t		 n = a->nlat + b->nlat;

	a->secs += b->secs;
	a->cpu += b->cpu;
	a->calls += b->calls;
	a->won += b->won;
	if (n > MAXLAT)
		n = MAXLAT;
	lat = a->lat;
	memcpy(lat + a->nlat, b->lat, (n - a->nlat) * sizeof(*lat));
	qsort(lat, n, sizeof(*lat), cmp_u32);
	a->nlat = n;
	munmap(b->lat, MAXLAT * sizeof(*b->lat));
}

static void
report(const char *backend, const char *mode, int k, const char *client,
    struct result *r)
{
	uint32_t	 p50 = 0, p99 = 0;

	if (r->nlat > 0) {
		p50 = r->lat[r->nlat / 2];
		p99 = r->lat[r->nlat * 99 / 100];
	}
	printf("%-6s %-6s %2d %-5s %9.0f %9.0f %8u %8u %8.1f\n", backend,
	    mode, k, client, r->calls / r->secs, r->won / r->secs, p50, p99,
	    r->cpu * 1e6 / (double)r->calls);
	fflush(stdout);
	munmap(r->lat, MAXLAT * sizeof(*r->lat));
}

int
main(int argc, char *argv[])
{
	struct store_job	*jobs;
	struct store_error	 e;
	struct store		*st;
	struct result		 rs, rr, rs2, rr2;
	const char		*errstr, *backend;
	char			*ks = "1,4,16", *kp, *tok;
	int			 ch, i, k, batch;

	while ((ch = getopt(argc, argv, "a:j:k:")) != -1) {
		switch (ch) {
		case 'a':
			attempts = strtonum(optarg, 1, 100000000, &errstr);
			if (errstr != NULL)
				errx(1, "-a %s: %s", optarg, errstr);
			break;
		case 'j':
			njobs = strtonum(optarg, 1, 1000000, &errstr);
			if (errstr != NULL)
				errx(1, "-j %s: %s", optarg, errstr);
			break;
		case 'k':
			ks = optarg;
			break;
		default:
			fprintf(stderr, "usage: claim [-a attempts] [-j jobs] "
			    "[-k 1,4,16] url [cnf]\n");
			return (1);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		errx(1, "no store URL");
	url = argv[0];
	cnf = argc > 1 ? argv[1] : NULL;

	ids = calloc(njobs, sizeof(*ids));
	idp = calloc(njobs, sizeof(*idp));
	jobs = calloc(njobs, sizeof(*jobs));
	if (ids == NULL || idp == NULL || jobs == NULL)
		err(1, NULL);
	for (i = 0; i < njobs; i++) {
		snprintf(ids[i], sizeof(ids[i]), "%032x", i);
		idp[i] = ids[i];
		jobs[i].j_id = ids[i];
		jobs[i].j_owner = "bench";
		jobs[i].j_sched = "* * * * *";
		jobs[i].j_cmd = "true";
	}
	st = open_store("setup");
	backend = store_backend(st);
	{
		uint64_t	 t0 = now_us();

		if (store_jobs_register(st, jobs, njobs, &e) == -1)
			errx(1, "%s", e.se_msg);
		fprintf(stderr, "registered %d jobs in %.3f s\n", njobs,
		    (double)(now_us() - t0) / 1e6);
		t0 = now_us();
		if (store_jobs_register(st, jobs, njobs, &e) == -1)
			errx(1, "%s", e.se_msg);
		fprintf(stderr, "registered them again (unchanged) in "
		    "%.3f s\n", (double)(now_us() - t0) / 1e6);
	}
	store_close(st);
	free(jobs);

	printf("%-6s %-6s %2s %-5s %9s %9s %8s %8s %8s\n", "store", "mode",
	    "K", "via", "calls/s", "won/s", "p50 us", "p99 us", "cpu us");
	if ((kp = strdup(ks)) == NULL)
		err(1, NULL);
	for (tok = strtok(kp, ","); tok != NULL; tok = strtok(NULL, ",")) {
		k = strtonum(tok, 1, 256, &errstr);
		if (errstr != NULL)
			errx(1, "-k %s: %s", tok, errstr);
		for (batch = 0; batch <= 1; batch++) {
			/*
			 * Store, raw, raw, store: drift in the machine's
			 * speed (disk flushes above all) falls on both.
			 */
			run(0, batch, k, &rs);
			run(1, batch, k, &rr);
			run(1, batch, k, &rr2);
			run(0, batch, k, &rs2);
			merge(&rs, &rs2);
			merge(&rr, &rr2);
			report(backend, batch ? "batch" : "single", k,
			    "store", &rs);
			report(backend, batch ? "batch" : "single", k,
			    "raw", &rr);
		}
	}
	free(kp);
	free(ids);
	free(idp);
	return (0);
}
