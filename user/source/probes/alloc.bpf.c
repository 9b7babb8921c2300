// SPDX-License-Identifier: GPL-2.0
/* alloc.bpf.c - allocation probes (memtracectl record --allocs): uprobes on
 * the target's allocator entry points and uretprobes on their returns,
 * attached by user/source/probes/alloc.c to the functions each ELF file
 * defines (glibc, jemalloc, tcmalloc, a static executable's own copy).
 *
 * Which blocks are recorded: every block of at least large_bytes, every
 * mmap/mremap, and small blocks sampled by bytes: a block of s < large_bytes
 * bytes is kept with probability s / sample_bytes (sample_bytes = 1: all),
 * so each kept small block stands for sample_bytes / s blocks (its weight,
 * computed by the collector).  The free (or realloc) of a recorded block is
 * always recorded: recorded blocks stay in the live map until then.  A
 * realloc's new block is kept by the same draw as any other (so that the
 * estimates per site stay unbiased); a recorded old block whose new one is
 * not kept ends with a FREE record at the realloc.
 *
 * Nested calls (realloc calling malloc, malloc calling mmap) are recorded
 * once, as the outermost call: a per-thread depth.
 */
#include "memtrace_vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "sample.h"	/* filter modes, tgid values */
#include "alloc.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_mode = MT_BPF_FILTER_ALL;
const volatile __u64 sample_bytes = 512 * 1024;	/* mean bytes between small samples */
const volatile __u64 large_bytes = 64 * 1024;	/* blocks this big: always */
const volatile __u64 wakeup_bytes = 1 << 16;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MT_ALLOC_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MT_BPF_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* an allocator call under way, per thread */
struct call {
	__u64 time, size, arg, caller;	/* arg: realloc's old block, posix_memalign's out pointer */
	__s32 stack_id;
	__u8 role, depth;
	__u8 record;	/* something to write at the return */
	__u8 keep;	/* the new block is recorded (record: also the old one's end) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

/* recorded live blocks, for their free */
struct block_key {
	__u32 tgid, pad;
	__u64 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 18);	/* set by the collector */
	__type(key, struct block_key);
	__type(value, __u64);	/* size */
} live SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MT_ALLOC_CNT_N);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &which);

	if (c)
		(*c)++;
}

/* --cgroup: the group (and its descendants), in slot 0 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target_cgroup SEC(".maps");

static __always_inline bool tracked(__u32 tgid)
{
	__u8 *on;

	if (filter_mode == MT_ALLOC_FILTER_CGROUP)
		return bpf_current_task_under_cgroup(&target_cgroup, 0) == 1;
	if (filter_mode != MT_BPF_FILTER_TGIDS)
		return true;
	on = bpf_map_lookup_elem(&tgids, &tgid);
	return on && *on == MT_BPF_TGID_ON;
}

static __always_inline void emit(__u64 time, __u32 tgid, __u32 tid, __u64 addr, __u64 size,
				 __u64 old, __u64 caller, __s32 stack_id, __u8 kind, __u8 flags)
{
	struct mt_alloc_rec *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		count(MT_ALLOC_CNT_RING_FULL);
		return;
	}
	r->time = time;
	r->addr = addr;
	r->size = size;
	r->old_addr = old;
	r->caller = caller;
	r->pid = tgid;
	r->tid = tid;
	r->stack_id = stack_id;
	r->kind = kind;
	r->flags = flags;
	r->pad = 0;
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
			   BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/* Is a small block of size bytes kept: probability size / sample_bytes. */
static __always_inline bool sampled(__u64 size)
{
	if (size >= large_bytes || size >= sample_bytes)
		return true;
	return ((__u64)bpf_get_prandom_u32() * sample_bytes) >> 32 < size;
}

static __always_inline bool is_live(__u32 tgid, __u64 addr, __u64 *size, bool remove)
{
	struct block_key k = { .tgid = tgid, .addr = addr };
	__u64 *v = bpf_map_lookup_elem(&live, &k);

	if (!v)
		return false;
	*size = *v;
	if (remove)
		bpf_map_delete_elem(&live, &k);
	return true;
}

/* The entry of an allocating call: decide, capture the stack, remember the args. */
static __always_inline int enter(struct pt_regs *ctx, __u8 role, __u64 size, __u64 arg)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct call *c, n = { 0 };
	__u64 oldsize;

	if (!tracked(tgid))
		return 0;
	c = bpf_map_lookup_elem(&calls, &tid);
	if (c && c->depth) {		/* nested in another allocator call */
		if (c->depth < 255)
			c->depth++;
		return 0;
	}
	count(MT_ALLOC_CNT_CALLS);
	n.time = bpf_ktime_get_ns();
	n.size = size;
	n.arg = arg;
	n.role = role;
	n.depth = 1;
	n.keep = role == MT_ROLE_MMAP || role == MT_ROLE_MREMAP || sampled(size);
	n.record = n.keep ||
		   (role == MT_ROLE_REALLOC && arg && is_live(tgid, arg, &oldsize, false));
	n.stack_id = -1;
	if (n.keep) {
		/* the caller, whether or not the kernel's user stack walk has it
		 * (it adds it at a function's entry only where the first
		 * instruction is push %rbp or endbr64) */
		bpf_probe_read_user(&n.caller, sizeof(n.caller), (void *)ctx->sp);
		n.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (n.stack_id < 0)
			count(MT_ALLOC_CNT_NO_STACK);
	}
	bpf_map_update_elem(&calls, &tid, &n, BPF_ANY);
	return 0;
}

/* A free-like call: the recorded block ends (entry probe only). */
static __always_inline int release(__u64 addr, __u64 len, __u8 kind)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct call *c;
	__u64 size = len;

	if (!addr || !tracked(tgid))
		return 0;
	c = bpf_map_lookup_elem(&calls, &tid);
	if (c && c->depth)		/* realloc's own free, malloc's munmap */
		return 0;
	if (kind == MT_ALLOC_FREE) {
		if (!is_live(tgid, addr, &size, true))
			return 0;
	} else {
		is_live(tgid, addr, &size, true);
		size = len;
	}
	emit(bpf_ktime_get_ns(), tgid, tid, addr, size, 0, 0, -1, kind, 0);
	return 0;
}

SEC("uprobe")
int on_malloc(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_MALLOC, ctx->di, 0);
}

SEC("uprobe")
int on_calloc(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_CALLOC, ctx->di * ctx->si, 0);
}

SEC("uprobe")
int on_realloc(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_REALLOC, ctx->si, ctx->di);
}

SEC("uprobe")
int on_memalign(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_MEMALIGN, ctx->si, 0);
}

SEC("uprobe")
int on_posix_memalign(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_POSIX_MEMALIGN, ctx->dx, ctx->di);
}

SEC("uprobe")
int on_mmap(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_MMAP, ctx->si, 0);
}

SEC("uprobe")
int on_mremap(struct pt_regs *ctx)
{
	return enter(ctx, MT_ROLE_MREMAP, ctx->dx, ctx->di);
}

SEC("uprobe")
int on_free(struct pt_regs *ctx)
{
	return release(ctx->di, 0, MT_ALLOC_FREE);
}

SEC("uprobe")
int on_munmap(struct pt_regs *ctx)
{
	return release(ctx->di, ctx->si, MT_ALLOC_MUNMAP);
}

/* The return of every allocating call (one uretprobe program for all). */
SEC("uretprobe")
int on_return(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct call *c = bpf_map_lookup_elem(&calls, &tid);
	__u64 addr = ctx->ax, oldsize = 0;
	__u8 kind = MT_ALLOC_ALLOC, flags = 0;

	if (!c || !c->depth)
		return 0;
	if (--c->depth)			/* a nested call returned */
		return 0;
	if (c->role == MT_ROLE_POSIX_MEMALIGN) {
		void *out = (void *)c->arg;

		addr = 0;
		if (ctx->ax == 0)
			bpf_probe_read_user(&addr, sizeof(addr), out);
	}
	if (c->role == MT_ROLE_MMAP || c->role == MT_ROLE_MREMAP) {
		if ((__s64)addr < 0 && (__s64)addr > -4096)	/* MAP_FAILED */
			addr = 0;
		kind = c->role == MT_ROLE_MMAP ? MT_ALLOC_MMAP : MT_ALLOC_MREMAP;
	}
	if (c->role == MT_ROLE_REALLOC) {
		if (!addr && c->size)		/* failed: p is as it was */
			return 0;
		kind = MT_ALLOC_REALLOC;
		if (c->arg && is_live(tgid, c->arg, &oldsize, true))
			flags |= MT_ALLOC_F_OLD_KNOWN;
		if (!c->arg)			/* realloc(NULL, n) is a malloc */
			kind = MT_ALLOC_ALLOC;
		/* realloc(p, 0) freed p; a new block not kept: p ends here */
		if (!addr || !c->keep) {
			if (flags & MT_ALLOC_F_OLD_KNOWN)
				emit(c->time, tgid, tid, c->arg, oldsize, 0, 0, -1, MT_ALLOC_FREE, 0);
			return 0;
		}
	}
	if (c->role == MT_ROLE_MREMAP && c->arg)
		is_live(tgid, c->arg, &oldsize, true);
	if (!c->record || (!addr && kind != MT_ALLOC_REALLOC))
		return 0;
	if (c->size < large_bytes && c->size < sample_bytes && kind != MT_ALLOC_MMAP &&
	    kind != MT_ALLOC_MREMAP)
		flags |= MT_ALLOC_F_SAMPLED;
	if (addr) {
		struct block_key k = { .tgid = tgid, .addr = addr };
		__u64 size = c->size;

		if (bpf_map_update_elem(&live, &k, &size, BPF_ANY))
			count(MT_ALLOC_CNT_LIVE_FULL);
	}
	emit(c->time, tgid, tid, addr, c->size, c->role == MT_ROLE_REALLOC ||
	     c->role == MT_ROLE_MREMAP ? c->arg : 0, c->caller, c->stack_id, kind, flags);
	return 0;
}

/* A new process of a recorded one is recorded from its first instruction. */
SEC("tp_btf/sched_process_fork")
int on_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 on = MT_BPF_TGID_ON, *p;

	if (filter_mode != MT_BPF_FILTER_TGIDS || ptgid == ctgid)
		return 0;
	p = bpf_map_lookup_elem(&tgids, &ptgid);
	if (p && *p == MT_BPF_TGID_ON)
		bpf_map_update_elem(&tgids, &ctgid, &on, BPF_ANY);
	return 0;
}

/* -- CMD: recorded from its exec on. */
SEC("tp_btf/sched_process_exec")
int on_exec(__u64 *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 on = MT_BPF_TGID_ON, *p = bpf_map_lookup_elem(&tgids, &tgid);

	if (p && *p == MT_BPF_TGID_AT_EXEC)
		bpf_map_update_elem(&tgids, &tgid, &on, BPF_EXIST);
	return 0;
}

/* A thread ends: its call state goes (a thread killed inside malloc). */
SEC("tp_btf/sched_process_exit")
int on_exit(__u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	__u32 tid = p->pid;

	bpf_map_delete_elem(&calls, &tid);
	return 0;
}
