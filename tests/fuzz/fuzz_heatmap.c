/*
 * fuzz_heatmap.c - heatmap binning (include/memtrace/heatmap.h):
 * memtrace_bin_granules, _rows, _times, _count2d and _heatmap on an axis
 * built as memtrace-analyze builds it (binning.py: occupied granules,
 * merged over small gaps, aligned to the row size), every other range
 * dropped when checking, so addresses outside the axis occur.  Each result
 * is checked against a plain recomputation here: granules sorted, distinct,
 * each one some address's; rows by a linear scan of the ranges; columns by
 * 128-bit arithmetic; count2d and the one-pass heatmap equal each other
 * and count what both say is inside.
 * Input: 24 bytes (shift, ncols, flags, gap, 4 unused, t0, t1) and then
 * 16-byte (address, time) pairs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/heatmap.h"

#define MAX_ROWS 4096
#define MAX_COLS 64

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 24)
		return 0;
	unsigned shift = data[0] % 64, gshift = shift > 16 ? shift : 16;
	size_t ncols = 1 + data[1] % MAX_COLS;
	int check = data[2] & 1, drop = data[2] & 2;
	unsigned gapg = 1u + data[3] % 32;	/* granules merged across */
	uint64_t t0 = le64(data + 8), t1 = le64(data + 16);
	size_t n = (size - 24) / 16;
	uint64_t *addr = malloc((n ? n : 1) * 8), *time = malloc((n ? n : 1) * 8);
	uint64_t *g = malloc((n ? n : 1) * 8), *sorted = malloc((n ? n : 1) * 8);

	for (size_t i = 0; i < n; i++) {
		addr[i] = le64(data + 24 + 16 * i);
		time[i] = le64(data + 32 + 16 * i);
	}
	size_t ng = memtrace_bin_granules(addr, n, gshift, g);
	/* independent: sort and unique addr >> gshift */
	for (size_t i = 0; i < n; i++)
		sorted[i] = addr[i] >> gshift;
	qsort(sorted, n, 8, cmp_u64);
	size_t nu = 0;
	for (size_t i = 0; i < n; i++)
		if (!nu || sorted[i] != sorted[nu - 1])
			sorted[nu++] = sorted[i];
	if (ng != nu || (nu && memcmp(g, sorted, nu * 8)))
		abort();	/* granules are not the sorted distinct values */

	/* ranges of granules [a, b] merged across gaps of up to gapg granules */
	uint64_t *lo = malloc((ng + 1) * 8);
	unsigned __int128 *hi = malloc((ng + 1) * sizeof(*hi));
	size_t nr = 0;
	for (size_t i = 0; i < ng; i++) {
		unsigned __int128 a = (unsigned __int128)g[i] << gshift, b = a + ((unsigned __int128)1 << gshift);
		if (nr && g[i] - g[i - 1] <= gapg)
			hi[nr - 1] = b;
		else {
			lo[nr] = (uint64_t)a;
			hi[nr++] = b;
		}
	}
	if (check && drop) {	/* every other range dropped: addresses outside */
		size_t m = 0;
		for (size_t i = 0; i < nr; i += 2, m++) {
			lo[m] = lo[i];
			hi[m] = hi[i];
		}
		nr = m;
	}
	/* rows: grow the row size until they fit, as binning.py does */
	unsigned rs = shift;
	unsigned __int128 rows_total;
	for (;;) {
		rows_total = 0;
		for (size_t i = 0; i < nr; i++)
			rows_total += (hi[i] - lo[i]) >> rs;	/* aligned: gshift >= rs */
		if (rows_total <= MAX_ROWS || rs >= 63)
			break;
		rs++;
	}
	/* aligned to the row size; ranges that then touch are merged */
	size_t m = 0;
	for (size_t i = 0; i < nr; i++) {
		unsigned __int128 a = lo[i] >> rs << rs;
		unsigned __int128 b = (hi[i] + (((unsigned __int128)1 << rs) - 1)) >> rs << rs;
		if (m && a <= hi[m - 1]) {
			hi[m - 1] = b > hi[m - 1] ? b : hi[m - 1];
		} else {
			lo[m] = (uint64_t)a;
			hi[m++] = b;
		}
	}
	nr = m;
	int64_t *row0 = malloc((nr + 1) * 8);
	row0[0] = 0;
	for (size_t i = 0; i < nr; i++)
		row0[i + 1] = row0[i] + (int64_t)((hi[i] - lo[i]) >> rs);
	size_t nrows = (size_t)row0[nr];
	if (nr && nrows <= 1u << 16 && nrows * ncols <= 1u << 18) {
		struct memtrace_bin_axis ax = { .lo = lo, .row0 = row0, .nranges = nr, .shift = rs };
		int64_t *rows = malloc((n ? n : 1) * 8), *cols = malloc((n ? n : 1) * 8);
		int64_t *c1 = calloc(nrows * ncols, 8), *c2 = calloc(nrows * ncols, 8);
		size_t inside = 0;

		memtrace_bin_rows(&ax, addr, n, check, rows);
		memtrace_bin_times(time, n, t0, t1, ncols, cols);
		for (size_t i = 0; i < n; i++) {
			/* independent row: the range holding addr by a linear scan */
			int64_t want = -1;
			for (size_t k = 0; k < nr; k++)
				if (addr[i] >= lo[k] && (k + 1 < nr ? addr[i] < lo[k + 1] : 1) &&
				    (unsigned __int128)(addr[i] >> rs) - (lo[k] >> rs) <
					    (unsigned __int128)(row0[k + 1] - row0[k]))
					want = row0[k] + (int64_t)((addr[i] >> rs) - (lo[k] >> rs));
			if (check ? rows[i] != want : (want >= 0 && rows[i] != want))
				abort();	/* wrong row */
			/* independent column, [t0, t1] with t1 in the last bin */
			int64_t wc = -1;
			if (t1 > t0 && time[i] >= t0 && time[i] <= t1)
				wc = time[i] == t1 ? (int64_t)ncols - 1 :
				     (int64_t)((unsigned __int128)(time[i] - t0) * ncols / (t1 - t0));
			if (t1 > t0 && cols[i] != wc)
				abort();	/* wrong column */
			if (rows[i] >= 0 && (size_t)rows[i] < nrows && cols[i] >= 0 &&
			    (size_t)cols[i] < ncols)
				inside++;
		}
		memtrace_bin_count2d(rows, cols, n, nrows, ncols, c1);
		size_t counted = memtrace_bin_heatmap(&ax, addr, time, n, check, t0, t1, ncols, c2);
		if (counted != inside || memcmp(c1, c2, nrows * ncols * 8))
			abort();	/* the one-pass heatmap differs from rows + times + count2d */
		free(rows);
		free(cols);
		free(c1);
		free(c2);
	}
	free(row0);
	free(lo);
	free(hi);
	free(addr);
	free(time);
	free(g);
	free(sorted);
	return 0;
}
