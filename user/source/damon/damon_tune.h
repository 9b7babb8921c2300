/* damon_tune.h - keeps the kdamond's CPU within a budget by adapting its
 * sampling and aggregation intervals (-e damon without --damon-intervals).
 *
 * DAMON checks one page per region per sample interval, so its cost is
 * regions / sample interval: 3.25 % of a CPU at its defaults (5 ms, up to
 * 1,000 regions) on a 256 MiB target in the 6.12 guest, in instructions,
 * where the target lost 5.3 % of its throughput (docs/performance.md; the
 * emulated CPU itself showed 13-29 %).  Kernels from 6.15 on
 * tune intervals themselves (intervals_goal, DAMON_STAT); 6.12 does not.
 * Every 2 s the kdamond's CPU time (/proc/PID/schedstat) over the wall time
 * gives its share of one CPU: above the budget, both intervals grow by the
 * excess (at most 8x a step, up to 200 ms and 4 s); below a quarter of it,
 * they shrink by half, never below where they started.  The ratio of the
 * two (DAMON's nr_accesses scale) stays as it was.
 */
#ifndef MEMTRACE_SOURCE_DAMON_DAMON_TUNE_H
#define MEMTRACE_SOURCE_DAMON_DAMON_TUNE_H

#include <stdint.h>
#include <sys/types.h>

#include "source/damon/damon_sysfs.h"

#define DAMON_TUNE_EVERY_NS	2000000000ull
#define DAMON_TUNE_MAX_SAMPLE_US 200000ul

struct damon_tune {
	double budget;			/* fraction of one CPU; 0: fixed intervals */
	pid_t pid;			/* the kdamond thread */
	uint64_t cpu_ns, wall_ns;	/* at the last check */
	unsigned long base_sample_us, base_aggr_us;
	double share_first, share_last;	/* over the first and the last check's span */
	double share_max;
	unsigned raised, lowered;	/* interval changes made */
};

void damon_tune_init(struct damon_tune *t, pid_t kdamond, double budget,
		     const struct damon_attrs *a, uint64_t wall_ns);

/* 1 when it changed a's intervals (to be committed), else 0. */
int damon_tune_step(struct damon_tune *t, struct damon_attrs *a, uint64_t wall_ns);

/* The decision alone, for a measured share of one CPU: 1 when a changed. */
int damon_tune_apply(struct damon_tune *t, struct damon_attrs *a, double share);

/* A thread's CPU time in ns (schedstat, else stat's ticks); -1 if gone. */
int64_t damon_thread_cpu_ns(pid_t pid);

#endif
