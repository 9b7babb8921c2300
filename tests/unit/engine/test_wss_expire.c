/* test_wss_expire.c - bounded live WSS: bucket_map_expire() / wss_expire(). */
#include <stdlib.h>

#include "test.h"
#include "engine/bucket_map.h"
#include "engine/wss.h"

static void set(struct bucket_map *m, uint64_t bucket, uint64_t count, uint64_t kend)
{
	struct bucket_entry *e = bucket_map_get(m, bucket);
	e->count = count;
	e->kend = kend;
}

TEST(bucket_map_expire_releases_only_fully_expired_leaves)
{
	struct bucket_map m;
	bucket_map_init(&m);
	/* 200 leaves; leaf i holds buckets i*512 and i*512+7 with kend i and 5 */
	for (uint64_t i = 0; i < 200; i++) {
		set(&m, i * BUCKET_LEAF_SIZE, 1, i);
		set(&m, i * BUCKET_LEAF_SIZE + 7, 2, 5);
	}
	CHECK_EQ_U64(m.nleaves, 200);
	size_t bytes = bucket_map_bytes(&m);
	/* kend <= 100 everywhere in leaves 0..100 */
	CHECK_EQ_U64(bucket_map_expire(&m, 100), 101);
	CHECK_EQ_U64(m.nleaves, 99);
	CHECK_EQ_U64(m.nfree, 101);
	CHECK_EQ_U64(bucket_map_used(&m), 198);
	CHECK(bucket_map_bytes(&m) <= bytes);	/* slot table rebuilt smaller */
	/* every kept entry is found again after the rebuild */
	for (uint64_t i = 101; i < 200; i++) {
		CHECK_EQ_U64(bucket_map_get(&m, i * BUCKET_LEAF_SIZE)->kend, i);
		CHECK_EQ_U64(bucket_map_get(&m, i * BUCKET_LEAF_SIZE + 7)->count, 2);
	}
	CHECK_EQ_U64(m.nleaves, 99);	/* the lookups created nothing */
	/* released leaves come back zeroed, from the free list, no new arena */
	size_t narenas = m.narenas;
	for (uint64_t i = 0; i < 101; i++) {
		struct bucket_entry *e = bucket_map_get(&m, (1000 + i) * BUCKET_LEAF_SIZE + 3);
		CHECK_EQ_U64(e->count, 0);
		CHECK_EQ_U64(e->kend, 0);
		e->count = 9;
		e->kend = 10;
	}
	CHECK_EQ_U64(m.nfree, 0);
	CHECK_EQ_U64(m.narenas, narenas);
	CHECK_EQ_U64(bucket_map_used(&m), 198 + 101);
	/* forgotten: the lookup makes a new (all expired) leaf for it */
	CHECK_EQ_U64(bucket_map_get(&m, 7 * BUCKET_LEAF_SIZE)->count, 0);
	/* only that leaf is expired at 4: nothing else moves */
	CHECK_EQ_U64(bucket_map_expire(&m, 4), 1);
	CHECK_EQ_U64(m.nleaves, 99 + 101);
	CHECK_EQ_U64(bucket_map_get(&m, 150 * BUCKET_LEAF_SIZE)->kend, 150);
	bucket_map_free(&m);
}

/*
 * An hour of the fresh-page recording, scaled: 36 000 intervals
 * (an hour of the recorder's 100 ms), each with 256 samples on pages never
 * seen before, 64 on pages of the last 1024 fresh ones and 64 on a hot set
 * of 64 pages; window 1.5 intervals.  Swept every SWEEP intervals (the
 * recorder: every interval).  Without the sweeps the map would hold 9.2 M
 * pages in 18 000 leaves (147 MB); with them at most 16 leaves are live
 * (SWEEP + 2 intervals of fresh pages and the 1024 re-touched ones: at most
 * 8 leaves for SWEEP = 10, + 5 fresh between sweeps, + the hot leaf, + 2
 * partly used), in at most 256 KiB of arenas and slots, and every row
 * equals a brute-force recount of the distinct pages in its window.
 */
#define T	1000ull
#define TAU	1500ull
#define K	36000u
#define S	384u
#define FRESH	256u

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The samples of interval j: times in (j*T, (j+1)*T]. */
static void gen(uint64_t j, struct memtrace_sample *s)
{
	uint64_t st = j * 0x9E3779B97F4A7C15ull + 12345, fresh = j * FRESH;

	for (unsigned i = 0; i < S; i++) {
		uint64_t page;
		if (i % 3 != 2)
			page = fresh++;
		else if (i % 2)
			page = fresh >= 1024 ? fresh - 1 - rng(&st) % 1024 : rng(&st) % (fresh + 1);
		else
			page = (1ull << 30) + rng(&st) % 64;
		memset(&s[i], 0, sizeof(s[i]));
		s[i].time = j * T + 1 + (uint64_t)i * (T - 1) / (S - 1);
		s[i].addr = 0x10000000ull + (page << 12) + (i & 0xff8);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Distinct pages accessed in (t_k - TAU, t_k], t_k = k*T. */
static uint64_t recount(uint64_t k, struct memtrace_sample *s, uint64_t *pages)
{
	size_t n = 0;
	uint64_t tk = k * T;

	for (uint64_t j = k >= 2 ? k - 2 : 0; j < k; j++) {
		gen(j, s);
		for (unsigned i = 0; i < S; i++)
			if (s[i].time + TAU > tk && s[i].time <= tk)
				pages[n++] = s[i].addr >> 12;
	}
	qsort(pages, n, sizeof(*pages), cmp_u64);
	uint64_t d = 0;
	for (size_t i = 0; i < n; i++)
		d += !i || pages[i] != pages[i - 1];
	return d;
}

static void hour_of_fresh_pages(uint64_t sweep)
{
	struct wss w;
	struct wss_config cfg = { 0, TAU, T, 12, 0 };
	char err[64];
	struct memtrace_sample *s = calloc(S, sizeof(*s));
	uint64_t *pages = calloc(3 * S, sizeof(*pages));
	size_t max_leaves = 0, max_bytes = 0, released = 0;
	uint64_t swept = 0;

	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	for (uint64_t j = 0; j < K; j++) {
		gen(j, s);
		wss_add_samples(&w, s, S, 0);
		if (w.map.nleaves > max_leaves)
			max_leaves = w.map.nleaves;
		if (w.k - swept >= sweep) {
			released += wss_expire(&w);
			swept = w.k;
		}
		if (bucket_map_bytes(&w.map) > max_bytes)
			max_bytes = bucket_map_bytes(&w.map);
	}
	wss_finish(&w, s[S - 1].time);
	CHECK_EQ_U64(w.samples, (uint64_t)K * S);
	CHECK_EQ_U64(w.nrows, K);
	CHECK(max_leaves * BUCKET_LEAF_SIZE <= 16 * 512);	/* buckets held, whatever the leaf size */
	CHECK(max_bytes <= 256 * 1024);
	CHECK(released >= (uint64_t)K * FRESH / BUCKET_LEAF_SIZE - 16 * 512 / BUCKET_LEAF_SIZE);
	if (getenv("VERBOSE") || max_leaves * BUCKET_LEAF_SIZE > 16 * 512 || max_bytes > 256 * 1024)
		printf("  sweeps every %llu: peak %zu leaves, %zu bytes\n",
		       (unsigned long long)sweep, max_leaves, max_bytes);
	unsigned bad = 0;
	for (uint64_t k = 1; k <= K && w.nrows == K; k++) {
		uint64_t want = recount(k, s, pages);
		if ((w.rowk[k - 1] != k || w.rows[k - 1] != want) && !bad++)
			TEST_FAIL("row %llu: %llu, recount %llu", (unsigned long long)k,
				  (unsigned long long)w.rows[k - 1], (unsigned long long)want);
	}
	CHECK_EQ_U64(bad, 0);
	wss_free(&w);
	free(s);
	free(pages);
}

TEST(live_wss_memory_flat_over_an_hour_of_fresh_pages)
{
	hour_of_fresh_pages(1);		/* as the recorder does */
	hour_of_fresh_pages(10);
}

int main(void)
{
	return test_main();
}
