/*
 * probe - memory access patterns for the estimator accuracy study
 * (docs/accuracy.md, make accuracy).
 *
 *   probe MODE [PAGES] [ACCESSES]
 *
 * MODE:
 *   scan     sequential passes over PAGES pages, 8 bytes every 64 bytes
 *   uniform  loads of uniformly random pages (random offset in the page)
 *   zipf     loads of Zipf(1)-distributed pages over PAGES (rank = page)
 *   sort     qsort of PAGES pages of 32-bit keys (the ACCESSES are ignored)
 * PAGES defaults to 512, ACCESSES to 200000.  The region is MADV_NOHUGEPAGE;
 * deterministic (fixed seed).  Prints the sum so no load is optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Zipf(1) CDF over n ranks, for a binary search per draw. */
static double *zipf_cdf(long n)
{
	double *c = malloc((size_t)n * sizeof(*c)), sum = 0;

	if (!c)
		exit(1);
	for (long i = 0; i < n; i++)
		c[i] = (sum += 1.0 / (double)(i + 1));
	for (long i = 0; i < n; i++)
		c[i] /= sum;
	return c;
}

static long zipf_draw(const double *c, long n)
{
	double u = (double)(rng() >> 11) / 9007199254740992.0;
	long lo = 0, hi = n - 1;

	while (lo < hi) {
		long mid = (lo + hi) / 2;
		if (c[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: probe scan|uniform|zipf|sort [PAGES] [ACCESSES]\n");
		return 2;
	}
	const char *mode = argv[1];
	long pages = argc > 2 ? atol(argv[2]) : 512;
	long accesses = argc > 3 ? atol(argv[3]) : 200000;
	if (pages < 1 || accesses < 1) {
		fprintf(stderr, "probe: PAGES and ACCESSES must be positive\n");
		return 2;
	}
	size_t len = (size_t)pages * PAGE;
	volatile char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("probe: mmap");
		return 1;
	}
	madvise((void *)m, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += PAGE)
		m[i] = (char)i;
	uint64_t sum = 0;
	if (!strcmp(mode, "scan")) {
		for (long a = 0; a < accesses;)
			for (size_t i = 0; i < len && a < accesses; i += 64, a++)
				sum += (unsigned char)m[i];
	} else if (!strcmp(mode, "uniform")) {
		for (long a = 0; a < accesses; a++)
			sum += (unsigned char)m[(size_t)(rng() % (uint64_t)pages) * PAGE + (rng() & 4095)];
	} else if (!strcmp(mode, "zipf")) {
		double *c = zipf_cdf(pages);
		for (long a = 0; a < accesses; a++)
			sum += (unsigned char)m[(size_t)zipf_draw(c, pages) * PAGE + (rng() & 4095)];
		free(c);
	} else if (!strcmp(mode, "sort")) {
		uint32_t *k = (uint32_t *)(void *)m;
		size_t n = len / sizeof(*k);
		for (size_t i = 0; i < n; i++)
			k[i] = (uint32_t)rng();
		qsort(k, n, sizeof(*k), cmp_u32);
		sum = k[0] + k[n - 1];
	} else {
		fprintf(stderr, "probe: unknown mode '%s'\n", mode);
		return 2;
	}
	printf("mode=%s pages=%ld sum=%llu\n", mode, pages, (unsigned long long)sum);
	return 0;
}
