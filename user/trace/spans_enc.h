/*
 * spans_enc.h - spans into CHUNK_SPANS2 payloads (docs/trace-format.md):
 * each distinct label goes to the file once (a dictionary shared by the
 * trace's SPANS2 chunks, started again when it holds SPAN_ENC_DICT_LABELS
 * labels or SPAN_ENC_DICT_BYTES bytes), a span is a label index, a start
 * delta within its thread and a duration, each column split in byte planes
 * so that zstd sees alike bytes together.  With grain_log > 0 a span's
 * start is stored rounded down and its end rounded up to a multiple of
 * 2^grain_log time units (the stored span contains the true one) and the
 * gaps and lengths are counted in grains.
 *
 *   struct span_enc e = { 0 };
 *   span_enc_add(&e, start, end, pid, tid, label, len, open);
 *   if (e.n == SPAN2_MAX_SPANS || time to flush) {
 *           uint32_t n = span_enc_payload(&e, &buf);
 *           trace_write_chunk(w, CHUNK_SPANS2, CODEC_ZSTD, buf.data, buf.len, n);
 *   }
 *   span_enc_free(&e);
 */
#ifndef MEMTRACE_TRACE_SPANS_ENC_H
#define MEMTRACE_TRACE_SPANS_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "trace/codec.h"
#include "trace/spans.h"

#define SPAN_ENC_DICT_LABELS	(1u << 20)
#define SPAN_ENC_DICT_BYTES	(64u << 20)
#define SPAN_ENC_NEW_BYTES	(32u << 20)	/* new label text in one chunk, at most (about) */
/* The recorder's grain for nanosecond traces: 2^6 = 64 ns.  Uprobe
 * latency is microseconds, so finer bits are jitter; they cost about 2 of
 * 6.5 bytes per span (docs/performance.md, "Span bytes by grain"). */
#define SPAN_ENC_GRAIN_LOG_NS	6

struct span_enc {
	struct str_intern dict;	/* the file's dictionary since its last reset */
	uint32_t written;		/* of dict, in chunks already */
	uint64_t written_bytes;		/* their text */
	int reset;			/* the next chunk starts a new dictionary */
	uint32_t dict_max;		/* labels before a reset; 0: SPAN_ENC_DICT_LABELS */
	unsigned grain_log;		/* times in grains of 2^grain_log units (<= SPAN2_GRAIN_LOG_MAX);
					 * set before the first span */
	struct trace_span *v;		/* pending; label: dict index */
	size_t n, cap;
};

/* One span (label cut to SPAN_LABEL_MAX bytes; end >= start).  Callers
 * write a chunk as soon as span_enc_full() says so: a chunk then stays
 * below CHUNK_MAX_LEN and adds no more labels than it has spans. */
void span_enc_add(struct span_enc *e, uint64_t start, uint64_t end, uint32_t pid, uint32_t tid,
		  const char *label, size_t len, int open);
/* The pending spans (at most SPAN2_MAX_SPANS) as one payload in b (emptied
 * first); returns their count (0: nothing pending, b empty). */
uint32_t span_enc_payload(struct span_enc *e, struct bytebuf *b);

static inline int span_enc_full(const struct span_enc *e)
{
	return e->n >= SPAN2_MAX_SPANS || e->dict.bytes - e->written_bytes >= SPAN_ENC_NEW_BYTES;
}
void span_enc_free(struct span_enc *e);

#endif
