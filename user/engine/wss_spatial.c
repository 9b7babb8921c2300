/* wss_spatial.c - gap buckets and instructions of sampled windows. */
#include "engine/wss_spatial.h"

#include <stdlib.h>
#include <string.h>

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
		sp->over = 1;
		free(sp->v);
		sp->v = NULL;
		sp->n = sp->cap = 0;
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sorts v[0..n) and drops repeats; returns the count left. */
static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t m = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

static int has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

/* First sample with time > t. */
static size_t after(const struct wss_spatial *sp, uint64_t t)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->v[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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

int wss_spatial_rows(const struct wss_spatial *sp, const struct wss_config *cfg,
		     const uint64_t *rowk, size_t n, struct wss_spatial_row *out)
{
	if (sp->over)
		return -1;
	/* every bucket of the stream, for "hit somewhere else" */
	uint64_t *all = mt_xcalloc(sp->n ? sp->n : 1, sizeof(*all));
	uint64_t *tmp = mt_xcalloc(sp->n ? sp->n : 1, sizeof(*tmp));
	for (size_t i = 0; i < sp->n; i++)
		all[i] = sp->v[i].bucket;
	size_t nall = sort_unique(all, sp->n);
	uint64_t *tail;
	size_t ntail = tail_ips(sp, &tail);

	for (size_t r = 0; r < n; r++) {
		uint64_t tk = cfg->origin + rowk[r] * cfg->interval;
		size_t a = tk >= cfg->window ? after(sp, tk - cfg->window) : 0, z = after(sp, tk);
		size_t m = 0;

		for (size_t i = a; i < z; i++)
			tmp[m++] = sp->v[i].bucket;
		m = sort_unique(tmp, m);
		out[r].gap = 0;
		for (size_t i = 1; i < m; i++)
			if (tmp[i] - tmp[i - 1] >= 2 && tmp[i] - tmp[i - 1] <= WSS_SPATIAL_GAP + 1)
				for (uint64_t x = tmp[i - 1] + 1; x < tmp[i]; x++)
					out[r].gap += (uint64_t)has(all, nall, x);
		m = 0;
		out[r].tail = 0;
		for (size_t i = a; i < z; i++)
			if (sp->v[i].ip) {
				tmp[m++] = sp->v[i].ip;
				out[r].tail += (uint64_t)has(tail, ntail, sp->v[i].ip);
			}
		out[r].ips = sort_unique(tmp, m);
	}
	free(tail);
	free(all);
	free(tmp);
	return 0;
}
