/* memtrace_vmlinux.h - the few kernel types the BPF programs use, as CO-RE
 * definitions (preserve_access_index): libbpf relocates every field access
 * against the running kernel's BTF (/sys/kernel/btf/vmlinux) when it loads
 * the programs, so this file stands in for a generated vmlinux.h and the
 * build needs no BTF of the build machine's kernel.  x86_64 only.
 */
#ifndef MEMTRACE_SOURCE_BPF_MEMTRACE_VMLINUX_H
#define MEMTRACE_SOURCE_BPF_MEMTRACE_VMLINUX_H

typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
typedef int pid_t;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,	/* usdt.bpf.h */
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };
enum { BPF_RB_NO_WAKEUP = 1, BPF_RB_FORCE_WAKEUP = 2 };
enum { BPF_RB_AVAIL_DATA = 0 };
enum { BPF_F_USER_STACK = 1 << 8, BPF_F_MMAPABLE = 1 << 10 };

/*
 * The program context of a perf_event program: the uapi layout (the
 * verifier rewrites these accesses itself; no relocation).  The x86_64
 * user pt_regs, 21 words.
 */
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct bpf_perf_event_data {
	struct pt_regs regs;
	__u64 sample_period;
	__u64 addr;
};

/* CO-RE: only the fields read; offsets come from the kernel's BTF. */
typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live;		/* threads not yet past do_exit()'s group_dead test */
} __attribute__((preserve_access_index));

struct task_struct {
	pid_t pid;
	pid_t tgid;
	struct signal_struct *signal;
} __attribute__((preserve_access_index));

/* 5.12+: weight is union perf_sample_weight (8 bytes); only the field's
 * offset and size are used */
union perf_sample_weight {
	__u64 full;
} __attribute__((preserve_access_index));

union perf_mem_data_src {
	__u64 val;
} __attribute__((preserve_access_index));

struct perf_sample_data {
	union perf_mem_data_src data_src;
	union perf_sample_weight weight;
} __attribute__((preserve_access_index));

#endif
