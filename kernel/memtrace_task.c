// SPDX-License-Identifier: GPL-2.0
/*
 * Process-target sessions (-p PID): one counter per thread that exists at
 * START, created with attr.inherit so that threads and processes forked
 * later get an inherited copy (perf links every copy back to our counter,
 * with our overflow handler and context).  Per-task counters were chosen
 * over per-CPU counters filtered by thread group because only the target's
 * own events then raise interrupts, the sample period counts the target's
 * events alone, forked children are covered by perf itself (a thread-group
 * filter in NMI context cannot see descendants cheaply) and CPU hotplug
 * needs no handling: task counters move with their task.
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
 */
#include <linux/pid.h>
#include <linux/cred.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "memtrace.h"

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

int memtrace_start_task(struct memtrace_session *s)
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
void memtrace_stop_task(struct memtrace_session *s)
{
	struct memtrace_task_event *te;

	list_for_each_entry(te, &s->task_events, node) {
		if (te->event)
			perf_event_release_kernel(te->event);
		te->event = NULL;
	}
}

void memtrace_free_task(struct memtrace_session *s)
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

void memtrace_exit_poll(struct work_struct *work)
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
