/*
 * test_spans_codec.c - SPANS2 chunks (trace/spans_enc.h, trace/spans.h):
 * random spans (many threads, open spans, empty and over-long labels,
 * some overlapping their thread's previous one, dictionary resets) encoded and decoded back equal to the input, the old
 * SPANS records still read, labels interned once, corrupt chunks rejected
 * with one line, the size bound, and the public writer/reader round trip;
 * spans stored in grains (start rounded down, end up: the stored span holds
 * the true one) and hand-built payloads of both kinds (exact nanoseconds,
 * as every trace before the grain; and in grains) decoded as the format
 * says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "trace/format.h"
#include "trace/spans.h"
#include "trace/spans_enc.h"
#include "trace/writer.h"
#include "test.h"

struct ref { uint64_t start, end; uint32_t pid, tid; char *label; int open; };

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *make_label(void)
{
	static const char *const fixed[] = { "", "SELECT 1", "COMMIT", "x" };
	uint64_t k = rnd() % 10;
	char *s;

	if (k < 4)
		return strdup(fixed[k]);
	if (k == 4) {	/* longer than SPAN_LABEL_MAX: stored cut */
		size_t n = SPAN_LABEL_MAX + 1 + rnd() % 100;
		s = malloc(n + 1);
		for (size_t i = 0; i < n; i++)
			s[i] = (char)('a' + rnd() % 26);
		s[n] = 0;
		return s;
	}
	s = malloc(80);
	snprintf(s, 80, "SELECT abalance FROM pgbench_accounts WHERE aid = %u;",
		 (unsigned)(rnd() % 500));
	return s;
}

/* n spans over nthreads threads, per thread non-overlapping in time order. */
static struct ref *make_refs(size_t n, uint32_t nthreads)
{
	struct ref *v = calloc(n, sizeof(*v));
	uint64_t *at = calloc(nthreads, sizeof(*at));

	for (size_t i = 0; i < n; i++) {
		uint32_t t = (uint32_t)(rnd() % nthreads);
		uint64_t start = at[t] + rnd() % 100000, len = rnd() % 50000;
		if (rnd() % 50 == 0)
			len = 0;
		if (rnd() % 20 == 0 && at[t] > 3000)	/* overlaps the thread's previous span */
			start = at[t] - 3000 + rnd() % 2000;
		at[t] = start + len + 1;
		v[i] = (struct ref){ start + (1ull << 40), start + len + (1ull << 40),
				     1000 + t / 4, 50000 + t, make_label(), rnd() % 97 == 0 };
	}
	free(at);
	return v;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static void free_refs(struct ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].label);
	free(v);
}

/* Encodes v in chunks of at most per spans; decodes into s.  0 or -1. */
static int round_trip(struct span_enc *e, const struct ref *v, size_t n, size_t per,
		      struct trace_spans *s, size_t *chunks, uint64_t *bytes)
{
	struct bytebuf b = { 0 };
	char err[256];
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		span_enc_add(e, v[i].start, v[i].end, v[i].pid, v[i].tid, v[i].label,
			     strlen(v[i].label), v[i].open);
		if (e->n < per && i + 1 < n)
			continue;
		uint32_t k = span_enc_payload(e, &b);
		struct trace_chunk c = { .type = CHUNK_SPANS2, .count = k, .offset = 4096,
					 .data = b.data, .len = b.len, .stored = (uint32_t)b.len };
		rc = trace_spans_add(s, &c, err, sizeof(err));
		if (rc)
			fprintf(stderr, "%s\n", err);
		(*chunks)++;
		*bytes += b.len;
	}
	bytebuf_free(&b);
	return rc;
}

/* s (sorted) equals v (sorted here), labels cut to SPAN_LABEL_MAX. */
static void check_equal(struct ref *v, size_t n, struct trace_spans *s)
{
	qsort(v, n, sizeof(*v), cmp_ref);
	trace_spans_sort(s);
	CHECK_EQ_U64(s->n, n);
	for (size_t i = 0; i < n && i < s->n; i++) {
		const struct trace_span *x = &s->v[i];
		size_t len = strlen(v[i].label);
		if (len > SPAN_LABEL_MAX)
			len = SPAN_LABEL_MAX;
		if (x->start != v[i].start || x->end != v[i].end || x->pid != v[i].pid ||
		    x->tid != v[i].tid || x->open != (uint32_t)v[i].open ||
		    s->labels.len[x->label] != len || memcmp(s->labels.v[x->label], v[i].label, len)) {
			TEST_FAIL("span %zu differs (start %llu vs %llu, label %u bytes vs %zu)", i,
				  (unsigned long long)x->start, (unsigned long long)v[i].start,
				  s->labels.len[x->label], len);
			return;
		}
	}
}

TEST(round_trip_random_spans)
{
	size_t n = 150000, chunks = 0;
	uint64_t bytes = 0;
	struct ref *v = make_refs(n, 300);
	struct span_enc e = { 0 };
	struct trace_spans s = { 0 };

	CHECK(round_trip(&e, v, n, SPAN2_MAX_SPANS, &s, &chunks, &bytes) == 0);
	CHECK_EQ_U64(chunks, 3);	/* 65536 + 65536 + the rest */
	check_equal(v, n, &s);
	/* interned: one copy per distinct text (at most 4 fixed + 500 queries + long ones) */
	size_t longs = 0;
	for (size_t i = 0; i < n; i++)
		longs += strlen(v[i].label) > SPAN_LABEL_MAX;
	CHECK(s.labels.n <= 4 + 500 + longs);
	CHECK(s.labels.n >= 4 + 400);
	trace_spans_free(&s);
	span_enc_free(&e);
	free_refs(v, n);
}

TEST(round_trip_small_chunks_and_dictionary_resets)
{
	size_t n = 20000, chunks = 0;
	uint64_t bytes = 0;
	struct ref *v = make_refs(n, 3);
	struct span_enc e = { .dict_max = 50 };
	struct trace_spans s = { 0 };

	CHECK(round_trip(&e, v, n, 37, &s, &chunks, &bytes) == 0);
	CHECK(chunks >= 20000 / 37);
	check_equal(v, n, &s);
	trace_spans_free(&s);
	span_enc_free(&e);
	free_refs(v, n);
}

TEST(one_span_and_empty_label)
{
	struct span_enc e = { 0 };
	struct trace_spans s = { 0 };
	struct bytebuf b = { 0 };
	char err[256];

	span_enc_add(&e, 5, 5, 0, 0, NULL, 0, 1);
	uint32_t k = span_enc_payload(&e, &b);
	CHECK_EQ_U64(k, 1);
	CHECK_EQ_U64(span_enc_payload(&e, &b), 0);	/* nothing pending */
	span_enc_add(&e, 5, 5, 0, 0, NULL, 0, 1);
	k = span_enc_payload(&e, &b);
	struct trace_chunk c = { .type = CHUNK_SPANS2, .count = k, .data = b.data, .len = b.len };
	/* the second chunk alone: its label (index 0) was in the first */
	CHECK(trace_spans_add(&s, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "labels do not follow") != NULL);
	trace_spans_free(&s);
	span_enc_free(&e);
	bytebuf_free(&b);
}

TEST(old_spans_records_interned)
{
	struct bytebuf b = { 0 };
	struct trace_spans s = { 0 };
	char err[256];

	trace_span_rec_put(&b, 100, 200, 7, 8, "SELECT 1", 8, 0);
	trace_span_rec_put(&b, 300, 400, 7, 8, "SELECT 1", 8, 1);
	trace_span_rec_put(&b, 150, 160, 7, 9, "", 0, 0);
	struct trace_chunk c = { .type = CHUNK_SPANS, .count = 3, .data = b.data, .len = b.len };
	CHECK(trace_spans_add(&s, &c, err, sizeof(err)) == 0);
	trace_spans_sort(&s);
	CHECK_EQ_U64(s.n, 3);
	CHECK_EQ_U64(s.labels.n, 2);
	CHECK(s.v[0].label == s.v[1].label);
	CHECK_STR(s.labels.v[s.v[1].label], "SELECT 1");
	CHECK_EQ_U64(s.v[1].open, 1);
	CHECK_STR(s.labels.v[s.v[2].label], "");
	c.count = 4;	/* more records than bytes */
	CHECK(trace_spans_add(&s, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "corrupt SPANS chunk") && !strchr(err, '\n'));
	CHECK_EQ_U64(s.n, 3);
	trace_spans_free(&s);
	bytebuf_free(&b);
}

/* A valid 2-chunk encoding; the second chunk's payload in *b2. */
static void two_chunks(struct bytebuf *b1, struct bytebuf *b2, uint32_t *k1, uint32_t *k2)
{
	struct span_enc e = { 0 };

	for (int i = 0; i < 40; i++)
		span_enc_add(&e, 1000 + 10 * i, 1005 + 10 * i, 3, 3 + i % 3, i % 2 ? "a" : "bb", i % 2 ? 1 : 2, i == 39);
	*k1 = span_enc_payload(&e, b1);
	for (int i = 0; i < 40; i++)
		span_enc_add(&e, 2000 + 10 * i, 2005 + 10 * i, 3, 3 + i % 3, i % 3 ? "a" : "ccc", i % 3 ? 1 : 3, 0);
	*k2 = span_enc_payload(&e, b2);
	span_enc_free(&e);
}

static int decode2(const struct bytebuf *b1, uint32_t k1, const unsigned char *p2, size_t len2,
		   uint32_t k2, char *err, size_t errlen)
{
	struct trace_spans s = { 0 };
	struct trace_chunk c1 = { .type = CHUNK_SPANS2, .count = k1, .data = b1->data, .len = b1->len };
	struct trace_chunk c2 = { .type = CHUNK_SPANS2, .count = k2, .offset = 777, .data = p2,
				  .len = len2 };
	int rc = trace_spans_add(&s, &c1, err, errlen);
	if (!rc)
		rc = trace_spans_add(&s, &c2, err, errlen);
	trace_spans_free(&s);
	return rc;
}

TEST(corrupt_spans2_rejected_with_one_line)
{
	struct bytebuf b1 = { 0 }, b2 = { 0 };
	uint32_t k1, k2;
	char err[256];

	two_chunks(&b1, &b2, &k1, &k2);
	CHECK(decode2(&b1, k1, b2.data, b2.len, k2, err, sizeof(err)) == 0);
	unsigned char *p = malloc(b2.len);
	/* cut short at every length */
	for (size_t n = 0; n < b2.len; n++) {
		memcpy(p, b2.data, n);
		err[0] = 0;
		if (decode2(&b1, k1, p, n, k2, err, sizeof(err)) != -1 ||
		    !strstr(err, "corrupt SPANS2 chunk at offset 777: ") || strchr(err, '\n')) {
			TEST_FAIL("cut at %zu: \"%s\"", n, err);
			break;
		}
	}
	/* wrong count, unknown flag, a label index past the dictionary */
	CHECK(decode2(&b1, k1, b2.data, b2.len, k2 + 1, err, sizeof(err)) == -1);
	CHECK(decode2(&b1, k1, b2.data, b2.len, SPAN2_MAX_SPANS + 1, err, sizeof(err)) == -1);
	memcpy(p, b2.data, b2.len);
	p[0] |= 2;
	CHECK(decode2(&b1, k1, p, b2.len, k2, err, sizeof(err)) == -1);
	CHECK(strstr(err, "unknown flags") != NULL);
	memcpy(p, b2.data, b2.len);
	p[b2.len - 5 - 40] = 0xff;	/* the label column's last plane byte: index 255 */
	CHECK(decode2(&b1, k1, p, b2.len, k2, err, sizeof(err)) == -1);
	/* any single byte changed: decoded or rejected, never read out of bounds (ASan) */
	for (size_t i = 0; i < b2.len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(p, b2.data, b2.len);
			p[i] ^= (unsigned char)(1u << bit);
			err[0] = 0;
			if (decode2(&b1, k1, p, b2.len, k2, err, sizeof(err)) && strchr(err, '\n'))
				TEST_FAIL("flip %zu.%d: two lines", i, bit);
		}
	free(p);
	bytebuf_free(&b1);
	bytebuf_free(&b2);
}

TEST(span_count_bounded_by_file_bytes)
{
	struct trace_spans s = { 0 };
	char err[256];
	unsigned char none[SPAN2_HDR_SIZE] = { 0 };
	struct trace_chunk c = { .type = CHUNK_SPANS2, .count = 1000, .offset = 9, .data = none,
				 .len = sizeof(none), .stored = 20 };

	s.n = TRACE_SPANS_FREE;	/* as if that many were read: only the bound is checked */
	CHECK(trace_spans_add(&s, &c, err, sizeof(err)) == -1);
	CHECK(strstr(err, "more than a trace may hold") && !strchr(err, '\n'));
	s.n = 0;
	trace_spans_free(&s);
}

TEST(writer_api_round_trip)
{
	char path[64], err[256];
	size_t n = 70000;
	struct ref *v = make_refs(n, 8);

	snprintf(path, sizeof(path), "/tmp/test_spans_codec.%d.mtrace", (int)getpid());
	struct memtrace_writer *w = memtrace_writer_open(path, "time_unit=ns\nstart_time=0\n",
							 err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		return;
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad |= memtrace_writer_span(w, v[i].start, v[i].end, v[i].pid, v[i].tid, v[i].label,
					    v[i].open, err, sizeof(err));
	bad |= memtrace_writer_close(w, "end_time=1\n", err, sizeof(err));
	CHECK(!bad);
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t != NULL);
	const struct memtrace_span *sp;
	long got = t ? memtrace_trace_spans(t, &sp, err, sizeof(err)) : -1;
	CHECK_EQ_U64(got, n);
	qsort(v, n, sizeof(*v), cmp_ref);
	for (size_t i = 0; got == (long)n && i < n; i++) {
		char cut[SPAN_LABEL_MAX + 1];
		snprintf(cut, sizeof(cut), "%s", v[i].label);
		if (sp[i].start != v[i].start || sp[i].end != v[i].end || sp[i].tid != v[i].tid ||
		    sp[i].pid != v[i].pid || sp[i].open != v[i].open || strcmp(sp[i].label, cut)) {
			TEST_FAIL("span %zu differs", i);
			break;
		}
	}
	if (t)
		memtrace_trace_close(t);
	unlink(path);
	free_refs(v, n);
}

/* (pid, tid, start, end, open, label): a full order, ties and all. */
static int cmp_full(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = cmp_ref(a, b);

	if (c)
		return c;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->open != y->open)
		return x->open < y->open ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* v with times in grains of g as the format says, computed here: start
 * down to a multiple of g, end up to one; labels cut to SPAN_LABEL_MAX. */
static struct ref *rounded(const struct ref *v, size_t n, uint64_t g)
{
	struct ref *r = calloc(n, sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		r[i] = v[i];
		r[i].start = v[i].start - v[i].start % g;
		r[i].end = v[i].end % g ? v[i].end + (g - v[i].end % g) : v[i].end;
		r[i].label = strndup(v[i].label, SPAN_LABEL_MAX);
	}
	qsort(r, n, sizeof(*r), cmp_full);
	return r;
}

TEST(grain_stores_spans_that_contain_the_true_ones)
{
	size_t n = 30000, chunks = 0;
	uint64_t bytes = 0, bytes_ns = 0;
	struct ref *v = make_refs(n, 40);
	struct ref *want = rounded(v, n, 64);
	struct span_enc e = { .grain_log = 6 }, e_ns = { 0 };
	struct trace_spans s = { 0 }, s_ns = { 0 };

	CHECK(round_trip(&e, v, n, 5000, &s, &chunks, &bytes) == 0);
	CHECK_EQ_U64(s.n, n);
	struct ref *got = calloc(n, sizeof(*got));
	for (size_t i = 0; i < n && i < s.n; i++)
		got[i] = (struct ref){ s.v[i].start, s.v[i].end, s.v[i].pid, s.v[i].tid,
				       strndup(s.labels.v[s.v[i].label], s.labels.len[s.v[i].label]),
				       (int)s.v[i].open };
	qsort(got, n, sizeof(*got), cmp_full);
	for (size_t i = 0; i < n; i++)
		if (cmp_full(&got[i], &want[i])) {
			TEST_FAIL("span %zu: [%llu, %llu] where [%llu, %llu] was wanted", i,
				  (unsigned long long)got[i].start, (unsigned long long)got[i].end,
				  (unsigned long long)want[i].start, (unsigned long long)want[i].end);
			break;
		}
	/* the same spans in exact nanoseconds take more bytes */
	CHECK(round_trip(&e_ns, v, n, 5000, &s_ns, &chunks, &bytes_ns) == 0);
	check_equal(v, n, &s_ns);
	CHECK(bytes < bytes_ns);
	trace_spans_free(&s);
	trace_spans_free(&s_ns);
	span_enc_free(&e);
	span_enc_free(&e_ns);
	free_refs(got, n);
	free_refs(want, n);
	free_refs(v, n);
}

/* A one-thread payload as docs/trace-format.md lays it out: label "q",
 * pid 7, tid 9, two spans; every column one byte wide. */
static size_t hand_payload(unsigned char *p, uint32_t flags, uint64_t t0, const uint8_t gap[2],
			   const uint8_t len[2])
{
	size_t k = 0;

	put_le32(p, flags);
	put_le32(p + 4, 0);	/* base */
	put_le32(p + 8, 1);	/* nlabels */
	put_le32(p + 12, 1);	/* nthreads */
	put_le64(p + 16, t0);
	k = 24;
	p[k++] = 1, p[k++] = 1;			/* label lengths: w 1, [1] */
	p[k++] = 'q';
	p[k++] = 1, p[k++] = 7;			/* pids */
	p[k++] = 1, p[k++] = 9;			/* tids */
	p[k++] = 1, p[k++] = 2;			/* spans per run */
	p[k++] = 1, p[k++] = gap[0], p[k++] = gap[1];
	p[k++] = 1, p[k++] = len[0], p[k++] = len[1];
	p[k++] = 0;				/* label indices: all 0 */
	put_le32(p + k, 0);			/* nopen */
	k += 4;
	p[k++] = 0;				/* open positions: none */
	return k;
}

static int decode_one(const unsigned char *p, size_t len, struct trace_spans *s, char *err)
{
	struct trace_chunk c = { .type = CHUNK_SPANS2, .count = 2, .offset = 55, .data = p,
				 .len = len };
	return trace_spans_add(s, &c, err, 256);
}

TEST(hand_built_payloads_exact_and_in_grains)
{
	unsigned char p[64];
	char err[256];
	struct trace_spans s = { 0 };

	/* flags 0 (every trace before the grain): nanoseconds.  Spans
	 * [t0, t0 + 13], then 5 ns after its end (zigzag 10), 17 long. */
	size_t k = hand_payload(p, 0, 1000003, (const uint8_t[]){ 0, 10 }, (const uint8_t[]){ 13, 17 });
	CHECK(decode_one(p, k, &s, err) == 0);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		CHECK_EQ_U64(s.v[0].start, 1000003);
		CHECK_EQ_U64(s.v[0].end, 1000016);
		CHECK_EQ_U64(s.v[1].start, 1000021);
		CHECK_EQ_U64(s.v[1].end, 1000038);
		CHECK_EQ_U64(s.v[1].pid, 7);
		CHECK_EQ_U64(s.v[1].tid, 9);
		CHECK_STR(s.labels.v[s.v[1].label], "q");
	}
	trace_spans_free(&s);
	/* grain 2^6: the same columns count 64 ns units; the second span
	 * overlaps the first by one grain (zigzag 1: -1) */
	k = hand_payload(p, 6u << 8, 64000, (const uint8_t[]){ 0, 1 }, (const uint8_t[]){ 3, 2 });
	CHECK(decode_one(p, k, &s, err) == 0);
	CHECK_EQ_U64(s.n, 2);
	if (s.n == 2) {
		CHECK_EQ_U64(s.v[0].start, 64000);
		CHECK_EQ_U64(s.v[0].end, 64000 + 3 * 64);
		CHECK_EQ_U64(s.v[1].start, 64000 + 2 * 64);
		CHECK_EQ_U64(s.v[1].end, 64000 + 4 * 64);
	}
	trace_spans_free(&s);
	/* t0 off the grain; a grain of 2^32; times past 2^64 in grains */
	k = hand_payload(p, 6u << 8, 64001, (const uint8_t[]){ 0, 1 }, (const uint8_t[]){ 3, 2 });
	CHECK(decode_one(p, k, &s, err) == -1);
	CHECK(strstr(err, "corrupt SPANS2 chunk at offset 55: t0 is not a multiple of the time grain"));
	trace_spans_free(&s);
	k = hand_payload(p, 32u << 8, 0, (const uint8_t[]){ 0, 1 }, (const uint8_t[]){ 3, 2 });
	CHECK(decode_one(p, k, &s, err) == -1);
	CHECK(strstr(err, "grain past 2^31") != NULL);
	trace_spans_free(&s);
	k = hand_payload(p, 31u << 8, (UINT64_MAX >> 31) << 31, (const uint8_t[]){ 0, 0 },
			 (const uint8_t[]){ 1, 0 });
	CHECK(decode_one(p, k, &s, err) == -1);
	CHECK(strstr(err, "past 2^64") != NULL);
	trace_spans_free(&s);
}

TEST(writer_api_span_grain)
{
	char path[64], err[256];
	size_t n = 5000;
	struct ref *v = make_refs(n, 4);
	struct ref *want = rounded(v, n, 128);

	snprintf(path, sizeof(path), "/tmp/test_spans_grain.%d.mtrace", (int)getpid());
	CHECK(memtrace_writer_open(path, "time_unit=ns\nstart_time=0\nspan_grain=48\n", err,
				   sizeof(err)) == NULL);
	CHECK(strstr(err, "span_grain=48: not a power of two") && !strchr(err, '\n'));
	CHECK(memtrace_writer_open(path, "time_unit=ns\nstart_time=0\nspan_grain=4294967296\n",
				   err, sizeof(err)) == NULL);
	struct memtrace_writer *w = memtrace_writer_open(path, "time_unit=ns\nstart_time=0\n"
							 "span_grain=128\n", err, sizeof(err));
	CHECK(w != NULL);
	if (!w)
		return;
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad |= memtrace_writer_span(w, v[i].start, v[i].end, v[i].pid, v[i].tid, v[i].label,
					    v[i].open, err, sizeof(err));
	bad |= memtrace_writer_close(w, "end_time=1\n", err, sizeof(err));
	CHECK(!bad);
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	const struct memtrace_span *sp;
	long got = t ? memtrace_trace_spans(t, &sp, err, sizeof(err)) : -1;
	CHECK_EQ_U64(got, n);
	struct ref *g = calloc(n, sizeof(*g));
	for (long i = 0; i < got && i < (long)n; i++)
		g[i] = (struct ref){ sp[i].start, sp[i].end, sp[i].pid, sp[i].tid,
				     (char *)sp[i].label, sp[i].open };
	qsort(g, n, sizeof(*g), cmp_full);
	for (size_t i = 0; got == (long)n && i < n; i++)
		if (cmp_full(&g[i], &want[i])) {
			TEST_FAIL("span %zu differs", i);
			break;
		}
	free(g);
	if (t)
		memtrace_trace_close(t);
	unlink(path);
	free_refs(want, n);
	free_refs(v, n);
}

TEST(long_distinct_labels_fill_a_chunk_early)
{
	struct span_enc e = { 0 };
	struct bytebuf b = { 0 };
	struct trace_spans s = { 0 };
	char *label = malloc(4001), err[256];
	size_t n = 0;

	memset(label, 'q', 4000);
	label[4000] = 0;
	while (!span_enc_full(&e) && n < 2 * SPAN2_MAX_SPANS) {
		snprintf(label, 12, "%011zu", n);	/* distinct texts of 4000 bytes */
		label[11] = 'q';
		span_enc_add(&e, n * 10, n * 10 + 5, 1, 1, label, 4000, 0);
		n++;
	}
	/* full by its new label text (32 MiB), long before 65536 spans */
	CHECK_EQ_U64(n, (SPAN_ENC_NEW_BYTES + 3999) / 4000);
	uint32_t k = span_enc_payload(&e, &b);
	CHECK_EQ_U64(k, n);
	CHECK(b.len < CHUNK_MAX_LEN);
	CHECK(!span_enc_full(&e));
	struct trace_chunk c = { .type = CHUNK_SPANS2, .count = k, .data = b.data, .len = b.len };
	CHECK(trace_spans_add(&s, &c, err, sizeof(err)) == 0);
	CHECK_EQ_U64(s.labels.n, n);
	trace_spans_free(&s);
	span_enc_free(&e);
	bytebuf_free(&b);
	free(label);
}

int main(void)
{
	return test_main();
}
