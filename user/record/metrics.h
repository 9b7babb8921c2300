/* metrics.h - record --metrics: what a recording serves to Prometheus
 * (text exposition format 0.0.4), and the text itself.
 *
 * The recorder fills a struct metrics_view (recorder_metrics_view) with
 * its counters and the latest closed window of its metrics series: the
 * distinct 4 KiB pages with a sample in (t_k - window, t_k], t_k = start +
 * k window, counted by the same engine (engine/wss.h) and in the same
 * windows as `memtracectl report --window W --bucket 4K` (interval = the
 * window).  metrics_format() writes it; metrics_http.c serves it.
 */
#ifndef MEMTRACE_RECORD_METRICS_H
#define MEMTRACE_RECORD_METRICS_H

#include <stdint.h>

#include "trace/codec.h"

/* Why a recording has no window series (the counters are served anyway). */
enum metrics_no_windows {
	METRICS_WINDOWS_OK = 0,
	METRICS_WINDOWS_NOT_YET,	/* no window has closed yet */
	METRICS_WINDOWS_INSTRUCTIONS,	/* time in instructions (valgrind): no wall clock */
	METRICS_WINDOWS_AGGREGATED,	/* --aggregate: no samples, AGG counts only */
	METRICS_WINDOWS_PASSES,		/* a pass-based source: seen or blind is judged
					 * by report from passes that come later */
};

struct metrics_window {
	uint64_t k;		/* report window k: it ends at t_k = start_time + k window */
	uint64_t end_ms;	/* t_k on the wall clock (Unix epoch, ms) */
	uint64_t data_pages;	/* distinct 4 KiB pages of the samples' data addresses */
	uint64_t code_pages;	/* ... of their instruction pointers */
	uint64_t samples;	/* samples in the window */
	int seen;		/* 1: the source saw the window (not pass-based; 0: a gap
				 * of record --pidfile meets it) */
};

struct metrics_view {
	const char *sample_class;	/* "first-touch", "sampled-access", ... */
	const char *samples_word;	/* "page faults", "sampled accesses" */
	const char *data_series;	/* "data pages first touched", "data working set" */
	const char *code_series;	/* "code at page faults", "code working set" */
	const char *event, *backend;	/* HEADER event and backend, "" if none */
	uint32_t pid;			/* the target, 0 for none (-a, --cgroup) */
	uint64_t window_ns;		/* the metrics window (= its interval) */
	int have_code;			/* the samples carry instruction pointers */
	int no_windows;			/* enum metrics_no_windows */
	struct metrics_window w;	/* when no_windows is METRICS_WINDOWS_OK */
	uint64_t samples, lost, throttled, dropped;	/* the recording's totals */
};

/* The exposition (text format 0.0.4) of v, appended to out. */
void metrics_format(const struct metrics_view *v, struct bytebuf *out);

/* The Content-Type of that text. */
#define METRICS_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

#endif
