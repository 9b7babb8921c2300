/* spaces.c - address-space keys of (pid, address) (spaces.h). */
#include "resolve/spaces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/resolve.h"
#include "util/util.h"
#include "util/search.h"

static uint32_t pid_hash(uint32_t pid)
{
	return pid * 2654435761u;
}

static void hash_put(struct mt_spaces *s, uint32_t pid, size_t idx)
{
	size_t i = pid_hash(pid) & (s->hcap - 1);

	while (s->hash[i] && s->v[s->hash[i] - 1].pid != pid)
		i = (i + 1) & (s->hcap - 1);
	s->hash[i] = (uint32_t)(idx + 1);
}

static void rehash(struct mt_spaces *s)
{
	free(s->hash);
	s->hcap = s->hcap ? 2 * s->hcap : 64;
	s->hash = mt_xcalloc(s->hcap, sizeof(*s->hash));
	for (size_t k = 0; k < s->n; k++)
		hash_put(s, s->v[k].pid, k);
}

static size_t add_space(struct mt_spaces *s, uint32_t pid)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = mt_xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	size_t k = s->n++;
	uint64_t num = k < MT_SPACE_MAX ? k : MT_SPACE_MAX;

	memset(&s->v[k], 0, sizeof(s->v[k]));
	s->v[k].pid = pid;
	s->v[k].tag = num << MT_SPACE_SHIFT;
	if (2 * s->n > s->hcap)
		rehash(s);
	else
		hash_put(s, pid, k);
	return k;
}

size_t mt_spaces_index(struct mt_spaces *s, uint32_t pid)
{
	size_t k;

	if (!s->n && !s->primary)
		s->primary = pid;	/* no maps at all: the first pid seen keeps its addresses */
	size_t i = s->hcap ? pid_hash(pid) & (s->hcap - 1) : 0;
	while (s->hcap && s->hash[i] && s->v[s->hash[i] - 1].pid != pid)
		i = (i + 1) & (s->hcap - 1);
	if (s->hcap && s->hash[i])
		k = s->hash[i] - 1;
	else
		k = add_space(s, pid);
	s->last_pid = pid;
	s->last = k;
	return k;
}

uint64_t mt_space_translate(struct mt_space *sp, uint64_t addr)
{
	const struct mt_space_range *g = &sp->v[sp->last];

	if (addr >= g->start && addr < g->end)
		return addr + g->delta;
	if (addr >= sp->gap_lo && addr < sp->gap_hi)
		return addr + sp->tag;
	size_t lo = 0, hi = sp->n;
	/* first range with end > addr */
	MT_PARTITION_POINT(lo, hi, mid, sp->v[mid].end <= addr);
	if (lo < sp->n && sp->v[lo].start <= addr) {
		sp->last = lo;
		return addr + sp->v[lo].delta;
	}
	/* between two shared ranges (the ranges do not overlap): remember the gap */
	sp->gap_lo = lo ? sp->v[lo - 1].end : 0;
	sp->gap_hi = lo < sp->n ? sp->v[lo].start : UINT64_MAX;
	return addr + sp->tag;
}

/* Runs of samples of one pid at a time; the primary's private memory is left as it is. */
void mt_spaces_key_samples(struct mt_spaces *s, struct memtrace_sample *smp, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		uint32_t pid = smp[i].pid;
		/* the index first: mt_spaces_index() may move s->v */
		size_t k = pid == s->last_pid && s->n ? s->last : mt_spaces_index(s, pid);
		struct mt_space *sp = &s->v[k];
		uint64_t tag = sp->tag;

		j = i;
		if (sp->translate) {
			for (; j < n && smp[j].pid == pid; j++) {
				if (!(smp[j].addr & MT_KERNEL_BIT))
					smp[j].addr = mt_space_translate(sp, smp[j].addr);
				if (smp[j].ip && !(smp[j].ip & MT_KERNEL_BIT))
					smp[j].ip = mt_space_translate(sp, smp[j].ip);
			}
		} else if (!tag) {	/* keys are the addresses */
			while (j < n && smp[j].pid == pid)
				j++;
		} else {
			for (; j < n && smp[j].pid == pid; j++) {
				uint64_t a = smp[j].addr, ip = smp[j].ip;
				smp[j].addr = a & MT_KERNEL_BIT ? a : a + tag;
				smp[j].ip = ip && !(ip & MT_KERNEL_BIT) ? ip + tag : ip;
			}
		}
	}
}

static const struct mt_space_range *find_range(const struct mt_space *sp, uint64_t addr)
{
	size_t lo = 0, hi = sp->n;

	MT_PARTITION_POINT(lo, hi, mid, sp->v[mid].end <= addr);
	return lo < sp->n && sp->v[lo].start <= addr ? &sp->v[lo] : NULL;
}

long mt_spaces_decode(const struct mt_spaces *s, uint64_t key, uint32_t *pid, uint64_t *addr)
{
	size_t num = 0;

	*addr = key;
	if (!(key & MT_KERNEL_BIT)) {
		num = (size_t)(key >> MT_SPACE_SHIFT);
		*addr = key & MT_SPACE_ADDR_MASK;
	}
	if (num >= s->n) {
		*pid = 0;
		return -1;
	}
	const struct mt_space *sp = &s->v[num];
	*pid = sp->pid;
	const struct mt_space_range *g = find_range(sp, *addr);
	return g && g->delta == sp->tag ? (long)g->obj + 1 : 0;
}

/* ---- building ------------------------------------------------------- */

static const char *own_name(struct mt_spaces *s, const char *fmt_pid, uint32_t pid,
			    const char *name)
{
	char buf[600];

	snprintf(buf, sizeof(buf), fmt_pid, pid, name);
	s->names = mt_xrealloc(s->names, (s->nnames + 1) * sizeof(*s->names));
	return s->names[s->nnames++] = mt_xstrdup(buf);
}

static uint32_t find_object(struct mt_spaces *s, const struct mt_mapping *m, uint64_t tag,
			    uint64_t start, uint64_t off, uint32_t pid)
{
	for (size_t i = 0; i < s->nobj; i++) {
		struct mt_shared_object *o = &s->obj[i];
		if (o->inode != m->inode || o->dev_major != m->dev_major ||
		    o->dev_minor != m->dev_minor)
			continue;
		if (o->last_pid != pid) {
			o->nprocs++;
			o->last_pid = pid;
		}
		return (uint32_t)i;
	}
	s->obj = mt_xrealloc(s->obj, (s->nobj + 1) * sizeof(*s->obj));
	s->obj[s->nobj] = (struct mt_shared_object){
		.dev_major = m->dev_major, .dev_minor = m->dev_minor, .inode = m->inode,
		.base = tag + start - off, .pid = pid, .nprocs = 1, .last_pid = pid,
	};
	return (uint32_t)s->nobj++;
}

struct pending {		/* a key-layout range before its name is known */
	struct memtrace_range r;
	size_t space;
	long obj;		/* -1: private */
};

static int by_start(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return (x->r.start > y->r.start) - (x->r.start < y->r.start);
}

/* The ranges of space k: shared ones into sp->v, every key range into *pv. */
static void build_space(struct mt_spaces *s, struct resolver *r, size_t k,
			struct pending **pv, size_t *np, size_t *cap)
{
	const struct memtrace_range *rng;
	const struct mt_mapping *const *maps;
	size_t n = resolver_layout_maps(r, s->v[k].pid, &rng, &maps);
	struct mt_space *sp;

	for (size_t i = 0; i < n; i++) {
		const struct mt_mapping *m = maps[i];
		uint64_t tag = s->v[k].tag, start = rng[i].start;
		long obj = -1;

		if (k && (start & MT_KERNEL_BIT))
			continue;	/* one kernel for all: the primary names it */
		if ((m->perms & MT_PERM_SHARED) && m->inode) {
			uint64_t off = m->offset + (start - m->start);
			uint32_t o = find_object(s, m, tag, start, off, s->v[k].pid);
			uint64_t delta = s->obj[o].base + off - start;
			sp = &s->v[k];
			sp->v = mt_xrealloc(sp->v, (sp->n + 1) * sizeof(*sp->v));
			sp->v[sp->n++] = (struct mt_space_range){ start, rng[i].end, delta, o };
			if (delta != tag) {
				sp->translate = 1;
				continue;	/* its keys lie in the first mapping's range */
			}
			obj = o;
		}
		if (*np == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*pv = mt_xrealloc(*pv, *cap * sizeof(**pv));
		}
		struct pending *p = &(*pv)[(*np)++];
		p->r = rng[i];
		if (!(start & MT_KERNEL_BIT)) {
			p->r.start += tag;
			p->r.end += tag;
		}
		p->space = k;
		p->obj = obj;
	}
}

struct mt_spaces *mt_spaces_build(struct resolver *r, uint32_t primary)
{
	struct mt_spaces *s = mt_xcalloc(1, sizeof(*s));
	const struct mt_maps_history *h = resolver_maps(r);
	size_t npids = mt_maps_history_npids(h);

	if (!primary)
		primary = mt_maps_history_main_pid(h);
	s->primary = primary;
	if (primary)
		add_space(s, primary);
	for (size_t i = 0; i < npids; i++)
		if (mt_maps_history_pid(h, i) != primary)
			add_space(s, mt_maps_history_pid(h, i));

	struct pending *pv = NULL;
	size_t np = 0, cap = 0;
	for (size_t k = 0; k < s->n && k < MT_SPACE_MAX; k++)
		build_space(s, r, k, &pv, &np, &cap);
	if (np)	/* qsort(NULL, 0) is undefined */
		qsort(pv, np, sizeof(*pv), by_start);
	s->layout = mt_xcalloc(np ? np : 1, sizeof(*s->layout));
	for (size_t i = 0; i < np; i++) {
		struct memtrace_range g = pv[i].r;
		uint32_t pid = s->v[pv[i].space].pid;
		if (s->nlayout && g.start < s->layout[s->nlayout - 1].end)
			continue;	/* overlaps (only with clamped space numbers) */
		int owned = pv[i].obj >= 0 ? s->obj[pv[i].obj].nprocs < 2 && pid != primary
					   : pid != primary;
		if (owned)
			g.name = own_name(s, "pid %u %s", pid, g.name ? g.name : "?");
		s->layout[s->nlayout++] = g;
	}
	free(pv);
	if (s->n) {
		s->last_pid = s->v[0].pid;
		s->last = 0;
	}
	return s;
}

void mt_spaces_free(struct mt_spaces *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->n; k++)
		free(s->v[k].v);
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->v);
	free(s->hash);
	free(s->obj);
	free(s->layout);
	free(s);
}
