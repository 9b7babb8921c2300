/* perm.c - mtktest perm: no capability: EPERM; CAP_PERFMON only: a foreign
 * target gives EACCES, alone or in a pid list; a foreign descendant of an
 * own process is skipped and counted as denied.
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

/*
 * P (uid 1000) has a child D that stayed root; a uid-1000 CAP_PERFMON
 * tracer of P with DESCENDANTS gets P and a denied count for D.
 */
static void test_perm_descendant(void)
{
	int go[2], rc;
	pid_t p, d = -1, tracer;

	if (pipe(go))
		return;
	p = fork();
	if (p == 0) {
		d = fork();
		if (d == 0) {
			pause();
			_exit(0);
		}
		if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
			_exit(30);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(go[1], &d, sizeof(d)) != sizeof(d))
			_exit(31);
		pause();
		_exit(0);
	}
	if (read(go[0], &d, sizeof(d)) != sizeof(d))
		d = -1;
	tracer = fork();
	if (tracer == 0) {
		struct memtrace_config cfg;
		struct memtrace_targets t = { .size = sizeof(t) };
		int fd;

		if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(1000, 1000, 1000) ||
		    setresuid(1000, 1000, 1000))
			_exit(40);
		if (set_caps(1ULL << 38 /* CAP_PERFMON */))
			_exit(41);
		prctl(PR_SET_DUMPABLE, 1);
		fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		mt_default_config(&cfg, p, 64);
		cfg.flags = MEMTRACE_CFG_DESCENDANTS;
		if (ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) ||
		    ioctl(fd, MEMTRACE_IOC_START))
			_exit(42);
		if (ioctl(fd, MEMTRACE_IOC_TARGETS, &t))
			_exit(43);
		_exit(t.processes == 1 && t.threads == 1 && t.denied == 1 ? 0 : 44);
	}
	rc = reap(tracer);
	if (d > 0)
		kill(d, SIGKILL);
	kill(p, SIGKILL);
	reap(p);
	close(go[0]);
	close(go[1]);
	if (rc || d <= 0)
		FAIL("perm", "descendant of another user: step %d failed", rc);
	else
		OK("perm", " CAP_PERFMON-only user, DESCENDANTS: its process attached, root's child skipped (denied 1)");
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
		pid_t own, init;

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
		init = 1;
		cfg.pids = (uintptr_t)&init;
		cfg.nr_pids = 1;
		if (ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) == 0 || errno != EACCES)
			_exit(25);
		cfg.nr_pids = 0;
		cfg.pids = 0;
		rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) ||
		     ioctl(fd, MEMTRACE_IOC_START);
		kill(own, SIGKILL);
		_exit(rc ? 24 : 0);
	}
	rc = reap(c);
	if (rc)
		FAIL("perm", "CAP_PERFMON-only user: step %d failed", rc);
	else
		OK("perm", " CAP_PERFMON-only user: root's process EACCES (alone or in a pid list), own process ok");
	test_perm_descendant();
}
