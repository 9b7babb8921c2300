/* test_side_bounds.c - side chunks a reader keeps are bounded (trace/reader.h,
 * docs/trace-format.md "Limits"): zstd chunks of a few KiB that each claim
 * 60 MiB of THREADS records or MAPS lines are refused with one line once
 * the trace holds more than the limit, by the trace API and by the report,
 * instead of taking gigabytes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "test.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/writer.h"

#define BIG (60u << 20)

static char err[512];

/* A trace of nchunks zstd chunks of type, each BIG bytes of records or maps lines. */
static const char *bomb(const char *name, unsigned type, int nchunks)
{
	static char path[256];
	static const char meta[] = "time_unit=ns\nstart_time=0\ntarget_pid=1\n";
	unsigned char *p = calloc(1, BIG);
	uint32_t count = BIG / THREAD_REC_SIZE;

	snprintf(path, sizeof(path), "/tmp/memtrace-test-%d-%s", (int)getpid(), name);
	if (type == CHUNK_MAPS) {
		static const char line[] = "0-1 r--p 0 0:0 0\n";
		for (size_t i = MAPS_HDR_SIZE; i + 17 <= BIG; i += 17)
			memcpy(p + i, line, 17);
		count = 1;
	}
	struct trace_writer *w = trace_writer_open(path);
	CHECK(w != NULL);
	CHECK(!trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 3));
	for (int i = 0; i < nchunks; i++)
		CHECK(!trace_write_chunk(w, type, CODEC_ZSTD, p, BIG, count));
	CHECK(!trace_writer_close(w));
	free(p);
	return path;
}

static int info_of(const char *path, struct memtrace_trace_info *in)
{
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));

	CHECK(t != NULL);
	int rc = memtrace_trace_info(t, in, err, sizeof(err));
	memtrace_trace_close(t);
	return rc;
}

static int report_of(const char *path)
{
	struct memtrace_report_config cfg = { .flags = MEMTRACE_REPORT_PER_PROCESS,
					      .root = "/nonexistent" };
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));

	memtrace_report_free(r);
	return r ? 0 : -1;
}

TEST(side_bounds_threads_refused)
{
	struct memtrace_trace_info in;
	/* 5 x 1966080 records: the 5th chunk passes 2^23 */
	const char *path = bomb("threads.mtrace", CHUNK_THREADS, 5);

	CHECK(info_of(path, &in) == -1);
	CHECK(strstr(err, ": more than 8388608 THREADS, LOST and WINDOWS records in the trace") != NULL);
	CHECK(report_of(path) == -1);
	CHECK(strstr(err, ": more than 8388608 THREADS records in the trace") != NULL);
	unlink(path);
}

TEST(side_bounds_maps_lines_refused)
{
	struct memtrace_trace_info in;
	/* 2 x 3700842 lines: the 2nd chunk passes 2^22 */
	const char *path = bomb("maps.mtrace", CHUNK_MAPS, 2);

	CHECK(info_of(path, &in) == -1);
	CHECK(strstr(err, ": more than 4194304 lines of maps text in the trace") != NULL);
	CHECK(report_of(path) == -1);
	CHECK(strstr(err, ": more than 4194304 lines of maps text in the trace") != NULL);
	unlink(path);
}

/* HEADER and END texts: at most 1 MiB each (a 6 KB file of 60 MiB of "=\n"
 * in its END chunk took 2.6 GB and 89 s). */
TEST(side_bounds_meta_text)
{
	static char path[256];
	size_t len = 2u << 20;
	char *p = malloc(len);
	struct memtrace_trace_info in;

	for (size_t i = 0; i < len; i += 2)
		memcpy(p + i, "=\n", 2);
	snprintf(path, sizeof(path), "/tmp/memtrace-test-%d-meta.mtrace", (int)getpid());
	for (unsigned type = CHUNK_HEADER; type <= CHUNK_END; type += CHUNK_END - CHUNK_HEADER) {
		struct trace_writer *w = trace_writer_open(path);
		static const char meta[] = "time_unit=ns\nstart_time=0\n";
		CHECK(w != NULL);
		if (type == CHUNK_END)
			CHECK(!trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 2));
		CHECK(!trace_write_chunk(w, type, CODEC_ZSTD, p, len, 1));
		CHECK(!trace_writer_close(w));
		struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
		if (type == CHUNK_HEADER) {
			CHECK(t == NULL);
			CHECK(strstr(err, ": HEADER chunk at offset 16 holds 2097152 bytes of text (at most 1048576)"));
		} else {
			CHECK(t != NULL);
			CHECK(memtrace_trace_info(t, &in, err, sizeof(err)) == -1);
			CHECK(strstr(err, ": END chunk at offset 74 holds 2097152 bytes of text (at most 1048576)"));
		}
		memtrace_trace_close(t);
	}
	free(p);
	unlink(path);
}

TEST(side_bounds_text_lines)
{
	CHECK_EQ_U64(trace_text_lines((const unsigned char *)"", 0), 0);
	CHECK_EQ_U64(trace_text_lines((const unsigned char *)"a\nb\n", 4), 2);
	CHECK_EQ_U64(trace_text_lines((const unsigned char *)"a\nb", 3), 2);
	CHECK_EQ_U64(trace_text_lines((const unsigned char *)"\n\n\n", 3), 3);
}

int main(void)
{
	return test_main();
}
