/* span_index.c - samples to spans (span_index.h). */
#include "engine/span_index.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static int by_tid_start(const void *a, const void *b)
{
	const struct span_entry *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

struct by_time { uint64_t start; size_t i; };

static int by_start(const void *a, const void *b)
{
	const struct by_time *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static uint32_t group_of(struct span_index *x, const char *label, size_t *cap)
{
	for (size_t g = 0; g < x->ngroups; g++)	/* few distinct labels */
		if (!strcmp(x->labels[g], label))
			return (uint32_t)g;
	if (x->ngroups == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		x->labels = mt_xrealloc(x->labels, *cap * sizeof(*x->labels));
		x->group_spans = mt_xrealloc(x->group_spans, *cap * sizeof(*x->group_spans));
		x->group_time = mt_xrealloc(x->group_time, *cap * sizeof(*x->group_time));
	}
	x->labels[x->ngroups] = label;
	x->group_spans[x->ngroups] = 0;
	x->group_time[x->ngroups] = 0;
	return (uint32_t)x->ngroups++;
}

void span_index_build(struct span_index *x, const struct memtrace_span *spans, size_t n,
		      const char *pattern)
{
	struct by_time *order = mt_xmalloc((n ? n : 1) * sizeof(*order));
	size_t cap = 0;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		order[i] = (struct by_time){ spans[i].start, i };
	if (n)
		qsort(order, n, sizeof(*order), by_start);
	x->v = mt_xmalloc((n ? n : 1) * sizeof(*x->v));
	for (size_t k = 0; k < n; k++) {
		const struct memtrace_span *s = &spans[order[k].i];
		const char *label = s->label ? s->label : "";
		if (pattern && *pattern && !strstr(label, pattern))
			continue;
		uint32_t g = group_of(x, label, &cap);
		x->group_spans[g]++;
		x->group_time[g] += s->end - s->start;
		x->v[x->n++] = (struct span_entry){ s->tid, s->start, s->end, g };
	}
	free(order);
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), by_tid_start);
}

long span_index_find(const struct span_index *x, uint32_t tid, uint64_t time)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {	/* first entry after (tid, time) */
		size_t mid = lo + (hi - lo) / 2;
		const struct span_entry *e = &x->v[mid];
		if (e->tid < tid || (e->tid == tid && e->start <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct span_entry *e = &x->v[lo - 1];
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
