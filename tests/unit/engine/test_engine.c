/* test_engine.c - WSS windows, buckets, hot counts and peaks, exact values. */
#include <stdlib.h>

#include "engine/hot.h"
#include "engine/hot_attr.h"
#include "engine/peaks.h"
#include "test.h"
#include "engine/wss.h"

struct ev {
	uint64_t t, addr;
};

static size_t run(const struct ev *e, size_t n, uint64_t origin, uint64_t window,
		  uint64_t interval, unsigned shift, uint64_t *rows, size_t max)
{
	struct wss w;
	struct wss_config cfg = { origin, window, interval, shift, 0 };
	char err[128];

	if (wss_init(&w, &cfg, err, sizeof(err)))
		return (size_t)-1;
	for (size_t i = 0; i < n; i++)
		wss_add(&w, e[i].t, e[i].addr);
	if (n)
		wss_finish(&w, e[n - 1].t);
	size_t k = (size_t)wss_dense(&w, rows, NULL, max);	/* every interval, the empty ones 0 */
	wss_free(&w);
	return k;
}

static const struct ev small[] = {
	{ 1, 0x1000 }, { 5, 0x2000 }, { 10, 0x1008 }, { 11, 0x3000 }, { 25, 0x1fff },
};

#define CHECK_ROWS(rows, n, ...)                                             \
	do {                                                                 \
		uint64_t want_[] = { __VA_ARGS__ };                          \
		size_t nw_ = sizeof(want_) / sizeof(want_[0]);               \
		CHECK_EQ_U64(n, nw_);                                        \
		for (size_t i_ = 0; i_ < nw_ && i_ < (n); i_++)              \
			CHECK_EQ_U64(rows[i_], want_[i_]);                   \
	} while (0)

TEST(window_equals_interval)
{
	uint64_t rows[8];
	size_t n = run(small, 5, 0, 10, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 2, 1, 1);
}

TEST(window_twice_interval)
{
	uint64_t rows[8];
	size_t n = run(small, 5, 0, 20, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 2, 3, 2);
}

TEST(window_not_multiple_of_interval)
{
	uint64_t rows[8];
	size_t n = run(small, 5, 0, 15, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 2, 2, 1);
}

TEST(window_shorter_than_interval)
{
	uint64_t rows[8];
	size_t n = run(small, 5, 0, 5, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 1, 0, 0);
}

TEST(origin_offsets_report_times)
{
	/* same stream shifted by 1000, origin 1000: same rows */
	struct ev e[5];
	uint64_t rows[8];
	for (int i = 0; i < 5; i++)
		e[i] = (struct ev){ small[i].t + 1000, small[i].addr };
	size_t n = run(e, 5, 1000, 20, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 2, 3, 2);
}

TEST(bucket_size_merges_addresses)
{
	/* 8 KiB buckets: 0x1000/0x1008/0x1fff -> bucket 0, 0x2000 & 0x3000 -> bucket 1 */
	uint64_t rows[8];
	size_t n = run(small, 5, 0, 20, 10, 13, rows, 8);
	CHECK_ROWS(rows, n, 2, 2, 2);
	/* 64 B buckets: 0x1000 and 0x1008 share a bucket, 0x1fff does not */
	n = run(small, 5, 0, 1000, 1000, 6, rows, 8);
	CHECK_ROWS(rows, n, 4);
}

TEST(idle_gap_gives_zero_rows)
{
	const struct ev e[] = { { 5, 0x1000 }, { 45, 0x2000 } };
	uint64_t rows[8];
	size_t n = run(e, 2, 0, 10, 10, 12, rows, 8);
	CHECK_ROWS(rows, n, 1, 0, 0, 0, 1);
}

TEST(time_going_backwards_is_clamped)
{
	struct wss w;
	struct wss_config cfg = { 0, 10, 10, 12, 0 };
	char err[64];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	wss_add(&w, 15, 0x1000);
	wss_add(&w, 3, 0x2000);	/* counted at 15 */
	wss_finish(&w, 15);
	CHECK_EQ_U64(w.reordered, 1);
	uint64_t rows[2];
	CHECK_EQ_U64(wss_dense(&w, rows, NULL, 2), 2);
	CHECK_EQ_U64(rows[0], 0);
	CHECK_EQ_U64(rows[1], 2);
	CHECK_EQ_U64(w.nrows, 1);	/* sparse: the empty first interval is not stored */
	wss_free(&w);
}

TEST(bad_config_rejected)
{
	struct wss w;
	char err[128];
	struct wss_config zero_t = { 0, 10, 0, 12, 0 }, zero_w = { 0, 0, 10, 12, 0 };
	struct wss_config tiny_bucket = { 0, 10, 10, 5, 0 }, huge_bucket = { 0, 10, 10, 22, 0 };
	struct wss_config huge_ratio = { 0, 1ull << 40, 1, 12, 0 };
	CHECK(wss_init(&w, &zero_t, err, sizeof(err)) == -1);
	CHECK(wss_init(&w, &zero_w, err, sizeof(err)) == -1);
	CHECK(wss_init(&w, &tiny_bucket, err, sizeof(err)) == -1);
	CHECK(wss_init(&w, &huge_bucket, err, sizeof(err)) == -1);
	CHECK(wss_init(&w, &huge_ratio, err, sizeof(err)) == -1);
}

/* Brute force: distinct buckets with a sample in (t_k - tau, t_k]. */
static uint64_t brute(const struct ev *e, size_t n, uint64_t tk, uint64_t tau, unsigned shift)
{
	uint64_t seen[4096];
	size_t ns = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].t > tk || e[i].t + tau <= tk)
			continue;
		uint64_t b = e[i].addr >> shift;
		size_t j = 0;
		while (j < ns && seen[j] != b)
			j++;
		if (j == ns)
			seen[ns++] = b;
	}
	return ns;
}

TEST(random_streams_match_brute_force)
{
	static struct ev e[2000];
	static uint64_t rows[5000];
	unsigned seed = 12345;
	for (int round = 0; round < 60; round++) {
		size_t n = 200 + (size_t)(rand_r(&seed) % 1800);
		uint64_t t = 0;
		for (size_t i = 0; i < n; i++) {
			t += (uint64_t)(rand_r(&seed) % 7);
			e[i] = (struct ev){ t + 1, (uint64_t)(rand_r(&seed) % 300) << 11 };
		}
		uint64_t T = 1 + (uint64_t)(rand_r(&seed) % 40);
		uint64_t tau = 1 + (uint64_t)(rand_r(&seed) % 120);
		unsigned shift = 11 + (unsigned)(rand_r(&seed) % 3);
		size_t nr = run(e, n, 0, tau, T, shift, rows, 5000);
		CHECK_EQ_U64(nr, (e[n - 1].t + T - 1) / T);
		for (size_t k = 1; k <= nr && k <= 5000; k++) {
			uint64_t want = brute(e, n, k * T, tau, shift);
			if (rows[k - 1] != want) {
				TEST_FAIL("round %d tau %llu T %llu k %zu: %llu != %llu", round,
					  (unsigned long long)tau, (unsigned long long)T, k,
					  (unsigned long long)rows[k - 1], (unsigned long long)want);
				return;
			}
		}
	}
}

TEST(hot_top_orders_by_count_then_address)
{
	struct wss w;
	struct wss_config cfg = { 0, 10, 10, 12, 0 };
	char err[64];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	/* bucket 5: 3x, bucket 2: 2x, bucket 9: 2x, bucket 1: 1x */
	const uint64_t b[] = { 5, 2, 9, 5, 1, 9, 5, 2 };
	for (int i = 0; i < 8; i++)
		wss_add(&w, (uint64_t)i + 1, b[i] << 12);
	struct hot_bucket top[3];
	size_t n = hot_top(&w.map, 3, top);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(top[0].bucket, 5);
	CHECK_EQ_U64(top[0].count, 3);
	CHECK_EQ_U64(top[1].bucket, 2);	/* tie with 9: lower address first */
	CHECK_EQ_U64(top[1].count, 2);
	CHECK_EQ_U64(top[2].bucket, 9);
	struct hot_bucket all[10];
	CHECK_EQ_U64(hot_top(&w.map, 10, all), 4);
	CHECK_EQ_U64(all[3].bucket, 1);
	CHECK_EQ_U64(wss_total_buckets(&w), 4);

	struct hot_point c[8];
	size_t np = hot_curve(&w.map, c, 8);
	CHECK_EQ_U64(np, 2);	/* k = 1, 2 (max count 3) */
	CHECK_EQ_U64(c[0].min_count, 1);
	CHECK_EQ_U64(c[0].buckets, 4);
	CHECK_EQ_U64(c[0].accesses, 8);
	CHECK_EQ_U64(c[1].min_count, 2);
	CHECK_EQ_U64(c[1].buckets, 3);
	CHECK_EQ_U64(c[1].accesses, 7);
	wss_free(&w);
}

TEST(bucket_map_spans_far_apart_leaves)
{
	struct bucket_map m;
	bucket_map_init(&m);
	/* heap-like and mmap-like addresses, enough leaves to force growth */
	for (uint64_t i = 0; i < 300; i++) {
		bucket_map_get(&m, (0x55550000000ull >> 12) + i * 1000)->count++;
		bucket_map_get(&m, (0x7fff0000000ull >> 12) + i * 777)->count += 2;
	}
	CHECK_EQ_U64(bucket_map_used(&m), 600);
	CHECK_EQ_U64(bucket_map_get(&m, (0x7fff0000000ull >> 12) + 299 * 777)->count, 2);
	bucket_map_free(&m);
}

TEST(peak_on_flat_series_found_once)
{
	uint64_t s[60];
	for (int i = 0; i < 60; i++)
		s[i] = 100 + (uint64_t)(i % 3);	/* 100, 101, 102, ... */
	s[30] = 500;
	struct peak *p;
	size_t n = peaks_detect(s, NULL, 60, &peak_defaults, &p);
	CHECK_EQ_U64(n, 1);
	if (n) {
		CHECK_EQ_U64(p[0].index, 30);
		CHECK_EQ_U64(p[0].value, 500);
		CHECK_EQ_U64(p[0].first, 30);
		CHECK_EQ_U64(p[0].last, 30);
	}
	free(p);
}

TEST(peak_run_reported_at_its_maximum)
{
	uint64_t s[40];
	for (int i = 0; i < 40; i++)
		s[i] = 50;
	s[20] = 300;
	s[21] = 400;
	s[22] = 350;
	struct peak *p;
	size_t n = peaks_detect(s, NULL, 40, &peak_defaults, &p);
	CHECK_EQ_U64(n, 1);
	if (n) {
		CHECK_EQ_U64(p[0].index, 21);
		CHECK_EQ_U64(p[0].first, 20);
		CHECK_EQ_U64(p[0].last, 22);
	}
	free(p);
}

TEST(second_peak_not_hidden_by_first)
{
	uint64_t s[80];
	for (int i = 0; i < 80; i++)
		s[i] = 100;
	s[20] = 5000;
	s[50] = 400;
	struct peak *p;
	size_t n = peaks_detect(s, NULL, 80, &peak_defaults, &p);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_EQ_U64(p[0].index, 20);
		CHECK_EQ_U64(p[1].index, 50);
	}
	free(p);
}

TEST(slow_ramp_has_no_peaks)
{
	uint64_t s[100];
	for (int i = 0; i < 100; i++)
		s[i] = 1000 + (uint64_t)i * 5;
	struct peak *p;
	CHECK_EQ_U64(peaks_detect(s, NULL, 100, &peak_defaults, &p), 0);
	free(p);
}

TEST(hot_attr_counts_ips_of_hot_buckets_only)
{
	/* hot buckets 7 and 3 (shift 12); bucket 5 is not hot */
	const struct hot_bucket hot[] = { { 7, 0 }, { 3, 0 } };
	struct hot_attr a;
	hot_attr_init(&a, hot, 2, 12);
	const struct { uint64_t addr, ip; } s[] = {
		{ 0x7010, 0x400a }, { 0x7ff8, 0x400b }, { 0x7000, 0x400a }, { 0x7123, 0x400c },
		{ 0x7456, 0x400b }, { 0x7789, 0x400a }, { 0x3000, 0x400c }, { 0x5000, 0x400a },
		{ 0x3fff, 0 },	/* no ip: not counted */
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		hot_attr_add(&a, s[i].addr, s[i].ip);
	hot_attr_finish(&a);

	struct hot_bucket top[4];
	uint64_t total;
	/* bucket 7: 0x400a x3, 0x400b x2, 0x400c x1 */
	CHECK_EQ_U64(hot_attr_top(&a, 7, 2, top, &total), 2);
	CHECK_EQ_U64(total, 6);
	CHECK_EQ_U64(top[0].bucket, 0x400a);
	CHECK_EQ_U64(top[0].count, 3);
	CHECK_EQ_U64(top[1].bucket, 0x400b);
	CHECK_EQ_U64(top[1].count, 2);
	CHECK_EQ_U64(hot_attr_top(&a, 7, 4, top, &total), 3);
	CHECK_EQ_U64(top[2].bucket, 0x400c);
	CHECK_EQ_U64(top[2].count, 1);
	/* bucket 3: 0x400c x1 */
	CHECK_EQ_U64(hot_attr_top(&a, 3, 4, top, &total), 1);
	CHECK_EQ_U64(total, 1);
	CHECK_EQ_U64(top[0].bucket, 0x400c);
	/* not hot */
	CHECK_EQ_U64(hot_attr_top(&a, 5, 4, top, &total), 0);
	CHECK_EQ_U64(total, 0);
	hot_attr_free(&a);
}

TEST(hot_attr_survives_growth_and_ties)
{
	/* one hot bucket, 1000 ips: ip i seen (i % 10) + 1 times */
	const struct hot_bucket hot[] = { { 1, 0 } };
	struct hot_attr a;
	uint64_t want_total = 0;
	hot_attr_init(&a, hot, 1, 6);
	for (uint64_t i = 0; i < 1000; i++)
		for (uint64_t k = 0; k <= i % 10; k++) {
			hot_attr_add(&a, 64 + (i % 64), 0x1000 + i);
			want_total++;
		}
	hot_attr_finish(&a);
	struct hot_bucket top[3];
	uint64_t total;
	CHECK_EQ_U64(hot_attr_top(&a, 1, 3, top, &total), 3);
	CHECK_EQ_U64(total, want_total);
	/* count 10: ips 0x1000 + 9, 19, 29...: ties by ascending ip */
	CHECK_EQ_U64(top[0].bucket, 0x1000 + 9);
	CHECK_EQ_U64(top[0].count, 10);
	CHECK_EQ_U64(top[1].bucket, 0x1000 + 19);
	CHECK_EQ_U64(top[2].bucket, 0x1000 + 29);
	hot_attr_free(&a);
}

int main(void)
{
	return test_main();
}
