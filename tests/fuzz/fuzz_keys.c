/*
 * fuzz_keys.c - address-space keys through the public resolver API
 * (include/memtrace/resolve.h): memtrace_resolver_keys over every sample of
 * the trace (what memtrace-analyze heatmap does), then over pids the
 * trace never saw (taken from the input's last bytes: up to 48 new spaces,
 * so the space table grows while keys are taken), memtrace_resolver_key,
 * _decode, memtrace_describe_key, memtrace_describe, memtrace_resolve and
 * both layouts.  Checks: the one-at-a-time key equals the batch key, the
 * key layout is in order without overlaps, truncated descriptions end.
 * Input: a trace file (CRCs fixed up, fuzz_input.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/resolve.h"
#include "memtrace/trace.h"
#include "fuzz_input.h"

#define ROOT "/nonexistent-fuzz-root"

static volatile uint64_t sink;

static void describe(struct memtrace_resolver *r, uint32_t pid, uint64_t addr, uint64_t key)
{
	char buf[256];
	struct memtrace_location loc;
	uint32_t dpid, shared;
	uint64_t daddr;

	sink += (uint64_t)memtrace_describe_key(r, key, buf, sizeof(buf)) + strlen(buf);
	sink += (uint64_t)memtrace_describe(r, pid, UINT64_MAX, addr, buf, sizeof(buf)) + strlen(buf);
	if (memtrace_resolve(r, pid, UINT64_MAX, addr, &loc) > 0)
		sink += strlen(loc.mapping) + strlen(loc.path) + loc.ninlined;
	int d = memtrace_resolver_decode(r, key, &dpid, &daddr, &shared);
	sink += (uint64_t)d + shared;
	/* a truncated buffer must still be terminated */
	memtrace_describe_key(r, key, buf, 3);
	if (strlen(buf) > 2)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	unsigned char k[16];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct memtrace_resolver *r = memtrace_resolver_open(path, ROOT, ROOT, err, sizeof(err));
	struct fuzz_samples s;

	fuzz_tail(data, size, k, sizeof(k));
	if (!r) {
		close(fd);
		return 0;
	}
	fuzz_read_samples(path, 1u << 20, &s);
	/* the pids the trace never saw: new spaces while keys are taken */
	size_t extra = k[0] % 49, n = s.n + extra;
	uint32_t *pid = malloc((n ? n : 1) * sizeof(*pid));
	uint64_t *addr = malloc((n ? n : 1) * sizeof(*addr));
	uint64_t *key = malloc((n ? n : 1) * sizeof(*key));
	uint64_t a0;
	memcpy(&a0, k + 8, 8);
	for (size_t i = 0; i < extra; i++) {
		pid[i] = 100000u + (uint32_t)k[1] * 7u + (uint32_t)i * (1u + k[2] % 3);
		addr[i] = a0 + (uint64_t)i * 4096 * (1u + k[3]);
	}
	if (s.n) {
		memcpy(pid + extra, s.pid, s.n * sizeof(*pid));
		memcpy(addr + extra, s.addr, s.n * sizeof(*addr));
	}
	/* first the trace's samples, then the new pids in place (key == addr) */
	if (s.n)
		memtrace_resolver_keys(r, s.n, s.pid, s.addr, key + extra);
	memcpy(key, addr, extra * sizeof(*key));
	memtrace_resolver_keys(r, extra, pid, key, key);
	for (size_t i = 0; i < n; i++) {
		uint64_t one = memtrace_resolver_key(r, pid[i], addr[i]);
		if (one != key[i])
			abort();	/* one key and the batch disagree */
		if (i < 64 || i % 97 == 0)
			describe(r, pid[i], addr[i], key[i]);
	}
	const struct memtrace_range *v;
	long nl = memtrace_resolver_layout(r, MEMTRACE_LAYOUT_KEYS, &v);
	for (long i = 0; i < nl && i < 256; i++) {
		if (i && v[i].start < v[i - 1].end)
			abort();	/* documented: not overlapping, in key order */
		sink += strlen(v[i].name) + strlen(v[i].perms);
		describe(r, 0, v[i].start, v[i].start);
	}
	for (size_t i = 0; i < 4 && i < n; i++) {
		nl = memtrace_resolver_layout(r, pid[i], &v);
		sink += (uint64_t)nl;
	}
	free(pid);
	free(addr);
	free(key);
	fuzz_samples_free(&s);
	memtrace_resolver_close(r);
	close(fd);
	return 0;
}
