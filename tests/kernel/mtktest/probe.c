/* probe.c - mtktest probe: page-fault sessions through the module's probe
 * on exceptions:page_fault_user (no perf counter; kernel/memtrace_probe.c),
 * and the perf path they fall back to.
 *   exact:    a target touching PB_PAGES fresh pages forks a child that
 *             touches PB_PAGES more, then reads a kernel address (SIGSEGV);
 *             a process that is not a target touches pages meanwhile: every
 *             page of both once (<= 2 retried faults) with its exact
 *             address, pid/tid and a user ip; records == perf's own count
 *             of the two (so the kernel-address fault, which perf does not
 *             count, is not recorded either); nothing of the non-target;
 *             0 dropped; ring mode fault-probe; the session ends with them
 *   period:   period 7, the target pinned to one CPU: exactly
 *             floor(perf's count / 7) records, all the target's
 *   fallback: the parameter fault_probe=N: mode perf-overflow, exact again
 *   system:   a system-wide session: the child's pages all once, mode
 *             fault-probe; with KERNEL_ADDRS: perf-overflow
 */
#include <sched.h>

#include "mtktest.h"

#define PB_PAGES	300
#define PB_MAX		(1 << 17)
#define PB_PERIOD	7
#define PB_PARAM	"/sys/module/memtrace/parameters/fault_probe"
#define PB_KADDR	0xffff800000001000ull	/* canonical, kernel space */

struct pb_ctx {
	struct memtrace_sample *s;
	long n;
};

struct pb_arg {
	struct mtk_report *rep;
	int fork;	/* a child touches region 1 */
	int segv;	/* then read PB_KADDR */
};

static void pb_keep(void *p, int cpu, const struct memtrace_sample *r)
{
	struct pb_ctx *c = p;

	(void)cpu;
	if (c->n < PB_MAX)
		c->s[c->n] = *r;
	c->n++;
}

static const char *pb_mode_name(uint32_t m)
{
	return m == MEMTRACE_MODE_FAULT_PROBE ? "fault-probe" :
	       m == MEMTRACE_MODE_PERF_OVERFLOW ? "perf-overflow" : "other";
}

static uint32_t pb_mode(struct mt_session *s)
{
	return __atomic_load_n(&mt_hdr(s, 0)->mode, __ATOMIC_RELAXED);
}

static void pb_target(void *a)
{
	struct pb_arg *pa = a;
	pid_t g;
	int st;

	mtk_alloc_region(pa->rep, 0);
	if (pa->fork)
		mtk_alloc_region(pa->rep, 1);
	mtk_touch(pa->rep, 0);
	if (pa->fork) {
		g = fork();
		if (g == 0) {
			mtk_touch(pa->rep, 1);
			_exit(0);
		}
		if (g < 0 || waitpid(g, &st, 0) != g || st != 0)
			_exit(94);
	}
	if (pa->segv)
		(void)*(volatile char *)(uintptr_t)PB_KADDR;
}

static void pb_other(void *a)
{
	mtk_touch_region(a, 0);
}

/* Counts a region's pages seen with pid; 0 if all once (<= 2 repeats). */
static int pb_region(const struct pb_ctx *ctx, const struct mtk_report *rep,
		     int slot, int *repeats)
{
	static int seen[PB_PAGES];
	int pages = 0;

	memset(seen, 0, sizeof(seen));
	for (long i = 0; i < ctx->n && i < PB_MAX; i++) {
		const struct memtrace_sample *r = &ctx->s[i];
		uint64_t off = r->addr - rep->base[slot];
		int pg = (int)(off / PG);

		if ((pid_t)r->pid != rep->pid[slot] || r->addr < rep->base[slot] ||
		    pg >= PB_PAGES || r->addr != mtk_touch_addr(rep->base[slot], pg))
			continue;
		if (seen[pg]++)
			(*repeats)++;
	}
	for (int i = 0; i < PB_PAGES; i++)
		pages += seen[i] > 0;
	return pages;
}

static int pb_param(const char *v)
{
	return sec_write(PB_PARAM, v);
}

/* A process session of pb_target (fork + SIGSEGV) beside a non-target. */
static void pb_exact(const char *what, uint32_t want_mode)
{
	struct mtk_report *rep = shared_report(PB_PAGES), *orep = shared_report(PB_PAGES);
	struct pb_arg arg = { .rep = rep, .fork = 1, .segv = 1 };
	struct pb_ctx ctx = { .s = calloc(PB_MAX, sizeof(*ctx.s)) };
	uint64_t count = 0, produced, dropped, readn = 0;
	int rel, orel, pfd = -1, rc, orc, bad = 0, others = 0, kaddr = 0, rep0 = 0;
	int p0, p1;
	struct perf_event_attr pa;
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 };
	pid_t c = mtk_spawn(pb_target, &arg, &rel);
	pid_t o = mtk_spawn(pb_other, orep, &orel);
	uint32_t mode = ~0u;

	mt_default_config(&cfg, c, 1 << 12);
	cfg.fields = MEMTRACE_FIELD_IP | MEMTRACE_FIELD_DATA_SRC;
	mt_fault_event_attr(&pa);
	if (!ctx.s || mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START) ||
	    (pfd = (int)syscall(SYS_perf_event_open, &pa, c, -1, -1, 0)) < 0) {
		FAIL("probe", "%s: session or perf counter: %s", what, strerror(errno));
		kill(c, SIGKILL);
		kill(o, SIGKILL);
		reap(c);
		reap(o);
		goto out;
	}
	mode = pb_mode(&s);
	mtk_release(orel);
	mtk_release(rel);
	rc = reap(c);
	orc = reap(o);
	if (mt_drain_until_end(&s, pb_keep, &ctx, 10000) ||
	    read(pfd, &count, sizeof(count)) != sizeof(count) ||
	    mt_stats(&s, &produced, &dropped, NULL)) {
		FAIL("probe", "%s: no end or no counts: %s", what, strerror(errno));
		goto out;
	}
	for (int cpu = 0; cpu < s.ncpus; cpu++)
		readn += s.read[cpu];
	for (long i = 0; i < ctx.n && i < PB_MAX; i++) {
		const struct memtrace_sample *r = &ctx.s[i];

		if ((pid_t)r->pid == o)
			others++;
		else if (((pid_t)r->pid != c && (pid_t)r->pid != rep->pid[1]) ||
			 r->tid != r->pid || !r->ip || r->ip >= (1ull << 47) ||
			 r->weight || r->data_src)
			bad++;
		if (r->addr >= (1ull << 47))
			kaddr++;
	}
	p0 = pb_region(&ctx, rep, 0, &rep0);
	p1 = pb_region(&ctx, rep, 1, &rep0);
	if (rc != 128 + SIGSEGV || orc || mode != want_mode || bad || others || kaddr ||
	    p0 != PB_PAGES || p1 != PB_PAGES || rep0 > 2 || readn != count ||
	    produced != readn || dropped || ctx.n > PB_MAX)
		FAIL("probe", "%s: mode %s, exit %d/%d, perf counted %llu, read %llu, produced %llu, "
		     "dropped %llu; pages %d + %d of %d (%d repeats), %d bad, %d of the non-target, "
		     "%d kernel addresses", what, pb_mode_name(mode), rc, orc,
		     (unsigned long long)count, (unsigned long long)readn,
		     (unsigned long long)produced, (unsigned long long)dropped, p0, p1, PB_PAGES,
		     rep0, bad, others, kaddr);
	else
		OK("probe", " %s: mode %s; target and forked child: %d + %d pages once (%d retried), "
		   "exact address/pid/tid, user ip; %llu records = perf's count, 0 dropped; "
		   "kernel-address fault (SIGSEGV) not recorded; 0 records of the non-target; ended",
		   what, pb_mode_name(mode), p0, p1, rep0, (unsigned long long)readn);
out:
	if (pfd >= 0)
		close(pfd);
	if (s.fd >= 0)
		mt_close(&s);
	free(ctx.s);
}

/* Period 7 on one CPU: floor(count / 7) records exactly. */
static void pb_period(void)
{
	struct mtk_report *rep = shared_report(1000);
	struct pb_arg arg = { .rep = rep };
	struct pb_ctx ctx = { .s = calloc(PB_MAX, sizeof(*ctx.s)) };
	uint64_t count = 0, produced, dropped, readn = 0;
	struct perf_event_attr pa;
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 };
	cpu_set_t one;
	int rel, pfd = -1, rc, bad = 0;
	pid_t c = mtk_spawn(pb_target, &arg, &rel);

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	mt_default_config(&cfg, c, 1 << 12);
	cfg.sample_period = PB_PERIOD;
	mt_fault_event_attr(&pa);
	if (!ctx.s || sched_setaffinity(c, sizeof(one), &one) || mt_open(&s, &cfg) ||
	    ioctl(s.fd, MEMTRACE_IOC_START) ||
	    (pfd = (int)syscall(SYS_perf_event_open, &pa, c, -1, -1, 0)) < 0) {
		FAIL("probe", "period: affinity, session or perf counter: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		goto out;
	}
	mtk_release(rel);
	rc = reap(c);
	if (mt_drain_until_end(&s, pb_keep, &ctx, 10000) ||
	    read(pfd, &count, sizeof(count)) != sizeof(count) ||
	    mt_stats(&s, &produced, &dropped, NULL)) {
		FAIL("probe", "period: no end or no counts: %s", strerror(errno));
		goto out;
	}
	for (int cpu = 0; cpu < s.ncpus; cpu++)
		readn += s.read[cpu];
	for (long i = 0; i < ctx.n && i < PB_MAX; i++)
		if ((pid_t)ctx.s[i].pid != c || ctx.s[i].cpu != 0)
			bad++;
	if (rc || bad || readn != count / PB_PERIOD || produced != readn || dropped ||
	    count < 1000)
		FAIL("probe", "period: exit %d, perf counted %llu, read %llu (want %llu), produced %llu, "
		     "dropped %llu, %d not the target's on CPU 0", rc, (unsigned long long)count,
		     (unsigned long long)readn, (unsigned long long)(count / PB_PERIOD),
		     (unsigned long long)produced, (unsigned long long)dropped, bad);
	else
		OK("probe", " period %d, one CPU: perf counted %llu faults, %llu records = floor(%llu / %d)",
		   PB_PERIOD, (unsigned long long)count, (unsigned long long)readn,
		   (unsigned long long)count, PB_PERIOD);
out:
	if (pfd >= 0)
		close(pfd);
	if (s.fd >= 0)
		mt_close(&s);
	free(ctx.s);
}

/* System-wide: every page of a child; KERNEL_ADDRS keeps perf's counters. */
static void pb_system(void)
{
	struct mtk_report *rep = shared_report(PB_PAGES);
	struct pb_ctx ctx = { .s = calloc(PB_MAX, sizeof(*ctx.s)) };
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 }, k = { .fd = -1 };
	uint32_t mode = ~0u, kmode = ~0u;
	int rel, rc, p0, repeats = 0;
	pid_t c = mtk_spawn(pb_other, rep, &rel);

	mt_default_config(&cfg, 0, 1 << 14);
	cfg.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	cfg.pid = -1;
	if (!ctx.s || mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		FAIL("probe", "system: session: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		goto out;
	}
	mode = pb_mode(&s);
	mtk_release(rel);
	rc = reap(c);
	if (ioctl(s.fd, MEMTRACE_IOC_STOP) || mt_drain(&s, pb_keep, &ctx) < 0) {
		FAIL("probe", "system: stop/drain: %s", strerror(errno));
		goto out;
	}
	p0 = pb_region(&ctx, rep, 0, &repeats);
	cfg.flags |= MEMTRACE_CFG_KERNEL_ADDRS;
	if (mt_open(&k, &cfg) || ioctl(k.fd, MEMTRACE_IOC_START)) {
		FAIL("probe", "system: KERNEL_ADDRS session: %s", strerror(errno));
		goto out;
	}
	kmode = pb_mode(&k);
	if (rc || mode != MEMTRACE_MODE_FAULT_PROBE || kmode != MEMTRACE_MODE_PERF_OVERFLOW ||
	    p0 != PB_PAGES || repeats > 2 || ctx.n > PB_MAX)
		FAIL("probe", "system: exit %d, mode %s (KERNEL_ADDRS %s), %d of %d pages (%d repeats), "
		     "%ld records", rc, pb_mode_name(mode), pb_mode_name(kmode), p0, PB_PAGES,
		     repeats, ctx.n);
	else
		OK("probe", " system-wide: mode %s, the child's %d pages once (%d retried) in %ld records; "
		   "with KERNEL_ADDRS mode %s", pb_mode_name(mode), p0, repeats, ctx.n,
		   pb_mode_name(kmode));
out:
	if (s.fd >= 0)
		mt_close(&s);
	if (k.fd >= 0)
		mt_close(&k);
	free(ctx.s);
}

void test_probe(void)
{
	pb_exact("exact", MEMTRACE_MODE_FAULT_PROBE);
	pb_period();
	pb_system();
	if (pb_param("N")) {
		FAIL("probe", "fallback: cannot write %s: %s", PB_PARAM, strerror(errno));
		return;
	}
	pb_exact("fallback fault_probe=N", MEMTRACE_MODE_PERF_OVERFLOW);
	if (pb_param("Y"))
		FAIL("probe", "cannot write Y to %s: %s", PB_PARAM, strerror(errno));
}
