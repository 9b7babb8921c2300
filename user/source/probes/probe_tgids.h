/*
 * probe_tgids.h - the processes a probe program records (--mark,
 * -e buffer-requests): a BPF hash map tgid -> 1 that the program checks,
 * and that its sched_process_fork program extends with the children of the
 * processes in it.
 */
#ifndef MEMTRACE_SOURCE_PROBES_PROBE_TGIDS_H
#define MEMTRACE_SOURCE_PROBES_PROBE_TGIDS_H

#include <sys/types.h>

#include "source/source.h"

struct bpf_map;

/* pid into the map; 0, or -1 with errno. */
int probe_tgids_add(struct bpf_map *tgids, pid_t pid);
/* pid out of the map; 0, or -1 with errno. */
int probe_tgids_del(struct bpf_map *tgids, pid_t pid);
/*
 * -p: every process of the trees (o->pids, their descendants unless
 * --no-children), listed twice, for what forked while the fork program was
 * not yet attached.  0, or -1 with errno.
 */
int probe_tgids_add_trees(struct bpf_map *tgids, const struct record_opts *o);

#endif
