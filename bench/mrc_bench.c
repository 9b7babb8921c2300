/*
 * mrc_bench - the exact miss-ratio curve (engine/mrc.c: LRU stack
 * distances, Fenwick tree) on synthetic streams of 100 M references, one
 * core.  docs/performance.md holds the numbers (target: <= 30 s).
 *
 *   mrc_bench [RUNS [MODE [MREFS]]]   (default 5 runs, every mode, 100 M refs)
 *
 * Modes (buckets = 4 KiB pages):
 *   seq     a cyclic scan over 1 M pages (every reference at distance 1 M)
 *   random  uniform random pages out of 1 M (random probes of the table)
 *   skewed  80 % of references on 20 % of 1 M pages
 *   big     uniform random pages out of 16 M (a 64 GiB footprint)
 * The stream is made before the clock starts; the time is mrc_add_many
 * over batches of 4096 references plus mrc_finish, as CPU time of the
 * thread (on a shared machine wall time measures the neighbours).  Medians
 * of RUNS runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/mrc.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void make_stream(const char *kind, uint64_t *b, size_t n)
{
	uint64_t s = 88172645463325252ull;
	const uint64_t base = 0x7f0000000000ull >> 12;
	uint64_t pages = !strcmp(kind, "big") ? 16u << 20 : 1u << 20;

	for (size_t i = 0; i < n; i++) {
		uint64_t page;
		if (!strcmp(kind, "seq"))
			page = i % pages;
		else if (!strcmp(kind, "skewed"))
			page = rng(&s) % 10 < 8 ? rng(&s) % (pages / 5)
					       : pages / 5 + rng(&s) % (pages * 4 / 5);
		else
			page = rng(&s) % pages;
		b[i] = base + page;
	}
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	const char *only = argc > 2 ? argv[2] : NULL;
	size_t n = (argc > 3 ? (size_t)atol(argv[3]) : 100) * 1000000;
	static const char *modes[] = { "seq", "random", "skewed", "big" };
	uint64_t *b = malloc(n * sizeof(*b));

	if (runs < 1 || !b || !n) {
		fprintf(stderr, "usage: mrc_bench [RUNS [MODE [MREFS]]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("exact MRC (engine/mrc.c): %zu M references, median of %d runs, thread CPU time\n",
	       n / 1000000, runs);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (only && strcmp(only, modes[m]))
			continue;
		double t[64];
		uint64_t distinct = 0, hits = 0;
		make_stream(modes[m], b, n);
		for (int r = 0; r < runs && r < 64; r++) {
			struct mrc c;
			double t0 = now_s();
			mrc_init(&c);
			for (size_t i = 0; i < n; i += 4096)	/* batches, as the report adds them */
				mrc_add_many(&c, b + i, n - i < 4096 ? n - i : 4096);
			mrc_finish(&c);
			t[r] = now_s() - t0;
			distinct = c.distinct;
			hits = mrc_hits(&c, c.distinct / 2);
			mrc_free(&c);
		}
		printf("  %-7s %9llu buckets  %.2f s  (%.1f M refs/s; hit ratio at half the footprint %.3f)\n",
		       modes[m], (unsigned long long)distinct, median(t, runs < 64 ? runs : 64),
		       (double)n / 1e6 / median(t, runs < 64 ? runs : 64), (double)hits / (double)n);
	}
	free(b);
	return 0;
}
