/*
 * fuzz_agg.c - aggregated traces (record --aggregate: AGG chunks of
 * per-interval bucket counts, HEADER aggregate=INTERVAL) through the
 * public API: memtrace_trace_info and memtrace_trace_read (rows expanded
 * to samples), then memtrace_report_compute with every table, and with a
 * bucket size, window, interval and pid filter from the input's last bytes.
 * Checks: a report's per-process samples add up to its samples.
 * Input: a trace file (CRCs fixed up, fuzz_input.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "fuzz_input.h"

#define ROOT "/nonexistent-fuzz-root"

static volatile uint64_t sink;

/* Returns the time its series covers (rows x interval). */
static uint64_t report(const char *path, const struct memtrace_report_config *cfg)
{
	char err[256];
	struct memtrace_report *r = memtrace_report_compute(path, cfg, err, sizeof(err));

	if (!r)
		return 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < r->nprocesses; i++)
		sum += r->processes[i].samples;
	if ((cfg->flags & MEMTRACE_REPORT_PER_PROCESS) && sum != r->samples)
		abort();	/* samples of no process or of two */
	for (size_t i = 0; i < r->nbuckets; i++)
		sink += r->bucket_count[i];
	for (size_t i = 0; i < r->nhot_data; i++)
		sink += strlen(r->hot_data[i].where);
	sink += r->data.n + r->ncurve + r->npeaks + r->nregions;
	uint64_t covered = r->intervals * r->interval;	/* every interval, rows or not */
	memtrace_report_free(r);
	return covered;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	unsigned char k[8];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct fuzz_samples s;

	fuzz_tail(data, size, k, sizeof(k));
	fuzz_read_samples(path, 1u << 20, &s);
	struct memtrace_report_config cfg = {
		.flags = MEMTRACE_REPORT_ALL_BUCKETS | MEMTRACE_REPORT_REGIONS |
			 MEMTRACE_REPORT_FULL_CURVE | MEMTRACE_REPORT_PER_PROCESS,
		.root = ROOT, .debug_dir = ROOT,
	};
	uint64_t span = report(path, &cfg);	/* the windows below: >= 1/2048 of it */
	cfg.bucket = 64ull << (k[0] % 16);
	cfg.window = k[1] & 1 && span ? fuzz_window(1000ull << (k[1] % 32), span) : 0;
	cfg.interval = k[2] & 1 && span ? fuzz_window(1000ull << (k[2] % 32), span) : 0;
	cfg.top = 1 + k[3] % 8;
	cfg.flags = MEMTRACE_REPORT_PER_PROCESS | (k[4] & 1 ? MEMTRACE_REPORT_REGIONS : 0);
	if (s.n && k[5] & 1)
		cfg.filter.pid = s.pid[k[6] % s.n];
	cfg.filter.time_to = k[7] & 1 ? 1000ull << (k[7] % 32) : 0;
	report(path, &cfg);
	fuzz_samples_free(&s);
	close(fd);
	return 0;
}
