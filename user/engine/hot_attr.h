/*
 * hot_attr.h - which instructions access the hot buckets.
 *
 * A hot bucket's address says where the memory is; the instructions that
 * touch it say why.  Given the hot buckets (hot_top), a second pass over
 * the samples counts, per hot bucket, the instruction pointers of the
 * samples that fell into it: for a data bucket the loads and stores that
 * accessed it, for a code bucket (addr = ip) its hottest instructions.
 *
 *   hot_attr_init(&a, hot, n, shift);
 *   for each sample with an ip: hot_attr_add(&a, addr, ip);
 *   hot_attr_finish(&a);
 *   hot_attr_top(&a, hot[i].bucket, 3, out);   // out[j].bucket is an ip
 *
 * Memory: one 24-byte slot per distinct (hot bucket, ip) pair.
 */
#ifndef MEMTRACE_ENGINE_HOT_ATTR_H
#define MEMTRACE_ENGINE_HOT_ATTR_H

#include <stddef.h>
#include <stdint.h>

#include "engine/hot.h"

#define HOT_ATTR_FILTER_WORDS 64	/* 4096 bits */

struct hot_attr_slot {
	uint64_t ip;		/* 0: empty (samples without an ip are not added) */
	uint64_t count;
	uint64_t hot;		/* index into buckets[] */
};

struct hot_attr {
	uint64_t *buckets;	/* the hot bucket numbers, ascending */
	size_t nbuckets;
	unsigned shift;
	struct hot_attr_slot *slots;	/* hash of (hot, ip); sorted after finish */
	size_t cap, used;
	int finished;
	/* per sample: a bit per low bucket bits of the hot buckets (most
	 * samples miss every hot bucket), and the pair counted last */
	uint64_t maybe[HOT_ATTR_FILTER_WORDS];
	struct hot_attr_slot *last;
	uint64_t last_bucket;
};

void hot_attr_init(struct hot_attr *a, const struct hot_bucket *hot, size_t n, unsigned shift);
void hot_attr_free(struct hot_attr *a);

/*
 * 0 when addr's bucket is surely not hot (hot_attr_add would not count it),
 * else 1: a bit per low bucket bits of the hot buckets.  Reads only what
 * hot_attr_init wrote, so another thread may ask while one adds.
 */
static inline int hot_attr_maybe(const struct hot_attr *a, uint64_t addr)
{
	uint64_t bucket = addr >> a->shift;

	return !!(a->maybe[(bucket >> 6) & (HOT_ATTR_FILTER_WORDS - 1)] & (1ull << (bucket & 63)));
}

/* Counts ip for addr's bucket if that bucket is hot; ip 0 is ignored. */
void hot_attr_add_bucket(struct hot_attr *a, uint64_t bucket, uint64_t ip);
static inline void hot_attr_add(struct hot_attr *a, uint64_t addr, uint64_t ip)
{
	uint64_t bucket = addr >> a->shift;

	if (!ip || a->finished || !hot_attr_maybe(a, addr))
		return;
	if (a->last && bucket == a->last_bucket && ip == a->last->ip) {
		a->last->count++;	/* the same bucket and instruction as before: no call */
		return;
	}
	hot_attr_add_bucket(a, bucket, ip);
}

/* Ends the counting: orders the pairs for hot_attr_top. */
void hot_attr_finish(struct hot_attr *a);

/*
 * The n most frequent ips of hot bucket `bucket` into out (out[j].bucket
 * holds the ip), most frequent first, ties by ascending ip.  Returns how
 * many were written; *total (if not NULL) gets the bucket's samples that
 * had an ip.
 */
size_t hot_attr_top(const struct hot_attr *a, uint64_t bucket, size_t n,
		    struct hot_bucket *out, uint64_t *total);

/*
 * All (ip, count) pairs of hot bucket `bucket`, most frequent first:
 * *first points at the first, the return value is how many there are.
 */
size_t hot_attr_pairs(const struct hot_attr *a, uint64_t bucket,
		      const struct hot_attr_slot **first);

#endif
