/* mtktest.c - guest tests of memtrace.ko (run inside the qemu guests by
 * tests/kernel/guest-init.sh).  Usage: mtktest TEST [ARGS]; prints
 * "ok TEST..." or "FAIL TEST: why" lines and exits non-zero on failure.
 *
 *   pages       every page touched by 3 threads and a forked child appears
 *               once with its exact address, pid and tid (2 sessions at once)
 *   overflow    a 16-record ring overflows: read + dropped == perf's count
 *   ioctl       a table of malformed ioctls/mmaps fails with the exact errno
 *   fuzz N      N random configurations fail cleanly or work
 *   perm        no capability: EPERM; CAP_PERFMON only: foreign target EACCES
 *   lifecycle   target exit / close / rmmod in several orders
 *   cpuoff      CPU 1 offline and online during a task and a -a session
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sched.h>
#include <linux/capability.h>

#include "mtk_child.h"

static int failures;

#define FAIL(name, ...) do { \
	printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); \
	fflush(stdout); failures++; } while (0)
#define OK(name, ...) do { \
	printf("ok   %s", name); printf(__VA_ARGS__); printf("\n"); \
	fflush(stdout); } while (0)

static struct mtk_report *shared_report(int npages)
{
	struct mtk_report *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(r, 0, sizeof(*r));
	r->npages = npages;
	return r;
}

static int reap(pid_t c)
{
	int st;

	if (waitpid(c, &st, 0) != c)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---------------- pages ---------------- */

struct pages_ctx {
	struct mtk_report *rep;
	int hits[MTK_REGIONS][1024];
	long bad_tid, bad_addr, total, bad_cpu;
	uint64_t last_time[MT_MAX_CPUS];
	long backwards;
};

static void pages_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	struct pages_ctx *c = p;
	struct mtk_report *rep = c->rep;

	c->total++;
	if ((int)r->cpu != cpu)
		c->bad_cpu++;
	if (r->time < c->last_time[cpu])
		c->backwards++;
	c->last_time[cpu] = r->time;
	for (int s = 0; s < MTK_REGIONS; s++) {
		uint64_t b = rep->base[s];

		if (!b || r->addr < b || r->addr >= b + (uint64_t)rep->npages * PG)
			continue;
		int i = (int)((r->addr - b) / PG);

		if (r->addr != mtk_touch_addr(b, i))
			c->bad_addr++;
		else if ((pid_t)r->tid != rep->tid[s] || (pid_t)r->pid != rep->pid[s])
			c->bad_tid++;
		else
			c->hits[s][i]++;
	}
}

static void pages_child(void *a)
{
	mtk_pages_main(a, MTK_THREADS);
}

static void test_pages(void)
{
	const int npages = 200;
	struct mtk_report *rep = shared_report(npages);
	struct mt_session s[2];
	static struct pages_ctx ctx[2];
	struct memtrace_config cfg;
	int rel, rc, ended[2] = { 0, 0 };
	pid_t c = mtk_spawn(pages_child, rep, &rel);
	uint64_t deadline = mt_now_ns() + 60000000000ull;

	mt_default_config(&cfg, c, 4096);
	for (int k = 0; k < 2; k++) {
		memset(&ctx[k], 0, sizeof(ctx[k]));
		ctx[k].rep = rep;
		if (mt_open(&s[k], &cfg) || ioctl(s[k].fd, MEMTRACE_IOC_START)) {
			FAIL("pages", "session %d: %s", k, strerror(errno));
			kill(c, SIGKILL);
			reap(c);
			return;
		}
	}
	mtk_release(rel);
	while (!(ended[0] && ended[1]) && mt_now_ns() < deadline) {
		struct pollfd p[2] = { { s[0].fd, POLLIN, 0 }, { s[1].fd, POLLIN, 0 } };

		poll(p, 2, 100);
		for (int k = 0; k < 2; k++) {
			int e = mt_ended(&s[k]);

			mt_drain(&s[k], pages_sample, &ctx[k]);
			ended[k] = e;
		}
	}
	rc = reap(c);
	if (rc != 0 || rep->nregions != MTK_REGIONS) {
		FAIL("pages", "workload exit %d, %d regions", rc, rep->nregions);
		goto out;
	}
	if (!(ended[0] && ended[1])) {
		FAIL("pages", "sessions did not end after target exit");
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		long missing = 0, dup = 0;
		uint64_t produced, dropped, readn = 0;

		for (int r = 0; r < MTK_REGIONS; r++)
			for (int i = 0; i < npages; i++) {
				missing += ctx[k].hits[r][i] == 0;
				dup += ctx[k].hits[r][i] > 1;
			}
		for (int cpu = 0; cpu < s[k].ncpus; cpu++)
			readn += s[k].read[cpu];
		if (mt_stats(&s[k], &produced, &dropped, NULL)) {
			FAIL("pages", "stats: %s", strerror(errno));
			continue;
		}
		if (missing || dup || ctx[k].bad_addr || ctx[k].bad_tid ||
		    ctx[k].bad_cpu || ctx[k].backwards || dropped ||
		    produced != readn)
			FAIL("pages", "session %d: %ld missing, %ld duplicate, %ld bad addr, %ld bad tid, %ld bad cpu, %ld time backwards, produced %llu read %llu dropped %llu",
			     k, missing, dup, ctx[k].bad_addr, ctx[k].bad_tid,
			     ctx[k].bad_cpu, ctx[k].backwards,
			     (unsigned long long)produced,
			     (unsigned long long)readn,
			     (unsigned long long)dropped);
		else
			OK("pages", " session %d: %d threads + forked child x %d pages exact (addr, pid, tid); %llu samples, 0 dropped",
			   k, MTK_THREADS, npages, (unsigned long long)readn);
	}
out:
	mt_close(&s[0]);
	mt_close(&s[1]);
}

/* ---------------- overflow ---------------- */

struct ovf_ctx {
	pid_t pid;
	long bad;
	uint64_t last_time[MT_MAX_CPUS];
};

static void ovf_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	struct ovf_ctx *c = p;

	if ((pid_t)r->pid != c->pid || (pid_t)r->tid != c->pid ||
	    (int)r->cpu != cpu || !r->addr || r->time < c->last_time[cpu] ||
	    r->ip || r->weight || r->data_src)
		c->bad++;
	c->last_time[cpu] = r->time;
}

static void ovf_child(void *a)
{
	struct mtk_report *rep = a;

	mtk_touch_region(rep, 0);
}

static void test_overflow(void)
{
	struct mtk_report *rep = shared_report(1000);
	struct perf_event_attr pa;
	struct memtrace_config cfg;
	struct mt_session s;
	struct ovf_ctx ctx = { 0 };
	uint64_t count = 0, produced, dropped, readn = 0;
	int rel, pfd, rc;
	pid_t c = mtk_spawn(ovf_child, rep, &rel);

	ctx.pid = c;
	mt_default_config(&cfg, c, 16);
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		FAIL("overflow", "session: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		return;
	}
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_PAGE_FAULTS;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	pa.inherit = 1;
	pfd = (int)syscall(SYS_perf_event_open, &pa, c, -1, -1, 0);
	if (pfd < 0) {
		FAIL("overflow", "perf_event_open: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		mt_close(&s);
		return;
	}
	mtk_release(rel);
	rc = reap(c);
	/* nothing was drained while it ran: the tiny ring must overflow */
	if (mt_drain_until_end(&s, ovf_sample, &ctx, 10000)) {
		FAIL("overflow", "no end: %s", strerror(errno));
		goto out;
	}
	if (read(pfd, &count, sizeof(count)) != sizeof(count)) {
		FAIL("overflow", "read count: %s", strerror(errno));
		goto out;
	}
	for (int cpu = 0; cpu < s.ncpus; cpu++)
		readn += s.read[cpu];
	if (mt_stats(&s, &produced, &dropped, NULL)) {
		FAIL("overflow", "stats: %s", strerror(errno));
		goto out;
	}
	if (rc || ctx.bad || produced != readn || readn + dropped != count ||
	    dropped < 1000 - 16 * (uint64_t)s.ncpus || readn > 16 * (uint64_t)s.ncpus)
		FAIL("overflow", "exit %d, perf counted %llu, produced %llu, read %llu, dropped %llu, %ld corrupt",
		     rc, (unsigned long long)count, (unsigned long long)produced,
		     (unsigned long long)readn, (unsigned long long)dropped, ctx.bad);
	else
		OK("overflow", " perf counted %llu = read %llu + dropped %llu; produced = read; 0 corrupt",
		   (unsigned long long)count, (unsigned long long)readn,
		   (unsigned long long)dropped);
out:
	close(pfd);
	mt_close(&s);
}

/* ---------------- ioctl table ---------------- */

struct bad_cfg {
	const char *what;
	void (*mut)(struct memtrace_config *c);
	int err;
};

#define MUT(name, body) static void name(struct memtrace_config *c) { body; }
MUT(m_size0, c->size = 0)
MUT(m_size8, c->size = 8)
MUT(m_sizebig, c->size = 8192)
MUT(m_ver0, c->version = 0)
MUT(m_ver2, c->version = 2)
MUT(m_flags, c->flags = 1U << 7)
MUT(m_fields, c->fields = 1U << 3)
MUT(m_res32, c->reserved32 = 1)
MUT(m_res, c->reserved[2] = 1)
MUT(m_precise, c->precise_ip = 4)
MUT(m_period0, c->sample_period = 0)
MUT(m_periodbig, c->sample_period = 1ULL << 63)
MUT(m_ring0, c->ring_records = 0)
MUT(m_ring1, c->ring_records = 1)
MUT(m_ring3, c->ring_records = 3)
MUT(m_ringbig, c->ring_records = 1U << 21)
MUT(m_ringtop, c->ring_records = 0x80000000U)
MUT(m_wake, c->wakeup_records = 8192)
MUT(m_pid0, c->pid = 0)
MUT(m_pidneg, c->pid = -5)
MUT(m_pidnone, c->pid = 999999)
MUT(m_swpid, { c->flags = MEMTRACE_CFG_SYSTEM_WIDE; c->pid = 5; })
MUT(m_tp, c->event_type = PERF_TYPE_TRACEPOINT)
MUT(m_bp, c->event_type = PERF_TYPE_BREAKPOINT)
MUT(m_kthread, c->pid = 2)

static const struct bad_cfg bad_cfgs[] = {
	{ "size 0", m_size0, EINVAL }, { "size 8", m_size8, EINVAL },
	{ "size 8192", m_sizebig, EINVAL }, { "version 0", m_ver0, EINVAL },
	{ "version 2", m_ver2, EINVAL }, { "unknown flag", m_flags, EINVAL },
	{ "unknown field", m_fields, EINVAL }, { "reserved32", m_res32, EINVAL },
	{ "reserved[2]", m_res, EINVAL }, { "precise_ip 4", m_precise, EINVAL },
	{ "period 0", m_period0, EINVAL }, { "period 2^63", m_periodbig, EINVAL },
	{ "ring 0", m_ring0, EINVAL }, { "ring 1", m_ring1, EINVAL },
	{ "ring 3", m_ring3, EINVAL }, { "ring 2^21", m_ringbig, EINVAL },
	{ "ring 2^31", m_ringtop, EINVAL }, { "wakeup > ring", m_wake, EINVAL },
	{ "pid 0", m_pid0, EINVAL }, { "pid -5", m_pidneg, EINVAL },
	{ "pid none", m_pidnone, ESRCH }, { "-a with pid", m_swpid, EINVAL },
	{ "tracepoint", m_tp, EINVAL }, { "breakpoint", m_bp, EINVAL },
	{ "kernel thread", m_kthread, EINVAL },
};

static int expect(const char *what, long rc, int err, int *bad)
{
	if (rc == -1 && errno == err)
		return 0;
	printf("  %s: got %ld/%s, want %s\n", what, rc,
	       rc == -1 ? strerror(errno) : "-", strerror(err));
	(*bad)++;
	return -1;
}

static void test_ioctl(void)
{
	struct memtrace_config cfg;
	struct memtrace_stats st;
	struct memtrace_consume cons;
	unsigned char big[sizeof(cfg) + 16];
	int bad = 0, n = 0, fd;
	struct mt_session s;
	void *m;

	for (size_t i = 0; i < sizeof(bad_cfgs) / sizeof(bad_cfgs[0]); i++, n++) {
		fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		mt_default_config(&cfg, getpid(), 64);
		bad_cfgs[i].mut(&cfg);
		expect(bad_cfgs[i].what, ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg),
		       bad_cfgs[i].err, &bad);
		close(fd);
	}
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	/* a larger struct with a non-zero unknown tail */
	mt_default_config(&cfg, getpid(), 64);
	memset(big, 0, sizeof(big));
	memcpy(big, &cfg, sizeof(cfg));
	((struct memtrace_config *)big)->size = sizeof(big);
	big[sizeof(cfg) + 3] = 1;
	expect("non-zero tail", ioctl(fd, MEMTRACE_IOC_CONFIGURE, big), EINVAL, &bad);
	expect("NULL config", ioctl(fd, MEMTRACE_IOC_CONFIGURE, NULL), EFAULT, &bad);
	expect("bad pointer", ioctl(fd, MEMTRACE_IOC_CONFIGURE, (void *)0x1000), EFAULT, &bad);
	expect("start unconfigured", ioctl(fd, MEMTRACE_IOC_START), EINVAL, &bad);
	expect("stop unconfigured", ioctl(fd, MEMTRACE_IOC_STOP), EINVAL, &bad);
	st = (struct memtrace_stats){ .size = sizeof(st) };
	expect("stats unconfigured", ioctl(fd, MEMTRACE_IOC_STATS, &st), EINVAL, &bad);
	cons = (struct memtrace_consume){ 0 };
	expect("consume unconfigured", ioctl(fd, MEMTRACE_IOC_CONSUME, &cons), EINVAL, &bad);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	expect("mmap unconfigured", m == MAP_FAILED ? -1 : 0, EINVAL, &bad);
	expect("unknown ioctl", ioctl(fd, _IO(MEMTRACE_IOC_MAGIC, 99)), ENOTTY, &bad);
	close(fd);
	n += 10;

	/* configured session */
	mt_default_config(&cfg, getpid(), 64);
	if (mt_open(&s, &cfg)) {
		FAIL("ioctl", "good config refused: %s", strerror(errno));
		return;
	}
	expect("configure twice", ioctl(s.fd, MEMTRACE_IOC_CONFIGURE, &cfg), EBUSY, &bad);
	st = (struct memtrace_stats){ .size = 4 };
	expect("stats size", ioctl(s.fd, MEMTRACE_IOC_STATS, &st), EINVAL, &bad);
	st = (struct memtrace_stats){ .size = sizeof(st), .nr_cpus = 4 };
	expect("stats NULL cpus", ioctl(s.fd, MEMTRACE_IOC_STATS, &st), EFAULT, &bad);
	st = (struct memtrace_stats){ .size = sizeof(st), .nr_cpus = 4, .cpus = 0x1000 };
	expect("stats bad cpus", ioctl(s.fd, MEMTRACE_IOC_STATS, &st), EFAULT, &bad);
	cons = (struct memtrace_consume){ .cpu = 9999 };
	expect("consume cpu", ioctl(s.fd, MEMTRACE_IOC_CONSUME, &cons), EINVAL, &bad);
	cons = (struct memtrace_consume){ .cpu = 0, .tail = 5 };
	expect("consume past head", ioctl(s.fd, MEMTRACE_IOC_CONSUME, &cons), EINVAL, &bad);
	cons = (struct memtrace_consume){ .cpu = 0, .reserved = 1 };
	expect("consume reserved", ioctl(s.fd, MEMTRACE_IOC_CONSUME, &cons), EINVAL, &bad);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	expect("mmap writable", m == MAP_FAILED ? -1 : 0, EPERM, &bad);
	m = mmap(NULL, s.map_bytes + 4096, PROT_READ, MAP_SHARED, s.fd, 0);
	expect("mmap too long", m == MAP_FAILED ? -1 : 0, EINVAL, &bad);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s.fd, (off_t)s.map_bytes);
	expect("mmap offset", m == MAP_FAILED ? -1 : 0, EINVAL, &bad);
	expect("mprotect write", mprotect(s.map, 4096, PROT_READ | PROT_WRITE), EACCES, &bad);
	mt_close(&s);
	n += 11;

	/* an event type no PMU serves: configure ok, START fails */
	mt_default_config(&cfg, getpid(), 64);
	cfg.event_type = 0x7fff0000;
	if (mt_open(&s, &cfg)) {
		FAIL("ioctl", "config refused: %s", strerror(errno));
		return;
	}
	expect("start without PMU", ioctl(s.fd, MEMTRACE_IOC_START), ENOENT, &bad);
	mt_close(&s);
	n++;

	if (bad)
		FAIL("ioctl", "%d of %d malformed calls did not fail as expected", bad, n);
	else
		OK("ioctl", " %d malformed configs/ioctls/mmaps fail with the exact errno", n);
}

/* ---------------- fuzz ---------------- */

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int allowed_errno(int e)
{
	return e == EINVAL || e == EFAULT || e == ESRCH || e == EACCES ||
	       e == ENOENT || e == EOPNOTSUPP || e == ENOSPC || e == ENOMEM ||
	       e == EBUSY || e == ENODEV || e == E2BIG || e == EPERM;
}

static void test_fuzz(int iters)
{
	int started = 0, configured = 0, bad = 0;

	for (int it = 0; it < iters; it++) {
		struct memtrace_config c;
		unsigned char *raw = (unsigned char *)&c;
		int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		long rc;

		if (fd < 0) {
			FAIL("fuzz", "open: %s", strerror(errno));
			return;
		}
		if (rnd() % 5 == 0) {
			/* all random */
			for (size_t i = 0; i < sizeof(c); i++)
				raw[i] = (unsigned char)rnd();
			if (rnd() % 2)
				c.size = sizeof(c);
		} else {
			/* a good config with 1..3 fields broken or varied */
			mt_default_config(&c, rnd() % 2 ? getpid() : 1 + (pid_t)(rnd() % 300),
					  1U << (1 + rnd() % 12));
			c.flags = (uint32_t)(rnd() % 4);
			c.fields = (uint32_t)(rnd() % 8);
			c.sample_period = 1 + rnd() % 100;
			for (int k = 1 + (int)(rnd() % 3); k > 0; k--) {
				switch (rnd() % 12) {
				case 0: c.size = (uint32_t)rnd() % 256; break;
				case 1: c.flags = (uint32_t)rnd(); break;
				case 2: c.pid = (pid_t)rnd(); break;
				case 3: c.event_type = (uint32_t)(rnd() % 12); break;
				case 4: c.event_config = rnd() % 16; break;
				case 5: c.event_config1 = rnd(); c.event_config2 = rnd(); break;
				case 6: c.sample_period = rnd() >> (rnd() % 64); break;
				case 7: c.ring_records = (uint32_t)rnd() >> (rnd() % 32); break;
				case 8: c.wakeup_records = (uint32_t)rnd() % 8192; break;
				case 9: c.precise_ip = (uint32_t)rnd() % 6; break;
				case 10: c.fields = (uint32_t)rnd(); break;
				default: c.reserved[rnd() % 3] = rnd() % 2; break;
				}
			}
		}
		rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &c);
		if (rc && !allowed_errno(errno)) {
			printf("  configure: errno %d\n", errno);
			bad++;
		}
		if (!rc) {
			configured++;
			rc = ioctl(fd, MEMTRACE_IOC_START);
			if (rc && !allowed_errno(errno)) {
				printf("  start: errno %d\n", errno);
				bad++;
			}
			if (!rc) {
				volatile char *p = malloc(65536);

				started++;
				for (int i = 0; i < 65536; i += 4096)
					p[i] = 1;
				free((void *)p);
			}
			struct memtrace_consume cs = { .cpu = (uint32_t)(rnd() % 4),
						       .tail = rnd() % 3 };
			ioctl(fd, MEMTRACE_IOC_CONSUME, &cs);
			if (rnd() % 2)
				ioctl(fd, MEMTRACE_IOC_STOP);
		}
		close(fd);
	}
	if (bad)
		FAIL("fuzz", "%d calls failed with an unexpected errno", bad);
	else
		OK("fuzz", " %d random configs: %d accepted, %d started, all others refused cleanly",
		   iters, configured, started);
}

/* ---------------- perm ---------------- */

static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)caps;
	d[1].effective = d[1].permitted = (uint32_t)(caps >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

static void sleeper(void *a)
{
	(void)a;
	pause();
}

static void test_perm(void)
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

/* ---------------- lifecycle ---------------- */

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int loaded(void)
{
	return access("/sys/module/memtrace", F_OK) == 0;
}

static int wait_hup(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (int t = 0; t < ms; t += 50) {
		if (poll(&p, 1, 50) > 0 && (p.revents & POLLHUP))
			return 0;
	}
	return -1;
}

static int running_session(struct mt_session *s, pid_t *child)
{
	struct memtrace_config cfg;
	int rel;

	*child = mtk_spawn(sleeper, NULL, &rel);
	mt_default_config(&cfg, *child, 64);
	if (mt_open(s, &cfg) || ioctl(s->fd, MEMTRACE_IOC_START))
		return -1;
	mtk_release(rel);
	return 0;
}

static void test_lifecycle(const char *ko)
{
	char insmod[256];
	struct mt_session s;
	pid_t c;
	int step = 0;

	snprintf(insmod, sizeof(insmod), "insmod %s", ko);
#define STEP(cond) do { step++; if (!(cond)) goto fail; } while (0)
	/* 1: target exits -> reader sees the end; rmmod refused until close */
	STEP(running_session(&s, &c) == 0);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0 && loaded());
	kill(c, SIGKILL);
	reap(c);
	STEP(wait_hup(s.fd, 2000) == 0 && mt_ended(&s));
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == ESRCH);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0);
	mt_close(&s);
	STEP(sh("rmmod memtrace") == 0 && !loaded());
	STEP(sh(insmod) == 0);
	/* 2: close while the target runs, then rmmod, then the target exits */
	STEP(running_session(&s, &c) == 0);
	mt_close(&s);
	STEP(sh("rmmod memtrace") == 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(sh(insmod) == 0);
	/* 3: a mapping outlives the fd: rmmod refused until munmap */
	STEP(running_session(&s, &c) == 0);
	close(s.fd);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(wait_hup(s.fd, 0) != 0);	/* fd closed: no poll, but */
	usleep(200000);
	STEP(mt_ended(&s));		/* the mapping sees the end */
	munmap(s.map, s.map_bytes);
	STEP(sh("rmmod memtrace") == 0);
	STEP(sh(insmod) == 0);
	/* 4: a zombie target (exited, not reaped) ends the session */
	STEP(running_session(&s, &c) == 0);
	kill(c, SIGKILL);
	STEP(wait_hup(s.fd, 2000) == 0);
	reap(c);
	mt_close(&s);
	/* 5: target gone before START; stopped session restarts */
	STEP(running_session(&s, &c) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_STOP) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == EBUSY);
	STEP(ioctl(s.fd, MEMTRACE_IOC_STOP) == 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == ESRCH);
	mt_close(&s);
	/* 6: a session left open at exit of its owner is cleaned up */
	c = fork();
	if (c == 0) {
		pid_t t;

		running_session(&s, &t);
		_exit(0);
	}
	reap(c);
	usleep(200000);
	STEP(sh("rmmod memtrace") == 0);
	STEP(sh(insmod) == 0);
	OK("lifecycle", " target exit/close/munmap/rmmod in 6 orders");
	return;
fail:
	FAIL("lifecycle", "step %d (errno %s)", step, strerror(errno));
	if (!loaded())
		sh(insmod);
#undef STEP
}

/* ---------------- cpuoff ---------------- */

static void churn(void *a)
{
	(void)a;
	for (;;) {
		size_t len = 64 * PG;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (size_t i = 0; i < len; i += PG)
			p[i] = 1;
		munmap(p, len);
		usleep(1000);
	}
}

static void count_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	(void)cpu;
	(void)r;
	(*(long *)p)++;
}

static int set_online(int cpu, int on)
{
	char path[64];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "w");
	if (!f)
		return -1;
	rc = fprintf(f, "%d\n", on) < 0;
	return fclose(f) || rc ? -1 : 0;
}

static void drain_for(struct mt_session *s, int n, int ms, long *cnt)
{
	for (int t = 0; t < ms; t += 50) {
		usleep(50000);
		for (int k = 0; k < n; k++)
			mt_drain(&s[k], count_sample, &cnt[k]);
	}
}

static void test_cpuoff(void)
{
	struct mt_session s[2];
	struct memtrace_config cfg;
	long cnt[2] = { 0, 0 };
	uint64_t before[2];
	cpu_set_t set;
	int rel, step = 0;
	pid_t c = mtk_spawn(churn, NULL, &rel);

#define STEP(cond) do { step++; if (!(cond)) goto fail; } while (0)
	mt_default_config(&cfg, c, 1024);
	STEP(mt_open(&s[0], &cfg) == 0 && ioctl(s[0].fd, MEMTRACE_IOC_START) == 0);
	mt_default_config(&cfg, 0, 1024);
	cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	STEP(mt_open(&s[1], &cfg) == 0 && ioctl(s[1].fd, MEMTRACE_IOC_START) == 0);
	mtk_release(rel);
	drain_for(s, 2, 300, cnt);
	STEP(cnt[0] > 0 && cnt[1] > 0);
	STEP(set_online(1, 0) == 0);
	cnt[0] = cnt[1] = 0;
	drain_for(s, 2, 300, cnt);
	STEP(cnt[0] > 0 && cnt[1] > 0);	/* still running on CPU 0 */
	STEP(set_online(1, 1) == 0);
	usleep(100000);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	STEP(sched_setaffinity(c, sizeof(set), &set) == 0);
	drain_for(s, 2, 100, cnt);
	before[0] = s[0].read[1];
	before[1] = s[1].read[1];
	drain_for(s, 2, 400, cnt);
	/* CPU 1's counter of the -a session came back with the CPU */
	STEP(s[0].read[1] > before[0] && s[1].read[1] > before[1]);
	/* offline again with the sessions open, then close them */
	STEP(set_online(1, 0) == 0);
	kill(c, SIGKILL);
	reap(c);
	mt_close(&s[0]);
	mt_close(&s[1]);
	STEP(set_online(1, 1) == 0);
	OK("cpuoff", " CPU 1 offline/online during a -p and a -a session; samples resume on CPU 1");
	return;
fail:
	FAIL("cpuoff", "step %d (%s)", step, strerror(errno));
	kill(c, SIGKILL);
	set_online(1, 1);
#undef STEP
}

int main(int argc, char **argv)
{
	const char *t = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(t, "pages"))
		test_pages();
	else if (!strcmp(t, "overflow"))
		test_overflow();
	else if (!strcmp(t, "ioctl"))
		test_ioctl();
	else if (!strcmp(t, "fuzz"))
		test_fuzz(argc > 2 ? atoi(argv[2]) : 3000);
	else if (!strcmp(t, "perm"))
		test_perm();
	else if (!strcmp(t, "lifecycle"))
		test_lifecycle(argc > 2 ? argv[2] : "/memtrace.ko");
	else if (!strcmp(t, "cpuoff"))
		test_cpuoff();
	else {
		fprintf(stderr, "usage: mtktest pages|overflow|ioctl|fuzz [N]|perm|lifecycle [KO]|cpuoff\n");
		return 2;
	}
	return failures ? 1 : 0;
}
