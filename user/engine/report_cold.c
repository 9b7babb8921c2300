/*
 * report_cold.c - the report's cold memory (MEMTRACE_REPORT_COLD,
 * include/memtrace/report.h struct memtrace_cold): the method from the
 * trace's sample class (refused where a page is seen only once), the
 * thresholds and the step, pass 1's keyed data samples to engine/cold.c
 * (the whole report's and each process's), then the points filled with
 * their blind flags, the age of the latest pass and the shares.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/cold.h"
#include "engine/report_internal.h"
#include "trace/words.h"
#include "util/util.h"

#define NS_S		1000000000ull
#define MAX_AUTO_POINTS	10000
#define MAX_COLD_PROCS	256	/* per-process cold state: the first ones only */

int rep_cold_setup(struct rep_ctx *c, const struct memtrace_report_config *cfg,
		   struct trace_reader *tr, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct cold_config cc = { .origin = r->start_time };

	if (!(c->flags & MEMTRACE_REPORT_COLD))
		return 0;
	enum words_class wc = words_class_of(trace_meta(tr, "sample_class"), trace_meta(tr, "source"),
					     trace_meta(tr, "sample_period"));
	const char *cls = words_class_name(wc);
	if (wc == WORDS_FIRST_TOUCH || wc == WORDS_DAMON_REGIONS) {
		snprintf(err, errlen, "no cold memory of a %s trace: %s", cls,
			 wc == WORDS_FIRST_TOUCH
				 ? "a page fault is seen once per page, so a page is never seen again "
				   "after its first touch (record accesses: -e accessed, hint faults, "
				   "a PMU or valgrind)"
				 : "DAMON regions are region-level checks, not pages");
		return -1;
	}
	if (c->agg_interval) {
		snprintf(err, errlen, "no cold memory of an aggregated trace: its rows are counts per "
			 "interval, not accesses at their times");
		return -1;
	}
	cc.mode = wc == WORDS_ACCESSED_BIT ? COLD_PASS_BITS : wc == WORDS_HINT_FAULT ? COLD_HINT
										   : COLD_ACCESS;
	if (cc.mode != COLD_ACCESS && r->blind.state != MEMTRACE_BLIND_KNOWN) {
		snprintf(err, errlen, "no cold memory of this %s trace: it records no observation "
			 "passes (written before trace format 1.3), so an idle page cannot be told "
			 "from one the source did not look at", cls);
		return -1;
	}
	if (cfg->ncold > COLD_MAX_THRESHOLDS) {
		snprintf(err, errlen, "at most %d cold thresholds", COLD_MAX_THRESHOLDS);
		return -1;
	}
	if (!cfg->ncold && !r->time_is_ns) {
		snprintf(err, errlen, "an instruction-count trace has no seconds: give the cold "
			 "thresholds as instruction counts (--cold=N1,N2,...)");
		return -1;
	}
	static const uint64_t defaults[] = { 10 * NS_S, 60 * NS_S, 120 * NS_S };
	cc.nthr = cfg->ncold ? cfg->ncold : 3;
	uint64_t lo = UINT64_MAX;
	for (size_t i = 0; i < cc.nthr; i++) {
		cc.thr[i] = cfg->ncold ? cfg->cold_thresholds[i] : defaults[i];
		if (!cc.thr[i]) {
			snprintf(err, errlen, "a cold threshold must be > 0");
			return -1;
		}
		lo = cc.thr[i] < lo ? cc.thr[i] : lo;
	}
	/* the step: whole report intervals (the blind flags are the report's) */
	uint64_t T = r->interval, m = cfg->cold_step ? cfg->cold_step / T + (cfg->cold_step % T != 0)
						     : lo / 10 / T;
	if (!m)
		m = 1;
	const char *e = trace_end_meta(tr, "end_time");
	uint64_t end = e ? strtoull(e, NULL, 10) : 0;
	if (!cfg->cold_step && end > r->start_time) {	/* at most MAX_AUTO_POINTS */
		uint64_t span = end - r->start_time, per = span / MAX_AUTO_POINTS + 1;
		uint64_t need = per / T + (per % T != 0);
		m = need > m ? need : m;
	}
	if (m > UINT64_MAX / T) {
		snprintf(err, errlen, "cold step too large");
		return -1;
	}
	cc.step = m * T;
	cc.passes = c->passes;	/* sorted by (pid, time): rep_blind_setup */
	cc.npasses = c->npasses;
	size_t whole = 0;
	for (size_t i = 0; i < c->npasses; i++)
		whole += c->passes[i].what != MEMTRACE_PASS_NUMA_SCAN_PARTIAL;
	if (whole < c->npasses) {	/* a partial sweep armed not every page: not a pass here */
		struct memtrace_pass *v = rep_alloc(c, (whole ? whole : 1) * sizeof(*v));
		size_t n = 0;
		for (size_t i = 0; i < c->npasses; i++)
			if (c->passes[i].what != MEMTRACE_PASS_NUMA_SCAN_PARTIAL)
				v[n++] = c->passes[i];
		cc.passes = v;
		cc.npasses = n;
	}
	c->cold_cfg = cc;
	cold_init(&c->cold, &cc);
	c->cold_on = 1;
	return 0;
}

void rep_cold_filter_ready(struct rep_ctx *c)
{
	/* a region of shmem: the NUMA scanner never marks it, so never idle */
	if (c->cold_on && c->filt.region_shmem && c->cold_cfg.mode == COLD_HINT)
		c->cold_cfg.npasses = c->cold.cfg.npasses = 0;
}

void rep_cold_add(struct rep_ctx *c, const struct memtrace_sample *s, size_t n)
{
	unsigned shift = c->r->bucket_shift;

	if (!c->cold_on)
		return;
	for (size_t i = 0; i < n; i++)
		cold_add(&c->cold, s[i].addr >> shift, s[i].time, s[i].pid);
}

struct cold *rep_cold_proc_new(struct rep_ctx *c)
{
	if (!c->cold_on)
		return NULL;
	if (c->cold_nprocs >= MAX_COLD_PROCS) {
		c->cold_procs_capped = 1;
		return NULL;
	}
	struct cold *p = mt_xmalloc(sizeof(*p));
	cold_init(p, &c->cold_cfg);
	c->cold_nprocs++;
	return p;
}

static const char *too_long(const struct cold *k, char *err, size_t errlen)
{
	snprintf(err, errlen, "cold memory: samples past %llu points (time %llu): give a larger "
		 "--cold-step", (unsigned long long)COLD_MAX_POINTS, (unsigned long long)k->too_long);
	return err;
}

static uint64_t *copy_u64(struct rep_ctx *c, const uint64_t *v, size_t n)
{
	uint64_t *o = rep_alloc(c, (n ? n : 1) * sizeof(*o));

	if (n)
		memcpy(o, v, n * sizeof(*o));
	return o;
}

int rep_fill_cold(struct rep_ctx *c, char *err, size_t errlen)
{
	struct memtrace_report *r = c->r;
	struct memtrace_cold *o = &r->cold;
	struct cold *k = &c->cold;

	if (!c->cold_on || !r->samples)
		return 0;
	uint64_t end = r->info.end_time > r->last_time ? r->info.end_time : r->last_time;
	cold_finish(k, end);
	if (k->too_long) {
		too_long(k, err, errlen);
		return -1;
	}
	size_t n = k->npoints, nt = k->cfg.nthr;
	uint64_t m = k->cfg.step / r->interval;
	o->computed = 1;
	o->method = k->cfg.mode == COLD_PASS_BITS ? MEMTRACE_COLD_PASSES
		    : k->cfg.mode == COLD_HINT ? MEMTRACE_COLD_HINT : MEMTRACE_COLD_ACCESS;
	o->period = rep_sample_period(r) < 1 ? 1 : rep_sample_period(r);
	o->bucket = r->bucket;
	o->step = k->cfg.step;
	o->nthresholds = nt;
	o->thresholds = copy_u64(c, k->cfg.thr, nt);
	o->n = n;
	o->reordered = k->reordered;
	uint64_t *time = rep_alloc(c, (n ? n : 1) * sizeof(*time));
	uint64_t *cold = rep_alloc(c, (n * nt + 1) * sizeof(*cold));
	for (size_t j = 0; j < n; j++)
		time[j] = (j + 1) * k->cfg.step;
	for (size_t i = 0; i < nt; i++)
		memcpy(cold + i * n, k->cold[i], n * sizeof(*cold));
	o->time = time;
	o->seen = copy_u64(c, k->seen, n);
	o->cold = cold;
	if (r->blind.state == MEMTRACE_BLIND_KNOWN) {
		unsigned char *b = rep_alloc(c, n ? n : 1);
		for (size_t j = 0; j < n; j++) {
			b[j] = (unsigned char)rep_blind_at(r, (j + 1) * m);
			o->blind_points += b[j];
		}
		o->blind = b;
	}
	if (k->cfg.mode != COLD_ACCESS) {
		uint64_t *age = rep_alloc(c, (n ? n : 1) * sizeof(*age));
		for (size_t j = 0; j < n; j++) {
			uint64_t t = r->start_time + time[j], p;
			age[j] = cold_pass_before(k, c->pid, t, &p) ? t - p : UINT64_MAX;
		}
		o->pass_age = age;
	}
	double *share = rep_alloc(c, (nt ? nt : 1) * sizeof(*share));
	for (size_t i = 0; i < nt; i++) {
		double sum = 0;
		size_t pts = 0;
		for (size_t j = 0; j < n; j++) {
			if (!o->seen[j] || (o->blind && o->blind[j]))
				continue;
			sum += (double)cold[i * n + j] / (double)o->seen[j];
			pts++;
		}
		share[i] = pts ? sum / (double)pts : 0;
	}
	o->avg_share = share;
	if (o->period > 1.0) {
		double *fc = rep_alloc(c, (nt ? nt : 1) * sizeof(*fc));
		uint64_t span = end > r->start_time ? end - r->start_time : 0;
		for (size_t i = 0; i < nt; i++)
			fc[i] = cold_false_cold(k, k->cfg.thr[i], span);
		o->false_cold = fc;
	}
	/* per process, in the order of r->processes */
	struct memtrace_cold_process *pp = rep_alloc(c, (r->nprocesses ? r->nprocesses : 1) *
							    sizeof(*pp));
	size_t np = 0;
	for (size_t i = 0; i < r->nprocesses; i++) {
		uint32_t pid = r->processes[i].pid;
		struct cold *q = NULL;
		for (size_t x = 0; x < c->nprocs && !q; x++)
			if (c->procs[x].used && c->procs[x].pid == pid)
				q = c->procs[x].cold;
		if (!q)
			continue;
		cold_finish(q, end);
		if (q->too_long) {
			too_long(q, err, errlen);
			return -1;
		}
		pp[np].pid = pid;
		pp[np].seen = copy_u64(c, q->seen, n);
		uint64_t *qc = rep_alloc(c, (n * nt + 1) * sizeof(*qc));
		for (size_t t = 0; t < nt; t++)
			memcpy(qc + t * n, q->cold[t], n * sizeof(*qc));
		pp[np].cold = qc;
		np++;
	}
	o->nprocesses = np;
	o->processes = pp;
	return 0;
}

void rep_cold_free(struct rep_ctx *c)
{
	if (c->cold_on)
		cold_free(&c->cold);
	c->cold_on = 0;
}
