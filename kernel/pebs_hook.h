/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pebs_hook.h - memtrace.ko's use of the PEBS sink hook
 * (kernel/perf-pebs-hook.patch, docs/pebs-hook.md).
 *
 * On a kernel with the patch, the PEBS drain loop hands every record of an
 * event memtrace created straight to memtrace (in NMI context), with large
 * PEBS on: one interrupt per buffer of records.  On a stock kernel the hook
 * is absent and memtrace stays in the compatible mode: large PEBS off, one
 * interrupt per sample through the perf overflow handler.
 *
 * Use from the module:
 *
 *   load:    memtrace_pebs_hook_init();      (looks the hook up, logs mode)
 *   session: hooked = memtrace_pebs_hook_available();
 *            memtrace_pebs_hook_tune_attr(&attr, hooked);
 *            attr.disabled = 1;
 *            ev = perf_event_create_kernel_counter(&attr, cpu, task,
 *                                                  compat_handler, ctx);
 *            if (hooked) {
 *                    b = memtrace_pebs_hook_attach(ev, fields, push, lost,
 *                                                  ctx, &large);
 *                    if (IS_ERR(b)) -> recreate ev in compatible mode
 *            }
 *            perf_event_enable(ev);
 *   stop:    perf_event_disable(ev);          (drains into the sink)
 *            memtrace_pebs_hook_detach(b);    (may sleep)
 *            perf_event_release_kernel(ev);
 *   unload:  memtrace_pebs_hook_exit();
 *
 * In hooked mode the overflow handler given to
 * perf_event_create_kernel_counter() is not called for PEBS records; the
 * sample callback gets them all.
 */
#ifndef _MEMTRACE_PEBS_HOOK_H
#define _MEMTRACE_PEBS_HOOK_H

#include <linux/types.h>
#include "memtrace_uapi.h"

struct perf_event;
struct perf_event_attr;
struct memtrace_pebs_binding;

/* How PEBS samples reach memtrace; also the value reported to userspace. */
enum memtrace_pebs_mode {
	MEMTRACE_PEBS_MODE_COMPAT = 0,	/* overflow handler, PMI per sample */
	MEMTRACE_PEBS_MODE_HOOK = 1,	/* sink in the drain loop, large PEBS */
};

/*
 * Called in NMI context (or IRQs off, at a context switch) on the CPU that
 * took the sample, once per record.  Must not sleep or take locks that are
 * not NMI-safe.  time is CLOCK_MONOTONIC ns; pid/tid/cpu are filled in;
 * ip/weight/data_src only when asked for (MEMTRACE_FIELD_*), else 0.
 */
typedef void (*memtrace_pebs_sample_fn)(void *ctx,
					const struct memtrace_sample *s);
/* Records the kernel dropped (PEBS collisions, undecodable records). */
typedef void (*memtrace_pebs_lost_fn)(void *ctx, u64 nr);

/* Module load: look the hook up (symbol_get).  Always returns 0. */
int memtrace_pebs_hook_init(void);
/* Module unload: drop the reference taken by memtrace_pebs_hook_init(). */
void memtrace_pebs_hook_exit(void);

/* The hook is present and not disabled by pebs_hook=0. */
bool memtrace_pebs_hook_available(void);

/* "compat" or "pebs-hook": for logs, status and the trace header. */
const char *memtrace_pebs_mode_name(enum memtrace_pebs_mode mode);

/*
 * Set the attr bits that decide large PEBS: hooked mode keeps them
 * compatible with it (fixed period, no wakeup_events, sample_type
 * PERF_SAMPLE_ADDR | PERF_SAMPLE_TID); compatible mode turns it off
 * (wakeup_events = 1), because with large PEBS a stock kernel sends all but
 * the last record of a buffer to perf_event_output(), which a kernel counter
 * cannot receive.  Leaves type, config*, sample_period, precise_ip and the
 * exclude_* bits alone.
 */
void memtrace_pebs_hook_tune_attr(struct perf_event_attr *attr, bool hooked);

/*
 * Hand the records of @event (created by the caller, disabled or not yet
 * sampling) to @sample.  @fields: MEMTRACE_FIELD_* to fill in.  @lost may be
 * NULL.  *@large is set to whether the event got large PEBS.
 * Returns a binding or ERR_PTR(-EOPNOTSUPP / -EINVAL / -EBUSY / -ENOMEM);
 * on error the event is untouched.  Process context (allocates).
 */
struct memtrace_pebs_binding *
memtrace_pebs_hook_attach(struct perf_event *event, u32 fields,
			  memtrace_pebs_sample_fn sample,
			  memtrace_pebs_lost_fn lost, void *ctx, bool *large);

/*
 * Stop delivering; waits for drains in flight (synchronize_rcu), so @ctx
 * may be freed afterwards.  Disable the event first so that its last
 * records are drained into the sink.  Might sleep.  NULL is a no-op.
 */
void memtrace_pebs_hook_detach(struct memtrace_pebs_binding *b);

#endif /* _MEMTRACE_PEBS_HOOK_H */
