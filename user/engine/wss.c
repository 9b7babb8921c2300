/* wss.c - windowed working-set size with difference counters. */
#include "engine/wss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* ring of window/interval + 2 counters (32 bytes each): 8 MiB at most;
 * every sample stores up to window/interval rows */
#define MAX_RING (1ull << 18)

int wss_init(struct wss *w, const struct wss_config *cfg, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	if (!cfg->interval || !cfg->window) {
		snprintf(err, errlen, "window and interval must be greater than zero");
		return -1;
	}
	if (cfg->bucket_shift < 6 || cfg->bucket_shift > 21) {
		snprintf(err, errlen, "bucket size must be a power of two from 64 B to 2 MiB");
		return -1;
	}
	uint64_t q = cfg->window / cfg->interval;
	if (q + 2 > MAX_RING) {
		snprintf(err, errlen, "window is more than %llu intervals; use a larger interval",
			 (unsigned long long)(MAX_RING - 2));
		return -1;
	}
	uint64_t size = 1;
	while (size < q + 2)
		size <<= 1;
	w->cfg = *cfg;
	w->q = q;
	w->counts_ok = cfg->counts && q < WSS_MAX_COUNTS_RING;
	w->r = cfg->window - q * cfg->interval;
	w->k = 0;
	w->t_k = cfg->origin;
	w->last_time = cfg->origin;
	w->diff = mt_xcalloc(size, sizeof(*w->diff));
	w->mask = size - 1;
	bucket_map_init(&w->map);
	return 0;
}

void wss_free(struct wss *w)
{
	free(w->diff);
	free(w->rows);
	free(w->rowk);
	free(w->counts);
	bucket_map_free(&w->map);
	memset(w, 0, sizeof(*w));
}

static uint64_t nonneg(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

static void emit_current(struct wss *w)
{
	struct wss_diff *d = &w->diff[w->k & w->mask], *c = &w->committed;

	c->ge1 += d->ge1;
	c->ge2 += d->ge2;
	c->ge3 += d->ge3;
	c->n += d->n;
	memset(d, 0, sizeof(*d));
	if (w->k == 0)
		return;
	uint64_t ge1 = nonneg(c->ge1), ge2 = nonneg(c->ge2), ge3 = nonneg(c->ge3);
	struct wss_row row = { ge1, nonneg(c->n), ge1 - ge2, ge2 - ge3 };
	if (!w->counts_ok)
		row.samples = row.f1 = row.f2 = 0;	/* not counted: see wss.h */
	if (w->on_row) {
		w->on_row(w->row_ctx, w->k, w->t_k, &row);
		return;
	}
	if (!row.seen)
		return;	/* nothing in the window: a gap, not stored */
	if (w->nrows == WSS_MAX_ROWS) {
		w->too_long = w->t_k;
		return;
	}
	if (w->nrows == w->rows_cap) {
		w->rows_cap = w->rows_cap ? w->rows_cap * 2 : 16;	/* small: one per process */
		w->rows = mt_xrealloc(w->rows, w->rows_cap * sizeof(*w->rows));
		w->rowk = mt_xrealloc(w->rowk, w->rows_cap * sizeof(*w->rowk));
		if (w->counts_ok)
			w->counts = mt_xrealloc(w->counts, w->rows_cap * sizeof(*w->counts));
	}
	if (w->counts_ok)
		w->counts[w->nrows] = (struct wss_row_counts){ row.samples, row.f1, row.f2 };
	w->rowk[w->nrows] = w->k + w->skipped;
	w->rows[w->nrows++] = row.seen;
}

void wss_emit_until(struct wss *w, uint64_t t)
{
	uint64_t T = w->cfg.interval;

	/* a row callback sees every report: more than WSS_MAX_ROWS of them at once is refused */
	if (w->on_row && t > w->t_k && (t - w->t_k - 1) / T >= WSS_MAX_ROWS - w->k) {
		w->too_long = t;
		return;
	}
	while (t > w->t_k && !w->too_long) {
		/* every counter committed (k past the last pending one): the
		 * reports up to the one before t are empty, skip them at once
		 * (stored rows only; a row callback sees every report) */
		if (!w->on_row && w->k > w->horizon) {
			uint64_t m = (t - w->t_k - 1) / T;
			w->skipped += m;
			w->t_k += m * T;	/* <= t - 1 */
		}
		if (w->t_k > UINT64_MAX - T) {
			w->too_long = t;
			return;
		}
		emit_current(w);
		w->k++;
		w->t_k += T;
	}
}

void wss_finish(struct wss *w, uint64_t end)
{
	if (w->too_long)
		return;
	if (end < w->last_time)
		end = w->last_time;
	wss_emit_until(w, end);
	if (w->too_long)
		return;
	emit_current(w);
	/* the current slot is now reported: move past it */
	w->k++;
	w->t_k += w->cfg.interval;
}

void wss_close_until(struct wss *w, uint64_t t)
{
	if (w->too_long || t == UINT64_MAX)
		return;
	wss_emit_until(w, t + 1);	/* the reports with t_k <= t */
	if (t > w->last_time)
		w->last_time = t;
}

uint64_t wss_total_buckets(const struct wss *w)
{
	return bucket_map_used(&w->map);
}

size_t wss_expire(struct wss *w)
{
	return bucket_map_expire(&w->map, w->k);
}

#define PREFETCH_AHEAD 16

/* use_ip a constant in each copy: no test of it per sample */
static inline __attribute__((always_inline)) void add_samples(struct wss *w,
							      const struct memtrace_sample *s,
							      size_t n, int use_ip)
{
	struct bucket_entry *ahead[PREFETCH_AHEAD];
	uint64_t when[PREFETCH_AHEAD];
	unsigned shift = w->cfg.bucket_shift;
	size_t head = 0, tail = 0;	/* queued entries: [tail, head) */

	for (size_t i = 0; i < n; i++) {
		uint64_t a = use_ip ? s[i].ip : s[i].addr;
		if (use_ip && !a)
			continue;
		if (head - tail == PREFETCH_AHEAD) {
			wss_account(w, when[tail % PREFETCH_AHEAD], ahead[tail % PREFETCH_AHEAD]);
			tail++;
		}
		struct bucket_entry *e = bucket_map_get(&w->map, a >> shift);
		__builtin_prefetch(e, 1, 3);
		ahead[head % PREFETCH_AHEAD] = e;
		when[head % PREFETCH_AHEAD] = s[i].time;
		head++;
	}
	for (; tail < head; tail++)
		wss_account(w, when[tail % PREFETCH_AHEAD], ahead[tail % PREFETCH_AHEAD]);
}

void wss_add_samples(struct wss *w, const struct memtrace_sample *s, size_t n, int use_ip)
{
	if (use_ip)
		add_samples(w, s, n, 1);
	else
		add_samples(w, s, n, 0);
}
