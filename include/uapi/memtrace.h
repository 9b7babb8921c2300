/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uapi/memtrace.h - the one contract between memtrace.ko and memtracectl.
 *
 * Everything that crosses the user/kernel boundary is defined here: the
 * sample record kept in the per-CPU rings (and used by the collector as its
 * in-memory sample for every backend), the session configuration, the ioctl
 * numbers and the layout of a mapped per-CPU ring.
 *
 * All structs have explicit padding and fixed-width types so that the same
 * layout holds for 64-bit kernels and 64-bit userspace.
 */
#ifndef _UAPI_MEMTRACE_H
#define _UAPI_MEMTRACE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define MEMTRACE_DEVICE_PATH	"/dev/memtrace"
#define MEMTRACE_ABI_VERSION	1

/*
 * One memory-access sample.  48 bytes.
 *
 * time:     nanoseconds of CLOCK_MONOTONIC for hardware/software events; for
 *           traces made by the valgrind backend, the number of guest
 *           instructions executed so far (see the trace header's time_unit).
 * addr:     the sampled data virtual address.
 * ip:       the instruction pointer of the access (0 when not kept).
 * weight:   access latency in core cycles as reported by PEBS/IBS (0 when
 *           not kept).
 * data_src: perf's union perf_mem_data_src encoding (0 when not kept).
 */
struct memtrace_sample {
	__u64 time;
	__u64 addr;
	__u64 ip;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 weight;
	__u64 data_src;
};

/* Which optional sample fields a session keeps (memtrace_config.fields). */
#define MEMTRACE_FIELD_IP	(1U << 0)
#define MEMTRACE_FIELD_WEIGHT	(1U << 1)
#define MEMTRACE_FIELD_DATA_SRC	(1U << 2)
#define MEMTRACE_FIELDS_ALL	(MEMTRACE_FIELD_IP | MEMTRACE_FIELD_WEIGHT | \
				 MEMTRACE_FIELD_DATA_SRC)

/* memtrace_config.flags */
#define MEMTRACE_CFG_SYSTEM_WIDE	(1U << 0) /* all CPUs, pid ignored */
#define MEMTRACE_CFG_KERNEL_ADDRS	(1U << 1) /* also sample kernel mode;
						   * SYSTEM_WIDE only */
#define MEMTRACE_CFG_DESCENDANTS	(1U << 2) /* also the targets' existing
						   * descendants (at START) */
/*
 * The event is the exceptions:page_fault_user tracepoint (event_type
 * PERF_TYPE_TRACEPOINT, event_config its id from tracefs; precise_ip 0):
 * every user page fault of the targets, for the hint-faults source.  Each
 * record takes addr and ip from the tracepoint's record (the faulting
 * address and user instruction) and, with MEMTRACE_FIELD_DATA_SRC, puts the
 * fault's x86 error code in data_src; the collector replaces it with the
 * fault's kind.  A record that cannot be read counts as dropped.  Modules
 * before this flag refuse it at CONFIGURE (-EINVAL); no other tracepoint is
 * accepted (START: -EINVAL).
 */
#define MEMTRACE_CFG_PAGE_FAULT_TP	(1U << 3)
/*
 * The accessed-bit source: no perf event (event_type, event_config*,
 * precise_ip and fields 0); a kernel thread scans the targets' (and with
 * DESCENDANTS their descendants') page tables every sample_period
 * milliseconds (MEMTRACE_SCAN_MIN_MS..MEMTRACE_SCAN_MAX_MS), clears the
 * accessed bit of every present page and records each page it found set
 * (docs/kernel-module.md).  Process sessions only.  ACCESSED_NO_FLUSH: the
 * cleared bits are not followed by a TLB flush (pages used from the TLB
 * then look idle; for measuring what the flush buys).
 */
#define MEMTRACE_CFG_ACCESSED		(1U << 4)
#define MEMTRACE_CFG_ACCESSED_NO_FLUSH	(1U << 5)
#define MEMTRACE_CFG_FLAGS_ALL		(MEMTRACE_CFG_SYSTEM_WIDE | \
					 MEMTRACE_CFG_KERNEL_ADDRS | \
					 MEMTRACE_CFG_DESCENDANTS | \
					 MEMTRACE_CFG_PAGE_FAULT_TP | \
					 MEMTRACE_CFG_ACCESSED | \
					 MEMTRACE_CFG_ACCESSED_NO_FLUSH)
#define MEMTRACE_SCAN_MIN_MS		10ULL
#define MEMTRACE_SCAN_MAX_MS		3600000ULL

/*
 * Records of the accessed-bit source: data_src holds what the record is.
 * A page record (addr: a 4 KiB page found accessed; time: when the scan of
 * its process started in that pass; pid = tid = the process) has one kind
 * (| MEMTRACE_ACC_THP when a huge PMD maps it).  A pass record
 * (MEMTRACE_ACC_PASS) ends one process's scan in a pass: time = its end,
 * pid = the process, addr = the scan's duration in ns, ip = present 4 KiB
 * pages looked at, weight = pages found accessed; with
 * MEMTRACE_ACC_PASS_PARTIAL the process's mm was busy (its mmap lock held
 * by a writer) and not all of it was scanned; with MEMTRACE_ACC_PASS_BASELINE
 * it is the session's first pass, which clears the bits set before the
 * session and records no page (weight: the pages it found accessed).
 */
#define MEMTRACE_ACC_ANON		1ULL	/* private anonymous */
#define MEMTRACE_ACC_SHMEM		2ULL	/* shared anonymous, SysV shm,
						 * tmpfs, memfd */
#define MEMTRACE_ACC_FILE		3ULL	/* file-backed */
#define MEMTRACE_ACC_KIND_MASK		0xfULL
#define MEMTRACE_ACC_THP		0x10ULL
#define MEMTRACE_ACC_PASS		0x100ULL
#define MEMTRACE_ACC_PASS_PARTIAL	0x200ULL
#define MEMTRACE_ACC_PASS_BASELINE	0x400ULL

/*
 * Session configuration, MEMTRACE_IOC_CONFIGURE.  The caller sets size to
 * sizeof(struct memtrace_config) as it knows it; the module rejects sizes it
 * does not know and any non-zero reserved field.  Known sizes:
 * MEMTRACE_CONFIG_SIZE_V1 (96, up to reserved[]: one target pid) and
 * MEMTRACE_CONFIG_SIZE_V2 (112, adds pids/nr_pids); a larger struct must have
 * a zero tail.  Fields a shorter struct lacks read as 0.
 *
 * Targets of a process session: pid and the nr_pids pids at the user
 * pointer pids (duplicates allowed), every one existing, not a kernel thread
 * and ptrace-readable by the caller (checked again at every START).
 * CONFIGURE and START also apply perf_event_open()'s capability and
 * perf_event_paranoid rules to their caller (docs/kernel-module.md).  START attaches to every thread of
 * each, and with MEMTRACE_CFG_DESCENDANTS to every thread of their existing
 * descendants; everything any of them forks later is followed.
 */
struct memtrace_config {
	__u32 size;
	__u32 version;		/* MEMTRACE_ABI_VERSION */
	__u32 flags;		/* MEMTRACE_CFG_* */
	__s32 pid;		/* target process (see above) */
	__u32 event_type;	/* perf_event_attr.type */
	__u32 fields;		/* MEMTRACE_FIELD_* */
	__u64 event_config;	/* perf_event_attr.config */
	__u64 event_config1;	/* perf_event_attr.config1 (e.g. ldlat) */
	__u64 event_config2;
	__u64 sample_period;	/* every N-th event, > 0 */
	__u32 ring_records;	/* records per CPU ring, power of two */
	__u32 wakeup_records;	/* poll() wakes at this many unread records;
				 * 0 = ring_records / 4 */
	__u32 precise_ip;	/* perf_event_attr.precise_ip, 0..3 */
	__u32 reserved32;	/* 0 */
	__u64 reserved[3];	/* 0 */
	/* since MEMTRACE_CONFIG_SIZE_V2 */
	__u64 pids;		/* user pointer to __s32[nr_pids]: more targets */
	__u32 nr_pids;		/* 0 .. MEMTRACE_MAX_PIDS */
	__u32 reserved2;	/* 0 */
};

#define MEMTRACE_CONFIG_SIZE_V1		96U
#define MEMTRACE_CONFIG_SIZE_V2		112U
#define MEMTRACE_MAX_PIDS		1024U

/* Bounds the module enforces on a configuration (else -EINVAL). */
#define MEMTRACE_RING_MIN_RECORDS	2U
#define MEMTRACE_RING_MAX_RECORDS	(1U << 20)
#define MEMTRACE_MAX_TOTAL_RING_BYTES	(1ULL << 30)	/* all CPUs */
#define MEMTRACE_MAX_PERIOD		(1ULL << 62)

/* Per-CPU counters, MEMTRACE_IOC_STATS (array indexed by CPU). */
struct memtrace_cpu_stats {
	__u64 produced;		/* records written into the ring */
	__u64 dropped;		/* samples dropped: ring full, a nested
				 * producer, or a fault record not readable */
	__u64 lost;		/* samples perf reported lost */
	__u64 throttled;	/* throttle events perf reported */
};

struct memtrace_stats {
	__u32 size;		/* sizeof(struct memtrace_stats) */
	__u32 nr_cpus;		/* in: entries in cpus; out: possible CPUs */
	__u64 cpus;		/* user pointer to struct memtrace_cpu_stats[] */
};

/*
 * A mapped per-CPU ring.  mmap() offset cpu * ring_bytes, where ring_bytes
 * is PAGE_SIZE + ring_records * sizeof(struct memtrace_sample) rounded up to
 * pages.  The first page is this header; records follow at offset PAGE_SIZE.
 * head is advanced by the producer, tail by the consumer through
 * MEMTRACE_IOC_CONSUME.  Record i lives at index i & (ring_records - 1).
 */
struct memtrace_ring_header {
	__u64 head;		/* records produced (monotonic) */
	__u64 tail;		/* records consumed (monotonic) */
	__u32 ring_records;
	__u32 record_size;	/* sizeof(struct memtrace_sample) */
	__u32 cpu;
	__u32 flags;		/* MEMTRACE_RING_* */
	__u64 dropped;		/* mirror of the per-CPU dropped count */
	__u32 mode;		/* MEMTRACE_MODE_*, set at START */
	__u32 mode_flags;	/* MEMTRACE_MODE_F_*, set at START */
};

/* memtrace_ring_header.mode: how samples reach the rings */
#define MEMTRACE_MODE_PERF_OVERFLOW	0 /* perf overflow handler, an
					   * interrupt per sample */
#define MEMTRACE_MODE_PEBS_HOOK		1 /* patched kernel's PEBS sink
					   * (docs/pebs-hook.md) */
#define MEMTRACE_MODE_FAULT_PROBE	2 /* page faults: a probe on the
					   * x86 tracepoint
					   * exceptions:page_fault_user, no
					   * perf counter; modules before it
					   * use perf-overflow for them */
#define MEMTRACE_MODE_ACCESSED		3 /* accessed-bit scanner
					   * (MEMTRACE_CFG_ACCESSED) */
/* memtrace_ring_header.mode_flags */
#define MEMTRACE_MODE_F_LARGE_PEBS	(1U << 0) /* an interrupt per PEBS
					   * buffer, not per sample */

#define MEMTRACE_RING_ENDED	(1U << 0) /* targets exited, no more data */

/*
 * What START attached to, MEMTRACE_IOC_TARGETS (a process session after a
 * successful START; the counts of the last START).
 */
struct memtrace_targets {
	__u32 size;		/* sizeof(struct memtrace_targets) */
	__u32 processes;	/* processes with a counter on their threads */
	__u32 threads;		/* threads with a counter: their own or an
				 * inherited copy */
	__u32 denied;		/* descendants skipped: not ptrace-readable */
};

struct memtrace_consume {
	__u32 cpu;
	__u32 reserved;
	__u64 tail;		/* new tail; must not pass head */
};

#define MEMTRACE_IOC_MAGIC	0xB7
/* The number keeps the V1 size: the struct's own size field versions it. */
#define MEMTRACE_IOC_CONFIGURE	_IOC(_IOC_WRITE, MEMTRACE_IOC_MAGIC, 1, \
				     MEMTRACE_CONFIG_SIZE_V1)
#define MEMTRACE_IOC_START	_IO(MEMTRACE_IOC_MAGIC, 2)
#define MEMTRACE_IOC_STOP	_IO(MEMTRACE_IOC_MAGIC, 3)
#define MEMTRACE_IOC_STATS	_IOWR(MEMTRACE_IOC_MAGIC, 4, struct memtrace_stats)
#define MEMTRACE_IOC_CONSUME	_IOW(MEMTRACE_IOC_MAGIC, 5, struct memtrace_consume)
#define MEMTRACE_IOC_TARGETS	_IOWR(MEMTRACE_IOC_MAGIC, 6, struct memtrace_targets)

#endif /* _UAPI_MEMTRACE_H */
