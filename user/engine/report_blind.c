/* report_blind.c - the windows a pass-based source could not see
 * (memtrace/report.h struct memtrace_blind, docs/analysis.md "Blind
 * windows"): the trace's PASSES rows, the default window of at least one
 * pass period, the blind reports as rows of the data and code series, and
 * their flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "trace/format.h"
#include "util/util.h"

#define NS_DEFAULT_WINDOW	100000000ull	/* report.h: 100 ms */

static const char *pass_name(uint32_t what)
{
	switch (what) {
	case MEMTRACE_PASS_NUMA_SCAN: return "whole NUMA scan sweep";
	case MEMTRACE_PASS_DAMON: return "DAMON aggregation";
	case MEMTRACE_PASS_ACCESSED_BIT: return "accessed-bit pass";
	default: return "observation pass";
	}
}

int rep_blind_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen)
{
	if (ch->len != (size_t)ch->count * PASS_REC_SIZE) {
		snprintf(err, errlen, "corrupt PASSES chunk at offset %llu: %u records in %zu bytes",
			 (unsigned long long)ch->offset, ch->count, ch->len);
		return -1;
	}
	if ((uint64_t)c->npasses + c->nstarts + ch->count > TRACE_MAX_SIDE_RECORDS) {
		snprintf(err, errlen, "PASSES chunk at offset %llu: more than %u PASSES records in "
			 "the trace", (unsigned long long)ch->offset, TRACE_MAX_SIDE_RECORDS);
		return -1;
	}
	c->passes_chunk = 1;
	if (c->npasses + ch->count > c->passes_cap) {
		size_t n = c->passes_cap ? c->passes_cap : 64;
		while (n < c->npasses + ch->count)
			n *= 2;
		c->passes = mt_xrealloc(c->passes, n * sizeof(*c->passes));
		c->passes_cap = n;
	}
	for (uint32_t i = 0; i < ch->count; i++) {
		const unsigned char *p = ch->data + (size_t)i * PASS_REC_SIZE;
		uint32_t pid = get_le32(p + 8);
		struct memtrace_pass row = { .time = get_le64(p), .pid = pid, .what = get_le32(p + 12) };
		/* the series' passes: every target's, or --pid's and those of every target */
		if (c->filter->pid && pid && pid != c->filter->pid)
			continue;
		if (row.what == MEMTRACE_PASS_NUMA_SWEEP_START) {	/* a sweep's start: apart */
			if (c->nstarts == c->starts_cap) {
				c->starts_cap = c->starts_cap ? 2 * c->starts_cap : 64;
				c->starts = mt_xrealloc(c->starts, c->starts_cap * sizeof(*c->starts));
			}
			c->starts[c->nstarts++] = row;
			continue;
		}
		c->passes[c->npasses++] = row;
	}
	return 0;
}

static int by_pid_time(const void *a, const void *b)
{
	const struct memtrace_pass *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Median time between consecutive passes of one pid (0: fewer than two);
 * sorts the passes by (pid, time). */
static uint64_t pass_period(struct rep_ctx *c)
{
	if (c->npasses)
		qsort(c->passes, c->npasses, sizeof(*c->passes), by_pid_time);
	if (c->npasses < 2)
		return 0;
	uint64_t *gap = mt_xmalloc(c->npasses * sizeof(*gap));
	size_t n = 0;
	for (size_t i = 1; i < c->npasses; i++)
		if (c->passes[i].pid == c->passes[i - 1].pid &&
		    c->passes[i].time > c->passes[i - 1].time)
			gap[n++] = c->passes[i].time - c->passes[i - 1].time;
	uint64_t med = 0;
	if (n) {
		qsort(gap, n, sizeof(*gap), cmp_u64);
		med = gap[n / 2];
	}
	free(gap);
	return med;
}

/* A source that sees only in passes: hint faults, DAMON (its HEADER event). */
static int pass_based(const char *event)
{
	return event && (!strcmp(event, "hint-faults") || !strcmp(event, "damon"));
}

int rep_blind_setup(struct rep_ctx *c, struct trace_reader *tr, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct memtrace_blind *b = &r->blind;
	const char *declared = trace_meta(tr, "passes");

	if (c->passes_chunk || (declared && *declared))
		b->state = MEMTRACE_BLIND_KNOWN;
	else if (pass_based(trace_meta(tr, "event")))
		b->state = MEMTRACE_BLIND_UNKNOWN;
	if (b->state == MEMTRACE_BLIND_NONE && c->ngaps) {
		/* a source that sees every window, but not while it had no target */
		b->state = MEMTRACE_BLIND_KNOWN;
		b->pass = "target";
		c->gaps_only = 1;
		return 0;
	}
	if (b->state != MEMTRACE_BLIND_KNOWN)
		return 0;
	b->lag = trace_meta_u64(tr, "pass_lag", 0, 0);
	b->passes = c->npasses;
	b->what = c->npasses ? c->passes[0].what : (uint32_t)strtoul(declared ? declared : "0",
									 NULL, 10);
	if (b->what == MEMTRACE_PASS_NUMA_SCAN_PARTIAL)	/* a kind of sweep, apart below */
		b->what = MEMTRACE_PASS_NUMA_SCAN;
	b->pass = pass_name(b->what);
	b->period = pass_period(c);
	/* the default window holds at least one pass period (rounded up to the
	 * default's multiple): a shorter one is blind between passes.  The
	 * period observed; fewer than two passes: the shortest the source
	 * allows (hint faults: scan_period_ms, the kernel's minimum; DAMON:
	 * its aggregation interval) */
	/* a NUMA scan sweep is seen whole only by a window of two periods */
	uint64_t period = b->what == MEMTRACE_PASS_NUMA_SCAN && b->period < UINT64_MAX / 2
				  ? 2 * b->period : b->period;
	if (!period && r->time_is_ns) {
		uint64_t ms = trace_meta_u64(tr, "scan_period_ms", 0, 0);
		uint64_t us = trace_meta_u64(tr, "damon_aggr_us", 0, 0);
		period = ms && ms < UINT64_MAX / 2000000 ? 2 * ms * 1000000
			 : us && us < UINT64_MAX / 1000 ? us * 1000 : 0;
	}
	if (c->window_asked || c->agg_interval || !period || period <= r->window)
		return 0;
	uint64_t unit = r->time_is_ns ? NS_DEFAULT_WINDOW : r->window;
	uint64_t w = period / unit * unit;
	if (w < period)
		w += unit;
	if (w < period)	/* wrapped */
		return 0;
	r->window = w;
	if (!c->interval_asked)
		r->interval = w;
	struct wss_config wc = c->data.cfg;
	wc.window = r->window;
	wc.interval = r->interval;
	wss_free(&c->data);
	wss_free(&c->code);
	if (wss_init(&c->data, &wc, err, errlen))
		return -1;
	if (wss_init(&c->code, &wc, err, errlen)) {
		wss_free(&c->data);
		return -1;
	}
	return 0;
}

struct krange { uint64_t lo, hi; };

static int by_lo(const void *a, const void *b)
{
	const struct krange *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/*
 * A NUMA scan sweep of one process: numa_scan_seq advances when the
 * scanner has reached the end of the address space (task_numa_work's
 * reset_ptenuma_scan), and a sweep of a large address space takes several
 * scan periods, so the process's pages were made inaccessible at unknown
 * times in (prev, p], the previous advance to this one, or in [begin, p]
 * where the sweep's start was seen (lag 0: its time is exact).  The reports
 * whose window holds that whole sweep (t_k - window <= begin - lag,
 * p <= t_k) saw every page marked and its next access in the window.
 */
static int sweep_range(const struct memtrace_report *r, uint64_t begin, uint64_t lag,
		       uint64_t p, uint64_t K, struct krange *out)
{
	uint64_t s = r->start_time, T = r->interval, tau = r->window;
	uint64_t from = begin > lag ? begin - lag : 0;
	uint64_t lo = 1, hi;

	if (p > s)	/* t_k >= p: ceil((p - s) / T) */
		lo = (p - s) / T + ((p - s) % T != 0);
	if (from > UINT64_MAX - tau)
		hi = K;
	else if (from + tau < s + T)
		return 0;
	else	/* t_k <= from + tau */
		hi = (from + tau - s) / T;
	if (hi > K)
		hi = K;
	if (lo < 1)
		lo = 1;
	if (lo > hi)
		return 0;
	*out = (struct krange){ lo, hi };
	return 1;
}

/* The reports k in [1, K] whose window a pass at p may lie in:
 * t_k >= p - lag and t_k - window < p, t_k = start + k T (DAMON
 * aggregations, accessed-bit passes: each reports what it saw since the
 * last one, at its end). */
static int seen_range(const struct memtrace_report *r, uint64_t p, uint64_t K, struct krange *out)
{
	uint64_t s = r->start_time, T = r->interval, tau = r->window;
	uint64_t from = p > r->blind.lag ? p - r->blind.lag : 0;
	uint64_t lo = 1, hi;

	if (from > s)	/* ceil((from - s) / T), without overflow */
		lo = (from - s) / T + ((from - s) % T != 0);

	if (p > UINT64_MAX - tau)
		hi = K;
	else if (p + tau <= s + T)
		return 0;
	else
		hi = (p + tau - s - 1) / T;
	if (hi > K)
		hi = K;
	if (lo < 1)
		lo = 1;
	if (lo > hi)
		return 0;
	*out = (struct krange){ lo, hi };
	return 1;
}

/* The rows of w with every k of the runs added (WSS 0, no counts). */
static void add_rows(struct wss *w, const uint64_t *first, const uint64_t *last, size_t nruns,
		     uint64_t blind)
{
	size_t cap = w->nrows + (size_t)blind, n = 0, i = 0;
	uint64_t *rows = mt_xmalloc((cap ? cap : 1) * sizeof(*rows));
	uint64_t *rowk = mt_xmalloc((cap ? cap : 1) * sizeof(*rowk));
	struct wss_row_counts *counts = w->counts ? mt_xcalloc(cap ? cap : 1, sizeof(*counts))
						  : NULL;

	for (size_t j = 0; j < nruns; j++) {
		for (uint64_t k = first[j]; k <= last[j]; k++) {
			for (; i < w->nrows && w->rowk[i] < k; i++, n++) {
				rows[n] = w->rows[i];
				rowk[n] = w->rowk[i];
				if (counts)
					counts[n] = w->counts[i];
			}
			if (i < w->nrows && w->rowk[i] == k)
				continue;	/* a row already: flagged, kept */
			rows[n] = 0;
			rowk[n] = k;
			if (counts)
				counts[n] = (struct wss_row_counts){ 0, 0, 0 };
			n++;
		}
	}
	for (; i < w->nrows; i++, n++) {
		rows[n] = w->rows[i];
		rowk[n] = w->rowk[i];
		if (counts)
			counts[n] = w->counts[i];
	}
	free(w->rows);
	free(w->rowk);
	free(w->counts);
	w->rows = rows;
	w->rowk = rowk;
	w->counts = counts;
	w->nrows = n;
	w->rows_cap = cap;
}

/* A NUMA scan sweep ended: whole or partial (trace.h). */
static bool numa_advance(uint32_t what)
{
	return what == MEMTRACE_PASS_NUMA_SCAN || what == MEMTRACE_PASS_NUMA_SCAN_PARTIAL;
}

/* The start of pid's sweep that ended at p: a NUMA_SWEEP_START row in
 * (prev, p] (any before p for pid's first advance: after = 0), or NULL. */
static const struct memtrace_pass *sweep_start(const struct rep_ctx *c, uint32_t pid,
					       int after, uint64_t prev, uint64_t p)
{
	size_t lo = 0, hi = c->nstarts;

	while (lo < hi) {	/* the first row past (pid, p) */
		size_t mid = lo + (hi - lo) / 2;
		const struct memtrace_pass *m = &c->starts[mid];
		if (m->pid < pid || (m->pid == pid && m->time <= p))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct memtrace_pass *st = &c->starts[lo - 1];
	if (st->pid != pid || (after && st->time <= prev))
		return NULL;
	return st;
}

int rep_blind_rows(struct rep_ctx *c, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct memtrace_blind *b = &r->blind;

	if (b->state != MEMTRACE_BLIND_KNOWN)
		return 0;
	/* every report up to the recording's end: one after the last sample too */
	uint64_t K = r->intervals, span = r->info.end_time > r->start_time
					      ? r->info.end_time - r->start_time : 0;
	uint64_t kend = span / r->interval + (span % r->interval ? 1 : 0);
	if (kend > K)
		K = kend;
	struct krange *seen = mt_xmalloc((c->npasses ? c->npasses : 1) * sizeof(*seen));
	size_t ns = 0;
	if (c->nstarts)
		qsort(c->starts, c->nstarts, sizeof(*c->starts), by_pid_time);
	/* a region of shmem under hint faults: NUMA scanning skips shared
	 * anonymous memory (without an MPOL_MF_MOF policy, which no server
	 * sets: vma_policy_mof), so no sweep saw it and every window is blind */
	size_t npasses = c->npasses;
	if (c->filt.region_shmem && b->what == MEMTRACE_PASS_NUMA_SCAN) {
		npasses = 0;
		b->pass = "NUMA scan of its shared memory (hint faults never scan shared "
			  "anonymous memory)";
	}
	if (c->gaps_only && K) {	/* every window seen but those of the gaps (below) */
		seen[ns++] = (struct krange){ 1, K };
		npasses = 0;
	}
	for (size_t i = 0; i < npasses; i++) {	/* sorted by (pid, time) */
		const struct memtrace_pass *p = &c->passes[i];
		if (!numa_advance(p->what)) {
			ns += seen_range(r, p->time, K, &seen[ns]);
			continue;
		}
		if (p->what == MEMTRACE_PASS_NUMA_SCAN_PARTIAL)	/* ends a sweep, sees nothing */
			continue;
		int after = i && c->passes[i - 1].pid == p->pid && numa_advance(c->passes[i - 1].what);
		uint64_t prev = after ? c->passes[i - 1].time : 0;
		const struct memtrace_pass *st = sweep_start(c, p->pid, after, prev, p->time);
		if (st)		/* seen: the sweep lay in [start, p] */
			ns += sweep_range(r, st->time, 0, p->time, K, &seen[ns]);
		else if (after)
			ns += sweep_range(r, prev, r->blind.lag, p->time, K, &seen[ns]);
	}
	qsort(seen, ns, sizeof(*seen), by_lo);
	/* the complement of the seen ranges in [1, K], and the windows of the
	 * gaps (no target): the blind runs */
	uint64_t *glo, *ghi;
	size_t ng = rep_gaps_ranges(c, K, &glo, &ghi);
	struct krange *bl = mt_xmalloc((ns + 1 + ng) * sizeof(*bl));
	size_t nb = 0;
	uint64_t next = 1, blind = 0;	/* first k not known seen */
	for (size_t i = 0; i <= ns; i++) {
		uint64_t lo = i < ns ? seen[i].lo : K + 1;
		if (lo > next)
			bl[nb++] = (struct krange){ next, lo - 1 };
		if (i < ns && seen[i].hi + 1 > next)
			next = seen[i].hi + 1;
	}
	for (size_t i = 0; i < ng; i++)
		bl[nb++] = (struct krange){ glo[i], ghi[i] };
	free(glo);
	free(ghi);
	free(seen);
	qsort(bl, nb, sizeof(*bl), by_lo);
	uint64_t *first = rep_alloc(c, (nb + 1) * sizeof(uint64_t));
	uint64_t *last = rep_alloc(c, (nb + 1) * sizeof(uint64_t));
	size_t runs = 0;
	for (size_t i = 0; i < nb; i++) {	/* merged where they overlap or touch */
		if (runs && bl[i].lo <= last[runs - 1] + 1) {
			if (bl[i].hi > last[runs - 1])
				last[runs - 1] = bl[i].hi;
			continue;
		}
		first[runs] = bl[i].lo;
		last[runs] = bl[i].hi;
		runs++;
	}
	free(bl);
	for (size_t i = 0; i < runs; i++)
		blind += last[i] - first[i] + 1;
	if (blind > WSS_MAX_ROWS || c->data.nrows + blind > WSS_MAX_ROWS) {
		snprintf(err, errlen, "the series would hold more than %llu rows with the blind "
			 "windows (%llu of %llu intervals saw no %s): use a larger --interval",
			 WSS_MAX_ROWS, (unsigned long long)blind, (unsigned long long)K, b->pass);
		return -1;
	}
	b->intervals = blind;
	b->nruns = runs;
	b->first = first;
	b->last = last;
	r->intervals = K;
	add_rows(&c->data, first, last, runs, blind);
	add_rows(&c->code, first, last, runs, blind);
	return 0;
}

/* 1 when report k lies in a blind run (binary search). */
static int is_blind(const struct memtrace_blind *b, uint64_t k)
{
	size_t lo = 0, hi = b->nruns;

	while (lo < hi) {	/* first run with last >= k */
		size_t mid = lo + (hi - lo) / 2;
		if (b->last[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nruns && b->first[lo] <= k;
}

int rep_blind_at(const struct memtrace_report *r, uint64_t k)
{
	return r->blind.state == MEMTRACE_BLIND_KNOWN && is_blind(&r->blind, k);
}

static const unsigned char *series_flags(struct rep_ctx *c, struct memtrace_series *s)
{
	const struct memtrace_report *r = c->r;
	unsigned char *f = rep_alloc(c, s->n ? s->n : 1);
	double sum = 0;

	s->peak = 0;
	for (size_t i = 0; i < s->n; i++) {
		f[i] = (unsigned char)is_blind(&r->blind, s->time[i] / r->interval);
		if (f[i])
			continue;
		sum += (double)s->wss[i];
		if (s->wss[i] > s->peak)
			s->peak = s->wss[i];
	}
	/* the mean and the peak over the windows seen: a blind one is not a 0 */
	uint64_t seen = r->intervals - r->blind.intervals;
	s->avg = seen ? sum / (double)seen : 0;
	return f;
}

/* The estimate's means over the windows seen, as the series' (rows of s). */
static void estimate_means(const struct memtrace_report *r, struct memtrace_estimate *e,
			   const unsigned char *blind, size_t n)
{
	uint64_t seen = r->intervals - r->blind.intervals;
	double a = 0, lo = 0, hi = 0;

	for (size_t i = 0; i < n; i++)
		if (!blind[i]) {
			a += e->est[i];
			lo += e->lo[i];
			hi += e->hi[i];
		}
	e->avg = seen ? a / (double)seen : 0;
	e->avg_lo = seen ? lo / (double)seen : 0;
	e->avg_hi = seen ? hi / (double)seen : 0;
}

void rep_fill_blind(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;

	if (r->blind.state != MEMTRACE_BLIND_KNOWN)
		return;
	r->data_blind = series_flags(c, &r->data);
	r->code_blind = series_flags(c, &r->code);
	estimate_means(r, &r->data_est, r->data_blind, r->data.n);
	estimate_means(r, &r->code_est, r->code_blind, r->code.n);
}
