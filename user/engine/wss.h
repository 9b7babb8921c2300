/* wss.h - working-set size over time, as in valgrind-ws / Denning.
 *
 * WSS(t) = number of distinct buckets accessed in (t - window, t], reported
 * at t_k = origin + k * interval for k = 1, 2, ...  window and interval are
 * independent.  O(1) per sample: each bucket remembers the first report
 * index that no longer counts it, and a ring of (window/interval + 2)
 * difference counters turns those into per-report sizes.  Memory: one
 * 16-byte entry per distinct bucket, bounded by the address space touched.
 * The same map gives exact access counts per bucket (hot buckets).
 */
#ifndef MEMTRACE_WSS_H
#define MEMTRACE_WSS_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"
#include "engine/bucket_map.h"

/*
 * At most this many reports (intervals) per series: memory is bounded by
 * what a report prints, never by the timestamps in a file (two samples at 0
 * and 2^63 ns would otherwise ask for 9.2e10 rows of 100 ms).  A stream
 * that goes past it stops counting and sets wss.too_long.
 */
#define WSS_MAX_ROWS	10000000ull

struct wss_config {
	uint64_t origin;	/* trace start, in the trace's time unit */
	uint64_t window;	/* tau > 0 */
	uint64_t interval;	/* T > 0 */
	unsigned bucket_shift;	/* log2(bucket size), 6..21 */
};

typedef void (*wss_row_fn)(void *ctx, uint64_t k, uint64_t t_k, uint64_t wss);

struct wss {
	struct wss_config cfg;
	uint64_t q, r;		/* window = q * interval + r */
	uint64_t k, t_k;	/* current report index and its time */
	int64_t *diff;		/* ring of difference counters */
	uint64_t mask;
	int64_t committed;	/* sum of diff[j] for j < k */
	uint64_t last_time;
	uint64_t samples, reordered;
	uint64_t too_long;	/* 0, or the first time past WSS_MAX_ROWS intervals */
	struct bucket_map map;
	/* rows: callback, or stored in rows[] when on_row is NULL */
	wss_row_fn on_row;
	void *row_ctx;
	uint64_t *rows;		/* rows[k - 1] = WSS(t_k) */
	size_t nrows, rows_cap;
};

/* 0, or -1 with a one-line reason in err (bad window/interval/bucket). */
int wss_init(struct wss *w, const struct wss_config *cfg, char *err, size_t errlen);
void wss_free(struct wss *w);

void wss_emit_until(struct wss *w, uint64_t t);

/* Accounts one access to entry e at time t (the core of wss_add). */
static inline void wss_account(struct wss *w, uint64_t t, struct bucket_entry *e)
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

	e->count++;
	if (e->kend > w->k)
		w->diff[e->kend & w->mask]++;
	else
		w->diff[w->k & w->mask]++;
	w->diff[kend & w->mask]--;
	e->kend = kend;
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
 * Emits every report up to and including the one whose time is the first
 * at or after end (end >= the last sample time; pass the last sample time
 * to end the series at the last sample).
 */
void wss_finish(struct wss *w, uint64_t end);

/* Distinct buckets seen in the whole stream (since the last wss_expire()). */
uint64_t wss_total_buckets(const struct wss *w);

/*
 * Forgets the buckets that no report from the current one on can count
 * (their windows have closed): the rows that follow are the same, memory
 * follows the buckets of the last window or so instead of every bucket
 * ever seen.  Access counts and wss_total_buckets() then cover only the
 * buckets kept: for streams that need neither (the recorder's live WSS).
 * Not while a wss_add_samples() call is under way (it holds entry
 * pointers).  Returns the number of leaves of 512 buckets released.
 */
size_t wss_expire(struct wss *w);

#endif
