/* test_period_alias.c - the fixed-period aliasing warning of hardware
 * memory events (user/source/mem_event.c): which periods share a factor
 * with short loops, and the prime suggested instead. */
#include <string.h>

#include "source/mem_event.h"
#include "test.h"
#include "trace/words.h"

static struct mem_event sampled(void)
{
	struct mem_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.alias = "loads";
	ev.sample_class = words_class_name(WORDS_SAMPLED_ACCESS);
	ev.default_period = 997;
	return ev;
}

TEST(round_periods_alias_and_name_the_next_prime)
{
	struct mem_event ev = sampled();
	uint64_t p;

	CHECK(mem_event_alias_risk(&ev, 1000, &p));
	CHECK_EQ_U64(p, 1009);
	CHECK(mem_event_alias_risk(&ev, 200, &p));
	CHECK_EQ_U64(p, 211);
	CHECK(mem_event_alias_risk(&ev, 4000, &p));
	CHECK_EQ_U64(p, 4001);
	CHECK(mem_event_alias_risk(&ev, 2000, &p));
	CHECK_EQ_U64(p, 2003);
	CHECK(mem_event_alias_risk(&ev, 100000, &p));
	CHECK_EQ_U64(p, 100003);
	CHECK(mem_event_alias_risk(&ev, 21, &p));	/* 3 x 7 */
	CHECK_EQ_U64(p, 23);
}

TEST(primes_and_large_factors_do_not)
{
	struct mem_event ev = sampled();
	uint64_t p;

	CHECK(!mem_event_alias_risk(&ev, 997, &p));
	CHECK_EQ_U64(p, 997);
	CHECK(!mem_event_alias_risk(&ev, 1009, &p));
	CHECK(!mem_event_alias_risk(&ev, 143, &p));	/* 11 x 13 */
	CHECK(!mem_event_alias_risk(&ev, 7, &p));	/* a loop of 7 is 1 in 7 of a prime */
	CHECK(!mem_event_alias_risk(&ev, 1, &p));
	CHECK(!mem_event_alias_risk(&ev, 1ull << 40, &p));	/* beyond any useful period */
}

TEST(fault_events_never)
{
	struct mem_event ev;
	char why[256];
	int fell_back = 0;
	uint64_t p;

	CHECK(mem_event_resolve("page-faults", &ev, &fell_back, why, sizeof(why)) == 0);
	CHECK(!mem_event_alias_risk(&ev, 1000, &p));
	CHECK_EQ_U64(mem_event_period(&ev, 0), 1);
	CHECK_EQ_U64(mem_event_period(&ev, 1000), 1000);
}

TEST(default_periods_are_prime)
{
	struct mem_event ev = sampled();
	uint64_t p;

	CHECK(!mem_event_alias_risk(&ev, mem_event_period(&ev, 0), &p));
	CHECK_EQ_U64(mem_event_period(&ev, 0), 997);
}

int main(void)
{
	return test_main();
}
