/* mem_event_meta.h - trace header keys of a recording made from a perf event
 * (the perf and module backends share them). */
#ifndef MEMTRACE_SOURCE_MEM_EVENT_META_H
#define MEMTRACE_SOURCE_MEM_EVENT_META_H

#include <stdint.h>
#include <sys/types.h>

#include "source/source.h"
#include "source/mem_event.h"

struct recorder;

/* The header keys; target_comm is read from /proc or taken from the command. */
void event_meta(struct recorder *r, const char *backend, const struct record_opts *o,
		const struct mem_event *ev, uint64_t period, pid_t target);

/*
 * Starts the trace (recorder_begin with maps of target unless -a or a
 * command, whose maps come after its exec: event_release) at the
 * current time (the record loop keeps the --duration deadline).  *start
 * gets the origin.  A recorder begun already (record --pidfile: the next
 * target of the recording) gets target's maps at *start instead.
 */
int event_begin(struct recorder *r, const struct record_opts *o, pid_t target, uint64_t *start);

/*
 * -- CMD: lets the spawned child exec (target_release), waits until the
 * kernel has mapped its new image (its [vdso], at most 200 ms) and
 * snapshots its maps stamped start: the command's samples resolve against
 * the program's own mappings from the first on, never against the
 * collector's it had before the exec (no snapshot is taken before).  0, or
 * -1 with the trace ended (*release_fd is consumed either way).
 */
int event_release(struct recorder *r, int *release_fd, pid_t child, uint64_t start);

#endif
