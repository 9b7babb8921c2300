/*
 * report_procs.c - the per-process part of a report
 * (MEMTRACE_REPORT_PER_PROCESS): one data WSS per process over the same
 * keys as the whole report (its private buckets and the shared ones it
 * touched), its hot buckets, and how many buckets lie in shared mappings.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "trace/format.h"
#include "util/util.h"

void rep_procs_threads(struct rep_ctx *c, const unsigned char *p, size_t len)
{
	len -= len % THREAD_REC_SIZE;
	c->threads = mt_xrealloc(c->threads, (c->nthreads + len / THREAD_REC_SIZE) *
						     THREAD_REC_SIZE);
	memcpy(c->threads + c->nthreads * THREAD_REC_SIZE, p, len);
	c->nthreads += len / THREAD_REC_SIZE;
}

static void tid_insert(struct rep_ctx *c, uint64_t k)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;
	size_t mask = c->tids_cap - 1, i = (size_t)((h ^ h >> 29) & mask);

	while (c->tids[i] && c->tids[i] != k)
		i = (i + 1) & mask;
	if (!c->tids[i]) {
		c->tids[i] = k;
		c->ntids++;
	}
}

/*
 * Threads are counted by the samples they left: a thread that existed but
 * was never sampled is not known here (nor from THREADS records, which
 * name only the threads started while recording).  The pair's key + 1 is
 * stored, 0 marking an empty slot; the one pair whose key + 1 wraps to 0
 * (pid = tid = 2^32 - 1, only in a crafted trace) is stored as 2^63.
 */
void rep_threads_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n,
		     uint32_t columns)
{
	if (!(columns & (1u << COL_TID))) {
		c->tid_missing = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = ((uint64_t)s[i].pid << 32 | s[i].tid) + 1;
		if (k == c->tid_last)
			continue;
		c->tid_last = k;
		if (!k)		/* pid = tid = 2^32 - 1 */
			k = 1ull << 63;
		if (2 * (c->ntids + 1) > c->tids_cap) {
			uint64_t *old = c->tids;
			size_t cap = c->tids_cap;
			c->tids_cap = cap ? 2 * cap : 64;
			c->tids = mt_xcalloc(c->tids_cap, sizeof(*c->tids));
			c->ntids = 0;
			for (size_t j = 0; j < cap; j++)
				if (old[j])
					tid_insert(c, old[j]);
			free(old);
		}
		tid_insert(c, k);
	}
}

static struct rep_proc *proc_of(struct rep_ctx *c, uint32_t pid)
{
	size_t k = pid == c->spaces->last_pid && c->spaces->n ? c->spaces->last
							       : mt_spaces_index(c->spaces, pid);

	if (k >= c->nprocs) {
		size_t n = c->spaces->n > k ? c->spaces->n : k + 1;
		c->procs = mt_xrealloc(c->procs, n * sizeof(*c->procs));
		memset(c->procs + c->nprocs, 0, (n - c->nprocs) * sizeof(*c->procs));
		c->nprocs = n;
	}
	struct rep_proc *p = &c->procs[k];
	if (!p->used) {
		char err[128];
		p->used = 1;
		p->pid = pid;
		wss_init(&p->w, &c->data.cfg, err, sizeof(err));	/* valid: c->data's */
		p->cold = rep_cold_proc_new(c);
	}
	return p;
}

/*
 * The per-process series together hold at most WSS_MAX_ROWS rows, like the
 * whole trace's: memory bounded by what the report holds, not by the number
 * of processes times their rows.  A series stores only the rows with
 * samples in their window (engine/wss.h).
 */
static int rows_fit(struct rep_ctx *c, const struct wss *w, size_t before, uint64_t t)
{
	c->proc_rows += w->nrows - before;
	if (c->proc_rows > WSS_MAX_ROWS || w->too_long) {
		c->procs_too_long = t ? t : 1;
		return 0;
	}
	return 1;
}

void rep_procs_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n)
{
	unsigned shift = c->data.cfg.bucket_shift;

	for (size_t i = 0; i < n && !c->procs_too_long; i++) {
		struct rep_proc *p = proc_of(c, s[i].pid);
		size_t before = p->w.nrows;
		wss_account(&p->w, s[i].time, bucket_map_get(&p->w.map, s[i].addr >> shift));
		if (!rows_fit(c, &p->w, before, s[i].time))
			break;
		if (p->cold)
			cold_add(p->cold, s[i].addr >> shift, s[i].time, s[i].pid);
		p->samples++;
	}
}

int rep_procs_finish(struct rep_ctx *c, uint64_t end)
{
	for (size_t k = 0; k < c->nprocs && !c->procs_too_long; k++) {
		struct wss *w = &c->procs[k].w;
		if (!c->procs[k].used)
			continue;
		size_t before = w->nrows;
		wss_finish(w, end);
		if (!rows_fit(c, w, before, end))
			return -1;
	}
	return c->procs_too_long ? -1 : 0;
}

void rep_procs_free(struct rep_ctx *c)
{
	for (size_t k = 0; k < c->nprocs; k++)
		if (c->procs[k].used) {
			wss_free(&c->procs[k].w);
			if (c->procs[k].cold)
				cold_free(c->procs[k].cold);
			free(c->procs[k].cold);
		}
	free(c->procs);
	free(c->threads);
	free(c->tids);
	c->procs = NULL;
	c->threads = NULL;
	c->tids = NULL;
	c->nprocs = c->nthreads = c->ntids = c->tids_cap = 0;
}

struct shared_count {
	const struct mt_spaces *s;
	unsigned shift;
	uint64_t n;
};

static void count_shared(void *ctx, uint64_t bucket, const struct bucket_entry *e)
{
	struct shared_count *sc = ctx;
	uint32_t pid;
	uint64_t addr;

	(void)e;
	sc->n += mt_spaces_decode(sc->s, bucket << sc->shift, &pid, &addr) > 0;
}

static uint64_t shared_buckets(struct rep_ctx *c, const struct bucket_map *m)
{
	struct shared_count sc = { c->spaces, c->r->bucket_shift, 0 };

	bucket_map_foreach(m, count_shared, &sc);
	return sc.n;
}

/* The newest comm of pid's main thread in the THREADS records, "" if none. */
static const char *comm_of(struct rep_ctx *c, uint32_t pid)
{
	for (size_t i = c->nthreads; i-- > 0;) {
		const unsigned char *t = c->threads + i * THREAD_REC_SIZE;
		if (get_le32(t + 8) == pid && get_le32(t + 12) == pid) {
			char comm[16];
			memcpy(comm, t + 16, 15);
			comm[15] = 0;
			return rep_strdup(c, comm);
		}
	}
	return "";
}

static const struct rep_ctx *sort_ctx;

/* The primary (space 0) first, then by pid. */
static int by_pid(const void *a, const void *b)
{
	const struct rep_proc *x = &sort_ctx->procs[*(const size_t *)a];
	const struct rep_proc *y = &sort_ctx->procs[*(const size_t *)b];
	uint32_t prim = sort_ctx->spaces->primary;

	if ((x->pid == prim) != (y->pid == prim))
		return x->pid == prim ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

void rep_fill_procs(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;
	size_t *idx = mt_xcalloc(c->nprocs ? c->nprocs : 1, sizeof(*idx)), n = 0;

	for (size_t k = 0; k < c->nprocs; k++)
		if (c->procs[k].used)
			idx[n++] = k;
	sort_ctx = c;
	qsort(idx, n, sizeof(*idx), by_pid);
	struct memtrace_process *out = rep_alloc(c, (n ? n : 1) * sizeof(*out));
	struct hot_bucket *hot = mt_xcalloc(c->top, sizeof(*hot));
	for (size_t i = 0; i < n; i++) {
		struct rep_proc *p = &c->procs[idx[i]];
		struct memtrace_process *o = &out[i];
		o->pid = p->pid;
		o->comm = comm_of(c, p->pid);
		o->samples = p->samples;
		rep_fill_series(c, &o->data, &p->w);
		rep_fill_estimate(c, &o->data_est, &p->w, NULL, rep_sample_period(r));
		o->shared = shared_buckets(c, &p->w.map);
		size_t nh = hot_top(&p->w.map, c->top, hot);
		struct memtrace_hot_bucket *h = rep_alloc(c, (nh ? nh : 1) * sizeof(*h));
		for (size_t j = 0; j < nh; j++) {
			h[j].addr = hot[j].bucket << r->bucket_shift;
			h[j].count = hot[j].count;
			h[j].where = rep_key_where(c, h[j].addr);
		}
		o->nhot = nh;
		o->hot = h;
	}
	free(hot);
	free(idx);
	r->nprocesses = n;
	r->processes = out;
	r->shared_buckets = shared_buckets(c, &c->data.map);
}
