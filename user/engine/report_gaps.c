/* report_gaps.c - the trace's gaps (GAPS rows: record --pidfile had no
 * target, trace.h struct memtrace_gap) and the reports whose window
 * overlaps one: blind, not idle (report_blind.c). */
#include <stdio.h>
#include <stdlib.h>

#include "engine/report_internal.h"
#include "trace/format.h"
#include "util/util.h"

int rep_gaps_chunk(struct rep_ctx *c, const struct trace_chunk *ch, char *err, size_t errlen)
{
	if (ch->len != (size_t)ch->count * GAP_REC_SIZE) {
		snprintf(err, errlen, "corrupt GAPS chunk at offset %llu: %u records in %zu bytes",
			 (unsigned long long)ch->offset, ch->count, ch->len);
		return -1;
	}
	if ((uint64_t)c->ngaps + ch->count > TRACE_MAX_SIDE_RECORDS) {
		snprintf(err, errlen, "GAPS chunk at offset %llu: more than %u GAPS records in the "
			 "trace", (unsigned long long)ch->offset, TRACE_MAX_SIDE_RECORDS);
		return -1;
	}
	if (c->ngaps + ch->count > c->gaps_cap) {
		size_t n = c->gaps_cap ? c->gaps_cap : 16;
		while (n < c->ngaps + ch->count)
			n *= 2;
		c->gaps = mt_xrealloc(c->gaps, n * sizeof(*c->gaps));
		c->gaps_cap = n;
	}
	for (uint32_t i = 0; i < ch->count; i++) {
		const unsigned char *p = ch->data + (size_t)i * GAP_REC_SIZE;
		struct memtrace_gap g = { .from = get_le64(p), .to = get_le64(p + 8),
					  .pid = get_le32(p + 16), .what = get_le32(p + 20) };
		if (g.to < g.from) {
			snprintf(err, errlen, "corrupt GAPS chunk at offset %llu: a gap ends before "
				 "it begins", (unsigned long long)ch->offset);
			return -1;
		}
		c->gaps[c->ngaps++] = g;
		c->r->gaps++;
		c->r->gap_time += g.to - g.from;
	}
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Report k's window (t_k - window, t_k], t_k = start + k T, overlaps the
 * gap (from, to) when t_k > from and t_k - window < to. */
static int gap_range(const struct memtrace_report *r, const struct memtrace_gap *g, uint64_t K,
		     uint64_t out[2])
{
	uint64_t s = r->start_time, T = r->interval, tau = r->window;
	uint64_t lo = 1, hi;

	if (g->from >= s)	/* the first k with t_k > from */
		lo = (g->from - s) / T + 1;
	if (g->to > UINT64_MAX - tau)
		hi = K;
	else if (g->to + tau <= s)
		return 0;
	else	/* the last k with s + k T < to + window */
		hi = (g->to + tau - s - 1) / T;
	if (hi > K)
		hi = K;
	if (lo > hi)
		return 0;
	out[0] = lo;
	out[1] = hi;
	return 1;
}

size_t rep_gaps_ranges(const struct rep_ctx *c, uint64_t K, uint64_t **lo, uint64_t **hi)
{
	uint64_t (*rg)[2] = mt_xmalloc((c->ngaps ? c->ngaps : 1) * sizeof(*rg));
	size_t n = 0, m = 0;

	for (size_t i = 0; i < c->ngaps; i++)
		n += (size_t)gap_range(c->r, &c->gaps[i], K, rg[n]);
	qsort(rg, n, sizeof(*rg), by_lo);
	*lo = mt_xmalloc((n ? n : 1) * sizeof(**lo));
	*hi = mt_xmalloc((n ? n : 1) * sizeof(**hi));
	for (size_t i = 0; i < n; i++) {
		if (m && rg[i][0] <= (*hi)[m - 1] + 1) {	/* overlaps or touches: merged */
			if (rg[i][1] > (*hi)[m - 1])
				(*hi)[m - 1] = rg[i][1];
			continue;
		}
		(*lo)[m] = rg[i][0];
		(*hi)[m] = rg[i][1];
		m++;
	}
	free(rg);
	return m;
}
