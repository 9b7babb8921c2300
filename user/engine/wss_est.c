/* wss_est.c - Chao1 (Bernoulli sampling) estimates of the working-set size. */
#include "engine/wss_est.h"

#include <math.h>

/* FEW_SAMPLES and MOSTLY_UNSEEN of an estimate est from n samples, S seen */
static unsigned est_flags(double est, double S, uint64_t samples)
{
	double n = (double)samples;
	unsigned f = 0;

	if (samples < WSS_EST_MIN_SAMPLES || n < est)
		f |= WSS_EST_FEW_SAMPLES;
	if (est > WSS_EST_MAX_RATIO * S ||
	    (est > WSS_EST_TAIL_UNSEEN * S && n > WSS_EST_TAIL_PER_BUCKET * S))
		f |= WSS_EST_MOSTLY_UNSEEN;
	return f;
}

struct wss_est wss_est_one(uint64_t seen, uint64_t samples, uint64_t f1, uint64_t f2,
			   uint64_t F1, uint64_t F2, double period)
{
	struct wss_est e = { (double)seen, (double)seen, (double)seen, 0 };

	if (period <= 1.0)
		return e;	/* every access recorded: S is the answer */
	if (samples < WSS_EST_MIN_SAMPLES)
		e.flags |= WSS_EST_FEW_SAMPLES;
	if (!f1 || F1 < f1)
		return e;
	double x = (double)f1, X = (double)F1, Y = (double)F2, fin = 1.0 / (period - 1.0);
	double D = 2.0 * (Y + 1.0) + X * fin;
	double r = X > 1.0 ? (X - 1.0) / D : 0.0;	/* unseen per singleton */
	double f0 = x * r;
	/* delta method, f_k Poisson; f1 is part of F1 */
	double r1 = 1.0 / D - (X > 1.0 ? (X - 1.0) * fin / (D * D) : 0.0);
	double r2 = X > 1.0 ? -2.0 * (X - 1.0) / (D * D) : 0.0;
	double var = (r + x * r1) * (r + x * r1) * x + (x * r1) * (x * r1) * (X - x) +
		     (x * r2) * (x * r2) * Y;
	/* and the unseen count itself varies around its mean: the interval is
	 * for the true size, not for the mean of the estimator */
	var += f0 * (1.0 - f0 / ((double)seen + f0));
	/* and the bias of pooling: how far the window's own ratio lies from it */
	double Dw = 2.0 * ((double)f2 + 1.0) + x * fin;
	double f0w = x > 1.0 ? x * (x - 1.0) / Dw : 0.0;
	var += (f0w - f0) * (f0w - f0);

	e.est = (double)seen + f0;
	/* the unseen count is a whole number: bounds rounded outwards (a window
	 * whose every bucket was seen is inside the interval) */
	if (f0 > 1e-9) {
		double K = exp(1.96 * sqrt(log(1.0 + var / (f0 * f0))));
		e.lo = (double)seen + floor(f0 / K);
		e.hi = (double)seen + ceil(f0 * K);
	} else {
		e.hi = (double)seen + ceil(1.96 * sqrt(var));
	}
	e.flags |= est_flags(e.est, (double)seen, samples);
	return e;
}

void wss_est_series(const uint64_t *seen, const uint64_t *rowk,
		    const struct wss_row_counts *counts, size_t n, uint64_t stride, double period,
		    struct wss_est *out)
{
	static const struct wss_row_counts none;
	size_t at[WSS_EST_POOL] = { 0 };	/* per pooled window: first row with k >= k_i - p stride */

	if (!stride)
		stride = 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t F1 = 0, F2 = 0, k = rowk ? rowk[i] : i + 1;
		const struct wss_row_counts *ci = counts ? &counts[i] : &none;
		for (uint64_t p = 0; p < WSS_EST_POOL && p * stride < k; p++) {
			uint64_t want = k - p * stride;	/* rows missing from a sparse series: 0 */
			size_t j = at[p];
			while (j < i && (rowk ? rowk[j] : j + 1) < want)
				j++;
			at[p] = j;
			if ((rowk ? rowk[j] : j + 1) == want && counts) {
				F1 += counts[j].f1;
				F2 += counts[j].f2;
			}
		}
		out[i] = wss_est_one(seen[i], ci->samples, ci->f1, ci->f2, F1, F2, period);
	}
}

struct total_counts {
	uint64_t seen, samples, f1, f2;
};

static void count_bucket(void *ctx, uint64_t bucket, const struct bucket_entry *e)
{
	struct total_counts *t = ctx;

	(void)bucket;
	t->seen++;
	t->samples += e->count;
	t->f1 += e->count == 1;
	t->f2 += e->count == 2;
}

struct wss_est wss_est_total(const struct bucket_map *m, double period, uint64_t *seen)
{
	struct total_counts t = { 0 };

	bucket_map_foreach(m, count_bucket, &t);
	*seen = t.seen;
	return wss_est_one(t.seen, t.samples, t.f1, t.f2, t.f1, t.f2, period);
}

double wss_est_homogeneity(uint64_t f1, uint64_t f2, uint64_t f3)
{
	if (!f1 || !f3)
		return 1.0;
	double h = (double)f2 * (double)f2 / (1.5 * (double)f1 * (double)f3);
	return h < 1.0 ? h : 1.0;
}

struct wss_est wss_est_refine(struct wss_est e, uint64_t seen, uint64_t samples, uint64_t gap,
			      double homog, uint64_t ips, int fixed_period, double period)
{
	if (period <= 1.0)
		return e;
	double S = (double)seen, w = samples ? WSS_EST_GAP_K * S / (double)samples : 1.0;
	double add = (double)gap * (w < 1.0 ? w : 1.0);
	double f0 = e.est - S;
	double big = f0 > add ? f0 : add, small = f0 > add ? add : f0;
	/* how much of the smaller counts beside the larger (wss_est.h): all of
	 * it where the gaps outnumber Chao1's unseen (Chao1 is short there),
	 * none with a fixed period (its counts are not Poisson: a scan's
	 * singletons and gaps are the same pages), else 1 - H */
	double keep = fixed_period ? 0.0 : add > f0 ? 1.0 : 1.0 - homog;

	e.est = S + big + small * keep;
	double hi = ceil(e.est * WSS_EST_HI_RATIO);
	e.hi = e.hi + ceil(add) > hi ? e.hi + ceil(add) : hi;
	e.lo = S;
	e.flags &= ~(WSS_EST_FEW_SAMPLES | WSS_EST_MOSTLY_UNSEEN);
	e.flags |= est_flags(e.est, S, samples);
	if (fixed_period && ips && ips <= WSS_EST_ALIAS_IPS && samples >= WSS_EST_MIN_SAMPLES)
		e.flags |= WSS_EST_ALIASED;
	return e;
}

unsigned wss_est_tail_flag(uint64_t samples, uint64_t tail, double period)
{
	return period > 1.0 && samples && (double)tail > WSS_EST_TAIL_SHARE * (double)samples
		       ? WSS_EST_TAIL_INSNS
		       : 0;
}

unsigned wss_est_round_period(int fixed_period, double period)
{
	static const unsigned small[] = { 2, 3, 5, 7 };

	if (!fixed_period || period <= 1.0 || period != floor(period) || period > 1e15)
		return 0;
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		if ((uint64_t)period % small[i] == 0)
			return WSS_EST_ROUND_PERIOD;
	return 0;
}
