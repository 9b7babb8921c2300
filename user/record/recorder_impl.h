/* recorder_impl.h - the recorder's state, shared by the files of user/record/
 * (not for use outside it: the rest of the tree sees record/recorder.h). */
#ifndef MEMTRACE_RECORD_RECORDER_IMPL_H
#define MEMTRACE_RECORD_RECORDER_IMPL_H

#include <stdint.h>
#include <sys/types.h>

#include "record/recorder.h"
#include "engine/wss.h"
#include "memtrace/trace.h"
#include "trace/codec.h"
#include "util/util.h"
#include "trace/spans_enc.h"

#define LIVE_BUCKET_SHIFT	12
#define LIVE_INTERVAL_NS	100000000ull	/* 100 ms */
#define LIVE_INTERVAL_INSN	1000000ull	/* 1 M instructions */
#define MERGE_HORIZON_NS	50000000ull	/* samples may arrive 50 ms late */
#define WINDOW_ROWS_PER_CHUNK	600
#define LIVE_EXPIRE_EVERY	1	/* intervals between sweeps of expired live buckets */
#define FLUSH_EVERY_NS		1000000000ull	/* WINDOWS rows reach the file within 1 s */
#define STATUS_EVERY_NS		500000000ull
#define MAX_MAPS_PIDS		65536	/* live processes whose maps are snapshotted */
#define MAPS_SWEEP_EVERY_NS	1000000000ull	/* gone processes leave the maps table */
#define MAPS_GONE_KEPT		1024	/* ...their snapshot times kept a while */

#define RECORD_CHUNK_SAMPLES	65536	/* samples per SAMPLES chunk (<= CHUNK_MAX_SAMPLES) */
#define RECORD_CHUNK_AGE_NS	500000000ull	/* a chunk not full is written this old */

struct sample_run {		/* samples in (time, tid) order; s[head..n) not merged yet */
	struct memtrace_sample *s;
	size_t head, n, cap;
};

struct row_buf {
	uint64_t *t, *v;
	struct wss_row_counts *c;	/* samples, f1, f2 of each row */
	size_t n, cap;
};

struct recorder {
	struct trace_writer *w;
	char *command;
	struct bytebuf meta;
	char *labels;				/* recorder_set_labels(), NULL if none */
	size_t labels_len;
	int begun, ended;
	uint32_t columns;
	int time_is_ns;
	unsigned span_grain_log;	/* recorder_set_span_grain, when span_grain_set */
	int span_grain_set;
	uint64_t start, horizon;
	const struct memtrace_words *words;	/* of the HEADER's sample_class */
	pid_t target;				/* recorder_begin's pid */
	char target_comm[17];			/* its latest COMM (END target_comm) */
	char end_meta[2048];			/* recorder_end_meta's lines */
	size_t end_meta_len;
	uint32_t end_meta_lines;
	uint64_t target_comm_time;		/* of that COMM (rings drain in any order) */

	/* merge.c: sorted runs of samples not merged yet, and the chunk being filled */
	struct sample_run *runs;
	int nruns, runs_cap;
	size_t npending;		/* samples in the runs */
	size_t insn_untick;		/* instruction time: samples since the last tick */
	struct memtrace_sample *chunk;	/* merged, not written: RECORD_CHUNK_SAMPLES */
	size_t nchunk, chunk_live;	/* chunk_live: those counted in the live WSS */
	uint64_t chunk_since;		/* wall clock of the chunk's first sample */

	struct wss live_data, live_code;
	struct row_buf rows_data, rows_code;
	uint64_t live_interval;
	uint64_t live_pages;		/* the latest row written out (live_wss_pages) */
	uint64_t live_swept_k;		/* live_data.k at the last wss_expire() */

	struct bytebuf threads, lost, spans;	/* spans: a SPANS2 payload being built */
	uint32_t nthreads, nlost;
	struct bytebuf passes;			/* PASSES records not written yet */
	uint32_t npasses;
	/* target_gaps.c: record --pidfile's stretches without a target */
	struct bytebuf gaps;			/* GAPS records not written yet */
	uint32_t ngaps;
	uint64_t gap_from;			/* the gap under way began here */
	uint32_t gap_pid;			/* ... when this process left */
	int gap_open;
	/* the latest finished gaps, [from, to), for --metrics' seen windows */
	struct { uint64_t from, to; } gap_recent[4];
	unsigned gap_recent_next;
	struct span_enc spanenc;	/* spans not yet written (spans_enc.h) */
	uint64_t spans_at;		/* wall clock of the last SPANS2 chunk */
	uint64_t total_lost, total_throttled, dropped;

	/* one entry per process with MAPS chunks (maps_snapshot.c) */
	pid_t *maps_pid;
	char **maps_text;
	int *maps_dirty;
	uint64_t *maps_stack;	/* an address in the stack, or 0 */
	uint64_t *maps_at;	/* time of the last MAPS chunk written, or 0 */
	char (*maps_comm)[16];	/* --switch-output: the process's latest name, "" if none */
	int nmaps, maps_cap, maps_hit;	/* maps_hit: index of the last maps_index() answer */
	uint64_t maps_swept_at;		/* wall clock of the last maps_forget_gone() */
	/* the swept ones' last MAPS chunk times, the latest MAPS_GONE_KEPT
	 * (recorder_maps_time: a side-band exit is acted on after the sweep) */
	struct { pid_t pid; uint64_t at; } maps_gone[MAPS_GONE_KEPT];
	unsigned maps_gone_next;

	uint64_t samples, last_time;
	uint64_t status_at, status_samples, status_wall;
	uint64_t flushed_at;		/* wall clock of the last WINDOWS flush */
	int tty;
	int aggregated;		/* HEADER aggregate: AGG chunks, no samples, no WINDOWS */
	int failed;
	int offline;		/* recorder_offline(): never read /proc */
	struct recorder_side sides[RECORDER_MAX_SIDES];	/* recorder_add_side() */
	int nsides;
	int published;		/* recorder_publish() done: the file is in place */

	/* the current file's share of the recording (END counts): the totals
	 * when it began (rotate.c; all 0 without --switch-output) */
	uint64_t file_samples0, file_lost0, file_throttled0, file_dropped0;
	struct rotation *rot;	/* --switch-output, NULL if not (rotate.c) */
	struct metrics_windows *metrics;	/* record --metrics, NULL if not (metrics_windows.c) */
};

/* recorder.c: the HEADER lines of key removed from r->meta. */
void recorder_meta_drop(struct recorder *r, const char *key);

/* target_gaps.c: 1 when a gap (under way, or one of the latest four) meets
 * the window (from, to]: record --metrics calls it blind, not seen. */
int recorder_gap_overlaps(const struct recorder *r, uint64_t from, uint64_t to);
/* target_gaps.c: the finished gaps as a GAPS chunk (none: nothing).  0 or -1. */
int recorder_gaps_flush(struct recorder *r);
/* The current file ends at end: its finished gaps, and a gap under way as
 * [from, end] (the next file's share begins at end).  0 or -1. */
int recorder_gaps_file_end(struct recorder *r, uint64_t end);

/* host_meta.c: host, kernel, arch, cpu_model, ... unless set already. */
void host_meta_defaults(struct recorder *r);
const char *meta_value(const struct recorder *r, const char *key, char *buf, size_t len);

/* live_wss.c: the live working-set estimate and its WINDOWS chunks. */
int live_wss_init(struct recorder *r);
void live_wss_add(struct recorder *r, const struct memtrace_sample *s, size_t n);
void live_wss_finish(struct recorder *r);
int live_wss_write(struct recorder *r, int all);	/* WINDOWS chunk: full, or all rows */
uint64_t live_wss_pages(const struct recorder *r);	/* latest data WSS */
void live_wss_free(struct recorder *r);

/* merge.c: pending samples in time order into SAMPLES chunks: those with
 * time <= limit; the chunk buffer is written when full, RECORD_CHUNK_AGE_NS
 * old, or all is set. */
int merge_flush(struct recorder *r, uint64_t limit, int all);
void merge_compact(struct recorder *r);	/* every run into one */
void merge_free(struct recorder *r);

/* recorder.c: the pending THREADS records as a chunk (a MAPS chunk after
 * them names its process's executable by the comm they carry). */
int recorder_flush_threads(struct recorder *r);

/* maps_snapshot.c: MAPS chunks of the target's /proc/PID/maps. */
int maps_index(struct recorder *r, pid_t pid);
int maps_snapshot(struct recorder *r, int i, uint64_t now);
int maps_flush_dirty(struct recorder *r, uint64_t now);
/* Live recordings: a process seen in samples for the first time gets a snapshot. */
void maps_note_samples(struct recorder *r, const struct memtrace_sample *s, size_t n);
void maps_free(struct recorder *r);

/* recorder.c: the pending side chunks (spans, threads, lost, passes,
 * changed maps) written now; the END chunk of the current file, ending at
 * end, with its own counts; HEADER and LABELS from r->meta. */
int recorder_flush_sides(struct recorder *r, uint64_t now);
int recorder_write_end(struct recorder *r, const char *reason, uint64_t end);
int recorder_write_head(struct recorder *r);

/* maps_snapshot.c: a MAPS chunk of every process in the table now (its
 * latest text if it is gone), its THREADS name first: a new file's. */
int maps_rewrite_all(struct recorder *r, uint64_t now);
/* The process's name for the next file's THREADS record (--switch-output). */
void maps_note_comm(struct recorder *r, pid_t pid, const char *comm);

/* rotate.c: HEADER keys of a rotating recording (in recorder_begin); its
 * state freed (recorder_close). */
void rotate_begin_meta(struct recorder *r);
void rotate_free(struct recorder *r);

/* metrics_windows.c: record --metrics's window series, of the merged
 * samples (with the live WSS); closed up to the merge limit every tick. */
int metrics_windows_begin(struct recorder *r);
void metrics_windows_add(struct recorder *r, const struct memtrace_sample *s, size_t n);
void metrics_windows_close(struct recorder *r, uint64_t limit);
void metrics_windows_free(struct recorder *r);

/* status_line.c: the status line on a terminal. */
void status_line(struct recorder *r, int final);

#endif
