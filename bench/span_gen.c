/*
 * span_gen - a synthetic `record --mark` trace through the public writer
 * API (include/memtrace/trace.h), for bench/spans/run.sh:
 *
 *   span_gen OUT SPANS LABELS SAMPLES [SEED [GRAIN]]
 *
 * THREADS (16) backends of one process run SPANS spans back to back (each
 * 5..35 us long, 2..12 us apart); a span's label is one of LABELS query
 * texts ("SELECT abalance FROM pgbench_accounts WHERE aid = K;", K uniform).
 * SAMPLES samples at uniform random times and threads over the spans'
 * timeline, addresses uniform in 64 MiB of one mapping.  SEED changes
 * everything (a B trace for compare).  GRAIN: the spans' time grain in ns
 * (HEADER span_grain; default 64, as `record --mark` stores them; 1: exact;
 * writers before the grain ignore it).  Built against whichever libmemtrace
 * the script links: the base commit's writer writes SPANS (12) chunks, this
 * one SPANS2 (14).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/trace.h"

#define THREADS 16

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	char err[512], label[96], meta[256];

	if (argc < 5) {
		fprintf(stderr, "usage: span_gen OUT SPANS LABELS SAMPLES [SEED [GRAIN]]\n");
		return 2;
	}
	uint64_t nspans = strtoull(argv[2], NULL, 0), nlabels = strtoull(argv[3], NULL, 0);
	uint64_t nsamples = strtoull(argv[4], NULL, 0);
	rng = 0x9E3779B97F4A7C15ull ^ (argc > 5 ? strtoull(argv[5], NULL, 0) * 7919 : 0);
	if (!nlabels)
		nlabels = 1;
	snprintf(meta, sizeof(meta), "time_unit=ns\nstart_time=1000000000\ntarget_pid=100\n"
		 "bucket_default=4096\nsample_period=1\nspan_grain=%s\n", argc > 6 ? argv[6] : "64");
	struct memtrace_writer *w = memtrace_writer_open(argv[1], meta, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "span_gen: %s\n", err);
		return 1;
	}
	static const char maps[] = "7f0000000000-7f0004000000 rw-s 00000000 00:05 99 /dev/zero (deleted)\n";
	int bad = memtrace_writer_maps(w, 1000000000, 100, maps, strlen(maps), err, sizeof(err));
	uint64_t at[THREADS];
	for (int t = 0; t < THREADS; t++) {
		at[t] = 1000000000 + rnd() % 10000;
		bad |= memtrace_writer_thread(w, 1000000000, 100, 101 + t, "postgres", err, sizeof(err));
	}
	/* spans in time order across the threads */
	for (uint64_t i = 0; i < nspans && !bad; i++) {
		int t = (int)(i % THREADS);
		uint64_t start = at[t] + 2000 + rnd() % 10000, len = 5000 + rnd() % 30000;
		at[t] = start + len;
		snprintf(label, sizeof(label), "SELECT abalance FROM pgbench_accounts WHERE aid = %llu;",
			 (unsigned long long)(1 + rnd() % nlabels));
		bad |= memtrace_writer_span(w, start, start + len, 100, 101 + (uint32_t)t, label, 0,
					    err, sizeof(err));
	}
	uint64_t end = 0;
	for (int t = 0; t < THREADS; t++)
		end = at[t] > end ? at[t] : end;
	/* samples, in time order, 64 Ki per call */
	enum { B = 65536 };
	static uint64_t tm[B], ad[B];
	static uint32_t pid[B], tid[B], cpu[B];
	uint64_t span = end - 1000000000, step = nsamples ? span / nsamples : 0;
	for (uint64_t done = 0; done < nsamples && !bad;) {
		size_t k = nsamples - done < B ? (size_t)(nsamples - done) : B;
		for (size_t i = 0; i < k; i++) {
			tm[i] = 1000000000 + (done + i) * step + rnd() % (step ? step : 1);
			ad[i] = 0x7f0000000000ull + (rnd() % (64u << 20) & ~7ull);
			pid[i] = 100;
			tid[i] = 101 + (uint32_t)(rnd() % THREADS);
			cpu[i] = (uint32_t)(rnd() % 4);
		}
		struct memtrace_columns c = { .time = tm, .addr = ad, .pid = pid, .tid = tid,
					      .cpu = cpu, .cap = k };
		bad |= memtrace_writer_samples(w, &c, k, err, sizeof(err));
		done += k;
	}
	char endmeta[64];
	snprintf(endmeta, sizeof(endmeta), "end_time=%llu\n", (unsigned long long)end);
	bad |= memtrace_writer_close(w, endmeta, err, sizeof(err));
	if (bad) {
		fprintf(stderr, "span_gen: %s\n", err);
		return 1;
	}
	return 0;
}
