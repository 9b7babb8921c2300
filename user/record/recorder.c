/* recorder.c - merge, live WSS, chunking and the status line. */
#include "record/recorder.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "resolve/maps.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "trace/writer.h"
#include "util/util.h"
#include "engine/wss.h"

#define LIVE_BUCKET_SHIFT	12
#define LIVE_INTERVAL_NS	100000000ull	/* 100 ms */
#define LIVE_INTERVAL_INSN	1000000ull	/* 1 M instructions */
#define MERGE_HORIZON_NS	50000000ull	/* samples may arrive 50 ms late */
#define WINDOW_ROWS_PER_CHUNK	600
#define STATUS_EVERY_NS		500000000ull
#define MAX_MAPS_PIDS		16

static volatile sig_atomic_t stop_signal;

struct row_buf {
	uint64_t *t, *v;
	size_t n, cap;
};

struct recorder {
	struct trace_writer *w;
	char *command;
	struct bytebuf meta;
	int begun, ended;
	uint32_t columns;
	int time_is_ns;
	uint64_t start, deadline, horizon;

	struct memtrace_sample *pending;
	size_t npending, pending_cap;

	struct wss live_data, live_code;
	struct row_buf rows_data, rows_code;
	uint64_t live_interval;

	struct bytebuf threads, lost;
	uint32_t nthreads, nlost;
	uint64_t total_lost, total_throttled, dropped;

	pid_t maps_pid[MAX_MAPS_PIDS];
	char *maps_text[MAX_MAPS_PIDS];
	int maps_dirty[MAX_MAPS_PIDS];
	uint64_t maps_stack[MAX_MAPS_PIDS];	/* an address in the stack, or 0 */
	int nmaps;

	uint64_t samples, last_time;
	uint64_t status_at, status_samples, status_wall;
	int tty;
	int failed;
};

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_signal = 1;
}

void recorder_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct recorder *recorder_open(const char *path, const char *command_line)
{
	struct trace_writer *w = trace_writer_open(path);

	if (!w)
		return NULL;
	struct recorder *r = mt_xcalloc(1, sizeof(*r));
	r->w = w;
	r->command = mt_xstrdup(command_line ? command_line : "");
	r->tty = isatty(STDERR_FILENO) && strcmp(path, "-");
	return r;
}

void recorder_meta(struct recorder *r, const char *key, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

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

static const char *meta_value(const struct recorder *r, const char *key, char *buf,
			      size_t len)
{
	size_t klen = strlen(key);
	const char *p = (const char *)r->meta.data, *end = p + r->meta.len;
	const char *found = NULL;

	while (p && p < end) {
		if ((size_t)(end - p) > klen && !memcmp(p, key, klen) && p[klen] == '=')
			found = p + klen + 1;
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	if (!found)
		return NULL;
	const char *nl = memchr(found, '\n', (size_t)(end - found));
	size_t n = (size_t)(nl - found);
	if (n >= len)
		n = len - 1;
	memcpy(buf, found, n);
	buf[n] = 0;
	return buf;
}

static int meta_has(const struct recorder *r, const char *key)
{
	char buf[2];

	return meta_value(r, key, buf, sizeof(buf)) != NULL;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(buf, len, "%s", c);
			}
			break;
		}
	}
	fclose(f);
}

static void row_push(struct row_buf *b, uint64_t t, uint64_t v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->t = mt_xrealloc(b->t, b->cap * sizeof(*b->t));
		b->v = mt_xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	b->t[b->n] = t;
	b->v[b->n++] = v;
}

static void live_row_data(void *ctx, uint64_t k, uint64_t t, uint64_t v)
{
	(void)k;
	row_push(&((struct recorder *)ctx)->rows_data, t, v);
}

static void live_row_code(void *ctx, uint64_t k, uint64_t t, uint64_t v)
{
	(void)k;
	row_push(&((struct recorder *)ctx)->rows_code, t, v);
}

/*
 * Names the anonymous line of text that maps addr "[stack]", padded like
 * the kernel pads names.  Returns the new text (old one freed) and length.
 */
static char *name_stack_line(char *text, size_t *len, uint64_t addr)
{
	struct mt_maps maps;
	const struct mt_mapping *m;
	char head[48];
	size_t hl = 0;

	mt_maps_parse(&maps, text, *len);
	m = mt_maps_find(&maps, addr);
	if (m && !m->path[0])	/* named already (or unmapped): leave it */
		hl = (size_t)snprintf(head, sizeof(head), "%08" PRIx64 "-%08" PRIx64 " ",
				      m->start, m->end);
	mt_maps_destroy(&maps);
	for (size_t at = 0; hl && at < *len;) {
		char *nl = memchr(text + at, '\n', *len - at);
		size_t end = nl ? (size_t)(nl - text) : *len, keep = end;

		if (end - at < hl || memcmp(text + at, head, hl)) {
			at = end + 1;
			continue;
		}
		while (keep > at && text[keep - 1] == ' ')
			keep--;
		/* the kernel starts names in column 73 */
		char tag[96];
		size_t col = keep - at + 1;
		int tl = snprintf(tag, sizeof(tag), "%*s[stack]", col < 73 ? (int)(74 - col) : 1, "");
		char *out = mt_xmalloc(keep + (size_t)tl + (*len - end) + 1);

		memcpy(out, text, keep);
		memcpy(out + keep, tag, (size_t)tl);
		memcpy(out + keep + tl, text + end, *len - end);
		*len = keep + (size_t)tl + (*len - end);
		free(text);
		return out;
	}
	return text;
}

static int snapshot_maps(struct recorder *r, int i, uint64_t now)
{
	char path[64], *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)r->maps_pid[i]);
	f = fopen(path, "r");
	if (!f)
		return 0;	/* the process is gone: nothing to snapshot */
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			text = mt_xrealloc(text, cap);
		}
		size_t k = fread(text + len, 1, cap - len, f);
		len += k;
		if (!k)
			break;
	}
	fclose(f);
	if (r->maps_stack[i])
		text = name_stack_line(text, &len, r->maps_stack[i]);
	if (r->maps_text[i] && strlen(r->maps_text[i]) == len &&
	    !memcmp(r->maps_text[i], text, len)) {
		free(text);
		return 0;
	}
	if (len + MAPS_HDR_SIZE > CHUNK_MAX_LEN)
		len = CHUNK_MAX_LEN - MAPS_HDR_SIZE;
	struct bytebuf b = { 0 };
	unsigned char hdr[MAPS_HDR_SIZE] = { 0 };
	uint32_t lines = 0;
	for (size_t j = 0; j < len; j++)
		lines += text[j] == '\n';
	put_le64(hdr, now);
	put_le32(hdr + 8, (uint32_t)r->maps_pid[i]);
	bytebuf_put(&b, hdr, sizeof(hdr));
	bytebuf_put(&b, text, len);
	int rc = trace_write_chunk(r->w, CHUNK_MAPS, CODEC_ZSTD, b.data, b.len, lines);
	bytebuf_free(&b);
	free(r->maps_text[i]);
	text = mt_xrealloc(text, len + 1);
	text[len] = 0;
	r->maps_text[i] = text;
	return rc;
}

static int maps_index(struct recorder *r, pid_t pid)
{
	for (int i = 0; i < r->nmaps; i++)
		if (r->maps_pid[i] == pid)
			return i;
	if (r->nmaps == MAX_MAPS_PIDS)
		return -1;
	r->maps_pid[r->nmaps] = pid;
	r->maps_text[r->nmaps] = NULL;
	r->maps_dirty[r->nmaps] = 1;
	r->maps_stack[r->nmaps] = 0;
	return r->nmaps++;
}

int recorder_begin(struct recorder *r, uint64_t start, pid_t pid)
{
	struct utsname u;
	char buf[512], now[64];
	time_t t = time(NULL);
	struct tm tm;
	char err[256];

	uname(&u);
	if (!meta_has(r, "host"))
		recorder_meta(r, "host", "%s", u.nodename);
	if (!meta_has(r, "kernel"))
		recorder_meta(r, "kernel", "%s", u.release);
	if (!meta_has(r, "arch"))
		recorder_meta(r, "arch", "%s", u.machine);
	if (!meta_has(r, "cpu_model")) {
		cpu_model(buf, sizeof(buf));
		recorder_meta(r, "cpu_model", "%s", buf);
	}
	if (!meta_has(r, "bucket_default"))
		recorder_meta(r, "bucket_default", "4096");
	if (!meta_has(r, "clock"))
		recorder_meta(r, "clock", "monotonic");
	if (!meta_has(r, "time_unit"))
		recorder_meta(r, "time_unit", "ns");
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	recorder_meta(r, "start_realtime", "%s", now);
	recorder_meta(r, "start_time", "%llu", (unsigned long long)start);
	recorder_meta(r, "command", "%s", r->command);

	r->time_is_ns = !meta_value(r, "time_unit", buf, sizeof(buf)) || strcmp(buf, "insn");
	r->horizon = r->time_is_ns ? MERGE_HORIZON_NS : 0;
	r->columns = COLS_REQUIRED;
	if (meta_value(r, "fields", buf, sizeof(buf))) {
		if (strstr(buf, "ip"))
			r->columns |= 1u << COL_IP;
		if (strstr(buf, "weight"))
			r->columns |= 1u << COL_WEIGHT;
		if (strstr(buf, "data_src"))
			r->columns |= 1u << COL_DATA_SRC;
	}
	r->start = start;
	r->last_time = start;
	r->live_interval = r->time_is_ns ? LIVE_INTERVAL_NS : LIVE_INTERVAL_INSN;
	struct wss_config cfg = { start, r->live_interval, r->live_interval, LIVE_BUCKET_SHIFT };
	if (wss_init(&r->live_data, &cfg, err, sizeof(err)) ||
	    wss_init(&r->live_code, &cfg, err, sizeof(err))) {
		mt_err("%s", err);
		return -1;
	}
	r->live_data.on_row = live_row_data;
	r->live_data.row_ctx = r;
	r->live_code.on_row = live_row_code;
	r->live_code.row_ctx = r;

	uint32_t lines = 0;
	for (size_t i = 0; i < r->meta.len; i++)
		lines += r->meta.data[i] == '\n';
	if (trace_write_chunk(r->w, CHUNK_HEADER, CODEC_STORED, r->meta.data, r->meta.len,
			      lines))
		return -1;
	r->begun = 1;
	r->status_wall = mt_now_ns();
	if (pid > 0) {
		int i = maps_index(r, pid);
		if (i >= 0 && snapshot_maps(r, i, start))
			return -1;
		if (i >= 0)
			r->maps_dirty[i] = 0;
	}
	return 0;
}

int recorder_add_samples(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	if (r->npending + n > r->pending_cap) {
		size_t cap = r->pending_cap ? r->pending_cap : 65536;
		while (cap < r->npending + n)
			cap *= 2;
		r->pending = mt_xrealloc(r->pending, cap * sizeof(*r->pending));
		r->pending_cap = cap;
	}
	memcpy(r->pending + r->npending, s, n * sizeof(*s));
	r->npending += n;
	/* instruction-time streams are already ordered: write as they come */
	if (!r->horizon && r->npending >= CHUNK_MAX_SAMPLES)
		return recorder_tick(r, r->pending[r->npending - 1].time);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct memtrace_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int write_windows(struct recorder *r, int all)
{
	size_t n = r->rows_data.n < r->rows_code.n ? r->rows_data.n : r->rows_code.n;

	if (!n || (!all && n < WINDOW_ROWS_PER_CHUNK))
		return 0;
	struct bytebuf b = { 0 };
	unsigned char h[WINDOW_HDR_SIZE] = { 0 };
	put_le64(h, r->live_interval);
	put_le64(h + 8, r->live_interval);
	put_le32(h + 16, LIVE_BUCKET_SHIFT);
	bytebuf_put(&b, h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		unsigned char rec[WINDOW_REC_SIZE];
		put_le64(rec, r->rows_data.t[i]);
		put_le64(rec + 8, r->rows_data.v[i]);
		put_le64(rec + 16, r->rows_code.v[i]);
		bytebuf_put(&b, rec, sizeof(rec));
	}
	int rc = trace_write_chunk(r->w, CHUNK_WINDOWS, CODEC_ZSTD, b.data, b.len, (uint32_t)n);
	bytebuf_free(&b);
	for (struct row_buf *rb = &r->rows_data; rb; rb = rb == &r->rows_data ? &r->rows_code : NULL) {
		memmove(rb->t, rb->t + n, (rb->n - n) * sizeof(*rb->t));
		memmove(rb->v, rb->v + n, (rb->n - n) * sizeof(*rb->v));
		rb->n -= n;
	}
	return rc;
}

/* Writes pending samples with time <= limit, in time order. */
static int flush_samples(struct recorder *r, uint64_t limit)
{
	if (!r->npending)
		return 0;
	if (r->horizon)
		qsort(r->pending, r->npending, sizeof(*r->pending), by_time);
	size_t n = 0;
	while (n < r->npending && r->pending[n].time <= limit)
		n++;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < CHUNK_MAX_SAMPLES ? n - done : CHUNK_MAX_SAMPLES;
		const struct memtrace_sample *s = r->pending + done;
		if (trace_write_samples(r->w, s, k, r->columns))
			return -1;
		wss_add_samples(&r->live_data, s, k, 0);
		wss_add_samples(&r->live_code, s, k, 1);
		r->samples += k;
		r->last_time = s[k - 1].time;
		done += k;
	}
	if (n) {
		wss_emit_until(&r->live_code, r->last_time);
		wss_emit_until(&r->live_data, r->last_time);
	}
	memmove(r->pending, r->pending + n, (r->npending - n) * sizeof(*r->pending));
	r->npending -= n;
	return write_windows(r, 0);
}

int recorder_add_lost(struct recorder *r, uint64_t time, uint32_t cpu, uint64_t lost,
		      uint64_t throttled)
{
	unsigned char rec[LOST_REC_SIZE] = { 0 };

	if (!lost && !throttled)
		return 0;
	put_le64(rec, time);
	put_le32(rec + 8, cpu);
	put_le64(rec + 16, lost);
	put_le64(rec + 24, throttled);
	bytebuf_put(&r->lost, rec, sizeof(rec));
	r->nlost++;
	r->total_lost += lost;
	r->total_throttled += throttled;
	return 0;
}

void recorder_set_dropped(struct recorder *r, uint64_t dropped)
{
	r->dropped = dropped;
}

int recorder_note_thread(struct recorder *r, uint64_t time, uint32_t pid, uint32_t tid,
			 const char *comm)
{
	unsigned char rec[THREAD_REC_SIZE] = { 0 };

	put_le64(rec, time);
	put_le32(rec + 8, pid);
	put_le32(rec + 12, tid);
	strncpy((char *)rec + 16, comm ? comm : "", 15);
	bytebuf_put(&r->threads, rec, sizeof(rec));
	r->nthreads++;
	return 0;
}

void recorder_name_stack(struct recorder *r, pid_t pid, uint64_t addr)
{
	int i = maps_index(r, pid);

	if (i >= 0 && r->maps_stack[i] != addr) {
		r->maps_stack[i] = addr;
		r->maps_dirty[i] = 1;
	}
}

void recorder_maps_changed(struct recorder *r, pid_t pid)
{
	int i = maps_index(r, pid);

	if (i >= 0)
		r->maps_dirty[i] = 1;
}

static int flush_side_chunks(struct recorder *r, uint64_t now)
{
	int rc = 0;

	if (r->nthreads) {
		rc |= trace_write_chunk(r->w, CHUNK_THREADS, CODEC_ZSTD, r->threads.data,
					r->threads.len, r->nthreads);
		r->threads.len = 0;
		r->nthreads = 0;
	}
	if (r->nlost) {
		rc |= trace_write_chunk(r->w, CHUNK_LOST, CODEC_ZSTD, r->lost.data, r->lost.len,
					r->nlost);
		r->lost.len = 0;
		r->nlost = 0;
	}
	for (int i = 0; i < r->nmaps; i++) {
		if (r->maps_dirty[i]) {
			r->maps_dirty[i] = 0;
			rc |= snapshot_maps(r, i, now);
		}
	}
	return rc ? -1 : 0;
}

static void status_line(struct recorder *r, uint64_t now, int final)
{
	uint64_t wall = mt_now_ns();
	char wbuf[32], fbuf[32];

	if (!r->tty || (!final && wall - r->status_at < STATUS_EVERY_NS))
		return;
	double dt = (double)(wall - r->status_at) / 1e9;
	double rate = r->status_at && dt > 0 ? (double)(r->samples - r->status_samples) / dt : 0;
	uint64_t wss_pages = r->rows_data.n ? r->rows_data.v[r->rows_data.n - 1] : 0;
	(void)now;
	fprintf(stderr, "\r\033[Kmemtrace: %.1f s  %llu samples (%.0f/s)  lost %llu  dropped %llu  WSS %s  written %s",
		(double)(wall - r->status_wall) / 1e9, (unsigned long long)r->samples, rate,
		(unsigned long long)r->total_lost, (unsigned long long)r->dropped,
		mt_fmt_bytes(wss_pages << LIVE_BUCKET_SHIFT, wbuf, sizeof(wbuf)),
		mt_fmt_bytes(trace_writer_bytes(r->w), fbuf, sizeof(fbuf)));
	if (final)
		fputc('\n', stderr);
	r->status_at = wall;
	r->status_samples = r->samples;
}

int recorder_tick(struct recorder *r, uint64_t now)
{
	if (!r->begun || r->failed)
		return r->failed ? -1 : 0;
	uint64_t limit = now > r->horizon ? now - r->horizon : 0;
	if (flush_samples(r, limit) || flush_side_chunks(r, now)) {
		r->failed = 1;
		return -1;
	}
	status_line(r, now, 0);
	return 0;
}

void recorder_set_deadline(struct recorder *r, uint64_t deadline)
{
	r->deadline = deadline;
}

int recorder_stop_requested(const struct recorder *r, uint64_t now)
{
	if (stop_signal)
		return 1;
	return r->deadline && now >= r->deadline;
}

int recorder_end(struct recorder *r, const char *reason)
{
	char buf[512];
	int rc = 0;

	if (!r->begun || r->ended)
		return r->begun ? 0 : -1;
	r->ended = 1;
	if (!r->failed) {
		rc |= flush_samples(r, UINT64_MAX);
		wss_finish(&r->live_data, r->last_time);
		wss_finish(&r->live_code, r->last_time);
		rc |= write_windows(r, 1);
		rc |= flush_side_chunks(r, r->last_time);
	}
	int n = snprintf(buf, sizeof(buf),
			 "end_reason=%s\nend_time=%llu\nsamples=%llu\nlost=%llu\nthrottled=%llu\ndropped=%llu\n",
			 reason, (unsigned long long)r->last_time, (unsigned long long)r->samples,
			 (unsigned long long)r->total_lost, (unsigned long long)r->total_throttled,
			 (unsigned long long)r->dropped);
	rc |= trace_write_chunk(r->w, CHUNK_END, CODEC_STORED, buf, (size_t)n, 6);
	status_line(r, r->last_time, 1);
	return rc ? -1 : 0;
}

int recorder_close(struct recorder *r)
{
	int rc = trace_writer_close(r->w) || r->failed ? -1 : 0;

	if (r->begun) {
		wss_free(&r->live_data);
		wss_free(&r->live_code);
	}
	for (int i = 0; i < r->nmaps; i++)
		free(r->maps_text[i]);
	free(r->rows_data.t);
	free(r->rows_data.v);
	free(r->rows_code.t);
	free(r->rows_code.v);
	free(r->pending);
	bytebuf_free(&r->meta);
	bytebuf_free(&r->threads);
	bytebuf_free(&r->lost);
	free(r->command);
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
