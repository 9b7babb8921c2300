/* test_target_gaps.c - record/target_gaps.c: record --pidfile's gaps
 * without a target.  A gap split by a switch (--switch-output) is the first
 * file's up to its end_time and the next file's from its start_time; a gap
 * under way at the end runs to the END's end_time; the rows read back
 * through the report (memtrace_report gaps, gap_time) add up to exactly
 * that; recorder_gap_overlaps (record --metrics' blind windows) says which
 * windows (from, to] meet a gap under way or a finished one. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "record/recorder_impl.h"

#define MS 1000000ull

/* n samples of pid 7 evenly in [from, to), then a tick at to. */
static void feed(struct recorder *r, uint64_t from, uint64_t to, size_t n)
{
	struct memtrace_sample s[64];

	for (size_t i = 0; i < n && i < 64; i++)
		s[i] = (struct memtrace_sample){ .time = from + (to - from) * i / n,
						 .addr = 0x100000 + 4096 * i, .pid = 7, .tid = 7 };
	CHECK(recorder_add_samples(r, s, n < 64 ? n : 64) == 0);
	CHECK(recorder_tick(r, to) == 0);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(gaps_split_at_a_switch_and_run_to_the_end)
{
	char dir[] = "/tmp/test_target_gaps_XXXXXX", base[64], *names[4];
	struct recorder_rotation rot = { 0 };

	CHECK(mkdtemp(dir) != NULL);
	snprintf(base, sizeof(base), "%s/g.mtrace", dir);
	struct recorder *r = recorder_open_rotating(base, "test", 0, &rot);
	CHECK(r != NULL);
	if (!r)
		return;
	recorder_offline(r);	/* the END at the last sample, not the machine's clock */
	recorder_meta(r, "time_unit", "ns");
	recorder_meta(r, "event", "page-faults");
	CHECK(recorder_begin(r, 0, 0) == 0);
	CHECK(recorder_publish(r) == 0);
	feed(r, 100 * MS, 400 * MS, 30);

	recorder_gap_begin(r, 400 * MS, 7);
	CHECK(!recorder_gap_overlaps(r, 300 * MS, 400 * MS));	/* ends where it begins */
	CHECK(recorder_gap_overlaps(r, 300 * MS, 401 * MS));
	CHECK(recorder_gap_overlaps(r, 5000 * MS, 6000 * MS));	/* under way: any later window */
	CHECK(recorder_tick(r, 600 * MS) == 0);
	CHECK(recorder_rotate(r, 600 * MS) == 0);	/* file 1 ends at 600 - 50 ms */
	recorder_gap_end(r, 700 * MS);
	CHECK(recorder_gap_overlaps(r, 650 * MS, 750 * MS));
	CHECK(recorder_gap_overlaps(r, 399 * MS, 400 * MS + 1));
	CHECK(!recorder_gap_overlaps(r, 700 * MS, 800 * MS));
	CHECK(!recorder_gap_overlaps(r, 0, 400 * MS));
	feed(r, 710 * MS, 900 * MS, 20);
	recorder_gap_begin(r, 850 * MS, 8);
	recorder_gap_end(r, 860 * MS);
	recorder_gap_end(r, 870 * MS);		/* no gap under way: nothing */
	recorder_gap_begin(r, 880 * MS, 8);	/* under way at the end (END at the last sample) */
	CHECK(recorder_end(r, "test") == 0);
	CHECK(recorder_close(r) == 0);

	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) && n < 4)
		if (!strncmp(e->d_name, "g.mtrace.", 9)) {
			names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
			sprintf(names[n++], "%s/%s", dir, e->d_name);
		}
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(*names), by_name);
	CHECK_EQ_U64(n, 2);
	uint64_t want_gaps[2] = { 1, 3 }, end[2] = { 0 }, start[2] = { 0 };
	struct memtrace_report_config cfg = { .window = 100 * MS };
	for (int k = 0; k < n && k < 2; k++) {
		char err[256];
		struct memtrace_report *rep = memtrace_report_compute(names[k], &cfg, err, sizeof(err));
		CHECK(rep != NULL);
		if (!rep) {
			fprintf(stderr, "%s\n", err);
			continue;
		}
		start[k] = rep->start_time;
		end[k] = rep->info.end_time;
		CHECK_EQ_U64(rep->gaps, want_gaps[k]);
		/* file 1: [400 ms, its end]; file 2: [its start, 700 ms], [850, 860], [880, end] */
		uint64_t want = k == 0 ? end[0] - 400 * MS
				       : (700 * MS - start[1]) + 10 * MS + (end[1] - 880 * MS);
		CHECK_EQ_U64(rep->gap_time, want);
		CHECK_EQ_U64(rep->blind.state, MEMTRACE_BLIND_KNOWN);
		CHECK(rep->blind.intervals > 0);
		memtrace_report_free(rep);
		unlink(names[k]);
		free(names[k]);
	}
	CHECK_EQ_U64(end[0], 550 * MS);		/* the switch's horizon */
	CHECK_EQ_U64(start[1], end[0]);
	CHECK(end[1] >= 880 * MS && end[1] < 900 * MS);	/* the last sample */
	rmdir(dir);
}

int main(void)
{
	return test_main();
}
