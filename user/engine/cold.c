/*
 * cold.c - cold memory over time (engine/cold.h): the latest sample of
 * every bucket in an open-addressing table, and each idle gap between two
 * samples of a bucket (or after its last) turned into the range of points
 * where it is cold, for every threshold, as two difference counters; the
 * prefix sums at cold_finish give the counts per point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cold.h"
#include "util/util.h"

#define NEVER UINT64_MAX	/* a point index that no range reaches */

void cold_init(struct cold *c, const struct cold_config *cfg)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	if (c->cfg.nthr > COLD_MAX_THRESHOLDS)
		c->cfg.nthr = COLD_MAX_THRESHOLDS;
	c->cap = 16;	/* grows by doubling: a process with few samples stays small */
	c->slots = mt_xcalloc(c->cap, sizeof(*c->slots));
}

void cold_free(struct cold *c)
{
	free(c->slots);
	for (size_t i = 0; i <= COLD_MAX_THRESHOLDS; i++)
		free(c->diff[i]);
	free(c->seen);
	for (size_t i = 0; i < COLD_MAX_THRESHOLDS; i++)
		free(c->cold[i]);
	memset(c, 0, sizeof(*c));
}

/* The first point at or after x: the smallest j >= 1 with origin + j step >= x. */
static uint64_t point_at(const struct cold *c, uint64_t x)
{
	if (x <= c->cfg.origin)
		return 1;
	uint64_t d = x - c->cfg.origin;
	uint64_t j = d / c->cfg.step + (d % c->cfg.step != 0);
	return j ? j : 1;
}

static struct cold_slot *slot_of(struct cold *c, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	size_t mask = c->cap - 1, i = (size_t)((h ^ h >> 31) & mask);

	while (c->slots[i].key && c->slots[i].key != key)
		i = (i + 1) & mask;
	return &c->slots[i];
}

static void grow_table(struct cold *c)
{
	struct cold_slot *old = c->slots;
	size_t cap = c->cap;

	c->cap = 2 * cap;
	c->slots = mt_xcalloc(c->cap, sizeof(*c->slots));
	for (size_t i = 0; i < cap; i++)
		if (old[i].key)
			*slot_of(c, old[i].key) = old[i];
	free(old);
}

/* diff rows hold index j (0..dcap - 1): make room for j; 0 when past the cap */
static int room(struct cold *c, uint64_t j, uint64_t t)
{
	if (j > COLD_MAX_POINTS + 1) {
		if (!c->too_long)
			c->too_long = t ? t : 1;
		return 0;
	}
	if (j < c->dcap)
		return 1;
	uint64_t n = c->dcap ? c->dcap : 16;
	while (n <= j)
		n *= 2;
	for (size_t i = 0; i <= c->cfg.nthr; i++) {
		c->diff[i] = mt_xrealloc(c->diff[i], n * sizeof(int64_t));
		memset(c->diff[i] + c->dcap, 0, (n - c->dcap) * sizeof(int64_t));
	}
	c->dcap = n;
	return 1;
}

/* [lo, hi) of pid's passes, else pid 0's (every target): 0 when neither has any */
static int pass_range(struct cold *c, uint32_t pid, size_t *lo, size_t *hi)
{
	const struct memtrace_pass *p = c->cfg.passes;
	size_t n = c->cfg.npasses;

	if (c->range_ok && c->range_pid == pid) {
		*lo = c->range_lo;
		*hi = c->range_hi;
		return *lo < *hi;
	}
	for (int pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? 0 : pid;
		size_t a = 0, b = n;
		while (a < b) {	/* first with pid >= want */
			size_t m = a + (b - a) / 2;
			if (p[m].pid < want)
				a = m + 1;
			else
				b = m;
		}
		size_t e = a;
		while (e < n && p[e].pid == want)
			e++;
		if (e > a || pass) {
			c->range_pid = pid;
			c->range_ok = 1;
			c->range_lo = *lo = a;
			c->range_hi = *hi = e;
			return e > a;
		}
	}
	return 0;
}

/* index in [lo, hi) of the first pass at or after t (hi: none) */
static size_t first_pass_from(const struct cold *c, size_t lo, size_t hi, uint64_t t)
{
	const struct memtrace_pass *p = c->cfg.passes;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (p[m].time < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

int cold_pass_before(const struct cold *c, uint32_t pid, uint64_t t, uint64_t *out)
{
	size_t lo, hi;

	if (!pass_range((struct cold *)c, pid, &lo, &hi))
		return 0;
	size_t i = first_pass_from(c, lo, hi, t);
	if (i < hi && c->cfg.passes[i].time == t) {
		*out = t;
		return 1;
	}
	if (i == lo)
		return 0;
	*out = c->cfg.passes[i - 1].time;
	return 1;
}

/*
 * The gap after a sample at l1 (of pid) up to the next at l2 (jend: its
 * point, NEVER for the last sample: cold to the end): for each threshold
 * the points j in [jlo, jend) where the bucket is cold.
 */
static void gap(struct cold *c, uint64_t l1, uint32_t pid, uint64_t jend, uint64_t now)
{
	size_t lo = 0, hi = 0;
	uint64_t from = l1;	/* watched again (idle) from here */
	int mode = c->cfg.mode;

	if (mode != COLD_ACCESS && !pass_range(c, pid, &lo, &hi))
		return;	/* no pass of its process: never known idle */
	if (mode == COLD_HINT) {
		size_t i = first_pass_from(c, lo, hi, l1) + 1;	/* the second advance */
		if (i >= hi)
			return;
		from = c->cfg.passes[i].time;
	}
	for (size_t k = 0; k < c->cfg.nthr; k++) {
		uint64_t th = c->cfg.thr[k];
		if (from > UINT64_MAX - th)
			continue;
		uint64_t x = from + th, jlo;
		if (mode == COLD_PASS_BITS) {	/* the clock is the latest pass */
			size_t i = first_pass_from(c, lo, hi, x);
			if (i >= hi)
				continue;
			x = c->cfg.passes[i].time;
		}
		jlo = point_at(c, x);
		if (jlo >= jend)
			continue;
		if (jend == NEVER) {	/* closed at cold_finish */
			if (jlo <= COLD_MAX_POINTS && room(c, jlo, now))
				c->diff[1 + k][jlo]++;
			continue;
		}
		if (!room(c, jend, now))
			return;
		c->diff[1 + k][jlo]++;
		c->diff[1 + k][jend]--;
	}
}

void cold_add(struct cold *c, uint64_t bucket, uint64_t time, uint32_t pid)
{
	if (c->too_long)
		return;
	struct cold_slot *s = slot_of(c, bucket + 1);
	if (!s->key) {
		uint64_t j = point_at(c, time);
		if (!room(c, j, time))
			return;
		if (2 * (c->distinct + 1) > c->cap) {
			grow_table(c);
			s = slot_of(c, bucket + 1);
		}
		*s = (struct cold_slot){ bucket + 1, time, pid, 1 };
		c->distinct++;
		c->diff[0][j]++;
		return;
	}
	if (s->count < UINT32_MAX)
		s->count++;
	if (time < s->last) {
		c->reordered++;
		return;
	}
	if (time > s->last)
		gap(c, s->last, s->pid, point_at(c, time), time);
	s->last = time;
	s->pid = pid;
}

void cold_finish(struct cold *c, uint64_t end)
{
	uint64_t n = point_at(c, end);

	for (size_t i = 0; i < c->cap && !c->too_long; i++)
		if (c->slots[i].key)
			gap(c, c->slots[i].last, c->slots[i].pid, NEVER, c->slots[i].last);
	if (c->too_long || !room(c, n, end))
		return;
	c->npoints = n;
	c->seen = mt_xcalloc(n ? n : 1, sizeof(uint64_t));
	for (size_t k = 0; k < c->cfg.nthr; k++)
		c->cold[k] = mt_xcalloc(n ? n : 1, sizeof(uint64_t));
	for (size_t r = 0; r <= c->cfg.nthr; r++) {
		int64_t sum = 0;
		uint64_t *out = r ? c->cold[r - 1] : c->seen;
		for (uint64_t j = 1; j <= n; j++) {
			sum += c->diff[r][j];
			out[j - 1] = sum > 0 ? (uint64_t)sum : 0;
		}
	}
}

double cold_false_cold(const struct cold *c, uint64_t theta, uint64_t span)
{
	double sum = 0;

	if (!span)
		return 0;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].key)
			sum += exp(-(double)c->slots[i].count / (double)span * (double)theta);
	return sum;
}
