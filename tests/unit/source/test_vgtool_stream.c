/* test_vgtool_stream.c - the reader of the memtrace Valgrind tool's stream:
 * exact samples, counts, input split at every position, malformed streams. */
#include "test.h"

#include <stdlib.h>

#include "source/valgrind/vgtool_stream.h"

struct stream {
	unsigned char buf[4096];
	size_t len;
};

static void put(struct stream *st, uint32_t type, const void *p, uint32_t bytes)
{
	struct mt_vg_header h = { type, bytes };

	memcpy(st->buf + st->len, &h, sizeof(h));
	memcpy(st->buf + st->len + sizeof(h), p, bytes);
	st->len += sizeof(h) + bytes;
}

/* HELLO, 3 accesses, an allocation with 2 frames, a free, 1 access, END. */
static void build(struct stream *st)
{
	struct mt_vg_hello hello = { MT_VG_MAGIC, MT_VG_VERSION, 4242, 1, 7, 5 };
	struct mt_vg_access acc[3] = {
		{ 1, 0x1000, 0x400000, 4242, 8, MT_VG_OP_LOAD, 0 },
		{ 2, 0x2000, 0x400004, 4243, 4, MT_VG_OP_STORE, 0 },
		{ 2, 0x2008, 0x400004, 4243, 4, MT_VG_OP_LOAD | MT_VG_OP_STORE, 0 },
	};
	unsigned char alloc[sizeof(struct mt_vg_alloc) + 16];
	struct mt_vg_alloc a = { 3, 0x5000, 100, 4242, MT_VG_MALLOC, 2 };
	uint64_t frames[2] = { 0x4800000, 0x401000 };
	struct mt_vg_free f = { 4, 0x5000, 4242, 0 };
	struct mt_vg_end end = { 10, 4, 4, 1, 1, 0 };

	memcpy(alloc, &a, sizeof(a));
	memcpy(alloc + sizeof(a), frames, sizeof(frames));
	st->len = 0;
	put(st, MT_VG_HELLO, &hello, sizeof(hello));
	put(st, MT_VG_ACCESSES, acc, sizeof(acc));
	put(st, MT_VG_ALLOC, alloc, sizeof(alloc));
	put(st, MT_VG_FREE, &f, sizeof(f));
	acc[0].time = 9;
	put(st, MT_VG_ACCESSES, acc, sizeof(acc[0]));
	put(st, MT_VG_END, &end, sizeof(end));
}

struct got {
	struct memtrace_sample s[16];
	size_t n;
	int calls;
};

static int collect(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct got *g = ctx;

	for (size_t i = 0; i < n && g->n < 16; i++)
		g->s[g->n++] = s[i];
	g->calls++;
	return 0;
}

static void check_result(const struct vgtool_parser *p, const struct got *g)
{
	CHECK(p->hello && p->ended && !p->error[0]);
	CHECK_EQ_U64(p->pid, 4242);
	CHECK_EQ_U64(p->samples, 4);
	CHECK_EQ_U64(p->allocs, 1);
	CHECK_EQ_U64(p->frees, 1);
	CHECK_EQ_U64(p->first_addr, 0x1000);
	CHECK_EQ_U64(p->time, 9);
	CHECK_EQ_U64(p->end.insns, 10);
	CHECK_EQ_U64(p->head.period, 7);
	CHECK_EQ_U64(g->n, 4);
	CHECK_EQ_U64(g->s[0].time, 1);
	CHECK_EQ_U64(g->s[0].addr, 0x1000);
	CHECK_EQ_U64(g->s[0].ip, 0x400000);
	CHECK_EQ_U64(g->s[0].pid, 4242);
	CHECK_EQ_U64(g->s[0].tid, 4242);
	CHECK_EQ_U64(g->s[0].data_src, 0x2);
	CHECK_EQ_U64(g->s[1].tid, 4243);
	CHECK_EQ_U64(g->s[1].data_src, 0x4);
	CHECK_EQ_U64(g->s[2].data_src, 0x6);
	CHECK_EQ_U64(g->s[2].addr, 0x2008);
	CHECK_EQ_U64(g->s[3].time, 9);
	CHECK_EQ_U64(g->s[3].cpu + g->s[3].weight, 0);
}

TEST(vgtool_whole_stream)
{
	static struct vgtool_parser p;
	struct stream st;
	struct got g = { .n = 0 };

	build(&st);
	vgtool_init(&p, collect, &g);
	CHECK(vgtool_feed(&p, st.buf, st.len) == 0);
	CHECK_EQ_U64(vgtool_finish(&p), 0);
	check_result(&p, &g);
	vgtool_free(&p);
}

TEST(vgtool_split_every_pair_of_positions)
{
	static struct vgtool_parser p;
	struct stream st;

	build(&st);
	for (size_t i = 0; i <= st.len && !test_failed_now; i++) {
		for (size_t j = i; j <= st.len && !test_failed_now; j++) {
			struct got g = { .n = 0 };

			vgtool_init(&p, collect, &g);
			CHECK(vgtool_feed(&p, st.buf, i) == 0);
			CHECK(vgtool_feed(&p, st.buf + i, j - i) == 0);
			CHECK(vgtool_feed(&p, st.buf + j, st.len - j) == 0);
			CHECK_EQ_U64(vgtool_finish(&p), 0);
			check_result(&p, &g);
			vgtool_free(&p);
		}
	}
}

TEST(vgtool_cut_stream)
{
	static struct vgtool_parser p;
	struct stream st;
	struct got g = { .n = 0 };

	build(&st);
	vgtool_init(&p, collect, &g);
	CHECK(vgtool_feed(&p, st.buf, 8 + sizeof(struct mt_vg_hello) + 8 + 40) == 0);
	CHECK_EQ_U64(vgtool_finish(&p), 48);	/* ACCESSES' header and 40 of its 96 bytes */
	CHECK(!p.ended);
	CHECK_EQ_U64(g.n, 0);
	vgtool_free(&p);
}

TEST(vgtool_malformed)
{
	static struct vgtool_parser p;
	struct stream st;
	struct got g = { .n = 0 };
	struct mt_vg_hello hello = { MT_VG_MAGIC, MT_VG_VERSION, 1, 0, 1, 1 };
	struct mt_vg_access acc = { 1, 2, 3, 4, 5, 6, 0 };

	/* no HELLO first */
	st.len = 0;
	put(&st, MT_VG_ACCESSES, &acc, sizeof(acc));
	vgtool_init(&p, collect, &g);
	CHECK(vgtool_feed(&p, st.buf, st.len) < 0);
	CHECK(strstr(p.error, "HELLO") != NULL);
	vgtool_free(&p);
	/* wrong magic */
	hello.magic = 1;
	st.len = 0;
	put(&st, MT_VG_HELLO, &hello, sizeof(hello));
	vgtool_init(&p, collect, &g);
	CHECK(vgtool_feed(&p, st.buf, st.len) < 0);
	vgtool_free(&p);
	/* ACCESSES not a whole number of records; unknown type; huge length */
	hello.magic = MT_VG_MAGIC;
	for (int k = 0; k < 3; k++) {
		st.len = 0;
		put(&st, MT_VG_HELLO, &hello, sizeof(hello));
		if (k == 0)
			put(&st, MT_VG_ACCESSES, &acc, sizeof(acc) - 1);
		else if (k == 1)
			put(&st, 99, &acc, sizeof(acc));
		else {
			struct mt_vg_header h = { MT_VG_ACCESSES, MT_VG_MAX_MSG + 1 };

			memcpy(st.buf + st.len, &h, sizeof(h));
			st.len += sizeof(h);
		}
		vgtool_init(&p, collect, &g);
		CHECK(vgtool_feed(&p, st.buf, st.len) < 0);
		CHECK(p.error[0] != 0);
		vgtool_free(&p);
	}
}

/* FORK messages are counted; a FORK of the wrong size is malformed. */
TEST(vgtool_stream_fork)
{
	struct stream st = { .len = 0 };
	struct mt_vg_hello hello = { MT_VG_MAGIC, MT_VG_VERSION, 4242, 0, 1, 1 };
	struct mt_vg_fork f = { 5, 4242, 0 };
	struct vgtool_parser *p = malloc(sizeof(*p));
	struct got g = { .n = 0 };

	put(&st, MT_VG_HELLO, &hello, sizeof(hello));
	put(&st, MT_VG_FORK, &f, sizeof(f));
	put(&st, MT_VG_FORK, &f, sizeof(f));
	vgtool_init(p, collect, &g);
	CHECK(vgtool_feed(p, st.buf, st.len) == 0);
	CHECK_EQ_U64(p->forks, 2);
	vgtool_free(p);
	put(&st, MT_VG_FORK, &f, 8);
	vgtool_init(p, collect, &g);
	CHECK(vgtool_feed(p, st.buf, st.len) < 0);
	CHECK(strstr(p->error, "bad FORK") != NULL);
	vgtool_free(p);
	free(p);
}

int main(void)
{
	return test_main();
}
