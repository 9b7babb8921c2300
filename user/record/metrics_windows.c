/* metrics_windows.c - record --metrics: the window series a recording
 * serves (record/metrics.h), counted by engine/wss.h on the merged samples
 * in the windows of `report --window W --bucket 4K` (interval = window,
 * from the trace's start), each closed once every sample up to its end is
 * merged. */
#include "record/recorder_impl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/metrics.h"

#define METRICS_BUCKET_SHIFT	12	/* 4 KiB pages */

struct metrics_windows {
	uint64_t window;	/* ns, = the interval */
	int why;		/* enum metrics_no_windows; METRICS_WINDOWS_OK: counting */
	int counting;		/* data and code initialised */
	struct wss data, code;
	int have_code;
	uint64_t swept_k;	/* data.k at the last wss_expire() */
	uint64_t wall_offset;	/* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	/* the latest report of each series emitted (k = 0: none) */
	uint64_t data_k, code_k, data_t;
	struct wss_row data_row, code_row;
	/* data.samples when the previous report was emitted: the windows do not
	 * overlap (window = interval), so a report's samples are the samples
	 * counted since (without wss counts' cost: n, f1, f2 are not needed) */
	uint64_t samples_before;
	struct metrics_window last;	/* the latest closed window, k = 0: none yet */
	char event[64], backend[64];
};

void recorder_set_metrics_window(struct recorder *r, uint64_t window_ns)
{
	if (!r->metrics)
		r->metrics = mt_xcalloc(1, sizeof(*r->metrics));
	r->metrics->window = window_ns;
}

static void data_row(void *ctx, uint64_t k, uint64_t t, const struct wss_row *row)
{
	struct metrics_windows *m = ctx;

	m->data_k = k;
	m->data_t = t;
	m->data_row = *row;
	m->data_row.samples = m->data.samples - m->samples_before;
	m->samples_before = m->data.samples;
}

static void code_row(void *ctx, uint64_t k, uint64_t t, const struct wss_row *row)
{
	struct metrics_windows *m = ctx;

	(void)t;
	m->code_k = k;
	m->code_row = *row;
}

static int pass_based(struct recorder *r)
{
	char buf[64];

	if (meta_value(r, "passes", buf, sizeof(buf)))
		return 1;
	return meta_value(r, "event", buf, sizeof(buf)) &&
	       (!strcmp(buf, "hint-faults") || !strcmp(buf, "damon"));
}

int metrics_windows_begin(struct recorder *r)
{
	struct metrics_windows *m = r->metrics;
	struct timespec rt;
	char err[256];

	if (!m)
		return 0;
	if (!meta_value(r, "event", m->event, sizeof(m->event)))
		m->event[0] = 0;
	if (!meta_value(r, "backend", m->backend, sizeof(m->backend)))
		m->backend[0] = 0;
	if (!r->time_is_ns)
		m->why = METRICS_WINDOWS_INSTRUCTIONS;
	else if (r->aggregated)
		m->why = METRICS_WINDOWS_AGGREGATED;
	else if (pass_based(r))
		m->why = METRICS_WINDOWS_PASSES;
	if (m->why) {
		mt_warn("--metrics: no window series (counters only): %s",
			m->why == METRICS_WINDOWS_INSTRUCTIONS ? "time is counted in instructions" :
			m->why == METRICS_WINDOWS_AGGREGATED ? "--aggregate records no samples" :
			"seen or blind windows of a pass-based source are judged by report only");
		return 0;
	}
	struct wss_config cfg = { r->start, m->window, m->window, METRICS_BUCKET_SHIFT, 0 };
	if (wss_init(&m->data, &cfg, err, sizeof(err))) {
		mt_err("--metrics: %s", err);
		return -1;
	}
	if (wss_init(&m->code, &cfg, err, sizeof(err))) {
		wss_free(&m->data);
		mt_err("--metrics: %s", err);
		return -1;
	}
	m->counting = 1;
	m->data.on_row = data_row;
	m->data.row_ctx = m;
	m->code.on_row = code_row;
	m->code.row_ctx = m;
	m->have_code = !!(r->columns & (1u << COL_IP));
	clock_gettime(CLOCK_REALTIME, &rt);
	m->wall_offset = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec - mt_now_ns();
	return 0;
}

void metrics_windows_add(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	struct metrics_windows *m = r->metrics;

	if (!m || !m->counting)
		return;
	wss_add_samples(&m->data, s, n, 0);
	if (m->have_code)
		wss_add_samples(&m->code, s, n, 1);
}

void metrics_windows_close(struct recorder *r, uint64_t limit)
{
	struct metrics_windows *m = r->metrics;

	if (!m || !m->counting)
		return;
	wss_close_until(&m->data, limit);
	if (m->have_code)
		wss_close_until(&m->code, limit);
	if (m->data_k && (!m->have_code || m->code_k == m->data_k) && m->data_k != m->last.k) {
		m->last = (struct metrics_window){
			.k = m->data_k,
			.end_ms = (m->data_t + m->wall_offset) / 1000000,
			.data_pages = m->data_row.seen,
			.code_pages = m->have_code ? m->code_row.seen : 0,
			.samples = m->data_row.samples,
			/* no target in part of it (record --pidfile): blind, not 0 */
			.seen = !recorder_gap_overlaps(r, m->data_t > m->window ? m->data_t - m->window
									 : 0, m->data_t),
		};
	}
	/* memory follows the pages of the open windows (live_wss.c does the same) */
	if (m->data.k - m->swept_k >= 1) {
		wss_expire(&m->data);
		wss_expire(&m->code);
		m->swept_k = m->data.k;
	}
}

void recorder_metrics_view(struct recorder *r, struct metrics_view *v)
{
	struct metrics_windows *m = r->metrics;
	const struct memtrace_words *w = r->words;

	memset(v, 0, sizeof(*v));
	v->sample_class = w ? w->sample_class : "";
	v->samples_word = w ? w->samples : "samples";
	v->data_series = w ? w->data_series : "";
	v->code_series = w ? w->code_series : "";
	v->event = m ? m->event : "";
	v->backend = m ? m->backend : "";
	v->pid = r->target > 0 ? (uint32_t)r->target : 0;
	v->samples = r->samples;
	v->lost = r->total_lost;
	v->throttled = r->total_throttled;
	v->dropped = r->dropped;
	v->window_ns = m ? m->window : 0;
	v->have_code = m && m->have_code;
	v->no_windows = !m || !r->begun ? METRICS_WINDOWS_NOT_YET :
			m->why ? m->why : !m->last.k ? METRICS_WINDOWS_NOT_YET : METRICS_WINDOWS_OK;
	if (v->no_windows == METRICS_WINDOWS_OK)
		v->w = m->last;
}

void metrics_windows_free(struct recorder *r)
{
	struct metrics_windows *m = r->metrics;

	if (!m)
		return;
	if (m->counting) {
		wss_free(&m->data);
		wss_free(&m->code);
	}
	free(m);
	r->metrics = NULL;
}
