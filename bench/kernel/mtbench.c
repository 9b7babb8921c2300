/* mtbench.c - per-sample cost of memtrace.ko vs perf's own ring buffer, in
 * one guest, same software event (user page faults, period 1).
 *
 *   mtbench [REPS]
 *
 * A child maps, touches (one write per page, MADV_NOHUGEPAGE) and unmaps
 * ROUNDS x PAGES pages (81920 faults).  Three modes, interleaved, REPS runs each:
 *   base    untraced
 *   module  /dev/memtrace session on the child (inherit), drained by us
 *   perf    perf_event_open on the child, one event + mmap ring per CPU,
 *           sample_type IP|TID|TIME|ADDR|CPU (what the module keeps),
 *           drained by us
 * For each run: the child's CPU time (user+sys, from wait4) and ours (the
 * drainer's).  Prints medians: extra target CPU ns per sample over base,
 * collector CPU ns per sample, and ring bytes per sample.
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>

#include "../../tests/kernel/mtk_child.h"

#define PAGES 4096
#define ROUNDS 20
#define MAXREP 15
#define PERF_PAGES 256		/* data pages per CPU ring: 1 MiB */

static void workload(void *unused)
{
	(void)unused;
	for (int r = 0; r < ROUNDS; r++) {
		size_t len = (size_t)PAGES * 4096;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, len, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < len; i += 4096)
			p[i] = 1;
		munmap(p, len);
	}
	_exit(0);
}

/* A child that runs workload() once the byte on *go arrives. */
static pid_t spawn(int *go)
{
	pid_t c = mtk_spawn(workload, NULL, go);

	if (c < 0)
		exit(2);
	return c;
}

static double tv_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

static double self_cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

/* waits for c; returns its CPU ns; polls while *done is 0 */
static double reap(pid_t c)
{
	struct rusage ru;
	int st;

	if (wait4(c, &st, 0, &ru) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		exit(4);
	return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

static int child_done(pid_t c, double *cpu)
{
	struct rusage ru;
	int st;
	pid_t r = wait4(c, &st, WNOHANG, &ru);

	if (r != c)
		return 0;
	*cpu = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	return 1;
}

static long nsamples;

static void count(void *ctx, int cpu, const struct memtrace_sample *r)
{
	(void)ctx;
	(void)cpu;
	nsamples += r->addr != 0;
}

static void run_base(double *tcpu)
{
	int go;
	pid_t c = spawn(&go);
	char b = 1;

	if (write(go, &b, 1) != 1)
		exit(5);
	*tcpu = reap(c);
	close(go);
}

static void run_module(double *tcpu, double *ccpu, long *n, double *bytes)
{
	struct memtrace_config cfg;
	struct mt_session s;
	double c0;
	int go;
	char b = 1;
	pid_t c = spawn(&go);

	mt_default_config(&cfg, c, 1 << 16);
	cfg.fields = MEMTRACE_FIELD_IP;
	if (mt_open(&s, &cfg) || ioctl(s.fd, MEMTRACE_IOC_START)) {
		perror("module session");
		exit(6);
	}
	nsamples = 0;
	c0 = self_cpu_ns();
	if (write(go, &b, 1) != 1)
		exit(5);
	for (int done = 0;;) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };

		done = done || child_done(c, tcpu);

		poll(&p, 1, 10);
		mt_drain(&s, count, NULL);
		if (done && mt_ended(&s)) {
			mt_drain(&s, count, NULL);
			break;
		}
	}
	*ccpu = self_cpu_ns() - c0;
	*n = nsamples;
	*bytes = sizeof(struct memtrace_sample);
	close(go);
	uint64_t prod = 0, drop = 0;

	if (!mt_stats(&s, &prod, &drop, NULL) && drop)
		fprintf(stderr, "mtbench: module dropped %llu\n", (unsigned long long)drop);
	mt_close(&s);
}

struct pring {
	int fd;
	unsigned char *base;
	size_t len;
	uint64_t bytes;
};

static long perf_drain(struct pring *r)
{
	struct perf_event_mmap_page *mp = (void *)r->base;
	unsigned char *data = r->base + 4096;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	uint64_t size = (uint64_t)PERF_PAGES * 4096;
	long n = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & (size - 1);

		/* headers are 8-byte aligned: never wrap */
		memcpy(&h, data + off, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE) {
			/* ip, pid/tid, time, addr, cpu */
			unsigned char rec[48];
			size_t first = size - off < h.size ? size - off : h.size;

			memcpy(rec, data + off, first);
			if (first < h.size)
				memcpy(rec + first, data, h.size - first);
			uint64_t addr;
			memcpy(&addr, rec + 8 + 24, 8);
			n += addr != 0;
			r->bytes += h.size;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static void run_perf(double *tcpu, double *ccpu, long *n, double *bytes)
{
	struct pring r[MT_MAX_CPUS];
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), go;
	struct perf_event_attr a;
	double c0;
	char b = 1;
	long total = 0;
	uint64_t rb = 0;
	pid_t c = spawn(&go);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = PERF_PAGES * 4096 / 4;
	for (int i = 0; i < ncpu; i++) {
		r[i].fd = (int)syscall(SYS_perf_event_open, &a, c, i, -1, 0);
		if (r[i].fd < 0) {
			perror("perf_event_open");
			exit(7);
		}
		r[i].len = (size_t)(PERF_PAGES + 1) * 4096;
		r[i].base = mmap(NULL, r[i].len, PROT_READ | PROT_WRITE, MAP_SHARED,
				 r[i].fd, 0);
		r[i].bytes = 0;
		if (r[i].base == MAP_FAILED) {
			perror("perf mmap");
			exit(7);
		}
	}
	c0 = self_cpu_ns();
	if (write(go, &b, 1) != 1)
		exit(5);
	for (;;) {
		struct pollfd p[MT_MAX_CPUS];
		int done = child_done(c, tcpu);

		for (int i = 0; i < ncpu; i++)
			p[i] = (struct pollfd){ .fd = r[i].fd, .events = POLLIN };
		poll(p, (nfds_t)ncpu, 10);
		for (int i = 0; i < ncpu; i++)
			total += perf_drain(&r[i]);
		if (done)
			break;
	}
	*ccpu = self_cpu_ns() - c0;
	*n = total;
	for (int i = 0; i < ncpu; i++) {
		rb += r[i].bytes;
		munmap(r[i].base, r[i].len);
		close(r[i].fd);
	}
	*bytes = total ? (double)rb / (double)total : 0;
	close(go);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmpd);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	double base[MAXREP], mt[MAXREP], mc[MAXREP], pt[MAXREP], pc[MAXREP];
	double mbytes = 0, pbytes = 0;
	long mn = 0, pn = 0;

	if (reps < 1 || reps > MAXREP)
		reps = 5;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < reps; i++) {
		fprintf(stderr, "mtbench: run %d\n", i);
		run_base(&base[i]);
		run_module(&mt[i], &mc[i], &mn, &mbytes);
		run_perf(&pt[i], &pc[i], &pn, &pbytes);
		printf("  run %d: base %.0f ms, module %.0f ms (+%.0f ms collector, %ld samples), perf %.0f ms (+%.0f ms collector, %ld samples)\n",
		       i, base[i] / 1e6, mt[i] / 1e6, mc[i] / 1e6, mn, pt[i] / 1e6,
		       pc[i] / 1e6, pn);
	}
	/* paired differences: each traced run against the untraced run of
	 * the same round, which ran right before it */
	double dm[MAXREP], dp[MAXREP];

	for (int i = 0; i < reps; i++) {
		dm[i] = mt[i] - base[i];
		dp[i] = pt[i] - base[i];
	}
	double n = (double)ROUNDS * PAGES;
	double m = median(dm, reps), p = median(dp, reps), b = median(base, reps);
	double mcm = median(mc, reps), pcm = median(pc, reps);

	printf("ok   bench: %d runs each, %.0f faults/run (medians): untraced %.0f ns/fault; "
	       "module +%.0f ns/sample in the target, %.0f ns/sample collector, %.0f B/sample; "
	       "perf ring +%.0f ns/sample in the target, %.0f ns/sample collector, %.1f B/sample; "
	       "target overhead module/perf = %.2f\n",
	       reps, n, b / n, m / n, mcm / n, mbytes, p / n, pcm / n,
	       pbytes, p > 0 ? m / p : 0);
	if (mn < (long)n || pn < (long)n)
		printf("FAIL bench: samples missing (module %ld, perf %ld, want >= %.0f)\n",
		       mn, pn, n);
	return 0;
}
