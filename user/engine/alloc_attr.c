/* alloc_attr.c - allocation blocks over time and the address -> block
 * lookup (alloc_attr.h).  Live blocks sit in a treap keyed by (process
 * index, start): insert, erase, floor and successor in O(log n), so a
 * lookup is one floor search. */
#include "engine/alloc_attr.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define NIL	UINT32_MAX

struct alloc_node {
	uint64_t key;		/* process index << 48 | start */
	uint32_t block, prio, left, right;
};

void alloc_attr_init(struct alloc_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->root = a->free_list = NIL;
	a->last_pidx = NIL;
	a->rng = 0x9E3779B97F4A7C15ull;
}

void alloc_attr_free(struct alloc_attr *a)
{
	free(a->blocks);
	free(a->nodes);
	free(a->pids);
	alloc_attr_init(a);
}

static uint32_t next_prio(struct alloc_attr *a)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return (uint32_t)(a->rng >> 32);
}

/* The process index of pid (made on first sight); user addresses < 2^48. */
static uint64_t pidx(struct alloc_attr *a, uint32_t pid, int make)
{
	if (a->last_pidx != NIL && a->last_pid == pid)
		return a->last_pidx;
	for (size_t i = 0; i < a->npids; i++)
		if (a->pids[i] == pid) {
			a->last_pid = pid;
			a->last_pidx = (uint32_t)i;
			return i;
		}
	if (!make)
		return NIL;
	a->pids = mt_xrealloc(a->pids, (a->npids + 1) * sizeof(*a->pids));
	a->pids[a->npids] = pid;
	a->last_pid = pid;
	a->last_pidx = (uint32_t)a->npids;
	return a->npids++;
}

static uint64_t key_of(uint64_t px, uint64_t addr)
{
	return px << 48 | (addr & ((1ull << 48) - 1));
}

static uint32_t node_new(struct alloc_attr *a, uint64_t key, uint32_t block)
{
	uint32_t i;

	if (a->free_list != NIL) {
		i = a->free_list;
		a->free_list = a->nodes[i].left;
	} else {
		if (a->nnodes == a->node_cap) {
			a->node_cap = a->node_cap ? a->node_cap * 2 : 256;
			a->nodes = mt_xrealloc(a->nodes, a->node_cap * sizeof(*a->nodes));
		}
		i = (uint32_t)a->nnodes++;
	}
	a->nodes[i] = (struct alloc_node){ key, block, next_prio(a), NIL, NIL };
	return i;
}

/* Splits t into keys < key (*l) and >= key (*r). */
static void split(struct alloc_node *n, uint32_t t, uint64_t key, uint32_t *l, uint32_t *r)
{
	if (t == NIL) {
		*l = *r = NIL;
	} else if (n[t].key < key) {
		split(n, n[t].right, key, &n[t].right, r);
		*l = t;
	} else {
		split(n, n[t].left, key, l, &n[t].left);
		*r = t;
	}
}

static uint32_t merge(struct alloc_node *n, uint32_t l, uint32_t r)
{
	if (l == NIL)
		return r;
	if (r == NIL)
		return l;
	if (n[l].prio > n[r].prio) {
		n[l].right = merge(n, n[l].right, r);
		return l;
	}
	n[r].left = merge(n, l, n[r].left);
	return r;
}

static void insert(struct alloc_attr *a, uint64_t key, uint32_t block)
{
	uint32_t l, r, m = node_new(a, key, block);

	split(a->nodes, a->root, key, &l, &r);
	a->root = merge(a->nodes, merge(a->nodes, l, m), r);
}

/* Removes the node of key; its block, or NIL. */
static uint32_t erase(struct alloc_attr *a, uint64_t key)
{
	uint32_t l, mid, r, block = NIL;

	split(a->nodes, a->root, key, &l, &r);
	split(a->nodes, r, key + 1, &mid, &r);
	if (mid != NIL) {
		block = a->nodes[mid].block;
		a->nodes[mid].left = a->free_list;	/* one node: keys are unique */
		a->free_list = mid;
	}
	a->root = merge(a->nodes, l, r);
	return block;
}

/* The node with the largest key <= key, or NIL. */
static uint32_t floor_node(const struct alloc_attr *a, uint64_t key)
{
	uint32_t t = a->root, best = NIL;

	while (t != NIL) {
		if (a->nodes[t].key <= key) {
			best = t;
			t = a->nodes[t].right;
		} else
			t = a->nodes[t].left;
	}
	return best;
}

/* The node with the smallest key > key, or NIL. */
static uint32_t next_node(const struct alloc_attr *a, uint64_t key)
{
	uint32_t t = a->root, best = NIL;

	while (t != NIL) {
		if (a->nodes[t].key > key) {
			best = t;
			t = a->nodes[t].left;
		} else
			t = a->nodes[t].right;
	}
	return best;
}

/* Ends every live block of process px overlapping [lo, hi) at time t. */
static void end_range(struct alloc_attr *a, uint64_t px, uint64_t lo, uint64_t hi, uint64_t t)
{
	uint64_t k = key_of(px, lo);
	uint32_t n = floor_node(a, k);

	if (n == NIL || (a->nodes[n].key >> 48) != px || a->blocks[a->nodes[n].block].end <= lo)
		n = next_node(a, k);
	while (n != NIL && (a->nodes[n].key >> 48) == px &&
	       a->blocks[a->nodes[n].block].start < hi) {
		uint64_t key = a->nodes[n].key;
		uint32_t b = erase(a, key);
		a->blocks[b].t1 = t;
		n = next_node(a, key);
	}
}

static void start_block(struct alloc_attr *a, const struct trace_alloc *e, uint64_t px)
{
	uint64_t size = e->size ? e->size : 1;
	uint64_t end = e->addr + size < e->addr ? UINT64_MAX : e->addr + size;

	end_range(a, px, e->addr, end, e->time);	/* a missed free */
	if (a->nblocks == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 256;
		a->blocks = mt_xrealloc(a->blocks, a->cap * sizeof(*a->blocks));
	}
	a->blocks[a->nblocks] = (struct alloc_block){
		.start = e->addr, .end = end, .t0 = e->time, .t1 = ALLOC_LIVE,
		.weight = e->weight, .pid = e->pid, .stack = e->stack, .kind = e->kind,
	};
	insert(a, key_of(px, e->addr), (uint32_t)a->nblocks++);
}

void alloc_attr_event(struct alloc_attr *a, const struct trace_alloc *e)
{
	uint64_t px = pidx(a, e->pid, 1);
	uint32_t b;

	switch (e->kind) {
	case ALLOC_KIND_ALLOC:
	case ALLOC_KIND_MMAP:
		if (e->addr)
			start_block(a, e, px);
		break;
	case ALLOC_KIND_FREE:
		if ((b = erase(a, key_of(px, e->addr))) != NIL)
			a->blocks[b].t1 = e->time;
		break;
	case ALLOC_KIND_REALLOC:
	case ALLOC_KIND_MREMAP:
		if (e->old_addr && (b = erase(a, key_of(px, e->old_addr))) != NIL)
			a->blocks[b].t1 = e->time;
		if (e->addr)
			start_block(a, e, px);
		break;
	case ALLOC_KIND_MUNMAP:
		end_range(a, px, e->addr, e->addr + (e->size ? e->size : 1), e->time);
		break;
	default:
		break;
	}
}

long alloc_attr_lookup(struct alloc_attr *a, uint32_t pid, uint64_t addr)
{
	uint64_t px = pidx(a, pid, 0);

	if (px == NIL || addr >> 48)
		return -1;
	uint32_t n = floor_node(a, key_of(px, addr));
	if (n == NIL || (a->nodes[n].key >> 48) != px)
		return -1;
	const struct alloc_block *b = &a->blocks[a->nodes[n].block];
	return addr < b->end ? (long)a->nodes[n].block : -1;
}

void alloc_attr_sort(struct trace_alloc *ev, size_t n)
{
	size_t i;

	for (i = 1; i < n && ev[i - 1].time <= ev[i].time; i++)
		;
	if (i >= n)
		return;		/* in order already (the usual case) */
	/* bottom-up merge sort: stable, so equal times keep the recorded order */
	struct trace_alloc *tmp = mt_xmalloc(n * sizeof(*tmp)), *src = ev, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t x = lo, y = mid, k = lo;
			while (x < mid && y < hi)
				dst[k++] = src[y].time < src[x].time ? src[y++] : src[x++];
			while (x < mid)
				dst[k++] = src[x++];
			while (y < hi)
				dst[k++] = src[y++];
		}
		struct trace_alloc *t = src;
		src = dst;
		dst = t;
	}
	if (src != ev)
		memcpy(ev, src, n * sizeof(*ev));
	free(tmp);
}
