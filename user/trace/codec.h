/* codec.h - the column encoding of SAMPLES chunks (before zstd). */
#ifndef MEMTRACE_TRACE_CODEC_H
#define MEMTRACE_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"
#include "uapi/memtrace.h"

struct bytebuf {
	unsigned char *data;
	size_t len, cap;
};

void bytebuf_reserve(struct bytebuf *b, size_t extra);
void bytebuf_put(struct bytebuf *b, const void *p, size_t n);
void bytebuf_free(struct bytebuf *b);

/*
 * Appends the column block of n samples (n <= CHUNK_MAX_SAMPLES) to out.
 * columns: mask of enum sample_column bits; the required ones are added.
 */
void sample_encode(const struct memtrace_sample *s, size_t n, uint32_t columns,
		   struct bytebuf *out);

/*
 * Decodes a column block into *out (malloc'd, caller frees).  Missing
 * optional columns are zero.  Returns 0, or -1 with a reason in err.
 */
int sample_decode(const unsigned char *raw, size_t len,
		  struct memtrace_sample **out, size_t *n, uint32_t *columns,
		  char *err, size_t errlen);

/*
 * The same into caller buffers of CHUNK_MAX_SAMPLES entries: s (every field
 * written) and tmp (scratch).  No allocation: the decode workers reuse them.
 * Columns not in want (a mask of enum sample_column bits) are left at zero
 * like absent ones; *columns still says what the chunk holds.
 */
int sample_decode_into(const unsigned char *raw, size_t len, uint32_t want,
		       struct memtrace_sample *s, uint64_t *tmp, size_t *n, uint32_t *columns,
		       char *err, size_t errlen);

/* One parsed column of a SAMPLES column block (sample_parse). */
struct col_desc {
	int present;
	unsigned transform, width;
	uint64_t base;
	const unsigned char *plane;	/* n * width bytes */
};

/*
 * The same a part at a time: sample_rows_start parses the block (0, or -1
 * with err), then each sample_rows_next decodes the next rows, at most max,
 * into s and returns how many (0 after the last).  tmp: at least 512
 * values of scratch.  The pipe hands a chunk's samples on in such parts.
 */
struct sample_rows {
	struct col_desc desc[COL_COUNT];
	uint32_t n, columns, from;
	uint64_t prev[COL_COUNT];	/* a delta column's running value */
	struct memtrace_sample tmpl;	/* the fields that are the same in every row */
	int vary[COL_COUNT], nvary;	/* the columns decoded row by row */
};

int sample_rows_start(struct sample_rows *r, const unsigned char *raw, size_t len,
		      uint32_t want, char *err, size_t errlen);
size_t sample_rows_next(struct sample_rows *r, struct memtrace_sample *s, size_t max,
			uint64_t *tmp);

/*
 * Checks a column block (counts, mask, encodings, exact length) without
 * decoding it: *n, *columns and desc[COL_COUNT] are filled.  0 or -1 with
 * a reason in err.
 */
int sample_parse(const unsigned char *raw, size_t len, uint32_t *n, uint32_t *columns,
		 struct col_desc *desc, char *err, size_t errlen);
/* Decodes one parsed column into dst[0..n) (zeros when not present). */
void col_decode_u64(const struct col_desc *d, uint32_t n, uint64_t *dst);
/* Same, narrowed to 32 bits. tmp: n scratch values. */
void col_decode_u32(const struct col_desc *d, uint32_t n, uint32_t *dst, uint64_t *tmp);


struct trace_chunk;
struct memtrace_columns;
/* A SAMPLES chunk parsed, its sample count checked against the chunk header's. */
int codec_parse_chunk(const struct trace_chunk *c, struct col_desc *d, uint32_t *n, char *err,
		      size_t errlen);
/* Every column out wants of a parsed chunk, at index at; tmp: CHUNK_MAX_SAMPLES values. */
void codec_decode_columns(const struct col_desc *d, uint32_t n, struct memtrace_columns *out,
			  size_t at, uint64_t *tmp);

#endif
