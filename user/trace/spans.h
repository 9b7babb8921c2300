/*
 * spans.h - SPANS chunks (record --mark): decode their records into one
 * array of struct memtrace_span (include/memtrace/trace.h), sorted by
 * (pid, tid, start) once all chunks are in.
 */
#ifndef MEMTRACE_TRACE_SPANS_H
#define MEMTRACE_TRACE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"
#include "trace/reader.h"

struct trace_spans {
	struct memtrace_span *v;
	size_t n, cap;
};

/* The records of SPANS chunk c, appended.  0, or -1 with a one-line reason. */
int trace_spans_add(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen);
void trace_spans_sort(struct trace_spans *s);
void trace_spans_free(struct trace_spans *s);

#endif
