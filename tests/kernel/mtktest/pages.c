/* pages.c - mtktest pages: every page touched by 3 threads and a forked
 * child appears once with its exact address, pid and tid (2 sessions at once).
 */
#include "mtktest.h"

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

void test_pages(void)
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
