// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what: perf_event_open()'s rules for the caller of CONFIGURE
 * and START, and the per-user limits (sessions, ring bytes).
 *
 * A session is configured after open(), possibly by another process that
 * received the file (fork, SCM_RIGHTS), so the rules are applied to the
 * caller of each CONFIGURE and START, with its credentials at that moment,
 * as perf_event_open() applies them to its caller:
 *   - without CAP_PERFMON (or CAP_SYS_ADMIN), kernel.perf_event_paranoid
 *     decides: > 2 (Debian's and Ubuntu's extension) no session at all,
 *     > 1 no kernel addresses, > 0 no system-wide session (perf_allow_cpu(),
 *     perf_allow_kernel(), Debian's perf_paranoid_any()), > -1 no
 *     page-fault tracepoint session (raw tracepoint records,
 *     perf_allow_tracepoint());
 *   - a process target must be ptrace-readable (memtrace_may_read() below;
 *     checked under the target's exec_update_lock when its counter is
 *     created).
 *
 * sysctl_perf_event_paranoid is not exported to modules (Debian 6.1 and
 * 6.12), so the value is read from /proc/sys/kernel/perf_event_paranoid,
 * looked up from the initial task's root (the caller's mount namespace
 * could put another file there); if it cannot be read, the caller is
 * treated as under the strictest setting.  From 6.12 perf_allow_kernel()
 * is exported: kernel-address sessions also pass perf's LSM hook
 * (security_perf_event_open(PERF_SECURITY_KERNEL)); the other perf LSM
 * hooks and the ptrace LSM hook are not callable from a module.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/version.h>
#include <linux/xarray.h>

#include "memtrace.h"

static unsigned int max_sessions_per_user = 16;
module_param(max_sessions_per_user, uint, 0644);
MODULE_PARM_DESC(max_sessions_per_user,
		 "open sessions per real uid; more: open() fails with EMFILE");

static unsigned int max_ring_mb = 256;
module_param(max_ring_mb, uint, 0644);
MODULE_PARM_DESC(max_ring_mb,
		 "ring bytes of one session (all CPUs), MiB; more: CONFIGURE fails with EFBIG");

#define MEMTRACE_PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"

/* kernel.perf_event_paranoid, or INT_MAX if it cannot be read. */
int memtrace_perf_paranoid(void)
{
	struct path root;
	struct file *f;
	char buf[16];
	loff_t pos = 0;
	ssize_t n;
	int v;

	task_lock(&init_task);
	get_fs_root(init_task.fs, &root);
	task_unlock(&init_task);
	f = file_open_root(&root, MEMTRACE_PARANOID_PATH, O_RDONLY, 0);
	path_put(&root);
	if (IS_ERR(f))
		return INT_MAX;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	fput(f);
	if (n <= 0)
		return INT_MAX;
	buf[n] = '\0';
	if (kstrtoint(strim(buf), 10, &v))
		return INT_MAX;
	return v;
}

/*
 * May the caller (current) configure or start a session with these flags?
 * 0 or -EACCES (or what perf's LSM hook says).
 */
int memtrace_check_caller(const struct memtrace_config *c)
{
	if (!perfmon_capable()) {
		int paranoid = memtrace_perf_paranoid();

		if (paranoid > 2)
			return -EACCES;
		if ((c->flags & MEMTRACE_CFG_SYSTEM_WIDE) && paranoid > 0)
			return -EACCES;
		if ((c->flags & MEMTRACE_CFG_KERNEL_ADDRS) && paranoid > 1)
			return -EACCES;
		/* raw tracepoint records: perf_allow_tracepoint() */
		if ((c->flags & MEMTRACE_CFG_PAGE_FAULT_TP) && paranoid > -1)
			return -EACCES;
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	if (c->flags & MEMTRACE_CFG_KERNEL_ADDRS)
		return perf_allow_kernel();
#endif
	return 0;
}

/* Ring bytes of one session over all CPUs: -EFBIG past max_ring_mb. */
int memtrace_check_ring_bytes(size_t bytes)
{
	if (bytes > (size_t)READ_ONCE(max_ring_mb) << 20)
		return -EFBIG;
	return 0;
}

/* Open sessions per real uid (the uid RLIMIT_NPROC counts). */
static DEFINE_MUTEX(memtrace_users_lock);
static DEFINE_XARRAY(memtrace_users);

int memtrace_user_get(kuid_t uid)
{
	unsigned long key = __kuid_val(uid);
	unsigned long n = 0;
	void *e;
	int ret;

	mutex_lock(&memtrace_users_lock);
	e = xa_load(&memtrace_users, key);
	if (e)
		n = xa_to_value(e);
	if (n >= READ_ONCE(max_sessions_per_user))
		ret = -EMFILE;
	else
		ret = xa_err(xa_store(&memtrace_users, key, xa_mk_value(n + 1),
				      GFP_KERNEL_ACCOUNT));
	mutex_unlock(&memtrace_users_lock);
	return ret;
}

void memtrace_user_put(kuid_t uid)
{
	unsigned long key = __kuid_val(uid);
	unsigned long n;
	void *e;

	mutex_lock(&memtrace_users_lock);
	e = xa_load(&memtrace_users, key);
	n = e ? xa_to_value(e) : 0;
	WARN_ON_ONCE(!n);
	if (n > 1)	/* replaces an entry: allocates nothing */
		xa_store(&memtrace_users, key, xa_mk_value(n - 1), GFP_KERNEL);
	else
		xa_erase(&memtrace_users, key);
	mutex_unlock(&memtrace_users_lock);
}

/*
 * ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS) is not exported to
 * modules, so this repeats its credential and dumpability rules (see
 * __ptrace_may_access()): the caller's thread group, or the caller's real
 * uid/gid equal to all of the target's, or CAP_SYS_PTRACE in the target's
 * user namespace; and a non-dumpable target needs CAP_SYS_PTRACE in its mm's
 * user namespace.  The LSM ptrace hook cannot be called from a module.
 */
bool memtrace_may_read(struct task_struct *task)
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
