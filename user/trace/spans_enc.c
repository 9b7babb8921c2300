/* spans_enc.c - CHUNK_SPANS2 payloads (spans_enc.h, docs/trace-format.md). */
#include "trace/spans_enc.h"

#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "util/util.h"

void span_enc_add(struct span_enc *e, uint64_t start, uint64_t end, uint32_t pid, uint32_t tid,
		  const char *label, size_t len, int open)
{
	uint64_t g = (uint64_t)1 << e->grain_log;

	if (len > SPAN_LABEL_MAX)
		len = SPAN_LABEL_MAX;
	if (end < start)
		end = start;
	start &= ~(g - 1);	/* the stored span contains the true one */
	end = end > UINT64_MAX - (g - 1) ? UINT64_MAX & ~(g - 1) : (end + g - 1) & ~(g - 1);
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->v = mt_xrealloc(e->v, e->cap * sizeof(*e->v));
	}
	e->v[e->n++] = (struct trace_span){
		.start = start, .end = end, .pid = pid, .tid = tid,
		.label = str_intern_add(&e->dict, label ? label : "", label ? len : 0),
		.open = !!open };
}

/* A column of n values: its width w (bytes of the largest), then w planes
 * of n bytes, the lowest first. */
static void put_column(struct bytebuf *b, const uint64_t *x, size_t n)
{
	uint64_t all = 0;
	unsigned w = 0;

	for (size_t i = 0; i < n; i++)
		all |= x[i];
	while (w < 8 && all >> (8 * w))
		w++;
	unsigned char wb = (unsigned char)w;
	bytebuf_put(b, &wb, 1);
	bytebuf_reserve(b, (size_t)w * n);
	for (unsigned k = 0; k < w; k++)
		for (size_t i = 0; i < n; i++)
			b->data[b->len++] = (unsigned char)(x[i] >> (8 * k));
}

struct key { uint32_t pid, tid; uint64_t start; uint32_t i; };

static int by_thread_start(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

uint32_t span_enc_payload(struct span_enc *e, struct bytebuf *b)
{
	size_t n = e->n < SPAN2_MAX_SPANS ? e->n : SPAN2_MAX_SPANS;
	uint32_t nlab = e->dict.n - e->written;

	b->len = 0;
	if (!n)
		return 0;
	struct key *ks = mt_xmalloc(n * sizeof(*ks));
	uint32_t *o = mt_xmalloc(n * sizeof(*o));
	uint64_t *col = mt_xmalloc((n > nlab ? n : nlab) * sizeof(*col));
	uint64_t t0 = UINT64_MAX;
	size_t runs = 0, nopen = 0;

	for (size_t i = 0; i < n; i++) {
		const struct trace_span *s = &e->v[i];
		ks[i] = (struct key){ s->pid, s->tid, s->start, (uint32_t)i };
		if (s->start < t0)
			t0 = s->start;
	}
	qsort(ks, n, sizeof(*ks), by_thread_start);
	for (size_t i = 0; i < n; i++)
		o[i] = ks[i].i;
	free(ks);
	for (size_t i = 0; i < n; i++) {
		const struct trace_span *s = &e->v[o[i]], *p = i ? &e->v[o[i - 1]] : NULL;
		runs += !p || p->pid != s->pid || p->tid != s->tid;
		nopen += s->open;
	}

	unsigned char h[SPAN2_HDR_SIZE];
	put_le32(h, (e->reset ? SPAN2_RESET : 0) | e->grain_log << SPAN2_GRAIN_SHIFT);
	put_le32(h + 4, e->written);
	put_le32(h + 8, nlab);
	put_le32(h + 12, (uint32_t)runs);
	put_le64(h + 16, t0);
	bytebuf_put(b, h, sizeof(h));
	/* the labels first seen since the last chunk: lengths, then texts */
	for (uint32_t k = 0; k < nlab; k++)
		col[k] = e->dict.len[e->written + k];
	put_column(b, col, nlab);
	for (uint32_t k = 0; k < nlab; k++)
		bytebuf_put(b, e->dict.v[e->written + k], e->dict.len[e->written + k]);
	/* thread runs: pid, tid, spans */
	size_t r = 0;
	for (int pass = 0; pass < 3; pass++) {
		r = 0;
		for (size_t i = 0; i < n; i++) {
			const struct trace_span *s = &e->v[o[i]], *p = i ? &e->v[o[i - 1]] : NULL;
			if (!p || p->pid != s->pid || p->tid != s->tid)
				col[r++] = pass == 0 ? s->pid : pass == 1 ? s->tid : 0;
			if (pass == 2)
				col[r - 1]++;
		}
		put_column(b, col, runs);
	}
	/* per span: the gap after the thread's previous span (start - its end,
	 * zigzag: negative if they overlap; a thread's first: start - t0), the
	 * length, the label; times in grains (all are multiples of one) */
	for (size_t i = 0; i < n; i++) {
		const struct trace_span *s = &e->v[o[i]], *p = i ? &e->v[o[i - 1]] : NULL;
		if (p && p->pid == s->pid && p->tid == s->tid) {
			uint64_t d = s->start - p->end;	/* two's complement */
			int neg = (int)(d >> 63);
			uint64_t mag = (neg ? -d : d) >> e->grain_log;
			col[i] = neg ? 2 * mag - 1 : 2 * mag;
		} else {
			col[i] = (s->start - t0) >> e->grain_log;
		}
	}
	put_column(b, col, n);
	for (size_t i = 0; i < n; i++)
		col[i] = (e->v[o[i]].end - e->v[o[i]].start) >> e->grain_log;
	put_column(b, col, n);
	for (size_t i = 0; i < n; i++)
		col[i] = e->v[o[i]].label;
	put_column(b, col, n);
	/* open spans: their positions in this order, delta-coded */
	unsigned char c4[4];
	put_le32(c4, (uint32_t)nopen);
	bytebuf_put(b, c4, 4);
	size_t k = 0, last = 0;
	for (size_t i = 0; i < n; i++)
		if (e->v[o[i]].open) {
			col[k++] = i - last;
			last = i;
		}
	put_column(b, col, nopen);

	free(o);
	free(col);
	e->written = e->dict.n;
	e->written_bytes = e->dict.bytes;
	e->reset = 0;
	memmove(e->v, e->v + n, (e->n - n) * sizeof(*e->v));
	e->n -= n;
	uint32_t max = e->dict_max ? e->dict_max : SPAN_ENC_DICT_LABELS;
	if (!e->n && (e->dict.n >= max || e->dict.bytes >= SPAN_ENC_DICT_BYTES)) {
		str_intern_free(&e->dict);
		e->written = 0;
		e->written_bytes = 0;
		e->reset = 1;
	}
	return (uint32_t)n;
}

void span_enc_free(struct span_enc *e)
{
	str_intern_free(&e->dict);
	free(e->v);
	memset(e, 0, sizeof(*e));
}
