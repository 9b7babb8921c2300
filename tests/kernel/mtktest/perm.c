/* perm.c - mtktest perm: no capability: EPERM; CAP_PERFMON only: a foreign
 * target gives EACCES.
 */
#include <sys/prctl.h>
#include <linux/capability.h>

#include "mtktest.h"

static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)caps;
	d[1].effective = d[1].permitted = (uint32_t)(caps >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

void test_perm(void)
{
	pid_t c = fork();

	if (c == 0) {
		/* uid 65534, no capabilities */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);

		_exit(fd < 0 && errno == EPERM ? 0 : 11);
	}
	int rc = reap(c);

	if (rc)
		FAIL("perm", "unprivileged open not refused with EPERM (%d)", rc);
	else
		OK("perm", " unprivileged open: EPERM");

	c = fork();
	if (c == 0) {
		struct memtrace_config cfg;
		int fd, rel;
		pid_t own;

		/* uid 1000 with CAP_PERFMON only */
		if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(20);
		if (set_caps(1ULL << 38 /* CAP_PERFMON */))
			_exit(21);
		/* the uid change made us non-dumpable: ptrace rules would
		 * then refuse even our own children */
		prctl(PR_SET_DUMPABLE, 1);
		fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		if (fd < 0)
			_exit(22);
		mt_default_config(&cfg, 1, 64);	/* init, owned by root */
		if (ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) == 0 || errno != EACCES)
			_exit(23);
		close(fd);
		own = mtk_spawn(sleeper, NULL, &rel);
		fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		mt_default_config(&cfg, own, 64);
		rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) ||
		     ioctl(fd, MEMTRACE_IOC_START);
		kill(own, SIGKILL);
		_exit(rc ? 24 : 0);
	}
	rc = reap(c);
	if (rc)
		FAIL("perm", "CAP_PERFMON-only user: step %d failed", rc);
	else
		OK("perm", " CAP_PERFMON-only user: root's process EACCES, own process ok");
}
