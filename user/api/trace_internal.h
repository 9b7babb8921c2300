/* trace_internal.h - the object behind struct memtrace_trace (trace_read.c, trace_side.c). */
#ifndef MEMTRACE_API_TRACE_INTERNAL_H
#define MEMTRACE_API_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"
#include "trace/reader.h"
#include "trace/spans.h"

struct resolver;

/* Retained MAPS text is capped (a zstd chunk of a few bytes can claim 64 MiB). */
#define API_MAX_MAPS_TEXT	(1024ull << 20)

struct memtrace_trace {
	struct trace_reader *r;		/* passes: info, read, side records */
	struct trace_reader *it;	/* memtrace_trace_next, opened on first use */
	char *path;
	int scanned;			/* info and side records are built */
	struct memtrace_trace_info info;
	struct memtrace_thread *threads;
	char (*comms)[17];
	size_t nthreads;
	struct memtrace_lost *lost;
	size_t nlost;
	struct memtrace_window_row *windows;
	size_t nwindows;
	struct memtrace_damon_region *regions;
	size_t nregions;
	struct memtrace_pass *passes;	/* PASSES rows, file order */
	size_t npasses;
	struct memtrace_maps_snapshot *maps;
	size_t nmaps;
	uint64_t maps_bytes;
	struct trace_spans spans;	/* span chunks, sorted; read by api_spans() */
	int spans_loaded;
	struct memtrace_span *pub_spans;	/* spans as memtrace_trace_spans gives them */
	struct resolver *res;		/* from the MAPS chunks, for filter.mapping */
	int labels_read;		/* res holds the LABELS chunks (filter.region) */
	char *labels_extra;		/* memtrace_trace_labels' texts, until then */
	size_t labels_extra_len;
	uint64_t *scratch;		/* 5 * CHUNK_MAX_SAMPLES values */
	uint32_t *keep;			/* CHUNK_MAX_SAMPLES indices */
};

/* trace_labels.c: the LABELS chunks, then memtrace_trace_labels' files, into t->res. */
int api_read_labels(struct memtrace_trace *t, char *err, size_t errlen);

/* One pass over the file: info and the side records (trace_side.c). */
int api_scan(struct memtrace_trace *t, char *err, size_t errlen);
void api_side_free(struct memtrace_trace *t);
/* The trace's spans, sorted by (pid, tid, start), or NULL with err. */
const struct trace_spans *api_spans(struct memtrace_trace *t, char *err, size_t errlen);

#endif
