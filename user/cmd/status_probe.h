/* status_probe.h - `memtracectl status -p PID` (status_probe.c). */
#ifndef MEMTRACE_CMD_STATUS_PROBE_H
#define MEMTRACE_CMD_STATUS_PROBE_H

#include <sys/types.h>

/*
 * Records pid for secs seconds with each sample source in turn (self: the
 * memtracectl to run) and prints, per kind of mapping (private / shared
 * anonymous, file-backed), how many of its resident pages each source saw,
 * telling re-accesses from first touches where the source can.  Returns
 * the exit status (1 after a one-line error).
 */
int status_probe(const char *self, pid_t pid, unsigned secs);

#endif
