/* metrics.c - the Prometheus text exposition (format 0.0.4) of a
 * recording's metrics_view (metrics.h). */
#include "record/metrics.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void put(struct bytebuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct bytebuf *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		bytebuf_put(out, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* A label value: \, " and newline escaped. */
static void put_label(struct bytebuf *out, const char *name, const char *value, int first)
{
	put(out, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = value ? value : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			bytebuf_put(out, "\\", 1);
		if (*p == '\n')
			bytebuf_put(out, "\\n", 2);
		else
			bytebuf_put(out, p, 1);
	}
	bytebuf_put(out, "\"", 1);
}

/* "# HELP" (\ and newline escaped) and "# TYPE" lines. */
static void head(struct bytebuf *out, const char *name, const char *type, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void head(struct bytebuf *out, const char *name, const char *type, const char *fmt, ...)
{
	char help[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(help, sizeof(help), fmt, ap);
	va_end(ap);
	put(out, "# HELP %s ", name);
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			bytebuf_put(out, "\\\\", 2);
		else if (*p == '\n')
			bytebuf_put(out, "\\n", 2);
		else
			bytebuf_put(out, p, 1);
	}
	put(out, "\n# TYPE %s %s\n", name, type);
}

/* A window gauge: NAME{sample_class="..."[,space="..."]} VALUE END_MS */
static void window_line(struct bytebuf *out, const struct metrics_view *v, const char *name,
			const char *space, uint64_t value)
{
	put(out, "%s{", name);
	put_label(out, "sample_class", v->sample_class, 1);
	if (space)
		put_label(out, "space", space, 0);
	put(out, "} %" PRIu64 " %" PRIu64 "\n", value, v->w.end_ms);
}

static const char *no_windows_why(int why)
{
	switch (why) {
	case METRICS_WINDOWS_NOT_YET: return "no window has closed yet";
	case METRICS_WINDOWS_INSTRUCTIONS: return "time is counted in instructions, not on a clock";
	case METRICS_WINDOWS_AGGREGATED: return "--aggregate records counts per interval, not samples";
	case METRICS_WINDOWS_PASSES:
		return "a pass-based source: whether a window was seen or blind is known only from "
		       "passes recorded after it (memtracectl report)";
	default: return "";
	}
}

static void windows(const struct metrics_view *v, struct bytebuf *out)
{
	double tau = (double)v->window_ns / 1e9;

	head(out, "memtrace_window_seconds", "gauge",
	     "Length of the metrics windows (t - window, t], one every window: memtracectl report "
	     "--window %gs --bucket 4K gives the same windows", tau);
	put(out, "memtrace_window_seconds %.9g\n", tau);
	if (v->no_windows) {
		put(out, "# memtrace: no window series: %s\n", no_windows_why(v->no_windows));
		return;
	}
	head(out, "memtrace_window_index", "gauge",
	     "The latest closed window's number k, stamped with its end: it ends at the trace's "
	     "start_time + k x %gs (report's series row of time k x window)", tau);
	put(out, "memtrace_window_index %" PRIu64 " %" PRIu64 "\n", v->w.k, v->w.end_ms);
	head(out, "memtrace_window_seen", "gauge",
	     "1: the source could see that window; 0: blind, its pages are a gap (not served), "
	     "not 0");
	put(out, "memtrace_window_seen %d %" PRIu64 "\n", v->w.seen ? 1 : 0, v->w.end_ms);
	if (!v->w.seen)
		return;
	head(out, "memtrace_window_pages", "gauge",
	     "Distinct 4 KiB pages with at least one sample in the latest closed window, stamped "
	     "with its end: space data = %s, space code = %s (%s)", v->data_series,
	     v->code_series, v->samples_word);
	window_line(out, v, "memtrace_window_pages", "data", v->w.data_pages);
	if (v->have_code)
		window_line(out, v, "memtrace_window_pages", "code", v->w.code_pages);
	head(out, "memtrace_window_samples", "gauge",
	     "Samples (%s) in the latest closed window, stamped with its end", v->samples_word);
	window_line(out, v, "memtrace_window_samples", NULL, v->w.samples);
}

void metrics_format(const struct metrics_view *v, struct bytebuf *out)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%" PRIu32, v->pid);
	head(out, "memtrace_recording_info", "gauge",
	     "The recording: what a sample is (sample_class), the event and backend, the target pid "
	     "(0: none, -a or --cgroup)");
	put(out, "memtrace_recording_info{");
	put_label(out, "sample_class", v->sample_class, 1);
	put_label(out, "event", v->event, 0);
	put_label(out, "backend", v->backend, 0);
	put_label(out, "pid", pid, 0);
	put(out, "} 1\n");

	head(out, "memtrace_samples_total", "counter", "Samples (%s) recorded", v->samples_word);
	put(out, "memtrace_samples_total{");
	put_label(out, "sample_class", v->sample_class, 1);
	put(out, "} %" PRIu64 "\n", v->samples);
	head(out, "memtrace_lost_total", "counter",
	     "Samples the kernel counted as lost (its buffers were full): not in the trace");
	put(out, "memtrace_lost_total %" PRIu64 "\n", v->lost);
	head(out, "memtrace_throttled_total", "counter",
	     "Samples the kernel did not take while it throttled the event");
	put(out, "memtrace_throttled_total %" PRIu64 "\n", v->throttled);
	head(out, "memtrace_dropped_total", "counter",
	     "Samples dropped in the kernel module's rings: not in the trace");
	put(out, "memtrace_dropped_total %" PRIu64 "\n", v->dropped);
	windows(v, out);
}
