/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of memtrace.ko shared by its source files.
 *
 * A session is one open file of /dev/memtrace.  It owns one ring per
 * possible CPU (one vmalloc area, mapped read-only by the collector), the
 * perf events that feed them and, for a process session, references to the
 * targets' struct pids; a delayed work polls whether any task carrying one
 * of the session's counters is still alive.
 */
#ifndef MEMTRACE_INTERNAL_H
#define MEMTRACE_INTERNAL_H

#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/uidgid.h>
#include <asm/local.h>
#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/perf_event.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../include/uapi/memtrace.h"
#include "pebs_hook.h"

/* Upper bound of per-thread counters of one process-target session. */
#define MEMTRACE_MAX_TASK_EVENTS	4096
/* Upper bound of threads one START looks at (attached or inherited). */
#define MEMTRACE_MAX_TASKS_SEEN		65536
/* Threads the fork probe can cover (memtrace_fork.c): attached + queued. */
#define MEMTRACE_MAX_COVER		(2 * MEMTRACE_MAX_TASK_EVENTS)
/* How often a running process session checks whether its tasks exited. */
#define MEMTRACE_EXIT_POLL_MS		20

enum memtrace_state {
	MT_NEW,		/* opened, not configured */
	MT_READY,	/* configured: rings exist, no events */
	MT_RUNNING,	/* events attached */
	MT_STOPPED,	/* stopped by the collector; may start again */
	MT_ENDED,	/* target exited: no more data, ever */
};

/* Producer-private state of one CPU's ring (not mapped). */
struct memtrace_ring {
	struct memtrace_ring_header *hdr;	/* mapped, read-only to user */
	struct memtrace_sample *rec;		/* mapped, read-only to user */
	local_t busy;				/* a producer is inside */
	/* ring full, nested producer or an unreadable fault record */
	local64_t dropped;
	local64_t throttled;			/* overflows perf throttled */
	local64_t lost;				/* records the PEBS hook lost */
	local_t countdown;			/* fault probe, period > 1 */
	u64 wake_at;				/* unread count that wakes poll */
};

struct memtrace_task_event {
	struct list_head node;
	struct perf_event *event;
	struct memtrace_pebs_binding *binding;	/* hooked mode */
	pid_t tid;
};

/* A thread START gave a counter, or a child the fork probe queued. */
struct memtrace_cover {
	struct hlist_node hnode;	/* fork_hash, keyed by task pointer */
	struct list_head node;		/* fork_queue or fork_free */
	struct task_struct *task;	/* reference held; NULL: free */
};

struct memtrace_session {
	struct mutex lock;		/* state, config, events */
	enum memtrace_state state;
	struct memtrace_config cfg;

	kuid_t uid;			/* the opener's real uid (sessions) */

	/*
	 * rings: pages charged to the configuring task's memory cgroup,
	 * vmapped into one area, ring_bytes per possible CPU
	 */
	void *area;
	struct page **pages;
	unsigned long nr_pages;
	size_t ring_bytes;
	size_t area_bytes;
	struct memtrace_ring *rings;	/* [nr_cpu_ids] */

	/* process targets: sorted, without duplicates */
	struct pid **targets;
	unsigned int nr_targets;
	struct memtrace_targets attached;	/* counts of the last START */
	struct list_head task_events;
	unsigned int nr_task_events;
	struct delayed_work exit_work;

	/* forks straddling START (memtrace_fork.c) */
	raw_spinlock_t fork_lock;	/* the hash, both lists, the flag */
	DECLARE_HASHTABLE(fork_hash, 9);	/* covered threads */
	struct memtrace_cover *cover;	/* [MEMTRACE_MAX_COVER] while running */
	struct list_head fork_queue;	/* children queued, not drained */
	struct list_head fork_free;	/* unused entries */
	bool fork_overflow;		/* pool full: a child was not queued */
	bool fork_probe;		/* probe registered (s->lock) */
	bool fork_warned;
	const struct cred *fork_cred;	/* the opener's, at START */
	struct work_struct fork_work;	/* drains children queued later */

	/* system-wide: one counter per online CPU, kept by cpuhp callbacks */
	struct perf_event **cpu_events;	/* [nr_cpu_ids] */
	/* hooked mode: [nr_cpu_ids]; kept after release until a grace period */
	struct memtrace_pebs_binding **cpu_bindings;
	struct hlist_node cpuhp_node;
	bool cpuhp_added;
	struct work_struct cpu_work;	/* reconciles counters after hotplug */

	/*
	 * page-fault sessions through the probe on exceptions:page_fault_user
	 * (memtrace_probe.c) instead of perf counters; chosen at START
	 */
	bool fault_probe;		/* this START uses the probe (s->lock) */
	bool probe_on;			/* probe state set up (s->lock) */
	u8 probes;			/* MEMTRACE_PROBE_* registered */
	bool probe_user_addr;		/* only user addresses (sw event) */
	unsigned long *tgids;		/* process sessions: traced tgids */
	atomic_t nr_live;		/* bits set in tgids */

	/* accessed-bit source (memtrace_scan.c), MEMTRACE_CFG_ACCESSED */
	struct task_struct *scan_thread;	/* while running (s->lock) */
	struct task_struct **scan_tasks;	/* [MEMTRACE_MAX_TASK_EVENTS] */
	const struct cred *scan_cred;		/* the caller's, at START */
	unsigned int scan_procs;		/* found by the last pass */
	unsigned long scan_overflow;		/* passes past the array */

	enum memtrace_pebs_mode mode;	/* chosen at START */
	bool large_pebs;		/* every hooked event got large PEBS */

	bool configured;		/* rings exist (set once, release) */
	spinlock_t consume_lock;	/* serialises tail updates */

	wait_queue_head_t wq;
	struct irq_work wake_work;
};

/* memtrace_ring.c */
int memtrace_rings_alloc(struct memtrace_session *s);
void memtrace_rings_free(struct memtrace_session *s);
void memtrace_ring_produce(struct memtrace_session *s,
			   struct perf_event *event,
			   struct perf_sample_data *data, struct pt_regs *regs);
void memtrace_ring_push(struct memtrace_session *s,
			const struct memtrace_sample *smp);
void memtrace_ring_fault(struct memtrace_session *s, unsigned long address,
			 struct pt_regs *regs, unsigned long error_code);
void memtrace_rings_set_mode(struct memtrace_session *s);
extern const struct memtrace_pebs_ops memtrace_pebs_ops;
int memtrace_ring_consume(struct memtrace_session *s,
			  const struct memtrace_consume *c);
bool memtrace_rings_readable(struct memtrace_session *s, bool any);
void memtrace_rings_set_flags(struct memtrace_session *s, u32 flags);
void memtrace_ring_stats(struct memtrace_session *s, unsigned int cpu,
			 struct memtrace_cpu_stats *st);

/* memtrace_session.c: the file operations of /dev/memtrace */
extern atomic_t memtrace_nr_sessions;
int memtrace_open(struct inode *inode, struct file *file);
int memtrace_release(struct inode *inode, struct file *file);
long memtrace_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int memtrace_mmap(struct file *file, struct vm_area_struct *vma);
__poll_t memtrace_poll(struct file *file, poll_table *wait);

/* memtrace_events.c */
void memtrace_session_init_events(struct memtrace_session *s);
void memtrace_counter_attr(struct memtrace_session *s, bool task,
			   struct perf_event_attr *attr);
struct perf_event *memtrace_counter(struct memtrace_session *s, int cpu,
				    struct task_struct *task,
				    struct memtrace_pebs_binding **bp);
int memtrace_events_start(struct memtrace_session *s);
void memtrace_events_stop(struct memtrace_session *s);

/* memtrace_cpus.c: system-wide sessions, CPU hotplug */
int memtrace_events_init(void);
void memtrace_events_exit(void);
void memtrace_cpu_work(struct work_struct *work);
int memtrace_start_cpus(struct memtrace_session *s);
void memtrace_stop_cpus(struct memtrace_session *s);
void memtrace_free_cpus(struct memtrace_session *s);

/* memtrace_probe.c: page-fault sessions through a probe on the tracepoint */
struct tracepoint *memtrace_find_tracepoint(const char *name);
void memtrace_probe_init(void);
bool memtrace_probe_wanted(const struct memtrace_config *c);
int memtrace_probe_start(struct memtrace_session *s);
int memtrace_probe_add(struct memtrace_session *s, struct task_struct *t);
bool memtrace_probe_alive(struct memtrace_session *s);
void memtrace_probe_stop(struct memtrace_session *s);

/* memtrace_fault.c: exceptions:page_fault_user (MEMTRACE_CFG_PAGE_FAULT_TP) */
void memtrace_fault_tune_attr(struct perf_event_attr *attr);
int memtrace_fault_check_event(struct perf_event *ev);
bool memtrace_fault_fill(struct perf_event *event,
			 struct perf_sample_data *data, u32 fields,
			 struct memtrace_sample *smp);

/* memtrace_policy.c: perf's rules for the caller, per-user limits */
int memtrace_perf_paranoid(void);
int memtrace_check_caller(const struct memtrace_config *c);
bool memtrace_may_read(struct task_struct *task);
int memtrace_check_ring_bytes(size_t bytes);
int memtrace_user_get(kuid_t uid);
void memtrace_user_put(kuid_t uid);

/* memtrace_task.c: process-target sessions */
int memtrace_check_targets(struct memtrace_session *s, const pid_t *pids,
			   unsigned int n);
void memtrace_put_targets(struct memtrace_session *s);
int memtrace_start_task(struct memtrace_session *s);
void memtrace_stop_task(struct memtrace_session *s);
void memtrace_free_task(struct memtrace_session *s);
void memtrace_exit_poll(struct work_struct *work);
bool memtrace_task_traced(struct memtrace_session *s, struct task_struct *t);
int memtrace_task_counter(struct memtrace_session *s, struct task_struct *t);

/* memtrace_fork.c: children forked while START attaches */
void memtrace_fork_init(void);
void memtrace_session_init_fork(struct memtrace_session *s);
int memtrace_fork_start(struct memtrace_session *s);
int memtrace_fork_cover(struct memtrace_session *s, struct task_struct *t);
int memtrace_fork_drain(struct memtrace_session *s);
bool memtrace_fork_pending(struct memtrace_session *s);
void memtrace_fork_work(struct work_struct *work);
void memtrace_fork_stop(struct memtrace_session *s);

/* memtrace_scan.c: the accessed-bit source */
int memtrace_scan_start(struct memtrace_session *s);
void memtrace_scan_stop(struct memtrace_session *s);
bool memtrace_scan_alive(struct memtrace_session *s);

#include "memtrace_selftest.h"

#endif /* MEMTRACE_INTERNAL_H */
