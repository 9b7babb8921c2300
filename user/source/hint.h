/* hint.h - the hint-faults source's state, whichever backend carries the
 * exceptions:page_fault_user records (perf_hint.c for the perf backend,
 * bpf.c's on_hint program): NUMA balancing on for the recording and put
 * back, each fault's kind, the lines that say what cannot be seen here. */
#ifndef MEMTRACE_SOURCE_HINT_H
#define MEMTRACE_SOURCE_HINT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/fault_kind.h"
#include "source/numa_sweep.h"
#include "source/numa_balancing.h"
#include "source/source.h"

struct recorder;

/* /proc/PID/sched polled for the NUMA scan passes (hint_passes) */
#define HINT_POLL_NS		100000000ull	/* each target's numa_scan_seq this often */
#define HINT_RESCAN_NS		1000000000ull	/* the targets' processes this often */
#define HINT_MAX_WATCHED	64		/* processes polled: ~27 us a read, 1.7 % of a CPU at most */

/* A sweep is partial when the mappings it skipped (scan delay, inactive
 * pid) hold at least 1 / HINT_PARTIAL_SHARE of the process's resident
 * memory: their re-accesses in its windows were not seen. */
#define HINT_PARTIAL_SHARE	10

struct hint_watch {
	pid_t pid;
	uint64_t seq;
	uint64_t start;		/* the first sweep start read since seen_at, 0: none */
	uint64_t seen_at;	/* when its last advance was read */
	struct hint_skip { uint64_t start, end; } *skip;	/* mappings skipped since seen_at */
	size_t nskips, skipcap;
};

struct hint_state {
	struct numa_balancing nb;
	bool active;			/* hint_open ran: restore at the end */
	struct fault_kinds fk;
	uint64_t vm_hint_start;		/* /proc/vmstat numa_hint_faults at the start */
	/* NUMA scan passes: the targets' processes and their last numa_scan_seq */
	const struct record_opts *o;	/* -p, --cgroup (NULL: -a, nothing polled) */
	struct hint_watch watch[HINT_MAX_WATCHED];
	int nwatch;
	uint64_t polled_at, rescanned_at;	/* CLOCK_MONOTONIC ns */
	uint64_t passes;
	struct numa_sweep sweep;	/* the sweeps' starts (numa_sweep.h), if open */
	char sweep_why[160];		/* why not */
	uint64_t starts;		/* sweeps whose start was recorded */
	uint64_t partial;		/* sweeps recorded partial */
};

/* NUMA balancing on (scan period from o), the targets' resident pages
 * seeded, what this machine cannot show said on stderr.  0 or -1 (said). */
int hint_open(struct hint_state *h, const struct record_opts *o);
/* The trace's fault_kinds, numa_balancing, numa_nodes, scan_period_ms. */
void hint_meta(struct hint_state *h, struct recorder *r);
/*
 * The NUMA scan passes seen since the last call, every HINT_POLL_NS: each
 * target process whose /proc/PID/sched mm->numa_scan_seq advanced (the
 * scanner reached the end of its address space, task_numa_work's
 * reset_ptenuma_scan: a sweep since the previous advance ended) gets a
 * recorder_add_pass(MEMTRACE_PASS_NUMA_SCAN) at now (CLOCK_MONOTONIC ns, at
 * most HINT_POLL_NS after the advance: HEADER pass_lag).  Where the sweep's
 * start was seen (numa_sweep.h) after the previous advance was read, a
 * MEMTRACE_PASS_NUMA_SWEEP_START row at that start comes first: the report
 * then knows the sweep lay in [start, advance].  A sweep that skipped
 * mappings holding HINT_PARTIAL_SHARE of the process's resident memory
 * (numa_sweep.h; /proc/PID/smaps at the advance) is recorded
 * MEMTRACE_PASS_NUMA_SCAN_PARTIAL instead: its windows are not seen.
 * -a: none.
 */
void hint_passes(struct hint_state *h, struct recorder *r, uint64_t now);
/* The data_src of one fault: its kind (MEMTRACE_FAULT_*) and load/store. */
uint64_t hint_classify(struct hint_state *h, pid_t pid, uint64_t addr, uint64_t error_code);
/* Restores NUMA balancing (idempotent); report: one line of counts. */
void hint_close(struct hint_state *h, bool report);

#endif
