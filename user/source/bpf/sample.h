/* sample.h - what the BPF programs (sample.bpf.c) and the collector
 * (user/source/bpf/sample.c) share: the ring record and the filter modes. */
#ifndef MEMTRACE_SOURCE_BPF_SAMPLE_H
#define MEMTRACE_SOURCE_BPF_SAMPLE_H

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

/*
 * --aggregate: on_sample/on_hint count accesses per (interval, pid, bucket)
 * in the agg hash map instead of writing records.  Interval k (k >= 1)
 * holds the samples with time in (origin + (k-1) T, origin + k T], the
 * engine's report windows (engine/wss.h).  The collector drains the
 * intervals that have ended and deletes their keys; an open interval's keys
 * are never deleted, so no increment is lost.
 */
struct mt_agg_key {
	__u64 bucket;		/* addr >> bucket_shift */
	__u32 pid;
	__u32 k;		/* interval index */
};

/* agg_slots[k % MT_AGG_SLOTS], per CPU: samples of interval k counted, and
 * those whose new bucket found the map full (not in any row) */
struct mt_agg_slot {
	__u64 k;
	__u64 samples;
	__u64 full;
};

#define MT_AGG_SLOTS		64

#endif
