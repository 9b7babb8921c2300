/* span_index.c - samples to spans (span_index.h). */
#include "engine/span_index.h"

#include <stdlib.h>
#include <string.h>

#include "trace/span_sort.h"
#include "util/util.h"
#include "util/search.h"

static uint64_t key_start(const void *p) { return ((const struct trace_span *)p)->start; }
static uint64_t key_tid(const void *p) { return ((const struct trace_span *)p)->tid; }

struct first { uint64_t start; uint32_t label; };

static int by_first(const void *a, const void *b)
{
	const struct first *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->label > y->label) - (x->label < y->label);
}

void span_index_build(struct span_index *x, struct trace_spans *s, const char *pattern)
{
	uint32_t nl = s->labels.n;
	uint32_t *group = mt_xmalloc((nl ? nl : 1) * sizeof(*group));
	struct first *f = mt_xmalloc((nl ? nl : 1) * sizeof(*f));
	size_t n = 0;

	memset(x, 0, sizeof(*x));
	/* the pattern, once per distinct label; each label's first start */
	for (uint32_t l = 0; l < nl; l++) {
		group[l] = pattern && *pattern && !strstr(s->labels.v[l], pattern) ? UINT32_MAX : 0;
		f[l] = (struct first){ UINT64_MAX, l };
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct trace_span *e = &s->v[i];
		if (e->label >= nl || group[e->label] == UINT32_MAX)
			continue;
		group[e->label] = 1;	/* seen */
		if (e->start < f[e->label].start)
			f[e->label].start = e->start;
		s->v[n++] = *e;
	}
	/* groups: labels with a matching span, by their first start */
	size_t ng = 0;
	for (uint32_t l = 0; l < nl; l++)
		if (group[l] == 1)
			f[ng++] = f[l];
	if (ng)
		qsort(f, ng, sizeof(*f), by_first);
	x->labels = mt_xmalloc((ng ? ng : 1) * sizeof(*x->labels));
	x->group_spans = mt_xcalloc(ng ? ng : 1, sizeof(*x->group_spans));
	x->group_time = mt_xcalloc(ng ? ng : 1, sizeof(*x->group_time));
	for (size_t g = 0; g < ng; g++) {
		group[f[g].label] = (uint32_t)g;
		x->labels[g] = s->labels.v[f[g].label];
	}
	x->ngroups = ng;
	for (size_t i = 0; i < n; i++) {
		struct trace_span *e = &s->v[i];
		e->label = group[e->label];
		x->group_spans[e->label]++;
		x->group_time[e->label] += e->end - e->start;
	}
	free(group);
	free(f);
	x->v = s->v;
	x->n = n;
	s->v = NULL;
	s->n = s->cap = 0;
	radix_sort(x->v, n, sizeof(*x->v), (const key_fn[]){ key_start, key_tid }, 2);
}

long span_index_find(const struct span_index *x, uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = x->n;

	/* first entry after (tid, time) */
	MT_PARTITION_POINT(lo, hi, mid,
			   x->v[mid].tid < tid || (x->v[mid].tid == tid && x->v[mid].start <= time));
	if (!lo)
		return -1;
	const struct trace_span *e = &x->v[lo - 1];
	return e->tid == tid && time <= e->end ? (long)(lo - 1) : -1;
}

void span_index_free(struct span_index *x)
{
	free(x->v);
	free(x->labels);
	free(x->group_spans);
	free(x->group_time);
	memset(x, 0, sizeof(*x));
}
