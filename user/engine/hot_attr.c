/* hot_attr.c - instruction pointers per hot bucket. */
#include "engine/hot_attr.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/search.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void hot_attr_init(struct hot_attr *a, const struct hot_bucket *hot, size_t n, unsigned shift)
{
	memset(a, 0, sizeof(*a));
	a->shift = shift;
	a->buckets = mt_xcalloc(n ? n : 1, sizeof(*a->buckets));
	for (size_t i = 0; i < n; i++) {
		uint64_t b = hot[i].bucket;
		a->buckets[i] = b;
		a->maybe[(b >> 6) & (HOT_ATTR_FILTER_WORDS - 1)] |= 1ull << (b & 63);
	}
	qsort(a->buckets, n, sizeof(*a->buckets), by_u64);
	a->nbuckets = n;
	a->cap = 64;
	a->slots = mt_xcalloc(a->cap, sizeof(*a->slots));
}

void hot_attr_free(struct hot_attr *a)
{
	free(a->buckets);
	free(a->slots);
	memset(a, 0, sizeof(*a));
}

/* Index of bucket in buckets[], or nbuckets when it is not hot. */
static size_t find_hot(const struct hot_attr *a, uint64_t bucket)
{
	const uint64_t *base = a->buckets;
	size_t len = a->nbuckets;

	if (!len)
		return 0;
	/* the last entry <= bucket, if any, without a branch per step (a
	 * third of a code trace's samples fall into hot code buckets, at
	 * random among them: the branches of a binary search mispredict) */
	while (len > 1) {
		size_t half = len / 2;
		base = base[half] <= bucket ? base + half : base;
		len -= half;
	}
	return *base == bucket ? (size_t)(base - a->buckets) : a->nbuckets;
}

static size_t slot_of(uint64_t hot, uint64_t ip, size_t cap)
{
	uint64_t h = (ip ^ (hot * 0xff51afd7ed558ccdull)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32) & (cap - 1);
}

static struct hot_attr_slot *probe(struct hot_attr_slot *slots, size_t cap, uint64_t hot,
				   uint64_t ip)
{
	size_t i = slot_of(hot, ip, cap);

	while (slots[i].ip && (slots[i].ip != ip || slots[i].hot != hot))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct hot_attr *a)
{
	size_t cap = a->cap * 2;
	struct hot_attr_slot *slots = mt_xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < a->cap; i++)
		if (a->slots[i].ip)
			*probe(slots, cap, a->slots[i].hot, a->slots[i].ip) = a->slots[i];
	free(a->slots);
	a->slots = slots;
	a->cap = cap;
	a->last = NULL;
}

void hot_attr_add_bucket(struct hot_attr *a, uint64_t bucket, uint64_t ip)
{
	if (a->last && bucket == a->last_bucket && ip == a->last->ip) {
		a->last->count++;	/* the same bucket and instruction as before */
		return;
	}
	size_t hot = find_hot(a, bucket);
	if (hot == a->nbuckets)
		return;
	struct hot_attr_slot *s = probe(a->slots, a->cap, hot, ip);
	if (!s->ip) {
		if ((a->used + 1) * 2 > a->cap) {
			grow(a);
			s = probe(a->slots, a->cap, hot, ip);
		}
		*s = (struct hot_attr_slot){ ip, 0, hot };
		a->used++;
	}
	s->count++;
	a->last = s;
	a->last_bucket = bucket;
}

static int by_hot_count_ip(const void *pa, const void *pb)
{
	const struct hot_attr_slot *x = pa, *y = pb;

	if (x->hot != y->hot)
		return x->hot < y->hot ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

void hot_attr_finish(struct hot_attr *a)
{
	size_t n = 0;

	if (a->finished)
		return;
	for (size_t i = 0; i < a->cap; i++)
		if (a->slots[i].ip)
			a->slots[n++] = a->slots[i];
	qsort(a->slots, n, sizeof(*a->slots), by_hot_count_ip);
	a->used = n;
	a->finished = 1;
}

size_t hot_attr_pairs(const struct hot_attr *a, uint64_t bucket,
		      const struct hot_attr_slot **first)
{
	size_t hot = find_hot(a, bucket), lo = 0, hi = a->used, end;

	*first = NULL;
	if (!a->finished || hot == a->nbuckets)
		return 0;
	/* first pair of this hot bucket */
	MT_PARTITION_POINT(lo, hi, mid, a->slots[mid].hot < hot);
	for (end = lo; end < a->used && a->slots[end].hot == hot; end++)
		;
	*first = a->slots + lo;
	return end - lo;
}

size_t hot_attr_top(const struct hot_attr *a, uint64_t bucket, size_t n,
		    struct hot_bucket *out, uint64_t *total)
{
	const struct hot_attr_slot *p;
	size_t np = hot_attr_pairs(a, bucket, &p), k = 0;
	uint64_t sum = 0;

	for (size_t i = 0; i < np; i++) {
		if (k < n)
			out[k++] = (struct hot_bucket){ p[i].ip, p[i].count };
		sum += p[i].count;
	}
	if (total)
		*total = sum;
	return k;
}
