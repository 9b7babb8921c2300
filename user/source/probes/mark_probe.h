/*
 * mark_probe.h - record --mark: query spans from a start and an end probe of the
 * target's binary (USDT, e.g. postgres:query__start / query__done, or a
 * function: uprobe at entry, uretprobe at return), paired per thread into
 * SPANS records (docs/trace-format.md) whose label is the start probe's
 * argument (its string, or its integer).  With -p and a command, only
 * their processes (a tgid set kept up to date at fork); with -a and
 * --cgroup every process that runs the binary.  BPF programs:
 * user/source/probes/mark.bpf.c.
 *
 *   struct mark_session *m = mark_open(o, err, sizeof(err));  // before the source starts
 *   mark_drain(m, r);            // every round of the record loop
 *   mark_finish(m, r);           // unended spans end now (open)
 *   mark_close(m);
 */
#ifndef MEMTRACE_SOURCE_PROBES_MARK_PROBE_H
#define MEMTRACE_SOURCE_PROBES_MARK_PROBE_H

#include <stddef.h>

#include "source/source.h"

struct recorder;
struct mark_session;

/*
 * Parses o->mark ("BIN:NAME", "BIN:PROVIDER:NAME", "START,END"), finds the
 * binary and the probes, loads and attaches the programs.  NULL with a
 * one-line reason in err.
 */
struct mark_session *mark_open(const struct record_opts *o, char *err, size_t errlen);
/* -- CMD: the command's process, once started (with what it forks).  0 or -1. */
int mark_add_pid(struct mark_session *m, int pid);
/* Stops following pid (its children already added stay).  0 or -1. */
int mark_del_pid(struct mark_session *m, int pid);
/* The fd that becomes readable when the probes' ring is a quarter full. */
int mark_fd(const struct mark_session *m);
/* "usdt postgresql:query__start in /usr/lib/postgresql/15/bin/postgres" etc. */
const char *mark_describe(const struct mark_session *m);
/* Pairs what the probes wrote into spans for r.  0, or -1 when r failed. */
int mark_drain(struct mark_session *m, struct recorder *r);
/* The last records, and the spans still open (ended now, flagged open). */
int mark_finish(struct mark_session *m, struct recorder *r);
void mark_close(struct mark_session *m);

#endif
