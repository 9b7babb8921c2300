/* cpuoff.c - mtktest cpuoff: CPU 1 goes offline and online during a task
 * session and a system-wide (-a) session.
 */
#include <sched.h>

#include "mtktest.h"

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

void test_cpuoff(void)
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
