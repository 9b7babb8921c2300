/*
 * memtrace/report.h - every number memtrace shows about a trace, computed
 * once: the working-set series and its peaks, the hot buckets with their
 * names and the functions that access them, the hot working-set curve and
 * per-mapping regions.  `memtracectl report` renders this structure as text
 * or JSON; memtrace-analyze plots it.  Nothing here prints.
 *
 *   struct memtrace_report_config cfg = { .window = 0, .top = 20 };   // 0 = defaults
 *   struct memtrace_report *r = memtrace_report_compute("db.mtrace", &cfg, err, sizeof(err));
 *   for (size_t k = 0; k < r->data.n; k++) printf("%lu %lu\n", r->data.time[k], r->data.wss[k]);
 *   memtrace_report_free(r);
 *
 * Vocabulary (the same in both tools): window τ, interval T, bucket (bytes,
 * a power of two), top N, "accessed by" = the share of a bucket's samples
 * (those with an instruction pointer) taken by one function.
 */
#ifndef MEMTRACE_PUBLIC_REPORT_H
#define MEMTRACE_PUBLIC_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

#define MEMTRACE_REPORT_ALL_BUCKETS	(1u << 0) /* fill buckets[]: every bucket's count */
#define MEMTRACE_REPORT_REGIONS		(1u << 1) /* fill regions[] */
#define MEMTRACE_REPORT_FULL_CURVE	(1u << 2) /* curve at every distinct count, not 1,2,4,.. */
#define MEMTRACE_REPORT_PER_PROCESS	(1u << 3) /* fill processes[] */
#define MEMTRACE_REPORT_BY_SPAN		(1u << 4) /* fill span_groups[] (record --mark) */
#define MEMTRACE_REPORT_NO_SOURCE	(1u << 5) /* leave file and line of instructions unset:
						   * no DWARF read (faster) */
#define MEMTRACE_REPORT_MRC		(1u << 6) /* fill mrc: the miss-ratio curve */
#define MEMTRACE_REPORT_COLD		(1u << 7) /* fill cold: cold memory over time; reads
						   * the config's cold_* fields */

#define MEMTRACE_COLD_MAX_THRESHOLDS	8

struct memtrace_report_config {
	uint64_t bucket;	/* bytes, power of two 64..2M; 0 = the trace's bucket_default */
	uint64_t window;	/* τ in the trace's unit; 0 = 100 ms (ns) / 100000 (instructions) */
	uint64_t interval;	/* T; 0 = the window */
	size_t top;		/* hot buckets per table; 0 = 10 */
	double sensitivity;	/* peak detection g; 0 = 1.0 */
	size_t max_peaks;	/* peaks listed (the largest, in time order); 0 = 100 */
	size_t locations;	/* instructions listed per peak; 0 = 3 */
	size_t functions;	/* "accessed by" entries per hot bucket; 0 = 3 */
	unsigned flags;		/* MEMTRACE_REPORT_* */
	struct memtrace_filter filter;
	const char *root;	/* ELF files looked up under this directory (perf --symfs); NULL = / */
	const char *debug_dir;	/* separate debug files; NULL = /usr/lib/debug */
	/* appended: a labels file (docs/memtracectl.md, "Labels") whose names
	 * win over the trace's own LABELS chunk and the mappings'; NULL = none */
	const char *labels;
	/* appended: only the samples of threads inside a span (record --mark)
	 * whose label contains this; NULL = every sample */
	const char *span;
	/* appended, read only with MEMTRACE_REPORT_COLD: idle thresholds
	 * (trace unit; ncold 0 = 10 s, 60 s, 120 s for a ns trace), and the
	 * step between the points (0: a tenth of the smallest threshold,
	 * rounded down to whole intervals, at least one, and at most 10000
	 * points to the recording's end) */
	size_t ncold;
	const uint64_t *cold_thresholds;
	uint64_t cold_step;
	/* appended, read only with MEMTRACE_REPORT_MRC: the references in the
	 * first mrc_warmup of the trace (its unit, from start_time) fill the
	 * LRU stack but are not counted (refs, cold, hits): a cache that was
	 * already warm when the recording began; 0 = every reference counts */
	uint64_t mrc_warmup;
};

/*
 * One WSS series: wss[i] = distinct buckets accessed in (t_k - τ, t_k],
 * t_k = start_time + k T.  Sparse: only the reports whose window holds a
 * sample are rows; a k missing from time[] has WSS 0 (no sample in its
 * window), so memory follows the intervals with samples, not the span of
 * the timestamps.  The report's intervals counts every k, rows or not.
 */
struct memtrace_series {
	size_t n;
	const uint64_t *time;	/* t_k - start_time = k T of each row, ascending */
	const uint64_t *wss;	/* buckets */
	double avg;		/* mean over every report (the missing ones 0) */
	uint64_t peak;		/* max of wss[] */
	uint64_t total;		/* distinct buckets in the whole (filtered) trace */
};

/* A name with a count: "accessed by" functions, peak instructions. */
struct memtrace_named_count {
	uint64_t addr;		/* ip (instructions) or 0 (functions) */
	uint64_t count;
	const char *name;	/* "quicksort", "dbquery+0x1234 quicksort+0x12" */
	const char *file;	/* source file of an ip, NULL if unknown */
	unsigned line;		/* 0 if unknown */
};

struct memtrace_peak {
	size_t index;		/* into data.wss[] of the peak's largest value */
	size_t first, last;	/* the run of peak values */
	uint64_t time;		/* data.time[index] */
	uint64_t value;		/* buckets */
	size_t nlocations;	/* most frequent instructions in (t - τ, t] */
	const struct memtrace_named_count *locations;
	const char *top_mapping;	/* mapping that received most data samples in the window */
};

struct memtrace_hot_bucket {
	uint64_t addr;		/* first byte of the bucket */
	uint64_t count;		/* samples */
	const char *where;	/* "dbquery+0xa7000", "[heap]+0x1a000", "?" */
	const char *object;	/* symbol most of its samples fell into (data), or NULL */
	uint64_t with_ip;	/* its samples that carry an instruction pointer */
	size_t nfunctions;	/* accessed by (data) / running there (code), largest first */
	const struct memtrace_named_count *functions;
	size_t nips;		/* the instructions behind them, largest first */
	const struct memtrace_named_count *ips;
};

struct memtrace_curve_point {
	uint64_t min_count;	/* k */
	uint64_t buckets;	/* buckets accessed >= k times */
	uint64_t samples;	/* samples that went to those buckets */
};

/* One mapping (one line of the merged maps), or "unmapped". */
struct memtrace_region {
	const char *label;	/* name + perms, with " #2" etc. among equal labels */
	const char *name;
	uint64_t start, end;	/* 0, 0 for unmapped */
	uint64_t samples;
	uint64_t buckets;	/* distinct buckets touched */
};

/*
 * What a sampled trace did not see (docs/accuracy.md).  With one access in
 * N sampled, wss[] counts the buckets *seen*, far below the truth when a
 * window holds few samples per bucket.  est[] adds the unseen ones (pooled
 * bias-corrected Chao1 for Bernoulli sampling, plus the unseen buckets between
 * seen ones), with an interval calibrated on the fixtures and flags where
 * no estimate is trustworthy.  N = 1 (every access recorded):
 * est = lo = hi = wss, never flagged.
 */
#define MEMTRACE_EST_FEW_SAMPLES	(1u << 0) /* < MEMTRACE_EST_MIN_SAMPLES, or < estimate */
#define MEMTRACE_EST_MOSTLY_UNSEEN	(1u << 1) /* estimate > 3 x seen, or > 1.5 x with > 10 samples each */
#define MEMTRACE_EST_NOT_COUNTED	(1u << 2) /* window > 65531 intervals: no f1, f2 */
#define MEMTRACE_EST_ALIASED		(1u << 3) /* fixed period: samples from <= 4 instructions */
#define MEMTRACE_EST_RUN_TAIL		(1u << 4) /* whole run: estimate > 2 x seen (a long tail) */
#define MEMTRACE_EST_TAIL_INSNS	(1u << 5) /* > 5 % of samples from instructions with a long tail */
#define MEMTRACE_EST_ROUND_PERIOD	(1u << 6) /* fixed period with a factor 2, 3, 5 or 7: may alias */
/* more samples than the gap and instruction checks keep (8 M): Chao1 alone, not calibrated */
#define MEMTRACE_EST_NOT_REFINED	(1u << 7)
/* FEW_SAMPLES: a window holds fewer samples than this */
#define MEMTRACE_EST_MIN_SAMPLES	200

struct memtrace_estimate {
	double period;		/* N used: the trace's sample_period (mean), 1 = exact */
	const uint64_t *samples;	/* per row: samples in the window */
	const uint64_t *f1, *f2;	/* per row: buckets seen exactly once, twice */
	const double *est, *lo, *hi;	/* per row: estimate and interval (buckets; docs/accuracy.md) */
	const unsigned *flags;		/* per row: MEMTRACE_EST_* reasons, 0 = reliable */
	size_t unreliable;		/* rows flagged */
	double avg, avg_lo, avg_hi;	/* means of est[], lo[], hi[] over every row */
	double peak;			/* max of est[] (inflated by noise) */
	double p95;			/* 95th percentile of est[]: the peak to quote */
	double total, total_lo, total_hi;	/* whole-run distinct buckets */
	unsigned total_flags;
};

/*
 * One process of the (filtered) samples (MEMTRACE_REPORT_PER_PROCESS): its
 * own data WSS (the buckets it touched, shared ones included) and hot
 * buckets (where and count only).
 */
struct memtrace_process {
	uint32_t pid;
	const char *comm;	/* from the trace's thread records, "" if none */
	uint64_t samples;
	struct memtrace_series data;
	uint64_t shared;	/* of data.total: buckets in shared mappings */
	size_t nhot;
	const struct memtrace_hot_bucket *hot;
	struct memtrace_estimate data_est;	/* appended: estimates of data */
};

/*
 * One span label (MEMTRACE_REPORT_BY_SPAN): the spans with that label (a
 * query's text), the samples of their threads while inside them, and the
 * distinct buckets those samples touched, over all the spans and per span.
 */
struct memtrace_span_group {
	const char *label;
	uint64_t spans;		/* spans with this label */
	uint64_t time;		/* their summed length (trace unit) */
	uint64_t samples;	/* samples inside them */
	uint64_t buckets;	/* distinct buckets of those samples */
	double avg_buckets;	/* per span: mean distinct buckets (0 for a span without samples) */
	uint64_t max_buckets;	/* per span: the largest */
};

/*
 * Windows a pass-based source could not see (docs/analysis.md, "Blind
 * windows").  Hint faults, DAMON and module accessed bits see a re-access
 * only in the pass after it; the trace's PASSES chunks (format minor 3)
 * say when each pass ended.  Report k's window (t_k - window, t_k] is seen
 * when a pass of the target (pid 0 rows: every target; with a --pid
 * filter: that pid's) shows the source looked inside it, else blind: a
 * DAMON or accessed-bit pass p (what it saw since the last one) seen where
 * t_k - window < p and p - lag <= t_k; a NUMA scan sweep, from pid's
 * previous advance p' to p, where the window holds it whole:
 * t_k - window <= p' - lag and p <= t_k (lag: HEADER pass_lag, how late a
 * pass may be recorded after it happened).  A blind window's count is not
 * a working set of 0: the source was not looking.
 */
enum memtrace_blind_state {
	MEMTRACE_BLIND_NONE = 0,	/* the source sees every window (PMU samples, page
					 * faults, valgrind): no window is blind */
	MEMTRACE_BLIND_UNKNOWN = 1,	/* a pass-based source whose trace records no passes
					 * (written before format minor 3): not known */
	MEMTRACE_BLIND_KNOWN = 2,	/* passes recorded: blind intervals below */
};

struct memtrace_blind {
	int state;			/* enum memtrace_blind_state */
	uint32_t what;			/* MEMTRACE_PASS_* of the passes, 0 if none */
	const char *pass;		/* "NUMA scan pass", "DAMON aggregation", ... */
	uint64_t passes;		/* passes that cover the series (target or --pid) */
	uint64_t lag;			/* HEADER pass_lag, trace unit */
	uint64_t period;		/* median time between one process's passes, 0: < 2 */
	uint64_t intervals;		/* of the report's intervals, blind */
	size_t nruns;			/* runs of consecutive blind reports k */
	const uint64_t *first, *last;	/* run i: k = first[i]..last[i] (1-based, t_k = k T) */
};

/*
 * Miss-ratio curve (MEMTRACE_REPORT_MRC, docs/sizing.md): the miss ratio
 * of a fully associative LRU cache of c buckets over the data references
 * of the (filtered) trace, in file order, cold misses included.  Exact
 * (sample_period 1: every reference counted, LRU stack distances): the
 * hits of size c are hits[c - 1] of refs.  Sampled (one reference in
 * period): estimated from the stack distances among the samples (sizes
 * not scaled: a thinned stream keeps each bucket's share of the
 * references), the samples' own first references replaced by the
 * estimated cold misses of the whole stream (data_est.total / (refs x
 * period)); lo, hi: a 95 % interval of the sampling noise (Wilson, the
 * samples taken as independent), not of the estimator's bias
 * (docs/sizing.md measures that).
 */
struct memtrace_mrc_point {
	uint64_t bytes;		/* cache size: buckets x bucket */
	double miss_ratio;	/* of the references, cold misses included */
	double lo, hi;		/* exact: = miss_ratio */
};

struct memtrace_mrc {
	int computed;		/* MEMTRACE_REPORT_MRC asked, and data samples */
	int exact;		/* 1: every reference; 0: estimated from 1-in-period samples */
	double period;
	uint64_t bucket;	/* bytes */
	uint64_t refs;		/* references counted (samples; after the warm-up) */
	uint64_t cold;		/* of them, the first to their bucket */
	double cold_ratio;	/* miss ratio of an infinite cache (estimated when sampled) */
	uint64_t footprint;	/* buckets: distinct (exact), estimated (sampled) */
	size_t n;		/* >= 64 sizes log-spaced from 1 bucket to the footprint
				 * (every size when the footprint is smaller) */
	const struct memtrace_mrc_point *points;
	size_t nknees;		/* where the curve drops and then flattens (docs/sizing.md) */
	const size_t *knees;	/* indices into points, ascending */
	size_t nhits;		/* distinct buckets referenced (seen) */
	const uint64_t *hits;	/* hits[c - 1]: references (samples) of stack distance <= c */
};

/*
 * Cold memory (MEMTRACE_REPORT_COLD, docs/sizing.md "Cold memory"): at
 * points t_j = start_time + j step up to the recording's end, the buckets
 * of the (filtered) data samples seen at or before t_j (seen[j]) and, for
 * each threshold θ_i, those of them known not accessed for at least θ_i
 * (cold[i * n + j]).  How the source knows (method):
 *   ACCESS  every access (exact) or 1-in-period samples (period > 1: an
 *           upper bound; false_cold gives a scale of the error),
 *   PASSES  accessed bits: idle time counted on the passes' clock, up to
 *           the latest pass at or before t_j, never across the stretch
 *           after it (pass_age[j]: how far back that pass is),
 *   HINT    NUMA hint faults: a page counts as idle only once re-armed,
 *           from the end of the second scan sweep after its last fault.
 * Page-fault (first-touch) and DAMON region traces are refused: a page
 * fault is seen once per page.  blind[j] = 1 where the report's window
 * ending at t_j is blind (struct memtrace_blind).
 */
#define MEMTRACE_COLD_ACCESS	0
#define MEMTRACE_COLD_PASSES	1
#define MEMTRACE_COLD_HINT	2

struct memtrace_cold_process {
	uint32_t pid;
	const uint64_t *seen;		/* n */
	const uint64_t *cold;		/* nthresholds x n */
};

struct memtrace_cold {
	int computed;			/* asked, and data samples */
	int method;			/* MEMTRACE_COLD_* */
	double period;			/* the sampling period, 1 = every access */
	uint64_t bucket;		/* bytes */
	uint64_t step;			/* trace unit, a multiple of the report's interval */
	size_t nthresholds;
	const uint64_t *thresholds;	/* trace unit */
	size_t n;			/* points */
	const uint64_t *time;		/* t_j - start_time */
	const uint64_t *seen;		/* buckets seen by t_j */
	const uint64_t *cold;		/* nthresholds x n: buckets idle >= θ_i at t_j */
	const double *avg_share;	/* per threshold: mean of cold / seen over the
					 * points seen (not blind, seen > 0) */
	const double *false_cold;	/* per threshold, period > 1: buckets cold by chance
					 * at a typical moment (cold.h), NULL otherwise */
	const unsigned char *blind;	/* n, NULL when no window is known blind */
	size_t blind_points;
	const uint64_t *pass_age;	/* n, method PASSES/HINT: t_j - the latest pass at or
					 * before it (UINT64_MAX: none yet); NULL otherwise */
	uint64_t reordered;		/* samples earlier than their bucket's latest */
	size_t nprocesses;		/* MEMTRACE_REPORT_PER_PROCESS, as processes[] */
	const struct memtrace_cold_process *processes;
};

/*
 * Buckets are address-space keys (include/memtrace/resolve.h): private
 * memory per process, shared mappings once by (device, inode, offset); in a
 * single-process trace they are the addresses.
 */
struct memtrace_report {
	/* what was computed */
	uint64_t bucket, window, interval;	/* resolved from the config */
	unsigned bucket_shift;
	int time_is_ns;
	uint64_t start_time;			/* the trace origin */
	struct memtrace_trace_info info;	/* of the whole file */
	/* the (filtered) samples */
	uint64_t samples, first_time, last_time, reordered;
	int have_ip;
	struct memtrace_series data, code;	/* code: instruction pointers */
	size_t npeaks, peaks_found;		/* listed / detected */
	const struct memtrace_peak *peaks;
	size_t nhot_data, nhot_code;
	const struct memtrace_hot_bucket *hot_data, *hot_code;
	size_t ncurve;
	const struct memtrace_curve_point *curve;	/* hot working-set curve (data) */
	size_t nbuckets;			/* MEMTRACE_REPORT_ALL_BUCKETS */
	const uint64_t *bucket_addr;		/* ascending */
	const uint64_t *bucket_count;
	size_t nregions;			/* MEMTRACE_REPORT_REGIONS, most samples first */
	const struct memtrace_region *regions;
	/* appended: the HEADER and END chunks' "key=value\n" text (end_meta
	 * NULL without an END chunk), for renderers that show the metadata */
	const char *meta, *end_meta;
	/* appended: MEMTRACE_REPORT_PER_PROCESS, the target (or --pid) first, then by pid */
	size_t nprocesses;
	const struct memtrace_process *processes;
	uint64_t shared_buckets;		/* of data.total: in shared mappings */
	/* appended: estimates of data and code (same rows as data, code) */
	struct memtrace_estimate data_est, code_est;
	/* appended: spans (cfg.span, MEMTRACE_REPORT_BY_SPAN), most samples first */
	size_t nspans;				/* spans matching cfg.span (all without it) */
	size_t nspan_groups;
	const struct memtrace_span_group *span_groups;
	uint64_t span_samples;			/* of samples: inside a span */
	/* appended: REGIONS chunks in the file (DAMON region rows; none: no
	 * region summary to read) */
	uint64_t region_chunks;
	/* appended: distinct threads, (pid, tid) pairs, among the (filtered)
	 * samples; have_tid 0: some samples carry no tid column, so no count */
	uint64_t threads;
	int have_tid;
	/* appended: the pid of each address-space number (a key's bits
	 * 48..62; 0 = the target or --pid), for memtrace_report_decode */
	size_t nspace_pids;
	const uint32_t *space_pids;
	/* appended: reports k = 1..intervals of every series (data, code, per
	 * process, estimates): their rows are those of them with samples in the
	 * window */
	uint64_t intervals;
	/* appended: cfg.filter.region, and its size: the bytes its labels cover
	 * in the processes of the trace, a shared page once (the same keys as
	 * the buckets); NULL, 0 without a region */
	const char *region;
	uint64_t region_bytes;
	/* appended: blind windows (above).  With state KNOWN, intervals
	 * reaches the recording's end, every blind report is a row of data and
	 * code (WSS 0 where nothing was sampled), and data_blind[i],
	 * code_blind[i] = 1 for a blind row; avg and peak of data and code
	 * (and the estimates' avg) are over the windows seen.  NULL otherwise. */
	struct memtrace_blind blind;
	const unsigned char *data_blind, *code_blind;
	/* appended: MEMTRACE_REPORT_MRC (above) */
	struct memtrace_mrc mrc;
	/* appended: MEMTRACE_REPORT_COLD (above) */
	struct memtrace_cold cold;
	/* appended: the trace's gaps (GAPS rows, trace.h struct memtrace_gap:
	 * record --pidfile had no target), their total time (trace unit).
	 * A window that overlaps one is blind (blind.state KNOWN; with a
	 * source that sees every window, blind.what 0 and blind.pass "target") */
	uint64_t gaps, gap_time;
	/* appended: the config's mrc_warmup, when the curve was computed: the
	 * references before start_time + mrc_warmup only filled the stack */
	uint64_t mrc_warmup;
};

/*
 * The miss ratio of an LRU cache of bytes (rounded down to whole buckets)
 * by r->mrc, with its interval in *lo, *hi (either may be NULL); -1 when
 * no curve was computed.  1 - miss: the predicted hit ratio.
 */
double memtrace_mrc_miss(const struct memtrace_report *r, uint64_t bytes, double *lo, double *hi);

/*
 * The process and its own address behind a key of r (a hot bucket, an
 * instruction pointer, a region's start): 0, or -1 when no process of r
 * has its tag (*pid = 0, *addr = key).  A key of a shared mapping gives the
 * process whose mapping keys it (memtrace/resolve.h); a kernel address
 * (bit 63) the target (or --pid) and the address.
 */
int memtrace_report_decode(const struct memtrace_report *r, uint64_t key, uint32_t *pid,
			   uint64_t *addr);

/*
 * How sure is rank i of a hot table (counts in descending order): the
 * number of other listed buckets whose sample count does not differ from
 * hot[i]'s at 95 % (Poisson counts: |a - b| < 1.96 sqrt(a + b)).  0: the
 * rank is firm.  A sampled count c stands for c N accesses +- 1.96 sqrt(c) N.
 */
size_t memtrace_rank_ties(const struct memtrace_hot_bucket *hot, size_t n, size_t i);

/*
 * The line that heads every output of a report with a region:
 * "WSS of region \"Buffer Blocks\" (5410 pages of 32768, 21.1 MiB of 128 MiB):
 * only its addresses, ...", "pages first touched in region ..." for a
 * page-fault trace; "" without a region.  Returns buf.
 */
const char *memtrace_report_region_line(const struct memtrace_report *r, char *buf, size_t len);

struct memtrace_report *memtrace_report_compute(const char *path,
						const struct memtrace_report_config *cfg,
						char *err, size_t errlen);
void memtrace_report_free(struct memtrace_report *r);

/*
 * Parsing the shared option values, so both tools accept the same words.
 * Durations: "100ms", "1.5s", "200us", "500ns" for ns traces, counts with
 * k/M/G for instruction traces.  Sizes: "4K", "2M", "64".  0 or -1.
 */
int memtrace_parse_duration(const char *s, int time_is_ns, uint64_t *out);
int memtrace_parse_size(const char *s, uint64_t *out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
