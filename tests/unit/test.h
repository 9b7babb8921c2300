/* test.h - a minimal unit-test harness.
 *
 *   TEST(name) { CHECK(cond); CHECK_EQ_U64(a, b); }
 *   int main(void) { return test_main(); }
 *
 * Prints "ok  name" or "FAIL name: file:line: what" per test and ends with
 * "N passed, N failed".  Tests register themselves via constructors.
 */
#ifndef MEMTRACE_TEST_H
#define MEMTRACE_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);

struct test_case {
	const char *name;
	test_fn fn;
};

#define TEST_MAX 256
static struct test_case test_cases[TEST_MAX];
static int test_count;
static int test_failed_now;
static char test_why[512];

static inline void test_register(const char *name, test_fn fn)
{
	if (test_count < TEST_MAX)
		test_cases[test_count++] = (struct test_case){ name, fn };
}

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	__attribute__((constructor)) static void test_reg_##name(void)    \
	{                                                                 \
		test_register(#name, test_##name);                        \
	}                                                                 \
	static void test_##name(void)

#define TEST_FAIL(...)                                                      \
	do {                                                                \
		if (!test_failed_now) {                                     \
			int n_ = snprintf(test_why, sizeof(test_why), "%s:%d: ", \
					  __FILE__, __LINE__);              \
			snprintf(test_why + n_, sizeof(test_why) - (size_t)n_, \
				 __VA_ARGS__);                              \
		}                                                           \
		test_failed_now = 1;                                        \
	} while (0)

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond))                                              \
			TEST_FAIL("CHECK(%s)", #cond);                    \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                    \
	do {                                                                  \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);              \
		if (a_ != b_)                                                 \
			TEST_FAIL("%s == %" PRIu64 ", expected %s == %" PRIu64, \
				  #a, a_, #b, b_);                            \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (!a_ || !b_ || strcmp(a_, b_))                           \
			TEST_FAIL("%s == \"%s\", expected \"%s\"", #a,      \
				  a_ ? a_ : "(null)", b_ ? b_ : "(null)");  \
	} while (0)

static inline int test_main(void)
{
	int passed = 0, failed = 0;

	for (int i = 0; i < test_count; i++) {
		test_failed_now = 0;
		test_cases[i].fn();
		if (test_failed_now) {
			printf("FAIL %s: %s\n", test_cases[i].name, test_why);
			failed++;
		} else {
			printf("ok   %s\n", test_cases[i].name);
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
