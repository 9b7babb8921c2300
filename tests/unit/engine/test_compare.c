/*
 * test_compare.c - memtrace_compare_compute on two synthetic traces with
 * exact expected rows: regions matched by label although B's heap lies
 * elsewhere, span labels matched by text (one only in A, one only in B),
 * changes in percent, totals, --span on both sides, B's sample period,
 * the WSS series of one span label, and the errors that name the trace.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memtrace/compare.h"
#include "memtrace/trace.h"
#include "test.h"

struct smp { uint64_t time, addr; uint32_t tid; };
struct spn { uint64_t start, end; uint32_t tid; const char *label; };

/* A: q1 touches two shared pages, q2 one heap page, one heap sample outside */
static const char maps_a[] =
	"10000000-10010000 rw-s 00000000 00:05 1234 /dev/zero (deleted)\n"
	"20000000-20004000 rw-p 00000000 00:00 0 [heap]\n";
static const struct smp smp_a[] = {
	{ 110, 0x10004000, 7 }, { 120, 0x10005000, 7 }, { 250, 0x20000000, 7 },
	{ 310, 0x20001000, 7 },
};
static const struct spn spn_a[] = { { 100, 200, 7, "q1" }, { 300, 400, 7, "q2" } };
/* B: the heap elsewhere; q1 twice (4 pages, then 1 of them), q3 new */
static const char maps_b[] =
	"10000000-10010000 rw-s 00000000 00:05 1234 /dev/zero (deleted)\n"
	"30000000-30004000 rw-p 00000000 00:00 0 [heap]\n";
static const struct smp smp_b[] = {
	{ 110, 0x10004000, 9 }, { 120, 0x10005000, 9 }, { 130, 0x10006000, 9 },
	{ 140, 0x10007000, 9 }, { 310, 0x10004000, 9 }, { 510, 0x30002000, 9 },
};
static const struct spn spn_b[] = {
	{ 100, 200, 9, "q1" }, { 300, 400, 9, "q1" }, { 500, 600, 9, "q3" },
};

static char path_a[64], path_b[64], path_b2[64];

static int write_trace(const char *path, const char *period, uint32_t pid, const char *maps,
		       const struct smp *s, size_t n, const struct spn *sp, size_t nsp)
{
	char err[256], hdr[256];
	uint64_t t[16], a[16];
	uint32_t p[16], tid[16], cpu[16];

	snprintf(hdr, sizeof(hdr), "time_unit=ns\nstart_time=0\ntarget_pid=%u\nbucket_default=4096\n"
		 "sample_period=%s\n", pid, period);
	struct memtrace_writer *w = memtrace_writer_open(path, hdr, err, sizeof(err));
	if (!w)
		return -1;
	for (size_t i = 0; i < n; i++) {
		t[i] = s[i].time;
		a[i] = s[i].addr;
		p[i] = pid;
		tid[i] = s[i].tid;
		cpu[i] = 0;
	}
	struct memtrace_columns c = { .time = t, .addr = a, .pid = p, .tid = tid, .cpu = cpu,
				      .cap = n };
	int bad = memtrace_writer_maps(w, 0, pid, maps, strlen(maps), err, sizeof(err));
	bad |= memtrace_writer_samples(w, &c, n, err, sizeof(err));
	for (size_t i = 0; i < nsp; i++)
		bad |= memtrace_writer_span(w, sp[i].start, sp[i].end, pid, sp[i].tid, sp[i].label, 0,
					    err, sizeof(err));
	bad |= memtrace_writer_close(w, "end_time=700\n", err, sizeof(err));
	return bad ? -1 : 0;
}

static int make_traces(void)
{
	if (path_a[0])
		return 0;
	snprintf(path_a, sizeof(path_a), "/tmp/test_compare_a.%d.mtrace", (int)getpid());
	snprintf(path_b, sizeof(path_b), "/tmp/test_compare_b.%d.mtrace", (int)getpid());
	snprintf(path_b2, sizeof(path_b2), "/tmp/test_compare_b2.%d.mtrace", (int)getpid());
	return write_trace(path_a, "1", 7, maps_a, smp_a, 4, spn_a, 2) ||
	       write_trace(path_b, "1", 9, maps_b, smp_b, 6, spn_b, 3) ||
	       write_trace(path_b2, "2", 9, maps_b, smp_b, 6, spn_b, 3);
}

static const struct memtrace_compare_row *row(const struct memtrace_compare_row *v, size_t n,
					      const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return &v[i];
	return NULL;
}

#define CHECK_NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) < 1e-9)

TEST(regions_by_label)
{
	char err[512];

	CHECK(make_traces() == 0);
	struct memtrace_compare *c = memtrace_compare_compute(path_a, path_b, NULL, NULL, err,
							      sizeof(err));
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_EQ_U64(c->bucket, 4096);
	CHECK_NEAR(c->scale, 1.0);
	CHECK_EQ_U64(c->nregions, 3);	/* zero, [heap], unmapped */
	CHECK_STR(c->regions[0].key, "zero rw-s");
	CHECK_STR(c->regions[1].key, "[heap] rw-p");
	const struct memtrace_compare_row *z = &c->regions[0], *h = &c->regions[1];
	CHECK_EQ_U64(z->samples[0], 2);
	CHECK_EQ_U64(z->samples[1], 5);
	CHECK_NEAR(z->volume[0], 8192);
	CHECK_NEAR(z->volume[1], 20480);
	CHECK_NEAR(z->volume_change, 150.0);
	CHECK_EQ_U64(z->touched[0], 8192);
	CHECK_EQ_U64(z->touched[1], 16384);
	CHECK_NEAR(z->touched_change, 100.0);
	CHECK_NEAR(h->volume[0], 8192);
	CHECK_NEAR(h->volume[1], 4096);
	CHECK_NEAR(h->volume_change, -50.0);
	CHECK_NEAR(h->touched_change, -50.0);
	CHECK_STR(c->regions_total.key, "total");
	CHECK_EQ_U64(c->regions_total.samples[0], 4);
	CHECK_EQ_U64(c->regions_total.samples[1], 6);
	CHECK_NEAR(c->regions_total.volume_change, 50.0);
	memtrace_compare_free(c);
}

TEST(span_labels)
{
	char err[512];

	CHECK(make_traces() == 0);
	struct memtrace_compare *c = memtrace_compare_compute(path_a, path_b, NULL, NULL, err,
							      sizeof(err));
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_EQ_U64(c->nspans, 3);
	/* largest volume first; q2 (only A) and q3 (only B) tie: A's first */
	CHECK_STR(c->spans[0].key, "q1");
	CHECK_STR(c->spans[1].key, "q2");
	CHECK_STR(c->spans[2].key, "q3");
	const struct memtrace_compare_row *q1 = row(c->spans, c->nspans, "q1");
	CHECK_EQ_U64(q1->spans[0], 1);
	CHECK_EQ_U64(q1->spans[1], 2);
	CHECK_EQ_U64(q1->time[1], 200);
	CHECK_EQ_U64(q1->samples[1], 5);
	CHECK_EQ_U64(q1->touched[0], 8192);
	CHECK_EQ_U64(q1->touched[1], 16384);
	CHECK_NEAR(q1->touched_change, 100.0);
	CHECK_NEAR(q1->avg_touched[0], 8192);
	CHECK_NEAR(q1->avg_touched[1], 10240);	/* (4 + 1) / 2 buckets */
	CHECK_NEAR(q1->avg_touched_change, 25.0);
	CHECK_EQ_U64(q1->max_touched[1], 16384);
	const struct memtrace_compare_row *q2 = row(c->spans, c->nspans, "q2");
	CHECK_NEAR(q2->touched_change, -100.0);
	CHECK_EQ_U64(q2->spans[1], 0);
	const struct memtrace_compare_row *q3 = row(c->spans, c->nspans, "q3");
	CHECK(isnan(q3->touched_change) && isnan(q3->volume_change));
	CHECK_EQ_U64(q3->touched[1], 4096);
	const struct memtrace_compare_row *t = &c->spans_total;
	CHECK_EQ_U64(t->spans[0], 2);
	CHECK_EQ_U64(t->spans[1], 3);
	CHECK_NEAR(t->avg_touched[0], 6144);	/* (2 + 1) / 2 buckets */
	CHECK_NEAR(t->avg_touched[1], 8192);	/* (4 + 1 + 1) / 3 */
	CHECK_EQ_U64(t->touched[1], 20480);
	memtrace_compare_free(c);
}

TEST(span_filter_both_sides)
{
	char err[512];
	struct memtrace_report_config cfg = { .span = "q1" };

	CHECK(make_traces() == 0);
	struct memtrace_compare *c = memtrace_compare_compute(path_a, path_b, &cfg, NULL, err,
							      sizeof(err));
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_EQ_U64(c->a->samples, 2);
	CHECK_EQ_U64(c->b->samples, 5);
	CHECK_EQ_U64(c->nspans, 1);
	CHECK_STR(c->spans[0].key, "q1");
	const struct memtrace_compare_row *h = row(c->regions, c->nregions, "[heap] rw-p");
	CHECK(h && h->samples[0] == 0 && h->samples[1] == 0);
	CHECK_NEAR(c->regions[0].volume_change, 150.0);
	memtrace_compare_free(c);
	/* a label only one side has: the error names that trace */
	cfg.span = "q2";
	c = memtrace_compare_compute(path_a, path_b, &cfg, NULL, err, sizeof(err));
	CHECK(c == NULL);
	CHECK(strncmp(err, path_b, strlen(path_b)) == 0 && strstr(err, "--span q2: no span's label"));
}

TEST(sample_period_scale)
{
	char err[512];

	CHECK(make_traces() == 0);
	struct memtrace_compare *c = memtrace_compare_compute(path_a, path_b2, NULL, NULL, err,
							      sizeof(err));
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_NEAR(c->scale, 2.0);
	CHECK_NEAR(c->regions[0].volume[1], 40960);
	CHECK_EQ_U64(c->regions[0].touched[1], 16384);	/* touched is not scaled */
	CHECK_NEAR(row(c->spans, c->nspans, "q1")->volume[1], 40960);
	memtrace_compare_free(c);
}

/* report --span --series: the WSS series of one span label's samples */
TEST(span_wss_series)
{
	char err[512];
	struct memtrace_report_config cfg = { .window = 100, .interval = 100, .span = "q1" };

	CHECK(make_traces() == 0);
	struct memtrace_report *r = memtrace_report_compute(path_b, &cfg, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	/* B's q1: pages 4, 5, 6, 7 in (100, 200], page 4 again in (300, 400] */
	/* sparse series: the empty intervals (100] and (300] are not rows */
	CHECK_EQ_U64(r->data.n, 2);
	if (r->data.n == 2) {
		CHECK_EQ_U64(r->data.time[0], 200);
		CHECK_EQ_U64(r->data.wss[0], 4);
		CHECK_EQ_U64(r->data.time[1], 400);
		CHECK_EQ_U64(r->data.wss[1], 1);
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < r->data.n; i++)
		sum += r->data.wss[i];
	CHECK_EQ_U64(sum, 5);
	CHECK_EQ_U64(r->data.total, 4);
	memtrace_report_free(r);
}

/*
 * Traces of at least 1 MiB each get B's report on a thread of its own
 * (COMPARE_THREAD_MIN_BYTES; smaller ones one after the other, half the
 * peak memory): the same numbers as each report computed alone.
 */
static int by_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The distinct 4 KiB pages of n addresses, counted here (sorted): the truth */
static uint64_t distinct_pages(const uint64_t *a, size_t n)
{
	uint64_t *p = malloc(n * sizeof(*p)), k = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < n; i++)
		p[i] = a[i] >> 12;
	qsort(p, n, sizeof(*p), by_u64);
	for (size_t i = 0; i < n; i++)
		k += !i || p[i] != p[i - 1];
	free(p);
	return k;
}

/* pages: the distinct pages written, counted by distinct_pages */
static int write_random(const char *path, uint32_t pid, uint64_t seed, size_t n, uint64_t *pages)
{
	char err[256], hdr[256];
	uint64_t *t = malloc(n * 8), *a = malloc(n * 8);
	uint32_t *p = malloc(n * 4), *cpu = calloc(n, 4);
	uint64_t x = seed;

	snprintf(hdr, sizeof(hdr), "time_unit=ns\nstart_time=0\ntarget_pid=%u\nbucket_default=4096\n"
		 "sample_period=1\n", pid);
	struct memtrace_writer *w = memtrace_writer_open(path, hdr, err, sizeof(err));
	int bad = !w || !t || !a || !p || !cpu;
	for (size_t i = 0; !bad && i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift: pages at random */
		t[i] = 1000 * i + (x & 511);
		a[i] = 0x20000000 + ((x >> 9) & ((1u << 30) - 1));
		p[i] = pid;
	}
	struct memtrace_columns c = { .time = t, .addr = a, .pid = p, .tid = p, .cpu = cpu, .cap = n };
	if (!bad) {
		bad |= memtrace_writer_maps(w, 0, pid, maps_a, strlen(maps_a), err, sizeof(err));
		bad |= memtrace_writer_samples(w, &c, n, err, sizeof(err));
		bad |= memtrace_writer_close(w, "end_time=400000000\n", err, sizeof(err));
	}
	*pages = bad ? 0 : distinct_pages(a, n);
	free(t), free(a), free(p), free(cpu);
	return bad ? -1 : 0;
}

TEST(large_traces_b_on_a_thread)
{
	char err[512], la[64], lb[64];
	struct stat st;

	snprintf(la, sizeof(la), "/tmp/test_compare_la.%d.mtrace", (int)getpid());
	snprintf(lb, sizeof(lb), "/tmp/test_compare_lb.%d.mtrace", (int)getpid());
	uint64_t pa = 0, pb = 0;

	CHECK(write_random(la, 7, 88172645463325252ull, 300000, &pa) == 0);
	CHECK(write_random(lb, 9, 2463534242ull, 250000, &pb) == 0);
	CHECK(!stat(la, &st) && st.st_size >= (1 << 20));	/* large enough for the thread */
	CHECK(!stat(lb, &st) && st.st_size >= (1 << 20));
	struct memtrace_report_config cfg = { .top = 1 };
	struct memtrace_compare *c = memtrace_compare_compute(la, lb, &cfg, NULL, err, sizeof(err));
	struct memtrace_report *ra = memtrace_report_compute(la, &cfg, err, sizeof(err));
	struct memtrace_report *rb = memtrace_report_compute(lb, &cfg, err, sizeof(err));
	CHECK(c && ra && rb);
	if (c && ra && rb) {
		CHECK_EQ_U64(c->a->samples, 300000);
		CHECK_EQ_U64(c->b->samples, 250000);
		CHECK_EQ_U64(c->a->data.total, ra->data.total);
		CHECK_EQ_U64(c->b->data.total, rb->data.total);
		CHECK_EQ_U64(c->regions_total.touched[0], ra->data.total * 4096);
		CHECK_EQ_U64(c->regions_total.touched[1], rb->data.total * 4096);
		CHECK_EQ_U64(c->a->data.total, pa);	/* against the pages counted here */
		CHECK_EQ_U64(c->b->data.total, pb);
		CHECK(pa > 100000);			/* pages at random: most distinct */
	}
	memtrace_compare_free(c);
	memtrace_report_free(ra);
	memtrace_report_free(rb);
	if (!getenv("KEEP")) {
		unlink(la);
		unlink(lb);
	}
}

TEST(missing_trace)
{
	char err[512];

	CHECK(memtrace_compare_compute("/nonexistent/a.mtrace", "/nonexistent/b.mtrace", NULL, NULL,
				       err, sizeof(err)) == NULL);
	CHECK(strncmp(err, "/nonexistent/a.mtrace: ", 23) == 0);
}

int main(void)
{
	int rc = test_main();
	if (path_a[0] && !getenv("KEEP")) {
		unlink(path_a);
		unlink(path_b);
		unlink(path_b2);
	}
	return rc;
}
