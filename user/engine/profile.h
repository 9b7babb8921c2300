/*
 * profile.h - every sample of a trace as a profiler sees it (memtracectl
 * export): the code at its ip (function, source file:line and inlined
 * frames, resolve.h), the data at its address (the region reports name it
 * by, the object: a symbol of the mapped file), the allocation site of the
 * block it lies in (sites_each.h, traces recorded with --allocs) and the
 * span it lies in (span_index.h, traces recorded with --mark).  Samples
 * with the same answers are summed into rows; the exporters (cmd/export_*.c)
 * only encode them.
 *
 *   struct profile *p = profile_compute("a.mtrace", &cfg, err, sizeof(err));
 *   for (size_t i = 0; i < p->nrows; i++)
 *       p->code[p->rows[i].code].loc.symbol, p->rows[i].samples ...
 *   profile_free(p);
 */
#ifndef MEMTRACE_ENGINE_PROFILE_H
#define MEMTRACE_ENGINE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/report.h"
#include "memtrace/resolve.h"
#include "memtrace/sites.h"
#include "memtrace/trace.h"

#define PROFILE_NONE	UINT32_MAX	/* no site, no span */

/* One (pid, ip): the instruction of samples.  A trace without ips (a
 * source that records none) has ip 0 everywhere: resolved UNMAPPED. */
struct profile_code {
	uint32_t pid;
	uint64_t ip;
	int resolved;			/* enum memtrace_resolved */
	struct memtrace_location loc;	/* strings live as long as the profile */
};

/* One (pid, region, object): the data of samples. */
struct profile_data {
	uint32_t pid;
	const char *region;	/* as the reports name it: "[heap]", "libc.so.6", a label's
				 * name, "dbquery[bss]"; "?" when unmapped */
	const char *object;	/* the symbol (an object of a file's .data/.bss), NULL if none */
	const char *path;	/* the mapped file, "" if none */
	uint64_t map_start, map_end;
};

/* Samples with the same process, code, data, site and span. */
struct profile_row {
	uint32_t pid;
	uint32_t code, data;	/* indices into code[], data[] */
	uint32_t site;		/* into sites->sites[], PROFILE_NONE: in no recorded block */
	uint32_t span;		/* into span_labels[], PROFILE_NONE: in no span */
	uint64_t samples;
};

struct profile {
	struct profile_row *rows;	/* sorted by (pid, code, data, site, span) */
	size_t nrows;
	struct profile_code *code;
	size_t ncode;
	struct profile_data *data;
	size_t ndata;
	struct memtrace_sites *sites;	/* NULL: the trace has no allocation records */
	const char **span_labels;	/* distinct span labels; NULL: the trace has no spans */
	size_t nspans;
	uint64_t samples;		/* kept by cfg's filter: the sum of the rows */
	uint64_t period;		/* HEADER sample_period: events one sample stands for */
	uint64_t bucket;		/* bytes: cfg's bucket, else HEADER bucket_default */
	const struct memtrace_words *words;
	int time_is_ns;
	uint64_t first_time, last_time;	/* of the samples, absolute, trace unit */
	const char *comm;		/* the target's name, "" if unknown */
	struct profile_impl *impl;	/* the resolver, the trace, the span index */
};

/*
 * Reads the trace at path.  cfg (NULL: defaults): filter's pid, tid and
 * time range; bucket; labels (a --labels file naming data regions), root
 * and debug_dir as for reports.  NULL with a one-line error.
 */
struct profile *profile_compute(const char *path, const struct memtrace_report_config *cfg,
				char *err, size_t errlen);
void profile_free(struct profile *p);

#endif
