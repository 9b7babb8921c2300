/* loop.h - THE record loop: one source into one recorder.
 *
 *   poll the source's fds (<= 100 ms) -> drain -> recorder_tick ->
 *   a new file (--switch-output: size, time or SIGHUP) -> answer --metrics
 *   scrapes (their fds are polled with the source's) ->
 *   stop check (SIGINT/SIGTERM, --duration, target gone) -> end
 *
 * `memtracectl record` (every backend) and `memtracectl import` run it.
 */
#ifndef MEMTRACE_RECORD_LOOP_H
#define MEMTRACE_RECORD_LOOP_H

#include "source/source.h"

struct recorder;

#define RECORD_POLL_MS	100

/*
 * Puts the trace file in place (recorder_publish), then runs an opened source until it ends, fails or is stopped (signal, or
 * duration > 0 seconds from now); calls finish() and writes the END
 * chunk.  Does not call close().  Returns 0, or -1 (failed, or the END
 * chunk was not written).
 */
struct mark_session;
struct metrics_http;
int record_loop(const struct source_ops *ops, void *state, struct recorder *r,
		double duration, struct mark_session *marks, struct metrics_http *metrics);

/* open() + record_loop() + close(): one recording (o->metrics: serving
 * record/metrics_http.h meanwhile).  0 or -1. */
int record_source(const struct source_ops *ops, const struct record_opts *o,
		  struct recorder *r);

#endif
