/* faulttp.c - mtktest faulttp: the hint-faults event of the module
 * (MEMTRACE_CFG_PAGE_FAULT_TP, exceptions:page_fault_user as its counter).
 *   exact: every page a child writes appears with its exact address, the
 *          child's pid and tid, a user ip and the error code of a user-mode
 *          write to a page without a usable PTE (<= 2 retried faults); the
 *          ring mode says the module's probe took them (fault-probe)
 *   drops: a 16-record ring: read + dropped == perf's own count of the
 *          tracepoint for the child; produced == read
 *   other tracepoint: the flag with sched:sched_switch: START -EINVAL
 */
#include <sys/mount.h>

#include "mtktest.h"

#define PF_PROT		1u
#define PF_WRITE	2u
#define PF_USER		4u
#define TP_PAGES	200
#define TP_MAX		(1 << 16)

struct tp_ctx {
	struct memtrace_sample *s;
	long n;
};

/* tracefs id of events/NAME, or -1 */
static long tp_id(const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char path[256];
	long id = -1;

	mount("tracefs", roots[0], "tracefs", 0, NULL);	/* EBUSY if there */
	for (int i = 0; i < 2 && id < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

static void tp_config(struct memtrace_config *c, pid_t pid, uint32_t ring,
		      long id)
{
	mt_default_config(c, pid, ring);
	c->flags = MEMTRACE_CFG_PAGE_FAULT_TP;
	c->event_type = PERF_TYPE_TRACEPOINT;
	c->event_config = (uint64_t)id;
	c->fields = MEMTRACE_FIELD_IP | MEMTRACE_FIELD_DATA_SRC;
}

static void tp_keep(void *p, int cpu, const struct memtrace_sample *r)
{
	struct tp_ctx *c = p;

	(void)cpu;
	if (c->n < TP_MAX)
		c->s[c->n] = *r;
	c->n++;
}

static void tp_child(void *a)
{
	mtk_touch_region(a, 0);
}

/* Every page of the child's region once (<= 2 retries), exact fields. */
static void tp_exact(long id)
{
	struct mtk_report *rep = shared_report(TP_PAGES);
	struct tp_ctx ctx = { .s = calloc(TP_MAX, sizeof(*ctx.s)) };
	int seen[TP_PAGES] = { 0 }, rel, rc, bad = 0, pages = 0, extra = 0;
	uint32_t mode;
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 };
	pid_t c = mtk_spawn(tp_child, rep, &rel);

	tp_config(&cfg, c, 4096, id);
	if (!ctx.s || mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		FAIL("faulttp", "exact: session: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		free(ctx.s);
		return;
	}
	/* the module's probe on the tracepoint, no perf counter (probe.c) */
	mode = __atomic_load_n(&mt_hdr(&s, 0)->mode, __ATOMIC_RELAXED);
	mtk_release(rel);
	rc = reap(c);
	if (mt_drain_until_end(&s, tp_keep, &ctx, 10000))
		FAIL("faulttp", "exact: no end: %s", strerror(errno));
	for (long i = 0; i < ctx.n && i < TP_MAX; i++) {
		const struct memtrace_sample *r = &ctx.s[i];
		uint64_t off = r->addr - rep->base[0];
		int pg = (int)(off / PG);

		if ((pid_t)r->pid != c || (pid_t)r->tid != c || !r->ip ||
		    r->ip >= (1ull << 47) || !(r->data_src & PF_USER) || r->weight)
			bad++;
		if (r->addr < rep->base[0] || pg >= TP_PAGES)
			continue;
		if (r->addr != mtk_touch_addr(rep->base[0], pg) ||
		    (r->data_src & (PF_PROT | PF_WRITE | PF_USER)) != (PF_WRITE | PF_USER))
			bad++;
		else if (seen[pg]++)
			extra++;
	}
	for (int i = 0; i < TP_PAGES; i++)
		pages += seen[i] > 0;
	if (rc || bad || pages != TP_PAGES || extra > 2 || ctx.n > TP_MAX ||
	    mode != MEMTRACE_MODE_FAULT_PROBE)
		FAIL("faulttp", "exact: exit %d, %ld records, %d of %d pages, %d repeats, %d bad, mode %u",
		     rc, ctx.n, pages, TP_PAGES, extra, bad, mode);
	else
		OK("faulttp", " exact: %d of %d pages once (%d retried), exact address, pid/tid, "
		   "user ip, error code user write; %ld records in all; mode fault-probe", pages,
		   TP_PAGES, extra, ctx.n);
	mt_close(&s);
	free(ctx.s);
}

/* A 16-record ring: read + dropped == perf's count of the tracepoint. */
static void tp_drops(long id)
{
	struct mtk_report *rep = shared_report(1000);
	struct tp_ctx ctx = { .s = calloc(TP_MAX, sizeof(*ctx.s)) };
	uint64_t count = 0, produced, dropped, readn = 0;
	struct perf_event_attr pa;
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 };
	int rel, pfd = -1, rc;
	pid_t c = mtk_spawn(tp_child, rep, &rel);

	tp_config(&cfg, c, 16, id);
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_TRACEPOINT;
	pa.config = (uint64_t)id;
	pa.exclude_hv = 1;	/* fires in kernel mode: exclude_kernel 0 */
	pa.inherit = 1;
	if (!ctx.s || mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START) ||
	    (pfd = (int)syscall(SYS_perf_event_open, &pa, c, -1, -1, 0)) < 0) {
		FAIL("faulttp", "drops: session or perf counter: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		free(ctx.s);
		return;
	}
	mtk_release(rel);
	rc = reap(c);
	if (mt_drain_until_end(&s, tp_keep, &ctx, 10000) ||
	    read(pfd, &count, sizeof(count)) != sizeof(count) ||
	    mt_stats(&s, &produced, &dropped, NULL)) {
		FAIL("faulttp", "drops: %s", strerror(errno));
		goto out;
	}
	for (int cpu = 0; cpu < s.ncpus; cpu++)
		readn += s.read[cpu];
	if (rc || produced != readn || readn + dropped != count || dropped < 1000 - 16 * (uint64_t)s.ncpus)
		FAIL("faulttp", "drops: exit %d, perf counted %llu, produced %llu, read %llu, dropped %llu",
		     rc, (unsigned long long)count, (unsigned long long)produced,
		     (unsigned long long)readn, (unsigned long long)dropped);
	else
		OK("faulttp", " drops: perf counted %llu = read %llu + dropped %llu; produced = read",
		   (unsigned long long)count, (unsigned long long)readn,
		   (unsigned long long)dropped);
out:
	close(pfd);
	mt_close(&s);
	free(ctx.s);
}

/* The flag with another tracepoint: CONFIGURE takes it, START refuses it. */
static void tp_other(void)
{
	long id = tp_id("sched/sched_switch");
	struct memtrace_config cfg;
	struct mt_session s = { .fd = -1 };
	int rel;
	pid_t c;

	if (id < 0) {
		FAIL("faulttp", "other: no sched/sched_switch id in tracefs");
		return;
	}
	c = mtk_spawn(sleeper, NULL, &rel);
	tp_config(&cfg, c, 64, id);
	if (mt_open(&s, &cfg))
		FAIL("faulttp", "other: CONFIGURE: %s", strerror(errno));
	else if (ioctl(s.fd, MEMTRACE_IOC_START) != -1 || errno != EINVAL)
		FAIL("faulttp", "other: START with sched:sched_switch: %s, want EINVAL", strerror(errno));
	else
		OK("faulttp", " other: the flag with sched:sched_switch: START EINVAL");
	mt_close(&s);
	close(rel);
	kill(c, SIGKILL);
	reap(c);
}

void test_faulttp(void)
{
	long id = tp_id("exceptions/page_fault_user");

	if (id < 0) {
		FAIL("faulttp", "no exceptions/page_fault_user id in tracefs");
		return;
	}
	tp_exact(id);
	tp_drops(id);
	tp_other();
}
