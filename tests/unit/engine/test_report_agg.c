/* test_report_agg.c - reports of aggregated traces (record --aggregate):
 * the same accesses written once as SAMPLES and once as AGG rows (per
 * interval, pid and bucket) give the same data WSS series (windows of 1 and
 * 3 intervals), totals and hot-bucket counts; windows that are not
 * multiples of the interval, per-sample reads and malformed AGG chunks are
 * refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "test.h"
#include "trace/format.h"
#include "trace/writer.h"

#define START 1000000
#define T 100			/* the aggregation interval (ns) */
#define HEAP 0x10000000ull
#define NS 40

static struct memtrace_sample samples[NS];
static char path_s[64], path_a[64], path_bad[64];

/* 40 accesses over 8 intervals: bucket i % 5 (+ pid 8 now and then), times spread */
static void make_samples(void)
{
	for (int i = 0; i < NS; i++)
		samples[i] = (struct memtrace_sample){
			.time = START + 1 + (uint64_t)i * 20, .pid = i % 7 == 3 ? 8 : 7,
			.tid = 7, .addr = HEAP + (uint64_t)((i * 3) % 5) * 4096 + (uint64_t)i * 8 };
	samples[NS - 1].time = START + 8 * T;	/* exactly an interval's end */
}

static int write_head(struct trace_writer *w, int agg)
{
	char meta[256];
	int n = snprintf(meta, sizeof(meta), "time_unit=ns\nstart_time=%d\nbucket_default=4096\n"
			 "target_pid=7\nsource=page-faults\nsample_period=1\n%s", START,
			 agg ? "aggregate=100\n" : "");
	return trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, (size_t)n, 0);
}

static int write_end(struct trace_writer *w)
{
	char end[128];
	int n = snprintf(end, sizeof(end), "end_reason=test\nend_time=%d\ndropped=0\n", START + 9 * T);
	return trace_write_chunk(w, CHUNK_END, CODEC_STORED, end, (size_t)n, 3) |
	       trace_writer_close(w);
}

/* Interval k's AGG chunk from the samples in (START + (k-1) T, START + k T]. */
static int write_agg(struct trace_writer *w, uint64_t k, int corrupt)
{
	unsigned char buf[AGG_HDR_SIZE + NS * AGG_ROW_SIZE] = { 0 };
	uint64_t keys[NS][2], counts[NS] = { 0 }, n = 0, total = 0;

	for (int i = 0; i < NS; i++) {
		uint64_t t = samples[i].time, b = samples[i].addr & ~4095ull, j;
		if (t <= START + (k - 1) * T || t > START + k * T)
			continue;
		for (j = 0; j < n && (keys[j][0] != b || keys[j][1] != samples[i].pid); j++)
			;
		if (j == n) {
			keys[n][0] = b;
			keys[n++][1] = samples[i].pid;
		}
		counts[j]++;
		total++;
	}
	if (!n)
		return 0;
	put_le64(buf, T);
	put_le64(buf + 8, START + k * T);
	put_le64(buf + 16, total);
	put_le64(buf + 32, n + (uint64_t)corrupt);
	put_le32(buf + 40, 12);
	for (uint64_t j = 0; j < n; j++) {
		unsigned char *p = buf + AGG_HDR_SIZE + j * AGG_ROW_SIZE;
		put_le64(p, keys[j][0]);
		put_le64(p + 8, counts[j]);
		put_le32(p + 16, (uint32_t)keys[j][1]);
	}
	return trace_write_chunk(w, CHUNK_AGG, CODEC_ZSTD, buf, AGG_HDR_SIZE + n * AGG_ROW_SIZE,
				 (uint32_t)n);
}

static int make_traces(void)
{
	if (path_s[0])
		return 0;
	make_samples();
	snprintf(path_s, sizeof(path_s), "/tmp/test_agg_s.%d.mtrace", (int)getpid());
	snprintf(path_a, sizeof(path_a), "/tmp/test_agg_a.%d.mtrace", (int)getpid());
	snprintf(path_bad, sizeof(path_bad), "/tmp/test_agg_b.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path_s);
	int bad = !w || write_head(w, 0) || trace_write_samples(w, samples, NS, COLS_REQUIRED) ||
		  write_end(w);
	w = trace_writer_open(path_a);
	bad |= !w || write_head(w, 1);
	for (uint64_t k = 1; !bad && k <= 8; k++)
		bad |= write_agg(w, k, 0);
	bad |= !w || write_end(w);
	w = trace_writer_open(path_bad);
	bad |= !w || write_head(w, 1) || write_agg(w, 1, 1) || write_end(w);
	return bad;
}

static struct memtrace_report *compute(const char *path, uint64_t window, char *err)
{
	struct memtrace_report_config cfg = { .window = window, .interval = T, .top = 10 };

	return make_traces() ? NULL : memtrace_report_compute(path, &cfg, err, 256);
}

TEST(agg_same_series_totals_hot_as_samples)
{
	for (uint64_t w = T; w <= 3 * T; w += 2 * T) {
		char err[256] = "";
		struct memtrace_report *s = compute(path_s, w, err), *a = compute(path_a, w, err);
		CHECK(s && a);
		if (!s || !a) {
			fprintf(stderr, "%s\n", err);
			memtrace_report_free(s);
			memtrace_report_free(a);
			return;
		}
		CHECK_EQ_U64(a->samples, NS);
		CHECK_EQ_U64(a->samples, s->samples);
		CHECK_EQ_U64(a->data.n, s->data.n);
		CHECK_EQ_U64(a->data.n, 8);
		for (size_t i = 0; i < a->data.n && i < s->data.n; i++) {
			CHECK_EQ_U64(a->data.wss[i], s->data.wss[i]);
			CHECK_EQ_U64(a->data.time[i], s->data.time[i]);
		}
		CHECK_EQ_U64(a->data.total, s->data.total);
		CHECK_EQ_U64(a->data.total, 10);	/* 5 buckets of pid 7, 5 of pid 8 */
		CHECK_EQ_U64(a->data.peak, s->data.peak);
		CHECK_EQ_U64(a->nhot_data, s->nhot_data);
		for (size_t i = 0; i < a->nhot_data && i < s->nhot_data; i++) {
			CHECK_EQ_U64(a->hot_data[i].addr, s->hot_data[i].addr);
			CHECK_EQ_U64(a->hot_data[i].count, s->hot_data[i].count);
		}
		memtrace_report_free(s);
		memtrace_report_free(a);
	}
}

TEST(agg_refuses_windows_off_its_grid)
{
	char err[256] = "";
	struct memtrace_report *r = compute(path_a, 150, err);

	CHECK(!r);
	CHECK(strstr(err, "multiples of its interval (100 ns)") != NULL);
	memtrace_report_free(r);
}

TEST(agg_refuses_per_sample_reads)
{
	char err[256] = "";
	size_t n = 0;
	uint64_t t[NS];
	struct memtrace_columns out = { .time = t, .cap = NS };

	CHECK(!make_traces());
	struct memtrace_trace *tr = memtrace_trace_open(path_a, err, sizeof(err));
	CHECK(tr != NULL);
	if (!tr)
		return;
	CHECK(memtrace_trace_read(tr, NULL, &out, &n, err, sizeof(err)) == -1);
	CHECK(strstr(err, "aggregated trace") != NULL);
	struct memtrace_trace_info in;
	CHECK(memtrace_trace_info(tr, &in, err, sizeof(err)) == 0);
	CHECK_EQ_U64(in.samples, NS);	/* the rows' counts */
	memtrace_trace_close(tr);
}

TEST(agg_malformed_chunk_is_an_error)
{
	char err[256] = "";
	struct memtrace_report *r = compute(path_bad, T, err);

	CHECK(!r);
	CHECK(strstr(err, "AGG chunk at offset") != NULL);
	memtrace_report_free(r);
}

int main(void)
{
	int rc = test_main();

	if (path_s[0]) {
		unlink(path_s);
		unlink(path_a);
		unlink(path_bad);
	}
	return rc;
}
