/* pebs.c - mtktest pebs TAG: what memtrace.ko does with a PEBS recording in
 * a guest without PEBS (tests/kernel/guest-pebs.sh runs it once with the
 * PEBS sink hook found, TAG "hooked", and once with pebs_hook=0, "compat").
 *
 *   pebs-boot-TAG-refused   START of a PEBS load event (raw 0x81d0,
 *                           MEM_INST_RETIRED.ALL_LOADS, precise_ip 2) fails
 *                           with the errno the kernel's PMU state implies:
 *                           no core PMU registered (no
 *                           /sys/bus/event_source/devices/cpu): ENOENT;
 *                           a core PMU whose caps/max_precise is 0: EOPNOTSUPP
 *   pebs-boot-TAG-software  a page-fault session of the same module then
 *                           runs in mode fault-probe (perf-overflow with the
 *                           parameter fault_probe=N), never pebs-hook: page
 *                           faults never take the hook; it sees every page
 *                           its target touched, once
 * A core PMU with PEBS (max_precise > 0) is not what this test is for: FAIL
 * (on hardware, tests/hwcheck measures the hook).
 */
#include "mtktest.h"

#define PB_NPAGES 32

struct pebs_ctx {
	const struct mtk_report *rep;
	int seen[PB_NPAGES];
	long other;
};

static void pebs_sample(void *p, int cpu, const struct memtrace_sample *r)
{
	struct pebs_ctx *c = p;
	uint64_t base = c->rep->base[0];
	uint64_t pg = (r->addr - base) / PG;

	(void)cpu;
	if (r->addr >= base && pg < PB_NPAGES && r->addr == mtk_touch_addr(base, (int)pg) &&
	    (pid_t)r->pid == c->rep->pid[0])
		c->seen[pg]++;
	else
		c->other++;
}

static void pebs_child(void *a)
{
	mtk_touch_region(a, 0);
}

/* -1: no core PMU; else its caps/max_precise (0: no PEBS) */
static int pebs_max_precise(void)
{
	FILE *f;
	int v = 0;

	if (access("/sys/bus/event_source/devices/cpu", F_OK))
		return -1;
	f = fopen("/sys/bus/event_source/devices/cpu/caps/max_precise", "r");
	if (!f)
		return 0;	/* no caps: a PMU without precise events */
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void pebs_refused(const char *tag, int maxp)
{
	char name[64];
	struct memtrace_config cfg;
	struct mt_session s;
	int rel, want = maxp < 0 ? ENOENT : EOPNOTSUPP, rc, err;
	pid_t c = mtk_spawn(sleeper, NULL, &rel);

	snprintf(name, sizeof(name), "pebs-boot-%s-refused", tag);
	mt_default_config(&cfg, c, 1024);
	cfg.event_type = PERF_TYPE_RAW;
	cfg.event_config = 0x81d0;	/* MEM_INST_RETIRED.ALL_LOADS */
	cfg.precise_ip = 2;
	cfg.sample_period = 10007;
	cfg.fields = MEMTRACE_FIELDS_ALL;
	if (mt_open(&s, &cfg)) {
		FAIL(name, "configure: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		return;
	}
	rc = ioctl(s.fd, MEMTRACE_IOC_START);
	err = errno;
	mt_close(&s);
	kill(c, SIGKILL);
	reap(c);
	if (rc == 0)
		FAIL(name, "START of a PEBS event succeeded in a guest with %s",
		     maxp < 0 ? "no core PMU" : "a core PMU without PEBS");
	else if (err != want)
		FAIL(name, "START failed with %s, expected %s (%s)", strerror(err),
		     strerror(want), maxp < 0 ? "no core PMU" : "core PMU, max_precise 0");
	else
		OK(name, ": START of a PEBS load event (precise_ip 2) fails with %s: %s",
		   strerror(err), maxp < 0 ? "no core PMU registered (no PMU in this guest)"
					   : "the core PMU has no PEBS (max_precise 0)");
}

/* the mode a page-fault session must report: the module's own probe unless
 * its parameter fault_probe is N */
static uint32_t pebs_fault_mode(void)
{
	FILE *f = fopen("/sys/module/memtrace/parameters/fault_probe", "r");
	int c = f ? fgetc(f) : 'N';

	if (f)
		fclose(f);
	return c == 'Y' ? MEMTRACE_MODE_FAULT_PROBE : MEMTRACE_MODE_PERF_OVERFLOW;
}

static const char *pebs_mode_name(uint32_t m)
{
	return m == MEMTRACE_MODE_FAULT_PROBE ? "fault-probe" :
	       m == MEMTRACE_MODE_PERF_OVERFLOW ? "perf-overflow" :
	       m == MEMTRACE_MODE_PEBS_HOOK ? "pebs-hook" : "other";
}

static void pebs_software(const char *tag)
{
	char name[64];
	struct mtk_report *rep = shared_report(PB_NPAGES);
	struct pebs_ctx ctx = { .rep = rep };
	struct memtrace_config cfg;
	struct mt_session s;
	uint32_t mode, want = pebs_fault_mode();
	int rel, rc, once = 0, more = 0;
	pid_t c = mtk_spawn(pebs_child, rep, &rel);

	snprintf(name, sizeof(name), "pebs-boot-%s-software", tag);
	mt_default_config(&cfg, c, 4096);
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		FAIL(name, "session: %s", strerror(errno));
		kill(c, SIGKILL);
		reap(c);
		return;
	}
	mode = __atomic_load_n(&mt_hdr(&s, 0)->mode, __ATOMIC_RELAXED);
	mtk_release(rel);
	rc = reap(c);
	if (mt_drain_until_end(&s, pebs_sample, &ctx, 10000)) {
		FAIL(name, "no end: %s", strerror(errno));
		mt_close(&s);
		return;
	}
	mt_close(&s);
	for (int i = 0; i < PB_NPAGES; i++) {
		once += ctx.seen[i] == 1;
		more += ctx.seen[i] > 1;
	}
	if (rc || mode != want || once != PB_NPAGES)
		FAIL(name, "exit %d, mode %s (want %s), %d of %d pages once, %d more than once",
		     rc, pebs_mode_name(mode), pebs_mode_name(want), once, PB_NPAGES, more);
	else
		OK(name, ": page faults in mode %s (not pebs-hook), %d of %d touched pages once (%ld other records)",
		   pebs_mode_name(mode), once, PB_NPAGES, ctx.other);
}

void test_pebs(const char *tag)
{
	int maxp = pebs_max_precise();

	if (maxp > 0) {
		FAIL("pebs-boot-pmu", "this guest has a core PMU with PEBS (max_precise %d): "
		     "the pebs-boot test expects none (hardware: tests/hwcheck)", maxp);
		return;
	}
	pebs_refused(tag, maxp);
	pebs_software(tag);
}
