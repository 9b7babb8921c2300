/* mtbench.c - per-sample cost of memtrace.ko vs perf's own ring buffer, in
 * one guest, same software event (user page faults, period 1).
 *
 *   mtbench [REPS]
 *
 * A child maps, touches (one write per page, MADV_NOHUGEPAGE) and unmaps
 * ROUNDS x PAGES pages (81920 faults).  Modes, interleaved, REPS runs each:
 *   base    untraced
 *   count   a counting page-fault event on the child (no samples): the
 *           floor that every sampling path pays
 *   module  /dev/memtrace session on the child (inherit), drained by us
 *   perf    perf_event_open on the child, one event + mmap ring per CPU,
 *           sample_type IP|TID|TIME|ADDR|CPU (what the module keeps),
 *           drained by us
 * and three through the whole tool, `memtracectl record --backend B -p CHILD
 * -e page-faults -c 1` for B = module, perf, bpf (the bpf backend's BPF
 * program runs in the faulting task like the module's overflow handler);
 * each also records a child that faults nothing, whose collector CPU (start-up:
 * BPF verifier, ring set-up, trace header) is subtracted.
 * For each run: the child's CPU time (user+sys, from wait4) and the
 * collector's (ours, or memtracectl's from wait4).  Prints medians: extra
 * target CPU ns per sample over base, collector CPU ns per sample, and ring
 * (or trace file) bytes per sample.
 *
 * In a qemu guest booted with -icount (bench/kernel/run.sh) CPU times count
 * guest instructions, so the runs repeat to within a few ms; with one vCPU
 * the target's time holds only its own instructions (with two, the
 * collector's vCPU runs in turns with the target's on TCG's single thread
 * and the target's clock runs on meanwhile).
 * Without /dev/memtrace (the host) the module modes are skipped.
 * MTBENCH_TOOLS=bpf: of the memtracectl modes, bpf only; MTBENCH_EVENT=E:
 * their event instead of page-faults (environment, or the guest's kernel
 * command line: GUEST_APPEND="MTBENCH_EVENT=hint-faults").
 * $MEMTRACE_CTL names memtracectl (default /bin/memtracectl, the guest's).
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>

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

static void idle(void *unused)
{
	(void)unused;
	_exit(0);
}

/* A child that runs workload() (or faults nothing) once the byte on *go
 * arrives. */
static pid_t spawn_fn(void (*fn)(void *), int *go)
{
	pid_t c = mtk_spawn(fn, NULL, go);

	if (c < 0)
		exit(2);
	return c;
}

static pid_t spawn(int *go)
{
	return spawn_fn(workload, go);
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

	mt_fault_event_attr(&a);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU;
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


/* A counting (not sampling) page-fault event on the child: what the event
 * itself costs the faulting task, below any sample path. */
static void run_count(double *tcpu)
{
	struct perf_event_attr a;
	int go, fd;
	char b = 1;
	pid_t c = spawn(&go);

	mt_fault_event_attr(&a);
	fd = (int)syscall(SYS_perf_event_open, &a, c, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open (count)");
		exit(7);
	}
	if (write(go, &b, 1) != 1)
		exit(5);
	*tcpu = reap(c);
	close(go);
	close(fd);
}

static const char *ctl_path(void)
{
	const char *e = getenv("MEMTRACE_CTL");

	return e && *e ? e : "/bin/memtracectl";
}

/* MTBENCH_EVENT: the memtracectl modes' event (default page-faults; e.g.
 * hint-faults, whose tracepoint fires on every user fault) */
static const char *tool_event(void)
{
	const char *e = getenv("MTBENCH_EVENT");

	return e && *e ? e : "page-faults";
}

#define TOOL_TRACE "/tmp/mtbench.mtrace"
#define TOOL_ERR "/tmp/mtbench.err"

/*
 * memtracectl record --backend B on a fresh child (workload, or idle when
 * fn is idle): the child's CPU, memtracectl's CPU, the samples it says it
 * wrote and the trace's size.
 */
static void run_tool(const char *backend, void (*fn)(void *), double *tcpu,
		     double *ccpu, long *n, double *bytes)
{
	struct rusage ru;
	struct stat sb;
	char pid[24], line[256], b = 1;
	int go, st;
	pid_t c = spawn_fn(fn, &go), m;
	FILE *f;

	unlink(TOOL_TRACE);
	snprintf(pid, sizeof(pid), "%d", (int)c);
	m = fork();
	if (m == 0) {
		int fd = open(TOOL_ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(ctl_path(), "memtracectl", "record", "--backend", backend,
		      "-p", pid, "-e", tool_event(), "-c", "1", "-o", TOOL_TRACE,
		      (char *)NULL);
		_exit(127);
	}
	if (m < 0)
		exit(8);
	/* the trace file appears once the events are attached and enabled */
	for (int i = 0; i < 600 && (stat(TOOL_TRACE, &sb) || !sb.st_size); i++)
		usleep(50000);
	usleep(200000);
	if (write(go, &b, 1) != 1)
		exit(5);
	*tcpu = reap(c);
	close(go);
	if (wait4(m, &st, 0, &ru) != m || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "mtbench: memtracectl --backend %s failed:\n", backend);
		if ((f = fopen(TOOL_ERR, "r"))) {
			while (fgets(line, sizeof(line), f))
				fputs(line, stderr);
			fclose(f);
		}
		exit(9);
	}
	*ccpu = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	*n = 0;
	if ((f = fopen(TOOL_ERR, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "memtracectl: wrote %ld samples", n) == 1)
				break;
		fclose(f);
	}
	*bytes = !stat(TOOL_TRACE, &sb) && *n ? (double)sb.st_size / (double)*n : 0;
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

static const char *const tools[] = { "module", "perf", "bpf" };
#define NTOOLS 3

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	double base[MAXREP], mt[MAXREP], mc[MAXREP], pt[MAXREP], pc[MAXREP];
	double tt[NTOOLS][MAXREP], tc[NTOOLS][MAXREP], ti[NTOOLS][MAXREP], ct[MAXREP];
	double tbytes[NTOOLS] = { 0 }, mbytes = 0, pbytes = 0, x, xb;
	long tn[NTOOLS] = { 0 }, mn = 0, pn = 0, xn;
	int module = access("/dev/memtrace", R_OK | W_OK) == 0;
	int t0 = module ? 0 : 1;	/* no module: perf and bpf only */
	const char *only = getenv("MTBENCH_TOOLS");

	if (only && !strcmp(only, "bpf"))	/* memtracectl --backend bpf alone */
		t0 = 2;

	if (reps < 1 || reps > MAXREP)
		reps = 5;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < reps; i++) {
		fprintf(stderr, "mtbench: run %d\n", i);
		run_base(&base[i]);
		run_count(&ct[i]);
		if (module)
			run_module(&mt[i], &mc[i], &mn, &mbytes);
		run_perf(&pt[i], &pc[i], &pn, &pbytes);
		for (int t = t0; t < NTOOLS; t++) {
			run_tool(tools[t], workload, &tt[t][i], &tc[t][i], &tn[t], &tbytes[t]);
			run_tool(tools[t], idle, &x, &ti[t][i], &xn, &xb);
		}
		printf("  run %d: base %.0f ms, module %.0f ms (+%.0f ms collector, %ld samples), perf %.0f ms (+%.0f ms collector, %ld samples)\n",
		       i, base[i] / 1e6, module ? mt[i] / 1e6 : 0, module ? mc[i] / 1e6 : 0, mn,
		       pt[i] / 1e6, pc[i] / 1e6, pn);
		for (int t = t0; t < NTOOLS; t++)
			printf("  run %d: memtracectl --backend %s: %.0f ms (+%.0f ms collector, %.0f ms of it start-up, %ld samples)\n",
			       i, tools[t], tt[t][i] / 1e6, tc[t][i] / 1e6, ti[t][i] / 1e6, tn[t]);
	}
	/* paired differences: each traced run against the untraced run of
	 * the same round, which ran right before it */
	double dm[MAXREP], dp[MAXREP], dt[NTOOLS][MAXREP], dc[MAXREP];

	for (int i = 0; i < reps; i++) {
		dc[i] = ct[i] - base[i];
		dm[i] = module ? mt[i] - base[i] : 0;
		dp[i] = pt[i] - base[i];
		for (int t = t0; t < NTOOLS; t++)
			dt[t][i] = tt[t][i] - base[i];
	}
	double n = (double)ROUNDS * PAGES;
	double m = median(dm, reps), p = median(dp, reps), b = median(base, reps);
	double mcm = module ? median(mc, reps) : 0, pcm = median(pc, reps);

	if (module)
		printf("ok   bench: %d runs each, %.0f faults/run (medians): untraced %.0f ns/fault; "
		       "module +%.0f ns/sample in the target, %.0f ns/sample collector, %.0f B/sample; "
		       "perf ring +%.0f ns/sample in the target, %.0f ns/sample collector, %.1f B/sample; "
		       "target overhead module/perf = %.2f\n",
		       reps, n, b / n, m / n, mcm / n, mbytes, p / n, pcm / n,
		       pbytes, p > 0 ? m / p : 0);
	else
		printf("ok   bench: %d runs each, %.0f faults/run (medians), no /dev/memtrace: untraced %.0f ns/fault; "
		       "perf ring +%.0f ns/sample in the target, %.0f ns/sample collector, %.1f B/sample\n",
		       reps, n, b / n, p / n, pcm / n, pbytes);
	printf("ok   bench-count: a counting page-fault event (no samples): %+.0f ns/fault in the target "
	       "(%.2f of the perf ring's)\n", median(dc, reps) / n, p > 0 ? median(dc, reps) / p : 0);
	for (int t = t0; t < NTOOLS; t++) {
		double d = median(dt[t], reps), c = median(tc[t], reps), s = median(ti[t], reps);

		printf("ok   bench-tool: memtracectl --backend %s: %+.0f ns/sample in the target "
		       "(%.2f of the perf ring's), %.0f ns/sample collector after %.0f ms start-up, "
		       "%.2f trace B/sample, %ld samples\n",
		       tools[t], d / n, p > 0 ? d / p : 0, (c - s) / n, s / 1e6, tbytes[t], tn[t]);
	}
	/* the module's ring (64 Ki records per CPU) holds a whole run: a missing
	 * sample is a bug; perf's rings may overflow when the drainer is late
	 * (lost, counted by perf and in memtracectl's trace) */
	if (module && mn < (long)n)
		printf("FAIL bench: samples missing (module %ld, want >= %.0f)\n", mn, n);
	if (pn < (long)n)
		printf("  note: the perf ring kept %ld of %.0f samples in the last run\n", pn, n);
	for (int t = t0; t < NTOOLS; t++)
		if (tn[t] < (long)n)
			printf("  note: memtracectl --backend %s wrote %ld of %.0f samples in the last run (the rest lost)\n",
			       tools[t], tn[t], n);
	return 0;
}
