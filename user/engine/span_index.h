/*
 * span_index.h - which span (record --mark) a sample falls in: the spans
 * whose label contains a pattern, indexed by (tid, start), and their
 * distinct labels as groups (report --span, --by-span, the heatmap's span
 * mask).  A sample of thread tid at time t is in span s when s.tid == tid
 * and s.start <= t <= s.end; spans of one thread do not overlap (the
 * collector pairs each end probe with the thread's latest start).
 *
 * The labels are interned (util/str_intern.h), so the pattern is tried
 * once per distinct label and a span's group is an array look-up: building
 * costs O(n log n) for n spans, whatever the number of labels.
 *
 *   struct span_index x;
 *   span_index_build(&x, &spans, "SELECT");    // takes spans.v, keeps spans.labels
 *   long i = span_index_find(&x, tid, time);   // -1: in no matching span
 *   x.v[i].label -> x.labels[that]             // the entry's group
 */
#ifndef MEMTRACE_ENGINE_SPAN_INDEX_H
#define MEMTRACE_ENGINE_SPAN_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "trace/spans.h"

struct span_index {
	struct trace_span *v;	/* sorted by (tid, start); .label: the group */
	size_t n;
	const char **labels;	/* distinct labels, in order of their first span's start */
	uint64_t *group_spans;	/* spans per label */
	uint64_t *group_time;	/* their summed length (end - start) */
	size_t ngroups;
};

/*
 * pattern NULL or "": every span.  Takes s->v (s->n becomes 0; its memory
 * is reused for x->v); x->labels point into s->labels, which must outlive x.
 */
void span_index_build(struct span_index *x, struct trace_spans *s, const char *pattern);
long span_index_find(const struct span_index *x, uint32_t tid, uint64_t time);
void span_index_free(struct span_index *x);

#endif
