/* render_text.c - the text summary of `memtracectl report`. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "util/util.h"

#define HOT_FNS_TEXT 2	/* functions shown per hot bucket */

/* A HEADER value, def when absent or empty. */
static const char *meta_or(const struct memtrace_report *r, const char *key, const char *def,
			   char *buf, size_t len)
{
	const char *v = mt_kv_str(r->meta, key, buf, len);

	return v && *v ? v : def;
}

static void fmt_time(uint64_t t, int ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%" PRIu64 " insn", t);
	else if (t >= 1000000000ull)
		snprintf(buf, len, "%.3f s", (double)t / 1e9);
	else if (t >= 1000000ull)
		snprintf(buf, len, "%.3f ms", (double)t / 1e6);
	else
		snprintf(buf, len, "%.3f us", (double)t / 1e3);
}

/* t - origin, negative for a sample before the trace start (hint faults) */
static void fmt_rel(uint64_t t, uint64_t origin, int ns, char *buf, size_t len)
{
	if (t >= origin) {
		fmt_time(t - origin, ns, buf, len);
		return;
	}
	buf[0] = '-';
	fmt_time(origin - t, ns, buf + 1, len - 1);
}

static void fmt_share(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (pct < 0.5)
		snprintf(buf, len, "<1 %%");
	else
		snprintf(buf, len, "%.0f %%", pct);
}

static void print_hot(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		      const struct memtrace_hot_bucket *hot, size_t n, uint64_t used, int code,
		      const struct render_addr *a)
{
	char share[16], by[64];

	double N = r->data_est.period;
	int scaled = N > 1.0;

	snprintf(by, sizeof(by), "location  [%s by]", w->verb);
	fprintf(f, "\n%s %s buckets (top %zu of %" PRIu64 "):\n", w->hot, code ? "code" : "data", n,
		used);
	if (scaled)
		fprintf(f, "  (one access in %.0f sampled: est. accesses = samples x %.0f, +- 95 %%; "
			   "rank: firm, or ~k = ties with k others)\n", N, N);
	fprintf(f, "  %12s  ", scaled ? "samples" : w->count);
	if (scaled)
		fprintf(f, "%22s  %5s  ", "est. accesses", "rank");
	fprintf(f, "%-18s  %s\n", "address",
		r->have_ip ? (code ? "location  [functions running there]" : by) : "location");
	for (size_t i = 0; i < n; i++) {
		const struct memtrace_hot_bucket *h = &hot[i];
		fprintf(f, "  %12" PRIu64 "  ", h->count);
		if (scaled) {
			char acc[64], rank[32];
			size_t ties = memtrace_rank_ties(hot, n, i);
			snprintf(acc, sizeof(acc), "%.4g +- %.2g", (double)h->count * N,
				 1.96 * sqrt((double)h->count) * N);
			if (ties)
				snprintf(rank, sizeof(rank), "~%zu", ties);
			else
				snprintf(rank, sizeof(rank), "firm");
			fprintf(f, "%22s  %5s  ", acc, rank);
		}
		fprintf(f, "0x%016" PRIx64 "  %s%s%s", render_addr(a, h->addr, NULL), h->where,
			h->object ? " " : "", h->object ? h->object : "");
		for (size_t j = 0; j < h->nfunctions && j < HOT_FNS_TEXT; j++) {
			fmt_share(h->functions[j].count, h->with_ip, share, sizeof(share));
			fprintf(f, "%s%s %s", j ? ", " : "  [", h->functions[j].name, share);
		}
		fprintf(f, "%s\n", h->nfunctions ? (h->nfunctions > HOT_FNS_TEXT ? ", ...]" : "]") : "");
	}
}

static void print_wss(FILE *f, const char *what, const char *wss, const struct memtrace_series *s,
		      uint64_t bucket, unsigned shift)
{
	char b1[64], b2[64], b3[64];

	fprintf(f, "%s %s avg/peak/total: %.1f/%" PRIu64 "/%" PRIu64 " buckets (%s/%s/%s)\n", what,
		wss, s->avg, s->peak, s->total,
		mt_fmt_bytes((uint64_t)(s->avg * (double)bucket), b1, sizeof(b1)),
		mt_fmt_bytes(s->peak << shift, b2, sizeof(b2)),
		mt_fmt_bytes(s->total << shift, b3, sizeof(b3)));
}

static const char *est_reasons(unsigned flags)
{
	if (flags & MEMTRACE_EST_NOT_REFINED)
		return "more than 8 M samples: Chao1 alone, not calibrated";
	if (flags & MEMTRACE_EST_ALIASED)
		return "fixed period aliasing (samples from at most 4 instructions)";
	if (flags & MEMTRACE_EST_ROUND_PERIOD)
		return "fixed period with a factor 2, 3, 5 or 7 (may alias)";
	if (flags & (MEMTRACE_EST_RUN_TAIL | MEMTRACE_EST_TAIL_INSNS))
		return "most of the run's buckets unseen (a long tail)";
	if (flags == (MEMTRACE_EST_FEW_SAMPLES | MEMTRACE_EST_MOSTLY_UNSEEN))
		return "too few samples per window, most buckets unseen";
	if (flags & MEMTRACE_EST_FEW_SAMPLES)
		return "too few samples per window";
	return "most buckets unseen";
}

/* The estimate of a sampled series: what the seen counts miss. */
static void print_est(FILE *f, const struct memtrace_estimate *e, size_t rows, uint64_t windows)
{
	if (e->period <= 1.0)
		return;
	fprintf(f, "  estimated (one access in %.0f sampled): avg %.1f [%.1f, %.1f], p95 %.1f, "
		   "peak %.1f, total %.1f [%.1f, %.1f] buckets%s\n",
		e->period, e->avg, e->avg_lo, e->avg_hi, e->p95, e->peak, e->total, e->total_lo,
		e->total_hi, e->total_flags ? " (total unreliable)" : "");
	if (!e->unreliable)
		return;
	/* the windows without a sample (not rows of the sparse series) have < 100 */
	size_t few = (size_t)(windows - rows), unseen = 0, aliased = 0, tail = 0;
	for (size_t i = 0; i < rows; i++) {
		few += !!(e->flags[i] & MEMTRACE_EST_FEW_SAMPLES);
		unseen += !!(e->flags[i] & MEMTRACE_EST_MOSTLY_UNSEEN);
		aliased += !!(e->flags[i] & (MEMTRACE_EST_ALIASED | MEMTRACE_EST_ROUND_PERIOD));
		tail += !!(e->flags[i] & MEMTRACE_EST_TAIL_INSNS);
	}
	if (aliased)
		fprintf(f, "  aliasing: %zu windows with a fixed period that may alias (a factor 2, 3, "
			   "5 or 7, or samples from at most 4 instructions): record with a prime -c "
			   "or a random period\n", aliased);
	if (tail)
		fprintf(f, "  long tail: %zu windows take > 5 %% of their samples from instructions "
			   "that find a new bucket at nearly every sample\n", tail);
	if (rows && (e->flags[0] & MEMTRACE_EST_NOT_REFINED))
		fprintf(f, "  not refined: more than 8 M samples, too many to keep for the gap-bucket "
			   "and instruction checks; Chao1 alone is not calibrated (docs/accuracy.md): "
			   "report fewer samples (-p PID, --span) or record with a larger period\n");
	if (rows && (e->flags[0] & MEMTRACE_EST_RUN_TAIL))
		fprintf(f, "  long tail: the whole run's estimate is over twice the buckets seen; "
			   "no window's estimate is trusted\n");
	if (rows && (e->flags[0] & MEMTRACE_EST_NOT_COUNTED))
		fprintf(f, "  unreliable: the window spans more than 65531 intervals, too many to "
			   "count f1, f2: use a larger --interval\n");
	else if (few || unseen || aliased || tail)	/* not only the lines above */
		fprintf(f, "  unreliable: %zu of %zu windows (%zu with < %d samples, %zu with most "
			   "buckets unseen): use a longer --window or a smaller sampling period\n",
			e->unreliable, (size_t)windows, few, MEMTRACE_EST_MIN_SAMPLES, unseen);
	else
		fprintf(f, "  unreliable: %zu of %zu windows\n", e->unreliable, (size_t)windows);
	if (e->total_flags)
		fprintf(f, "  total unreliable: %s\n", est_reasons(e->total_flags));
}

static void print_header(FILE *f, const char *path, const struct memtrace_report *r,
			 const struct memtrace_words *w)
{
	char m[8][256], end_reason[256], dropped[64], t1[64], t2[64], b1[64];
	const char *er = mt_kv_str(r->end_meta, "end_reason", end_reason, sizeof(end_reason));
	const char *dr = mt_kv_str(r->end_meta, "dropped", dropped, sizeof(dropped));
	int ns = r->time_is_ns;

	fprintf(f, "trace:     %s%s\n", path, r->info.complete ? "" : "  (incomplete)");
	const char *period = meta_or(r, "sample_period", "?", m[0], sizeof(m[0]));
	int every = !strcmp(period, "1");
	fprintf(f, "source:    %s via %s backend, event %s, %s%s%s\n",
		meta_or(r, "source", "?", m[1], sizeof(m[1])),
		meta_or(r, "backend", "?", m[2], sizeof(m[2])),
		meta_or(r, "event", "?", m[3], sizeof(m[3])),
		every ? "every event" : "one sample every ", every ? "" : period,
		every ? "" : " events");
	fprintf(f, "sees:      %s\n", meta_or(r, "sees", "?", m[1], sizeof(m[1])));
	fprintf(f, "measures:  %s (%s)\n", w->samples, w->sample_class);
	memtrace_target_comm(r->meta, r->end_meta, m[2], sizeof(m[2]));
	fprintf(f, "target:    pid %s (%s) on %s, kernel %s\n",
		meta_or(r, "target_pid", "?", m[1], sizeof(m[1])), m[2][0] ? m[2] : "?",
		meta_or(r, "host", "?", m[3], sizeof(m[3])),
		meta_or(r, "kernel", "?", m[4], sizeof(m[4])));
	if (mt_kv_str(r->meta, "aggregate", m[5], sizeof(m[5]))) {
		fmt_time(strtoull(m[5], NULL, 10), ns, t1, sizeof(t1));
		fprintf(f, "aggregated: counts per bucket and %s interval (record --aggregate): no "
			   "per-sample addresses, times or threads\n", t1);
	}
	fprintf(f, "samples:   %" PRIu64 " %s   lost %" PRIu64 "   throttled %" PRIu64
		   "   dropped %s%s%s\n",
		r->samples, w->samples, r->info.lost, r->info.throttled, dr ? dr : "0",
		er ? "   ended: " : "", er ? er : "");
	/* threads that left samples: one never sampled is not seen */
	if (r->have_tid)
		fprintf(f, "threads:   %" PRIu64 " with %s (distinct pid, tid)\n", r->threads,
			w->samples);
	else
		fprintf(f, "threads:   unknown (the samples carry no thread ids)\n");
	/* the recording's span is start to END, not to its last sample */
	fmt_time(r->info.end_time > r->start_time ? r->info.end_time - r->start_time : 0, ns, t1,
		 sizeof(t1));
	fprintf(f, "span:      %s recorded%s", t1, r->info.complete ? "" : " (to the last sample: no END)");
	if (r->samples) {
		fmt_rel(r->first_time, r->start_time, ns, t1, sizeof(t1));
		fmt_rel(r->last_time, r->start_time, ns, t2, sizeof(t2));
		fprintf(f, "; %s from %s to %s", w->samples, t1, t2);
	}
	fputc('\n', f);
	fmt_time(r->window, ns, t1, sizeof(t1));
	fmt_time(r->interval, ns, t2, sizeof(t2));
	fprintf(f, "windows:   bucket %s   window %s   interval %s   %zu intervals\n",
		mt_fmt_bytes(r->bucket, b1, sizeof(b1)), t1, t2, (size_t)r->intervals);
	render_text_blind(f, r);
}

static void print_peaks(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w)
{
	char t1[64], b1[64];

	if (r->peaks_found > r->npeaks)
		fprintf(f, "\nPeaks of the data %s (%zu, the %zu largest listed):\n", w->wss,
			r->peaks_found, r->npeaks);
	else
		fprintf(f, "\nPeaks of the data %s (%zu):\n", w->wss, r->npeaks);
	for (size_t p = 0; p < r->npeaks; p++) {
		const struct memtrace_peak *pk = &r->peaks[p];
		fmt_time(pk->time, r->time_is_ns, t1, sizeof(t1));
		fprintf(f, "  [%zu] at %s: %" PRIu64 " buckets (%s)", p, t1, pk->value,
			mt_fmt_bytes(pk->value << r->bucket_shift, b1, sizeof(b1)));
		for (size_t j = 0; j < pk->nlocations; j++)
			fprintf(f, "%s %s (%" PRIu64 ")", j ? "," : "  at", pk->locations[j].name,
				pk->locations[j].count);
		fputc('\n', f);
	}
}

void render_text(FILE *f, const char *path, const struct memtrace_report *r, uint32_t pid)
{
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);
	char b1[64], c1[64], c2[64];

	print_header(f, path, r, w);
	if (r->region) {
		char rl[512];
		fprintf(f, "region:    %s\n", memtrace_report_region_line(r, rl, sizeof(rl)));
	}
	if (!r->samples) {
		fprintf(f, "\nno samples in this trace\n");
		if (r->region_chunks)	/* a damon trace has regions instead */
			render_text_damon(f, path, r);
		return;
	}
	render_text_kinds(f, path, pid);
	fputc('\n', f);
	print_wss(f, "Data", w->wss, &r->data, r->bucket, r->bucket_shift);
	print_est(f, &r->data_est, r->data.n, r->intervals);
	char rp[8];
	if (r->data_est.period > 1.0 && mt_kv_str(r->meta, "random_period", rp, sizeof(rp)) &&
	    !strcmp(rp, "0"))
		fprintf(f, "  fixed sampling period: a loop whose accesses repeat with a period sharing a "
			   "factor with N is sampled at the same places, and no estimate sees it "
			   "(docs/accuracy.md)\n");
	if (r->have_ip) {
		print_wss(f, "Code", w->code_wss, &r->code, r->bucket, r->bucket_shift);
		print_est(f, &r->code_est, r->code.n, r->intervals);
	} else
		fprintf(f, "Code %s: not available (no instruction pointers in this trace)\n",
			w->code_wss);
	struct render_addr a;
	render_addr_open(&a, r, pid);
	print_hot(f, r, w, r->hot_data, r->nhot_data, r->data.total, 0, &a);
	if (r->have_ip)
		print_hot(f, r, w, r->hot_code, r->nhot_code, r->code.total, 1, &a);
	double N = r->data_est.period;
	snprintf(c1, sizeof(c1), ">= %s", N > 1.0 ? "est. accesses" : w->count);
	snprintf(c2, sizeof(c2), "share of %s", w->samples);
	fprintf(f, "\n%s:\n  %10s  %10s  %12s  %s\n", w->curve, c1, "buckets", "size", c2);
	for (size_t i = 0; i < r->ncurve; i++)
		fprintf(f, "  %10" PRIu64 "  %10" PRIu64 "  %12s  %5.1f %%%s\n",
			r->curve[i].min_count * (N > 1.0 ? (uint64_t)N : 1), r->curve[i].buckets,
			mt_fmt_bytes(r->curve[i].buckets << r->bucket_shift, b1, sizeof(b1)),
			100.0 * (double)r->curve[i].samples / (double)r->samples,
			N > 1.0 && r->curve[i].min_count < 10 ? "  (< 10 samples: noisy)" : "");
	print_peaks(f, r, w);
	render_text_procs(f, r, w, &a);
	if (r->region_chunks)	/* another pass over the file: only where there are some */
		render_text_damon(f, path, r);
}
