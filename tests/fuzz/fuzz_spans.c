/*
 * fuzz_spans.c - spans (record --mark) through the public API:
 * memtrace_trace_spans, memtrace_trace_span_mask over every sample, and
 * memtrace_report_compute with MEMTRACE_REPORT_BY_SPAN, without a pattern
 * and with a pattern cut out of one of the trace's labels (which, where
 * and how long from the input's last bytes), plus a time filter.
 * Checks: the mask counts what it keeps; a label group's distinct buckets
 * are at least its largest span's, its mean at most that largest.
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

static void by_span(const char *path, const char *pattern, const unsigned char *k,
		    uint64_t span_of_trace)
{
	char err[256];
	struct memtrace_report_config cfg = {
		.flags = MEMTRACE_REPORT_BY_SPAN | (k[4] & 1 ? MEMTRACE_REPORT_PER_PROCESS : 0),
		.span = pattern, .root = ROOT, .debug_dir = ROOT,
		.bucket = 64ull << (k[5] % 16),
		.filter = { .time_from = k[6] & 1 ? span_of_trace / 4 : 0,
			    .time_to = k[6] & 2 ? span_of_trace / 2 + 1 : 0 },
	};
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));

	if (!r)
		return;
	for (size_t i = 0; i < r->nspan_groups; i++) {
		const struct memtrace_span_group *g = &r->span_groups[i];
		if (g->max_buckets > g->buckets || g->avg_buckets > (double)g->max_buckets * 1.000001)
			abort();	/* a label's union is smaller than one of its spans */
		sink += strlen(g->label) + g->samples + g->spans + g->time;
	}
	sink += r->nspans + r->span_samples;
	memtrace_report_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256], pattern[64];
	unsigned char k[8];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	const struct memtrace_span *sp = NULL;
	long ns = t ? memtrace_trace_spans(t, &sp, err, sizeof(err)) : -1;
	struct fuzz_samples s;

	fuzz_tail(data, size, k, sizeof(k));
	pattern[0] = 0;
	if (ns > 0) {	/* a piece of one label */
		const char *l = sp[k[0] % ns].label;
		size_t len = strlen(l), from = len ? k[1] % len : 0, n = k[2] % 8;
		if (n > len - from)
			n = len - from;
		memcpy(pattern, l + from, n);
		pattern[n] = 0;
		for (long i = 0; i < ns; i++)
			sink += sp[i].end - sp[i].start + (uint64_t)sp[i].open + strlen(sp[i].label);
	}
	if (t && !fuzz_read_samples(path, 1u << 20, &s)) {
		uint8_t *keep = malloc(s.n ? s.n : 1);
		long kept = memtrace_trace_span_mask(t, pattern, s.n, s.time, s.tid, keep, err,
						     sizeof(err));
		if (kept >= 0) {
			long count = 0;
			for (size_t i = 0; i < s.n; i++)
				count += keep[i] != 0;
			if (count != kept)
				abort();	/* returned count differs from the mask */
		}
		free(keep);
		uint64_t span = s.n ? s.time[s.n - 1] - s.start_time : 0;
		fuzz_samples_free(&s);
		by_span(path, NULL, k, span);
		by_span(path, pattern, k, span);
	}
	if (t)
		memtrace_trace_close(t);
	close(fd);
	return 0;
}
