// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace_selftest.c - stand-in counters for end-to-end tests on a kernel
 * with CONFIG_PERF_X86_PEBS_SINK_SELFTEST and no PMU (memtrace_selftest.h).
 * Compiles to nothing on other kernels.
 */
#include "memtrace.h"

#ifdef CONFIG_PERF_X86_PEBS_SINK_SELFTEST

#include <linux/module.h>
#include <linux/moduleparam.h>

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest,
		 "test kernels only: software dummy counters in place of hardware ones, for memtrace_selftest_run() (default 0)");

/* The session tests deliver to: the first that got a stand-in counter. */
static DEFINE_MUTEX(selftest_lock);
static struct memtrace_session *selftest_session;
static struct memtrace_selftest_target selftest_target;

bool memtrace_selftest_wanted(const struct memtrace_session *s)
{
	return selftest && s->cfg.event_type != PERF_TYPE_SOFTWARE &&
	       s->cfg.event_type != PERF_TYPE_TRACEPOINT;
}

struct perf_event *memtrace_selftest_counter(struct memtrace_session *s,
					     struct perf_event_attr *attr,
					     int cpu, struct task_struct *task,
					     perf_overflow_handler_t handler,
					     struct memtrace_pebs_binding **bp)
{
	struct memtrace_pebs_binding *b = NULL;
	struct perf_event *ev;

	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->config1 = 0;
	attr->config2 = 0;
	attr->precise_ip = 0;
	attr->disabled = 0;
	ev = perf_event_create_kernel_counter(attr, cpu, task, handler, s);
	if (IS_ERR(ev))
		return ev;
	if (s->mode == MEMTRACE_PEBS_MODE_HOOK) {
		b = memtrace_pebs_hook_bind_selftest(ev, s->cfg.fields,
						     &memtrace_pebs_ops, s);
		if (IS_ERR(b)) {
			perf_event_release_kernel(ev);
			return ERR_CAST(b);
		}
		s->large_pebs = false;	/* no PMU, no large PEBS */
	}
	*bp = b;
	mutex_lock(&selftest_lock);
	if (!selftest_session) {
		selftest_session = s;
		selftest_target.event = ev;
		selftest_target.sink = memtrace_pebs_binding_sink(b);
	}
	mutex_unlock(&selftest_lock);
	return ev;
}

void memtrace_selftest_stop(struct memtrace_session *s)
{
	mutex_lock(&selftest_lock);
	if (selftest_session == s) {
		selftest_session = NULL;
		selftest_target = (struct memtrace_selftest_target){};
	}
	mutex_unlock(&selftest_lock);
}

int memtrace_selftest_run(int (*fn)(const struct memtrace_selftest_target *t,
				    void *arg),
			  void *arg)
{
	int ret = -ENODEV;

	mutex_lock(&selftest_lock);
	if (selftest_session)
		ret = fn(&selftest_target, arg);
	mutex_unlock(&selftest_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(memtrace_selftest_run);

#endif /* CONFIG_PERF_X86_PEBS_SINK_SELFTEST */
