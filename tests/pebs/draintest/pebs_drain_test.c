// SPDX-License-Identifier: GPL-2.0
/*
 * pebs_drain_test.c - pebs_drain_test.ko: the PEBS sink drain of
 * kernel/perf-pebs-hook.patch (intel_pmu_pebs_sink_records() in
 * arch/x86/events/intel/ds.c, the code a PMI runs for an event with a sink)
 * on DS buffers of synthetic records, through the patch's test entry
 * x86_pebs_sink_selftest_drain() (CONFIG_PERF_X86_PEBS_SINK_SELFTEST, on in
 * tests/kernel/debug-kernel.config).  For a kernel without PEBS (the qemu
 * guest of tests/kernel/guest-pebs.sh, "pebs-drain").
 *
 * At load it fills one buffer per group with records laid out as the Intel
 * SDM says (vol. 3B, "Processor Event Based Sampling"; the offsets of
 * kernel/pebs-hook/pebs_extract.h, which tests/pebs/test_pebs_extract.c
 * checks in user space), drains it into a capturing sink and compares what
 * the sink got with what each record holds: every address, IP, latency and
 * data source exactly once, in order, and the records the drain could not
 * decode counted as lost.  Prints one "pebs_drain_test: ok   pebs-drain-G"
 * or "pebs_drain_test: FAIL pebs-drain-G: why" line per group, then "done".
 *
 * The expected values come from the record bytes and the SDM's meaning of
 * them, written out per group (which IP, which latency field), not from the
 * decoder.  The data source is checked for a precise-store event: perf's
 * encoding of the store DSE bits (L1D hit bit 0, STLB miss bit 4, locked
 * bit 5) needs no model table; load-latency encodings do, and a guest has
 * none (zeros), so they are not checked here.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "pebs_extract.h"

#ifndef X86_PEBS_SELFTEST_STORE
#error "kernel without CONFIG_PERF_X86_PEBS_SINK_SELFTEST (kernel/perf-pebs-hook.patch)"
#endif

#define DT_RECS		64
#define DT_GP_GROUP	144	/* an adaptive record's GP registers group */
#define DT_MEMINFO	PEBS_X_GROUP_MEMINFO
#define DT_GROUP_GP	0x2u	/* format_group: GP registers */

static int failures;

#define DT_LINE(fmt, ...) pr_info("pebs_drain_test: " fmt "\n", ##__VA_ARGS__)
#define DT_FAIL(g, fmt, ...) do { \
	DT_LINE("FAIL pebs-drain-%s: " fmt, (g)->name, ##__VA_ARGS__); \
	failures++; } while (0)

/* What one record holds. */
struct dt_rec {
	u64 addr, ip, real_ip, lat, tsx, dse, tsc;
};

/* What the sink got. */
struct dt_capture {
	struct x86_pebs_sample s[DT_RECS];
	struct perf_event *event[DT_RECS];
	int n;
	u64 lost;
	int lost_calls;
};

static void dt_sample(struct perf_event *event,
		      const struct x86_pebs_sample *s, void *ctx)
{
	struct dt_capture *c = ctx;

	if (c->n < DT_RECS) {
		c->s[c->n] = *s;
		c->event[c->n] = event;
	}
	c->n++;
}

static void dt_lost(struct perf_event *event, u64 nr, void *ctx)
{
	struct dt_capture *c = ctx;

	c->lost += nr;
	c->lost_calls++;
}

enum dt_ip { DT_IP, DT_REAL_IP };
enum dt_weight { DT_W_LAT, DT_W_TSX, DT_W_CACHE_LAT };

struct dt_group {
	const char *name;
	u8 format;
	u8 adaptive;
	u16 flags;		/* PEBS_X_* */
	u32 size;		/* record size */
	u32 format_group;	/* adaptive: the basic header's group bits */
	int n;			/* records written */
	int count;		/* records the "PMI" counted (0: n) */
	int cut;		/* bytes of the last record left before top (0: all) */
	u32 fields;		/* sink fields (X86_PEBS_SINK_*) */
	enum dt_ip ip;		/* which IP the sample must carry */
	enum dt_weight weight;	/* which latency */
	int zero_addr;		/* every other record has data address 0 */
	int zero_lat;		/* adaptive: record 1's latency word is 0 */
	int delivered;		/* records the sink must get */
	int lost;		/* records it must be told were lost */
};

#define ALL_FIELDS (X86_PEBS_SINK_IP | X86_PEBS_SINK_WEIGHT | X86_PEBS_SINK_DATA_SRC)

static const struct dt_group groups[] = {
	/* fixed records, PEBS_FMT 1-3 */
	{ "fmt1", 1, 0, PEBS_X_LDLAT | PEBS_X_REAL_IP, PEBS_X_FMT1_SIZE, 0, 3, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 3, 0 },
	{ "fmt2", 2, 0, PEBS_X_REAL_IP, PEBS_X_FMT2_SIZE, 0, 3, 0, 0,
	  ALL_FIELDS, DT_REAL_IP, DT_W_TSX, 0, 0, 3, 0 },
	{ "fmt2-ip", 2, 0, PEBS_X_LDLAT, PEBS_X_FMT2_SIZE, 0, 3, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 3, 0 },
	{ "fmt3", 3, 0, PEBS_X_LDLAT | PEBS_X_REAL_IP, PEBS_X_FMT3_SIZE, 0, 4, 0, 0,
	  ALL_FIELDS, DT_REAL_IP, DT_W_LAT, 0, 0, 4, 0 },
	/* adaptive records (PEBS baseline), with and without meminfo */
	{ "adaptive-meminfo", 4, 1, PEBS_X_REAL_IP,
	  PEBS_X_BASIC_SIZE + PEBS_X_MEMINFO_SIZE + DT_GP_GROUP, DT_MEMINFO | DT_GROUP_GP,
	  4, 0, 0, ALL_FIELDS, DT_IP, DT_W_LAT, 0, 1, 4, 0 },
	{ "adaptive-instr-latency", 5, 1, PEBS_X_INSTR_LATENCY,
	  PEBS_X_BASIC_SIZE + PEBS_X_MEMINFO_SIZE, DT_MEMINFO, 3, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_CACHE_LAT, 0, 0, 3, 0 },
	{ "adaptive-no-meminfo", 4, 1, 0, PEBS_X_BASIC_SIZE + DT_GP_GROUP, DT_GROUP_GP,
	  3, 0, 0, ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 0, 3 },
	/* large PEBS: many records per drain */
	{ "large", 3, 0, PEBS_X_LDLAT, PEBS_X_FMT3_SIZE, 0, 48, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 48, 0 },
	{ "large-adaptive", 4, 1, 0, PEBS_X_BASIC_SIZE + PEBS_X_MEMINFO_SIZE, DT_MEMINFO,
	  40, 0, 0, ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 40, 0 },
	/* data address 0 is handed on, not dropped */
	{ "zero-addr", 3, 0, PEBS_X_LDLAT, PEBS_X_FMT3_SIZE, 0, 6, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 1, 0, 6, 0 },
	/* the last record ends exactly at the index (the threshold record) */
	{ "at-threshold", 2, 0, PEBS_X_LDLAT, PEBS_X_FMT2_SIZE, 0, 5, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 5, 0 },
	/* the last record cut short by the index: lost, not read past top */
	{ "short-last", 3, 0, PEBS_X_LDLAT, PEBS_X_FMT3_SIZE, 0, 4, 0, 100,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 3, 1 },
	/* the PMI counted more records than the buffer holds */
	{ "counted-past-top", 3, 0, PEBS_X_LDLAT, PEBS_X_FMT3_SIZE, 0, 3, 5, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 3, 2 },
	/* fields the sink did not ask for stay 0 */
	{ "fields-off", 3, 0, PEBS_X_LDLAT | PEBS_X_REAL_IP, PEBS_X_FMT3_SIZE, 0, 3, 0, 0,
	  0, DT_REAL_IP, DT_W_LAT, 0, 0, 3, 0 },
	/* no data address in the format: nothing decoded */
	{ "fmt0", 0, 0, 0, PEBS_X_FMT3_SIZE, 0, 3, 0, 0,
	  ALL_FIELDS, DT_IP, DT_W_LAT, 0, 0, 0, 3 },
};

static void dt_put(u8 *rec, unsigned int off, u64 v)
{
	memcpy(rec + off, &v, sizeof(v));
}

/* perf's data source of a precise store with these DSE bits (SDM: bit 0
 * L1D hit, bit 4 STLB miss, bit 5 locked) */
static u64 dt_store_src(u64 dse)
{
	u64 v = PERF_MEM_S(OP, STORE) | PERF_MEM_S(SNOOP, NA) |
		PERF_MEM_S(LVL, L1) | PERF_MEM_S(TLB, L2);

	v |= dse & (1u << 4) ? PERF_MEM_S(TLB, MISS) : PERF_MEM_S(TLB, HIT);
	v |= dse & 1 ? PERF_MEM_S(LVL, HIT) : PERF_MEM_S(LVL, MISS);
	if (dse & (1u << 5))
		v |= PERF_MEM_S(LOCK, LOCKED);
	return v;
}

static void dt_make(const struct dt_group *g, int gi, int i, u64 tsc0,
		    struct dt_rec *r)
{
	r->addr = 0x00007f1200000000ull + ((u64)gi << 24) + (u64)i * 0x1008;
	if (g->zero_addr && (i & 1))
		r->addr = 0;
	r->ip = 0xffffffff81000000ull + ((u64)gi << 16) + (u64)i * 0x10 + 1;
	r->real_ip = r->ip + 0x800000;
	r->lat = 100 + gi * 100 + i;
	if (g->weight == DT_W_CACHE_LAT)	/* cache latency 32..47, instr 0..15 */
		r->lat = ((u64)(300 + gi * 100 + i) << 32) | (u64)(7 + i);
	if (g->zero_lat && i == 1)
		r->lat = 0;
	/* cycles of the last TSX block in the low half, junk above */
	r->tsx = (0xdeadull << 32) | (u64)(5000 + gi * 100 + i);
	/* L1D hit, STLB miss, locked in turn; reserved bits 1..3 set too */
	r->dse = (i & 1) | (((i >> 1) & 1) << 4) | (((i >> 2) & 1) << 5) | 0xe;
	r->tsc = tsc0 - (u64)(g->n - i) * 1000;
}

static void dt_write(const struct dt_group *g, u8 *rec, const struct dt_rec *r)
{
	if (!g->adaptive) {
		dt_put(rec, PEBS_X_FIX_FLAGS, 0x202);
		dt_put(rec, PEBS_X_FIX_IP, r->ip);
		dt_put(rec, PEBS_X_FIX_STATUS, 1);
		dt_put(rec, PEBS_X_FIX_DLA, r->addr);
		dt_put(rec, PEBS_X_FIX_DSE, r->dse);
		dt_put(rec, PEBS_X_FIX_LAT, r->lat);
		if (g->size >= PEBS_X_FMT2_SIZE) {
			dt_put(rec, PEBS_X_FIX_REAL_IP, r->real_ip);
			dt_put(rec, PEBS_X_FIX_TSX, r->tsx);
		}
		if (g->size >= PEBS_X_FMT3_SIZE)
			dt_put(rec, PEBS_X_FIX_TSC, r->tsc);
		return;
	}
	dt_put(rec, PEBS_X_BASIC_HDR, ((u64)g->size << 48) | g->format_group);
	dt_put(rec, PEBS_X_BASIC_IP, r->ip);
	dt_put(rec, PEBS_X_BASIC_APPLICABLE, 1);
	dt_put(rec, PEBS_X_BASIC_TSC, r->tsc);
	if (g->format_group & DT_MEMINFO) {
		u8 *mem = rec + PEBS_X_BASIC_SIZE;

		dt_put(mem, PEBS_X_MEM_ADDRESS, r->addr);
		dt_put(mem, PEBS_X_MEM_AUX, r->dse);
		dt_put(mem, PEBS_X_MEM_LATENCY, r->lat);
		dt_put(mem, PEBS_X_MEM_TSX, r->tsx);
	}
}

static u32 dt_want_weight(const struct dt_group *g, const struct dt_rec *r)
{
	if (g->adaptive) {
		u32 w = g->weight == DT_W_CACHE_LAT ? (u32)((r->lat >> 32) & 0xffff)
						     : (u32)r->lat;

		return w ? w : (u32)r->tsx;	/* no latency: TSX cycles */
	}
	if (g->weight == DT_W_LAT)
		return (u32)r->lat;
	return g->format >= 2 ? (u32)r->tsx : 0;
}

static bool dt_has_tsc(const struct dt_group *g)
{
	return g->adaptive || g->format >= 3;
}

static void dt_run(const struct dt_group *g, int gi, struct dt_capture *c,
		   struct dt_rec *recs)
{
	struct x86_pebs_sink sink = {
		.sample = dt_sample, .lost = dt_lost, .ctx = c, .fields = g->fields,
	};
	struct pebs_x_layout layout = {
		.format = g->format, .adaptive = g->adaptive,
		.flags = g->flags, .record_size = g->size,
	};
	size_t bytes = (size_t)g->n * g->size;
	u64 t0, t1, tsc0, prev = 0;
	int tsc_flagged = 0, bad = 0, ret, got;
	u8 *buf, *top;

	buf = kzalloc(bytes, GFP_KERNEL);
	if (!buf) {
		DT_FAIL(g, "no memory for %zu bytes", bytes);
		return;
	}
	tsc0 = rdtsc();
	for (int i = 0; i < g->n; i++) {
		dt_make(g, gi, i, tsc0, &recs[i]);
		dt_write(g, buf + (size_t)i * g->size, &recs[i]);
	}
	top = buf + bytes - (g->cut ? g->size - g->cut : 0);
	memset(c, 0, sizeof(*c));
	t0 = ktime_get_mono_fast_ns();
	ret = x86_pebs_sink_selftest_drain(&sink, &layout, X86_PEBS_SELFTEST_STORE,
					   buf, top, g->count ? g->count : g->n);
	t1 = ktime_get_mono_fast_ns();
	kfree(buf);
	if (ret) {
		DT_FAIL(g, "x86_pebs_sink_selftest_drain: %d", ret);
		return;
	}
	if (c->n != g->delivered || c->lost != (u64)g->lost ||
	    c->lost_calls != (g->lost ? 1 : 0)) {
		DT_FAIL(g, "%d records, %d samples (want %d), lost %llu in %d calls (want %d in %d)",
			g->n, c->n, g->delivered, c->lost, c->lost_calls, g->lost,
			g->lost ? 1 : 0);
		return;
	}
	for (int i = 0; i < c->n; i++) {
		const struct x86_pebs_sample *s = &c->s[i];
		const struct dt_rec *r = &recs[i];
		u64 ip = g->ip == DT_REAL_IP ? r->real_ip : r->ip;
		u32 w = dt_want_weight(g, r);
		u64 src = dt_store_src(r->dse);
		bool all = g->fields == ALL_FIELDS;
		bool tsc = s->flags & X86_PEBS_SAMPLE_TSC;

		if (s->addr != r->addr || s->ip != (all ? ip : 0) ||
		    s->weight != (all ? w : 0) || s->data_src != (all ? src : 0) ||
		    !c->event[i] || c->event[i] != c->event[0] ||
		    (s->flags & ~X86_PEBS_SAMPLE_TSC) || (tsc && !dt_has_tsc(g)) ||
		    s->time > t1 || s->time < prev ||
		    (!tsc && s->time < t0) ||
		    (tsc && s->time + 10 * NSEC_PER_MSEC < t0)) {
			if (!bad++)
				DT_FAIL(g, "sample %d: addr %#llx ip %#llx weight %u src %#llx flags %#x time %llu; "
					"want addr %#llx ip %#llx weight %u src %#llx, time in [%llu, %llu]",
					i, s->addr, s->ip, s->weight, s->data_src, s->flags,
					s->time, r->addr, all ? ip : 0, all ? w : 0,
					all ? src : 0, t0, t1);
		}
		tsc_flagged += tsc;
		prev = s->time;
	}
	if (bad)
		return;
	got = c->n;
	if (!got) {
		DT_LINE("ok   pebs-drain-%s: none of %d records reached the sink, %d counted lost in one call",
			g->name, g->n, g->lost);
		return;
	}
	DT_LINE("ok   pebs-drain-%s: %d of %d records, each once in order (addr, ip, weight, data_src%s), "
		"%d lost as expected; times %s",
		g->name, got, g->n, g->fields ? "" : " 0: not asked", g->lost,
		!dt_has_tsc(g) ? "of the drain (no TSC in the format)" :
		tsc_flagged == got ? "back-dated from each record's TSC" :
		!tsc_flagged ? "of the drain (TSC not the stable sched clock here)" :
		"partly back-dated");
}

static int dt_args(void)
{
	struct x86_pebs_sink sink = { .sample = dt_sample };
	struct pebs_x_layout layout = { .format = 3, .record_size = PEBS_X_FMT3_SIZE };
	static u8 buf[PEBS_X_FMT3_SIZE];
	int a = x86_pebs_sink_selftest_drain(NULL, &layout, 0, buf, buf, 0);
	int b = x86_pebs_sink_selftest_drain(&sink, &layout, 0, buf, buf + sizeof(buf), -1);
	int d = x86_pebs_sink_selftest_drain(&sink, &layout, 99, buf, buf, 0);

	if (a != -EINVAL || b != -EINVAL || d != -EINVAL) {
		DT_LINE("FAIL pebs-drain-args: no sink %d, count -1 %d, kind 99 %d (want -EINVAL)",
			a, b, d);
		failures++;
		return -1;
	}
	DT_LINE("ok   pebs-drain-args: no sink, count -1 and an unknown kind: -EINVAL");
	return 0;
}

static int __init pebs_drain_test_init(void)
{
	struct dt_capture *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct dt_rec *recs = kcalloc(DT_RECS, sizeof(*recs), GFP_KERNEL);

	if (!c || !recs) {
		kfree(c);
		kfree(recs);
		return -ENOMEM;
	}
	dt_args();
	for (int gi = 0; gi < (int)ARRAY_SIZE(groups); gi++)
		dt_run(&groups[gi], gi, c, recs);
	DT_LINE("done: %zu groups, %d failed", ARRAY_SIZE(groups), failures);
	kfree(c);
	kfree(recs);
	return 0;
}

static void __exit pebs_drain_test_exit(void)
{
}

module_init(pebs_drain_test_init);
module_exit(pebs_drain_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PEBS sink drain on synthetic records (memtrace tests)");
