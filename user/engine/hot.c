/* hot.c - sorting bucket counts. */
#include "engine/hot.h"

#include <stdlib.h>

#include "util/util.h"

struct collect {
	struct hot_bucket *all;
	size_t n, cap;
};

static void collect_one(void *ctx, uint64_t bucket, const struct bucket_entry *e)
{
	struct collect *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->all = mt_xrealloc(c->all, c->cap * sizeof(*c->all));
	}
	c->all[c->n++] = (struct hot_bucket){ bucket, e->count };
}

static int by_count_then_address(const void *a, const void *b)
{
	const struct hot_bucket *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

size_t hot_top(const struct bucket_map *m, size_t n, struct hot_bucket *out)
{
	struct collect c = { 0 };

	bucket_map_foreach(m, collect_one, &c);
	if (c.n)	/* qsort(NULL, 0) is undefined */
		qsort(c.all, c.n, sizeof(*c.all), by_count_then_address);
	if (n > c.n)
		n = c.n;
	for (size_t i = 0; i < n; i++)
		out[i] = c.all[i];
	free(c.all);
	return n;
}

size_t hot_curve(const struct bucket_map *m, struct hot_point *out, size_t max)
{
	struct collect c = { 0 };
	size_t points = 0;

	bucket_map_foreach(m, collect_one, &c);
	if (c.n)
		qsort(c.all, c.n, sizeof(*c.all), by_count_then_address);
	/* c.all is sorted by count, descending: walk thresholds upwards from
	 * the end, where the small counts are. */
	uint64_t buckets = c.n, accesses = 0;
	for (size_t i = 0; i < c.n; i++)
		accesses += c.all[i].count;
	size_t i = c.n;	/* entries [0, i) have count >= k */
	for (uint64_t k = 1; points < max && c.n && k <= c.all[0].count; k *= 2) {
		while (i > 0 && c.all[i - 1].count < k) {
			i--;
			buckets--;
			accesses -= c.all[i].count;
		}
		out[points++] = (struct hot_point){ k, buckets, accesses };
		if (k > UINT64_MAX / 2)
			break;
	}
	free(c.all);
	return points;
}
