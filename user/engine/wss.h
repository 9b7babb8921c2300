/* wss.h - working-set size over time, as in valgrind-ws / Denning.
 *
 * WSS(t) = number of distinct buckets accessed in (t - window, t], reported
 * at t_k = origin + k * interval for k = 1, 2, ...  window and interval are
 * independent.  O(1) per sample: each bucket remembers the first report
 * index that no longer counts it, and a ring of (window/interval + 2)
 * difference counters turns those into per-report sizes.  Memory: one
 * 24-byte entry per distinct bucket, bounded by the address space touched.
 * The same map gives exact access counts per bucket (hot buckets).
 *
 * For estimates from sampled streams (engine/wss_est.h) every row also
 * carries the samples in its window n and f1, f2 (buckets seen exactly once,
 * twice in the window), exactly and still O(1) per sample: a bucket also
 * keeps the report-end indices of its 2nd and 3rd latest samples (as 16-bit
 * distances below kend, saturated: a window of at most WSS_MAX_COUNTS_RING
 * intervals never reaches back that far), and three more difference
 * counters per ring slot give n, F>=2 and F>=3 per report; f1 = S - F>=2,
 * f2 = F>=2 - F>=3.  Only with cfg.counts (they cost ~15-40 % of the
 * throughput; exact streams do not need them) and windows of fewer intervals
 * (counts_ok; otherwise n, f1, f2 are 0).
 */
#ifndef MEMTRACE_ENGINE_WSS_H
#define MEMTRACE_ENGINE_WSS_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"
#include "engine/bucket_map.h"

/*
 * Rows are sparse: a report whose window holds no sample (WSS 0) is not
 * stored and runs of them are skipped in O(1), so time and memory follow
 * the intervals with samples (times the window's intervals), never the
 * timestamps in a file (two samples at 0 and 2^63 ns are 2 rows, not 9.2e10
 * rows of 100 ms).  rowk[i] is row i's report index k (t_k = origin + k *
 * interval); wss_intervals() the count of every report, stored or not.
 * At most this many stored rows per series: a stream that goes past it
 * stops counting and sets wss.too_long.
 */
#define WSS_MAX_ROWS	10000000ull

/* window/interval below this: f1, f2 are counted (see above) */
#define WSS_MAX_COUNTS_RING	(BUCKET_DELTA_OLD - 2)

struct wss_config {
	uint64_t origin;	/* trace start, in the trace's time unit */
	uint64_t window;	/* tau > 0 */
	uint64_t interval;	/* T > 0 */
	unsigned bucket_shift;	/* log2(bucket size), 6..21 */
	int counts;		/* also count n, f1, f2 per row (sampled streams) */
};

/* What one report row counts in (t_k - window, t_k]. */
struct wss_row {
	uint64_t seen;		/* distinct buckets: the WSS */
	uint64_t samples;	/* n, samples */
	uint64_t f1, f2;	/* buckets with exactly 1, 2 samples */
};

/* The same without seen (stored apart in rows[]). */
struct wss_row_counts {
	uint64_t samples, f1, f2;
};

typedef void (*wss_row_fn)(void *ctx, uint64_t k, uint64_t t_k, const struct wss_row *row);

/* One ring slot: difference counters of F>=1 (the WSS), F>=2, F>=3, n. */
struct wss_diff {
	int64_t ge1, ge2, ge3, n;
};

struct wss {
	struct wss_config cfg;
	uint64_t q, r;		/* window = q * interval + r */
	int counts_ok;		/* cfg.counts and q < WSS_MAX_COUNTS_RING */
	uint64_t k, t_k;	/* current report (k counts only the slots not skipped) and its time */
	uint64_t skipped;	/* reports skipped as empty: report index = k + skipped */
	uint64_t horizon;	/* largest slot with a pending difference counter */
	struct wss_diff *diff;	/* ring of difference counters */
	uint64_t mask;
	struct wss_diff committed;	/* sum of diff[j] for j < k */
	uint64_t last_time;
	uint64_t samples, reordered;
	uint64_t too_long;	/* 0, or the first time past WSS_MAX_ROWS intervals */
	struct bucket_map map;
	/* rows: callback, or stored in rows[] when on_row is NULL */
	wss_row_fn on_row;
	void *row_ctx;
	uint64_t *rows;		/* rows[i] = WSS(t_k), k = rowk[i], only rows with WSS > 0 */
	uint64_t *rowk;		/* report index k of rows[i], ascending */
	struct wss_row_counts *counts;	/* counts[i]: n, f1, f2 of the same row (NULL
					 * unless counts_ok: all 0) */
	size_t nrows, rows_cap;
};

/* 0, or -1 with a one-line reason in err (bad window/interval/bucket). */
int wss_init(struct wss *w, const struct wss_config *cfg, char *err, size_t errlen);
void wss_free(struct wss *w);

void wss_emit_until(struct wss *w, uint64_t t);

/* Accounts one access to entry e at time t (the core of wss_add). */
static inline __attribute__((always_inline)) void wss_account(struct wss *w, uint64_t t,
								struct bucket_entry *e)
{
	if (w->too_long)
		return;
	if (t < w->last_time) {
		t = w->last_time;
		w->reordered++;
	}
	w->last_time = t;
	if (t > w->t_k) {
		wss_emit_until(w, t);
		if (w->too_long)
			return;
	}
	w->samples++;

	uint64_t T = w->cfg.interval;
	uint64_t off = t + T - w->t_k;	/* position in the slot, (0, T] */
	uint64_t kend = w->k + w->q + (off + w->r > T ? 1 : 0);

	if (kend > w->horizon)
		w->horizon = kend;

	uint64_t k = w->k, m = w->mask;
	uint64_t e1 = e->kend;

	e->count++;
	/* seen 3 times or more in this slot already (most accesses of an
	 * exact stream): ge1, ge2 and ge3 would change by +1 -1 at kend */
	if (e1 == kend && e1 > k && (!w->counts_ok || (!e->d2 && !e->d3))) {
		if (w->counts_ok) {
			w->diff[k & m].n++;
			w->diff[kend & m].n--;
		}
		return;
	}
	/* the bucket now counts once in [k, kend), twice in [k, e1), three
	 * times in [k, e2): add what was not counted yet */
	w->diff[(e1 > k ? e1 : k) & m].ge1++;
	w->diff[kend & m].ge1--;
	if (!w->counts_ok) {
		e->kend = (uint32_t)kend;	/* exact streams: the WSS alone */
		return;
	}
	w->diff[k & m].n++;
	w->diff[kend & m].n--;
	if (e1 > k) {
		uint64_t e2 = e1 > e->d2 ? e1 - e->d2 : 0;
		w->diff[(e2 > k ? e2 : k) & m].ge2++;
		w->diff[e1 & m].ge2--;
		if (e2 > k) {
			uint64_t e3 = e1 > e->d3 ? e1 - e->d3 : 0;
			w->diff[(e3 > k ? e3 : k) & m].ge3++;
			w->diff[e2 & m].ge3--;
			/* e3 falls out: e2 is the new 3rd latest */
			e->d3 = (uint16_t)(kend - e2);
		} else {
			e->d3 = BUCKET_DELTA_OLD;
		}
		e->d2 = (uint16_t)(kend - e1);
	} else {
		/* the 2nd and 3rd latest are before every open window */
		e->d2 = BUCKET_DELTA_OLD;
		e->d3 = BUCKET_DELTA_OLD;
	}
	e->kend = (uint32_t)kend;
}

static inline void wss_add(struct wss *w, uint64_t t, uint64_t addr)
{
	wss_account(w, t, bucket_map_get(&w->map, addr >> w->cfg.bucket_shift));
}

/*
 * The same for n samples, their data addresses (use_ip = 0) or their
 * instruction pointers (use_ip = 1, samples without one are skipped).
 * Looks bucket entries up a few samples ahead and prefetches them, which
 * matters when the working set does not fit the caches.
 */
void wss_add_samples(struct wss *w, const struct memtrace_sample *s, size_t n, int use_ip);

/*
 * count accesses to addr's bucket at time t (an AGG row of an aggregated
 * trace): the WSS as for one access, the bucket's access count and the
 * samples by count.  Not for series with cfg.counts (n, f1, f2 need each
 * access's own time).
 */
static inline void wss_add_counted(struct wss *w, uint64_t t, uint64_t addr, uint64_t count)
{
	struct bucket_entry *e = bucket_map_get(&w->map, addr >> w->cfg.bucket_shift);
	uint64_t before = w->samples;

	wss_account(w, t, e);
	if (w->samples != before && count > 1) {	/* counted (not past WSS_MAX_ROWS) */
		e->count += count - 1;
		w->samples += count - 1;
	}
}

/*
 * Emits every report up to and including the one whose time is the first
 * at or after end (end >= the last sample time; pass the last sample time
 * to end the series at the last sample).
 */
void wss_finish(struct wss *w, uint64_t end);

/*
 * Every sample at or before t has been added (a live stream: the recorder
 * merged them): the reports up to t are emitted now, without waiting for
 * a later sample, so a live series' windows close on time.  A sample
 * added afterwards with an earlier time counts at t (reordered), as one
 * earlier than the last sample does.
 */
void wss_close_until(struct wss *w, uint64_t t);

/* Reports from t_1 to the last one emitted, the skipped empty ones included. */
static inline uint64_t wss_intervals(const struct wss *w)
{
	return w->k + w->skipped > 0 ? w->k + w->skipped - 1 : 0;
}

/*
 * The rows as a dense series (tests, small series): seen[k - 1] and
 * counts[k - 1] (counts may be NULL) for k = 1..min(wss_intervals(w), max),
 * 0 where no row is stored.  Returns wss_intervals(w).
 */
static inline uint64_t wss_dense(const struct wss *w, uint64_t *seen,
				 struct wss_row_counts *counts, uint64_t max)
{
	uint64_t all = wss_intervals(w);

	for (uint64_t k = 0; k < all && k < max; k++) {
		seen[k] = 0;
		if (counts)
			counts[k] = (struct wss_row_counts){ 0, 0, 0 };
	}
	for (size_t i = 0; i < w->nrows && w->rowk[i] <= max; i++) {
		seen[w->rowk[i] - 1] = w->rows[i];
		if (counts && w->counts)
			counts[w->rowk[i] - 1] = w->counts[i];
	}
	return all;
}

/* Distinct buckets seen in the whole stream (since the last wss_expire()). */
uint64_t wss_total_buckets(const struct wss *w);

/*
 * Forgets the buckets that no report from the current one on can count
 * (their windows have closed): the rows that follow are the same, memory
 * follows the buckets of the last window or so instead of every bucket
 * ever seen.  Access counts and wss_total_buckets() then cover only the
 * buckets kept: for streams that need neither (the recorder's live WSS).
 * Not while a wss_add_samples() call is under way (it holds entry
 * pointers).  Returns the number of leaves (BUCKET_LEAF_SIZE buckets) released.
 */
size_t wss_expire(struct wss *w);

#endif
