/*
 * mksynth.c - synthetic hwload recordings with known verdicts for
 * memtrace-hwcheck-analyze (tests/hwcheck/run.sh).  Written through the
 * public writer API of libmemtrace.
 *
 *   mksynth CASE DIR    writes DIR/CASE.mtrace and DIR/CASE.layout
 *
 * The layout: pid 4242, 10 rounds; A 1 MiB (3000 loads per round), B 4 MiB
 * (1000 loads), C 1 MiB (untouched), D 256 KiB (4000 stores).  With period
 * 10 a loads recording expects 4000 samples, 3/4 in A; a stores recording
 * 4000, all in D.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtrace/trace.h>

#define PID 4242
#define A 0x10000000ULL
#define B 0x20000000ULL
#define C 0x30000000ULL
#define D 0x40000000ULL
#define UNMAPPED 0x50000000ULL
#define STACK 0x7ffe00000000ULL
#define PAGE 4096ULL
#define MAX 8192

#define LOAD_L1 ((uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | \
		 (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1) << PERF_MEM_LVL_SHIFT)
#define LOAD_L3 ((uint64_t)PERF_MEM_OP_LOAD << PERF_MEM_OP_SHIFT | \
		 (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3) << PERF_MEM_LVL_SHIFT)
#define STORE_L1 ((uint64_t)PERF_MEM_OP_STORE << PERF_MEM_OP_SHIFT | \
		  (uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1) << PERF_MEM_LVL_SHIFT)

static uint64_t t_addr[MAX], t_time[MAX], t_src[MAX];
static uint32_t t_pid[MAX], t_tid[MAX], t_cpu[MAX], t_weight[MAX];
static size_t n;

/* a sample at time (0: 2 ms + 1 us per sample so far, inside the loop) */
static void add_at(uint64_t time, uint64_t addr, uint64_t src, uint32_t weight)
{
	if (n == MAX) {
		fprintf(stderr, "mksynth: too many samples\n");
		exit(1);
	}
	t_time[n] = time ? time : 2000000 + n * 1000;
	t_addr[n] = addr;
	t_src[n] = src;
	t_weight[n] = weight;
	t_pid[n] = t_tid[n] = PID;
	t_cpu[n] = (uint32_t)(n % 2);
	n++;
}

static void add(uint64_t addr, uint64_t src, uint32_t weight)
{
	add_at(0, addr, src, weight);
}

/* count samples spread over [base, base + span) */
static void add_many(unsigned count, uint64_t base, uint64_t span, uint64_t src, uint32_t w0,
		     uint32_t wstep)
{
	for (unsigned i = 0; i < count; i++)
		add(base + (i * 64ULL) % span, src, w0 + (i % 5) * wstep);
}

static int write_layout(const char *path, int populated)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "pid %d\nrounds 10\npopulated %d\n", PID, populated);
	fprintf(f, "buffer A 0x%llx 0x%llx 3000 0\n", A, A + (1 << 20));
	fprintf(f, "buffer B 0x%llx 0x%llx 1000 0\n", B, B + (4 << 20));
	fprintf(f, "buffer C 0x%llx 0x%llx 0 0\n", C, C + (1 << 20));
	fprintf(f, "buffer D 0x%llx 0x%llx 0 4000\n", D, D + (256 << 10));
	fprintf(f, "loop_start_ns 2000000\nloop_end_ns 12000000\nchecksum 0\n");
	return fclose(f);
}

static const char maps_text[] =
	"00400000-00401000 r-xp 00000000 08:01 1234 /usr/bin/hwload\n"
	"10000000-10100000 rw-p 00000000 00:00 0\n"
	"20000000-20400000 rw-p 00000000 00:00 0\n"
	"30000000-30100000 rw-p 00000000 00:00 0\n"
	"40000000-40040000 rw-p 00000000 00:00 0\n"
	"7ffe00000000-7ffe00021000 rw-p 00000000 00:00 0 [stack]\n";

/* module runs: HEADER mode and large_pebs, as the module backend writes them */
static const char *module_meta = "";

static int write_trace(const char *path, const char *source, const char *event, int columns,
		       uint64_t lost, uint64_t throttled, int complete)
{
	char meta[512], err[256];

	snprintf(meta, sizeof(meta), "time_unit=ns\nstart_time=1000000\nclock=monotonic\n"
		 "backend=%s\nsource=%s\nevent=%s\nsample_period=10\ntarget_pid=%d\n"
		 "target_comm=hwload\n%s", module_meta[0] ? "module" : "perf", source, event, PID,
		 module_meta);
	struct memtrace_writer *w = memtrace_writer_open(path, meta, err, sizeof(err));
	struct memtrace_columns c = { .time = t_time, .addr = t_addr, .pid = t_pid, .tid = t_tid,
				      .cpu = t_cpu, .cap = n };
	if (columns) {
		c.weight = t_weight;
		c.data_src = t_src;
	}
	if (!w || memtrace_writer_maps(w, 1000000, PID, maps_text, strlen(maps_text), err,
				       sizeof(err)) ||
	    memtrace_writer_samples(w, &c, n, err, sizeof(err)) ||
	    ((lost || throttled) &&
	     memtrace_writer_lost(w, 9000000, 0, lost, throttled, err, sizeof(err))) ||
	    memtrace_writer_close(w, complete ? "end_reason=target-exited\n" : NULL, err,
				  sizeof(err))) {
		fprintf(stderr, "mksynth: %s: %s\n", path, err);
		return -1;
	}
	return 0;
}

/* Loads: 3000 in A (L1, 4-12 cycles), 1000 in B (L3, 200-600 cycles). */
static void loads_pass(void)
{
	add_many(3000, A, 1 << 20, LOAD_L1, 4, 2);
	add_many(1000, B, 4 << 20, LOAD_L3, 200, 100);
}

static int make_case(const char *name, const char *trace)
{
	if (!strcmp(name, "loads-pass")) {
		/* startup: 2 samples in a mapping no snapshot has, before the loop */
		add_at(1500000, UNMAPPED, LOAD_L1, 4);
		add_at(1500001, UNMAPPED + 64, LOAD_L1, 4);
		loads_pass();
		add_many(20, STACK, 4096, LOAD_L1, 4, 0);	/* the stack: outside the buffers */
		return write_trace(trace, "pebs", "loads", 1, 0, 0, 1);
	}
	if (!strcmp(name, "module-hooked") || !strcmp(name, "module-compatible")) {
		module_meta = !strcmp(name, "module-hooked") ? "mode=pebs-hook\nlarge_pebs=1\n"
							     : "mode=perf-overflow\nlarge_pebs=0\n";
		loads_pass();
		return write_trace(trace, "pebs", "loads", 1, 0, 0, 1);
	}
	if (!strcmp(name, "loads-early")) {	/* a sample before the recording started */
		add_at(999000, A, LOAD_L1, 4);
		loads_pass();
		return write_trace(trace, "pebs", "loads", 1, 0, 0, 1);
	}
	if (!strcmp(name, "loads-fail")) {
		add_many(2000, A, 1 << 20, LOAD_L1, 300, 0);	/* slower than B */
		add_many(1980, B, 4 << 20, LOAD_L1, 200, 0);	/* B in L1 too, share 0.495 */
		add_many(10, C, 1 << 20, LOAD_L1, 0, 0);	/* C is never accessed */
		add_many(3, UNMAPPED, 4096, LOAD_L1, 0, 0);
		add_many(7, D, 4096, STORE_L1, 0, 0);		/* a store in a loads trace */
		return write_trace(trace, "pebs", "loads", 1, 0, 0, 1);
	}
	if (!strcmp(name, "loads-lost")) {	/* 3600 samples + 400 lost = 4000 */
		add_many(2700, A, 1 << 20, LOAD_L1, 4, 2);
		add_many(900, B, 4 << 20, LOAD_L3, 200, 100);
		return write_trace(trace, "pebs", "loads", 1, 400, 0, 1);
	}
	if (!strcmp(name, "loads-throttled") || !strcmp(name, "loads-short")) {
		add_many(2400, A, 1 << 20, 0, 0, 0);	/* no data source, no latency */
		add_many(800, B, 4 << 20, 0, 0, 0);
		return write_trace(trace, "pebs", "loads", 0, 0, !strcmp(name, "loads-short") ? 0 : 3, 1);
	}
	if (!strcmp(name, "loads-incomplete")) {
		loads_pass();
		return write_trace(trace, "pebs", "loads", 1, 0, 0, 0);
	}
	if (!strcmp(name, "stores-pass") || !strcmp(name, "stores-fail")) {
		int fail = !strcmp(name, "stores-fail");
		add_many(fail ? 3996 : 4000, D, 256 << 10, STORE_L1, 0, 0);
		add_many(fail ? 4 : 0, A, 1 << 20, STORE_L1, 0, 0);
		add_many(20, STACK, 4096, STORE_L1, 0, 0);
		return write_trace(trace, "pebs", "stores", 1, 0, 0, 1);
	}
	if (!strcmp(name, "ibs-loads")) {	/* IBS: every op with an address */
		add_many(750, A, 1 << 20, LOAD_L1, 4, 2);
		add_many(250, B, 4 << 20, LOAD_L3, 200, 100);
		add_many(500, D, 256 << 10, STORE_L1, 0, 0);
		return write_trace(trace, "ibs", "loads", 1, 0, 0, 1);
	}
	if (!strcmp(name, "faults-pass") || !strcmp(name, "faults-fail")) {
		int fail = !strcmp(name, "faults-fail");
		for (uint64_t p = 0; p < 256; p++)
			add(A + p * PAGE + 8, 0, 0);
		for (uint64_t p = 0; p < 1024; p++)
			add(B + p * PAGE + 16, 0, 0);
		for (uint64_t p = 0; p < (fail ? 63 : 64); p++)
			add(D + p * PAGE, 0, 0);
		add(D + 5 * PAGE, 0, 0);		/* one retried fault */
		if (fail)
			add(C + 3 * PAGE, 0, 0);
		return write_trace(trace, "page-faults", "page-faults", 0, 0, 0, 1);
	}
	fprintf(stderr, "mksynth: unknown case '%s'\n", name);
	return -1;
}

int main(int argc, char **argv)
{
	char trace[4096], layout[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: mksynth CASE DIR\n");
		return 2;
	}
	snprintf(trace, sizeof(trace), "%s/%s.mtrace", argv[2], argv[1]);
	snprintf(layout, sizeof(layout), "%s/%s.layout", argv[2], argv[1]);
	if (make_case(argv[1], trace))
		return 1;
	if (write_layout(layout, strncmp(argv[1], "faults-", 7) != 0)) {
		fprintf(stderr, "mksynth: %s: cannot write\n", layout);
		return 1;
	}
	return 0;
}
