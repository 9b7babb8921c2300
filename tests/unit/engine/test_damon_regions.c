/* test_damon_regions.c - region-level WSS, heatmap and hot regions of
 * include/memtrace/damon.h, and REGIONS rows through the trace writer and
 * reader, with exact expected values. */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "memtrace/damon.h"
#include "test.h"

#define K 1024ull
/* two aggregations of pid 7 (times 100, 200) and one region of pid 9 */
static const struct memtrace_damon_region rows[] = {
	{ .time = 100, .start = 0x10000, .end = 0x14000, .pid = 7, .nr_accesses = 5, .age = 1 },
	{ .time = 100, .start = 0x14000, .end = 0x20000, .pid = 7, .nr_accesses = 0, .age = 3 },
	{ .time = 100, .start = 0x20000, .end = 0x21000, .pid = 7, .nr_accesses = 1, .age = 0 },
	{ .time = 100, .start = 0x90000, .end = 0x92000, .pid = 9, .nr_accesses = 20, .age = 9 },
	{ .time = 200, .start = 0x10000, .end = 0x18000, .pid = 7, .nr_accesses = 4, .age = 0 },
	{ .time = 200, .start = 0x18000, .end = 0x20000, .pid = 7, .nr_accesses = 4, .age = 2 },
	{ .time = 200, .start = 0x20000, .end = 0x21000, .pid = 7, .nr_accesses = 0, .age = 1 },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

TEST(damon_wss_per_aggregation)
{
	struct memtrace_damon_wss_point p[4];

	/* pid 7 and 9 interleave only at time 100: 100 (pid 7 rows + pid 9) is
	 * one aggregation, 200 the second */
	CHECK_EQ_U64(memtrace_damon_wss(rows, NROWS, 0, 1, NULL, 0), 2);
	CHECK_EQ_U64(memtrace_damon_wss(rows, NROWS, 0, 1, p, 4), 2);
	CHECK_EQ_U64(p[0].time, 100);
	CHECK_EQ_U64(p[0].wss_bytes, 16 * K + 4 * K + 8 * K);
	CHECK_EQ_U64(p[0].monitored_bytes, 68 * K + 8 * K);
	CHECK_EQ_U64(p[0].regions, 4);
	CHECK_EQ_U64(p[0].accessed_regions, 3);
	CHECK_EQ_U64(p[1].time, 200);
	CHECK_EQ_U64(p[1].wss_bytes, 64 * K);
	CHECK_EQ_U64(p[1].monitored_bytes, 68 * K);
	CHECK_EQ_U64(p[1].accessed_regions, 2);
	/* one pid; a frequency threshold */
	CHECK_EQ_U64(memtrace_damon_wss(rows, NROWS, 7, 5, p, 4), 2);
	CHECK_EQ_U64(p[0].wss_bytes, 16 * K);
	CHECK_EQ_U64(p[1].wss_bytes, 0);
	CHECK_EQ_U64(memtrace_damon_wss(rows, NROWS, 9, 0, p, 4), 1);
	CHECK_EQ_U64(p[0].wss_bytes, 8 * K);
	CHECK_EQ_U64(memtrace_damon_wss(rows, 0, 0, 1, p, 4), 0);
	/* max smaller than the count: the count, out filled up to max */
	p[1].time = 0;
	CHECK_EQ_U64(memtrace_damon_wss(rows, NROWS, 0, 1, p, 1), 2);
	CHECK_EQ_U64(p[1].time, 0);
}

TEST(damon_heatmap_cells)
{
	double h[2 * 4];

	/* pid 7, times [100, 300) in 2 bins, addresses [0x10000, 0x20000) in 4
	 * bins of 16 KiB */
	CHECK(!memtrace_damon_heatmap(rows, NROWS, 7, 100, 300, 2, 0x10000, 0x20000, 4, h));
	/* time 100: bin 0 = region 5 whole; bins 1..3 = region 0 */
	CHECK(h[0] == 5.0);
	CHECK(h[1] == 0.0 && h[2] == 0.0 && h[3] == 0.0);
	/* time 200: 4 everywhere */
	for (int j = 0; j < 4; j++)
		CHECK(h[4 + j] == 4.0);
	/* one bin over 0x10000..0x18000 at time 100: 16 KiB at 5, 16 KiB at 0 */
	CHECK(!memtrace_damon_heatmap(rows, NROWS, 7, 100, 200, 1, 0x10000, 0x18000, 1, h));
	CHECK(h[0] == 2.5);
	/* nothing covers 0x30000..0x40000: NaN */
	CHECK(!memtrace_damon_heatmap(rows, NROWS, 0, 100, 300, 1, 0x30000, 0x40000, 1, h));
	CHECK(isnan(h[0]));
	CHECK(memtrace_damon_heatmap(rows, NROWS, 0, 100, 100, 1, 0, 1, 1, h) == -1);
	CHECK(memtrace_damon_heatmap(rows, NROWS, 0, 100, 200, 0, 0, 1, 1, h) == -1);
}

TEST(damon_hot_regions_order)
{
	struct memtrace_damon_region v[8];

	/* last aggregation (200), pid 7: two at 4 (age 2 first), then 0 */
	CHECK_EQ_U64(memtrace_damon_hot(rows, NROWS, 7, UINT64_MAX, v, 8), 3);
	CHECK_EQ_U64(v[0].start, 0x18000);
	CHECK_EQ_U64(v[1].start, 0x10000);
	CHECK_EQ_U64(v[2].start, 0x20000);
	/* at or before 150, every pid: aggregation 100 */
	CHECK_EQ_U64(memtrace_damon_hot(rows, NROWS, 0, 150, v, 2), 2);
	CHECK_EQ_U64(v[0].pid, 9);
	CHECK_EQ_U64(v[1].start, 0x10000);
	CHECK_EQ_U64(memtrace_damon_hot(rows, NROWS, 0, 50, v, 2), 0);
}

TEST(damon_regions_round_trip)
{
	char err[256], path[] = "/tmp/mt-damon-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	struct memtrace_writer *w = memtrace_writer_open(path, "format=memtrace-1\ntime_unit=ns\n"
		"start_time=50\ntarget_pid=7\nsample_class=damon-regions\n", err, sizeof(err));
	CHECK(w);
	if (!w)
		return;
	CHECK(!memtrace_writer_damon_regions(w, rows, 4, err, sizeof(err)));
	CHECK(!memtrace_writer_damon_regions(w, rows + 4, NROWS - 4, err, sizeof(err)));
	CHECK(!memtrace_writer_close(w, "end_time=300\n", err, sizeof(err)));
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t);
	if (t) {
		const struct memtrace_damon_region *got;
		CHECK_EQ_U64(memtrace_trace_damon_regions(t, &got, err, sizeof(err)), NROWS);
		for (size_t i = 0; i < NROWS; i++)	/* field by field: the struct has padding */
			CHECK(got[i].time == rows[i].time && got[i].start == rows[i].start &&
			      got[i].end == rows[i].end && got[i].pid == rows[i].pid &&
			      got[i].nr_accesses == rows[i].nr_accesses && got[i].age == rows[i].age);
		CHECK_STR(memtrace_trace_words(t)->wss, "region-level WSS");
		memtrace_trace_close(t);
	}
	unlink(path);
}

int main(void)
{
	return test_main();
}
