/* wss_spatial.c - gap buckets and instructions of sampled windows. */
#include "engine/wss_spatial.h"

#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/util.h"

void wss_spatial_init(struct wss_spatial *sp)
{
	memset(sp, 0, sizeof(*sp));
}

void wss_spatial_free(struct wss_spatial *sp)
{
	free(sp->v);
	memset(sp, 0, sizeof(*sp));
}

void wss_spatial_add(struct wss_spatial *sp, const struct memtrace_sample *s, size_t n,
		     unsigned shift)
{
	if (sp->over)
		return;
	if (sp->n + n > WSS_SPATIAL_MAX) {
		wss_spatial_give_up(sp);
		return;
	}
	if (sp->n + n > sp->cap) {
		size_t cap = sp->cap ? sp->cap : 4096;
		while (cap < sp->n + n)
			cap *= 2;
		sp->v = mt_xrealloc(sp->v, cap * sizeof(*sp->v));
		sp->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t t = s[i].time > sp->last_time ? s[i].time : sp->last_time;
		sp->last_time = t;
		sp->v[sp->n++] = (struct wss_spatial_sample){ t, s[i].addr >> shift, s[i].ip };
	}
}

void wss_spatial_give_up(struct wss_spatial *sp)
{
	sp->over = 1;
	free(sp->v);
	sp->v = NULL;
	sp->n = sp->cap = 0;
}

static int has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	MT_PARTITION_POINT(lo, hi, i, v[i] < x);
	return lo < n && v[lo] == x;
}

struct ip_bucket {
	uint64_t ip, bucket;
};

static int cmp_ip_bucket(const void *a, const void *b)
{
	const struct ip_bucket *x = a, *y = b;

	if (x->ip != y->ip)
		return (x->ip > y->ip) - (x->ip < y->ip);
	return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

/* The tail instructions (wss_spatial.h), ascending, into *out; returns how many. */
static size_t tail_ips(const struct wss_spatial *sp, uint64_t **out)
{
	struct ip_bucket *v = mt_xcalloc(sp->n ? sp->n : 1, sizeof(*v));
	uint64_t *tail = mt_xcalloc(sp->n ? sp->n : 1, sizeof(*tail));
	size_t m = 0, nt = 0;

	for (size_t i = 0; i < sp->n; i++)
		if (sp->v[i].ip)
			v[m++] = (struct ip_bucket){ sp->v[i].ip, sp->v[i].bucket };
	qsort(v, m, sizeof(*v), cmp_ip_bucket);
	for (size_t i = 0; i < m;) {	/* one instruction: v[i..j) */
		uint64_t samples = 0, d = 0, f1 = 0, f2 = 0;
		size_t j = i;
		while (j < m && v[j].ip == v[i].ip) {
			size_t k = j;
			while (k < m && v[k].ip == v[j].ip && v[k].bucket == v[j].bucket)
				k++;
			d++;
			f1 += k - j == 1;
			f2 += k - j == 2;
			samples += k - j;
			j = k;
		}
		double f0 = f1 > 1 ? (double)f1 * (double)(f1 - 1) / (2.0 * ((double)f2 + 1.0)) : 0.0;
		if (samples >= WSS_SPATIAL_TAIL_MIN && (double)d + f0 > WSS_SPATIAL_TAIL_RATIO * (double)d)
			tail[nt++] = v[i].ip;
		i = j;
	}
	free(v);
	*out = tail;
	return nt;
}

/* The window's state as it slides: bucket and instruction sample counts. */
struct slide {
	struct bucket_map win;	/* bucket -> samples in the window */
	struct bucket_map run;	/* bucket -> 1: hit somewhere in the stream */
	struct bucket_map ips;	/* instruction -> samples in the window */
	uint64_t gap, nips, tail;
	uint64_t f[4];		/* f[k]: buckets with k samples in the window, k = 1..3 */
	const uint64_t *tailv;
	size_t ntail;
};

static int seen_at(struct slide *w, uint64_t x)
{
	return bucket_map_get(&w->win, x)->count > 0;
}

/* 1 when x is a gap bucket of the window (wss_spatial.h): unseen, hit in
 * the run, its nearest seen buckets below and above at distances dl, dh
 * with dl + dh - 1 <= WSS_SPATIAL_GAP unseen buckets between them. */
static uint64_t gap_at(struct slide *w, uint64_t x)
{
	if (seen_at(w, x) || !bucket_map_get(&w->run, x)->count)
		return 0;
	uint64_t dl = 0, dh = 0;
	for (uint64_t d = 1; d <= WSS_SPATIAL_GAP && d <= x; d++)
		if (seen_at(w, x - d)) {
			dl = d;
			break;
		}
	for (uint64_t d = 1; d <= WSS_SPATIAL_GAP; d++)
		if (seen_at(w, x + d)) {
			dh = d;
			break;
		}
	return dl && dh && dl + dh - 1 <= WSS_SPATIAL_GAP;
}

/* The gap buckets whose state a change of bucket b can change. */
static uint64_t gap_near(struct slide *w, uint64_t b)
{
	uint64_t g = 0;

	for (uint64_t x = b >= WSS_SPATIAL_GAP ? b - WSS_SPATIAL_GAP : 0; x <= b + WSS_SPATIAL_GAP; x++)
		g += gap_at(w, x);
	return g;
}

/* A bucket's count in the window goes from a to b. */
static void count_moves(struct slide *w, uint64_t a, uint64_t b)
{
	if (a >= 1 && a <= 3)
		w->f[a]--;
	if (b >= 1 && b <= 3)
		w->f[b]++;
}

/* One sample enters (dir 1) or leaves (dir -1) the window. */
static void slide_one(struct slide *w, const struct wss_spatial_sample *v, int dir)
{
	struct bucket_entry *e = bucket_map_get(&w->win, v->bucket);

	count_moves(w, e->count, dir > 0 ? e->count + 1 : e->count - 1);
	if ((dir > 0 && e->count == 0) || (dir < 0 && e->count == 1)) {
		uint64_t before = gap_near(w, v->bucket);
		e = bucket_map_get(&w->win, v->bucket);	/* leaves may have moved */
		e->count = dir > 0 ? 1 : 0;
		w->gap = w->gap - before + gap_near(w, v->bucket);
	} else {
		e->count = dir > 0 ? e->count + 1 : e->count - 1;
	}
	if (!v->ip)
		return;
	struct bucket_entry *ie = bucket_map_get(&w->ips, v->ip);
	if (dir > 0) {
		w->nips += ie->count++ == 0;
	} else {
		w->nips -= --ie->count == 0;
	}
	if (has(w->tailv, w->ntail, v->ip))
		w->tail = dir > 0 ? w->tail + 1 : w->tail - 1;
}

int wss_spatial_rows(const struct wss_spatial *sp, const struct wss_config *cfg,
		     const uint64_t *rowk, size_t n, struct wss_spatial_row *out)
{
	if (sp->over)
		return -1;
	struct slide w;
	memset(&w, 0, sizeof(w));
	bucket_map_init(&w.win);
	bucket_map_init(&w.run);
	bucket_map_init(&w.ips);
	for (size_t i = 0; i < sp->n; i++)
		bucket_map_get(&w.run, sp->v[i].bucket)->count = 1;
	uint64_t *tail;
	w.ntail = tail_ips(sp, &tail);
	w.tailv = tail;

	/* rows ascend: the window (t_k - window, t_k] slides forward; every
	 * sample enters once and leaves once */
	size_t a = 0, z = 0;
	for (size_t r = 0; r < n; r++) {
		uint64_t tk = cfg->origin + rowk[r] * cfg->interval;
		while (z < sp->n && sp->v[z].time <= tk)
			slide_one(&w, &sp->v[z++], 1);
		while (a < z && tk >= cfg->window && sp->v[a].time <= tk - cfg->window)
			slide_one(&w, &sp->v[a++], -1);
		out[r].gap = w.gap;
		out[r].ips = w.nips;
		out[r].tail = w.tail;
		out[r].f1 = w.f[1];
		out[r].f2 = w.f[2];
		out[r].f3 = w.f[3];
	}
	free(tail);
	bucket_map_free(&w.win);
	bucket_map_free(&w.run);
	bucket_map_free(&w.ips);
	return 0;
}
