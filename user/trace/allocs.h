/* allocs.h - the ALLOCS chunk (docs/trace-format.md): allocator events of
 * `record --allocs` and the user stacks they name, encoded and decoded. */
#ifndef MEMTRACE_TRACE_ALLOCS_H
#define MEMTRACE_TRACE_ALLOCS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/codec.h"

#define ALLOCS_HDR_SIZE		8	/* u32 records, u32 stacks */
#define ALLOC_REC_SIZE		64
#define ALLOC_STACK_HDR_SIZE	8	/* u32 id, u32 frames */
#define ALLOC_MAX_FRAMES	127
#define ALLOC_NO_STACK		0xffffffffu

/* kinds */
enum trace_alloc_kind {
	ALLOC_KIND_ALLOC = 0,	/* malloc, calloc, memalign, posix_memalign, new */
	ALLOC_KIND_FREE = 1,	/* free of a recorded block */
	ALLOC_KIND_REALLOC = 2,	/* realloc: old_addr ends, addr begins */
	ALLOC_KIND_MMAP = 3,
	ALLOC_KIND_MUNMAP = 4,	/* [addr, addr + size) ends */
	ALLOC_KIND_MREMAP = 5,	/* old_addr ends, addr begins */
	ALLOC_KIND_COUNT
};

#define ALLOC_FLAG_SAMPLED	1u	/* a small block kept by the byte sampler */
#define ALLOC_FLAG_OLD_KNOWN	2u	/* realloc/mremap: old_addr was recorded */

struct trace_alloc {
	uint64_t time;		/* the call's entry */
	uint64_t addr, size;
	uint64_t old_addr;	/* realloc, mremap */
	uint64_t caller;	/* return address at the call's entry, 0 if unknown */
	double weight;		/* blocks this record stands for (>= 1) */
	uint32_t pid, tid;
	uint32_t stack;		/* stack id, ALLOC_NO_STACK if none */
	uint8_t kind, flags;
};

struct trace_alloc_stack {
	uint32_t id, n;
	const unsigned char *ips;	/* n little-endian u64, innermost first */
};

/* Appends one record to recs, one stack to stacks (n <= ALLOC_MAX_FRAMES). */
void trace_alloc_put(struct bytebuf *recs, const struct trace_alloc *a);
void trace_alloc_stack_put(struct bytebuf *stacks, uint32_t id, const uint64_t *ips, uint32_t n);
/* The chunk's payload: header, nrec records, nstack stacks. */
void trace_allocs_payload(struct bytebuf *out, const struct bytebuf *recs, uint32_t nrec,
			  const struct bytebuf *stacks, uint32_t nstack);

/*
 * Walks an ALLOCS payload: on_rec for each record, on_stack for each stack.
 * 0, or -1 with err for a malformed payload (nothing is handed out then).
 */
int trace_allocs_decode(const unsigned char *p, size_t len,
			void (*on_rec)(void *ctx, const struct trace_alloc *a),
			void (*on_stack)(void *ctx, const struct trace_alloc_stack *s), void *ctx,
			char *err, size_t errlen);

#endif
