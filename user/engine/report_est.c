/* report_est.c - the estimated working-set series of a report
 * (struct memtrace_estimate): engine/wss_est.h per row, summaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "engine/wss_est.h"
#include "util/util.h"

_Static_assert(MEMTRACE_EST_FEW_SAMPLES == WSS_EST_FEW_SAMPLES, "flag values");
_Static_assert(MEMTRACE_EST_MOSTLY_UNSEEN == WSS_EST_MOSTLY_UNSEEN, "flag values");
_Static_assert(MEMTRACE_EST_ALIASED == WSS_EST_ALIASED, "flag values");
_Static_assert(MEMTRACE_EST_RUN_TAIL == WSS_EST_RUN_TAIL, "flag values");
_Static_assert(MEMTRACE_EST_TAIL_INSNS == WSS_EST_TAIL_INSNS, "flag values");
_Static_assert(MEMTRACE_EST_ROUND_PERIOD == WSS_EST_ROUND_PERIOD, "flag values");
_Static_assert(MEMTRACE_EST_MIN_SAMPLES == WSS_EST_MIN_SAMPLES, "the public threshold");

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The i-th smallest of v[0..n), i < n; sorts v. */
static double nth(double *v, size_t n, size_t i)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[i];
}

/* The trace's sampling period is fixed (random_period=0 in its header). */
static int fixed_period(const struct memtrace_report *r)
{
	char buf[8];

	return r->meta && mt_kv_str(r->meta, "random_period", buf, sizeof(buf)) && !strcmp(buf, "0");
}

void rep_fill_estimate(struct rep_ctx *c, struct memtrace_estimate *out, const struct wss *w,
		       const struct wss_spatial *sp, double period)
{
	size_t n = w->nrows, alloc = n ? n : 1;
	uint64_t *samples = rep_alloc(c, alloc * sizeof(uint64_t));
	uint64_t *f1 = rep_alloc(c, alloc * sizeof(uint64_t));
	uint64_t *f2 = rep_alloc(c, alloc * sizeof(uint64_t));
	double *est = rep_alloc(c, alloc * sizeof(double));
	double *lo = rep_alloc(c, alloc * sizeof(double));
	double *hi = rep_alloc(c, alloc * sizeof(double));
	unsigned *flags = rep_alloc(c, alloc * sizeof(unsigned));
	struct wss_est *e = mt_xcalloc(alloc, sizeof(*e));
	/* non-overlapping windows: ceil(window / interval) rows apart */
	uint64_t stride = (w->cfg.window + w->cfg.interval - 1) / w->cfg.interval;

	uint64_t all = wss_intervals(w);	/* every report: those not stored are 0 */
	if (all < n)	/* blind rows after the last sample (report_blind.c) */
		all = n;
	uint64_t gaps = all > n ? all - n : 0;
	/* a gap's row: nothing seen, no samples (engine/wss_est.h) */
	struct wss_est gap = wss_est_one(0, 0, 0, 0, 0, 0, period);
	int fixed_hdr = fixed_period(c->r);

	if (!w->counts_ok && w->cfg.counts && period > 1.0)
		gap.flags |= MEMTRACE_EST_NOT_COUNTED;
	wss_est_series(w->rows, w->rowk, w->counts, n, stride, period, e);
	if (sp && w->counts && period > 1.0 && n) {
		/* the gap buckets and instructions of each window (engine/wss_spatial.h) */
		struct wss_spatial_row *sr = mt_xcalloc(n, sizeof(*sr));
		if (!wss_spatial_rows(sp, &w->cfg, w->rowk, n, sr))
			for (size_t i = 0; i < n; i++) {
				e[i] = wss_est_refine(e[i], w->rows[i], w->counts[i].samples, sr[i].gap,
						      wss_est_homogeneity(sr[i].f1, sr[i].f2, sr[i].f3),
						      sr[i].ips, fixed_hdr, period);
				e[i].flags |= wss_est_tail_flag(w->counts[i].samples, sr[i].tail, period);
			}
		else	/* too many samples kept: Chao1 alone, which the fixtures did not calibrate */
			for (size_t i = 0; i < n; i++)
				e[i].flags |= MEMTRACE_EST_NOT_REFINED;
		free(sr);
	}
	uint64_t seen;
	struct wss_est t = wss_est_total(&w->map, period, &seen);
	unsigned tail = period > 1.0 && t.est > WSS_EST_TAIL_RATIO * (double)seen ? WSS_EST_RUN_TAIL : 0;
	/* from the header alone: also where the samples were too many to keep */
	unsigned round = wss_est_round_period(fixed_hdr, period);
	for (size_t i = 0; i < n; i++)
		e[i].flags |= tail | round;
	out->period = period;
	out->unreliable = 0;
	out->avg = out->avg_lo = out->avg_hi = out->peak = out->p95 = 0;
	for (size_t i = 0; i < n; i++) {
		if (w->counts) {
			samples[i] = w->counts[i].samples;
			f1[i] = w->counts[i].f1;
			f2[i] = w->counts[i].f2;
		}
		est[i] = e[i].est;
		lo[i] = e[i].lo;
		hi[i] = e[i].hi;
		flags[i] = e[i].flags;
		if (!w->counts_ok && w->cfg.counts && period > 1.0)
			flags[i] = e[i].flags |= MEMTRACE_EST_NOT_COUNTED;
		out->unreliable += !!e[i].flags;
		out->avg += e[i].est;
		out->avg_lo += e[i].lo;
		out->avg_hi += e[i].hi;
		if (e[i].est > out->peak)
			out->peak = e[i].est;
	}
	if (gaps && gap.flags)
		out->unreliable += gaps;
	if (n) {
		out->avg /= (double)all;
		out->avg_lo /= (double)all;
		out->avg_hi /= (double)all;
		double *v = mt_xcalloc(n, sizeof(double));
		for (size_t i = 0; i < n; i++)
			v[i] = est[i];
		/* the nearest rank among every report; the gaps' 0s rank first */
		uint64_t rank = (uint64_t)(0.95 * (double)all);
		rank = rank < all ? rank : all - 1;
		out->p95 = rank < gaps ? 0 : nth(v, n, (size_t)(rank - gaps));
		free(v);
	}
	free(e);
	out->samples = samples;
	out->f1 = f1;
	out->f2 = f2;
	out->est = est;
	out->lo = lo;
	out->hi = hi;
	out->flags = flags;
	out->total = t.est;
	out->total_lo = t.lo;
	out->total_hi = t.hi;
	out->total_flags = t.flags;
}

/* N of the report's samples: the trace's sample_period, 1 where every
 * event is recorded or a sample is a first touch (not a sampled access). */
double rep_sample_period(const struct memtrace_report *r)
{
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);

	if (!strcmp(w->sample_class, "first-touch") || r->info.sample_period < 1)
		return 1.0;
	return (double)r->info.sample_period;
}

static int counts_differ(uint64_t a, uint64_t b)
{
	double d = (double)a - (double)b;

	return d * d >= 1.96 * 1.96 * ((double)a + (double)b) && a != b;
}

size_t memtrace_rank_ties(const struct memtrace_hot_bucket *hot, size_t n, size_t i)
{
	size_t ties = 0;

	if (i >= n)
		return 0;
	/* counts descend: the ties are a run around i */
	for (size_t j = i; j > 0 && !counts_differ(hot[i].count, hot[j - 1].count); j--)
		ties++;
	for (size_t j = i + 1; j < n && !counts_differ(hot[i].count, hot[j].count); j++)
		ties++;
	return ties;
}
