/* profile.c - every sample as code, data, allocation site and span,
 * summed into rows (engine/profile.h).  Names come from the resolver
 * (resolve.h), sites from sites_each.h, spans from span_index.h: this file
 * only asks them per sample and counts. */
#include "engine/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/trace_internal.h"
#include "engine/filter.h"
#include "engine/sites_each.h"
#include "engine/span_index.h"
#include "trace/format.h"
#include "util/util.h"

/* Open addressing, (a, b) -> index; cap a power of two, half full at most. */
struct imap {
	uint64_t *a, *b;
	uint32_t *v;		/* PROFILE_NONE: empty */
	size_t cap, n;
};

static size_t imap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;

	return (size_t)(h ^ h >> 29);
}

static size_t imap_find(const struct imap *m, uint64_t a, uint64_t b)
{
	size_t i = imap_hash(a, b) & (m->cap - 1);

	while (m->v[i] != PROFILE_NONE && (m->a[i] != a || m->b[i] != b))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void imap_grow(struct imap *m)
{
	struct imap g = { .cap = m->cap ? 2 * m->cap : 1024 };

	g.a = mt_xmalloc(g.cap * sizeof(*g.a));
	g.b = mt_xmalloc(g.cap * sizeof(*g.b));
	g.v = mt_xmalloc(g.cap * sizeof(*g.v));
	for (size_t i = 0; i < g.cap; i++)
		g.v[i] = PROFILE_NONE;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i] != PROFILE_NONE) {
			size_t j = imap_find(&g, m->a[i], m->b[i]);
			g.a[j] = m->a[i], g.b[j] = m->b[i], g.v[j] = m->v[i];
		}
	g.n = m->n;
	free(m->a), free(m->b), free(m->v);
	*m = g;
}

/* The slot of (a, b): its value, or PROFILE_NONE where the caller stores one. */
static uint32_t *imap_slot(struct imap *m, uint64_t a, uint64_t b)
{
	if (2 * (m->n + 1) > m->cap)
		imap_grow(m);
	size_t i = imap_find(m, a, b);
	if (m->v[i] == PROFILE_NONE) {
		m->a[i] = a, m->b[i] = b;
		m->n++;
	}
	return &m->v[i];
}

static void imap_free(struct imap *m)
{
	free(m->a), free(m->b), free(m->v);
}

struct profile_impl {
	struct memtrace_trace *t;
	struct memtrace_resolver *res;
	struct span_index spans;
	int have_spans;
	char *comm;
};

struct ctx {
	struct profile *p;
	const struct memtrace_report_config *cfg;
	uint64_t start;
	struct imap code_of;	/* (pid, ip) -> code */
	struct imap addr_of;	/* (pid, addr) -> data, the last resolution of each address */
	struct imap data_of;	/* (pid, hash of region and object) -> data */
	size_t code_cap, data_cap;
	struct profile_row *all;	/* one per kept sample (samples = 1), then summed */
	size_t nall, cap_all;
	uint32_t *site_of;	/* sites_each: per sample in file order */
	size_t nsite_of;
};

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
	return (h ^ 0xff) * 0x100000001B3ull;	/* the end of s: "ab","c" != "a","bc" */
}

static int same(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

static uint32_t code_index(struct ctx *c, uint32_t pid, uint64_t time, uint64_t ip)
{
	uint32_t *slot = imap_slot(&c->code_of, pid, ip);

	if (*slot != PROFILE_NONE)
		return *slot;
	struct profile *p = c->p;
	if (p->ncode == c->code_cap) {
		c->code_cap = c->code_cap ? 2 * c->code_cap : 256;
		p->code = mt_xrealloc(p->code, c->code_cap * sizeof(*p->code));
	}
	struct profile_code *k = &p->code[p->ncode];
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->ip = ip;
	k->resolved = memtrace_resolve(p->impl->res, pid, time, ip, &k->loc);
	return *slot = (uint32_t)p->ncode++;
}

static uint32_t data_index(struct ctx *c, uint32_t pid, uint64_t time, uint64_t addr)
{
	uint32_t *slot = imap_slot(&c->addr_of, pid, addr);

	if (*slot != PROFILE_NONE)
		return *slot;
	struct profile *p = c->p;
	struct memtrace_location loc;
	memtrace_resolve(p->impl->res, pid, time, addr, &loc);
	const char *region = loc.mapping ? loc.mapping : "?";
	uint64_t h = str_hash(str_hash(0xCBF29CE484222325ull, region), loc.symbol);
	uint32_t *d;
	/* a hash shared by other names (never seen yet): the next value */
	while (*(d = imap_slot(&c->data_of, pid, h)) != PROFILE_NONE &&
	       !(same(p->data[*d].region, region) && same(p->data[*d].object, loc.symbol)))
		h++;
	if (*d == PROFILE_NONE) {
		if (p->ndata == c->data_cap) {
			c->data_cap = c->data_cap ? 2 * c->data_cap : 256;
			p->data = mt_xrealloc(p->data, c->data_cap * sizeof(*p->data));
		}
		p->data[p->ndata] = (struct profile_data){ pid, region, loc.symbol,
							   loc.path ? loc.path : "",
							   loc.map_start, loc.map_end };
		*d = (uint32_t)p->ndata++;
	}
	/* imap_slot may have moved the table: look addr's slot up again */
	return *imap_slot(&c->addr_of, pid, addr) = *d;
}

static int keep(const struct ctx *c, uint64_t time, uint32_t pid, uint32_t tid)
{
	return filter_keeps_who_when(&c->cfg->filter, c->start, time, pid, tid);
}

static void add_sample(struct ctx *c, size_t index, uint64_t time, uint32_t pid, uint32_t tid,
		       uint64_t addr, uint64_t ip)
{
	struct profile *p = c->p;
	struct profile_row r = { .pid = pid, .site = PROFILE_NONE, .span = PROFILE_NONE,
				 .samples = 1 };

	r.code = code_index(c, pid, time, ip);
	r.data = data_index(c, pid, time, addr);
	if (c->site_of && index < c->nsite_of && c->site_of[index] != SITES_NONE)
		r.site = c->site_of[index];
	if (p->impl->have_spans) {
		long k = span_index_find(&p->impl->spans, tid, time);
		if (k >= 0)
			r.span = p->impl->spans.v[k].label;
	}
	if (c->nall == c->cap_all) {
		c->cap_all = c->cap_all ? 2 * c->cap_all : 4096;
		c->all = mt_xrealloc(c->all, c->cap_all * sizeof(*c->all));
	}
	c->all[c->nall++] = r;
	if (!p->samples || time < p->first_time)
		p->first_time = time;
	if (time > p->last_time)
		p->last_time = time;
	p->samples++;
}

/* Every SAMPLES chunk in file order (the order of sites_each's indices). */
static int read_samples(struct ctx *c, char *err, size_t errlen)
{
	struct memtrace_trace *t = c->p->impl->t;
	struct memtrace_columns col = { .cap = CHUNK_MAX_SAMPLES };
	struct memtrace_chunk ch;
	size_t index = 0, n;
	int rc;

	if (memtrace_trace_rewind(t, err, errlen))
		return -1;
	col.time = mt_xmalloc(col.cap * sizeof(uint64_t));
	col.addr = mt_xmalloc(col.cap * sizeof(uint64_t));
	col.ip = mt_xmalloc(col.cap * sizeof(uint64_t));
	col.pid = mt_xmalloc(col.cap * sizeof(uint32_t));
	col.tid = mt_xmalloc(col.cap * sizeof(uint32_t));
	while ((rc = memtrace_trace_next(t, &ch, err, errlen)) > 0) {
		if (ch.type != MEMTRACE_CHUNK_SAMPLES)
			continue;
		if (memtrace_chunk_samples(&ch, &col, &n, err, errlen)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < n; i++, index++)
			if (keep(c, col.time[i], col.pid[i], col.tid[i]))
				add_sample(c, index, col.time[i], col.pid[i], col.tid[i],
					   col.addr[i], col.ip[i]);
	}
	free(col.time), free(col.addr), free(col.ip), free(col.pid), free(col.tid);
	return rc < 0 ? -1 : 0;
}

static int by_key(const void *x, const void *y)
{
	const struct profile_row *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->code != b->code)
		return a->code < b->code ? -1 : 1;
	if (a->data != b->data)
		return a->data < b->data ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return a->span < b->span ? -1 : a->span > b->span;
}

/* The per-sample rows sorted, equal keys summed, into p->rows. */
static void sum_rows(struct ctx *c)
{
	struct profile *p = c->p;
	size_t k = 0;

	if (c->nall)
		qsort(c->all, c->nall, sizeof(*c->all), by_key);
	for (size_t i = 0; i < c->nall; i++) {
		if (k && !by_key(&c->all[k - 1], &c->all[i])) {
			c->all[k - 1].samples += c->all[i].samples;
			continue;
		}
		c->all[k++] = c->all[i];
	}
	p->rows = c->all;
	p->nrows = k;
	c->all = NULL;
}

/* The trace's spans (record --mark), every label its own group. */
static int load_spans(struct profile *p, char *err, size_t errlen)
{
	const struct trace_spans *s = api_spans(p->impl->t, err, errlen);

	if (!s)
		return -1;
	if (!s->n)
		return 0;
	/* the index takes its records: a copy, the trace keeps its own (labels shared) */
	struct trace_spans copy = { .n = s->n, .cap = s->n, .labels = s->labels };
	copy.v = mt_xmalloc(s->n * sizeof(*copy.v));
	memcpy(copy.v, s->v, s->n * sizeof(*copy.v));
	span_index_build(&p->impl->spans, &copy, NULL);
	p->impl->have_spans = 1;
	p->span_labels = p->impl->spans.labels;
	p->nspans = p->impl->spans.ngroups;
	return 0;
}

static struct profile *compute(const char *path, const struct memtrace_report_config *cfg,
			       char *err, size_t errlen)
{
	struct memtrace_report_config none = { 0 };
	struct profile *p = mt_xcalloc(1, sizeof(*p));
	struct ctx c = { .p = p, .cfg = cfg ? cfg : &none };
	struct memtrace_trace_info info;

	p->impl = mt_xcalloc(1, sizeof(*p->impl));
	p->impl->t = memtrace_trace_open(path, err, errlen);
	if (!p->impl->t || memtrace_trace_info(p->impl->t, &info, err, errlen))
		goto fail;
	if (memtrace_trace_meta(p->impl->t, "aggregate")) {
		snprintf(err, errlen, "%s: an aggregated trace (record --aggregate) holds per-interval "
			 "bucket counts, no samples with their instructions to export", path);
		goto fail;
	}
	c.start = info.start_time;
	p->period = info.sample_period ? info.sample_period : 1;
	p->bucket = c.cfg->bucket ? c.cfg->bucket : info.bucket_default;
	p->time_is_ns = info.time_is_ns;
	p->words = memtrace_trace_words(p->impl->t);
	p->impl->comm = mt_xstrdup(memtrace_trace_target_comm(p->impl->t));
	p->comm = p->impl->comm;
	p->impl->res = memtrace_resolver_open(path, c.cfg->root, c.cfg->debug_dir, err, errlen);
	if (!p->impl->res)
		goto fail;
	if (c.cfg->labels && memtrace_resolver_labels(p->impl->res, c.cfg->labels, err, errlen))
		goto fail;
	if (load_spans(p, err, errlen))
		goto fail;
	if (memtrace_trace_meta(p->impl->t, "alloc_sample_bytes")) {
		p->sites = sites_compute_each(path, c.cfg, &c.site_of, &c.nsite_of, err, errlen);
		if (!p->sites)
			goto fail;
	}
	if (read_samples(&c, err, errlen))
		goto fail;
	sum_rows(&c);
	imap_free(&c.code_of), imap_free(&c.addr_of), imap_free(&c.data_of);
	free(c.site_of);
	return p;
fail:
	imap_free(&c.code_of), imap_free(&c.addr_of), imap_free(&c.data_of);
	free(c.site_of);
	free(c.all);
	profile_free(p);
	return NULL;
}

/* out of memory: NULL with the error, never an exit (util/util.h) */
struct profile *profile_compute(const char *path, const struct memtrace_report_config *cfg,
				char *err, size_t errlen)
{
	MT_OOM_GUARDED(struct profile *, NULL, err, errlen, compute(path, cfg, err, errlen));
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	if (p->impl->have_spans)
		span_index_free(&p->impl->spans);
	if (p->impl->res)
		memtrace_resolver_close(p->impl->res);
	if (p->impl->t)
		memtrace_trace_close(p->impl->t);
	memtrace_sites_free(p->sites);
	free(p->impl->comm);
	free(p->impl);
	free(p->rows);
	free(p->code);
	free(p->data);
	free(p);
}
