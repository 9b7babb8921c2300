/* test_alloc_sites.c - allocation sites on synthetic ALLOCS events and
 * samples: the block live at an address and time (reuse after free,
 * realloc, munmap, a missed free, other processes), the ALLOCS codec, and
 * memtrace_sites_compute's per-site numbers, exact values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/alloc_attr.h"
#include "memtrace/sites.h"
#include "test.h"
#include "trace/allocs.h"
#include "trace/format.h"
#include "trace/writer.h"

#define START 1000
#define HEAP 0x10000000ull
#define JIT 0x30000000ull
#define MAP 0x40000000ull

static const char maps[] =
	"10000000-10004000 rw-p 00000000 00:00 0 [heap]\n"
	"30000000-30001000 r-xp 00000000 00:00 0 [anon:jit]\n"
	"40000000-40004000 rw-p 00000000 00:00 0 \n";

#define EV(t, k, a, s, o, c, w) { .time = START + (t), .kind = ALLOC_KIND_##k, .addr = (a), \
	.size = (s), .old_addr = (o), .caller = (c), .weight = (w), .pid = 7, .tid = 7, \
	.stack = ALLOC_NO_STACK }

/* S1 = caller JIT+0x10 (a heap block, then an mmap), S2 = +0x20 (sampled,
 * weight 4), S3 = +0x30 (reuses S1's freed address), S4 = +0x40 (realloc
 * of S2's block), S5 = +0x50 (overlaps S3's block: S3's free was missed). */
static const struct trace_alloc events[] = {
	EV(10, ALLOC, HEAP, 0x2000, 0, JIT + 0x10, 1),
	EV(20, ALLOC, HEAP + 0x2000, 0x100, 0, JIT + 0x20, 4),
	EV(30, FREE, HEAP, 0x2000, 0, 0, 1),
	EV(40, ALLOC, HEAP, 0x1000, 0, JIT + 0x30, 1),
	EV(50, REALLOC, HEAP + 0x3000, 0x800, HEAP + 0x2000, JIT + 0x40, 1),
	EV(60, MMAP, MAP, 0x4000, 0, JIT + 0x10, 1),
	EV(70, MUNMAP, MAP + 0x1000, 0x1000, 0, 0, 1),
	EV(80, ALLOC, HEAP + 0x100, 0x10, 0, JIT + 0x50, 1),
};
#define NEV (sizeof(events) / sizeof(events[0]))

struct probe {
	uint64_t t, addr;
	uint32_t pid;
	long block;	/* expected, -1: none */
};

/* blocks in the order made: 0 S1 heap, 1 S2, 2 S3, 3 S4, 4 S1 mmap, 5 S5 */
static const struct probe probes[] = {
	{ 15, HEAP + 0x1800, 7, 0 }, { 25, HEAP + 0x2010, 7, 1 }, { 25, HEAP + 0x10, 7, 0 },
	{ 35, HEAP + 0x10, 7, -1 }, { 45, HEAP + 0x10, 7, 2 }, { 45, HEAP + 0x10, 8, -1 },
	{ 45, HEAP + 0x1800, 7, -1 }, { 55, HEAP + 0x2010, 7, -1 }, { 55, HEAP + 0x3010, 7, 3 },
	{ 65, MAP + 0x3000, 7, 4 }, { 75, MAP, 7, -1 }, { 85, HEAP + 0x104, 7, 5 },
	{ 85, HEAP + 0x200, 7, -1 },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

TEST(block_live_at_address_and_time)
{
	struct alloc_attr a;
	size_t next = 0;

	alloc_attr_init(&a);
	for (size_t i = 0; i < NPROBES; i++) {
		while (next < NEV && events[next].time <= START + probes[i].t)
			alloc_attr_event(&a, &events[next++]);
		long b = alloc_attr_lookup(&a, probes[i].pid, probes[i].addr);
		if (b != probes[i].block)
			TEST_FAIL("probe %zu (t %llu, %#llx): block %ld, want %ld", i,
				  (unsigned long long)probes[i].t, (unsigned long long)probes[i].addr,
				  b, probes[i].block);
	}
	CHECK_EQ_U64(a.nblocks, 6);
	/* lifetimes: freed, realloc'd, munmapped (whole block), overlapped, live */
	CHECK_EQ_U64(a.blocks[0].t1, START + 30);
	CHECK_EQ_U64(a.blocks[1].t1, START + 50);
	CHECK_EQ_U64(a.blocks[2].t1, START + 80);
	CHECK_EQ_U64(a.blocks[3].t1, ALLOC_LIVE);
	CHECK_EQ_U64(a.blocks[4].t1, START + 70);
	CHECK_EQ_U64(a.blocks[5].t1, ALLOC_LIVE);
	CHECK_EQ_U64(a.blocks[5].end, HEAP + 0x110);
	alloc_attr_free(&a);
}

TEST(many_blocks_reused)
{
	/* 20000 blocks at 1000 addresses, each address reused 20 times:
	 * a lookup between two uses finds the block of that use */
	struct alloc_attr a;

	alloc_attr_init(&a);
	for (uint64_t r = 0; r < 20; r++)
		for (uint64_t i = 0; i < 1000; i++) {
			uint64_t addr = HEAP + i * 64;
			struct trace_alloc e = { .time = r * 10, .kind = ALLOC_KIND_ALLOC, .addr = addr,
						 .size = 48, .weight = 1, .pid = 7 };
			if (r) {
				struct trace_alloc f = e;
				f.kind = ALLOC_KIND_FREE;
				alloc_attr_event(&a, &f);
			}
			alloc_attr_event(&a, &e);
			CHECK(alloc_attr_lookup(&a, 7, addr + 47) == (long)(r * 1000 + i));
			CHECK(alloc_attr_lookup(&a, 7, addr + 48) == -1);
		}
	CHECK_EQ_U64(a.nblocks, 20000);
	alloc_attr_free(&a);
}

TEST(sort_is_stable)
{
	struct trace_alloc v[5] = {
		{ .time = 3, .addr = 1 }, { .time = 1, .addr = 2 }, { .time = 3, .addr = 3 },
		{ .time = 1, .addr = 4 }, { .time = 2, .addr = 5 },
	};
	alloc_attr_sort(v, 5);
	const uint64_t want[5] = { 2, 4, 5, 1, 3 };
	for (int i = 0; i < 5; i++)
		CHECK_EQ_U64(v[i].addr, want[i]);
}

static void collect(void *ctx, const struct trace_alloc *a)
{
	struct trace_alloc *out = ctx;

	out[out[0].pid == 0 ? 0 : 1] = *a;
}

TEST(allocs_codec)
{
	struct bytebuf recs = { 0 }, st = { 0 }, chunk = { 0 };
	uint64_t ips[3] = { 1, JIT + 0x10, JIT + 0x60 };
	struct trace_alloc out[2] = { { 0 } };
	char err[128];

	trace_alloc_put(&recs, &events[1]);
	trace_alloc_put(&recs, &events[4]);
	trace_alloc_stack_put(&st, 42, ips, 3);
	trace_allocs_payload(&chunk, &recs, 2, &st, 1);
	CHECK_EQ_U64(chunk.len, ALLOCS_HDR_SIZE + 2 * ALLOC_REC_SIZE + ALLOC_STACK_HDR_SIZE + 24);
	CHECK(!trace_allocs_decode(chunk.data, chunk.len, collect, NULL, out, err, sizeof(err)));
	CHECK(!memcmp(&out[0], &events[1], offsetof(struct trace_alloc, kind)));
	CHECK_EQ_U64(out[1].old_addr, HEAP + 0x2000);
	CHECK_EQ_U64(out[1].kind, ALLOC_KIND_REALLOC);
	CHECK(out[0].weight == 4.0);
	/* cut anywhere: an error, never a read past the end */
	for (size_t n = 0; n < chunk.len; n++)
		CHECK(trace_allocs_decode(chunk.data, n, NULL, NULL, NULL, err, sizeof(err)) == -1);
	bytebuf_free(&recs);
	bytebuf_free(&st);
	bytebuf_free(&chunk);
}

static const struct memtrace_sample samples[] = {
	{ .time = START + 15, .addr = HEAP + 0x1800, .pid = 7, .tid = 7 },
	{ .time = START + 25, .addr = HEAP + 0x2010, .pid = 7, .tid = 7 },
	{ .time = START + 25, .addr = HEAP + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 35, .addr = HEAP + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 45, .addr = HEAP + 0x10, .pid = 7, .tid = 7 },
	{ .time = START + 45, .addr = HEAP + 0x10, .pid = 8, .tid = 8 },
	{ .time = START + 45, .addr = HEAP + 0x1800, .pid = 7, .tid = 7 },
	{ .time = START + 55, .addr = HEAP + 0x2010, .pid = 7, .tid = 7 },
	{ .time = START + 55, .addr = HEAP + 0x3010, .pid = 7, .tid = 7 },
	{ .time = START + 65, .addr = MAP + 0x3000, .pid = 7, .tid = 7 },
	{ .time = START + 75, .addr = MAP, .pid = 7, .tid = 7 },
	{ .time = START + 85, .addr = HEAP + 0x104, .pid = 7, .tid = 7 },
	{ .time = START + 85, .addr = HEAP + 0x200, .pid = 7, .tid = 7 },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

/* The events in two ALLOCS chunks, the second before the samples' end
 * and out of order with them (the recorder writes them at its ticks). */
static const char *make_trace(void)
{
	static char path[64];
	static const char meta[] = "time_unit=insn\nstart_time=1000\nbucket_default=4096\n"
				   "target_pid=7\nsource=test\nalloc_sample_bytes=1024\n"
				   "alloc_large_bytes=8192\n";
	unsigned char mb[16 + sizeof(maps)] = { 0 };
	struct bytebuf recs = { 0 }, st = { 0 }, c1 = { 0 }, c2 = { 0 };
	uint64_t ips[3] = { 1, JIT + 0x10, JIT + 0x60 };

	snprintf(path, sizeof(path), "/tmp/test_alloc_sites.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path);
	if (!w)
		return NULL;
	put_le64(mb, START);
	put_le32(mb + 8, 7);
	memcpy(mb + 16, maps, sizeof(maps) - 1);
	for (size_t i = 0; i < 5; i++) {
		struct trace_alloc e = events[i];
		if (i == 0)
			e.stack = 42;	/* frames: entry, the caller, its caller */
		trace_alloc_put(&recs, &e);
	}
	trace_alloc_stack_put(&st, 42, ips, 3);
	trace_allocs_payload(&c1, &recs, 5, &st, 1);
	recs.len = st.len = 0;
	for (size_t i = 5; i < NEV; i++)
		trace_alloc_put(&recs, &events[i]);
	trace_allocs_payload(&c2, &recs, (uint32_t)(NEV - 5), &st, 0);
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= trace_write_chunk(w, CHUNK_MAPS, CODEC_STORED, mb, 16 + sizeof(maps) - 1, 3);
	bad |= trace_write_samples(w, samples, 3, COLS_REQUIRED);
	bad |= trace_write_chunk(w, CHUNK_ALLOCS, CODEC_ZSTD, c2.data, c2.len, NEV - 5);
	bad |= trace_write_samples(w, samples + 3, NSAMPLES - 3, COLS_REQUIRED);
	bad |= trace_write_chunk(w, CHUNK_ALLOCS, CODEC_ZSTD, c1.data, c1.len, 5);
	bad |= trace_writer_close(w);
	bytebuf_free(&recs);
	bytebuf_free(&st);
	bytebuf_free(&c1);
	bytebuf_free(&c2);
	return bad ? NULL : path;
}

TEST(sites_numbers)
{
	char err[256] = "";
	const char *path = make_trace();
	struct memtrace_report_config cfg = { 0 };

	CHECK(path != NULL);
	struct memtrace_sites *s = path ? memtrace_sites_compute(path, &cfg, err, sizeof(err)) : NULL;
	if (!s) {
		TEST_FAIL("sites: %s", err);
		return;
	}
	CHECK_EQ_U64(s->samples, NSAMPLES);
	CHECK_EQ_U64(s->attributed, 7);
	CHECK_EQ_U64(s->events, NEV);
	CHECK_EQ_U64(s->sample_bytes, 1024);
	CHECK_EQ_U64(s->large_bytes, 8192);
	CHECK_EQ_U64(s->n, 5);
	CHECK_EQ_U64(s->nblocks, 6);
	/* most samples first, then most bytes: S1, S3, S4, S2, S5 */
	static const char *const names[5] = {
		"[anon:jit]+0xf", "[anon:jit]+0x2f", "[anon:jit]+0x3f", "[anon:jit]+0x1f",
		"[anon:jit]+0x4f",
	};
	static const uint64_t samples_of[5] = { 3, 1, 1, 1, 1 }, buckets_of[5] = { 3, 1, 1, 1, 1 };
	static const uint64_t blocks[5] = { 2, 1, 1, 1, 1 }, live[5] = { 0, 0, 1, 0, 1 };
	static const double bytes[5] = { 0x6000, 0x1000, 0x800, 0x400, 0x10 };
	static const double est[5] = { 2, 1, 1, 4, 1 }, life[5] = { 15, 40, 0, 30, 0 };
	for (size_t i = 0; i < 5 && i < s->n; i++) {
		const struct memtrace_site *x = &s->sites[i];
		CHECK_STR(x->name, names[i]);
		CHECK_EQ_U64(x->samples, samples_of[i]);
		CHECK_EQ_U64(x->buckets, buckets_of[i]);
		CHECK_EQ_U64(x->blocks, blocks[i]);
		CHECK_EQ_U64(x->live, live[i]);
		CHECK(x->bytes == bytes[i]);
		CHECK(x->est_blocks == est[i]);
		CHECK(x->mean_lifetime == life[i]);
		CHECK(fabs(x->hot_share - (double)samples_of[i] / NSAMPLES) < 1e-12);
	}
	/* heatmap blocks: keys (the target's addresses), times, sites */
	CHECK_EQ_U64(s->blocks[4].key_start, MAP);
	CHECK_EQ_U64(s->blocks[4].key_end, MAP + 0x4000);
	CHECK_EQ_U64(s->blocks[4].t0, START + 60);
	CHECK_EQ_U64(s->blocks[4].t1, START + 70);
	CHECK_EQ_U64(s->blocks[4].site, 0);
	CHECK_EQ_U64(s->blocks[3].t1, UINT64_MAX);
	/* a bucket's site: the one with most samples there */
	uint64_t n = 0;
	CHECK(memtrace_sites_of_bucket(s, HEAP + 0x1000, &n) == 0);
	CHECK_EQ_U64(n, 1);
	CHECK(memtrace_sites_of_bucket(s, HEAP + 0x3fff, &n) == 2);
	CHECK(memtrace_sites_of_bucket(s, 0x50000000, &n) == -1);
	memtrace_sites_free(s);
	/* a filter: pid 7, from time 40 on */
	cfg.filter.pid = 7;
	cfg.filter.time_from = 40;
	s = memtrace_sites_compute(path, &cfg, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->samples, 8);
		CHECK_EQ_U64(s->attributed, 4);
		memtrace_sites_free(s);
	}
	/* nothing charged (no sample after 85): no bucket has a site */
	cfg.filter.time_from = 86;
	s = memtrace_sites_compute(path, &cfg, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->samples, 0);
		CHECK_EQ_U64(s->attributed, 0);
		CHECK(memtrace_sites_of_bucket(s, HEAP, &n) == -1);
		CHECK_EQ_U64(n, 0);
		memtrace_sites_free(s);
	}
	unlink(path);
}

TEST(trace_without_allocs)
{
	char err[256] = "", path[64];
	static const char meta[] = "time_unit=insn\nstart_time=1000\n";

	snprintf(path, sizeof(path), "/tmp/test_alloc_none.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path);
	CHECK(w != NULL);
	if (!w)
		return;
	trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	trace_write_samples(w, samples, 3, COLS_REQUIRED);
	CHECK(!trace_writer_close(w));
	CHECK(memtrace_sites_compute(path, NULL, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "no allocation records (record it with --allocs)") != NULL);
	unlink(path);
}

TEST(frees_only)
{
	/* a recording that saw only frees (blocks from before it): no site */
	char err[256] = "", path[64];
	static const char meta[] = "time_unit=insn\nstart_time=1000\n";
	struct bytebuf recs = { 0 }, none = { 0 }, chunk = { 0 };

	snprintf(path, sizeof(path), "/tmp/test_alloc_frees.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(path);
	CHECK(w != NULL);
	if (!w)
		return;
	trace_alloc_put(&recs, &events[2]);
	trace_allocs_payload(&chunk, &recs, 1, &none, 0);
	trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	trace_write_chunk(w, CHUNK_ALLOCS, CODEC_STORED, chunk.data, chunk.len, 1);
	trace_write_samples(w, samples, 3, COLS_REQUIRED);
	CHECK(!trace_writer_close(w));
	struct memtrace_sites *s = memtrace_sites_compute(path, NULL, err, sizeof(err));
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->n, 0);
		CHECK_EQ_U64(s->nblocks, 0);
		CHECK_EQ_U64(s->samples, 3);
		CHECK_EQ_U64(s->attributed, 0);
		memtrace_sites_free(s);
	}
	bytebuf_free(&recs);
	bytebuf_free(&chunk);
	unlink(path);
}

int main(void)
{
	return test_main();
}
