/* trace_write.c - the writing half of the public trace API
 * (memtrace_writer_* of include/memtrace/trace.h) over trace/writer.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/trace.h"
#include "resolve/labels.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/spans_enc.h"
#include "trace/writer.h"
#include "trace/allocs.h"
#include "memtrace/sites.h"
#include "util/util.h"

struct memtrace_writer {
	struct trace_writer *w;
	struct bytebuf threads;		/* THREADS records not yet written */
	uint32_t nthreads;
	struct memtrace_sample *buf;	/* CHUNK_MAX_SAMPLES */
	struct span_enc spans;		/* spans not yet written: a SPANS2 chunk when full */
};

static uint32_t count_lines(const char *s, size_t len)
{
	uint32_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

static int has_key(const char *meta, const char *key)
{
	char buf[2];

	return mt_kv_str(meta, key, buf, sizeof(buf)) != NULL;
}

/* "key=value\n" text as a chunk (a missing final newline is added). */
static int write_kv(struct memtrace_writer *mw, unsigned type, const char *text, char *err,
		    size_t errlen)
{
	size_t len = strlen(text);
	struct bytebuf b = { 0 };

	bytebuf_put(&b, text, len);
	if (len && text[len - 1] != '\n')
		bytebuf_put(&b, "\n", 1);
	int rc = trace_write_chunk(mw->w, type, CODEC_STORED, b.data ? b.data : (void *)"",
				   b.len, count_lines((const char *)b.data, b.len));
	bytebuf_free(&b);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

static int flush_threads(struct memtrace_writer *mw, char *err, size_t errlen)
{
	if (!mw->nthreads)
		return 0;
	int rc = trace_write_chunk(mw->w, CHUNK_THREADS, CODEC_ZSTD, mw->threads.data,
				   mw->threads.len, mw->nthreads);
	mw->threads.len = 0;
	mw->nthreads = 0;
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

/* The spans not yet written, as SPANS2 chunks. */
static int flush_spans(struct memtrace_writer *mw, char *err, size_t errlen)
{
	struct bytebuf b = { 0 };
	int rc = 0;

	while (mw->spans.n && !rc) {
		uint32_t n = span_enc_payload(&mw->spans, &b);
		rc = trace_write_chunk(mw->w, CHUNK_SPANS2, CODEC_ZSTD, b.data, b.len, n);
	}
	bytebuf_free(&b);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

struct memtrace_writer *memtrace_writer_open(const char *path, const char *meta,
					     char *err, size_t errlen)
{
	if (!meta || !has_key(meta, "time_unit") || !has_key(meta, "start_time")) {
		snprintf(err, errlen, "trace meta must hold time_unit= and start_time= lines");
		return NULL;
	}
	if (strlen(meta) > CHUNK_MAX_LEN - 1) {
		snprintf(err, errlen, "trace meta is too large");
		return NULL;
	}
	unsigned grain_log = 0;
	char gbuf[32];
	if (mt_kv_str(meta, "span_grain", gbuf, sizeof(gbuf))) {
		char *end;
		unsigned long long g = strtoull(gbuf, &end, 10);
		while (grain_log <= SPAN2_GRAIN_LOG_MAX && (1ull << grain_log) < g)
			grain_log++;
		if (end == gbuf || *end || !g || grain_log > SPAN2_GRAIN_LOG_MAX ||
		    (1ull << grain_log) != g) {
			snprintf(err, errlen, "trace meta span_grain=%s: not a power of two from 1 "
				 "to 2^%u", gbuf, SPAN2_GRAIN_LOG_MAX);
			return NULL;
		}
	}
	struct trace_writer *w = trace_writer_open_quiet(path, err, errlen);
	if (!w)
		return NULL;
	struct memtrace_writer *mw = mt_xcalloc(1, sizeof(*mw));
	mw->w = w;
	mw->spans.grain_log = grain_log;
	mw->buf = mt_xcalloc(CHUNK_MAX_SAMPLES, sizeof(*mw->buf));
	if (write_kv(mw, CHUNK_HEADER, meta, err, errlen)) {
		memtrace_writer_close(mw, NULL, NULL, 0);
		return NULL;
	}
	return mw;
}

int memtrace_writer_samples(struct memtrace_writer *mw, const struct memtrace_columns *c,
			    size_t n, char *err, size_t errlen)
{
	if (n && (!c->time || !c->addr || !c->pid || !c->tid || !c->cpu)) {
		snprintf(err, errlen, "samples need the time, addr, pid, tid and cpu columns");
		return -1;
	}
	if (flush_threads(mw, err, errlen))
		return -1;
	uint32_t columns = COLS_REQUIRED | (c->ip ? 1u << COL_IP : 0) |
			   (c->weight ? 1u << COL_WEIGHT : 0) |
			   (c->data_src ? 1u << COL_DATA_SRC : 0);
	for (size_t done = 0; done < n;) {
		size_t k = n - done < CHUNK_MAX_SAMPLES ? n - done : CHUNK_MAX_SAMPLES;
		for (size_t i = 0; i < k; i++) {
			size_t j = done + i;
			mw->buf[i] = (struct memtrace_sample){
				.time = c->time[j], .addr = c->addr[j], .pid = c->pid[j],
				.tid = c->tid[j], .cpu = c->cpu[j],
				.ip = c->ip ? c->ip[j] : 0,
				.weight = c->weight ? c->weight[j] : 0,
				.data_src = c->data_src ? c->data_src[j] : 0 };
		}
		if (trace_write_samples(mw->w, mw->buf, k, columns)) {
			snprintf(err, errlen, "%s", trace_writer_error(mw->w));
			return -1;
		}
		done += k;
	}
	return 0;
}

int memtrace_writer_maps(struct memtrace_writer *mw, uint64_t time, uint32_t pid,
			 const char *text, size_t len, char *err, size_t errlen)
{
	if (len > CHUNK_MAX_LEN - MAPS_HDR_SIZE) {
		snprintf(err, errlen, "maps text of %zu bytes is too large", len);
		return -1;
	}
	if (flush_threads(mw, err, errlen))
		return -1;
	int rc = trace_write_maps(mw->w, time, pid, text, len);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

int memtrace_writer_thread(struct memtrace_writer *mw, uint64_t time, uint32_t pid,
			   uint32_t tid, const char *comm, char *err, size_t errlen)
{
	trace_thread_rec_put(&mw->threads, time, pid, tid, comm);
	mw->nthreads++;
	if (mw->threads.len + THREAD_REC_SIZE > CHUNK_MAX_LEN)
		return flush_threads(mw, err, errlen);
	return 0;
}

int memtrace_writer_lost(struct memtrace_writer *mw, uint64_t time, uint32_t cpu,
			 uint64_t lost, uint64_t throttled, char *err, size_t errlen)
{
	struct bytebuf b = { 0 };

	if (flush_threads(mw, err, errlen))
		return -1;
	trace_lost_rec_put(&b, time, cpu, lost, throttled);
	int rc = trace_write_chunk(mw->w, CHUNK_LOST, CODEC_STORED, b.data, b.len, 1);
	bytebuf_free(&b);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

/* One record j of v into b (the chunk formats of trace/records.h). */
typedef void (*put_record_fn)(struct bytebuf *b, const void *v, size_t j);

/* n records of rec_size bytes each, as many chunks of type as they fill. */
static int write_record_chunks(struct memtrace_writer *mw, uint32_t type, size_t rec_size,
			       const void *v, size_t n, put_record_fn put, char *err,
			       size_t errlen)
{
	const size_t per_chunk = CHUNK_MAX_LEN / rec_size;
	struct bytebuf b = { 0 };
	int rc = 0;

	if (flush_threads(mw, err, errlen))
		return -1;
	for (size_t i = 0; i < n && !rc; i += per_chunk) {
		size_t k = n - i < per_chunk ? n - i : per_chunk;
		b.len = 0;
		for (size_t j = i; j < i + k; j++)
			put(&b, v, j);
		rc = trace_write_chunk(mw->w, type, CODEC_ZSTD, b.data, b.len, (uint32_t)k);
	}
	bytebuf_free(&b);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

static void put_region(struct bytebuf *b, const void *v, size_t j)
{
	const struct memtrace_damon_region *r = (const struct memtrace_damon_region *)v + j;

	trace_region_rec_put(b, r->time, r->start, r->end, r->pid, r->nr_accesses, r->age);
}

int memtrace_writer_damon_regions(struct memtrace_writer *mw,
				  const struct memtrace_damon_region *r, size_t n, char *err,
				  size_t errlen)
{
	return write_record_chunks(mw, CHUNK_REGIONS, REGION_REC_SIZE, r, n, put_region, err,
				   errlen);
}

static void put_pass(struct bytebuf *b, const void *v, size_t j)
{
	const struct memtrace_pass *p = (const struct memtrace_pass *)v + j;

	trace_pass_rec_put(b, p->time, p->pid, p->what);
}

int memtrace_writer_passes(struct memtrace_writer *mw, const struct memtrace_pass *p, size_t n,
			   char *err, size_t errlen)
{
	return write_record_chunks(mw, CHUNK_PASSES, PASS_REC_SIZE, p, n, put_pass, err, errlen);
}

static void put_gap(struct bytebuf *b, const void *v, size_t j)
{
	const struct memtrace_gap *g = (const struct memtrace_gap *)v + j;

	trace_gap_rec_put(b, g->from, g->to, g->pid, g->what);
}

int memtrace_writer_gaps(struct memtrace_writer *mw, const struct memtrace_gap *g, size_t n,
			 char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].to < g[i].from) {
			snprintf(err, errlen, "gap ends (%llu) before it begins (%llu)",
				 (unsigned long long)g[i].to, (unsigned long long)g[i].from);
			return -1;
		}
	return write_record_chunks(mw, CHUNK_GAPS, GAP_REC_SIZE, g, n, put_gap, err, errlen);
}

int memtrace_writer_labels(struct memtrace_writer *mw, const char *text, size_t len,
			   char *err, size_t errlen)
{
	struct mt_labels l = { 0 };
	int rc = mt_labels_parse(&l, text, len, "labels", err, errlen);

	mt_labels_free(&l);
	if (rc || flush_threads(mw, err, errlen))
		return -1;
	rc = trace_write_chunk(mw->w, CHUNK_LABELS, CODEC_ZSTD, len ? text : "", len, 0);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

int memtrace_writer_span(struct memtrace_writer *mw, uint64_t start, uint64_t end, uint32_t pid,
			 uint32_t tid, const char *label, int open, char *err, size_t errlen)
{
	if (end < start) {
		snprintf(err, errlen, "span ends (%llu) before it starts (%llu)",
			 (unsigned long long)end, (unsigned long long)start);
		return -1;
	}
	span_enc_add(&mw->spans, start, end, pid, tid, label, label ? strlen(label) : 0, open);
	return span_enc_full(&mw->spans) ? flush_spans(mw, err, errlen) : 0;
}

int memtrace_writer_allocs(struct memtrace_writer *mw, const struct memtrace_alloc *a, size_t n,
			   char *err, size_t errlen)
{
	struct bytebuf recs = { 0 }, none = { 0 }, chunk = { 0 };

	if (n > CHUNK_MAX_SAMPLES) {
		snprintf(err, errlen, "%zu allocation records in one chunk (at most %u)", n,
			 CHUNK_MAX_SAMPLES);
		return -1;
	}
	if (flush_threads(mw, err, errlen))
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct trace_alloc t = { .time = a[i].time, .addr = a[i].addr, .size = a[i].size,
					 .old_addr = a[i].old_addr, .caller = a[i].caller,
					 .weight = a[i].weight, .pid = a[i].pid, .tid = a[i].tid,
					 .stack = ALLOC_NO_STACK, .kind = (uint8_t)a[i].kind };
		trace_alloc_put(&recs, &t);
	}
	trace_allocs_payload(&chunk, &recs, (uint32_t)n, &none, 0);
	int rc = trace_write_chunk(mw->w, CHUNK_ALLOCS, CODEC_ZSTD, chunk.data, chunk.len, (uint32_t)n);
	bytebuf_free(&recs);
	bytebuf_free(&chunk);
	if (rc)
		snprintf(err, errlen, "%s", trace_writer_error(mw->w));
	return rc;
}

int memtrace_writer_close(struct memtrace_writer *mw, const char *end_meta, char *err,
			  size_t errlen)
{
	char dummy[8];
	int rc = 0;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	rc |= flush_threads(mw, err, errlen);
	if (!rc)
		rc |= flush_spans(mw, err, errlen);
	if (!rc && end_meta)
		rc |= write_kv(mw, CHUNK_END, end_meta, err, errlen);
	if (trace_writer_close_quiet(mw->w, rc ? NULL : err, errlen))
		rc = -1;
	bytebuf_free(&mw->threads);
	span_enc_free(&mw->spans);
	free(mw->buf);
	free(mw);
	return rc ? -1 : 0;
}
