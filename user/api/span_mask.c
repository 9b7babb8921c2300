/* span_mask.c - memtrace_trace_span_mask (include/memtrace/trace.h): which
 * decoded samples lie in the spans whose label contains a pattern. */
#include <stdlib.h>
#include <string.h>

#include "memtrace/trace.h"

#include "engine/span_index.h"
#include "api/trace_internal.h"
#include "util/util.h"

long memtrace_trace_span_mask(struct memtrace_trace *t, const char *pattern, size_t n,
			      const uint64_t *time, const uint32_t *tid, uint8_t *keep,
			      char *err, size_t errlen)
{
	const struct trace_spans *s = api_spans(t, err, errlen);
	struct span_index x;
	long kept = 0;

	if (!s)
		return -1;
	/* the index takes its records: a copy, the trace keeps its own (labels shared) */
	struct trace_spans copy = { .n = s->n, .cap = s->n, .labels = s->labels };
	copy.v = mt_xmalloc((s->n ? s->n : 1) * sizeof(*copy.v));
	if (s->n)
		memcpy(copy.v, s->v, s->n * sizeof(*copy.v));
	span_index_build(&x, &copy, pattern);
	for (size_t i = 0; i < n; i++) {
		keep[i] = span_index_find(&x, tid[i], time[i]) >= 0;
		kept += keep[i];
	}
	span_index_free(&x);
	return kept;
}
