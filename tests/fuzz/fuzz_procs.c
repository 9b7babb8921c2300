/*
 * fuzz_procs.c - the per-process report (MEMTRACE_REPORT_PER_PROCESS)
 * through memtrace_report_compute: all processes, then filtered to one pid
 * and to one tid of the trace (which from the input's last bytes), with
 * the hot buckets, regions and the bucket size and window from the input
 * (the window at least 1/2048 of what the first, default report covers).
 * Checks: the processes' samples add up to the report's (every sample has
 * one pid); with a pid filter, one process at most, that pid.
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
static uint64_t per_process(const char *path, const unsigned char *k, uint32_t pid, uint32_t tid,
			    uint64_t span)
{
	char err[256];
	struct memtrace_report_config cfg = {
		.flags = MEMTRACE_REPORT_PER_PROCESS | MEMTRACE_REPORT_REGIONS |
			 (k[3] & 1 ? MEMTRACE_REPORT_ALL_BUCKETS : 0),
		.bucket = 64ull << (k[4] % 16), .window = k[5] & 1 && span ? fuzz_window(1000ull << (k[5] % 24), span) : 0,
		.top = 1 + k[6] % 8, .filter = { .pid = pid, .tid = tid },
		.root = ROOT, .debug_dir = ROOT,
	};
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));

	if (!r)
		return 0;
	uint64_t sum = 0;
	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct memtrace_process *p = &r->processes[i];
		sum += p->samples;
		sink += strlen(p->comm) + p->data.n + p->shared + p->nhot;
		for (size_t j = 0; j < p->nhot; j++)
			sink += strlen(p->hot[j].where);
		if (pid && p->pid != pid)
			abort();	/* a process the filter excludes */
	}
	if (sum != r->samples)
		abort();	/* samples of no process or of two */
	if (pid && r->nprocesses > 1)
		abort();
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
	/* the default window first: the time the report covers, which the
	 * windows asked for next stay above 1/2048 of */
	uint64_t span = per_process(path, k, 0, 0, 0);
	if (s.n) {
		size_t i = ((size_t)k[0] << 8 | k[1]) % s.n;
		per_process(path, k, s.pid[i], 0, span);
		per_process(path, k, 0, s.tid[(i + k[2]) % s.n], span);
	}
	fuzz_samples_free(&s);
	close(fd);
	return 0;
}
