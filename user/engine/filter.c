/* filter.c - compile a struct memtrace_filter into absolute times and sorted
 * address ranges, and test samples against it (engine/filter.h). */
#include "engine/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/span_index.h"
#include "memtrace/resolve.h"
#include "resolve/labels.h"
#include "resolve/resolve.h"
#include "resolve/spaces.h"
#include "util/util.h"
#include "util/search.h"

static bool spec_is_empty(const struct memtrace_filter *s)
{
	return !s || (!s->pid && !s->tid && !s->time_from && !s->time_to && !s->addr_lo &&
		      !s->addr_hi && !s->mapping && !s->region);
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

static int cmp_pid_range(const void *a, const void *b)
{
	const struct pid_range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* "(labels: a, b, ...)": the distinct label names, as many as fit in len. */
static void list_labels(const struct mt_labels *l, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "(labels:");

	for (size_t i = 0; i < l->n && at + 8 < len; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(l->v[j].name, l->v[i].name);
		if (seen)
			continue;
		size_t need = strlen(l->v[i].name) + 5;
		if (at + need + 6 >= len) {
			at += (size_t)snprintf(buf + at, len - at, " ...");
			break;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s \"%s\"", at > 8 ? "," : "",
				       l->v[i].name);
	}
	if (at < len)
		snprintf(buf + at, len - at, ")");
}

/* A shared mapping of shmem: shared anonymous memory (/dev/zero), SysV
 * shared memory, a memfd, a file of /dev/shm. */
static bool is_shmem(const struct memtrace_range *m)
{
	const char *p = m->path ? m->path : "";

	if (!m->perms || strlen(m->perms) < 4 || m->perms[3] != 's')
		return false;
	return !strncmp(p, "/dev/zero", 9) || !strncmp(p, "/SYSV", 5) ||
	       !strncmp(p, "/memfd:", 7) || !strncmp(p, "/dev/shm/", 9);
}

/*
 * The region: in every process's layout, the ranges named by a label of
 * exactly that name (a label splits a mapping's range, resolve.h), so the
 * first label wins where labels overlap, as names do.
 */
static int region_ranges(struct sample_filter *f, const char *name, struct resolver *res,
			 char *err, size_t errlen)
{
	const struct mt_labels *l = res ? resolver_labels(res) : NULL;
	int known = 0;

	for (size_t i = 0; l && i < l->n && !known; i++)
		known = !strcmp(l->v[i].name, name);
	if (!known) {
		char names[1024];
		if (!l || !l->n)
			snprintf(err, errlen, "--region %s: no labels (give --labels FILE, or record "
				 "with --labels)", name);
		else {
			list_labels(l, names, sizeof(names));
			snprintf(err, errlen, "--region %s: no label of that name %s", name, names);
		}
		return -1;
	}
	const struct mt_maps_history *h = resolver_maps(res);
	size_t np = mt_maps_history_npids(h), k = 0, cap = 0;
	bool shmem = true;
	for (size_t i = 0; i < np; i++) {
		uint32_t pid = mt_maps_history_pid(h, i);
		const struct memtrace_range *v;
		size_t n = resolver_layout(res, pid, &v);
		for (size_t j = 0; j < n; j++) {
			if (!v[j].name || strcmp(v[j].name, name))
				continue;
			shmem = shmem && is_shmem(&v[j]);
			if (k == cap) {
				cap = cap ? 2 * cap : 16;
				f->region_v = mt_xrealloc(f->region_v, cap * sizeof(*f->region_v));
			}
			f->region_v[k++] = (struct pid_range){ pid, v[j].start, v[j].end };
		}
	}
	if (k)	/* a pid's layout ranges do not overlap: sorted, they stay apart */
		qsort(f->region_v, k, sizeof(*f->region_v), cmp_pid_range);
	f->nregion = k;
	f->region = name;
	f->region_shmem = k && shmem;
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
	if (spec->region && region_ranges(f, spec->region, res, err, errlen)) {
		sample_filter_free(f);
		return -1;
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
	free(f->region_v);
	f->region_v = NULL;
	f->nregion = 0;
}

static bool in_ranges(const struct sample_filter *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nranges;

	/* first range with hi > addr */
	MT_PARTITION_POINT(lo, hi, mid,
			   f->ranges[mid].hi <= addr && f->ranges[mid].hi != UINT64_MAX);
	return lo < f->nranges && f->ranges[lo].lo <= addr;	/* hi UINT64_MAX: inclusive */
}

static bool in_region(const struct sample_filter *f, uint32_t pid, uint64_t addr)
{
	size_t lo = 0, hi = f->nregion;

	while (lo < hi) {	/* first range of a later pid, or of pid with hi > addr */
		size_t mid = lo + (hi - lo) / 2;
		const struct pid_range *g = &f->region_v[mid];
		if (g->pid < pid || (g->pid == pid && g->hi <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nregion && f->region_v[lo].pid == pid && f->region_v[lo].lo <= addr;
}

static int cmp_range_lo(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

uint64_t sample_filter_region_bytes(const struct sample_filter *f, struct mt_spaces *s)
{
	struct addr_range *k = mt_xcalloc(f->nregion ? f->nregion : 1, sizeof(*k));
	uint64_t bytes = 0, end = 0;

	/* a layout range is one piece of one mapping: one key offset for all of it */
	for (size_t i = 0; i < f->nregion; i++) {
		const struct pid_range *g = &f->region_v[i];
		uint64_t key = mt_spaces_key(s, g->pid, g->lo);
		k[i] = (struct addr_range){ key, key + (g->hi - g->lo) };
	}
	if (f->nregion)
		qsort(k, f->nregion, sizeof(*k), cmp_range_lo);
	for (size_t i = 0; i < f->nregion; i++) {	/* the union's length */
		uint64_t lo = k[i].lo > end ? k[i].lo : end;
		if (k[i].hi > lo)
			bytes += k[i].hi - lo;
		if (k[i].hi > end)
			end = k[i].hi;
	}
	free(k);
	return bytes;
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
	if (f->region && !in_region(f, pid, addr))
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
