/*
 * mrc.h - LRU stack distances of a stream of bucket numbers, and the miss
 * ratio curve of a fully associative LRU cache of buckets that follows
 * from them (Mattson et al. 1970: one pass gives every cache size).
 *
 * The stack distance of a reference to bucket b is 1 + the number of
 * distinct buckets referenced since b's previous reference (infinite for
 * b's first: a cold miss).  An LRU cache of c buckets hits exactly the
 * references of distance <= c.  Distances come from a Fenwick tree over
 * the times of each bucket's latest reference (Bennett-Kruskal, Olken):
 * one mark per distinct bucket, so the distance is the number of marks
 * after b's; O(log) per reference.  The tree is 64-ary over a bitmap of
 * the marks (a count per 64 entries of the level below), small enough to
 * stay in cache, where a Fenwick tree's nodes would miss it.  The time axis is renumbered (only the
 * live marks kept, in order) whenever it fills, so memory follows the
 * distinct buckets (the footprint), not the length of the stream.
 *
 *   struct mrc m;
 *   mrc_init(&m);
 *   for (...) mrc_add(&m, addr >> shift);
 *   mrc_finish(&m);        // m.hits[c - 1]: references of distance <= c
 *   mrc_free(&m);
 */
#ifndef MEMTRACE_ENGINE_MRC_H
#define MEMTRACE_ENGINE_MRC_H

#include <stddef.h>
#include <stdint.h>

#define MRC_LEVELS 6	/* 64^6 > 2^32 positions */

struct mrc_slot {
	uint64_t key;			/* bucket + 1, 0 = empty */
	uint64_t when;			/* position of its latest reference, 1-based */
};

struct mrc {
	/* bucket -> the position of its latest reference: open addressing */
	struct mrc_slot *slots;
	size_t cap;			/* slots, a power of two */
	uint64_t distinct;		/* buckets seen = live marks */
	/* time axis: positions 1..tcap, the next reference at position now;
	 * the live marks as bits, and their counts per 64 entries of the
	 * level below (64-ary tree: a few hundred KiB for a million buckets) */
	uint64_t *bits;
	uint32_t *cnt[MRC_LEVELS];	/* cnt[0]: per word of bits, ...; the last: 1 entry */
	unsigned nlevels;
	uint32_t tcap, now;
	/* distances */
	uint64_t *hist;			/* hist[d - 1]: references of distance d */
	size_t hcap;
	uint64_t refs;			/* every reference counted, cold ones included */
	uint64_t cold;			/* of them, the first to their bucket */
	/* set: references only warm the stack (a cache filled before the
	 * counted part), neither refs, cold nor the distances count them */
	int warming;
	/* mrc_finish: hits[c - 1] = references of distance <= c, c = 1..distinct */
	uint64_t *hits;
	int too_many;			/* the table reached MRC_MAX_BUCKETS: no curve */
};

/* distinct buckets at most (positions are 32-bit, twice the marks) */
#define MRC_MAX_BUCKETS (1ull << 30)

void mrc_init(struct mrc *m);
void mrc_add(struct mrc *m, uint64_t bucket);
/* mrc_add of each, in order (faster: the table is read ahead) */
void mrc_add_many(struct mrc *m, const uint64_t *bucket, size_t n);
/* hits[] from hist[] (hist is freed); no more mrc_add after it */
void mrc_finish(struct mrc *m);
void mrc_free(struct mrc *m);

/* References (of m, finished) that an LRU cache of c buckets hits. */
static inline uint64_t mrc_hits(const struct mrc *m, uint64_t c)
{
	if (!c || !m->distinct)
		return 0;
	return m->hits[(c < m->distinct ? c : m->distinct) - 1];
}

/*
 * The miss ratio of a cache of c buckets, with a 95 % interval in *lo,
 * *hi.  period 1: exact, (refs - hits(c)) / refs (refs and hits of the
 * counted references: those added while not warming).  period > 1 (m holds the
 * samples of one reference in period): the samples' reuses at distance > c
 * among their reuses, scaled to the references that are not cold, plus
 * cold_ratio, the cold misses of the whole stream (the estimated distinct
 * buckets / (samples x period)); the interval is Wilson's for the reuses'
 * share, i.e. the sampling noise only.
 */
double mrc_miss(const struct mrc *m, uint64_t c, double period, double cold_ratio, double *lo,
		double *hi);

/*
 * Knees of a curve at ascending sizes (miss ratios miss[0..n-1]): a point
 * where the curve has fallen by >= 0.05 since half its size, and falls
 * less than a quarter of that from it to twice its size; of consecutive
 * knees within a factor of 2, the first.  miss_at(c) evaluates the curve
 * at any size.  Writes at most max indices, returns their count.
 */
size_t mrc_knees(const uint64_t *size, size_t n, double (*miss_at)(void *ctx, uint64_t c),
		 void *ctx, size_t *out, size_t max);

/*
 * At least min_points cache sizes (buckets), log-spaced from 1 to
 * footprint (both included), ascending and distinct; every size from 1 when
 * footprint <= min_points.  Returns the count, *out malloc'd.
 */
size_t mrc_sizes(uint64_t footprint, size_t min_points, uint64_t **out);

#endif
