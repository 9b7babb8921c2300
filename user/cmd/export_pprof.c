/* export_pprof.c - `memtracectl export --format pprof`: a profile
 * (engine/profile.h) encoded as pprof's profile.proto (user/cmd/profile.proto,
 * C from protoc-c at build time, packed by libprotobuf-c) and gzipped with
 * zlib.  Only the encoding lives here; what each sample is comes from the
 * engine. */
#include "cmd/export_pprof.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "util/util.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* Everything allocated for the message, freed at once. */
struct bag {
	void **v;
	size_t n, cap;
};

static void *bag_alloc(struct bag *b, size_t size)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->v = mt_xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	return b->v[b->n++] = mt_xcalloc(1, size ? size : 1);
}

static void bag_free(struct bag *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
}

/* A growing array of pointers to messages. */
struct ptrs {
	void **v;
	size_t n, cap;
};

static void ptrs_add(struct ptrs *p, void *x)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->v = mt_xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	p->v[p->n++] = x;
}

/* string_table, interned: open addressing over indices + 1. */
struct strtab {
	char **v;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xCBF29CE484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
	return h;
}

static int64_t str_index(struct strtab *t, const char *s)
{
	if (!s)
		s = "";
	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 1024;
		uint32_t *slot = mt_xcalloc(ns, sizeof(*slot));
		for (size_t i = 0; i < t->n; i++) {
			size_t j = hash_str(t->v[i]) & (ns - 1);
			while (slot[j])
				j = (j + 1) & (ns - 1);
			slot[j] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	size_t j = hash_str(s) & (t->nslot - 1);
	for (; t->slot[j]; j = (j + 1) & (t->nslot - 1))
		if (!strcmp(t->v[t->slot[j] - 1], s))
			return t->slot[j] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = mt_xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	t->v[t->n] = mt_xstrdup(s);
	t->slot[j] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
}

struct enc {
	const struct profile *p;
	enum export_by by;
	struct bag bag;
	struct strtab str;
	struct ptrs samples, mappings, locations, functions;
	/* functions by (name, file) string indices: a linear table is too slow,
	 * so a map of name * K + file -> id, probed */
	uint64_t *fkey;
	uint64_t *fid;
	size_t fslots;
	/* location id of each code / data entry, region locations (--by data) */
	uint64_t *loc_of;
	uint64_t *region_loc;	/* per data entry: its region's location, 0: none */
	/* mappings of --by code, by (pid, start, end) */
	struct mkey { uint32_t pid; uint64_t start, end, id; } *maps;
	size_t nmaps;
};

static uint64_t function_id(struct enc *e, const char *name, const char *file)
{
	int64_t n = str_index(&e->str, name), f = str_index(&e->str, file);
	uint64_t key = (uint64_t)n << 32 | (uint64_t)f;

	if (2 * (e->functions.n + 1) > e->fslots) {
		size_t ns = e->fslots ? 2 * e->fslots : 1024;
		uint64_t *k = mt_xmalloc(ns * sizeof(*k)), *v = mt_xcalloc(ns, sizeof(*v));
		for (size_t i = 0; i < e->fslots; i++) {
			if (!e->fid[i])
				continue;
			size_t j = (e->fkey[i] * 0x9E3779B97F4A7C15ull >> 20) & (ns - 1);
			while (v[j])
				j = (j + 1) & (ns - 1);
			k[j] = e->fkey[i], v[j] = e->fid[i];
		}
		free(e->fkey), free(e->fid);
		e->fkey = k, e->fid = v, e->fslots = ns;
	}
	size_t j = (key * 0x9E3779B97F4A7C15ull >> 20) & (e->fslots - 1);
	for (; e->fid[j]; j = (j + 1) & (e->fslots - 1))
		if (e->fkey[j] == key)
			return e->fid[j];
	Function *fn = bag_alloc(&e->bag, sizeof(*fn));
	perftools__profiles__function__init(fn);
	fn->id = e->functions.n + 1;
	fn->name = fn->system_name = n;
	fn->filename = f;
	ptrs_add(&e->functions, fn);
	e->fkey[j] = key, e->fid[j] = fn->id;
	return fn->id;
}

static void add_line(struct enc *e, Location *l, const char *fn, const char *file, unsigned line)
{
	Line *x = bag_alloc(&e->bag, sizeof(*x));

	perftools__profiles__line__init(x);
	x->function_id = function_id(e, fn, file);
	x->line = line;
	l->line[l->n_line++] = x;
}

static Location *new_location(struct enc *e, uint64_t mapping, uint64_t address, size_t nlines)
{
	Location *l = bag_alloc(&e->bag, sizeof(*l));

	perftools__profiles__location__init(l);
	l->id = e->locations.n + 1;
	l->mapping_id = mapping;
	l->address = address;
	l->line = bag_alloc(&e->bag, nlines * sizeof(*l->line));
	ptrs_add(&e->locations, l);
	return l;
}

/* The mapping of a code location: one per (pid, start, end) of its file. */
static uint64_t mapping_id(struct enc *e, const struct profile_code *k)
{
	const struct memtrace_location *loc = &k->loc;

	if (k->resolved == MEMTRACE_UNMAPPED)
		return 0;
	for (size_t i = 0; i < e->nmaps; i++)
		if (e->maps[i].pid == k->pid && e->maps[i].start == loc->map_start &&
		    e->maps[i].end == loc->map_end)
			return e->maps[i].id;
	Mapping *m = bag_alloc(&e->bag, sizeof(*m));
	perftools__profiles__mapping__init(m);
	m->id = e->mappings.n + 1;
	m->memory_start = loc->map_start;
	m->memory_limit = loc->map_end;
	/* the offset of map_start in the file: mapping_off counts from it */
	m->file_offset = loc->mapping_off - (k->ip - loc->map_start);
	m->filename = str_index(&e->str, loc->path && *loc->path ? loc->path : loc->mapping);
	/* names come with the profile: readers need not look the binary up */
	m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = 1;
	ptrs_add(&e->mappings, m);
	e->maps = mt_xrealloc(e->maps, (e->nmaps + 1) * sizeof(*e->maps));
	e->maps[e->nmaps++] = (struct mkey){ k->pid, loc->map_start, loc->map_end, m->id };
	return m->id;
}

/* --by code: the instruction, innermost inlined function first. */
static uint64_t code_location(struct enc *e, uint32_t i)
{
	const struct profile_code *k = &e->p->code[i];
	const struct memtrace_location *loc = &k->loc;
	char name[512];

	if (e->loc_of[i])
		return e->loc_of[i];
	Location *l = new_location(e, mapping_id(e, k), k->ip, loc->ninlined + 1);
	const char *outer = loc->symbol;
	if (!k->ip)
		outer = "(no instruction recorded)";
	else if (k->resolved == MEMTRACE_UNMAPPED)
		outer = "?";
	else if (!outer) {
		snprintf(name, sizeof(name), "%s+0x%" PRIx64, loc->mapping, loc->mapping_off);
		outer = name;
	}
	const char *file = loc->file;
	unsigned line = loc->line;
	for (size_t f = 0; f < loc->ninlined; f++) {
		add_line(e, l, loc->inlined[f].function, file, line);
		file = loc->inlined[f].file;	/* where frame f was inlined: in its caller */
		line = loc->inlined[f].line;
	}
	add_line(e, l, outer, file, line);
	return e->loc_of[i] = l->id;
}

/* --by data: the object, its region as its caller (objects of no symbol:
 * the region alone). */
static void data_stack(struct enc *e, uint32_t i, uint64_t *ids, size_t *n)
{
	const struct profile_data *d = &e->p->data[i];

	if (!e->loc_of[i]) {
		Location *l = new_location(e, 0, 0, 1);
		add_line(e, l, d->object ? d->object : d->region, d->region, 0);
		e->loc_of[i] = l->id;
		if (d->object) {
			/* the region's location: one per (pid, region) */
			for (size_t j = 0; j < e->p->ndata && !e->region_loc[i]; j++)
				if (e->region_loc[j] && e->p->data[j].pid == d->pid &&
				    !strcmp(e->p->data[j].region, d->region))
					e->region_loc[i] = e->region_loc[j];
			if (!e->region_loc[i]) {
				Location *r = new_location(e, 0, 0, 1);
				add_line(e, r, d->region, d->region, 0);
				e->region_loc[i] = r->id;
			}
		}
	}
	ids[(*n)++] = e->loc_of[i];
	if (e->region_loc[i])
		ids[(*n)++] = e->region_loc[i];
}

/* --by site / --by span: one location per name (index k; none: the last). */
static uint64_t named_location(struct enc *e, uint32_t k, size_t count, const char *fn,
			       const char *file, unsigned line)
{
	size_t slot = k == PROFILE_NONE ? count : k;

	if (!e->loc_of[slot]) {
		Location *l = new_location(e, 0, 0, 1);
		add_line(e, l, fn, file, line);
		e->loc_of[slot] = l->id;
	}
	return e->loc_of[slot];
}

static void add_label(struct enc *e, Sample *s, const char *key, const char *str, int64_t num,
		      const char *unit)
{
	Label *l = bag_alloc(&e->bag, sizeof(*l));

	perftools__profiles__label__init(l);
	l->key = str_index(&e->str, key);
	if (str)
		l->str = str_index(&e->str, str);
	else {
		l->num = num;
		if (unit)
			l->num_unit = str_index(&e->str, unit);
	}
	s->label[s->n_label++] = l;
}

static void add_sample(struct enc *e, const struct profile_row *r)
{
	const struct profile *p = e->p;
	const struct profile_data *d = &p->data[r->data];
	const struct memtrace_site *site = p->sites && r->site != PROFILE_NONE ?
					   &p->sites->sites[r->site] : NULL;
	const char *span = p->span_labels && r->span != PROFILE_NONE ? p->span_labels[r->span] : NULL;
	Sample *s = bag_alloc(&e->bag, sizeof(*s));

	perftools__profiles__sample__init(s);
	s->location_id = bag_alloc(&e->bag, 2 * sizeof(*s->location_id));
	switch (e->by) {
	case EXPORT_BY_CODE:
		s->location_id[s->n_location_id++] = code_location(e, r->code);
		break;
	case EXPORT_BY_DATA:
		data_stack(e, r->data, s->location_id, &s->n_location_id);
		break;
	case EXPORT_BY_SITE:
		s->location_id[s->n_location_id++] =
			named_location(e, r->site, p->sites->n,
				       site ? (site->function ? site->function : site->name)
					    : "(in no recorded block)",
				       site ? site->file : NULL, site ? site->line : 0);
		break;
	case EXPORT_BY_SPAN:
		s->location_id[s->n_location_id++] =
			named_location(e, r->span, p->nspans, span ? span : "(in no span)", NULL, 0);
		break;
	}
	/* values: events (samples x period), bytes (events x bucket) */
	s->value = bag_alloc(&e->bag, 2 * sizeof(*s->value));
	s->n_value = 2;
	s->value[0] = (int64_t)(r->samples * p->period);
	s->value[1] = (int64_t)(r->samples * p->period * p->bucket);
	s->label = bag_alloc(&e->bag, 5 * sizeof(*s->label));
	add_label(e, s, "region", d->region, 0, NULL);
	if (d->object)
		add_label(e, s, "object", d->object, 0, NULL);
	if (site)
		add_label(e, s, "site", site->name, 0, NULL);
	if (span)
		add_label(e, s, "span", span, 0, NULL);
	add_label(e, s, "pid", NULL, r->pid, "pid");
	ptrs_add(&e->samples, s);
}

static ValueType *value_type(struct enc *e, const char *type, const char *unit)
{
	ValueType *v = bag_alloc(&e->bag, sizeof(*v));

	perftools__profiles__value_type__init(v);
	v->type = str_index(&e->str, type);
	v->unit = str_index(&e->str, unit);
	return v;
}

static int write_gz(int fd, const void *buf, size_t len, char *err, size_t errlen)
{
	gzFile gz = gzdopen(fd, "wb");

	if (!gz) {
		snprintf(err, errlen, "gzip: %s", strerror(errno ? errno : ENOMEM));
		close(fd);
		return -1;
	}
	const unsigned char *p = buf;
	while (len) {
		unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		if (gzwrite(gz, p, n) != (int)n) {
			int zerr;
			const char *m = gzerror(gz, &zerr);
			snprintf(err, errlen, "writing: %s", zerr == Z_ERRNO ? strerror(errno) : m);
			gzclose(gz);
			return -1;
		}
		p += n;
		len -= n;
	}
	int rc = gzclose(gz);
	if (rc != Z_OK) {
		snprintf(err, errlen, "writing: %s", rc == Z_ERRNO ? strerror(errno) : "gzip error");
		return -1;
	}
	return 0;
}

static int encode(const struct profile *p, enum export_by by, int fd, char *err, size_t errlen)
{
	struct enc e = { .p = p, .by = by };
	Profile prof;
	size_t nloc = by == EXPORT_BY_CODE ? p->ncode
		    : by == EXPORT_BY_DATA ? p->ndata
		    : by == EXPORT_BY_SITE ? (p->sites ? p->sites->n : 0) + 1
					   : p->nspans + 1;
	char text[512];
	int rc;

	perftools__profiles__profile__init(&prof);
	str_index(&e.str, "");	/* string_table[0] */
	e.loc_of = mt_xcalloc(nloc ? nloc : 1, sizeof(*e.loc_of));
	e.region_loc = mt_xcalloc(p->ndata ? p->ndata : 1, sizeof(*e.region_loc));
	for (size_t i = 0; i < p->nrows; i++)
		add_sample(&e, &p->rows[i]);
	ValueType *types[2] = { value_type(&e, p->words->count, "count"),
				value_type(&e, "bytes", "bytes") };
	prof.sample_type = types;
	prof.n_sample_type = 2;
	prof.period_type = value_type(&e, p->words->count, "count");
	prof.period = (int64_t)p->period;
	prof.default_sample_type = types[0]->type;
	if (p->time_is_ns && p->last_time > p->first_time)
		prof.duration_nanos = (int64_t)(p->last_time - p->first_time);
	int64_t comments[3];
	snprintf(text, sizeof(text), "memtrace %s%s%s: %s", p->words->samples, *p->comm ? " of " : "",
		 p->comm, p->words->measure);
	comments[0] = str_index(&e.str, text);
	snprintf(text, sizeof(text), "%s = %" PRIu64 " x %s (sample_period); bytes = %s x %" PRIu64
		 " (the bucket size: the memory they land in at that granularity, not bytes moved)",
		 p->words->count, p->period, p->words->samples, p->words->count, p->bucket);
	comments[1] = str_index(&e.str, text);
	snprintf(text, sizeof(text), "stacks: %s", by == EXPORT_BY_CODE ? "the sampled instruction"
		 : by == EXPORT_BY_DATA ? "the sampled data (object, region)"
		 : by == EXPORT_BY_SITE ? "the allocation site of the block" : "the span's label");
	comments[2] = str_index(&e.str, text);
	prof.comment = comments;
	prof.n_comment = 3;
	prof.sample = (Sample **)e.samples.v;
	prof.n_sample = e.samples.n;
	prof.mapping = (Mapping **)e.mappings.v;
	prof.n_mapping = e.mappings.n;
	prof.location = (Location **)e.locations.v;
	prof.n_location = e.locations.n;
	prof.function = (Function **)e.functions.v;
	prof.n_function = e.functions.n;
	prof.string_table = e.str.v;
	prof.n_string_table = e.str.n;
	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	uint8_t *buf = mt_xmalloc(len ? len : 1);
	perftools__profiles__profile__pack(&prof, buf);
	rc = write_gz(fd, buf, len, err, errlen);
	free(buf);
	free(e.loc_of), free(e.region_loc), free(e.maps), free(e.fkey), free(e.fid);
	free(e.samples.v), free(e.mappings.v), free(e.locations.v), free(e.functions.v);
	strtab_free(&e.str);
	bag_free(&e.bag);
	return rc;
}

int export_pprof(const struct profile *p, enum export_by by, int fd, char *err, size_t errlen)
{
	if (by == EXPORT_BY_SITE && !p->sites) {
		snprintf(err, errlen, "--by site: the trace has no allocation records (record it "
			 "with --allocs)");
		close(fd);
		return -1;
	}
	if (by == EXPORT_BY_SPAN && !p->span_labels) {
		snprintf(err, errlen, "--by span: the trace has no spans (record it with --mark)");
		close(fd);
		return -1;
	}
	MT_OOM_GUARDED(int, -1, err, errlen, encode(p, by, fd, err, errlen));
}
