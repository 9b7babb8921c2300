/* bucket_map.c - leaf hash table of struct bucket_entry. */
#include "engine/bucket_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/util.h"

static inline size_t hash_key(uint64_t key, size_t cap)
{
	key *= 0x9E3779B97F4A7C15ull;
	return (size_t)(key >> 32) & (cap - 1);
}

void bucket_map_init(struct bucket_map *m)
{
	m->cap = 8;	/* grows by doubling: a map per process stays small */
	m->nleaves = 0;
	m->slots = mt_xcalloc(m->cap, sizeof(*m->slots));
	m->last = NULL;
	m->arenas = NULL;
	m->narenas = m->arena_used = 0;
	m->free_leaves = NULL;
	m->nfree = 0;
}

#define ARENA_MAX (2u << 20)

/* Arenas double from one leaf up to 2 MiB: small maps stay small. */
static size_t arena_size(size_t n)
{
	size_t size = sizeof(struct bucket_leaf);

	while (n-- > 0 && size < ARENA_MAX)
		size *= 2;
	return size < ARENA_MAX ? size : ARENA_MAX;
}

/*
 * The small arenas come from malloc (a map per process in a per-process
 * report: one mmap and munmap each would cost more than its samples), the
 * 2 MiB ones are mapped and asked for huge pages.  Both start zeroed.
 */
static void *arena_new(size_t size)
{
	if (size < ARENA_MAX)
		return mt_xcalloc(1, size);
	void *a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		mt_oom(size);	/* the caller's recovery point (util/util.h) */
	madvise(a, size, MADV_HUGEPAGE);
	return a;
}

static void arena_free(void *a, size_t size)
{
	if (size < ARENA_MAX)
		free(a);
	else
		munmap(a, size);
}

static struct bucket_leaf *alloc_leaf(struct bucket_map *m)
{
	if (m->free_leaves) {
		struct bucket_leaf *l = m->free_leaves;
		memcpy(&m->free_leaves, l, sizeof(void *));	/* the link kept in the leaf */
		m->nfree--;
		memset(l, 0, sizeof(*l));
		return l;
	}
	if (!m->narenas ||
	    m->arena_used + sizeof(struct bucket_leaf) > arena_size(m->narenas - 1)) {
		size_t size = arena_size(m->narenas);
		void *a = arena_new(size);
		m->arenas = mt_xrealloc(m->arenas, (m->narenas + 1) * sizeof(*m->arenas));
		m->arenas[m->narenas++] = a;
		m->arena_used = 0;
	}
	struct bucket_leaf *l = (void *)((char *)m->arenas[m->narenas - 1] + m->arena_used);
	m->arena_used += sizeof(struct bucket_leaf);
	return l;	/* fresh anonymous memory is zero */
}

void bucket_map_free(struct bucket_map *m)
{
	for (size_t i = 0; i < m->narenas; i++)
		arena_free(m->arenas[i], arena_size(i));
	free(m->arenas);
	m->arenas = NULL;
	m->narenas = m->arena_used = 0;
	m->free_leaves = NULL;
	m->nfree = 0;
	free(m->slots);
	m->slots = NULL;
	m->cap = m->nleaves = 0;
	m->last = NULL;
}

static void insert(struct bucket_slot *slots, size_t cap, struct bucket_slot s)
{
	size_t i = hash_key(s.key, cap);

	while (slots[i].leaf)
		i = (i + 1) & (cap - 1);
	slots[i] = s;
}

/* A new slot table of cap slots holding the leaves of the old one. */
static void rehash(struct bucket_map *m, size_t cap)
{
	struct bucket_slot *slots = mt_xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].leaf)
			insert(slots, cap, m->slots[i]);
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
}

static void grow(struct bucket_map *m)
{
	rehash(m, m->cap * 2);
}

struct bucket_leaf *bucket_map_leaf_slow(struct bucket_map *m, uint64_t key)
{
	size_t i = hash_key(key, m->cap);

	while (m->slots[i].leaf) {
		if (m->slots[i].key == key) {
			m->last_key = key;
			return m->last = m->slots[i].leaf;
		}
		i = (i + 1) & (m->cap - 1);
	}
	if ((m->nleaves + 1) * 2 > m->cap) {
		grow(m);
		return bucket_map_leaf_slow(m, key);
	}
	struct bucket_leaf *l = alloc_leaf(m);
	m->slots[i] = (struct bucket_slot){ key, l };
	m->nleaves++;
	m->last_key = key;
	return m->last = l;
}

void bucket_map_foreach(const struct bucket_map *m,
			void (*fn)(void *ctx, uint64_t bucket, const struct bucket_entry *e),
			void *ctx)
{
	for (size_t i = 0; i < m->cap; i++) {
		const struct bucket_leaf *l = m->slots[i].leaf;
		if (!l)
			continue;
		for (unsigned j = 0; j < BUCKET_LEAF_SIZE; j++)
			if (l->e[j].count)
				fn(ctx, (m->slots[i].key << BUCKET_LEAF_BITS) | j, &l->e[j]);
	}
}

uint64_t bucket_map_used(const struct bucket_map *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->cap; i++) {
		const struct bucket_leaf *l = m->slots[i].leaf;
		if (!l)
			continue;
		for (unsigned j = 0; j < BUCKET_LEAF_SIZE; j++)
			n += l->e[j].count != 0;
	}
	return n;
}

static int leaf_expired(const struct bucket_leaf *l, uint64_t k)
{
	for (unsigned j = 0; j < BUCKET_LEAF_SIZE; j++)
		if (l->e[j].kend > k)
			return 0;
	return 1;
}

size_t bucket_map_expire(struct bucket_map *m, uint64_t k)
{
	size_t released = 0;

	for (size_t i = 0; i < m->cap; i++) {
		struct bucket_leaf *l = m->slots[i].leaf;
		if (!l || !leaf_expired(l, k))
			continue;
		memcpy(l, &m->free_leaves, sizeof(void *));
		m->free_leaves = l;
		m->nfree++;
		m->slots[i].leaf = NULL;
		released++;
	}
	m->last = NULL;
	if (!released)
		return 0;
	/* rebuild at a load of at most 1/4: room to grow before the next doubling */
	size_t cap = 64;
	m->nleaves -= released;
	while (cap < m->nleaves * 4)
		cap *= 2;
	rehash(m, cap);
	return released;
}

size_t bucket_map_bytes(const struct bucket_map *m)
{
	size_t n = m->cap * sizeof(*m->slots) + m->narenas * sizeof(*m->arenas);

	for (size_t i = 0; i < m->narenas; i++)
		n += arena_size(i);
	return n;
}
