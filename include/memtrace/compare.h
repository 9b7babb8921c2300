/*
 * memtrace/compare.h - two traces side by side (A = baseline, B): per
 * region (mapping label, " #2" among equal ones, so ASLR'd anonymous
 * mappings pair up when the programs map them in the same order) and per
 * span label (record --mark: which query's memory changed), with the change
 * from A to B in percent.  `memtracectl compare` renders it; memtrace-analyze
 * compare plots it.  Nothing here prints.
 *
 *   struct memtrace_report_config cfg = { .span = "SELECT" };   // both sides
 *   struct memtrace_compare *c = memtrace_compare_compute("a.mtrace", "b.mtrace", &cfg, NULL,
 *                                                         err, sizeof(err));
 *   for (size_t i = 0; i < c->nspans; i++)
 *           printf("%s %f\n", c->spans[i].key, c->spans[i].avg_touched_change);
 *   memtrace_compare_free(c);
 *
 * Volumes (paper 002 section 4.4): accessed volume = samples x bucket, B's
 * multiplied by scale = sample_period(B) / sample_period(A); touched =
 * distinct buckets x bucket.  Both reports use A's bucket size.
 */
#ifndef MEMTRACE_PUBLIC_COMPARE_H
#define MEMTRACE_PUBLIC_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

/* One region or span label; index 0 is A, 1 is B.  A change is
 * 100 (B - A) / A; 0 when both are 0; NAN when only B has it ("new"). */
struct memtrace_compare_row {
	const char *key;		/* region label, span label, or "total" */
	uint64_t samples[2];
	double volume[2];		/* bytes, B scaled */
	uint64_t touched[2];		/* bytes */
	double volume_change, touched_change;
	/* span rows (0 in region rows) */
	uint64_t spans[2];		/* spans with this label */
	uint64_t time[2];		/* their summed length (trace unit) */
	double avg_touched[2];		/* per span: mean distinct buckets x bucket (bytes) */
	uint64_t max_touched[2];	/* per span: the largest (bytes) */
	double avg_touched_change;
};

struct memtrace_compare {
	uint64_t bucket;			/* bytes, A's */
	double scale;				/* sample_period(B) / sample_period(A) */
	const struct memtrace_report *a, *b;	/* the two reports (regions, span groups) */
	size_t nregions;			/* largest volume (of A or B) first */
	const struct memtrace_compare_row *regions;
	struct memtrace_compare_row regions_total;	/* sums (regions do not overlap) */
	size_t nspans;				/* span labels, largest volume first */
	const struct memtrace_compare_row *spans;
	/* sums of the span rows (a bucket touched under two labels counts twice);
	 * avg_touched: the mean over every span, max_touched: the largest */
	struct memtrace_compare_row spans_total;
};

/*
 * Computes the reports of a and b (cfg_a; cfg_b NULL = cfg_a; the flags
 * MEMTRACE_REPORT_REGIONS and MEMTRACE_REPORT_BY_SPAN are added, B's bucket
 * is A's) and their rows.  A cfg span pattern filters both sides; the span
 * rows then hold the matching labels only.  Errors name the trace.
 */
struct memtrace_compare *memtrace_compare_compute(const char *a, const char *b,
						  const struct memtrace_report_config *cfg_a,
						  const struct memtrace_report_config *cfg_b,
						  char *err, size_t errlen);
void memtrace_compare_free(struct memtrace_compare *c);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
