/* test_pid_set.c - util/pid_set.c, the perf and bpf backends' set of
 * processes (maps asked for): removal keeps every other member findable,
 * and the set follows the live processes rather than every pid a long
 * recording saw. */
#include <stdlib.h>

#include "test.h"
#include "util/pid_set.h"

TEST(pid_set_del_keeps_others_and_stays_small)
{
	struct pid_set set = { 0 };
	/* 1 M processes, at most 1000 alive at once: each exits 1000 forks later */
	for (pid_t p = 1; p <= 1000000; p++) {
		CHECK(pid_set_add(&set, p));
		if (p > 1000)
			pid_set_del(&set, p - 1000);
	}
	CHECK_EQ_U64(set.n, 1000);
	CHECK(set.cap <= 4096);
	for (pid_t p = 1; p <= 1000000; p++)
		if (pid_set_add(&set, p) != (p <= 999000)) {
			TEST_FAIL("pid %d %s", (int)p, p <= 999000 ? "still there" : "lost");
			break;
		}
	CHECK_EQ_U64(set.n, 1000000);
	/* removing what is absent changes nothing */
	pid_set_del(&set, 2000000);
	CHECK_EQ_U64(set.n, 1000000);
	for (pid_t p = 1; p <= 1000000; p += 2)
		pid_set_del(&set, p);
	CHECK_EQ_U64(set.n, 500000);
	for (pid_t p = 1; p <= 1000000; p++)
		if (pid_set_add(&set, p) != (p % 2 == 1)) {
			TEST_FAIL("pid %d after removing the odd ones", (int)p);
			break;
		}
	pid_set_free(&set);
}

int main(void)
{
	return test_main();
}
