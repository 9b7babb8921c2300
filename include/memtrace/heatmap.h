/*
 * memtrace/heatmap.h - binning samples into a heatmap: a compacted address
 * axis (occupied ranges stacked, gaps cut out) by equal time bins.
 *
 * Part of the public API of libmemtrace.so; memtrace-analyze's heatmap and
 * hot verbs call it through ctypes on the columns memtrace_trace_read
 * decoded (user/analyze/memtrace_analyze/binning.py builds the axis from
 * the occupied granules).  Every function works on caller arrays and
 * allocates nothing the caller must free.  Exact: integer arithmetic
 * wherever it cannot overflow.
 */
#ifndef MEMTRACE_PUBLIC_HEATMAP_H
#define MEMTRACE_PUBLIC_HEATMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

/*
 * The sorted distinct values of addr[i] >> shift (shift < 64) into out,
 * which holds n entries; returns how many.
 */
size_t memtrace_bin_granules(const uint64_t *addr, size_t n, unsigned shift, uint64_t *out);

/*
 * An address axis: nranges byte ranges [lo[k], hi[k]), ascending, not
 * overlapping, aligned to 1 << shift; range k's rows start at row0[k]
 * (row0 has nranges + 1 entries, the last = the row count).
 */
struct memtrace_bin_axis {
	const uint64_t *lo;
	const int64_t *row0;
	size_t nranges;
	unsigned shift;
};

/*
 * Row of every address: (addr >> shift) - (lo[k] >> shift) + row0[k] for
 * the last range k with lo[k] <= addr (k = 0 below lo[0]).  check: -1 for
 * addresses outside every range (without it, addresses the axis was built
 * from, inside by construction, are not tested).
 */
void memtrace_bin_rows(const struct memtrace_bin_axis *ax, const uint64_t *addr, size_t n,
		       int check, int64_t *rows);

/*
 * Column of every time for ncols equal bins over [t0, t1] (t1 itself in the
 * last bin): (time - t0) * ncols / (t1 - t0) rounded down, exact (128-bit
 * products where 64 bits could overflow); -1 outside.
 */
void memtrace_bin_times(const uint64_t *time, size_t n, uint64_t t0, uint64_t t1, size_t ncols,
			int64_t *cols);

/*
 * counts[row * ncols + col] += 1 for every i with rows[i] in [0, nrows) and
 * cols[i] in [0, ncols).  counts holds nrows * ncols entries (not cleared).
 */
void memtrace_bin_count2d(const int64_t *rows, const int64_t *cols, size_t n, size_t nrows,
			  size_t ncols, int64_t *counts);

/*
 * The three in one pass over (addr, time) without the row and column
 * arrays: counts (nrows * ncols, nrows = row0[nranges]) += the heatmap.
 * Returns how many samples were counted.
 */
size_t memtrace_bin_heatmap(const struct memtrace_bin_axis *ax, const uint64_t *addr,
			    const uint64_t *time, size_t n, int check, uint64_t t0, uint64_t t1,
			    size_t ncols, int64_t *counts);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
