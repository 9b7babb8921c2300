/* test_layout.c - resolver_layout(): newest snapshot wins per address, a
 * mapping replaced by a smaller one keeps the uncovered rest. */
#include <stdlib.h>
#include <string.h>

#include "resolve/layout.h"
#include "resolve/resolve.h"
#include "test.h"

static void add(struct resolver *r, uint64_t t, uint32_t pid, const char *s)
{
	resolver_add_maps(r, t, pid, s, strlen(s));
}

#define RANGE(v, k, s, e, nm, pm, off)                 \
	do {                                           \
		CHECK_EQ_U64((v)[k].start, (s));       \
		CHECK_EQ_U64((v)[k].end, (e));         \
		CHECK_STR((v)[k].name, (nm));          \
		CHECK_STR((v)[k].perms, (pm));         \
		CHECK_EQ_U64((v)[k].offset, (off));    \
	} while (0)

/* The regression: snapshot 1 maps [0x1000,0x3000) anon, snapshot 2 maps a
 * file at [0x1000,0x2000) only; [0x2000,0x3000) stays the anon mapping. */
TEST(replaced_by_smaller)
{
	struct resolver *r = resolver_new();
	const struct memtrace_range *v;

	add(r, 10, 7, "1000-3000 rw-p 00000000 00:00 0\n");
	add(r, 20, 7, "1000-2000 r--p 00004000 08:01 12 /nonexistent/libx.so\n");
	size_t n = resolver_layout(r, 7, &v);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		RANGE(v, 0, 0x1000, 0x2000, "libx.so", "r--p", 0x4000);
		CHECK_STR(v[0].path, "/nonexistent/libx.so");
		RANGE(v, 1, 0x2000, 0x3000, "[anon]", "rw-p", 0);
		CHECK_STR(v[1].path, "");
	}
	/* pid 0: the pid with most snapshots */
	const struct memtrace_range *v0;
	add(r, 5, 9, "9000-a000 rw-p 00000000 00:00 0 [heap]\n");
	CHECK_EQ_U64(resolver_layout(r, 0, &v0), 2);
	CHECK_EQ_U64(v0[0].start, 0x1000);
	CHECK_EQ_U64(resolver_layout(r, 9, &v0), 1);
	RANGE(v0, 0, 0x9000, 0xa000, "[heap]", "rw-p", 0);
	CHECK_EQ_U64(resolver_layout(r, 1234, &v0), 0);
	resolver_free(r);
}

/* Newer snapshots win where they map; older ones fill holes, split around
 * newer mappings; file offsets of pieces count from the piece start. */
TEST(newest_wins_and_fills)
{
	struct resolver *r = resolver_new();
	const struct memtrace_range *v;

	add(r, 30, 1,
	    "4000-5000 rw-p 00000000 00:00 0 [heap]\n"
	    "8000-9000 rw-s 00000000 00:05 3 /dev/shm/a\n");
	add(r, 10, 1,
	    "1000-a000 r-xp 00010000 08:01 5 /x/big\n"
	    "c000-d000 rw-p 00000000 00:00 0 [stack]\n");
	add(r, 20, 1, "6000-7000 ---p 00000000 00:00 0\n");
	size_t n = resolver_layout(r, 1, &v);
	CHECK_EQ_U64(n, 8);
	if (n == 8) {
		RANGE(v, 0, 0x1000, 0x4000, "big", "r-xp", 0x10000);
		RANGE(v, 1, 0x4000, 0x5000, "[heap]", "rw-p", 0);
		RANGE(v, 2, 0x5000, 0x6000, "big", "r-xp", 0x14000);
		RANGE(v, 3, 0x6000, 0x7000, "[anon]", "---p", 0);
		RANGE(v, 4, 0x7000, 0x8000, "big", "r-xp", 0x16000);
		RANGE(v, 5, 0x8000, 0x9000, "a", "rw-s", 0);
		RANGE(v, 6, 0x9000, 0xa000, "big", "r-xp", 0x18000);
		RANGE(v, 7, 0xc000, 0xd000, "[stack]", "rw-p", 0);
	}
	/* the cache is dropped by a new snapshot */
	add(r, 40, 1, "0-2000 rw-p 00000000 00:00 0\n");
	n = resolver_layout(r, 1, &v);
	CHECK_EQ_U64(n, 9);
	if (n == 9) {
		RANGE(v, 0, 0x0, 0x2000, "[anon]", "rw-p", 0);
		RANGE(v, 1, 0x2000, 0x4000, "big", "r-xp", 0x11000);
	}
	resolver_free(r);
}

/* The pure builder: overlapping lines of one damaged snapshot are clipped. */
TEST(build_clips_overlap)
{
	struct mt_maps a;
	const char *t = "1000-3000 rw-p 00000000 00:00 0\n"
			"2000-4000 r--p 00000000 00:00 0\n";
	mt_maps_parse(&a, t, strlen(t));
	const struct mt_maps *snaps[1] = { &a };
	struct mt_layout_piece *p;
	size_t n = mt_layout_build(snaps, 1, &p);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_EQ_U64(p[0].start, 0x1000);
		CHECK_EQ_U64(p[0].end, 0x3000);
		CHECK_EQ_U64(p[1].start, 0x3000);
		CHECK_EQ_U64(p[1].end, 0x4000);
		CHECK(p[1].map == &a.v[1]);
	}
	free(p);
	mt_maps_destroy(&a);
	CHECK_EQ_U64(mt_layout_build(snaps, 0, &p), 0);
	CHECK(p == NULL);
}

int main(void)
{
	return test_main();
}
