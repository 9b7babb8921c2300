/* test_words.c - memtrace_words: the HEADER's sample_class, the class a
 * trace without it gets from its source, and the target's name (END
 * target_comm before HEADER target_comm). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "test.h"
#include "trace/words.h"

static const char *cls(const char *meta)
{
	return memtrace_words_of_meta(meta)->sample_class;
}

TEST(words_from_the_header_key)
{
	CHECK_STR(cls("source=page-faults\nsample_class=sampled-access\n"), "sampled-access");
	CHECK_STR(cls("sample_class=first-touch\n"), "first-touch");
	CHECK_STR(cls("sample_class=every-access\nsource=pebs\n"), "every-access");
	CHECK_STR(cls("source=hint-faults\nsample_class=hint-fault\n"), "hint-fault");
	/* hint faults and first touches counted together: never called a working set */
	CHECK_STR(memtrace_words_of_meta("sample_class=hint-fault\n")->wss, "pages faulted");
	CHECK_STR(memtrace_words_of_meta("sample_class=first-touch\n")->wss, "pages first touched");
	CHECK_STR(words_class_name(WORDS_HINT_FAULT), "hint-fault");
}

TEST(words_derived_for_old_traces)
{
	CHECK_STR(cls("backend=perf\nsource=page-faults\nsample_period=1\n"), "first-touch");
	CHECK_STR(cls("backend=module\nsource=page-faults\nsample_period=1\n"), "first-touch");
	CHECK_STR(cls("source=valgrind-lackey\nsample_period=1\n"), "every-access");
	CHECK_STR(cls("source=valgrind-lackey\nsample_period=100\n"), "sampled-access");
	CHECK_STR(cls("source=pebs\nsample_period=1000\n"), "sampled-access");
	CHECK_STR(cls("source=ibs\n"), "sampled-access");
	CHECK_STR(cls("sample_class=nonsense\nsource=page-faults\n"), "first-touch");
	CHECK_STR(cls(""), "sampled-access");
	CHECK_STR(cls(NULL), "sampled-access");
	CHECK_EQ_U64(words_class_of(NULL, "page-faults", NULL), WORDS_FIRST_TOUCH);
	CHECK_STR(words_class_name(WORDS_EVERY_ACCESS), "every-access");
}

TEST(words_of_a_first_touch_trace)
{
	const struct memtrace_words *w = memtrace_words_of_meta("source=page-faults\n");

	CHECK_STR(w->samples, "page faults");
	CHECK_STR(w->wss, "pages first touched");
	CHECK_STR(w->data_series, "data pages first touched");
	CHECK_STR(w->series_title, "Pages first touched (resident-set growth)");
	CHECK_STR(w->hot, "Most-faulted");
	CHECK(strstr(w->measure, "not an access") != NULL);
	/* none of its words says working set or access, but the measure's "not an access" */
	const char *const v[] = { w->sample, w->samples, w->count, w->verb, w->wss, w->code_wss,
				  w->data_series, w->code_series, w->series_title, w->hot, w->curve,
				  w->activity };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CHECK(!strstr(v[i], "working") && !strstr(v[i], "ccess") && !strstr(v[i], "WSS"));
}

TEST(target_comm_end_before_header)
{
	char buf[32];

	CHECK_STR(memtrace_target_comm("target_comm=setpriv\n", "end_time=5\ntarget_comm=pageramp\n",
				       buf, sizeof(buf)), "pageramp");
	CHECK_STR(memtrace_target_comm("target_comm=postgres\n", "end_time=5\n", buf, sizeof(buf)),
		  "postgres");
	CHECK_STR(memtrace_target_comm("target_comm=a\n", NULL, buf, sizeof(buf)), "a");
	CHECK_STR(memtrace_target_comm(NULL, NULL, buf, sizeof(buf)), "");
}

TEST(trace_words_and_target_comm)
{
	char err[256], path[64];

	snprintf(path, sizeof(path), "/tmp/test_words.%d.mtrace", (int)getpid());
	struct memtrace_writer *w = memtrace_writer_open(
		path, "time_unit=ns\nstart_time=0\nsource=page-faults\ntarget_comm=env\n", err,
		sizeof(err));
	CHECK(w && !memtrace_writer_close(w, "end_time=9\ntarget_comm=redis-server\n", err,
					  sizeof(err)));
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	CHECK(t != NULL);
	if (t) {
		CHECK_STR(memtrace_trace_words(t)->sample_class, "first-touch");
		CHECK_STR(memtrace_trace_target_comm(t), "redis-server");
		CHECK_STR(memtrace_trace_meta(t, "target_comm"), "env");
		memtrace_trace_close(t);
	}
	unlink(path);
}

int main(void)
{
	return test_main();
}
