/* damon_regions.c - region-level WSS, heatmap and hot regions from DAMON
 * REGIONS rows (include/memtrace/damon.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/damon.h"

static int wanted(const struct memtrace_damon_region *r, uint32_t pid)
{
	return !pid || r->pid == pid;
}

long memtrace_damon_wss(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			uint32_t min_accesses, struct memtrace_damon_wss_point *out, size_t max)
{
	long count = 0;
	struct memtrace_damon_wss_point cur = { 0 };
	int open = 0;

	if (min_accesses < 1)
		min_accesses = 1;
	for (size_t i = 0; i <= n; i++) {
		const struct memtrace_damon_region *r = i < n ? &rows[i] : NULL;
		if (r && !wanted(r, pid))
			continue;
		if (open && (!r || r->time != cur.time)) {
			if ((size_t)count < max)
				out[count] = cur;
			count++;
			open = 0;
		}
		if (!r)
			break;
		if (!open) {
			memset(&cur, 0, sizeof(cur));
			cur.time = r->time;
			open = 1;
		}
		uint64_t size = r->end > r->start ? r->end - r->start : 0;
		cur.monitored_bytes += size;
		cur.regions++;
		if (r->nr_accesses >= min_accesses) {
			cur.wss_bytes += size;
			cur.accessed_regions++;
		}
	}
	return count;
}

int memtrace_damon_heatmap(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			   uint64_t t0, uint64_t t1, size_t ntime, uint64_t a0, uint64_t a1,
			   size_t naddr, double *out)
{
	if (!ntime || !naddr || t1 <= t0 || a1 <= a0 || !out)
		return -1;
	double *weight = calloc(ntime * naddr, sizeof(*weight));
	if (!weight)
		return -1;
	memset(out, 0, ntime * naddr * sizeof(*out));
	double tspan = (double)(t1 - t0), aspan = (double)(a1 - a0);
	for (size_t i = 0; i < n; i++) {
		const struct memtrace_damon_region *r = &rows[i];
		if (!wanted(r, pid) || r->time < t0 || r->time >= t1 || r->end <= a0 || r->start >= a1)
			continue;
		size_t ti = (size_t)((double)(r->time - t0) / tspan * (double)ntime);
		if (ti >= ntime)
			ti = ntime - 1;
		uint64_t s = r->start > a0 ? r->start : a0, e = r->end < a1 ? r->end : a1;
		size_t j = (size_t)((double)(s - a0) / aspan * (double)naddr);
		if (j > 0)
			j--;	/* float rounding: start one bin early */
		for (; j < naddr; j++) {
			/* address bin j is [lo, hi) */
			uint64_t lo = a0 + (uint64_t)((double)j * aspan / (double)naddr);
			uint64_t hi = j + 1 == naddr ? a1 :
				      a0 + (uint64_t)((double)(j + 1) * aspan / (double)naddr);
			if (lo >= e)
				break;
			uint64_t os = s > lo ? s : lo, oe = e < hi ? e : hi;
			if (oe <= os)
				continue;
			double w = (double)(oe - os);
			out[ti * naddr + j] += w * r->nr_accesses;
			weight[ti * naddr + j] += w;
		}
	}
	for (size_t c = 0; c < ntime * naddr; c++)
		out[c] = weight[c] > 0 ? out[c] / weight[c] : NAN;
	free(weight);
	return 0;
}

static int hotter(const void *a, const void *b)
{
	const struct memtrace_damon_region *x = a, *y = b;

	if (x->nr_accesses != y->nr_accesses)
		return x->nr_accesses > y->nr_accesses ? -1 : 1;
	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	uint64_t sx = x->end - x->start, sy = y->end - y->start;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

long memtrace_damon_hot(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			uint64_t time, struct memtrace_damon_region *out, size_t k)
{
	uint64_t last = 0;
	int found = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (wanted(&rows[i], pid) && rows[i].time <= time && (!found || rows[i].time > last)) {
			last = rows[i].time;
			found = 1;
		}
	if (!found || !k)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (wanted(&rows[i], pid) && rows[i].time == last)
			m++;
	struct memtrace_damon_region *v = malloc((m ? m : 1) * sizeof(*v));
	if (!v)
		return -1;
	m = 0;
	for (size_t i = 0; i < n; i++)
		if (wanted(&rows[i], pid) && rows[i].time == last)
			v[m++] = rows[i];
	qsort(v, m, sizeof(*v), hotter);
	if (m > k)
		m = k;
	memcpy(out, v, m * sizeof(*v));
	free(v);
	return (long)m;
}
