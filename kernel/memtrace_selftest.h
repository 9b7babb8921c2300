/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memtrace_selftest.h - memtrace.ko's test seam for kernels built with
 * CONFIG_PERF_X86_PEBS_SINK_SELFTEST (the debug kernel of
 * tests/kernel/debug-suite.sh; docs/pebs-hook.md, "End to end without a
 * PMU").  Elsewhere none of it exists.
 *
 * Loaded with selftest=1, memtrace.ko gives a session whose event needs a
 * PMU (any event but a software or tracepoint one) a software dummy
 * counter (PERF_COUNT_SW_DUMMY: never counts, never overflows) on the same
 * task or CPU in place of each hardware counter: the session starts on a
 * machine without a PMU, with its rings, targets, exit polling, STOP and
 * release unchanged.  In hooked mode each counter gets the binding (and
 * PEBS sink) memtrace_pebs_hook_attach() would give it, without
 * x86_pebs_sink_attach(): there is no PEBS event to attach it to.  What a
 * test then delivers reaches the rings through memtrace's own sink (hooked
 * mode) or overflow handler (perf-overflow mode).  What this bypasses:
 * creating and programming the hardware counter, x86_pebs_sink_attach()'s
 * checks, large PEBS, the PMI and perf's throttling of it.
 *
 * A test module calls memtrace_selftest_run() (symbol_get) from process
 * context; @fn runs with the first counter of the one running selftest
 * session, under a mutex that the session's STOP takes before it releases
 * its counters: @fn may sleep, and must be done with the sink and the
 * event (irq_work synced) when it returns.
 */
#ifndef _MEMTRACE_SELFTEST_H
#define _MEMTRACE_SELFTEST_H

#include <linux/types.h>

struct perf_event;
struct x86_pebs_sink;

struct memtrace_selftest_target {
	/* the counter: overflow_handler is memtrace's, its context the session */
	struct perf_event *event;
	/* hooked mode (pebs-hook): the counter's PEBS sink; else NULL */
	struct x86_pebs_sink *sink;
};

/*
 * Runs @fn(@t, @arg) with the running selftest session's first counter.
 * Returns what @fn returns; -ENODEV when no session is running with
 * selftest counters (not started, stopped, or selftest=0).
 */
int memtrace_selftest_run(int (*fn)(const struct memtrace_selftest_target *t,
				    void *arg),
			  void *arg);

#ifdef MEMTRACE_INTERNAL_H	/* memtrace.ko itself */
struct memtrace_session;
struct perf_event_attr;
struct task_struct;

#ifdef CONFIG_PERF_X86_PEBS_SINK_SELFTEST
/* selftest=1 and the session's event is not a software/tracepoint one */
bool memtrace_selftest_wanted(const struct memtrace_session *s);
/* the stand-in counter (and binding, hooked mode) for memtrace_counter() */
struct perf_event *memtrace_selftest_counter(struct memtrace_session *s,
					     struct perf_event_attr *attr,
					     int cpu, struct task_struct *task,
					     perf_overflow_handler_t handler,
					     struct memtrace_pebs_binding **bp);
/* STOP: no memtrace_selftest_run() sees the session after this */
void memtrace_selftest_stop(struct memtrace_session *s);
#else
static inline bool memtrace_selftest_wanted(const struct memtrace_session *s)
{
	return false;
}

static inline struct perf_event *
memtrace_selftest_counter(struct memtrace_session *s,
			  struct perf_event_attr *attr, int cpu,
			  struct task_struct *task,
			  perf_overflow_handler_t handler,
			  struct memtrace_pebs_binding **bp)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void memtrace_selftest_stop(struct memtrace_session *s)
{
}
#endif
#endif /* MEMTRACE_INTERNAL_H */

#endif /* _MEMTRACE_SELFTEST_H */
