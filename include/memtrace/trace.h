/*
 * memtrace/trace.h - read (and write) memtrace trace files.
 *
 * Part of the public API of libmemtrace.so (pkg-config memtrace).  The file
 * format is docs/trace-format.md; this API hides it: a caller opens a trace,
 * asks what it holds, and decodes sample columns into its own buffers.
 *
 *   char err[256];
 *   struct memtrace_trace *t = memtrace_trace_open("db.mtrace", err, sizeof(err));
 *   struct memtrace_trace_info info;
 *   memtrace_trace_info(t, &info, err, sizeof(err));
 *   uint64_t *time = malloc(info.samples * 8), *addr = malloc(info.samples * 8);
 *   struct memtrace_columns c = { .time = time, .addr = addr, .cap = info.samples };
 *   size_t n;
 *   memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err));
 *   memtrace_trace_close(t);
 *
 * Every function that can fail returns 0 / a pointer on success and -1 /
 * NULL with a one-line reason (no trailing newline) in err.  Nothing here
 * prints or exits.  Strings returned stay valid until the object they came
 * from is closed.  Objects are not thread-safe; use one per thread.
 */
#ifndef MEMTRACE_PUBLIC_TRACE_H
#define MEMTRACE_PUBLIC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

#define MEMTRACE_API_VERSION 1

struct memtrace_trace;

/* Opens path and reads its HEADER chunk. */
struct memtrace_trace *memtrace_trace_open(const char *path, char *err, size_t errlen);
void memtrace_trace_close(struct memtrace_trace *t);

/* HEADER value of key (docs/trace-format.md), or NULL. */
const char *memtrace_trace_meta(const struct memtrace_trace *t, const char *key);
/* END value of key, or NULL (also before memtrace_trace_info ran). */
const char *memtrace_trace_end_meta(const struct memtrace_trace *t, const char *key);

/* Sample columns, bit numbers of memtrace_trace_info.columns. */
enum memtrace_column {
	MEMTRACE_COL_TIME, MEMTRACE_COL_ADDR, MEMTRACE_COL_PID, MEMTRACE_COL_TID,
	MEMTRACE_COL_CPU, MEMTRACE_COL_IP, MEMTRACE_COL_WEIGHT, MEMTRACE_COL_DATA_SRC,
	MEMTRACE_NCOLUMNS
};

/*
 * Fault sources that say what kind of fault each sample is (HEADER
 * fault_kinds=1, source hint-faults) keep the kind in data_src bits 56..59
 * (perf's reserved bits) next to perf's mem_op in bits 0..4 (PERF_MEM_OP_LOAD,
 * _STORE, _EXEC from the fault's error code).
 */
#define MEMTRACE_FAULT_KIND_SHIFT	56
#define MEMTRACE_FAULT_KIND(data_src)	((unsigned)(((data_src) >> MEMTRACE_FAULT_KIND_SHIFT) & 0xf))
enum memtrace_fault_kind {
	MEMTRACE_FAULT_UNKNOWN,		/* not a classified fault */
	MEMTRACE_FAULT_FIRST_TOUCH,	/* a page the process did not have before */
	MEMTRACE_FAULT_HINT,		/* a page it had: NUMA hint fault (or a re-fault after
					 * reclaim, swap-out, MADV_DONTNEED) */
	MEMTRACE_FAULT_WRITE_PROTECT,	/* a present page: copy-on-write, write-protect */
};

/* What a trace holds: one pass over the chunk headers and side chunks. */
struct memtrace_trace_info {
	uint32_t version_major, version_minor;
	int time_is_ns;			/* 1: ns (CLOCK_MONOTONIC), 0: instructions */
	int complete;			/* 1 if the END chunk was read */
	uint64_t truncated_bytes;	/* of an incomplete chunk at the end */
	uint64_t samples;		/* in all SAMPLES chunks */
	uint32_t columns;		/* union of the chunks' column masks */
	uint64_t start_time;		/* HEADER start_time (the trace origin) */
	uint64_t end_time;		/* END end_time, else the last sample time */
	uint64_t first_time, last_time;	/* of the samples (0 when none) */
	uint64_t chunks, maps, threads;	/* chunk / MAPS snapshot / THREADS record counts */
	uint64_t lost, throttled;	/* sums over LOST chunks */
	uint64_t dropped;		/* END dropped (module rings), 0 if absent */
	uint64_t sample_period;		/* HEADER sample_period, 1 if absent */
	uint64_t bucket_default;	/* HEADER bucket_default, 4096 if absent/bad */
	uint32_t target_pid;		/* HEADER target_pid, 0 if absent */
};

int memtrace_trace_info(struct memtrace_trace *t, struct memtrace_trace_info *out,
			char *err, size_t errlen);

/*
 * What one sample means and the words memtrace shows its numbers with, the
 * same in memtracectl and memtrace-analyze.  The class is the HEADER's
 * sample_class; a trace written before that key existed gets it from its
 * source: page-faults -> first-touch, valgrind-lackey with sample_period 1
 * -> every-access, anything else -> sampled-access.  Static strings.
 */
struct memtrace_words {
	const char *sample_class;	/* "sampled-access", "every-access", "first-touch" */
	const char *measure;		/* one sentence: what a sample and the counts mean */
	const char *sample;		/* one sample: "sampled access", "access", "page fault" */
	const char *samples;		/* "sampled accesses", "accesses", "page faults" */
	const char *count;		/* a bucket's count, a column heading: "accesses", "faults" */
	const char *verb;		/* "accessed", "faulted" (accessed by, buckets faulted k times) */
	const char *wss;		/* after "Data ": "WSS", "pages first touched" */
	const char *code_wss;		/* after "Code ": "WSS", "at page faults" */
	const char *data_series;	/* "data working set", "data pages first touched" */
	const char *code_series;	/* "code working set", "code at page faults" */
	const char *series_title;	/* "Working-set size", "Pages first touched (resident-set growth)" */
	const char *hot;		/* "Hot", "Most-faulted" (data/code buckets) */
	const char *curve;		/* "Hot working set by access frequency", "Buckets by page-fault count" */
	const char *activity;		/* "Memory accesses", "Page faults" (over time, per region) */
};

/* Of a HEADER text ("key=value\n" lines, as memtrace_report.meta); never NULL. */
const struct memtrace_words *memtrace_words_of_meta(const char *meta);
const struct memtrace_words *memtrace_trace_words(const struct memtrace_trace *t);

/*
 * The target's name: END target_comm (its comm when the recording ended,
 * after any exec, as the kernel names it) if there is one, else HEADER
 * target_comm, else "".  From the HEADER and END texts (memtrace_report.meta,
 * end_meta; either may be NULL) into buf, or from an open trace (a string
 * owned by t).
 */
const char *memtrace_target_comm(const char *meta, const char *end_meta, char *buf, size_t len);
const char *memtrace_trace_target_comm(struct memtrace_trace *t);

/*
 * Which samples a read or a report uses.  Zero-initialised = all samples.
 * Times are offsets from the trace start (start_time), in the trace's unit.
 */
struct memtrace_filter {
	uint32_t pid, tid;		/* 0 = any */
	uint64_t time_from, time_to;	/* [from, to] after start; to = 0: no limit */
	uint64_t addr_lo, addr_hi;	/* [lo, hi); hi = 0: no limit */
	const char *mapping;		/* addresses in mappings whose name contains
					   this (resolve.h naming); NULL = any */
	/* appended: only the addresses a label of exactly this name covers (a
	 * --labels file's or the trace's LABELS chunk), in every process that
	 * maps them (a shared segment in each backend); NULL = any.  A name no
	 * label has is an error that lists the labels */
	const char *region;
};

/*
 * Adds the labels file at path (docs/memtracectl.md, "Labels") to the names
 * a filter's region looks up, before the trace's own LABELS: 0, or -1 with
 * "PATH:LINE: reason".
 */
int memtrace_trace_labels(struct memtrace_trace *t, const char *path, char *err, size_t errlen);

/*
 * Caller buffers for decoded columns, cap entries each; NULL = not wanted.
 * A column the trace lacks is filled with zeros.
 */
struct memtrace_columns {
	uint64_t *time, *addr, *ip, *data_src;
	uint32_t *pid, *tid, *cpu, *weight;
	size_t cap;
};

/*
 * Decodes every sample that passes filter (NULL = all) into out, in file
 * order; *n receives the count.  -1 if more than out->cap samples pass
 * (size the buffers with memtrace_trace_info().samples), if the filter
 * names a mapping no MAPS chunk has, or on a corrupt chunk.
 */
int memtrace_trace_read(struct memtrace_trace *t, const struct memtrace_filter *filter,
			struct memtrace_columns *out, size_t *n, char *err, size_t errlen);

/* Chunk by chunk (rewinds to the first chunk after the HEADER). */
enum memtrace_chunk_type {
	MEMTRACE_CHUNK_HEADER = 1, MEMTRACE_CHUNK_SAMPLES, MEMTRACE_CHUNK_MAPS,
	MEMTRACE_CHUNK_THREADS, MEMTRACE_CHUNK_LOST, MEMTRACE_CHUNK_WINDOWS,
	MEMTRACE_CHUNK_END,
	MEMTRACE_CHUNK_REGIONS = 8,	/* DAMON regions (memtrace_trace_damon_regions) */
	MEMTRACE_CHUNK_PASSES = 15,	/* observation passes (memtrace_trace_passes) */
	MEMTRACE_CHUNK_GAPS = 16,	/* stretches without a target (record --pidfile) */
};

struct memtrace_chunk {
	unsigned type;			/* enum memtrace_chunk_type, or unknown */
	uint32_t count;			/* records (samples for SAMPLES) */
	uint64_t offset;		/* of the chunk in the file */
	const unsigned char *data;	/* decompressed payload, valid until the next call */
	size_t len;
};

int memtrace_trace_rewind(struct memtrace_trace *t, char *err, size_t errlen);
/* 1 with *c filled, 0 at the end (or a truncated tail), -1 on corruption. */
int memtrace_trace_next(struct memtrace_trace *t, struct memtrace_chunk *c, char *err,
			size_t errlen);
/* Decodes one SAMPLES chunk into out (from index 0); *n = c->count. */
int memtrace_chunk_samples(const struct memtrace_chunk *c, struct memtrace_columns *out,
			   size_t *n, char *err, size_t errlen);

/*
 * Side records, decoded.  Each call returns the count and points *v at an
 * array owned by t (built on first use by a pass over the file).
 */
struct memtrace_thread { uint64_t time; uint32_t pid, tid; const char *comm; };
struct memtrace_lost { uint64_t time; uint32_t cpu; uint64_t lost, throttled; };
/* WINDOWS rows the recorder wrote (live WSS): one per (window, interval) row. */
struct memtrace_window_row {
	uint64_t window, interval; uint32_t bucket_shift;
	uint64_t time;			/* absolute, trace unit */
	uint64_t wss_data, wss_code;	/* buckets */
	/* WINDOWS2 chunks (has_counts = 1; 0 in older traces): the data row's
	 * samples n and buckets seen exactly once (f1) and twice (f2), what the
	 * estimate of report.h's struct memtrace_estimate is computed from */
	uint64_t samples, f1, f2;
	int has_counts;
};
struct memtrace_maps_snapshot { uint64_t time; uint32_t pid; const char *text; size_t len; };
/*
 * REGIONS rows (source damon): one DAMON region of pid's address space
 * [start, end) as kdamond aggregated it at time: nr_accesses = how many
 * of the aggregation interval's checks (one per sample interval) found it
 * accessed (0 .. damon_max_nr_accesses of the HEADER), age = aggregation
 * intervals since its size or frequency last changed much.
 */
struct memtrace_damon_region { uint64_t time, start, end; uint32_t pid, nr_accesses, age; };

/*
 * PASSES rows (format minor 3): a pass-based source finished one
 * observation pass over pid's memory (0: every target) at time; what it
 * saw of re-accesses before time it has reported.  what: MEMTRACE_PASS_*.
 * A window of the report with no pass is blind (report.h, memtrace_blind).
 */
#define MEMTRACE_PASS_NUMA_SCAN		1u	/* hint faults: a NUMA scan sweep of pid ended
						 * (/proc/PID/sched mm->numa_scan_seq advanced); it
						 * began after pid's previous one (at the
						 * NUMA_SWEEP_START between them, if any) */
#define MEMTRACE_PASS_DAMON		2u	/* DAMON: an aggregation arrived */
#define MEMTRACE_PASS_ACCESSED_BIT	3u	/* memtrace.ko: an accessed-bit pass ended */
#define MEMTRACE_PASS_NUMA_SWEEP_START	4u	/* hint faults: the sweep of pid that ends at
						 * its next MEMTRACE_PASS_NUMA_SCAN began here
						 * (exact: sched_skip_vma_numa at offset 0) */
#define MEMTRACE_PASS_NUMA_SCAN_PARTIAL	5u	/* hint faults: as NUMA_SCAN, but the sweep
						 * skipped mappings holding >= 1/10 of pid's
						 * resident memory (scan delay, inactive pid):
						 * it ends a sweep, its windows are not seen */
struct memtrace_pass { uint64_t time; uint32_t pid, what; };

/*
 * GAPS rows (chunk 16, format minor 3, added without a version change):
 * from from to to (the samples' clock) the recording had no target, so
 * nothing could be sampled: a window of the report that overlaps a gap is
 * blind, not idle (report.h, memtrace_blind).  pid: the process that left.
 */
#define MEMTRACE_GAP_NO_TARGET		1u	/* record --pidfile: the target exited; the
						 * next process the pid file named was
						 * attached at to (or the file ended) */
struct memtrace_gap { uint64_t from, to; uint32_t pid, what; };

/*
 * SPANS records (record --mark): thread tid of pid ran between two probes
 * over [start, end] (absolute, trace unit); label: the probe's argument
 * (a query's text, a number).  open = 1: the recording ended before the
 * end probe fired (end = the recording's end).  Sorted by (pid, tid, start).
 */
struct memtrace_span { uint64_t start, end; uint32_t pid, tid; const char *label; int open; };

long memtrace_trace_threads(struct memtrace_trace *t, const struct memtrace_thread **v,
			    char *err, size_t errlen);
long memtrace_trace_lost(struct memtrace_trace *t, const struct memtrace_lost **v,
			 char *err, size_t errlen);
long memtrace_trace_windows(struct memtrace_trace *t, const struct memtrace_window_row **v,
			    char *err, size_t errlen);
long memtrace_trace_maps(struct memtrace_trace *t, const struct memtrace_maps_snapshot **v,
			 char *err, size_t errlen);
long memtrace_trace_damon_regions(struct memtrace_trace *t,
				  const struct memtrace_damon_region **v, char *err, size_t errlen);
long memtrace_trace_passes(struct memtrace_trace *t, const struct memtrace_pass **v, char *err,
			   size_t errlen);

long memtrace_trace_spans(struct memtrace_trace *t, const struct memtrace_span **v,
			  char *err, size_t errlen);

/*
 * keep[i] = 1 when sample i (time[i], tid[i], absolute times as
 * memtrace_trace_read decodes them) lies in a span whose label contains
 * pattern (NULL or "": any span), else 0.  Returns the count kept, or -1.
 */
long memtrace_trace_span_mask(struct memtrace_trace *t, const char *pattern, size_t n,
			      const uint64_t *time, const uint32_t *tid, uint8_t *keep,
			      char *err, size_t errlen);

/*
 * Writing (tools and tests that make traces; memtracectl record uses the
 * same writer).  meta: "key=value\n" lines of the HEADER; must hold
 * time_unit and start_time; span_grain=G (a power of two up to 2^31, default
 * 1) stores spans in grains of G time units: start rounded down, end up.
 * Samples are given as columns (time, addr, pid,
 * tid, cpu required; ip/weight/data_src optional: NULL = not recorded).
 */
struct memtrace_writer;

struct memtrace_writer *memtrace_writer_open(const char *path, const char *meta,
					     char *err, size_t errlen);
int memtrace_writer_samples(struct memtrace_writer *w, const struct memtrace_columns *c,
			    size_t n, char *err, size_t errlen);
int memtrace_writer_maps(struct memtrace_writer *w, uint64_t time, uint32_t pid,
			 const char *text, size_t len, char *err, size_t errlen);
int memtrace_writer_thread(struct memtrace_writer *w, uint64_t time, uint32_t pid,
			   uint32_t tid, const char *comm, char *err, size_t errlen);
/* One LOST record (a LOST chunk of count 1). */
int memtrace_writer_lost(struct memtrace_writer *w, uint64_t time, uint32_t cpu,
			 uint64_t lost, uint64_t throttled, char *err, size_t errlen);
/* n REGIONS rows (one or more REGIONS chunks). */
int memtrace_writer_damon_regions(struct memtrace_writer *w,
				  const struct memtrace_damon_region *r, size_t n, char *err,
				  size_t errlen);
/* n PASSES rows (one or more PASSES chunks). */
int memtrace_writer_passes(struct memtrace_writer *w, const struct memtrace_pass *p, size_t n,
			   char *err, size_t errlen);
/* n GAPS rows (one or more GAPS chunks); -1 for a gap that ends before it begins. */
int memtrace_writer_gaps(struct memtrace_writer *w, const struct memtrace_gap *g, size_t n,
			 char *err, size_t errlen);
/* A LABELS chunk: text in the --labels format (checked first). */
int memtrace_writer_labels(struct memtrace_writer *w, const char *text, size_t len,
			   char *err, size_t errlen);
/* One span; open as memtrace_span.open.  Kept until 65536 are pending or the
 * writer closes, then written as SPANS2 chunks (docs/trace-format.md). */
int memtrace_writer_span(struct memtrace_writer *w, uint64_t start, uint64_t end, uint32_t pid,
			 uint32_t tid, const char *label, int open, char *err, size_t errlen);
/* end_meta: "key=value\n" lines of the END chunk (NULL: no END chunk).
 * Always frees w. */
int memtrace_writer_close(struct memtrace_writer *w, const char *end_meta, char *err,
			  size_t errlen);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
