/* test_bucket_set.c - engine/bucket_set.h against a sorted list of the
 * (group, bucket) pairs added: the same answer to every add, the same
 * count per group, and the memory it promises on scattered buckets. */
#include <stdlib.h>

#include "engine/bucket_set.h"
#include "test.h"

struct pair {
	uint64_t group, bucket;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->group != y->group)
		return (x->group > y->group) - (x->group < y->group);
	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The reference: pairs seen so far, sorted, searched; inserted in place. */
static int ref_add(struct pair *v, size_t *n, struct pair p)
{
	size_t lo = 0, hi = *n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_pair(&v[mid], &p) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < *n && !cmp_pair(&v[lo], &p))
		return 0;
	memmove(&v[lo + 1], &v[lo], (*n - lo) * sizeof(*v));
	v[lo] = p;
	(*n)++;
	return 1;
}

static uint64_t xs = 88172645463325252ull;

static uint64_t next(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

TEST(bucket_set_agrees_with_a_sorted_list)
{
	enum { N = 20000 };
	struct pair *v = calloc(N, sizeof(*v));
	size_t n = 0;
	uint64_t per_group[5] = { 0 };
	struct bucket_set s;
	int bad = 0;

	bucket_set_init(&s);
	for (int i = 0; i < N; i++) {
		uint64_t r = next();
		/* dense runs, repeats, leaves shared by groups, top-of-space keys */
		uint64_t group = r % 5;
		uint64_t bucket = (r >> 8) % 4 == 0 ? UINT64_MAX - (r >> 20) % 200
			: (r >> 8) % 4 == 1 ? (r >> 16) % 3000
			: (0x7f0000000ull + ((r >> 16) % 400) * 64);
		int want = ref_add(v, &n, (struct pair){ group, bucket });
		int got = bucket_set_add(&s, group, bucket);
		bad += want != got;
		per_group[group] += (uint64_t)got;
	}
	CHECK_EQ_U64(bad, 0);
	for (uint64_t g = 0; g < 5; g++) {
		uint64_t want = 0;
		for (size_t i = 0; i < n; i++)
			want += v[i].group == g;
		CHECK_EQ_U64(per_group[g], want);
	}
	bucket_set_free(&s);
	free(v);
}

TEST(bucket_set_costs_little_on_scattered_buckets)
{
	struct bucket_set s;

	bucket_set_init(&s);
	/* 30000 buckets 2 MiB apart (4 KiB buckets): one per 64 */
	for (uint64_t i = 0; i < 30000; i++)
		CHECK_EQ_U64(bucket_set_add(&s, 0, (0x10000000000ull >> 12) + i * 512), 1);
	CHECK_EQ_U64(bucket_set_add(&s, 0, 0x10000000000ull >> 12), 0);
	CHECK_EQ_U64(bucket_set_add(&s, 1, 0x10000000000ull >> 12), 1);
	/* one bucket in 5000 groups: each is new to its group, wherever the
	 * others' slots lie on its probe path */
	uint64_t fresh = 0;
	for (uint64_t g = 2; g < 5002; g++)
		fresh += (uint64_t)bucket_set_add(&s, g, 12345);
	CHECK_EQ_U64(fresh, 5000);
	/* at most 48 bytes a bucket (half load, doubling: < 4 x 24 just after growth) */
	CHECK(bucket_set_bytes(&s) <= 35001 * 96);
	bucket_set_free(&s);
}

int main(void)
{
	return test_main();
}
