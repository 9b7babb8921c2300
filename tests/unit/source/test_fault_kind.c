/* test_fault_kind.c - the fault kinds of the hint-faults source
 * (user/source/fault_kind.c): error codes and first-seen pages; no perf. */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "source/fault_kind.h"
#include "test.h"

#define PF_PROT 1u
#define PF_WRITE 2u
#define PF_INSTR 16u

static unsigned kind(uint64_t data_src)
{
	return MEMTRACE_FAULT_KIND(data_src);
}

TEST(first_touch_then_hint_per_process_and_page)
{
	struct fault_kinds fk;

	fault_kinds_init(&fk);
	uint64_t a = fault_kinds_classify(&fk, 10, 0x7f0000001234, PF_WRITE);
	CHECK_EQ_U64(kind(a), MEMTRACE_FAULT_FIRST_TOUCH);
	CHECK_EQ_U64(a & 0x1f, PERF_MEM_OP_STORE);
	/* the same page again, another byte: the scanner unmapped it */
	uint64_t b = fault_kinds_classify(&fk, 10, 0x7f0000001ff8, 0);
	CHECK_EQ_U64(kind(b), MEMTRACE_FAULT_HINT);
	CHECK_EQ_U64(b & 0x1f, PERF_MEM_OP_LOAD);
	/* the same address in another process is that process's first touch */
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 11, 0x7f0000001234, 0)), MEMTRACE_FAULT_FIRST_TOUCH);
	/* the next page is new */
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 10, 0x7f0000002000, 0)), MEMTRACE_FAULT_FIRST_TOUCH);
	/* a present page written: copy-on-write, whether seen or not */
	uint64_t c = fault_kinds_classify(&fk, 10, 0x7f0000001000, PF_PROT | PF_WRITE);
	CHECK_EQ_U64(kind(c), MEMTRACE_FAULT_WRITE_PROTECT);
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 10, 0x7f0000009000, PF_PROT | PF_WRITE)),
		     MEMTRACE_FAULT_WRITE_PROTECT);
	/* ... and a page seen by a write-protect fault re-faults as a hint */
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 10, 0x7f0000009000, 0)), MEMTRACE_FAULT_HINT);
	CHECK_EQ_U64(fault_kinds_classify(&fk, 10, 0x401000, PF_INSTR) & 0x1f, PERF_MEM_OP_EXEC);
	CHECK_EQ_U64(fk.count[MEMTRACE_FAULT_FIRST_TOUCH], 4);
	CHECK_EQ_U64(fk.count[MEMTRACE_FAULT_HINT], 2);
	CHECK_EQ_U64(fk.count[MEMTRACE_FAULT_WRITE_PROTECT], 2);
	fault_kinds_free(&fk);
}

TEST(many_pages_grow_the_set)
{
	struct fault_kinds fk;

	fault_kinds_init(&fk);
	for (uint64_t p = 0; p < 300000; p++)
		CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 7, p << 12, 0)), MEMTRACE_FAULT_FIRST_TOUCH);
	for (uint64_t p = 0; p < 300000; p += 1000)
		CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 7, p << 12, 0)), MEMTRACE_FAULT_HINT);
	CHECK_EQ_U64(fk.n, 300000);
	fault_kinds_free(&fk);
}

/* Pages share 64-page blocks: neighbours, block edges, pid 0's page 0 and
 * the same page number in another process are each told apart. */
TEST(pages_in_blocks_are_distinct)
{
	struct fault_kinds fk;
	const uint64_t pages[] = { 0, 1, 63, 64, 127, 128, 1ull << 30 };

	fault_kinds_init(&fk);
	for (pid_t pid = 0; pid < 3; pid++)
		for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
			CHECK_EQ_U64(kind(fault_kinds_classify(&fk, pid, pages[i] << 12, 0)),
				     MEMTRACE_FAULT_FIRST_TOUCH);
	for (pid_t pid = 0; pid < 3; pid++)
		for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
			CHECK_EQ_U64(kind(fault_kinds_classify(&fk, pid, (pages[i] << 12) + 0x123, 0)),
				     MEMTRACE_FAULT_HINT);
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 0, 2 << 12, 0)), MEMTRACE_FAULT_FIRST_TOUCH);
	CHECK_EQ_U64(kind(fault_kinds_classify(&fk, 3, 0, 0)), MEMTRACE_FAULT_FIRST_TOUCH);
	CHECK_EQ_U64(fk.n, 3 * 7 + 2);
	CHECK_EQ_U64(fk.count[MEMTRACE_FAULT_HINT], 3 * 7);
	fault_kinds_free(&fk);
}

/* Pages resident in this process when seeded fault as hints; others as first touches. */
TEST(seed_from_own_pagemap)
{
	struct fault_kinds fk;
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 8 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(m != MAP_FAILED);
	madvise(m, 8 * (size_t)pg, MADV_NOHUGEPAGE);
	for (int i = 0; i < 8; i += 2)
		m[i * pg] = 1;
	fault_kinds_init(&fk);
	CHECK(fault_kinds_seed(&fk, getpid()) == 0);
	for (int i = 0; i < 8; i++)
		CHECK_EQ_U64(kind(fault_kinds_classify(&fk, getpid(), (uint64_t)(m + i * pg), 0)),
			     i % 2 ? MEMTRACE_FAULT_FIRST_TOUCH : MEMTRACE_FAULT_HINT);
	fault_kinds_free(&fk);
	munmap(m, 8 * (size_t)pg);
}

int main(void)
{
	return test_main();
}
