// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions of /dev/memtrace: open, release, the ioctls, mmap and poll (the
 * file operations memtrace.c registers).
 *
 * Every open file is an independent session:
 *   open (CAP_PERFMON or CAP_SYS_ADMIN) -> CONFIGURE (once) -> mmap rings
 *   -> START -> drain rings / CONSUME / poll -> STOP -> close.
 * open() counts the session against its real uid (memtrace_policy.c);
 * CONFIGURE and every START apply perf's rules to their caller.
 * A process session ends by itself when no task carrying its counters is
 * left (memtrace_task.c).  The file
 * operations hold a module reference, so rmmod is refused while any session
 * is open (or any ring is still mapped).
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>

#include "memtrace.h"

atomic_t memtrace_nr_sessions = ATOMIC_INIT(0);

static void memtrace_wake(struct irq_work *work)
{
	struct memtrace_session *s =
		container_of(work, struct memtrace_session, wake_work);

	wake_up_interruptible_all(&s->wq);
}

int memtrace_open(struct inode *inode, struct file *file)
{
	struct memtrace_session *s;
	kuid_t uid = current_uid();
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	ret = memtrace_user_get(uid);
	if (ret)
		return ret;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s) {
		memtrace_user_put(uid);
		return -ENOMEM;
	}
	s->uid = uid;
	mutex_init(&s->lock);
	spin_lock_init(&s->consume_lock);
	init_waitqueue_head(&s->wq);
	init_irq_work(&s->wake_work, memtrace_wake);
	memtrace_session_init_events(s);
	s->state = MT_NEW;
	file->private_data = s;
	atomic_inc(&memtrace_nr_sessions);
	return nonseekable_open(inode, file);
}

int memtrace_release(struct inode *inode, struct file *file)
{
	struct memtrace_session *s = file->private_data;

	cancel_delayed_work_sync(&s->exit_work);
	mutex_lock(&s->lock);
	memtrace_events_stop(s);
	s->state = MT_STOPPED;
	mutex_unlock(&s->lock);
	/* the hotplug instance is gone: nothing queues cpu_work any more */
	cancel_work_sync(&s->cpu_work);
	cancel_work_sync(&s->fork_work);	/* finds no probe: does nothing */
	irq_work_sync(&s->wake_work);
	memtrace_rings_free(s);
	memtrace_put_targets(s);
	memtrace_user_put(s->uid);
	kfree(s);
	atomic_dec(&memtrace_nr_sessions);
	return 0;
}

static bool memtrace_is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

static int memtrace_validate(struct memtrace_config *c)
{
	int i;

	if (c->version != MEMTRACE_ABI_VERSION)
		return -EINVAL;
	if (c->flags & ~MEMTRACE_CFG_FLAGS_ALL)
		return -EINVAL;
	if (c->fields & ~MEMTRACE_FIELDS_ALL)
		return -EINVAL;
	if (c->reserved32)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(c->reserved); i++)
		if (c->reserved[i])
			return -EINVAL;
	if (c->precise_ip > 3)
		return -EINVAL;
	if (!c->sample_period || c->sample_period > MEMTRACE_MAX_PERIOD)
		return -EINVAL;
	if (!memtrace_is_pow2(c->ring_records) ||
	    c->ring_records < MEMTRACE_RING_MIN_RECORDS ||
	    c->ring_records > MEMTRACE_RING_MAX_RECORDS)
		return -EINVAL;
	if (c->wakeup_records > c->ring_records)
		return -EINVAL;
	if (!c->wakeup_records)
		c->wakeup_records = max(c->ring_records / 4, 1U);
	if (c->flags & MEMTRACE_CFG_ACCESSED_NO_FLUSH &&
	    !(c->flags & MEMTRACE_CFG_ACCESSED))
		return -EINVAL;
	/* the accessed-bit scanner: no event; sample_period is the pass */
	if (c->flags & MEMTRACE_CFG_ACCESSED) {
		if (c->event_type || c->event_config || c->event_config1 ||
		    c->event_config2 || c->precise_ip || c->fields ||
		    (c->flags & (MEMTRACE_CFG_SYSTEM_WIDE |
				 MEMTRACE_CFG_KERNEL_ADDRS |
				 MEMTRACE_CFG_PAGE_FAULT_TP)) ||
		    c->sample_period < MEMTRACE_SCAN_MIN_MS ||
		    c->sample_period > MEMTRACE_SCAN_MAX_MS)
			return -EINVAL;
	} else if (c->flags & MEMTRACE_CFG_PAGE_FAULT_TP) {
		/* not memory-access sample sources, but the page-fault one */
		if (c->event_type != PERF_TYPE_TRACEPOINT || c->precise_ip)
			return -EINVAL;
	} else if (c->event_type == PERF_TYPE_TRACEPOINT ||
		   c->event_type == PERF_TYPE_BREAKPOINT) {
		return -EINVAL;
	}
	if (c->reserved2 || c->nr_pids > MEMTRACE_MAX_PIDS ||
	    (c->pids && !c->nr_pids))
		return -EINVAL;
	if (c->flags & MEMTRACE_CFG_SYSTEM_WIDE) {
		if ((c->pid != 0 && c->pid != -1) || c->nr_pids ||
		    (c->flags & MEMTRACE_CFG_DESCENDANTS))
			return -EINVAL;
	} else if (c->pid <= 0 || (c->flags & MEMTRACE_CFG_KERNEL_ADDRS)) {
		/* kernel addresses are not per process: system-wide only */
		return -EINVAL;
	}
	return 0;
}

/* The target list: pid, then the nr_pids pids the caller passed. */
static pid_t *memtrace_copy_pids(const struct memtrace_config *c)
{
	pid_t *pids;
	unsigned int i;

	BUILD_BUG_ON(sizeof(pid_t) != sizeof(__s32));
	pids = kvmalloc_array(c->nr_pids + 1, sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return ERR_PTR(-ENOMEM);
	pids[0] = c->pid;
	if (c->nr_pids && copy_from_user(pids + 1, u64_to_user_ptr(c->pids),
					 c->nr_pids * sizeof(*pids))) {
		kvfree(pids);
		return ERR_PTR(-EFAULT);
	}
	for (i = 1; i <= c->nr_pids; i++) {
		if (pids[i] <= 0) {
			kvfree(pids);
			return ERR_PTR(-EINVAL);
		}
	}
	return pids;
}

static long memtrace_configure(struct memtrace_session *s, void __user *arg)
{
	struct memtrace_config c;
	pid_t *pids = NULL;
	u32 usize;
	int ret;

	BUILD_BUG_ON(offsetof(struct memtrace_config, pids) !=
		     MEMTRACE_CONFIG_SIZE_V1);
	BUILD_BUG_ON(sizeof(c) != MEMTRACE_CONFIG_SIZE_V2);
	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	/* V1 collectors (one pid), or this struct with a zero tail */
	if ((usize != MEMTRACE_CONFIG_SIZE_V1 && usize < sizeof(c)) ||
	    usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&c, sizeof(c), arg, usize);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;
	c.size = sizeof(c);
	ret = memtrace_validate(&c);
	if (ret)
		return ret;
	ret = memtrace_check_caller(&c);
	if (ret)
		return ret;
	if (!(c.flags & MEMTRACE_CFG_SYSTEM_WIDE)) {
		pids = memtrace_copy_pids(&c);
		if (IS_ERR(pids))
			return PTR_ERR(pids);
	}

	mutex_lock(&s->lock);
	if (s->state != MT_NEW) {
		ret = -EBUSY;
		goto out;
	}
	s->cfg = c;
	if (pids) {
		ret = memtrace_check_targets(s, pids, c.nr_pids + 1);
		if (ret)
			goto out;
	}
	ret = memtrace_rings_alloc(s);
	if (ret) {
		memtrace_put_targets(s);
		goto out;
	}
	s->state = MT_READY;
	/*
	 * Rings before the flag: pairs with the acquires of the lockless
	 * paths (stats, consume, mmap, poll).
	 */
	smp_store_release(&s->configured, true);
out:
	mutex_unlock(&s->lock);
	kvfree(pids);
	return ret;
}

/* What the last START of a process session attached to. */
static long memtrace_targets(struct memtrace_session *s, void __user *arg)
{
	struct memtrace_targets t;
	u32 usize;
	long ret = 0;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize != sizeof(t))
		return -EINVAL;
	mutex_lock(&s->lock);
	if (!s->attached.size)
		ret = -EINVAL;	/* not a process session, or never started */
	else
		t = s->attached;
	mutex_unlock(&s->lock);
	if (!ret && copy_to_user(arg, &t, sizeof(t)))
		ret = -EFAULT;
	return ret;
}

static long memtrace_start(struct memtrace_session *s)
{
	long ret = 0;

	mutex_lock(&s->lock);
	switch (s->state) {
	case MT_READY:
	case MT_STOPPED:
		/*
		 * the caller now (the file may have been passed on), perf's
		 * rules now; targets are checked again as they are attached
		 */
		ret = memtrace_check_caller(&s->cfg);
		if (!ret)
			ret = memtrace_events_start(s);
		if (!ret)
			s->state = MT_RUNNING;
		else
			s->attached.size = 0;	/* no counts of a failed START */
		break;
	case MT_RUNNING:
		ret = -EBUSY;
		break;
	case MT_ENDED:
		ret = -ESRCH;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	mutex_unlock(&s->lock);
	return ret;
}

static long memtrace_stop(struct memtrace_session *s)
{
	long ret = 0;

	mutex_lock(&s->lock);
	if (s->state == MT_NEW) {
		ret = -EINVAL;
	} else if (s->state == MT_RUNNING) {
		memtrace_events_stop(s);
		s->state = MT_STOPPED;
	}
	mutex_unlock(&s->lock);
	wake_up_interruptible_all(&s->wq);
	return ret;
}

static long memtrace_stats(struct memtrace_session *s, void __user *arg)
{
	struct memtrace_cpu_stats __user *ucpus;
	struct memtrace_cpu_stats cs;
	struct memtrace_stats st;
	unsigned int cpu, n;

	if (copy_from_user(&st, arg, sizeof(st)))
		return -EFAULT;
	if (st.size != sizeof(st))
		return -EINVAL;
	/* pairs with the release in memtrace_configure(): rings are set */
	if (!smp_load_acquire(&s->configured))
		return -EINVAL;
	if (st.nr_cpus && !st.cpus)
		return -EFAULT;
	ucpus = u64_to_user_ptr(st.cpus);
	n = min_t(u32, st.nr_cpus, nr_cpu_ids);
	for (cpu = 0; cpu < n; cpu++) {
		memtrace_ring_stats(s, cpu, &cs);
		if (copy_to_user(&ucpus[cpu], &cs, sizeof(cs)))
			return -EFAULT;
	}
	st.nr_cpus = nr_cpu_ids;
	if (copy_to_user(arg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

static long memtrace_consume(struct memtrace_session *s, void __user *arg)
{
	struct memtrace_consume c;
	int ret;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	/* pairs with the release in memtrace_configure(): rings are set */
	if (!smp_load_acquire(&s->configured))
		return -EINVAL;
	spin_lock(&s->consume_lock);
	ret = memtrace_ring_consume(s, &c);
	spin_unlock(&s->consume_lock);
	return ret;
}

long memtrace_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct memtrace_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case MEMTRACE_IOC_CONFIGURE:
		return memtrace_configure(s, uarg);
	case MEMTRACE_IOC_START:
		return memtrace_start(s);
	case MEMTRACE_IOC_STOP:
		return memtrace_stop(s);
	case MEMTRACE_IOC_STATS:
		return memtrace_stats(s, uarg);
	case MEMTRACE_IOC_CONSUME:
		return memtrace_consume(s, uarg);
	case MEMTRACE_IOC_TARGETS:
		return memtrace_targets(s, uarg);
	default:
		return -ENOTTY;
	}
}

int memtrace_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct memtrace_session *s = file->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long off = vma->vm_pgoff;

	/* pairs with the release in memtrace_configure(): rings are set */
	if (!smp_load_acquire(&s->configured))
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (off >= (s->area_bytes >> PAGE_SHIFT) ||
	    size > s->area_bytes - (off << PAGE_SHIFT))
		return -EINVAL;
	/* read-only for good; not inherited by children of the collector */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTCOPY, VM_MAYWRITE);
#else
	vma->vm_flags = (vma->vm_flags | VM_DONTCOPY) & ~VM_MAYWRITE;
#endif
	return remap_vmalloc_range(vma, s->area, off);
}

__poll_t memtrace_poll(struct file *file, poll_table *wait)
{
	struct memtrace_session *s = file->private_data;
	enum memtrace_state state;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	/* pairs with the release in memtrace_configure(): rings are set */
	if (!smp_load_acquire(&s->configured))
		return 0;
	state = READ_ONCE(s->state);
	if (state == MT_ENDED || state == MT_STOPPED) {
		if (state == MT_ENDED)
			mask |= EPOLLHUP;
		if (memtrace_rings_readable(s, true))
			mask |= EPOLLIN | EPOLLRDNORM;
	} else if (state == MT_RUNNING && memtrace_rings_readable(s, false)) {
		mask |= EPOLLIN | EPOLLRDNORM;
	}
	return mask;
}
