/* render_compare.c - `memtracectl compare` output: the region and span rows
 * of a memtrace_compare as text tables or one JSON document. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "cmd/render_compare.h"
#include "util/util.h"

#define KEY_TEXT_MAX 40		/* characters of a region or span label shown in text */

static const char *fmt_pct(double p, char *buf, size_t len)
{
	if (isnan(p))
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f%%", p);
	return buf;
}

/* key on one line, cut to KEY_TEXT_MAX characters, padded to it */
static void print_key(FILE *f, const char *s)
{
	size_t n = 0;

	for (; s[n] && n < KEY_TEXT_MAX; n++)
		fputc(s[n] == '\n' || s[n] == '\t' || s[n] == '\r' ? ' ' : s[n], f);
	if (s[n])
		fputs("...", f);
	else
		fprintf(f, "%*s", (int)(KEY_TEXT_MAX + 3 - n), "");
}

static void text_region_row(FILE *f, const struct memtrace_compare_row *x)
{
	char b[6][32];

	fputs("  ", f);
	print_key(f, x->key);
	fprintf(f, " %10s %10s %8s %10s %10s %8s\n",
		mt_fmt_bytes((uint64_t)(x->volume[0] + 0.5), b[0], 32),
		mt_fmt_bytes((uint64_t)(x->volume[1] + 0.5), b[1], 32),
		fmt_pct(x->volume_change, b[2], 32), mt_fmt_bytes(x->touched[0], b[3], 32),
		mt_fmt_bytes(x->touched[1], b[4], 32), fmt_pct(x->touched_change, b[5], 32));
}

static void text_span_row(FILE *f, const struct memtrace_compare_row *x)
{
	char b[6][32];

	fputs("  ", f);
	print_key(f, x->key);
	fprintf(f, " %6" PRIu64 " %6" PRIu64 " %10s %10s %8s %10s %10s %8s\n", x->spans[0],
		x->spans[1], mt_fmt_bytes(x->touched[0], b[0], 32),
		mt_fmt_bytes(x->touched[1], b[1], 32), fmt_pct(x->touched_change, b[2], 32),
		mt_fmt_bytes((uint64_t)(x->avg_touched[0] + 0.5), b[3], 32),
		mt_fmt_bytes((uint64_t)(x->avg_touched[1] + 0.5), b[4], 32),
		fmt_pct(x->avg_touched_change, b[5], 32));
}

void render_text_compare(FILE *f, const char *a, const char *b, const struct memtrace_compare *c,
			 const struct compare_view *v)
{
	size_t n = c->nregions < v->top ? c->nregions : v->top;
	char bk[32];

	fprintf(f, "A = %s (%" PRIu64 " samples), B = %s (%" PRIu64 " samples); bucket %s",
		a, c->a->samples, b, c->b->samples, mt_fmt_bytes(c->bucket, bk, sizeof(bk)));
	if (c->scale != 1)
		fprintf(f, "; B's volumes x %.3g for its sample period", c->scale);
	if (v->span)
		fprintf(f, "\nonly samples inside spans whose label contains \"%s\" (A: %zu spans, "
			   "B: %zu)", v->span, c->a->nspans, c->b->nspans);
	fprintf(f, "\n\nBy region (volume = samples x bucket; touched = distinct buckets x bucket):\n  ");
	print_key(f, "region");
	fprintf(f, " %10s %10s %8s %10s %10s %8s\n", "A volume", "B volume", "change", "A touched",
		"B touched", "change");
	size_t idle = 0;	/* regions neither side sampled (JSON lists them) */
	for (size_t i = 0; i < c->nregions; i++)
		idle += !c->regions[i].samples[0] && !c->regions[i].samples[1];
	if (n > c->nregions - idle)
		n = c->nregions - idle;	/* rows are by volume: the idle ones are last */
	for (size_t i = 0; i < n; i++)
		text_region_row(f, &c->regions[i]);
	if (n + idle < c->nregions)
		fprintf(f, "  (%zu more regions; --top)\n", c->nregions - idle - n);
	text_region_row(f, &c->regions_total);
	if (!v->by_span)
		return;
	n = c->nspans < v->top ? c->nspans : v->top;
	fprintf(f, "\nBy span label (touched = distinct buckets in all its spans; per span = their "
		   "mean):\n  ");
	print_key(f, "span label");
	fprintf(f, " %6s %6s %10s %10s %8s %10s %10s %8s\n", "A n", "B n", "A touched",
		"B touched", "change", "A /span", "B /span", "change");
	for (size_t i = 0; i < n; i++)
		text_span_row(f, &c->spans[i]);
	if (n < c->nspans)
		fprintf(f, "  (%zu more labels; --top)\n", c->nspans - n);
	text_span_row(f, &c->spans_total);
}

static void json_num(FILE *f, const char *name, double p)
{
	if (isnan(p))
		fprintf(f, ", \"%s\": null", name);
	else
		fprintf(f, ", \"%s\": %.3f", name, p);
}

static void json_row(FILE *f, const struct memtrace_compare_row *x, int span)
{
	fputs("{\"key\": ", f);
	render_json_str(f, x->key);
	for (int s = 0; s < 2; s++) {
		const char *p = s ? "b" : "a";
		fprintf(f, ", \"%s_samples\": %" PRIu64 ", \"%s_volume\": %.0f, \"%s_touched\": %" PRIu64,
			p, x->samples[s], p, x->volume[s], p, x->touched[s]);
		if (span)
			fprintf(f, ", \"%s_spans\": %" PRIu64 ", \"%s_time\": %" PRIu64
				   ", \"%s_avg_touched\": %.1f, \"%s_max_touched\": %" PRIu64,
				p, x->spans[s], p, x->time[s], p, x->avg_touched[s], p, x->max_touched[s]);
	}
	json_num(f, "volume_change", x->volume_change);
	json_num(f, "touched_change", x->touched_change);
	if (span)
		json_num(f, "avg_touched_change", x->avg_touched_change);
	fputc('}', f);
}

static void json_rows(FILE *f, const char *name, const struct memtrace_compare_row *v, size_t n,
		      const struct memtrace_compare_row *total, int span)
{
	fprintf(f, ",\n  \"%s\": [", name);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_row(f, &v[i], span);
	}
	fprintf(f, "%s],\n  \"%s_total\": ", n ? "\n  " : "", name);
	json_row(f, total, span);
}

void render_json_compare(FILE *f, const char *a, const char *b, const struct memtrace_compare *c,
			 const struct compare_view *v)
{
	fputs("{\n  \"a\": ", f);
	render_json_str(f, a);
	fputs(", \"b\": ", f);
	render_json_str(f, b);
	fprintf(f, ",\n  \"bucket\": %" PRIu64 ", \"scale\": %.6g, \"a_samples\": %" PRIu64
		   ", \"b_samples\": %" PRIu64 ", \"a_spans\": %zu, \"b_spans\": %zu, \"span\": ",
		c->bucket, c->scale, c->a->samples, c->b->samples, c->a->nspans, c->b->nspans);
	if (v->span)
		render_json_str(f, v->span);
	else
		fputs("null", f);
	json_rows(f, "regions", c->regions, c->nregions, &c->regions_total, 0);
	json_rows(f, "spans", c->spans, c->nspans, &c->spans_total, 1);
	fputs("\n}\n", f);
}
