/* writer.h - append chunks to a trace file. */
#ifndef MEMTRACE_TRACE_WRITER_H
#define MEMTRACE_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/codec.h"
#include "uapi/memtrace.h"

struct trace_writer;

/* Creates path (or stdout for "-") and writes the file header.  NULL after
 * a one-line error. */
struct trace_writer *trace_writer_open(const char *path);

/*
 * A trace that must never lose or clobber a file (memtracectl record and
 * import).  "-" is stdout, and an existing character device or FIFO is
 * written in place; anything else goes to a new file .NAME.XXXXXX next to
 * path (O_EXCL, O_NOFOLLOW, 0644 less the umask), which trace_writer_publish()
 * renames to path.  Closing a writer that was never published removes the
 * temporary file: path is left as it was.  NULL after a one-line error.
 */
#define WRITER_FORCE	1u	/* publish replaces path; else path becomes path.old */
struct trace_writer *trace_writer_open_new(const char *path, unsigned flags);
/*
 * Puts the file in place: an existing path (whatever it is, a symbolic link
 * included: it is renamed, never followed) is renamed to path.old unless
 * WRITER_FORCE, then the new file is renamed to path.  Once only; no-op for
 * other writers.  0, or -1 after a one-line error.
 */
int trace_writer_publish(struct trace_writer *w);

/* Same, but errors are only kept (trace_writer_error), never printed. */
struct trace_writer *trace_writer_open_quiet(const char *path, char *err, size_t errlen);
/* The last error, one line. */
const char *trace_writer_error(const struct trace_writer *w);

/* One chunk; codec CODEC_ZSTD compresses raw (stored if that is larger).
 * Each chunk goes to the file with one write, so a cut file loses at most
 * the chunk being written.  0 or -1 after a one-line error. */
int trace_write_chunk(struct trace_writer *w, unsigned type, unsigned codec,
		      const void *raw, size_t len, uint32_t count);

/* A SAMPLES chunk of n <= CHUNK_MAX_SAMPLES samples. */
int trace_write_samples(struct trace_writer *w, const struct memtrace_sample *s,
			size_t n, uint32_t columns);

/* Side records (docs/trace-format.md), appended to b for a THREADS or a
 * LOST chunk; comm is cut to 15 bytes. */
void trace_thread_rec_put(struct bytebuf *b, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *comm);
void trace_lost_rec_put(struct bytebuf *b, uint64_t time, uint32_t cpu, uint64_t lost,
			uint64_t throttled);
/* One REGIONS record (REGION_REC_SIZE bytes). */
void trace_region_rec_put(struct bytebuf *b, uint64_t time, uint64_t start, uint64_t end,
			  uint32_t pid, uint32_t nr_accesses, uint32_t age);

/* One PASSES record (PASS_REC_SIZE bytes). */
void trace_pass_rec_put(struct bytebuf *b, uint64_t time, uint32_t pid, uint32_t what);

/* One GAPS record (GAP_REC_SIZE bytes). */
void trace_gap_rec_put(struct bytebuf *b, uint64_t from, uint64_t to, uint32_t pid, uint32_t what);

/* One SPANS record (label cut to SPAN_LABEL_MAX bytes; open: no end probe seen). */
void trace_span_rec_put(struct bytebuf *b, uint64_t start, uint64_t end, uint32_t pid,
			uint32_t tid, const char *label, size_t len, int open);

/* A MAPS chunk: the text of /proc/PID/maps of pid at time (len bytes, at
 * most CHUNK_MAX_LEN - MAPS_HDR_SIZE). */
int trace_write_maps(struct trace_writer *w, uint64_t time, uint32_t pid, const char *text,
		     size_t len);

uint64_t trace_writer_bytes(const struct trace_writer *w);

/* Closes the file.  0 if every write succeeded. */
int trace_writer_close(struct trace_writer *w);
/* Same; on failure the last error goes to err (when not NULL). */
int trace_writer_close_quiet(struct trace_writer *w, char *err, size_t errlen);

#endif
