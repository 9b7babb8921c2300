/*
 * mrc.c - LRU stack distances in O(log n) per reference (engine/mrc.h).
 *
 * Each distinct bucket holds one mark on a time axis, at the position of
 * its latest reference; a reference to b at the current position finds b's
 * mark at p, and the buckets referenced since are the marks after p:
 * distinct - 1 - (marks before p).  The mark then moves to the current position.
 * When the axis is full, the live marks are renumbered 1..distinct in
 * order and the axis sized to four times that: each renumbering (O(axis))
 * is paid for by at least as many references, and memory stays a few
 * words per distinct bucket.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mrc.h"
#include "util/util.h"

#define MIN_AXIS 4096u
#define MIN_SLOTS 1024u

void mrc_init(struct mrc *m)
{
	memset(m, 0, sizeof(*m));
	m->now = 1;
}

static void axis_free(struct mrc *m);

void mrc_free(struct mrc *m)
{
	free(m->slots);
	axis_free(m);
	free(m->hist);
	free(m->hits);
	memset(m, 0, sizeof(*m));
}

static inline size_t home_of(const struct mrc *m, uint64_t bucket)
{
	return (size_t)((bucket * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
}

static inline size_t slot_of(const struct mrc *m, uint64_t bucket)
{
	size_t mask = m->cap - 1;
	size_t h = home_of(m, bucket);

	while (m->slots[h].key && m->slots[h].key != bucket + 1)
		h = (h + 1) & mask;
	return h;
}

/* Twice the slots. */
static void grow_slots(struct mrc *m)
{
	struct mrc_slot *old = m->slots;
	size_t ocap = m->cap;

	m->cap = ocap ? ocap * 2 : MIN_SLOTS;
	m->slots = mt_xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			m->slots[slot_of(m, old[i].key - 1)] = old[i];
	free(old);
}

static void axis_free(struct mrc *m)
{
	free(m->bits);
	m->bits = NULL;
	for (unsigned k = 0; k < m->nlevels; k++) {
		free(m->cnt[k]);
		m->cnt[k] = NULL;
	}
	m->nlevels = 0;
}

/* An axis of positions 0..tcap, marks at 1..q. */
static void axis_build(struct mrc *m, uint32_t tcap, uint32_t q)
{
	size_t n = ((size_t)tcap + 64) / 64;	/* words of bits */

	axis_free(m);
	m->bits = mt_xcalloc(n, sizeof(*m->bits));
	for (uint64_t p = 1; p <= q; p++)
		m->bits[p >> 6] |= 1ull << (p & 63);
	/* every level padded to a multiple of 64 entries (zeros) */
	m->cnt[0] = mt_xcalloc((n + 63) & ~(size_t)63, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		m->cnt[0][i] = (uint32_t)__builtin_popcountll(m->bits[i]);
	m->nlevels = 1;
	for (size_t nb = n; nb > 1; nb = (nb + 63) / 64) {
		size_t up = (nb + 63) / 64;
		uint32_t *c = mt_xcalloc((up + 63) & ~(size_t)63, sizeof(*c)), *below = m->cnt[m->nlevels - 1];
		for (size_t j = 0; j < nb; j++)
			c[j / 64] += below[j];
		m->cnt[m->nlevels++] = c;
	}
	m->tcap = tcap;
	m->now = q + 1;
}

/*
 * The live marks renumbered 1..distinct in the order of their positions,
 * the axis 4 x distinct (at least MIN_AXIS): the next renumbering is at
 * least 3 x distinct references away, and costs O(slots + axis).
 */
static void compact(struct mrc *m)
{
	uint64_t want = 4 * m->distinct + 4;
	uint32_t tcap = want < MIN_AXIS ? MIN_AXIS : want > UINT32_MAX - 64 ? UINT32_MAX - 64
									    : (uint32_t)want;
	uint32_t q = 0;

	if (m->distinct) {	/* the slot of each position, then the new positions in order */
		uint32_t *owner = mt_xcalloc((size_t)m->now, sizeof(*owner));
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				owner[m->slots[i].when] = (uint32_t)i + 1;
		for (uint32_t p = 1; p < m->now; p++)
			if (owner[p])
				m->slots[owner[p] - 1].when = ++q;
		free(owner);
	}
	axis_build(m, tcap, q);
}

/* Marks at positions < p.  Within each group of 64, the shorter side is summed. */
static inline uint64_t before(const struct mrc *m, uint32_t p)
{
	uint64_t s = (uint64_t)__builtin_popcountll(m->bits[p >> 6] & ((1ull << (p & 63)) - 1));
	size_t i = p >> 6;

	for (unsigned k = 0; k + 1 < m->nlevels; k++) {
		const uint32_t *c = m->cnt[k] + (i & ~(size_t)63);
		unsigned w = i & 63;
		uint32_t t = 0;
		if (w < 32) {
			for (unsigned j = 0; j < w; j++)
				t += c[j];
		} else {	/* the group's total, less its entries from w on */
			t = m->cnt[k + 1][i >> 6];
			for (unsigned j = w; j < 64; j++)	/* levels are padded to 64 */
				t -= c[j];
		}
		s += t;
		i >>= 6;
	}
	return s;
}

static inline void axis_set(struct mrc *m, uint32_t p, int on)
{
	size_t i = p >> 6;

	m->bits[i] ^= 1ull << (p & 63);
	for (unsigned k = 0; k < m->nlevels; k++, i >>= 6)
		m->cnt[k][i] += on ? 1u : (uint32_t)-1;
}

static void hist_grow(struct mrc *m, uint64_t d)
{
	size_t n = m->hcap ? m->hcap : 64;

	while (n < d)
		n *= 2;
	m->hist = mt_xrealloc(m->hist, n * sizeof(*m->hist));
	memset(m->hist + m->hcap, 0, (n - m->hcap) * sizeof(*m->hist));
	m->hcap = n;
}

/* The distance of a reference to bucket (0: its first), the mark moved. */
static inline __attribute__((always_inline)) uint64_t distance(struct mrc *m, uint64_t bucket)
{
	uint64_t d = 0;

	if (m->now > m->tcap)
		compact(m);
	if (2 * (m->distinct + 1) > m->cap)
		grow_slots(m);
	struct mrc_slot *s = &m->slots[slot_of(m, bucket)];

	if (s->key) {
		uint32_t p = (uint32_t)s->when;
		d = m->distinct - before(m, p);
		axis_set(m, p, 0);
	} else {
		s->key = bucket + 1;
		m->distinct++;
		m->cold += !m->warming;
	}
	axis_set(m, m->now, 1);
	s->when = m->now++;
	if (m->warming)
		return 0;	/* not counted */
	m->refs++;
	return d;
}

static inline void count(struct mrc *m, uint64_t d)
{
	if (!d)
		return;
	if (d > m->hcap)
		hist_grow(m, d);
	m->hist[d - 1]++;
}

void mrc_add(struct mrc *m, uint64_t bucket)
{
	if (m->distinct >= MRC_MAX_BUCKETS)
		m->too_many = 1;
	if (!m->too_many)
		count(m, distance(m, bucket));
}

#define AHEAD 8

/*
 * Software-pipelined: the slot of reference i + 2 AHEAD and the bitmap word
 * of i + AHEAD are fetched ahead, and the histogram entry of a distance is
 * counted AHEAD references after it is known (fetched meanwhile).
 */
void mrc_add_many(struct mrc *m, const uint64_t *bucket, size_t n)
{
	uint64_t pend[AHEAD] = { 0 };

	if (m->distinct + n > MRC_MAX_BUCKETS)	/* near the limit: one at a time */
		m->too_many = 1;
	if (m->too_many)
		return;
	for (size_t i = 0; i < n; i++) {
		if (i + 2 * AHEAD < n && m->cap)
			__builtin_prefetch(&m->slots[home_of(m, bucket[i + 2 * AHEAD])], 0, 1);
		if (i + AHEAD < n && m->cap) {
			const struct mrc_slot *s = &m->slots[home_of(m, bucket[i + AHEAD])];
			if (s->key == bucket[i + AHEAD] + 1 && s->when <= m->tcap)
				__builtin_prefetch(&m->bits[s->when >> 6], 1, 1);
		}
		uint64_t d = distance(m, bucket[i]);
		count(m, pend[i % AHEAD]);
		pend[i % AHEAD] = d;
		if (d && d <= m->hcap)
			__builtin_prefetch(&m->hist[d - 1], 1, 1);
	}
	for (size_t j = 0; j < AHEAD; j++)
		count(m, pend[j]);
}

void mrc_finish(struct mrc *m)
{
	uint64_t sum = 0;

	free(m->hits);
	m->hits = mt_xmalloc((m->distinct ? m->distinct : 1) * sizeof(*m->hits));
	for (uint64_t c = 0; c < m->distinct; c++) {
		sum += c < m->hcap ? m->hist[c] : 0;
		m->hits[c] = sum;
	}
	free(m->hist);
	m->hist = NULL;
	m->hcap = 0;
	/* the table and the time axis are no longer needed */
	axis_free(m);
	free(m->slots);
	m->slots = NULL;
	m->tcap = m->now = 0;
	m->cap = 0;
}

size_t mrc_sizes(uint64_t footprint, size_t min_points, uint64_t **out)
{
	if (!footprint) {
		*out = mt_xmalloc(sizeof(uint64_t));
		return 0;
	}
	if (footprint <= min_points) {
		uint64_t *s = mt_xmalloc(footprint * sizeof(*s));
		for (uint64_t i = 0; i < footprint; i++)
			s[i] = i + 1;
		*out = s;
		return footprint;
	}
	for (size_t k = min_points;; k *= 2) {
		uint64_t *s = mt_xmalloc(k * sizeof(*s));
		double lf = log((double)footprint);
		size_t n = 0;
		for (size_t i = 0; i < k; i++) {
			uint64_t v = i + 1 == k ? footprint
					       : (uint64_t)llround(exp(lf * (double)i / (double)(k - 1)));
			if (v < 1)
				v = 1;
			if (v > footprint)
				v = footprint;
			if (!n || v > s[n - 1])
				s[n++] = v;
		}
		if (n >= min_points || k >= 2 * footprint) {
			*out = s;
			return n;
		}
		free(s);
	}
}

/* Wilson's 95 % interval of a proportion k / n. */
static void wilson(double k, double n, double *lo, double *hi)
{
	const double z = 1.96;
	double p = k / n, den = 1 + z * z / n;
	double mid = (p + z * z / (2 * n)) / den;
	double half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;

	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}

double mrc_miss(const struct mrc *m, uint64_t c, double period, double cold_ratio, double *lo,
		double *hi)
{
	double l, h, miss;

	if (!m->refs) {
		l = h = miss = 0;
	} else if (period <= 1.0) {
		miss = (double)(m->refs - mrc_hits(m, c)) / (double)m->refs;
		l = h = miss;
	} else {
		double reuses = (double)(m->refs - m->cold);
		double cold = cold_ratio < 0 ? 0 : cold_ratio > 1 ? 1 : cold_ratio;
		if (reuses <= 0) {	/* no reuse seen: nothing known but the cold misses */
			miss = cold;
			l = cold;
			h = 1;
		} else {
			double far = reuses - (double)mrc_hits(m, c);
			wilson(far, reuses, &l, &h);
			miss = cold + (1 - cold) * far / reuses;
			l = cold + (1 - cold) * l;
			h = cold + (1 - cold) * h;
		}
	}
	if (lo)
		*lo = l;
	if (hi)
		*hi = h;
	return miss;
}

#define KNEE_DROP 0.05

size_t mrc_knees(const uint64_t *size, size_t n, double (*miss_at)(void *ctx, uint64_t c),
		 void *ctx, size_t *out, size_t max)
{
	size_t k = 0;
	uint64_t last = 0;	/* size of the last knee kept */

	for (size_t i = 0; i < n && k < max; i++) {
		uint64_t c = size[i];
		double here = miss_at(ctx, c);
		double drop = miss_at(ctx, c / 2) - here;	/* c / 2 = 0: miss 1 */
		double next = here - miss_at(ctx, 2 * c);
		if (drop < KNEE_DROP || next > drop / 4)
			continue;
		if (last && c <= 2 * last)
			continue;
		out[k++] = i;
		last = c;
	}
	return k;
}
