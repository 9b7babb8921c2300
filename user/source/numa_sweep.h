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
 * whole sweep is known even when the sweep took one step.
 *
 * The same tracepoint says which mappings a sweep passed over without
 * arming their pages: reason scan_delay (a mapping younger than the scan
 * delay, in a process past its first sweep) and pid_inactive (the thread
 * that runs the scan has not faulted on it lately: in a multi-threaded
 * server the scanning thread is often not one that uses the buffer pool).
 * Their re-accesses in the sweep's windows are not seen (hint.c). */
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
	bool skips;		/* skipped mappings are read too (the format checked) */
	uint64_t events, lost;
};

#define NUMA_SKIP_SCAN_DELAY	3	/* enum numa_vmaskip_reason */
#define NUMA_SKIP_PID_INACTIVE	4

/* One event: a sweep's start (offset 0), or a mapping it skipped. */
struct numa_sweep_event {
	uint64_t time;			/* CLOCK_MONOTONIC ns */
	pid_t pid;			/* the process (tgid) whose step it was */
	uint64_t offset;		/* mm->numa_scan_offset: 0 at a sweep's start */
	uint64_t vm_start, vm_end;	/* the mapping skipped */
	uint32_t reason;		/* NUMA_SKIP_*, or another reason at offset 0 */
};

/* One event per CPU, filtered in the kernel to offset 0 and (where the
 * format has the fields this reads: s->skips) the two reasons above.  0,
 * or -1 where the tracepoint or perf_event_open is not there (nothing
 * opened; the report then falls back to the advances alone); why says
 * which. */
int numa_sweep_open(struct numa_sweep *s, char *why, size_t whylen);
/* Every event read since the last call, in each CPU's order. */
void numa_sweep_drain(struct numa_sweep *s,
		      void (*fn)(void *ctx, const struct numa_sweep_event *ev), void *ctx);
void numa_sweep_close(struct numa_sweep *s);

#endif
