/* test_loop.c - record/loop.c driving a scripted source: ends, stops,
 * failures and the keep-draining stop of valgrind. */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "../test.h"
#include "record/loop.h"
#include "record/recorder.h"
#include "trace/writer.h"
#include "util/util.h"

struct fake {
	int blocks;		/* drains that deliver samples before the end (-1: never end) */
	int fail_at;		/* drain number that fails, 0 = none */
	int gone_at;		/* target_gone() true from this drain on, 0 = never */
	int keep;		/* stop() returns this */
	int after_stop;		/* drains after a kept stop before the end */
	int pipe[2];		/* never readable: the poll times out */
	int drains, ticks, stops, finished, finish_failed;
	const char *reason;
	uint64_t t;
};

static int fake_fds(void *st, struct pollfd *p, int max)
{
	struct fake *f = st;

	if (f->blocks >= 0)
		return 0;	/* a file: no waiting */
	if (max >= 1)
		p[0] = (struct pollfd){ .fd = f->pipe[0], .events = POLLIN };
	return 1;
}

static int fake_drain(void *st, struct recorder *r, const struct pollfd *p, int n,
		      struct source_step *step)
{
	struct fake *f = st;
	struct memtrace_sample s[10] = { { 0 } };

	(void)p;
	(void)n;
	f->drains++;
	if (f->fail_at && f->drains == f->fail_at)
		return -1;
	if (f->stops && f->keep && f->after_stop-- <= 0) {
		step->ended = true;
		return 0;
	}
	if (f->blocks >= 0 && f->drains > f->blocks) {
		step->ended = true;
		return 0;
	}
	for (int i = 0; i < 10; i++) {
		s[i].time = ++f->t;
		s[i].addr = 0x10000 + 4096 * (uint64_t)i;
	}
	if (recorder_add_samples(r, s, 10))
		return -1;
	step->now = f->t;
	step->tick = true;
	f->ticks++;
	return 0;
}

static int fake_stop(void *st, const char *reason)
{
	struct fake *f = st;

	(void)reason;
	f->stops++;
	return f->keep;
}

static int fake_gone(void *st, uint64_t wall)
{
	struct fake *f = st;

	(void)wall;
	return f->gone_at && f->drains >= f->gone_at;
}

static int fake_finish(void *st, struct recorder *r, int failed, const char **reason)
{
	struct fake *f = st;

	(void)r;
	f->finished++;
	f->finish_failed = failed;
	f->reason = *reason;
	return failed ? -1 : 0;
}

static const struct source_ops fake_ops = {
	.name = "fake",
	.end_reason = "input-ended",
	.fds = fake_fds,
	.drain = fake_drain,
	.stop = fake_stop,
	.target_gone = fake_gone,
	.finish = fake_finish,
};

/* Runs the loop on a fresh trace; returns record_loop's result. */
static int run(struct fake *f, double duration, uint64_t *samples)
{
	char path[] = "/tmp/test_loop_XXXXXX";
	int fd = mkstemp(path);

	close(fd);
	struct recorder *r = recorder_open(path, "test", WRITER_FORCE);
	CHECK(pipe(f->pipe) == 0);
	CHECK(recorder_begin(r, 0, 0) == 0);
	int rc = record_loop(&fake_ops, f, r, duration, NULL, NULL);
	*samples = recorder_samples(r);
	recorder_close(r);
	close(f->pipe[0]);
	close(f->pipe[1]);
	unlink(path);
	return rc;
}

TEST(loop_source_ends_by_itself)
{
	struct fake f = { .blocks = 3 };
	uint64_t n;

	CHECK_EQ_U64(run(&f, 0, &n), 0);
	CHECK_EQ_U64(f.drains, 4);
	CHECK_EQ_U64(f.ticks, 3);
	CHECK_EQ_U64(f.stops, 0);
	CHECK_EQ_U64(f.finished, 1);
	CHECK(!strcmp(f.reason, "input-ended"));
	CHECK_EQ_U64(n, 30);
}

TEST(loop_duration_stops_a_source_that_does_not_end)
{
	struct fake f = { .blocks = -1 };
	uint64_t n, t0 = mt_now_ns();

	CHECK_EQ_U64(run(&f, 0.15, &n), 0);
	uint64_t ms = (mt_now_ns() - t0) / 1000000;
	/* the fd never becomes ready: 100 ms polls, stopped at the 2nd or 3rd */
	CHECK(ms >= 150 && ms < 1000);
	CHECK(f.drains >= 2 && f.drains <= 4);
	CHECK_EQ_U64(f.stops, 1);
	CHECK(!strcmp(f.reason, "duration"));
	CHECK_EQ_U64(n, 10 * (uint64_t)f.drains);
}

TEST(loop_kept_stop_drains_until_the_end)
{
	struct fake f = { .blocks = -1, .keep = 1, .after_stop = 2 };
	uint64_t n;

	CHECK_EQ_U64(run(&f, 0.01, &n), 0);
	CHECK_EQ_U64(f.stops, 1);	/* asked once, not again while draining */
	CHECK(!strcmp(f.reason, "duration"));
	CHECK_EQ_U64(n, 10 * (uint64_t)(f.drains - 1));
}

TEST(loop_target_gone_ends_with_the_sources_reason)
{
	struct fake f = { .blocks = -1, .gone_at = 2 };
	uint64_t n;

	CHECK_EQ_U64(run(&f, 0, &n), 0);
	CHECK_EQ_U64(f.drains, 2);
	CHECK_EQ_U64(f.stops, 0);
	CHECK(!strcmp(f.reason, "input-ended"));
	CHECK_EQ_U64(n, 20);
}

TEST(loop_failed_drain_writes_no_end)
{
	struct fake f = { .blocks = 5, .fail_at = 2 };
	uint64_t n;

	CHECK(run(&f, 0, &n) == -1);
	CHECK_EQ_U64(f.drains, 2);
	CHECK_EQ_U64(f.finished, 1);
	CHECK_EQ_U64(f.finish_failed, 1);
}

int main(void)
{
	return test_main();
}
