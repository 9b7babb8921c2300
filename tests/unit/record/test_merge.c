/* test_merge.c - record/merge.c: batches of several streams, sorted within
 * a batch and overlapping across them (per-CPU rings), an unsorted batch,
 * and more runs than MAX_RUNS, come out of the file in (time, tid) order,
 * every sample once. */
#include <stdlib.h>
#include <unistd.h>

#include "../test.h"
#include "memtrace/trace.h"
#include "record/recorder.h"
#include "trace/writer.h"

#define MS 1000000ull
#define MAXN 200000

static struct memtrace_sample in[MAXN];
static size_t nin;
static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int by_time_tid(const void *a, const void *b)
{
	const struct memtrace_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* A batch of k samples with times in [lo, hi], sorted unless told not. */
static void add_batch(struct recorder *r, uint64_t lo, uint64_t hi, size_t k, int sorted,
		      uint32_t cpu)
{
	struct memtrace_sample *b = &in[nin];

	for (size_t i = 0; i < k; i++)
		b[i] = (struct memtrace_sample){ .time = lo + next_rand() % (hi - lo + 1),
						 .addr = 0x100000 + 4096 * (nin + i),
						 .pid = 7, .tid = (uint32_t)(nin + i + 1), .cpu = cpu };
	if (sorted)
		qsort(b, k, sizeof(*b), by_time_tid);
	CHECK(recorder_add_samples(r, b, k) == 0);
	nin += k;
}

static void check_file(const char *path)
{
	char err[256];
	size_t n = 0;
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t != NULL);
	if (!t) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	uint64_t *time = calloc(MAXN, 8), *addr = calloc(MAXN, 8);
	uint32_t *tid = calloc(MAXN, 4);
	struct memtrace_columns c = { .time = time, .addr = addr, .tid = tid, .cap = MAXN };
	CHECK(memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err)) == 0);
	CHECK_EQ_U64(n, nin);
	qsort(in, nin, sizeof(*in), by_time_tid);
	size_t bad = 0;
	for (size_t i = 0; i < n && i < nin; i++)
		bad += time[i] != in[i].time || tid[i] != in[i].tid || addr[i] != in[i].addr;
	CHECK_EQ_U64(bad, 0);
	free(time);
	free(addr);
	free(tid);
	memtrace_trace_close(t);
}

TEST(merge_interleaved_streams_come_out_in_order)
{
	char path[] = "/tmp/test_merge_XXXXXX";
	int fd = mkstemp(path);

	close(fd);
	nin = 0;
	struct recorder *r = recorder_open(path, "test", WRITER_FORCE);
	CHECK(recorder_begin(r, 0, 0) == 0);
	CHECK(recorder_publish(r) == 0);
	/* 300 single samples, each older than the last: 300 runs (> MAX_RUNS) */
	for (int i = 0; i < 300; i++) {
		struct memtrace_sample s = { .time = 100 * MS - (uint64_t)i * 1000, .addr = 0x1000,
					     .pid = 7, .tid = (uint32_t)(nin + 1) };
		in[nin++] = s;
		CHECK(recorder_add_samples(r, &s, 1) == 0);
	}
	/* three CPUs drained in turn, each batch within 40 ms before the tick
	 * (the horizon is 50 ms), every tenth batch unsorted */
	for (uint64_t step = 1, now = 100 * MS; step <= 150; step++, now += 10 * MS) {
		for (uint32_t cpu = 0; cpu < 3; cpu++)
			add_batch(r, now - 40 * MS, now, 100 + next_rand() % 400, step % 10 != 3,
				  cpu);
		CHECK(recorder_tick(r, now) == 0);
	}
	CHECK_EQ_U64(recorder_end(r, "test"), 0);
	CHECK_EQ_U64(recorder_samples(r), nin);
	CHECK(recorder_close(r) == 0);
	check_file(path);
	unlink(path);
}

int main(void)
{
	return test_main();
}
