/* follow.h - record --pidfile FILE: one recording that follows a service
 * across its restarts.
 *
 * The process FILE's first line names (PostgreSQL's postmaster.pid, a
 * daemon's /run/NAME.pid) is recorded as with -p, its descendants too.
 * When it exits the recording goes on: FILE is read every
 * FOLLOW_POLL_MS until it names another live process, which is attached
 * with the same backend (its maps and comm from then on), and the time in
 * between is a gap of the trace (recorder_gap_begin: GAPS rows, blind
 * windows in a report), not an idle stretch.  SIGINT/SIGTERM end it as
 * any recording, waiting or not.
 */
#ifndef MEMTRACE_SOURCE_FOLLOW_H
#define MEMTRACE_SOURCE_FOLLOW_H

#include "source/source.h"

#define FOLLOW_POLL_MS	200

/*
 * The source that runs inner (caps.follows) on each process o->pidfile
 * names in turn.  One at a time: it is a static of follow.c.
 */
const struct source_ops *source_follow(const struct source_ops *inner);

/* The live process (not a zombie) path's first line names, other than
 * gone; 0 if none (no file, no number, no such process). */
pid_t follow_pidfile_pid(const char *path, pid_t gone);

#endif
