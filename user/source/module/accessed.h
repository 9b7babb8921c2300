/* accessed.h - the module's accessed-bit source (-e accessed): every pass
 * the module clears the accessed bits of the targets' pages and records the
 * pages it found set (include/uapi/memtrace.h, MEMTRACE_CFG_ACCESSED).
 * Here: the event's description, the trace's header keys, and the split
 * of the module's records into page samples and pass ends. */
#ifndef MEMTRACE_SOURCE_MODULE_ACCESSED_H
#define MEMTRACE_SOURCE_MODULE_ACCESSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/memtrace.h"

struct recorder;
struct mem_event;

#define ACCESSED_EVENT		"accessed"
#define ACCESSED_DEF_PASS_MS	1000u

struct accessed_state {
	uint64_t pass_ms;	/* pass period */
	bool flush;		/* TLB flush after clearing (default) */
	uint64_t passes;	/* pass records: one per process per pass */
	uint64_t partial;	/* of them, a busy mm not fully scanned */
	uint64_t pages;		/* page records (pages found accessed) */
	uint64_t ptes;		/* present 4 KiB pages looked at */
	uint64_t scan_ns;	/* time spent scanning */
	double *per_page;	/* ns per page of each scan (ACCESSED_COST_MAX) */
	size_t nper;
};

#define ACCESSED_COST_MAX	65536	/* scans whose cost the median takes */

/* Is name the accessed-bit event? */
bool accessed_is_event(const char *name);
/* The mem_event that the trace's header describes (no perf event). */
void accessed_event(struct mem_event *ev);
/* Header keys: what was counted, the pass period, the TLB flush. */
void accessed_meta(const struct accessed_state *a, struct recorder *r);
/* n records of a ring: page records to the recorder, pass records to
 * accessed_pass_end().  0 or -1 (the recorder failed). */
int accessed_add(struct accessed_state *a, struct recorder *r, const struct memtrace_sample *rec,
		 size_t n);
/* One process's scan of a pass ended at time (CLOCK_MONOTONIC ns). */
int accessed_pass_end(struct accessed_state *a, struct recorder *r, uint64_t time, pid_t pid,
		      bool partial);
/* One line on stderr: passes, pages found, cost (median ns per page). */
void accessed_summary(const struct accessed_state *a);
void accessed_free(struct accessed_state *a);

#endif
