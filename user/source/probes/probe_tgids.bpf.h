/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_tgids.bpf.h - the BPF half of probe_tgids.h, for a probe program
 * (mark.bpf.c, bufreq.bpf.c) to include once: the map tgids (tgid -> 1),
 * filter_tgids (false: every process), tgid_wanted(), and the
 * sched_process_fork program probe_fork that adds the children of the
 * processes in the map.
 */
#ifndef MEMTRACE_SOURCE_PROBES_PROBE_TGIDS_BPF_H
#define MEMTRACE_SOURCE_PROBES_PROBE_TGIDS_BPF_H

/* -p trees and -- CMD: only the processes in tgids (kept up to date at fork) */
const volatile bool filter_tgids = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

static __always_inline bool tgid_wanted(__u32 tgid)
{
	return !filter_tgids || bpf_map_lookup_elem(&tgids, &tgid);
}

/* A new process of a recorded one is recorded too. */
SEC("tp_btf/sched_process_fork")
int probe_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 on = 1;

	if (!filter_tgids || ptgid == ctgid || !bpf_map_lookup_elem(&tgids, &ptgid))
		return 0;
	bpf_map_update_elem(&tgids, &ctgid, &on, BPF_ANY);
	return 0;
}

#endif
