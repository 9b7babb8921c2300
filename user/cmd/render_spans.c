/* render_spans.c - the --span / --by-span part of `memtracectl report`, text and JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/render.h"
#include "util/util.h"

#define LABEL_TEXT_MAX 60	/* characters of a label shown in text */

/* label on one line, cut to LABEL_TEXT_MAX characters */
static void print_label(FILE *f, const char *s)
{
	size_t n = 0;

	for (; s[n] && n < LABEL_TEXT_MAX; n++)
		fputc(s[n] == '\n' || s[n] == '\t' || s[n] == '\r' ? ' ' : s[n], f);
	if (s[n])
		fputs("...", f);
}

void render_text_spans(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		       const char *pattern)
{
	char b1[64], b2[64];

	if (pattern)
		fprintf(f, "\nSpan filter: only %s inside the %zu spans whose label contains \"%s\"\n",
			w->samples, r->nspans, pattern);
	if (!r->span_groups)
		return;
	fprintf(f, "\nBy span (%zu labels, %zu spans; %" PRIu64 " of %" PRIu64 " %s inside one):\n",
		r->nspan_groups, r->nspans, r->span_samples, r->samples, w->samples);
	fprintf(f, "  %8s  %10s  %16s  %10s  %10s  %10s  %s\n", "spans", "time", w->samples,
		"buckets", "avg/span", "max/span", "label");
	for (size_t i = 0; i < r->nspan_groups; i++) {
		const struct memtrace_span_group *g = &r->span_groups[i];
		if (r->time_is_ns && g->time >= 1000000000ull)
			snprintf(b1, sizeof(b1), "%.3f s", (double)g->time / 1e9);
		else if (r->time_is_ns && g->time >= 1000000)
			snprintf(b1, sizeof(b1), "%.3f ms", (double)g->time / 1e6);
		else if (r->time_is_ns)
			snprintf(b1, sizeof(b1), "%.3f us", (double)g->time / 1e3);
		else
			snprintf(b1, sizeof(b1), "%" PRIu64, g->time);
		snprintf(b2, sizeof(b2), "%.1f", g->avg_buckets);
		fprintf(f, "  %8" PRIu64 "  %10s  %16" PRIu64 "  %10" PRIu64 "  %10s  %10" PRIu64 "  ",
			g->spans, b1, g->samples, g->buckets, b2, g->max_buckets);
		print_label(f, g->label);
		fputc('\n', f);
	}
}

void render_json_spans(FILE *f, const struct memtrace_report *r)
{
	if (!r->span_groups)
		return;
	fprintf(f, ",\n  \"spans\": %zu,\n  \"span_samples\": %" PRIu64 ",\n  \"by_span\": [",
		r->nspans, r->span_samples);
	for (size_t i = 0; i < r->nspan_groups; i++) {
		const struct memtrace_span_group *g = &r->span_groups[i];
		fprintf(f, "%s\n    {\"label\": ", i ? "," : "");
		render_json_str(f, g->label);
		fprintf(f, ", \"spans\": %" PRIu64 ", \"time\": %" PRIu64 ", \"samples\": %" PRIu64
			   ", \"buckets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"avg_buckets\": %.3f"
			   ", \"max_buckets\": %" PRIu64 "}",
			g->spans, g->time, g->samples, g->buckets, g->buckets << r->bucket_shift,
			g->avg_buckets, g->max_buckets);
	}
	fprintf(f, "%s]", r->nspan_groups ? "\n  " : "");
}
