// SPDX-License-Identifier: GPL-2.0
/* sample.bpf.c - memtrace's BPF programs (libbpf-tools style: one file per
 * program set, skeleton by bpftool, loaded by user/source/bpf/sample.c).
 *
 * on_fault runs on every user-mode page fault (tp_btf/page_fault_user),
 * on_sample on every overflow of the perf events the collector opens for
 * other events (one per CPU): each keeps the samples of the target (a tgid
 * bitmap kept up to date at fork and exec, or everything), drops kernel
 * addresses unless asked, and writes a struct mt_bpf_rec into one shared
 * ring buffer.  on_hint does the same for hint faults where on_fault does
 * not load (the tracepoint through its perf event).  A
 * full ring counts the sample in counts[0] of its CPU.  Returning 0 keeps the kernel
 * from also writing the sample into the perf event's own ring.
 */
#include "memtrace_vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "sample.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_mode = MT_BPF_FILTER_ALL;
const volatile bool keep_kernel = false;
/* PEBS/IBS: also the sample's weight and data source (perf_sample_data) */
const volatile bool want_weight = false;
/* wake the collector once this much is waiting (else it polls every 100 ms):
 * a wakeup per record would cost the collector a poll round per sample */
const volatile __u64 wakeup_bytes = 1 << 16;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* set by the collector before load */
} samples SEC(".maps");

/* per_cpu_rings: one ring per CPU instead (MEMTRACE_BPF_RING=percpu), made
 * and put here by the collector */
const volatile bool per_cpu_rings = false;

struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);	/* set to the possible CPUs */
	__type(key, __u32);
	__array(values, struct cpu_ring);
} cpu_rings SEC(".maps");

/*
 * -p trees and -- CMD: one bit per tgid below the pid_max read at load
 * (tgid_bits[tgid / 64] bit tgid % 64), set while the process is recorded.
 * The verifier inlines the array lookup: a few instructions where a hash
 * lookup costs some 150 per sample.  The tgids hash holds the rest: a
 * command before its exec (MT_BPF_TGID_AT_EXEC) and processes whose tgid
 * is beyond the bitmap (pid_max raised during the recording).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);	/* (pid_max + 63) / 64, set by the collector */
	__type(key, __u32);
	__type(value, __u64);
} tgid_bits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MT_BPF_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* [0]: samples dropped (ring full), [1]: samples produced (kept by the
 * filter: written + dropped), [2]: on_fault's faults since its last sample
 * (period > 1), per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &which);

#ifdef MEMTRACE_BPF_BREAK
	/* tests/harness/bpf_break.sh: a write past the map value, which the
	 * verifier refuses */
	if (c)
		c[64]++;
#endif
	if (c)
		(*c)++;
}

/*
 * The program's context is really the kernel's struct
 * bpf_perf_event_data_kern { regs, data, event } (bpf_overflow_handler);
 * the uapi view has no weight or data source, so they are read from
 * ctx->data (a struct perf_sample_data, CO-RE) with probe reads.  The
 * kernel fills them before the overflow handler when sample_type asks.
 */
static __always_inline void read_weight(struct bpf_perf_event_data *ctx, struct mt_bpf_rec *r)
{
	struct perf_sample_data *data = 0;
	__u64 w = 0;

	if (bpf_probe_read_kernel(&data, sizeof(data), (void *)ctx + sizeof(void *)) || !data)
		return;
	/* u64 before 5.12, then union perf_sample_weight: 8 bytes either way */
	bpf_probe_read_kernel(&w, sizeof(w), (void *)data + bpf_core_field_offset(data->weight));
	r->weight = w > 0xffffffffULL ? 0xffffffffU : (__u32)w;
	bpf_probe_read_kernel(&r->data_src, sizeof(r->data_src), (void *)data +
			      bpf_core_field_offset(data->data_src));
}

/* The ring for this CPU's records; NULL counts the sample as dropped. */
static __always_inline void *ring_of_cpu(void)
{
	__u32 cpu;

	if (!per_cpu_rings)
		return &samples;
	cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&cpu_rings, &cpu);
}

static __always_inline bool tgid_on(__u32 tgid)
{
	__u32 word = tgid / 64;
	__u64 *w = bpf_map_lookup_elem(&tgid_bits, &word);
	__u8 *on;

	if (w)
		return (*w >> (tgid % 64)) & 1;
	on = bpf_map_lookup_elem(&tgids, &tgid);
	return on && *on == MT_BPF_TGID_ON;
}

static __always_inline bool tgid_recorded(__u32 tgid)
{
	return filter_mode != MT_BPF_FILTER_TGIDS || tgid_on(tgid);
}

/* tgid is recorded from now on */
static __always_inline void tgid_set_on(__u32 tgid)
{
	__u32 word = tgid / 64;
	__u64 *w = bpf_map_lookup_elem(&tgid_bits, &word);
	__u8 on = MT_BPF_TGID_ON;

	if (w)
		__sync_fetch_and_or(w, 1ULL << (tgid % 64));
	else
		bpf_map_update_elem(&tgids, &tgid, &on, BPF_ANY);
}

/* --aggregate (sample.h): the interval, bucket and map */
const volatile bool aggregate = false;
const volatile __u64 agg_interval = 100000000;
const volatile __u32 agg_shift = 12;
__u64 agg_origin = 0;	/* the trace's start, set once it is known (0: interval 1) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);	/* set by the collector (--ring) */
	__type(key, struct mt_agg_key);
	__type(value, __u64);
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MT_AGG_SLOTS);
	__type(key, __u32);
	__type(value, struct mt_agg_slot);
} agg_slots SEC(".maps");

/* One access at addr by tgid: its (interval, pid, bucket) count + 1; a new
 * key the full map cannot take is counted in its interval's slot. */
static __always_inline void agg_count(__u32 tgid, __u64 addr)
{
	__u64 t = bpf_ktime_get_ns(), origin = agg_origin, one = 1, *v;
	struct mt_agg_key key = { .bucket = addr >> agg_shift, .pid = tgid };
	__u32 slot;
	struct mt_agg_slot *sl;

	key.k = origin && t > origin ? (__u32)((t - origin + agg_interval - 1) / agg_interval) : 1;
	slot = key.k % MT_AGG_SLOTS;
	sl = bpf_map_lookup_elem(&agg_slots, &slot);
	if (!sl)
		return;
	if (sl->k != key.k) {	/* this CPU's first sample of the interval */
		sl->k = key.k;
		sl->samples = 0;
		sl->full = 0;
	}
	sl->samples++;
	v = bpf_map_lookup_elem(&agg, &key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (!bpf_map_update_elem(&agg, &key, &one, BPF_NOEXIST))
		return;
	v = bpf_map_lookup_elem(&agg, &key);	/* another CPU inserted it first */
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		sl->full++;
}

static __always_inline void submit(void *ring, struct mt_bpf_rec *r)
{
	bpf_ringbuf_submit(r, bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
			   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/* A kept sample: counted (--aggregate), or a record into the ring. */
static __always_inline void emit(__u64 id, __u64 addr, __u64 ip, __u64 data_src)
{
	__u32 tgid = id >> 32;
	struct mt_bpf_rec *r;
	void *ring;

	if (aggregate) {
		agg_count(tgid, addr);
		return;
	}
	count(1);
	ring = ring_of_cpu();
	r = ring ? bpf_ringbuf_reserve(ring, sizeof(*r), 0) : NULL;
	if (!r) {
		count(0);
		return;
	}
	r->time = bpf_ktime_get_ns();
	r->addr = addr;
	r->ip = ip;
	r->pid = tgid;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->weight = 0;
	r->data_src = data_src;
	submit(ring, r);
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	__u64 addr = ctx->addr;
	struct mt_bpf_rec *r;
	void *ring;

	if (!tgid_recorded(tgid))
		return 0;
	if (!keep_kernel && (__s64)addr < 0)
		return 0;
	if (!want_weight) {
		emit(id, addr, ctx->regs.ip, 0);
		return 0;
	}
	if (aggregate) {
		agg_count(tgid, addr);
		return 0;
	}
	count(1);
	ring = ring_of_cpu();
	r = ring ? bpf_ringbuf_reserve(ring, sizeof(*r), 0) : NULL;
	if (!r) {
		count(0);
		return 0;
	}
	r->time = bpf_ktime_get_ns();
	r->addr = addr;
	r->ip = ctx->regs.ip;
	r->pid = tgid;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->weight = 0;
	r->data_src = 0;
	read_weight(ctx, r);
	submit(ring, r);
	return 0;
}

/*
 * hint-faults: every user page fault (exceptions:page_fault_user), NUMA
 * hinting faults among them.  A tracepoint runs each program attached to
 * it for every hit, whatever perf event carries it, so on_hint is attached
 * once and filters here: the tgid set, or the --cgroup (target_cgroup) and
 * its descendants.  The error code goes in data_src; the collector turns
 * it into the fault's kind (user/source/hint.c).
 */
const volatile bool filter_cgroup = false;

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target_cgroup SEC(".maps");

/* the tracepoint's record as its tracefs format gives it (the same since
 * 3.15, and what perf_hint.c reads): an 8-byte common header, then
 * address, ip and error_code; not every kernel's BTF has the struct */
struct mt_page_fault_user {
	__u64 common;
	__u64 address;
	__u64 ip;
	__u64 error_code;
};

SEC("tracepoint/exceptions/page_fault_user")
int on_hint(struct mt_page_fault_user *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!tgid_recorded(id >> 32))
		return 0;
	if (filter_cgroup && bpf_current_task_under_cgroup(&target_cgroup, 0) != 1)
		return 0;
	emit(id, ctx->address, ctx->ip, ctx->error_code);
	return 0;
}

/*
 * The same tracepoint as a BTF tracepoint (raw arguments, no perf event,
 * no tracefs): on_fault takes `-e page-faults` on x86 instead of the perf
 * software event and on_sample (a perf event's overflow path costs more
 * in the faulting task than the program), and hint-faults instead of
 * on_hint.  The tracepoint fires for every fault in user mode, before
 * the kernel handles it; the software event (exclude_kernel) counts the
 * same faults at user addresses, so kernel addresses are dropped as there.
 * fault_period > 1: the target's every fault_period-th fault on each CPU
 * (its faults only: what a period means with -p and a command; per CPU,
 * like the perf events it replaces).  Page faults: data_src 0; hint
 * faults: the error code, as on_hint.
 */
const volatile __u64 fault_period = 1;
const volatile bool fault_error_code = false;

SEC("tp_btf/page_fault_user")
int on_fault(__u64 *ctx)
{
	__u64 addr = ctx[0];
	struct pt_regs *regs = (struct pt_regs *)ctx[1];
	__u64 id = bpf_get_current_pid_tgid();

	if (!tgid_recorded(id >> 32))
		return 0;
	if (filter_cgroup && bpf_current_task_under_cgroup(&target_cgroup, 0) != 1)
		return 0;
	if (!fault_error_code && (__s64)addr < 0)
		return 0;
	if (fault_period > 1) {
		__u32 key = 2;
		__u64 *left = bpf_map_lookup_elem(&counts, &key);

		if (!left || ++*left < fault_period)
			return 0;
		*left = 0;
	}
	emit(id, addr, regs->ip, fault_error_code ? ctx[2] : 0);
	return 0;
}

/* A new process of a recorded one is recorded from its first instruction. */
SEC("tp_btf/sched_process_fork")
int on_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	__u32 ptgid = parent->tgid, ctgid = child->tgid;

	if (filter_mode != MT_BPF_FILTER_TGIDS || ptgid == ctgid)
		return 0;
	if (tgid_on(ptgid))
		tgid_set_on(ctgid);
	return 0;
}

/* The last thread of a recorded process exits: it leaves the set (-p ends
 * once the set is empty, as the module's session does; a reused pid is not
 * recorded). */
SEC("tp_btf/sched_process_exit")
int on_exit(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	__u32 tgid = p->tgid, word = tgid / 64;
	__u64 *w;

	if (filter_mode != MT_BPF_FILTER_TGIDS || p->signal->live.counter)
		return 0;
	w = bpf_map_lookup_elem(&tgid_bits, &word);
	if (w)
		__sync_fetch_and_and(w, ~(1ULL << (tgid % 64)));
	bpf_map_delete_elem(&tgids, &tgid);	/* a command that never reached its exec */
	return 0;
}

/* -- CMD: recorded from its exec on (perf's enable_on_exec). */
SEC("tp_btf/sched_process_exec")
int on_exec(__u64 *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, word = tgid / 64;
	__u8 on = MT_BPF_TGID_ON, *p = bpf_map_lookup_elem(&tgids, &tgid);
	__u64 *w;

	if (!p || *p != MT_BPF_TGID_AT_EXEC)
		return 0;
	w = bpf_map_lookup_elem(&tgid_bits, &word);
	if (!w) {
		bpf_map_update_elem(&tgids, &tgid, &on, BPF_EXIST);
		return 0;
	}
	__sync_fetch_and_or(w, 1ULL << (tgid % 64));
	bpf_map_delete_elem(&tgids, &tgid);
	return 0;
}
