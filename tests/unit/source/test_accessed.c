/* test_accessed.c - source/module/accessed.c: the module's accessed-bit records
 * split into page samples (to the recorder, kind kept in data_src) and pass
 * records (counted as pass ends, never samples), a baseline and a partial
 * pass among them; the cost median over scans of >= 512 pages. */
#include <stdlib.h>
#include <unistd.h>

#include "../test.h"
#include "memtrace/trace.h"
#include "record/recorder.h"
#include "source/module/accessed.h"
#include "source/mem_event.h"
#include "trace/writer.h"

#define MS 1000000ull

static struct memtrace_sample page(uint64_t t, uint32_t pid, uint64_t addr, uint64_t kind)
{
	return (struct memtrace_sample){ .time = t, .addr = addr, .pid = pid, .tid = pid,
					 .data_src = kind };
}

static struct memtrace_sample pass(uint64_t t, uint32_t pid, uint64_t ns, uint64_t ptes,
				   uint64_t flags)
{
	return (struct memtrace_sample){ .time = t, .addr = ns, .ip = ptes, .pid = pid,
					 .tid = pid, .data_src = MEMTRACE_ACC_PASS | flags };
}

TEST(accessed_records_split_into_pages_and_pass_ends)
{
	char path[] = "/tmp/test_accessed_XXXXXX";
	int fd = mkstemp(path);
	struct accessed_state *a = calloc(1, sizeof(*a));
	struct mem_event ev;
	struct memtrace_sample rec[] = {
		pass(10 * MS, 5, 1000, 100, MEMTRACE_ACC_PASS_BASELINE),
		page(1000 * MS, 5, 0x10000, MEMTRACE_ACC_ANON),
		page(1000 * MS, 5, 0x11000, MEMTRACE_ACC_SHMEM),
		pass(1001 * MS, 5, 51200, 1024, 0),	/* 50 ns per page */
		page(1002 * MS, 6, 0x20000, MEMTRACE_ACC_FILE),
		page(1002 * MS, 6, 0x200000, MEMTRACE_ACC_ANON | MEMTRACE_ACC_THP),
		page(1002 * MS, 6, 0x201000, MEMTRACE_ACC_ANON | MEMTRACE_ACC_THP),
		pass(1003 * MS, 6, 30720, 512, MEMTRACE_ACC_PASS_PARTIAL),	/* 60 ns */
	};

	close(fd);
	accessed_event(&ev);
	CHECK(ev.fields & MEMTRACE_FIELD_DATA_SRC);
	CHECK(accessed_is_event("accessed") && !accessed_is_event("hint-faults"));
	a->pass_ms = 1000;
	a->flush = true;
	struct recorder *r = recorder_open(path, "test", WRITER_FORCE);
	recorder_meta(r, "fields", "ip,data_src");
	CHECK(recorder_begin(r, 0, 5) == 0);
	CHECK(recorder_publish(r) == 0);
	CHECK(accessed_add(a, r, rec, sizeof(rec) / sizeof(rec[0])) == 0);
	CHECK_EQ_U64(a->passes, 3);
	CHECK_EQ_U64(a->partial, 1);
	CHECK_EQ_U64(a->pages, 5);
	CHECK_EQ_U64(a->ptes, 100 + 1024 + 512);
	CHECK_EQ_U64(a->scan_ns, 1000 + 51200 + 30720);
	CHECK_EQ_U64(a->nper, 2);	/* the baseline looked at < 512 pages */
	CHECK(recorder_tick(r, 2000 * MS) == 0);
	CHECK_EQ_U64(recorder_end(r, "test"), 0);
	CHECK_EQ_U64(recorder_samples(r), 5);
	CHECK(recorder_close(r) == 0);

	char err[256];
	uint64_t addr[8], src[8];
	size_t n = 0;
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t != NULL);
	if (t) {
		struct memtrace_columns c = { .addr = addr, .data_src = src, .cap = 8 };
		CHECK(memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err)) == 0);
		CHECK_EQ_U64(n, 5);
		uint64_t sum = 0;
		for (size_t i = 0; i < n; i++) {
			CHECK(addr[i] != 1000 && addr[i] != 51200 && addr[i] != 30720);
			sum += src[i];
		}
		/* the kinds kept: 1 + 2 + 3 + 17 + 17 */
		CHECK_EQ_U64(sum, 40);
		/* PASSES rows: the two passes that record pages (not the
		 * baseline), at their scans' starts (end - duration) */
		const struct memtrace_pass *p;
		long np = memtrace_trace_passes(t, &p, err, sizeof(err));
		CHECK_EQ_U64(np, 2);
		if (np == 2) {
			CHECK_EQ_U64(p[0].time, 1001 * MS - 51200);
			CHECK_EQ_U64(p[0].pid, 5);
			CHECK_EQ_U64(p[1].time, 1003 * MS - 30720);
			CHECK_EQ_U64(p[1].pid, 6);
			CHECK_EQ_U64(p[0].what, MEMTRACE_PASS_ACCESSED_BIT);
		}
		memtrace_trace_close(t);
	}
	accessed_free(a);
	unlink(path);
}

int main(void)
{
	return test_main();
}
