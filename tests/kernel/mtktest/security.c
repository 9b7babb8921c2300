/* security.c - mtktest security: perf's rules for the caller of CONFIGURE
 * and START (kernel_policy in memtrace_policy.c).  A file opened by root is
 * used after the process dropped to uid 65534 without capabilities (a
 * passed file): the module must judge the caller, not the opener.
 *   kaddr     KERNEL_ADDRS with a process target: EINVAL (root too)
 *   paranoid  perf_event_paranoid 3..-1 x {own process, -a, -a --kernel}:
 *             exactly perf's EACCES table; CAP_PERFMON passes at 3
 *   change    paranoid raised between CONFIGURE and START, and before a
 *             restart from STOPPED: START EACCES
 *   setuid    the target execs a setuid-root binary after CONFIGURE (and
 *             after a START/STOP): START EACCES, TARGETS EINVAL
 * The per-user limits and memory-cgroup accounting are in seclimits.c.
 */
#include <sys/prctl.h>
#include <linux/capability.h>

#include "mtktest.h"

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define SUID_COPY "/tmp/mtk-suid"

int sec_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	close(fd);
	return ok ? 0 : -1;
}

int sec_read_int(const char *path, int *v)
{
	char b[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	*v = atoi(b);
	return 0;
}

static int set_paranoid(int v)
{
	char b[16];

	snprintf(b, sizeof(b), "%d\n", v);
	return sec_write(PARANOID, b);
}

/* Become uid (and gid) without capabilities, or with CAP_PERFMON only. */
int sec_drop_to(uid_t uid, int perfmon)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (perfmon && prctl(PR_SET_KEEPCAPS, 1))
		return -1;
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	if (perfmon) {
		memset(d, 0, sizeof(d));
		d[1].effective = d[1].permitted = 1U << (38 - 32); /* CAP_PERFMON */
		if (syscall(SYS_capset, &h, d))
			return -1;
	}
	/* the uid change made us non-dumpable: ptrace rules would refuse
	 * even our own children */
	return prctl(PR_SET_DUMPABLE, 1);
}

/* CONFIGURE then START; 0 or the errno of the first that failed. */
static int cfg_start(int fd, uint32_t flags, pid_t pid)
{
	struct memtrace_config c;

	mt_default_config(&c, pid, 64);
	c.flags = flags;
	if (ioctl(fd, MEMTRACE_IOC_CONFIGURE, &c) || ioctl(fd, MEMTRACE_IOC_START))
		return errno;
	ioctl(fd, MEMTRACE_IOC_STOP);
	return 0;
}

static int expect(const char *what, int got, int want)
{
	if (got == want)
		return 0;
	printf("    %s: %s, want %s\n", what, got ? strerror(got) : "works",
	       want ? strerror(want) : "works");
	return 1;
}

static void test_kaddr(void)
{
	int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR), bad = 0, rel;
	pid_t own = mtk_spawn(sleeper, NULL, &rel);

	bad += expect("root, KERNEL_ADDRS + pid", cfg_start(fd, MEMTRACE_CFG_KERNEL_ADDRS, own),
		      EINVAL);
	bad += expect("root, KERNEL_ADDRS + DESCENDANTS + pid",
		      cfg_start(fd, MEMTRACE_CFG_KERNEL_ADDRS | MEMTRACE_CFG_DESCENDANTS, own),
		      EINVAL);
	close(fd);
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	bad += expect("root, -a --kernel",
		      cfg_start(fd, MEMTRACE_CFG_SYSTEM_WIDE | MEMTRACE_CFG_KERNEL_ADDRS, 0), 0);
	close(fd);
	kill(own, SIGKILL);
	reap(own);
	if (bad)
		FAIL("security", "kaddr: %d case(s) wrong", bad);
	else
		OK("security", " kaddr: KERNEL_ADDRS with a pid EINVAL (root too), -a --kernel works");
}

/*
 * In a child: 3 files opened as root, then uid 65534 without capabilities
 * (or uid 1000 with CAP_PERFMON); a process session of its own child, -a
 * and -a --kernel must give perf's answers for paranoid p.
 */
static int paranoid_case(int p, int perfmon)
{
	pid_t c = fork();

	if (c == 0) {
		int fd[3], rel, bad = 0;
		pid_t own;

		for (int i = 0; i < 3; i++)
			fd[i] = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		if (fd[2] < 0 || sec_drop_to(perfmon ? 1000 : 65534, perfmon))
			_exit(90);
		own = mtk_spawn(sleeper, NULL, &rel);
		bad += expect("own process", cfg_start(fd[0], 0, own),
			      !perfmon && p > 2 ? EACCES : 0);
		bad += expect("-a", cfg_start(fd[1], MEMTRACE_CFG_SYSTEM_WIDE, 0),
			      !perfmon && p > 0 ? EACCES : 0);
		bad += expect("-a --kernel", cfg_start(fd[2], MEMTRACE_CFG_SYSTEM_WIDE |
						       MEMTRACE_CFG_KERNEL_ADDRS, 0),
			      !perfmon && p > 0 ? EACCES : 0);
		kill(own, SIGKILL);
		_exit(bad ? 91 : 0);
	}
	return reap(c);
}

static void test_paranoid(void)
{
	static const int levels[] = { 3, 2, 1, 0, -1 };
	int bad = 0, rc;

	for (unsigned i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (set_paranoid(levels[i])) {
			bad++;
			continue;
		}
		rc = paranoid_case(levels[i], 0);
		if (rc) {
			printf("    paranoid %d, uid 65534: step %d\n", levels[i], rc);
			bad++;
		}
	}
	if (set_paranoid(3) || (rc = paranoid_case(3, 1))) {
		printf("    paranoid 3, uid 1000 with CAP_PERFMON: failed\n");
		bad++;
	}
	if (bad)
		FAIL("security", "paranoid: %d level(s) wrong", bad);
	else
		OK("security", " paranoid 3/2/1/0/-1, uid 65534 on a root-opened file: own process EACCES at 3 only, -a and -a --kernel EACCES above 0; CAP_PERFMON: all work at 3");
}

/* One byte over a pipe each way: the child asks, the parent acts. */
static int ask(int w, int r, char what)
{
	char b;

	return write(w, &what, 1) == 1 && read(r, &b, 1) == 1 ? 0 : -1;
}

/* Paranoid raised between CONFIGURE and START, and before a restart. */
static void test_change(void)
{
	int up[2], down[2], bad = 0, rc;
	char b;
	pid_t c;

	if (pipe(up) || pipe(down) || set_paranoid(0)) {
		FAIL("security", "change: setup");
		return;
	}
	c = fork();
	if (c == 0) {
		struct memtrace_config cfg;
		int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);

		if (fd < 0 || sec_drop_to(65534, 0))
			_exit(90);
		mt_default_config(&cfg, 0, 64);
		cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
		if (ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg))
			_exit(91);
		if (ask(up[1], down[0], '1'))		/* paranoid 1 */
			_exit(92);
		bad += expect("START after paranoid 0 -> 1", ioctl(fd, MEMTRACE_IOC_START) ? errno : 0,
			      EACCES);
		if (ask(up[1], down[0], '0'))
			_exit(93);
		bad += expect("START at 0", ioctl(fd, MEMTRACE_IOC_START) ? errno : 0, 0);
		bad += expect("STOP", ioctl(fd, MEMTRACE_IOC_STOP) ? errno : 0, 0);
		if (ask(up[1], down[0], '2'))
			_exit(94);
		bad += expect("restart after paranoid 0 -> 2",
			      ioctl(fd, MEMTRACE_IOC_START) ? errno : 0, EACCES);
		_exit(bad ? 95 : 0);
	}
	close(up[1]);
	while (read(up[0], &b, 1) == 1) {
		if (set_paranoid(b - '0'))
			bad++;
		if (write(down[1], &b, 1) != 1)
			bad++;
	}
	rc = reap(c);
	close(up[0]);
	close(down[0]);
	close(down[1]);
	if (rc || bad)
		FAIL("security", "change: step %d", rc);
	else
		OK("security", " change: -a configured at paranoid 0, START after 0 -> 1 EACCES, works at 0, restart after 0 -> 2 EACCES");
}

/* Is pid running with effective uid 0 (its setuid exec done)? */
static int euid_root(pid_t pid)
{
	char path[64], line[256];
	unsigned ruid, euid;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
			found = ruid == 1000 && euid == 0;
	fclose(f);
	return found;
}

/* Copies the running mtktest to SUID_COPY, setuid root. */
static int make_suid_copy(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe %s && chmod 4755 %s", (int)getpid(),
		 SUID_COPY, SUID_COPY);
	return system(cmd);
}

static void test_setuid(void)
{
	int go[2], rdy[2], up[2], down[2], rc, bad = 0, n;
	pid_t t, r;
	char b;

	if (make_suid_copy() || pipe(go) || pipe(rdy) || pipe(up) || pipe(down)) {
		FAIL("security", "setuid: setup");
		return;
	}
	t = fork();
	if (t == 0) {		/* the target: uid 1000, then a setuid exec */
		close(up[1]);	/* the parent sees EOF if the tracer dies */
		close(down[0]);
		if (sec_drop_to(1000, 0) || write(rdy[1], "r", 1) != 1 ||
		    read(go[0], &b, 1) != 1)
			_exit(80);
		execl(SUID_COPY, "mtktest", "security", "pause", (char *)NULL);
		_exit(81);
	}
	close(rdy[1]);
	if (read(rdy[0], &b, 1) != 1) {	/* uid 1000 before CONFIGURE */
		FAIL("security", "setuid: the target did not start");
		kill(t, SIGKILL);
		reap(t);
		return;
	}
	r = fork();
	if (r == 0) {		/* the tracer: uid 1000 with CAP_PERFMON */
		struct memtrace_config cfg;
		struct memtrace_targets tg = { .size = sizeof(tg) };
		int fd0, fd1;

		if (sec_drop_to(1000, 1))
			_exit(90);
		fd0 = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		fd1 = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		mt_default_config(&cfg, t, 64);
		if (ioctl(fd0, MEMTRACE_IOC_CONFIGURE, &cfg) || ioctl(fd1, MEMTRACE_IOC_CONFIGURE, &cfg))
			_exit(91);
		bad += expect("START before the exec", ioctl(fd1, MEMTRACE_IOC_START) ? errno : 0, 0);
		ioctl(fd1, MEMTRACE_IOC_TARGETS, &tg);
		bad += expect("STOP", ioctl(fd1, MEMTRACE_IOC_STOP) ? errno : 0, 0);
		if (tg.processes != 1 || tg.threads != 1)
			bad++;
		if (ask(up[1], down[0], 'x'))	/* the target execs */
			_exit(92);
		bad += expect("START after the setuid exec", ioctl(fd0, MEMTRACE_IOC_START) ? errno : 0,
			      EACCES);
		bad += expect("TARGETS after it", ioctl(fd0, MEMTRACE_IOC_TARGETS, &tg) ? errno : 0,
			      EINVAL);
		bad += expect("restart after the setuid exec",
			      ioctl(fd1, MEMTRACE_IOC_START) ? errno : 0, EACCES);
		_exit(bad ? 93 : 0);
	}
	close(up[1]);
	if (read(up[0], &b, 1) == 1) {
		if (write(go[1], &b, 1) != 1)
			bad++;
		for (n = 0; n < 500 && !euid_root(t); n++)
			usleep(10000);
		if (n == 500) {
			printf("    the target did not become euid 0\n");
			bad++;
		}
		if (write(down[1], &b, 1) != 1)
			bad++;
	}
	rc = reap(r);
	kill(t, SIGKILL);
	reap(t);
	unlink(SUID_COPY);
	if (rc || bad)
		FAIL("security", "setuid: step %d", rc);
	else
		OK("security", " setuid: uid-1000 target configured (and started, stopped) by a uid-1000 CAP_PERFMON tracer, then exec of a setuid-root binary: START EACCES, restart EACCES, TARGETS EINVAL");
}

void test_security(const char *arg)
{
	int old;

	if (arg && !strcmp(arg, "pause")) {	/* the setuid target */
		pause();
		return;
	}
	if (sec_read_int(PARANOID, &old)) {
		FAIL("security", "cannot read %s", PARANOID);
		return;
	}
	test_kaddr();
	test_paranoid();
	test_change();
	set_paranoid(old);
	test_setuid();
	test_limits();
	set_paranoid(old);
}
