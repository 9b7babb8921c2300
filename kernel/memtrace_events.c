// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel perf counters that feed a session.
 *
 * Process target (-p PID): one counter per thread that exists at START,
 * created with attr.inherit so that threads and processes forked later get
 * an inherited copy (perf links every copy back to our counter, with our
 * overflow handler and context).  Per-task counters were chosen over
 * per-CPU counters filtered by thread group because only the target's own
 * events then raise interrupts, the sample period counts the target's events
 * alone, forked children are covered by perf itself (a thread-group filter
 * in NMI context cannot see descendants cheaply) and CPU hotplug needs no
 * handling: task counters move with their task.
 *
 * Threads created while START attaches: a thread forked by a thread that
 * already has our counter inherits it; one forked by a thread not yet
 * attached does not.  START therefore repeats passes over the thread list
 * until a pass finds no thread it has not seen, and skips threads that
 * already carry an inherited copy (found on our counters' child lists), so
 * no thread is missed or counted twice.
 *
 * Target exit is polled every MEMTRACE_EXIT_POLL_MS: once no thread of the
 * target is alive (signal->live == 0) the counters are released and the
 * rings marked MEMTRACE_RING_ENDED, and poll() reports EPOLLHUP.
 *
 * System-wide (-a): one counter per online CPU, kept by a multi-instance
 * CPU hotplug state: a CPU going offline has its counter released, a CPU
 * coming online gets a new one (from a work item, see below).  The rings
 * exist for every possible CPU.
 *
 * Locking: s->lock (a mutex) is taken before cpu_hotplug_lock (hotplug
 * instance add/remove, static keys of software counters) and perf's context
 * mutexes.  The hotplug callbacks take no lock; they only queue cpu_work.
 * cpu_work and exit_work take s->lock; release() cancels them without it.
 */
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/pid.h>
#include <linux/cred.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "memtrace.h"

static enum cpuhp_state memtrace_cpuhp_state;


static void memtrace_overflow(struct perf_event *event,
			      struct perf_sample_data *data,
			      struct pt_regs *regs)
{
	memtrace_ring_produce(event->overflow_handler_context, event, data,
			      regs);
}

/*
 * A PEBS event goes through the patched kernel's PEBS sink when the module
 * found the hook (kernel/pebs_hook.h): large PEBS on, records handed over in
 * the drain loop.  Otherwise (stock kernel, software events) perf calls
 * memtrace_overflow() once per sample, with large PEBS off.
 */
static bool memtrace_wants_hook(const struct memtrace_config *c)
{
	return c->precise_ip > 0 && c->event_type != PERF_TYPE_SOFTWARE &&
	       memtrace_pebs_hook_available();
}

static struct perf_event *memtrace_counter(struct memtrace_session *s,
					   int cpu, struct task_struct *task,
					   struct memtrace_pebs_binding **bp)
{
	const struct memtrace_config *c = &s->cfg;
	bool hooked = s->mode == MEMTRACE_PEBS_MODE_HOOK;
	struct memtrace_pebs_binding *b;
	struct perf_event *ev;
	bool large = false;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = c->event_type,
		.config = c->event_config,
		.config1 = c->event_config1,
		.config2 = c->event_config2,
		.sample_period = c->sample_period,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		.precise_ip = c->precise_ip,
		.exclude_kernel = !(c->flags & MEMTRACE_CFG_KERNEL_ADDRS),
		.exclude_hv = 1,
		.inherit = task != NULL,
		.disabled = hooked,	/* enabled once the sink is attached */
	};

	if (c->fields & MEMTRACE_FIELD_WEIGHT)
		attr.sample_type |= PERF_SAMPLE_WEIGHT;
	if (c->fields & MEMTRACE_FIELD_DATA_SRC)
		attr.sample_type |= PERF_SAMPLE_DATA_SRC;
	/*
	 * Compatible mode: wakeup_events = 1, one overflow per record; on a
	 * stock kernel this keeps Intel large PEBS off, else perf would hand
	 * all but the last record of a PEBS buffer to perf_event_output() and
	 * never to us.  Hooked mode: the attr large PEBS needs.
	 */
	memtrace_pebs_hook_tune_attr(&attr, hooked);

	*bp = NULL;
	ev = perf_event_create_kernel_counter(&attr, cpu, task,
					      memtrace_overflow, s);
	if (IS_ERR(ev) || !hooked)
		return ev;
	b = memtrace_pebs_hook_attach(ev, c->fields, &memtrace_pebs_ops, s,
				      &large);
	if (IS_ERR(b)) {
		perf_event_release_kernel(ev);
		return ERR_CAST(b);
	}
	if (!large)
		s->large_pebs = false;
	*bp = b;
	perf_event_enable(ev);
	return ev;
}

/* ---- system-wide: CPU hotplug keeps one counter per online CPU ---- */

/*
 * Creating or freeing a software counter flips a static key, which takes
 * cpus_read_lock(): a hotplug callback (which runs under the hotplug lock)
 * must not do it.  The callbacks only queue cpu_work; the work, outside the
 * hotplug lock, releases counters whose CPU went away (perf detached them:
 * state OFF) and creates counters for online CPUs that have none.
 */
static int memtrace_cpu_changed(unsigned int cpu, struct hlist_node *node)
{
	struct memtrace_session *s =
		hlist_entry(node, struct memtrace_session, cpuhp_node);

	schedule_work(&s->cpu_work);
	return 0;
}

static void memtrace_cpu_reconcile(struct memtrace_session *s)
{
	struct memtrace_pebs_binding *b;
	bool released = false;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct perf_event *ev = s->cpu_events[cpu];

		if (ev && (!cpu_online(cpu) ||
			   READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE)) {
			/* drains the last PEBS records into the sink */
			perf_event_release_kernel(ev);
			s->cpu_events[cpu] = NULL;
			released = true;
		}
	}
	/* hooked mode: bindings of released counters, after a grace period */
	if (released) {
		synchronize_rcu();
		for_each_possible_cpu(cpu) {
			if (s->cpu_events[cpu])
				continue;
			memtrace_pebs_hook_free(s->cpu_bindings[cpu]);
			s->cpu_bindings[cpu] = NULL;
		}
	}
	for_each_possible_cpu(cpu) {
		struct perf_event *ev;

		if (s->cpu_events[cpu] || !cpu_online(cpu))
			continue;
		ev = memtrace_counter(s, (int)cpu, NULL, &b);
		/* -ENODEV: it went offline again; the work runs again */
		if (IS_ERR(ev)) {
			if (PTR_ERR(ev) != -ENODEV)
				pr_info("memtrace: no counter on CPU %u: %ld\n",
					cpu, PTR_ERR(ev));
			continue;
		}
		s->cpu_events[cpu] = ev;
		s->cpu_bindings[cpu] = b;
	}
}

static void memtrace_cpu_work(struct work_struct *work)
{
	struct memtrace_session *s =
		container_of(work, struct memtrace_session, cpu_work);

	mutex_lock(&s->lock);
	if (s->state == MT_RUNNING && s->cpu_events)
		memtrace_cpu_reconcile(s);
	mutex_unlock(&s->lock);
}

static int memtrace_start_cpus(struct memtrace_session *s)
{
	struct memtrace_pebs_binding *b;
	unsigned int cpu;
	int ret;

	s->cpu_events = kcalloc(nr_cpu_ids, sizeof(*s->cpu_events),
				GFP_KERNEL_ACCOUNT);
	s->cpu_bindings = kcalloc(nr_cpu_ids, sizeof(*s->cpu_bindings),
				  GFP_KERNEL_ACCOUNT);
	if (!s->cpu_events || !s->cpu_bindings)
		return -ENOMEM;	/* memtrace_events_stop() frees the arrays */
	/* from here on every CPU coming or going queues cpu_work */
	ret = cpuhp_state_add_instance_nocalls(memtrace_cpuhp_state,
					       &s->cpuhp_node);
	if (ret)
		return ret;
	s->cpuhp_added = true;
	for_each_online_cpu(cpu) {
		struct perf_event *ev = memtrace_counter(s, (int)cpu, NULL, &b);

		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			if (ret == -ENODEV)	/* went offline meanwhile */
				continue;
			return ret;
		}
		s->cpu_events[cpu] = ev;
		s->cpu_bindings[cpu] = b;
	}
	return 0;
}

/* Releases the counters; the arrays and bindings wait for a grace period. */
static void memtrace_stop_cpus(struct memtrace_session *s)
{
	unsigned int cpu;

	if (s->cpuhp_added)
		cpuhp_state_remove_instance_nocalls(memtrace_cpuhp_state,
						    &s->cpuhp_node);
	s->cpuhp_added = false;
	if (!s->cpu_events)
		return;
	for_each_possible_cpu(cpu) {
		/* drains the last PEBS records into the sink */
		if (s->cpu_events[cpu])
			perf_event_release_kernel(s->cpu_events[cpu]);
		s->cpu_events[cpu] = NULL;
	}
}

static void memtrace_free_cpus(struct memtrace_session *s)
{
	unsigned int cpu;

	if (s->cpu_bindings)
		for_each_possible_cpu(cpu)
			memtrace_pebs_hook_free(s->cpu_bindings[cpu]);
	kfree(s->cpu_bindings);
	kfree(s->cpu_events);
	s->cpu_bindings = NULL;
	s->cpu_events = NULL;
}

/* ---- process target: per-thread inherited counters ---- */

/*
 * ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS) is not exported to
 * modules, so this repeats its credential and dumpability rules (see
 * __ptrace_may_access()): the caller's thread group, or the caller's real
 * uid/gid equal to all of the target's, or CAP_SYS_PTRACE in the target's
 * user namespace; and a non-dumpable target needs CAP_SYS_PTRACE in its mm's
 * user namespace.  The LSM ptrace hook cannot be called from a module.
 */
static bool memtrace_may_read(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	tcred = get_task_cred(task);
	ok = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	     uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	     gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	if (!ok)
		ok = ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	put_cred(tcred);
	if (!ok)
		return false;
	mm = get_task_mm(task);
	if (mm) {
		if (get_dumpable(mm) != SUID_DUMP_USER &&
		    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
			ok = false;
		mmput(mm);
	}
	return ok;
}

int memtrace_check_target(struct memtrace_session *s)
{
	struct task_struct *task;
	struct pid *pid;
	int ret = 0;

	pid = find_get_pid(s->cfg.pid);
	if (!pid)
		return -ESRCH;
	task = get_pid_task(pid, PIDTYPE_TGID);
	if (!task) {
		put_pid(pid);
		return -ESRCH;
	}
	if (task->flags & PF_KTHREAD)
		ret = -EINVAL;
	else if (!memtrace_may_read(task))
		ret = -EACCES;
	put_task_struct(task);
	if (ret) {
		put_pid(pid);
		return ret;
	}
	s->target = pid;
	return 0;
}

/* Does t already carry our counter, directly or inherited? */
static bool memtrace_task_traced(struct memtrace_session *s,
				 struct task_struct *t)
{
	struct memtrace_task_event *te;
	struct perf_event *child;
	bool found = false;

	list_for_each_entry(te, &s->task_events, node) {
		if (te->event->hw.target == t)
			return true;
		mutex_lock(&te->event->child_mutex);
		list_for_each_entry(child, &te->event->child_list, child_list) {
			if (child->hw.target == t) {
				found = true;
				break;
			}
		}
		mutex_unlock(&te->event->child_mutex);
		if (found)
			return true;
	}
	return false;
}

#define MEMTRACE_ATTACH_BATCH 32

static bool memtrace_tid_seen(const pid_t *seen, unsigned int n, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (seen[i] == tid)
			return true;
	return false;
}

static int memtrace_attach_batch(struct memtrace_session *s,
				 struct task_struct **batch, unsigned int n,
				 pid_t *seen, unsigned int *nseen)
{
	struct memtrace_task_event *te;
	struct perf_event *ev;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct task_struct *t = batch[i];

		if (ret)
			goto next;
		seen[(*nseen)++] = t->pid;
		if (memtrace_task_traced(s, t))
			goto next;
		if (s->nr_task_events >= MEMTRACE_MAX_TASK_EVENTS) {
			ret = -ENOSPC;
			goto next;
		}
		te = kzalloc(sizeof(*te), GFP_KERNEL_ACCOUNT);
		if (!te) {
			ret = -ENOMEM;
			goto next;
		}
		ev = memtrace_counter(s, -1, t, &te->binding);
		if (IS_ERR(ev)) {
			kfree(te);
			/* a thread that is exiting needs no counter */
			if (PTR_ERR(ev) != -ESRCH || !(t->flags & PF_EXITING))
				ret = PTR_ERR(ev);
			goto next;
		}
		te->event = ev;
		te->tid = t->pid;
		list_add_tail(&te->node, &s->task_events);
		s->nr_task_events++;
next:
		put_task_struct(t);
	}
	return ret;
}

static int memtrace_start_task(struct memtrace_session *s)
{
	struct task_struct *batch[MEMTRACE_ATTACH_BATCH];
	struct task_struct *leader, *t;
	unsigned int n, nseen = 0;
	pid_t *seen;
	int ret = 0;

	leader = get_pid_task(s->target, PIDTYPE_TGID);
	if (!leader)
		return -ESRCH;
	seen = kvmalloc_array(MEMTRACE_MAX_TASK_EVENTS + MEMTRACE_ATTACH_BATCH,
			      sizeof(*seen), GFP_KERNEL);
	if (!seen) {
		put_task_struct(leader);
		return -ENOMEM;
	}

	do {
		n = 0;
		rcu_read_lock();
		for_each_thread(leader, t) {
			if (t->flags & PF_EXITING ||
			    memtrace_tid_seen(seen, nseen, t->pid))
				continue;
			get_task_struct(t);
			batch[n++] = t;
			if (n == MEMTRACE_ATTACH_BATCH)
				break;
		}
		rcu_read_unlock();
		if (nseen + n > MEMTRACE_MAX_TASK_EVENTS) {
			while (n)
				put_task_struct(batch[--n]);
			ret = -ENOSPC;
			break;
		}
		ret = memtrace_attach_batch(s, batch, n, seen, &nseen);
	} while (!ret && n);

	kvfree(seen);
	put_task_struct(leader);
	return ret;
}

/* Releases the counters; entries and bindings wait for a grace period. */
static void memtrace_stop_task(struct memtrace_session *s)
{
	struct memtrace_task_event *te;

	list_for_each_entry(te, &s->task_events, node) {
		if (te->event)
			perf_event_release_kernel(te->event);
		te->event = NULL;
	}
}

static void memtrace_free_task(struct memtrace_session *s)
{
	struct memtrace_task_event *te, *tmp;

	list_for_each_entry_safe(te, tmp, &s->task_events, node) {
		memtrace_pebs_hook_free(te->binding);
		list_del(&te->node);
		kfree(te);
	}
	s->nr_task_events = 0;
}

static bool memtrace_target_alive(struct memtrace_session *s)
{
	struct task_struct *task = get_pid_task(s->target, PIDTYPE_TGID);
	bool alive;

	if (!task)
		return false;
	alive = atomic_read(&task->signal->live) > 0;
	put_task_struct(task);
	return alive;
}

static void memtrace_exit_poll(struct work_struct *work)
{
	struct memtrace_session *s =
		container_of(to_delayed_work(work), struct memtrace_session,
			     exit_work);

	mutex_lock(&s->lock);
	if (s->state != MT_RUNNING) {
		mutex_unlock(&s->lock);
		return;
	}
	if (memtrace_target_alive(s)) {
		schedule_delayed_work(&s->exit_work,
				      msecs_to_jiffies(MEMTRACE_EXIT_POLL_MS));
		mutex_unlock(&s->lock);
		return;
	}
	memtrace_events_stop(s);
	s->state = MT_ENDED;
	memtrace_rings_set_flags(s, MEMTRACE_RING_ENDED);
	mutex_unlock(&s->lock);
	wake_up_interruptible_all(&s->wq);
}

/* ---- session entry points (called with s->lock held) ---- */

void memtrace_session_init_events(struct memtrace_session *s)
{
	INIT_LIST_HEAD(&s->task_events);
	INIT_DELAYED_WORK(&s->exit_work, memtrace_exit_poll);
	INIT_WORK(&s->cpu_work, memtrace_cpu_work);
}

static int memtrace_events_start_mode(struct memtrace_session *s)
{
	int ret;

	if (s->cfg.flags & MEMTRACE_CFG_SYSTEM_WIDE) {
		ret = memtrace_start_cpus(s);
		if (ret)
			memtrace_events_stop(s);
		return ret;
	}

	ret = memtrace_start_task(s);
	if (ret) {
		memtrace_events_stop(s);
		return ret;
	}
	schedule_delayed_work(&s->exit_work,
			      msecs_to_jiffies(MEMTRACE_EXIT_POLL_MS));
	return 0;
}

int memtrace_events_start(struct memtrace_session *s)
{
	int ret;

	s->mode = memtrace_wants_hook(&s->cfg) ? MEMTRACE_PEBS_MODE_HOOK :
						 MEMTRACE_PEBS_MODE_COMPAT;
	s->large_pebs = s->mode == MEMTRACE_PEBS_MODE_HOOK;
	ret = memtrace_events_start_mode(s);
	if ((ret == -EOPNOTSUPP || ret == -EINVAL) &&
	    s->mode == MEMTRACE_PEBS_MODE_HOOK) {
		/* a PEBS format or event the hook cannot take */
		pr_info("memtrace: PEBS sink refused the event (%d): %s mode\n",
			ret, memtrace_pebs_mode_name(MEMTRACE_PEBS_MODE_COMPAT));
		s->mode = MEMTRACE_PEBS_MODE_COMPAT;
		s->large_pebs = false;
		ret = memtrace_events_start_mode(s);
	}
	if (!ret)
		memtrace_rings_set_mode(s);
	return ret;
}

/*
 * Releases every counter.  perf_event_release_kernel() takes each counter
 * off its PMU; software events are found by their producers under RCU, so
 * wait a grace period before anyone may free the rings.  In hooked mode the
 * counters are released with their PEBS sink bindings still attached (the
 * release drains the last records into the sink); the same grace period
 * ends every drain that could still use a binding, then they are freed.
 */
void memtrace_events_stop(struct memtrace_session *s)
{
	bool had = s->cpu_events || s->cpu_bindings ||
		   !list_empty(&s->task_events);

	memtrace_stop_cpus(s);
	memtrace_stop_task(s);
	if (had)
		synchronize_rcu();
	memtrace_free_cpus(s);
	memtrace_free_task(s);
}

int memtrace_events_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "memtrace:online",
				      memtrace_cpu_changed,
				      memtrace_cpu_changed);
	if (ret < 0)
		return ret;
	memtrace_cpuhp_state = ret;
	return 0;
}

void memtrace_events_exit(void)
{
	cpuhp_remove_multi_state(memtrace_cpuhp_state);
}
