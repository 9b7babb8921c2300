/*
 * report_agg.c - reports of aggregated traces (record --aggregate): each
 * AGG row (interval k, pid, bucket, count) goes to the WSS as count
 * accesses to its bucket at the interval's end t_k = start + k * T.  With
 * a window and report interval that are multiples of T (same origin),
 * every window holds whole aggregation intervals, so the series, totals
 * and hot buckets are those the samples themselves would give.  What needs
 * each sample (threads, instructions, spans, per-process series, regions)
 * is refused with a one-line reason.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine/report_internal.h"
#include "trace/agg.h"
#include "util/util.h"

static int refuse(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "an aggregated trace (record --aggregate) holds per-interval bucket "
		 "counts, not samples: %s needs a recording without --aggregate", what);
	return -1;
}

int rep_agg_setup(struct rep_ctx *c, const struct memtrace_report_config *cfg, char *err,
		  size_t errlen)
{
	const struct memtrace_report *r = c->r;
	char a[64], b[64];

	if (!c->agg_interval)
		return 0;
	if (cfg->filter.tid)
		return refuse(err, errlen, "--tid");
	if (c->span_pattern)
		return refuse(err, errlen, "--span");
	/* regions first: compare asks for regions and spans together */
	if (cfg->flags & MEMTRACE_REPORT_REGIONS)
		return refuse(err, errlen, "a region table (--regions, compare)");
	if (cfg->flags & MEMTRACE_REPORT_BY_SPAN)
		return refuse(err, errlen, "--by-span");
	if (cfg->flags & MEMTRACE_REPORT_PER_PROCESS)
		return refuse(err, errlen, "--per-process");
	if (r->bucket_shift < c->agg_shift) {
		snprintf(err, errlen, "bucket %llu is smaller than the aggregated trace's (%s): give "
			 "--bucket %s or larger", (unsigned long long)r->bucket,
			 mt_fmt_bytes(1ull << c->agg_shift, a, sizeof(a)),
			 mt_fmt_bytes(1ull << c->agg_shift, b, sizeof(b)));
		return -1;
	}
	if (r->window % c->agg_interval || r->interval % c->agg_interval) {
		snprintf(err, errlen, "window and interval of an aggregated trace are multiples of "
			 "its interval (%llu ns)", (unsigned long long)c->agg_interval);
		return -1;
	}
	return 0;
}

/* Pass 1: an AGG chunk's rows, filtered and keyed, into the data WSS. */
void rep_agg_pass1(struct rep_ctx *c, const struct trace_chunk *ch)
{
	struct memtrace_report *r = c->r;
	struct memtrace_trace_info *in = &r->info;
	struct trace_agg a;

	if (c->agg_bad)
		return;
	if (trace_agg_parse(ch->data, ch->len, &a) || a.interval != c->agg_interval ||
	    a.shift != c->agg_shift) {
		c->agg_bad = ch->offset + 1;
		return;
	}
	if (a.rows > c->agg_cap) {
		c->agg_cap = a.rows;
		c->agg_buf = mt_xrealloc(c->agg_buf, c->agg_cap * sizeof(*c->agg_buf));
	}
	struct memtrace_sample *s = c->agg_buf;
	uint64_t total = 0;
	for (size_t i = 0; i < a.rows; i++) {
		uint32_t pid = trace_agg_pid(&a, i);
		/* the row's count rides in data_src: aggregated traces have no data source */
		s[i] = (struct memtrace_sample){ .time = a.time, .addr = trace_agg_addr(&a, i),
						 .pid = pid, .tid = pid,
						 .data_src = trace_agg_count(&a, i) };
		total += s[i].data_src;
	}
	if (!a.rows)
		return;
	in->first_time = in->samples && in->first_time < a.time ? in->first_time : a.time;
	in->last_time = in->last_time > a.time ? in->last_time : a.time;
	in->samples += total;
	size_t n = sample_filter_apply(&c->filt, s, a.rows);
	if (!n)
		return;
	if (!c->first_seen) {
		c->first_seen = 1;
		r->first_time = a.time;
	}
	mt_spaces_key_samples(c->spaces, s, n);
	total = 0;
	for (size_t i = 0; i < n; i++) {
		wss_add_counted(&c->data, s[i].time, s[i].addr, s[i].data_src);
		total += s[i].data_src;
	}
	if (a.time > r->last_time)
		r->last_time = a.time;
	r->samples += total;
}
