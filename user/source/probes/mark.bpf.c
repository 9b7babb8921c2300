// SPDX-License-Identifier: GPL-2.0
/* mark.bpf.c - record --mark: a start and an end probe (USDT through
 * libbpf's usdt.bpf.h, or uprobe/uretprobe on a function) write one
 * struct mt_mark_rec each into a ring buffer; the collector
 * (user/source/probes/mark.c) pairs them per thread into spans.  The start
 * probe's argument arg_index (a string read with
 * bpf_probe_read_user_str, or an integer) becomes the span's label.  A
 * full ring counts the record in lost[0]. */
#include "memtrace_vmlinux.h"
/* bpf_tracing.h: the kernel's struct pt_regs names (ip, di, ...) */
#define __VMLINUX_H__
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "mark.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 label_kind = MT_MARK_LABEL_STR;
const volatile __u32 arg_index = 0;
#include "probe_tgids.bpf.h"
/* wake the collector once a quarter of the ring waits (else it drains every
 * 100 ms): a wakeup per record would cost a record-loop round per probe */
#define MARK_RING_BYTES (4 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MARK_RING_BYTES);
} marks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline int emit(__u32 kind, long arg)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!tgid_wanted(id >> 32))
		return 0;
	struct mt_mark_rec *r = bpf_ringbuf_reserve(&marks, sizeof(*r), 0);
	if (!r) {
		__u32 k = 0;
		__u64 *c = bpf_map_lookup_elem(&lost, &k);
		if (c)
			(*c)++;
		return 0;
	}
	r->time = bpf_ktime_get_ns();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->kind = kind;
	r->len = 0;
	r->value = arg;
	r->label[0] = 0;
	if (kind == MT_MARK_START && label_kind == MT_MARK_LABEL_STR) {
		long n = bpf_probe_read_user_str(r->label, sizeof(r->label), (const void *)arg);
		r->len = n > 0 ? n - 1 : -1;
	}
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&marks, BPF_RB_AVAIL_DATA) >= MARK_RING_BYTES / 4 ?
				 BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline long uprobe_arg(struct pt_regs *ctx)
{
	/* every register read with a constant offset (the verifier refuses a
	 * context pointer moved by a variable), then picked from the stack */
	long v[5] = { PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
		      PT_REGS_PARM4(ctx), PT_REGS_PARM5(ctx) };
	__u32 i = arg_index;

	return i < 5 ? v[i] : 0;
}

SEC("usdt")
int usdt_start(struct pt_regs *ctx)
{
	long a = 0;

	bpf_usdt_arg(ctx, arg_index, &a);
	return emit(MT_MARK_START, a);
}

SEC("usdt")
int usdt_end(struct pt_regs *ctx)
{
	return emit(MT_MARK_END, 0);
}

SEC("uprobe")
int uprobe_start(struct pt_regs *ctx)
{
	return emit(MT_MARK_START, uprobe_arg(ctx));
}

SEC("uprobe")
int uprobe_end(struct pt_regs *ctx)
{
	return emit(MT_MARK_END, 0);
}
