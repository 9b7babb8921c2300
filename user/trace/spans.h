/*
 * spans.h - SPANS chunks (record --mark): the old one-record-per-span type
 * (CHUNK_SPANS) and the compact one (CHUNK_SPANS2: a label dictionary and
 * delta-coded columns, docs/trace-format.md) decoded into one array of
 * 32-byte records whose labels are interned (util/str_intern.h), sorted by
 * (pid, tid, start) once all chunks are in.
 *
 * What a trace may hold is bounded by its size: TRACE_SPANS_FREE spans,
 * then TRACE_SPANS_PER_BYTE per byte of span chunks in the file, and never
 * more than TRACE_SPANS_MAX (a one-line error beyond).
 */
#ifndef MEMTRACE_TRACE_SPANS_H
#define MEMTRACE_TRACE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"
#include "trace/reader.h"
#include "util/str_intern.h"

#define TRACE_SPANS_FREE	(1u << 20)
#define TRACE_SPANS_PER_BYTE	16
#define TRACE_SPANS_MAX		(1u << 28)

struct trace_span {
	uint64_t start, end;
	uint32_t pid, tid;
	uint32_t label;		/* index into trace_spans.labels */
	uint32_t open;		/* 1: the recording ended inside it */
};

struct trace_spans {
	struct trace_span *v;
	size_t n, cap;
	struct str_intern labels;
	uint32_t *fmap;		/* CHUNK_SPANS2: file dictionary index -> labels index */
	uint32_t nfmap, capfmap;
	uint64_t stored;	/* bytes of the span chunks added so far, in the file */
};

/* The records of a SPANS or SPANS2 chunk, appended.  0, or -1 with a one-line reason. */
int trace_spans_add(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen);
void trace_spans_sort(struct trace_spans *s);
void trace_spans_free(struct trace_spans *s);

static inline int trace_chunk_is_spans(unsigned type)
{
	return type == CHUNK_SPANS || type == CHUNK_SPANS2;
}

#endif
