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

/* memtrace_damon_windows computes at most this many windows (window /
 * interval times the aggregations): a larger request is refused, -1 */
#define MAX_WINDOWS	(1u << 22)

/* [lo, hi) byte ranges of one pid, to merge */
struct range {
	uint32_t pid;
	uint64_t lo, hi;
};

static int by_pid_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Bytes of the union of the accessed regions in rows[i0..i1). */
static uint64_t union_bytes(const struct memtrace_damon_region *rows, size_t i0, size_t i1,
			    uint32_t pid, uint32_t min_accesses, struct range *v)
{
	size_t n = 0;
	uint64_t sum = 0;

	for (size_t i = i0; i < i1; i++)
		if (wanted(&rows[i], pid) && rows[i].nr_accesses >= min_accesses &&
		    rows[i].end > rows[i].start)
			v[n++] = (struct range){ rows[i].pid, rows[i].start, rows[i].end };
	qsort(v, n, sizeof(*v), by_pid_lo);
	for (size_t i = 0; i < n;) {
		uint64_t lo = v[i].lo, hi = v[i].hi;
		size_t j = i + 1;
		while (j < n && v[j].pid == v[i].pid && v[j].lo <= hi) {
			if (v[j].hi > hi)
				hi = v[j].hi;
			j++;
		}
		sum += hi - lo;
		i = j;
	}
	return sum;
}

/* First row index with time > t (rows grouped by time, ascending). */
static size_t rows_after(const struct memtrace_damon_region *rows, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long memtrace_damon_windows(const struct memtrace_damon_region *rows, size_t n, uint32_t pid,
			    uint32_t min_accesses, uint64_t origin, uint64_t end, uint64_t window,
			    uint64_t interval, struct memtrace_damon_window *out, size_t max,
			    uint64_t *blind)
{
	long count = 0;
	uint64_t k_next = 1;	/* windows before k_next are done */
	struct range *v;

	if (!window || !interval || end < origin)
		return -1;
	if (min_accesses < 1)
		min_accesses = 1;
	/* ends origin + T .. the first at or past end, as the report's intervals */
	uint64_t nwin = (end - origin) / interval + ((end - origin) % interval != 0);
	/* cost: each aggregation lies in about window / interval windows */
	uint64_t per = window / interval + 1, aggs_n = 0;
	for (size_t i = 0; i < n; i++)
		aggs_n += !i || rows[i].time != rows[i - 1].time;
	if (per > MAX_WINDOWS || aggs_n * per > MAX_WINDOWS)
		return -1;
	if (!(v = malloc((n ? n : 1) * sizeof(*v))))
		return -1;
	/* each aggregation time a (of a wanted row) lies in the windows with
	 * ends in [a, a + window): k from ceil((a - origin) / T) on */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int any = 0;
		while (j < n && rows[j].time == rows[i].time)
			any |= wanted(&rows[j++], pid);
		uint64_t a = rows[i].time;
		i = j;
		if (!any || a < origin)
			continue;
		uint64_t k = (a - origin + interval - 1) / interval;
		if (k < 1)
			k = 1;
		if (k < k_next)
			k = k_next;
		for (; k <= nwin; k++) {
			uint64_t t = origin + k * interval;
			if (t < a || t - a >= window)
				break;
			size_t lo = rows_after(rows, n, t > window ? t - window : 0);
			size_t hi = rows_after(rows, n, t);
			uint32_t aggs = 0;
			uint64_t last = 0;
			for (size_t x = lo; x < hi; x++)
				if (wanted(&rows[x], pid) && (!aggs || rows[x].time != last)) {
					aggs++;
					last = rows[x].time;
				}
			if ((size_t)count < max)
				out[count] = (struct memtrace_damon_window){
					t, union_bytes(rows, lo, hi, pid, min_accesses, v), aggs };
			count++;
			k_next = k + 1;
		}
	}
	free(v);
	if (blind)
		*blind = nwin - (uint64_t)count;
	return count;
}
