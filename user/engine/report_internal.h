/*
 * report_internal.h - state shared by the files that compute a
 * memtrace_report (report.c: config, passes, series; report_hot.c: hot
 * buckets and peak locations; report_regions.c: curve, buckets, regions).
 *
 * Everything a report points at is allocated with rep_alloc/rep_strdup and
 * freed together by memtrace_report_free.
 */
#ifndef MEMTRACE_ENGINE_REPORT_INTERNAL_H
#define MEMTRACE_ENGINE_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bucket_map.h"
#include "engine/bucket_set.h"
#include "engine/cold.h"
#include "engine/filter.h"
#include "engine/hot.h"
#include "engine/hot_attr.h"
#include "engine/mrc.h"
#include "engine/peaks.h"
#include "engine/span_index.h"
#include "engine/wss_spatial.h"
#include "engine/wss.h"
#include "memtrace/report.h"
#include "resolve/resolve.h"
#include "resolve/spaces.h"
#include "trace/reader.h"
#include "trace/spans.h"
#include "util/search.h"

struct rep_proc {
	int used;
	uint32_t pid;
	struct wss w;
	uint64_t samples;
	char comm[16];
	struct cold *cold;		/* MEMTRACE_REPORT_COLD (NULL past the first 256) */
};

/* The allocation behind a struct memtrace_report. */
struct rep_owner {
	struct memtrace_report pub;	/* first: the pointer handed out */
	void **allocs;			/* everything pub points at */
	size_t nallocs, cap;
};

struct rep_ctx {
	struct rep_owner *own;
	struct memtrace_report *r;
	/* the config with defaults applied */
	size_t top, max_peaks, locations, functions;
	double sensitivity;
	unsigned flags;
	const struct memtrace_filter *filter;
	const struct memtrace_report_config *cfg;	/* the caller's (cold_* fields) */
	uint64_t window_asked;		/* cfg->window: 0 = the default */
	/* pass 1 */
	struct sample_filter filt;
	struct resolver *res;
	uint32_t pid;			/* keeps its addresses as keys (0: the main pid) */
	struct mt_spaces *spaces;	/* the resolver's: (pid, address) -> key */
	struct wss data, code;
	struct wss_spatial data_sp;	/* the data samples of a sampled trace (engine/wss_spatial.h) */
	int first_seen;
	/* peaks (pass 2: instructions and mappings in their windows) */
	struct peak *peaks;
	size_t npeaks;
	uint64_t *peak_from, *peak_to;	/* absolute (from, to] */
	struct bucket_map *peak_ips;	/* NULL without instruction pointers */
	uint64_t *peak_ranges;		/* npeaks x (nlayout + 1) data samples */
	size_t peak_next;
	/* the pid's address layout (peak mappings, regions) */
	const struct memtrace_range *layout;
	size_t nlayout;
	/* hot buckets (pass 2: who touched them) */
	struct hot_bucket *hot_data, *hot_code;
	size_t nhot_data, nhot_code;
	struct hot_attr attr_data, attr_code, attr_obj;
	/* regions (pass 2) */
	uint64_t *reg_samples;		/* nlayout + 1 (last: unmapped) */
	uint64_t *reg_nbuckets;		/* distinct buckets per region, of reg_set */
	struct bucket_set reg_set;	/* (region, bucket) pairs seen */
	/* per process (MEMTRACE_REPORT_PER_PROCESS): indexed like spaces->v */
	struct rep_proc *procs;
	size_t nprocs;
	uint64_t proc_rows;		/* rows of all per-process series, <= WSS_MAX_ROWS */
	uint64_t procs_too_long;	/* 0, or the sample time that would pass it */
	unsigned char *threads;		/* THREADS records (comm of each pid) */
	size_t nthreads;
	/* distinct (pid, tid) of the samples: open addressing, key + 1, 0 empty */
	uint64_t *tids;
	size_t ntids, tids_cap;
	uint64_t tid_last;		/* the last pair added, + 1 (0: none yet) */
	int tid_missing;		/* a chunk without the tid column */
	int scan_tid;			/* rep_scan decodes tid (pass 1) */
	/* spans (report_spans.c): --span pattern, --by-span */
	const char *span_pattern;	/* NULL: no span filter */
	struct rep_spans *spans;	/* NULL: neither asked */
	/* aggregated traces (report_agg.c): AGG rows instead of samples */
	uint64_t agg_interval;		/* 0: not aggregated */
	unsigned agg_shift;
	uint64_t agg_bad;		/* offset + 1 of a malformed AGG chunk */
	int has_agg;			/* AGG chunks in the file (read_maps passed some) */
	uint64_t file_samples;		/* records of its SAMPLES chunks (read_maps counted them) */
	struct memtrace_sample *agg_buf;
	size_t agg_cap;
	/* blind windows (report_blind.c): the PASSES rows of the series' pids */
	struct memtrace_pass *passes;
	size_t npasses, passes_cap;
	/* MEMTRACE_PASS_NUMA_SWEEP_START rows, apart (not passes): sorted by (pid, time) */
	struct memtrace_pass *starts;
	size_t nstarts, starts_cap;
	int passes_chunk;		/* the file has PASSES chunks */
	/* GAPS rows (report_gaps.c): stretches without a target, every pid's */
	struct memtrace_gap *gaps;
	size_t ngaps, gaps_cap;
	int gaps_only;			/* blind only in the gaps: a source that sees every window */
	uint64_t interval_asked;	/* cfg->interval: 0 = the window */
	/* MEMTRACE_REPORT_MRC (report_mrc.c): stack distances of the data samples */
	struct mrc mrc;
	int mrc_on;
	/* MEMTRACE_REPORT_COLD (report_cold.c) */
	struct cold cold;
	struct cold_config cold_cfg;
	int cold_on;
	size_t cold_nprocs;
	int cold_procs_capped;
};

/* report_ctx.c */
void *rep_alloc(struct rep_ctx *c, size_t n);	/* zeroed, owned by the report */
char *rep_strdup(struct rep_ctx *c, const char *s);

/* Index into layout[] of the range holding addr, nlayout if none (inline:
 * pass 2 asks it per sample). */
static inline size_t rep_range_of(const struct rep_ctx *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nlayout;

	/* first range with end > addr */
	MT_PARTITION_POINT(lo, hi, mid, c->layout[mid].end <= addr);
	return lo < c->nlayout && c->layout[lo].start <= addr ? lo : c->nlayout;
}

void rep_fill_series(struct rep_ctx *c, struct memtrace_series *out, const struct wss *w);

/* report_est.c: estimates of a series (rows, counts of w) */
void rep_fill_estimate(struct rep_ctx *c, struct memtrace_estimate *out, const struct wss *w,
		       const struct wss_spatial *sp, double period);
double rep_sample_period(const struct memtrace_report *r);

/* report_procs.c: the per-process summaries */
void rep_procs_threads(struct rep_ctx *c, const unsigned char *p, size_t len);
/* The distinct (pid, tid) pairs of samples (r->threads); columns: of their chunk. */
void rep_threads_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n,
		     uint32_t columns);
void rep_procs_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n);
/* 0, or -1 when the series would pass WSS_MAX_ROWS rows in all (procs_too_long). */
int rep_procs_finish(struct rep_ctx *c, uint64_t end);
void rep_fill_procs(struct rep_ctx *c);
void rep_procs_free(struct rep_ctx *c);

/* report_decode.c: r->space_pids from c->spaces (after both passes) */
void rep_fill_space_pids(struct rep_ctx *c);

/* report_hot.c */
/* "[heap]+0x2000", "pid 1234 [heap]+0x2000", "memfd:x+0x0 (shared by 2 processes)", "?" */
const char *rep_key_where(struct rep_ctx *c, uint64_t key);
void rep_fill_hot(struct rep_ctx *c);
void rep_fill_peaks(struct rep_ctx *c);

/* report_spans.c */
int rep_spans_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen);
int rep_spans_setup(struct rep_ctx *c, char *err, size_t errlen);
void rep_spans_add(struct rep_ctx *c, const struct memtrace_sample *v, size_t n);
void rep_fill_spans(struct rep_ctx *c);
void rep_spans_free(struct rep_ctx *c);

/* report_agg.c */
int rep_agg_setup(struct rep_ctx *c, const struct memtrace_report_config *cfg, char *err,
		  size_t errlen);
void rep_agg_pass1(struct rep_ctx *c, const struct trace_chunk *ch);

/* report_blind.c: PASSES chunks (read_maps), the state and default window
 * (after read_maps, before pass 1), the blind rows (after wss_finish) and
 * the flags of the filled series */
int rep_blind_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen);
int rep_blind_setup(struct rep_ctx *c, struct trace_reader *tr, char *err, size_t errlen);
int rep_blind_rows(struct rep_ctx *c, char *err, size_t errlen);
void rep_fill_blind(struct rep_ctx *c);

/* report_gaps.c: GAPS chunks (read_maps); the reports k in [1, K] whose
 * window overlaps a gap, as sorted, merged ranges lo[i]..hi[i] (malloc'ed,
 * their count; 0: none) */
int rep_gaps_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen);
size_t rep_gaps_ranges(const struct rep_ctx *c, uint64_t K, uint64_t **lo, uint64_t **hi);

/* report_mrc.c: pass 1's data samples (keyed), then the curve (0, or -1: err) */
void rep_mrc_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n);
int rep_fill_mrc(struct rep_ctx *c, char *err, size_t errlen);

/* report_cold.c: the method, thresholds and step (after rep_blind_setup:
 * 0, or -1: err), pass 1's keyed data samples, a process's own state
 * (NULL: not asked, or past the cap), the points (0, or -1: err) */
int rep_cold_setup(struct rep_ctx *c, const struct memtrace_report_config *cfg,
		   struct trace_reader *tr, char *err, size_t errlen);
void rep_cold_filter_ready(struct rep_ctx *c);	/* after sample_filter_init */
void rep_cold_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n);
struct cold *rep_cold_proc_new(struct rep_ctx *c);
int rep_fill_cold(struct rep_ctx *c, char *err, size_t errlen);
void rep_cold_free(struct rep_ctx *c);
/* report_blind.c: 1 when report k's window is blind */
int rep_blind_at(const struct memtrace_report *r, uint64_t k);

/* report_regions.c */
void rep_fill_curve(struct rep_ctx *c);
void rep_fill_buckets(struct rep_ctx *c);
void rep_regions_add(struct rep_ctx *c, uint64_t addr);
void rep_fill_regions(struct rep_ctx *c);

#endif
