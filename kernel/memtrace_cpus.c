// SPDX-License-Identifier: GPL-2.0
/*
 * System-wide sessions (-a): one counter per online CPU, kept by a
 * multi-instance CPU hotplug state: a CPU going offline has its counter
 * released, a CPU coming online gets a new one (from a work item, see
 * below).  The rings exist for every possible CPU.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/slab.h>

#include "memtrace.h"

static enum cpuhp_state memtrace_cpuhp_state;

/*
 * Creating or freeing a software counter flips a static key, which takes
 * cpus_read_lock(): a hotplug callback (which runs under the hotplug lock)
 * must not do it.  The callbacks only queue cpu_work; the work, outside the
 * hotplug lock, releases counters whose CPU went away (perf detached them:
 * state OFF) and creates counters for online CPUs that have none.
 */
static int memtrace_cpu_changed(unsigned int cpu, struct hlist_node *node)
{
	struct memtrace_session *s =
		hlist_entry(node, struct memtrace_session, cpuhp_node);

	schedule_work(&s->cpu_work);
	return 0;
}

static void memtrace_cpu_reconcile(struct memtrace_session *s)
{
	struct memtrace_pebs_binding *b;
	bool released = false;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct perf_event *ev = s->cpu_events[cpu];

		if (ev && (!cpu_online(cpu) ||
			   READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE)) {
			/* drains the last PEBS records into the sink */
			perf_event_release_kernel(ev);
			s->cpu_events[cpu] = NULL;
			released = true;
		}
	}
	/* hooked mode: bindings of released counters, after a grace period */
	if (released) {
		synchronize_rcu();
		for_each_possible_cpu(cpu) {
			if (s->cpu_events[cpu])
				continue;
			memtrace_pebs_hook_free(s->cpu_bindings[cpu]);
			s->cpu_bindings[cpu] = NULL;
		}
	}
	for_each_possible_cpu(cpu) {
		struct perf_event *ev;

		if (s->cpu_events[cpu] || !cpu_online(cpu))
			continue;
		ev = memtrace_counter(s, (int)cpu, NULL, &b);
		/* -ENODEV: it went offline again; the work runs again */
		if (IS_ERR(ev)) {
			if (PTR_ERR(ev) != -ENODEV)
				pr_info("memtrace: no counter on CPU %u: %ld\n",
					cpu, PTR_ERR(ev));
			continue;
		}
		s->cpu_events[cpu] = ev;
		s->cpu_bindings[cpu] = b;
	}
}

void memtrace_cpu_work(struct work_struct *work)
{
	struct memtrace_session *s =
		container_of(work, struct memtrace_session, cpu_work);

	mutex_lock(&s->lock);
	if (s->state == MT_RUNNING && s->cpu_events)
		memtrace_cpu_reconcile(s);
	mutex_unlock(&s->lock);
}

int memtrace_start_cpus(struct memtrace_session *s)
{
	struct memtrace_pebs_binding *b;
	unsigned int cpu;
	int ret;

	s->cpu_events = kcalloc(nr_cpu_ids, sizeof(*s->cpu_events),
				GFP_KERNEL_ACCOUNT);
	s->cpu_bindings = kcalloc(nr_cpu_ids, sizeof(*s->cpu_bindings),
				  GFP_KERNEL_ACCOUNT);
	if (!s->cpu_events || !s->cpu_bindings)
		return -ENOMEM;	/* memtrace_events_stop() frees the arrays */
	/* from here on every CPU coming or going queues cpu_work */
	ret = cpuhp_state_add_instance_nocalls(memtrace_cpuhp_state,
					       &s->cpuhp_node);
	if (ret)
		return ret;
	s->cpuhp_added = true;
	for_each_online_cpu(cpu) {
		struct perf_event *ev = memtrace_counter(s, (int)cpu, NULL, &b);

		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			if (ret == -ENODEV)	/* went offline meanwhile */
				continue;
			return ret;
		}
		s->cpu_events[cpu] = ev;
		s->cpu_bindings[cpu] = b;
	}
	return 0;
}

/* Releases the counters; the arrays and bindings wait for a grace period. */
void memtrace_stop_cpus(struct memtrace_session *s)
{
	unsigned int cpu;

	if (s->cpuhp_added)
		cpuhp_state_remove_instance_nocalls(memtrace_cpuhp_state,
						    &s->cpuhp_node);
	s->cpuhp_added = false;
	if (!s->cpu_events)
		return;
	for_each_possible_cpu(cpu) {
		/* drains the last PEBS records into the sink */
		if (s->cpu_events[cpu])
			perf_event_release_kernel(s->cpu_events[cpu]);
		s->cpu_events[cpu] = NULL;
	}
}

void memtrace_free_cpus(struct memtrace_session *s)
{
	unsigned int cpu;

	if (s->cpu_bindings)
		for_each_possible_cpu(cpu)
			memtrace_pebs_hook_free(s->cpu_bindings[cpu]);
	kfree(s->cpu_bindings);
	kfree(s->cpu_events);
	s->cpu_bindings = NULL;
	s->cpu_events = NULL;
}

int memtrace_events_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "memtrace:online",
				      memtrace_cpu_changed,
				      memtrace_cpu_changed);
	if (ret < 0)
		return ret;
	memtrace_cpuhp_state = ret;
	return 0;
}

void memtrace_events_exit(void)
{
	cpuhp_remove_multi_state(memtrace_cpuhp_state);
}
