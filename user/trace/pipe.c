/* pipe.c - chunks in file order, SAMPLES decoded on worker threads (pipe.h). */
#include "trace/pipe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/api_internal.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "util/util.h"

#define MAX_THREADS 8

enum slot_state {
	SLOT_FREE,	/* the caller's thread fills it */
	SLOT_QUEUED,	/* a SAMPLES frame waiting for a worker */
	SLOT_BUSY,	/* a worker decodes it */
	SLOT_READY,	/* decoded, or a chunk the caller's thread finishes itself */
};

struct slot {
	enum slot_state state;
	struct trace_frame f;
	unsigned char *stored, *raw;
	size_t stored_cap, raw_cap;
	struct memtrace_sample *s;	/* PIPE_SAMPLES: CHUNK_MAX_SAMPLES rows */
	size_t n, at;
	uint32_t columns;
	struct trace_chunk c;
	int rc;				/* 0, or -1 with err */
	char err[512];
};

struct worker_scratch {
	ZSTD_DCtx *zd;
	uint64_t *tmp;			/* CHUNK_MAX_SAMPLES values */
};

struct trace_pipe {
	struct trace_reader *r;
	int own_reader;			/* opened by trace_pipe_open: closed with the pipe */
	enum trace_pipe_mode mode;
	uint32_t want;			/* PIPE_SAMPLES: columns decoded (the rest are 0) */
	struct memtrace_columns cols;
	struct slot *slots;
	size_t nslots, head, tail;	/* slots head..tail-1 (mod nslots) are in flight */
	int delivered;			/* slots[head] was handed out by the last next */
	int eof_rc;			/* after the last frame: 0 end, -1 error */
	int eof;
	char eof_err[512];
	size_t next_at;			/* PIPE_COLUMNS: index of the next chunk's first sample */
	struct worker_scratch own;	/* the caller's thread */
	pthread_t threads[MAX_THREADS];
	unsigned nthreads;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	int stop;
};

unsigned trace_decode_threads(uint64_t bytes)
{
	const char *e = getenv("MEMTRACE_THREADS");
	long n;

	if (e && *e) {
		n = strtol(e, NULL, 10);
		return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
	}
	if (bytes < TRACE_PIPE_THREADS_FROM)
		return 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

/* Checksum, zstd and decoding of one SAMPLES frame (any thread). */
static void decode_slot(struct trace_pipe *p, struct slot *sl, struct worker_scratch *ws)
{
	sl->rc = trace_frame_payload(p->r, &sl->f, sl->stored, ws->zd, &sl->raw, &sl->raw_cap,
				     &sl->c, sl->err, sizeof(sl->err));
	if (sl->rc || p->mode == PIPE_PAYLOAD)
		return;
	if (p->mode == PIPE_COLUMNS) {
		struct col_desc d[COL_COUNT];
		uint32_t n;
		sl->rc = api_parse_chunk(&sl->c, d, &n, sl->err, sizeof(sl->err));
		if (!sl->rc) {
			api_decode_all(d, n, &p->cols, sl->at, ws->tmp);
			sl->n = n;
		}
		return;
	}
	sl->rc = sample_decode_into(sl->c.data, sl->c.len, p->want, sl->s, ws->tmp, &sl->n,
				    &sl->columns, sl->err, sizeof(sl->err));
	if (!sl->rc && sl->n != sl->c.count) {
		snprintf(sl->err, sizeof(sl->err), "samples chunk at offset %llu: count mismatch",
			 (unsigned long long)sl->c.offset);
		sl->rc = -1;
	}
}

static void *worker_main(void *arg)
{
	struct trace_pipe *p = arg;
	struct worker_scratch ws = { ZSTD_createDCtx(), mt_xmalloc(CHUNK_MAX_SAMPLES * 8) };

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct slot *sl = NULL;
		for (size_t i = p->head; i != p->tail; i = (i + 1) % p->nslots)
			if (p->slots[i].state == SLOT_QUEUED) {
				sl = &p->slots[i];
				break;
			}
		if (!sl) {
			if (p->stop)
				break;
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		sl->state = SLOT_BUSY;
		pthread_mutex_unlock(&p->lock);
		decode_slot(p, sl, &ws);
		pthread_mutex_lock(&p->lock);
		sl->state = SLOT_READY;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	ZSTD_freeDCtx(ws.zd);
	free(ws.tmp);
	return NULL;
}

static size_t in_flight(const struct trace_pipe *p)
{
	return (p->tail + p->nslots - p->head) % p->nslots;
}

/* Reads frames into free slots (the ring keeps one slot empty). */
static void fill(struct trace_pipe *p)
{
	while (!p->eof && in_flight(p) < p->nslots - 1) {
		struct slot *sl = &p->slots[p->tail];
		int rc = trace_next_frame(p->r, &sl->f, &sl->stored, &sl->stored_cap, p->eof_err,
					  sizeof(p->eof_err));
		if (rc <= 0) {
			p->eof = 1;
			p->eof_rc = rc;
			return;
		}
		sl->rc = 0;
		sl->n = 0;
		if (sl->f.type == CHUNK_SAMPLES && p->mode == PIPE_COLUMNS) {
			if (p->next_at + sl->f.count > p->cols.cap) {
				snprintf(p->eof_err, sizeof(p->eof_err),
					 "%s: more than %zu samples pass (buffer too small)",
					 trace_path(p->r), p->cols.cap);
				p->eof = 1;
				p->eof_rc = -1;
				return;
			}
			sl->at = p->next_at;
			p->next_at += sl->f.count;
		}
		int queue = sl->f.type == CHUNK_SAMPLES && p->nthreads;
		pthread_mutex_lock(&p->lock);
		sl->state = queue ? SLOT_QUEUED : SLOT_READY;
		p->tail = (p->tail + 1) % p->nslots;
		if (queue)
			pthread_cond_signal(&p->work);
		pthread_mutex_unlock(&p->lock);
	}
}

int trace_pipe_next(struct trace_pipe *p, struct trace_batch *b, char *err, size_t errlen)
{
	struct trace_chunk first;

	if (!p->delivered && trace_take_first(p->r, &first)) {	/* the HEADER, as trace_next */
		memset(b, 0, sizeof(*b));
		b->c = first;
		return 1;
	}
	if (p->delivered) {
		pthread_mutex_lock(&p->lock);
		p->slots[p->head].state = SLOT_FREE;
		p->head = (p->head + 1) % p->nslots;
		pthread_mutex_unlock(&p->lock);
		p->delivered = 0;
	}
	fill(p);
	if (p->head == p->tail) {
		if (p->eof_rc < 0)
			snprintf(err, errlen, "%s", p->eof_err);
		return p->eof_rc;
	}
	struct slot *sl = &p->slots[p->head];
	pthread_mutex_lock(&p->lock);
	while (sl->state != SLOT_READY) {
		if (sl->state == SLOT_QUEUED) {	/* no worker took it yet: decode it here */
			sl->state = SLOT_BUSY;
			pthread_mutex_unlock(&p->lock);
			decode_slot(p, sl, &p->own);
			pthread_mutex_lock(&p->lock);
			sl->state = SLOT_READY;
			break;
		}
		pthread_cond_wait(&p->done, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	p->delivered = 1;
	if (sl->f.type == CHUNK_SAMPLES && !p->nthreads)
		decode_slot(p, sl, &p->own);
	else if (sl->f.type != CHUNK_SAMPLES) {
		sl->rc = trace_frame_payload(p->r, &sl->f, sl->stored, p->own.zd, &sl->raw,
					     &sl->raw_cap, &sl->c, sl->err, sizeof(sl->err));
		if (!sl->rc)
			trace_note_chunk(p->r, &sl->c);
	}
	if (sl->rc) {
		snprintf(err, errlen, "%s", sl->err);
		return -1;
	}
	memset(b, 0, sizeof(*b));
	b->c = sl->c;
	if (sl->f.type == CHUNK_SAMPLES && p->mode != PIPE_PAYLOAD) {
		b->c.data = NULL;
		b->s = p->mode == PIPE_SAMPLES ? sl->s : NULL;
		b->n = sl->n;
		b->columns = sl->columns;
		b->at = sl->at;
	}
	return 1;
}

struct trace_pipe *trace_pipe_start(struct trace_reader *r, enum trace_pipe_mode mode,
				    const struct memtrace_columns *cols)
{
	struct trace_pipe *p = mt_xcalloc(1, sizeof(*p));
	unsigned threads = trace_decode_threads(trace_bytes_left(r));

	p->r = r;
	p->mode = mode;
	p->want = COLS_ALL;
	if (cols)
		p->cols = *cols;
	/* one frame-reading thread (the caller's) and threads - 1 decoders */
	p->nthreads = threads - 1;
	p->nslots = p->nthreads ? 2 * p->nthreads + 3 : 2;
	p->slots = mt_xcalloc(p->nslots, sizeof(*p->slots));
	for (size_t i = 0; mode == PIPE_SAMPLES && i < p->nslots; i++)
		p->slots[i].s = mt_xmalloc(CHUNK_MAX_SAMPLES * sizeof(struct memtrace_sample));
	p->own.zd = ZSTD_createDCtx();
	p->own.tmp = mt_xmalloc(CHUNK_MAX_SAMPLES * 8);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (unsigned i = 0; i < p->nthreads; i++)
		if (pthread_create(&p->threads[i], NULL, worker_main, p)) {
			p->nthreads = i;	/* fewer threads: still correct */
			break;
		}
	return p;
}

struct trace_pipe *trace_pipe_open(const char *path, enum trace_pipe_mode mode,
				   const struct memtrace_columns *cols, unsigned skip_mask,
				   char *err, size_t errlen)
{
	struct trace_reader *r = trace_open(path, err, errlen);

	if (!r)
		return NULL;
	trace_skip(r, skip_mask);
	struct trace_pipe *p = trace_pipe_start(r, mode, cols);
	p->own_reader = 1;
	return p;
}

void trace_pipe_want(struct trace_pipe *p, uint32_t columns)
{
	p->want = columns;
}

struct trace_reader *trace_pipe_reader(struct trace_pipe *p)
{
	return p->r;
}

void trace_pipe_close(struct trace_pipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	/* queued work is dropped: workers only take QUEUED slots */
	for (size_t i = p->head; i != p->tail; i = (i + 1) % p->nslots)
		if (p->slots[i].state == SLOT_QUEUED)
			p->slots[i].state = SLOT_FREE;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	for (size_t i = 0; i < p->nslots; i++) {
		free(p->slots[i].stored);
		free(p->slots[i].raw);
		free(p->slots[i].s);
	}
	free(p->slots);
	ZSTD_freeDCtx(p->own.zd);
	free(p->own.tmp);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	if (p->own_reader)
		trace_close(p->r);
	free(p);
}
