/* bufreq.h - the record bufreq.bpf.c hands the collector (bufreq.c) for
 * each block a database asks its buffer pool for (-e buffer-requests). */
#ifndef MEMTRACE_SOURCE_BUFREQ_BUFREQ_H
#define MEMTRACE_SOURCE_BUFREQ_BUFREQ_H

/* mt_bufreq_rec.flags */
#define MT_BUFREQ_EXTEND	1u	/* a new block appended to the relation */

/* bufreq.bpf.c's counts (per-CPU array counts[], these indices) */
enum {
	MT_BUFREQ_LOST,		/* the ring was full: a request not recorded */
	MT_BUFREQ_HITS,		/* buffer__read__done found the block in shared buffers */
	MT_BUFREQ_MISSES,	/* ... did not (read from the OS, or a new block) */
	MT_BUFREQ_LOCAL,	/* requests of backend-local buffers (temporary tables): skipped */
	MT_BUFREQ_NCOUNTS
};

/* One shared-buffer request: PostgreSQL's ReadBuffer_common, at its
 * buffer__read__start probe (docs/sizing.md, "Database buffer pools"). */
struct mt_bufreq_rec {
	__u64 time;		/* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u32 pid, tid;
	__u32 cpu;
	__u32 spc, db, rel;	/* tablespace, database, relfilenode */
	__s32 fork;		/* 0 main, 1 fsm, 2 visibility map, 3 init */
	__u32 block;		/* block number in the fork */
	__u32 flags;		/* MT_BUFREQ_* */
};

#endif
