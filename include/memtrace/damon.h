/* memtrace/damon.h - region-level numbers from a trace's DAMON regions
 * (memtrace_trace_damon_regions of trace.h, REGIONS chunks of the damon
 * source).
 *
 * DAMON checks one random page per region per sample interval, so each
 * number here is region-level: a region counts with all its bytes when
 * any check of an aggregation found it accessed.  Its precision is the
 * regions' size, which DAMON adapts (min..max regions), not the page.
 * Rows are taken as recorded: grouped by time, one group per aggregation.
 */
#ifndef MEMTRACE_PUBLIC_DAMON_H
#define MEMTRACE_PUBLIC_DAMON_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

/* One aggregation's region-level working set. */
struct memtrace_damon_wss_point {
	uint64_t time;		/* the aggregation (its rows' time) */
	uint64_t wss_bytes;	/* bytes of regions with nr_accesses >= min_accesses */
	uint64_t monitored_bytes;	/* bytes of every region */
	uint32_t regions, accessed_regions;
};

/*
 * One point per aggregation of pid's rows (pid 0: every pid) into out (up
 * to max); returns the number of aggregations (call with max 0 to size
 * out).  min_accesses < 1 counts as 1.
 */
long memtrace_damon_wss(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			uint32_t min_accesses, struct memtrace_damon_wss_point *out, size_t max);

/*
 * ntime x naddr grid (row-major, time first) over [t0, t1) x [a0, a1):
 * each cell the mean nr_accesses of the region bytes that lie in its
 * address range, over the aggregations whose time lies in its time range,
 * weighted by those bytes; NaN where no region covers it.  0, or -1 on bad
 * arguments (empty ranges or a zero dimension).
 */
int memtrace_damon_heatmap(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			   uint64_t t0, uint64_t t1, size_t ntime, uint64_t a0, uint64_t a1,
			   size_t naddr, double *out);

/*
 * The hottest regions of the last aggregation at or before time (UINT64_MAX:
 * the last one) of pid (0: every pid): up to k rows into out, by
 * nr_accesses, then age, then size, all descending, then address.
 * Returns how many.
 */
long memtrace_damon_hot(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			uint64_t time, struct memtrace_damon_region *out, size_t k);

/*
 * Region-level working set per window: for windows (t - window, t] with t =
 * origin + k interval (k >= 1, up to the first t >= end), the bytes of the union
 * of pid's regions (0: every pid; regions of different pids never merge)
 * that some aggregation in the window found accessed (nr_accesses >=
 * min_accesses).  A window without an aggregation is blind: DAMON did not
 * report on it, which is not a working set of 0.  Only windows with an
 * aggregation are written (up to max into out, time ascending); returns
 * their number (call with max 0 to size out), *blind = the windows without
 * one.  -1 when window or interval is 0, end < origin, or the windows with an
 * aggregation could number more than 4 M (window / interval x aggregations).  Rows must be
 * grouped by aggregation in time order, as the recorder writes them.
 */
struct memtrace_damon_window {
	uint64_t time;		/* the window's end, absolute */
	uint64_t wss_bytes;	/* union of the accessed regions' bytes */
	uint32_t aggregations;	/* aggregations whose time lies in the window */
};
long memtrace_damon_windows(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			    uint32_t min_accesses, uint64_t origin, uint64_t end, uint64_t window,
			    uint64_t interval, struct memtrace_damon_window *out, size_t max,
			    uint64_t *blind);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
