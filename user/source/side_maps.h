/* side_maps.h - the mappings of the recorded processes as the side-band
 * records of a live perf or bpf session tell them (MMAP, COMM exec, FORK,
 * EXIT), for the processes gone before /proc/PID/maps could be read. */
#ifndef MEMTRACE_SOURCE_SIDE_MAPS_H
#define MEMTRACE_SOURCE_SIDE_MAPS_H

#include <stdint.h>

#include "source/import/perf_import_maps.h"

struct perf_event_header;
struct recorder;

/*
 * One side-band record of a recorded process, at time.  At a process's
 * exit, when the recorder holds no /proc snapshot of it taken after its
 * exec (a short-lived child of a command), its mappings from the records
 * since that exec go into the trace as its MAPS chunk, stamped with the
 * exec's time: its samples and allocation sites resolve.  Processes known
 * only from part of their life (attached to while running) are left to the
 * /proc snapshots.  Returns the recorder's error (-1), else 0.
 */
int side_maps_record(struct perf_maps *pm, struct recorder *r,
		     const struct perf_event_header *h, uint64_t time);

#endif
