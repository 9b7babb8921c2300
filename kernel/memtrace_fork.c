// SPDX-License-Identifier: GPL-2.0
/*
 * Forks that straddle an attach.  perf copies a parent's inherited counters
 * in perf_event_init_task(), early in copy_process(); the child is linked
 * into the task list (where START's passes can see it) only at the end of
 * copy_process(), after copying the address space, which for a large
 * process takes milliseconds or more.  A fork that is between the two when
 * START gives its parent our counter neither inherits it nor is sure to be
 * seen by a pass.
 *
 * The sched_process_fork tracepoint fires in the parent (current) after
 * copy_process() has linked the child, before the child is first woken.
 * While a process session runs (from before START's first pass until its
 * counters are released), a probe on it queues every child whose forking
 * thread is "covered": a thread START is about to give a counter, or a
 * child queued before.  The queue is drained, under s->lock, by START
 * after its passes and later by a work item: a child that has no copy of
 * our counter and is ptrace-readable by the session's opener gets one.
 *
 * Why nothing is missed.  START puts a thread P in the covered set (under
 * fork_lock) before it creates P's counter; the probe takes fork_lock on
 * every fork.  Let C be forked by P, with perf_event_init_task(C) before
 * P's counter could be inherited (otherwise C inherits it).
 *  - If the probe for C took fork_lock after P was covered, it queued C.
 *  - Otherwise C was linked into the task list before the probe released
 *    fork_lock, so before P was covered, before P's counter existed; the
 *    pass after the one that attached P (there always is one) walks the
 *    list after that and finds C if C is in the tree.  If not (a session
 *    without DESCENDANTS), C is a child that existed before its parent was
 *    attached, which is not traced by design.
 *  - A child Q queued by the probe has not run yet; it is covered from
 *    then on, so its own forks before it gets its counter are queued too.
 * Forks after the probe is gone are forks after STOP.  Forks that do not
 * pass through the tracepoint (io_uring and vhost workers) never run user
 * code.
 *
 * A child queued after START's drain (its fork straddled START and ended
 * after START's last pass) gets its counter from the work item, which may
 * run after the child's first user instructions.
 *
 * The covered set is a hash of task pointers, each entry holding a task
 * reference (so a pointer cannot be reused), in a pool of
 * MEMTRACE_MAX_COVER entries allocated at START: the probe never
 * allocates.  The probe queues every child of a covered thread; the drain
 * frees the entry of a child that inherited our counter (almost all of
 * them: its own forks inherit it too), so what stays covered until STOP
 * is the threads that got a counter of their own.  A full pool fails
 * START with -ENOSPC (a fork storm outran START) and, after START, is
 * reported once in the kernel log.
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "memtrace.h"

static struct tracepoint *memtrace_fork_tp;

void memtrace_fork_init(void)
{
	memtrace_fork_tp = memtrace_find_tracepoint("sched_process_fork");
	if (!memtrace_fork_tp)
		pr_warn("memtrace: no sched_process_fork tracepoint: a fork in progress at START may be missed\n");
}

void memtrace_session_init_fork(struct memtrace_session *s)
{
	raw_spin_lock_init(&s->fork_lock);
	hash_init(s->fork_hash);
	INIT_LIST_HEAD(&s->fork_queue);
	INIT_LIST_HEAD(&s->fork_free);
	INIT_WORK(&s->fork_work, memtrace_fork_work);
}

/* Under fork_lock. */
static bool memtrace_covered(struct memtrace_session *s, struct task_struct *t)
{
	struct memtrace_cover *c;

	hash_for_each_possible(s->fork_hash, c, hnode, (unsigned long)t)
		if (c->task == t)
			return true;
	return false;
}

/* Under fork_lock: adds t (not covered yet); false if the pool is full. */
static bool memtrace_cover_add(struct memtrace_session *s,
			       struct task_struct *t, bool queue)
{
	struct memtrace_cover *c;

	c = list_first_entry_or_null(&s->fork_free, struct memtrace_cover,
				     node);
	if (!c) {
		s->fork_overflow = true;
		return false;
	}
	list_del_init(&c->node);
	c->task = get_task_struct(t);
	hash_add(s->fork_hash, &c->hnode, (unsigned long)t);
	if (queue)
		list_add_tail(&c->node, &s->fork_queue);
	return true;
}

/* A drained child that needs no covering; its task reference is put. */
static void memtrace_cover_del(struct memtrace_session *s,
			       struct memtrace_cover *c)
{
	struct task_struct *t;

	raw_spin_lock(&s->fork_lock);
	t = c->task;
	c->task = NULL;
	hash_del(&c->hnode);
	list_add(&c->node, &s->fork_free);
	raw_spin_unlock(&s->fork_lock);
	put_task_struct(t);
}

/* Runs in the parent, preemption disabled: no sleeping, no allocation. */
static void memtrace_fork_probe(void *data, struct task_struct *parent,
				struct task_struct *child)
{
	struct memtrace_session *s = data;
	bool queued = false;

	raw_spin_lock(&s->fork_lock);
	if (memtrace_covered(s, parent) && !memtrace_covered(s, child)) {
		memtrace_cover_add(s, child, true);	/* or overflow */
		queued = true;
	}
	raw_spin_unlock(&s->fork_lock);
	if (queued)
		schedule_work(&s->fork_work);
}

/* START, before the first pass; s->lock held. */
int memtrace_fork_start(struct memtrace_session *s)
{
	unsigned int i;
	int ret;

	if (!memtrace_fork_tp)
		return 0;
	s->cover = kvcalloc(MEMTRACE_MAX_COVER, sizeof(*s->cover),
			    GFP_KERNEL_ACCOUNT);
	if (!s->cover)
		return -ENOMEM;
	INIT_LIST_HEAD(&s->fork_queue);
	INIT_LIST_HEAD(&s->fork_free);
	for (i = 0; i < MEMTRACE_MAX_COVER; i++)
		list_add_tail(&s->cover[i].node, &s->fork_free);
	s->fork_overflow = false;
	s->fork_warned = false;
	hash_init(s->fork_hash);
	s->fork_cred = get_current_cred();
	ret = tracepoint_probe_register(memtrace_fork_tp, memtrace_fork_probe, s);
	if (ret) {
		put_cred(s->fork_cred);
		kvfree(s->cover);
		s->cover = NULL;
		return ret;
	}
	s->fork_probe = true;
	return 0;
}

/* Before the thread t gets a counter from START; s->lock held. */
int memtrace_fork_cover(struct memtrace_session *s, struct task_struct *t)
{
	int ret = 0;

	if (!s->fork_probe)
		return 0;
	raw_spin_lock(&s->fork_lock);
	if (!memtrace_covered(s, t) && !memtrace_cover_add(s, t, false))
		ret = -ENOSPC;
	raw_spin_unlock(&s->fork_lock);
	return ret;
}

/* The next queued child, or NULL; it stays covered. */
static struct memtrace_cover *memtrace_fork_next(struct memtrace_session *s)
{
	struct memtrace_cover *c;

	raw_spin_lock(&s->fork_lock);
	c = list_first_entry_or_null(&s->fork_queue, struct memtrace_cover,
				     node);
	if (c)
		list_del_init(&c->node);
	raw_spin_unlock(&s->fork_lock);
	return c;
}

/* Does any queued child wait for its counter?  s->lock held. */
bool memtrace_fork_pending(struct memtrace_session *s)
{
	bool ret;

	if (!s->fork_probe)
		return false;
	raw_spin_lock(&s->fork_lock);
	ret = !list_empty(&s->fork_queue);
	raw_spin_unlock(&s->fork_lock);
	return ret;
}

/*
 * Gives every queued child without our counter one; s->lock held, with
 * the opener's credentials (START, or the work item overriding its own).
 * A child that inherited the counter (most), is exiting or may not be
 * read needs no covering: its forks inherit, or are not ours.
 * -ENOSPC if the pool overflowed.
 */
int memtrace_fork_drain(struct memtrace_session *s)
{
	struct memtrace_cover *c;
	struct task_struct *t;
	int ret = 0, err;

	if (!s->fork_probe)
		return 0;
	while ((c = memtrace_fork_next(s))) {
		t = c->task;
		if (t->flags & PF_EXITING || memtrace_task_traced(s, t)) {
			memtrace_cover_del(s, c);
			continue;
		}
		/* -EACCES: a setuid exec since the fork ended inheritance */
		err = memtrace_task_counter(s, t);
		if (err == -EACCES) {
			memtrace_cover_del(s, c);
			continue;
		}
		if (err && !ret)
			ret = err;
	}
	if (!ret && READ_ONCE(s->fork_overflow))
		ret = -ENOSPC;
	return ret;
}

void memtrace_fork_work(struct work_struct *work)
{
	struct memtrace_session *s =
		container_of(work, struct memtrace_session, fork_work);
	const struct cred *old;
	int ret;

	mutex_lock(&s->lock);
	if (s->fork_probe && s->state == MT_RUNNING) {
		old = override_creds(s->fork_cred);
		ret = memtrace_fork_drain(s);
		revert_creds(old);
		if (ret && !s->fork_warned) {
			s->fork_warned = true;
			pr_warn("memtrace: a child of a traced thread may have no counter (%d)\n",
				ret);
		}
	}
	mutex_unlock(&s->lock);
}

/*
 * Before the counters are released; s->lock held.  After the unregister
 * and its grace periods no probe runs; a queued work item finds fork_probe
 * false (release cancels it).
 */
void memtrace_fork_stop(struct memtrace_session *s)
{
	unsigned int i;

	if (!s->fork_probe)
		return;
	WARN_ON_ONCE(tracepoint_probe_unregister(memtrace_fork_tp,
						 memtrace_fork_probe, s));
	tracepoint_synchronize_unregister();
	s->fork_probe = false;
	for (i = 0; i < MEMTRACE_MAX_COVER; i++)
		if (s->cover[i].task)
			put_task_struct(s->cover[i].task);
	kvfree(s->cover);
	s->cover = NULL;
	hash_init(s->fork_hash);
	put_cred(s->fork_cred);
	s->fork_cred = NULL;
}
