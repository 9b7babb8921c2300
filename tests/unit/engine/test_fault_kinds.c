/* test_fault_kinds.c - samples and distinct pages per fault kind
 * (include/memtrace/fault_kinds.h) of a written trace, exact values. */
#include <stdlib.h>
#include <unistd.h>

#include "memtrace/fault_kinds.h"
#include "test.h"

#define KIND(k) ((uint64_t)(k) << MEMTRACE_FAULT_KIND_SHIFT)

static int write_trace(const char *path, const char *meta)
{
	char err[256];
	uint64_t time[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t addr[8] = { 0x1000, 0x1ff8, 0x2000, 0x1000, 0x3000, 0x3008, 0x1000, 0x5000 };
	uint32_t pid[8] = { 5, 5, 5, 5, 5, 5, 6, 6 };
	uint32_t zero[8] = { 0 };
	uint64_t ds[8] = {
		KIND(MEMTRACE_FAULT_HINT) | 1, KIND(MEMTRACE_FAULT_HINT) | 1, KIND(MEMTRACE_FAULT_HINT),
		KIND(MEMTRACE_FAULT_FIRST_TOUCH), KIND(MEMTRACE_FAULT_FIRST_TOUCH),
		KIND(MEMTRACE_FAULT_WRITE_PROTECT), KIND(MEMTRACE_FAULT_HINT), 0,
	};
	struct memtrace_columns c = { .time = time, .addr = addr, .data_src = ds, .pid = pid,
				      .tid = pid, .cpu = zero, .cap = 8 };
	struct memtrace_writer *w = memtrace_writer_open(path, meta, err, sizeof(err));

	if (!w)
		return -1;
	if (memtrace_writer_samples(w, &c, 8, err, sizeof(err)))
		return -1;
	return memtrace_writer_close(w, "end_time=9\n", err, sizeof(err));
}

TEST(fault_kinds_rows)
{
	char path[] = "/tmp/mt-kinds-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct memtrace_fault_kind_row k[MEMTRACE_NFAULT_KINDS];

	CHECK(fd >= 0);
	close(fd);
	CHECK(!write_trace(path, "format=memtrace-1\ntime_unit=ns\nstart_time=0\ntarget_pid=5\n"
			   "source=hint-faults\nfault_kinds=1\n"));
	CHECK_EQ_U64(memtrace_fault_kinds(path, 0, 4096, k, err, sizeof(err)), 4);
	CHECK_STR(k[0].name, "hint");
	CHECK_EQ_U64(k[0].samples, 4);	/* 0x1000 and 0x1ff8 one page; 0x2000; pid 6's 0x1000 */
	CHECK_EQ_U64(k[0].pages, 3);
	CHECK_STR(k[1].name, "first-touch");
	CHECK_EQ_U64(k[1].samples, 2);
	CHECK_EQ_U64(k[1].pages, 2);
	CHECK_STR(k[2].name, "cow");
	CHECK_EQ_U64(k[2].samples, 1);
	CHECK_EQ_U64(k[2].pages, 1);
	CHECK_STR(k[3].name, "unknown");
	CHECK_EQ_U64(k[3].samples, 1);
	CHECK_EQ_U64(k[3].pages, 1);
	/* one pid */
	CHECK_EQ_U64(memtrace_fault_kinds(path, 5, 4096, k, err, sizeof(err)), 4);
	CHECK_EQ_U64(k[0].samples, 3);
	CHECK_EQ_U64(k[0].pages, 2);
	CHECK_EQ_U64(k[3].samples, 0);
	/* 64 KiB pages: 0x1000..0x3008 of pid 5 is one page */
	CHECK_EQ_U64(memtrace_fault_kinds(path, 5, 65536, k, err, sizeof(err)), 4);
	CHECK_EQ_U64(k[0].pages, 1);
	CHECK_EQ_U64(k[1].pages, 1);
	unlink(path);
}

TEST(fault_kinds_absent)
{
	char path[] = "/tmp/mt-kinds-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct memtrace_fault_kind_row k[MEMTRACE_NFAULT_KINDS];

	CHECK(fd >= 0);
	close(fd);
	CHECK(!write_trace(path, "format=memtrace-1\ntime_unit=ns\nstart_time=0\ntarget_pid=5\n"
			   "source=page-faults\n"));
	CHECK_EQ_U64(memtrace_fault_kinds(path, 0, 4096, k, err, sizeof(err)), 0);
	unlink(path);
	CHECK(memtrace_fault_kinds("/nonexistent/x.mtrace", 0, 4096, k, err, sizeof(err)) == -1);
}

int main(void)
{
	return test_main();
}
