/* trace_read.c - the reading half of the public trace API (include/memtrace/trace.h):
 * open, info, filtered column decoding and chunk iteration. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/filter.h"
#include "resolve/resolve.h"
#include "api/trace_internal.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/pipe.h"
#include "trace/words.h"
#include "util/util.h"

#define NS CHUNK_MAX_SAMPLES

static struct memtrace_trace *trace_open_api(const char *path, char *err, size_t errlen)
{
	struct trace_reader *r = trace_open(path, err, errlen);

	if (!r)
		return NULL;
	struct memtrace_trace *t = mt_xcalloc(1, sizeof(*t));
	t->r = r;
	t->path = mt_xstrdup(path);
	t->scratch = mt_xmalloc(5 * (size_t)NS * sizeof(*t->scratch));
	t->keep = mt_xmalloc((size_t)NS * sizeof(*t->keep));
	trace_rewind(r);
	return t;
}

void memtrace_trace_close(struct memtrace_trace *t)
{
	if (!t)
		return;
	trace_close(t->r);
	trace_close(t->it);
	api_side_free(t);
	if (t->res)
		resolver_free(t->res);
	free(t->labels_extra);
	free(t->scratch);
	free(t->keep);
	free(t->path);
	free(t);
}

const char *memtrace_trace_meta(const struct memtrace_trace *t, const char *key)
{
	return trace_meta(t->r, key);
}

const char *memtrace_trace_end_meta(const struct memtrace_trace *t, const char *key)
{
	return trace_end_meta(t->r, key);
}

static int trace_info_api(struct memtrace_trace *t, struct memtrace_trace_info *out, char *err,
			  size_t errlen)
{
	if (api_scan(t, err, errlen))
		return -1;
	*out = t->info;
	return 0;
}

/* Filtered: decodes the four filter columns, then gathers the passing rows. */
static size_t decode_filtered(struct memtrace_trace *t, const struct sample_filter *f,
			      const struct col_desc *d, uint32_t n, struct memtrace_columns *out,
			      size_t at, int *overflow)
{
	uint64_t *v[COL_COUNT] = { 0 };
	uint64_t *tmp = t->scratch + 4 * (size_t)NS;
	size_t k = 0;

	for (int col = COL_TIME; col <= COL_TID; col++) {
		v[col] = t->scratch + (size_t)col * NS;
		col_decode_u64(&d[col], n, v[col]);
	}
	for (uint32_t i = 0; i < n; i++)
		if (sample_filter_pass_values(f, v[COL_TIME][i], v[COL_ADDR][i],
					      (uint32_t)v[COL_PID][i], (uint32_t)v[COL_TID][i]))
			t->keep[k++] = i;
	if (at + k > out->cap) {
		*overflow = 1;
		return k;
	}
	uint64_t *u64[COL_COUNT] = { [COL_TIME] = out->time, [COL_ADDR] = out->addr,
				     [COL_IP] = out->ip, [COL_DATA_SRC] = out->data_src };
	uint32_t *u32[COL_COUNT] = { [COL_PID] = out->pid, [COL_TID] = out->tid,
				     [COL_CPU] = out->cpu, [COL_WEIGHT] = out->weight };
	for (int col = 0; col < COL_COUNT; col++) {
		if (!u64[col] && !u32[col])
			continue;
		const uint64_t *src = v[col];
		if (!src) {
			col_decode_u64(&d[col], n, tmp);
			src = tmp;
		}
		if (u64[col])
			for (size_t j = 0; j < k; j++)
				u64[col][at + j] = src[t->keep[j]];
		else
			for (size_t j = 0; j < k; j++)
				u32[col][at + j] = (uint32_t)src[t->keep[j]];
	}
	return k;
}

static int compile_filter(struct memtrace_trace *t, const struct memtrace_filter *spec,
			  struct sample_filter *f, char *err, size_t errlen)
{
	if (spec && (spec->mapping || spec->region)) {
		if (api_scan(t, err, errlen))
			return -1;
		if (!t->res) {
			t->res = resolver_new();
			for (size_t i = 0; i < t->nmaps; i++)
				resolver_add_maps(t->res, t->maps[i].time, t->maps[i].pid,
						  t->maps[i].text, t->maps[i].len);
			/* the processes' names, as the report's resolver has them */
			for (size_t i = 0; i < t->nthreads; i++)
				if (t->threads[i].pid == t->threads[i].tid && t->comms[i][0])
					resolver_set_comm(t->res, t->threads[i].pid, t->comms[i]);
			const char *tc = memtrace_trace_target_comm(t);
			uint32_t tp = (uint32_t)strtoul(trace_meta(t->r, "target_pid") ?
							trace_meta(t->r, "target_pid") : "0", NULL, 10);
			if (tc && *tc && tp)
				resolver_set_comm(t->res, tp, tc);
			resolver_set_label_pid(t->res, tp);	/* START labels: the target's */
		}
		if (spec->region && api_read_labels(t, err, errlen))
			return -1;
	}
	return sample_filter_init(f, spec, trace_start_time(t->r), t->res,
				  (uint32_t)strtoul(trace_meta(t->r, "target_pid") ?
						    trace_meta(t->r, "target_pid") : "0", NULL, 10),
				  err, errlen);
}

/* Every sample, each chunk decoded by a pipe worker straight into out. */
static int read_all(struct memtrace_trace *t, struct memtrace_columns *out, size_t *n,
		    char *err, size_t errlen)
{
	struct trace_pipe *p;
	struct trace_batch b;
	size_t k = 0;
	int rc;

	trace_rewind(t->r);
	p = trace_pipe_start(t->r, PIPE_COLUMNS, out);
	while ((rc = trace_pipe_next(p, &b, err, errlen)) > 0)
		if (b.c.type == CHUNK_SAMPLES)
			k = b.at + b.n;
	trace_pipe_close(p);
	if (rc < 0)
		return -1;
	*n = k;
	return 0;
}

static int trace_read_api(struct memtrace_trace *t, const struct memtrace_filter *filter,
			  struct memtrace_columns *out, size_t *n, char *err, size_t errlen)
{
	struct sample_filter f;
	struct trace_chunk c;
	size_t k = 0;
	int rc;

	*n = 0;
	if (trace_meta(t->r, "aggregate")) {
		snprintf(err, errlen, "an aggregated trace (record --aggregate) holds "
			 "per-interval bucket counts, no samples to read");
		return -1;
	}
	if (compile_filter(t, filter, &f, err, errlen))
		return -1;
	if (f.all) {	/* every sample: chunks decode on several threads */
		sample_filter_free(&f);
		return read_all(t, out, n, err, errlen);
	}
	trace_rewind(t->r);
	while ((rc = trace_next(t->r, &c, err, errlen)) > 0) {
		struct col_desc d[COL_COUNT];
		uint32_t cn;
		int overflow = 0;

		if (c.type != CHUNK_SAMPLES)
			continue;
		if (codec_parse_chunk(&c, d, &cn, err, errlen)) {
			rc = -1;
			break;
		}
		if (f.all) {
			if (k + cn > out->cap)
				overflow = 1;
			else
				codec_decode_columns(d, cn, out, k, t->scratch);
			k += overflow ? 0 : cn;
		} else {
			k += decode_filtered(t, &f, d, cn, out, k, &overflow);
		}
		if (overflow) {
			snprintf(err, errlen, "%s: more than %zu samples pass (buffer too small)",
				 t->path, out->cap);
			rc = -1;
			break;
		}
	}
	sample_filter_free(&f);
	if (rc < 0)
		return -1;
	*n = k;
	return 0;
}

int memtrace_trace_rewind(struct memtrace_trace *t, char *err, size_t errlen)
{
	if (!t->it) {
		t->it = trace_open(t->path, err, errlen);
		if (!t->it)
			return -1;
	}
	trace_rewind(t->it);
	return 0;
}

static int trace_next_api(struct memtrace_trace *t, struct memtrace_chunk *c, char *err,
			  size_t errlen)
{
	struct trace_chunk tc;

	if (!t->it && memtrace_trace_rewind(t, err, errlen))
		return -1;
	int rc = trace_next(t->it, &tc, err, errlen);
	if (rc <= 0)
		return rc;
	*c = (struct memtrace_chunk){ .type = tc.type, .count = tc.count, .offset = tc.offset,
				      .data = tc.data, .len = tc.len };
	return 1;
}

int memtrace_chunk_samples(const struct memtrace_chunk *c, struct memtrace_columns *out,
			   size_t *n, char *err, size_t errlen)
{
	struct trace_chunk tc = { .type = c->type, .count = c->count, .offset = c->offset,
				  .data = c->data, .len = c->len };
	struct col_desc d[COL_COUNT];
	uint32_t cn;

	*n = 0;
	if (c->type != CHUNK_SAMPLES) {
		snprintf(err, errlen, "chunk at offset %" PRIu64 " is not a SAMPLES chunk (type %u)",
			 c->offset, c->type);
		return -1;
	}
	if (codec_parse_chunk(&tc, d, &cn, err, errlen))
		return -1;
	if (cn > out->cap) {
		snprintf(err, errlen, "samples chunk at offset %" PRIu64
			 ": %u samples, buffer holds %zu", c->offset, cn, out->cap);
		return -1;
	}
	uint64_t *tmp = mt_xmalloc((cn ? cn : 1) * sizeof(*tmp));
	codec_decode_columns(d, cn, out, 0, tmp);
	free(tmp);
	*n = cn;
	return 0;
}

/* The entry points that allocate as much as the file holds: out of memory
 * is their error (util/util.h), never an exit of the caller's process. */
struct memtrace_trace *memtrace_trace_open(const char *path, char *err, size_t errlen)
{
	MT_OOM_GUARDED(struct memtrace_trace *, NULL, err, errlen,
		       trace_open_api(path, err, errlen));
}

int memtrace_trace_info(struct memtrace_trace *t, struct memtrace_trace_info *out,
			char *err, size_t errlen)
{
	MT_OOM_GUARDED(int, -1, err, errlen, trace_info_api(t, out, err, errlen));
}

int memtrace_trace_read(struct memtrace_trace *t, const struct memtrace_filter *filter,
			struct memtrace_columns *out, size_t *n, char *err, size_t errlen)
{
	MT_OOM_GUARDED(int, -1, err, errlen, trace_read_api(t, filter, out, n, err, errlen));
}

int memtrace_trace_next(struct memtrace_trace *t, struct memtrace_chunk *c, char *err,
			size_t errlen)
{
	MT_OOM_GUARDED(int, -1, err, errlen, trace_next_api(t, c, err, errlen));
}

const struct memtrace_words *memtrace_trace_words(const struct memtrace_trace *t)
{
	return words_of_class(words_class_of(trace_meta(t->r, "sample_class"),
					     trace_meta(t->r, "source"),
					     trace_meta(t->r, "sample_period")));
}

const char *memtrace_trace_target_comm(struct memtrace_trace *t)
{
	char err[256];
	const char *v = NULL;

	if (!api_scan(t, err, sizeof(err)))	/* the END chunk is read by the scan */
		v = trace_end_meta(t->r, "target_comm");
	if (!v || !*v)
		v = trace_meta(t->r, "target_comm");
	return v ? v : "";
}
