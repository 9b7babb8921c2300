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
#include "source/numa_balancing.h"
#include "source/source.h"

struct recorder;

struct hint_state {
	struct numa_balancing nb;
	bool active;			/* hint_open ran: restore at the end */
	struct fault_kinds fk;
	uint64_t vm_hint_start;		/* /proc/vmstat numa_hint_faults at the start */
};

/* NUMA balancing on (scan period from o), the targets' resident pages
 * seeded, what this machine cannot show said on stderr.  0 or -1 (said). */
int hint_open(struct hint_state *h, const struct record_opts *o);
/* The trace's fault_kinds, numa_balancing, numa_nodes, scan_period_ms. */
void hint_meta(struct hint_state *h, struct recorder *r);
/* The data_src of one fault: its kind (MEMTRACE_FAULT_*) and load/store. */
uint64_t hint_classify(struct hint_state *h, pid_t pid, uint64_t addr, uint64_t error_code);
/* Restores NUMA balancing (idempotent); report: one line of counts. */
void hint_close(struct hint_state *h, bool report);

#endif
