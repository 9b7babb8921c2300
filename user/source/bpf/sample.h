/* sample.h - what the BPF programs (sample.bpf.c) and the collector
 * (user/source/bpf.c) share: the ring record and the filter modes. */
#ifndef MEMTRACE_BPF_SAMPLE_H
#define MEMTRACE_BPF_SAMPLE_H

/* One sample in the BPF ring buffer: 48 bytes (+ 8 of ring header). */
struct mt_bpf_rec {
	__u64 time;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 addr;
	__u64 ip;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 weight;		/* PEBS/IBS when asked, else 0 */
	__u64 data_src;
};

/* filter_mode: which tasks' samples are kept */
#define MT_BPF_FILTER_ALL	0	/* -a, or --cgroup (the perf event filters) */
#define MT_BPF_FILTER_TGIDS	1	/* -p tree, -- CMD: the tgids map */

/* values of the tgids map */
#define MT_BPF_TGID_ON		1	/* recorded */
#define MT_BPF_TGID_AT_EXEC	2	/* -- CMD before its exec: recorded from exec on */

#define MT_BPF_MAX_TGIDS	65536

#endif
