/*
 * compare.c - two reports side by side (include/memtrace/compare.h): rows
 * per region label and per span label, matched by their text (sorted, then
 * merged: thousands of query texts cost n log n), A's order first, then
 * the labels only B has, then by the larger of the two volumes.  The two
 * reports are computed at once, B on a thread of its own, where both traces
 * are large enough for it to pay (COMPARE_THREAD_MIN_BYTES).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memtrace/compare.h"
#include "trace/reader.h"
#include "util/util.h"

struct cmp_ctx {
	struct memtrace_compare pub;
	struct memtrace_report *a, *b;
	struct memtrace_compare_row *regions, *spans;
};

/* One side's item: its key, its rank in its report, which side. */
struct item {
	const char *key;
	size_t rank;
	int side;
};

static double pct(double a, double b)
{
	if (a == 0)
		return b ? NAN : 0.0;
	return 100.0 * (b - a) / a;
}

static int by_key(const void *x, const void *y)
{
	const struct item *p = x, *q = y;
	int c = strcmp(p->key, q->key);

	if (c)
		return c;
	if (p->side != q->side)
		return p->side - q->side;
	return p->rank < q->rank ? -1 : p->rank > q->rank;
}

/* Row order: the larger volume first; ties in A's order, then B's. */
struct ordered { struct memtrace_compare_row row; size_t pos; };

static int by_volume(const void *x, const void *y)
{
	const struct ordered *p = x, *q = y;
	double vp = fmax(p->row.volume[0], p->row.volume[1]);
	double vq = fmax(q->row.volume[0], q->row.volume[1]);

	if (vp != vq)
		return vp > vq ? -1 : 1;
	return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* Fills one side of a row from the report's item at rank. */
typedef void (*fill_fn)(struct memtrace_compare_row *row, int side, const struct memtrace_report *r,
			size_t rank, double scale);

static void fill_region(struct memtrace_compare_row *row, int side, const struct memtrace_report *r,
			size_t rank, double scale)
{
	const struct memtrace_region *g = &r->regions[rank];

	row->key = g->label;
	row->samples[side] = g->samples;
	row->volume[side] = (double)g->samples * (double)r->bucket * (side ? scale : 1.0);
	row->touched[side] = g->buckets * r->bucket;
}

static void fill_span(struct memtrace_compare_row *row, int side, const struct memtrace_report *r,
		      size_t rank, double scale)
{
	const struct memtrace_span_group *g = &r->span_groups[rank];

	row->key = g->label;
	row->samples[side] = g->samples;
	row->volume[side] = (double)g->samples * (double)r->bucket * (side ? scale : 1.0);
	row->touched[side] = g->buckets * r->bucket;
	row->spans[side] = g->spans;
	row->time[side] = g->time;
	row->avg_touched[side] = g->avg_buckets * (double)r->bucket;
	row->max_touched[side] = g->max_buckets * r->bucket;
}

static void changes(struct memtrace_compare_row *row)
{
	row->volume_change = pct(row->volume[0], row->volume[1]);
	row->touched_change = pct((double)row->touched[0], (double)row->touched[1]);
	row->avg_touched_change = pct(row->avg_touched[0], row->avg_touched[1]);
}

/* Rows of na items of A and nb of B with keys key(r, i); returns the count. */
static size_t join(const struct memtrace_report *a, size_t na, const struct memtrace_report *b,
		   size_t nb, const char *(*key)(const struct memtrace_report *, size_t),
		   fill_fn fill, double scale, struct memtrace_compare_row **out,
		   struct memtrace_compare_row *total)
{
	struct item *it = mt_xcalloc(na + nb + 1, sizeof(*it));
	struct ordered *o = mt_xcalloc(na + nb + 1, sizeof(*o));
	size_t n = 0;

	for (size_t i = 0; i < na; i++)
		it[i] = (struct item){ key(a, i), i, 0 };
	for (size_t i = 0; i < nb; i++)
		it[na + i] = (struct item){ key(b, i), i, 1 };
	qsort(it, na + nb, sizeof(*it), by_key);
	for (size_t i = 0; i < na + nb; i++) {
		struct ordered *x = &o[n++];

		fill(&x->row, it[i].side, it[i].side ? b : a, it[i].rank, scale);
		x->pos = it[i].side ? na + it[i].rank : it[i].rank;
		/* the same key on the other side (labels are unique per report) */
		if (!it[i].side && i + 1 < na + nb && it[i + 1].side &&
		    !strcmp(it[i].key, it[i + 1].key)) {
			i++;
			fill(&x->row, 1, b, it[i].rank, scale);
		}
	}
	qsort(o, n, sizeof(*o), by_volume);
	struct memtrace_compare_row *rows = mt_xcalloc(n + 1, sizeof(*rows));

	*total = (struct memtrace_compare_row){ .key = "total" };
	for (size_t i = 0; i < n; i++) {
		rows[i] = o[i].row;
		changes(&rows[i]);
		for (int s = 0; s < 2; s++) {
			total->samples[s] += rows[i].samples[s];
			total->volume[s] += rows[i].volume[s];
			total->touched[s] += rows[i].touched[s];
			total->spans[s] += rows[i].spans[s];
			total->time[s] += rows[i].time[s];
			total->avg_touched[s] += rows[i].avg_touched[s] * (double)rows[i].spans[s];
			if (rows[i].max_touched[s] > total->max_touched[s])
				total->max_touched[s] = rows[i].max_touched[s];
		}
	}
	for (int s = 0; s < 2; s++)	/* the mean over every span */
		total->avg_touched[s] = total->spans[s] ? total->avg_touched[s] /
							  (double)total->spans[s] : 0;
	changes(total);
	free(it);
	free(o);
	*out = rows;
	return n;
}

static const char *region_key(const struct memtrace_report *r, size_t i)
{
	return r->regions[i].label;
}

static const char *span_key(const struct memtrace_report *r, size_t i)
{
	return r->span_groups[i].label;
}

static struct memtrace_report *side_report(const char *path, const struct memtrace_report_config *cfg,
					   uint64_t bucket, char *err, size_t errlen)
{
	struct memtrace_report_config c = *cfg;
	char why[512];

	c.flags |= MEMTRACE_REPORT_REGIONS | MEMTRACE_REPORT_BY_SPAN;
	if (bucket)
		c.bucket = bucket;
	struct memtrace_report *r = memtrace_report_compute(path, &c, why, sizeof(why));
	if (!r)
		snprintf(err, errlen, "%s: %s", path, why);
	return r;
}

struct side_job {
	const char *path;
	const struct memtrace_report_config *cfg;
	uint64_t bucket;
	struct memtrace_report *r;
	char err[1024];
};

static void *side_thread(void *p)
{
	struct side_job *j = p;

	j->r = side_report(j->path, j->cfg, j->bucket, j->err, sizeof(j->err));
	return NULL;
}

/* The bucket A's report will have: the config's, else A's HEADER default. */
static uint64_t bucket_of(const char *path, const struct memtrace_report_config *cfg)
{
	char why[512];
	struct trace_header_numbers h;

	if (cfg->bucket)
		return cfg->bucket;
	struct trace_reader *r = trace_open(path, why, sizeof(why));
	if (!r)
		return 0;	/* A's report says why */
	trace_header_numbers(r, &h);
	trace_close(r);
	return h.bucket_default;
}

/*
 * B on its own thread only where both traces have at least this many bytes:
 * two reports' working state at once doubles the peak memory, and on small
 * traces that is all a thread buys (a 1 KB crafted trace of 30000 scattered
 * buckets: 31 MB of bucket-map leaves each, 0.05 s each).
 */
#define COMPARE_THREAD_MIN_BYTES (1u << 20)

static int worth_a_thread(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_size >= COMPARE_THREAD_MIN_BYTES &&
	       sb.st_size >= COMPARE_THREAD_MIN_BYTES;
}

static struct memtrace_compare *compare_compute(const char *a, const char *b,
					       const struct memtrace_report_config *cfg_a,
					       const struct memtrace_report_config *cfg_b,
					       char *err, size_t errlen)
{
	static const struct memtrace_report_config none;
	struct cmp_ctx *c = mt_xcalloc(1, sizeof(*c));

	if (!cfg_a)
		cfg_a = &none;
	struct side_job jb = { .path = b, .cfg = cfg_b ? cfg_b : cfg_a, .bucket = bucket_of(a, cfg_a) };
	pthread_t th;
	int threaded = jb.bucket && worth_a_thread(a, b) && !pthread_create(&th, NULL, side_thread, &jb);

	c->a = side_report(a, cfg_a, 0, err, errlen);
	if (threaded)
		pthread_join(th, NULL);
	else if (c->a)
		side_thread(&jb);
	c->b = jb.r;
	if (c->a && c->b && c->b->bucket != c->a->bucket) {	/* not A's after all: again */
		memtrace_report_free(c->b);
		c->b = side_report(b, jb.cfg, c->a->bucket, jb.err, sizeof(jb.err));
	}
	if (c->a && !c->b)
		snprintf(err, errlen, "%s", jb.err);
	if (!c->a || !c->b) {
		memtrace_compare_free(&c->pub);
		return NULL;
	}
	struct memtrace_compare *p = &c->pub;
	uint64_t pa = c->a->info.sample_period ? c->a->info.sample_period : 1;
	uint64_t pb = c->b->info.sample_period ? c->b->info.sample_period : 1;

	p->bucket = c->a->bucket;
	p->scale = (double)pb / (double)pa;
	p->a = c->a;
	p->b = c->b;
	p->nregions = join(c->a, c->a->nregions, c->b, c->b->nregions, region_key, fill_region,
			   p->scale, &c->regions, &c->pub.regions_total);
	p->regions = c->regions;
	p->nspans = join(c->a, c->a->nspan_groups, c->b, c->b->nspan_groups, span_key, fill_span,
			 p->scale, &c->spans, &c->pub.spans_total);
	p->spans = c->spans;
	return p;
}

void memtrace_compare_free(struct memtrace_compare *p)
{
	struct cmp_ctx *c = (struct cmp_ctx *)p;

	if (!c)
		return;
	memtrace_report_free(c->a);
	memtrace_report_free(c->b);
	free(c->regions);
	free(c->spans);
	free(c);
}

/* out of memory: NULL with the error, never an exit (util/util.h) */
struct memtrace_compare *memtrace_compare_compute(const char *a, const char *b,
						  const struct memtrace_report_config *cfg_a,
						  const struct memtrace_report_config *cfg_b,
						  char *err, size_t errlen)
{
	MT_OOM_GUARDED(struct memtrace_compare *, NULL, err, errlen,
		       compare_compute(a, b, cfg_a, cfg_b, err, errlen));
}
