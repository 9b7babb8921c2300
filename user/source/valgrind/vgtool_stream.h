/* vgtool_stream.h - reads the memtrace Valgrind tool's binary stream
 * (format: user/source/valgrind/vgtool/mt_stream.h) into memtrace samples.
 *
 * Input comes in buffers of any size, split anywhere; a message cut by a
 * buffer boundary is carried over.  Each sampled access becomes a
 * memtrace_sample exactly as lackey.c makes one from a lackey line (time =
 * instructions, ip, data_src = the op bits, cpu = weight = 0, pid = the
 * guest's), with the thread's kernel tid.  Allocations and frees are
 * counted, and made into ALLOCS rows (vgtool_allocs.h) when allocs is set.
 * AGG messages (the tool's --aggregate) go to agg_out, checked; their
 * samples count in samples.
 */
#ifndef MEMTRACE_SOURCE_VALGRIND_VGTOOL_STREAM_H
#define MEMTRACE_SOURCE_VALGRIND_VGTOOL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"
#include "source/valgrind/vgtool/mt_stream.h"
#include "source/valgrind/vgtool_allocs.h"

#define VGTOOL_BATCH 4096

/* Receives samples in time order; returns 0, or -1 to stop. */
typedef int (*vgtool_emit_fn)(void *ctx, const struct memtrace_sample *s, size_t n);

/* Receives one AGG message (the tool's --aggregate): its header and its
 * h->rows rows (struct mt_vg_agg_row, unaligned); returns 0, or -1 to stop. */
typedef int (*vgtool_agg_fn)(void *ctx, const struct mt_vg_agg *h, const unsigned char *rows);

struct vgtool_parser {
	/* Counters, readable at any time. */
	uint64_t time;		/* time of the last sample or allocation */
	uint64_t samples, allocs, frees;
	uint64_t forks;		/* the guest forked: children not streamed */
	uint64_t first_addr;	/* address of the first sample, 0 if none */
	uint32_t pid;		/* from HELLO, 0 before it */
	bool hello, ended;	/* HELLO and END seen */
	struct mt_vg_hello head;
	struct mt_vg_end end;
	char error[128];	/* the first malformed message, "" if none */
	struct vgtool_allocs *allocs_out;	/* ALLOC/FREE into rows; NULL: count only */
	vgtool_agg_fn agg_out;	/* AGG messages; NULL: they are an error */
	uint64_t agg_k;		/* the last AGG message's interval */

	/* Internal. */
	vgtool_emit_fn emit;
	void *ctx;
	unsigned char *carry;	/* an unfinished message */
	size_t carry_len, carry_cap;
	size_t nbatch;
	struct memtrace_sample batch[VGTOOL_BATCH];
};

void vgtool_init(struct vgtool_parser *p, vgtool_emit_fn emit, void *ctx);

/* Parses len bytes.  Returns 0; -1 when emit asked to stop or the stream
 * is malformed (then error says why). */
int vgtool_feed(struct vgtool_parser *p, const void *buf, size_t len);

/* End of input: hands out the last samples; returns the bytes of an
 * unfinished last message (0 if the stream ended cleanly between messages). */
size_t vgtool_finish(struct vgtool_parser *p);

void vgtool_free(struct vgtool_parser *p);

#endif
