/* seclimits.c - mtktest security, part 2: what one user may pin.
 *   sessions  max_sessions_per_user = 3: a uid-1000 CAP_PERFMON user opens
 *             3, the 4th is EMFILE while root still opens; a close frees one
 *   ring      max_ring_mb = 1: rings over 1 MiB (all CPUs) EFBIG, a small
 *             one works and maps; memtracectl names the parameter for
 *             --ring 32768 and fits its default ring under it
 *   cli       max_sessions_per_user = 0: memtracectl names the parameter
 *   memcg     in a cgroup with memory.max 32M: a 2^20-record ring ENOMEM
 *             (no OOM kill), a 2^17 one works and memory.current grows by
 *             its size, and shrinks by it at close
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "mtktest.h"

#define PARAMS "/sys/module/memtrace/parameters/"
#define CG "/sys/fs/cgroup"
#define CG_MT CG "/mtsec"

/*
 * memtracectl record --backend module -a --duration 1 ARGS: 0 if its exit
 * status is zero exactly when ok, and its output contains want.
 */
static int cli(const char *args, int ok, const char *want)
{
	char cmd[256], out[1024] = "";
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "/bin/memtracectl record --backend module -a --duration 1 "
		 "-o /tmp/sec.mtrace --force %s 2>&1", args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	st = pclose(p);
	unlink("/tmp/sec.mtrace");
	if ((st == 0) != ok || !strstr(out, want)) {
		printf("    memtracectl %s: status %d, wanted %s and \"%s\":\n%s", args, st,
		       ok ? "0" : "non-zero", want, out);
		return -1;
	}
	return 0;
}

static void test_sessions(void)
{
	int up[2], down[2], old, rc, bad = 0, fd;
	char b;
	pid_t c;

	if (sec_read_int(PARAMS "max_sessions_per_user", &old) ||
	    sec_write(PARAMS "max_sessions_per_user", "3") || pipe(up) || pipe(down)) {
		FAIL("security", "sessions: setup");
		return;
	}
	c = fork();
	if (c == 0) {
		int fds[4], i, e;

		if (sec_drop_to(1000, 1))
			_exit(90);
		for (i = 0; i < 3; i++)
			if ((fds[i] = open(MEMTRACE_DEVICE_PATH, O_RDWR)) < 0)
				_exit(91);
		fds[3] = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		e = errno;
		if (fds[3] >= 0 || e != EMFILE) {
			printf("    4th open: %s, want EMFILE\n", fds[3] >= 0 ? "works" : strerror(e));
			_exit(92);
		}
		if (write(up[1], "r", 1) != 1 || read(down[0], &b, 1) != 1 || b != 'y')
			_exit(93);	/* root could not open meanwhile */
		close(fds[1]);
		if ((fds[1] = open(MEMTRACE_DEVICE_PATH, O_RDWR)) < 0)
			_exit(94);
		for (i = 0; i < 3; i++)
			close(fds[i]);
		for (i = 0; i < 3; i++)
			if ((fds[i] = open(MEMTRACE_DEVICE_PATH, O_RDWR)) < 0)
				_exit(95);	/* a refused open left a count */
		_exit(0);
	}
	close(up[1]);
	if (read(up[0], &b, 1) == 1) {
		fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		b = fd >= 0 ? 'y' : 'n';
		if (fd >= 0)
			close(fd);
		if (write(down[1], &b, 1) != 1)
			bad++;
	}
	rc = reap(c);
	close(up[0]);
	close(down[0]);
	close(down[1]);
	if (sec_write(PARAMS "max_sessions_per_user", "0") ||
	    cli("", 0, "max_sessions_per_user)"))
		bad++;
	{
		char v[16];

		snprintf(v, sizeof(v), "%d", old);
		sec_write(PARAMS "max_sessions_per_user", v);
	}
	if (rc || bad)
		FAIL("security", "sessions: step %d", rc);
	else
		OK("security", " sessions: max_sessions_per_user 3: uid 1000's 4th open EMFILE, root's open works meanwhile, a close frees one, refused opens leave no count; at 0 memtracectl names the parameter");
}

static size_t ring_area(int ncpus, uint32_t records)
{
	long pg = sysconf(_SC_PAGESIZE);

	return (size_t)ncpus * ((pg + records * sizeof(struct memtrace_sample) + pg - 1) / pg * pg);
}

static void test_ring_cap(void)
{
	struct memtrace_config cfg;
	struct mt_session s = { 0 };
	int old, fd, ncpus, e, bad = 0;

	if (sec_read_int(PARAMS "max_ring_mb", &old) || sec_write(PARAMS "max_ring_mb", "1")) {
		FAIL("security", "ring: setup");
		return;
	}
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	mt_default_config(&cfg, 0, 1U << 15);
	cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	e = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) ? errno : 0;
	close(fd);
	cfg.ring_records = 1U << 10;
	s.fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	if (mt_setup(&s, &cfg)) {
		printf("    2^10 records: %s\n", strerror(errno));
		bad++;
	} else {
		ncpus = s.ncpus;
		if (e != (ring_area(ncpus, 1U << 15) > (1U << 20) ? EFBIG : 0)) {
			printf("    2^15 records (%zu bytes): %s\n", ring_area(ncpus, 1U << 15),
			       e ? strerror(e) : "works");
			bad++;
		}
		if (ring_area(ncpus, 1U << 10) > (1U << 20) || mt_hdr(&s, ncpus - 1)->ring_records != 1024)
			bad++;
		mt_close(&s);
	}
	if (cli("--ring 32768", 0, "max_ring_mb (1 MiB") || cli("", 1, ""))
		bad++;
	{
		char v[16];

		snprintf(v, sizeof(v), "%d", old);
		sec_write(PARAMS "max_ring_mb", v);
	}
	if (bad)
		FAIL("security", "ring: max_ring_mb not enforced");
	else
		OK("security", " ring: max_ring_mb 1: 2^15 records per CPU EFBIG, 2^10 works and maps; memtracectl --ring 32768 names max_ring_mb, its default ring fits");
}

static long cg_long(const char *path, const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key)
			v = atol(line);
		else if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ' ')
			v = atol(line + strlen(key) + 1);
	}
	fclose(f);
	return v;
}

/* In the cgroup: exit 0 if the rings are charged to it and ENOMEM past it. */
static int memcg_child(void)
{
	struct memtrace_config cfg;
	struct mt_session s = { 0 };
	char pid[16];
	long m0, m1, m2, area;
	int fd, e;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (sec_write(CG_MT "/cgroup.procs", pid))
		return 80;
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	mt_default_config(&cfg, 0, 1U << 20);
	cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	e = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg) ? errno : 0;
	close(fd);
	if (e != ENOMEM) {
		printf("    2^20 records past memory.max: %s, want ENOMEM\n", e ? strerror(e) : "works");
		return 81;
	}
	cfg.ring_records = 1U << 17;
	s.fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	m0 = cg_long(CG_MT "/memory.current", NULL);
	if (mt_setup(&s, &cfg))
		return 82;
	m1 = cg_long(CG_MT "/memory.current", NULL);
	area = (long)ring_area(s.ncpus, 1U << 17);
	mt_close(&s);
	m2 = cg_long(CG_MT "/memory.current", NULL);
	printf("    memory.current %ld -> %ld (configured, %ld ring bytes) -> %ld (closed)\n", m0, m1,
	       area, m2);
	if (m1 - m0 < area - (512L << 10) || m1 - m0 > area + (1L << 20))
		return 83;
	if (m1 - m2 < area - (512L << 10))
		return 84;
	return 0;
}

/* 1 if the kernel knows the cgroup2 filesystem (not the debug kernel's tinyconfig). */
static int have_cgroup2(void)
{
	char line[128];
	int found = 0;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		return 1;	/* let the mount say what is wrong */
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "\tcgroup2\n") != NULL;
	fclose(f);
	return found;
}

static void test_memcg(void)
{
	long kills;
	int rc;
	pid_t c;

	if (!have_cgroup2()) {
		printf("not run: security memcg: this kernel has no cgroup2 filesystem (no CONFIG_MEMCG)\n");
		return;
	}
	if (access(CG "/cgroup.controllers", F_OK) &&
	    mount("none", CG, "cgroup2", 0, NULL)) {
		FAIL("security", "memcg: mount cgroup2: %s", strerror(errno));
		return;
	}
	if (sec_write(CG "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CG_MT, 0755) && errno != EEXIST) ||
	    sec_write(CG_MT "/memory.max", "33554432")) {
		FAIL("security", "memcg: cgroup setup: %s", strerror(errno));
		return;
	}
	c = fork();
	if (c == 0)
		_exit(memcg_child());
	rc = reap(c);
	kills = cg_long(CG_MT "/memory.events", "oom_kill");
	rmdir(CG_MT);
	if (rc || kills != 0)
		FAIL("security", "memcg: step %d, oom_kill %ld", rc, kills);
	else
		OK("security", " memcg: memory.max 32M: 2^20-record rings ENOMEM (0 OOM kills), 2^17 charged to the cgroup and uncharged at close");
}

void test_limits(void)
{
	test_sessions();
	test_ring_cap();
	test_memcg();
}
