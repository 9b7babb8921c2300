/* test_report.c - memtrace_report_compute on a small trace with known samples:
 * series, peaks, hot buckets, curve, buckets, regions and filters, exact values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "test.h"
#include "trace/format.h"
#include "trace/writer.h"

#define START 1000
#define HEAP 0x10000000ull
#define STACK 0x20000000ull
#define JIT 0x30000000ull
#define NOWHERE 0x50000000ull
#define PID8 (1ull << 48)	/* pid 8 is another process: its addresses carry a tag */

static const char maps[] =
	"10000000-10004000 rw-p 00000000 00:00 0 [heap]\n"
	"20000000-20001000 rw-p 00000000 00:00 0 [stack]\n"
	"30000000-30001000 r-xp 00000000 00:00 0 [anon:jit]\n";

/*
 * Window = interval = 10 insn.  Intervals 1-6 touch one heap bucket each,
 * interval 7 five buckets of pid 7 and one of pid 8 (the peak), interval 8
 * the first heap bucket again.  Samples at 61-63 carry no ip.  Pid 8 is
 * another process with no maps: its data and code buckets are its own
 * (keys PID8 + address), named "pid 8 ?".
 */
static const struct memtrace_sample samples[] = {
	{ .time = START + 5, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 15, .addr = HEAP + 8, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 25, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 35, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 45, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 55, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 61, .addr = HEAP + 0x1000, .pid = 7, .tid = 7 },
	{ .time = START + 62, .addr = HEAP + 0x2000, .pid = 7, .tid = 7 },
	{ .time = START + 63, .addr = HEAP + 0x3000, .pid = 7, .tid = 7 },
	{ .time = START + 64, .addr = STACK, .ip = JIT + 0x20, .pid = 7, .tid = 7 },
	{ .time = START + 65, .addr = HEAP + 0x10, .ip = JIT + 0x20, .pid = 7, .tid = 7 },
	{ .time = START + 66, .addr = NOWHERE, .ip = JIT + 0x30, .pid = 8, .tid = 8 },
	{ .time = START + 75, .addr = HEAP, .ip = JIT + 0x10, .pid = 7, .tid = 7 },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static char trace_path[64];

static const char *make_trace(void)
{
	static const char meta[] = "time_unit=insn\nstart_time=1000\nbucket_default=4096\n"
				   "target_pid=7\nsource=test\n";
	static const char end[] = "end_reason=test\ndropped=0\n";
	unsigned char mb[16 + sizeof(maps)] = { 0 };

	if (trace_path[0])
		return trace_path;
	snprintf(trace_path, sizeof(trace_path), "/tmp/test_report.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(trace_path);
	if (!w)
		return NULL;
	put_le64(mb, START);
	put_le32(mb + 8, 7);
	memcpy(mb + 16, maps, sizeof(maps) - 1);
	uint32_t cols = COLS_REQUIRED | (1u << COL_IP);
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= trace_write_chunk(w, CHUNK_MAPS, CODEC_STORED, mb, 16 + sizeof(maps) - 1, 3);
	bad |= trace_write_samples(w, samples, 7, cols);	/* two chunks */
	bad |= trace_write_samples(w, samples + 7, NSAMPLES - 7, cols);
	bad |= trace_write_chunk(w, CHUNK_END, CODEC_STORED, end, sizeof(end) - 1, 2);
	bad |= trace_writer_close(w);
	return bad ? NULL : trace_path;
}

static struct memtrace_report *compute(const struct memtrace_report_config *cfg)
{
	char err[256] = "";
	const char *path = make_trace();
	struct memtrace_report *r = path ? memtrace_report_compute(path, cfg, err, sizeof(err)) : NULL;

	if (!r)
		fprintf(stderr, "compute: %s\n", err);
	return r;
}

#define CHECK_SERIES(s, ...)                                                 \
	do {                                                                 \
		uint64_t want_[] = { __VA_ARGS__ };                          \
		size_t nw_ = sizeof(want_) / sizeof(want_[0]);               \
		size_t nz_ = 0, j_ = 0;	/* sparse: the 0 rows are not stored */ \
		for (size_t i_ = 0; i_ < nw_; i_++)                          \
			nz_ += want_[i_] != 0;                               \
		CHECK_EQ_U64((s).n, nz_);                                    \
		for (size_t i_ = 0; i_ < nw_ && j_ < (s).n; i_++) {          \
			if (!want_[i_])                                      \
				continue;                                    \
			CHECK_EQ_U64((s).wss[j_], want_[i_]);                \
			CHECK_EQ_U64((s).time[j_], 10 * (i_ + 1));           \
			j_++;                                                \
		}                                                            \
	} while (0)

static const struct memtrace_report_config base = { .window = 10, .top = 3 };

TEST(report_series_and_summary)
{
	struct memtrace_report *r = compute(&base);
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_EQ_U64(r->bucket, 4096);
	CHECK_EQ_U64(r->bucket_shift, 12);
	CHECK_EQ_U64(r->interval, 10);
	CHECK_EQ_U64(r->time_is_ns, 0);
	CHECK_EQ_U64(r->start_time, START);
	CHECK_EQ_U64(r->samples, NSAMPLES);
	CHECK_EQ_U64(r->first_time, START + 5);
	CHECK_EQ_U64(r->last_time, START + 75);
	CHECK_EQ_U64(r->have_ip, 1);
	CHECK_SERIES(r->data, 1, 1, 1, 1, 1, 1, 6, 1);
	CHECK_SERIES(r->code, 1, 1, 1, 1, 1, 1, 2, 1);
	CHECK_EQ_U64(r->data.peak, 6);
	CHECK_EQ_U64(r->data.total, 6);
	CHECK_EQ_U64((uint64_t)(r->data.avg * 1000 + 0.5), 1625);
	CHECK_EQ_U64(r->code.total, 2);
	CHECK_EQ_U64(r->info.samples, NSAMPLES);
	CHECK_EQ_U64(r->info.complete, 1);
	CHECK_EQ_U64(r->info.maps, 1);
	CHECK_EQ_U64(r->info.target_pid, 7);
	CHECK_EQ_U64(r->info.first_time, START + 5);
	CHECK_EQ_U64(r->info.last_time, START + 75);
	CHECK(r->end_meta && strstr(r->end_meta, "end_reason=test"));
	CHECK(r->meta && strstr(r->meta, "source=test"));
	memtrace_report_free(r);
}

TEST(report_estimate_of_an_exact_trace_is_the_series)
{
	struct memtrace_report *r = compute(&base);
	CHECK(r != NULL);
	if (!r)
		return;
	const struct memtrace_estimate *e = &r->data_est;
	CHECK(e->period == 1.0);	/* no sample_period: every access */
	for (size_t i = 0; i < r->data.n; i++) {
		CHECK(e->est[i] == (double)r->data.wss[i]);
		CHECK(e->lo[i] == e->est[i] && e->hi[i] == e->est[i]);
		CHECK_EQ_U64(e->flags[i], 0);
	}
	/* an exact trace needs no counts: n, f1, f2 are not kept */
	CHECK_EQ_U64(e->samples[6], 0);
	CHECK_EQ_U64(e->f1[6], 0);
	CHECK_EQ_U64(e->f2[6], 0);
	CHECK_EQ_U64(e->unreliable, 0);
	CHECK(e->total == 6.0 && e->peak == 6.0 && e->p95 == 6.0);
	CHECK(e->avg == r->data.avg);
	memtrace_report_free(r);
}

TEST(report_peaks)
{
	struct memtrace_report *r = compute(&base);
	if (!r)
		return;
	CHECK_EQ_U64(r->peaks_found, 1);
	CHECK_EQ_U64(r->npeaks, 1);
	if (r->npeaks == 1) {
		const struct memtrace_peak *p = &r->peaks[0];
		CHECK_EQ_U64(p->index, 6);
		CHECK_EQ_U64(p->first, 6);
		CHECK_EQ_U64(p->last, 6);
		CHECK_EQ_U64(p->time, 70);
		CHECK_EQ_U64(p->value, 6);
		CHECK_EQ_U64(p->nlocations, 2);	/* ips in (60, 70] */
		if (p->nlocations == 2) {
			CHECK_EQ_U64(p->locations[0].addr, JIT + 0x20);
			CHECK_EQ_U64(p->locations[0].count, 2);
			CHECK_STR(p->locations[0].name, "[anon:jit]+0x20");
			CHECK_EQ_U64(p->locations[1].addr, PID8 + JIT + 0x30);
			CHECK_EQ_U64(p->locations[1].count, 1);
			CHECK_STR(p->locations[1].name, "pid 8 ?");
		}
		CHECK_STR(p->top_mapping, "[heap]");	/* 4 of its 6 data samples */
	}
	memtrace_report_free(r);
}

TEST(report_hot_buckets)
{
	struct memtrace_report *r = compute(&base);
	if (!r)
		return;
	CHECK_EQ_U64(r->nhot_data, 3);
	if (r->nhot_data == 3) {
		const struct memtrace_hot_bucket *h = r->hot_data;
		CHECK_EQ_U64(h[0].addr, HEAP);
		CHECK_EQ_U64(h[0].count, 8);
		CHECK_STR(h[0].where, "[heap]+0x0");
		CHECK(h[0].object == NULL);
		CHECK_EQ_U64(h[0].with_ip, 8);
		CHECK_EQ_U64(h[0].nfunctions, 1);	/* no symbols: the mapping */
		if (h[0].nfunctions)
			CHECK_EQ_U64(h[0].functions[0].count, 8);
		CHECK_EQ_U64(h[0].nips, 2);
		if (h[0].nips == 2) {
			CHECK_EQ_U64(h[0].ips[0].addr, JIT + 0x10);
			CHECK_EQ_U64(h[0].ips[0].count, 7);
			CHECK_EQ_U64(h[0].ips[1].addr, JIT + 0x20);
			CHECK_EQ_U64(h[0].ips[1].count, 1);
		}
		/* ties by ascending address; no ip there */
		CHECK_EQ_U64(h[1].addr, HEAP + 0x1000);
		CHECK_EQ_U64(h[1].count, 1);
		CHECK_STR(h[1].where, "[heap]+0x1000");
		CHECK_EQ_U64(h[1].with_ip, 0);
		CHECK_EQ_U64(h[1].nfunctions, 0);
		CHECK_EQ_U64(h[2].addr, HEAP + 0x2000);
	}
	CHECK_EQ_U64(r->nhot_code, 2);
	if (r->nhot_code == 2) {
		CHECK_EQ_U64(r->hot_code[0].addr, JIT);
		CHECK_EQ_U64(r->hot_code[0].count, 9);
		CHECK_EQ_U64(r->hot_code[0].with_ip, 9);
		CHECK_EQ_U64(r->hot_code[0].nips, 2);
		CHECK_EQ_U64(r->hot_code[1].addr, PID8 + JIT);
		CHECK_EQ_U64(r->hot_code[1].count, 1);
		CHECK_STR(r->hot_code[1].where, "pid 8 ?");
	}
	memtrace_report_free(r);
}

TEST(report_curve)
{
	struct memtrace_report_config cfg = base;
	struct memtrace_report *r = compute(&cfg);
	if (!r)
		return;
	static const uint64_t want[][3] = { { 1, 6, 13 }, { 2, 1, 8 }, { 4, 1, 8 }, { 8, 1, 8 } };
	CHECK_EQ_U64(r->ncurve, 4);
	for (size_t i = 0; i < 4 && i < r->ncurve; i++) {
		CHECK_EQ_U64(r->curve[i].min_count, want[i][0]);
		CHECK_EQ_U64(r->curve[i].buckets, want[i][1]);
		CHECK_EQ_U64(r->curve[i].samples, want[i][2]);
	}
	memtrace_report_free(r);
	cfg.flags = MEMTRACE_REPORT_FULL_CURVE;
	r = compute(&cfg);
	if (!r)
		return;
	CHECK_EQ_U64(r->ncurve, 2);
	if (r->ncurve == 2) {
		CHECK_EQ_U64(r->curve[0].min_count, 1);
		CHECK_EQ_U64(r->curve[0].buckets, 6);
		CHECK_EQ_U64(r->curve[0].samples, 13);
		CHECK_EQ_U64(r->curve[1].min_count, 8);
		CHECK_EQ_U64(r->curve[1].buckets, 1);
		CHECK_EQ_U64(r->curve[1].samples, 8);
	}
	memtrace_report_free(r);
}

TEST(report_all_buckets)
{
	struct memtrace_report_config cfg = base;
	cfg.flags = MEMTRACE_REPORT_ALL_BUCKETS;
	struct memtrace_report *r = compute(&cfg);
	if (!r)
		return;
	static const uint64_t addr[] = { HEAP, HEAP + 0x1000, HEAP + 0x2000, HEAP + 0x3000, STACK,
					 PID8 + NOWHERE };
	static const uint64_t count[] = { 8, 1, 1, 1, 1, 1 };
	CHECK_EQ_U64(r->nbuckets, 6);
	for (size_t i = 0; i < 6 && i < r->nbuckets; i++) {
		CHECK_EQ_U64(r->bucket_addr[i], addr[i]);
		CHECK_EQ_U64(r->bucket_count[i], count[i]);
	}
	CHECK_EQ_U64(r->nregions, 0);	/* not asked for */
	memtrace_report_free(r);
}

TEST(report_regions)
{
	struct memtrace_report_config cfg = base;
	cfg.flags = MEMTRACE_REPORT_REGIONS;
	struct memtrace_report *r = compute(&cfg);
	if (!r)
		return;
	CHECK_EQ_U64(r->nregions, 4);	/* heap, stack, jit, unmapped */
	if (r->nregions == 4) {
		CHECK_STR(r->regions[0].label, "[heap] rw-p");
		CHECK_EQ_U64(r->regions[0].start, HEAP);
		CHECK_EQ_U64(r->regions[0].end, HEAP + 0x4000);
		CHECK_EQ_U64(r->regions[0].samples, 11);
		CHECK_EQ_U64(r->regions[0].buckets, 4);
		CHECK_STR(r->regions[1].label, "[stack] rw-p");
		CHECK_EQ_U64(r->regions[1].samples, 1);
		CHECK_STR(r->regions[2].label, "unmapped");
		CHECK_EQ_U64(r->regions[2].samples, 1);
		CHECK_EQ_U64(r->regions[2].buckets, 1);
		CHECK_EQ_U64(r->regions[3].samples, 0);
	}
	memtrace_report_free(r);
}

TEST(report_filter_pid)
{
	struct memtrace_report_config cfg = base;
	cfg.filter.pid = 7;
	struct memtrace_report *r = compute(&cfg);
	if (!r)
		return;
	CHECK_EQ_U64(r->samples, NSAMPLES - 1);
	CHECK_EQ_U64(r->info.samples, NSAMPLES);	/* the whole file */
	CHECK_SERIES(r->data, 1, 1, 1, 1, 1, 1, 5, 1);
	CHECK_EQ_U64(r->data.total, 5);
	CHECK_EQ_U64(r->npeaks, 1);
	if (r->npeaks)
		CHECK_EQ_U64(r->peaks[0].nlocations, 1);	/* pid 8's ip left out */
	memtrace_report_free(r);
}

TEST(report_filter_time)
{
	struct memtrace_report_config cfg = base;
	cfg.filter.time_from = 50;
	cfg.filter.time_to = 66;
	struct memtrace_report *r = compute(&cfg);
	if (!r)
		return;
	CHECK_EQ_U64(r->samples, 7);	/* 55, 61..66 */
	CHECK_EQ_U64(r->first_time, START + 55);
	CHECK_EQ_U64(r->last_time, START + 66);
	CHECK_SERIES(r->data, 0, 0, 0, 0, 0, 1, 6);
	CHECK_EQ_U64(r->data.total, 6);
	memtrace_report_free(r);
}

TEST(report_errors)
{
	char err[256] = "";
	struct memtrace_report_config cfg = base;

	CHECK(memtrace_report_compute("/nonexistent/x.mtrace", &cfg, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "cannot open") != NULL);
	cfg.bucket = 3000;
	err[0] = 0;
	CHECK(memtrace_report_compute(make_trace(), &cfg, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "bucket") != NULL);
	memtrace_report_free(NULL);
}

/* The trace has no END end_time: its span is start to the last sample, 75 insn. */
TEST(report_window_longer_than_the_recording)
{
	char err[256] = "";
	struct memtrace_report_config cfg = base;
	struct memtrace_report *r;

	cfg.window = 75;
	r = memtrace_report_compute(make_trace(), &cfg, err, sizeof(err));
	CHECK(r != NULL);
	memtrace_report_free(r);
	cfg.window = 76;
	CHECK(memtrace_report_compute(make_trace(), &cfg, err, sizeof(err)) == NULL);
	CHECK_STR(err, "window 76 instructions is longer than the recording (75 instructions from "
		  "start to end): give a window of at most 75 instructions");
	cfg.window = 0;		/* the default (100000) is not checked */
	r = memtrace_report_compute(make_trace(), &cfg, err, sizeof(err));
	CHECK(r != NULL && r->window == 100000);
	memtrace_report_free(r);
}

/* A trace of two samples, at START + 5 and at `last` (insn). */
static const char *two_sample_trace(uint64_t last)
{
	static const char meta[] = "time_unit=insn\nstart_time=1000\ntarget_pid=7\nsource=test\n";
	static char path[64];
	struct memtrace_sample s[2] = {
		{ .time = START + 5, .addr = HEAP, .pid = 7, .tid = 7 },
		{ .time = last, .addr = HEAP + 0x1000, .pid = 7, .tid = 7 },
	};

	snprintf(path, sizeof(path), "/tmp/test_report_rows.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path);
	if (!w)
		return NULL;
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= trace_write_samples(w, s, 2, COLS_REQUIRED);
	bad |= trace_writer_close(w);
	return bad ? NULL : path;
}

/*
 * Rows follow the samples, never the timestamps: two samples 2^63 apart are
 * two rows of a series of 9.2e17 intervals (it used to be refused, and at
 * 10^7 intervals took 2.4 GB), the empty intervals between them gaps.
 */
TEST(report_rows_bounded_not_by_timestamps)
{
	char err[256] = "";
	struct memtrace_report_config cfg = { .window = 10, .interval = 10, .top = 1 };
	const uint64_t last[] = { START + (1ull << 63), START + 10 * 10000000ull + 1,
				  START + 10 * 10000000ull };
	const char *path = NULL;

	for (size_t i = 0; i < sizeof(last) / sizeof(last[0]); i++) {
		path = two_sample_trace(last[i]);
		CHECK(path != NULL);
		struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
		CHECK(r != NULL);
		if (!r)
			continue;
		uint64_t k = (last[i] - START + 9) / 10;	/* the report holding the last sample */
		CHECK_EQ_U64(r->intervals, k);
		CHECK_EQ_U64(r->data.n, 2);
		if (r->data.n == 2) {
			CHECK_EQ_U64(r->data.time[0], 10);
			CHECK_EQ_U64(r->data.wss[0], 1);
			CHECK_EQ_U64(r->data.time[1], k * 10);
			CHECK_EQ_U64(r->data.wss[1], 1);
		}
		CHECK_EQ_U64(r->data.peak, 1);
		memtrace_report_free(r);
	}
	unlink(path);
}

/* Table sizes asked through the library (not only the CLI) are bounded too. */
TEST(report_asked_sizes_bounded)
{
	char err[256] = "";
	struct memtrace_report_config cfg = { .window = 10, .interval = 10, .top = 100001 };
	const char *path = two_sample_trace(START + 100);

	CHECK(path != NULL);
	CHECK(memtrace_report_compute(path, &cfg, err, sizeof(err)) == NULL);
	CHECK_STR(err, "too many rows asked (--top at most 100000, peaks 100000, "
		  "locations and functions 1000)");
	cfg.top = 100000;
	cfg.functions = 1001;
	CHECK(memtrace_report_compute(path, &cfg, err, sizeof(err)) == NULL);
	cfg.functions = 1000;
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(r != NULL);
	memtrace_report_free(r);
	unlink(path);
}

/* Two processes, each with samples at START + 5 and at last. */
static const char *two_process_trace(uint64_t last)
{
	static const char meta[] = "time_unit=insn\nstart_time=1000\ntarget_pid=7\nsource=test\n";
	static char path[64];
	struct memtrace_sample s[4] = {
		{ .time = START + 5, .addr = HEAP, .pid = 7, .tid = 7 },
		{ .time = START + 5, .addr = HEAP, .pid = 8, .tid = 8 },
		{ .time = last, .addr = HEAP + 0x1000, .pid = 7, .tid = 7 },
		{ .time = last, .addr = HEAP + 0x1000, .pid = 8, .tid = 8 },
	};

	snprintf(path, sizeof(path), "/tmp/test_report_procs.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path);
	if (!w)
		return NULL;
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= trace_write_samples(w, s, 4, COLS_REQUIRED);
	bad |= trace_writer_close(w);
	return bad ? NULL : path;
}

/*
 * The per-process series are sparse too: 2 processes over 6e6 intervals
 * (a 228-byte trace of 8 processes used to take 2.3 GB) hold 2 rows each.
 */
TEST(report_process_rows_bounded_in_all)
{
	char err[256] = "";
	struct memtrace_report_config cfg = { .window = 10, .interval = 10, .top = 1,
					      .flags = MEMTRACE_REPORT_PER_PROCESS };
	const char *path = two_process_trace(START + 10 * 6000000ull);

	CHECK(path != NULL);
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ_U64(r->nprocesses, 2);
		CHECK_EQ_U64(r->intervals, 6000000);
		CHECK_EQ_U64(r->data.n, 2);
		for (size_t p = 0; p < r->nprocesses && p < 2; p++) {
			CHECK_EQ_U64(r->processes[p].data.n, 2);
			if (r->processes[p].data.n == 2) {
				CHECK_EQ_U64(r->processes[p].data.time[1], 10 * 6000000ull);
				CHECK_EQ_U64(r->processes[p].data.wss[1], 1);
			}
		}
	}
	memtrace_report_free(r);
	unlink(path);
}

/*
 * MEMTRACE_REPORT_COLD through the report (report_cold.c, under ASan too):
 * thresholds 5 and 10 instructions, step = the interval (10): counted by
 * hand from the samples above (end = the last sample, START + 75).
 */
TEST(report_cold_points_and_processes)
{
	static const uint64_t thr[] = { 5, 10 };
	struct memtrace_report_config cfg = base;

	cfg.flags = MEMTRACE_REPORT_COLD | MEMTRACE_REPORT_PER_PROCESS;
	cfg.ncold = 2;
	cfg.cold_thresholds = thr;
	cfg.cold_step = 10;
	struct memtrace_report *r = compute(&cfg);
	CHECK(r != NULL);
	if (!r)
		return;
	const struct memtrace_cold *o = &r->cold;
	CHECK(o->computed);
	CHECK_EQ_U64(o->method, MEMTRACE_COLD_ACCESS);
	CHECK_EQ_U64(o->step, 10);
	CHECK_EQ_U64(o->n, 8);
	if (o->n == 8) {
		static const uint64_t seen[] = { 1, 1, 1, 1, 1, 1, 6, 6 };
		static const uint64_t c5[] = { 1, 1, 1, 1, 1, 1, 5, 6 };
		static const uint64_t c10[] = { 0, 0, 0, 0, 0, 0, 0, 5 };
		for (size_t j = 0; j < 8; j++) {
			CHECK_EQ_U64(o->time[j], 10 * (j + 1));
			CHECK_EQ_U64(o->seen[j], seen[j]);
			CHECK_EQ_U64(o->cold[j], c5[j]);
			CHECK_EQ_U64(o->cold[8 + j], c10[j]);
		}
	}
	CHECK(o->blind == NULL && o->pass_age == NULL && o->false_cold == NULL);
	CHECK_EQ_U64(o->nprocesses, 2);
	if (o->nprocesses == 2 && o->n == 8) {
		CHECK_EQ_U64(o->processes[0].pid, 7);
		CHECK_EQ_U64(o->processes[0].seen[7], 5);
		CHECK_EQ_U64(o->processes[0].cold[8 + 7], 4);
		CHECK_EQ_U64(o->processes[1].pid, 8);
		CHECK_EQ_U64(o->processes[1].seen[7], 1);
		CHECK_EQ_U64(o->processes[1].cold[8 + 7], 1);
	}
	memtrace_report_free(r);
	/* an instruction trace has no default thresholds: refused */
	char err[256] = "";
	cfg.ncold = 0;
	r = memtrace_report_compute(make_trace(), &cfg, err, sizeof(err));
	CHECK(r == NULL && strstr(err, "instruction-count trace") != NULL);
	memtrace_report_free(r);
}

int main(void)
{
	int rc = test_main();

	if (trace_path[0])
		unlink(trace_path);
	return rc;
}

/*
 * A chunk of more samples than the pipe's batches (4096) reaches the report
 * in parts: counted once as a chunk, every sample in the series, the same
 * report whether a thread decodes ahead (MEMTRACE_THREADS=2) or not.
 * 10000 samples, one per instruction from START, bucket i % 50 of the heap;
 * window 1000: rows of 1000 samples over 50 buckets.
 */
TEST(report_large_chunk_in_parts_any_thread_count)
{
	static const char meta[] = "time_unit=insn\nstart_time=1000\nbucket_default=4096\n"
				   "target_pid=7\nsource=test\n";
	static struct memtrace_sample s[10000];
	char path[64], err[256] = "";
	const char *was = getenv("MEMTRACE_THREADS");
	char *saved = was ? strdup(was) : NULL;

	snprintf(path, sizeof(path), "/tmp/test_report_parts.%d.mtrace", (int)getpid());
	for (int i = 0; i < 10000; i++)
		s[i] = (struct memtrace_sample){ .time = START + (uint64_t)i,
						 .addr = HEAP + (uint64_t)(i % 50) * 4096,
						 .ip = JIT + (uint64_t)(i % 3) * 16, .pid = 7,
						 .tid = 7 };
	struct trace_writer *w = trace_writer_open(path);
	CHECK(w != NULL);
	if (!w)
		return;
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= trace_write_samples(w, s, 10000, COLS_REQUIRED | (1u << COL_IP));
	bad |= trace_write_samples(w, s, 0, COLS_REQUIRED);	/* an empty chunk */
	bad |= trace_writer_close(w);
	CHECK(!bad);
	struct memtrace_report_config cfg = { .window = 1000, .top = 3 };
	struct memtrace_report *r[2];
	for (int t = 0; t < 2; t++) {
		setenv("MEMTRACE_THREADS", t ? "2" : "1", 1);
		r[t] = memtrace_report_compute(path, &cfg, err, sizeof(err));
		CHECK(r[t] != NULL);
		if (!r[t])
			fprintf(stderr, "compute: %s\n", err);
	}
	if (saved)
		setenv("MEMTRACE_THREADS", saved, 1);
	else
		unsetenv("MEMTRACE_THREADS");
	free(saved);
	for (int t = 0; t < 2 && r[0] && r[1]; t++) {
		CHECK_EQ_U64(r[t]->info.chunks, 3);	/* HEADER and two SAMPLES */
		CHECK_EQ_U64(r[t]->info.samples, 10000);
		CHECK_EQ_U64(r[t]->samples, 10000);
		CHECK_EQ_U64(r[t]->first_time, START);
		CHECK_EQ_U64(r[t]->last_time, START + 9999);
		CHECK_EQ_U64(r[t]->data.n, 10);
		for (size_t i = 0; i < r[t]->data.n && i < 10; i++) {
			CHECK_EQ_U64(r[t]->data.wss[i], 50);
			CHECK_EQ_U64(r[t]->code.wss[i], 1);
		}
		CHECK_EQ_U64(r[t]->data.total, 50);
		CHECK_EQ_U64(r[t]->nhot_data, 3);
		if (r[t]->nhot_data)
			CHECK_EQ_U64(r[t]->hot_data[0].count, 200);
	}
	memtrace_report_free(r[0]);
	memtrace_report_free(r[1]);
	unlink(path);
}
