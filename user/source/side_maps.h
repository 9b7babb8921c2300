/* side_maps.h - the mappings of the recorded processes as the side-band
 * records of a live perf or bpf session tell them (MMAP, COMM exec, FORK,
 * EXIT), for the processes gone before /proc/PID/maps could be read. */
#ifndef MEMTRACE_SOURCE_SIDE_MAPS_H
#define MEMTRACE_SOURCE_SIDE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/import/perf_import_maps.h"

struct perf_event_header;
struct recorder;

struct side_rec {
	uint64_t time, seq;
	bool tracked;			/* its process was a target when it was read */
	struct perf_event_header *h;	/* a copy */
};

struct side_maps {
	struct perf_maps maps;
	struct side_rec *q;		/* read, not applied yet */
	size_t nq, cap;
	uint64_t seq;
};

/*
 * One side-band record, at time: queued.  tracked: its process (a fork's
 * parent) is a target now; an untracked one counts when a record applied
 * before it (its fork) made its process known.
 *
 * The records come from one ring per CPU, read one after the other: a child
 * forked on one CPU that exec'd, mapped and exited on another has its EXIT
 * read before its FORK when that ring comes first.  So they are applied in
 * time order, up to a horizon before which every ring has been read.
 */
void side_maps_record(struct side_maps *sm, const struct perf_event_header *h,
		      uint64_t time, bool tracked);
/*
 * Every ring was read once, its reading begun at start (CLOCK_MONOTONIC, as
 * the records' times): the records well before start, in time order (last:
 * the recording ends, all of them).  At a process's exit, when the recorder
 * holds no /proc snapshot of it taken after its exec (a short-lived child
 * of a command), its mappings from the records since that exec go into the
 * trace as its MAPS chunk, stamped with the exec's time: its samples and
 * allocation sites resolve.  Processes known only from part of their life
 * (attached to while running) are left to the /proc snapshots.  Returns the
 * recorder's error (-1), else 0.
 */
int side_maps_drained(struct side_maps *sm, struct recorder *r, uint64_t start, bool last);
void side_maps_free(struct side_maps *sm);

#endif
