/* reader.h - read a trace file chunk by chunk. */
#ifndef MEMTRACE_TRACE_READER_H
#define MEMTRACE_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"

struct trace_reader;

struct trace_chunk {
	unsigned type;
	uint32_t count;
	uint64_t offset;		/* of the chunk header in the file */
	const unsigned char *data;	/* decompressed payload, valid until next */
	size_t len;
	uint32_t stored;		/* its bytes in the file (0: not known) */
};

/*
 * Opens path, checks the file header and reads the HEADER chunk.  NULL with
 * a one-line reason in err for a missing, foreign or corrupt file.
 */
struct trace_reader *trace_open(const char *path, char *err, size_t errlen);

/*
 * Next chunk: 1 with *c filled, 0 at the end (or at a truncated tail; see
 * trace_truncated()), -1 on corruption with the reason in err.
 */
int trace_next(struct trace_reader *r, struct trace_chunk *c, char *err,
	       size_t errlen);

/*
 * Chunks of the types in type_mask (1u << CHUNK_*) are passed over from now
 * on: framing checked, payload neither read nor checked (a pass that needs
 * only the MAPS chunks skips the SAMPLES).
 */
void trace_skip(struct trace_reader *r, unsigned type_mask);

/* Back to the chunk after the HEADER (the HEADER is not handed out again). */
void trace_rewind(struct trace_reader *r);
/* The path it was opened with. */
const char *trace_path(const struct trace_reader *r);
/* Minor version of the file header. */
unsigned trace_version_minor(const struct trace_reader *r);

/* HEADER value of key, or NULL. */
const char *trace_meta(const struct trace_reader *r, const char *key);
/* END value of key (after the END chunk was read), or NULL. */
const char *trace_end_meta(const struct trace_reader *r, const char *key);

/*
 * A number of the HEADER (end = 0) or END (end = 1): dflt when absent, empty,
 * negative or not a plain decimal.
 */
uint64_t trace_meta_u64(const struct trace_reader *r, const char *key, uint64_t dflt, int end);

/* The HEADER numbers every reader of a trace takes the same way. */
struct trace_header_numbers {
	uint64_t sample_period;		/* >= 1 */
	uint64_t bucket_default;	/* a power of two from 64 to 2M, else 4096 */
	uint32_t target_pid;		/* 0 when absent or not a pid */
};
void trace_header_numbers(const struct trace_reader *r, struct trace_header_numbers *out);

/* Bytes of an incomplete chunk at the end of the file (0 if none). */
uint64_t trace_truncated(const struct trace_reader *r);

/* The chunk types passed over unread so far (trace_skip), 1u << type each. */
unsigned trace_skipped(const struct trace_reader *r);
/* The records of the chunks of type passed over so far (their headers'
 * counts: samples of SAMPLES chunks), payloads unread. */
uint64_t trace_skipped_records(const struct trace_reader *r, unsigned type);
bool trace_has_end(const struct trace_reader *r);
bool trace_time_is_ns(const struct trace_reader *r);
uint64_t trace_start_time(const struct trace_reader *r);

/*
 * What a reader keeps of a whole trace's side chunks is bounded
 * (docs/trace-format.md, "Limits"): a zstd chunk of a few hundred bytes can
 * claim 64 MiB, so a small hostile file could otherwise claim gigabytes.
 */
#define TRACE_MAX_SIDE_RECORDS	(1u << 23)	/* THREADS + LOST + WINDOWS records */
#define TRACE_MAX_MAPS_LINES	(1u << 22)	/* lines of all MAPS texts */
#define TRACE_MAX_META_LEN	(1u << 20)	/* bytes of a HEADER or END chunk */
/* Newline-ended lines in p (a last line without one counts too). */
size_t trace_text_lines(const unsigned char *p, size_t len);
/* Bytes of the file after the reader's position. */
uint64_t trace_bytes_left(const struct trace_reader *r);

/*
 * The two halves of trace_next, for readers that decompress on other
 * threads (trace/pipe.h).  trace_next_frame: the next chunk's header checked
 * and its stored bytes read into *buf (grown as needed); 1, 0 at the end (or
 * a truncated tail), -1 with err.  trace_frame_payload: checksum and
 * decompression (zd and *raw are the caller's, one per thread; r is only
 * read) into *c.  trace_note_chunk: what the reader keeps of a chunk handed
 * out (the END text), in file order.
 */
struct trace_frame {
	unsigned type, codec;
	uint32_t stored, rawlen, count, crc;
	uint64_t offset;
};
struct ZSTD_DCtx_s;
int trace_next_frame(struct trace_reader *r, struct trace_frame *f, unsigned char **buf,
		     size_t *cap, char *err, size_t errlen);
int trace_frame_payload(const struct trace_reader *r, const struct trace_frame *f,
			const unsigned char *stored, struct ZSTD_DCtx_s *zd, unsigned char **raw,
			size_t *rawcap, struct trace_chunk *c, char *err, size_t errlen);
void trace_note_chunk(struct trace_reader *r, const struct trace_chunk *c);
/* The HEADER chunk if trace_next would hand it out next (1), else 0. */
int trace_take_first(struct trace_reader *r, struct trace_chunk *c);

/* Decodes a SAMPLES chunk; *s is malloc'd. 0 or -1 with err. */
int trace_chunk_samples(const struct trace_chunk *c, struct memtrace_sample **s,
			size_t *n, uint32_t *columns, char *err, size_t errlen);

void trace_close(struct trace_reader *r);

#endif
