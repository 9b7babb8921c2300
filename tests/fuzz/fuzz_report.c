/*
 * fuzz_report.c - the report engine (memtrace_report_compute) on a trace:
 * every table and series (all buckets, regions, the full curve, per
 * process), then once more with a time/pid filter, a bucket and a window
 * taken from the last input bytes.  ELF files are looked up under a
 * directory that does not exist (the host's files are not part of the input).
 * Input: a trace file (CRCs fixed up, fuzz_input.h).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "fuzz_input.h"

static volatile uint64_t sink;

static void use(const struct memtrace_report *r)
{
	sink += r->data.n + r->code.n + r->npeaks + r->nhot_data + r->ncurve + r->nregions;
	if (r->data.n)
		sink += r->data.wss[r->data.n - 1];
	for (size_t i = 0; i < r->nhot_data; i++)
		sink += strlen(r->hot_data[i].where);
	for (size_t i = 0; i < r->nregions; i++)
		sink += strlen(r->regions[i].label);
	for (size_t i = 0; i < r->nprocesses; i++)
		sink += r->processes[i].data.n + strlen(r->processes[i].comm);
	/* blind windows (PASSES chunks): every row's flag, every run */
	for (size_t i = 0; r->data_blind && i < r->data.n; i++)
		sink += r->data_blind[i];
	for (size_t i = 0; r->code_blind && i < r->code.n; i++)
		sink += r->code_blind[i];
	for (size_t i = 0; i < r->blind.nruns; i++)
		sink += r->blind.last[i] - r->blind.first[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct memtrace_report_config cfg = {
		.flags = MEMTRACE_REPORT_ALL_BUCKETS | MEMTRACE_REPORT_REGIONS |
			 MEMTRACE_REPORT_FULL_CURVE | MEMTRACE_REPORT_PER_PROCESS,
		.root = "/nonexistent-fuzz-root", .debug_dir = "/nonexistent-fuzz-root",
	};
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));

	if (r) {
		use(r);
		/* a second configuration from the input's last bytes */
		unsigned char k[4] = { 0 };
		memcpy(k, data + (size >= 4 ? size - 4 : 0), size >= 4 ? 4 : size);
		struct memtrace_report_config c2 = {
			.bucket = 64ull << (k[0] % 16),
			.window = r->window / (1 + k[1] % 8) + k[2],
			.interval = r->window / (1 + k[3] % 16) + 1,
			.top = 1 + k[2] % 4, .functions = 1, .locations = 1,
			.sensitivity = 0.5, .max_peaks = 1 + k[3] % 4,
			.flags = MEMTRACE_REPORT_REGIONS | MEMTRACE_REPORT_PER_PROCESS,
			.filter = { .pid = r->info.target_pid,
				    .time_from = (r->last_time - r->start_time) / 4,
				    .time_to = (r->last_time - r->start_time) / 2 },
			.root = cfg.root, .debug_dir = cfg.debug_dir,
		};
		memtrace_report_free(r);
		r = memtrace_report_compute(path, &c2, err, sizeof(err));
		if (r)
			use(r);
		memtrace_report_free(r);
	}
	close(fd);
	return 0;
}
