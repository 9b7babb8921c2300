/*
 * hwload.c - the workload of memtrace-hwcheck: a known access pattern.
 *
 * Four anonymous buffers, each its own mapping (MADV_NOHUGEPAGE):
 *   A  8 MiB  scanned sequentially, one 8-byte load per word per round
 *   B 32 MiB  random 8-byte loads, A's word count / 3 per round
 *   C  8 MiB  never touched
 *   D  2 MiB  one 8-byte store per word per round
 * Every access goes through a volatile pointer, so each is exactly one load
 * or store instruction; the loop state stays in registers.  Per round the
 * loads are 3/4 in A and 1/4 in B, the stores all in D.
 *
 * By default A, B and D are populated by the kernel (MAP_POPULATE: no user
 * store writes them, so the only user stores are D's).  --faults leaves them
 * unpopulated: the first round then takes one page fault per page of A, B
 * and D (B's random probes touch every page: 349525 probes on 8192 pages).
 *
 * Writes the layout to -o FILE (or stdout) after the run: pid, each buffer's
 * range and per-round counts, the rounds, CLOCK_MONOTONIC ns at the start
 * and end of the access loop (the time tracing slowdowns are measured on).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024UL * 1024UL)

struct buffer {
	const char *name;
	size_t bytes;
	volatile uint64_t *p;
	uint64_t loads, stores;		/* per round */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int map_buffer(struct buffer *b, int populate)
{
	void *p = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "hwload: mmap %zu bytes: %s\n", b->bytes, strerror(errno));
		return -1;
	}
	madvise(p, b->bytes, MADV_NOHUGEPAGE);
	b->p = p;
	return 0;
}

/* One round: scan A, probe B, store D.  Returns the loads' sum. */
static uint64_t round_once(struct buffer *a, struct buffer *b, struct buffer *d, uint64_t *rng)
{
	uint64_t sum = 0, x = *rng, nb = b->bytes / 8;

	for (size_t i = 0; i < a->bytes / 8; i++)
		sum += a->p[i];
	for (uint64_t i = 0; i < b->loads; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += b->p[x & (nb - 1)];
	}
	for (size_t i = 0; i < d->bytes / 8; i++)
		d->p[i] = i;
	*rng = x;
	return sum;
}

static void usage(void)
{
	fprintf(stderr, "usage: hwload [-r ROUNDS] [--faults] [-o LAYOUT]\n");
}

int main(int argc, char **argv)
{
	struct buffer buf[4] = {
		{ "A", 8 * MIB, NULL, 0, 0 }, { "B", 32 * MIB, NULL, 0, 0 },
		{ "C", 8 * MIB, NULL, 0, 0 }, { "D", 2 * MIB, NULL, 0, 0 },
	};
	long rounds = 20;
	int populate = 1;
	const char *out = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			char *end;
			rounds = strtol(argv[++i], &end, 10);
			if (*end || rounds < 1 || rounds > 1000000) {
				fprintf(stderr, "hwload: -r wants 1..1000000, not '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--faults")) {
			populate = 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else {
			usage();
			return 2;
		}
	}
	buf[0].loads = buf[0].bytes / 8;
	buf[1].loads = buf[0].loads / 3;
	buf[3].stores = buf[3].bytes / 8;
	for (int i = 0; i < 4; i++)
		if (map_buffer(&buf[i], populate && i != 2))
			return 1;

	uint64_t rng = 0x9e3779b97f4a7c15ULL, sum = 0;
	uint64_t t0 = now_ns();
	for (long r = 0; r < rounds; r++)
		sum += round_once(&buf[0], &buf[1], &buf[3], &rng);
	uint64_t t1 = now_ns();

	FILE *f = out ? fopen(out, "w") : stdout;
	if (!f) {
		fprintf(stderr, "hwload: %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(f, "pid %d\nrounds %ld\npopulated %d\n", (int)getpid(), rounds, populate);
	for (int i = 0; i < 4; i++)
		fprintf(f, "buffer %s 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			buf[i].name, (uint64_t)(uintptr_t)buf[i].p,
			(uint64_t)(uintptr_t)buf[i].p + buf[i].bytes, buf[i].loads, buf[i].stores);
	fprintf(f, "loop_start_ns %" PRIu64 "\nloop_end_ns %" PRIu64 "\nchecksum %" PRIu64 "\n",
		t0, t1, sum);
	if (out && fclose(f)) {
		fprintf(stderr, "hwload: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return 0;
}
