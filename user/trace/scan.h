/* scan.h - one pass over a trace's samples and side chunks. */
#ifndef MEMTRACE_TRACE_SCAN_H
#define MEMTRACE_TRACE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"
#include "trace/reader.h"

struct trace_scan_ops {
	/* a batch of samples, in file order */
	void (*samples)(void *ctx, const struct memtrace_sample *s, size_t n, uint32_t columns);
	/* every chunk that is not SAMPLES (HEADER, MAPS, THREADS, LOST, ...) */
	void (*chunk)(void *ctx, const struct trace_chunk *c);
};

/*
 * Opens path and feeds every chunk to ops.  Prints one warning for a
 * truncated tail or a missing END chunk unless quiet.  Returns 0, or -1
 * after a one-line error (missing, foreign or corrupt file).  *reader_out,
 * when not NULL, receives the still-open reader (for trace_meta); the
 * caller closes it.
 */
int trace_scan(const char *path, const struct trace_scan_ops *ops, void *ctx, int quiet,
	       struct trace_reader **reader_out);

#endif
