/* recorder.h - the record pipeline between a backend and the trace file.
 *
 * Backends hand samples in any order across CPUs/threads (time-ordered
 * within one stream); the recorder merges them in time order, keeps a live
 * working-set estimate for the status line and the WINDOWS chunks, and
 * writes the trace.  record/loop.c drives a source into it; the jobs are
 * split by file (merge.c, live_wss.c, maps_snapshot.c, status_line.c,
 * host_meta.c, recorder.c).  Nothing written is lost on error: every chunk is
 * complete on disk before the next begins (a cut one is truncated away), and
 * WINDOWS rows reach the file at least every second.
 */
#ifndef MEMTRACE_RECORD_RECORDER_H
#define MEMTRACE_RECORD_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "memtrace/trace.h"	/* MEMTRACE_PASS_* */
#include "uapi/memtrace.h"

struct recorder;

/*
 * Opens path for writing (trace/writer.h trace_writer_open_new: a new file
 * that replaces path only once recorder_publish() is called; flags
 * WRITER_FORCE, else an existing path becomes path.old).  NULL after a
 * one-line error.
 */
struct recorder *recorder_open(const char *path, const char *command_line, unsigned flags);

/*
 * record --switch-output: the recording goes on in a new file every bytes
 * or ns (or when recorder_rotate is called), each file complete on its own
 * (rotate.c).  Files are named BASE.YYYYMMDD-hhmmss.mmm (UTC, the file's
 * start); with max_files the oldest of them beyond that many are removed.
 */
struct recorder_rotation {
	uint64_t bytes;		/* a new file once this one holds this many bytes; 0: never */
	uint64_t ns;		/* ... or is this old (wall clock); 0: never */
	unsigned max_files;	/* this recording's files kept on disk; 0: all */
};
/* recorder_open of the first file, BASE.<stamp>.  NULL after a one-line error. */
struct recorder *recorder_open_rotating(const char *base, const char *command_line,
					unsigned flags, const struct recorder_rotation *rot);
/* Non-zero for a recorder_open_rotating() recorder. */
int recorder_rotating(const struct recorder *r);
/* Its current file is as large or as old (wall: mt_now_ns) as a switch asks. */
int recorder_rotate_due(const struct recorder *r, uint64_t wall);
/*
 * The switch now, at now (the samples' clock, as recorder_tick): the
 * current file ends with the samples up to the merge horizon and an END
 * chunk of its own counts; the next file begins.  No-op before the file is
 * in place.  0, or -1 after a one-line error (the recording fails).
 */
int recorder_rotate(struct recorder *r, uint64_t now);
/* The file being written (rotating), else NULL; the number of files so far. */
const char *recorder_path(const struct recorder *r);
unsigned recorder_files(const struct recorder *r);

/*
 * The recording is under way (the record loop starts): the file takes
 * path's place, and from now on holds everything up to the last second
 * even if the collector is killed.  Before it, recorder_close() leaves path
 * as it was.  0, or -1 after a one-line error.
 */
int recorder_publish(struct recorder *r);

/* Header metadata (trace-format.md, HEADER keys); before recorder_begin. */
void recorder_meta(struct recorder *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * --labels: text (validated, labels.h format) that recorder_begin() writes
 * as a LABELS chunk after the HEADER.  Copied; before recorder_begin.
 */
void recorder_set_labels(struct recorder *r, const char *text, size_t len);

/* --mark-grain: span times stored in grains of 2^grain_log ns, start rounded
 * down and end up (default SPAN_ENC_GRAIN_LOG_NS; 0: exact).  Before
 * recorder_begin. */
void recorder_set_span_grain(struct recorder *r, unsigned grain_log);

/*
 * One span (record --mark): written with the next SPANS chunk (every tick,
 * and at the end).  label: len bytes, no NUL needed.  0.
 */
int recorder_add_span(struct recorder *r, uint64_t start, uint64_t end, uint32_t pid,
		      uint32_t tid, const char *label, size_t len, int open);

/*
 * Writes the HEADER chunk (the LABELS chunk) and a MAPS snapshot of pid (0 = none).  start is
 * the trace origin in the trace's time unit.  Returns 0 or -1.
 */
int recorder_begin(struct recorder *r, uint64_t start, pid_t pid);
/* The target is pid (its comm names the trace, its maps stay in the
 * table) without a snapshot now: a command before its exec.  Before
 * recorder_begin(r, start, 0) it is also the sides' pid (record --allocs
 * arms its probes for the command's exec). */
void recorder_set_target(struct recorder *r, pid_t pid);

/* recorder_begin's pid (the command's, the first -p pid), 0 before. */
pid_t recorder_target(const struct recorder *r);

/* Samples of one stream, time-ordered within the call. */
int recorder_add_samples(struct recorder *r, const struct memtrace_sample *s,
			 size_t n);

/* Counts perf/module reported: increments since the last call per CPU. */
int recorder_add_lost(struct recorder *r, uint64_t time, uint32_t cpu,
		      uint64_t lost, uint64_t throttled);

/*
 * DAMON regions of one aggregation (source damon): n rows of REGION_REC_SIZE
 * bytes (trace/writer.h trace_region_rec_put) written as one REGIONS chunk
 * now.  0 or -1.
 */
int recorder_add_regions(struct recorder *r, const void *rows, size_t len, uint32_t n);

/*
 * A pass-based source finished one observation pass over pid's memory (0:
 * every target) at time (the samples' clock): what is MEMTRACE_PASS_*
 * (memtrace/trace.h).  Kept and written as a PASSES chunk with the next
 * tick; a report calls a window with no pass blind.  0.
 */
int recorder_add_pass(struct recorder *r, uint64_t time, uint32_t pid, uint32_t what);

/*
 * record --pidfile: the target left at time (the samples' clock; pid: the
 * process that exited) and nothing is recorded until recorder_gap_end():
 * a gap, written as a GAPS row (trace-format.md) in which a report's
 * windows are blind, not idle.  A file that ends during the gap
 * (--switch-output, the recording's end) holds it up to its end.
 */
void recorder_gap_begin(struct recorder *r, uint64_t time, pid_t pid);
/* The next target is attached at time: the gap ends.  No gap: nothing. */
void recorder_gap_end(struct recorder *r, uint64_t time);

/* Module ring drops, total so far (END chunk and status line). */
void recorder_set_dropped(struct recorder *r, uint64_t dropped);

int recorder_note_thread(struct recorder *r, uint64_t time, uint32_t pid,
			 uint32_t tid, const char *comm);

/*
 * The samples are not of this machine's processes (an import): the recorder
 * never reads /proc; the source gives each process's maps with
 * recorder_put_maps().  Before recorder_begin().
 */
void recorder_offline(struct recorder *r);

/* Offline: pid's maps (text as /proc/PID/maps) from time on; a MAPS chunk. */
int recorder_put_maps(struct recorder *r, uint64_t time, pid_t pid, const char *text,
		      size_t len);

/* The target's mappings changed: snapshot /proc/PID/maps at the next tick. */
void recorder_maps_changed(struct recorder *r, pid_t pid);
/* Snapshot /proc/PID/maps now, stamped time (a MAPS chunk unless unchanged
 * or the process is gone). */
int recorder_snapshot_maps(struct recorder *r, pid_t pid, uint64_t time);
/* Time of the last /proc/PID/maps snapshot written of pid, 0 if none (or
 * none remembered: gone processes leave the table, maps_snapshot.c). */
uint64_t recorder_maps_time(struct recorder *r, pid_t pid);


/*
 * addr is known to lie in pid's main stack, which its maps show as an
 * anonymous mapping (valgrind's guest stack): from the next snapshot on,
 * that mapping is named [stack] in the trace.  No effect on named lines.
 */
void recorder_name_stack(struct recorder *r, pid_t pid, uint64_t addr);

/*
 * now: current time in the trace's time unit.  Flushes samples older than
 * the merge horizon, snapshots changed maps, redraws the status line.
 */
int recorder_tick(struct recorder *r, uint64_t now);

/*
 * A side tracer that writes chunks of its own (record --allocs).  begin:
 * in recorder_begin, before the HEADER is written (it may add metadata);
 * pid is the target (a command before its exec), 0 for -a.  tick: every
 * recorder_tick.  end: in recorder_end, before the END chunk.  Each returns
 * 0, or -1 after a one-line error (the recording fails).
 */
struct recorder_side {
	int (*begin)(void *state, struct recorder *r, pid_t pid);
	int (*tick)(void *state, struct recorder *r);
	int (*end)(void *state, struct recorder *r);
	void *state;
};
#define RECORDER_MAX_SIDES	4
/* Before recorder_begin; -1 when RECORDER_MAX_SIDES are there. */
int recorder_add_side(struct recorder *r, const struct recorder_side *side);
/* A side tracer's chunk (zstd), after the samples merged so far. */
int recorder_write_chunk(struct recorder *r, unsigned type, const void *raw, size_t len,
			 uint32_t count);

/*
 * record --metrics: the recorder also counts window_ns windows (interval =
 * window, 4 KiB pages, from the trace's start) of the merged samples, as
 * `report --window` does, and closes each once every sample up to its end
 * is merged (recorder_tick).  Before recorder_begin.
 */
void recorder_set_metrics_window(struct recorder *r, uint64_t window_ns);
/* Its counters and latest closed window (record/metrics.h), now. */
struct metrics_view;
void recorder_metrics_view(struct recorder *r, struct metrics_view *v);

/*
 * A key of the END chunk besides the recorder's own counts (a source's
 * totals known only at the end: -e buffer-requests' buffer_hits); before
 * recorder_end.  At most 8 keys, each line < 256 bytes.
 */
void recorder_end_meta(struct recorder *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Flushes everything and writes the END chunk. */
int recorder_end(struct recorder *r, const char *reason);

/* Closes the file; returns 0 if everything was written. */
int recorder_close(struct recorder *r);

uint64_t recorder_samples(const struct recorder *r);
/* --aggregate: an AGG chunk of n rows (trace/format.h) whose counts add up
 * to samples, of an interval ending at last: END's samples follow them */
int recorder_add_agg(struct recorder *r, const void *raw, size_t len, uint32_t n,
		     uint64_t samples, uint64_t last);
/* Non-zero once recorder_begin() succeeded. */
int recorder_begun(const struct recorder *r);

#endif
