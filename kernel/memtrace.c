// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace.ko: module init/exit, the misc device /dev/memtrace and its file
 * operations, the read-only module parameters (the limits are in
 * memtrace_policy.c).
 *
 * What the module does, file by file:
 *   memtrace_session.c  one session per open file: ioctls, mmap, poll
 *   memtrace_events.c   the perf counters of a session, START/STOP
 *   memtrace_task.c     counters of a process target, its exit
 *   memtrace_fork.c     children forked while START attaches
 *   memtrace_probe.c    page faults through a tracepoint probe, no counter;
 *                       kernel tracepoints by name
 *   memtrace_cpus.c     counters of a system-wide session, CPU hotplug
 *   memtrace_ring.c     the per-CPU rings: producer, consume, stats
 *   memtrace_policy.c   perf's rules for the caller, per-user limits,
 *                       who may read a target (ptrace's rules)
 *   pebs_hook.c         the PEBS sink of a patched kernel (optional)
 * (built as the object memtrace_main.o: see Kbuild)
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "memtrace.h"

static const struct file_operations memtrace_fops = {
	.owner = THIS_MODULE,
	.open = memtrace_open,
	.release = memtrace_release,
	.unlocked_ioctl = memtrace_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = memtrace_mmap,
	.poll = memtrace_poll,
};

/* The file mode lets everyone open; open() itself demands CAP_PERFMON. */
static struct miscdevice memtrace_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "memtrace",
	.fops = &memtrace_fops,
	.mode = 0666,
};

/* /sys/module/memtrace/parameters/{mode,sessions} for memtracectl status */
static int memtrace_get_mode(char *buf, const struct kernel_param *kp)
{
	/* what PEBS sessions use; software events always perf-overflow */
	enum memtrace_pebs_mode mode = memtrace_pebs_hook_available() ?
		MEMTRACE_PEBS_MODE_HOOK : MEMTRACE_PEBS_MODE_COMPAT;

	return sysfs_emit(buf, "%s\n", memtrace_pebs_mode_name(mode));
}

static const struct kernel_param_ops memtrace_mode_ops = {
	.get = memtrace_get_mode,
};
module_param_cb(mode, &memtrace_mode_ops, NULL, 0444);
MODULE_PARM_DESC(mode, "how samples reach the rings (read-only)");

static int memtrace_get_sessions(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&memtrace_nr_sessions));
}

static const struct kernel_param_ops memtrace_sessions_ops = {
	.get = memtrace_get_sessions,
};
module_param_cb(sessions, &memtrace_sessions_ops, NULL, 0444);
MODULE_PARM_DESC(sessions, "open sessions (read-only)");

static int __init memtrace_init(void)
{
	int ret;

	memtrace_pebs_hook_init();
	memtrace_fork_init();
	memtrace_probe_init();
	ret = memtrace_events_init();
	if (ret)
		goto out_hook;
	ret = misc_register(&memtrace_misc);
	if (ret)
		goto out_events;
	return 0;
out_events:
	memtrace_events_exit();
out_hook:
	memtrace_pebs_hook_exit();
	return ret;
}

static void __exit memtrace_exit(void)
{
	misc_deregister(&memtrace_misc);
	memtrace_events_exit();
	memtrace_pebs_hook_exit();
}

module_init(memtrace_init);
module_exit(memtrace_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("memtrace developers");
MODULE_DESCRIPTION("per-CPU memory-access sample rings fed by perf");
