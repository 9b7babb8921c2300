/*
 * report_spans.c - spans in a report (record --mark): --span PATTERN keeps
 * the samples inside the spans whose label contains PATTERN; --by-span
 * (MEMTRACE_REPORT_BY_SPAN) sums samples and distinct buckets per label and
 * per span.  Distinct buckets come from (span, bucket) pairs sorted at the
 * end: 16 bytes per sample inside a span, for the report only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "trace/span_sort.h"
#include "util/util.h"

struct pair { uint64_t who, bucket; };

struct rep_spans {
	struct trace_spans all;		/* the trace's spans; records moved to idx */
	struct span_index idx;		/* those that match the pattern */
	int filter;			/* --span given */
	uint64_t *samples;		/* per group */
	struct pair *pairs;		/* (span entry, bucket) of each sample in a span */
	size_t npairs, cap;
};

int rep_spans_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen)
{
	if (!c->span_pattern && !(c->flags & MEMTRACE_REPORT_BY_SPAN))
		return 0;
	if (!c->spans)
		c->spans = mt_xcalloc(1, sizeof(*c->spans));
	return trace_spans_add(&c->spans->all, ch, err, errlen);
}

int rep_spans_setup(struct rep_ctx *c, char *err, size_t errlen)
{
	if (!c->span_pattern && !(c->flags & MEMTRACE_REPORT_BY_SPAN))
		return 0;
	if (!c->spans)
		c->spans = mt_xcalloc(1, sizeof(*c->spans));
	struct rep_spans *s = c->spans;

	size_t all = s->all.n;
	span_index_build(&s->idx, &s->all, c->span_pattern);
	if (c->span_pattern && !s->idx.n) {
		snprintf(err, errlen, "--span %s: no span's label contains it (%zu spans in the "
			 "trace%s)", c->span_pattern, all, all ? "" : "; record with --mark");
		return -1;
	}
	if (c->span_pattern) {
		s->filter = 1;
		sample_filter_spans(&c->filt, &s->idx);
	}
	s->samples = mt_xcalloc(s->idx.ngroups ? s->idx.ngroups : 1, sizeof(*s->samples));
	return 0;
}

/* Keyed, filtered samples of pass 1. */
void rep_spans_add(struct rep_ctx *c, const struct memtrace_sample *v, size_t n)
{
	struct rep_spans *s = c->spans;

	if (!s || !(c->flags & MEMTRACE_REPORT_BY_SPAN))
		return;
	for (size_t i = 0; i < n; i++) {
		long k = span_index_find(&s->idx, v[i].tid, v[i].time);
		if (k < 0)
			continue;
		s->samples[s->idx.v[k].label]++;
		struct pair p = { (uint64_t)k, v[i].addr >> c->r->bucket_shift };
		if (s->npairs && s->pairs[s->npairs - 1].who == p.who &&
		    s->pairs[s->npairs - 1].bucket == p.bucket)
			continue;
		if (s->npairs == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 4096;
			s->pairs = mt_xrealloc(s->pairs, s->cap * sizeof(*s->pairs));
		}
		s->pairs[s->npairs++] = p;
	}
}

static uint64_t key_bucket(const void *p) { return ((const struct pair *)p)->bucket; }
static uint64_t key_who(const void *p) { return ((const struct pair *)p)->who; }

/* Sorts and dedupes s->pairs[0..n); returns the count. */
static size_t unique_pairs(struct pair *p, size_t n)
{
	size_t k = 0;

	radix_sort(p, n, sizeof(*p), (const key_fn[]){ key_bucket, key_who }, 2);
	for (size_t i = 0; i < n; i++)
		if (!k || p[i].who != p[k - 1].who || p[i].bucket != p[k - 1].bucket)
			p[k++] = p[i];
	return k;
}

static int by_samples(const void *a, const void *b)
{
	const struct memtrace_span_group *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->label, y->label);
}

void rep_fill_spans(struct rep_ctx *c)
{
	struct rep_spans *s = c->spans;
	struct memtrace_report *r = c->r;

	if (!s)
		return;
	r->nspans = s->idx.n;
	if (!(c->flags & MEMTRACE_REPORT_BY_SPAN))
		return;
	size_t ng = s->idx.ngroups;
	struct memtrace_span_group *g = rep_alloc(c, (ng ? ng : 1) * sizeof(*g));
	uint64_t *per_span = mt_xcalloc(s->idx.n ? s->idx.n : 1, sizeof(uint64_t));

	/* distinct buckets per span */
	size_t n = unique_pairs(s->pairs, s->npairs);
	for (size_t i = 0; i < n; i++)
		per_span[s->pairs[i].who]++;
	for (size_t k = 0; k < ng; k++)
		g[k] = (struct memtrace_span_group){
			.label = rep_strdup(c, s->idx.labels[k]), .spans = s->idx.group_spans[k],
			.time = s->idx.group_time[k], .samples = s->samples[k] };
	for (size_t e = 0; e < s->idx.n; e++) {
		struct memtrace_span_group *x = &g[s->idx.v[e].label];
		x->avg_buckets += (double)per_span[e];
		if (per_span[e] > x->max_buckets)
			x->max_buckets = per_span[e];
	}
	for (size_t k = 0; k < ng; k++)
		g[k].avg_buckets /= (double)(g[k].spans ? g[k].spans : 1);
	/* distinct buckets per label: the pairs again, keyed by group */
	for (size_t i = 0; i < n; i++)
		s->pairs[i].who = s->idx.v[s->pairs[i].who].label;
	n = unique_pairs(s->pairs, n);
	for (size_t i = 0; i < n; i++)
		g[s->pairs[i].who].buckets++;
	free(per_span);
	for (size_t k = 0; k < ng; k++)
		r->span_samples += g[k].samples;
	if (ng)
		qsort(g, ng, sizeof(*g), by_samples);
	r->nspan_groups = ng;
	r->span_groups = g;
}

void rep_spans_free(struct rep_ctx *c)
{
	struct rep_spans *s = c->spans;

	if (!s)
		return;
	span_index_free(&s->idx);
	trace_spans_free(&s->all);
	free(s->samples);
	free(s->pairs);
	free(s);
	c->spans = NULL;
}
