/* filter.c - compile a struct memtrace_filter into absolute times and sorted
 * address ranges, and test samples against it (engine/filter.h). */
#include "engine/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/span_index.h"
#include "memtrace/resolve.h"
#include "resolve/resolve.h"
#include "util/util.h"
#include "util/search.h"

static bool spec_is_empty(const struct memtrace_filter *s)
{
	return !s || (!s->pid && !s->tid && !s->time_from && !s->time_to && !s->addr_lo &&
		      !s->addr_hi && !s->mapping);
}

static int cmp_range(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* "(mappings: a, b, ...)" of the distinct names of the layout. */
static void list_names(const struct memtrace_range *v, size_t n, char *buf, size_t len)
{
	size_t at = 0;
	int k = snprintf(buf, len, "(mappings:");

	at = k > 0 ? (size_t)k : 0;
	if (!n)
		at += (size_t)snprintf(buf + (at < len ? at : len), at < len ? len - at : 0,
				       " none");
	for (size_t i = 0; i < n; i++) {
		const char *name = v[i].name ? v[i].name : "?";
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = v[j].name && !strcmp(v[j].name, name);
		if (seen)
			continue;
		at += (size_t)snprintf(buf + (at < len ? at : len), at < len ? len - at : 0,
				       "%s %s", at > 11 ? "," : "", name);
	}
	snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, ")");
}

static int mapping_ranges(struct sample_filter *f, const char *name, struct resolver *res,
			  uint32_t pid, uint64_t lo, uint64_t hi, char *err, size_t errlen)
{
	const struct memtrace_range *v = NULL;
	size_t n = res ? resolver_layout(res, pid, &v) : 0;
	size_t k = 0;

	f->ranges = mt_xcalloc(n ? n : 1, sizeof(*f->ranges));
	for (size_t i = 0; i < n; i++) {
		if (!v[i].name || !strstr(v[i].name, name))
			continue;
		f->ranges[k++] = (struct addr_range){ v[i].start, v[i].end };
	}
	if (!k) {
		char names[1024];
		list_names(v, n, names, sizeof(names));
		snprintf(err, errlen, "--mapping %s: no mapping of that name %s", name, names);
		return -1;
	}
	qsort(f->ranges, k, sizeof(*f->ranges), cmp_range);
	/* merge, then clip to [lo, hi) */
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && f->ranges[i].lo <= f->ranges[m - 1].hi) {
			if (f->ranges[i].hi > f->ranges[m - 1].hi)
				f->ranges[m - 1].hi = f->ranges[i].hi;
			continue;
		}
		f->ranges[m++] = f->ranges[i];
	}
	k = 0;
	for (size_t i = 0; i < m; i++) {
		struct addr_range r = f->ranges[i];
		if (r.lo < lo)
			r.lo = lo;
		if (r.hi > hi)
			r.hi = hi;
		if (r.lo < r.hi)
			f->ranges[k++] = r;
	}
	f->nranges = k;
	return 0;
}

int sample_filter_init(struct sample_filter *f, const struct memtrace_filter *spec,
		       uint64_t start_time, struct resolver *res, uint32_t pid,
		       char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->t_hi = UINT64_MAX;
	if (spec_is_empty(spec)) {
		f->all = true;
		return 0;
	}
	f->pid = spec->pid;
	f->tid = spec->tid;
	if (spec->time_to && spec->time_to < spec->time_from) {
		snprintf(err, errlen, "time range: from %llu is after to %llu",
			 (unsigned long long)spec->time_from, (unsigned long long)spec->time_to);
		return -1;
	}
	f->t_lo = start_time + spec->time_from < start_time ? UINT64_MAX
							  : start_time + spec->time_from;
	if (spec->time_to)
		f->t_hi = start_time + spec->time_to < start_time ? UINT64_MAX
								  : start_time + spec->time_to;
	uint64_t lo = spec->addr_lo, hi = spec->addr_hi ? spec->addr_hi : UINT64_MAX;
	if (spec->addr_hi && spec->addr_hi <= spec->addr_lo) {
		snprintf(err, errlen, "address range: 0x%llx-0x%llx is empty",
			 (unsigned long long)spec->addr_lo, (unsigned long long)spec->addr_hi);
		return -1;
	}
	if (spec->mapping) {
		if (mapping_ranges(f, spec->mapping, res, pid, lo, hi, err, errlen)) {
			sample_filter_free(f);
			return -1;
		}
	} else if (spec->addr_lo || spec->addr_hi) {
		f->ranges = mt_xmalloc(sizeof(*f->ranges));
		f->ranges[0] = (struct addr_range){ lo, hi };
		f->nranges = 1;
	}
	return 0;
}

void sample_filter_spans(struct sample_filter *f, const struct span_index *x)
{
	f->spans = x;
	f->all = false;
}

void sample_filter_free(struct sample_filter *f)
{
	free(f->ranges);
	f->ranges = NULL;
	f->nranges = 0;
}

static bool in_ranges(const struct sample_filter *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nranges;

	/* first range with hi > addr */
	MT_PARTITION_POINT(lo, hi, mid,
			   f->ranges[mid].hi <= addr && f->ranges[mid].hi != UINT64_MAX);
	return lo < f->nranges && f->ranges[lo].lo <= addr;	/* hi UINT64_MAX: inclusive */
}

bool sample_filter_pass_values(const struct sample_filter *f, uint64_t time, uint64_t addr,
			       uint32_t pid, uint32_t tid)
{
	if (f->all)
		return true;
	if ((f->pid && pid != f->pid) || (f->tid && tid != f->tid))
		return false;
	if (time < f->t_lo || time > f->t_hi)
		return false;
	if (f->spans && span_index_find(f->spans, tid, time) < 0)
		return false;
	return !f->ranges || in_ranges(f, addr);
}

bool sample_filter_pass(const struct sample_filter *f, const struct memtrace_sample *s)
{
	return sample_filter_pass_values(f, s->time, s->addr, s->pid, s->tid);
}

size_t sample_filter_apply(const struct sample_filter *f, struct memtrace_sample *s, size_t n)
{
	size_t k = 0;

	if (f->all)
		return n;
	for (size_t i = 0; i < n; i++)
		if (sample_filter_pass(f, &s[i]))
			s[k++] = s[i];
	return k;
}
