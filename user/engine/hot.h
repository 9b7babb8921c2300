/* hot.h - hot buckets: exact top-N and the hot working-set curve. */
#ifndef MEMTRACE_ENGINE_HOT_H
#define MEMTRACE_ENGINE_HOT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bucket_map.h"

struct hot_bucket {
	uint64_t bucket;	/* bucket number: address >> bucket_shift */
	uint64_t count;
};

/*
 * The n most accessed buckets into out (n entries), most accesses first,
 * ties by ascending address.  Returns how many were written.
 */
size_t hot_top(const struct bucket_map *m, size_t n, struct hot_bucket *out);

/* One point of the hot working-set curve (paper 002, Fig. 5a). */
struct hot_point {
	uint64_t min_count;	/* k */
	uint64_t buckets;	/* buckets accessed >= k times */
	uint64_t accesses;	/* accesses that went to those buckets */
};

/*
 * Points for k = 1, 2, 4, 8, ... up to the largest count (at most max
 * points).  Returns how many were written.
 */
size_t hot_curve(const struct bucket_map *m, struct hot_point *out, size_t max);

#endif
