/*
 * report.c - memtrace_report_compute: the config, the two passes over the
 * trace and the WSS series.  Pass 1 feeds the (filtered) samples to the
 * data and code WSS and collects what the trace holds (info, HEADER/END
 * text, maps); peaks and hot buckets follow from it.  Pass 2, only when
 * something needs it, counts who touched the hot buckets, the instructions
 * and mappings inside each peak's window, and the samples per region.
 * Nothing here prints.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "resolve/labels.h"
#include "trace/format.h"
#include "trace/pipe.h"
#include "trace/reader.h"
#include "util/util.h"

#define DEF_TOP 10
#define DEF_MAX_PEAKS 100
#define DEF_LOCATIONS 3
#define DEF_FUNCTIONS 3

void memtrace_report_free(struct memtrace_report *r)
{
	struct rep_owner *o = (struct rep_owner *)r;

	if (!o)
		return;
	for (size_t i = 0; i < o->nallocs; i++)
		free(o->allocs[i]);
	free(o->allocs);
	free(o);
}

/* a SAMPLES chunk's samples come in one or more parts (part 0, 1, ...) */
typedef void (*rep_samples_fn)(struct rep_ctx *c, struct memtrace_sample *s, size_t n,
			       uint32_t columns, unsigned part);
typedef void (*rep_chunk_fn)(struct rep_ctx *c, const struct trace_chunk *ch);

/*
 * One pass over path: every SAMPLES chunk decoded (a thread ahead,
 * trace/pipe.h), passed through prep on the decoding thread, then to
 * on_samples in file order; the rest to on_chunk.
 */
static int rep_scan(struct rep_ctx *c, const char *path, trace_pipe_prep_fn prep,
		    rep_samples_fn on_samples, rep_chunk_fn on_chunk, char *err, size_t errlen)
{
	struct trace_pipe *p = trace_pipe_open(path, PIPE_SAMPLES, NULL, 0, err, errlen);
	struct trace_batch b;
	int rc;

	if (!p)
		return -1;
	if (prep)
		trace_pipe_prepare(p, prep, c);
	/* what the engine reads: cpu, weight and data_src never, tid in pass 1 (the
	 * threads count), for --tid and spans (a span is a thread's) */
	bool tid = c->scan_tid || c->filter->tid || c->span_pattern ||
		   (c->flags & MEMTRACE_REPORT_BY_SPAN);
	trace_pipe_want(p, (1u << COL_TIME) | (1u << COL_ADDR) | (1u << COL_PID) | (1u << COL_IP) |
			       (tid ? 1u << COL_TID : 0));
	while ((rc = trace_pipe_next(p, &b, err, errlen)) > 0) {
		if (b.c.type != CHUNK_SAMPLES) {
			if (on_chunk)
				on_chunk(c, &b.c);
		} else if (on_samples) {
			on_samples(c, b.s, b.n, b.columns, b.part);
		}
	}
	if (rc >= 0 && c->r->info.truncated_bytes == 0)
		c->r->info.truncated_bytes = trace_truncated(trace_pipe_reader(p));
	trace_pipe_close(p);
	return rc < 0 ? -1 : 0;
}

static char *kv_text(struct rep_ctx *c, const unsigned char *p, size_t len)
{
	char *s = rep_alloc(c, len + 1);

	memcpy(s, p, len);
	for (size_t i = 0; i < len; i++)	/* NULs would end the text early */
		if (!s[i])
			s[i] = '\n';
	return s;
}

static void pass1_chunk(struct rep_ctx *c, const struct trace_chunk *ch)
{
	struct memtrace_trace_info *in = &c->r->info;

	in->chunks++;
	if (ch->type == CHUNK_HEADER) {
		c->r->meta = kv_text(c, ch->data, ch->len);
	} else if (ch->type == CHUNK_MAPS && ch->len >= MAPS_HDR_SIZE) {
		in->maps++;	/* read before the samples: read_maps() */
	} else if (ch->type == CHUNK_THREADS) {
		in->threads += ch->len / THREAD_REC_SIZE;
	} else if (ch->type == CHUNK_LOST) {
		for (size_t off = 0; off + LOST_REC_SIZE <= ch->len; off += LOST_REC_SIZE) {
			in->lost += get_le64(ch->data + off + 16);
			in->throttled += get_le64(ch->data + off + 24);
		}
	} else if (ch->type == CHUNK_END) {
		c->r->end_meta = kv_text(c, ch->data, ch->len);
		in->complete = 1;
	} else if (ch->type == CHUNK_AGG) {
		rep_agg_pass1(c, ch);
	} else if (ch->type == CHUNK_REGIONS) {
		c->r->region_chunks++;
	}
}

/*
 * Pass 1 on the decoding thread (rep_scan's prep): what the file holds
 * (columns, sample times and count), the filter and, unless per process
 * (its series look the spaces up on the caller's thread), the keys, and the
 * threads seen and the code WSS.  Only it touches those (info's columns,
 * samples, first and last time, c->spaces, the threads' set, c->code)
 * during the pass.  Not for a file with AGG chunks: their rows
 * count into the same info and keys on the caller's thread, in file order
 * with the samples; pass1_samples calls it there.
 */
static size_t pass1_prep(void *ctx, struct memtrace_sample *s, size_t n, uint32_t columns,
			 unsigned part)
{
	struct rep_ctx *c = ctx;
	struct memtrace_trace_info *in = &c->r->info;

	(void)part;
	in->columns |= columns;
	if (n) {
		uint64_t lo = in->samples ? in->first_time : s[0].time;
		uint64_t hi = in->samples ? in->last_time : s[0].time;
		for (size_t i = 0; i < n; i++) {
			lo = s[i].time < lo ? s[i].time : lo;
			hi = s[i].time > hi ? s[i].time : hi;
		}
		in->first_time = lo;
		in->last_time = hi;
	}
	in->samples += n;
	n = sample_filter_apply(&c->filt, s, n);
	if (n)	/* a set of (pid, tid): the order does not matter */
		rep_threads_add(c, s, n, columns);
	if (n && !(c->flags & MEMTRACE_REPORT_PER_PROCESS)) {
		mt_spaces_key_samples(c->spaces, s, n);
		/* the code WSS is its own: here, beside the caller's data WSS */
		wss_add_samples(&c->code, s, n, 1);
	}
	return n;
}

/* The rest of pass 1 on the (filtered) samples, in file order. */
static void pass1_samples(struct rep_ctx *c, struct memtrace_sample *s, size_t n,
			  uint32_t columns, unsigned part)
{
	struct memtrace_report *r = c->r;

	if (!part)
		r->info.chunks++;
	if (c->has_agg)
		n = pass1_prep(c, s, n, columns, part);
	if (!n)
		return;
	if (!c->first_seen) {
		c->first_seen = 1;
		r->first_time = s[0].time;
	}
	if (c->flags & MEMTRACE_REPORT_PER_PROCESS) {
		mt_spaces_key_samples(c->spaces, s, n);
		rep_procs_add(c, s, n);
	}
	rep_spans_add(c, s, n);
	if (columns & (1u << COL_IP))
		r->have_ip = 1;
	wss_add_samples(&c->data, s, n, 0);
	if (c->data.cfg.counts)
		wss_spatial_add(&c->data_sp, s, n, c->data.cfg.bucket_shift);
	rep_mrc_add(c, s, n);
	rep_cold_add(c, s, n);
	if (c->flags & MEMTRACE_REPORT_PER_PROCESS)	/* keyed above: else in pass1_prep */
		wss_add_samples(&c->code, s, n, 1);
	if (s[n - 1].time > r->last_time)
		r->last_time = s[n - 1].time;
	r->samples += n;
}

/*
 * Pass 2 on the decoding thread: the filter, the keys, what ran and where
 * data went in each peak window (the peaks' state is its own: every
 * filtered sample in file order, as on one thread), then only the samples
 * that may fall into a hot bucket go on to pass2_samples (the others
 * would count nowhere there: hot_attr_add drops them on the same filter).
 * Most samples are dropped, on the core that has just decoded them.
 */
static size_t pass2_prep(void *ctx, struct memtrace_sample *s, size_t n, uint32_t columns,
			 unsigned part)
{
	struct rep_ctx *c = ctx;
	size_t k = 0;

	(void)columns;
	(void)part;
	n = sample_filter_apply(&c->filt, s, n);
	mt_spaces_key_samples(c->spaces, s, n);
	if (c->flags & MEMTRACE_REPORT_REGIONS)
		k = n;	/* every sample counts in its region */
	for (size_t i = 0; i < n; i++) {
		if (c->npeaks) {
			/* peaks are in time order and samples nearly so: skip the windows
			 * that ended before this sample, stop at the first not yet begun */
			while (c->peak_next < c->npeaks && c->peak_to[c->peak_next] < s[i].time)
				c->peak_next++;
			for (size_t p = c->peak_next; p < c->npeaks && c->peak_from[p] < s[i].time;
			     p++) {
				if (s[i].time > c->peak_to[p])
					continue;
				if (c->peak_ips && s[i].ip)
					bucket_map_get(&c->peak_ips[p], s[i].ip)->count++;
				c->peak_ranges[p * (c->nlayout + 1) + rep_range_of(c, s[i].addr)]++;
			}
		}
		if (c->flags & MEMTRACE_REPORT_REGIONS)
			continue;
		if (hot_attr_maybe(&c->attr_obj, s[i].addr) ||
		    (s[i].ip && (hot_attr_maybe(&c->attr_data, s[i].addr) ||
				 hot_attr_maybe(&c->attr_code, s[i].ip))))
			s[k++] = s[i];
	}
	return k;
}

/* Pass 2: who touched the hot buckets (and, asked, the samples per region). */
static void pass2_samples(struct rep_ctx *c, struct memtrace_sample *s, size_t n,
			  uint32_t columns, unsigned part)
{
	int regions = !!(c->flags & MEMTRACE_REPORT_REGIONS);

	(void)columns;
	(void)part;
	for (size_t i = 0; i < n; i++) {
		hot_attr_add(&c->attr_obj, s[i].addr, s[i].addr);
		if (regions)
			rep_regions_add(c, s[i].addr);
		if (s[i].ip) {
			hot_attr_add(&c->attr_data, s[i].addr, s[i].ip);
			hot_attr_add(&c->attr_code, s[i].ip, s[i].ip);
		}
	}
}

void rep_fill_series(struct rep_ctx *c, struct memtrace_series *out, const struct wss *w)
{
	uint64_t *time = rep_alloc(c, (w->nrows ? w->nrows : 1) * sizeof(uint64_t));
	uint64_t *wss = rep_alloc(c, (w->nrows ? w->nrows : 1) * sizeof(uint64_t));
	double sum = 0;

	uint64_t all = wss_intervals(w);	/* the reports not stored are 0 */

	out->n = w->nrows;
	out->peak = 0;
	for (size_t i = 0; i < w->nrows; i++) {
		time[i] = w->rowk[i] * c->r->interval;
		wss[i] = w->rows[i];
		sum += (double)w->rows[i];
		if (w->rows[i] > out->peak)
			out->peak = w->rows[i];
	}
	out->time = time;
	out->wss = wss;
	out->avg = all ? sum / (double)all : 0;
	out->total = wss_total_buckets(w);
}

static int peak_by_value(const void *a, const void *b)
{
	const struct peak *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int peak_by_index(const void *a, const void *b)
{
	const struct peak *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* Peaks of the data series, the max_peaks largest in time order, and their windows. */
static void find_peaks(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;
	struct peak_config pc = peak_defaults;

	pc.g = c->sensitivity;
	c->npeaks = r->peaks_found = peaks_detect(c->data.rows, c->data.rowk, c->data.nrows, &pc,
							 &c->peaks);
	if (c->npeaks > c->max_peaks) {
		qsort(c->peaks, c->npeaks, sizeof(*c->peaks), peak_by_value);
		c->npeaks = c->max_peaks;
		qsort(c->peaks, c->npeaks, sizeof(*c->peaks), peak_by_index);
	}
	if (!c->npeaks)
		return;
	c->peak_from = mt_xcalloc(c->npeaks, sizeof(uint64_t));
	c->peak_to = mt_xcalloc(c->npeaks, sizeof(uint64_t));
	c->peak_ranges = mt_xcalloc(c->npeaks * (c->nlayout + 1), sizeof(uint64_t));
	if (r->have_ip)
		c->peak_ips = mt_xcalloc(c->npeaks, sizeof(struct bucket_map));
	for (size_t p = 0; p < c->npeaks; p++) {
		uint64_t tk = r->start_time + c->data.rowk[c->peaks[p].index] * r->interval;
		c->peak_to[p] = tk;
		c->peak_from[p] = tk > r->window ? tk - r->window : 0;
		if (c->peak_ips)
			bucket_map_init(&c->peak_ips[p]);
	}
}

static void fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* The HEADER's units and defaults; the config resolved against them. */
static int setup(struct rep_ctx *c, const char *path, const struct memtrace_report_config *cfg,
		 char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct trace_reader *hdr = trace_open(path, err, errlen);
	if (!hdr)
		return -1;
	r->time_is_ns = r->info.time_is_ns = trace_time_is_ns(hdr);
	r->start_time = r->info.start_time = trace_start_time(hdr);
	r->info.version_major = TRACE_MAJOR;
	r->info.version_minor = TRACE_MINOR;
	struct trace_header_numbers h;
	trace_header_numbers(hdr, &h);
	r->info.bucket_default = h.bucket_default;
	r->info.target_pid = h.target_pid;
	r->info.sample_period = h.sample_period;
	c->agg_interval = trace_meta_u64(hdr, "aggregate", 0, 0);
	trace_close(hdr);
	if (c->agg_interval) {	/* its own windows unless asked */
		c->agg_shift = 0;
		while ((1ull << c->agg_shift) < h.bucket_default)
			c->agg_shift++;
	}

	r->bucket = cfg->bucket ? cfg->bucket : r->info.bucket_default;
	if (r->bucket < 64 || r->bucket > (2u << 20) || (r->bucket & (r->bucket - 1))) {
		fail(err, errlen, "invalid bucket size %llu (a power of two from 64 to 2M)",
		     (unsigned long long)r->bucket);
		return -1;
	}
	while ((1ull << r->bucket_shift) < r->bucket)
		r->bucket_shift++;
	r->window = cfg->window ? cfg->window : c->agg_interval ? c->agg_interval
				      : r->time_is_ns ? 100000000ull : 100000ull;
	r->interval = cfg->interval ? cfg->interval : r->window;
	c->top = cfg->top ? cfg->top : DEF_TOP;
	c->max_peaks = cfg->max_peaks ? cfg->max_peaks : DEF_MAX_PEAKS;
	c->locations = cfg->locations ? cfg->locations : DEF_LOCATIONS;
	c->functions = cfg->functions ? cfg->functions : DEF_FUNCTIONS;
	c->sensitivity = cfg->sensitivity > 0 ? cfg->sensitivity : 1.0;
	/* memory follows what is printed: asked sizes, not the file, bound the tables */
	if (c->top > 100000 || c->max_peaks > 100000 || c->locations > 1000 || c->functions > 1000) {
		fail(err, errlen, "too many rows asked (--top at most 100000, peaks 100000, "
		     "locations and functions 1000)");
		return -1;
	}
	if (cfg->sensitivity < 0) {
		fail(err, errlen, "invalid sensitivity %g (> 0)", cfg->sensitivity);
		return -1;
	}
	c->flags = cfg->flags;
	if (c->flags & MEMTRACE_REPORT_MRC) {
		if (c->agg_interval) {
			fail(err, errlen, "no miss-ratio curve of an aggregated trace: its rows are "
			     "counts per interval, not references in order");
			return -1;
		}
		mrc_init(&c->mrc);
		c->mrc_on = 1;
	}
	c->filter = &cfg->filter;
	c->cfg = cfg;
	c->span_pattern = cfg->span && *cfg->span ? cfg->span : NULL;
	c->window_asked = cfg->window;
	c->interval_asked = cfg->interval;
	c->pid = cfg->filter.pid ? cfg->filter.pid : r->info.target_pid;
	if (rep_agg_setup(c, cfg, err, errlen))
		return -1;

	/* n, f1, f2 for the estimates of sampled traces (engine/wss_est.h) */
	struct wss_config wc = { r->start_time, r->window, r->interval, r->bucket_shift,
				 r->info.sample_period > 1 && !c->agg_interval };
	if (wss_init(&c->data, &wc, err, errlen))
		return -1;
	if (wss_init(&c->code, &wc, err, errlen)) {
		wss_free(&c->data);
		return -1;
	}
	c->res = resolver_new();
	if (cfg->root)
		resolver_set_root(c->res, cfg->root);
	if (cfg->debug_dir)
		resolver_set_debug_dir(c->res, cfg->debug_dir);
	resolver_set_label_pid(c->res, r->info.target_pid);
	if (cfg->labels) {
		struct mt_labels l = { 0 };
		int bad = mt_labels_load(&l, cfg->labels, err, errlen) ||
			  resolver_add_labels(c->res, l.text, l.len, cfg->labels, 1, err, errlen);
		mt_labels_free(&l);
		if (bad) {
			resolver_free(c->res);
			c->res = NULL;
			wss_free(&c->data);
			wss_free(&c->code);
			return -1;
		}
	}
	return 0;
}

/* Every MAPS chunk into c->res, before the samples need their keys. */
static int read_maps(struct rep_ctx *c, const char *path, char *err, size_t errlen)
{
	struct trace_reader *tr = trace_open(path, err, errlen);
	struct trace_chunk ch;
	uint64_t lines = 0, threads = 0;	/* kept: bounded (trace/reader.h) */
	int rc;

	if (!tr)
		return -1;
	trace_skip(tr, (1u << CHUNK_SAMPLES) | (1u << CHUNK_WINDOWS) | (1u << CHUNK_WINDOWS2) |
			   (1u << CHUNK_LOST) | (1u << CHUNK_AGG));
	/* below: trace_skipped(tr) says whether there were AGG chunks */
	while ((rc = trace_next(tr, &ch, err, errlen)) > 0) {
		if (ch.type == CHUNK_MAPS && ch.len >= MAPS_HDR_SIZE) {
			lines += trace_text_lines(ch.data + MAPS_HDR_SIZE, ch.len - MAPS_HDR_SIZE);
			if (lines > TRACE_MAX_MAPS_LINES) {
				snprintf(err, errlen, "%s: MAPS chunk at offset %llu: more than %u "
					 "lines of maps text in the trace", path,
					 (unsigned long long)ch.offset, TRACE_MAX_MAPS_LINES);
				rc = -1;
				break;
			}
			resolver_add_maps(c->res, get_le64(ch.data), get_le32(ch.data + 8),
					  (const char *)ch.data + MAPS_HDR_SIZE,
					  ch.len - MAPS_HDR_SIZE);
		} else if (trace_chunk_is_spans(ch.type)) {
			if (rep_spans_chunk(c, &ch, err, errlen)) {
				rc = -1;
				break;
			}
		} else if (ch.type == CHUNK_PASSES) {
			if (rep_blind_chunk(c, &ch, err, errlen)) {
				rc = -1;
				break;
			}
		} else if (ch.type == CHUNK_GAPS) {
			if (rep_gaps_chunk(c, &ch, err, errlen)) {
				rc = -1;
				break;
			}
		} else if (ch.type == CHUNK_LABELS) {
			char where[64];
			snprintf(where, sizeof(where), "LABELS chunk at offset %llu",
				 (unsigned long long)ch.offset);
			if (resolver_add_labels(c->res, (const char *)ch.data, ch.len, where, 0, err,
						errlen)) {
				rc = -1;
				break;
			}
		} else if (ch.type == CHUNK_THREADS) {
			threads += ch.len / THREAD_REC_SIZE;
			if (threads > TRACE_MAX_SIDE_RECORDS) {
				snprintf(err, errlen, "%s: THREADS chunk at offset %llu: more than %u "
					 "THREADS records in the trace", path,
					 (unsigned long long)ch.offset, TRACE_MAX_SIDE_RECORDS);
				rc = -1;
				break;
			}
			/* processes name their executables (maps.h) */
			resolver_add_threads(c->res, ch.data, ch.len);
			if (c->flags & MEMTRACE_REPORT_PER_PROCESS)
				rep_procs_threads(c, ch.data, ch.len);
		}
	}
	if (rc >= 0) {	/* the target's own name last: END (after any exec), else HEADER */
		const char *tc = trace_end_meta(tr, "target_comm");
		if (!tc || !*tc)
			tc = trace_meta(tr, "target_comm");
		if (tc && *tc && c->r->info.target_pid)
			resolver_set_comm(c->res, c->r->info.target_pid, tc);
	}
	if (rc >= 0 && rep_blind_setup(c, tr, err, errlen))
		rc = -1;
	if (rc >= 0 && rep_cold_setup(c, c->cfg, tr, err, errlen))
		rc = -1;
	c->has_agg = !!(trace_skipped(tr) & (1u << CHUNK_AGG));
	c->file_samples = trace_skipped_records(tr, CHUNK_SAMPLES);
	trace_close(tr);
	return rc < 0 ? -1 : 0;
}

static void fmt_span(uint64_t t, int ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%llu instructions", (unsigned long long)t);
	else if (t >= 1000000000ull)
		snprintf(buf, len, "%.3f s", (double)t / 1e9);
	else if (t < 1000000)
		snprintf(buf, len, "%llu ns", (unsigned long long)t);
	else
		snprintf(buf, len, "%.3f ms", (double)t / 1e6);
}

/* A series of more than WSS_MAX_ROWS stored rows (or past 2^64): refused. */
static int check_rows(struct rep_ctx *c, char *err, size_t errlen)
{
	const struct memtrace_report *r = c->r;
	uint64_t t = c->data.too_long > c->code.too_long ? c->data.too_long : c->code.too_long;
	char iv[64];

	if (!t && c->procs_too_long) {
		fmt_span(r->interval, r->time_is_ns, iv, sizeof(iv));
		fail(err, errlen, "per process: the processes' series would hold more than %llu rows "
		     "of %s in all: use a larger --interval, or --pid", WSS_MAX_ROWS, iv);
		return -1;
	}
	if (!t)
		return 0;
	fmt_span(r->interval, r->time_is_ns, iv, sizeof(iv));
	fail(err, errlen, "the series would hold more than %llu rows of %s with samples in their "
	     "window (up to sample time %.6g from the start): use a larger --interval",
	     WSS_MAX_ROWS, iv, (double)t - (double)r->start_time);
	return -1;
}

/* Pass 1 and what follows from it: series, peaks, hot buckets. */
static int first_pass(struct rep_ctx *c, const char *path, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;

	if (read_maps(c, path, err, errlen))
		return -1;
	if (sample_filter_init(&c->filt, c->filter, r->start_time, c->res, r->info.target_pid,
			       err, errlen))
		return -1;
	if (rep_spans_setup(c, err, errlen))
		return -1;
	rep_cold_filter_ready(c);
	/* the estimate's refinement keeps at most WSS_SPATIAL_MAX samples: a
	 * trace that holds more (no filter: every sample of its SAMPLES chunks)
	 * does not fill its store (24 bytes a sample) only to drop it at the cap */
	if (c->filt.all && c->file_samples > WSS_SPATIAL_MAX)
		wss_spatial_give_up(&c->data_sp);
	/* the target (or --pid) keeps its addresses as keys */
	c->spaces = resolver_spaces(c->res, c->pid);
	c->scan_tid = 1;
	int rc = rep_scan(c, path, c->has_agg ? NULL : pass1_prep, pass1_samples, pass1_chunk, err,
			  errlen);
	c->scan_tid = 0;
	if (rc || check_rows(c, err, errlen))
		return -1;
	if (c->agg_bad) {
		fail(err, errlen, "%s: AGG chunk at offset %llu is malformed", path,
		     (unsigned long long)(c->agg_bad - 1));
		return -1;
	}
	r->info.end_time = r->info.last_time;
	char buf[32];
	if (r->end_meta && mt_kv_str(r->end_meta, "end_time", buf, sizeof(buf)))
		r->info.end_time = strtoull(buf, NULL, 10);
	if (r->end_meta && mt_kv_str(r->end_meta, "dropped", buf, sizeof(buf)))
		r->info.dropped = strtoull(buf, NULL, 10);
	if (r->samples) {
		uint64_t end = c->data.last_time > c->code.last_time ? c->data.last_time
								     : c->code.last_time;
		wss_finish(&c->data, end);
		wss_finish(&c->code, end);
		if ((c->flags & MEMTRACE_REPORT_PER_PROCESS) && rep_procs_finish(c, end))
			return check_rows(c, err, errlen);
	}
	r->reordered = c->data.reordered;
	r->threads = c->ntids;
	r->have_tid = !c->tid_missing;
	r->intervals = wss_intervals(&c->data);
	if (rep_blind_rows(c, err, errlen))
		return -1;
	rep_fill_series(c, &r->data, &c->data);
	rep_fill_series(c, &r->code, &c->code);
	rep_fill_estimate(c, &r->data_est, &c->data, &c->data_sp, rep_sample_period(r));
	rep_fill_estimate(c, &r->code_est, &c->code, NULL, rep_sample_period(r));
	rep_fill_blind(c);
	return 0;
}


/*
 * A window asked for that is longer than the recording (start to END) is
 * refused: every WSS value would count the whole trace, not a window, and
 * it is nearly always a unit slip (100s for 100ms).  The default window is
 * not checked (a recording may be shorter than 100 ms).
 */
static int check_window(struct rep_ctx *c, char *err, size_t errlen)
{
	const struct memtrace_report *r = c->r;
	uint64_t span = r->info.end_time > r->start_time ? r->info.end_time - r->start_time : 0;
	char w[64], s[64];

	if (!c->window_asked || !span || c->window_asked <= span)
		return 0;
	fmt_span(c->window_asked, r->time_is_ns, w, sizeof(w));
	fmt_span(span, r->time_is_ns, s, sizeof(s));
	fail(err, errlen, "window %s is longer than the recording (%s from start to end): "
	     "give a window of at most %s", w, s, s);
	return -1;
}

static int compute(struct rep_ctx *c, const char *path, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;

	if (first_pass(c, path, err, errlen) || check_window(c, err, errlen))
		return -1;
	if (c->filt.region) {	/* --region: its name and size, in the buckets' keys */
		r->region = rep_strdup(c, c->filt.region);
		r->region_bytes = sample_filter_region_bytes(&c->filt, c->spaces);
	}
	c->nlayout = resolver_key_layout(c->res, &c->layout);
	find_peaks(c);
	c->hot_data = mt_xcalloc(c->top, sizeof(*c->hot_data));
	c->hot_code = mt_xcalloc(c->top, sizeof(*c->hot_code));
	c->nhot_data = hot_top(&c->data.map, c->top, c->hot_data);
	c->nhot_code = hot_top(&c->code.map, c->top, c->hot_code);
	hot_attr_init(&c->attr_data, c->hot_data, c->nhot_data, r->bucket_shift);
	hot_attr_init(&c->attr_code, c->hot_code, c->nhot_code, r->bucket_shift);
	hot_attr_init(&c->attr_obj, c->hot_data, c->nhot_data, r->bucket_shift);
	if (c->flags & MEMTRACE_REPORT_REGIONS) {
		c->reg_samples = mt_xcalloc(c->nlayout + 1, sizeof(uint64_t));
		c->reg_nbuckets = mt_xcalloc(c->nlayout + 1, sizeof(uint64_t));
		bucket_set_init(&c->reg_set);
	}
	if (c->nhot_data || c->npeaks || (r->have_ip && c->nhot_code) || c->reg_samples) {
		if (rep_scan(c, path, pass2_prep, pass2_samples, NULL, err, errlen))
			return -1;
	}
	hot_attr_finish(&c->attr_data);
	hot_attr_finish(&c->attr_code);
	hot_attr_finish(&c->attr_obj);
	rep_fill_hot(c);
	rep_fill_peaks(c);
	rep_fill_curve(c);
	if (c->flags & MEMTRACE_REPORT_ALL_BUCKETS)
		rep_fill_buckets(c);
	if (c->reg_samples)
		rep_fill_regions(c);
	if (c->flags & MEMTRACE_REPORT_PER_PROCESS)
		rep_fill_procs(c);
	rep_fill_spans(c);
	rep_fill_space_pids(c);
	if (rep_fill_cold(c, err, errlen))
		return -1;
	return rep_fill_mrc(c, err, errlen);
}

static void ctx_free(struct rep_ctx *c, int wss_ready)
{
	if (c->peak_ips)
		for (size_t p = 0; p < c->npeaks; p++)
			bucket_map_free(&c->peak_ips[p]);
	bucket_set_free(&c->reg_set);
	free(c->reg_nbuckets);
	free(c->reg_samples);
	free(c->peak_ips);
	free(c->peak_ranges);
	free(c->peak_from);
	free(c->peak_to);
	free(c->peaks);
	hot_attr_free(&c->attr_data);
	hot_attr_free(&c->attr_code);
	hot_attr_free(&c->attr_obj);
	free(c->hot_data);
	free(c->hot_code);
	sample_filter_free(&c->filt);
	free(c->agg_buf);
	free(c->passes);
	free(c->starts);
	free(c->gaps);
	rep_procs_free(c);
	rep_spans_free(c);
	mrc_free(&c->mrc);
	rep_cold_free(c);
	if (c->res)
		resolver_free(c->res);
	wss_spatial_free(&c->data_sp);
	if (wss_ready) {
		wss_free(&c->data);
		wss_free(&c->code);
	}
}

static struct memtrace_report *report_compute(const char *path,
					      const struct memtrace_report_config *cfg, char *err,
					      size_t errlen)
{
	static const struct memtrace_report_config defaults;
	struct rep_ctx c = { 0 };

	if (!path) {
		fail(err, errlen, "no trace file given");
		return NULL;
	}
	c.own = mt_xcalloc(1, sizeof(*c.own));
	c.r = &c.own->pub;
	if (setup(&c, path, cfg ? cfg : &defaults, err, errlen)) {
		if (c.res)
			resolver_free(c.res);
		memtrace_report_free(c.r);
		return NULL;
	}
	int rc = compute(&c, path, err, errlen);
	ctx_free(&c, 1);
	if (rc) {
		memtrace_report_free(c.r);
		return NULL;
	}
	return c.r;
}

struct memtrace_report *memtrace_report_compute(const char *path,
						const struct memtrace_report_config *cfg,
						char *err, size_t errlen)
{
	/* out of memory: NULL, "out of memory (N bytes)"; what it had allocated is leaked */
	MT_OOM_GUARDED(struct memtrace_report *, NULL, err, errlen,
		       report_compute(path, cfg, err, errlen));
}
