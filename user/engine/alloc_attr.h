/* alloc_attr.h - which allocation an address belongs to at a time: the
 * blocks of a trace's ALLOCS events (trace/allocs.h), replayed in time order
 * beside the samples.  One owner of this rule (docs/design.md, "Allocation
 * sites"): a block lives from its call's entry to the entry of the free,
 * realloc, munmap or overlapping allocation that ends it; an address belongs
 * to the live block of its process that holds it. */
#ifndef MEMTRACE_ENGINE_ALLOC_ATTR_H
#define MEMTRACE_ENGINE_ALLOC_ATTR_H

#include <stddef.h>
#include <stdint.h>

#include "trace/allocs.h"

#define ALLOC_LIVE	UINT64_MAX	/* t1 of a block never ended */

struct alloc_block {
	uint64_t start, end;	/* [start, end) */
	uint64_t t0, t1;	/* live in [t0, t1) */
	double weight;		/* blocks it stands for */
	uint32_t pid;
	uint32_t stack;		/* ALLOC_NO_STACK if none */
	uint8_t kind;		/* the event that made it */
};

struct alloc_attr {
	struct alloc_block *blocks;	/* in the order made */
	size_t nblocks, cap;
	/* the live blocks, ordered by (process, start): a treap over nodes */
	struct alloc_node *nodes;
	size_t nnodes, node_cap;
	uint32_t root, free_list;
	uint32_t *pids;			/* process index -> pid (keys hold the index) */
	size_t npids;
	uint32_t last_pid, last_pidx;
	uint64_t rng;
};

void alloc_attr_init(struct alloc_attr *a);
void alloc_attr_free(struct alloc_attr *a);
/* One event; events must come in time order. */
void alloc_attr_event(struct alloc_attr *a, const struct trace_alloc *e);
/* The block (index into blocks) live now that holds addr of pid, or -1. */
long alloc_attr_lookup(struct alloc_attr *a, uint32_t pid, uint64_t addr);
/* Orders events by time (stable: equal times keep their order). */
void alloc_attr_sort(struct trace_alloc *ev, size_t n);

#endif
