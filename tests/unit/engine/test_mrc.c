/* test_mrc.c - the stack distances of engine/mrc.c equal a brute-force LRU
 * stack (an array, moved to front on every reference) on seeded random
 * streams: every cache size's hits, across renumberings of the time axis
 * (long streams over few buckets) and growth of the table (many buckets);
 * and the log-spaced sizes of mrc_sizes. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "engine/mrc.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * n references over nb buckets (scattered keys), a mix of a cyclic scan, a
 * skewed pick and uniform; checks hits(c) for every c against the stack.
 */
static int check_stream_warm(uint64_t seed, size_t n, uint64_t nb, size_t warm)
{
	uint64_t *stack = calloc(nb, sizeof(uint64_t));
	uint64_t *hist = calloc(nb + 1, sizeof(uint64_t));	/* hist[d], d = 1..nb */
	uint64_t *all = calloc(n, sizeof(uint64_t));
	uint64_t depth = 0, cold = 0, scan = 0, batch_seed = seed;
	struct mrc m;
	int bad = 0;

	mrc_init(&m);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng(&seed), b;
		switch (r % 3) {
		case 0: b = scan++ % nb; break;
		case 1: b = (r >> 8) % (1 + (r >> 40) % nb); break;	/* skewed to low numbers */
		default: b = (r >> 8) % nb; break;
		}
		b = b * 0x10001 + 7;	/* scattered keys */
		all[i] = b;
		uint64_t d = 0;
		while (d < depth && stack[d] != b)
			d++;
		if (d == depth) {
			cold += i >= warm;	/* the first warm references only fill the stack */
			depth++;
		} else if (i >= warm) {
			hist[d + 1]++;
		}
		memmove(stack + 1, stack, d * sizeof(uint64_t));
		stack[0] = b;
	}
	/* odd seeds: mrc_add_many in batches of 1..100 (its read-ahead), even: mrc_add */
	for (size_t i = 0; i < n;) {
		size_t k = seed & 1 ? 1 + rng(&batch_seed) % 100 : 1;
		k = k < n - i ? k : n - i;
		m.warming = i < warm;
		if (m.warming && i + k > warm)
			k = warm - i;
		if (seed & 1)
			mrc_add_many(&m, all + i, k);
		else
			mrc_add(&m, all[i]);
		i += k;
	}
	mrc_finish(&m);
	if (m.refs != n - warm || m.distinct != depth || m.cold != cold) {
		TEST_FAIL("seed %llu: refs %llu distinct %llu cold %llu, expected %zu %llu %llu",
			  (unsigned long long)seed, (unsigned long long)m.refs,
			  (unsigned long long)m.distinct, (unsigned long long)m.cold, n - warm,
			  (unsigned long long)depth, (unsigned long long)cold);
		bad = 1;
	}
	uint64_t sum = 0;
	for (uint64_t c = 1; c <= depth + 2 && !bad; c++) {
		sum += c <= nb ? hist[c] : 0;
		if (mrc_hits(&m, c) != sum) {
			TEST_FAIL("seed %llu, %zu refs over %llu buckets: hits(%llu) = %llu, the LRU "
				  "stack %llu", (unsigned long long)seed, n, (unsigned long long)nb,
				  (unsigned long long)c, (unsigned long long)mrc_hits(&m, c),
				  (unsigned long long)sum);
			bad = 1;
		}
	}
	if (!bad && mrc_hits(&m, depth) + cold != n - warm) {
		TEST_FAIL("hits at the footprint + cold != refs");
		bad = 1;
	}
	mrc_free(&m);
	free(stack);
	free(hist);
	free(all);
	return bad;
}

static int check_stream(uint64_t seed, size_t n, uint64_t nb)
{
	return check_stream_warm(seed, n, nb, 0);
}

/* report --mrc-warmup: the first references fill the stack, the rest count */
TEST(mrc_warmup)
{
	for (uint64_t seed = 1; seed <= 20; seed++)
		if (check_stream_warm(seed * 104729, 200 + seed * 300, 1 + seed % 53, seed * 97))
			return;
	check_stream_warm(99, 100000, 900, 60000);
}

TEST(mrc_small_streams)
{
	for (uint64_t seed = 1; seed <= 40; seed++)
		if (check_stream(seed * 7919, 1 + seed * 50, 1 + seed % 37))
			return;
}

/* few buckets, long streams: the time axis (4096 positions) is renumbered many times */
TEST(mrc_axis_renumbered)
{
	if (!check_stream(12345, 200000, 3))
		check_stream(777, 100000, 900);
}

/* more buckets than the first table and axis: both grow while marks move */
TEST(mrc_table_grows)
{
	if (!check_stream(4242, 60000, 5000))
		check_stream(4243, 60000, 5000);
}

TEST(mrc_empty_and_one)
{
	struct mrc m;

	mrc_init(&m);
	mrc_finish(&m);
	CHECK_EQ_U64(m.refs, 0);
	CHECK_EQ_U64(mrc_hits(&m, 10), 0);
	mrc_free(&m);
	mrc_init(&m);
	for (int i = 0; i < 5; i++)
		mrc_add(&m, 42);
	mrc_finish(&m);
	CHECK_EQ_U64(m.refs, 5);
	CHECK_EQ_U64(m.distinct, 1);
	CHECK_EQ_U64(mrc_hits(&m, 1), 4);
	CHECK_EQ_U64(mrc_hits(&m, 1000), 4);
	mrc_free(&m);
}

TEST(mrc_sizes_log_spaced)
{
	uint64_t *s;
	size_t n = mrc_sizes(10, 64, &s);

	CHECK_EQ_U64(n, 10);
	for (size_t i = 0; i < n; i++)
		CHECK_EQ_U64(s[i], i + 1);
	free(s);
	uint64_t fps[] = { 65, 100, 1000, 123457, 1ull << 30 };
	for (size_t f = 0; f < sizeof(fps) / sizeof(fps[0]); f++) {
		n = mrc_sizes(fps[f], 64, &s);
		CHECK(n >= 64);
		CHECK_EQ_U64(s[0], 1);
		CHECK_EQ_U64(s[n - 1], fps[f]);
		for (size_t i = 1; i < n; i++)
			CHECK(s[i] > s[i - 1]);
		/* log-spaced: no step of more than twice the even ratio (where sizes are not 1 apart) */
		double even = pow((double)fps[f], 1.0 / 63);
		for (size_t i = 1; i < n; i++)
			if (s[i] - s[i - 1] > 1)
				CHECK((double)s[i] / (double)s[i - 1] <= even * even + 1e-9);
		free(s);
	}
}

int main(void)
{
	return test_main();
}
