/* bucket_map.h - per-bucket state keyed by bucket number (address >> shift).
 *
 * Two levels: an open-addressing hash of leaf numbers (bucket >> LEAF_BITS)
 * to leaves of 2^LEAF_BITS entries, with the last leaf cached.  Dense
 * address ranges (heaps, columns, mappings) cost one hash probe per leaf
 * change and an array index per sample.  Memory is bounded by the number of
 * distinct leaves touched.
 *
 * Leaf numbers live in the hash slots, not in the leaves: a probe reads only
 * the (small, cache-resident) slot table, and a leaf is nothing but its
 * entries, 1 KiB aligned, so no 16-byte entry ever straddles two cache lines.
 *
 * A map that only needs the buckets still counting in some window (the
 * recorder's live WSS) drops the others with bucket_map_expire(): leaves
 * whose entries are all expired go to a free list and are reused before
 * any new arena memory, so such a map stays as large as its largest live
 * set, not the set of every bucket ever seen.
 */
#ifndef MEMTRACE_ENGINE_BUCKET_MAP_H
#define MEMTRACE_ENGINE_BUCKET_MAP_H

#include <stddef.h>
#include <stdint.h>

/*
 * 64 entries (1 KiB) a leaf: buckets scattered one per leaf (a crafted
 * 1 KB trace of 30000 samples 2 MiB apart) cost 1 KiB each, not 8 KiB as
 * with 512 (per process, twice: 135 MB with 128 entries); smaller leaves
 * cost more hash probes on scattered working sets (32 entries: +35 % CPU
 * on 2.7 M scattered pages, docs/performance.md).
 */
#define BUCKET_LEAF_BITS 6
#define BUCKET_LEAF_SIZE (1u << BUCKET_LEAF_BITS)

struct bucket_entry {
	uint64_t count;		/* accesses (samples) so far */
	uint32_t kend;		/* first report index no longer counting it
				 * (slots not skipped: <= 3 WSS_MAX_ROWS + the
				 * ring < 2^32, engine/wss.h) */
	/* kend minus the same index of its 2nd and 3rd latest samples,
	 * saturated at BUCKET_DELTA_OLD ("before every open window"): the
	 * indices themselves are <= kend */
	uint16_t d2, d3;
};

#define BUCKET_DELTA_OLD 0xffffu

struct bucket_leaf {
	struct bucket_entry e[BUCKET_LEAF_SIZE];
};

struct bucket_slot {
	uint64_t key;			/* bucket >> BUCKET_LEAF_BITS */
	struct bucket_leaf *leaf;	/* NULL: empty slot */
};

struct bucket_map {
	struct bucket_slot *slots;	/* hash table of leaves */
	size_t cap, nleaves;
	struct bucket_leaf *last;	/* the leaf of last_key, or NULL */
	uint64_t last_key;
	/* leaves come from 2 MiB arenas (transparent huge pages where the
	 * kernel allows): fewer TLB misses when buckets are hit at random */
	void **arenas;
	size_t narenas, arena_used;
	struct bucket_leaf *free_leaves;	/* released leaves, linked through e[0].count */
	size_t nfree;
};

void bucket_map_init(struct bucket_map *m);
void bucket_map_free(struct bucket_map *m);

struct bucket_leaf *bucket_map_leaf_slow(struct bucket_map *m, uint64_t key);

/* The entry of bucket, created zeroed on first use. */
static inline struct bucket_entry *bucket_map_get(struct bucket_map *m, uint64_t bucket)
{
	uint64_t key = bucket >> BUCKET_LEAF_BITS;
	struct bucket_leaf *l = m->last;

	if (!l || m->last_key != key)
		l = bucket_map_leaf_slow(m, key);
	return &l->e[bucket & (BUCKET_LEAF_SIZE - 1)];
}

/* Calls fn for every bucket with count > 0, in no particular order. */
void bucket_map_foreach(const struct bucket_map *m,
			void (*fn)(void *ctx, uint64_t bucket, const struct bucket_entry *e),
			void *ctx);

/* Buckets with count > 0. */
uint64_t bucket_map_used(const struct bucket_map *m);

/*
 * Releases every leaf whose entries all have kend <= k (no longer counted
 * in report k or any later one; unused entries have kend 0): their counts
 * are forgotten, and a later access starts the entry afresh, which for the
 * WSS is the same as an entry that expired.  The slot table is rebuilt for
 * the leaves kept.  Invalidates every entry pointer handed out before.
 * Returns the number of leaves released.
 */
size_t bucket_map_expire(struct bucket_map *m, uint64_t k);

/* Memory held: arenas (live and free leaves) and the slot table, in bytes. */
size_t bucket_map_bytes(const struct bucket_map *m);

#endif
