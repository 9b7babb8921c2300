/*
 * render_mrc.c - the miss-ratio curve of `memtracectl report --mrc`
 * (struct memtrace_mrc, docs/sizing.md): what it counts, its knees, the
 * hit ratio at --for-size, and the curve, as text or as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "util/util.h"

static void what_text(FILE *f, const struct memtrace_mrc *m)
{
	char b[64];

	if (m->exact)
		fprintf(f, "  exact: every data reference counted (%" PRIu64 "), %s buckets, LRU, "
			   "fully associative; cold misses (%" PRIu64 ") included\n",
			m->refs, mt_fmt_bytes(m->bucket, b, sizeof(b)), m->cold);
	else
		fprintf(f, "  estimated from 1-in-%.0f samples (%" PRIu64 " samples, ~%.3g references): "
			   "%s buckets, LRU, fully associative; cold misses estimated (%.4f of the "
			   "references); interval: sampling noise only, the estimator's own error is "
			   "in docs/sizing.md\n",
			m->period, m->refs, (double)m->refs * m->period,
			mt_fmt_bytes(m->bucket, b, sizeof(b)), m->cold_ratio);
}

/* A buffer-request trace: what the pool itself did while recording (END
 * buffer_hits, buffer_misses), to hold the curve against; 0 if not known. */
static int observed(const struct memtrace_report *r, uint64_t *hits, uint64_t *misses)
{
	char h[32], m[32];
	size_t len = r->end_meta ? strlen(r->end_meta) : 0;

	if (!len || !mt_kv_value(r->end_meta, len, "buffer_hits", h, sizeof(h)) ||
	    !mt_kv_value(r->end_meta, len, "buffer_misses", m, sizeof(m)))
		return 0;
	*hits = strtoull(h, NULL, 10);
	*misses = strtoull(m, NULL, 10);
	return *hits + *misses > 0;
}

void render_text_mrc(FILE *f, const struct memtrace_report *r, const struct for_sizes *fs)
{
	const struct memtrace_mrc *m = &r->mrc;
	char b[64], b2[64];

	if (!m->computed) {
		fprintf(f, "\nMiss-ratio curve: no data samples\n");
		return;
	}
	fprintf(f, "\nMiss-ratio curve (LRU cache of each size over the data references):\n");
	what_text(f, m);
	fprintf(f, "  footprint: %" PRIu64 " buckets (%s)%s\n", m->footprint,
		mt_fmt_bytes(m->footprint * m->bucket, b, sizeof(b)),
		m->exact ? "" : ", estimated");
	if (r->mrc_warmup)
		fprintf(f, "  warm-up: the references of the first %.3f s filled the cache, not "
			"counted\n", (double)r->mrc_warmup / 1e9);
	uint64_t oh, om;
	if (observed(r, &oh, &om))
		fprintf(f, "  observed while recording: the pool itself hit %.4f of the requests "
			"(%" PRIu64 " hits, %" PRIu64 " misses, the whole recording; compare with "
			"--for-size at its size)\n", (double)oh / (double)(oh + om), oh, om);
	for (size_t i = 0; fs && i < fs->n; i++) {
		uint64_t for_size = fs->v[i];
		double lo, hi, miss = memtrace_mrc_miss(r, for_size, &lo, &hi);
		fprintf(f, "  at %s: predicted hit ratio %.4f (miss ratio %.4f",
			mt_fmt_bytes(for_size, b, sizeof(b)), 1 - miss, miss);
		if (!m->exact)
			fprintf(f, ", hit ratio 95 %% interval %.4f-%.4f", 1 - hi, 1 - lo);
		fprintf(f, ")%s\n", for_size < m->bucket ? ": smaller than one bucket" : "");
	}
	if (m->nknees) {
		fprintf(f, "  knees (the curve drops, then flattens):\n");
		for (size_t k = 0; k < m->nknees; k++) {
			const struct memtrace_mrc_point *p = &m->points[m->knees[k]];
			double half = memtrace_mrc_miss(r, p->bytes / 2, NULL, NULL);
			fprintf(f, "    %12s  miss ratio %.4f (%.4f at %s)\n",
				mt_fmt_bytes(p->bytes, b, sizeof(b)), p->miss_ratio, half,
				mt_fmt_bytes(p->bytes / 2, b2, sizeof(b2)));
		}
	} else {
		fprintf(f, "  knees: none (no drop of 0.05 within a doubling that then flattens)\n");
	}
	fprintf(f, "  %12s  %10s%s\n", "cache size", "miss ratio", m->exact ? "" : "  95 % interval");
	/* the text shows every 4th point and the last (--json: all of them) */
	for (size_t i = 0; i < m->n; i++) {
		if (i % 4 && i + 1 != m->n)
			continue;
		const struct memtrace_mrc_point *p = &m->points[i];
		fprintf(f, "  %12s  %10.4f", mt_fmt_bytes(p->bytes, b, sizeof(b)), p->miss_ratio);
		if (!m->exact)
			fprintf(f, "  %.4f-%.4f", p->lo, p->hi);
		fputc('\n', f);
	}
}

void render_json_mrc(FILE *f, const struct memtrace_report *r, const struct for_sizes *fs)
{
	const struct memtrace_mrc *m = &r->mrc;

	if (!m->computed)
		return;
	fprintf(f, ",\n  \"mrc_info\": {\"method\": \"%s\", \"period\": %.6g, \"bucket\": %" PRIu64
		   ", \"references\": %" PRIu64 ", \"cold\": %" PRIu64 ", \"cold_ratio\": %.6g"
		   ", \"footprint\": %" PRIu64 ", \"footprint_bytes\": %" PRIu64 ", \"knees\": [",
		m->exact ? "exact" : "estimated", m->period, m->bucket, m->refs, m->cold,
		m->cold_ratio, m->footprint, m->footprint * m->bucket);
	for (size_t k = 0; k < m->nknees; k++)
		fprintf(f, "%s%" PRIu64, k ? ", " : "", m->points[m->knees[k]].bytes);
	fprintf(f, "], \"warmup\": %" PRIu64, r->mrc_warmup);
	uint64_t oh, om;
	if (observed(r, &oh, &om))
		fprintf(f, ", \"observed\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
			   ", \"hit_ratio\": %.6f}", oh, om, (double)oh / (double)(oh + om));
	/* for_size: the first --for-size (as before lists), for_sizes: each */
	for (size_t i = 0; fs && i < fs->n; i++) {
		double lo, hi, miss = memtrace_mrc_miss(r, fs->v[i], &lo, &hi);
		if (!i)
			fprintf(f, ", \"for_size\": {\"bytes\": %" PRIu64 ", \"hit_ratio\": %.6f, "
				   "\"hit_lo\": %.6f, \"hit_hi\": %.6f}, \"for_sizes\": [", fs->v[i],
				1 - miss, 1 - hi, 1 - lo);
		fprintf(f, "%s{\"bytes\": %" PRIu64 ", \"hit_ratio\": %.6f, \"hit_lo\": %.6f, "
			   "\"hit_hi\": %.6f}", i ? ", " : "", fs->v[i], 1 - miss, 1 - hi, 1 - lo);
		if (i + 1 == fs->n)
			fprintf(f, "]");
	}
	fprintf(f, "}");
	fprintf(f, ",\n  \"mrc\": [");
	for (size_t i = 0; i < m->n; i++)
		fprintf(f, "%s\n    {\"bytes\": %" PRIu64 ", \"miss_ratio\": %.6f, \"lo\": %.6f, "
			   "\"hi\": %.6f}", i ? "," : "", m->points[i].bytes, m->points[i].miss_ratio,
			m->points[i].lo, m->points[i].hi);
	fprintf(f, "%s]", m->n ? "\n  " : "");
}
