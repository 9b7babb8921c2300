/* render_json.c - `memtracectl report --json`: one JSON object on stdout. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "util/util.h"

void render_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* [{"ip": .., "pid": .., "count": .., "location": ..}, ...]: ip in its process */
static void json_ips(FILE *f, const struct memtrace_named_count *v, size_t n,
		     const struct render_addr *a)
{
	fputc('[', f);
	for (size_t j = 0; j < n; j++) {
		uint32_t pid;
		uint64_t ip = render_addr(a, v[j].addr, &pid);
		fprintf(f, "%s{\"ip\": %" PRIu64 ", \"pid\": %u, \"count\": %" PRIu64
			", \"location\": ", j ? ", " : "", ip, pid, v[j].count);
		render_json_str(f, v[j].name);
		fputc('}', f);
	}
	fputc(']', f);
}

/* address: as its process sees it (pid); key: the bucket as bucket_addr holds it */
static void json_hot(FILE *f, const struct memtrace_hot_bucket *hot, size_t n, const char *title,
		     double N, const struct render_addr *a)
{
	fprintf(f, ",\n  \"%s\": [", title);
	for (size_t i = 0; i < n; i++) {
		const struct memtrace_hot_bucket *h = &hot[i];
		char where[1024];
		snprintf(where, sizeof(where), "%s%s%s", h->where, h->object ? " " : "",
			 h->object ? h->object : "");
		uint32_t pid;
		uint64_t addr = render_addr(a, h->addr, &pid);
		fprintf(f, "%s\n    {\"address\": %" PRIu64 ", \"pid\": %u, \"key\": %" PRIu64
			", \"count\": %" PRIu64 ", \"location\": ", i ? "," : "", addr, pid, h->addr,
			h->count);
		render_json_str(f, where);
		fprintf(f, ", \"est_accesses\": %.6g, \"est_accesses_pm\": %.6g, \"rank_ties\": %zu",
			(double)h->count * N, 1.96 * sqrt((double)h->count) * N,
			memtrace_rank_ties(hot, n, i));
		fprintf(f, ", \"ip_samples\": %" PRIu64 ", \"functions\": [", h->with_ip);
		for (size_t j = 0; j < h->nfunctions; j++) {
			fprintf(f, "%s{\"name\": ", j ? ", " : "");
			render_json_str(f, h->functions[j].name);
			fprintf(f, ", \"count\": %" PRIu64 "}", h->functions[j].count);
		}
		fprintf(f, "], \"ips\": ");
		json_ips(f, h->ips, h->nips, a);
		fputc('}', f);
	}
	fprintf(f, "%s]", n ? "\n  " : "");
}

static void json_meta(FILE *f, const char *path, const struct memtrace_report *r)
{
	static const char *const keys[] = { "backend", "source", "event", "sees", "sample_period",
					    "time_unit", "target_pid", "host", "kernel", "cpu_model",
					    NULL };
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);
	char buf[1024], dropped[64];

	fprintf(f, "{\n  \"trace\": ");
	render_json_str(f, path);
	for (int i = 0; keys[i]; i++) {
		fprintf(f, ",\n  \"%s\": ", keys[i]);
		render_json_str(f, mt_kv_str(r->meta, keys[i], buf, sizeof(buf)));
	}
	/* record --aggregate: the interval (ns) of the AGG counts; absent otherwise */
	if (mt_kv_str(r->meta, "aggregate", buf, sizeof(buf)))
		fprintf(f, ",\n  \"aggregate\": %llu", strtoull(buf, NULL, 10));
	fprintf(f, ",\n  \"target_comm\": ");
	render_json_str(f, memtrace_target_comm(r->meta, r->end_meta, buf, sizeof(buf)));
	/* the keys below are the same for every class; these say what they count */
	fprintf(f, ",\n  \"sample_class\": ");
	render_json_str(f, w->sample_class);
	fprintf(f, ",\n  \"measure\": ");
	render_json_str(f, w->measure);
	fprintf(f, ",\n  \"complete\": %s", r->info.complete ? "true" : "false");
	fprintf(f, ",\n  \"end_reason\": ");
	render_json_str(f, mt_kv_str(r->end_meta, "end_reason", buf, sizeof(buf)));
	const char *dr = mt_kv_str(r->end_meta, "dropped", dropped, sizeof(dropped));
	fprintf(f, ",\n  \"bucket_size\": %" PRIu64 ",\n  \"window\": %" PRIu64
		   ",\n  \"interval\": %" PRIu64 ",\n  \"intervals\": %zu",
		r->bucket, r->window, r->interval, (size_t)r->intervals);
	/* duration: the recording's span, start to END (to the last sample without END) */
	fprintf(f, ",\n  \"samples\": %" PRIu64 ",\n  \"lost\": %" PRIu64
		   ",\n  \"throttled\": %" PRIu64 ",\n  \"dropped\": %s,\n  \"duration\": %" PRIu64,
		r->samples, r->info.lost, r->info.throttled, dr ? dr : "0",
		r->info.end_time > r->start_time ? r->info.end_time - r->start_time : 0);
	/* signed: a hint fault may come before the trace start */
	fprintf(f, ",\n  \"first_sample\": %" PRId64 ",\n  \"last_sample\": %" PRId64,
		r->samples ? (int64_t)(r->first_time - r->start_time) : 0,
		r->samples ? (int64_t)(r->last_time - r->start_time) : 0);
	fprintf(f, ",\n  \"reordered\": %" PRIu64, r->reordered);
	/* distinct (pid, tid) among the samples; null: no thread ids recorded */
	if (r->have_tid)
		fprintf(f, ",\n  \"threads\": %" PRIu64, r->threads);
	else
		fprintf(f, ",\n  \"threads\": null");
}

/* "wss_data_est": estimates where one access in N was sampled (docs/accuracy.md) */
static void json_est(FILE *f, const char *title, const struct memtrace_estimate *e, size_t rows,
		     uint64_t windows)
{
	size_t few = 0, unseen = 0, aliased = 0, tail = 0, unrefined = 0;

	for (size_t i = 0; i < rows; i++) {
		unrefined += !!(e->flags[i] & MEMTRACE_EST_NOT_REFINED);
		few += !!(e->flags[i] & MEMTRACE_EST_FEW_SAMPLES);
		unseen += !!(e->flags[i] & MEMTRACE_EST_MOSTLY_UNSEEN);
		aliased += !!(e->flags[i] & (MEMTRACE_EST_ALIASED | MEMTRACE_EST_ROUND_PERIOD));
		tail += !!(e->flags[i] & (MEMTRACE_EST_RUN_TAIL | MEMTRACE_EST_TAIL_INSNS));
	}
	fprintf(f, ",\n  \"%s\": {\"period\": %.6g, \"avg\": %.3f, \"avg_lo\": %.3f, "
		   "\"avg_hi\": %.3f, \"p95\": %.3f, \"peak\": %.3f, \"total\": %.3f, "
		   "\"total_lo\": %.3f, \"total_hi\": %.3f, \"total_reliable\": %s, "
		   "\"windows\": %zu, \"unreliable_windows\": %zu, \"few_samples_windows\": %zu, "
		   "\"mostly_unseen_windows\": %zu, \"aliasing_windows\": %zu, \"long_tail_windows\": %zu, "
		   "\"not_refined_windows\": %zu}",
		title, e->period, e->avg, e->avg_lo, e->avg_hi, e->p95, e->peak, e->total,
		e->total_lo, e->total_hi, e->total_flags ? "false" : "true", (size_t)windows,
		e->unreliable, few + (size_t)(e->period > 1.0 ? windows - rows : 0), unseen, aliased,
		tail, unrefined);
}

void render_json(FILE *f, const char *path, const struct memtrace_report *r, uint32_t pid,
		 const struct for_sizes *for_size)
{
	unsigned shift = r->bucket_shift;

	json_meta(f, path, r);
	if (r->region) {	/* --region: every number below counts only its addresses */
		char rl[512];
		fprintf(f, ",\n  \"region\": {\"name\": ");
		render_json_str(f, r->region);
		fprintf(f, ", \"bytes\": %" PRIu64 ", \"buckets_touched\": %" PRIu64
			   ", \"title\": ", r->region_bytes, r->data.total);
		render_json_str(f, memtrace_report_region_line(r, rl, sizeof(rl)));
		fprintf(f, "}");
	}
	fprintf(f, ",\n  \"wss_data\": {\"avg\": %.3f, \"peak\": %" PRIu64 ", \"total\": %" PRIu64
		   ", \"peak_bytes\": %" PRIu64 ", \"total_bytes\": %" PRIu64 "}",
		r->data.avg, r->data.peak, r->data.total, r->data.peak << shift,
		r->data.total << shift);
	fprintf(f, ",\n  \"wss_code\": {\"available\": %s, \"avg\": %.3f, \"peak\": %" PRIu64
		   ", \"total\": %" PRIu64 "}",
		r->have_ip ? "true" : "false", r->code.avg, r->code.peak, r->code.total);
	render_json_blind(f, r);
	json_est(f, "wss_data_est", &r->data_est, r->data.n, r->intervals);
	json_est(f, "wss_code_est", &r->code_est, r->code.n, r->intervals);
	fprintf(f, ",\n  \"hot_wss\": [");
	for (size_t i = 0; i < r->ncurve; i++)
		fprintf(f, "%s\n    {\"min_count\": %" PRIu64 ", \"min_accesses\": %.6g, "
			   "\"buckets\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"accesses\": %" PRIu64
			   ", \"noisy\": %s}",
			i ? "," : "", r->curve[i].min_count,
			(double)r->curve[i].min_count * r->data_est.period, r->curve[i].buckets,
			r->curve[i].buckets << shift, r->curve[i].samples,
			r->data_est.period > 1.0 && r->curve[i].min_count < 10 ? "true" : "false");
	fprintf(f, "%s]", r->ncurve ? "\n  " : "");
	struct render_addr a;
	render_addr_open(&a, r, pid);
	json_hot(f, r->hot_data, r->nhot_data, "hot_data", r->data_est.period, &a);
	json_hot(f, r->hot_code, r->nhot_code, "hot_code", r->data_est.period, &a);
	fprintf(f, ",\n  \"peaks_found\": %zu", r->peaks_found);
	fprintf(f, ",\n  \"peaks\": [");
	for (size_t p = 0; p < r->npeaks; p++) {
		const struct memtrace_peak *pk = &r->peaks[p];
		fprintf(f, "%s\n    {\"index\": %zu, \"time\": %" PRIu64 ", \"wss\": %" PRIu64
			   ", \"locations\": ",
			p ? "," : "", pk->index, pk->time, pk->value);
		json_ips(f, pk->locations, pk->nlocations, &a);
		fputc('}', f);
	}
	fprintf(f, "%s]", r->npeaks ? "\n  " : "");
	render_json_procs(f, r, &a);
	render_json_kinds(f, path, pid);
	if (r->region_chunks)	/* another pass over the file: only where there are some */
		render_json_damon(f, path, r);
	render_json_spans(f, r);
	render_json_mrc(f, r, for_size);
	render_json_cold(f, r);
	fprintf(f, "\n}\n");
}
