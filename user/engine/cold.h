/*
 * cold.h - cold memory over time: at points t_j = origin + j step, for each
 * idle threshold θ, the buckets seen at or before t_j whose latest access
 * is known to lie at least θ before t_j (docs/sizing.md, "Cold memory").
 *
 * What "known" means depends on how the source sees accesses (mode):
 *
 *   COLD_ACCESS     every access, or 1 in N (PMU, valgrind): a sample is an
 *                   access at its time; a bucket is cold at t when its
 *                   latest sample at or before t is at or before t - θ.
 *                   Sampled: an upper bound (an access between two samples
 *                   is not seen).
 *   COLD_PASS_BITS  accessed bits: a sample is "accessed since the previous
 *                   pass", written at a pass p; nothing is known after the
 *                   latest pass P(t) <= t, so a bucket is cold at t when
 *                   P(t) - its latest sample >= θ: idle time measured on
 *                   the passes' clock, never across the blind stretch
 *                   after the last pass.
 *   COLD_HINT       NUMA hint faults: a fault is an access at its time, but
 *                   after it the page is not watched until the scanner
 *                   marks it again, at the latest by the end of the sweep
 *                   after the one it faulted in (the second pass advance at
 *                   or after the fault, of its process); it counts as idle
 *                   only from then (never, without such a pass).
 *
 * Passes are per process (the pass list of a bucket's latest sample's pid,
 * else the pid 0 rows: every target).  In every mode a bucket is no longer
 * cold at the first point at or after its next sample.
 *
 * Memory: one 24-byte slot per distinct bucket and (thresholds + 1)
 * difference counters per point up to the last sample's; O(1 + thresholds)
 * per sample.  Samples out of time order (earlier than their bucket's
 * latest) count as seen but cannot reopen a gap already closed
 * (cold.reordered counts them).
 *
 *   struct cold c;
 *   cold_init(&c, &cfg);
 *   for (...) cold_add(&c, addr >> shift, time, pid);   // file order
 *   cold_finish(&c, end);    // c.seen[j - 1], c.cold[i][j - 1], j = 1..c.npoints
 *   cold_free(&c);
 */
#ifndef MEMTRACE_ENGINE_COLD_H
#define MEMTRACE_ENGINE_COLD_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"

#define COLD_MAX_THRESHOLDS	8
#define COLD_MAX_POINTS		1000000ull	/* past it: too_long */

enum cold_mode { COLD_ACCESS = 0, COLD_PASS_BITS = 1, COLD_HINT = 2 };

struct cold_config {
	uint64_t origin, step;		/* t_j = origin + j step, j >= 1; step > 0 */
	uint64_t thr[COLD_MAX_THRESHOLDS];	/* θ_i, trace unit, > 0 */
	size_t nthr;
	int mode;			/* enum cold_mode */
	/* modes PASS_BITS, HINT: the passes, sorted by (pid, time) (not copied) */
	const struct memtrace_pass *passes;
	size_t npasses;
};

struct cold_slot {
	uint64_t key;			/* bucket + 1, 0 = empty */
	uint64_t last;			/* time of its latest sample */
	uint32_t pid;			/* of that sample */
	uint32_t count;			/* samples, saturated */
};

struct cold {
	struct cold_config cfg;
	struct cold_slot *slots;
	size_t cap;			/* a power of two */
	uint64_t distinct;		/* buckets seen */
	/* difference counters: row 0 seen, row 1 + i threshold i; per point j
	 * (index j, 0 unused), grown to the largest point written */
	int64_t *diff[COLD_MAX_THRESHOLDS + 1];
	uint64_t dcap;
	uint64_t reordered;
	uint64_t too_long;
	/* the pass list of the latest pid asked (cold.c pass_range) */
	uint32_t range_pid;
	int range_ok;
	size_t range_lo, range_hi;		/* 0, or a sample time past COLD_MAX_POINTS points */
	/* cold_finish: npoints = the point at or after end; seen[j - 1],
	 * cold[i][j - 1] for j = 1..npoints */
	uint64_t npoints;
	uint64_t *seen, *cold[COLD_MAX_THRESHOLDS];
};

void cold_init(struct cold *c, const struct cold_config *cfg);
void cold_add(struct cold *c, uint64_t bucket, uint64_t time, uint32_t pid);
void cold_finish(struct cold *c, uint64_t end);
void cold_free(struct cold *c);

/*
 * For 1-in-N samples: the buckets expected to be cold at θ by chance at a
 * typical moment if each bucket were accessed steadily, its samples a
 * Poisson stream at its own mean rate over span (samples / span): a gap of
 * θ between samples then has probability exp(-rate θ), summed over the
 * buckets.  A rough scale of the false cold in the upper bound, not a bound.
 */
double cold_false_cold(const struct cold *c, uint64_t theta, uint64_t span);

/* The latest pass of pid's list (else pid 0's) at or before t: 1 and *p, or 0. */
int cold_pass_before(const struct cold *c, uint32_t pid, uint64_t t, uint64_t *p);

#endif
