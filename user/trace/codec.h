/* sample_codec.h - the column encoding of SAMPLES chunks (before zstd). */
#ifndef MEMTRACE_SAMPLE_CODEC_H
#define MEMTRACE_SAMPLE_CODEC_H

#include <stddef.h>
#include <stdint.h>

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

#endif
