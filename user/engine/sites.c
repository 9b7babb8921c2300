/* sites.c - allocation sites (include/memtrace/sites.h): the ALLOCS events
 * replayed beside the samples (alloc_attr.c), sites named from their
 * stacks, and the per-site numbers. */
#include "memtrace/sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/alloc_attr.h"
#include "engine/filter.h"
#include "engine/sites_each.h"
#include "memtrace/resolve.h"
#include "memtrace/trace.h"
#include "trace/format.h"
#include "util/util.h"
#include "util/search.h"

struct stack_rec {
	uint32_t id, n, order;
	uint64_t *ips;
};

/* (bucket key, site) -> samples */
struct pair {
	uint64_t bucket;
	uint32_t site;		/* UINT32_MAX: empty slot */
	uint64_t count;
};

struct site_cache {
	uint64_t hash, caller;
	uint32_t stack;
	long site;
	int used;
};

struct site_acc {
	char *name, *function, *file;
	unsigned line;
	struct memtrace_site s;
	double life_sum;
};

struct ctx {
	const struct memtrace_report_config *cfg;
	struct memtrace_resolver *res;
	struct trace_alloc *ev;
	size_t nev, cap_ev;
	struct stack_rec *stacks;
	size_t nstacks, cap_stacks;
	int too_many;
	struct site_acc *sites;
	size_t nsites;
	struct site_cache *cache;
	size_t ncache, cache_cap;
	uint32_t *block_site;	/* per alloc_attr block */
	size_t block_site_cap;
	struct pair *pairs;
	size_t npairs, pair_cap;
	struct alloc_attr attr;
	unsigned shift;
	uint64_t start;
	struct memtrace_sites *out;
	/* sites_compute_each: the site of every sample, in file order */
	int want_each;
	uint32_t *each;
	size_t neach, cap_each;
};

/* What a report keeps of a trace's allocation records (a crafted file of
 * small zstd chunks could claim gigabytes): 64 bytes each in memory. */
#define MAX_ALLOC_EVENTS	(1u << 24)
#define MAX_ALLOC_STACKS	(1u << 20)

static void on_rec(void *p, const struct trace_alloc *a)
{
	struct ctx *c = p;

	if (c->nev == MAX_ALLOC_EVENTS) {
		c->too_many = 1;
		return;
	}
	if (c->nev == c->cap_ev) {
		c->cap_ev = c->cap_ev ? c->cap_ev * 2 : 1024;
		c->ev = mt_xrealloc(c->ev, c->cap_ev * sizeof(*c->ev));
	}
	c->ev[c->nev++] = *a;
}

static void on_stack(void *p, const struct trace_alloc_stack *s)
{
	struct ctx *c = p;

	if (c->nstacks == MAX_ALLOC_STACKS) {
		c->too_many = 1;
		return;
	}
	if (c->nstacks == c->cap_stacks) {
		c->cap_stacks = c->cap_stacks ? c->cap_stacks * 2 : 256;
		c->stacks = mt_xrealloc(c->stacks, c->cap_stacks * sizeof(*c->stacks));
	}
	struct stack_rec *r = &c->stacks[c->nstacks];
	r->id = s->id;
	r->n = s->n;
	r->order = (uint32_t)c->nstacks++;
	r->ips = mt_xcalloc(s->n ? s->n : 1, sizeof(uint64_t));
	for (uint32_t i = 0; i < s->n; i++)
		r->ips[i] = get_le64(s->ips + 8 * i);
}

static int by_id(const void *x, const void *y)
{
	const struct stack_rec *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Stacks by id for bsearch; of two with one id the first written counts. */
static void index_stacks(struct ctx *c)
{
	size_t k = 0;

	if (!c->nstacks)
		return;
	qsort(c->stacks, c->nstacks, sizeof(*c->stacks), by_id);
	for (size_t i = 0; i < c->nstacks; i++) {
		if (k && c->stacks[k - 1].id == c->stacks[i].id) {
			free(c->stacks[i].ips);
			continue;
		}
		c->stacks[k++] = c->stacks[i];
	}
	c->nstacks = k;
}

static const struct stack_rec *find_stack(const struct ctx *c, uint32_t id)
{
	size_t lo = 0, hi = c->nstacks;

	MT_PARTITION_POINT(lo, hi, mid, c->stacks[mid].id < id);
	return lo < c->nstacks && c->stacks[lo].id == id ? &c->stacks[lo] : NULL;
}

/* Pass 1: every ALLOCS chunk. */
static int read_allocs(struct ctx *c, struct memtrace_trace *t, char *err, size_t errlen)
{
	struct memtrace_chunk ch;
	int rc;

	while ((rc = memtrace_trace_next(t, &ch, err, errlen)) > 0)
		if (ch.type == CHUNK_ALLOCS &&
		    trace_allocs_decode(ch.data, ch.len, on_rec, on_stack, c, err, errlen))
			return -1;
	if (rc >= 0 && c->too_many) {
		snprintf(err, errlen, "more than %u allocation records or %u stacks: not read",
			 MAX_ALLOC_EVENTS, MAX_ALLOC_STACKS);
		return -1;
	}
	index_stacks(c);
	return rc;
}

/* Frames of the allocator itself: its library, or its function names. */
static int allocator_frame(const struct memtrace_location *loc)
{
	static const char *const prefixes[] = {
		"__libc_", "_int_", "__GI_", "tcache", "je_", "tc_", "_Zn", "_Zd", "__mmap",
		"__munmap", "__mremap", "__posix_memalign", "_mid_memalign", "sysmalloc",
	};
	static const char *const names[] = {
		"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc",
		"memalign", "valloc", "pvalloc", "mmap", "mmap64", "munmap", "mremap", "strdup",
		"strndup", "__strdup", "__strndup", "mallocx", "rallocx", "dallocx", "sdallocx",
		"reallocarray", "__reallocarray",
	};
	const char *m = loc->mapping ? loc->mapping : "";
	const char *sym = loc->symbol;

	if (!strncmp(m, "libc.so", 7) || !strncmp(m, "libc-", 5) || strstr(m, "jemalloc") ||
	    strstr(m, "tcmalloc") || !strncmp(m, "libstdc++", 9))
		return 1;
	if (!sym)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(sym, names[i]))
			return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(sym, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static long site_by_name(struct ctx *c, const char *name, const char *fn, const char *file,
			 unsigned line)
{
	for (size_t i = 0; i < c->nsites; i++)
		if (!strcmp(c->sites[i].name, name))
			return (long)i;
	c->sites = mt_xrealloc(c->sites, (c->nsites + 1) * sizeof(*c->sites));
	struct site_acc *s = &c->sites[c->nsites];
	memset(s, 0, sizeof(*s));
	s->name = mt_xstrdup(name);
	s->function = fn ? mt_xstrdup(fn) : NULL;
	s->file = file ? mt_xstrdup(file) : NULL;
	s->line = line;
	return (long)c->nsites++;
}

/* The site of a call: the first frame outside the allocator of caller
 * (the return address at its entry) and the stack's frames after it.  The
 * stack's frame 0 is the probed function's entry; frame 1 is the caller
 * where the kernel adds it, else the caller's caller.  Return addresses
 * are looked up one byte back, in the call instruction. */
static long name_site(struct ctx *c, const struct stack_rec *st, uint64_t caller, uint32_t pid,
		      uint64_t time)
{
	struct memtrace_location loc, pick;
	uint64_t frames[ALLOC_MAX_FRAMES + 1];
	uint32_t n = 0, from = st && st->n > 1 && st->ips[1] == caller ? 2 : 1;
	char name[1024];
	int found = 0;

	if (caller)
		frames[n++] = caller;
	for (uint32_t i = from; st && i < st->n && n < ALLOC_MAX_FRAMES; i++)
		frames[n++] = st->ips[i];
	memset(&pick, 0, sizeof(pick));
	for (uint32_t i = 0; i < n && !found; i++) {
		if (memtrace_resolve(c->res, pid, time, frames[i] - 1, &loc) == MEMTRACE_UNMAPPED)
			continue;
		pick = loc;
		found = !allocator_frame(&loc);
	}
	if (!pick.mapping)
		return site_by_name(c, n ? "(unknown frames)" : "(no stack)", NULL, NULL, 0);
	const char *fn = pick.ninlined ? pick.inlined[0].function : pick.symbol;
	const char *file = pick.file;
	if (file && strrchr(file, '/'))
		file = strrchr(file, '/') + 1;
	if (fn && file && pick.line)
		snprintf(name, sizeof(name), "%s (%s:%u)", fn, file, pick.line);
	else if (fn)
		snprintf(name, sizeof(name), "%s (%s)", fn, pick.mapping);
	else
		snprintf(name, sizeof(name), "%s+0x%llx", pick.mapping,
			 (unsigned long long)pick.mapping_off);
	return site_by_name(c, name, fn, pick.file, pick.line);
}

/* (stack, caller) -> site, cached: a stack is named once per caller. */
static long site_of(struct ctx *c, const struct trace_alloc *e)
{
	uint64_t k = e->caller * 0x9E3779B97F4A7C15ull ^ e->stack;
	size_t i;

	if (2 * (c->ncache + 1) > c->cache_cap) {
		size_t cap = c->cache_cap ? c->cache_cap * 2 : 256;
		struct site_cache *v = mt_xcalloc(cap, sizeof(*v));
		for (size_t j = 0; j < c->cache_cap; j++) {
			if (!c->cache[j].used)
				continue;
			for (i = c->cache[j].hash & (cap - 1); v[i].used; i = (i + 1) & (cap - 1))
				;
			v[i] = c->cache[j];
		}
		free(c->cache);
		c->cache = v;
		c->cache_cap = cap;
	}
	for (i = k & (c->cache_cap - 1); c->cache[i].used; i = (i + 1) & (c->cache_cap - 1))
		if (c->cache[i].stack == e->stack && c->cache[i].caller == e->caller)
			return c->cache[i].site;
	const struct stack_rec *st = e->stack != ALLOC_NO_STACK ? find_stack(c, e->stack) : NULL;
	long site = name_site(c, st, e->caller, e->pid, e->time);
	c->cache[i] = (struct site_cache){ k, e->caller, e->stack, site, 1 };
	c->ncache++;
	return site;
}

static void feed(struct ctx *c, const struct trace_alloc *e)
{
	size_t before = c->attr.nblocks;

	alloc_attr_event(&c->attr, e);
	if (c->attr.nblocks == before)
		return;
	if (c->attr.nblocks > c->block_site_cap) {
		c->block_site_cap = c->attr.nblocks * 2;
		c->block_site = mt_xrealloc(c->block_site, c->block_site_cap * sizeof(uint32_t));
	}
	c->block_site[before] = (uint32_t)site_of(c, e);
}

static struct pair *pair_slot(struct pair *v, size_t cap, uint64_t bucket, uint32_t site)
{
	size_t i = (size_t)((bucket * 0x9E3779B97F4A7C15ull) ^ (site * 0xC2B2AE3D27D4EB4Full)) &
		   (cap - 1);

	while (v[i].site != UINT32_MAX && (v[i].bucket != bucket || v[i].site != site))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static void pair_add(struct ctx *c, uint64_t bucket, uint32_t site)
{
	if (2 * (c->npairs + 1) > c->pair_cap) {
		size_t cap = c->pair_cap ? c->pair_cap * 2 : 1024;
		struct pair *v = mt_xmalloc(cap * sizeof(*v));
		for (size_t i = 0; i < cap; i++)
			v[i].site = UINT32_MAX;
		for (size_t i = 0; i < c->pair_cap; i++)
			if (c->pairs[i].site != UINT32_MAX)
				*pair_slot(v, cap, c->pairs[i].bucket, c->pairs[i].site) = c->pairs[i];
		free(c->pairs);
		c->pairs = v;
		c->pair_cap = cap;
	}
	struct pair *p = pair_slot(c->pairs, c->pair_cap, bucket, site);
	if (p->site == UINT32_MAX) {
		*p = (struct pair){ bucket, site, 0 };
		c->npairs++;
		c->sites[site].s.buckets++;
	}
	p->count++;
}

static int keep(const struct ctx *c, uint64_t time, uint32_t pid, uint32_t tid)
{
	return filter_keeps_who_when(&c->cfg->filter, c->start, time, pid, tid);
}

/* Pass 2: samples in time order, the events up to each sample first. */
static int charge_samples(struct ctx *c, struct memtrace_trace *t, char *err, size_t errlen)
{
	struct memtrace_columns col = { .cap = CHUNK_MAX_SAMPLES };
	struct memtrace_chunk ch;
	size_t next = 0, n;
	int rc;

	if (memtrace_trace_rewind(t, err, errlen))
		return -1;
	col.time = mt_xmalloc(col.cap * sizeof(uint64_t));
	col.addr = mt_xmalloc(col.cap * sizeof(uint64_t));
	col.pid = mt_xmalloc(col.cap * sizeof(uint32_t));
	col.tid = mt_xmalloc(col.cap * sizeof(uint32_t));
	while ((rc = memtrace_trace_next(t, &ch, err, errlen)) > 0) {
		if (ch.type != MEMTRACE_CHUNK_SAMPLES)
			continue;
		if (memtrace_chunk_samples(&ch, &col, &n, err, errlen)) {
			rc = -1;
			break;
		}
		if (c->want_each && c->neach + n > c->cap_each) {
			c->cap_each = 2 * (c->neach + n);
			c->each = mt_xrealloc(c->each, c->cap_each * sizeof(*c->each));
		}
		for (size_t i = 0; i < n; i++) {
			while (next < c->nev && c->ev[next].time <= col.time[i])
				feed(c, &c->ev[next++]);
			if (c->want_each)
				c->each[c->neach++] = SITES_NONE;
			if (!keep(c, col.time[i], col.pid[i], col.tid[i]))
				continue;
			c->out->samples++;
			long b = alloc_attr_lookup(&c->attr, col.pid[i], col.addr[i]);
			if (b < 0)
				continue;
			uint32_t site = c->block_site[b];
			if (c->want_each)
				c->each[c->neach - 1] = site;
			c->out->attributed++;
			c->sites[site].s.samples++;
			pair_add(c, memtrace_resolver_key(c->res, col.pid[i], col.addr[i]) >> c->shift,
				 site);
		}
	}
	while (next < c->nev)
		feed(c, &c->ev[next++]);
	free(col.time), free(col.addr), free(col.ip), free(col.data_src);
	free(col.pid), free(col.tid), free(col.cpu), free(col.weight);
	return rc;
}

/* Per-site numbers from the blocks. */
static void sum_blocks(struct ctx *c)
{
	for (size_t b = 0; b < c->attr.nblocks; b++) {
		const struct alloc_block *k = &c->attr.blocks[b];
		struct site_acc *a = &c->sites[c->block_site[b]];
		double size = (double)(k->end - k->start);

		a->s.blocks++;
		a->s.est_blocks += k->weight;
		a->s.bytes += size * k->weight;
		if (k->t1 == ALLOC_LIVE) {
			a->s.live++;
			a->s.live_bytes += size * k->weight;
		} else {
			a->s.freed++;
			a->life_sum += (double)(k->t1 - k->t0);
		}
	}
	for (size_t i = 0; i < c->nsites; i++) {
		struct site_acc *a = &c->sites[i];
		a->s.mean_lifetime = a->s.freed ? a->life_sum / (double)a->s.freed : 0;
		a->s.hot_share = c->out->samples ? (double)a->s.samples / (double)c->out->samples : 0;
	}
}

static int by_samples(const void *x, const void *y)
{
	const struct site_acc *p = x, *q = y;

	if (p->s.samples != q->s.samples)
		return p->s.samples < q->s.samples ? 1 : -1;
	if (p->s.bytes != q->s.bytes)
		return p->s.bytes < q->s.bytes ? 1 : -1;
	return strcmp(p->name, q->name);
}

/* Sorted sites into out; blocks and pairs follow the new order. */
static void finish(struct ctx *c)
{
	struct memtrace_sites *o = c->out;
	uint32_t *old_of = mt_xcalloc(c->nsites ? c->nsites : 1, sizeof(*old_of));
	uint32_t *new_of = mt_xcalloc(c->nsites ? c->nsites : 1, sizeof(*new_of));

	for (size_t i = 0; i < c->nsites; i++)
		c->sites[i].s.line = (unsigned)i;	/* remember the old index */
	if (c->nsites)
		qsort(c->sites, c->nsites, sizeof(*c->sites), by_samples);
	for (size_t i = 0; i < c->nsites; i++) {
		old_of[i] = c->sites[i].s.line;
		new_of[old_of[i]] = (uint32_t)i;
	}
	struct memtrace_site *v = mt_xcalloc(c->nsites ? c->nsites : 1, sizeof(*v));
	for (size_t i = 0; i < c->nsites; i++) {
		v[i] = c->sites[i].s;
		v[i].name = c->sites[i].name;
		v[i].function = c->sites[i].function;
		v[i].file = c->sites[i].file;
		v[i].line = c->sites[i].line;
	}
	o->sites = v;
	o->n = c->nsites;
	struct memtrace_site_block *bl = mt_xcalloc(c->attr.nblocks ? c->attr.nblocks : 1,
						    sizeof(*bl));
	for (size_t b = 0; b < c->attr.nblocks; b++) {
		const struct alloc_block *k = &c->attr.blocks[b];
		uint64_t key = memtrace_resolver_key(c->res, k->pid, k->start);
		bl[b] = (struct memtrace_site_block){ key, key + (k->end - k->start), k->t0, k->t1,
						      k->pid, new_of[c->block_site[b]] };
	}
	o->blocks = bl;
	o->nblocks = c->attr.nblocks;
	/* the pair table again, hashed by the new site numbers */
	struct pair *pv = mt_xmalloc((c->pair_cap ? c->pair_cap : 1) * sizeof(*pv));
	for (size_t i = 0; i < c->pair_cap; i++)
		pv[i].site = UINT32_MAX;
	for (size_t i = 0; i < c->pair_cap; i++)
		if (c->pairs[i].site != UINT32_MAX) {
			struct pair p = c->pairs[i];
			p.site = new_of[p.site];
			*pair_slot(pv, c->pair_cap, p.bucket, p.site) = p;
		}
	free(c->pairs);
	c->pairs = pv;
	for (size_t i = 0; i < c->neach; i++)
		if (c->each[i] != SITES_NONE)
			c->each[i] = new_of[c->each[i]];
	free(old_of);
	free(new_of);
}

/* What the public structure keeps: the strings and the pair table. */
struct sites_impl {
	struct memtrace_sites pub;
	struct site_acc *sites;
	size_t nsites;
	struct pair *pairs;
	size_t pair_cap;
	unsigned shift;
};

static void ctx_free(struct ctx *c)
{
	free(c->ev);
	for (size_t i = 0; i < c->nstacks; i++)
		free(c->stacks[i].ips);
	free(c->stacks);
	free(c->block_site);
	free(c->cache);
	free(c->each);
	alloc_attr_free(&c->attr);
	if (c->res)
		memtrace_resolver_close(c->res);
}

static struct memtrace_sites *sites_compute(const char *path,
					    const struct memtrace_report_config *cfg,
					    uint32_t **each, size_t *neach, char *err,
					    size_t errlen)
{
	struct memtrace_report_config none = { 0 };
	struct ctx c = { .cfg = cfg ? cfg : &none, .want_each = each != NULL };
	struct memtrace_trace_info info;
	struct sites_impl *im = mt_xcalloc(1, sizeof(*im));
	struct memtrace_trace *t = memtrace_trace_open(path, err, errlen);

	c.out = &im->pub;
	alloc_attr_init(&c.attr);
	if (!t || memtrace_trace_info(t, &info, err, errlen) || read_allocs(&c, t, err, errlen) < 0)
		goto fail;
	if (!c.nev) {
		snprintf(err, errlen, "%s has no allocation records (record it with --allocs)", path);
		goto fail;
	}
	uint64_t bucket = c.cfg->bucket ? c.cfg->bucket : info.bucket_default;
	if (bucket < 64 || bucket > (2u << 20) || (bucket & (bucket - 1))) {
		snprintf(err, errlen, "invalid bucket %llu (a power of two, 64 to 2M)",
			 (unsigned long long)bucket);
		goto fail;
	}
	while ((1ull << c.shift) < bucket)
		c.shift++;
	c.start = info.start_time;
	c.res = memtrace_resolver_open(path, c.cfg->root, c.cfg->debug_dir, err, errlen);
	if (!c.res)
		goto fail;
	alloc_attr_sort(c.ev, c.nev);
	if (charge_samples(&c, t, err, errlen) < 0)
		goto fail;
	sum_blocks(&c);
	finish(&c);
	im->pub.events = c.nev;
	im->pub.bucket = bucket;
	const char *v = memtrace_trace_meta(t, "alloc_sample_bytes");
	im->pub.sample_bytes = v ? strtoull(v, NULL, 10) : 0;
	v = memtrace_trace_meta(t, "alloc_large_bytes");
	im->pub.large_bytes = v ? strtoull(v, NULL, 10) : 0;
	im->sites = c.sites;
	im->nsites = c.nsites;
	im->pairs = c.pairs;
	im->pair_cap = c.pair_cap;
	im->shift = c.shift;
	if (each) {
		*each = c.each;
		*neach = c.neach;
		c.each = NULL;
	}
	ctx_free(&c);
	memtrace_trace_close(t);
	return &im->pub;
fail:
	for (size_t i = 0; i < c.nsites; i++)
		free(c.sites[i].name), free(c.sites[i].function), free(c.sites[i].file);
	free(c.sites);
	free(c.pairs);
	ctx_free(&c);
	if (t)
		memtrace_trace_close(t);
	free(im);
	return NULL;
}

long memtrace_sites_of_bucket(const struct memtrace_sites *s, uint64_t key, uint64_t *count)
{
	const struct sites_impl *im = (const struct sites_impl *)s;
	uint64_t bucket = key >> im->shift, best = 0;
	long site = -1;

	for (size_t i = 0; im->pair_cap && i < im->nsites; i++) {
		const struct pair *p = pair_slot(im->pairs, im->pair_cap, bucket, (uint32_t)i);
		if (p->site != UINT32_MAX && p->count > best) {
			best = p->count;
			site = (long)i;
		}
	}
	if (count)
		*count = best;
	return site;
}

void memtrace_sites_free(struct memtrace_sites *s)
{
	struct sites_impl *im = (struct sites_impl *)s;

	if (!im)
		return;
	for (size_t i = 0; i < im->nsites; i++)
		free(im->sites[i].name), free(im->sites[i].function), free(im->sites[i].file);
	free(im->sites);
	free(im->pairs);
	free((void *)im->pub.sites);
	free((void *)im->pub.blocks);
	free(im);
}

/* out of memory: NULL with the error, never an exit (util/util.h) */
struct memtrace_sites *memtrace_sites_compute(const char *path,
					      const struct memtrace_report_config *cfg,
					      char *err, size_t errlen)
{
	MT_OOM_GUARDED(struct memtrace_sites *, NULL, err, errlen,
		       sites_compute(path, cfg, NULL, NULL, err, errlen));
}

struct memtrace_sites *sites_compute_each(const char *path, const struct memtrace_report_config *cfg,
					  uint32_t **site_of, size_t *n, char *err, size_t errlen)
{
	*site_of = NULL;
	*n = 0;
	MT_OOM_GUARDED(struct memtrace_sites *, NULL, err, errlen,
		       sites_compute(path, cfg, site_of, n, err, errlen));
}
