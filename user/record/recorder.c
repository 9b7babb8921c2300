/* recorder.c - the trace being recorded: open, header, side records
 * (threads, lost counts), tick, end and close.  The jobs behind it live
 * next door: merge.c, live_wss.c, maps_snapshot.c, status_line.c,
 * host_meta.c; the loop that drives a source is loop.c. */
#include "record/recorder_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/format.h"
#include "trace/words.h"
#include "trace/writer.h"

struct recorder *recorder_open(const char *path, const char *command_line, unsigned flags)
{
	struct trace_writer *w = trace_writer_open_new(path, flags);

	if (!w)
		return NULL;
	struct recorder *r = mt_xcalloc(1, sizeof(*r));
	r->w = w;
	r->command = mt_xstrdup(command_line ? command_line : "");
	r->tty = isatty(STDERR_FILENO) && strcmp(path, "-");
	return r;
}

int recorder_publish(struct recorder *r)
{
	if (trace_writer_publish(r->w)) {
		r->failed = 1;
		return -1;
	}
	r->published = 1;
	return 0;
}

void recorder_meta_drop(struct recorder *r, const char *key)
{
	size_t kl = strlen(key), out = 0;
	unsigned char *d = r->meta.data;

	for (size_t at = 0; at < r->meta.len;) {
		unsigned char *nl = memchr(d + at, '\n', r->meta.len - at);
		size_t end = nl ? (size_t)(nl - d) + 1 : r->meta.len;
		if (!(end - at > kl && !memcmp(d + at, key, kl) && d[at + kl] == '=')) {
			memmove(d + out, d + at, end - at);
			out += end - at;
		}
		at = end;
	}
	r->meta.len = out;
}

void recorder_meta(struct recorder *r, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	if (r->begun)	/* the next file's HEADER (--switch-output): one value per key */
		recorder_meta_drop(r, key);

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	for (char *p = val; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	bytebuf_put(&r->meta, key, strlen(key));
	bytebuf_put(&r->meta, "=", 1);
	bytebuf_put(&r->meta, val, strlen(val));
	bytebuf_put(&r->meta, "\n", 1);
}

/* Time unit and columns from the header keys the source set. */
static void take_meta(struct recorder *r)
{
	char buf[512];

	r->time_is_ns = !meta_value(r, "time_unit", buf, sizeof(buf)) || strcmp(buf, "insn");
	r->horizon = r->time_is_ns ? MERGE_HORIZON_NS : 0;
	if (!r->spanenc.n)	/* spans in 64 ns grains: finer bits are probe jitter */
		r->spanenc.grain_log = !r->time_is_ns ? 0 : r->span_grain_set ? r->span_grain_log
							      : SPAN_ENC_GRAIN_LOG_NS;
	r->words = words_of_text((const char *)r->meta.data, r->meta.len);
	r->aggregated = meta_value(r, "aggregate", buf, sizeof(buf)) != NULL;
	r->columns = COLS_REQUIRED;
	if (meta_value(r, "fields", buf, sizeof(buf))) {
		if (strstr(buf, "ip"))
			r->columns |= 1u << COL_IP;
		if (strstr(buf, "weight"))
			r->columns |= 1u << COL_WEIGHT;
		if (strstr(buf, "data_src"))
			r->columns |= 1u << COL_DATA_SRC;
	}
}

pid_t recorder_target(const struct recorder *r)
{
	return r->target;
}

void recorder_set_labels(struct recorder *r, const char *text, size_t len)
{
	free(r->labels);
	r->labels = mt_xmalloc(len + 1);
	memcpy(r->labels, text, len);
	r->labels[len] = 0;
	r->labels_len = len;
}

void recorder_set_span_grain(struct recorder *r, unsigned grain_log)
{
	r->span_grain_log = grain_log;
	r->span_grain_set = 1;
}

int recorder_write_head(struct recorder *r)
{
	uint32_t lines = 0;
	for (size_t i = 0; i < r->meta.len; i++)
		lines += r->meta.data[i] == '\n';
	if (trace_write_chunk(r->w, CHUNK_HEADER, CODEC_STORED, r->meta.data, r->meta.len,
			      lines))
		return -1;
	if (r->labels && trace_write_chunk(r->w, CHUNK_LABELS, CODEC_ZSTD, r->labels,
					   r->labels_len, 0))
		return -1;
	return 0;
}

int recorder_begin(struct recorder *r, uint64_t start, pid_t pid)
{
	char now[64];
	time_t t = time(NULL);
	struct tm tm;

	host_meta_defaults(r);
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	recorder_meta(r, "start_realtime", "%s", now);
	recorder_meta(r, "start_time", "%llu", (unsigned long long)start);
	recorder_meta(r, "command", "%s", r->command);
	if (r->rot)
		rotate_begin_meta(r);
	/* the sides' target: pid, or a command before its exec (recorder_set_target) */
	pid_t side_pid = pid > 0 ? pid : r->target;
	for (int i = 0; i < r->nsides; i++)
		if (r->sides[i].begin && r->sides[i].begin(r->sides[i].state, r, side_pid))
			return -1;

	take_meta(r);
	r->start = start;
	r->last_time = start;
	if (pid > 0)
		r->target = pid;
	if (live_wss_init(r) || metrics_windows_begin(r))
		return -1;

	if (recorder_write_head(r))
		return -1;
	r->begun = 1;
	r->status_wall = r->flushed_at = mt_now_ns();
	if (pid > 0) {
		int i = maps_index(r, pid);
		if (i >= 0 && maps_snapshot(r, i, start))
			return -1;
		if (i >= 0)
			r->maps_dirty[i] = 0;
	}
	return 0;
}

void recorder_set_target(struct recorder *r, pid_t pid)
{
	r->target = pid;
}

int recorder_add_lost(struct recorder *r, uint64_t time, uint32_t cpu, uint64_t lost,
		      uint64_t throttled)
{
	if (!lost && !throttled)
		return 0;
	trace_lost_rec_put(&r->lost, time, cpu, lost, throttled);
	r->nlost++;
	r->total_lost += lost;
	r->total_throttled += throttled;
	return 0;
}

int recorder_add_pass(struct recorder *r, uint64_t time, uint32_t pid, uint32_t what)
{
	trace_pass_rec_put(&r->passes, time, pid, what);
	r->npasses++;
	return 0;
}

int recorder_add_regions(struct recorder *r, const void *rows, size_t len, uint32_t n)
{
	if (!r->begun || r->failed)
		return -1;
	if (n && trace_write_chunk(r->w, CHUNK_REGIONS, CODEC_ZSTD, rows, len, n)) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

void recorder_set_dropped(struct recorder *r, uint64_t dropped)
{
	r->dropped = dropped;
}

int recorder_note_thread(struct recorder *r, uint64_t time, uint32_t pid, uint32_t tid,
			 const char *comm)
{
	trace_thread_rec_put(&r->threads, time, pid, tid, comm);
	r->nthreads++;
	if (r->target > 0 && pid == (uint32_t)r->target && tid == pid && comm && *comm &&
	    time >= r->target_comm_time) {
		snprintf(r->target_comm, sizeof(r->target_comm), "%.15s", comm);
		r->target_comm_time = time;
	}
	if (r->rot && tid == pid && comm && *comm)
		maps_note_comm(r, (pid_t)pid, comm);
	return 0;
}

/* Pending spans as SPANS2 chunks: full ones, or all of them (all = 1). */
static int flush_spans(struct recorder *r, int all)
{
	int rc = 0;

	while (all ? r->spanenc.n > 0 : span_enc_full(&r->spanenc)) {
		uint32_t n = span_enc_payload(&r->spanenc, &r->spans);
		rc |= trace_write_chunk(r->w, CHUNK_SPANS2, CODEC_ZSTD, r->spans.data, r->spans.len, n);
	}
	r->spans_at = mt_now_ns();
	return rc ? -1 : 0;
}

int recorder_add_span(struct recorder *r, uint64_t start, uint64_t end, uint32_t pid,
		      uint32_t tid, const char *label, size_t len, int open)
{
	span_enc_add(&r->spanenc, start, end, pid, tid, label, len, open);
	if (span_enc_full(&r->spanenc))
		return flush_spans(r, 0);
	return 0;
}

int recorder_flush_threads(struct recorder *r)
{
	int rc = 0;

	if (r->nthreads) {
		rc = trace_write_chunk(r->w, CHUNK_THREADS, CODEC_ZSTD, r->threads.data,
				       r->threads.len, r->nthreads);
		r->threads.len = 0;
		r->nthreads = 0;
	}
	return rc;
}

static int flush_side_chunks(struct recorder *r, uint64_t now)
{
	int rc = 0;

	if (mt_now_ns() - r->spans_at >= FLUSH_EVERY_NS)
		rc |= flush_spans(r, 1);
	rc |= recorder_flush_threads(r);
	if (r->nlost) {
		rc |= trace_write_chunk(r->w, CHUNK_LOST, CODEC_ZSTD, r->lost.data, r->lost.len,
					r->nlost);
		r->lost.len = 0;
		r->nlost = 0;
	}
	if (r->npasses) {
		rc |= trace_write_chunk(r->w, CHUNK_PASSES, CODEC_ZSTD, r->passes.data,
					r->passes.len, r->npasses);
		r->passes.len = 0;
		r->npasses = 0;
	}
	rc |= recorder_gaps_flush(r);
	rc |= maps_flush_dirty(r, now);
	return rc ? -1 : 0;
}

int recorder_flush_sides(struct recorder *r, uint64_t now)
{
	int rc = flush_side_chunks(r, now);

	rc |= flush_spans(r, 1);
	return rc ? -1 : 0;
}

int recorder_add_side(struct recorder *r, const struct recorder_side *side)
{
	if (r->nsides == RECORDER_MAX_SIDES)
		return -1;
	r->sides[r->nsides++] = *side;
	return 0;
}

int recorder_write_chunk(struct recorder *r, unsigned type, const void *raw, size_t len,
			 uint32_t count)
{
	return trace_write_chunk(r->w, type, CODEC_ZSTD, raw, len, count);
}

int recorder_add_agg(struct recorder *r, const void *raw, size_t len, uint32_t n,
		     uint64_t samples, uint64_t last)
{
	if (!r->begun || r->failed)
		return -1;
	r->samples += samples;
	if (last > r->last_time)
		r->last_time = last;
	if (trace_write_chunk(r->w, CHUNK_AGG, CODEC_ZSTD, raw, len, n)) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

static int sides_tick(struct recorder *r)
{
	for (int i = 0; i < r->nsides; i++)
		if (r->sides[i].tick && r->sides[i].tick(r->sides[i].state, r))
			return -1;
	return 0;
}

int recorder_tick(struct recorder *r, uint64_t now)
{
	if (!r->begun || r->failed)
		return r->failed ? -1 : 0;
	uint64_t limit = now > r->horizon ? now - r->horizon : 0;
	uint64_t wall = mt_now_ns();
	int windows = wall - r->flushed_at >= FLUSH_EVERY_NS;
	if (merge_flush(r, limit, 0) || flush_side_chunks(r, now) ||
	    (windows && live_wss_write(r, 1)) || sides_tick(r)) {
		r->failed = 1;
		return -1;
	}
	metrics_windows_close(r, limit);	/* every sample up to limit is merged */
	if (windows)
		r->flushed_at = wall;
	status_line(r, 0);
	return 0;
}

int recorder_end(struct recorder *r, const char *reason)
{
	int rc = 0;
	uint64_t end;

	if (!r->begun || r->ended)
		return r->begun ? 0 : -1;
	r->ended = 1;
	if (!r->failed) {
		rc |= merge_flush(r, UINT64_MAX, 1);
		live_wss_finish(r);
		rc |= live_wss_write(r, 1);
		rc |= flush_side_chunks(r, r->last_time);
		for (int i = 0; i < r->nsides; i++)
			if (r->sides[i].end && r->sides[i].end(r->sides[i].state, r))
				rc = -1;
		rc |= flush_spans(r, 1);	/* every span, the ones mark_finish ended too */
	}
	/* the recording's end, not its last sample: a clock trace ends now (the
	 * clock of the samples); an instruction trace, or an imported one, at
	 * its last sample */
	end = r->last_time;
	if (r->time_is_ns && !r->offline && mt_now_ns() > end)
		end = mt_now_ns();
	if (!r->failed)
		rc |= recorder_gaps_file_end(r, end);
	rc |= recorder_write_end(r, reason, end);
	status_line(r, 1);
	return rc ? -1 : 0;
}

void recorder_end_meta(struct recorder *r, const char *key, const char *fmt, ...)
{
	char val[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	size_t room = sizeof(r->end_meta) - r->end_meta_len;
	int n = snprintf(r->end_meta + r->end_meta_len, room, "%s=%s\n", key, val);
	if (n > 0 && (size_t)n < room) {
		r->end_meta_len += (size_t)n;
		r->end_meta_lines++;
	} else {
		r->end_meta[r->end_meta_len] = 0;
	}
}

/* The counts are the current file's: all of the recording's but with
 * --switch-output, where the files' counts add up to the recording's. */
int recorder_write_end(struct recorder *r, const char *reason, uint64_t end)
{
	char buf[512 + sizeof(r->end_meta)];
	int n = snprintf(buf, sizeof(buf),
			 "end_reason=%s\nend_time=%llu\nsamples=%llu\nlost=%llu\nthrottled=%llu\ndropped=%llu\n",
			 reason, (unsigned long long)end,
			 (unsigned long long)(r->samples - r->file_samples0),
			 (unsigned long long)(r->total_lost - r->file_lost0),
			 (unsigned long long)(r->total_throttled - r->file_throttled0),
			 (unsigned long long)(r->dropped - r->file_dropped0));
	uint32_t lines = 6;
	if (r->target_comm[0] && n > 0 && (size_t)n < sizeof(buf)) {	/* what the target became */
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "target_comm=%s\n", r->target_comm);
		lines++;
	}
	if (n > 0 && (size_t)n + r->end_meta_len < sizeof(buf)) {
		memcpy(buf + n, r->end_meta, r->end_meta_len);
		n += (int)r->end_meta_len;
		lines += r->end_meta_lines;
	}
	return trace_write_chunk(r->w, CHUNK_END, CODEC_STORED, buf, (size_t)n, lines);
}

int recorder_close(struct recorder *r)
{
	int rc = trace_writer_close(r->w) || r->failed ? -1 : 0;

	live_wss_free(r);
	metrics_windows_free(r);
	maps_free(r);
	merge_free(r);
	bytebuf_free(&r->meta);
	bytebuf_free(&r->threads);
	bytebuf_free(&r->lost);
	bytebuf_free(&r->passes);
	bytebuf_free(&r->gaps);
	bytebuf_free(&r->spans);
	span_enc_free(&r->spanenc);
	free(r->command);
	free(r->labels);
	rotate_free(r);
	free(r);
	return rc;
}

uint64_t recorder_samples(const struct recorder *r)
{
	return r->samples;
}

int recorder_begun(const struct recorder *r)
{
	return r->begun;
}
