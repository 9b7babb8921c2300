// SPDX-License-Identifier: GPL-2.0
/*
 * Process sessions (-p PID[,PID...]): one counter per thread of the targets
 * (and, with MEMTRACE_CFG_DESCENDANTS, of their existing descendants) at
 * START, created with attr.inherit so that threads and processes forked
 * later get an inherited copy (perf links every copy back to our counter,
 * with our overflow handler and context).  Per-task counters were chosen
 * over per-CPU counters filtered by thread group because only the targets'
 * own events then raise interrupts, the sample period counts the targets'
 * events alone, forked children are covered by perf itself (a thread-group
 * filter in NMI context cannot see descendants cheaply) and CPU hotplug
 * needs no handling: task counters move with their task.
 *
 * The tree is walked under RCU (for_each_process, real_parent chains; no
 * tasklist_lock, which modules cannot take): a pass takes references on up
 * to MEMTRACE_ATTACH_BATCH threads not yet seen, leaves RCU and creates
 * their counters (which sleeps).  Tasks created while START attaches: one
 * forked by a task that already has our counter inherits it; one forked by
 * a task not yet attached does not.  START therefore repeats passes until a
 * pass finds no thread it has not seen, and skips threads that already
 * carry an inherited copy (found on our counters' child lists), so no task
 * is attached twice.  A fork that straddles its parent's attach (past
 * perf_event_init_task(), not yet on the task list) is caught by the fork
 * probe of memtrace_fork.c.  Seen threads are keyed by tid and start time, so a
 * recycled tid is not mistaken for a seen thread.
 *
 * The session ends when no task carrying one of its counters is alive:
 * polled every MEMTRACE_EXIT_POLL_MS with perf's own rule (is_event_hup():
 * every counter in the EXIT state and no inherited copy left).  Then the
 * counters are released, the rings marked MEMTRACE_RING_ENDED, and poll()
 * reports EPOLLHUP.
 */
#include <linux/bsearch.h>
#include <linux/pid.h>
#include <linux/cred.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>

#include "memtrace.h"
static int memtrace_ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct pid * const *)a;
	uintptr_t y = (uintptr_t)*(struct pid * const *)b;

	return x < y ? -1 : x > y;
}

void memtrace_put_targets(struct memtrace_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_targets; i++)
		put_pid(s->targets[i]);
	kfree(s->targets);
	s->targets = NULL;
	s->nr_targets = 0;
}

static int memtrace_check_one(pid_t nr, struct pid **out)
{
	struct task_struct *task;
	struct pid *pid;
	int ret = 0;

	if (nr <= 0)
		return -EINVAL;
	pid = find_get_pid(nr);
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
	*out = pid;
	return 0;
}

/*
 * CONFIGURE: every target pid exists, is a process (not a kernel thread)
 * and ptrace-readable; keeps their struct pids, sorted, without duplicates.
 */
int memtrace_check_targets(struct memtrace_session *s, const pid_t *pids,
			   unsigned int n)
{
	unsigned int i, j;
	int ret = 0;

	s->targets = kcalloc(n, sizeof(*s->targets), GFP_KERNEL_ACCOUNT);
	if (!s->targets)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = memtrace_check_one(pids[i], &s->targets[s->nr_targets]);
		if (!ret)
			s->nr_targets++;
	}
	if (ret) {
		memtrace_put_targets(s);
		return ret;
	}
	sort(s->targets, s->nr_targets, sizeof(*s->targets), memtrace_ptr_cmp,
	     NULL);
	for (i = j = 1; i < s->nr_targets; i++) {
		if (s->targets[i] == s->targets[j - 1])
			put_pid(s->targets[i]);
		else
			s->targets[j++] = s->targets[i];
	}
	s->nr_targets = min(s->nr_targets, j);
	return 0;
}

/* Does t already carry our counter, directly or inherited? */
bool memtrace_task_traced(struct memtrace_session *s, struct task_struct *t)
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

/* One START's walk over the targets' trees. */
struct memtrace_walk {
	struct memtrace_session *s;
	struct xarray tasks;	/* tid -> start-time key: seen */
	struct xarray procs;	/* tgid -> key << 2 | MT_PROC_* */
	unsigned int nseen;
	unsigned int n;
	struct task_struct *batch[MEMTRACE_ATTACH_BATCH];
};

#define MT_PROC_DENIED	1UL	/* not ptrace-readable: skipped */
#define MT_PROC_COUNTED	2UL	/* in attached.processes */

/* A task's start time as an xarray value (tids are recycled, this is not). */
static unsigned long memtrace_key(const struct task_struct *t)
{
	return (unsigned long)t->start_time & (LONG_MAX >> 4);
}

static bool memtrace_tid_seen(struct memtrace_walk *w, struct task_struct *t)
{
	void *e = xa_load(&w->tasks, t->pid);

	return e && xa_to_value(e) == memtrace_key(t);
}

/* The process's MT_PROC_* bits, or -1 if not looked at yet. */
static long memtrace_proc_state(struct memtrace_walk *w, struct task_struct *t)
{
	void *e = xa_load(&w->procs, t->tgid);
	unsigned long v;

	if (!e)
		return -1;
	v = xa_to_value(e);
	if (v >> 2 != memtrace_key(t->group_leader))
		return -1;
	return (long)(v & 3);
}

static int memtrace_set_proc(struct memtrace_walk *w, struct task_struct *t,
			     unsigned long bits)
{
	unsigned long v = memtrace_key(t->group_leader) << 2 | bits;

	return xa_err(xa_store(&w->procs, t->tgid, xa_mk_value(v), GFP_KERNEL));
}

static bool memtrace_is_target(struct memtrace_session *s, struct pid *pid)
{
	return pid && bsearch(&pid, s->targets, s->nr_targets,
			      sizeof(*s->targets), memtrace_ptr_cmp);
}

/* Is process p a target or (DESCENDANTS) below one?  Under RCU. */
static bool memtrace_in_tree(struct memtrace_session *s, struct task_struct *p)
{
	struct task_struct *a;

	if (memtrace_is_target(s, task_tgid(p)))
		return true;
	if (!(s->cfg.flags & MEMTRACE_CFG_DESCENDANTS))
		return false;
	for (a = rcu_dereference(p->real_parent); a->pid;
	     a = rcu_dereference(a->real_parent))
		if (memtrace_is_target(s, task_tgid(a)))
			return true;
	return false;
}

/* One pass: references on up to a batch of unseen threads of the tree. */
static void memtrace_collect(struct memtrace_walk *w)
{
	struct task_struct *p, *t;

	w->n = 0;
	rcu_read_lock();
	for_each_process(p) {
		if (p->flags & PF_KTHREAD ||
		    memtrace_proc_state(w, p) == (long)MT_PROC_DENIED ||
		    !memtrace_in_tree(w->s, p))
			continue;
		for_each_thread(p, t) {
			if (t->flags & PF_EXITING || memtrace_tid_seen(w, t))
				continue;
			get_task_struct(t);
			w->batch[w->n++] = t;
			if (w->n == MEMTRACE_ATTACH_BATCH)
				goto out;
		}
	}
out:
	rcu_read_unlock();
}

/*
 * A counter of our own for thread t, if the caller (current) may read it:
 * -EACCES if not; s->lock held.  As perf_event_open() does, the check and
 * the counter's creation hold t's exec_update_lock, so an exec that changes
 * t's credentials (setuid) comes either after the counter exists (perf
 * keeps such counters too) or before the check, which then sees the new
 * credentials.
 */
int memtrace_task_counter(struct memtrace_session *s, struct task_struct *t)
{
	struct rw_semaphore *exec_lock = &t->signal->exec_update_lock;
	struct memtrace_task_event *te;
	struct perf_event *ev;
	int ret;

	if (s->nr_task_events >= MEMTRACE_MAX_TASK_EVENTS)
		return -ENOSPC;
	te = kzalloc(sizeof(*te), GFP_KERNEL_ACCOUNT);
	if (!te)
		return -ENOMEM;
	ret = down_read_killable(exec_lock);
	if (ret) {
		kfree(te);
		return ret;
	}
	if (!memtrace_may_read(t))
		ev = ERR_PTR(-EACCES);
	else
		ev = memtrace_counter(s, -1, t, &te->binding);
	up_read(exec_lock);
	if (IS_ERR(ev)) {
		kfree(te);
		/* a thread that is exiting needs no counter */
		if (PTR_ERR(ev) == -ESRCH && t->flags & PF_EXITING)
			return 0;
		return PTR_ERR(ev);
	}
	te->event = ev;
	te->tid = t->pid;
	list_add_tail(&te->node, &s->task_events);
	s->nr_task_events++;
	return 0;
}

/* Gives t our counter unless it has one; counts what it covered. */
static int memtrace_attach_one(struct memtrace_walk *w, struct task_struct *t)
{
	struct memtrace_session *s = w->s;
	long proc = memtrace_proc_state(w, t);
	int ret;

	if (proc < 0) {
		/* the quick look; memtrace_task_counter() checks again */
		proc = memtrace_may_read(t) ? 0 : MT_PROC_DENIED;
		if (proc)
			s->attached.denied++;
		ret = memtrace_set_proc(w, t, proc);
		if (ret)
			return ret;
	}
	if (proc & MT_PROC_DENIED)
		return 0;
	if (++w->nseen > MEMTRACE_MAX_TASKS_SEEN)
		return -ENOSPC;
	ret = xa_err(xa_store(&w->tasks, t->pid, xa_mk_value(memtrace_key(t)),
			      GFP_KERNEL));
	if (ret)
		return ret;
	if (s->fault_probe) {
		/* the process's tgid into the probe's filter, once */
		ret = proc & MT_PROC_COUNTED ? 0 : memtrace_probe_add(s, t);
		if (ret == -EACCES) {
			/* its credentials changed (exec) since the quick look */
			s->attached.denied++;
			return memtrace_set_proc(w, t, MT_PROC_DENIED);
		}
		if (ret)
			return ret;
	} else if (!memtrace_task_traced(s, t)) {
		/* covered before its counter exists: see memtrace_fork.c */
		ret = memtrace_fork_cover(s, t);
		if (!ret)
			ret = memtrace_task_counter(s, t);
		if (ret == -EACCES) {
			/* its credentials changed (exec) since the quick look */
			if (proc & MT_PROC_COUNTED)
				return 0;
			s->attached.denied++;
			return memtrace_set_proc(w, t, MT_PROC_DENIED);
		}
		if (ret)
			return ret;
	}
	s->attached.threads++;
	if (!(proc & MT_PROC_COUNTED)) {
		s->attached.processes++;
		return memtrace_set_proc(w, t, MT_PROC_COUNTED);
	}
	return 0;
}

int memtrace_start_task(struct memtrace_session *s)
{
	struct memtrace_walk *w;
	unsigned int i;
	int ret = 0;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->s = s;
	xa_init(&w->tasks);
	xa_init(&w->procs);
	s->attached = (struct memtrace_targets){ .size = sizeof(s->attached) };
	/* the probe path has its own fork probe (memtrace_probe.c) */
	ret = s->fault_probe ? 0 : memtrace_fork_start(s);
	do {
		memtrace_collect(w);
		for (i = 0; i < w->n; i++) {
			if (!ret)
				ret = memtrace_attach_one(w, w->batch[i]);
			put_task_struct(w->batch[i]);
		}
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		cond_resched();
	} while (!ret && w->n);
	/* children whose fork straddled an attach (not counted, as inherited) */
	if (!ret)
		ret = memtrace_fork_drain(s);
	if (!ret && !s->attached.threads)
		ret = s->attached.denied ? -EACCES : -ESRCH;
	xa_destroy(&w->tasks);
	xa_destroy(&w->procs);
	kfree(w);
	return ret;
}

/* Releases the counters; entries and bindings wait for a grace period. */
void memtrace_stop_task(struct memtrace_session *s)
{
	struct memtrace_task_event *te;

	memtrace_fork_stop(s);
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

/*
 * Is any task carrying one of our counters alive?  perf's is_event_hup()
 * rule: a counter is done once its task exited (state EXIT; a zombie has
 * exited) and no inherited copy is left (each is unlinked from the child
 * list when its task exits).
 */
static bool memtrace_tasks_alive(struct memtrace_session *s)
{
	struct memtrace_task_event *te;
	bool alive;

	if (s->cfg.flags & MEMTRACE_CFG_ACCESSED)
		return memtrace_scan_alive(s);
	if (s->fault_probe)
		return memtrace_probe_alive(s);
	if (memtrace_fork_pending(s))
		return true;	/* a child waits for its counter */
	list_for_each_entry(te, &s->task_events, node) {
		if (!te->event)
			continue;
		if (READ_ONCE(te->event->state) > PERF_EVENT_STATE_EXIT)
			return true;
		mutex_lock(&te->event->child_mutex);
		alive = !list_empty(&te->event->child_list);
		mutex_unlock(&te->event->child_mutex);
		if (alive)
			return true;
	}
	return false;
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
	if (memtrace_tasks_alive(s)) {
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
