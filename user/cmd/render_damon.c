/* render_damon.c - `memtracectl report`'s region-level part for a trace
 * with DAMON regions (REGIONS chunks): WSS per aggregation and the hot
 * regions of the last one, from include/memtrace/damon.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "memtrace/damon.h"
#include "memtrace/resolve.h"
#include "util/util.h"

#define HOT_REGIONS	10

struct damon_summary {
	const struct memtrace_damon_region *rows;
	long nrows;
	struct memtrace_damon_wss_point *pts;
	long npts;
	uint64_t median, mean, peak, last, monitored_last;
	struct memtrace_damon_region hot[HOT_REGIONS];
	long nhot;
	unsigned long sample_us, aggr_us, max_acc, min_regions, max_regions;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static unsigned long meta_ul(const struct memtrace_trace *t, const char *key)
{
	const char *v = memtrace_trace_meta(t, key);
	return v ? strtoul(v, NULL, 10) : 0;
}

/* 0 with s filled; 1 when the trace has no regions; -1 on a read error. */
static int summarize(struct memtrace_trace *t, struct damon_summary *s)
{
	char err[256];

	memset(s, 0, sizeof(*s));
	s->nrows = memtrace_trace_damon_regions(t, &s->rows, err, sizeof(err));
	if (s->nrows < 0)
		return -1;
	if (!s->nrows)
		return 1;
	s->npts = memtrace_damon_wss(s->rows, (size_t)s->nrows, 0, 1, NULL, 0);
	s->pts = mt_xcalloc((size_t)s->npts, sizeof(*s->pts));
	memtrace_damon_wss(s->rows, (size_t)s->nrows, 0, 1, s->pts, (size_t)s->npts);
	uint64_t *v = mt_xcalloc((size_t)s->npts, sizeof(*v));
	double sum = 0;
	for (long i = 0; i < s->npts; i++) {
		v[i] = s->pts[i].wss_bytes;
		sum += (double)v[i];
		if (v[i] > s->peak)
			s->peak = v[i];
	}
	s->last = s->pts[s->npts - 1].wss_bytes;
	s->monitored_last = s->pts[s->npts - 1].monitored_bytes;
	qsort(v, (size_t)s->npts, sizeof(*v), cmp_u64);
	s->median = v[s->npts / 2];
	s->mean = (uint64_t)(sum / (double)s->npts);
	free(v);
	s->nhot = memtrace_damon_hot(s->rows, (size_t)s->nrows, 0, UINT64_MAX, s->hot, HOT_REGIONS);
	s->sample_us = meta_ul(t, "damon_sample_us");
	s->aggr_us = meta_ul(t, "damon_aggr_us");
	s->max_acc = meta_ul(t, "damon_max_nr_accesses");
	s->min_regions = meta_ul(t, "damon_min_regions");
	s->max_regions = meta_ul(t, "damon_max_regions");
	return 0;
}

static struct memtrace_trace *open_summary(const char *path, struct damon_summary *s)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));

	if (!t)
		return NULL;
	if (summarize(t, s)) {
		memtrace_trace_close(t);
		return NULL;
	}
	return t;
}

/* "where the region starts" by the trace's maps, "?" when unmapped */
static const char *start_in(struct memtrace_resolver *res, const struct memtrace_damon_region *h,
			    char *buf, size_t len)
{
	if (!res || memtrace_describe(res, h->pid, h->time, h->start, buf, len) < 0)
		snprintf(buf, len, "?");
	return buf;
}

void render_text_damon(FILE *f, const char *path)
{
	struct damon_summary s;
	char b[5][32];
	struct memtrace_trace *t = open_summary(path, &s);

	if (!t)
		return;
	fprintf(f, "\nDAMON regions (region-level: a region counts with all its bytes when a check "
		"of one random page found it accessed)\n");
	fprintf(f, "  intervals: sample %lu us, aggregation %lu us (nr_accesses 0..%lu); regions %lu..%lu\n",
		s.sample_us, s.aggr_us, s.max_acc, s.min_regions, s.max_regions);
	fprintf(f, "  %ld aggregations, %ld region rows (%.1f regions per aggregation)\n", s.npts,
		s.nrows, (double)s.nrows / (double)s.npts);
	fprintf(f, "  region-level WSS: median %s, mean %s, peak %s, last %s of %s monitored\n",
		mt_fmt_bytes(s.median, b[0], 32), mt_fmt_bytes(s.mean, b[1], 32),
		mt_fmt_bytes(s.peak, b[2], 32), mt_fmt_bytes(s.last, b[3], 32),
		mt_fmt_bytes(s.monitored_last, b[4], 32));
	fprintf(f, "  hot regions of the last aggregation (region-level):\n");
	fprintf(f, "    %-8s %-11s %5s %10s  %-29s %s\n", "pid", "nr_accesses", "age", "size", "range",
		"start in");
	char err[256], name[256];
	struct memtrace_resolver *res = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	for (long i = 0; i < s.nhot; i++) {
		const struct memtrace_damon_region *h = &s.hot[i];
		char range[64];
		snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, h->start, h->end);
		fprintf(f, "    %-8u %-11u %5u %10s  %-29s %s\n", h->pid, h->nr_accesses, h->age,
			mt_fmt_bytes(h->end - h->start, b[0], 32), range,
			start_in(res, h, name, sizeof(name)));
	}
	if (res)
		memtrace_resolver_close(res);
	free(s.pts);
	memtrace_trace_close(t);
}

void render_json_damon(FILE *f, const char *path)
{
	struct damon_summary s;
	struct memtrace_trace *t = open_summary(path, &s);

	if (!t)
		return;
	fprintf(f, ",\n  \"damon_regions\": {\"level\": \"region\", \"sample_us\": %lu, "
		   "\"aggr_us\": %lu, \"max_nr_accesses\": %lu, \"min_regions\": %lu, "
		   "\"max_regions\": %lu, \"aggregations\": %ld, \"rows\": %ld,\n"
		   "    \"wss_bytes\": {\"median\": %" PRIu64 ", \"mean\": %" PRIu64
		   ", \"peak\": %" PRIu64 ", \"last\": %" PRIu64 ", \"monitored_last\": %" PRIu64 "},\n"
		   "    \"series\": [",
		s.sample_us, s.aggr_us, s.max_acc, s.min_regions, s.max_regions, s.npts, s.nrows,
		s.median, s.mean, s.peak, s.last, s.monitored_last);
	for (long i = 0; i < s.npts; i++)
		fprintf(f, "%s\n      {\"time\": %" PRIu64 ", \"wss_bytes\": %" PRIu64
			   ", \"monitored_bytes\": %" PRIu64 ", \"regions\": %u, \"accessed_regions\": %u}",
			i ? "," : "", s.pts[i].time, s.pts[i].wss_bytes, s.pts[i].monitored_bytes,
			s.pts[i].regions, s.pts[i].accessed_regions);
	fprintf(f, "],\n    \"hot_regions\": [");
	char err[256], name[256];
	struct memtrace_resolver *res = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	for (long i = 0; i < s.nhot; i++) {
		const struct memtrace_damon_region *h = &s.hot[i];
		fprintf(f, "%s\n      {\"pid\": %u, \"start\": %" PRIu64 ", \"end\": %" PRIu64
			   ", \"bytes\": %" PRIu64 ", \"nr_accesses\": %u, \"age\": %u, \"start_in\": ",
			i ? "," : "", h->pid, h->start, h->end, h->end - h->start, h->nr_accesses, h->age);
		render_json_str(f, start_in(res, h, name, sizeof(name)));
		fputc('}', f);
	}
	if (res)
		memtrace_resolver_close(res);
	fprintf(f, "]}");
	free(s.pts);
	memtrace_trace_close(t);
}
