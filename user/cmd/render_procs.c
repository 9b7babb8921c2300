/* render_procs.c - the --per-process part of `memtracectl report`, text and JSON. */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/render.h"
#include "util/util.h"

#define HOT_PER_PROCESS_TEXT 3	/* hot buckets shown per process in text */

void render_text_procs(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		       const struct render_addr *a)
{
	char b1[64], b2[64], b3[64];

	if (!r->nprocesses)
		return;
	fprintf(f, "\nPer process (%zu; %" PRIu64 " of %" PRIu64
		   " buckets lie in shared mappings, counted once):\n",
		r->nprocesses, r->shared_buckets, r->data.total);
	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct memtrace_process *p = &r->processes[i];
		const struct memtrace_series *s = &p->data;
		fprintf(f, "  pid %u%s%s%s: %" PRIu64 " %s, data %s avg/peak/total "
			   "%.1f/%" PRIu64 "/%" PRIu64 " buckets (%s/%s/%s), %" PRIu64 " shared\n",
			p->pid, *p->comm ? " (" : "", p->comm, *p->comm ? ")" : "", p->samples,
			w->samples, w->wss,
			s->avg, s->peak, s->total,
			mt_fmt_bytes((uint64_t)(s->avg * (double)r->bucket), b1, sizeof(b1)),
			mt_fmt_bytes(s->peak << r->bucket_shift, b2, sizeof(b2)),
			mt_fmt_bytes(s->total << r->bucket_shift, b3, sizeof(b3)), p->shared);
		const struct memtrace_estimate *e = &p->data_est;
		if (e->period > 1.0)
			fprintf(f, "    estimated avg %.1f [%.1f, %.1f], p95 %.1f, total %.1f buckets, "
				   "%zu of %zu windows unreliable\n", e->avg, e->avg_lo, e->avg_hi, e->p95,
				e->total, e->unreliable, (size_t)r->intervals);
		for (size_t j = 0; j < p->nhot && j < HOT_PER_PROCESS_TEXT; j++)
			fprintf(f, "    %10" PRIu64 "  0x%016" PRIx64 "  %s\n", p->hot[j].count,
				render_addr(a, p->hot[j].addr, NULL), p->hot[j].where);
	}
}

void render_json_procs(FILE *f, const struct memtrace_report *r, const struct render_addr *a)
{
	if (!r->nprocesses)
		return;
	fprintf(f, ",\n  \"shared_buckets\": %" PRIu64 ",\n  \"processes\": [", r->shared_buckets);
	for (size_t i = 0; i < r->nprocesses; i++) {
		const struct memtrace_process *p = &r->processes[i];
		fprintf(f, "%s\n    {\"pid\": %u, \"comm\": ", i ? "," : "", p->pid);
		render_json_str(f, p->comm);
		fprintf(f, ", \"samples\": %" PRIu64 ", \"wss_data\": {\"avg\": %.3f, \"peak\": %" PRIu64
			   ", \"total\": %" PRIu64 "}, \"wss_data_est\": {\"avg\": %.3f, \"avg_lo\": %.3f, "
			   "\"avg_hi\": %.3f, \"p95\": %.3f, \"total\": %.3f, \"unreliable_windows\": %zu}"
			   ", \"shared_buckets\": %" PRIu64 ", \"hot_data\": [",
			p->samples, p->data.avg, p->data.peak, p->data.total, p->data_est.avg,
			p->data_est.avg_lo, p->data_est.avg_hi, p->data_est.p95, p->data_est.total,
			p->data_est.unreliable, p->shared);
		for (size_t j = 0; j < p->nhot; j++) {
			uint32_t pid;
			uint64_t addr = render_addr(a, p->hot[j].addr, &pid);
			fprintf(f, "%s{\"address\": %" PRIu64 ", \"pid\": %u, \"key\": %" PRIu64
				", \"count\": %" PRIu64 ", \"location\": ",
				j ? ", " : "", addr, pid, p->hot[j].addr, p->hot[j].count);
			render_json_str(f, p->hot[j].where);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]");
}
