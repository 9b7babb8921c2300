/*
 * filter.h - which samples a read or a report uses (struct memtrace_filter
 * of include/memtrace/trace.h), compiled once per trace: pid, tid, a time
 * range (absolute) and address ranges (--range, and the mappings whose name
 * contains --mapping, from the resolver's layout), and a labelled region
 * (--region: per process, the layout ranges the label of that name names).
 *
 *   struct sample_filter f;
 *   if (sample_filter_init(&f, spec, start_time, res, pid, err, sizeof(err))) ...
 *   n = sample_filter_apply(&f, samples, n);     // keeps the passing ones, in order
 *   sample_filter_free(&f);
 */
#ifndef MEMTRACE_ENGINE_FILTER_H
#define MEMTRACE_ENGINE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memtrace/trace.h"
#include "uapi/memtrace.h"

struct resolver;
struct span_index;

struct addr_range { uint64_t lo, hi; };	/* [lo, hi); hi UINT64_MAX: [lo, UINT64_MAX] */
struct pid_range { uint32_t pid; uint64_t lo, hi; };	/* [lo, hi) of process pid */
struct mt_spaces;

struct sample_filter {
	bool all;			/* nothing to filter: apply() is a no-op */
	uint32_t pid, tid;		/* 0 = any */
	uint64_t t_lo, t_hi;		/* absolute, inclusive */
	struct addr_range *ranges;	/* sorted, disjoint; NULL = any address */
	size_t nranges;
	const struct span_index *spans;	/* only samples in these spans; NULL = any */
	const char *region;		/* spec->region, or NULL */
	struct pid_range *region_v;	/* its ranges, sorted by (pid, lo), disjoint */
	size_t nregion;
	bool region_shmem;		/* every range in shared memory of shmem (shared
					 * anonymous, SysV, memfd, /dev/shm): NUMA
					 * scanning never marks it (report_blind.c) */
};

/*
 * spec NULL or all-zero: every sample.  res and pid (the trace's target, 0
 * = all pids' layouts) are used only for spec->mapping and spec->region
 * (every pid's layout, res holding the labels); -1 with a one-line reason
 * when no mapping matches ("--mapping X: no mapping of that name
 * (mappings: ...)") or no label has the region's name ("--region X: no
 * label of that name (labels: ...)").
 */
int sample_filter_init(struct sample_filter *f, const struct memtrace_filter *spec,
		       uint64_t start_time, struct resolver *res, uint32_t pid,
		       char *err, size_t errlen);
void sample_filter_free(struct sample_filter *f);
/* From now on only samples in a span of x (kept by the caller) pass. */
void sample_filter_spans(struct sample_filter *f, const struct span_index *x);

bool sample_filter_pass(const struct sample_filter *f, const struct memtrace_sample *s);
/* The same test on the four values a filter looks at. */
bool sample_filter_pass_values(const struct sample_filter *f, uint64_t time, uint64_t addr,
			       uint32_t pid, uint32_t tid);
/*
 * The bytes the region covers, each address-space key once (s: the keys the
 * samples get, so a shared segment mapped by 40 processes counts once).
 */
uint64_t sample_filter_region_bytes(const struct sample_filter *f, struct mt_spaces *s);
/*
 * Only the pid, tid and time range of spec (times relative to start_time, a
 * time before it counts as 0), uncompiled: for readers that filter by who
 * and when alone (sites, profile).
 */
static inline bool filter_keeps_who_when(const struct memtrace_filter *spec, uint64_t start_time,
					 uint64_t time, uint32_t pid, uint32_t tid)
{
	uint64_t rel = time >= start_time ? time - start_time : 0;

	return (!spec->pid || spec->pid == pid) && (!spec->tid || spec->tid == tid) &&
	       rel >= spec->time_from && (!spec->time_to || rel <= spec->time_to);
}

/* Moves the passing samples of s[0..n) to the front, in order; returns their count. */
size_t sample_filter_apply(const struct sample_filter *f, struct memtrace_sample *s, size_t n);

#endif
