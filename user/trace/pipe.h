/*
 * trace/pipe.h - a trace's chunks in file order, their SAMPLES decoded on
 * other threads.
 *
 * SAMPLES chunks are compressed one by one (docs/trace-format.md), so the
 * checksum, zstd and the column decoding of each run on its own.
 *
 * PIPE_SAMPLES (rows for an engine that works through the samples in file
 * order, the report): one thread reads, checks, decompresses and decodes
 * the chunks ahead of the caller, a few thousand samples a batch, while the
 * caller works on the batches before (trace_ahead_threads: with one, the
 * caller makes the same batches itself when it asks for them).
 *
 * PIPE_COLUMNS, PIPE_PAYLOAD: the thread that calls trace_pipe_next reads
 * the chunk frames in order and hands the SAMPLES to up to
 * trace_decode_threads() - 1 workers, which decode them while the caller
 * works on the previous ones (a chunk no worker has taken when the caller
 * needs it is decoded by the caller, so it never waits idle while work is
 * queued).
 *
 * Either way batches come back in file order, so whatever the caller
 * computes is the same as with one thread, byte for byte.  Errors (corrupt
 * or truncated chunks) come back at the chunk where a one-thread reader
 * would stop, with its message.
 */
#ifndef MEMTRACE_TRACE_PIPE_H
#define MEMTRACE_TRACE_PIPE_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"
#include "trace/reader.h"
#include "uapi/memtrace.h"

struct trace_pipe;

/* How the workers decode a SAMPLES chunk. */
enum trace_pipe_mode {
	PIPE_SAMPLES,	/* into struct memtrace_sample rows (the batch's s, n, columns,
			 * part): a chunk's samples in one or more batches */
	PIPE_COLUMNS,	/* into the caller's columns, each chunk at the index after the
			 * previous chunks' samples (every sample, no filter) */
	PIPE_PAYLOAD,	/* checksum and zstd only: the batch's c.data is the column block */
};

struct trace_batch {
	struct trace_chunk c;		/* any chunk; c.data is NULL for SAMPLES but PIPE_PAYLOAD's */
	struct memtrace_sample *s;	/* PIPE_SAMPLES: n rows, the caller may change them */
	size_t n;
	uint32_t columns;
	unsigned part;			/* PIPE_SAMPLES: 0 for a chunk's first batch, 1, ... */
	size_t at;			/* PIPE_COLUMNS: first index of this chunk's samples */
};

/*
 * PIPE_COLUMNS, PIPE_PAYLOAD: threads that decode a trace of `bytes`
 * bytes: MEMTRACE_THREADS if set
 * (1 = everything on the calling thread), else one below
 * TRACE_PIPE_THREADS_FROM bytes, else the online CPUs, at most 8.  Decoding
 * is a fifth of a report's work: on 2 cores a worker saved no wall time
 * on traces up to 36 MiB and cost 10-50 % more CPU (docs/performance.md).
 */
#define TRACE_PIPE_THREADS_FROM (64ull << 20)
unsigned trace_decode_threads(uint64_t bytes);

/*
 * PIPE_SAMPLES: 2 (a thread decodes ahead of the caller) or 1: 2 when
 * MEMTRACE_THREADS is more than 1, 1 when it is 1; unset, 2 from
 * TRACE_AHEAD_FROM bytes of trace on a machine of more than one CPU.
 */
#define TRACE_AHEAD_FROM (1ull << 20)
unsigned trace_ahead_threads(uint64_t bytes);

/*
 * Opens path; chunk types in skip_mask (1u << CHUNK_*) are passed over.
 * PIPE_COLUMNS writes into *cols (its cap is checked).  NULL with err.
 */
struct trace_pipe *trace_pipe_open(const char *path, enum trace_pipe_mode mode,
				   const struct memtrace_columns *cols, unsigned skip_mask,
				   char *err, size_t errlen);

/* The same on an open reader from where it stands (not closed with the pipe). */
struct trace_pipe *trace_pipe_start(struct trace_reader *r, enum trace_pipe_mode mode,
				    const struct memtrace_columns *cols);

/*
 * The next chunk (the previous batch is released): 1 with *b filled, 0 at
 * the end (or a truncated tail: trace_truncated(trace_pipe_reader(p))), -1
 * with err.
 */
int trace_pipe_next(struct trace_pipe *p, struct trace_batch *b, char *err, size_t errlen);

/*
 * PIPE_SAMPLES: decode only these columns (1u << COL_*; the others read as
 * 0, the batch's columns still say what the chunk holds).  Before the first
 * trace_pipe_next.
 */
void trace_pipe_want(struct trace_pipe *p, uint32_t columns);

/*
 * PIPE_SAMPLES: fn(ctx, s, n, columns, part) runs on every batch as soon
 * as it is decoded, on the thread that decoded it (the decode thread, or
 * the caller's), batch after batch in file order and never two at once, so
 * a filter or a per-sample transform runs ahead of the caller too.  It may
 * change rows and drop some (it returns how many it keeps, moved to the
 * front: the batch's n).  What fn touches is its own until trace_pipe_next
 * has returned 0 or -1, or the pipe is closed.  Before the first
 * trace_pipe_next.
 */
typedef size_t (*trace_pipe_prep_fn)(void *ctx, struct memtrace_sample *s, size_t n,
				     uint32_t columns, unsigned part);
void trace_pipe_prepare(struct trace_pipe *p, trace_pipe_prep_fn fn, void *ctx);

/* The reader (HEADER and END texts, truncation); valid until trace_pipe_close. */
struct trace_reader *trace_pipe_reader(struct trace_pipe *p);

void trace_pipe_close(struct trace_pipe *p);

#endif
