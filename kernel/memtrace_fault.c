// SPDX-License-Identifier: GPL-2.0
/*
 * The hint-faults source's event (MEMTRACE_CFG_PAGE_FAULT_TP): perf's
 * tracepoint exceptions:page_fault_user as an in-kernel counter.
 *
 * The tracepoint fires in the x86 page-fault handler, in kernel mode and
 * before the fault is handled, for every fault taken in user mode
 * (arch/x86/mm/fault.c, trace_page_fault_entries()).  perf hands its record
 * to the overflow handler as the sample's raw data: struct trace_entry, then
 * address, ip and error_code (arch/x86/include/asm/trace/exceptions.h, the
 * same on 6.1 and 6.12).  The module keeps the address, the user ip and the
 * error code; which kind of fault it was (first touch, NUMA hint fault,
 * write-protect) the collector decides (user/source/hint.c).
 */
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/trace_events.h>

#include "memtrace.h"

/* Tells the collector before CONFIGURE that this module takes the flag. */
static bool hint_faults = true;
module_param(hint_faults, bool, 0444);
MODULE_PARM_DESC(hint_faults,
		 "Y: sessions may use MEMTRACE_CFG_PAGE_FAULT_TP (exceptions:page_fault_user, hint faults); read-only");

struct memtrace_fault_record {
	struct trace_entry ent;
	unsigned long address;
	unsigned long ip;
	unsigned long error_code;
};

/* The tracepoint's record as raw sample data, seen in kernel mode. */
void memtrace_fault_tune_attr(struct perf_event_attr *attr)
{
	attr->sample_type |= PERF_SAMPLE_RAW;
	/* regs are the fault handler's: page_fault_user sees user faults only */
	attr->exclude_kernel = 0;
}

/* 0 if ev is exceptions:page_fault_user, else -EINVAL. */
int memtrace_fault_check_event(struct perf_event *ev)
{
#ifdef CONFIG_EVENT_TRACING
	struct trace_event_call *call = ev->tp_event;
	const char *name = call ? trace_event_name(call) : NULL;

	if (name && !strcmp(name, "page_fault_user") && call->class &&
	    call->class->system && !strcmp(call->class->system, "exceptions"))
		return 0;
#endif
	return -EINVAL;
}

/*
 * Fills addr, ip and (as data_src) the error code of smp from the record;
 * false if there is no readable record of this event.  Overflow handler
 * context: reads only the record perf passed.
 */
bool memtrace_fault_fill(struct perf_event *event,
			 struct perf_sample_data *data, u32 fields,
			 struct memtrace_sample *smp)
{
	const struct memtrace_fault_record *rec;

	if (!(data->sample_flags & PERF_SAMPLE_RAW) || !data->raw ||
	    data->raw->frag.size < sizeof(*rec))
		return false;
	rec = data->raw->frag.data;
	if (rec->ent.type != (unsigned short)event->attr.config)
		return false;
	smp->addr = rec->address;
	if (fields & MEMTRACE_FIELD_IP)
		smp->ip = rec->ip;
	if (fields & MEMTRACE_FIELD_DATA_SRC)
		smp->data_src = rec->error_code;
	return true;
}
