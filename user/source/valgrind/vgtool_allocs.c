/* vgtool_allocs.c - the memtrace Valgrind tool's allocations as ALLOCS rows
 * (vgtool_allocs.h). */
#include "source/valgrind/vgtool_allocs.h"

#include <stdlib.h>
#include <string.h>

#include "trace/allocs.h"
#include "util/util.h"

struct vgtool_stack_slot {
	uint64_t hash;
	uint64_t *ips;		/* NULL: empty slot */
	uint32_t n, id;
};

struct vgtool_block_slot {
	uint64_t addr;		/* 0: empty; ~0: deleted */
	uint64_t size;
};

#define DELETED UINT64_MAX

void vgtool_allocs_init(struct vgtool_allocs *a, uint32_t pid)
{
	memset(a, 0, sizeof(*a));
	a->pid = pid;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static void stacks_grow(struct vgtool_allocs *a)
{
	size_t n = a->nslots ? a->nslots * 2 : 1024;
	struct vgtool_stack_slot *s = mt_xcalloc(n, sizeof(*s));

	for (size_t i = 0; i < a->nslots; i++) {
		if (!a->slots[i].ips)
			continue;
		size_t j = a->slots[i].hash & (n - 1);
		while (s[j].ips)
			j = (j + 1) & (n - 1);
		s[j] = a->slots[i];
	}
	free(a->slots);
	a->slots = s;
	a->nslots = n;
}

/* The id of a stack, written into the pending chunk the first time. */
static uint32_t stack_id(struct vgtool_allocs *a, const uint64_t *ips, uint32_t n)
{
	uint64_t h = n;

	for (uint32_t i = 0; i < n; i++)
		h = mix(h, ips[i]);
	if ((a->nused + 1) * 2 > a->nslots)
		stacks_grow(a);
	size_t j = h & (a->nslots - 1);
	for (; a->slots[j].ips; j = (j + 1) & (a->nslots - 1)) {
		struct vgtool_stack_slot *s = &a->slots[j];
		if (s->hash == h && s->n == n && !memcmp(s->ips, ips, n * sizeof(*ips)))
			return s->id;
	}
	struct vgtool_stack_slot *s = &a->slots[j];
	s->hash = h;
	s->n = n;
	s->id = (uint32_t)a->nused++;
	s->ips = mt_xmalloc((n ? n : 1) * sizeof(*ips));
	memcpy(s->ips, ips, n * sizeof(*ips));
	trace_alloc_stack_put(&a->stacks, s->id, ips, n);
	a->nstack++;
	return s->id;
}

static size_t block_slot(const struct vgtool_allocs *a, uint64_t addr)
{
	return (size_t)((addr >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (a->nblocks - 1);
}

static void blocks_grow(struct vgtool_allocs *a)
{
	struct vgtool_block_slot *old = a->blocks;
	size_t nold = a->nblocks;

	a->nblocks = nold ? nold * 2 : 4096;
	a->blocks = mt_xcalloc(a->nblocks, sizeof(*a->blocks));
	a->nblocks_used = 0;
	for (size_t i = 0; i < nold; i++) {
		if (!old[i].addr || old[i].addr == DELETED)
			continue;
		size_t j = block_slot(a, old[i].addr);
		while (a->blocks[j].addr)
			j = (j + 1) & (a->nblocks - 1);
		a->blocks[j] = old[i];
		a->nblocks_used++;
	}
	free(old);
}

static int block_take(struct vgtool_allocs *a, uint64_t addr, uint64_t *size);

static void block_put(struct vgtool_allocs *a, uint64_t addr, uint64_t size)
{
	if ((a->nblocks_used + 1) * 2 > a->nblocks)
		blocks_grow(a);
	uint64_t old;

	block_take(a, addr, &old);	/* a free not seen */
	size_t j = block_slot(a, addr);
	while (a->blocks[j].addr && a->blocks[j].addr != DELETED)
		j = (j + 1) & (a->nblocks - 1);
	if (!a->blocks[j].addr)
		a->nblocks_used++;	/* deleted slots stay counted until a rehash */
	a->blocks[j] = (struct vgtool_block_slot){ addr, size };
}

/* The recorded block at addr, removed: 1 and its size, or 0. */
static int block_take(struct vgtool_allocs *a, uint64_t addr, uint64_t *size)
{
	if (!a->nblocks || !addr || addr == DELETED)
		return 0;
	for (size_t j = block_slot(a, addr); a->blocks[j].addr; j = (j + 1) & (a->nblocks - 1)) {
		if (a->blocks[j].addr == addr) {
			*size = a->blocks[j].size;
			a->blocks[j].addr = DELETED;
			return 1;
		}
	}
	return 0;
}

static void put(struct vgtool_allocs *a, const struct trace_alloc *r)
{
	trace_alloc_put(&a->recs, r);
	a->nrec++;
	a->records++;
}

static void write_free(struct vgtool_allocs *a, const struct mt_vg_free *f)
{
	uint64_t size = 0;

	if (!block_take(a, f->addr, &size))
		return;		/* not a block of ours (allocated before the tool saw it) */
	put(a, &(struct trace_alloc){ .time = f->time, .addr = f->addr, .size = size,
				      .weight = 1.0, .pid = a->pid, .tid = f->tid,
				      .stack = ALLOC_NO_STACK, .kind = ALLOC_KIND_FREE });
}

void vgtool_allocs_settle(struct vgtool_allocs *a)
{
	if (a->has_free)
		write_free(a, &a->pending);
	a->has_free = 0;
}

void vgtool_allocs_free(struct vgtool_allocs *a, const struct mt_vg_free *m)
{
	vgtool_allocs_settle(a);
	a->pending = *m;
	a->has_free = 1;
}

void vgtool_allocs_alloc(struct vgtool_allocs *a, const struct mt_vg_alloc *m,
			 const unsigned char *frames, uint32_t n)
{
	uint64_t ips[MT_VG_MAX_FRAMES], old_size;
	struct trace_alloc r = {
		.time = m->time, .addr = m->addr, .size = m->size, .weight = 1.0,
		.pid = a->pid, .tid = m->tid, .kind = ALLOC_KIND_ALLOC, .stack = ALLOC_NO_STACK,
	};

	if (n > MT_VG_MAX_FRAMES)
		n = MT_VG_MAX_FRAMES;
	memcpy(ips, frames, n * sizeof(*ips));
	/* Valgrind names a caller by its return address - 1 (in the call);
	 * ALLOCS stacks hold return addresses, as the kernel's */
	for (uint32_t i = 1; i < n; i++)
		ips[i] += 1;
	if (m->kind == MT_VG_REALLOC && a->has_free && a->pending.time == m->time &&
	    a->pending.tid == m->tid) {
		r.kind = ALLOC_KIND_REALLOC;
		r.old_addr = a->pending.addr;
		if (block_take(a, a->pending.addr, &old_size))
			r.flags = ALLOC_FLAG_OLD_KNOWN;
		a->has_free = 0;
	}
	vgtool_allocs_settle(a);
	/* frame 0: the replacement function; frame 1: the return address into its caller */
	r.caller = n > 1 ? ips[1] : 0;
	if (n)
		r.stack = stack_id(a, ips, n > ALLOC_MAX_FRAMES ? ALLOC_MAX_FRAMES : n);
	block_put(a, m->addr, m->size);
	put(a, &r);
}

uint32_t vgtool_allocs_take(struct vgtool_allocs *a, struct bytebuf *out)
{
	uint32_t n = a->nrec;

	out->len = 0;
	if (!n)
		return 0;
	trace_allocs_payload(out, &a->recs, a->nrec, &a->stacks, a->nstack);
	a->recs.len = a->stacks.len = 0;
	a->nrec = a->nstack = 0;
	return n;
}

void vgtool_allocs_free_all(struct vgtool_allocs *a)
{
	for (size_t i = 0; i < a->nslots; i++)
		free(a->slots[i].ips);
	free(a->slots);
	free(a->blocks);
	bytebuf_free(&a->recs);
	bytebuf_free(&a->stacks);
	memset(a, 0, sizeof(*a));
}
