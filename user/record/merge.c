/* merge.c - samples of several streams into SAMPLES chunks in time order.
 *
 * Streams hand samples time-ordered within a call (a perf or BPF ring is
 * per CPU) but in any order across calls.  Each sorted stretch is appended
 * to a run: the run whose last sample is the latest one not after the
 * stretch's first (so a CPU's successive drains extend one run), else a new
 * run.  A flush merges the runs' samples up to the merge horizon (50 ms for
 * ns time) with a heap of run heads: no sort, no per-sample allocation.
 * Instruction-time streams come ordered: one run, written as they come.
 *
 * Merged samples feed the live WSS at once and wait in a chunk buffer until
 * it holds RECORD_CHUNK_SAMPLES or is RECORD_CHUNK_AGE_NS old (a killed
 * collector loses at most that, the horizon and a tick): fewer, larger chunks encode and compress better.
 */
#include "record/recorder_impl.h"

#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "trace/writer.h"

#define MAX_RUNS	256	/* more: every run is merged into one first */

/* (time, tid) order, the order of the file */
static inline int sample_before(const struct memtrace_sample *x, const struct memtrace_sample *y)
{
	return x->time < y->time || (x->time == y->time && x->tid < y->tid);
}

static void run_reserve(struct sample_run *run, size_t extra)
{
	if (run->head && run->head * 2 >= run->n) {	/* drop the merged prefix */
		memmove(run->s, run->s + run->head, (run->n - run->head) * sizeof(*run->s));
		run->n -= run->head;
		run->head = 0;
	}
	if (run->n + extra <= run->cap)
		return;
	size_t cap = run->cap ? run->cap : 4096;
	while (cap < run->n + extra)
		cap *= 2;
	run->s = mt_xrealloc(run->s, cap * sizeof(*run->s));
	run->cap = cap;
}

static void run_put(struct sample_run *run, const struct memtrace_sample *s, size_t n)
{
	run_reserve(run, n);
	memcpy(run->s + run->n, s, n * sizeof(*s));
	run->n += n;
}

/* The run a sorted stretch starting with first extends (creating one). */
static struct sample_run *run_for(struct recorder *r, const struct memtrace_sample *first)
{
	struct sample_run *best = NULL, *empty = NULL;

	for (int i = 0; i < r->nruns; i++) {
		struct sample_run *run = &r->runs[i];
		if (run->head == run->n) {
			if (!empty)
				empty = run;
		} else if (!sample_before(first, &run->s[run->n - 1]) &&
			   (!best || sample_before(&best->s[best->n - 1], &run->s[run->n - 1]))) {
			best = run;
		}
	}
	if (best || empty)
		return best ? best : empty;
	if (r->nruns == MAX_RUNS)
		merge_compact(r);
	if (r->nruns == r->runs_cap) {
		r->runs_cap = r->runs_cap ? r->runs_cap * 2 : 8;
		r->runs = mt_xrealloc(r->runs, (size_t)r->runs_cap * sizeof(*r->runs));
	}
	r->runs[r->nruns] = (struct sample_run){ 0 };
	return &r->runs[r->nruns++];
}

static int chunk_put(struct recorder *r, const struct memtrace_sample *s, size_t n);

int recorder_add_samples(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	if (!n)
		return 0;
	/* live (ns) recordings only: an imported trace's pids are not this machine's */
	if (r->horizon && !r->offline)
		maps_note_samples(r, s, n);
	if (!r->horizon) {	/* instruction time: already ordered, straight into the chunk */
		if (chunk_put(r, s, n))
			return -1;
		r->insn_untick += n;
		if (r->insn_untick >= CHUNK_MAX_SAMPLES) {
			r->insn_untick = 0;
			return recorder_tick(r, s[n - 1].time);
		}
		return 0;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !sample_before(&s[j], &s[j - 1]))
			j++;
		run_put(run_for(r, &s[i]), s + i, j - i);
		r->npending += j - i;
		i = j;
	}
	return 0;
}

/* ---- the chunk buffer --------------------------------------------------- */

/* Writes the buffered samples as one SAMPLES chunk. */
static int chunk_write(struct recorder *r)
{
	if (!r->nchunk)
		return 0;
	int rc = trace_write_samples(r->w, r->chunk, r->nchunk, r->columns);
	r->nchunk = 0;
	return rc;
}

/* The samples merged since the last call go to the live WSS. */
static void chunk_account(struct recorder *r)
{
	size_t k = r->nchunk - r->chunk_live;

	if (!k)
		return;
	live_wss_add(r, r->chunk + r->chunk_live, k);
	metrics_windows_add(r, r->chunk + r->chunk_live, k);
	r->samples += k;
	r->last_time = r->chunk[r->nchunk - 1].time;
	r->chunk_live = r->nchunk;
}

static int chunk_put(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	while (n) {
		if (!r->chunk)
			r->chunk = mt_xmalloc(RECORD_CHUNK_SAMPLES * sizeof(*r->chunk));
		if (!r->nchunk)
			r->chunk_since = mt_now_ns();
		size_t k = RECORD_CHUNK_SAMPLES - r->nchunk;
		if (k > n)
			k = n;
		memcpy(r->chunk + r->nchunk, s, k * sizeof(*s));
		r->nchunk += k;
		s += k;
		n -= k;
		if (r->nchunk == RECORD_CHUNK_SAMPLES) {
			chunk_account(r);
			r->chunk_live = 0;
			if (chunk_write(r))
				return -1;
		}
	}
	return 0;
}

/* ---- the k-way merge of the runs ----------------------------------------- */

static inline int head_before(const struct recorder *r, int a, int b)
{
	const struct sample_run *x = &r->runs[a], *y = &r->runs[b];

	return sample_before(&x->s[x->head], &y->s[y->head]) ||
	       (!sample_before(&y->s[y->head], &x->s[x->head]) && a < b);
}

static void sift_down(const struct recorder *r, int *heap, int n, int i)
{
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && head_before(r, heap[c + 1], heap[c]))
			c++;
		if (!head_before(r, heap[c], heap[i]))
			return;
		int t = heap[c];
		heap[c] = heap[i];
		heap[i] = t;
		i = c;
	}
}

/* The samples of run up to limit from its head on: their count. */
static size_t run_upto(const struct sample_run *run, uint64_t limit)
{
	size_t k = run->head;

	while (k < run->n && run->s[k].time <= limit)
		k++;
	return k - run->head;
}

/* Hands every run's samples with time <= limit, in order, to chunk_put. */
static int merge_runs(struct recorder *r, uint64_t limit)
{
	int heap[MAX_RUNS], n = 0;

	for (int i = 0; i < r->nruns; i++) {
		struct sample_run *run = &r->runs[i];
		if (run->head < run->n && run->s[run->head].time <= limit)
			heap[n++] = i;
	}
	if (n == 1 || !r->horizon) {	/* one run (or insn time): its prefix as it is */
		for (int h = 0; h < n; h++) {
			struct sample_run *run = &r->runs[heap[h]];
			size_t k = run_upto(run, limit);
			if (chunk_put(r, run->s + run->head, k))
				return -1;
			run->head += k;
			r->npending -= k;
		}
		return 0;
	}
	for (int i = n / 2; i-- > 0;)
		sift_down(r, heap, n, i);
	while (n) {
		struct sample_run *run = &r->runs[heap[0]];
		/* the top run's samples up to the next run's head go at once */
		int next = n < 2 ? -1 : n < 3 || head_before(r, heap[1], heap[2]) ? heap[1] : heap[2];
		size_t k = 1;
		while (run->head + k < run->n && run->s[run->head + k].time <= limit &&
		       (next < 0 || !sample_before(&r->runs[next].s[r->runs[next].head],
						   &run->s[run->head + k])))
			k++;
		if (chunk_put(r, &run->s[run->head], k))
			return -1;
		run->head += k;
		r->npending -= k;
		if (run->head == run->n || run->s[run->head].time > limit)
			heap[0] = heap[--n];
		sift_down(r, heap, n, 0);
	}
	return 0;
}

/*
 * More than MAX_RUNS runs (streams whose calls overlap a lot): all of them
 * become one, so the next stretch has room.  Nothing is written.
 */
void merge_compact(struct recorder *r)
{
	struct sample_run all = { 0 };
	size_t total = r->npending;

	run_reserve(&all, total ? total : 1);
	int heap[MAX_RUNS], n = 0;
	for (int i = 0; i < r->nruns; i++)
		if (r->runs[i].head < r->runs[i].n)
			heap[n++] = i;
	for (int i = n / 2; i-- > 0;)
		sift_down(r, heap, n, i);
	while (n) {
		struct sample_run *run = &r->runs[heap[0]];
		all.s[all.n++] = run->s[run->head++];
		if (run->head == run->n)
			heap[0] = heap[--n];
		sift_down(r, heap, n, 0);
	}
	for (int i = 0; i < r->nruns; i++)
		free(r->runs[i].s);
	r->runs[0] = all;
	r->nruns = 1;
}

/* Merges pending samples with time <= limit into the chunk buffer; writes
 * it when full, or when all (the end) or it is RECORD_CHUNK_AGE_NS old. */
int merge_flush(struct recorder *r, uint64_t limit, int all)
{
	if (r->npending && merge_runs(r, limit))
		return -1;
	size_t before = r->samples;
	chunk_account(r);
	if (r->samples != before) {
		wss_emit_until(&r->live_code, r->last_time);
		wss_emit_until(&r->live_data, r->last_time);
	}
	if (r->nchunk && (all || mt_now_ns() - r->chunk_since >= RECORD_CHUNK_AGE_NS)) {
		r->chunk_live = 0;
		if (chunk_write(r))
			return -1;
	}
	return live_wss_write(r, 0);
}

void merge_free(struct recorder *r)
{
	for (int i = 0; i < r->nruns; i++)
		free(r->runs[i].s);
	free(r->runs);
	free(r->chunk);
}
