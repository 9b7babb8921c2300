/* live_wss.c - the working-set estimate kept while recording: one row per
 * live interval for data and code, written as WINDOWS chunks. */
#include "record/recorder_impl.h"

#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "trace/writer.h"

static void row_push(struct row_buf *b, uint64_t t, const struct wss_row *row)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->t = mt_xrealloc(b->t, b->cap * sizeof(*b->t));
		b->v = mt_xrealloc(b->v, b->cap * sizeof(*b->v));
		b->c = mt_xrealloc(b->c, b->cap * sizeof(*b->c));
	}
	b->t[b->n] = t;
	b->c[b->n] = (struct wss_row_counts){ row->samples, row->f1, row->f2 };
	b->v[b->n++] = row->seen;
}

static void live_row_data(void *ctx, uint64_t k, uint64_t t, const struct wss_row *row)
{
	(void)k;
	row_push(&((struct recorder *)ctx)->rows_data, t, row);
}

static void live_row_code(void *ctx, uint64_t k, uint64_t t, const struct wss_row *row)
{
	(void)k;
	row_push(&((struct recorder *)ctx)->rows_code, t, row);
}

int live_wss_init(struct recorder *r)
{
	char err[256];

	r->live_interval = r->time_is_ns ? LIVE_INTERVAL_NS : LIVE_INTERVAL_INSN;
	/* n, f1, f2 for WINDOWS2 rows: the source's rate bounds the cost */
	struct wss_config cfg = { r->start, r->live_interval, r->live_interval, LIVE_BUCKET_SHIFT, 1 };
	if (wss_init(&r->live_data, &cfg, err, sizeof(err)) ||
	    wss_init(&r->live_code, &cfg, err, sizeof(err))) {
		mt_err("%s", err);
		return -1;
	}
	r->live_data.on_row = live_row_data;
	r->live_data.row_ctx = r;
	r->live_code.on_row = live_row_code;
	r->live_code.row_ctx = r;
	return 0;
}

/*
 * Every LIVE_EXPIRE_EVERY intervals the buckets whose window has closed
 * leave the live state (wss_expire): memory follows the pages of the last
 * 200 ms or so, not every page the recording ever saw (docs/design.md).
 * A sweep reads each live leaf up to its first live entry: cheap.
 */
void live_wss_add(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	wss_add_samples(&r->live_data, s, n, 0);
	wss_add_samples(&r->live_code, s, n, 1);
	if (r->live_data.k - r->live_swept_k >= LIVE_EXPIRE_EVERY) {
		wss_expire(&r->live_data);
		wss_expire(&r->live_code);
		r->live_swept_k = r->live_data.k;
	}
}

/* Rows up to the last written sample; then, at the end, the open interval. */
void live_wss_finish(struct recorder *r)
{
	wss_finish(&r->live_data, r->last_time);
	wss_finish(&r->live_code, r->last_time);
}

int live_wss_write(struct recorder *r, int all)
{
	size_t n = r->rows_data.n < r->rows_code.n ? r->rows_data.n : r->rows_code.n;

	if (r->aggregated)	/* no samples: the AGG chunks are the windows */
		return 0;
	if (!n || (!all && n < WINDOW_ROWS_PER_CHUNK))
		return 0;
	struct bytebuf b = { 0 };
	unsigned char h[WINDOW_HDR_SIZE] = { 0 };
	put_le64(h, r->live_interval);
	put_le64(h + 8, r->live_interval);
	put_le32(h + 16, LIVE_BUCKET_SHIFT);
	bytebuf_put(&b, h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		unsigned char rec[WINDOW2_REC_SIZE];
		const struct wss_row_counts *c = &r->rows_data.c[i];
		put_le64(rec, r->rows_data.t[i]);
		put_le64(rec + 8, r->rows_data.v[i]);
		put_le64(rec + 16, r->rows_code.v[i]);
		put_le64(rec + 24, c->samples);
		put_le64(rec + 32, c->f1);
		put_le64(rec + 40, c->f2);
		bytebuf_put(&b, rec, sizeof(rec));
	}
	int rc = trace_write_chunk(r->w, CHUNK_WINDOWS2, CODEC_ZSTD, b.data, b.len, (uint32_t)n);
	r->live_pages = r->rows_data.v[n - 1];	/* the status line's, once the rows are gone */
	bytebuf_free(&b);
	for (struct row_buf *rb = &r->rows_data; rb; rb = rb == &r->rows_data ? &r->rows_code : NULL) {
		memmove(rb->t, rb->t + n, (rb->n - n) * sizeof(*rb->t));
		memmove(rb->v, rb->v + n, (rb->n - n) * sizeof(*rb->v));
		memmove(rb->c, rb->c + n, (rb->n - n) * sizeof(*rb->c));
		rb->n -= n;
	}
	return rc;
}

uint64_t live_wss_pages(const struct recorder *r)
{
	return r->rows_data.n ? r->rows_data.v[r->rows_data.n - 1] : r->live_pages;
}

void live_wss_free(struct recorder *r)
{
	if (r->begun) {
		wss_free(&r->live_data);
		wss_free(&r->live_code);
	}
	free(r->rows_data.t);
	free(r->rows_data.v);
	free(r->rows_data.c);
	free(r->rows_code.t);
	free(r->rows_code.v);
	free(r->rows_code.c);
}
