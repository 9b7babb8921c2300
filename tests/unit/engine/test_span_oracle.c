/*
 * test_span_oracle.c - report --by-span, --span and compare --by-span on
 * random traces checked against a naive computation in this file: every
 * sample against every span (quadratic, fine for a few thousand), bucket
 * sets as bitmaps per label and per span.  The traces go through the public
 * writer (SPANS2 chunks) and reader.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/compare.h"
#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "test.h"

#define THREADS 6
#define LABELS 40
#define SPANS 3000
#define SAMPLES 6000
#define BUCKETS 64		/* addresses in 64 buckets of 4 KiB */

struct sp { uint64_t start, end; uint32_t tid; int label; };
struct sm { uint64_t time, addr; uint32_t tid; };

struct side {
	char path[80];
	struct sp sp[SPANS];
	struct sm sm[SAMPLES];
	/* the oracle, per label */
	uint64_t spans[LABELS], time[LABELS], samples[LABELS], buckets[LABELS], max[LABELS];
	double avg[LABELS];
	uint64_t in_spans;
};

static struct side A, B;
static uint64_t rng = 1234567;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void label_text(int k, char *buf, size_t len)
{
	snprintf(buf, len, k % 3 ? "SELECT v FROM t%d WHERE id = $1" : "UPDATE t%d SET v = v + 1", k);
}

/* Spans back to back per thread (some touching: next start = previous end + 1);
 * samples at random times, some exactly on span edges. */
static void generate(struct side *s, int nlabels)
{
	uint64_t at[THREADS] = { 0 };

	for (int i = 0; i < SPANS; i++) {
		uint32_t t = (uint32_t)(rnd() % THREADS);
		uint64_t start = at[t] + 1 + (rnd() % 4 ? rnd() % 300 : 0), len = rnd() % 400;
		s->sp[i] = (struct sp){ start, start + len, 10 + t, (int)(rnd() % (uint64_t)nlabels) };
		at[t] = start + len;
	}
	uint64_t end = 0;
	for (int t = 0; t < THREADS; t++)
		end = at[t] > end ? at[t] : end;
	for (int i = 0; i < SAMPLES; i++) {
		uint32_t t = (uint32_t)(rnd() % THREADS);
		uint64_t time = 1 + rnd() % end;
		if (rnd() % 10 == 0) {	/* on an edge of a span */
			const struct sp *x = &s->sp[rnd() % SPANS];
			time = rnd() % 2 ? x->start : x->end;
			t = x->tid - 10;
		}
		s->sm[i] = (struct sm){ time, 0x40000000 + rnd() % (BUCKETS * 4096), 10 + t };
	}
	/* samples in time order, as a recording writes them */
	for (int i = 1; i < SAMPLES; i++)
		for (int j = i; j > 0 && s->sm[j - 1].time > s->sm[j].time; j--) {
			struct sm x = s->sm[j];
			s->sm[j] = s->sm[j - 1];
			s->sm[j - 1] = x;
		}
}

static int write_side(struct side *s, const char *name)
{
	char err[256], label[64];
	static uint64_t t[SAMPLES], a[SAMPLES];
	static uint32_t pid[SAMPLES], tid[SAMPLES], cpu[SAMPLES];

	snprintf(s->path, sizeof(s->path), "/tmp/test_span_oracle_%s.%d.mtrace", name, (int)getpid());
	struct memtrace_writer *w = memtrace_writer_open(
		s->path, "time_unit=ns\nstart_time=0\nbucket_default=4096\nsample_period=1\n", err,
		sizeof(err));
	if (!w)
		return -1;
	for (int i = 0; i < SAMPLES; i++) {
		t[i] = s->sm[i].time;
		a[i] = s->sm[i].addr;
		pid[i] = 5;
		tid[i] = s->sm[i].tid;
		cpu[i] = 0;
	}
	struct memtrace_columns c = { .time = t, .addr = a, .pid = pid, .tid = tid, .cpu = cpu,
				      .cap = SAMPLES };
	int bad = memtrace_writer_samples(w, &c, SAMPLES, err, sizeof(err));
	for (int i = 0; i < SPANS; i++) {
		label_text(s->sp[i].label, label, sizeof(label));
		bad |= memtrace_writer_span(w, s->sp[i].start, s->sp[i].end, 5, s->sp[i].tid, label, 0,
					    err, sizeof(err));
	}
	bad |= memtrace_writer_close(w, NULL, err, sizeof(err));
	return bad ? -1 : 0;
}

/* The naive answer for the labels containing pattern (NULL: all). */
static void oracle(struct side *s, const char *pattern)
{
	static unsigned char lab_b[LABELS][BUCKETS], span_b[SPANS][BUCKETS];
	char label[64];
	int match[LABELS];

	memset(lab_b, 0, sizeof(lab_b));
	memset(span_b, 0, sizeof(span_b));
	memset(s->spans, 0, sizeof(s->spans));
	memset(s->time, 0, sizeof(s->time));
	memset(s->samples, 0, sizeof(s->samples));
	s->in_spans = 0;
	for (int k = 0; k < LABELS; k++) {
		label_text(k, label, sizeof(label));
		match[k] = !pattern || strstr(label, pattern);
	}
	for (int i = 0; i < SAMPLES; i++)
		for (int j = 0; j < SPANS; j++) {
			const struct sp *x = &s->sp[j];
			if (!match[x->label] || x->tid != s->sm[i].tid || s->sm[i].time < x->start ||
			    s->sm[i].time > x->end)
				continue;
			uint64_t b = (s->sm[i].addr - 0x40000000) / 4096;
			s->samples[x->label]++;
			s->in_spans++;
			lab_b[x->label][b] = span_b[j][b] = 1;
			break;
		}
	for (int k = 0; k < LABELS; k++) {
		s->buckets[k] = s->max[k] = 0;
		s->avg[k] = 0;
		for (int b = 0; b < BUCKETS; b++)
			s->buckets[k] += lab_b[k][b];
	}
	for (int j = 0; j < SPANS; j++) {
		const struct sp *x = &s->sp[j];
		if (!match[x->label])
			continue;
		uint64_t n = 0;
		for (int b = 0; b < BUCKETS; b++)
			n += span_b[j][b];
		s->spans[x->label]++;
		s->time[x->label] += x->end - x->start;
		s->avg[x->label] += (double)n;
		if (n > s->max[x->label])
			s->max[x->label] = n;
	}
	for (int k = 0; k < LABELS; k++)
		if (s->spans[k])
			s->avg[k] /= (double)s->spans[k];
}

static int setup(void)
{
	static int done, rc;

	if (done)
		return rc;
	done = 1;
	generate(&A, LABELS);
	generate(&B, LABELS - 7);	/* B lacks 7 of A's labels */
	rc = write_side(&A, "a") || write_side(&B, "b");
	return rc;
}

static const struct memtrace_span_group *group(const struct memtrace_report *r, const char *l)
{
	for (size_t i = 0; i < r->nspan_groups; i++)
		if (!strcmp(r->span_groups[i].label, l))
			return &r->span_groups[i];
	return NULL;
}

static void check_report(struct side *s, const char *pattern)
{
	char err[512], label[64];
	struct memtrace_report_config cfg = { .flags = MEMTRACE_REPORT_BY_SPAN, .span = pattern };
	struct memtrace_report *r = memtrace_report_compute(s->path, &cfg, err, sizeof(err));

	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	oracle(s, pattern);
	size_t groups = 0;
	uint64_t nspans = 0;
	for (int k = 0; k < LABELS; k++) {
		if (!s->spans[k])
			continue;
		groups++;
		nspans += s->spans[k];
		label_text(k, label, sizeof(label));
		const struct memtrace_span_group *g = group(r, label);
		CHECK(g != NULL);
		if (!g)
			continue;
		CHECK_EQ_U64(g->spans, s->spans[k]);
		CHECK_EQ_U64(g->time, s->time[k]);
		CHECK_EQ_U64(g->samples, s->samples[k]);
		CHECK_EQ_U64(g->buckets, s->buckets[k]);
		CHECK_EQ_U64(g->max_buckets, s->max[k]);
		CHECK(fabs(g->avg_buckets - s->avg[k]) < 1e-9);
	}
	CHECK_EQ_U64(r->nspan_groups, groups);
	CHECK_EQ_U64(r->nspans, nspans);
	CHECK_EQ_U64(r->span_samples, s->in_spans);
	for (size_t i = 1; i < r->nspan_groups; i++)	/* most samples first */
		CHECK(r->span_groups[i - 1].samples >= r->span_groups[i].samples);
	memtrace_report_free(r);
}

TEST(by_span_matches_naive)
{
	CHECK(setup() == 0);
	check_report(&A, NULL);
	check_report(&B, NULL);
}

TEST(span_pattern_matches_naive)
{
	CHECK(setup() == 0);
	check_report(&A, "UPDATE");
	check_report(&A, "t1");		/* t1, t10..t19 */
}

TEST(compare_by_span_matches_naive)
{
	char err[512], label[64];

	CHECK(setup() == 0);
	struct memtrace_compare *c = memtrace_compare_compute(A.path, B.path, NULL, NULL, err,
							      sizeof(err));
	CHECK(c != NULL);
	if (!c)
		return;
	oracle(&A, NULL);
	oracle(&B, NULL);
	size_t rows = 0;
	uint64_t tot[2] = { 0 };
	for (int k = 0; k < LABELS; k++) {
		if (!A.spans[k] && !B.spans[k])
			continue;
		rows++;
		label_text(k, label, sizeof(label));
		const struct memtrace_compare_row *x = NULL;
		for (size_t i = 0; i < c->nspans; i++)
			if (!strcmp(c->spans[i].key, label))
				x = &c->spans[i];
		CHECK(x != NULL);
		if (!x)
			continue;
		struct side *sd[2] = { &A, &B };
		for (int s = 0; s < 2; s++) {
			CHECK_EQ_U64(x->samples[s], sd[s]->samples[k]);
			CHECK_EQ_U64(x->spans[s], sd[s]->spans[k]);
			CHECK_EQ_U64(x->time[s], sd[s]->time[k]);
			CHECK_EQ_U64(x->touched[s], sd[s]->buckets[k] * 4096);
			CHECK_EQ_U64(x->max_touched[s], sd[s]->max[k] * 4096);
			CHECK(fabs(x->avg_touched[s] - sd[s]->avg[k] * 4096) < 1e-6);
			CHECK(fabs(x->volume[s] - (double)sd[s]->samples[k] * 4096) < 1e-6);
			tot[s] += sd[s]->samples[k];
		}
	}
	CHECK_EQ_U64(c->nspans, rows);
	CHECK_EQ_U64(c->spans_total.samples[0], tot[0]);
	CHECK_EQ_U64(c->spans_total.samples[1], tot[1]);
	for (size_t i = 1; i < c->nspans; i++)	/* larger volume first */
		CHECK(fmax(c->spans[i - 1].volume[0], c->spans[i - 1].volume[1]) >=
		      fmax(c->spans[i].volume[0], c->spans[i].volume[1]));
	memtrace_compare_free(c);
}

TEST(cleanup)
{
	unlink(A.path);
	unlink(B.path);
}

int main(void)
{
	return test_main();
}
