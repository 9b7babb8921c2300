/* mem_event.h - turning "-e EVENT" into a perf_event_attr.
 *
 * Hardware events are encoded by libpfm4 for the CPU at hand (Intel PEBS
 * memory events, AMD IBS op); the software page-fault event needs no PMU.
 */
#ifndef MEMTRACE_SOURCE_MEM_EVENT_H
#define MEMTRACE_SOURCE_MEM_EVENT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct mem_cpu;

struct mem_event {
	char name[128];		/* what was resolved, e.g. "MEM_INST_RETIRED:ALL_LOADS" */
	const char *alias;	/* the user's word: loads, page-faults, ... */
	const char *source;	/* pebs, ibs, page-faults */
	const char *sees;	/* one line: what this source can see */
	const char *sample_class;	/* what one sample is: first-touch, sampled-access */
	struct perf_event_attr attr;	/* type, config, config1, precise_ip */
	/* config of a core PMU event that must lead attr's event in a group
	 * (mem-loads-aux before a load-latency event on Sapphire Rapids);
	 * opened counting, never sampling; 0: none */
	uint64_t aux_config;
	uint64_t default_period;
	uint32_t fields;	/* MEMTRACE_FIELD_* the source fills */
	int skip_zero_addr;	/* drop samples without a data address (IBS) */
	int hint_faults;	/* exceptions:page_fault_user: address, ip, error code in RAW */
};

/*
 * Resolves name ("auto", "page-faults", "loads", "stores", "llc-miss-loads",
 * "load-latency", "ibs-op" or a libpfm4 event string).  0, or -1 with a
 * one-line reason and what to do in why.  For "auto" *fell_back is set when
 * the hardware PMU is missing and page faults were chosen.
 */
int mem_event_resolve(const char *name, struct mem_event *ev, int *fell_back,
		      char *why, size_t whylen);

/*
 * As mem_event_resolve (without "auto"'s fall-back flag) for the CPU cpu
 * instead of this machine's (source/mem_cpu.h): a test sets events up for
 * CPU models it does not run on.
 */
int mem_event_resolve_cpu(const struct mem_cpu *cpu, const char *name, struct mem_event *ev,
			  char *why, size_t whylen);

/* The perf backend's sample_type for ev: IP, TID, TIME, ADDR, ID, CPU and
 * what the event fills (WEIGHT, DATA_SRC, or a tracepoint's RAW). */
uint64_t mem_event_sample_type(const struct mem_event *ev);

/*
 * The perf backend's "auto": PMU memory events, then hint-faults (root,
 * NUMA balancing built in, the exceptions tracepoint), then page faults
 * (*fell_back set for either of the last two).  Other names as
 * mem_event_resolve, whose "auto" (the module backend's) has no hint
 * faults.
 */
int mem_event_resolve_auto(const char *name, struct mem_event *ev, int *fell_back,
			   char *why, size_t whylen);
/* The one line saying what "auto" fell back to (page faults, with their
 * kinds when hint faults were picked) on a machine without a PMU. */
void mem_event_say_fallback(const struct mem_event *ev);
/* NULL when "auto" can pick hint-faults here, else why not (in why). */
const char *mem_event_hint_unavailable(char *why, size_t whylen);

/*
 * The period to program: asked (-c N), or the event's default.  A sampled
 * hardware memory event (PEBS, IBS) counts with a fixed period; when it has
 * a prime factor <= 7 a one-line warning says that short loops alias with it
 * and names the next prime (docs/accuracy.md, "Fixed periods alias").
 */
uint64_t mem_event_period(const struct mem_event *ev, uint64_t asked);
/* Whether period aliases with loops of 2..7 accesses (a factor <= 7); the
 * smallest prime >= period in *prime.  Page faults and hint faults never. */
int mem_event_alias_risk(const struct mem_event *ev, uint64_t period, uint64_t *prime);

/* One line about the PMU of this machine for `memtracectl status`. */
void mem_event_pmu_summary(char *buf, size_t len);

/* kernel.perf_event_paranoid, or -9 when it cannot be read. */
int perf_event_paranoid(void);

/* Explains a perf_event_open errno for this event in one line. */
void mem_event_open_error(const struct mem_event *ev, int err, char *why, size_t whylen);

#endif
