/*
 * report_mrc.c - the report's miss-ratio curve (MEMTRACE_REPORT_MRC): the
 * (filtered, keyed) data samples of pass 1 go to engine/mrc.c in file
 * order, and the curve, its knees and the exact hits per size are filled
 * from it (include/memtrace/report.h, struct memtrace_mrc).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mrc.h"
#include "engine/report_internal.h"
#include "util/util.h"

#define MRC_POINTS 64
#define MRC_KNEES 8
#define BATCH 1024

void rep_mrc_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n)
{
	uint64_t b[BATCH];
	unsigned shift = c->r->bucket_shift;
	/* --mrc-warmup: the references before warm_end fill the cache only */
	uint64_t warm_end = c->r->start_time + c->cfg->mrc_warmup;

	if (!c->mrc_on)
		return;
	while (n) {
		size_t k = n < BATCH ? n : BATCH;
		c->mrc.warming = c->cfg->mrc_warmup && s[0].time < warm_end;
		if (c->mrc.warming)	/* up to the end of the warm-up, in one call */
			for (size_t i = 1; i < k; i++)
				if (s[i].time >= warm_end) {
					k = i;
					break;
				}
		for (size_t i = 0; i < k; i++)
			b[i] = s[i].addr >> shift;
		mrc_add_many(&c->mrc, b, k);
		s += k;
		n -= k;
	}
}

struct miss_ctx {
	const struct mrc *m;
	double period, cold;
};

static double miss_at(void *ctx, uint64_t c)
{
	const struct miss_ctx *x = ctx;

	return mrc_miss(x->m, c, x->period, x->cold, NULL, NULL);
}

/* r->mrc from c->mrc (finished here); err: too many buckets. */
int rep_fill_mrc(struct rep_ctx *c, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct memtrace_mrc *o = &r->mrc;
	struct mrc *m = &c->mrc;

	if (!c->mrc_on)
		return 0;
	/* a curve of references in order: page faults, hint faults, pass
	 * records and DAMON regions are not the stream a cache sees */
	const char *cls = memtrace_words_of_meta(r->meta)->sample_class;
	if (strcmp(cls, "sampled-access") && strcmp(cls, "every-access") &&
	    strcmp(cls, "buffer-request")) {
		snprintf(err, errlen, "no miss-ratio curve of a %s trace: its samples are not "
			 "references in order (record loads/stores with a PMU, run valgrind, or "
			 "-e buffer-requests for a database's buffer pool)", cls);
		return -1;
	}
	if (m->too_many) {
		snprintf(err, errlen, "miss-ratio curve: more than %llu distinct buckets: use a "
			 "larger --bucket", (unsigned long long)MRC_MAX_BUCKETS);
		return -1;
	}
	mrc_finish(m);
	if (!m->refs)
		return 0;
	double period = rep_sample_period(r);
	o->computed = 1;
	o->exact = period <= 1.0;
	o->period = period < 1.0 ? 1.0 : period;
	o->bucket = r->bucket;
	o->refs = m->refs;
	r->mrc_warmup = c->cfg->mrc_warmup;
	o->cold = m->cold;
	o->footprint = m->distinct;
	o->cold_ratio = (double)m->cold / (double)m->refs;
	if (!o->exact) {
		double total = r->data_est.total > (double)m->distinct ? r->data_est.total
								      : (double)m->distinct;
		o->footprint = (uint64_t)llround(total);
		o->cold_ratio = total / ((double)m->refs * o->period);
		if (o->cold_ratio > 1)
			o->cold_ratio = 1;
	}
	o->nhits = m->distinct;
	uint64_t *hits = rep_alloc(c, m->distinct * sizeof(*hits));
	memcpy(hits, m->hits, m->distinct * sizeof(*hits));
	o->hits = hits;

	uint64_t *sizes;
	size_t n = mrc_sizes(o->footprint, MRC_POINTS, &sizes);
	struct memtrace_mrc_point *pt = rep_alloc(c, (n ? n : 1) * sizeof(*pt));
	struct miss_ctx x = { m, o->period, o->cold_ratio };
	for (size_t i = 0; i < n; i++) {
		pt[i].bytes = sizes[i] << r->bucket_shift;
		pt[i].miss_ratio = mrc_miss(m, sizes[i], o->period, o->cold_ratio, &pt[i].lo,
					    &pt[i].hi);
	}
	size_t *knees = rep_alloc(c, MRC_KNEES * sizeof(*knees));
	o->nknees = mrc_knees(sizes, n, miss_at, &x, knees, MRC_KNEES);
	o->knees = knees;
	o->points = pt;
	o->n = n;
	free(sizes);
	return 0;
}

double memtrace_mrc_miss(const struct memtrace_report *r, uint64_t bytes, double *lo, double *hi)
{
	const struct memtrace_mrc *o = r ? &r->mrc : NULL;
	struct mrc m;

	if (!o || !o->computed)
		return -1;
	memset(&m, 0, sizeof(m));
	m.hits = (uint64_t *)o->hits;	/* read only: mrc_miss reads it */
	m.distinct = o->nhits;
	m.refs = o->refs;
	m.cold = o->cold;
	return mrc_miss(&m, bytes / o->bucket, o->period, o->cold_ratio, lo, hi);
}
