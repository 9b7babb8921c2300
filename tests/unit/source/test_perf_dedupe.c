/* test_perf_dedupe.c - the duplicate filter of the perf backend
 * (user/source/perf/perf_dedupe.c) on synthetic samples: no perf needed. */
#include <stdlib.h>
#include <string.h>

#include "source/perf/perf_dedupe.h"
#include "test.h"

static struct memtrace_sample smp(uint32_t tid, uint32_t cpu, uint64_t time, uint64_t addr)
{
	return (struct memtrace_sample){ .pid = tid, .tid = tid, .cpu = cpu, .time = time,
					 .addr = addr };
}

/* Releases everything due before drain gen into out; returns the count. */
static size_t release(struct dedupe *d, uint64_t gen, bool all, struct memtrace_sample *out)
{
	size_t n = 0, k;

	while ((k = dedupe_release(d, gen, all, out + n, 64)) > 0)
		n += k;
	return n;
}

TEST(inactive_passes_everything)
{
	struct dedupe d;
	struct memtrace_sample s = smp(100, 0, 10, 0x1000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 5, 100, 0, false);
	dedupe_add_event(&d, 6, 100, 1, false);
	/* first-pass events only: no task can be covered twice */
	CHECK(dedupe_sample(&d, 0, &s, 5, 1) == DEDUPE_PASS);
	CHECK(dedupe_sample(&d, 0, &s, 5, 1) == DEDUPE_PASS);
	CHECK_EQ_U64(d.nheld, 0);
	CHECK_EQ_U64(dedupe_oldest(&d), UINT64_MAX);
	dedupe_free(&d);
}

TEST(identical_copy_dropped_and_own_event_redundant)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample s = smp(200, 0, 10, 0x1000), t = smp(200, 0, 20, 0x2000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 5, 100, 0, false);	/* parent, first pass */
	dedupe_add_event(&d, 6, 100, 1, false);
	dedupe_add_event(&d, 9, 200, 0, true);	/* child found in pass 1 */
	dedupe_add_event(&d, 10, 200, 1, true);
	/* the kernel's shared sample data: both copies carry one id and time */
	CHECK(dedupe_sample(&d, 0, &s, 9, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 0, &s, 9, 1) == DEDUPE_DROP);
	CHECK(dedupe_sample(&d, 0, &t, 9, 1) == DEDUPE_HELD);
	CHECK_EQ_U64(dedupe_oldest(&d), 10);
	/* read in drain 1: not released at the end of drain 1 */
	CHECK_EQ_U64(release(&d, 1, false, out), 0);
	CHECK_EQ_U64(release(&d, 2, false, out), 2);
	CHECK_EQ_U64(out[0].time, 10);
	CHECK_EQ_U64(out[1].time, 20);
	CHECK_EQ_U64(d.dropped_copies, 1);
	CHECK_EQ_U64(d.dropped_lineage, 0);
	/* the child's own event on cpu 0 is the newer lineage; cpu 1 unknown yet */
	int i = dedupe_next_redundant(&d);
	CHECK(i >= 0 && d.ev[i].id == 9);
	CHECK(dedupe_next_redundant(&d) < 0);
	/* a later pair reported under the redundant id: one sample stays */
	struct memtrace_sample u = smp(200, 0, 30, 0x3000);
	CHECK(dedupe_sample(&d, 0, &u, 9, 2) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 0, &u, 9, 2) == DEDUPE_DROP);
	CHECK_EQ_U64(release(&d, 3, false, out), 1);
	CHECK_EQ_U64(out[0].time, 30);
	dedupe_free(&d);
}

TEST(copy_in_next_drain_still_found)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample s = smp(200, 1, 10, 0x1000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 9, 200, 1, true);
	CHECK(dedupe_sample(&d, 1, &s, 9, 1) == DEDUPE_HELD);
	/* the drain caught the ring between the two copies */
	CHECK(dedupe_sample(&d, 1, &s, 9, 2) == DEDUPE_DROP);
	CHECK_EQ_U64(release(&d, 2, false, out), 1);
	CHECK_EQ_U64(out[0].time, 10);
	dedupe_free(&d);
}

TEST(not_copies_kept)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample a = smp(200, 0, 10, 0x1000), b = smp(200, 1, 10, 0x1000),
			       c = smp(200, 0, 12, 0x1000), e = smp(201, 0, 12, 0x1000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 9, 200, 0, true);
	CHECK(dedupe_sample(&d, 0, &a, 9, 1) == DEDUPE_HELD);
	/* same time on another CPU's ring, a retried fault (later time), another task */
	CHECK(dedupe_sample(&d, 1, &b, 9, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 0, &c, 9, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 0, &e, 9, 1) == DEDUPE_HELD);
	CHECK_EQ_U64(release(&d, 0, true, out), 4);
	CHECK_EQ_U64(d.dropped_copies + d.dropped_lineage, 0);
	CHECK(dedupe_next_redundant(&d) < 0);
	dedupe_free(&d);
}

TEST(triplicate_keeps_one)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample s = smp(300, 0, 10, 0x1000);

	dedupe_init(&d, 1);
	dedupe_add_event(&d, 9, 300, 0, true);
	CHECK(dedupe_sample(&d, 0, &s, 9, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 0, &s, 9, 1) == DEDUPE_DROP);
	CHECK(dedupe_sample(&d, 0, &s, 9, 1) == DEDUPE_DROP);
	CHECK_EQ_U64(release(&d, 0, true, out), 1);
	CHECK_EQ_U64(d.dropped_copies, 2);
	dedupe_free(&d);
}

TEST(lineage_larger_id_redundant)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	/* independent sampling (hardware): the copies differ in time */
	struct memtrace_sample inh = smp(400, 1, 5, 0x1000), own = smp(400, 1, 7, 0x2000),
			       own2 = smp(400, 1, 9, 0x3000), inh2 = smp(400, 1, 11, 0x4000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 10, 300, 1, false);	/* parent's event, first pass */
	dedupe_add_event(&d, 20, 400, 1, true);		/* child attached later */
	/* the child carries the parent's inherited copy (id 10) and its own (20) */
	CHECK(dedupe_sample(&d, 1, &inh, 10, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 1, &own, 20, 1) == DEDUPE_HELD);
	CHECK_EQ_U64(release(&d, 2, false, out), 1);
	CHECK_EQ_U64(out[0].time, 5);
	CHECK_EQ_U64(d.dropped_lineage, 1);
	int i = dedupe_next_redundant(&d);
	CHECK(i >= 0 && d.ev[i].id == 20);
	/* from now on its samples without an identical copy go */
	CHECK(dedupe_sample(&d, 1, &own2, 20, 2) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 1, &inh2, 10, 2) == DEDUPE_HELD);
	CHECK_EQ_U64(release(&d, 3, false, out), 1);
	CHECK_EQ_U64(out[0].time, 11);
	CHECK_EQ_U64(d.dropped_lineage, 2);
	dedupe_free(&d);
}

TEST(lineage_needs_same_task_and_cpu)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample other_cpu = smp(400, 0, 5, 0x1000), other_tid = smp(401, 1, 6, 0x1000),
			       own = smp(400, 1, 7, 0x2000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 10, 300, 0, false);
	dedupe_add_event(&d, 11, 300, 1, false);
	dedupe_add_event(&d, 20, 400, 1, true);
	CHECK(dedupe_sample(&d, 0, &other_cpu, 10, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 1, &other_tid, 11, 1) == DEDUPE_HELD);
	CHECK(dedupe_sample(&d, 1, &own, 20, 1) == DEDUPE_HELD);
	/* a partial inheritance (parent forked while we attached its cpu 0 only) */
	CHECK_EQ_U64(release(&d, 2, false, out), 3);
	CHECK(dedupe_next_redundant(&d) < 0);
	dedupe_free(&d);
}

TEST(exit_forgets_the_task)
{
	struct dedupe d;
	struct memtrace_sample out[16];
	struct memtrace_sample old = smp(400, 1, 5, 0x1000), reused = smp(400, 1, 9, 0x2000);

	dedupe_init(&d, 2);
	dedupe_add_event(&d, 10, 300, 1, false);
	dedupe_add_event(&d, 20, 500, 1, true);
	CHECK(dedupe_sample(&d, 1, &old, 10, 1) == DEDUPE_HELD);
	dedupe_exit(&d, 400);
	/* tid 400 reused by a task that carries only lineage 20 */
	CHECK(dedupe_sample(&d, 1, &reused, 20, 1) == DEDUPE_HELD);
	CHECK_EQ_U64(release(&d, 2, false, out), 2);
	CHECK_EQ_U64(d.dropped_lineage, 0);
	dedupe_free(&d);
}

/* 1 M short-lived tasks, 100 alive at once: the table of smallest ids
 * follows the live tasks (exited ones leave it when it is rebuilt). */
TEST(exited_tasks_leave_the_min_table)
{
	struct dedupe d;
	struct memtrace_sample out[64];

	dedupe_init(&d, 1);
	dedupe_add_event(&d, 10, 1, 0, false);
	dedupe_add_event(&d, 20, 2, 0, true);
	for (uint32_t tid = 100; tid < 1000100; tid++) {
		struct memtrace_sample s = smp(tid, 0, tid, 0x1000);
		CHECK(dedupe_sample(&d, 0, &s, 10, tid) == DEDUPE_HELD);
		if (tid >= 200)
			dedupe_exit(&d, (pid_t)(tid - 100));
		release(&d, tid, true, out);
	}
	CHECK(d.mincap <= 2048);
	/* a live task keeps its smallest id: its lineage 20 is still redundant */
	struct memtrace_sample late = smp(1000099, 0, 2000000, 0x2000);
	CHECK(dedupe_sample(&d, 0, &late, 20, 2000000) == DEDUPE_HELD);
	CHECK_EQ_U64(release(&d, 0, true, out), 0);
	CHECK_EQ_U64(d.dropped_lineage, 1);
	dedupe_free(&d);
}

TEST(release_in_order_and_in_parts)
{
	struct dedupe d;
	struct memtrace_sample out[8];

	dedupe_init(&d, 1);
	dedupe_add_event(&d, 9, 100, 0, true);
	for (uint64_t t = 1; t <= 100; t++) {
		struct memtrace_sample s = smp(100, 0, 1000 - t, t << 12);
		CHECK(dedupe_sample(&d, 0, &s, 9, t <= 70 ? 1 : 2) == DEDUPE_HELD);
	}
	CHECK_EQ_U64(dedupe_oldest(&d), 900);
	uint64_t want = 999;
	size_t got = 0, k;
	while ((k = dedupe_release(&d, 2, false, out, 8)) > 0) {
		for (size_t i = 0; i < k; i++)
			CHECK_EQ_U64(out[i].time, want--);
		got += k;
	}
	CHECK_EQ_U64(got, 70);
	CHECK_EQ_U64(d.nheld, 30);
	CHECK_EQ_U64(dedupe_oldest(&d), 900);
	dedupe_free(&d);
}

int main(void)
{
	return test_main();
}
