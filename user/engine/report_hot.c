/*
 * report_hot.c - the names in a report: where each hot bucket is, which
 * functions and instructions touched it, and for each peak the most
 * frequent instructions and the mapping that took most data samples in
 * its window.  Every string is copied into the report (the resolver goes
 * away with the computation).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "util/util.h"

#define HOT_SYMS_MAX 64	/* distinct symbols counted per hot bucket */

struct sym_count {
	const char *name;	/* symbol, else mapping ("[vdso]"), else "?" */
	uint64_t count;
};

static int by_sym_count(const void *a, const void *b)
{
	const struct sym_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The symbols of the values counted in a hot bucket (instruction pointers:
 * the functions that touched it; data addresses: the objects touched in
 * it), most samples first, into fn (at most HOT_SYMS_MAX; later ones are
 * left out).  Without symbols_only a value with no symbol counts under its
 * mapping's name, or "?".  Returns how many; *total gets all the bucket's
 * counted samples.
 */
static size_t hot_symbols(struct rep_ctx *c, const struct hot_attr *attr, uint64_t bucket,
			  struct sym_count *fn, uint64_t *total, int symbols_only)
{
	const struct hot_attr_slot *p;
	size_t np = hot_attr_pairs(attr, bucket, &p), nf = 0;

	*total = 0;
	for (size_t i = 0; i < np; i++) {
		struct resolved res;
		int how = resolver_key_symbol(c->res, p[i].ip, &res);
		const char *name = how == MT_RESOLVE_SYMBOL ? res.sym
				   : how == MT_RESOLVE_MAPPING ? res.region : "?";
		size_t j = 0;

		*total += p[i].count;
		if (symbols_only && how != MT_RESOLVE_SYMBOL)
			continue;
		while (j < nf && strcmp(fn[j].name, name))
			j++;
		if (j == nf) {
			if (nf == HOT_SYMS_MAX)
				continue;
			fn[nf++] = (struct sym_count){ name, 0 };
		}
		fn[j].count += p[i].count;
	}
	qsort(fn, nf, sizeof(*fn), by_sym_count);
	return nf;
}

/*
 * An instruction as a named count.  short_name: "symbol+0xoff" where
 * known (hot buckets), else the full description (peaks).
 */
static void named_ip(struct rep_ctx *c, uint64_t ip, uint64_t count, int short_name,
		     struct memtrace_named_count *out)
{
	struct resolved res = { 0 };
	char buf[512];
	int how = c->flags & MEMTRACE_REPORT_NO_SOURCE ? resolver_key_symbol(c->res, ip, &res)
		  : resolver_key_lookup(c->res, ip, &res);

	if (short_name && how == MT_RESOLVE_SYMBOL)
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, res.sym, res.sym_off);
	else
		resolver_key_describe(c->res, ip, buf, sizeof(buf));
	out->addr = ip;
	out->count = count;
	out->name = rep_strdup(c, buf);
	if (how != MT_RESOLVE_UNMAPPED && res.file) {
		out->file = rep_strdup(c, res.file);
		out->line = res.line;
	}
}

const char *rep_key_where(struct rep_ctx *c, uint64_t key)
{
	struct resolved res;
	char buf[512], shared[48] = "";
	int how = resolver_key_symbol(c->res, key, &res);

	if (res.shared_by > 1)
		snprintf(shared, sizeof(shared), " (shared by %u processes)", res.shared_by);
	if (how == MT_RESOLVE_UNMAPPED)
		snprintf(buf, sizeof(buf), "%s%s?", res.owner ? res.owner : "", res.owner ? " " : "");
	else
		snprintf(buf, sizeof(buf), "%s%s%s+0x%" PRIx64 "%s", res.owner ? res.owner : "",
			 res.owner ? " " : "", res.region, res.region_off, shared);
	return rep_strdup(c, buf);
}

/*
 * Where a hot bucket is: its mapping and offset.  A data bucket gets the
 * object (symbol) that at least half of its samples fell into, if any; a
 * code bucket none: the functions running in it are listed separately, and
 * the one at a code page's first byte says nothing.
 */
static void locate_bucket(struct rep_ctx *c, struct memtrace_hot_bucket *h, uint64_t bucket,
			  int code)
{
	struct sym_count obj[HOT_SYMS_MAX];
	uint64_t total;

	h->where = rep_key_where(c, h->addr);
	if (!code && hot_symbols(c, &c->attr_obj, bucket, obj, &total, 1) &&
	    obj[0].count * 2 >= total)
		h->object = rep_strdup(c, obj[0].name);
}

static const struct memtrace_hot_bucket *hot_list(struct rep_ctx *c, const struct hot_bucket *hot,
						  size_t n, const struct hot_attr *attr, int code)
{
	struct memtrace_hot_bucket *out = rep_alloc(c, (n ? n : 1) * sizeof(*out));
	struct sym_count fn[HOT_SYMS_MAX];
	struct hot_bucket *ips = mt_xcalloc(c->functions, sizeof(*ips));

	for (size_t i = 0; i < n; i++) {
		struct memtrace_hot_bucket *h = &out[i];
		h->addr = hot[i].bucket << c->r->bucket_shift;
		h->count = hot[i].count;
		locate_bucket(c, h, hot[i].bucket, code);
		size_t nf = hot_symbols(c, attr, hot[i].bucket, fn, &h->with_ip, 0);
		if (nf > c->functions)
			nf = c->functions;
		struct memtrace_named_count *f = rep_alloc(c, (nf ? nf : 1) * sizeof(*f));
		for (size_t j = 0; j < nf; j++)
			f[j] = (struct memtrace_named_count){ 0, fn[j].count,
							      rep_strdup(c, fn[j].name), NULL, 0 };
		h->nfunctions = nf;
		h->functions = f;
		size_t ni = hot_attr_top(attr, hot[i].bucket, c->functions, ips, NULL);
		struct memtrace_named_count *ip = rep_alloc(c, (ni ? ni : 1) * sizeof(*ip));
		for (size_t j = 0; j < ni; j++)
			named_ip(c, ips[j].bucket, ips[j].count, 1, &ip[j]);
		h->nips = ni;
		h->ips = ip;
	}
	free(ips);
	return out;
}

void rep_fill_hot(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;

	r->nhot_data = c->nhot_data;
	r->hot_data = hot_list(c, c->hot_data, c->nhot_data, &c->attr_data, 0);
	r->nhot_code = c->nhot_code;
	r->hot_code = hot_list(c, c->hot_code, c->nhot_code, &c->attr_code, 1);
}

/* The mapping name with most data samples in peak p's window, or NULL. */
static const char *peak_mapping(struct rep_ctx *c, size_t p)
{
	const uint64_t *cnt = c->peak_ranges + p * (c->nlayout + 1);
	const char *best = NULL;
	uint64_t best_n = 0;

	for (size_t i = 0; i <= c->nlayout; i++) {
		const char *name = i < c->nlayout ? c->layout[i].name : "?";
		uint64_t n = 0;
		size_t j = 0;
		if (!cnt[i])
			continue;
		/* ranges of the same name count together; the first one sums them */
		while (j < i && (!cnt[j] || strcmp(j < c->nlayout ? c->layout[j].name : "?", name)))
			j++;
		if (j < i)
			continue;
		for (j = i; j <= c->nlayout; j++)
			if (!strcmp(j < c->nlayout ? c->layout[j].name : "?", name))
				n += cnt[j];
		if (n > best_n) {
			best_n = n;
			best = name;
		}
	}
	return best ? rep_strdup(c, best) : NULL;
}

void rep_fill_peaks(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;
	struct memtrace_peak *out = rep_alloc(c, (c->npeaks ? c->npeaks : 1) * sizeof(*out));
	struct hot_bucket *loc = mt_xcalloc(c->locations, sizeof(*loc));

	for (size_t p = 0; p < c->npeaks; p++) {
		struct memtrace_peak *pk = &out[p];
		pk->index = c->peaks[p].index;
		pk->first = c->peaks[p].first;
		pk->last = c->peaks[p].last;
		pk->value = c->peaks[p].value;
		pk->time = r->data.time[pk->index];
		size_t nl = c->peak_ips ? hot_top(&c->peak_ips[p], c->locations, loc) : 0;
		struct memtrace_named_count *l = rep_alloc(c, (nl ? nl : 1) * sizeof(*l));
		for (size_t j = 0; j < nl; j++)
			named_ip(c, loc[j].bucket, loc[j].count, 0, &l[j]);
		pk->nlocations = nl;
		pk->locations = l;
		pk->top_mapping = peak_mapping(c, p);
	}
	free(loc);
	r->npeaks = c->npeaks;
	r->peaks = out;
}
