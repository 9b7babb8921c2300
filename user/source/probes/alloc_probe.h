/* alloc_probe.h - record --allocs: BPF uprobes on the target's allocator
 * (bpf/alloc.bpf.c), written as ALLOCS chunks (docs/trace-format.md) beside
 * the samples of whichever backend records the accesses. */
#ifndef MEMTRACE_SOURCE_PROBES_ALLOC_PROBE_H
#define MEMTRACE_SOURCE_PROBES_ALLOC_PROBE_H

#include "record/recorder.h"
#include "source/source.h"

#define ALLOC_RATE_DEFAULT	(512u << 10)	/* mean bytes between small samples */
#define ALLOC_LARGE_DEFAULT	(64u << 10)	/* blocks this large: always */

struct alloc_probe;

/*
 * Checks the options (--alloc-symbols) and makes the probe set; the probes
 * are loaded and attached at recorder_begin (the side's begin), before a
 * command's exec.  NULL after a one-line error.
 */
struct alloc_probe *alloc_probe_new(const struct record_opts *o);
/* The recorder side that drives it (recorder_add_side). */
struct recorder_side alloc_probe_side(struct alloc_probe *ap);
void alloc_probe_free(struct alloc_probe *ap);

#endif
