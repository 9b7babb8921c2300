// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel perf counters that feed a session: how one counter is
 * created (memtrace_counter()) and a session's START/STOP of all of them.
 * The counters of a process target live in memtrace_task.c, those of a
 * system-wide session in memtrace_cpus.c.
 *
 * Locking: s->lock (a mutex) is taken before cpu_hotplug_lock (hotplug
 * instance add/remove, static keys of software counters) and perf's context
 * mutexes.  The hotplug callbacks take no lock; they only queue cpu_work.
 * cpu_work and exit_work take s->lock; release() cancels them without it.
 */
#include <linux/slab.h>

#include "memtrace.h"

static void memtrace_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	memtrace_ring_produce(event->overflow_handler_context, event, data,
			      regs);
}

/*
 * A PEBS event goes through the patched kernel's PEBS sink when the module
 * found the hook (kernel/pebs_hook.h): large PEBS on, records handed over in
 * the drain loop.  Otherwise (stock kernel, software events) perf calls
 * memtrace_overflow() once per sample, with large PEBS off.
 */
static bool memtrace_wants_hook(const struct memtrace_config *c)
{
	return c->precise_ip > 0 && c->event_type != PERF_TYPE_SOFTWARE &&
	       memtrace_pebs_hook_available();
}

/* The perf_event_attr of the session's counters (task: a per-task one). */
void memtrace_counter_attr(struct memtrace_session *s, bool task,
			   struct perf_event_attr *attr)
{
	const struct memtrace_config *c = &s->cfg;
	bool hooked = s->mode == MEMTRACE_PEBS_MODE_HOOK;

	*attr = (struct perf_event_attr){
		.size = sizeof(*attr),
		.type = c->event_type,
		.config = c->event_config,
		.config1 = c->event_config1,
		.config2 = c->event_config2,
		.sample_period = c->sample_period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		.precise_ip = c->precise_ip,
		.exclude_kernel = !(c->flags & MEMTRACE_CFG_KERNEL_ADDRS),
		.exclude_hv = 1,
		.inherit = task,
		.disabled = hooked,	/* enabled once the sink is attached */
	};
	if (c->fields & MEMTRACE_FIELD_WEIGHT)
		attr->sample_type |= PERF_SAMPLE_WEIGHT;
	if (c->fields & MEMTRACE_FIELD_DATA_SRC)
		attr->sample_type |= PERF_SAMPLE_DATA_SRC;
	/*
	 * Compatible mode: wakeup_events = 1, one overflow per record; on a
	 * stock kernel this keeps Intel large PEBS off, else perf would hand
	 * all but the last record of a PEBS buffer to perf_event_output() and
	 * never to us.  Hooked mode: the attr large PEBS needs.
	 */
	memtrace_pebs_hook_tune_attr(attr, hooked);
	if (c->flags & MEMTRACE_CFG_PAGE_FAULT_TP)
		memtrace_fault_tune_attr(attr);
}

struct perf_event *memtrace_counter(struct memtrace_session *s, int cpu,
				    struct task_struct *task,
				    struct memtrace_pebs_binding **bp)
{
	const struct memtrace_config *c = &s->cfg;
	bool hooked = s->mode == MEMTRACE_PEBS_MODE_HOOK;
	struct memtrace_pebs_binding *b;
	struct perf_event_attr attr;
	struct perf_event *ev;
	bool large = false;

	memtrace_counter_attr(s, !!task, &attr);
	*bp = NULL;
	if (memtrace_selftest_wanted(s))	/* test kernels, selftest=1 */
		return memtrace_selftest_counter(s, &attr, cpu, task,
						 memtrace_overflow, bp);
	ev = perf_event_create_kernel_counter(&attr, cpu, task,
					      memtrace_overflow, s);
	if (!IS_ERR(ev) && (c->flags & MEMTRACE_CFG_PAGE_FAULT_TP) &&
	    memtrace_fault_check_event(ev)) {
		perf_event_release_kernel(ev);	/* another tracepoint */
		return ERR_PTR(-EINVAL);
	}
	if (IS_ERR(ev) || !hooked)
		return ev;
	b = memtrace_pebs_hook_attach(ev, c->fields, &memtrace_pebs_ops, s,
				      &large);
	if (IS_ERR(b)) {
		perf_event_release_kernel(ev);
		return ERR_CAST(b);
	}
	if (!large)
		s->large_pebs = false;
	*bp = b;
	perf_event_enable(ev);
	return ev;
}

/* ---- session entry points (called with s->lock held) ---- */

void memtrace_session_init_events(struct memtrace_session *s)
{
	INIT_LIST_HEAD(&s->task_events);
	INIT_DELAYED_WORK(&s->exit_work, memtrace_exit_poll);
	INIT_WORK(&s->cpu_work, memtrace_cpu_work);
	memtrace_session_init_fork(s);
}

static int memtrace_events_start_mode(struct memtrace_session *s)
{
	int ret;

	if (s->cfg.flags & MEMTRACE_CFG_ACCESSED) {
		/* no counter: the page-table scanner (memtrace_scan.c) */
		ret = memtrace_scan_start(s);
		if (ret)
			return ret;
		schedule_delayed_work(&s->exit_work,
				      msecs_to_jiffies(MEMTRACE_EXIT_POLL_MS));
		return 0;
	}
	if (s->fault_probe) {
		/* perf's checks, the probes (memtrace_probe.c) */
		ret = memtrace_probe_start(s);
		if (ret) {
			memtrace_events_stop(s);
			return ret;
		}
	}
	if (s->cfg.flags & MEMTRACE_CFG_SYSTEM_WIDE) {
		/* the probe needs no counter and no CPU hotplug state */
		ret = s->fault_probe ? 0 : memtrace_start_cpus(s);
		if (ret)
			memtrace_events_stop(s);
		return ret;
	}

	ret = memtrace_start_task(s);
	if (ret) {
		memtrace_events_stop(s);
		return ret;
	}
	schedule_delayed_work(&s->exit_work,
			      msecs_to_jiffies(MEMTRACE_EXIT_POLL_MS));
	return 0;
}

int memtrace_events_start(struct memtrace_session *s)
{
	int ret;

	/* page faults: a probe on the fault tracepoint, no perf counter */
	s->fault_probe = memtrace_probe_wanted(&s->cfg);
	s->mode = !s->fault_probe && memtrace_wants_hook(&s->cfg) ?
		  MEMTRACE_PEBS_MODE_HOOK : MEMTRACE_PEBS_MODE_COMPAT;
	s->large_pebs = s->mode == MEMTRACE_PEBS_MODE_HOOK;
	ret = memtrace_events_start_mode(s);
	if ((ret == -EOPNOTSUPP || ret == -EINVAL) &&
	    s->mode == MEMTRACE_PEBS_MODE_HOOK) {
		/* a PEBS format or event the hook cannot take */
		pr_info("memtrace: PEBS sink refused the event (%d): %s mode\n",
			ret, memtrace_pebs_mode_name(MEMTRACE_PEBS_MODE_COMPAT));
		s->mode = MEMTRACE_PEBS_MODE_COMPAT;
		s->large_pebs = false;
		ret = memtrace_events_start_mode(s);
	}
	if (!ret)
		memtrace_rings_set_mode(s);
	return ret;
}

/*
 * Releases every counter.  perf_event_release_kernel() takes each counter
 * off its PMU; software events are found by their producers under RCU, so
 * wait a grace period before anyone may free the rings.  In hooked mode the
 * counters are released with their PEBS sink bindings still attached (the
 * release drains the last records into the sink); the same grace period
 * ends every drain that could still use a binding, then they are freed.
 */
void memtrace_events_stop(struct memtrace_session *s)
{
	bool had = s->cpu_events || s->cpu_bindings ||
		   !list_empty(&s->task_events);

	memtrace_selftest_stop(s);	/* no test delivers after this */
	memtrace_scan_stop(s);	/* no record is written after this */
	/* no probe runs after this (tracepoint_synchronize_unregister()) */
	memtrace_probe_stop(s);
	memtrace_stop_cpus(s);
	memtrace_stop_task(s);
	if (had)
		synchronize_rcu();
	memtrace_free_cpus(s);
	memtrace_free_task(s);
}
