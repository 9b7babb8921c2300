/* overflow.c - mtktest overflow: a 16-record ring overflows; records read
 * + dropped == perf's count.
 */
#include "mtktest.h"

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

void test_overflow(void)
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
	mt_fault_event_attr(&pa);
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
