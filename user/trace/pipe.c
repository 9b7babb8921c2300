/* pipe.c - chunks in file order, SAMPLES decoded on other threads (pipe.h). */
#include "trace/pipe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

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
	size_t n, at;
	struct trace_chunk c;
	int rc;				/* 0, or -1 with err */
	char err[512];
};

struct worker_scratch {
	ZSTD_DCtx *zd;
	uint64_t *tmp;			/* CHUNK_MAX_SAMPLES values */
};

/*
 * PIPE_SAMPLES: one thread ahead of the caller reads, checks, decompresses
 * and decodes the chunks, AHEAD_ROWS samples a batch (they stay in the
 * second level cache from the decoding to the caller's use), into a ring of
 * AHEAD_SLOTS batches; with one thread the caller makes each batch itself
 * when it asks for it, the same batches.
 */
#define AHEAD_ROWS 4096
#define AHEAD_SLOTS 16
/*
 * The decoder, when the ring is full, is woken when half of it is free (a
 * wake-up per batch made a context switch per 4096 samples).  The caller
 * never waits for a batch the decoder has not begun: it makes it itself
 * (on a busy machine the decoder may not run for milliseconds), and waits
 * only for one under way.
 */
#define AHEAD_WAKE_SPACE (AHEAD_SLOTS / 2)

struct ahead_item {
	int rc;				/* 1 a batch, 0 the end, -1 an error (err) */
	struct trace_chunk c;		/* SAMPLES: data NULL; others: data in buf */
	unsigned char *buf;		/* another chunk's payload (swapped in, not copied) */
	size_t buf_cap;
	struct memtrace_sample *s;	/* AHEAD_ROWS rows */
	size_t n;
	uint32_t columns;
	unsigned part;			/* batch number within its SAMPLES chunk */
	char err[512];
};

struct ahead {
	/* the producer's: the decode thread's, or the caller's with one thread */
	struct trace_frame f;
	unsigned char *stored, *raw;
	size_t stored_cap, raw_cap;
	struct sample_rows rows;	/* the SAMPLES chunk being decoded */
	struct trace_chunk cur;
	int in_chunk, done;
	unsigned part;
	/* the ring: items[produced % AHEAD_SLOTS] is made next (under lock) */
	struct ahead_item items[AHEAD_SLOTS];
	uint64_t produced, consumed;
	int threaded, started, stop;
	int producing;			/* a thread makes items[produced % AHEAD_SLOTS] */
	int producer_waits, consumer_waits;
	pthread_t thread;
	pthread_cond_t space, ready;
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
	struct ahead *ahead;		/* PIPE_SAMPLES */
	trace_pipe_prep_fn prep;	/* PIPE_SAMPLES: run on each batch by its maker */
	void *prep_ctx;
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

unsigned trace_ahead_threads(uint64_t bytes)
{
	const char *e = getenv("MEMTRACE_THREADS");

	if (e && *e)
		return strtol(e, NULL, 10) > 1 ? 2 : 1;
	return bytes >= TRACE_AHEAD_FROM && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

/* Checksum, zstd and decoding of one SAMPLES frame (PIPE_COLUMNS, PIPE_PAYLOAD; any thread). */
static void decode_slot(struct trace_pipe *p, struct slot *sl, struct worker_scratch *ws)
{
	sl->rc = trace_frame_payload(p->r, &sl->f, sl->stored, ws->zd, &sl->raw, &sl->raw_cap,
				     &sl->c, sl->err, sizeof(sl->err));
	if (sl->rc || p->mode == PIPE_PAYLOAD)
		return;
	if (p->mode == PIPE_COLUMNS) {
		struct col_desc d[COL_COUNT];
		uint32_t n;
		sl->rc = codec_parse_chunk(&sl->c, d, &n, sl->err, sizeof(sl->err));
		if (!sl->rc) {
			codec_decode_columns(d, n, &p->cols, sl->at, ws->tmp);
			sl->n = n;
		}
	}
}

/* decode_slot on a worker thread: out of memory is the slot's error (util/util.h) */
static void decode_slot_guarded(struct trace_pipe *p, struct slot *sl, struct worker_scratch *ws)
{
	struct mt_oom_point oom;

	mt_oom_push(&oom);
	if (setjmp(oom.jb)) {
		mt_oom_caught(&oom, sl->err, sizeof(sl->err));
		sl->rc = -1;
		return;
	}
	decode_slot(p, sl, ws);
	mt_oom_pop(&oom);
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
		decode_slot_guarded(p, sl, &ws);
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

static void swap_buf(unsigned char **a, size_t *acap, unsigned char **b, size_t *bcap)
{
	unsigned char *t = *a;
	size_t tcap = *acap;

	*a = *b;
	*acap = *bcap;
	*b = t;
	*bcap = tcap;
}

/* The next batch of the current SAMPLES chunk into it. */
static void ahead_part(struct trace_pipe *p, struct ahead *a, struct ahead_item *it)
{
	it->rc = 1;
	it->c = a->cur;
	it->columns = a->rows.columns;
	it->part = a->part++;
	it->n = sample_rows_next(&a->rows, it->s, AHEAD_ROWS, p->own.tmp);
	if (a->rows.from >= a->rows.n)
		a->in_chunk = 0;
	if (p->prep)
		it->n = p->prep(p->prep_ctx, it->s, it->n, it->columns, it->part);
}

/* Makes the next item: a batch, another chunk, the end or the error a one-thread read stops at. */
static void ahead_make(struct trace_pipe *p, struct ahead *a, struct ahead_item *it)
{
	struct trace_chunk c;

	if (a->in_chunk) {
		ahead_part(p, a, it);
		return;
	}
	it->rc = trace_next_frame(p->r, &a->f, &a->stored, &a->stored_cap, it->err,
				  sizeof(it->err));
	if (it->rc <= 0) {
		a->done = 1;
		return;
	}
	if (trace_frame_payload(p->r, &a->f, a->stored, p->own.zd, &a->raw, &a->raw_cap, &c,
				it->err, sizeof(it->err))) {
		it->rc = -1;
		a->done = 1;
		return;
	}
	if (c.type == CHUNK_SAMPLES) {
		if (sample_rows_start(&a->rows, c.data, c.len, p->want, it->err, sizeof(it->err))) {
			it->rc = -1;
			a->done = 1;
			return;
		}
		if (a->rows.n != c.count) {
			snprintf(it->err, sizeof(it->err), "samples chunk at offset %llu: count mismatch",
				 (unsigned long long)c.offset);
			it->rc = -1;
			a->done = 1;
			return;
		}
		a->cur = c;
		a->cur.data = NULL;
		a->part = 0;
		a->in_chunk = 1;
		ahead_part(p, a, it);	/* an empty chunk is one empty batch */
		return;
	}
	trace_note_chunk(p->r, &c);
	/* the payload goes with the item: its buffer for the item's old one */
	if (c.data == a->raw)
		swap_buf(&a->raw, &a->raw_cap, &it->buf, &it->buf_cap);
	else
		swap_buf(&a->stored, &a->stored_cap, &it->buf, &it->buf_cap);
	it->rc = 1;
	it->c = c;
	it->n = 0;
	it->columns = 0;
	it->part = 0;
}

/* ahead_make on the decode thread: out of memory is the item's error */
static void ahead_make_guarded(struct trace_pipe *p, struct ahead *a, struct ahead_item *it)
{
	struct mt_oom_point oom;

	mt_oom_push(&oom);
	if (setjmp(oom.jb)) {
		mt_oom_caught(&oom, it->err, sizeof(it->err));
		it->rc = -1;
		return;
	}
	ahead_make(p, a, it);
	mt_oom_pop(&oom);
}

static void *ahead_main(void *arg)
{
	struct trace_pipe *p = arg;
	struct ahead *a = p->ahead;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		/* done is the producer's: read only when no one produces */
		while (!a->stop && (a->producing ||
				    (!a->done && a->produced - a->consumed == AHEAD_SLOTS))) {
			a->producer_waits = 1;
			pthread_cond_wait(&a->space, &p->lock);
		}
		a->producer_waits = 0;
		if (a->stop || a->done)
			break;
		a->producing = 1;
		struct ahead_item *it = &a->items[a->produced % AHEAD_SLOTS];
		pthread_mutex_unlock(&p->lock);
		ahead_make_guarded(p, a, it);
		pthread_mutex_lock(&p->lock);
		a->produced++;
		a->producing = 0;
		if (a->consumer_waits)
			pthread_cond_signal(&a->ready);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static int ahead_next(struct trace_pipe *p, struct trace_batch *b, char *err, size_t errlen)
{
	struct ahead *a = p->ahead;

	if (!a->started) {	/* after trace_pipe_want and the HEADER */
		a->started = 1;
		if (a->threaded && pthread_create(&a->thread, NULL, ahead_main, p))
			a->threaded = 0;	/* no thread: the same batches, made here */
	}
	if (p->delivered) {
		p->delivered = 0;
		if (a->threaded) {
			pthread_mutex_lock(&p->lock);
			a->consumed++;
			if (a->producer_waits &&
			    AHEAD_SLOTS - (a->produced - a->consumed) >= AHEAD_WAKE_SPACE)
				pthread_cond_signal(&a->space);
			pthread_mutex_unlock(&p->lock);
		} else {
			a->consumed++;
		}
	}
	if (a->threaded) {
		pthread_mutex_lock(&p->lock);
		while (a->produced == a->consumed) {
			if (!a->producing && !a->done) {
				/* the decoder is not at it (descheduled on a busy machine, or
				 * just woken): the caller makes this batch itself rather than
				 * wait for it, then the decoder goes on from the next */
				a->producing = 1;
				pthread_mutex_unlock(&p->lock);
				ahead_make(p, a, &a->items[a->produced % AHEAD_SLOTS]);
				pthread_mutex_lock(&p->lock);
				a->produced++;
				a->producing = 0;
				if (a->producer_waits)
					pthread_cond_signal(&a->space);
				break;
			}
			a->consumer_waits = 1;
			pthread_cond_wait(&a->ready, &p->lock);
		}
		a->consumer_waits = 0;
		pthread_mutex_unlock(&p->lock);
	} else if (a->produced == a->consumed) {
		ahead_make(p, a, &a->items[a->produced % AHEAD_SLOTS]);
		a->produced++;
	}
	struct ahead_item *it = &a->items[a->consumed % AHEAD_SLOTS];
	if (it->rc <= 0) {	/* kept: every later call answers the same */
		if (it->rc < 0)
			snprintf(err, errlen, "%s", it->err);
		return it->rc;
	}
	memset(b, 0, sizeof(*b));
	b->c = it->c;
	b->s = it->s;
	b->n = it->n;
	b->columns = it->columns;
	b->part = it->part;
	p->delivered = 1;
	return 1;
}

static void ahead_free(struct trace_pipe *p)
{
	struct ahead *a = p->ahead;

	if (a->threaded && a->started) {
		pthread_mutex_lock(&p->lock);
		a->stop = 1;
		pthread_cond_broadcast(&a->space);
		pthread_mutex_unlock(&p->lock);
		pthread_join(a->thread, NULL);
	}
	for (size_t i = 0; i < AHEAD_SLOTS; i++) {
		free(a->items[i].buf);
		free(a->items[i].s);
	}
	free(a->stored);
	free(a->raw);
	pthread_cond_destroy(&a->space);
	pthread_cond_destroy(&a->ready);
	free(a);
}

int trace_pipe_next(struct trace_pipe *p, struct trace_batch *b, char *err, size_t errlen)
{
	struct trace_chunk first;

	if (!p->delivered && trace_take_first(p->r, &first)) {	/* the HEADER, as trace_next */
		memset(b, 0, sizeof(*b));
		b->c = first;
		return 1;
	}
	if (p->ahead)
		return ahead_next(p, b, err, errlen);
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
		b->n = sl->n;
		b->at = sl->at;
	}
	return 1;
}

struct trace_pipe *trace_pipe_start(struct trace_reader *r, enum trace_pipe_mode mode,
				    const struct memtrace_columns *cols)
{
	struct trace_pipe *p = mt_xcalloc(1, sizeof(*p));

	p->r = r;
	p->mode = mode;
	p->want = COLS_ALL;
	if (cols)
		p->cols = *cols;
	p->own.zd = ZSTD_createDCtx();
	p->own.tmp = mt_xmalloc(CHUNK_MAX_SAMPLES * 8);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (mode == PIPE_SAMPLES) {	/* the thread starts with the first batch asked for */
		struct ahead *a = p->ahead = mt_xcalloc(1, sizeof(*a));
		a->threaded = trace_ahead_threads(trace_bytes_left(r)) > 1;
		for (size_t i = 0; i < AHEAD_SLOTS; i++)
			a->items[i].s = mt_xmalloc(AHEAD_ROWS * sizeof(struct memtrace_sample));
		pthread_cond_init(&a->space, NULL);
		pthread_cond_init(&a->ready, NULL);
		return p;
	}
	/* one frame-reading thread (the caller's) and threads - 1 decoders */
	unsigned threads = trace_decode_threads(trace_bytes_left(r));
	p->nthreads = threads - 1;
	p->nslots = p->nthreads ? 2 * p->nthreads + 3 : 2;
	p->slots = mt_xcalloc(p->nslots, sizeof(*p->slots));
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

void trace_pipe_prepare(struct trace_pipe *p, trace_pipe_prep_fn fn, void *ctx)
{
	p->prep = fn;
	p->prep_ctx = ctx;
}

struct trace_reader *trace_pipe_reader(struct trace_pipe *p)
{
	return p->r;
}

void trace_pipe_close(struct trace_pipe *p)
{
	if (!p)
		return;
	if (p->ahead)
		ahead_free(p);
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
