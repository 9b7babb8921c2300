/*
 * malloc_churn - a malloc-heavy program for the cost of record --allocs
 * (bench/allocs/run.sh): for SECONDS, one thread replaces a random block of
 * a pool of 4096 live blocks with a new one of a random size (16 B to 4 KiB,
 * one in 256 of 128 KiB: glibc mmaps those), writing its first byte.
 * Dynamically linked: the probes sit in libc.so.6.
 *
 *   malloc_churn [SECONDS]      prints "ops_per_s=N" (malloc + free pairs), then
 *                               "mallocs=N bytes=N" (what it asked for in all)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define POOL 4096

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	static char *pool[POOL];
	uint64_t x = 88172645463325252ull, ops = 0, bytes = 0;
	uint64_t start = now_ns(), end = start + (uint64_t)(secs * 1e9), t = start;

	while (t < end) {
		for (int i = 0; i < 1024; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			size_t k = x % POOL;
			size_t size = (x >> 20) % 256 == 0 ? 128 << 10 : 16 + (x >> 32) % 4081;
			free(pool[k]);
			pool[k] = malloc(size);
			bytes += size;
			if (!pool[k])
				return 1;
			pool[k][0] = 1;
		}
		ops += 1024;
		t = now_ns();
	}
	printf("ops_per_s=%.0f\n", (double)ops / ((double)(t - start) / 1e9));
	printf("mallocs=%llu bytes=%llu\n", (unsigned long long)ops, (unsigned long long)bytes);
	return 0;
}
