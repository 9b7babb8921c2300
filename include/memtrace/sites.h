/*
 * memtrace/sites.h - allocation sites of a trace recorded with
 * `memtracectl record --allocs`: each sample is charged to the allocation
 * live at its address at its time (reuse after free included), and the
 * allocations are grouped by site, the first frame of their user stack
 * outside the allocator (function and file:line from DWARF).
 *
 *   struct memtrace_report_config cfg = { 0 };
 *   struct memtrace_sites *s = memtrace_sites_compute("a.mtrace", &cfg, err, sizeof(err));
 *   for (size_t i = 0; i < s->n; i++) printf("%s %lu\n", s->sites[i].name, s->sites[i].samples);
 *   memtrace_sites_free(s);
 */
#ifndef MEMTRACE_PUBLIC_SITES_H
#define MEMTRACE_PUBLIC_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

struct memtrace_site {
	const char *name;	/* "make_matrix (allocsites.c:63)", "(no stack)" */
	const char *function;	/* NULL if unknown */
	const char *file;	/* NULL if unknown */
	unsigned line;
	uint64_t blocks;	/* recorded blocks (alloc, realloc, mmap, mremap) */
	double est_blocks;	/* blocks they stand for (sampling weights) */
	double bytes;		/* bytes allocated, estimated (size x weight) */
	uint64_t live;		/* recorded blocks still live at the end */
	double live_bytes;	/* their bytes, estimated */
	uint64_t freed;		/* recorded blocks ended (free, realloc, munmap) */
	double mean_lifetime;	/* of the freed ones, trace unit; 0 if none */
	uint64_t samples;	/* samples charged to its blocks */
	uint64_t buckets;	/* distinct buckets of those samples (WSS of the run) */
	double hot_share;	/* samples / all samples */
};

/* One recorded block in address-space keys (resolve.h), for heatmap bands. */
struct memtrace_site_block {
	uint64_t key_start, key_end;	/* [start, end) as keys */
	uint64_t t0, t1;		/* live, absolute trace time; t1 = UINT64_MAX: to the end */
	uint32_t pid;
	uint32_t site;			/* index into sites[] */
};

struct memtrace_sites {
	size_t n;
	const struct memtrace_site *sites;	/* most samples first, then most bytes */
	uint64_t samples;			/* all (filtered) samples */
	uint64_t attributed;			/* of them, charged to a block */
	uint64_t events;			/* ALLOCS records */
	uint64_t sample_bytes, large_bytes;	/* the recording's sampling (HEADER) */
	uint64_t bucket;			/* bytes */
	size_t nblocks;
	const struct memtrace_site_block *blocks;	/* in the order recorded */
};

/* Uses cfg's bucket, filter (pid, tid, time; not mapping), root, debug_dir.
 * NULL with a one-line error (a trace without ALLOCS chunks is one). */
struct memtrace_sites *memtrace_sites_compute(const char *path,
					      const struct memtrace_report_config *cfg,
					      char *err, size_t errlen);
/*
 * The site with the most samples in the bucket holding key (a hot row's
 * addr), with that count in *count; -1 if no sample there was charged.
 */
long memtrace_sites_of_bucket(const struct memtrace_sites *s, uint64_t key, uint64_t *count);
void memtrace_sites_free(struct memtrace_sites *s);

/*
 * Writing allocation records (tests and tools that make traces; trace.h's
 * memtrace_writer): one ALLOCS chunk of n records, without stacks (the
 * site is named from caller).
 */
enum memtrace_alloc_kind {
	MEMTRACE_ALLOC_ALLOC,	/* malloc, calloc, memalign, posix_memalign, new */
	MEMTRACE_ALLOC_FREE,	/* [addr: the block] */
	MEMTRACE_ALLOC_REALLOC,	/* old_addr ends, addr begins */
	MEMTRACE_ALLOC_MMAP,
	MEMTRACE_ALLOC_MUNMAP,	/* [addr, addr + size) ends */
	MEMTRACE_ALLOC_MREMAP,	/* old_addr ends, addr begins */
};

struct memtrace_alloc {
	uint64_t time, addr, size, old_addr;
	uint64_t caller;	/* the return address into the allocating function */
	double weight;		/* blocks it stands for, >= 1 */
	uint32_t pid, tid;
	uint32_t kind;		/* enum memtrace_alloc_kind */
};

struct memtrace_writer;
int memtrace_writer_allocs(struct memtrace_writer *w, const struct memtrace_alloc *a, size_t n,
			   char *err, size_t errlen);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
