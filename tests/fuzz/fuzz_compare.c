/*
 * fuzz_compare.c - two traces side by side (memtrace_compare_compute,
 * include/memtrace/compare.h): the input is split where a second file
 * header ("MEMTRACE" at a later offset) begins, A before it and B from it
 * (B = A when there is none); compared as A/B, then with a span pattern
 * (a piece of one of A's span labels) and B's own bucket and window, and B
 * against itself.  Checks: region and span rows are finite where the
 * header says (a change is NAN only for a row B alone has); the totals
 * hold at least every row's samples.
 * Input: one or two trace files, concatenated (CRCs fixed up in each).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/compare.h"
#include "memtrace/trace.h"
#include "fuzz_input.h"

#define ROOT "/nonexistent-fuzz-root"

static volatile uint64_t sink;

static void rows(const struct memtrace_compare_row *v, size_t n,
		 const struct memtrace_compare_row *total)
{
	uint64_t s[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++) {
		sink += strlen(v[i].key) + v[i].spans[0] + v[i].time[1];
		if (isnan(v[i].volume_change) && (v[i].volume[0] != 0 || v[i].volume[1] == 0))
			abort();	/* NAN only for "new" (B alone) */
		s[0] += v[i].samples[0];
		s[1] += v[i].samples[1];
	}
	if (s[0] > total->samples[0] || s[1] > total->samples[1])
		abort();	/* rows hold more samples than the total */
}

static void compare(const char *a, const char *b, const char *span, const unsigned char *k,
		    uint64_t span_b)
{
	char err[256];
	struct memtrace_report_config ca = {
		.bucket = k[0] & 1 ? 64ull << (k[1] % 16) : 0, .span = span,
		.root = ROOT, .debug_dir = ROOT,
	};
	struct memtrace_report_config cb = ca;
	cb.bucket = 64ull << (k[2] % 16);
	cb.window = k[3] & 1 && span_b ? fuzz_window(1000ull << (k[3] % 24), span_b) : 0;
	struct memtrace_compare *c = memtrace_compare_compute(a, b, &ca, k[0] & 2 ? &cb : NULL,
							      err, sizeof(err));
	if (!c)
		return;
	rows(c->regions, c->nregions, &c->regions_total);
	rows(c->spans, c->nspans, &c->spans_total);
	sink += c->bucket + (uint64_t)c->scale;
	memtrace_compare_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char pa[64], pb[64], err[256], pattern[32] = "";
	unsigned char k[4];
	const uint8_t *second = size > 16 ? memmem(data + 8, size - 8, TRACE_MAGIC, 8) : NULL;
	size_t na = second ? (size_t)(second - data) : size;
	int fa = fuzz_memfd(data, na, 1, pa, sizeof(pa));
	int fb = second ? fuzz_memfd(second, size - na, 1, pb, sizeof(pb)) : -1;

	if (!second)
		memcpy(pb, pa, sizeof(pb));
	fuzz_tail(data, size, k, sizeof(k));
	struct memtrace_trace *t = memtrace_trace_open(pa, err, sizeof(err));
	const struct memtrace_span *sp;
	long ns = t ? memtrace_trace_spans(t, &sp, err, sizeof(err)) : -1;
	if (ns > 0) {
		const char *l = sp[k[1] % ns].label;
		size_t n = strlen(l) < k[2] % 8 ? strlen(l) : k[2] % 8;
		memcpy(pattern, l, n);
		pattern[n] = 0;
	}
	if (t)
		memtrace_trace_close(t);
	/* B's own window stays above 1/2048 of what B's default report covers */
	struct memtrace_report_config def = { .root = ROOT, .debug_dir = ROOT };
	struct memtrace_report *rb = memtrace_report_compute(pb, &def, err, sizeof(err));
	uint64_t span_b = rb ? rb->intervals * rb->interval : 0;
	memtrace_report_free(rb);
	compare(pa, pb, NULL, k, span_b);
	compare(pa, pb, pattern, k, span_b);
	compare(pb, pb, NULL, k, span_b);
	close(fa);
	if (fb >= 0)
		close(fb);
	return 0;
}
