/* test_wss_spatial.c - the gap buckets, instructions and tail instructions
 * of sampled windows (engine/wss_spatial.h) equal a brute-force recount by
 * bitmaps on seeded streams; the refined estimate (engine/wss_est.h) on a
 * simulated program (runs of pages touched a heterogeneous number of times,
 * one access in N kept at random) against the simulation's own truth. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "engine/wss.h"
#include "engine/wss_est.h"
#include "engine/wss_spatial.h"

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

#define NB 512		/* buckets 0..NB-1 */
#define NIP 16		/* instructions 1..NIP */

/* Gap buckets, distinct ips, buckets with 1, 2, 3 samples (f[1..3]) of
 * (t_k - window, t_k], by bitmaps and counts. */
static void recount(const struct memtrace_sample *s, size_t n, uint64_t t_k, uint64_t window,
		    uint64_t *gap, uint64_t *ips, uint64_t f[4])
{
	unsigned char inw[NB] = { 0 }, ever[NB] = { 0 }, ip[NIP + 1] = { 0 };
	unsigned cnt[NB] = { 0 };

	for (size_t i = 0; i < n; i++) {
		ever[s[i].addr >> 12] = 1;
		if (s[i].time <= t_k && s[i].time + window > t_k) {
			inw[s[i].addr >> 12] = 1;
			cnt[s[i].addr >> 12]++;
			ip[s[i].ip] = 1;
		}
	}
	f[1] = f[2] = f[3] = 0;
	for (int b = 0; b < NB; b++)
		if (cnt[b] >= 1 && cnt[b] <= 3)
			f[cnt[b]]++;
	*gap = *ips = 0;
	for (int b = 0; b < NB; b++) {
		if (inw[b] || !ever[b])
			continue;
		/* nearest seen buckets below and above, at most 2 apart */
		int lo = -1, hi = -1;
		for (int d = 1; d <= WSS_SPATIAL_GAP && b - d >= 0; d++)
			if (inw[b - d]) {
				lo = b - d;
				break;
			}
		for (int d = 1; d <= WSS_SPATIAL_GAP && b + d < NB; d++)
			if (inw[b + d]) {
				hi = b + d;
				break;
			}
		*gap += lo >= 0 && hi >= 0 && hi - lo - 1 <= WSS_SPATIAL_GAP;
	}
	for (int i = 1; i <= NIP; i++)
		*ips += ip[i];
}

TEST(spatial_rows_equal_bitmap_recount)
{
	for (uint64_t seed = 1; seed <= 5; seed++) {
		uint64_t st = seed * 7919, window = 5000, interval = 1000, n = 3000;
		struct memtrace_sample *s = calloc(n, sizeof(*s));
		uint64_t t = 0;
		for (uint64_t i = 0; i < n; i++) {
			t += rng(&st) % 40;
			s[i].time = t;
			/* clustered: runs of buckets around a drifting centre, some holes */
			uint64_t b = (i / 50 * 3 + rng(&st) % 24) % NB;
			s[i].addr = (b << 12) | (rng(&st) & 4095);
			s[i].ip = 1 + rng(&st) % (1 + seed * 3);
		}
		struct wss_spatial sp;
		wss_spatial_init(&sp);
		wss_spatial_add(&sp, s, n / 2, 12);	/* two calls: the same as one */
		wss_spatial_add(&sp, s + n / 2, n - n / 2, 12);
		struct wss_config cfg = { 0, window, interval, 12, 1 };
		size_t rows = (size_t)(t / interval + 1);
		uint64_t *rowk = calloc(rows, sizeof(*rowk));
		struct wss_spatial_row *out = calloc(rows, sizeof(*out));
		for (size_t r = 0; r < rows; r++)
			rowk[r] = r + 1;
		CHECK(wss_spatial_rows(&sp, &cfg, rowk, rows, out) == 0);
		for (size_t r = 0; r < rows; r++) {
			uint64_t gap, ips, f[4];
			recount(s, n, (r + 1) * interval, window, &gap, &ips, f);
			CHECK_EQ_U64(out[r].gap, gap);
			CHECK_EQ_U64(out[r].ips, ips);
			CHECK_EQ_U64(out[r].f1, f[1]);
			CHECK_EQ_U64(out[r].f2, f[2]);
			CHECK_EQ_U64(out[r].f3, f[3]);
		}
		wss_spatial_free(&sp);
		free(s);
		free(rowk);
		free(out);
	}
}

/* One instruction touches a new bucket at every sample (a tail), another
 * cycles over 4: only the first is a tail instruction, and a window's tail
 * samples are those of the first. */
TEST(spatial_tail_instructions)
{
	const uint64_t n = 401;
	struct memtrace_sample *s = calloc(n, sizeof(*s));
	for (uint64_t i = 0; i < n; i++) {
		s[i].time = i * 10;
		s[i].ip = i % 4 == 0 ? 0x1000 : 0x2000;
		s[i].addr = (i % 4 == 0 ? (1000 + i) : (i % 16) / 4) << 12;
	}
	struct wss_spatial sp;
	wss_spatial_init(&sp);
	wss_spatial_add(&sp, s, n, 12);
	struct wss_config cfg = { 0, 1000, 1000, 12, 1 };
	uint64_t rowk[4] = { 1, 2, 3, 4 };
	struct wss_spatial_row out[4];
	CHECK(wss_spatial_rows(&sp, &cfg, rowk, 4, out) == 0);
	for (int r = 0; r < 4; r++) {
		/* (1000 r, 1000 (r + 1)]: 100 samples (r = 0: times 10..1000, 100) */
		CHECK_EQ_U64(out[r].ips, 2);
		CHECK_EQ_U64(out[r].tail, 25);
	}
	CHECK_EQ_U64(wss_est_tail_flag(100, 25, 1000.0), WSS_EST_TAIL_INSNS);
	CHECK_EQ_U64(wss_est_tail_flag(100, 5, 1000.0), 0);
	CHECK_EQ_U64(wss_est_tail_flag(100, 25, 1.0), 0);
	wss_spatial_free(&sp);
	free(s);
}

TEST(refine_flags_and_interval)
{
	struct wss_est e = wss_est_one(100, 1000, 10, 10, 10, 10, 1000.0);
	struct wss_est r = wss_est_refine(e, 100, 1000, 40, 0.0, 30, 0, 1000.0);
	/* weight min(1, 16 * 100 / 1000) = 1: all 40 gap buckets; counts of a
	 * mixture (H = 0): added to Chao1's unseen */
	CHECK(fabs(r.est - (e.est + 40.0)) < 1e-9);
	CHECK(r.lo == 100.0 && r.hi >= ceil(r.est * WSS_EST_HI_RATIO));
	CHECK_EQ_U64(r.flags, 0);
	/* more gap buckets than Chao1's unseen f0 (about 4.1): Chao1 is short,
	 * both are added whatever the counts look like */
	double f0 = e.est - 100.0;
	CHECK(f0 > 4.0 && f0 < 4.2);
	r = wss_est_refine(e, 100, 1000, 40, 1.0, 30, 0, 1000.0);
	CHECK(fabs(r.est - (e.est + 40.0)) < 1e-9);
	r = wss_est_refine(e, 100, 1000, 40, 0.5, 30, 0, 1000.0);
	CHECK(fabs(r.est - (e.est + 40.0)) < 1e-9);
	/* fewer (2): one population (H = 1) gives f0 alone, H = 0.5 half the
	 * gaps on top, a mixture (H = 0) all of them */
	r = wss_est_refine(e, 100, 1000, 2, 1.0, 30, 0, 1000.0);
	CHECK(fabs(r.est - e.est) < 1e-9);
	r = wss_est_refine(e, 100, 1000, 2, 0.5, 30, 0, 1000.0);
	CHECK(fabs(r.est - (e.est + 1.0)) < 1e-9);
	r = wss_est_refine(e, 100, 1000, 2, 0.0, 30, 0, 1000.0);
	CHECK(fabs(r.est - (e.est + 2.0)) < 1e-9);
	/* a fixed period: the larger of the two, whatever the counts */
	r = wss_est_refine(e, 100, 1000, 40, 0.0, 30, 1, 1000.0);
	CHECK(fabs(r.est - 140.0) < 1e-9);
	r = wss_est_refine(e, 100, 1000, 2, 0.0, 30, 1, 1000.0);
	CHECK(fabs(r.est - e.est) < 1e-9);
	/* H: Poisson counts of one rate give f2^2 = 1.5 f1 f3 */
	CHECK(fabs(wss_est_homogeneity(40, 30, 15) - 1.0) < 1e-12);
	CHECK(fabs(wss_est_homogeneity(80, 20, 10) - 400.0 / 1200.0) < 1e-12);
	CHECK(wss_est_homogeneity(10, 10, 1) == 1.0);
	CHECK(wss_est_homogeneity(10, 3, 0) == 1.0 && wss_est_homogeneity(0, 3, 2) == 1.0);
	/* many samples per seen bucket: the gaps are holes, weight 16 * 10 / 1000 */
	r = wss_est_refine(wss_est_one(10, 1000, 0, 0, 0, 0, 1000.0), 10, 1000, 10, 0.0, 30, 0, 1000.0);
	CHECK(fabs(r.est - 11.6) < 1e-9);
	/* fixed period, 4 instructions, enough samples: aliased; random: not */
	CHECK(wss_est_refine(e, 100, 1000, 0, 0.0, 4, 1, 1000.0).flags & WSS_EST_ALIASED);
	CHECK(!(wss_est_refine(e, 100, 1000, 0, 0.0, 4, 0, 1000.0).flags & WSS_EST_ALIASED));
	CHECK(!(wss_est_refine(e, 100, 1000, 0, 0.0, 5, 1, 1000.0).flags & WSS_EST_ALIASED));
	CHECK(!(wss_est_refine(e, 100, 1000, 0, 0.0, 0, 1, 1000.0).flags & WSS_EST_ALIASED));
	/* exact streams are left alone */
	e = wss_est_one(100, 1000, 10, 10, 10, 10, 1.0);
	r = wss_est_refine(e, 100, 1000, 40, 0.0, 1, 1, 1.0);
	CHECK(r.est == 100.0 && r.flags == 0);
	CHECK_EQ_U64(wss_est_round_period(1, 1000.0), WSS_EST_ROUND_PERIOD);
	CHECK_EQ_U64(wss_est_round_period(1, 997.0), 0);
	CHECK_EQ_U64(wss_est_round_period(0, 1000.0), 0);
	CHECK_EQ_U64(wss_est_round_period(1, 1.0), 0);
}

/*
 * A simulated program: 12 runs of 6 contiguous pages (72 pages) at fixed
 * places of a 4096-page region, every window; each page accessed a times
 * per window, a = cold for 2 pages in 3 and hot for the rest, one access
 * in N = 1000 kept at random (Bernoulli), instruction pointers of a loop of
 * 8.  The truth is 72 in every window.  Results: median |err| of Chao1 and
 * of the refined estimate, reliable windows, reliable windows covered.
 */
struct sim {
	double err_chao, err_ref;
	size_t windows, reliable, covered;
};

static struct sim simulate(uint64_t cold, uint64_t hot)
{
	const uint64_t N = 1000, rows = 40, W = 72, window = 1000000;
	uint64_t st = 4242, base[12];
	for (int r = 0; r < 12; r++)
		base[r] = (uint64_t)r * 300 + rng(&st) % 200;
	size_t cap = 1 << 16, n = 0;
	struct memtrace_sample *s = calloc(cap, sizeof(*s));
	for (uint64_t k = 0; k < rows; k++)
		for (uint64_t p = 0; p < W; p++) {
			uint64_t page = base[p / 6] + p % 6, a = p % 3 ? cold : hot;
			for (uint64_t i = 0; i < a; i++)
				if (rng(&st) % N == 0) {
					if (n == cap)
						s = realloc(s, (cap *= 2) * sizeof(*s));
					s[n++] = (struct memtrace_sample){
						.time = k * window + 1 + rng(&st) % (window - 1),
						.addr = page << 12, .ip = 0x400000 + 4 * (rng(&st) % 8) };
				}
		}
	for (size_t i = 1; i < n; i++)	/* time order */
		for (size_t j = i; j > 0 && s[j - 1].time > s[j].time; j--) {
			struct memtrace_sample x = s[j];
			s[j] = s[j - 1];
			s[j - 1] = x;
		}
	struct wss w;
	struct wss_config cfg = { 0, window, window, 12, 1 };
	char err[128];
	struct sim out = { 0 };
	if (wss_init(&w, &cfg, err, sizeof(err)))
		return out;
	struct wss_spatial sp;
	wss_spatial_init(&sp);
	wss_add_samples(&w, s, n, 0);
	wss_spatial_add(&sp, s, n, 12);
	wss_finish(&w, rows * window);
	struct wss_est *e = calloc(w.nrows, sizeof(*e));
	struct wss_spatial_row *sr = calloc(w.nrows, sizeof(*sr));
	wss_est_series(w.rows, w.rowk, w.counts, w.nrows, 1, (double)N, e);
	double err_chao[64], err_ref[64];
	size_t m = 0;
	if (wss_spatial_rows(&sp, &w.cfg, w.rowk, w.nrows, sr) == 0)
		for (size_t i = 0; i < w.nrows && m < 64; i++) {
			if (w.rowk[i] > rows)	/* the report after the last window */
				continue;
			/* the slide's counts are the series' */
			CHECK_EQ_U64(sr[i].f1, w.counts[i].f1);
			CHECK_EQ_U64(sr[i].f2, w.counts[i].f2);
			struct wss_est r = wss_est_refine(e[i], w.rows[i], w.counts[i].samples, sr[i].gap,
							  wss_est_homogeneity(sr[i].f1, sr[i].f2, sr[i].f3),
							  sr[i].ips, 0, (double)N);
			r.flags |= wss_est_tail_flag(w.counts[i].samples, sr[i].tail, (double)N);
			err_chao[m] = fabs(e[i].est / (double)W - 1);
			err_ref[m] = fabs(r.est / (double)W - 1);
			m++;
			if (!r.flags) {
				out.reliable++;
				out.covered += r.lo <= (double)W && (double)W <= r.hi;
			}
		}
	qsort(err_chao, m, sizeof(double), cmp_double);
	qsort(err_ref, m, sizeof(double), cmp_double);
	out.windows = m;
	out.err_chao = m ? err_chao[m / 2] : 1;
	out.err_ref = m ? err_ref[m / 2] : 1;
	printf("simulated runs, cold pages %llu accesses, hot %llu: %zu windows, median |err| Chao %.3f "
	       "refined %.3f, reliable %zu, covered %zu\n", (unsigned long long)cold,
	       (unsigned long long)hot, m,
	       out.err_chao, out.err_ref, out.reliable, out.covered);
	wss_spatial_free(&sp);
	wss_free(&w);
	free(e);
	free(sr);
	free(s);
	return out;
}

/* Cold pages seen in 39 % of the windows: they leave few singletons and
 * Chao1 misses them; their places between the hot pages give them back,
 * in part: the counts of two rates (3 and 0.5 samples a page) read as half
 * a mixture (H about 0.5), so half the overlap of gaps and Chao1's unseen
 * is counted once (the sum of both was 6 % off here, and 15-20 % over on
 * the longer dbquery traces: docs/accuracy.md).  About 100 samples a
 * window (fewer than 200): every window flagged. */
TEST(refined_estimate_recovers_cold_pages)
{
	struct sim r = simulate(500, 3000);
	CHECK(r.windows >= 39);
	CHECK(r.err_ref < 0.15);
	CHECK(r.err_ref < r.err_chao / 2);
	CHECK_EQ_U64(r.reliable, 0);
}

/* Cold pages seen in 63 % of the windows: Chao1 alone is close, and the gap
 * buckets partly count the same unseen pages again (an overestimate the
 * fixtures do not show: docs/accuracy.md, "what lost"); still within 15 %,
 * but 120 samples a window: fewer than 200, every window flagged. */
TEST(refined_estimate_few_samples_flagged)
{
	struct sim r = simulate(1000, 3000);
	CHECK(r.windows >= 39);
	CHECK(r.err_ref < 0.15);
	CHECK_EQ_U64(r.reliable, 0);
}

/* Twice the accesses: 240 samples a window for 72 pages, cold pages seen
 * in 86 % of the windows: within 15 %, at least half the windows
 * reliable, >= 90 % of them covered. */
TEST(refined_estimate_on_well_sampled_runs)
{
	struct sim r = simulate(2000, 6000);
	CHECK(r.windows >= 39);
	CHECK(r.err_ref < 0.15);
	CHECK(r.reliable * 2 >= r.windows);
	CHECK(r.covered * 10 >= r.reliable * 9);
}

/* More samples than WSS_SPATIAL_MAX: the kept ones are dropped (nothing
 * stays allocated) and wss_spatial_rows refuses, so the report flags every
 * window NOT_REFINED (report_est.c) instead of refining on a part. */
TEST(over_the_limit_keeps_nothing)
{
	/* buckets 1 and 3 in the window (0, 10], bucket 2 hit later in the run */
	struct memtrace_sample s[3] = { { .time = 1, .addr = 1 << 12, .ip = 1 },
					{ .time = 2, .addr = 3 << 12, .ip = 1 },
					{ .time = 15, .addr = 2 << 12, .ip = 2 } };
	struct wss_config cfg = { .interval = 10, .window = 10, .bucket_shift = 12 };
	uint64_t rowk = 1;
	struct wss_spatial_row out = { 7, 7, 7, 7, 7, 7 };
	struct wss_spatial sp;

	wss_spatial_init(&sp);
	wss_spatial_add(&sp, s, 3, 12);
	CHECK(sp.n == 3);
	CHECK(wss_spatial_rows(&sp, &cfg, &rowk, 1, &out) == 0);
	CHECK(out.gap == 1 && out.ips == 1 && out.f1 == 2 && out.f2 == 0 && out.f3 == 0);
	/* a batch that would pass the limit is not read: its count alone decides */
	wss_spatial_add(&sp, s, WSS_SPATIAL_MAX, 12);
	CHECK(sp.over && sp.n == 0 && sp.v == NULL);
	wss_spatial_add(&sp, s, 3, 12);
	CHECK(sp.n == 0);
	out = (struct wss_spatial_row){ 7, 7, 7, 7, 7, 7 };
	CHECK(wss_spatial_rows(&sp, &cfg, &rowk, 1, &out) == -1);
	CHECK(out.gap == 7 && out.ips == 7 && out.tail == 7 && out.f3 == 7);
	wss_spatial_free(&sp);
}

/* Given up before any sample (report: the trace's SAMPLES chunks hold more
 * than WSS_SPATIAL_MAX): nothing is kept and the rows are refused, as for a
 * stream that passed the limit. */
TEST(given_up_keeps_nothing)
{
	struct memtrace_sample s = { .time = 1, .addr = 1 << 12, .ip = 1 };
	struct wss_config cfg = { .interval = 10, .window = 10, .bucket_shift = 12 };
	uint64_t rowk = 1;
	struct wss_spatial_row out = { 7, 7, 7, 7, 7, 7 };
	struct wss_spatial sp;

	wss_spatial_init(&sp);
	wss_spatial_give_up(&sp);
	wss_spatial_add(&sp, &s, 1, 12);
	CHECK(sp.over && sp.n == 0 && sp.v == NULL);
	CHECK(wss_spatial_rows(&sp, &cfg, &rowk, 1, &out) == -1);
	CHECK(out.gap == 7 && out.f1 == 7);
	wss_spatial_free(&sp);
}

int main(void)
{
	return test_main();
}
