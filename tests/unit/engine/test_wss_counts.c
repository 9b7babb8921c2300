/* test_wss_counts.c - the O(1) per-row counts of the WSS engine (distinct
 * buckets S, samples n, f1, f2) equal a brute-force recount of every window
 * on seeded random streams, for several window/interval ratios. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "engine/wss.h"
#include "engine/wss_est.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct ev {
	uint64_t t, bucket;
};

/* Counts of (t_k - window, t_k] by looking at every sample. */
static void recount(const struct ev *e, size_t n, uint64_t t_k, uint64_t window,
		    uint64_t nbuckets, uint32_t *per, struct wss_row *out)
{
	memset(per, 0, nbuckets * sizeof(*per));
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		if (e[i].t > t_k || e[i].t + window <= t_k)
			continue;
		out->samples++;
		per[e[i].bucket]++;
	}
	for (uint64_t b = 0; b < nbuckets; b++) {
		out->seen += per[b] > 0;
		out->f1 += per[b] == 1;
		out->f2 += per[b] == 2;
	}
}

/* One stream: n samples with gaps in [0, maxgap], buckets from a skewed mix. */
static int check_stream(uint64_t seed, size_t n, uint64_t maxgap, uint64_t nbuckets,
			uint64_t window, uint64_t interval)
{
	struct ev *e = calloc(n, sizeof(*e));
	uint32_t *per = calloc(nbuckets, sizeof(*per));
	uint64_t s = seed, t = 1000;
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		t += rng(&s) % (maxgap + 1);
		e[i].t = t;
		/* half the samples on an eighth of the buckets: some seen 1, 2, 3+ times */
		e[i].bucket = rng(&s) % 2 ? rng(&s) % (nbuckets / 8 + 1) : rng(&s) % nbuckets;
	}
	struct wss w;
	struct wss_config cfg = { 1000, window, interval, 12, 1 };
	char err[128];
	if (wss_init(&w, &cfg, err, sizeof(err))) {
		free(e);
		free(per);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		wss_add(&w, e[i].t, e[i].bucket << 12);
	wss_finish(&w, e[n - 1].t);
	/* sparse rows (engine/wss.h): every interval, the empty ones 0 */
	uint64_t all = wss_intervals(&w);
	uint64_t *seen = calloc(all ? all : 1, sizeof(*seen));
	struct wss_row_counts *counts = calloc(all ? all : 1, sizeof(*counts));
	wss_dense(&w, seen, counts, all);
	for (size_t k = 1; k <= all && !bad; k++) {
		struct wss_row want;
		recount(e, n, 1000 + k * interval, window, nbuckets, per, &want);
		const struct wss_row_counts *got = &counts[k - 1];
		if (seen[k - 1] != want.seen || got->samples != want.samples ||
		    got->f1 != want.f1 || got->f2 != want.f2) {
			printf("seed %llu window %llu interval %llu row %zu: got S %llu n %llu f1 %llu "
			       "f2 %llu, want %llu %llu %llu %llu\n",
			       (unsigned long long)seed, (unsigned long long)window,
			       (unsigned long long)interval, k, (unsigned long long)seen[k - 1],
			       (unsigned long long)got->samples, (unsigned long long)got->f1,
			       (unsigned long long)got->f2, (unsigned long long)want.seen,
			       (unsigned long long)want.samples, (unsigned long long)want.f1,
			       (unsigned long long)want.f2);
			bad = 1;
		}
	}
	/* the last sample's time is reported: the rows cover the stream */
	if (!bad && 1000 + all * interval < e[n - 1].t)
		bad = 1;
	free(seen);
	free(counts);
	wss_free(&w);
	free(e);
	free(per);
	return bad;
}

TEST(counts_equal_recount_window_equals_interval)
{
	for (uint64_t seed = 1; seed <= 6; seed++)
		CHECK(!check_stream(seed * 7919, 3000, 5, 200, 50, 50));
}

TEST(counts_equal_recount_overlapping_windows)
{
	/* window = 4, 10 and 3.5 intervals (not a multiple) */
	for (uint64_t seed = 1; seed <= 6; seed++) {
		CHECK(!check_stream(seed * 104729, 3000, 5, 200, 200, 50));
		CHECK(!check_stream(seed * 31337, 2000, 3, 100, 100, 10));
		CHECK(!check_stream(seed * 65537, 3000, 5, 300, 175, 50));
	}
}

TEST(counts_equal_recount_window_shorter_than_interval)
{
	for (uint64_t seed = 1; seed <= 6; seed++)
		CHECK(!check_stream(seed * 27644437, 3000, 8, 150, 30, 100));
}

TEST(counts_equal_recount_with_gaps_and_equal_times)
{
	/* long gaps (empty windows) and many samples at one time */
	for (uint64_t seed = 1; seed <= 6; seed++) {
		CHECK(!check_stream(seed * 15485863, 2000, 400, 60, 120, 40));
		CHECK(!check_stream(seed * 49979687, 3000, 1, 40, 20, 5));
	}
}

TEST(counts_equal_recount_long_windows)
{
	/* window = 300 intervals: buckets fall out long after their 2nd/3rd
	 * latest sample, the saturated distances must read as "before" */
	for (uint64_t seed = 1; seed <= 3; seed++)
		CHECK(!check_stream(seed * 999331, 3000, 6, 400, 3000, 10));
}

/*
 * Bursts 10^12 intervals apart (10^15 time units, the crafted-trace case):
 * the empty intervals between them are skipped, not stored, so rows and
 * work follow the samples.  Every stored row and the intervals on both
 * sides of each burst equal the recount; the skipped ones are 0.
 */
TEST(sparse_rows_skip_empty_intervals)
{
	enum { BURSTS = 4, PER = 300, NB = 50 };
	const uint64_t window = 35, interval = 10, gap = 1000000000000000ull;
	struct ev e[BURSTS * PER];
	uint32_t per[NB];
	uint64_t s = 12345;
	for (size_t b = 0, i = 0; b < BURSTS; b++)
		for (size_t j = 0; j < PER; j++, i++) {
			e[i].t = 1000 + b * gap + j / 3;	/* 100 time units per burst */
			e[i].bucket = rng(&s) % NB;
		}
	struct wss w;
	struct wss_config cfg = { 1000, window, interval, 12, 1 };
	char err[128];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	for (size_t i = 0; i < BURSTS * PER; i++)
		wss_add(&w, e[i].t, e[i].bucket << 12);
	wss_finish(&w, e[BURSTS * PER - 1].t);
	/* 10 intervals of samples + 3 more of window per burst */
	CHECK(w.nrows <= BURSTS * (100 / interval + window / interval + 2));
	CHECK_EQ_U64(wss_intervals(&w), (e[BURSTS * PER - 1].t - 1000 + interval - 1) / interval);
	size_t i = 0;
	for (size_t b = 0; b < BURSTS; b++) {
		uint64_t k0 = (b * gap) / interval;
		for (uint64_t k = k0 > 5 ? k0 - 5 : 1; k <= k0 + 20 && k <= wss_intervals(&w); k++) {
			struct wss_row want;
			recount(e, BURSTS * PER, 1000 + k * interval, window, NB, per, &want);
			while (i < w.nrows && w.rowk[i] < k)
				i++;
			int stored = i < w.nrows && w.rowk[i] == k;
			CHECK_EQ_U64(stored ? w.rows[i] : 0, want.seen);
			CHECK_EQ_U64(stored ? w.counts[i].samples : 0, want.samples);
			CHECK_EQ_U64(stored ? w.counts[i].f1 : 0, want.f1);
			CHECK_EQ_U64(stored ? w.counts[i].f2 : 0, want.f2);
			CHECK_EQ_U64(stored, want.seen > 0);
		}
	}
	wss_free(&w);
}

TEST(counts_off_beyond_the_counts_ring)
{
	/* window = 70000 intervals: S still exact, n = f1 = f2 = 0 (not counted) */
	struct wss w;
	struct wss_config cfg = { 0, 70000, 1, 12, 1 };
	char err[64];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	CHECK_EQ_U64(w.counts_ok, 0);
	wss_add(&w, 1, 0x1000);
	wss_add(&w, 2, 0x2000);
	wss_add(&w, 3, 0x1000);
	wss_finish(&w, 3);
	CHECK_EQ_U64(w.nrows, 3);
	CHECK_EQ_U64(w.rows[2], 2);
	CHECK(w.counts == NULL);	/* not counted: n = f1 = f2 = 0 */
	wss_free(&w);
}

TEST(counts_off_unless_asked)
{
	/* exact streams (cfg.counts = 0): the WSS alone, n = f1 = f2 = 0 */
	struct wss w;
	struct wss_config cfg = { 0, 10, 10, 12, 0 };
	char err[64];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	wss_add(&w, 1, 0x1000);
	wss_add(&w, 2, 0x1000);
	wss_finish(&w, 2);
	CHECK_EQ_U64(w.nrows, 1);
	CHECK_EQ_U64(w.rows[0], 1);
	CHECK(w.counts == NULL);	/* not counted: n = f1 = f2 = 0 */
	wss_free(&w);
}

TEST(counts_exact_small_case)
{
	/* window = interval = 10, origin 0: rows at 10 and 20 */
	struct wss w;
	struct wss_config cfg = { 0, 10, 10, 12, 1 };
	char err[64];
	CHECK(!wss_init(&w, &cfg, err, sizeof(err)));
	const uint64_t t[] = { 1, 2, 3, 4, 5, 6, 11, 12 };
	const uint64_t b[] = { 1, 1, 2, 2, 2, 3, 1, 4 };
	for (int i = 0; i < 8; i++)
		wss_add(&w, t[i], b[i] << 12);
	wss_finish(&w, 12);
	CHECK_EQ_U64(w.nrows, 2);
	CHECK_EQ_U64(w.rows[0], 3);
	CHECK_EQ_U64(w.counts[0].samples, 6);
	CHECK_EQ_U64(w.counts[0].f1, 1);	/* bucket 3 */
	CHECK_EQ_U64(w.counts[0].f2, 1);	/* bucket 1; bucket 2 three times */
	CHECK_EQ_U64(w.rows[1], 2);
	CHECK_EQ_U64(w.counts[1].samples, 2);
	CHECK_EQ_U64(w.counts[1].f1, 2);
	CHECK_EQ_U64(w.counts[1].f2, 0);
	wss_free(&w);
}

TEST(estimate_exact_mode_is_seen)
{
	struct wss_est e = wss_est_one(500, 1000, 100, 40, 300, 50, 1.0);
	CHECK(e.est == 500.0 && e.lo == 500.0 && e.hi == 500.0);
	CHECK_EQ_U64(e.flags, 0);
}

TEST(estimate_hand_computed)
{
	/* S 400, f1 100, f2 50, unpooled, N 101: f0 = 100*99 / (2*51 + 100/100) */
	struct wss_est e = wss_est_one(400, 1000, 100, 50, 100, 50, 101.0);
	CHECK(fabs(e.est - (400.0 + 9900.0 / 103.0)) < 1e-9);
	CHECK(e.lo > 400.0 && e.lo < e.est && e.hi > e.est);
	CHECK_EQ_U64(e.flags, 0);
	/* estimate > 3 S: mostly unseen; n < 200: few samples */
	e = wss_est_one(100, 50, 90, 2, 90, 2, 1000.0);
	CHECK_EQ_U64(e.flags, WSS_EST_FEW_SAMPLES | WSS_EST_MOSTLY_UNSEEN);
	/* 320 samples, but fewer than the 396 buckets estimated: few samples */
	e = wss_est_one(300, 320, 100, 50, 100, 50, 101.0);
	CHECK(e.est > 320.0 && e.est < 1.5 * 300.0);
	CHECK_EQ_U64(e.flags, WSS_EST_FEW_SAMPLES);
	/* S 100, f1 40, f2 4, N 1000: f0 = 40*39 / (2*5 + 40/999), about 155:
	 * > 1.5 S, < 3 S; with 900 samples reliable, with 2000 (> 10 per seen
	 * bucket and still half again unseen: a long tail) mostly unseen */
	e = wss_est_one(100, 900, 40, 4, 40, 4, 1000.0);
	CHECK(e.est > 1.5 * 100.0 && e.est < 3.0 * 100.0);
	CHECK_EQ_U64(e.flags, 0);
	e = wss_est_one(100, 2000, 40, 4, 40, 4, 1000.0);
	CHECK_EQ_U64(e.flags, WSS_EST_MOSTLY_UNSEEN);
	/* nothing seen once: nothing unseen */
	e = wss_est_one(100, 500, 0, 30, 0, 30, 1000.0);
	CHECK(e.est == 100.0 && e.hi == 100.0);
}

/* Pages 0..W-1 each accessed a times per window, one access in N kept at
 * random: the estimate's median error is small where the flag says reliable. */
TEST(estimate_recovers_bernoulli_sampled_uniform_set)
{
	const uint64_t W = 2000, a = 200, N = 100, rows = 40;
	uint64_t s = 12345, *seen = calloc(rows, sizeof(*seen));
	struct wss_row_counts *c = calloc(rows, sizeof(*c));
	struct wss_est *e = calloc(rows, sizeof(*e));
	uint32_t *per = calloc(W, sizeof(*per));
	int covered = 0, reliable = 0;
	double err[40];

	for (uint64_t k = 0; k < rows; k++) {
		memset(per, 0, W * sizeof(*per));
		for (uint64_t i = 0; i < W * a; i++)
			if (rng(&s) % N == 0) {
				per[rng(&s) % W]++;
				c[k].samples++;
			}
		for (uint64_t p = 0; p < W; p++) {
			seen[k] += per[p] > 0;
			c[k].f1 += per[p] == 1;
			c[k].f2 += per[p] == 2;
		}
	}
	wss_est_series(seen, NULL, c, rows, 1, (double)N, e);
	for (uint64_t k = 0; k < rows; k++) {
		err[k] = fabs(e[k].est / (double)W - 1);
		covered += e[k].lo <= (double)W && (double)W <= e[k].hi;
		reliable += !e[k].flags;
	}
	qsort(err, rows, sizeof(double), cmp_double);
	printf("uniform W %llu, %llu samples/page: seen %.3f, median |err| %.4f, coverage %d/%llu\n",
	       (unsigned long long)W, (unsigned long long)(a / N), (double)seen[0] / (double)W,
	       err[rows / 2], covered, (unsigned long long)rows);
	CHECK(err[rows / 2] < 0.05);
	CHECK(covered >= (int)(rows * 9 / 10));
	CHECK_EQ_U64((uint64_t)reliable, rows);
	free(seen);
	free(c);
	free(e);
	free(per);
}

int main(void)
{
	return test_main();
}
