// SPDX-License-Identifier: GPL-2.0
/*
 * pebs_hook.c - memtrace.ko's glue to the PEBS sink hook that
 * kernel/perf-pebs-hook.patch adds to arch/x86/events/intel/ds.c.
 *
 * The hook is looked up at load time with symbol_get(), so the module loads
 * and works (in the compatible mode) on kernels without the patch.  Built
 * against headers without the patch (no X86_PEBS_SINK_VERSION), the glue
 * compiles to "hook not available".
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "pebs_hook.h"

static bool pebs_hook = true;
module_param(pebs_hook, bool, 0444);
MODULE_PARM_DESC(pebs_hook,
		 "use the PEBS sink hook of a patched kernel when present (default 1; 0: compatible mode)");

const char *memtrace_pebs_mode_name(enum memtrace_pebs_mode mode)
{
	return mode == MEMTRACE_PEBS_MODE_HOOK ? "pebs-hook" : "perf-overflow";
}

void memtrace_pebs_hook_tune_attr(struct perf_event_attr *attr, bool hooked)
{
	attr->freq = 0;
	attr->watermark = 0;
	if (hooked) {
		/* What intel_pmu_hw_config() accepts for large PEBS. */
		attr->wakeup_events = 0;
		attr->sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_TID;
	} else {
		/* wakeup_events without watermark: no auto-reload, no large PEBS */
		attr->wakeup_events = 1;
	}
}

#ifdef X86_PEBS_SINK_VERSION

struct memtrace_pebs_binding {
	struct x86_pebs_sink sink;	/* handed to the kernel; ctx = this */
	struct perf_event *event;
	const struct memtrace_pebs_ops *ops;
	void *ctx;
};

static int (*hook_attach)(struct perf_event *event, struct x86_pebs_sink *sink);
static void (*hook_detach)(struct perf_event *event);

int memtrace_pebs_hook_init(void)
{
	if (!pebs_hook) {
		pr_info("memtrace: PEBS sink hook disabled (pebs_hook=0): compatible mode\n");
		return 0;
	}
	hook_attach = symbol_get(x86_pebs_sink_attach);
	hook_detach = symbol_get(x86_pebs_sink_detach);
	if (!hook_attach || !hook_detach) {
		if (hook_attach)
			symbol_put(x86_pebs_sink_attach);
		if (hook_detach)
			symbol_put(x86_pebs_sink_detach);
		hook_attach = NULL;
		hook_detach = NULL;
		pr_info("memtrace: no PEBS sink hook in this kernel: compatible mode (one interrupt per PEBS sample)\n");
		return 0;
	}
	pr_info("memtrace: PEBS sink hook v%d found: PEBS events use it with large PEBS\n",
		X86_PEBS_SINK_VERSION);
	return 0;
}

void memtrace_pebs_hook_exit(void)
{
	if (!hook_attach)
		return;
	symbol_put(x86_pebs_sink_attach);
	symbol_put(x86_pebs_sink_detach);
	hook_attach = NULL;
	hook_detach = NULL;
}

bool memtrace_pebs_hook_available(void)
{
	return hook_attach && hook_detach;
}

/* NMI context: no allocation, no locks; the binding is stable until detach. */
static void memtrace_pebs_sink_sample(struct perf_event *event,
				      const struct x86_pebs_sample *xs,
				      void *ctx)
{
	struct memtrace_pebs_binding *b = ctx;
	struct memtrace_sample s = {
		.time = xs->time,
		.addr = xs->addr,
		.ip = xs->ip,
		.weight = xs->weight,
		.data_src = xs->data_src,
		.cpu = smp_processor_id(),
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
	};

	b->ops->sample(b->ctx, &s);
}

static void memtrace_pebs_sink_lost(struct perf_event *event, u64 nr,
				    void *ctx)
{
	struct memtrace_pebs_binding *b = ctx;

	if (b->ops->lost)
		b->ops->lost(b->ctx, nr);
}

static void memtrace_pebs_sink_throttled(struct perf_event *event, void *ctx)
{
	struct memtrace_pebs_binding *b = ctx;

	if (b->ops->throttled)
		b->ops->throttled(b->ctx);
}

static u32 memtrace_pebs_sink_fields(u32 fields)
{
	u32 f = 0;

	if (fields & MEMTRACE_FIELD_IP)
		f |= X86_PEBS_SINK_IP;
	if (fields & MEMTRACE_FIELD_WEIGHT)
		f |= X86_PEBS_SINK_WEIGHT;
	if (fields & MEMTRACE_FIELD_DATA_SRC)
		f |= X86_PEBS_SINK_DATA_SRC;
	return f;
}

/* A binding with its sink filled in, not yet handed to the kernel. */
static struct memtrace_pebs_binding *
memtrace_pebs_binding_new(struct perf_event *event, u32 fields,
			  const struct memtrace_pebs_ops *ops, void *ctx)
{
	struct memtrace_pebs_binding *b;

	if (!event || !ops || !ops->sample)
		return ERR_PTR(-EINVAL);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	b->event = event;
	b->ops = ops;
	b->ctx = ctx;
	b->sink.sample = memtrace_pebs_sink_sample;
	b->sink.lost = memtrace_pebs_sink_lost;
	b->sink.throttled = memtrace_pebs_sink_throttled;
	b->sink.ctx = b;
	b->sink.fields = memtrace_pebs_sink_fields(fields);
	return b;
}

struct memtrace_pebs_binding *
memtrace_pebs_hook_attach(struct perf_event *event, u32 fields,
			  const struct memtrace_pebs_ops *ops, void *ctx,
			  bool *large)
{
	struct memtrace_pebs_binding *b;
	int ret;

	if (!memtrace_pebs_hook_available())
		return ERR_PTR(-EOPNOTSUPP);
	b = memtrace_pebs_binding_new(event, fields, ops, ctx);
	if (IS_ERR(b))
		return b;

	ret = hook_attach(event, &b->sink);
	if (ret < 0) {
		kfree(b);
		return ERR_PTR(ret);
	}
	if (large)
		*large = ret == X86_PEBS_SINK_LARGE;
	return b;
}

void memtrace_pebs_hook_detach(struct memtrace_pebs_binding *b)
{
	if (!b)
		return;
	hook_detach(b->event);	/* waits for drains in flight */
	kfree(b);
}

void memtrace_pebs_hook_free(struct memtrace_pebs_binding *b)
{
	kfree(b);
}

#ifdef CONFIG_PERF_X86_PEBS_SINK_SELFTEST
struct memtrace_pebs_binding *
memtrace_pebs_hook_bind_selftest(struct perf_event *event, u32 fields,
				 const struct memtrace_pebs_ops *ops, void *ctx)
{
	if (!memtrace_pebs_hook_available())
		return ERR_PTR(-EOPNOTSUPP);
	return memtrace_pebs_binding_new(event, fields, ops, ctx);
}

struct x86_pebs_sink *
memtrace_pebs_binding_sink(struct memtrace_pebs_binding *b)
{
	return b ? &b->sink : NULL;
}
#endif

#else /* !X86_PEBS_SINK_VERSION: headers of a kernel without the patch */

int memtrace_pebs_hook_init(void)
{
	pr_info("memtrace: built without the PEBS sink hook: compatible mode (one interrupt per PEBS sample)\n");
	return 0;
}

void memtrace_pebs_hook_exit(void)
{
}

bool memtrace_pebs_hook_available(void)
{
	return false;
}

struct memtrace_pebs_binding *
memtrace_pebs_hook_attach(struct perf_event *event, u32 fields,
			  const struct memtrace_pebs_ops *ops, void *ctx,
			  bool *large)
{
	return ERR_PTR(-EOPNOTSUPP);
}

void memtrace_pebs_hook_detach(struct memtrace_pebs_binding *b)
{
}

void memtrace_pebs_hook_free(struct memtrace_pebs_binding *b)
{
}

#endif /* X86_PEBS_SINK_VERSION */
