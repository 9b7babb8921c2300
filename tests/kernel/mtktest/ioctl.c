/* ioctl.c - mtktest ioctl: a table of malformed configs, ioctls and mmaps
 * fails with the exact errno.
 */
#include "mtktest.h"

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
MUT(m_pfsw, c->flags = MEMTRACE_CFG_PAGE_FAULT_TP)
MUT(m_pfprec, { c->flags = MEMTRACE_CFG_PAGE_FAULT_TP;
		c->event_type = PERF_TYPE_TRACEPOINT; c->precise_ip = 1; })
MUT(m_kthread, c->pid = 2)
/* the accessed-bit source: no event, sample_period the pass in ms */
static void acc(struct memtrace_config *c)
{
	c->flags |= MEMTRACE_CFG_ACCESSED;
	c->event_type = 0;
	c->event_config = 0;
	c->fields = 0;
	c->precise_ip = 0;
	c->sample_period = 1000;
}
MUT(m_acc_event, { acc(c); c->event_type = PERF_TYPE_SOFTWARE; })
MUT(m_acc_fields, { acc(c); c->fields = MEMTRACE_FIELD_IP; })
MUT(m_acc_short, { acc(c); c->sample_period = MEMTRACE_SCAN_MIN_MS - 1; })
MUT(m_acc_long, { acc(c); c->sample_period = MEMTRACE_SCAN_MAX_MS + 1; })
MUT(m_acc_sw, { acc(c); c->flags |= MEMTRACE_CFG_SYSTEM_WIDE; c->pid = -1; })
MUT(m_acc_tp, { acc(c); c->flags |= MEMTRACE_CFG_PAGE_FAULT_TP; })
MUT(m_noflush, c->flags |= MEMTRACE_CFG_ACCESSED_NO_FLUSH)

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
	{ "page-fault flag, software event", m_pfsw, EINVAL },
	{ "page-fault tracepoint, precise_ip 1", m_pfprec, EINVAL },
	{ "kernel thread", m_kthread, EINVAL },
	{ "accessed with an event", m_acc_event, EINVAL },
	{ "accessed with fields", m_acc_fields, EINVAL },
	{ "accessed pass 9 ms", m_acc_short, EINVAL },
	{ "accessed pass > 1 h", m_acc_long, EINVAL },
	{ "accessed -a", m_acc_sw, EINVAL },
	{ "accessed + page-fault flag", m_acc_tp, EINVAL },
	{ "no-flush without accessed", m_noflush, EINVAL },
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

void test_ioctl(void)
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

	/* the accessed-bit source: configures, starts on this process (the
	 * ring mode says so, TARGETS counts it), stops, starts again */
	mt_default_config(&cfg, getpid(), 64);
	acc(&cfg);
	if (mt_open(&s, &cfg)) {
		FAIL("ioctl", "accessed config refused: %s", strerror(errno));
		return;
	}
	struct memtrace_targets tg = { .size = sizeof(tg) };
	if (ioctl(s.fd, MEMTRACE_IOC_START) || ioctl(s.fd, MEMTRACE_IOC_TARGETS, &tg) ||
	    tg.processes != 1 || ((struct memtrace_ring_header *)s.map)->mode != MEMTRACE_MODE_ACCESSED ||
	    ioctl(s.fd, MEMTRACE_IOC_STOP) || ioctl(s.fd, MEMTRACE_IOC_START) ||
	    ioctl(s.fd, MEMTRACE_IOC_STOP)) {
		printf("  accessed start/stop: %s, %u processes, mode %u\n", strerror(errno),
		       tg.processes, ((struct memtrace_ring_header *)s.map)->mode);
		bad++;
	}
	mt_close(&s);
	n++;

	if (bad)
		FAIL("ioctl", "%d of %d malformed calls did not fail as expected", bad, n);
	else
		OK("ioctl", " %d malformed configs/ioctls/mmaps fail with the exact errno", n);
}
