/* render_text.c - the text summary of `memtracectl report`. */
#include <inttypes.h>
#include <stdio.h>
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

static void fmt_share(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (pct < 0.5)
		snprintf(buf, len, "<1 %%");
	else
		snprintf(buf, len, "%.0f %%", pct);
}

static void print_hot(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		      const struct memtrace_hot_bucket *hot, size_t n, uint64_t used, int code)
{
	char share[16], by[64];

	snprintf(by, sizeof(by), "location  [%s by]", w->verb);
	fprintf(f, "\n%s %s buckets (top %zu of %" PRIu64 "):\n", w->hot, code ? "code" : "data", n,
		used);
	fprintf(f, "  %12s  %-18s  %s\n", w->count, "address",
		r->have_ip ? (code ? "location  [functions running there]" : by) : "location");
	for (size_t i = 0; i < n; i++) {
		const struct memtrace_hot_bucket *h = &hot[i];
		fprintf(f, "  %12" PRIu64 "  0x%016" PRIx64 "  %s%s%s", h->count, h->addr, h->where,
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
	fprintf(f, "samples:   %" PRIu64 " %s   lost %" PRIu64 "   throttled %" PRIu64
		   "   dropped %s%s%s\n",
		r->samples, w->samples, r->info.lost, r->info.throttled, dr ? dr : "0",
		er ? "   ended: " : "", er ? er : "");
	/* the recording's span is start to END, not to its last sample */
	fmt_time(r->info.end_time > r->start_time ? r->info.end_time - r->start_time : 0, ns, t1,
		 sizeof(t1));
	fprintf(f, "span:      %s recorded%s", t1, r->info.complete ? "" : " (to the last sample: no END)");
	if (r->samples) {
		fmt_time(r->first_time - r->start_time, ns, t1, sizeof(t1));
		fmt_time(r->last_time - r->start_time, ns, t2, sizeof(t2));
		fprintf(f, "; %s from %s to %s", w->samples, t1, t2);
	}
	fputc('\n', f);
	fmt_time(r->window, ns, t1, sizeof(t1));
	fmt_time(r->interval, ns, t2, sizeof(t2));
	fprintf(f, "windows:   bucket %s   window %s   interval %s   %zu intervals\n",
		mt_fmt_bytes(r->bucket, b1, sizeof(b1)), t1, t2, r->data.n);
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

void render_text(FILE *f, const char *path, const struct memtrace_report *r)
{
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);
	char b1[64], c1[64], c2[64];

	print_header(f, path, r, w);
	if (!r->samples) {
		fprintf(f, "\nno samples in this trace\n");
		return;
	}
	fputc('\n', f);
	print_wss(f, "Data", w->wss, &r->data, r->bucket, r->bucket_shift);
	if (r->have_ip)
		print_wss(f, "Code", w->code_wss, &r->code, r->bucket, r->bucket_shift);
	else
		fprintf(f, "Code %s: not available (no instruction pointers in this trace)\n",
			w->code_wss);
	print_hot(f, r, w, r->hot_data, r->nhot_data, r->data.total, 0);
	if (r->have_ip)
		print_hot(f, r, w, r->hot_code, r->nhot_code, r->code.total, 1);
	snprintf(c1, sizeof(c1), ">= %s", w->count);
	snprintf(c2, sizeof(c2), "share of %s", w->samples);
	fprintf(f, "\n%s:\n  %10s  %10s  %12s  %s\n", w->curve, c1, "buckets", "size", c2);
	for (size_t i = 0; i < r->ncurve; i++)
		fprintf(f, "  %10" PRIu64 "  %10" PRIu64 "  %12s  %5.1f %%\n", r->curve[i].min_count,
			r->curve[i].buckets,
			mt_fmt_bytes(r->curve[i].buckets << r->bucket_shift, b1, sizeof(b1)),
			100.0 * (double)r->curve[i].samples / (double)r->samples);
	print_peaks(f, r, w);
	render_text_procs(f, r, w);
}
