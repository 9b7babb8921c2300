/*
 * report_regions.c - the parts of a report that walk the bucket map or the
 * address layout: the hot working-set curve, every bucket's count
 * (MEMTRACE_REPORT_ALL_BUCKETS) and the samples per mapping
 * (MEMTRACE_REPORT_REGIONS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "util/util.h"

#define CURVE_POINTS 40	/* 1, 2, 4, ... without MEMTRACE_REPORT_FULL_CURVE */

struct bucket_list {
	struct hot_bucket *v;
	size_t n, cap;
};

static void collect(void *ctx, uint64_t bucket, const struct bucket_entry *e)
{
	struct bucket_list *l = ctx;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = mt_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = (struct hot_bucket){ bucket, e->count };
}

static int by_count_desc(const void *a, const void *b)
{
	const struct hot_bucket *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

static int by_bucket(const void *a, const void *b)
{
	const struct hot_bucket *x = a, *y = b;

	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The curve at every distinct count, ascending: buckets and samples with count >= k. */
static void full_curve(struct rep_ctx *c)
{
	struct bucket_list l = { 0 };

	bucket_map_foreach(&c->data.map, collect, &l);
	if (l.n)	/* qsort(NULL, 0) is undefined */
		qsort(l.v, l.n, sizeof(*l.v), by_count_desc);
	size_t distinct = 0;
	for (size_t i = 0; i < l.n; i++)
		distinct += !i || l.v[i].count != l.v[i - 1].count;
	struct memtrace_curve_point *pt = rep_alloc(c, (distinct ? distinct : 1) * sizeof(*pt));
	uint64_t samples = 0;
	size_t k = distinct;
	for (size_t i = 0; i < l.n; i++) {	/* count descending: fill from the end */
		samples += l.v[i].count;
		if (i + 1 < l.n && l.v[i + 1].count == l.v[i].count)
			continue;
		pt[--k] = (struct memtrace_curve_point){ l.v[i].count, i + 1, samples };
	}
	free(l.v);
	c->r->ncurve = distinct;
	c->r->curve = pt;
}

void rep_fill_curve(struct rep_ctx *c)
{
	if (c->flags & MEMTRACE_REPORT_FULL_CURVE) {
		full_curve(c);
		return;
	}
	struct hot_point hp[CURVE_POINTS];
	size_t n = hot_curve(&c->data.map, hp, CURVE_POINTS);
	struct memtrace_curve_point *pt = rep_alloc(c, (n ? n : 1) * sizeof(*pt));

	for (size_t i = 0; i < n; i++)
		pt[i] = (struct memtrace_curve_point){ hp[i].min_count, hp[i].buckets, hp[i].accesses };
	c->r->ncurve = n;
	c->r->curve = pt;
}

void rep_fill_buckets(struct rep_ctx *c)
{
	struct bucket_list l = { 0 };

	bucket_map_foreach(&c->data.map, collect, &l);
	if (l.n)	/* qsort(NULL, 0) is undefined */
		qsort(l.v, l.n, sizeof(*l.v), by_bucket);
	uint64_t *addr = rep_alloc(c, (l.n ? l.n : 1) * sizeof(uint64_t));
	uint64_t *count = rep_alloc(c, (l.n ? l.n : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < l.n; i++) {
		addr[i] = l.v[i].bucket << c->r->bucket_shift;
		count[i] = l.v[i].count;
	}
	free(l.v);
	c->r->nbuckets = l.n;
	c->r->bucket_addr = addr;
	c->r->bucket_count = count;
}

void rep_regions_add(struct rep_ctx *c, uint64_t addr)
{
	size_t i = rep_range_of(c, addr);

	c->reg_samples[i]++;
	c->reg_nbuckets[i] += bucket_set_add(&c->reg_set, i, addr >> c->r->bucket_shift);
}

static int by_samples(const void *a, const void *b)
{
	const struct memtrace_region *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (!x->end != !y->end)		/* unmapped (0, 0) after the mappings */
		return !x->end ? 1 : -1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Every range of the layout plus "unmapped", most samples first. */
void rep_fill_regions(struct rep_ctx *c)
{
	size_t n = c->nlayout + 1;
	struct memtrace_region *v = rep_alloc(c, n * sizeof(*v));

	for (size_t i = 0; i < c->nlayout; i++) {
		const struct memtrace_range *g = &c->layout[i];
		char label[512];
		int len = snprintf(label, sizeof(label), "%s %s", g->name ? g->name : "?",
				   g->perms ? g->perms : "");
		unsigned same = 1;
		for (size_t j = 0; j < i; j++)
			same += !strcmp(v[j].name, g->name ? g->name : "?") &&
				!strcmp(c->layout[j].perms ? c->layout[j].perms : "",
					g->perms ? g->perms : "");
		if (same > 1 && len > 0 && (size_t)len < sizeof(label))
			snprintf(label + len, sizeof(label) - (size_t)len, " #%u", same);
		v[i].label = rep_strdup(c, label);
		v[i].name = rep_strdup(c, g->name ? g->name : "?");
		v[i].start = g->start;
		v[i].end = g->end;
	}
	v[c->nlayout].label = rep_strdup(c, "unmapped");
	v[c->nlayout].name = v[c->nlayout].label;
	for (size_t i = 0; i < n; i++) {
		v[i].samples = c->reg_samples[i];
		v[i].buckets = c->reg_nbuckets[i];
	}
	qsort(v, n, sizeof(*v), by_samples);
	c->r->nregions = n;
	c->r->regions = v;
}
