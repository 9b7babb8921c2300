// SPDX-License-Identifier: GPL-2.0
/*
 * pebs_e2e_test.c - pebs_e2e_test.ko: synthetic PEBS records and IBS op
 * samples delivered into a running memtrace.ko session, end to end, on a
 * guest without a PMU (tests/kernel/guest-e2e.sh; docs/pebs-hook.md, "End
 * to end without a PMU").
 *
 * memtrace.ko loaded with selftest=1 (kernel/memtrace_selftest.h) gives a
 * session of a hardware event software dummy counters and, in hooked mode,
 * its own PEBS sink; memtrace_selftest_run() lends them to this module.
 * Each line written to /sys/kernel/debug/pebs_e2e/ctl, "KIND N", delivers N
 * records in the context of the writing task:
 *
 *   fixed N     PEBS format 3 records (200 bytes), drained by the patch's
 *               x86_pebs_sink_selftest_drain() into memtrace's sink
 *   adaptive N  adaptive (format 4, basic + meminfo) records, the same way
 *   lost N      adaptive records without meminfo (no data address): the
 *               drain counts them to memtrace's lost(), none is a sample
 *   irq N       x86_pebs_samples handed to memtrace's sink from an
 *               irq_work (hard IRQ: the drain's NMI is not reachable here)
 *   ibs N       IBS op samples: a perf_sample_data filled as
 *               perf_ibs_parse_ld_st_data() (arch/x86/events/amd/ibs.c,
 *               6.12) fills it, regs with the op's IP, handed to the
 *               session counter's overflow handler (memtrace's) from an
 *               irq_work, as perf_event_overflow() does
 *
 * Every sample memtrace must record is appended to the list that
 * /sys/kernel/debug/pebs_e2e/log prints, one line "pid,tid,addr,ip,weight,
 * data_src,KIND" (the columns of `memtracectl dump` without time and cpu,
 * then how it was delivered), with
 * the pid/tid of the task the delivery ran in, read where it ran.  The
 * expected ip, weight and data source come from the bytes written and
 * their meaning (SDM; perf's encoding of a precise store's DSE bits), not
 * from memtrace or the decoder.  /sys/kernel/debug/pebs_e2e/lost says how
 * many records the "lost" lines made.
 */
#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

#include "pebs_extract.h"
#include "memtrace_selftest.h"

#ifndef X86_PEBS_SELFTEST_STORE
#error "kernel without CONFIG_PERF_X86_PEBS_SINK_SELFTEST (kernel/perf-pebs-hook.patch)"
#endif

#define E2E_MAX_LOG	65536	/* expected samples kept */
#define E2E_MAX_BATCH	8192	/* records per write */
#define E2E_ADAPTIVE	(PEBS_X_BASIC_SIZE + PEBS_X_MEMINFO_SIZE)
#define E2E_GP_GROUP	144	/* an adaptive record's GP registers group */

struct e2e_expect {
	u64 addr, ip, data_src;
	u32 weight;
	pid_t pid, tid;
	u32 kind;		/* enum e2e_kind: how it was delivered */
};

static DEFINE_MUTEX(e2e_lock);	/* the list, the sequence, lost */
static struct e2e_expect *e2e_log;
static unsigned int e2e_n;
static u64 e2e_seq;		/* records made so far: distinct values */
static u64 e2e_lost;
static struct dentry *e2e_dir;
static int (*e2e_run)(int (*fn)(const struct memtrace_selftest_target *t,
				void *arg), void *arg);

enum e2e_kind { E2E_FIXED, E2E_ADAPT, E2E_LOST, E2E_IRQ, E2E_IBS, E2E_FMT1, E2E_FMT2 };

/* fixed: PEBS_FMT 3; fmt1, fmt2: the older fixed layouts (no TSC; fmt1 no real IP) */
static const char *const e2e_names[] = {
	[E2E_FIXED] = "fixed", [E2E_ADAPT] = "adaptive",
	[E2E_LOST] = "lost", [E2E_IRQ] = "irq", [E2E_IBS] = "ibs",
	[E2E_FMT1] = "fmt1", [E2E_FMT2] = "fmt2",
};

struct e2e_cmd {
	enum e2e_kind kind;
	int n;
	/* irq_work deliveries */
	struct irq_work work;
	const struct memtrace_selftest_target *t;
	struct e2e_expect *want;	/* [n], filled by the work */
	int done;
};

static void e2e_put(u8 *rec, unsigned int off, u64 v)
{
	memcpy(rec + off, &v, sizeof(v));
}

/*
 * perf's data source of a precise store with these DSE bits (SDM: bit 0
 * L1D hit, bit 4 STLB miss, bit 5 locked)
 */
static u64 e2e_store_src(u64 dse)
{
	u64 v = PERF_MEM_S(OP, STORE) | PERF_MEM_S(SNOOP, NA) |
		PERF_MEM_S(LVL, L1) | PERF_MEM_S(TLB, L2);

	v |= dse & (1u << 4) ? PERF_MEM_S(TLB, MISS) : PERF_MEM_S(TLB, HIT);
	v |= dse & 1 ? PERF_MEM_S(LVL, HIT) : PERF_MEM_S(LVL, MISS);
	if (dse & (1u << 5))
		v |= PERF_MEM_S(LOCK, LOCKED);
	return v;
}

/* Distinct, recognisable values for record number q. */
static u64 e2e_addr(u64 q) { return 0x00007e2e00000000ull + q * 0x1040 + (q & 7); }
static u64 e2e_ip(u64 q) { return 0x0000555500100000ull + q * 0x13; }
static u64 e2e_dse(u64 q) { return (q & 1) | (((q >> 1) & 1) << 4) | (((q >> 2) & 1) << 5); }
static u32 e2e_lat(u64 q) { return (u32)(30 + q % 977); }

/* Process context: PEBS records into a buffer, drained into the sink. */
static int e2e_drain(const struct memtrace_selftest_target *t,
		     struct e2e_cmd *c, struct e2e_expect *want)
{
	bool adaptive = c->kind == E2E_ADAPT || c->kind == E2E_LOST;
	bool meminfo = c->kind != E2E_LOST;
	u32 format = c->kind == E2E_FMT1 ? 1 : c->kind == E2E_FMT2 ? 2 : 3;
	u32 fixed_size = format == 1 ? PEBS_X_FMT1_SIZE :
			 format == 2 ? PEBS_X_FMT2_SIZE : PEBS_X_FMT3_SIZE;
	u32 size = !adaptive ? fixed_size :
		   meminfo ? E2E_ADAPTIVE : PEBS_X_BASIC_SIZE + E2E_GP_GROUP;
	struct pebs_x_layout layout = {
		.format = adaptive ? 4 : format, .adaptive = adaptive,
		.flags = adaptive ? 0 : PEBS_X_LDLAT, .record_size = size,
	};
	u64 tsc = rdtsc();
	size_t bytes = (size_t)c->n * size;
	pid_t pid = task_tgid_nr(current), tid = task_pid_nr(current);
	u8 *buf;
	int ret;

	if (!t->sink)
		return -EOPNOTSUPP;	/* not a hooked-mode session */
	buf = vzalloc(bytes);
	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < c->n; i++) {
		u64 q = e2e_seq + i;
		u8 *rec = buf + (size_t)i * size;

		want[i] = (struct e2e_expect){
			.addr = e2e_addr(q), .ip = e2e_ip(q),
			.data_src = e2e_store_src(e2e_dse(q)),
			.weight = e2e_lat(q), .pid = pid, .tid = tid,
			.kind = c->kind,
		};
		if (!adaptive) {
			e2e_put(rec, PEBS_X_FIX_FLAGS, 0x202);
			e2e_put(rec, PEBS_X_FIX_IP, e2e_ip(q));
			e2e_put(rec, PEBS_X_FIX_STATUS, 1);
			e2e_put(rec, PEBS_X_FIX_DLA, e2e_addr(q));
			e2e_put(rec, PEBS_X_FIX_DSE, e2e_dse(q));
			e2e_put(rec, PEBS_X_FIX_LAT, e2e_lat(q));
			if (format >= 2) {	/* the layouts grow at the end */
				e2e_put(rec, PEBS_X_FIX_REAL_IP, e2e_ip(q) + 0x40);
				e2e_put(rec, PEBS_X_FIX_TSX, 0xdead00000000ull);
			}
			if (format >= 3)
				e2e_put(rec, PEBS_X_FIX_TSC, tsc - (u64)(c->n - i));
			continue;
		}
		e2e_put(rec, PEBS_X_BASIC_HDR, ((u64)size << 48) |
			(meminfo ? PEBS_X_GROUP_MEMINFO : 0x2));
		e2e_put(rec, PEBS_X_BASIC_IP, e2e_ip(q));
		e2e_put(rec, PEBS_X_BASIC_APPLICABLE, 1);
		e2e_put(rec, PEBS_X_BASIC_TSC, tsc - (u64)(c->n - i));
		if (meminfo) {
			u8 *mem = rec + PEBS_X_BASIC_SIZE;

			e2e_put(mem, PEBS_X_MEM_ADDRESS, e2e_addr(q));
			e2e_put(mem, PEBS_X_MEM_AUX, e2e_dse(q));
			e2e_put(mem, PEBS_X_MEM_LATENCY, e2e_lat(q));
		}
	}
	ret = x86_pebs_sink_selftest_drain(t->sink, &layout,
					   X86_PEBS_SELFTEST_STORE, buf,
					   buf + bytes, c->n);
	vfree(buf);
	if (ret)
		return ret;
	if (!meminfo) {
		e2e_lost += c->n;
		return 0;
	}
	return c->n;
}

/* perf_ibs_parse_ld_st_data(), for a synthetic op q */
static void e2e_ibs_fill(const struct perf_event *event, u64 q,
			 struct perf_sample_data *data, struct e2e_expect *w)
{
	u64 st = event->attr.sample_type;
	int op = q % 4;		/* 0 load miss, 1 load hit, 2 store, 3 load, no address */
	bool load = op != 2, miss = op == 0, lin_valid = op != 3;

	data->data_src.val = PERF_MEM_NA;
	data->data_src.mem_op = load ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
	if (st & PERF_SAMPLE_DATA_SRC) {
		/* perf_ibs_get_data_src(): the level of a hit or a miss */
		data->data_src.mem_lvl = miss ? PERF_MEM_LVL_MISS | PERF_MEM_LVL_L1 :
				       PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1;
		data->data_src.mem_lvl_num = PERF_MEM_LVLNUM_L1;
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
		w->data_src = data->data_src.val;
	}
	if (st & PERF_SAMPLE_WEIGHT_TYPE && miss && load) {
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			data->weight.var1_dw = e2e_lat(q);
			data->weight.var2_w = 7;
		} else if (st & PERF_SAMPLE_WEIGHT) {
			data->weight.full = e2e_lat(q);
		}
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
		w->weight = e2e_lat(q);
	}
	if (st & PERF_SAMPLE_ADDR && lin_valid) {
		data->addr = e2e_addr(q);
		data->sample_flags |= PERF_SAMPLE_ADDR;
		w->addr = e2e_addr(q);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR && lin_valid) {
		data->phys_addr = 0x12340000ull + q * 64;
		data->sample_flags |= PERF_SAMPLE_PHYS_ADDR;
	}
}

/* Hard IRQ (irq_work): the deliveries that come from interrupt context. */
static void e2e_irq(struct irq_work *work)
{
	struct e2e_cmd *c = container_of(work, struct e2e_cmd, work);
	const struct memtrace_selftest_target *t = c->t;
	pid_t pid = task_tgid_nr(current), tid = task_pid_nr(current);

	for (int i = 0; i < c->n; i++) {
		u64 q = e2e_seq + i;
		struct e2e_expect *w = &c->want[i];

		*w = (struct e2e_expect){
			.pid = pid, .tid = tid, .ip = e2e_ip(q), .kind = c->kind,
		};
		if (c->kind == E2E_IRQ) {
			struct x86_pebs_sample s = {
				.time = ktime_get_mono_fast_ns(),
				.addr = e2e_addr(q), .ip = e2e_ip(q),
				.weight = e2e_lat(q),
				.data_src = e2e_store_src(e2e_dse(q)),
			};

			w->addr = s.addr;
			w->weight = s.weight;
			w->data_src = s.data_src;
			t->sink->sample(t->event, &s, t->sink->ctx);
		} else {
			perf_overflow_handler_t handler;
			struct perf_sample_data data;
			struct pt_regs regs = {};

			perf_sample_data_init(&data, 0, t->event->hw.last_period);
			e2e_ibs_fill(t->event, q, &data, w);
			/* set_linear_ip(): the op's IP, a user one */
			regs.ip = e2e_ip(q);
			regs.cs = __USER_CS;
			regs.flags |= PERF_EFLAGS_EXACT;
			/* what __perf_event_overflow() calls */
			handler = READ_ONCE(t->event->overflow_handler);
			handler(t->event, &data, &regs);
		}
	}
	c->done = c->n;
}

static int e2e_deliver(const struct memtrace_selftest_target *t, void *arg)
{
	struct e2e_cmd *c = arg;
	struct e2e_expect *want;
	int ret;

	if (e2e_n + c->n > E2E_MAX_LOG)
		return -ENOSPC;
	want = e2e_log + e2e_n;
	switch (c->kind) {
	case E2E_FIXED:
	case E2E_FMT1:
	case E2E_FMT2:
	case E2E_ADAPT:
	case E2E_LOST:
		ret = e2e_drain(t, c, want);
		break;
	case E2E_IRQ:
	case E2E_IBS:
		if (c->kind == E2E_IRQ ? !t->sink : !!t->sink)
			return -EOPNOTSUPP;	/* irq: hooked; ibs: perf-overflow */
		c->t = t;
		c->want = want;
		c->done = 0;
		c->work = IRQ_WORK_INIT_HARD(e2e_irq);
		if (!irq_work_queue(&c->work))
			return -EBUSY;
		irq_work_sync(&c->work);
		ret = c->done;
		break;
	default:
		return -EINVAL;
	}
	if (ret < 0)
		return ret;
	e2e_n += ret;
	e2e_seq += c->n;
	return 0;
}

static ssize_t e2e_ctl_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct e2e_cmd *c;
	char buf[64], word[16];
	int n, ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%15s %d", word, &n) != 2 || n < 1 || n > E2E_MAX_BATCH)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	for (int k = 0; k < (int)ARRAY_SIZE(e2e_names); k++)
		if (!strcmp(word, e2e_names[k])) {
			c->kind = k;
			c->n = n;
			mutex_lock(&e2e_lock);
			ret = e2e_run(e2e_deliver, c);
			mutex_unlock(&e2e_lock);
			break;
		}
	kfree(c);
	return ret < 0 ? ret : (ssize_t)len;
}

static int e2e_log_show(struct seq_file *m, void *v)
{
	mutex_lock(&e2e_lock);
	for (unsigned int i = 0; i < e2e_n; i++) {
		const struct e2e_expect *w = &e2e_log[i];

		seq_printf(m, "%d,%d,0x%llx,0x%llx,%u,0x%llx,%s\n", w->pid,
			   w->tid, w->addr, w->ip, w->weight, w->data_src,
			   e2e_names[w->kind]);
	}
	mutex_unlock(&e2e_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(e2e_log);

static int e2e_lost_show(struct seq_file *m, void *v)
{
	mutex_lock(&e2e_lock);
	seq_printf(m, "%llu\n", e2e_lost);
	mutex_unlock(&e2e_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(e2e_lost);

static const struct file_operations e2e_ctl_fops = {
	.owner = THIS_MODULE,
	.write = e2e_ctl_write,
};

static int __init pebs_e2e_test_init(void)
{
	e2e_run = symbol_get(memtrace_selftest_run);
	if (!e2e_run) {
		pr_err("pebs_e2e_test: no memtrace_selftest_run: memtrace.ko not loaded or built without CONFIG_PERF_X86_PEBS_SINK_SELFTEST\n");
		return -ENOENT;
	}
	e2e_log = vzalloc(array_size(E2E_MAX_LOG, sizeof(*e2e_log)));
	if (!e2e_log) {
		symbol_put(memtrace_selftest_run);
		return -ENOMEM;
	}
	e2e_dir = debugfs_create_dir("pebs_e2e", NULL);
	debugfs_create_file("ctl", 0200, e2e_dir, NULL, &e2e_ctl_fops);
	debugfs_create_file("log", 0400, e2e_dir, NULL, &e2e_log_fops);
	debugfs_create_file("lost", 0400, e2e_dir, NULL, &e2e_lost_fops);
	return 0;
}

static void __exit pebs_e2e_test_exit(void)
{
	debugfs_remove_recursive(e2e_dir);
	vfree(e2e_log);
	symbol_put(memtrace_selftest_run);
}

module_init(pebs_e2e_test_init);
module_exit(pebs_e2e_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PEBS records and IBS samples into memtrace.ko end to end (memtrace tests)");
