/* targets.c - mtktest targets: process trees and pid lists (uapi v2).
 *
 *   tree   -p ROOT with MEMTRACE_CFG_DESCENDANTS: the root (2 threads), its
 *          child and grandchild existing at START and two processes forked
 *          after START: every page once (at most 2 retried faults per
 *          worker), right pid/tid; TARGETS counts 3 processes, 4 threads;
 *          the session outlives the root while the grandchild lives.
 *   list   pid A + pids {B, A}, no DESCENDANTS: A, B and A's post-START
 *          child traced, A's existing child not; 2 processes, 2 threads.
 *   uapi   the new fields' errors (sizes, pid list, TARGETS) are exact.
 *   storm  -p ROOT with DESCENDANTS while ROOT's two threads fork without
 *          pause (a 32 MiB address space: each fork spends long after
 *          perf_event_init_task(), so forks straddle START's attach of
 *          their parent): every child, born before, during or after
 *          START, has each of its pages once (at most 2 retried faults)
 *          when the children touch 200 ms after START.
 */
#include <sys/prctl.h>

#include "mtktest.h"

#define NS 6
#define TPAGES 64

struct tree_rep {
	pid_t pid[NS], tid[NS];
	uint64_t base[NS];
	volatile int ready, go, hold, touched[NS];
};

static struct tree_rep *rep;

static void wait_flag(volatile int *f)
{
	while (!*f)
		usleep(1000);
}

static void region(int slot)
{
	void *p = mmap(NULL, TPAGES * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(90);
	madvise(p, TPAGES * PG, MADV_NOHUGEPAGE);
	rep->base[slot] = (uint64_t)(uintptr_t)p;
}

static void touch(int slot)
{
	rep->pid[slot] = getpid();
	rep->tid[slot] = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < TPAGES; i++)
		*(volatile unsigned char *)(uintptr_t)mtk_touch_addr(rep->base[slot], i) = 1;
	__atomic_store_n(&rep->touched[slot], 1, __ATOMIC_RELEASE);
}

/* A process that maps its region, says ready (pre) and touches after go. */
static pid_t worker(int slot, int pre, int hold)
{
	pid_t c = fork();

	if (c == 0) {
		region(slot);
		if (pre) {
			__atomic_fetch_add(&rep->ready, 1, __ATOMIC_SEQ_CST);
			wait_flag(&rep->go);
		}
		touch(slot);
		if (hold)
			wait_flag(&rep->hold);
		_exit(0);
	}
	return c;
}

static void *thread_main(void *a)
{
	(void)a;
	__atomic_fetch_add(&rep->ready, 1, __ATOMIC_SEQ_CST);
	wait_flag(&rep->go);
	touch(1);
	return NULL;
}

/*
 * tree: 0 root (+ thread 1), 2 child of 0, 3 child of 2 (holds), 4 forked
 * by 0 after START, 5 forked by 2 after START.  The root exits without
 * waiting for 2; 2 waits for 3 and 5.
 */
static void tree_root(void)
{
	pthread_t th;
	pid_t c;

	region(0);
	region(1);
	c = fork();
	if (c == 0) {	/* slot 2 */
		pid_t g = worker(3, 1, 1), g2;

		region(2);
		__atomic_fetch_add(&rep->ready, 1, __ATOMIC_SEQ_CST);
		wait_flag(&rep->go);
		touch(2);
		g2 = worker(5, 0, 0);
		waitpid(g2, NULL, 0);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	if (pthread_create(&th, NULL, thread_main, NULL))
		_exit(91);
	__atomic_fetch_add(&rep->ready, 1, __ATOMIC_SEQ_CST);
	wait_flag(&rep->go);
	touch(0);
	pthread_join(th, NULL);
	c = worker(4, 0, 0);
	waitpid(c, NULL, 0);
	_exit(0);
}

/* list: 0 = A (child 1 existing, child 3 forked after START), 2 = B */
static void list_a(void)
{
	pid_t c = worker(1, 1, 0);

	region(0);
	__atomic_fetch_add(&rep->ready, 1, __ATOMIC_SEQ_CST);
	wait_flag(&rep->go);
	touch(0);
	waitpid(worker(3, 0, 0), NULL, 0);
	waitpid(c, NULL, 0);
	_exit(0);
}

struct hits {
	int n[NS][TPAGES];
	long bad;
};

static void tree_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	struct hits *h = p;

	(void)cpu;
	for (int s = 0; s < NS; s++) {
		uint64_t b = rep->base[s];

		if (!b || r->addr < b || r->addr >= b + TPAGES * PG)
			continue;
		/* the same address in another process's copy: not this slot */
		if ((pid_t)r->pid != rep->pid[s])
			continue;
		int i = (int)((r->addr - b) / PG);

		if (r->addr != mtk_touch_addr(b, i) || (pid_t)r->tid != rep->tid[s])
			h->bad++;
		else
			h->n[s][i]++;
	}
}

/* Pages of slot s: 0 missing (or all, want_none), at most 2 repeats. */
static int check_slot(const char *name, struct hits *h, int s, int want_none)
{
	int missing = 0, extra = 0;

	for (int i = 0; i < TPAGES; i++) {
		missing += h->n[s][i] == 0;
		extra += h->n[s][i] > 1 ? h->n[s][i] - 1 : 0;
	}
	if (want_none ? missing != TPAGES : missing || extra > 2) {
		FAIL(name, "worker %d (pid %d): %d of %d pages missing, %d repeated%s",
		     s, (int)rep->pid[s], missing, TPAGES, extra,
		     want_none ? " (want none traced)" : "");
		return 1;
	}
	return 0;
}

static int get_targets(int fd, struct memtrace_targets *t)
{
	*t = (struct memtrace_targets){ .size = sizeof(*t) };
	return ioctl(fd, MEMTRACE_IOC_TARGETS, t);
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, 0) > 0)
		;
}

static void test_tree(void)
{
	struct memtrace_config cfg;
	struct memtrace_targets t;
	static struct hits h;
	struct mt_session s;
	int bad = 0, early_end;
	pid_t root;

	memset((void *)rep, 0, sizeof(*rep));
	memset(&h, 0, sizeof(h));
	root = fork();
	if (root == 0)
		tree_root();
	while (rep->ready < 4)
		usleep(1000);
	mt_default_config(&cfg, root, 8192);
	cfg.flags = MEMTRACE_CFG_DESCENDANTS;
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START) || get_targets(s.fd, &t)) {
		FAIL("targets", "tree: %s", strerror(errno));
		rep->go = rep->hold = 1;
		reap_all();
		return;
	}
	rep->go = 1;
	waitpid(root, NULL, 0);
	while (!(rep->touched[4] && rep->touched[5]))
		usleep(1000);
	usleep(300000);	/* 15 exit polls: only the grandchild (and 2) live */
	early_end = mt_ended(&s);
	mt_drain(&s, tree_sample, &h);
	rep->hold = 1;
	reap_all();	/* the orphans came to us (child subreaper) */
	if (mt_drain_until_end(&s, tree_sample, &h, 5000)) {
		FAIL("targets", "tree: session did not end after the last process exited");
		bad++;
	}
	for (int k = 0; k < NS; k++)
		bad += check_slot("targets", &h, k, 0);
	if (early_end) {
		FAIL("targets", "tree: session ended while the grandchild lived");
		bad++;
	}
	if (t.processes != 3 || t.threads != 4 || t.denied || h.bad) {
		FAIL("targets", "tree: attached %u processes %u threads %u denied (want 3, 4, 0); %ld bad samples",
		     t.processes, t.threads, t.denied, h.bad);
		bad++;
	}
	if (!bad)
		OK("targets", " tree: root (2 threads) + child + grandchild at START, 2 forked after: every page, right pid/tid; 3 processes 4 threads; ends with the last");
	mt_close(&s);
}

static void test_list(void)
{
	struct memtrace_config cfg;
	struct memtrace_targets t;
	static struct hits h;
	struct mt_session s;
	pid_t a, b, more[2];
	int bad = 0;

	memset((void *)rep, 0, sizeof(*rep));
	memset(&h, 0, sizeof(h));
	a = fork();
	if (a == 0)
		list_a();
	b = worker(2, 1, 0);
	while (rep->ready < 3)
		usleep(1000);
	more[0] = b;
	more[1] = a;
	mt_default_config(&cfg, a, 8192);
	cfg.pids = (uintptr_t)more;
	cfg.nr_pids = 2;
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START) || get_targets(s.fd, &t)) {
		FAIL("targets", "list: %s", strerror(errno));
		rep->go = 1;
		reap_all();
		return;
	}
	rep->go = 1;
	reap_all();
	if (mt_drain_until_end(&s, tree_sample, &h, 5000)) {
		FAIL("targets", "list: session did not end");
		bad++;
	}
	bad += check_slot("targets", &h, 0, 0) + check_slot("targets", &h, 2, 0) +
	       check_slot("targets", &h, 3, 0) + check_slot("targets", &h, 1, 1);
	if (t.processes != 2 || t.threads != 2 || t.denied || h.bad) {
		FAIL("targets", "list: attached %u processes %u threads %u denied (want 2, 2, 0); %ld bad samples",
		     t.processes, t.threads, t.denied, h.bad);
		bad++;
	}
	if (!bad)
		OK("targets", " list: pid A + {B, A}, no descendants: A, B, A's later child exact, A's earlier child untraced; 2 processes 2 threads");
	mt_close(&s);
}

static int expect(const char *what, long rc, int err, int *bad)
{
	if ((err == 0 && rc == 0) || (rc == -1 && errno == err))
		return 0;
	printf("  %s: got %ld/%s, want %s\n", what, rc,
	       rc == -1 ? strerror(errno) : "-", err ? strerror(err) : "success");
	(*bad)++;
	return -1;
}

/* CONFIGURE of cfg on a fresh session; the errno (0: worked). */
static long configure(struct memtrace_config *c)
{
	int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
	long rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, c);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static void test_uapi(void)
{
	static pid_t many[MEMTRACE_MAX_PIDS + 1];
	struct memtrace_config cfg;
	struct memtrace_targets t;
	struct mt_session s;
	pid_t one[1];
	int bad = 0, n = 0;

#define TRY(what, setup, err) do { mt_default_config(&cfg, getpid(), 64); setup; \
	expect(what, configure(&cfg), err, &bad); n++; } while (0)
	TRY("size between V1 and V2", cfg.size = MEMTRACE_CONFIG_SIZE_V1 + 4, EINVAL);
	TRY("size V1 (old collector)", cfg.size = MEMTRACE_CONFIG_SIZE_V1, 0);
	TRY("size V1, flag DESCENDANTS", { cfg.size = MEMTRACE_CONFIG_SIZE_V1;
					   cfg.flags = MEMTRACE_CFG_DESCENDANTS; }, 0);
	TRY("reserved2", cfg.reserved2 = 1, EINVAL);
	TRY("nr_pids over max", { cfg.nr_pids = MEMTRACE_MAX_PIDS + 1;
				  cfg.pids = (uintptr_t)many; }, EINVAL);
	for (unsigned i = 0; i <= MEMTRACE_MAX_PIDS; i++)
		many[i] = getpid();
	TRY("max pids, all the same", { cfg.nr_pids = MEMTRACE_MAX_PIDS;
					cfg.pids = (uintptr_t)many; }, 0);
	TRY("pids NULL", cfg.nr_pids = 1, EFAULT);
	TRY("pids bad pointer", { cfg.nr_pids = 1; cfg.pids = 0x1000; }, EFAULT);
	TRY("pids without nr_pids", cfg.pids = (uintptr_t)one, EINVAL);
	one[0] = 999999;
	TRY("nonexistent pid in list", { cfg.nr_pids = 1; cfg.pids = (uintptr_t)one; }, ESRCH);
	one[0] = 0;
	TRY("pid 0 in list", { cfg.nr_pids = 1; cfg.pids = (uintptr_t)one; }, EINVAL);
	one[0] = -3;
	TRY("pid -3 in list", { cfg.nr_pids = 1; cfg.pids = (uintptr_t)one; }, EINVAL);
	one[0] = 2;
	TRY("kernel thread in list", { cfg.nr_pids = 1; cfg.pids = (uintptr_t)one; }, EINVAL);
	one[0] = getpid();
	TRY("-a with pids", { cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE; cfg.pid = 0;
			      cfg.nr_pids = 1; cfg.pids = (uintptr_t)one; }, EINVAL);
	TRY("-a with DESCENDANTS", { cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE |
					MEMTRACE_CFG_DESCENDANTS; cfg.pid = 0; }, EINVAL);
#undef TRY

	/* TARGETS: not before START, exact size, counts of a V1 session */
	mt_default_config(&cfg, getpid(), 64);
	cfg.size = MEMTRACE_CONFIG_SIZE_V1;
	if (mt_open(&s, &cfg)) {
		FAIL("targets", "uapi: V1 config refused: %s", strerror(errno));
		return;
	}
	expect("TARGETS before START", get_targets(s.fd, &t), EINVAL, &bad);
	expect("START (V1)", ioctl(s.fd, MEMTRACE_IOC_START), 0, &bad);
	t = (struct memtrace_targets){ .size = 4 };
	expect("TARGETS size 4", ioctl(s.fd, MEMTRACE_IOC_TARGETS, &t), EINVAL, &bad);
	expect("TARGETS NULL", ioctl(s.fd, MEMTRACE_IOC_TARGETS, NULL), EFAULT, &bad);
	if (!expect("TARGETS", get_targets(s.fd, &t), 0, &bad) &&
	    (t.processes != 1 || t.threads != 1 || t.denied)) {
		printf("  TARGETS of self: %u processes %u threads %u denied\n",
		       t.processes, t.threads, t.denied);
		bad++;
	}
	mt_close(&s);
	mt_default_config(&cfg, 0, 64);
	cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	if (!mt_open(&s, &cfg)) {
		expect("START -a", ioctl(s.fd, MEMTRACE_IOC_START), 0, &bad);
		expect("TARGETS of -a", get_targets(s.fd, &t), EINVAL, &bad);
		mt_close(&s);
	}
	n += 7;
	if (bad)
		FAIL("targets", "uapi: %d of %d calls did not give the expected result", bad, n);
	else
		OK("targets", " uapi: %d calls on sizes, pid lists and TARGETS give the exact errno", n);
}

#define NSTORM 120
#define SPAGES 4
#define STORM_MB 256
/*
 * A debug kernel (KASAN, lockdep: tests/kernel/debug-suite.sh) copies page
 * tables so much more slowly under TCG that 256 MiB made the three rounds
 * outlast a 600 s limit; its forks straddle START with less.
 */
#define STORM_MB_DEBUG 32

static size_t storm_mb(void)
{
	return access("/proc/lockdep_stats", F_OK) ? STORM_MB : STORM_MB_DEBUG;
}

struct storm_rep {
	pid_t pid[NSTORM], tid[NSTORM];
	uint64_t base[NSTORM];
	volatile int nforked, go;
};

static struct storm_rep *srep;

static void storm_child(int k)
{
	void *p = mmap(NULL, SPAGES * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(90);
	madvise(p, SPAGES * PG, MADV_NOHUGEPAGE);
	srep->base[k] = (uint64_t)(uintptr_t)p;
	srep->pid[k] = getpid();
	srep->tid[k] = (pid_t)syscall(SYS_gettid);
	wait_flag(&srep->go);
	for (int i = 0; i < SPAGES; i++)
		*(volatile unsigned char *)(uintptr_t)mtk_touch_addr(srep->base[k], i) = 1;
	_exit(0);
}

static void *storm_forker(void *a)
{
	int k;

	(void)a;
	while ((k = __atomic_fetch_add(&srep->nforked, 1, __ATOMIC_SEQ_CST)) < NSTORM)
		if (fork() == 0)
			storm_child(k);
	return NULL;
}

static void storm_root(void)
{
	size_t len = storm_mb() << 20;
	char *big = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t th;

	if (big == MAP_FAILED)
		_exit(90);
	madvise(big, len, MADV_NOHUGEPAGE);
	memset(big, 1, len);	/* page tables that every fork copies */
	if (pthread_create(&th, NULL, storm_forker, NULL))
		_exit(91);
	storm_forker(NULL);
	pthread_join(th, NULL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	_exit(0);
}

struct storm_hits {
	int n[NSTORM][SPAGES];
	long bad;
};

static void storm_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	struct storm_hits *h = p;

	(void)cpu;
	for (int k = 0; k < NSTORM; k++) {
		uint64_t b = srep->base[k];

		if ((pid_t)r->pid != srep->pid[k] || !b || r->addr < b ||
		    r->addr >= b + SPAGES * PG)
			continue;
		int i = (int)((r->addr - b) / PG);

		if (r->addr != mtk_touch_addr(b, i) || (pid_t)r->tid != srep->tid[k])
			h->bad++;
		else
			h->n[k][i]++;
	}
}

/* One storm; the number of children with a page missing or repeated. */
static int storm_round(int round)
{
	struct memtrace_config cfg;
	static struct storm_hits h;
	struct mt_session s;
	int bad = 0, before;
	pid_t root;

	memset((void *)srep, 0, sizeof(*srep));
	memset(&h, 0, sizeof(h));
	root = fork();
	if (root == 0)
		storm_root();
	while (srep->nforked < 2)
		usleep(1000);
	mt_default_config(&cfg, root, 16384);
	cfg.flags = MEMTRACE_CFG_DESCENDANTS;
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		FAIL("targets", "storm %d: %s", round, strerror(errno));
		srep->go = 1;
		reap_all();
		return 1;
	}
	before = srep->nforked;
	/*
	 * A child whose fork ends after START returned gets its counter from
	 * a work item, possibly after its first instructions (without this
	 * wait, 1 round in 6 had such a child touch its pages first).
	 */
	usleep(200000);
	srep->go = 1;
	waitpid(root, NULL, 0);
	reap_all();
	if (mt_drain_until_end(&s, storm_sample, &h, 10000)) {
		FAIL("targets", "storm %d: session did not end", round);
		bad++;
	}
	for (int k = 0; k < NSTORM; k++) {
		int missing = 0, extra = 0;

		for (int i = 0; i < SPAGES; i++) {
			missing += h.n[k][i] == 0;
			extra += h.n[k][i] > 1 ? h.n[k][i] - 1 : 0;
		}
		if (!srep->pid[k] || missing || extra > 2) {
			if (bad++ < 5)
				printf("  storm %d: child %d (pid %d): %d of %d pages missing, %d repeated\n",
				       round, k, (int)srep->pid[k], missing, SPAGES, extra);
		}
	}
	if (h.bad) {
		printf("  storm %d: %ld samples with a wrong address or tid\n", round, h.bad);
		bad++;
	}
	printf("  storm %d: %d children forked before START returned\n", round, before);
	mt_close(&s);
	return bad;
}

static void test_storm(void)
{
	int bad = 0;

	srep = mmap(NULL, sizeof(*srep), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (srep == MAP_FAILED) {
		FAIL("targets", "mmap: %s", strerror(errno));
		return;
	}
	for (int r = 0; r < 3; r++)
		bad += storm_round(r);
	if (bad)
		FAIL("targets", "storm: %d children (or sample sets) wrong over 3 rounds", bad);
	else
		OK("targets", " storm: 3 x %d children of 2 forking threads (%zu MiB touched) across START: every page of every child once",
		   NSTORM, storm_mb());
	munmap(srep, sizeof(*srep));
}

void test_targets(void)
{
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED) {
		FAIL("targets", "mmap: %s", strerror(errno));
		return;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	test_uapi();
	test_tree();
	test_list();
	test_storm();
}
