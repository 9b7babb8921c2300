/* fault_kind.h - what kind of page fault a hint-fault sample is.
 *
 * A user page fault's error code (exceptions:page_fault_user) tells a
 * fault on a present page (bit 0: copy-on-write, write to a write-protected
 * page) from one on a page with no usable PTE.  Of the latter, a page this
 * process already had (resident when the recording started, per
 * /proc/PID/pagemap, or faulted in since) faults again because NUMA
 * balancing's scanner made its PTE PROT_NONE: a hint fault (or, rarer, a
 * re-fault after reclaim, swap-out or MADV_DONTNEED); a page never seen
 * before is a first touch.  The kind goes into the sample's data_src
 * (MEMTRACE_FAULT_KIND_* of include/memtrace/trace.h) next to perf's
 * mem_op (load, store, exec) from the same error code.
 */
#ifndef MEMTRACE_SOURCE_FAULT_KIND_H
#define MEMTRACE_SOURCE_FAULT_KIND_H

#include <stdint.h>
#include <sys/types.h>

struct fault_kinds {
	/* open addressing of blocks of 64 pages, (pid << 36 | page) >> 6,
	 * each with a bitmap of its pages seen: neighbouring pages share a
	 * slot, so a stream of faults stays in cache */
	struct fault_block {
		uint64_t block1;	/* block + 1; 0 = empty */
		uint64_t seen;		/* bit p: page block * 64 + p */
	} *slot;
	uint64_t nblocks, cap;
	uint64_t n;		/* pages seen */
	uint64_t seeded;	/* pages found resident by fault_kinds_seed */
	uint64_t count[4];	/* samples per MEMTRACE_FAULT_KIND_* */
};

void fault_kinds_init(struct fault_kinds *fk);
void fault_kinds_free(struct fault_kinds *fk);

/* Marks every page pid has resident (or swapped) now as seen.  0, or -1
 * with errno when its pagemap cannot be read. */
int fault_kinds_seed(struct fault_kinds *fk, pid_t pid);

/* The data_src value of a fault of pid at addr with x86 error_code. */
uint64_t fault_kinds_classify(struct fault_kinds *fk, pid_t pid, uint64_t addr,
			      uint64_t error_code);

#endif
