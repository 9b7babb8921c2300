/* test_report_blind.c - blind windows of memtrace_report_compute (report.h
 * struct memtrace_blind) on traces written with memtrace_writer_*: random
 * passes, samples, windows, intervals and lags against a brute-force
 * simulation of the definition (a window (t_k - tau, t_k] is blind when no
 * pass p of the series' pids has t_k - tau < p and p - lag <= t_k), the
 * blind rows in the sparse series, the runs, the averages and the states;
 * gaps without a target (GAPS rows: a window (t_k - tau, t_k] that overlaps
 * (from, to) is blind) with and without passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "test.h"

#define MAXP 16
#define MAXS 64
#define MAXK 4096
#define MAXG 4

struct tcase {
	uint64_t start, end, window, interval, lag;
	struct memtrace_pass pass[MAXP];
	size_t np;
	uint64_t t[MAXS], addr[MAXS];
	size_t ns;
	int with_passes;	/* PASSES chunk and HEADER passes=1 */
	struct memtrace_gap gap[MAXG];
	size_t ng;
	const char *event;
};

static char path[64];

static void write_case(const struct tcase *c)
{
	char meta[512], end[128], err[256];
	uint32_t pid[MAXS], tid[MAXS], cpu[MAXS] = { 0 };

	snprintf(meta, sizeof(meta), "time_unit=ns\nstart_time=%llu\nbucket_default=4096\n"
		 "target_pid=7\nevent=%s\n%spass_lag=%llu\n", (unsigned long long)c->start, c->event,
		 c->with_passes ? "passes=1\n" : "", (unsigned long long)c->lag);
	snprintf(end, sizeof(end), "end_reason=test\nend_time=%llu\n", (unsigned long long)c->end);
	struct memtrace_writer *w = memtrace_writer_open(path, meta, err, sizeof(err));
	CHECK(w);
	for (size_t i = 0; i < c->ns; i++)
		pid[i] = tid[i] = 7;
	struct memtrace_columns col = { .time = (uint64_t *)c->t, .addr = (uint64_t *)c->addr,
					.pid = pid, .tid = tid, .cpu = cpu };
	if (c->ns)
		CHECK(memtrace_writer_samples(w, &col, c->ns, err, sizeof(err)) == 0);
	if (c->with_passes && c->np)
		CHECK(memtrace_writer_passes(w, c->pass, c->np, err, sizeof(err)) == 0);
	if (c->ng)
		CHECK(memtrace_writer_gaps(w, c->gap, c->ng, err, sizeof(err)) == 0);
	CHECK(memtrace_writer_close(w, end, err, sizeof(err)) == 0);
}

/* The latest pass of p's pid before p (0: none), NUMA sweeps' start. */
static uint64_t prev_of(const struct tcase *c, const struct memtrace_pass *p)
{
	uint64_t best = 0;

	for (size_t j = 0; j < c->np; j++)
		if (c->pass[j].pid == p->pid && c->pass[j].time < p->time && c->pass[j].time > best)
			best = c->pass[j].time;
	return best;
}

/* The definition, by brute force: blind[k] for k = 1..K (K returned).  A
 * DAMON pass sees the window it may lie in; a NUMA scan advance the windows
 * that hold the whole sweep from the pid's previous advance. */
static uint64_t simulate(const struct tcase *c, uint32_t pidf, unsigned char *blind)
{
	uint64_t K = (c->end - c->start + c->interval - 1) / c->interval;

	for (uint64_t k = 1; k <= K; k++) {
		uint64_t tk = c->start + k * c->interval;
		blind[k] = c->with_passes;	/* without passes: a source that sees every window */
		for (size_t i = 0; i < c->np && c->with_passes; i++) {
			const struct memtrace_pass *p = &c->pass[i];
			if (pidf && p->pid && p->pid != pidf)
				continue;
			if (p->what != MEMTRACE_PASS_NUMA_SCAN) {
				if (tk - c->window < p->time && p->time - c->lag <= tk)
					blind[k] = 0;
				continue;
			}
			uint64_t prev = prev_of(c, p);
			if (prev && p->time <= tk && tk - c->window <= prev - c->lag)
				blind[k] = 0;
		}
		for (size_t i = 0; i < c->ng; i++)	/* no target for part of the window */
			if (tk > c->gap[i].from && tk - c->window < c->gap[i].to)
				blind[k] = 1;
	}
	return K;
}

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* r's blind flags, runs and averages against want[1..K]. */
static void check_flags(const struct memtrace_report *r, const unsigned char *want, uint64_t K,
			uint64_t interval)
{
	uint64_t nb = 0, rows_blind = 0, peak = 0, covered = 0, prev = 0;
	double sum = 0;

	CHECK_EQ_U64(r->intervals, K);
	for (uint64_t k = 1; k <= K; k++)
		nb += want[k];
	CHECK_EQ_U64(r->blind.intervals, nb);
	for (size_t i = 0; i < r->data.n; i++) {
		uint64_t k = r->data.time[i] / interval;
		CHECK(k >= 1 && k <= K);
		CHECK_EQ_U64(r->data_blind[i], want[k]);
		rows_blind += r->data_blind[i];
		if (!r->data_blind[i]) {
			sum += (double)r->data.wss[i];
			peak = r->data.wss[i] > peak ? r->data.wss[i] : peak;
		}
	}
	CHECK_EQ_U64(rows_blind, nb);
	double avg = K > nb ? sum / (double)(K - nb) : 0;
	CHECK(r->data.avg > avg - 1e-9 && r->data.avg < avg + 1e-9);
	CHECK_EQ_U64(r->data.peak, peak);
	for (size_t i = 0; i < r->blind.nruns; i++) {
		CHECK(r->blind.first[i] > prev && r->blind.first[i] <= r->blind.last[i]);
		for (uint64_t k = r->blind.first[i]; k <= r->blind.last[i]; k++)
			CHECK(want[k]);
		covered += r->blind.last[i] - r->blind.first[i] + 1;
		prev = r->blind.last[i] + 1;
	}
	CHECK_EQ_U64(covered, nb);
}

TEST(blind_flags_match_the_definition)
{
	uint64_t seed = 33;
	unsigned char want[MAXK];
	char err[256];

	snprintf(path, sizeof(path), "/tmp/test_report_blind.%d.mtrace", (int)getpid());
	for (int n = 0; n < 60; n++) {
		struct tcase c = { .start = 1000000000, .with_passes = 1, .event = "hint-faults" };
		c.window = (1 + rnd(&seed) % 5) * 10000000;
		c.interval = rnd(&seed) % 2 ? c.window : 10000000;
		c.lag = rnd(&seed) % 3 ? 0 : 7000000;
		c.end = c.start + 200000000 + rnd(&seed) % 800000000;
		c.np = rnd(&seed) % MAXP;
		uint32_t what = n % 2 ? MEMTRACE_PASS_NUMA_SCAN : MEMTRACE_PASS_DAMON;
		if (what == MEMTRACE_PASS_NUMA_SCAN)	/* sweeps shorter than some windows */
			c.window *= 4;
		for (size_t i = 0; i < c.np; i++) {
			uint32_t pids[] = { 7, 7, 0, 9 };
			/* some before the start, none after the end + lag */
			c.pass[i] = (struct memtrace_pass){
				.time = c.start - 50000000 + rnd(&seed) % (c.end - c.start + 50000000),
				.pid = pids[rnd(&seed) % 4], .what = what };
		}
		c.ns = rnd(&seed) % MAXS;
		for (size_t i = 0; i < c.ns; i++) {
			c.t[i] = c.start + (c.end - c.start) * i / MAXS;
			c.addr[i] = 0x10000000 + 4096 * (rnd(&seed) % 8);
		}
		write_case(&c);
		for (int f = 0; f < 2; f++) {
			uint32_t pidf = f ? 7 : 0;
			struct memtrace_report_config cfg = { .window = c.window, .interval = c.interval };
			cfg.filter.pid = pidf;
			struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
			CHECK(r);
			if (!r) {
				fprintf(stderr, "%s\n", err);
				continue;
			}
			uint64_t K = simulate(&c, pidf, want);
			CHECK_EQ_U64(r->blind.state, MEMTRACE_BLIND_KNOWN);
			check_flags(r, want, K, c.interval);
			memtrace_report_free(r);
		}
	}
	unlink(path);
}

/* Hint faults: a sweep known whole (its start, then its advance) is seen
 * by the windows that hold it; one recorded partial (it skipped mappings
 * holding much of the process's memory) ends a sweep but is seen by none,
 * and the sweep after it still needs its own start or the partial's time. */
TEST(partial_sweeps_are_blind)
{
	const uint64_t s0 = 1000000000, ms = 1000000;
	struct tcase c = { .start = s0, .end = s0 + 5000 * ms, .window = 1000 * ms,
			   .interval = 100 * ms, .with_passes = 1, .event = "hint-faults" };
	const struct { uint64_t at; uint32_t what; } p[] = {
		{ 1000, MEMTRACE_PASS_NUMA_SCAN },		/* no start: not seen */
		{ 1200, MEMTRACE_PASS_NUMA_SWEEP_START },
		{ 2000, MEMTRACE_PASS_NUMA_SCAN_PARTIAL },	/* [1.2, 2.0]: partial */
		{ 2100, MEMTRACE_PASS_NUMA_SWEEP_START },
		{ 3000, MEMTRACE_PASS_NUMA_SCAN },		/* [2.1, 3.0]: whole */
		{ 3800, MEMTRACE_PASS_NUMA_SCAN_PARTIAL },	/* (3.0, 3.8]: partial */
		{ 4500, MEMTRACE_PASS_NUMA_SCAN },		/* (3.8, 4.5]: whole */
	};
	unsigned char want[MAXK] = { 0 };
	char err[256];

	snprintf(path, sizeof(path), "/tmp/test_report_blind.%d.mtrace", (int)getpid());
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		c.pass[c.np++] = (struct memtrace_pass){ s0 + p[i].at * ms, 7, p[i].what };
	for (size_t i = 0; i < 40; i++) {
		c.t[c.ns] = s0 + (50 + 120 * i) * ms;
		c.addr[c.ns++] = 0x10000000 + 4096 * (i % 5);
	}
	write_case(&c);
	struct memtrace_report_config cfg = { .window = c.window, .interval = c.interval };
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(r);
	if (r) {
		/* seen: the windows holding [2.1, 3.0] (t_k - 1 s <= 2.1, t_k >= 3.0:
		 * t = 3.0, 3.1 s) and (3.8, 4.5] (t = 4.5 to 4.8 s); the rest blind,
		 * those that hold only the partial sweeps included */
		for (uint64_t k = 1; k <= 50; k++)
			want[k] = !(k == 30 || k == 31 || (k >= 45 && k <= 48));
		CHECK_EQ_U64(r->blind.state, MEMTRACE_BLIND_KNOWN);
		CHECK(!strcmp(r->blind.pass, "whole NUMA scan sweep"));
		check_flags(r, want, 50, c.interval);
		memtrace_report_free(r);
	}
	unlink(path);
}

TEST(gap_windows_are_blind)
{
	uint64_t seed = 77;
	unsigned char want[MAXK];
	char err[256];

	snprintf(path, sizeof(path), "/tmp/test_report_blind.%d.mtrace", (int)getpid());
	for (int n = 0; n < 60; n++) {
		/* page faults (every window seen but the gaps), or DAMON passes too */
		int passes = n % 3 == 2;
		struct tcase c = { .start = 1000000000, .with_passes = passes,
				   .event = passes ? "damon" : "page-faults" };
		c.window = (1 + rnd(&seed) % 5) * 10000000;
		c.interval = rnd(&seed) % 2 ? c.window : 10000000;
		c.end = c.start + 200000000 + rnd(&seed) % 800000000;
		c.np = passes ? rnd(&seed) % MAXP : 0;
		for (size_t i = 0; i < c.np; i++)
			c.pass[i] = (struct memtrace_pass){
				.time = c.start + rnd(&seed) % (c.end - c.start), .pid = 7,
				.what = MEMTRACE_PASS_DAMON };
		c.ng = 1 + rnd(&seed) % MAXG;
		uint64_t gap_time = 0;
		for (size_t i = 0; i < c.ng; i++) {	/* some overlap, some run to the end */
			uint64_t from = c.start + rnd(&seed) % (c.end - c.start);
			uint64_t len = rnd(&seed) % 4 ? rnd(&seed) % 300000000 : c.end - from;
			c.gap[i] = (struct memtrace_gap){ from, from + len, 7, MEMTRACE_GAP_NO_TARGET };
			gap_time += len;
		}
		c.ns = rnd(&seed) % MAXS;
		for (size_t i = 0; i < c.ns; i++) {
			c.t[i] = c.start + (c.end - c.start) * i / MAXS;
			c.addr[i] = 0x10000000 + 4096 * (rnd(&seed) % 8);
		}
		write_case(&c);
		struct memtrace_report_config cfg = { .window = c.window, .interval = c.interval };
		struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
		CHECK(r);
		if (!r) {
			fprintf(stderr, "%s\n", err);
			continue;
		}
		CHECK_EQ_U64(r->blind.state, MEMTRACE_BLIND_KNOWN);
		CHECK_EQ_U64(r->gaps, c.ng);
		CHECK_EQ_U64(r->gap_time, gap_time);
		check_flags(r, want, simulate(&c, 0, want), c.interval);
		memtrace_report_free(r);
	}
	/* a gap that ends before it begins is refused */
	struct memtrace_writer *w = memtrace_writer_open(path, "time_unit=ns\nstart_time=0\n"
							 "bucket_default=4096\n", err, sizeof(err));
	struct memtrace_gap bad = { 5, 4, 7, MEMTRACE_GAP_NO_TARGET };
	CHECK(w);
	if (w) {
		CHECK(memtrace_writer_gaps(w, &bad, 1, err, sizeof(err)) == -1);
		CHECK(strstr(err, "before it begins") != NULL);
		memtrace_writer_close(w, NULL, err, sizeof(err));
	}
	unlink(path);
}

TEST(blind_states)
{
	char err[256];
	struct tcase c = { .start = 0, .end = 1000000000, .window = 100000000, .interval = 100000000,
			   .ns = 1, .t = { 50000000 }, .addr = { 0x10000000 }, .event = "hint-faults" };

	snprintf(path, sizeof(path), "/tmp/test_report_blind.%d.mtrace", (int)getpid());
	write_case(&c);	/* hint faults without passes: unknown, no flags */
	struct memtrace_report *r = memtrace_report_compute(path, NULL, err, sizeof(err));
	CHECK(r && r->blind.state == MEMTRACE_BLIND_UNKNOWN && !r->data_blind);
	memtrace_report_free(r);
	c.event = "loads";	/* a PMU trace: none */
	write_case(&c);
	r = memtrace_report_compute(path, NULL, err, sizeof(err));
	CHECK(r && r->blind.state == MEMTRACE_BLIND_NONE && !r->data_blind);
	memtrace_report_free(r);
	c.event = "hint-faults";	/* passes=1 and none: every window blind */
	c.with_passes = 1;
	write_case(&c);
	r = memtrace_report_compute(path, NULL, err, sizeof(err));
	CHECK(r && r->blind.state == MEMTRACE_BLIND_KNOWN);
	if (r) {
		CHECK_EQ_U64(r->blind.intervals, 10);
		CHECK_EQ_U64(r->data.n, 10);
		CHECK_EQ_U64(r->blind.nruns, 1);
		CHECK(r->data.avg == 0);
	}
	memtrace_report_free(r);
	unlink(path);
}

int main(void)
{
	return test_main();
}
