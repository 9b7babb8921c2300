/*
 * span_index.h - which span (record --mark) a sample falls in: the spans
 * whose label contains a pattern, indexed by (tid, start), and their
 * distinct labels as groups (report --span, --by-span, the heatmap's span
 * mask).  A sample of thread tid at time t is in span s when s.tid == tid
 * and s.start <= t <= s.end; spans of one thread do not overlap (the
 * collector pairs each end probe with the thread's latest start).
 *
 *   struct span_index x;
 *   span_index_build(&x, spans, n, "SELECT");
 *   long i = span_index_find(&x, tid, time);   // -1: in no matching span
 *   x.v[i].group -> x.labels[group]
 */
#ifndef MEMTRACE_ENGINE_SPAN_INDEX_H
#define MEMTRACE_ENGINE_SPAN_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"

struct span_entry {
	uint32_t tid;
	uint64_t start, end;
	uint32_t group;		/* index into labels */
};

struct span_index {
	struct span_entry *v;	/* sorted by (tid, start) */
	size_t n;
	const char **labels;	/* distinct labels, in order of their first span's start */
	uint64_t *group_spans;	/* spans per label */
	uint64_t *group_time;	/* their summed length (end - start) */
	size_t ngroups;
};

/* pattern NULL or "": every span.  Labels point into spans[]. */
void span_index_build(struct span_index *x, const struct memtrace_span *spans, size_t n,
		      const char *pattern);
long span_index_find(const struct span_index *x, uint32_t tid, uint64_t time);
void span_index_free(struct span_index *x);

#endif
