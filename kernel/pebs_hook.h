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
 *   session: hooked = memtrace_pebs_hook_available() && <PEBS event>;
 *            memtrace_pebs_hook_tune_attr(&attr, hooked);
 *            attr.disabled = hooked;
 *            ev = perf_event_create_kernel_counter(&attr, cpu, task,
 *                                                  compat_handler, ctx);
 *            if (hooked) {
 *                    b = memtrace_pebs_hook_attach(ev, fields, &ops, ctx,
 *                                                  &large);
 *                    if (IS_ERR(b)) -> release ev, recreate it in the
 *                                      compatible mode
 *                    perf_event_enable(ev);
 *            }
 *   stop:    perf_event_release_kernel(ev);   (drains into the sink)
 *            ... synchronize_rcu();           (once for all events)
 *            memtrace_pebs_hook_free(b);
 *   unload:  memtrace_pebs_hook_exit();
 *
 * In hooked mode the overflow handler given to
 * perf_event_create_kernel_counter() is not called for PEBS records; the
 * sample callback gets them all.
 */
#ifndef _MEMTRACE_PEBS_HOOK_H
#define _MEMTRACE_PEBS_HOOK_H

#include <linux/types.h>
#include "../include/uapi/memtrace.h"

struct perf_event;
struct perf_event_attr;
struct memtrace_pebs_binding;

/* How PEBS samples reach memtrace; also the value reported to userspace. */
enum memtrace_pebs_mode {
	MEMTRACE_PEBS_MODE_COMPAT = 0,	/* overflow handler, PMI per sample */
	MEMTRACE_PEBS_MODE_HOOK = 1,	/* sink in the drain loop, large PEBS */
};

/*
 * Callbacks, run in NMI context (or IRQs off, when perf flushes the buffer at
 * a context switch) on the CPU that took the sample: they must not sleep or
 * take locks that are not NMI-safe.
 *
 * sample:    once per record.  time is CLOCK_MONOTONIC ns (back-dated from
 *            the record's TSC on PEBS format >= 3, else the drain time);
 *            pid/tid (current's tgid/pid) and cpu are filled in; ip, weight
 *            and data_src only when asked for (MEMTRACE_FIELD_*), else 0.
 * lost:      records the kernel dropped (PEBS collisions on formats < 3,
 *            undecodable records).  Optional.
 * throttled: perf throttled the event after this interrupt.  Optional.
 */
struct memtrace_pebs_ops {
	void (*sample)(void *ctx, const struct memtrace_sample *s);
	void (*lost)(void *ctx, u64 nr);
	void (*throttled)(void *ctx);
};

/* Module load: look the hook up (symbol_get).  Always returns 0. */
int memtrace_pebs_hook_init(void);
/* Module unload: drop the reference taken by memtrace_pebs_hook_init(). */
void memtrace_pebs_hook_exit(void);

/* The hook is present and not disabled by pebs_hook=0. */
bool memtrace_pebs_hook_available(void);

/* "perf-overflow" or "pebs-hook": for logs, status and the trace header. */
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
 * sampling) to @ops with @ctx.  @fields: MEMTRACE_FIELD_* to fill in.
 * *@large is set to whether the event got large PEBS.  @ops must outlive
 * the binding.  Returns a binding or ERR_PTR(-EOPNOTSUPP / -EINVAL / -EBUSY
 * / -ENOMEM); on error the event is untouched.  Process context.
 */
struct memtrace_pebs_binding *
memtrace_pebs_hook_attach(struct perf_event *event, u32 fields,
			  const struct memtrace_pebs_ops *ops, void *ctx,
			  bool *large);

/*
 * Ending a binding, two ways:
 *
 * memtrace_pebs_hook_detach(): the event lives on; stop delivering, wait
 * for drains in flight (synchronize_rcu()) and free the binding.  Disable
 * the event first if its last records should still reach the sink.  Might
 * sleep.
 *
 * memtrace_pebs_hook_free(): the event has been released with the binding
 * still attached (perf_event_release_kernel() drains the last records into
 * the sink) and a grace period has passed since (synchronize_rcu()); only
 * frees.  Lets a session end many events with one grace period.
 *
 * Both accept NULL.
 */
void memtrace_pebs_hook_detach(struct memtrace_pebs_binding *b);
void memtrace_pebs_hook_free(struct memtrace_pebs_binding *b);

#ifdef CONFIG_PERF_X86_PEBS_SINK_SELFTEST
struct x86_pebs_sink;
/*
 * Test kernels only (memtrace_selftest.c): a binding of @event with its
 * sink filled in as memtrace_pebs_hook_attach() fills it, but not handed
 * to x86_pebs_sink_attach() (the event is no PEBS event: the guest has no
 * PMU); the sink is for x86_pebs_sink_selftest_drain().  Ended with
 * memtrace_pebs_hook_free() like any binding.
 */
struct memtrace_pebs_binding *
memtrace_pebs_hook_bind_selftest(struct perf_event *event, u32 fields,
				 const struct memtrace_pebs_ops *ops, void *ctx);
struct x86_pebs_sink *
memtrace_pebs_binding_sink(struct memtrace_pebs_binding *b);
#endif

#endif /* _MEMTRACE_PEBS_HOOK_H */
