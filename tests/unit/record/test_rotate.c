/* test_rotate.c - record/rotate.c: a recording switched to a new file 5
 * times holds every sample once, each in the file its time says: file k
 * has the samples after switch k-1's horizon (now - 50 ms) up to switch k's,
 * in order; each file opens on its own with part = k, END samples = its
 * rows, start_time = the previous file's end_time (switch k's horizon).  --max-files 2 leaves the newest two of this
 * recording's files and a file it did not make. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "memtrace/trace.h"
#include "record/recorder.h"
#include "trace/writer.h"

#define MS 1000000ull
#define MAXN 100000
#define HORIZON (50 * MS)

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

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir that start with prefix, sorted; their count. */
static int list(const char *dir, const char *prefix, char **names, int cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n < cap)
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			size_t len = strlen(dir) + strlen(e->d_name) + 2;
			names[n] = malloc(len);
			snprintf(names[n++], len, "%s/%s", dir, e->d_name);
		}
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(*names), by_name);
	return n;
}

/* Streams of three CPUs over [from, to) every 10 ms, each batch within
 * 40 ms before its tick (inside the horizon), sorted. */
static void feed(struct recorder *r, uint64_t from, uint64_t to)
{
	for (uint64_t now = from; now < to; now += 10 * MS) {
		for (uint32_t cpu = 0; cpu < 3; cpu++) {
			size_t k = 50 + next_rand() % 100;
			struct memtrace_sample *b = &in[nin];
			for (size_t i = 0; i < k; i++)
				b[i] = (struct memtrace_sample){ .time = now - 40 * MS + next_rand() % (40 * MS),
								 .addr = 0x100000 + 4096 * (nin + i),
								 .pid = 7, .tid = (uint32_t)(nin + i + 1),
								 .cpu = cpu };
			qsort(b, k, sizeof(*b), by_time_tid);
			CHECK(recorder_add_samples(r, b, k) == 0);
			nin += k;
		}
		CHECK(recorder_tick(r, now) == 0);
	}
}

static struct recorder *open_rotating(const char *base, unsigned max_files)
{
	struct recorder_rotation rot = { 0, 0, max_files };
	struct recorder *r = recorder_open_rotating(base, "test", 0, &rot);

	CHECK(r != NULL);
	recorder_meta(r, "time_unit", "ns");
	recorder_set_labels(r, "0x100000 4096 first\n", 20);
	CHECK(recorder_begin(r, 0, 0) == 0);
	CHECK(recorder_publish(r) == 0);
	CHECK(recorder_note_thread(r, 1, 7, 7, "worker") == 0);
	return r;
}

TEST(rotate_every_sample_once_in_its_file)
{
	char dir[] = "/tmp/test_rotate_XXXXXX", base[64], *names[16];
	uint64_t limit[7] = { 0 };	/* file k: samples in (limit[k-1], limit[k]] */

	CHECK(mkdtemp(dir) != NULL);
	snprintf(base, sizeof(base), "%s/t.mtrace", dir);
	nin = 0;
	struct recorder *r = open_rotating(base, 0);
	uint64_t now = 100 * MS;
	for (int k = 1; k <= 5; k++) {
		feed(r, now, now + 300 * MS);
		now += 300 * MS;
		CHECK(recorder_rotate(r, now - 10 * MS) == 0);	/* the last tick's now */
		limit[k] = now - 10 * MS - HORIZON;
	}
	feed(r, now, now + 200 * MS);
	limit[6] = UINT64_MAX;
	CHECK(recorder_end(r, "test") == 0);
	CHECK_EQ_U64(recorder_files(r), 6);
	CHECK(recorder_close(r) == 0);
	qsort(in, nin, sizeof(*in), by_time_tid);

	int n = list(dir, "t.mtrace.", names, 16);
	CHECK_EQ_U64(n, 6);
	size_t at = 0;	/* in[at..]: the samples of the files still to read */
	char prev_end[32] = "";
	uint64_t *time = calloc(MAXN, 8), *addr = calloc(MAXN, 8);
	uint32_t *tid = calloc(MAXN, 4);
	for (int k = 1; k <= n && k <= 6; k++) {
		char err[256];
		size_t got = 0, want = 0;
		struct memtrace_trace *t = memtrace_trace_open(names[k - 1], err, sizeof(err));
		CHECK(t != NULL);
		if (!t)
			break;
		struct memtrace_columns c = { .time = time, .addr = addr, .tid = tid, .cap = MAXN };
		CHECK(memtrace_trace_read(t, NULL, &c, &got, err, sizeof(err)) == 0);
		while (at + want < nin && in[at + want].time <= limit[k])
			want++;
		CHECK_EQ_U64(got, want);
		size_t bad = 0;
		for (size_t i = 0; i < got && i < want; i++)
			bad += time[i] != in[at + i].time || tid[i] != in[at + i].tid ||
			       addr[i] != in[at + i].addr;
		CHECK_EQ_U64(bad, 0);
		at += want;
		const char *part = memtrace_trace_meta(t, "part");
		CHECK(part && strtoul(part, NULL, 10) == (unsigned long)k);
		const char *s = memtrace_trace_end_meta(t, "samples");
		CHECK(s && strtoull(s, NULL, 10) == got);
		const char *reason = memtrace_trace_end_meta(t, "end_reason");
		CHECK(reason && !strcmp(reason, k < 6 ? "switch-output" : "test"));
		const char *start = memtrace_trace_meta(t, "start_time");
		if (k > 1)
			CHECK(start && !strcmp(start, prev_end));
		const char *end = memtrace_trace_end_meta(t, "end_time");
		CHECK(end != NULL);
		snprintf(prev_end, sizeof(prev_end), "%s", end ? end : "");
		if (k < 6)
			CHECK(end && strtoull(end, NULL, 10) == limit[k]);
		memtrace_trace_close(t);
	}
	CHECK_EQ_U64(at, nin);
	free(time);
	free(addr);
	free(tid);
	for (int i = 0; i < n; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	rmdir(dir);
}

TEST(rotate_max_files_keeps_the_newest_of_its_own)
{
	char dir[] = "/tmp/test_rotate_XXXXXX", base[64], other[96], *names[16];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(base, sizeof(base), "%s/t.mtrace", dir);
	snprintf(other, sizeof(other), "%s/t.mtrace.20000101-000000.000", dir);
	FILE *f = fopen(other, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	nin = 0;
	struct recorder *r = open_rotating(base, 2);
	uint64_t now = 100 * MS;
	for (int k = 1; k <= 4; k++) {
		feed(r, now, now + 50 * MS);
		now += 50 * MS;
		CHECK(recorder_rotate(r, now - 10 * MS) == 0);
	}
	CHECK(recorder_end(r, "test") == 0);
	CHECK(recorder_close(r) == 0);
	int n = list(dir, "t.mtrace.", names, 16);
	CHECK_EQ_U64(n, 3);	/* the foreign one, parts 4 and 5 */
	CHECK(n >= 1 && !strcmp(names[0], other));
	for (int i = 1; i < n; i++) {
		char err[256];
		struct memtrace_trace *t = memtrace_trace_open(names[i], err, sizeof(err));
		CHECK(t != NULL);
		const char *part = t ? memtrace_trace_meta(t, "part") : NULL;
		CHECK(part && strtoul(part, NULL, 10) == (unsigned long)(3 + i));
		if (t)
			memtrace_trace_close(t);
	}
	for (int i = 0; i < n; i++) {
		unlink(names[i]);
		free(names[i]);
	}
	rmdir(dir);
}

int main(void)
{
	return test_main();
}
