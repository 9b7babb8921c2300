// SPDX-License-Identifier: GPL-2.0
/* bufreq.bpf.c - -e buffer-requests: PostgreSQL's buffer__read__start USDT
 * probe (ReadBuffer_common: every block a backend asks the shared buffer
 * pool for, hit or miss) writes one struct mt_bufreq_rec into a ring
 * buffer; buffer__read__done counts whether the pool had it (counts[]).
 * Requests of backend-local buffers (temporary tables, backend != -1) are
 * counted, not recorded: they are not the shared pool.  A full ring counts
 * the request as lost. */
#include "memtrace_vmlinux.h"
#define __VMLINUX_H__
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "bufreq.h"

char LICENSE[] SEC("license") = "GPL";

#include "../probes/probe_tgids.bpf.h"

/* 16 MiB: ~400,000 requests; the collector is woken at a quarter */
#define BUFREQ_RING_BYTES (16 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, BUFREQ_RING_BYTES);
} reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MT_BUFREQ_NCOUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void bump(__u32 k)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &k);

	if (c)
		(*c)++;
}

/* (fork, block, spc, db, rel, backend, is_extend) */
SEC("usdt")
int buffer_read_start(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	long fork = 0, block = 0, spc = 0, db = 0, rel = 0, backend = 0, ext = 0;

	if (!tgid_wanted(id >> 32))
		return 0;
	bpf_usdt_arg(ctx, 5, &backend);
	if ((int)backend != -1) {
		bump(MT_BUFREQ_LOCAL);
		return 0;
	}
	bpf_usdt_arg(ctx, 0, &fork);
	bpf_usdt_arg(ctx, 1, &block);
	bpf_usdt_arg(ctx, 2, &spc);
	bpf_usdt_arg(ctx, 3, &db);
	bpf_usdt_arg(ctx, 4, &rel);
	bpf_usdt_arg(ctx, 6, &ext);
	struct mt_bufreq_rec *r = bpf_ringbuf_reserve(&reqs, sizeof(*r), 0);
	if (!r) {
		bump(MT_BUFREQ_LOST);
		return 0;
	}
	r->time = bpf_ktime_get_ns();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->spc = spc;
	r->db = db;
	r->rel = rel;
	r->fork = fork;
	r->block = block;
	r->flags = (ext & 0xff) ? MT_BUFREQ_EXTEND : 0;
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&reqs, BPF_RB_AVAIL_DATA) >= BUFREQ_RING_BYTES / 4 ?
				 BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}

/* (fork, block, spc, db, rel, backend, is_extend, found) */
SEC("usdt")
int buffer_read_done(struct pt_regs *ctx)
{
	long backend = 0, found = 0;

	if (!tgid_wanted(bpf_get_current_pid_tgid() >> 32))
		return 0;
	bpf_usdt_arg(ctx, 5, &backend);
	if ((int)backend != -1)
		return 0;
	bpf_usdt_arg(ctx, 7, &found);
	bump((found & 0xff) ? MT_BUFREQ_HITS : MT_BUFREQ_MISSES);
	return 0;
}
