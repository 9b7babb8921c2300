/* trace_side.c - the one pass behind memtrace_trace_info() and the side-record
 * accessors (threads, lost, windows, maps) of include/memtrace/trace.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/agg.h"
#include "api/trace_internal.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/pipe.h"
#include "util/util.h"

static int bad_records(const struct trace_chunk *c, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "corrupt %s chunk at offset %" PRIu64 ": %u records in %zu bytes",
		 what, c->offset, c->count, c->len);
	return -1;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	*cap = n;
	return mt_xrealloc(p, n * size);
}

struct caps { size_t threads, lost, windows, maps, regions, passes; uint64_t maps_lines; };

/* More side records than a reader keeps (reader.h): refused before allocating. */
static int too_many(const struct memtrace_trace *t, const struct trace_chunk *c, char *err,
		    size_t errlen)
{
	if ((uint64_t)t->nthreads + t->nlost + t->nwindows + t->nregions + t->npasses + c->count <=
	    TRACE_MAX_SIDE_RECORDS)
		return 0;
	snprintf(err, errlen, "chunk at offset %" PRIu64 ": more than %u THREADS, LOST and "
		 "WINDOWS records in the trace", c->offset, TRACE_MAX_SIDE_RECORDS);
	return -1;
}

static int side_threads(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
			char *err, size_t errlen)
{
	if (c->len != (size_t)c->count * THREAD_REC_SIZE)
		return bad_records(c, "THREADS", err, errlen);
	if (too_many(t, c, err, errlen))
		return -1;
	size_t cc = cap->threads;
	t->threads = grow(t->threads, &cap->threads, t->nthreads + c->count, sizeof(*t->threads));
	t->comms = grow(t->comms, &cc, t->nthreads + c->count, sizeof(*t->comms));
	for (uint32_t i = 0; i < c->count; i++) {
		const unsigned char *p = c->data + (size_t)i * THREAD_REC_SIZE;
		struct memtrace_thread *th = &t->threads[t->nthreads];
		th->time = get_le64(p);
		th->pid = get_le32(p + 8);
		th->tid = get_le32(p + 12);
		memcpy(t->comms[t->nthreads], p + 16, 16);
		t->comms[t->nthreads][16] = 0;
		t->nthreads++;
	}
	t->info.threads += c->count;
	return 0;
}

static int side_lost(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
		     char *err, size_t errlen)
{
	if (c->len != (size_t)c->count * LOST_REC_SIZE)
		return bad_records(c, "LOST", err, errlen);
	if (too_many(t, c, err, errlen))
		return -1;
	t->lost = grow(t->lost, &cap->lost, t->nlost + c->count, sizeof(*t->lost));
	for (uint32_t i = 0; i < c->count; i++) {
		const unsigned char *p = c->data + (size_t)i * LOST_REC_SIZE;
		struct memtrace_lost *l = &t->lost[t->nlost++];
		l->time = get_le64(p);
		l->cpu = get_le32(p + 8);
		l->lost = get_le64(p + 16);
		l->throttled = get_le64(p + 24);
		t->info.lost += l->lost;
		t->info.throttled += l->throttled;
	}
	return 0;
}

static int side_windows(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
			char *err, size_t errlen)
{
	int two = c->type == CHUNK_WINDOWS2;
	size_t rec = two ? WINDOW2_REC_SIZE : WINDOW_REC_SIZE;

	if (c->len < WINDOW_HDR_SIZE || c->len - WINDOW_HDR_SIZE != (size_t)c->count * rec)
		return bad_records(c, two ? "WINDOWS2" : "WINDOWS", err, errlen);
	if (too_many(t, c, err, errlen))
		return -1;
	uint64_t window = get_le64(c->data), interval = get_le64(c->data + 8);
	uint32_t shift = get_le32(c->data + 16);
	t->windows = grow(t->windows, &cap->windows, t->nwindows + c->count, sizeof(*t->windows));
	for (uint32_t i = 0; i < c->count; i++) {
		const unsigned char *p = c->data + WINDOW_HDR_SIZE + (size_t)i * rec;
		struct memtrace_window_row *w = &t->windows[t->nwindows++];
		memset(w, 0, sizeof(*w));
		w->window = window;
		w->interval = interval;
		w->bucket_shift = shift;
		w->time = get_le64(p);
		w->wss_data = get_le64(p + 8);
		w->wss_code = get_le64(p + 16);
		if (two) {
			w->samples = get_le64(p + 24);
			w->f1 = get_le64(p + 32);
			w->f2 = get_le64(p + 40);
			w->has_counts = 1;
		}
	}
	return 0;
}

static int side_regions(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
			char *err, size_t errlen)
{
	if (c->len != (size_t)c->count * REGION_REC_SIZE)
		return bad_records(c, "REGIONS", err, errlen);
	if (too_many(t, c, err, errlen))
		return -1;
	t->regions = grow(t->regions, &cap->regions, t->nregions + c->count, sizeof(*t->regions));
	for (uint32_t i = 0; i < c->count; i++) {
		const unsigned char *p = c->data + (size_t)i * REGION_REC_SIZE;
		t->regions[t->nregions++] = (struct memtrace_damon_region){
			.time = get_le64(p), .start = get_le64(p + 8), .end = get_le64(p + 16),
			.pid = get_le32(p + 24), .nr_accesses = get_le32(p + 28),
			.age = get_le32(p + 32) };
	}
	return 0;
}

static int side_passes(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
		       char *err, size_t errlen)
{
	if (c->len != (size_t)c->count * PASS_REC_SIZE)
		return bad_records(c, "PASSES", err, errlen);
	if (too_many(t, c, err, errlen))
		return -1;
	t->passes = grow(t->passes, &cap->passes, t->npasses + c->count, sizeof(*t->passes));
	for (uint32_t i = 0; i < c->count; i++) {
		const unsigned char *p = c->data + (size_t)i * PASS_REC_SIZE;
		t->passes[t->npasses++] = (struct memtrace_pass){
			.time = get_le64(p), .pid = get_le32(p + 8), .what = get_le32(p + 12) };
	}
	return 0;
}

static int side_maps(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
		     char *err, size_t errlen)
{
	if (c->len < MAPS_HDR_SIZE) {
		snprintf(err, errlen, "corrupt MAPS chunk at offset %" PRIu64 ": %zu bytes",
			 c->offset, c->len);
		return -1;
	}
	size_t len = c->len - MAPS_HDR_SIZE;
	if (t->maps_bytes + len > API_MAX_MAPS_TEXT) {
		snprintf(err, errlen, "MAPS chunk at offset %" PRIu64 ": more than %llu MiB of maps text",
			 c->offset, API_MAX_MAPS_TEXT >> 20);
		return -1;
	}
	cap->maps_lines += trace_text_lines(c->data + MAPS_HDR_SIZE, len);
	if (cap->maps_lines > TRACE_MAX_MAPS_LINES) {
		snprintf(err, errlen, "MAPS chunk at offset %" PRIu64 ": more than %u lines of maps "
			 "text in the trace", c->offset, TRACE_MAX_MAPS_LINES);
		return -1;
	}
	t->maps_bytes += len;
	t->maps = grow(t->maps, &cap->maps, t->nmaps + 1, sizeof(*t->maps));
	char *text = mt_xmalloc(len + 1);
	memcpy(text, c->data + MAPS_HDR_SIZE, len);
	text[len] = 0;
	t->maps[t->nmaps++] = (struct memtrace_maps_snapshot){
		.time = get_le64(c->data), .pid = get_le32(c->data + 8), .text = text, .len = len };
	t->info.maps++;
	return 0;
}

static int scan_samples(struct memtrace_trace *t, const struct trace_chunk *c, char *err,
			size_t errlen)
{
	struct col_desc d[COL_COUNT];
	uint32_t n, columns;

	if (sample_parse(c->data, c->len, &n, &columns, d, err, errlen))
		return -1;
	if (n != c->count) {
		snprintf(err, errlen, "samples chunk at offset %" PRIu64
			 ": %u samples in payload, chunk count %u", c->offset, n, c->count);
		return -1;
	}
	t->info.samples += n;
	t->info.columns |= columns;
	if (!n)
		return 0;
	col_decode_u64(&d[COL_TIME], n, t->scratch);
	if (t->info.samples == n)
		t->info.first_time = t->scratch[0];
	t->info.last_time = t->scratch[n - 1];
	return 0;
}

/* AGG (record --aggregate): samples are the rows' counts, times the intervals' ends */
static int scan_agg(struct memtrace_trace *t, const struct trace_chunk *c, char *err,
		    size_t errlen)
{
	struct trace_agg a;
	uint64_t n = 0;

	if (trace_agg_parse(c->data, c->len, &a)) {
		snprintf(err, errlen, "%s: AGG chunk at offset %llu is malformed", t->path,
			 (unsigned long long)c->offset);
		return -1;
	}
	for (size_t i = 0; i < a.rows; i++)
		n += trace_agg_count(&a, i);
	if (!n)
		return 0;
	if (!t->info.samples)
		t->info.first_time = a.time;
	t->info.samples += n;
	t->info.last_time = a.time;
	return 0;
}

static int scan_chunk(struct memtrace_trace *t, struct caps *cap, const struct trace_chunk *c,
		      char *err, size_t errlen)
{
	switch (c->type) {
	case CHUNK_SAMPLES: return scan_samples(t, c, err, errlen);
	case CHUNK_THREADS: return side_threads(t, cap, c, err, errlen);
	case CHUNK_LOST: return side_lost(t, cap, c, err, errlen);
	case CHUNK_WINDOWS:
	case CHUNK_WINDOWS2: return side_windows(t, cap, c, err, errlen);
	case CHUNK_MAPS: return side_maps(t, cap, c, err, errlen);
	case CHUNK_REGIONS: return side_regions(t, cap, c, err, errlen);
	case CHUNK_PASSES: return side_passes(t, cap, c, err, errlen);
	case CHUNK_AGG: return scan_agg(t, c, err, errlen);
	default: return 0;
	}
}

static void scan_finish(struct memtrace_trace *t)
{
	struct memtrace_trace_info *in = &t->info;

	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].comm = t->comms[i];
	in->version_major = TRACE_MAJOR;
	in->version_minor = trace_version_minor(t->r);
	in->time_is_ns = trace_time_is_ns(t->r);
	in->complete = trace_has_end(t->r);
	in->truncated_bytes = trace_truncated(t->r);
	in->start_time = trace_start_time(t->r);
	uint64_t last = in->samples ? in->last_time : in->start_time;
	in->end_time = trace_meta_u64(t->r, "end_time", last, 1);
	in->dropped = trace_meta_u64(t->r, "dropped", 0, 1);
	struct trace_header_numbers h;
	trace_header_numbers(t->r, &h);
	in->sample_period = h.sample_period;
	in->bucket_default = h.bucket_default;
	in->target_pid = h.target_pid;
}

void api_side_free(struct memtrace_trace *t)
{
	for (size_t i = 0; i < t->nmaps; i++)
		free((void *)t->maps[i].text);
	free(t->maps);
	free(t->threads);
	free(t->comms);
	free(t->lost);
	free(t->windows);
	free(t->regions);
	t->regions = NULL;
	t->nregions = 0;
	free(t->passes);
	t->passes = NULL;
	t->npasses = 0;
	trace_spans_free(&t->spans);
	free(t->pub_spans);
	t->pub_spans = NULL;
	t->spans_loaded = 0;
	t->maps = NULL;
	t->threads = NULL;
	t->comms = NULL;
	t->lost = NULL;
	t->windows = NULL;
	t->nmaps = t->nthreads = t->nlost = t->nwindows = 0;
	t->maps_bytes = 0;
	memset(&t->info, 0, sizeof(t->info));
}

int api_scan(struct memtrace_trace *t, char *err, size_t errlen)
{
	struct trace_batch b;
	struct caps cap = { 0 };
	int rc;

	if (t->scanned)
		return 0;
	api_side_free(t);
	trace_rewind(t->r);
	t->info.chunks = 1;	/* the HEADER */
	/* checksums and zstd of the SAMPLES chunks on several threads */
	struct trace_pipe *p = trace_pipe_start(t->r, PIPE_PAYLOAD, NULL);
	while ((rc = trace_pipe_next(p, &b, err, errlen)) > 0) {
		t->info.chunks++;
		if (scan_chunk(t, &cap, &b.c, err, errlen)) {
			rc = -1;
			break;
		}
	}
	trace_pipe_close(p);
	if (rc < 0) {
		api_side_free(t);
		return -1;
	}
	scan_finish(t);
	t->scanned = 1;
	return 0;
}

long memtrace_trace_threads(struct memtrace_trace *t, const struct memtrace_thread **v,
			    char *err, size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->threads;
	return (long)t->nthreads;
}

long memtrace_trace_lost(struct memtrace_trace *t, const struct memtrace_lost **v,
			 char *err, size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->lost;
	return (long)t->nlost;
}

long memtrace_trace_windows(struct memtrace_trace *t, const struct memtrace_window_row **v,
			    char *err, size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->windows;
	return (long)t->nwindows;
}

long memtrace_trace_maps(struct memtrace_trace *t, const struct memtrace_maps_snapshot **v,
			 char *err, size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->maps;
	return (long)t->nmaps;
}

long memtrace_trace_damon_regions(struct memtrace_trace *t,
				  const struct memtrace_damon_region **v, char *err, size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->regions;
	return (long)t->nregions;
}

long memtrace_trace_passes(struct memtrace_trace *t, const struct memtrace_pass **v, char *err,
			   size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*v = t->passes;
	return (long)t->npasses;
}

/* The span chunks, read on first use in a pass of their own (a verb that
 * never asks for spans holds none). */
const struct trace_spans *api_spans(struct memtrace_trace *t, char *err, size_t errlen)
{
	struct trace_chunk c;
	int rc;

	if (api_scan(t, err, errlen))
		return NULL;
	if (t->spans_loaded)
		return &t->spans;
	struct trace_reader *r = trace_open(t->path, err, errlen);
	if (!r)
		return NULL;
	trace_skip(r, ~((1u << CHUNK_SPANS) | (1u << CHUNK_SPANS2)));
	while ((rc = trace_next(r, &c, err, errlen)) > 0)
		if (trace_chunk_is_spans(c.type) && trace_spans_add(&t->spans, &c, err, errlen)) {
			rc = -1;
			break;
		}
	trace_close(r);
	if (rc < 0) {
		trace_spans_free(&t->spans);
		return NULL;
	}
	trace_spans_sort(&t->spans);
	t->spans_loaded = 1;
	return &t->spans;
}

long memtrace_trace_spans(struct memtrace_trace *t, const struct memtrace_span **v,
			  char *err, size_t errlen)
{
	const struct trace_spans *s = api_spans(t, err, errlen);

	if (!s)
		return -1;
	if (!t->pub_spans && s->n) {
		t->pub_spans = mt_xmalloc(s->n * sizeof(*t->pub_spans));
		for (size_t i = 0; i < s->n; i++)
			t->pub_spans[i] = (struct memtrace_span){
				.start = s->v[i].start, .end = s->v[i].end, .pid = s->v[i].pid,
				.tid = s->v[i].tid, .label = s->labels.v[s->v[i].label],
				.open = (int)s->v[i].open };
	}
	*v = t->pub_spans;
	return (long)s->n;
}
