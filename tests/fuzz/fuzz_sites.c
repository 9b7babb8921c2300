/*
 * fuzz_sites.c - allocation sites (record --allocs) through the public API
 * (include/memtrace/sites.h): memtrace_sites_compute with no filter and
 * with a pid/time filter and bucket size from the input's last bytes,
 * then memtrace_sites_of_bucket at every block's start and at every
 * sample's key.  Checks: attributed <= samples; the sites' samples add up
 * to the attributed ones; a block names an existing site; a bucket's
 * site exists and its count is at most that site's samples.
 * Input: a trace file (CRCs fixed up, fuzz_input.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/sites.h"
#include "memtrace/trace.h"
#include "fuzz_input.h"

#define ROOT "/nonexistent-fuzz-root"

static volatile uint64_t sink;

static void bucket(const struct memtrace_sites *s, uint64_t key)
{
	uint64_t count = 0;
	long i = memtrace_sites_of_bucket(s, key, &count);

	if (i >= (long)s->n || (i >= 0 && count > s->sites[i].samples))
		abort();
	sink += count;
}

static void sites(const char *path, const struct fuzz_samples *smp, const unsigned char *k,
		  int filtered)
{
	char err[256];
	struct memtrace_report_config cfg = { .root = ROOT, .debug_dir = ROOT };

	if (filtered) {
		cfg.bucket = 64ull << (k[0] % 16);
		if (smp->n)
			cfg.filter.pid = smp->pid[k[1] % smp->n];
		cfg.filter.time_from = k[2] & 1 ? 1000ull << (k[2] % 32) : 0;
	}
	struct memtrace_sites *s = memtrace_sites_compute(path, &cfg, err, sizeof(err));
	if (!s)
		return;
	uint64_t sum = 0;
	for (size_t i = 0; i < s->n; i++) {
		sum += s->sites[i].samples;
		sink += strlen(s->sites[i].name) + s->sites[i].blocks + s->sites[i].buckets;
	}
	if (s->attributed > s->samples || sum != s->attributed)
		abort();	/* samples charged twice or to no site */
	for (size_t i = 0; i < s->nblocks; i++) {
		if (s->blocks[i].site >= s->n)
			abort();
		if (i < 256)
			bucket(s, s->blocks[i].key_start);
	}
	for (size_t i = 0; i < smp->n && i < 256; i++)
		bucket(s, smp->addr[i]);
	memtrace_sites_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	unsigned char k[4];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct fuzz_samples s;

	fuzz_tail(data, size, k, sizeof(k));
	fuzz_read_samples(path, 1u << 20, &s);
	sites(path, &s, k, 0);
	sites(path, &s, k, 1);
	fuzz_samples_free(&s);
	close(fd);
	return 0;
}
