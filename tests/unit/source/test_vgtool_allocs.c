/* test_vgtool_allocs.c - the Valgrind tool's ALLOC/FREE messages as ALLOCS
 * rows: exact records, a realloc's FREE+ALLOC pair as one REALLOC, free
 * sizes, stacks written once, return addresses restored. */
#include "test.h"

#include <stdlib.h>

#include "source/valgrind/vgtool_allocs.h"
#include "trace/allocs.h"

struct rows {
	struct trace_alloc r[16];
	size_t n;
	uint32_t stack_id[8], stack_n[8];
	uint64_t stack_ip1[8];
	size_t nstack;
};

static void on_rec(void *ctx, const struct trace_alloc *a)
{
	struct rows *g = ctx;

	if (g->n < 16)
		g->r[g->n++] = *a;
}

static void on_stack(void *ctx, const struct trace_alloc_stack *s)
{
	struct rows *g = ctx;

	if (g->nstack < 8) {
		g->stack_id[g->nstack] = s->id;
		g->stack_n[g->nstack] = s->n;
		memcpy(&g->stack_ip1[g->nstack], s->ips + 8, 8);
		g->nstack++;
	}
}

static void alloc(struct vgtool_allocs *a, uint64_t time, uint64_t addr, uint64_t size,
		  uint16_t kind, uint64_t ip1)
{
	struct mt_vg_alloc m = { time, addr, size, 7, kind, 2 };
	uint64_t frames[2] = { 0x4800000, ip1 };

	vgtool_allocs_alloc(a, &m, (const unsigned char *)frames, 2);
}

static void take(struct vgtool_allocs *a, struct rows *g, uint32_t want)
{
	struct bytebuf out = { 0 };
	char err[128];

	CHECK_EQ_U64(vgtool_allocs_take(a, &out), want);
	memset(g, 0, sizeof(*g));
	if (want)
		CHECK(trace_allocs_decode(out.data, out.len, on_rec, on_stack, g, err,
					  sizeof(err)) == 0);
	bytebuf_free(&out);
}

TEST(vgtool_allocs_rows)
{
	struct vgtool_allocs a;
	struct rows g;

	vgtool_allocs_init(&a, 4242);
	alloc(&a, 10, 0x5000, 100, MT_VG_MALLOC, 0x401000);
	alloc(&a, 11, 0x6000, 200, MT_VG_MALLOC, 0x401000);	/* same stack */
	/* realloc 0x6000 -> 0x7000 at time 12: FREE then ALLOC(realloc) */
	vgtool_allocs_free(&a, &(struct mt_vg_free){ 12, 0x6000, 7, 0 });
	alloc(&a, 12, 0x7000, 300, MT_VG_REALLOC, 0x402000);
	take(&a, &g, 3);
	CHECK_EQ_U64(g.n, 3);
	CHECK_EQ_U64(g.nstack, 2);
	CHECK_EQ_U64(g.r[0].kind, ALLOC_KIND_ALLOC);
	CHECK_EQ_U64(g.r[0].pid, 4242);
	CHECK_EQ_U64(g.r[0].tid, 7);
	CHECK_EQ_U64(g.r[0].size, 100);
	CHECK_EQ_U64(g.r[0].caller, 0x401001);	/* Valgrind's ip - 1, back to the RA */
	CHECK_EQ_U64(g.stack_ip1[0], 0x401001);
	CHECK_EQ_U64(g.stack_n[0], 2);
	CHECK_EQ_U64(g.r[0].stack, g.r[1].stack);
	CHECK(g.r[2].stack != g.r[0].stack);
	CHECK_EQ_U64(g.r[2].kind, ALLOC_KIND_REALLOC);
	CHECK_EQ_U64(g.r[2].old_addr, 0x6000);
	CHECK_EQ_U64(g.r[2].flags, ALLOC_FLAG_OLD_KNOWN);
	CHECK_EQ_U64(g.r[2].addr, 0x7000);
	CHECK_EQ_U64(g.r[2].time, 12);

	/* a free waits for the next message; its size is the block's */
	vgtool_allocs_free(&a, &(struct mt_vg_free){ 20, 0x5000, 7, 0 });
	take(&a, &g, 0);
	vgtool_allocs_free(&a, &(struct mt_vg_free){ 21, 0x9999, 7, 0 });	/* unknown */
	alloc(&a, 22, 0x8000, 50, MT_VG_MALLOC, 0x401000);	/* known stack */
	vgtool_allocs_settle(&a);
	take(&a, &g, 2);
	CHECK_EQ_U64(g.nstack, 0);
	CHECK_EQ_U64(g.r[0].kind, ALLOC_KIND_FREE);
	CHECK_EQ_U64(g.r[0].addr, 0x5000);
	CHECK_EQ_U64(g.r[0].size, 100);
	CHECK_EQ_U64(g.r[0].time, 20);
	CHECK_EQ_U64(g.r[1].kind, ALLOC_KIND_ALLOC);
	CHECK_EQ_U64(g.r[1].addr, 0x8000);
	CHECK_EQ_U64(a.records, 5);
	vgtool_allocs_free_all(&a);
}

/* Many blocks and stacks: the tables grow and still find every block. */
TEST(vgtool_allocs_many)
{
	struct vgtool_allocs a;
	struct rows g;
	struct bytebuf out = { 0 };

	vgtool_allocs_init(&a, 1);
	for (uint64_t i = 0; i < 20000; i++)
		alloc(&a, i, 0x100000 + i * 32, 16, MT_VG_MALLOC, 0x400000 + (i % 3000) * 8);
	CHECK_EQ_U64(vgtool_allocs_take(&a, &out), 20000);
	for (uint64_t i = 0; i < 20000; i++)
		vgtool_allocs_free(&a, &(struct mt_vg_free){ 30000 + i, 0x100000 + i * 32, 1, 0 });
	vgtool_allocs_settle(&a);
	CHECK_EQ_U64(vgtool_allocs_take(&a, &out), 20000);
	CHECK_EQ_U64(a.nused, 3000);
	take(&a, &g, 0);
	bytebuf_free(&out);
	vgtool_allocs_free_all(&a);
}

int main(void)
{
	return test_main();
}
