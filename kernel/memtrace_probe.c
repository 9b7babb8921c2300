// SPDX-License-Identifier: GPL-2.0
/*
 * Page-fault sessions without a perf counter: a probe on the x86
 * tracepoint exceptions:page_fault_user.
 *
 * A counting perf software event alone costs the faulting task about 200
 * instructions per fault (perf_sw_event(): the hash lookup of the CPU's and
 * the task's software events, perf_swevent_event(), the period), more than
 * the rest of the module's sample path.  For the two page-fault sources the
 * module therefore takes the fault from the tracepoint the x86 fault handler
 * calls for every fault taken in user mode (handle_page_fault(), interrupts
 * still off; trace_page_fault_entries() behind the static key
 * trace_pagefault_key, which the tracepoint's regfunc enables while a probe
 * is registered):
 *   - the software event PERF_COUNT_SW_PAGE_FAULTS without KERNEL_ADDRS:
 *     perf counts it in do_user_addr_fault() for faults taken in user mode
 *     (exclude_kernel) on user addresses, so the probe skips the addresses
 *     the handler sends to do_kern_addr_fault() (a user access to kernel
 *     space; the vsyscall page is a user address);
 *   - MEMTRACE_CFG_PAGE_FAULT_TP (hint faults): every hit of the
 *     tracepoint, with the error code, as perf's tracepoint event gives it.
 * Everything else (PEBS, IBS, other software events, page faults with
 * KERNEL_ADDRS, PERF_COUNT_SW_PAGE_FAULTS_MIN/_MAJ, which perf counts after
 * the fault is handled) keeps the perf counters, as does every session when
 * the tracepoint is missing or the parameter fault_probe is N.
 *
 * Which tasks.  The probe runs for every user-mode fault on the machine
 * while a session has it registered.  A system-wide session records them
 * all.  A process session filters by thread group: a bitmap of PID_MAX_LIMIT
 * bits (512 KiB, charged to the caller's memory cgroup) says which tgids are
 * traced.  START sets the bits of the targets and (DESCENDANTS) their
 * existing descendants in the walk of memtrace_task.c, with the same
 * ptrace-read check under the process's exec_update_lock that a counter
 * gets; a probe on sched_process_fork (in the parent, after the child is
 * linked, before it first runs) sets the bit of every process forked by a
 * traced one, as perf's inherited counters follow every fork; threads share
 * their process's bit.  A probe on sched_process_exit clears the bit when
 * the last thread of the group exits (signal->live reached 0: no user-mode
 * fault of the group can follow, and the tgid is freed only later, at
 * release), so a recycled tgid is never taken for a traced one.  nr_live
 * counts the set bits; the session ends (exit_work, memtrace_task.c) when it
 * is 0: the rule of the perf path, where a zombie counts as exited and the
 * session lasts while any traced process lives.
 *
 * A target exiting while START sets its bit: START sets the bit (a fully
 * ordered test_and_set_bit) and then reads signal->live; the exit path
 * decrements live (fully ordered) and then runs the exit probe, registered
 * before the walk.  One of the two sees the other's write, and whoever
 * clears the bit (test_and_clear_bit) decrements nr_live.  A fork that
 * straddles START: if the fork probe for the child ran after the parent's
 * bit was set, it set the child's; otherwise the child was on the task list
 * before, and the walk's next pass (there always is one after a pass that
 * set a bit) finds it (DESCENDANTS) or it is a child older than its
 * parent's tracing (not traced, as on the perf path).
 *
 * Period N > 1: a countdown per CPU (every N-th fault of the targets on
 * each CPU); perf counts per counter (per thread for process sessions).
 *
 * Permission: the same memtrace_check_caller() and ptrace-read checks as
 * the perf path, and at every START one disabled counter of the session's
 * event (on the caller, or on a CPU for a system-wide session) is created
 * and released at once, so perf's own checks of that event run as for a
 * counter of the perf path: the tracepoint's permission (raw records,
 * perf_allow_tracepoint() with its LSM hook), perf_allow_cpu() for
 * system-wide sessions, and the event's id (another tracepoint: -EINVAL).
 *
 * Records: time (ktime_get_mono_fast_ns()), pid/tid of current, CPU, the
 * faulting address, the user ip and, for PAGE_FAULT_TP with the data_src
 * field, the error code: what the perf path writes (memtrace_ring_fault()).
 * A nested producer or full ring drops and counts as before; perf never
 * throttles software or tracepoint events at these periods, and the probe
 * does not either.
 */
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <asm/vsyscall.h>

#include "memtrace.h"

static bool fault_probe = true;
module_param(fault_probe, bool, 0644);
MODULE_PARM_DESC(fault_probe,
		 "Y: page-fault sessions use a probe on exceptions:page_fault_user, N: a perf counter (read at START)");

/* memtrace_session.probes: which probes are registered */
#define MEMTRACE_PROBE_FAULT	1U
#define MEMTRACE_PROBE_FORK	2U
#define MEMTRACE_PROBE_EXIT	4U

static struct tracepoint *memtrace_tp_fault, *memtrace_tp_fork,
			 *memtrace_tp_exit;

struct memtrace_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void memtrace_find_tp(struct tracepoint *tp, void *priv)
{
	struct memtrace_tp_lookup *l = priv;

	if (!strcmp(tp->name, l->name))
		l->tp = tp;
}

/* A tracepoint of the kernel (not of a module) by name, or NULL. */
struct tracepoint *memtrace_find_tracepoint(const char *name)
{
	struct memtrace_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(memtrace_find_tp, &l);
	return l.tp;
}

void memtrace_probe_init(void)
{
	memtrace_tp_fault = memtrace_find_tracepoint("page_fault_user");
	memtrace_tp_fork = memtrace_find_tracepoint("sched_process_fork");
	memtrace_tp_exit = memtrace_find_tracepoint("sched_process_exit");
	if (!memtrace_tp_fault)
		pr_info("memtrace: no page_fault_user tracepoint: page faults through perf counters\n");
}

/* Does this configuration take its faults from the probe? */
bool memtrace_probe_wanted(const struct memtrace_config *c)
{
	if (!READ_ONCE(fault_probe) || !memtrace_tp_fault)
		return false;
	if (!(c->flags & MEMTRACE_CFG_SYSTEM_WIDE) &&
	    (!memtrace_tp_fork || !memtrace_tp_exit))
		return false;
	if (c->flags & MEMTRACE_CFG_PAGE_FAULT_TP)
		return true;
	return c->event_type == PERF_TYPE_SOFTWARE &&
	       c->event_config == PERF_COUNT_SW_PAGE_FAULTS &&
	       !(c->flags & MEMTRACE_CFG_KERNEL_ADDRS);
}

/* A tgid as a bit number (pids are below pid_max <= PID_MAX_LIMIT). */
static __always_inline bool memtrace_tgid_ok(pid_t tgid)
{
	return (unsigned int)tgid < PID_MAX_LIMIT;
}

/* exceptions:page_fault_user: a user-mode fault, interrupts off. */
static void memtrace_probe_fault(void *data, unsigned long address,
				 struct pt_regs *regs, unsigned long error_code)
{
	struct memtrace_session *s = data;
	const unsigned long *tgids = s->tgids;

	if (tgids) {
		pid_t tgid = current->tgid;

		if (!memtrace_tgid_ok(tgid) || !test_bit(tgid, tgids))
			return;
	}
	/* the software event's faults: do_user_addr_fault()'s addresses */
	if (s->probe_user_addr && address >= TASK_SIZE_MAX &&
	    !is_vsyscall_vaddr(address))
		return;
	memtrace_ring_fault(s, address, regs, error_code);
}

/* sched_process_fork, in the parent: a traced process's child is traced. */
static void memtrace_probe_fork(void *data, struct task_struct *parent,
				struct task_struct *child)
{
	struct memtrace_session *s = data;
	pid_t tgid = child->tgid;

	if (tgid == parent->tgid || !memtrace_tgid_ok(tgid) ||
	    !memtrace_tgid_ok(parent->tgid) || !test_bit(parent->tgid, s->tgids))
		return;
	if (!test_and_set_bit(tgid, s->tgids))
		atomic_inc(&s->nr_live);
}

/* Clears t's tgid if its thread group is dead (no thread left running). */
static void memtrace_probe_clear_dead(struct memtrace_session *s,
				      struct task_struct *t)
{
	pid_t tgid = t->tgid;

	if (atomic_read(&t->signal->live) || !memtrace_tgid_ok(tgid))
		return;
	if (test_bit(tgid, s->tgids) && test_and_clear_bit(tgid, s->tgids))
		atomic_dec(&s->nr_live);
}

/* sched_process_exit, in the exiting thread after signal->live dropped. */
static void memtrace_probe_exit(void *data, struct task_struct *p)
{
	memtrace_probe_clear_dead(data, p);
}

/*
 * perf's own checks of the session's event, as the perf path gets them
 * when it creates a counter: a disabled counter on the caller (process
 * session) or on a CPU (system-wide), created and released at once.
 */
static int memtrace_probe_perf_check(struct memtrace_session *s)
{
	bool sys = s->cfg.flags & MEMTRACE_CFG_SYSTEM_WIDE;
	struct perf_event_attr attr;
	struct perf_event *ev;
	int tries = 0, ret;

	memtrace_counter_attr(s, !sys, &attr);
	attr.disabled = 1;
	attr.inherit = 0;
	do {
		int cpu = sys ? (int)raw_smp_processor_id() : -1;

		ev = perf_event_create_kernel_counter(&attr, cpu,
						      sys ? NULL : current,
						      NULL, NULL);
		/* -ENODEV: that CPU went offline meanwhile */
	} while (sys && PTR_ERR_OR_ZERO(ev) == -ENODEV && ++tries < 8);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	ret = 0;
	if (s->cfg.flags & MEMTRACE_CFG_PAGE_FAULT_TP)
		ret = memtrace_fault_check_event(ev);	/* -EINVAL: another */
	perf_event_release_kernel(ev);
	return ret;
}

/*
 * START, s->lock held, before the walk of a process session: perf's
 * checks, the filter, the probes.  On failure the caller stops the
 * session (memtrace_probe_stop()).
 */
int memtrace_probe_start(struct memtrace_session *s)
{
	unsigned int cpu;
	int ret;

	ret = memtrace_probe_perf_check(s);
	if (ret)
		return ret;
	s->probe_user_addr = !(s->cfg.flags & MEMTRACE_CFG_PAGE_FAULT_TP);
	for_each_possible_cpu(cpu)
		local_set(&s->rings[cpu].countdown,
			  (long)s->cfg.sample_period);
	atomic_set(&s->nr_live, 0);
	if (!(s->cfg.flags & MEMTRACE_CFG_SYSTEM_WIDE)) {
		s->tgids = kvcalloc(BITS_TO_LONGS(PID_MAX_LIMIT), sizeof(long),
				    GFP_KERNEL_ACCOUNT);
		if (!s->tgids)
			return -ENOMEM;
	}
	s->probe_on = true;	/* memtrace_probe_stop() undoes what is done */
	if (s->tgids) {
		/* exits first: a bit set by the walk is cleared at exit */
		ret = tracepoint_probe_register(memtrace_tp_exit,
						memtrace_probe_exit, s);
		if (ret)
			return ret;
		s->probes |= MEMTRACE_PROBE_EXIT;
		ret = tracepoint_probe_register(memtrace_tp_fork,
						memtrace_probe_fork, s);
		if (ret)
			return ret;
		s->probes |= MEMTRACE_PROBE_FORK;
	}
	ret = tracepoint_probe_register(memtrace_tp_fault, memtrace_probe_fault,
					s);
	if (ret)
		return ret;
	s->probes |= MEMTRACE_PROBE_FAULT;
	return 0;
}

/*
 * The walk found thread t of a process of the tree (memtrace_task.c):
 * traces its thread group if the caller may read it (-EACCES if not),
 * under its exec_update_lock as a counter would be created.
 */
int memtrace_probe_add(struct memtrace_session *s, struct task_struct *t)
{
	struct rw_semaphore *exec_lock = &t->signal->exec_update_lock;
	pid_t tgid = t->tgid;
	int ret;

	if (!memtrace_tgid_ok(tgid))
		return -EINVAL;
	ret = down_read_killable(exec_lock);
	if (ret)
		return ret;
	if (!memtrace_may_read(t)) {
		ret = -EACCES;
	} else if (!test_and_set_bit(tgid, s->tgids)) {
		atomic_inc(&s->nr_live);
		/* exited before the exit probe could see the bit: see above */
		memtrace_probe_clear_dead(s, t);
	}
	up_read(exec_lock);
	return ret;
}

/* Is a traced process alive?  s->lock held. */
bool memtrace_probe_alive(struct memtrace_session *s)
{
	return atomic_read(&s->nr_live) > 0;
}

/* Unregisters the probes; none runs when this returns.  s->lock held. */
void memtrace_probe_stop(struct memtrace_session *s)
{
	if (!s->probe_on)
		return;
	/* only what is registered: unregistering more WARNs */
	if (s->probes & MEMTRACE_PROBE_FAULT)
		WARN_ON_ONCE(tracepoint_probe_unregister(memtrace_tp_fault,
							 memtrace_probe_fault,
							 s));
	if (s->probes & MEMTRACE_PROBE_FORK)
		WARN_ON_ONCE(tracepoint_probe_unregister(memtrace_tp_fork,
							 memtrace_probe_fork,
							 s));
	if (s->probes & MEMTRACE_PROBE_EXIT)
		WARN_ON_ONCE(tracepoint_probe_unregister(memtrace_tp_exit,
							 memtrace_probe_exit,
							 s));
	s->probes = 0;
	tracepoint_synchronize_unregister();
	kvfree(s->tgids);
	s->tgids = NULL;
	atomic_set(&s->nr_live, 0);
	s->probe_on = false;
}
