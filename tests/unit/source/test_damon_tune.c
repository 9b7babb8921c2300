/* test_damon_tune.c - source/damon/damon_tune.c: the kdamond's intervals
 * widen by the excess over the budget (at most 8x a step, capped), narrow
 * by half when far under it (never below where they started), keep their
 * ratio, and stay fixed with budget 0; a thread's CPU time is read. */
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "source/damon/damon_tune.h"

static struct damon_attrs start(void)
{
	return (struct damon_attrs){ 5000, 100000, 100000, 10, 1000 };
}

TEST(over_budget_widens_by_the_excess_keeping_the_ratio)
{
	struct damon_attrs a = start();
	struct damon_tune t;

	damon_tune_init(&t, getpid(), 0.02, &a, 0);
	CHECK(damon_tune_apply(&t, &a, 0.046));	/* 2.3x the budget */
	CHECK_EQ_U64(a.sample_us, 11500);
	CHECK_EQ_U64(a.aggr_us, 230000);
	CHECK_EQ_U64(a.update_us, 230000);
	CHECK_EQ_U64(a.min_regions, 10);
	CHECK(!damon_tune_apply(&t, &a, 0.021));	/* within 10 % of it: stays */
	CHECK_EQ_U64(a.sample_us, 11500);
	CHECK(damon_tune_apply(&t, &a, 1.0));	/* 50x: one step of 8x */
	CHECK_EQ_U64(a.sample_us, 92000);
	CHECK(damon_tune_apply(&t, &a, 1.0));	/* capped */
	CHECK_EQ_U64(a.sample_us, DAMON_TUNE_MAX_SAMPLE_US);
	CHECK_EQ_U64(a.aggr_us, 20 * DAMON_TUNE_MAX_SAMPLE_US);
	CHECK(!damon_tune_apply(&t, &a, 1.0));
	CHECK_EQ_U64(t.raised, 3);
	CHECK(t.share_first == 0.046 && t.share_last == 1.0 && t.share_max == 1.0);
}

TEST(under_a_quarter_narrows_by_half_down_to_the_start)
{
	struct damon_attrs a = start();
	struct damon_tune t;

	damon_tune_init(&t, getpid(), 0.02, &a, 0);
	CHECK(!damon_tune_apply(&t, &a, 0.001));	/* already where it started */
	damon_tune_apply(&t, &a, 0.16);		/* 8x: 40 ms */
	CHECK_EQ_U64(a.sample_us, 40000);
	CHECK(!damon_tune_apply(&t, &a, 0.01));	/* half the budget: stays */
	CHECK(damon_tune_apply(&t, &a, 0.004));
	CHECK_EQ_U64(a.sample_us, 20000);
	CHECK_EQ_U64(a.aggr_us, 400000);
	damon_tune_apply(&t, &a, 0.001);
	damon_tune_apply(&t, &a, 0.001);
	CHECK_EQ_U64(a.sample_us, 5000);
	CHECK_EQ_U64(a.aggr_us, 100000);
	CHECK_EQ_U64(t.lowered, 3);	/* 40 -> 20 -> 10 -> 5 ms */
}

TEST(budget_zero_keeps_the_intervals)
{
	struct damon_attrs a = start();
	struct damon_tune t;

	damon_tune_init(&t, getpid(), 0, &a, 0);
	CHECK(!damon_tune_apply(&t, &a, 0.5));
	CHECK_EQ_U64(a.sample_us, 5000);
	CHECK(t.share_last == 0.5);
}

TEST(thread_cpu_time_is_read)
{
	int64_t a = damon_thread_cpu_ns(getpid());
	volatile unsigned long x = 0;
	struct timespec t0, t1;

	CHECK(a >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {	/* ~30 ms of CPU */
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 30000000L);
	CHECK(damon_thread_cpu_ns(getpid()) > a);
	CHECK(damon_thread_cpu_ns(0x7ffffff0) == -1);
}

int main(void)
{
	return test_main();
}
