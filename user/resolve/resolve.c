/* resolve.c - address -> mapping + symbol (resolve.h). */
#include "resolve/resolve.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/labels.h"
#include "resolve/layout.h"
#include "resolve/spaces.h"
#include "resolve/symbols.h"
#include "trace/format.h"
#include "util/str_intern.h"
#include "util/util.h"

struct layout_cache {
	uint32_t pid;
	size_t n;
	struct memtrace_range *v;
	const struct mt_mapping **maps;	/* of each range */
};

struct resolver {
	struct mt_maps_history *maps;
	struct mt_elf_cache *elves;
	char *root;
	/* interned "NAME[bss]" and owner strings: one copy each, found by hash */
	struct str_intern names;
	/* resolver_layout() results, dropped by resolver_add_maps() */
	size_t nlayouts;
	struct layout_cache *layouts;
	/* resolver_spaces(): built on the layouts, dropped with them */
	struct mt_spaces *spaces;
	uint32_t spaces_for;		/* the primary asked for */
	/* resolver_add_labels(): names from outside, START labels for label_pid */
	struct mt_labels labels;
	uint32_t label_pid;		/* 0: the pid with the most snapshots */
};

static void drop_layouts(struct resolver *r)
{
	mt_spaces_free(r->spaces);
	r->spaces = NULL;
	for (size_t i = 0; i < r->nlayouts; i++) {
		free(r->layouts[i].v);
		free(r->layouts[i].maps);
	}
	free(r->layouts);
	r->layouts = NULL;
	r->nlayouts = 0;
}

struct resolver *resolver_new(void)
{
	struct resolver *r = mt_xcalloc(1, sizeof(*r));

	r->maps = mt_maps_history_new();
	r->elves = mt_elf_cache_new();
	return r;
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	mt_maps_history_free(r->maps);
	mt_elf_cache_free(r->elves);
	drop_layouts(r);
	str_intern_free(&r->names);
	free(r->root);
	mt_labels_free(&r->labels);
	free(r);
}

void resolver_set_root(struct resolver *r, const char *dir)
{
	free(r->root);
	r->root = dir && dir[0] ? mt_xstrdup(dir) : NULL;
}

void resolver_set_debug_dir(struct resolver *r, const char *dir)
{
	mt_elf_cache_set_debug_dir(r->elves, dir);
}

void resolver_add_maps(struct resolver *r, uint64_t time, uint32_t pid,
		       const char *text, size_t len)
{
	drop_layouts(r);
	mt_maps_history_add(r->maps, time, pid, text, len);
}

void resolver_set_comm(struct resolver *r, uint32_t pid, const char *comm)
{
	drop_layouts(r);
	mt_maps_history_set_comm(r->maps, pid, comm);
}

void resolver_add_threads(struct resolver *r, const unsigned char *p, size_t len)
{
	for (; len >= THREAD_REC_SIZE; p += THREAD_REC_SIZE, len -= THREAD_REC_SIZE) {
		char comm[17];
		if (get_le32(p + 8) != get_le32(p + 12) || !p[16])
			continue;
		memcpy(comm, p + 16, 16);
		comm[16] = 0;
		resolver_set_comm(r, get_le32(p + 8), comm);
	}
}

static const char *intern(struct resolver *r, const char *s)
{
	uint32_t i = str_intern_add(&r->names, s, strlen(s));	/* may move names.v */

	return r->names.v[i];
}

static bool same_file(const struct mt_mapping *a, const struct mt_mapping *b)
{
	return a->kind == MT_MAP_FILE && b->kind == MT_MAP_FILE &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->deleted == b->deleted &&
	       strcmp(a->path, b->path) == 0;
}

static struct mt_elf *open_elf(struct resolver *r, const char *path)
{
	if (!r->root)
		return mt_elf_cache_get(r->elves, path);
	size_t n = strlen(r->root) + strlen(path) + 1;
	char *full = mt_xmalloc(n);
	snprintf(full, n, "%s%s", r->root, path);
	struct mt_elf *e = mt_elf_cache_get(r->elves, full);
	free(full);
	return e;
}

/*
 * ELF and load bias for the file mapping m (index i of snapshot s): the
 * bias comes from the first mapping of this load of the file (walking back
 * over the mappings of the same file with smaller offsets), which is the
 * first PT_LOAD and cannot be confused with a segment sharing a file page.
 */
static struct mt_elf *file_elf(struct resolver *r, const struct mt_maps *s,
			       size_t i, uint64_t *bias)
{
	const struct mt_mapping *m = &s->v[i];

	if (m->kind != MT_MAP_FILE || m->deleted)
		return NULL;
	struct mt_elf *e = open_elf(r, m->path);
	if (!e)
		return NULL;
	size_t b = i;
	while (b > 0 && s->v[b].offset != 0 &&
	       same_file(&s->v[b - 1], &s->v[b]) &&
	       s->v[b - 1].offset <= s->v[b].offset)
		b--;
	if (mt_elf_load_bias(e, s->v[b].start, s->v[b].offset, bias) != 0)
		return NULL;
	return e;
}

int resolver_add_labels(struct resolver *r, const char *text, size_t len, const char *origin,
			int first, char *err, size_t errlen)
{
	drop_layouts(r);
	if (!first || !r->labels.n)
		return mt_labels_parse(&r->labels, text, len, origin, err, errlen);
	struct mt_labels l = { 0 };
	if (mt_labels_parse(&l, text, len, origin, err, errlen))
		return -1;
	/* the labels held parsed before: they parse again */
	mt_labels_parse(&l, r->labels.text, r->labels.len, "labels", err, errlen);
	mt_labels_free(&r->labels);
	r->labels = l;
	return 0;
}

void resolver_set_label_pid(struct resolver *r, uint32_t pid)
{
	drop_layouts(r);
	r->label_pid = pid;
}

const char *resolver_labels_text(const struct resolver *r, size_t *len)
{
	*len = r->labels.len;
	return r->labels.text;
}

const struct mt_labels *resolver_labels(const struct resolver *r)
{
	return &r->labels;
}

static int label_target(const struct resolver *r, const struct mt_maps *s)
{
	return s->pid == (r->label_pid ? r->label_pid : mt_maps_history_main_pid(r->maps));
}

/* A label names addr: its name and the offset in it replace the mapping's. */
static void apply_label(struct resolver *r, const struct mt_maps *s, const struct mt_mapping *m,
			uint64_t addr, struct resolved *out)
{
	uint64_t off;
	const struct mt_label *l = r->labels.n
		? mt_labels_find(&r->labels, m, label_target(r, s), addr, &off) : NULL;

	if (l) {
		out->region = l->name;
		out->region_off = off;
	}
}

/* What a lookup fills in. */
enum want { WANT_REGION, WANT_SYMBOL, WANT_SOURCE };

static void lookup_symbol(struct mt_elf *e, uint64_t bias, uint64_t addr,
			  const struct mt_mapping *m, struct resolved *out,
			  enum want want)
{
	uint64_t vaddr = addr - bias, off;
	int flags = mt_elf_vaddr_flags(e, vaddr);

	/* The file on disk does not match the maps (another version of it,
	 * another machine): the address is outside every PT_LOAD, or code
	 * runs from a segment that is not executable in the file. */
	if (flags < 0 || ((m->perms & MT_PERM_X) && !(flags & PF_X)))
		return;
	const struct mt_sym *sym = mt_elf_lookup(e, vaddr, &off);
	if (sym) {
		out->sym = sym->name;
		out->sym_off = off;
		out->sym_size = sym->size;
		out->elf_vaddr = vaddr;
	}
	struct mt_srcinfo si;
	if (want == WANT_SOURCE && (flags & PF_X) &&
	    mt_elf_srcinfo(e, vaddr, &si)) {
		out->file = si.file;
		out->line = si.line;
		out->ninlined = si.ninlined;
		out->inlined = si.inlined;
	}
}

/* addr in mapping i of snapshot s. */
static int lookup_in(struct resolver *r, const struct mt_maps *s, size_t i,
		     uint64_t addr, struct resolved *out, enum want want)
{
	const struct mt_mapping *m = &s->v[i];
	uint64_t bias;
	struct mt_elf *e;

	out->map = m;
	out->region = m->name;
	out->region_off = addr - m->start;
	if (m->kind == MT_MAP_FILE) {
		out->region_off += m->offset;
		if (want != WANT_REGION && (e = file_elf(r, s, i, &bias)))
			lookup_symbol(e, bias, addr, m, out, want);
	} else if (m->kind == MT_MAP_ANON && i > 0 &&
		   s->v[i - 1].end == m->start &&
		   s->v[i - 1].kind == MT_MAP_FILE &&
		   (e = file_elf(r, s, i - 1, &bias)) &&
		   mt_elf_vaddr_in_bss(e, addr - bias)) {
		/* the zero-filled tail of the file's last PT_LOAD */
		char name[512];
		snprintf(name, sizeof(name), "%s[bss]", s->v[i - 1].name);
		out->region = intern(r, name);
		if (want != WANT_REGION)
			lookup_symbol(e, bias, addr, m, out, want);
	}
	apply_label(r, s, m, addr, out);
	return out->sym ? MT_RESOLVE_SYMBOL : MT_RESOLVE_MAPPING;
}

static int do_lookup(struct resolver *r, uint32_t pid, uint64_t time,
		     uint64_t addr, struct resolved *out, enum want want)
{
	const struct mt_maps *s;
	const struct mt_mapping *m;

	memset(out, 0, sizeof(*out));
	out->region = "?";
	m = mt_maps_history_find(r->maps, pid, time, addr, &s);
	if (!m)
		return MT_RESOLVE_UNMAPPED;
	return lookup_in(r, s, (size_t)(m - s->v), addr, out, want);
}

int resolver_lookup(struct resolver *r, uint32_t pid, uint64_t time,
		    uint64_t addr, struct resolved *out)
{
	return do_lookup(r, pid, time, addr, out, WANT_SOURCE);
}

int resolver_describe(struct resolver *r, uint32_t pid, uint64_t time,
		      uint64_t addr, char *buf, size_t len)
{
	struct resolved res;
	int ret = do_lookup(r, pid, time, addr, &res, WANT_SYMBOL);

	if (len == 0)
		return ret;
	if (ret == MT_RESOLVE_UNMAPPED)
		snprintf(buf, len, "?");
	else if (ret == MT_RESOLVE_MAPPING)
		snprintf(buf, len, "%s+0x%" PRIx64, res.region, res.region_off);
	else
		snprintf(buf, len, "%s+0x%" PRIx64 " %s+0x%" PRIx64,
			 res.region, res.region_off, res.sym, res.sym_off);
	return ret;
}

const char *resolver_mapping_name(struct resolver *r, uint32_t pid,
				  uint64_t time, uint64_t addr)
{
	struct resolved res;

	do_lookup(r, pid, time, addr, &res, WANT_REGION);
	return res.region;
}

struct cuts { uint64_t *v; size_t n, cap; };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void add_cut(struct cuts *c, const struct mt_layout_piece *p, uint64_t at)
{
	if (at <= p->start || at >= p->end)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = mt_xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n++] = at;
}

/* Where labels begin and end inside piece p, ascending, each once. */
static void label_cuts(struct resolver *r, const struct mt_layout_piece *p, struct cuts *c)
{
	int target = label_target(r, p->snap);

	c->n = 0;
	for (size_t i = 0; i < r->labels.n; i++) {
		uint64_t lo, hi;
		if (!mt_label_span(&r->labels.v[i], p->map, target, p->start, p->end, &lo, &hi))
			continue;
		add_cut(c, p, lo);
		add_cut(c, p, hi);
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++)
		if (!k || c->v[i] != c->v[k - 1])
			c->v[k++] = c->v[i];
	c->n = k;
}

/* [lo, hi) of piece p as a layout range, named as a lookup of lo names it. */
static void layout_range(struct resolver *r, const struct mt_layout_piece *p, uint64_t lo,
			 uint64_t hi, struct memtrace_range *out)
{
	const struct mt_mapping *m = p->map;
	struct resolved res;

	memset(&res, 0, sizeof(res));
	lookup_in(r, p->snap, (size_t)(m - p->snap->v), lo, &res, WANT_REGION);
	*out = (struct memtrace_range){
		.start = lo,
		.end = hi,
		.name = res.region,
		.perms = mt_perms_string(m->perms),
		.offset = m->kind == MT_MAP_FILE ? m->offset + (lo - m->start) : 0,
		.path = m->path,
	};
}

size_t resolver_layout_maps(struct resolver *r, uint32_t pid, const struct memtrace_range **v,
			    const struct mt_mapping *const **maps)
{
	if (pid == 0)
		pid = mt_maps_history_main_pid(r->maps);
	for (size_t i = 0; i < r->nlayouts; i++)
		if (r->layouts[i].pid == pid) {
			*v = r->layouts[i].v;
			*maps = r->layouts[i].maps;
			return r->layouts[i].n;
		}

	const struct mt_maps *const *snaps;
	size_t nsnaps = mt_maps_history_snapshots(r->maps, pid, &snaps);
	struct mt_layout_piece *p;
	size_t n = mt_layout_build(snaps, nsnaps, &p), k = 0, cap = n;
	struct memtrace_range *out = n ? mt_xcalloc(n, sizeof(*out)) : NULL;
	const struct mt_mapping **mv = n ? mt_xcalloc(n, sizeof(*mv)) : NULL;
	struct cuts cuts = { 0 };

	for (size_t i = 0; i < n; i++) {
		label_cuts(r, &p[i], &cuts);
		if (k + cuts.n + 1 > cap) {
			cap = 2 * (k + cuts.n + 1);
			out = mt_xrealloc(out, cap * sizeof(*out));
			mv = mt_xrealloc(mv, cap * sizeof(*mv));
		}
		for (size_t j = 0; j <= cuts.n; j++) {
			uint64_t lo = j ? cuts.v[j - 1] : p[i].start;
			uint64_t hi = j < cuts.n ? cuts.v[j] : p[i].end;
			layout_range(r, &p[i], lo, hi, &out[k]);
			mv[k++] = p[i].map;
		}
	}
	free(cuts.v);
	n = k;
	free(p);
	r->layouts = mt_xrealloc(r->layouts,
				 (r->nlayouts + 1) * sizeof(*r->layouts));
	r->layouts[r->nlayouts++] = (struct layout_cache){ pid, n, out, mv };
	*v = out;
	*maps = mv;
	return n;
}

size_t resolver_layout(struct resolver *r, uint32_t pid,
		       const struct memtrace_range **v)
{
	const struct mt_mapping *const *maps;

	return resolver_layout_maps(r, pid, v, &maps);
}

const struct mt_maps_history *resolver_maps(const struct resolver *r)
{
	return r->maps;
}

struct mt_spaces *resolver_spaces(struct resolver *r, uint32_t primary)
{
	if (r->spaces && r->spaces_for == primary)
		return r->spaces;
	mt_spaces_free(r->spaces);
	r->spaces = NULL;	/* building adds layouts, which must not drop it */
	struct mt_spaces *s = mt_spaces_build(r, primary);
	r->spaces = s;
	r->spaces_for = primary;
	return s;
}

size_t resolver_key_layout(struct resolver *r, const struct memtrace_range **v)
{
	struct mt_spaces *s = r->spaces ? r->spaces : resolver_spaces(r, 0);

	*v = s->layout;
	return s->nlayout;
}

static int key_lookup(struct resolver *r, uint64_t key, struct resolved *out, enum want want)
{
	struct mt_spaces *s = r->spaces ? r->spaces : resolver_spaces(r, 0);
	uint32_t pid;
	uint64_t addr;
	long obj = mt_spaces_decode(s, key, &pid, &addr);
	int ret;
	char buf[32];

	if (obj < 0) {
		memset(out, 0, sizeof(*out));
		out->region = "?";
		return MT_RESOLVE_UNMAPPED;
	}
	ret = do_lookup(r, pid, UINT64_MAX, addr, out, want);
	out->pid = pid;
	out->addr = addr;
	out->shared_by = obj > 0 ? s->obj[obj - 1].nprocs : 0;
	if (pid != s->primary && (obj == 0 || out->shared_by < 2)) {
		snprintf(buf, sizeof(buf), "pid %u", pid);
		out->owner = intern(r, buf);
	}
	return ret;
}

int resolver_key_lookup(struct resolver *r, uint64_t key, struct resolved *out)
{
	return key_lookup(r, key, out, WANT_SOURCE);
}

int resolver_key_symbol(struct resolver *r, uint64_t key, struct resolved *out)
{
	return key_lookup(r, key, out, WANT_SYMBOL);
}

int resolver_key_describe(struct resolver *r, uint64_t key, char *buf, size_t len)
{
	struct resolved res;
	int ret = key_lookup(r, key, &res, WANT_SYMBOL);
	int k = 0;

	if (len == 0)
		return ret;
	if (res.owner)
		k = snprintf(buf, len, "%s ", res.owner);
	if (k < 0 || (size_t)k >= len)
		return ret;
	if (ret == MT_RESOLVE_UNMAPPED)
		snprintf(buf + k, len - (size_t)k, "?");
	else if (ret == MT_RESOLVE_MAPPING)
		snprintf(buf + k, len - (size_t)k, "%s+0x%" PRIx64, res.region, res.region_off);
	else
		snprintf(buf + k, len - (size_t)k, "%s+0x%" PRIx64 " %s+0x%" PRIx64, res.region,
			 res.region_off, res.sym, res.sym_off);
	return ret;
}
