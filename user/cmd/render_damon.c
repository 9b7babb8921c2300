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

/* ns as "1.500 s" or "100.0 ms" (DAMON traces are in ns) */
static void dur(uint64_t ns, char *b, size_t len)
{
	if (ns >= 1000000000)
		snprintf(b, len, "%.3f s", (double)ns / 1e9);
	else
		snprintf(b, len, "%.1f ms", (double)ns / 1e6);
}

/* Region-level WSS per report window (damon.h memtrace_damon_windows). */
struct damon_windows {
	struct memtrace_damon_window *v;
	long n;
	uint64_t blind, median, peak;
};

static int damon_windows(const struct damon_summary *s, const struct memtrace_report *r,
			 struct damon_windows *w)
{
	uint64_t end = r->info.end_time > r->start_time ? r->info.end_time : r->start_time;

	memset(w, 0, sizeof(*w));
	w->n = memtrace_damon_windows(s->rows, (size_t)s->nrows, 0, 1, r->start_time, end, r->window,
				      r->interval, NULL, 0, &w->blind);
	if (w->n < 0)
		return -1;
	w->v = mt_xcalloc((size_t)w->n + 1, sizeof(*w->v));
	memtrace_damon_windows(s->rows, (size_t)s->nrows, 0, 1, r->start_time, end, r->window,
			       r->interval, w->v, (size_t)w->n, &w->blind);
	if (w->n) {
		uint64_t *v = mt_xcalloc((size_t)w->n, sizeof(*v));
		for (long i = 0; i < w->n; i++) {
			v[i] = w->v[i].wss_bytes;
			if (v[i] > w->peak)
				w->peak = v[i];
		}
		qsort(v, (size_t)w->n, sizeof(*v), cmp_u64);
		w->median = v[w->n / 2];
		free(v);
	}
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

void render_text_damon(FILE *f, const char *path, const struct memtrace_report *r)
{
	struct damon_summary s;
	struct damon_windows w;
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
	if (!damon_windows(&s, r, &w)) {
		char tw[32], ti[32];
		dur(r->window, tw, sizeof(tw));
		dur(r->interval, ti, sizeof(ti));
		if (w.n)
			fprintf(f, "  per %s window every %s (union of its aggregations' accessed regions): "
				"median %s, peak %s over %ld windows seen\n", tw, ti,
				mt_fmt_bytes(w.median, b[0], 32), mt_fmt_bytes(w.peak, b[1], 32), w.n);
		if (w.blind)
			fprintf(f, "  blind: %" PRIu64 " of %" PRIu64 " %s windows hold no aggregation (DAMON "
				"reported nothing on them: not a working set of 0)%s\n", w.blind,
				w.blind + (uint64_t)w.n, tw, r->window < s.aggr_us * 1000 ?
				"; a window of at least the aggregation interval sees every aggregation" : "");
		free(w.v);
	}
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

void render_json_damon(FILE *f, const char *path, const struct memtrace_report *r)
{
	struct damon_summary s;
	struct damon_windows w;
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
	fprintf(f, "],\n    \"windows\": ");
	if (!damon_windows(&s, r, &w)) {
		fprintf(f, "{\"window\": %" PRIu64 ", \"interval\": %" PRIu64 ", \"seen\": %ld, "
			   "\"blind\": %" PRIu64 ", \"median_bytes\": %" PRIu64 ", \"peak_bytes\": %" PRIu64
			   ", \"series\": [", r->window, r->interval, w.n, w.blind, w.median, w.peak);
		for (long i = 0; i < w.n; i++)
			fprintf(f, "%s{\"time\": %" PRIu64 ", \"wss_bytes\": %" PRIu64
				   ", \"aggregations\": %u}", i ? ", " : "", w.v[i].time - r->start_time,
				w.v[i].wss_bytes, w.v[i].aggregations);
		fprintf(f, "]}");
		free(w.v);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n    \"hot_regions\": [");
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

int render_damon_series(FILE *f, const char *path, const struct memtrace_report *r)
{
	struct damon_summary s;
	struct damon_windows w;
	struct memtrace_trace *t = open_summary(path, &s);

	if (!t)
		return -1;
	int rc = damon_windows(&s, r, &w);
	if (!rc) {
		/* the windows with an aggregation, and the first of each run of
		 * blind ones (no aggregation in them): rows follow the aggregations,
		 * not the span of the timestamps */
		fprintf(f, "# DAMON region-level WSS: union of the accessed regions of the aggregations "
			   "in each window; blind=1: no aggregation in this window and the next ones up "
			   "to the next row\n");
		fprintf(f, "time,wss_region_bytes,aggregations,blind\n");
		uint64_t nwin = w.blind + (uint64_t)w.n, k = 1;
		for (long j = 0; j <= w.n; j++) {
			uint64_t kj = j < w.n ? (w.v[j].time - r->start_time) / r->interval : nwin + 1;
			if (kj > k)	/* windows k .. kj - 1 are blind */
				fprintf(f, "%" PRIu64 ",,0,1\n", k * r->interval);
			if (j == w.n)
				break;
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%u,0\n", w.v[j].time - r->start_time,
				w.v[j].wss_bytes, w.v[j].aggregations);
			k = kj + 1;
		}
		free(w.v);
	}
	free(s.pts);
	memtrace_trace_close(t);
	return rc;
}
