// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU sample rings of a session.
 *
 * One area holds a ring per possible CPU, ring_bytes apart.  Each ring is
 * a header page (struct memtrace_ring_header) followed by ring_records
 * fixed-size records.  The collector maps the area read-only and advances
 * tail through MEMTRACE_IOC_CONSUME.
 *
 * The area is order-0 pages charged to the memory cgroup of the task that
 * configures the session (GFP_KERNEL_ACCOUNT; vmalloc_user() takes no gfp
 * flags and __vmalloc_node_range() is not exported), each from its CPU's
 * node, vmapped with VM_USERMAP so that remap_vmalloc_range() maps it (as
 * the BPF ring buffer does).  An allocation past the cgroup's limit or
 * free memory fails with -ENOMEM instead of invoking the OOM killer
 * (__GFP_RETRY_MAYFAIL).
 *
 * Producer: the perf overflow handler on the ring's own CPU (NMI, IRQ or a
 * preemption-disabled software-event path).  It never blocks and takes no
 * lock; a second producer nesting on the same CPU (an interrupt-driven event
 * firing inside another overflow of the same session) is detected with a
 * local busy flag and its sample is dropped and counted.  A full ring drops
 * the new sample and counts it: unread records are never overwritten.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "memtrace.h"

/* perf's mark for a throttled event (kernel/events/core.c, not exported) */
#define MEMTRACE_PERF_THROTTLED	(~0ULL)

#define MEMTRACE_RING_GFP (GFP_KERNEL_ACCOUNT | __GFP_ZERO | \
			   __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static int memtrace_area_alloc(struct memtrace_session *s)
{
	unsigned long per_cpu = s->ring_bytes >> PAGE_SHIFT, i;

	s->nr_pages = s->area_bytes >> PAGE_SHIFT;
	s->pages = kvcalloc(s->nr_pages, sizeof(*s->pages),
			    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!s->pages)
		return -ENOMEM;
	for (i = 0; i < s->nr_pages; i++) {
		unsigned int cpu = i / per_cpu;
		int node = cpu_possible(cpu) ? cpu_to_node(cpu) : NUMA_NO_NODE;

		s->pages[i] = alloc_pages_node(node, MEMTRACE_RING_GFP, 0);
		if (!s->pages[i])
			return -ENOMEM;
		if (!(i & 1023)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	s->area = vmap(s->pages, s->nr_pages, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	return s->area ? 0 : -ENOMEM;
}

static void memtrace_area_free(struct memtrace_session *s)
{
	unsigned long i;

	if (s->area)
		vunmap(s->area);
	for (i = 0; s->pages && i < s->nr_pages; i++)
		if (s->pages[i])
			__free_page(s->pages[i]);
	kvfree(s->pages);
	s->area = NULL;
	s->pages = NULL;
	s->nr_pages = 0;
}

int memtrace_rings_alloc(struct memtrace_session *s)
{
	u32 n = s->cfg.ring_records;
	unsigned int cpu;
	int ret;

	s->ring_bytes = PAGE_ALIGN(PAGE_SIZE +
				   (size_t)n * sizeof(struct memtrace_sample));
	s->area_bytes = s->ring_bytes * nr_cpu_ids;
	if (s->area_bytes > MEMTRACE_MAX_TOTAL_RING_BYTES)
		return -EINVAL;
	ret = memtrace_check_ring_bytes(s->area_bytes);
	if (ret)
		return ret;

	s->rings = kcalloc(nr_cpu_ids, sizeof(*s->rings), GFP_KERNEL_ACCOUNT);
	if (!s->rings)
		return -ENOMEM;
	ret = memtrace_area_alloc(s);
	if (ret) {
		memtrace_rings_free(s);
		return ret;
	}

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct memtrace_ring *r = &s->rings[cpu];
		char *base = (char *)s->area + cpu * s->ring_bytes;

		r->hdr = (struct memtrace_ring_header *)base;
		r->rec = (struct memtrace_sample *)(base + PAGE_SIZE);
		local_set(&r->busy, 0);
		local64_set(&r->dropped, 0);
		local64_set(&r->throttled, 0);
		local64_set(&r->lost, 0);
		local_set(&r->countdown, 0);
		r->wake_at = s->cfg.wakeup_records;
		r->hdr->ring_records = n;
		r->hdr->record_size = sizeof(struct memtrace_sample);
		r->hdr->cpu = cpu;
	}
	return 0;
}

void memtrace_rings_free(struct memtrace_session *s)
{
	memtrace_area_free(s);
	kfree(s->rings);
	s->rings = NULL;
}

/* A sample lost on the ring's own CPU: counted, mirrored in the header. */
static void memtrace_ring_drop(struct memtrace_ring *r)
{
	local64_inc(&r->dropped);
	WRITE_ONCE(r->hdr->dropped, local64_read(&r->dropped));
}

/*
 * The slot for the next record of ring r, or NULL (dropped, counted: a
 * nested producer or a full ring).  Non-NULL: the caller fills the slot
 * and calls memtrace_ring_commit().  On the ring's own CPU: NMI, IRQ or
 * preemption disabled.
 */
static __always_inline struct memtrace_sample *
memtrace_ring_reserve(struct memtrace_session *s, struct memtrace_ring *r,
		      u64 *unread)
{
	struct memtrace_ring_header *h = r->hdr;
	u64 head, tail;

	if (unlikely(local_cmpxchg(&r->busy, 0, 1) != 0)) {
		memtrace_ring_drop(r);
		return NULL;
	}
	head = h->head;				/* only we write head */
	tail = smp_load_acquire(&h->tail);	/* pairs with consume */
	*unread = head - tail;
	if (unlikely(*unread >= s->cfg.ring_records)) {
		memtrace_ring_drop(r);
		barrier();
		local_set(&r->busy, 0);
		return NULL;
	}
	return &r->rec[head & (s->cfg.ring_records - 1)];
}

static __always_inline void memtrace_ring_commit(struct memtrace_session *s,
						 struct memtrace_ring *r,
						 u64 unread)
{
	struct memtrace_ring_header *h = r->hdr;

	smp_store_release(&h->head, h->head + 1);	/* record before head */
	if (unread + 1 == r->wake_at)
		irq_work_queue(&s->wake_work);
	barrier();
	local_set(&r->busy, 0);
}

/* Producer on the ring's own CPU: NMI, IRQ or preemption disabled. */
void memtrace_ring_push(struct memtrace_session *s,
			const struct memtrace_sample *smp)
{
	struct memtrace_ring *r;
	struct memtrace_sample *slot;
	u64 unread;

	if (unlikely(smp->cpu >= nr_cpu_ids))
		return;
	r = &s->rings[smp->cpu];
	slot = memtrace_ring_reserve(s, r, &unread);
	if (!slot)
		return;
	*slot = *smp;
	memtrace_ring_commit(s, r, unread);
}

/*
 * The page-fault probe's producer (memtrace_probe.c): a user-mode fault of
 * a traced task, in the fault handler with preemption (and interrupts)
 * off.  The record is what the perf path writes for the software
 * page-fault event (addr, user ip) and, for MEMTRACE_CFG_PAGE_FAULT_TP,
 * the tracepoint (the same, with the error code as data_src).  Period N:
 * every N-th fault of the session's targets on each CPU.
 */
void memtrace_ring_fault(struct memtrace_session *s, unsigned long address,
			 struct pt_regs *regs, unsigned long error_code)
{
	unsigned int cpu = smp_processor_id();
	struct memtrace_ring *r = &s->rings[cpu];
	struct memtrace_sample *slot;
	u32 fields = s->cfg.fields;
	u64 unread;

	if (unlikely(s->cfg.sample_period > 1)) {
		if (local_dec_return(&r->countdown) > 0)
			return;
		local_set(&r->countdown, (long)s->cfg.sample_period);
	}
	slot = memtrace_ring_reserve(s, r, &unread);
	if (!slot)
		return;
	slot->time = ktime_get_mono_fast_ns();
	slot->addr = address;
	slot->ip = fields & MEMTRACE_FIELD_IP ? instruction_pointer(regs) : 0;
	slot->pid = current->tgid;
	slot->tid = current->pid;
	slot->cpu = cpu;
	slot->weight = 0;
	slot->data_src = (fields & MEMTRACE_FIELD_DATA_SRC) &&
			 (s->cfg.flags & MEMTRACE_CFG_PAGE_FAULT_TP) ?
			 error_code : 0;
	memtrace_ring_commit(s, r, unread);
}

/* The perf overflow handler's path (compatible mode, software events). */
void memtrace_ring_produce(struct memtrace_session *s,
			   struct perf_event *event,
			   struct perf_sample_data *data, struct pt_regs *regs)
{
	unsigned int cpu = smp_processor_id();
	u32 fields = s->cfg.fields;
	struct memtrace_sample smp = {
		.time = ktime_get_mono_fast_ns(),
		.pid = current->tgid,
		.tid = current->pid,
		.cpu = cpu,
	};

	if (unlikely(event->hw.interrupts == MEMTRACE_PERF_THROTTLED))
		local64_inc(&s->rings[cpu].throttled);

	if (s->cfg.flags & MEMTRACE_CFG_PAGE_FAULT_TP) {
		if (likely(memtrace_fault_fill(event, data, fields, &smp)))
			memtrace_ring_push(s, &smp);
		else
			memtrace_ring_drop(&s->rings[cpu]);
		return;
	}
	if (data->sample_flags & PERF_SAMPLE_ADDR)
		smp.addr = data->addr;
	if (fields & MEMTRACE_FIELD_IP)
		smp.ip = instruction_pointer(regs);
	if ((fields & MEMTRACE_FIELD_WEIGHT) &&
	    (data->sample_flags & PERF_SAMPLE_WEIGHT_TYPE))
		smp.weight = (u32)min_t(u64, data->weight.full, U32_MAX);
	if ((fields & MEMTRACE_FIELD_DATA_SRC) &&
	    (data->sample_flags & PERF_SAMPLE_DATA_SRC))
		smp.data_src = data->data_src.val;
	memtrace_ring_push(s, &smp);
}

/* Hooked mode (kernel/pebs_hook.h): called in the PEBS drain, NMI. */
static void memtrace_pebs_sample(void *ctx, const struct memtrace_sample *smp)
{
	memtrace_ring_push(ctx, smp);
}

static void memtrace_pebs_lost(void *ctx, u64 nr)
{
	struct memtrace_session *s = ctx;

	local64_add(nr, &s->rings[smp_processor_id()].lost);
}

static void memtrace_pebs_throttled(void *ctx)
{
	struct memtrace_session *s = ctx;

	local64_inc(&s->rings[smp_processor_id()].throttled);
}

const struct memtrace_pebs_ops memtrace_pebs_ops = {
	.sample = memtrace_pebs_sample,
	.lost = memtrace_pebs_lost,
	.throttled = memtrace_pebs_throttled,
};

/* Tell the collector which mode START chose (ring headers, mapped). */
void memtrace_rings_set_mode(struct memtrace_session *s)
{
	u32 flags = s->large_pebs ? MEMTRACE_MODE_F_LARGE_PEBS : 0;
	u32 mode = s->mode == MEMTRACE_PEBS_MODE_HOOK ?
		   MEMTRACE_MODE_PEBS_HOOK : MEMTRACE_MODE_PERF_OVERFLOW;
	unsigned int cpu;

	if (s->fault_probe)
		mode = MEMTRACE_MODE_FAULT_PROBE;
	if (s->cfg.flags & MEMTRACE_CFG_ACCESSED)
		mode = MEMTRACE_MODE_ACCESSED;
	for_each_possible_cpu(cpu) {
		WRITE_ONCE(s->rings[cpu].hdr->mode, mode);
		WRITE_ONCE(s->rings[cpu].hdr->mode_flags, flags);
	}
}

int memtrace_ring_consume(struct memtrace_session *s,
			  const struct memtrace_consume *c)
{
	struct memtrace_ring_header *h;
	u64 head, tail;

	if (c->reserved || c->cpu >= nr_cpu_ids || !cpu_possible(c->cpu))
		return -EINVAL;
	h = s->rings[c->cpu].hdr;
	/* pairs with the release of head in the producer */
	head = smp_load_acquire(&h->head);
	tail = READ_ONCE(h->tail);
	if (c->tail < tail || c->tail > head)
		return -EINVAL;
	/*
	 * The caller's reads of the records come before the slots are reused:
	 * pairs with smp_load_acquire(&h->tail) in the producer.
	 */
	smp_store_release(&h->tail, c->tail);
	return 0;
}

/* any: true if any ring has unread data; else true at a wake watermark */
bool memtrace_rings_readable(struct memtrace_session *s, bool any)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct memtrace_ring_header *h = s->rings[cpu].hdr;
		/* pairs with the release of head in the producer */
		u64 unread = smp_load_acquire(&h->head) - READ_ONCE(h->tail);

		if (any ? unread > 0 : unread >= s->rings[cpu].wake_at)
			return true;
		if (!any && unread && READ_ONCE(h->dropped))
			return true;
	}
	return false;
}

void memtrace_rings_set_flags(struct memtrace_session *s, u32 flags)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(s->rings[cpu].hdr->flags, flags);
}

void memtrace_ring_stats(struct memtrace_session *s, unsigned int cpu,
			 struct memtrace_cpu_stats *st)
{
	struct memtrace_ring *r = &s->rings[cpu];

	/* pairs with the release of head in the producer */
	st->produced = smp_load_acquire(&r->hdr->head);
	st->dropped = local64_read(&r->dropped);
	st->lost = local64_read(&r->lost);	/* PEBS hook only */
	st->throttled = local64_read(&r->throttled);
}
