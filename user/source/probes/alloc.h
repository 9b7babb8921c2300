/* alloc.h - what the allocation probes (alloc.bpf.c) and the collector
 * (user/source/probes/alloc.c) share: the ring record, kinds and counters. */
#ifndef MEMTRACE_SOURCE_PROBES_ALLOC_H
#define MEMTRACE_SOURCE_PROBES_ALLOC_H

/* One allocator event in the BPF ring buffer: 56 bytes (+ 8 of ring header). */
struct mt_alloc_rec {
	__u64 time;		/* bpf_ktime_get_ns() at the call's entry */
	__u64 addr;		/* the block (alloc, realloc, mmap), or what is freed */
	__u64 size;		/* requested bytes (a free: the recorded block's size) */
	__u64 old_addr;		/* realloc/mremap: the old block */
	__u64 caller;		/* the return address at the call's entry (its caller) */
	__u32 pid;
	__u32 tid;
	__s32 stack_id;		/* in the stacks map, < 0: none */
	__u8 kind;		/* MT_ALLOC_* */
	__u8 flags;		/* MT_ALLOC_F_* */
	__u16 pad;
};

/* kinds (the ALLOCS chunk's kind column, docs/trace-format.md) */
#define MT_ALLOC_ALLOC		0	/* malloc, calloc, memalign, posix_memalign, new */
#define MT_ALLOC_FREE		1	/* free of a recorded block */
#define MT_ALLOC_REALLOC	2	/* realloc: old_addr ends, addr begins */
#define MT_ALLOC_MMAP		3	/* mmap (always recorded) */
#define MT_ALLOC_MUNMAP		4	/* munmap: [addr, addr + size) ends */
#define MT_ALLOC_MREMAP		5	/* mremap: old_addr ends, addr begins */

/* flags */
#define MT_ALLOC_F_SAMPLED	1	/* small block kept by the byte sampler */
#define MT_ALLOC_F_OLD_KNOWN	2	/* realloc: old_addr was a recorded block */

/* which argument holds what: the probe's role, as attached */
#define MT_ROLE_MALLOC		0	/* (size) */
#define MT_ROLE_CALLOC		1	/* (n, size) */
#define MT_ROLE_REALLOC		2	/* (ptr, size) */
#define MT_ROLE_MEMALIGN	3	/* (align, size) */
#define MT_ROLE_POSIX_MEMALIGN	4	/* (void **out, align, size) */
#define MT_ROLE_FREE		5	/* (ptr) */
#define MT_ROLE_MMAP		6	/* (addr, len, ...) */
#define MT_ROLE_MUNMAP		7	/* (addr, len) */
#define MT_ROLE_MREMAP		8	/* (old, oldlen, newlen, ...) */
#define MT_ROLE_COUNT		9

/* filter_mode beside sample.h's ALL and TGIDS: --cgroup, the calls of
 * tasks in target_cgroup (or a group below it) */
#define MT_ALLOC_FILTER_CGROUP	2

/* counts[]: per CPU */
#define MT_ALLOC_CNT_RING_FULL	0	/* events lost: ring full */
#define MT_ALLOC_CNT_NO_STACK	1	/* stack not captured (map full, collision) */
#define MT_ALLOC_CNT_LIVE_FULL	2	/* recorded block not tracked for its free */
#define MT_ALLOC_CNT_CALLS	3	/* allocator calls seen (of recorded processes) */
#define MT_ALLOC_CNT_N		4

#define MT_ALLOC_STACK_DEPTH	32

#endif
