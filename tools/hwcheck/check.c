/*
 * check.c - the checks of one recording of hwload (docs/hwcheck.md,
 * "Checks"): addresses in the workload's mappings, per-buffer shares,
 * nothing in C, stores only in D, load/store kind, latency and data source,
 * sample count against the known event count, lost/dropped/throttled.
 */
#include "hwcheck.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtrace/resolve.h>
#include <memtrace/trace.h>

#define PAGE 4096ULL

struct samples {
	size_t n;
	uint64_t *time, *addr, *data_src;
	uint32_t *pid, *weight;
};

/* Per buffer: samples, weighted samples' latencies, levels, pages. */
struct per_buffer {
	uint64_t n, with_level, beyond_l1;
	uint32_t *lat;
	size_t nlat;
	unsigned char *page_seen;
	uint64_t pages;
};

struct tally {
	uint64_t considered;		/* the workload's samples of the checked kind */
	uint64_t other_pid, other_kind, kernel, unmapped, outside;
	uint64_t first_unmapped, unmapped_outside_loop;
	int time_is_ns;			/* else instructions (valgrind): no loop window */
	uint64_t with_src, src_match, src_wrong;
	struct per_buffer b[HW_MAX_BUFFERS];
};

void hw_verdict(enum hw_verdict v, const char *id, const char *fmt, ...)
{
	static const char *const word[] = { "PASS", "FAIL", "SKIP" };
	va_list ap;

	printf("%s %s: ", word[v], id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *kind_name(enum hw_kind k)
{
	return k == HW_LOADS ? "loads" : k == HW_STORES ? "stores" : "page faults";
}

static int read_samples(struct memtrace_trace *t, const struct memtrace_trace_info *info,
			struct samples *s, char *err, size_t errlen)
{
	size_t cap = info->samples ? info->samples : 1;
	struct memtrace_columns c = { 0 };

	s->time = c.time = calloc(cap, 8);
	s->addr = c.addr = calloc(cap, 8);
	s->data_src = c.data_src = calloc(cap, 8);
	s->pid = c.pid = calloc(cap, 4);
	s->weight = c.weight = calloc(cap, 4);
	c.cap = cap;
	if (!c.time || !c.addr || !c.data_src || !c.pid || !c.weight) {
		snprintf(err, errlen, "out of memory for %zu samples", cap);
		return -1;
	}
	return memtrace_trace_read(t, NULL, &c, &s->n, err, errlen);
}

static void free_samples(struct samples *s)
{
	free(s->time);
	free(s->addr);
	free(s->data_src);
	free(s->pid);
	free(s->weight);
}

/* The mapping range holding addr, by binary search of the layout. */
static int in_ranges(const struct memtrace_range *v, long n, uint64_t addr)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (addr < v[mid].start)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static unsigned mem_op(uint64_t src)
{
	return (unsigned)(src >> PERF_MEM_OP_SHIFT) & 0x1f;
}

/* 1: the sample's level is known; *l1 = it hit in L1 or the line fill buffer. */
static int mem_level(uint64_t src, int *l1)
{
	unsigned lvl = (unsigned)(src >> PERF_MEM_LVL_SHIFT) & 0x3fff;
	unsigned num = (unsigned)(src >> PERF_MEM_LVLNUM_SHIFT) & 0xf;

	if (num && num != PERF_MEM_LVLNUM_NA && num != PERF_MEM_LVLNUM_ANY_CACHE) {
		*l1 = num == PERF_MEM_LVLNUM_L1 || num == PERF_MEM_LVLNUM_LFB;
		return 1;
	}
	lvl &= ~(unsigned)(PERF_MEM_LVL_NA | PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	if (!lvl)
		return 0;
	*l1 = (lvl & (PERF_MEM_LVL_L1 | PERF_MEM_LVL_LFB)) &&
	      ((src >> PERF_MEM_LVL_SHIFT) & PERF_MEM_LVL_HIT);
	return 1;
}

/* IBS samples every op with an address: keep the loads or the stores. */
static int kind_matches(uint64_t src, enum hw_kind k)
{
	unsigned op = mem_op(src);

	return k == HW_LOADS ? (op & PERF_MEM_OP_LOAD) != 0 : (op & PERF_MEM_OP_STORE) != 0;
}

static void tally_buffer(struct per_buffer *b, const struct hw_buffer *hb, const struct samples *s,
			 size_t i, enum hw_kind k)
{
	int l1;

	b->n++;
	if (k == HW_FAULTS) {
		uint64_t page = (s->addr[i] - hb->start) / PAGE;
		b->pages += !b->page_seen[page];
		b->page_seen[page] = 1;
		return;
	}
	if (s->weight[i])
		b->lat[b->nlat++] = s->weight[i];
	if (mem_level(s->data_src[i], &l1)) {
		b->with_level++;
		b->beyond_l1 += !l1;
	}
}

static void tally_sample(struct tally *t, const struct hw_layout *l, const struct samples *s,
			 size_t i, const struct memtrace_range *maps, long nmaps,
			 enum hw_kind k, int filter_kind)
{
	uint64_t a = s->addr[i], src = s->data_src[i];

	if (s->pid[i] != l->pid) {
		t->other_pid++;
		return;
	}
	if (filter_kind && !kind_matches(src, k)) {
		t->other_kind++;
		return;
	}
	t->considered++;
	if (k != HW_FAULTS && src) {
		unsigned op = mem_op(src), want = k == HW_LOADS ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
		unsigned other = k == HW_LOADS ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
		t->with_src++;
		t->src_match += (op & want) != 0;
		t->src_wrong += (op & other) && !(op & want);
	}
	if (a >> 63) {
		t->kernel++;
		return;
	}
	int bi = hw_layout_find(l, a);
	if (bi >= 0) {
		tally_buffer(&t->b[bi], &l->buf[bi], s, i, k);
		return;
	}
	t->outside++;
	if (in_ranges(maps, nmaps, a))
		return;
	/* before or after the access loop: the dynamic loader's and libc's
	 * short-lived mappings, which maps snapshots can miss (design.md, Limits) */
	if (t->time_is_ns && (s->time[i] < l->loop_start_ns || s->time[i] > l->loop_end_ns))
		t->unmapped_outside_loop++;
	else if (!t->unmapped++)
		t->first_unmapped = a;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t median_u32(uint32_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : (uint32_t)(((uint64_t)v[n / 2 - 1] + v[n / 2]) / 2);
}

static uint64_t expected_per_round(const struct hw_layout *l, int i, enum hw_kind k)
{
	return k == HW_LOADS ? l->buf[i].loads : l->buf[i].stores;
}

static int check_mapped(const struct tally *t)
{
	uint64_t user = t->considered - t->kernel, out = t->unmapped_outside_loop;
	char note[160] = "";

	if (out)
		snprintf(note, sizeof(note), "; %" PRIu64 " outside the access loop in no snapshot "
			 "(short-lived startup/exit mappings, not checked)", out);
	if (!t->unmapped && !t->kernel) {
		hw_verdict(HW_PASS, "mapped", "%" PRIu64 " of %" PRIu64 " user addresses in the workload's "
			   "mappings (%" PRIu64 " in its buffers)%s", user - out, user - out,
			   user - t->outside, note);
		return 0;
	}
	hw_verdict(HW_FAIL, "mapped", "%" PRIu64 " of %" PRIu64 " user addresses during the access "
		   "loop in no mapping of the workload (first 0x%" PRIx64 "), %" PRIu64 " kernel "
		   "addresses%s", t->unmapped, user - out, t->first_unmapped, t->kernel, note);
	return 1;
}

static int check_shares(const struct tally *t, const struct hw_layout *l,
			const struct hw_check_opts *o)
{
	uint64_t total = 0;
	char text[1024];
	size_t at = 0;
	int bad = 0;

	for (int i = 0; i < l->nbuf; i++)
		total += expected_per_round(l, i, o->kind);
	if (!total || !t->considered) {
		hw_verdict(HW_FAIL, "shares", "no %s %s (%" PRIu64 " samples of the other kind or "
			   "without a load/store data source)", t->considered ? "expected" : "sampled",
			   kind_name(o->kind), t->other_kind);
		return 1;
	}
	for (int i = 0; i < l->nbuf; i++) {
		double want = (double)expected_per_round(l, i, o->kind) / (double)total;
		double got = (double)t->b[i].n / (double)t->considered;
		bad |= fabs(got - want) > o->share_tolerance;
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s %.3f (expected %.3f; %"
				       PRIu64 "), ", l->buf[i].name, got, want, t->b[i].n);
	}
	snprintf(text + at, sizeof(text) - at, "outside the buffers %.3f (%" PRIu64 "); tolerance "
		 "+-%.3f", (double)t->outside / (double)t->considered, t->outside, o->share_tolerance);
	hw_verdict(bad ? HW_FAIL : HW_PASS, "shares", "%s", text);
	return bad;
}

static int check_untouched(const struct tally *t, const struct hw_layout *l)
{
	int bad = 0;

	for (int i = 0; i < l->nbuf; i++) {
		if (l->buf[i].loads || l->buf[i].stores)
			continue;
		hw_verdict(t->b[i].n ? HW_FAIL : HW_PASS, "untouched", "%" PRIu64 " samples in %s "
			   "(never accessed)", t->b[i].n, l->buf[i].name);
		bad |= t->b[i].n != 0;
	}
	return bad;
}

static int check_stores_only(const struct tally *t, const struct hw_layout *l)
{
	uint64_t in_stored = 0, elsewhere = 0;
	char where[256] = "";
	size_t at = 0;

	for (int i = 0; i < l->nbuf; i++) {
		if (l->buf[i].stores) {
			in_stored += t->b[i].n;
		} else if (t->b[i].n) {
			elsewhere += t->b[i].n;
			at += (size_t)snprintf(where + at, sizeof(where) - at, " %s %" PRIu64,
					       l->buf[i].name, t->b[i].n);
		}
	}
	if (elsewhere) {
		hw_verdict(HW_FAIL, "stores-only-in-D", "%" PRIu64 " store samples in buffers that are "
			   "only loaded or untouched:%s", elsewhere, where);
		return 1;
	}
	hw_verdict(HW_PASS, "stores-only-in-D", "%" PRIu64 " store samples in the stored buffer, "
		   "none in the others; %" PRIu64 " outside the buffers (stack, libc)", in_stored,
		   t->outside);
	return 0;
}

static int check_op_kind(const struct tally *t, enum hw_kind k)
{
	if (!t->with_src) {
		hw_verdict(HW_SKIP, "op-kind", "no data source recorded");
		return 0;
	}
	hw_verdict(t->src_wrong ? HW_FAIL : HW_PASS, "op-kind", "%" PRIu64 " of %" PRIu64
		   " data sources say %s, %" PRIu64 " say %s", t->src_match, t->with_src,
		   k == HW_LOADS ? "load" : "store", t->src_wrong, k == HW_LOADS ? "store" : "load");
	return t->src_wrong != 0;
}

static int buffer_named(const struct hw_layout *l, const char *name)
{
	for (int i = 0; i < l->nbuf; i++)
		if (!strcmp(l->buf[i].name, name))
			return i;
	return -1;
}

/* Loads: B's random probes must be slower than A's sequential scan. */
static int check_latency(struct tally *t, const struct hw_layout *l,
			 const struct hw_check_opts *o)
{
	int a = buffer_named(l, "A"), b = buffer_named(l, "B");

	if (o->kind != HW_LOADS || a < 0 || b < 0) {
		hw_verdict(HW_SKIP, "latency", "checked on loads of A (sequential) and B (random)");
		return 0;
	}
	struct per_buffer *pa = &t->b[a], *pb = &t->b[b];
	if (pa->nlat < o->min_latency_samples || pb->nlat < o->min_latency_samples) {
		hw_verdict(HW_SKIP, "latency", "%zu samples of A and %zu of B carry a latency (< %u): "
			   "this event records none", pa->nlat, pb->nlat, o->min_latency_samples);
		return 0;
	}
	uint32_t ma = median_u32(pa->lat, pa->nlat), mb = median_u32(pb->lat, pb->nlat);
	uint32_t max = pa->lat[pa->nlat - 1] > pb->lat[pb->nlat - 1] ? pa->lat[pa->nlat - 1]
								      : pb->lat[pb->nlat - 1];
	int bad = mb <= ma || max > 1000000;
	hw_verdict(bad ? HW_FAIL : HW_PASS, "latency", "median A %u, B %u cycles (B must be higher), "
		   "max %u (must be <= 1000000)", ma, mb, max);
	return bad;
}

/* Loads: more of B's samples come from beyond L1 than of A's. */
static int check_data_source(const struct tally *t, const struct hw_layout *l,
			     const struct hw_check_opts *o)
{
	int a = buffer_named(l, "A"), b = buffer_named(l, "B");

	if (o->kind != HW_LOADS || a < 0 || b < 0) {
		hw_verdict(HW_SKIP, "data-source", "checked on loads of A (sequential) and B (random)");
		return 0;
	}
	const struct per_buffer *pa = &t->b[a], *pb = &t->b[b];
	if (pa->with_level < o->min_latency_samples || pb->with_level < o->min_latency_samples) {
		hw_verdict(HW_SKIP, "data-source", "%" PRIu64 " samples of A and %" PRIu64 " of B have "
			   "a cache level (< %u)", pa->with_level, pb->with_level, o->min_latency_samples);
		return 0;
	}
	double fa = (double)pa->beyond_l1 / (double)pa->with_level;
	double fb = (double)pb->beyond_l1 / (double)pb->with_level;
	hw_verdict(fb > fa ? HW_PASS : HW_FAIL, "data-source", "beyond L1: A %.3f, B %.3f of the "
		   "samples with a level (B must be higher)", fa, fb);
	return fb <= fa;
}

/* Samples + lost + dropped against the event count hwload makes / period. */
static int check_count(const struct tally *t, const struct hw_layout *l,
		       const struct memtrace_trace_info *info, const char *source,
		       const struct hw_check_opts *o)
{
	uint64_t per_round = 0;

	if (strcmp(source, "pebs")) {
		hw_verdict(HW_SKIP, "count", "source %s: no exact event count to compare with%s", source,
			   !strcmp(source, "ibs") ? " (IBS counts micro-ops)" : "");
		return 0;
	}
	for (int i = 0; i < l->nbuf; i++)
		per_round += expected_per_round(l, i, o->kind);
	double expected = (double)per_round * (double)l->rounds / (double)info->sample_period;
	uint64_t got = t->considered + info->lost + info->dropped;
	double ratio = got / expected;
	int ok = fabs(ratio - 1) <= o->count_tolerance;
	const char *why = "";

	if (!ok && ratio < 1 && info->throttled) {
		ok = 1;
		why = "; fewer because perf throttled the counter";
	}
	hw_verdict(ok ? HW_PASS : HW_FAIL, "count", "%" PRIu64 " samples + %" PRIu64 " lost + %"
		   PRIu64 " dropped = %.3f x the %.0f expected (%" PRIu64 " x %ld rounds / period %"
		   PRIu64 "; tolerance +-%.2f)%s", t->considered, info->lost, info->dropped, ratio,
		   expected, per_round, l->rounds, info->sample_period, o->count_tolerance, why);
	return !ok;
}

/* Page faults: every page of every accessed buffer exactly, none of C. */
static int check_pages(const struct tally *t, const struct hw_layout *l)
{
	char text[1024];
	size_t at = 0;
	uint64_t faults = 0, pages = 0;
	int bad = 0;

	for (int i = 0; i < l->nbuf; i++) {
		const struct hw_buffer *b = &l->buf[i];
		uint64_t want = !l->populated && (b->loads || b->stores) ? (b->end - b->start) / PAGE : 0;
		bad |= t->b[i].pages != want;
		faults += t->b[i].n;
		pages += t->b[i].pages;
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s %" PRIu64 " (expected %" PRIu64
				       ")", i ? ", " : "", b->name, t->b[i].pages, want);
	}
	hw_verdict(bad ? HW_FAIL : HW_PASS, "pages", "pages faulted: %s", text);
	int repeats = faults > pages + 2;
	hw_verdict(repeats ? HW_FAIL : HW_PASS, "repeats", "%" PRIu64 " faults on %" PRIu64
		   " pages (at most 2 retried faults allowed)", faults, pages);
	return bad + repeats;
}

/*
 * Module runs: the PMIs the run took.  perf-overflow (compatible) mode takes
 * one per sample (large PEBS off); pebs-hook mode with large PEBS one per
 * buffer of ~300-1000 records, so at most a tenth of the samples.
 */
static int check_interrupts(struct memtrace_trace *tr, const struct memtrace_trace_info *info,
			    const struct hw_check_opts *o)
{
	const char *mode = memtrace_trace_meta(tr, "mode"), *large = memtrace_trace_meta(tr, "large_pebs");
	uint64_t n = info->samples + info->lost + info->dropped;

	if (o->pmis < 0 || !mode)
		return 0;
	double per = n ? (double)o->pmis / (double)n : 0;
	int hooked = !strcmp(mode, "pebs-hook") && large && !strcmp(large, "1");
	int ok = hooked ? per <= 0.1 : per >= 0.9;
	hw_verdict(ok ? HW_PASS : HW_FAIL, "interrupts", "%lld PMIs for %" PRIu64 " samples (%.3f per "
		   "sample) in mode %s, large_pebs %s: %s", o->pmis, n, per, mode, large ? large : "?",
		   hooked ? "at most 0.1 expected (one PMI per PEBS buffer)"
			  : "at least 0.9 expected (one PMI per sample)");
	return !ok;
}

static int check_accounting(const struct memtrace_trace_info *info, const struct tally *t)
{
	hw_verdict(info->complete ? HW_PASS : HW_FAIL, "accounting", "%s; lost %" PRIu64 ", dropped %"
		   PRIu64 ", throttled %" PRIu64 "; %" PRIu64 " samples of other processes, %" PRIu64
		   " of the other kind", info->complete ? "END chunk present" : "no END chunk: counts "
		   "incomplete", info->lost, info->dropped, info->throttled, t->other_pid, t->other_kind);
	return !info->complete;
}

/* Sample times lie inside the recording: [HEADER start_time, END end_time]. */
static int check_times(const struct memtrace_trace_info *info)
{
	int ok = !info->samples ||
		 (info->first_time >= info->start_time && info->last_time <= info->end_time);

	double unit = info->time_is_ns ? 1e9 : 1;
	int digits = info->time_is_ns ? 6 : 0;

	const char *u = info->time_is_ns ? "s" : "instructions";

	hw_verdict(ok ? HW_PASS : HW_FAIL, "times", "samples from %+.*f to %+.*f %s of a recording "
		   "of %.*f %s", digits, ((double)info->first_time - (double)info->start_time) / unit,
		   digits, ((double)info->last_time - (double)info->start_time) / unit, u, digits,
		   ((double)info->end_time - (double)info->start_time) / unit, u);
	return !ok;
}

static int run_checks(struct memtrace_trace *tr, const struct memtrace_trace_info *info,
		      struct tally *t, const struct hw_layout *l, const struct hw_check_opts *o,
		      const char *source)
{
	int fails = check_accounting(info, t) + check_times(info) + check_mapped(t) +
		    check_untouched(t, l);

	if (o->kind == HW_FAULTS) {
		fails += check_pages(t, l);
		hw_verdict(HW_SKIP, "shares", "page faults are first touches, not accesses: "
			   "pages checks each buffer's pages instead");
		hw_verdict(HW_SKIP, "stores-only-in-D", "page faults have no load/store kind: A and B "
			   "fault on reads, D on writes");
		return fails;
	}
	fails += check_count(t, l, info, source, o) + check_shares(t, l, o);
	if (o->kind == HW_STORES)
		fails += check_stores_only(t, l);
	fails += check_op_kind(t, o->kind) + check_latency(t, l, o) + check_data_source(t, l, o);
	return fails + check_interrupts(tr, info, o);
}

static int alloc_per_buffer(struct tally *t, const struct hw_layout *l, size_t n)
{
	for (int i = 0; i < l->nbuf; i++) {
		t->b[i].lat = malloc((n ? n : 1) * sizeof(uint32_t));
		t->b[i].page_seen = calloc((l->buf[i].end - l->buf[i].start) / PAGE + 1, 1);
		if (!t->b[i].lat || !t->b[i].page_seen)
			return -1;
	}
	return 0;
}

static void free_tally(struct tally *t)
{
	for (int i = 0; i < HW_MAX_BUFFERS; i++) {
		free(t->b[i].lat);
		free(t->b[i].page_seen);
	}
}

int hw_check_trace(const char *path, const struct hw_layout *l, const struct hw_check_opts *o,
		   char *err, size_t errlen)
{
	struct memtrace_trace_info info;
	struct samples s = { 0 };
	struct tally t;
	const struct memtrace_range *maps = NULL;
	int fails = -1;

	memset(&t, 0, sizeof(t));
	struct memtrace_trace *tr = memtrace_trace_open(path, err, errlen);
	if (!tr)
		return -1;
	struct memtrace_resolver *r = memtrace_resolver_open(path, NULL, NULL, err, errlen);
	if (!r || memtrace_trace_info(tr, &info, err, errlen) ||
	    read_samples(tr, &info, &s, err, errlen))
		goto out;
	if (alloc_per_buffer(&t, l, s.n)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	const char *source = memtrace_trace_meta(tr, "source");
	source = source ? source : "?";
	/* IBS and valgrind record loads and stores in one stream: keep the checked kind */
	int filter_kind = !strcmp(source, "ibs") || !strcmp(source, "valgrind-lackey");
	long nmaps = memtrace_resolver_layout(r, l->pid, &maps);
	t.time_is_ns = info.time_is_ns;
	for (size_t i = 0; i < s.n; i++)
		tally_sample(&t, l, &s, i, maps, nmaps < 0 ? 0 : nmaps, o->kind, filter_kind);
	fails = run_checks(tr, &info, &t, l, o, source);
out:
	free_tally(&t);
	free_samples(&s);
	if (r)
		memtrace_resolver_close(r);
	memtrace_trace_close(tr);
	return fails;
}
