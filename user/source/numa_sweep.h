/* numa_sweep.h - when the kernel's NUMA scanner begins a sweep of a
 * process, observed through the sched:sched_skip_vma_numa tracepoint
 * (Linux 6.7+), for the hint-faults source (hint.c).
 *
 * task_numa_work walks a process's mappings from mm->numa_scan_offset, a
 * scan step at a time, and advances mm->numa_scan_seq when it reaches the
 * end (offset back to 0).  Every step that begins a sweep starts at offset
 * 0, and its first mappings are the executable's read-only segments, which
 * it skips with this tracepoint (reason shared_ro) and numa_scan_offset 0:
 * so an event with offset 0 marks the start of a sweep (a step that only
 * continues one has the offset it stopped at).  /proc/PID/sched shows
 * only the advance at the end; with the start, a window that holds the
 * whole sweep is known even when the sweep took one step. */
#ifndef MEMTRACE_SOURCE_NUMA_SWEEP_H
#define MEMTRACE_SOURCE_NUMA_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_ring;

struct numa_sweep {
	int ncpus;
	int *fds;
	struct perf_ring *rings;
	bool open;
	uint64_t events, lost;
};

/* One event per CPU, filtered to offset 0 in the kernel.  0, or -1 where
 * the tracepoint or perf_event_open is not there (nothing opened; the
 * report then falls back to the advances alone); why says which. */
int numa_sweep_open(struct numa_sweep *s, char *why, size_t whylen);
/* Every sweep start read since the last call: fn(ctx, time, pid) with the
 * time (CLOCK_MONOTONIC ns) and the process (tgid) whose step it was. */
void numa_sweep_drain(struct numa_sweep *s, void (*fn)(void *ctx, uint64_t time, pid_t pid),
		      void *ctx);
void numa_sweep_close(struct numa_sweep *s);

#endif
