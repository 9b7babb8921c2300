/*
 * engine_bench - throughput of the analysis engine and size of the trace
 * encoding, on synthetic streams.  docs/performance.md explains the numbers.
 *
 *   engine_bench [RUNS [MODE]]   (default 5 runs, medians printed; every mode)
 *
 * Engine: bucketing (4 KiB) + windowed WSS (tau = 4 T) + exact hot counts,
 * i.e. wss_add() per sample, over streams touching 1 M distinct pages:
 *   seq     sweeps over 1 M pages, one sample per page
 *   random  uniform random pages out of 1 M
 *   skewed  80 % of samples on 20 % of the pages, random within each part
 * Keys: the batch path with the address-space keys of report in front
 * (mt_spaces_key_samples): one process (keys = addresses), and two
 * processes whose stream lies in a shared mapping each maps elsewhere
 * (every sample of the second one translated).
 * Sweeps: the batch path with wss_expire() after every interval, as the
 * recorder's live WSS does (every interval there too): the cost of
 * scanning the leaves for expired ones (all live in these streams).
 * Encoding: bytes per sample on disk (column transform + zstd) for streams
 * shaped like sampled loads of a database scan, a hash probe and a mix.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/codec.h"
#include "trace/format.h"
#include "engine/wss.h"
#include "resolve/resolve.h"
#include "resolve/spaces.h"
#include <zstd.h>

#define PAGES (1u << 20)
#define SAMPLES (32u << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

static void make_stream(const char *kind, uint64_t *addr)
{
	uint64_t s = 88172645463325252ull;
	const uint64_t base = 0x7f0000000000ull;

	for (uint32_t i = 0; i < SAMPLES; i++) {
		uint64_t page;
		if (!strcmp(kind, "seq"))
			page = i % PAGES;
		else if (!strcmp(kind, "random"))
			page = rng(&s) % PAGES;
		else
			page = rng(&s) % 10 < 8 ? rng(&s) % (PAGES / 5) : PAGES / 5 + rng(&s) % (PAGES * 4 / 5);
		addr[i] = base + (page << 12) + (rng(&s) & 0xff8);
	}
}

/* mode 0: wss_add; 1: wss_add_samples; 2: keys, one process; 3: keys, two processes;
 * 4: wss_add_samples + wss_expire every interval */
static void bench_engine(int runs, int batch)
{
	static const char *const kinds[] = { "seq", "random", "skewed" };
	uint64_t *addr = malloc(SAMPLES * sizeof(*addr));
	struct memtrace_sample *smp = calloc(1u << 16, sizeof(*smp));
	char err[128];

	static const char *const what[] = { "wss_add, one by one", "wss_add_samples, prefetching",
					    "keys + wss_add_samples, one process",
					    "keys + wss_add_samples, two processes sharing",
					    "wss_add_samples + wss_expire every interval" };
	/* pid 1 maps the stream's 4 GiB shared at its base, pid 2 at +64 GiB */
	static const char m1[] = "7f0000000000-7f0100000000 rw-s 00000000 00:01 5 /memfd:b\n";
	static const char m2[] = "7f1000000000-7f1100000000 rw-s 00000000 00:01 5 /memfd:b\n";
	struct resolver *res = resolver_new();
	struct mt_spaces *sp = NULL;

	if (batch == 3) {
		resolver_add_maps(res, 0, 1, m1, sizeof(m1) - 1);
		resolver_add_maps(res, 0, 2, m2, sizeof(m2) - 1);
	}
	if (batch == 2 || batch == 3)
		sp = resolver_spaces(res, 1);
	printf("engine (%s): %u M samples over %u K distinct 4 KiB pages, median of %d runs\n",
	       what[batch], SAMPLES >> 20, PAGES >> 10, runs);
	for (int k = 0; k < 3; k++) {
		double rate[32];
		make_stream(kinds[k], addr);
		for (int r = 0; r < runs; r++) {
			struct wss w;
			/* one sample per ns of "time": T = 1 M samples, tau = 4 T */
			struct wss_config cfg = { 0, 4u << 20, 1u << 20, 12 };
			wss_init(&w, &cfg, err, sizeof(err));
			double t0 = now_s();
			uint64_t swept = 0;
			if (batch) {
				/* as report and record do: decoded chunks of 64 K samples */
				for (uint32_t i = 0; i < SAMPLES; i += 1u << 16) {
					for (uint32_t j = 0; j < 1u << 16; j++) {
						smp[j].time = (uint64_t)(i + j) + 1;
						smp[j].addr = addr[i + j];
						smp[j].pid = 1;
						if (batch == 3 && (j & 1)) {
							smp[j].pid = 2;
							smp[j].addr += 0x1000000000ull;
						}
					}
					if (sp)
						mt_spaces_key_samples(sp, smp, 1u << 16);
					wss_add_samples(&w, smp, 1u << 16, 0);
#ifndef NO_EXPIRE	/* builds against a library without wss_expire */
					if (batch == 4 && w.k != swept) {
						wss_expire(&w);
						swept = w.k;
					}
#endif
				}
			} else {
				for (uint32_t i = 0; i < SAMPLES; i++)
					wss_add(&w, (uint64_t)i + 1, addr[i]);
			}
			wss_finish(&w, SAMPLES);
			double dt = now_s() - t0;
			rate[r] = SAMPLES / dt / 1e6;
			if (r == 0)
				printf("  %-7s %llu intervals, total %llu pages, ", kinds[k],
				       (unsigned long long)w.nrows,
				       (unsigned long long)wss_total_buckets(&w));
			wss_free(&w);
		}
		printf("%.1f M samples/s\n", median(rate, runs));
	}
	resolver_free(res);
	free(addr);
	free(smp);
}

static void bench_encoding(int runs)
{
	enum { N = 1u << 21 };
	static const char *const kinds[] = { "scan", "hash-probe", "mixed", "page-faults" };
	struct memtrace_sample *s = calloc(N, sizeof(*s));
	ZSTD_CCtx *zc = ZSTD_createCCtx();

	printf("encoding: bytes per sample on disk (columns + zstd level 3), %u K samples\n", N >> 10);
	for (int k = 0; k < 4; k++) {
		uint64_t st = 42, t = 1000000000ull, scan = 0x55d000000000ull;
		for (uint32_t i = 0; i < N; i++) {
			t += 200 + rng(&st) % 400;	/* ~2.5 M samples/s */
			s[i].time = t;
			s[i].pid = 4242;
			s[i].tid = 4242 + (uint32_t)(rng(&st) % 8);
			s[i].cpu = s[i].tid % 4;
			int hash = k == 1 || (k == 2 && rng(&st) % 10 < 3);
			if (k == 3) {	/* first touches, ascending pages */
				s[i].addr = 0x7f1200000000ull + ((uint64_t)i << 12);
				s[i].ip = 0x401a2d;
				continue;
			}
			if (hash) {
				s[i].addr = 0x7f3000000000ull + (rng(&st) % (1u << 30) & ~7ull);
				s[i].ip = 0x4a1000 + 4 * (rng(&st) % 16);
			} else {
				scan += 8 * (800 + rng(&st) % 400);	/* every ~1000th load of a scan */
				s[i].addr = scan;
				s[i].ip = 0x4b2000 + 4 * (rng(&st) % 8);
			}
			s[i].weight = (uint32_t)(5 + rng(&st) % (hash ? 300 : 20));
			s[i].data_src = hash ? 0x68100142 : 0x29080142;
		}
		uint32_t cols = k == 3 ? COLS_REQUIRED | (1u << COL_IP) : COLS_ALL;
		double mbs[32];
		size_t bytes = 0;
		for (int r = 0; r < runs; r++) {
			struct bytebuf raw = { 0 };
			size_t zcap = ZSTD_compressBound((size_t)CHUNK_MAX_SAMPLES * 80);
			unsigned char *z = malloc(zcap);
			double t0 = now_s();
			bytes = 0;
			for (uint32_t i = 0; i < N; i += CHUNK_MAX_SAMPLES) {
				raw.len = 0;
				sample_encode(s + i, CHUNK_MAX_SAMPLES, cols, &raw);
				bytes += ZSTD_compressCCtx(zc, z, zcap, raw.data, raw.len, 3) + CHUNK_HDR_SIZE;
			}
			mbs[r] = N / (now_s() - t0) / 1e6;
			free(z);
			bytebuf_free(&raw);
		}
		printf("  %-11s %.2f B/sample (%s), encode+compress %.1f M samples/s\n", kinds[k],
		       (double)bytes / N, k == 3 ? "time, addr, pid, tid, cpu, ip" : "all 8 columns",
		       median(mbs, runs));
	}
	ZSTD_freeCCtx(zc);
	free(s);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5;
	int only = argc > 2 ? atoi(argv[2]) : -1;

	if (runs < 1 || runs > 32)
		runs = 5;
	for (int mode = 0; mode < 5; mode++)
		if (only < 0 || only == mode)
			bench_engine(runs, mode);
	if (only < 0)
		bench_encoding(runs);
	return 0;
}
