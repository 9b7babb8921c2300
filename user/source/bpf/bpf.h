/* bpf.h - the bpf backend: BPF programs (bpf/sample.bpf.c, skeleton built
 * by bpftool) on one perf event per CPU, samples through a BPF ring buffer.
 * sample.c: programs, events, the drain and the source operations;
 * bpf_target.c: the tgid set (bpf_session.h); bpf_probe.c: can BPF run
 * here, and why not (status, probe). */
#ifndef MEMTRACE_SOURCE_BPF_BPF_H
#define MEMTRACE_SOURCE_BPF_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "source/mem_event.h"
#include "source/source.h"

/* Silences libbpf; its last message is kept for bpf_last_error(). */
void bpf_quiet_libbpf(void);
/* libbpf's last warning or error line ("" if none). */
const char *bpf_last_error(void);

/*
 * Can the bpf backend serve o (NULL: page faults, any target) here: kernel
 * BTF, privileges, the event and its fields, and (load) do the programs
 * load.  0, or -1 with one line in why.
 */
int bpf_check(const struct record_opts *o, struct mem_event *ev, bool load, char *why,
	      size_t whylen);

/* The status lines of the bpf backend. */
void bpf_status_lines(FILE *out);

#endif
