/* heatmap.c - binning samples into a heatmap (include/memtrace/heatmap.h). */
#include "memtrace/heatmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/search.h"

#define EMPTY UINT64_MAX	/* hash slot marker (the value itself is kept apart) */

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	return v ^ (v >> 33);
}

/* A set of distinct values; runs of equal values (most of a trace) cost one compare. */
size_t memtrace_bin_granules(const uint64_t *addr, size_t n, unsigned shift, uint64_t *out)
{
	size_t cap = 1024, used = 0, k = 0;
	uint64_t *set = mt_xmalloc(cap * sizeof(*set)), last = 0;
	int have_last = 0, have_max = 0;

	memset(set, 0xff, cap * sizeof(*set));
	for (size_t i = 0; i < n; i++) {
		uint64_t g = addr[i] >> shift;
		if (have_last && g == last)
			continue;
		have_last = 1;
		last = g;
		if (g == EMPTY) {
			have_max = 1;
			continue;
		}
		size_t j = mix(g) & (cap - 1);
		while (set[j] != EMPTY && set[j] != g)
			j = (j + 1) & (cap - 1);
		if (set[j] == g)
			continue;
		set[j] = g;
		if (++used * 2 <= cap)
			continue;
		size_t ncap = 2 * cap;	/* grow: reinsert */
		uint64_t *nset = mt_xmalloc(ncap * sizeof(*nset));
		memset(nset, 0xff, ncap * sizeof(*nset));
		for (size_t m = 0; m < cap; m++) {
			if (set[m] == EMPTY)
				continue;
			size_t q = mix(set[m]) & (ncap - 1);
			while (nset[q] != EMPTY)
				q = (q + 1) & (ncap - 1);
			nset[q] = set[m];
		}
		free(set);
		set = nset;
		cap = ncap;
	}
	for (size_t m = 0; m < cap; m++)
		if (set[m] != EMPTY)
			out[k++] = set[m];
	free(set);
	qsort(out, k, sizeof(*out), by_u64);
	if (have_max)
		out[k++] = EMPTY;
	return k;
}

/* Last range k with lo[k] <= a (0 when none). */
static size_t range_of(const struct memtrace_bin_axis *ax, uint64_t a)
{
	size_t lo = 0, hi = ax->nranges;

	/* first range with lo > a */
	MT_PARTITION_POINT(lo, hi, mid, ax->lo[mid] <= a);
	return lo ? lo - 1 : 0;
}

static int64_t row_of(const struct memtrace_bin_axis *ax, uint64_t a, int check, size_t *last)
{
	size_t k = *last;

	/* samples come in runs within one range: try the last one first */
	if (!(a >= ax->lo[k] && (k + 1 == ax->nranges || a < ax->lo[k + 1])))
		k = *last = range_of(ax, a);
	int64_t row = (int64_t)((a >> ax->shift) - (ax->lo[k] >> ax->shift) +
				(uint64_t)ax->row0[k]);
	if (check && (a < ax->lo[0] || row >= ax->row0[k + 1]))
		return -1;
	return row;
}

struct time_bins {
	uint64_t t0, span;
	size_t ncols;
	int exact;		/* span * ncols < 2^62: integer arithmetic */
	double scale;
};

static void time_bins_init(struct time_bins *b, uint64_t t0, uint64_t t1, size_t ncols)
{
	b->t0 = t0;
	b->span = t1 > t0 ? t1 - t0 : 1;
	b->ncols = ncols;
	b->exact = ncols && b->span < (1ull << 62) / ncols;
	b->scale = (double)ncols / (double)b->span;
}

static int64_t col_of(const struct time_bins *b, uint64_t time)
{
	/* unsigned: a time 2^63 or more after t0 is not "before t0" */
	if (time < b->t0 || time - b->t0 > b->span)
		return -1;
	uint64_t t = time - b->t0;
	if (t == b->span)
		return (int64_t)b->ncols - 1;
	if (b->exact)
		return (int64_t)(t * b->ncols / b->span);
#ifdef __SIZEOF_INT128__
	return (int64_t)((unsigned __int128)t * b->ncols / b->span);
#else
	int64_t c = (int64_t)floor((double)t * b->scale);
	return c >= (int64_t)b->ncols ? (int64_t)b->ncols - 1 : c;	/* t < span: rounding */
#endif
}

void memtrace_bin_rows(const struct memtrace_bin_axis *ax, const uint64_t *addr, size_t n,
		       int check, int64_t *rows)
{
	size_t last = 0;

	for (size_t i = 0; i < n; i++)
		rows[i] = ax->nranges ? row_of(ax, addr[i], check, &last) : -1;
}

void memtrace_bin_times(const uint64_t *time, size_t n, uint64_t t0, uint64_t t1, size_t ncols,
			int64_t *cols)
{
	struct time_bins b;

	time_bins_init(&b, t0, t1, ncols);
	for (size_t i = 0; i < n; i++)
		cols[i] = col_of(&b, time[i]);
}

void memtrace_bin_count2d(const int64_t *rows, const int64_t *cols, size_t n, size_t nrows,
			  size_t ncols, int64_t *counts)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i] >= 0 && cols[i] >= 0 && (uint64_t)rows[i] < nrows &&
		    (uint64_t)cols[i] < ncols)
			counts[(size_t)rows[i] * ncols + (size_t)cols[i]]++;
}

size_t memtrace_bin_heatmap(const struct memtrace_bin_axis *ax, const uint64_t *addr,
			    const uint64_t *time, size_t n, int check, uint64_t t0, uint64_t t1,
			    size_t ncols, int64_t *counts)
{
	struct time_bins b;
	size_t last = 0, counted = 0;

	if (!ax->nranges || !ncols)
		return 0;
	uint64_t nrows = (uint64_t)ax->row0[ax->nranges];
	time_bins_init(&b, t0, t1, ncols);
	for (size_t i = 0; i < n; i++) {
		int64_t row = row_of(ax, addr[i], check, &last), col = col_of(&b, time[i]);
		if (row < 0 || col < 0 || (uint64_t)row >= nrows)
			continue;
		counts[(size_t)row * ncols + (size_t)col]++;
		counted++;
	}
	return counted;
}
