/* test_bufreq_layout.c - the block layout of -e buffer-requests traces
 * (source/bufreq/bufreq_layout.h): addresses from the formula written out
 * here, segments in first-asked order, PostgreSQL's data-file names, and
 * maps lines that name each segment. */
#include <stdlib.h>

#include "test.h"
#include "source/bufreq/bufreq_layout.h"

#define GIB (1ull << 30)

TEST(bufreq_addresses)
{
	struct bufreq_layout l = { 0 };

	/* segment 1: rel 16404's main fork, blocks 0..131071 */
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 0), 1 * GIB);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 290), 1 * GIB + 290 * 8192ull);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 131071), 1 * GIB + 131071 * 8192ull);
	/* block 131072 is the second data file (16404.1): a new segment */
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 131072), 2 * GIB);
	/* another fork, database, tablespace: each its own segment */
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 2, 3), 3 * GIB + 3 * 8192ull);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 1, 16404, 0, 0), 4 * GIB);
	CHECK_EQ_U64(bufreq_addr(&l, 1664, 0, 1262, 0, 1), 5 * GIB + 8192);
	/* known ones keep their place */
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 7), 1 * GIB + 7 * 8192ull);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 0, 131073), 2 * GIB + 8192);
	CHECK_EQ_U64(l.n, 5);
	/* many segments: the table grows, every address stays below 2^48 */
	for (uint32_t r = 0; r < 5000; r++)
		CHECK(bufreq_addr(&l, 1663, 5, 20000 + r, 0, 4000000000u) < (1ull << 48));
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 16404, 2, 3), 3 * GIB + 3 * 8192ull);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 20000, 0, 4000000000u),
		     6 * GIB + (4000000000ull % 131072) * 8192);
	bufreq_layout_free(&l);
}

TEST(bufreq_full)
{
	struct bufreq_layout l = { 0 };

	for (uint32_t i = 0; i < BUFREQ_MAX_SEGS; i++)
		if (!bufreq_addr(&l, 1663, 5, i, 0, 0)) {
			TEST_FAIL("segment %u refused", i);
			break;
		}
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 5, 0, 0, 5), 1 * GIB + 5 * 8192ull);
	CHECK_EQ_U64(bufreq_addr(&l, 1663, 6, 0, 0, 0), 0);	/* one more: refused */
	CHECK(bufreq_addr(&l, 1663, 5, BUFREQ_MAX_SEGS - 1, 0, 0) < (1ull << 48));
	bufreq_layout_free(&l);
}

TEST(bufreq_relpaths)
{
	char b[256];
	struct bufreq_seg s = { 1663, 5, 16404, 0, 0 };

	bufreq_relpath(&s, NULL, b, sizeof(b));
	CHECK(!strcmp(b, "base/5/16404"));
	s.seg = 3;
	s.fork = 1;
	bufreq_relpath(&s, NULL, b, sizeof(b));
	CHECK(!strcmp(b, "base/5/16404_fsm.3"));
	s = (struct bufreq_seg){ 1664, 0, 1262, 2, 0 };
	bufreq_relpath(&s, NULL, b, sizeof(b));
	CHECK(!strcmp(b, "global/1262_vm"));
	s = (struct bufreq_seg){ 16390, 5, 16400, 3, 1 };
	bufreq_relpath(&s, "/nonexistent", b, sizeof(b));
	CHECK(!strcmp(b, "pg_tblspc/16390/5/16400_init.1"));
}

TEST(bufreq_maps)
{
	struct bufreq_layout l = { 0 };
	size_t len;

	bufreq_addr(&l, 1663, 5, 16404, 0, 131072 * 2 + 9);
	bufreq_addr(&l, 1664, 0, 1262, 0, 0);
	char *t = bufreq_maps_text(&l, "/srv/pg", &len);
	CHECK(!strcmp(t, "40000000-80000000 rw-s 00000000 00:00 0 /srv/pg/base/5/16404.2\n"
			 "80000000-c0000000 rw-s 00000000 00:00 0 /srv/pg/global/1262\n"));
	CHECK_EQ_U64(len, strlen(t));
	CHECK_EQ_U64(l.written, 2);
	free(t);
	t = bufreq_maps_text(&l, NULL, &len);
	CHECK(!strncmp(t, "40000000-80000000 rw-s 00000000 00:00 0 base/5/16404.2\n", 55));
	free(t);
	bufreq_layout_free(&l);
}

int main(void)
{
	return test_main();
}
