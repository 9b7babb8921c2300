/*
 * pebs_gen - writes a PEBS-rate hour through the public writer API
 * (include/memtrace/trace.h) for bench/pebs_hour/run.sh: N samples (default
 * 100 M, 27.8 k/s over 3600 s) of 8 threads of one process, sample period
 * 1000, loads over a working set of PAGES 4 KiB pages (default 300000) of
 * which a tenth gets 90 % of the samples, from 2000 functions.  Seeded:
 * the same file every run.
 *
 *   build/bench/pebs_gen OUT [N] [PAGES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/trace.h"

#define PID 4000
#define THREADS 8
#define BATCH 65536
#define HEAP 0x7f0000000000ull
#define CODE 0x400000ull
#define FUNCS 2000

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pebs_gen OUT [SAMPLES] [PAGES]\n");
		return 2;
	}
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000000ull;
	uint64_t pages = argc > 3 ? strtoull(argv[3], NULL, 0) : 300000;
	uint64_t hot = pages / 10 ? pages / 10 : 1;
	const uint64_t start = 1000000000ull, span = 3600ull * 1000000000ull;
	char err[512], meta[512], maps[256];

	snprintf(meta, sizeof(meta),
		 "format=memtrace-1\nhost=bench\nbackend=perf\nsource=pebs\nevent=loads\n"
		 "sample_period=1000\nclock=monotonic\ntime_unit=ns\nstart_time=%llu\n"
		 "bucket_default=4096\ntarget_pid=%d\ntarget_comm=pebs_gen\ncommand=pebs_gen\n",
		 (unsigned long long)start, PID);
	struct memtrace_writer *w = memtrace_writer_open(argv[1], meta, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "pebs_gen: %s\n", err);
		return 1;
	}
	int len = snprintf(maps, sizeof(maps),
			   "%llx-%llx r-xp 00000000 08:01 42 /usr/bin/pebs_gen\n"
			   "%llx-%llx rw-p 00000000 00:00 0 [anon:pool]\n",
			   (unsigned long long)CODE, (unsigned long long)(CODE + 0x100000),
			   (unsigned long long)HEAP, (unsigned long long)(HEAP + pages * 4096));
	int bad = memtrace_writer_maps(w, start, PID, maps, (size_t)len, err, sizeof(err));
	for (int t = 0; t < THREADS && !bad; t++)
		bad = memtrace_writer_thread(w, start, PID, PID + t, "pebs_gen", err, sizeof(err));
	uint64_t *time = malloc(BATCH * 8), *addr = malloc(BATCH * 8), *ip = malloc(BATCH * 8);
	uint32_t *pid = malloc(BATCH * 4), *tid = malloc(BATCH * 4), *cpu = malloc(BATCH * 4);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (uint64_t done = 0; done < n && !bad;) {
		size_t m = n - done < BATCH ? (size_t)(n - done) : BATCH;
		for (size_t i = 0; i < m; i++) {
			uint64_t k = done + i, r = rng(&s);
			uint64_t page = r % 10 < 9 ? (r >> 8) % hot : (r >> 8) % pages;
			time[i] = start + k * (span / n);
			addr[i] = HEAP + page * 4096 + ((r >> 40) & 63) * 64;
			ip[i] = CODE + 0x1000 + ((r >> 20) % FUNCS) * 64 + (page & 7);
			pid[i] = PID;
			tid[i] = PID + (uint32_t)(k % THREADS);
			cpu[i] = (uint32_t)(k % THREADS);
		}
		struct memtrace_columns c = { .time = time, .addr = addr, .ip = ip, .pid = pid,
					      .tid = tid, .cpu = cpu, .cap = m };
		bad = memtrace_writer_samples(w, &c, m, err, sizeof(err));
		done += m;
	}
	char end[256];
	snprintf(end, sizeof(end), "end_reason=target-exited\nend_time=%llu\nsamples=%llu\n"
		 "lost=0\nthrottled=0\ndropped=0\n", (unsigned long long)(start + span),
		 (unsigned long long)n);
	bad |= memtrace_writer_close(w, bad ? NULL : end, err, sizeof(err));
	free(time), free(addr), free(ip), free(pid), free(tid), free(cpu);
	if (bad) {
		fprintf(stderr, "pebs_gen: %s\n", err);
		return 1;
	}
	return 0;
}
