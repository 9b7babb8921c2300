/* span_mask.c - memtrace_trace_span_mask (include/memtrace/trace.h): which
 * decoded samples lie in the spans whose label contains a pattern. */
#include "memtrace/trace.h"

#include "engine/span_index.h"

long memtrace_trace_span_mask(struct memtrace_trace *t, const char *pattern, size_t n,
			      const uint64_t *time, const uint32_t *tid, uint8_t *keep,
			      char *err, size_t errlen)
{
	const struct memtrace_span *v;
	long ns = memtrace_trace_spans(t, &v, err, errlen);
	struct span_index x;
	long kept = 0;

	if (ns < 0)
		return -1;
	span_index_build(&x, v, (size_t)ns, pattern);
	for (size_t i = 0; i < n; i++) {
		keep[i] = span_index_find(&x, tid[i], time[i]) >= 0;
		kept += keep[i];
	}
	span_index_free(&x);
	return kept;
}
