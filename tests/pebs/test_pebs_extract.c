/*
 * test_pebs_extract.c - known PEBS record bytes in, known fields out.
 *
 * The records are built here from the layouts in the Intel SDM (vol. 3B,
 * "PEBS Record Format" tables for PEBS_FMT 1..3 and "Adaptive PEBS"
 * basic/memory-info groups), written as 64-bit little-endian words at the
 * word index the SDM gives, independently of the offsets the extractor
 * uses.  The kernel build of the patch checks the extractor's offsets
 * against the kernel's own structs (static_asserts in ds.c).
 *
 * Prints "ok   NAME" or "FAIL NAME: why" per test; exits 1 on a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pebs-hook/pebs_extract.h"

static int failed, passed;

/* Word index of each field in a fixed-layout record (SDM). */
enum {
	W_FLAGS = 0, W_IP = 1, W_AX = 2, W_R15 = 17,
	W_STATUS = 18, W_DLA = 19, W_DSE = 20, W_LAT = 21,	/* fmt1 */
	W_REAL_IP = 22, W_TSX = 23,				/* fmt2 */
	W_TSC = 24,						/* fmt3 */
};

/* Adaptive: basic group words, then meminfo words. */
enum {
	B_HDR = 0, B_IP = 1, B_APPLICABLE = 2, B_TSC = 3,
	M_ADDRESS = 4, M_AUX = 5, M_LATENCY = 6, M_TSX = 7,
};

static unsigned char buf[4096] __attribute__((aligned(8)));

static void put64(unsigned int word, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		buf[word * 8 + i] = (unsigned char)(v >> (8 * i));
}

/* Fill a fixed record with noise so that a wrong offset shows. */
static void fixed_record(unsigned int words)
{
	unsigned int w;

	memset(buf, 0, sizeof(buf));
	for (w = 0; w < words; w++)
		put64(w, 0xdead000000000000ull | (uint64_t)w << 8 | w);
}

static uint64_t adaptive_hdr(uint32_t group, uint16_t retire, uint16_t size)
{
	return (uint64_t)group | (uint64_t)retire << 32 | (uint64_t)size << 48;
}

#define CHECK(name, cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL pebs-extract-%s: ", name);		\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			failed++;					\
			return;						\
		}							\
	} while (0)

#define U64(x) ((unsigned long long)(x))

static void expect(const char *name, int rc, int want_rc,
		   const struct pebs_x_fields *f, const struct pebs_x_fields *w)
{
	CHECK(name, rc == want_rc, "rc %d, want %d", rc, want_rc);
	CHECK(name, f->addr == w->addr, "addr %#llx, want %#llx",
	      U64(f->addr), U64(w->addr));
	CHECK(name, f->tsc == w->tsc, "tsc %#llx, want %#llx",
	      U64(f->tsc), U64(w->tsc));
	CHECK(name, f->ip == w->ip, "ip %#llx, want %#llx",
	      U64(f->ip), U64(w->ip));
	CHECK(name, f->aux == w->aux, "aux %#llx, want %#llx",
	      U64(f->aux), U64(w->aux));
	CHECK(name, f->status == w->status, "status %#llx, want %#llx",
	      U64(f->status), U64(w->status));
	CHECK(name, f->weight == w->weight, "weight %u, want %u",
	      f->weight, w->weight);
	CHECK(name, f->have == w->have, "have %#x, want %#x", f->have, w->have);
	printf("ok   pebs-extract-%s\n", name);
	passed++;
}

static void run(const char *name, const struct pebs_x_layout *l,
		unsigned long avail, int want_rc, const struct pebs_x_fields *w)
{
	struct pebs_x_fields f;

	memset(&f, 0xa5, sizeof(f));	/* must be cleared by the extractor */
	expect(name, pebs_x_extract(buf, avail, l, &f), want_rc, &f, w);
}

static void test_fmt1(void)
{
	struct pebs_x_layout l = { .format = 1, .record_size = 176 };
	struct pebs_x_fields w = { 0 };

	fixed_record(22);
	put64(W_IP, 0x0000000000401a2bull);
	put64(W_STATUS, 0x1);
	put64(W_DLA, 0x00007ffd12345678ull);
	put64(W_DSE, 0x0000000000000003ull);	/* L2 hit */
	put64(W_LAT, 0x0000000000000021ull);	/* 33 cycles */

	w.addr = 0x00007ffd12345678ull;
	w.ip = 0x401a2b;
	w.aux = 3;
	w.status = 1;
	w.weight = 0;		/* not a load-latency event: no weight */
	run("fmt1", &l, 176, PEBS_X_OK, &w);

	l.flags = PEBS_X_LDLAT | PEBS_X_REAL_IP;	/* fmt1 has no real_ip */
	w.weight = 33;
	run("fmt1-ldlat", &l, 176, PEBS_X_OK, &w);

	memset(&w, 0, sizeof(w));
	run("fmt1-short-buffer", &l, 175, PEBS_X_ESHORT, &w);
}

static void test_fmt2(void)
{
	struct pebs_x_layout l = { .format = 2, .record_size = 192 };
	struct pebs_x_fields w = { 0 };

	fixed_record(24);
	put64(W_IP, 0xffffffff81000010ull);		/* off-by-one IP */
	put64(W_STATUS, 0x4);
	put64(W_DLA, 0xffff888012345678ull);		/* a kernel address */
	put64(W_DSE, 0x1ull);
	put64(W_LAT, 0x1f4ull);			/* 500 cycles */
	put64(W_REAL_IP, 0xffffffff8100000cull);	/* eventing IP */
	put64(W_TSX, 0x000000ff00001234ull);	/* flags | last block cycles */

	w.addr = 0xffff888012345678ull;
	w.ip = 0xffffffff81000010ull;
	w.aux = 1;
	w.status = 4;
	w.weight = 0x1234;	/* no load latency: TSX block cycles */
	run("fmt2-ip", &l, 192, PEBS_X_OK, &w);

	l.flags = PEBS_X_LDLAT | PEBS_X_REAL_IP;
	w.ip = 0xffffffff8100000cull;
	w.weight = 500;
	run("fmt2-ldlat-real-ip", &l, 192, PEBS_X_OK, &w);

	l.record_size = 176;	/* buffer says fmt1-sized records: refuse */
	memset(&w, 0, sizeof(w));
	run("fmt2-record-size-too-small", &l, 192, PEBS_X_ESHORT, &w);
}

static void test_fmt3(void)
{
	struct pebs_x_layout l = { .format = 3, .record_size = 200,
				   .flags = PEBS_X_LDLAT | PEBS_X_REAL_IP };
	struct pebs_x_fields w = { 0 };

	fixed_record(25);
	put64(W_IP, 0x55555555a001ull);
	put64(W_STATUS, 0x2);
	put64(W_DLA, 0x7f0000001000ull);
	put64(W_DSE, 0x0cull);
	put64(W_LAT, 0x123ull);
	put64(W_REAL_IP, 0x55555555a000ull);
	put64(W_TSX, 0);
	put64(W_TSC, 0x00001234deadbeefull);

	w.addr = 0x7f0000001000ull;
	w.tsc = 0x00001234deadbeefull;
	w.ip = 0x55555555a000ull;
	w.aux = 0xc;
	w.status = 2;
	w.weight = 0x123;
	w.have = PEBS_X_HAVE_TSC;
	run("fmt3", &l, 200, PEBS_X_OK, &w);

	/* Room for fmt2 but not the TSC word. */
	memset(&w, 0, sizeof(w));
	run("fmt3-short-buffer", &l, 192, PEBS_X_ESHORT, &w);
}

static void test_fixed_formats_refused(void)
{
	struct pebs_x_layout l = { .format = 0, .record_size = 144 };
	struct pebs_x_fields w = { 0 };

	fixed_record(25);
	run("fmt0-no-address", &l, 200, PEBS_X_EFORMAT, &w);
	l.format = 4;		/* fmt4 without baseline: basic record only */
	l.record_size = 200;
	run("fmt4-not-adaptive", &l, 200, PEBS_X_EFORMAT, &w);
}

/* A walk over a buffer of fmt3 records, as the drain does. */
static void test_fmt3_buffer(void)
{
	struct pebs_x_layout l = { .format = 3, .record_size = 200 };
	unsigned int i, n = 5;
	unsigned char *top;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < n; i++) {
		put64(i * 25 + W_IP, 0x400000 + i);
		put64(i * 25 + W_DLA, 0x10000000ull + 64 * i);
		put64(i * 25 + W_TSC, 1000000 + 10 * i);
		put64(i * 25 + W_TSX, i);
	}
	top = buf + n * 200;
	for (i = 0; i < n; i++) {
		unsigned char *at = buf + i * 200;
		struct pebs_x_fields f;
		int rc = pebs_x_extract(at, (unsigned long)(top - at), &l, &f);

		CHECK("fmt3-buffer-walk", rc == PEBS_X_OK, "record %u rc %d", i, rc);
		CHECK("fmt3-buffer-walk", f.addr == 0x10000000ull + 64 * i &&
		      f.tsc == 1000000 + 10 * i && f.ip == 0x400000 + i &&
		      f.weight == i,
		      "record %u: addr %#llx tsc %llu ip %#llx weight %u", i,
		      U64(f.addr), U64(f.tsc), U64(f.ip), f.weight);
	}
	printf("ok   pebs-extract-fmt3-buffer-walk\n");
	passed++;
}

static void adaptive_record(uint32_t group, uint16_t size)
{
	unsigned int w;

	memset(buf, 0, sizeof(buf));
	for (w = 0; w < size / 8; w++)
		put64(w, 0xbeef000000000000ull | (uint64_t)w << 8 | w);
	put64(B_HDR, adaptive_hdr(group, 0x77, size));
	put64(B_IP, 0xffffffffc0de0000ull);
	put64(B_APPLICABLE, 0x100000001ull);	/* GP0 and fixed 0 */
	put64(B_TSC, 0x0000abcdef012345ull);
}

static void test_adaptive(void)
{
	struct pebs_x_layout l = { .format = 4, .adaptive = 1,
				   .record_size = 64 };
	struct pebs_x_fields w = { 0 };

	/* basic + meminfo, Ice Lake style latency word */
	adaptive_record(0x1, 64);
	put64(M_ADDRESS, 0x00007f1234567000ull);
	put64(M_AUX, 0x0000000000000081ull);
	put64(M_LATENCY, 0x0000000100000005ull);	/* low 32 bits: 5 */
	put64(M_TSX, 0x0000000000000099ull);

	w.addr = 0x00007f1234567000ull;
	w.tsc = 0x0000abcdef012345ull;
	w.ip = 0xffffffffc0de0000ull;
	w.aux = 0x81;
	w.status = 0x100000001ull;
	w.weight = 5;
	w.have = PEBS_X_HAVE_TSC;
	run("adaptive-fmt4-meminfo", &l, 64, PEBS_X_OK, &w);

	/* No load latency: the TSX block cycles are the weight. */
	put64(M_LATENCY, 0);
	w.weight = 0x99;
	run("adaptive-fmt4-tsx-weight", &l, 64, PEBS_X_OK, &w);

	/* Alder Lake+: instr latency bits 0..15, cache latency 32..47 */
	l.format = 5;
	l.flags = PEBS_X_INSTR_LATENCY;
	put64(M_LATENCY, 0x1234022200000011ull);
	w.weight = 0x222;
	run("adaptive-fmt5-instr-latency", &l, 64, PEBS_X_OK, &w);

	/* meminfo + GP groups: meminfo still right after basic */
	l.record_size = 64 + 144;
	adaptive_record(0x3, 64 + 144);
	put64(M_ADDRESS, 0x1000);
	put64(M_AUX, 0x2);
	put64(M_LATENCY, 0x0000000300000007ull);	/* cache latency 3 */
	put64(M_TSX, 0);
	w.addr = 0x1000;
	w.aux = 2;
	w.weight = 3;
	run("adaptive-fmt5-meminfo-gp", &l, 64 + 144, PEBS_X_OK, &w);

	/* record says 208 bytes, only 200 left in the buffer */
	memset(&w, 0, sizeof(w));
	run("adaptive-size-past-top", &l, 200, PEBS_X_ESHORT, &w);

	/* GP group only: no address; ip/tsc still decoded */
	l.flags = 0;
	l.record_size = 32 + 144;
	adaptive_record(0x2, 32 + 144);
	w.ip = 0xffffffffc0de0000ull;
	w.tsc = 0x0000abcdef012345ull;
	w.status = 0x100000001ull;
	w.have = PEBS_X_HAVE_TSC;
	run("adaptive-no-meminfo", &l, 32 + 144, PEBS_X_ENOADDR, &w);

	/* meminfo bit set but the record is too small to hold it */
	adaptive_record(0x1, 40);
	run("adaptive-meminfo-truncated", &l, 64, PEBS_X_ESHORT, &w);

	/* nonsense size smaller than the basic group */
	memset(&w, 0, sizeof(w));
	adaptive_record(0x1, 16);
	run("adaptive-size-below-basic", &l, 64, PEBS_X_ESHORT, &w);

	/* adaptive flag with a fixed-layout format */
	l.format = 3;
	adaptive_record(0x1, 64);
	run("adaptive-flag-with-fmt3", &l, 64, PEBS_X_EFORMAT, &w);
}

int main(void)
{
	test_fmt1();
	test_fmt2();
	test_fmt3();
	test_fixed_formats_refused();
	test_fmt3_buffer();
	test_adaptive();
	return failed ? 1 : 0;
}
