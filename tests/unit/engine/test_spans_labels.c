/*
 * test_spans_labels.c - --labels and --mark data on a synthetic trace with
 * exact expected values: the labels parser (forms and one-line errors with
 * line numbers), labels naming hot buckets, regions and the layout,
 * --span filtering, --by-span groups and the span mask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/resolve.h"
#include "memtrace/trace.h"
#include "resolve/labels.h"
#include "test.h"

static const char maps[] =
	"10000000-10010000 rw-s 00000000 00:05 1234 /dev/zero (deleted)\n"
	"20000000-20004000 rw-p 00000000 00:00 0 [heap]\n";
static const char labels[] =
	"# PostgreSQL-like shared memory\n"
	"/dev/zero (deleted)+0x4000 0x8000 Buffer Blocks\n"
	"\n"
	"0x20001000 4096 hash table\n";

struct smp { uint64_t time, addr; uint32_t tid; };
/* spans: tid 7 [100,200] SELECT 1, [300,400] SELECT 2, [500,600] SELECT 1;
 * tid 8 [150,250] SELECT 2 */
static const struct smp smps[] = {
	{ 110, 0x10004000, 7 }, { 120, 0x10005000, 7 }, { 130, 0x10004008, 7 },
	{ 160, 0x10004000, 8 }, { 210, 0x20001000, 7 }, { 260, 0x20000000, 8 },
	{ 310, 0x20001010, 7 }, { 510, 0x10006000, 7 }, { 520, 0x10000000, 7 },
};
#define N (sizeof(smps) / sizeof(smps[0]))

static char path[64];

static const char *make_trace(void)
{
	char err[256];
	uint64_t t[N], a[N];
	uint32_t pid[N], tid[N], cpu[N];

	if (path[0])
		return path;
	snprintf(path, sizeof(path), "/tmp/test_spans.%d.mtrace", (int)getpid());
	struct memtrace_writer *w = memtrace_writer_open(
		path, "time_unit=ns\nstart_time=0\ntarget_pid=7\nbucket_default=4096\n", err,
		sizeof(err));
	if (!w)
		return NULL;
	for (size_t i = 0; i < N; i++) {
		t[i] = smps[i].time;
		a[i] = smps[i].addr;
		pid[i] = 7;
		tid[i] = smps[i].tid;
		cpu[i] = 0;
	}
	struct memtrace_columns c = { .time = t, .addr = a, .pid = pid, .tid = tid, .cpu = cpu,
				      .cap = N };
	int bad = memtrace_writer_maps(w, 0, 7, maps, strlen(maps), err, sizeof(err));
	bad |= memtrace_writer_labels(w, labels, strlen(labels), err, sizeof(err));
	bad |= memtrace_writer_samples(w, &c, N, err, sizeof(err));
	bad |= memtrace_writer_span(w, 100, 200, 7, 7, "SELECT 1", 0, err, sizeof(err));
	bad |= memtrace_writer_span(w, 150, 250, 7, 8, "SELECT 2", 0, err, sizeof(err));
	bad |= memtrace_writer_span(w, 300, 400, 7, 7, "SELECT 2", 0, err, sizeof(err));
	bad |= memtrace_writer_span(w, 500, 600, 7, 7, "SELECT 1", 1, err, sizeof(err));
	bad |= memtrace_writer_close(w, "end_time=600\n", err, sizeof(err));
	return bad ? NULL : path;
}

TEST(parse_forms)
{
	struct mt_labels l = { 0 };
	char err[256] = "";
	const char *text = "0x1000 16 a b c\n"
			   "libstdc++.so.6+0x100 0x20 x\r\n"
			   "  /dev/zero (deleted)+4096 8192 Buffer Blocks  \n"
			   "# comment\n"
			   "[heap]+0 1 h";
	CHECK(mt_labels_parse(&l, text, strlen(text), "t", err, sizeof(err)) == 0);
	CHECK_EQ_U64(l.n, 4);
	if (l.n != 4)
		return;
	CHECK(l.v[0].mapping == NULL);
	CHECK_EQ_U64(l.v[0].start, 0x1000);
	CHECK_EQ_U64(l.v[0].size, 16);
	CHECK_STR(l.v[0].name, "a b c");
	CHECK_STR(l.v[1].mapping, "libstdc++.so.6");
	CHECK_EQ_U64(l.v[1].start, 0x100);
	CHECK_EQ_U64(l.v[1].size, 0x20);
	CHECK_STR(l.v[1].name, "x");
	CHECK_STR(l.v[2].mapping, "/dev/zero (deleted)");
	CHECK_EQ_U64(l.v[2].start, 4096);
	CHECK_EQ_U64(l.v[2].size, 8192);
	CHECK_STR(l.v[2].name, "Buffer Blocks");
	CHECK_STR(l.v[3].mapping, "[heap]");
	CHECK_STR(l.v[3].name, "h");
	CHECK_EQ_U64(l.len, strlen(text) + 1);	/* a final newline added */
	mt_labels_free(&l);
}

TEST(parse_errors)
{
	static const struct { const char *text, *err; } cases[] = {
		{ "0x1000\n", "f:1: no size" },
		{ "\n# c\nfoo 12 x\n", "f:3: expected START SIZE NAME or MAPPING+OFFSET SIZE NAME" },
		{ "0x10 0 x", "f:1: size is 0" },
		{ "0x10 zz x", "f:1: size is not a number (decimal or 0x hex)" },
		{ "0x10 16", "f:1: no name" },
		{ "0x10 16 ok\n0xffffffffffffffff 2 x", "f:2: START + SIZE is past the end of the "
							"address space" },
		{ "[heap]+0x10 0 x", "f:1: size is 0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mt_labels l = { 0 };
		char err[256] = "";
		CHECK(mt_labels_parse(&l, cases[i].text, strlen(cases[i].text), "f", err,
				      sizeof(err)) == -1);
		CHECK_STR(err, cases[i].err);
		CHECK_EQ_U64(l.n, 0);
		mt_labels_free(&l);
	}
}

TEST(labels_name_layout_and_hot)
{
	char err[256] = "", buf[128];
	CHECK(make_trace() != NULL);
	struct memtrace_resolver *r = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	const struct memtrace_range *v;
	long n = memtrace_resolver_layout(r, 0, &v);
	static const struct { uint64_t start, end; const char *name; } want[] = {
		{ 0x10000000, 0x10004000, "zero" }, { 0x10004000, 0x1000c000, "Buffer Blocks" },
		{ 0x1000c000, 0x10010000, "zero" }, { 0x20000000, 0x20001000, "[heap]" },
		{ 0x20001000, 0x20002000, "hash table" }, { 0x20002000, 0x20004000, "[heap]" },
	};
	CHECK_EQ_U64(n, 6);
	for (long i = 0; i < n && i < 6; i++) {
		CHECK_EQ_U64(v[i].start, want[i].start);
		CHECK_EQ_U64(v[i].end, want[i].end);
		CHECK_STR(v[i].name, want[i].name);
	}
	memtrace_describe(r, 0, UINT64_MAX, 0x10005010, buf, sizeof(buf));
	CHECK_STR(buf, "Buffer Blocks+0x1010");
	memtrace_describe(r, 0, UINT64_MAX, 0x1000c000, buf, sizeof(buf));
	CHECK_STR(buf, "zero+0xc000");
	memtrace_resolver_close(r);

	struct memtrace_report_config cfg = { .window = 100, .flags = MEMTRACE_REPORT_REGIONS };
	struct memtrace_report *rep = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(rep != NULL);
	if (!rep) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(rep->nhot_data >= 2);
	if (rep->nhot_data >= 2) {
		CHECK_EQ_U64(rep->hot_data[0].count, 3);
		CHECK_STR(rep->hot_data[0].where, "Buffer Blocks+0x0");
		CHECK_EQ_U64(rep->hot_data[1].count, 2);
		CHECK_STR(rep->hot_data[1].where, "hash table+0x0");
	}
	CHECK(rep->nregions >= 4);
	if (rep->nregions >= 4) {
		CHECK_STR(rep->regions[0].name, "Buffer Blocks");
		CHECK_EQ_U64(rep->regions[0].samples, 5);
		CHECK_EQ_U64(rep->regions[0].buckets, 3);
		CHECK_STR(rep->regions[1].name, "hash table");
		CHECK_EQ_U64(rep->regions[1].samples, 2);
	}
	memtrace_report_free(rep);
}

TEST(offline_labels_win)
{
	char err[256] = "", lp[64];
	CHECK(make_trace() != NULL);
	snprintf(lp, sizeof(lp), "/tmp/test_spans_labels.%d.txt", (int)getpid());
	FILE *f = fopen(lp, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("zero+0x4000 4096 first page\n", f);
	fclose(f);
	struct memtrace_report_config cfg = { .window = 100, .labels = lp };
	struct memtrace_report *rep = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(rep != NULL && rep->nhot_data >= 1);
	if (rep && rep->nhot_data >= 1)
		CHECK_STR(rep->hot_data[0].where, "first page+0x0");
	memtrace_report_free(rep);
	f = fopen(lp, "w");
	fputs("zero+0x4000 4096 first page\nbad line\n", f);
	fclose(f);
	CHECK(memtrace_report_compute(path, &cfg, err, sizeof(err)) == NULL);
	char want[128];
	snprintf(want, sizeof(want), "%s:2: expected START SIZE NAME or MAPPING+OFFSET SIZE NAME",
		 lp);
	CHECK_STR(err, want);
	unlink(lp);
}

TEST(by_span_groups)
{
	char err[256] = "";
	CHECK(make_trace() != NULL);
	struct memtrace_report_config cfg = { .window = 100, .flags = MEMTRACE_REPORT_BY_SPAN };
	struct memtrace_report *rep = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(rep != NULL);
	if (!rep)
		return;
	CHECK_EQ_U64(rep->samples, 9);
	CHECK_EQ_U64(rep->nspans, 4);
	CHECK_EQ_U64(rep->span_samples, 7);
	CHECK_EQ_U64(rep->nspan_groups, 2);
	if (rep->nspan_groups == 2) {
		const struct memtrace_span_group *a = &rep->span_groups[0], *b = &rep->span_groups[1];
		CHECK_STR(a->label, "SELECT 1");
		CHECK_EQ_U64(a->spans, 2);
		CHECK_EQ_U64(a->time, 200);
		CHECK_EQ_U64(a->samples, 5);
		CHECK_EQ_U64(a->buckets, 4);
		CHECK(a->avg_buckets == 2.0);
		CHECK_EQ_U64(a->max_buckets, 2);
		CHECK_STR(b->label, "SELECT 2");
		CHECK_EQ_U64(b->spans, 2);
		CHECK_EQ_U64(b->samples, 2);
		CHECK_EQ_U64(b->buckets, 2);
		CHECK(b->avg_buckets == 1.0);
		CHECK_EQ_U64(b->max_buckets, 1);
	}
	memtrace_report_free(rep);
}

TEST(span_filter)
{
	char err[256] = "";
	CHECK(make_trace() != NULL);
	struct memtrace_report_config cfg = { .window = 100, .span = "SELECT 2" };
	struct memtrace_report *rep = memtrace_report_compute(path, &cfg, err, sizeof(err));
	CHECK(rep != NULL);
	if (!rep)
		return;
	CHECK_EQ_U64(rep->samples, 2);
	CHECK_EQ_U64(rep->nspans, 2);
	CHECK_EQ_U64(rep->data.total, 2);
	memtrace_report_free(rep);
	cfg.span = "UPDATE";
	CHECK(memtrace_report_compute(path, &cfg, err, sizeof(err)) == NULL);
	CHECK_STR(err, "--span UPDATE: no span's label contains it (4 spans in the trace)");
}

TEST(spans_and_mask)
{
	char err[256] = "";
	CHECK(make_trace() != NULL);
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t != NULL);
	if (!t)
		return;
	const struct memtrace_span *v;
	long n = memtrace_trace_spans(t, &v, err, sizeof(err));
	CHECK_EQ_U64(n, 4);
	if (n == 4) {	/* sorted by pid, tid, start */
		CHECK(v[0].tid == 7 && v[0].start == 100 && v[0].end == 200 && !v[0].open);
		CHECK_STR(v[0].label, "SELECT 1");
		CHECK(v[2].tid == 7 && v[2].start == 500 && v[2].open == 1);
		CHECK(v[3].tid == 8 && v[3].start == 150);
	}
	uint64_t time[N];
	uint32_t tid[N];
	uint8_t keep[N];
	for (size_t i = 0; i < N; i++) {
		time[i] = smps[i].time;
		tid[i] = smps[i].tid;
	}
	CHECK_EQ_U64(memtrace_trace_span_mask(t, "SELECT 1", N, time, tid, keep, err,
					      sizeof(err)), 5);
	static const uint8_t want[N] = { 1, 1, 1, 0, 0, 0, 0, 1, 1 };
	CHECK(memcmp(keep, want, N) == 0);
	CHECK_EQ_U64(memtrace_trace_span_mask(t, NULL, N, time, tid, keep, err, sizeof(err)), 7);
	memtrace_trace_close(t);
}

int main(void)
{
	int rc = test_main();
	if (path[0] && !getenv("KEEP"))
		unlink(path);
	return rc;
}
