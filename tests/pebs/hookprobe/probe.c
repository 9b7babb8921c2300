// SPDX-License-Identifier: GPL-2.0
/*
 * probe.c - hookprobe.ko, a test module around kernel/pebs_hook.c, for the boot check
 * (tests/pebs/boot-check.sh).  At load it runs the glue the way memtrace.ko
 * does and prints one "hookprobe: KEY=VALUE" line per fact:
 *
 *   available=0|1        memtrace_pebs_hook_init() found the hook
 *   mode=NAME            the mode name memtrace would report
 *   attach_sw=ERR        attach to a software event (must be refused)
 *   attach_null_ops=ERR  attach with no callbacks (must be refused)
 *   attach_pebs=ERR|large=0|1  attach to a PEBS load event, when the CPU
 *                        has one (none under qemu TCG: create=ERR instead)
 *
 * and stays loaded, doing nothing, until rmmod.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/perf_event.h>

#include "pebs_hook.h"

static void hookprobe_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
}

static void hookprobe_sample(void *ctx, const struct memtrace_sample *s)
{
}

static const struct memtrace_pebs_ops hookprobe_ops = {
	.sample = hookprobe_sample,
};

static const struct memtrace_pebs_ops hookprobe_no_ops;

static struct perf_event *hookprobe_event(u32 type, u64 config, u32 precise,
					  bool hooked)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = 1000,
		.precise_ip = precise,
		.exclude_kernel = 1,
		.disabled = 1,
	};

	memtrace_pebs_hook_tune_attr(&attr, hooked);
	return perf_event_create_kernel_counter(&attr, 0, NULL,
						hookprobe_overflow, NULL);
}

static void hookprobe_try(const char *what, struct perf_event *ev,
			  const struct memtrace_pebs_ops *ops)
{
	struct memtrace_pebs_binding *b;
	bool large = false;

	b = memtrace_pebs_hook_attach(ev, MEMTRACE_FIELDS_ALL, ops, NULL,
				      &large);
	if (IS_ERR(b)) {
		pr_info("hookprobe: %s=%ld\n", what, PTR_ERR(b));
		return;
	}
	pr_info("hookprobe: %s=0 large=%d\n", what, large);
	memtrace_pebs_hook_detach(b);
}

static int __init hookprobe_init(void)
{
	bool hooked;
	struct perf_event *ev;

	memtrace_pebs_hook_init();
	hooked = memtrace_pebs_hook_available();
	pr_info("hookprobe: available=%d\n", hooked);
	pr_info("hookprobe: mode=%s\n",
		memtrace_pebs_mode_name(hooked ? MEMTRACE_PEBS_MODE_HOOK :
						 MEMTRACE_PEBS_MODE_COMPAT));

	ev = hookprobe_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0,
			     hooked);
	if (IS_ERR(ev)) {
		pr_info("hookprobe: create_sw=%ld\n", PTR_ERR(ev));
	} else {
		hookprobe_try("attach_sw", ev, &hookprobe_ops);
		hookprobe_try("attach_null_ops", ev, &hookprobe_no_ops);
		perf_event_release_kernel(ev);
	}

	/* mem_inst_retired.all_loads (Skylake and later), precise 2 */
	ev = hookprobe_event(PERF_TYPE_RAW, 0x81d0, 2, hooked);
	if (IS_ERR(ev)) {
		pr_info("hookprobe: create_pebs=%ld\n", PTR_ERR(ev));
	} else {
		hookprobe_try("attach_pebs", ev, &hookprobe_ops);
		perf_event_release_kernel(ev);
	}

	memtrace_pebs_hook_exit();
	pr_info("hookprobe: done\n");
	return 0;
}

static void __exit hookprobe_exit(void)
{
}

module_init(hookprobe_init);
module_exit(hookprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memtrace PEBS hook glue probe (tests only)");
