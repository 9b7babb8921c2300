/* perf_session.h - the perf backend's state, shared by perf.c (records,
 * drain, source_ops) and perf_attach.c (events on the targets). */
#ifndef MEMTRACE_SOURCE_PERF_PERF_SESSION_H
#define MEMTRACE_SOURCE_PERF_PERF_SESSION_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/hint.h"
#include "source/perf/perf_dedupe.h"
#include "source/mem_event.h"
#include "source/perf_ring.h"
#include "source/side_maps.h"
#include "source/source.h"
#include "source/target.h"
#include "util/pid_set.h"

#define PERF_MAX_BATCH	8192

/* One ring per CPU; every event on that CPU writes into it (SET_OUTPUT). */
struct perf_stream {
	int fd;			/* the event that owns the ring */
	int cpu;
	struct perf_ring ring;
};

struct perf_fd {		/* one opened event */
	int fd;			/* -1 once closed as redundant */
	int aux_fd;		/* its group's leader (mem_event.aux_config), -1: none */
	uint64_t id;		/* PERF_EVENT_IOC_ID */
	pid_t tid;		/* 0 for per-CPU events */
	int cpu;
};

struct perf_attached {		/* a task of the -p tree */
	pid_t tid;
	pid_t pid;		/* its process */
	int pass;		/* the attach pass that found it */
	bool inherited;		/* no events of its own: forked by a covered task */
};

struct perf_session {
	struct mem_event ev;
	uint64_t sample_type;
	struct perf_stream *streams;	/* indexed by CPU, fd -1 when none */
	int ncpus;
	struct perf_fd *fds;		/* every event, in the order opened (ids ascending) */
	size_t nfds, fdcap;
	struct perf_attached *att;	/* -p tree: sorted by tid */
	size_t natt, attcap;
	int nprocs, nthreads;		/* -p tree after the last pass */
	int passes, inherited;
	struct dedupe dd;		/* -p tree: duplicate copies */
	uint64_t gen;			/* drains so far */
	int cur_ring;			/* the ring being drained */
	struct pid_set maps_seen;	/* live processes with a maps snapshot asked for */
	uint32_t last_pid;		/* of the last sample: in maps_seen */
	struct side_maps side_maps;	/* mappings from the side-band records (side_maps.h) */
	struct recorder *r;
	struct memtrace_sample batch[PERF_MAX_BATCH];
	size_t nbatch;
	uint64_t lost, throttled;
	int failed;
	pid_t target, child;
	int release_fd;			/* target_spawn()'s */
	int *watch;			/* target_watch() of each listed pid */
	int nwatch;
	int cgroup_fd;
	char cgroup_dir[4096];
	const struct record_opts *o;
	struct hint_state hint;		/* hint-faults (hint.c, perf_hint.c) */
};

/* perf_attach.c */
void perf_build_attr(struct perf_session *s, const struct record_opts *o, uint64_t period,
		     int on_exec, struct perf_event_attr *attr);
/* Events on the target: the spawned command, every CPU, a cgroup, or a tree. */
int perf_attach(struct perf_session *s, const struct record_opts *o, uint64_t period);
/* After recorder_begin: a maps snapshot of every attached process. */
void perf_attach_maps(struct perf_session *s);
/* Closes the events dedupe found redundant (never a ring's owner). */
void perf_close_redundant(struct perf_session *s);

/* perf_hint.c: the hint-faults source (hint.c: NUMA balancing, kinds) */
/* Sets addr, ip and data_src (fault kind) from the tracepoint's raw record. */
void perf_hint_sample(struct perf_session *s, struct memtrace_sample *m, const unsigned char *raw,
		      uint32_t rawlen);

#endif
