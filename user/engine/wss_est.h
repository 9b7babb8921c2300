/* wss_est.h - the working-set size a sampled stream did not see.
 *
 * With one access in N sampled, a window's distinct buckets seen S is far
 * below the truth when the window holds few samples per bucket.  From the
 * row counts of engine/wss.h (S, samples n, f1, f2 = buckets seen exactly
 * once, twice) this estimates the unseen ones with the bias-corrected Chao1
 * estimator for Bernoulli sampling with fraction q = 1/N (Chao & Lin 2012,
 * the q/(1-q) = 1/(N-1) term keeps f0 <= f1 (N-1)):
 *
 *   f0 = f1 * max(F1 - 1, 0) / (2 (F2 + 1) + F1 / (N - 1))
 *
 * with F1, F2 the sums of f1, f2 over the row and the rows of the 4
 * non-overlapping windows before it (the unseen-per-singleton ratio varies
 * slowly; pooling makes it less noisy), estimate = S + f0.  The interval is
 * Chao's log-normal 95 % interval around it with a delta-method variance.
 * docs/accuracy.md has the method and the measured errors.
 *
 * A row is reliable when none of the flags below (and of wss_est_refine and
 * the report) is set.  FEW_SAMPLES: n < WSS_EST_MIN_SAMPLES, or fewer
 * samples than estimated buckets (n < estimate): no estimator recovers a
 * window with fewer samples than buckets.  MOSTLY_UNSEEN: estimate >
 * WSS_EST_MAX_RATIO S, or estimate > WSS_EST_TAIL_UNSEEN S although the
 * window holds more than WSS_EST_TAIL_PER_BUCKET samples per seen bucket
 * (many samples and still many buckets unseen: a long tail, where Chao1
 * is far off either way).  On the fixtures' training seeds the number of
 * samples separates the good estimates from the bad ones better than the
 * share unseen does (docs/accuracy.md has the fit).
 * N <= 1 (every access recorded): estimate = S exactly, always reliable.
 */
#ifndef MEMTRACE_ENGINE_WSS_EST_H
#define MEMTRACE_ENGINE_WSS_EST_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bucket_map.h"
#include "engine/wss.h"

#define WSS_EST_POOL		5	/* windows pooled: the row and 4 before it */
#define WSS_EST_MIN_SAMPLES	200	/* fewer samples in a window: unreliable */
#define WSS_EST_MAX_RATIO	3.0	/* estimate > this x S: unreliable */
#define WSS_EST_TAIL_UNSEEN	1.5	/* estimate > this x S ... */
#define WSS_EST_TAIL_PER_BUCKET	10.0	/* ... and n > this x S: unreliable */

/* Reasons a row is unreliable (bits of wss_est.flags). */
#define WSS_EST_FEW_SAMPLES	(1u << 0)	/* n < WSS_EST_MIN_SAMPLES or n < estimate */
#define WSS_EST_MOSTLY_UNSEEN	(1u << 1)	/* estimate > 3 S, or > 1.5 S with n > 10 S */
#define WSS_EST_ALIASED		(1u << 3)	/* fixed period, samples from <= 4 instructions */
#define WSS_EST_RUN_TAIL	(1u << 4)	/* whole-run estimate > 2 x whole-run seen */
#define WSS_EST_TAIL_INSNS	(1u << 5)	/* > 5 % of the samples from tail instructions */
#define WSS_EST_ROUND_PERIOD	(1u << 6)	/* fixed period with a factor 2, 3, 5 or 7 */

/*
 * The refinement of engine/wss_spatial.h's features (docs/accuracy.md has
 * the measurements the constants come from, on the fixtures' training
 * seeds; another seed is held out):
 *
 * - gap buckets g (unseen, between seen ones, hit elsewhere in the stream)
 *   count with weight min(1, WSS_EST_GAP_K S / n): a window with many
 *   samples per seen bucket would have seen a used bucket, so its gaps are
 *   holes; one with few samples per bucket has missed them;
 * - they and Chao1's unseen f0 may be the same buckets.  Where the gaps
 *   are more than f0, Chao1 is short of buckets the stream shows exist (a
 *   tail of rarely touched ones it cannot see): both are added.  Where
 *   they are fewer, the window's sample counts decide: if they look like
 *   one population, Chao1 already counts the unseen ones between the seen;
 *   if they look like a mixture of rates it misses rarely touched ones the
 *   gaps find.  The homogeneity H = min(1, f2^2 / (1.5 f1 f3)) of the
 *   window's f1, f2, f3 (1 for Poisson counts of one rate, below 1 for a
 *   mixture: k! f_k of a Poisson mixture is log-convex) weighs the overlap:
 *       estimate = S + f0 + g w                     where g w > f0
 *       estimate = S + f0 + g w (1 - H)             elsewhere
 *       estimate = S + max(f0, g w)     with a fixed period (its counts
 *                                       are not Poisson: a scan's evenly
 *                                       spaced samples make its unseen
 *                                       pages singletons' neighbours and
 *                                       gaps at once)
 *   (docs/accuracy.md has what each variant did on the fixtures);
 * - the interval is [S, max(Chao's upper bound + the gap part,
 *   WSS_EST_HI_RATIO x estimate)]: S is certain, and the measured 97th
 *   percentile of exact / estimate on the reliable training windows is
 *   1.93 with the overlap above (Chao's interval alone covered 23-76 %: it
 *   knows only the counting noise, not the bias);
 * - with a fixed sampling period (PEBS, IBS, --fixed-period) and
 *   instruction pointers, a window of >= WSS_EST_MIN_SAMPLES samples from at
 *   most WSS_EST_ALIAS_IPS distinct instructions is flagged ALIASED: a
 *   period that is a multiple of a loop's accesses per iteration samples
 *   the same few of them every pass, the rest of the loop's pages never (a
 *   one-instruction loop is flagged too: the trace cannot tell them apart).
 */
#define WSS_EST_GAP_K		16.0
#define WSS_EST_HI_RATIO	1.95
#define WSS_EST_ALIAS_IPS	4
/*
 * The whole run's estimate (wss_est_total) above WSS_EST_TAIL_RATIO x the
 * buckets it saw: most of the run's buckets were never sampled, a long tail
 * of rarely touched buckets (a Zipf key space at N = 1000: each window's
 * samples fall on a dozen hot buckets and look well covered while the tail
 * leaves no singletons there).  Every window of such a run is flagged
 * RUN_TAIL (measured: Zipf 4.5, uniform 30 at N = 1000; the programs
 * 1.07-1.35).
 */
#define WSS_EST_TAIL_RATIO	2.0
/*
 * More than this share of a window's samples from tail instructions
 * (engine/wss_spatial.h): TAIL_INSNS (measured at N = 1000, share of the
 * windows above it: btree 100 %, kvstore 100 %; dbquery 0 %, sqlite3 0 %,
 * sort 14 %, pageramp 0 %).
 */
#define WSS_EST_TAIL_SHARE	0.05

struct wss_est {
	double est;		/* S + f0 */
	double lo, hi;		/* interval, lo >= S (wss_est_refine: lo = S) */
	unsigned flags;		/* 0: reliable */
};

/* One estimate from counts (F1, F2: the pooled sums, >= f1, f2). */
struct wss_est wss_est_one(uint64_t seen, uint64_t samples, uint64_t f1, uint64_t f2,
			   uint64_t F1, uint64_t F2, double period);

/*
 * Estimates of every row: seen[i], rowk[i] (report index, ascending; NULL:
 * i + 1, dense), counts[i] (NULL: all 0) as wss.h stores them, pooled over
 * the reports k, k - stride, ..., k - 4 stride (stride = ceil(window /
 * interval): non-overlapping windows; a report missing from a sparse series
 * adds 0).  period: the mean sampling period N.
 */
void wss_est_series(const uint64_t *seen, const uint64_t *rowk,
		    const struct wss_row_counts *counts, size_t n, uint64_t stride, double period,
		    struct wss_est *out);

/* H of the buckets seen once, twice and three times in a window (above). */
double wss_est_homogeneity(uint64_t f1, uint64_t f2, uint64_t f3);

/* e (wss_est_one's) refined with a window's gap buckets, the homogeneity
 * of its counts (wss_est_homogeneity) and distinct instructions (ips 0:
 * unknown, not checked); fixed_period: the trace's sampling period is
 * fixed (aliasing possible). */
struct wss_est wss_est_refine(struct wss_est e, uint64_t seen, uint64_t samples, uint64_t gap,
			      double homog, uint64_t ips, int fixed_period, double period);

/*
 * ROUND_PERIOD for a fixed period N with a factor 2, 3, 5 or 7 (period > 1):
 * a loop of k accesses per iteration is sampled at k / gcd(k, N) of its
 * slots only, and partial aliasing does not show in the window's counts
 * (measured with N = 100, 1000: sort and pageramp fixed periods read 30 %
 * below their random-period twins with windows that pass every other
 * check; the prime N = 997 does not alias with short loops).
 */
unsigned wss_est_round_period(int fixed_period, double period);

/* TAIL_INSNS when more than WSS_EST_TAIL_SHARE of samples came from tail
 * instructions (period > 1 only). */
unsigned wss_est_tail_flag(uint64_t samples, uint64_t tail, double period);

/* The whole-stream estimate from every bucket's sample count (no pooling);
 * *seen gets the buckets seen. */
struct wss_est wss_est_total(const struct bucket_map *m, double period, uint64_t *seen);

#endif
