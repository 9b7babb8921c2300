/* test_wss_close.c - wss_close_until(): a live series' windows close when
 * every sample up to their end is in, not at the next sample, with the
 * rows a reader of the whole stream (add + finish, as report) gets, each
 * equal to a brute-force count of its window; a late sample counts in the
 * next open window. */
#include <stdlib.h>

#include "test.h"
#include "engine/wss.h"

#define NK	64	/* reports kept by the callback */

struct rows {
	uint64_t seen[NK + 1], samples[NK + 1];
	uint64_t last_k, calls;
};

static void on_row(void *ctx, uint64_t k, uint64_t t, const struct wss_row *row)
{
	struct rows *r = ctx;

	(void)t;
	if (k <= NK) {
		r->seen[k] = row->seen;
		r->samples[k] = row->samples;
	}
	r->last_k = k;
	r->calls++;
}

static void start(struct wss *w, struct rows *r, uint64_t window, uint64_t interval)
{
	char err[128];
	struct wss_config cfg = { 1000, window, interval, 6, 1 };

	memset(r, 0, sizeof(*r));
	CHECK(!wss_init(w, &cfg, err, sizeof(err)));
	w->on_row = on_row;
	w->row_ctx = r;
}

static void add(struct wss *w, uint64_t t, uint64_t addr)
{
	struct memtrace_sample s = { .time = t, .addr = addr };

	wss_add_samples(w, &s, 1, 0);
}

TEST(close_emits_the_windows_up_to_t_and_no_later_one)
{
	struct wss w;
	struct rows r;

	start(&w, &r, 100, 100);	/* origin 1000: t_k = 1000 + 100 k */
	add(&w, 1050, 0x40);
	add(&w, 1150, 0x80);
	add(&w, 1150, 0x80);
	CHECK_EQ_U64(r.last_k, 1);	/* the sample at 1150 closed (1000, 1100] */
	wss_close_until(&w, 1199);
	CHECK_EQ_U64(r.last_k, 1);	/* (1100, 1200] may still get a sample at 1200 */
	wss_close_until(&w, 1200);
	CHECK_EQ_U64(r.last_k, 2);
	CHECK_EQ_U64(r.seen[2], 1);
	CHECK_EQ_U64(r.samples[2], 2);
	wss_close_until(&w, 1500);	/* empty windows close too, as 0 */
	CHECK_EQ_U64(r.last_k, 5);
	CHECK_EQ_U64(r.seen[3], 0);
	CHECK_EQ_U64(r.seen[5], 0);
	CHECK_EQ_U64(w.reordered, 0);
	/* a late sample (before 1500, every sample up to it said in) counts at
	 * 1500, i.e. in the next open window (1500, 1600] */
	add(&w, 1250, 0x1000);
	CHECK_EQ_U64(w.reordered, 1);
	CHECK_EQ_U64(r.last_k, 5);
	wss_close_until(&w, 1600);
	CHECK_EQ_U64(r.seen[6], 1);
	CHECK_EQ_U64(r.samples[6], 1);
	CHECK_EQ_U64(r.seen[3], 0);	/* rows already given never change */
	wss_free(&w);
}

/*
 * A random stream, closed after every batch at the batch's last time (the
 * recorder: every sample up to the merge limit is in), against the same
 * stream added whole and finished (report) and against a brute-force count
 * of the distinct buckets and samples in (t_k - window, t_k].  Windows of
 * one interval (record --metrics) and of 2.5 intervals.
 */
TEST(closed_rows_equal_a_whole_stream_and_a_recount)
{
	static const uint64_t windows[] = { 100, 250 };
	enum { N = 1000 };
	static uint64_t t[N], a[N];
	uint64_t x = 88172645463325252ull, now = 1000;

	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		now += x % 3 == 0 ? x % 7 : 0;	/* bursts with ties */
		if (x % 97 == 0)
			now += 300;		/* gaps: empty windows */
		t[i] = now;
		a[i] = (x >> 20) % 300 * 64;
	}
	for (size_t wi = 0; wi < 2; wi++) {
		struct wss live, whole;
		struct rows rl, rw;

		start(&live, &rl, windows[wi], 100);
		start(&whole, &rw, windows[wi], 100);
		for (int i = 0; i < N; i++) {
			add(&live, t[i], a[i]);
			add(&whole, t[i], a[i]);
			if (i % 37 == 36)
				wss_close_until(&live, t[i]);
		}
		wss_close_until(&live, t[N - 1]);
		wss_finish(&whole, t[N - 1]);
		CHECK(rl.last_k >= 5 && rl.last_k <= NK);
		for (uint64_t k = 1; k <= rl.last_k; k++) {
			uint64_t tk = 1000 + 100 * k, seen = 0, n = 0;
			char in[300] = { 0 };
			for (int i = 0; i < N; i++)
				if (t[i] + windows[wi] > tk && t[i] <= tk) {
					n++;
					seen += !in[a[i] / 64];
					in[a[i] / 64] = 1;
				}
			CHECK_EQ_U64(rl.seen[k], seen);
			CHECK_EQ_U64(rl.samples[k], n);
			CHECK_EQ_U64(rw.seen[k], seen);
			CHECK_EQ_U64(rw.samples[k], n);
		}
		CHECK_EQ_U64(live.reordered, 0);
		wss_free(&live);
		wss_free(&whole);
	}
}

int main(void)
{
	return test_main();
}
