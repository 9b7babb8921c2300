/* spans.c - decode SPANS and SPANS2 chunks (spans.h, docs/trace-format.md). */
#include "trace/spans.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/span_sort.h"
#include "util/util.h"

static void reserve(struct trace_spans *s, size_t extra)
{
	if (s->n + extra <= s->cap)
		return;
	size_t cap = s->cap ? s->cap : 1024;
	while (cap < s->n + extra)
		cap *= 2;
	s->v = mt_xrealloc(s->v, cap * sizeof(*s->v));
	s->cap = cap;
}

/* What the file holds allows count more spans (spans.h). */
static int check_bound(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen)
{
	uint64_t allowed;

	s->stored += CHUNK_HDR_SIZE + (c->stored ? c->stored : c->len);
	allowed = TRACE_SPANS_FREE + TRACE_SPANS_PER_BYTE * s->stored;
	if (allowed > TRACE_SPANS_MAX)
		allowed = TRACE_SPANS_MAX;
	if (s->n + c->count <= allowed)
		return 0;
	snprintf(err, errlen, "span chunk at offset %" PRIu64 ": %" PRIu64 " spans in %" PRIu64
		 " bytes of span chunks, more than a trace may hold (%u, then %u per byte, at most "
		 "%u: docs/trace-format.md, Limits)", c->offset, (uint64_t)s->n + c->count,
		 s->stored, TRACE_SPANS_FREE, TRACE_SPANS_PER_BYTE, TRACE_SPANS_MAX);
	return -1;
}

static int add_v1(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen)
{
	const unsigned char *p = c->data, *end = c->data + c->len;
	size_t n0 = s->n;

	if (c->count > c->len / SPAN_REC_HDR)
		goto bad;
	reserve(s, c->count);
	for (uint32_t i = 0; i < c->count; i++) {
		if ((size_t)(end - p) < SPAN_REC_HDR)
			goto bad;
		uint32_t word = get_le32(p + 24), len = word & ~SPAN_OPEN;
		if (len > SPAN_LABEL_MAX || (size_t)(end - p) - SPAN_REC_HDR < len)
			goto bad;
		struct trace_span *x = &s->v[s->n++];
		*x = (struct trace_span){
			.start = get_le64(p), .end = get_le64(p + 8), .pid = get_le32(p + 16),
			.tid = get_le32(p + 20), .open = !!(word & SPAN_OPEN),
			.label = str_intern_add(&s->labels, (const char *)p + SPAN_REC_HDR, len) };
		if (x->end < x->start)
			goto bad;
		p += SPAN_REC_HDR + len;
	}
	if (p == end)
		return 0;
bad:
	snprintf(err, errlen, "corrupt SPANS chunk at offset %" PRIu64 ": %u records in %zu bytes",
		 c->offset, c->count, c->len);
	s->n = n0;
	return -1;
}

/* SPANS2 columns (spans_enc.c): width, then that many byte planes. */
struct col { const unsigned char *p; unsigned w; size_t n; };

struct cursor { const unsigned char *p, *end; };

static int take_col(struct cursor *u, size_t n, struct col *c)
{
	if (u->p == u->end || *u->p > 8)
		return -1;
	c->w = *u->p++;
	c->n = n;
	if ((size_t)(u->end - u->p) / (c->w ? c->w : 1) < (c->w ? n : 0))
		return -1;
	c->p = u->p;
	u->p += (size_t)c->w * n;
	return 0;
}

static uint64_t col_get(const struct col *c, size_t i)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < c->w; k++)
		v |= (uint64_t)c->p[k * c->n + i] << (8 * k);
	return v;
}

static const char *add_v2_body(struct trace_spans *s, const struct trace_chunk *c)
{
	struct cursor u = { c->data, c->data + c->len };
	uint32_t n = c->count;

	if (n > SPAN2_MAX_SPANS)
		return "more spans than a chunk may hold";
	if (c->len < SPAN2_HDR_SIZE)
		return "shorter than its header";
	uint32_t flags = get_le32(u.p), base = get_le32(u.p + 4), nlab = get_le32(u.p + 8);
	uint32_t runs = get_le32(u.p + 12);
	uint64_t t0 = get_le64(u.p + 16);
	u.p += SPAN2_HDR_SIZE;
	if (flags & ~(SPAN2_RESET | SPAN2_GRAIN_MASK))
		return "unknown flags";
	unsigned g = (flags & SPAN2_GRAIN_MASK) >> SPAN2_GRAIN_SHIFT;	/* 0: exact times */
	if (g > SPAN2_GRAIN_LOG_MAX)
		return "a time grain past 2^31";
	uint64_t lim = UINT64_MAX >> g;	/* times in grains */
	if (t0 & (((uint64_t)1 << g) - 1))
		return "t0 is not a multiple of the time grain";
	if (flags & SPAN2_RESET)
		s->nfmap = 0;
	if (base != s->nfmap)
		return "its labels do not follow the previous span chunk's (one is missing or out "
		       "of order)";
	if (nlab > n || runs > n || (n && !runs))
		return "more labels or threads than spans";

	struct col len, pid, tid, cnt, start, dur, lab, open;
	if (take_col(&u, nlab, &len))
		return "label lengths cut short";
	if (s->nfmap + nlab > s->capfmap) {
		s->capfmap = 2 * (s->nfmap + nlab) + 64;
		s->fmap = mt_xrealloc(s->fmap, s->capfmap * sizeof(*s->fmap));
	}
	for (uint32_t k = 0; k < nlab; k++) {
		uint64_t l = col_get(&len, k);
		if (l > SPAN_LABEL_MAX || l > (size_t)(u.end - u.p))
			return "a label is too long or cut short";
		s->fmap[s->nfmap++] = str_intern_add(&s->labels, (const char *)u.p, l);
		u.p += l;
	}
	if (take_col(&u, runs, &pid) || take_col(&u, runs, &tid) || take_col(&u, runs, &cnt) ||
	    take_col(&u, n, &start) || take_col(&u, n, &dur) || take_col(&u, n, &lab))
		return "a column is cut short";
	if (pid.w > 4 || tid.w > 4 || cnt.w > 4 || lab.w > 4)
		return "a pid, tid, count or label index wider than 32 bits";
	if ((size_t)(u.end - u.p) < 4)
		return "the open spans are cut short";
	uint32_t nopen = get_le32(u.p);
	u.p += 4;
	if (nopen > n || take_col(&u, nopen, &open))
		return "the open spans are cut short";
	if (u.p != u.end)
		return "bytes after the last column";

	reserve(s, n);
	size_t i = 0, n0 = s->n;
	for (uint32_t r = 0; r < runs; r++) {
		uint64_t k = col_get(&cnt, r), at = t0 >> g;	/* at: the previous span's end */
		if (!k || k > n - i)
			return "thread runs do not add up to the span count";
		for (int first = 1; k; k--, i++, first = 0) {
			uint64_t d = col_get(&start, i), len_ = col_get(&dur, i), st;
			uint64_t l = col_get(&lab, i);
			if (first) {
				if (d > lim - at)
					return "a time past 2^64";
				st = at + d;
			} else {	/* zigzag */
				uint64_t mag = (d >> 1) + (d & 1);
				if (d & 1 ? mag > at : mag > lim - at)
					return "a time out of range";
				st = d & 1 ? at - mag : at + mag;
			}
			if (len_ > lim - st)
				return "a time past 2^64";
			if (l >= s->nfmap)
				return "a label index past the dictionary";
			at = st + len_;
			s->v[s->n++] = (struct trace_span){
				.start = st << g, .end = at << g, .pid = (uint32_t)col_get(&pid, r),
				.tid = (uint32_t)col_get(&tid, r), .label = s->fmap[l] };
		}
	}
	if (i != n)
		return "thread runs do not add up to the span count";
	for (uint64_t k = 0, at = 0; k < nopen; k++) {
		uint64_t d = col_get(&open, k);
		if ((k && !d) || d >= n - at)
			return "an open span's position is out of order or past the end";
		at += d;
		s->v[n0 + at].open = 1;
	}
	return NULL;
}

static int add_v2(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen)
{
	size_t n0 = s->n;
	const char *why = add_v2_body(s, c);

	if (!why)
		return 0;
	s->n = n0;
	snprintf(err, errlen, "corrupt SPANS2 chunk at offset %" PRIu64 ": %s", c->offset, why);
	return -1;
}

int trace_spans_add(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen)
{
	if (check_bound(s, c, err, errlen))
		return -1;
	return c->type == CHUNK_SPANS2 ? add_v2(s, c, err, errlen) : add_v1(s, c, err, errlen);
}

static uint64_t key_start(const void *p) { return ((const struct trace_span *)p)->start; }
static uint64_t key_tid(const void *p) { return ((const struct trace_span *)p)->tid; }
static uint64_t key_pid(const void *p) { return ((const struct trace_span *)p)->pid; }

void trace_spans_sort(struct trace_spans *s)
{
	radix_sort(s->v, s->n, sizeof(*s->v), (const key_fn[]){ key_start, key_tid, key_pid }, 3);
}

void trace_spans_free(struct trace_spans *s)
{
	str_intern_free(&s->labels);
	free(s->v);
	free(s->fmap);
	memset(s, 0, sizeof(*s));
}
