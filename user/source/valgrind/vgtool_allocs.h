/* vgtool_allocs.h - the memtrace Valgrind tool's ALLOC/FREE messages as
 * ALLOCS rows (user/trace/allocs.h), the way record --allocs writes them
 * for the bpf probes: one record per call, each distinct call stack once
 * per recording under a small id, `caller` = the return address into the
 * allocating function, frame 0 = the allocator (here Valgrind's replacement
 * function), so report --by-site names the same sites.
 *
 * Valgrind's realloc arrives as FREE(old) then ALLOC(kind realloc, new) at
 * the same time and thread: the pair becomes one REALLOC record.
 * Every block is recorded (weight 1): alloc_sample_bytes = 1. */
#ifndef MEMTRACE_SOURCE_VALGRIND_VGTOOL_ALLOCS_H
#define MEMTRACE_SOURCE_VALGRIND_VGTOOL_ALLOCS_H

#include <stdint.h>

#include "source/valgrind/vgtool/mt_stream.h"
#include "trace/codec.h"

struct vgtool_allocs {
	struct bytebuf recs, stacks;	/* pending rows of the next chunk */
	uint32_t nrec, nstack;
	uint64_t records;		/* rows made so far */
	/* call stacks seen: open addressing on a hash of the frames */
	struct vgtool_stack_slot *slots;
	size_t nslots, nused;
	/* live blocks: address -> size (the free row's size) */
	struct vgtool_block_slot *blocks;
	size_t nblocks, nblocks_used;
	int has_free;			/* a FREE waits: a realloc's first half? */
	struct mt_vg_free pending;
	uint32_t pid;
};

void vgtool_allocs_init(struct vgtool_allocs *a, uint32_t pid);
/* One ALLOC message: the record and the frames after it (n of them). */
void vgtool_allocs_alloc(struct vgtool_allocs *a, const struct mt_vg_alloc *m,
			 const unsigned char *frames, uint32_t n);
void vgtool_allocs_free(struct vgtool_allocs *a, const struct mt_vg_free *m);
/* A waiting FREE is written out (the end of the stream). */
void vgtool_allocs_settle(struct vgtool_allocs *a);
/* The pending rows as one ALLOCS payload into out (emptied first); the
 * number of records, 0 when there is nothing to write. */
uint32_t vgtool_allocs_take(struct vgtool_allocs *a, struct bytebuf *out);
void vgtool_allocs_free_all(struct vgtool_allocs *a);

#endif
