/* perf_dedupe.h - dropping the second copy of a sample when a task is
 * covered twice by our perf events (perf backend, -p).
 *
 * How a task gets covered twice: `-p` opens one event per thread and CPU with
 * inherit, then reads /proc again for tasks that appeared meanwhile and
 * opens events for them too.  A task forked by an already-attached task
 * after its events existed has inherited copies of them; opening its own
 * events as well makes every fault count twice.  The attach passes avoid
 * that where /proc tells enough (perf_attach.c); this filter is the exact
 * net under it, on the samples themselves:
 *
 *  - identical copies: software events (page faults) that fire on one
 *    fault share one perf_sample_data (do_perf_sw_event), so the two
 *    records are identical (same id, time, tid, cpu, addr) and adjacent in
 *    that CPU's ring.  Two real faults never share a nanosecond timestamp
 *    on one CPU: the later copy is dropped.
 *  - lineages: events that sample independently (hardware) write their own
 *    id, and an inherited copy writes its original's id (primary_event_id).
 *    Event ids grow with each perf_event_open, and a task can only carry an
 *    older event as an inherited copy, so when one task on one CPU shows
 *    samples of two ids the larger id is the redundant lineage: its
 *    samples that had no identical copy are dropped from then on, and its
 *    fd can be closed.  An identical pair also shows that its task runs
 *    with two copies: the task's own event on that CPU is the newer one.
 *
 * Only events opened in a later pass ("suspect": their task may have
 * inherited) can be redundant; events of the first pass never are (their
 * tasks existed before any of our events).  While suspects exist, samples
 * wait one drain (a copy lands in the same ring right after the first);
 * the caller releases them after the next drain.  Pure: no perf, no I/O.
 */
#ifndef MEMTRACE_SOURCE_PERF_PERF_DEDUPE_H
#define MEMTRACE_SOURCE_PERF_PERF_DEDUPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uapi/memtrace.h"

struct dedupe_event {
	uint64_t id;		/* PERF_EVENT_IOC_ID */
	pid_t owner;		/* the tid it was opened for */
	int cpu;
	bool suspect;		/* opened in a pass after the first */
	bool redundant;		/* another lineage covers owner on cpu */
	bool reported;		/* handed out by dedupe_next_redundant() */
};

struct dedupe_held {
	struct memtrace_sample s;
	uint64_t id;
	uint64_t gen;		/* the drain that read it */
	bool paired;		/* an identical copy followed: it is the one real sample */
};

struct dedupe_last {		/* the last sample read from one ring */
	bool valid;
	uint32_t tid, cpu;
	uint64_t time, addr;
};

struct dedupe_min {		/* smallest id seen per (tid, cpu) */
	uint64_t key;		/* tid << 20 | cpu, 0 = empty */
	uint64_t id;		/* UINT64_MAX after the task exited */
};

struct dedupe {
	struct dedupe_event *ev;	/* in the order opened: ids ascending */
	size_t nev, evcap;
	bool active;			/* a suspect event exists */
	struct dedupe_last *last;	/* per ring */
	int nrings;
	struct dedupe_held *held;
	size_t nheld, heldcap;
	struct dedupe_min *mins;
	size_t nmins, mincap;		/* power of two */
	uint64_t dropped_copies;	/* identical copies dropped */
	uint64_t dropped_lineage;	/* samples of redundant lineages dropped */
	uint64_t redundant_events;
};

void dedupe_init(struct dedupe *d, int nrings);
void dedupe_free(struct dedupe *d);

/* An event we opened, in the order opened (ids ascending). */
void dedupe_add_event(struct dedupe *d, uint64_t id, pid_t owner, int cpu, bool suspect);

enum dedupe_verdict { DEDUPE_PASS, DEDUPE_HELD, DEDUPE_DROP };

/*
 * A sample read from ring `ring` in drain `gen`.  PASS: hand it on now;
 * HELD: kept until dedupe_release(); DROP: a duplicate.
 */
enum dedupe_verdict dedupe_sample(struct dedupe *d, int ring, const struct memtrace_sample *s,
				  uint64_t id, uint64_t gen);

/* The task exited (PERF_RECORD_EXIT): its tid may be reused. */
void dedupe_exit(struct dedupe *d, pid_t tid);

/*
 * Moves the held samples read before drain `gen` (all of them if all) that
 * are not duplicates into out (up to max, in the order read); returns how
 * many.  Call again while it returns max.
 */
size_t dedupe_release(struct dedupe *d, uint64_t gen, bool all, struct memtrace_sample *out,
		      size_t max);

/* Time of the oldest held sample, or UINT64_MAX. */
uint64_t dedupe_oldest(const struct dedupe *d);

/*
 * Evidence that owner's own events on cpu are redundant also comes from
 * identical copies of owner's samples: the index of the next event found
 * redundant and not yet reported, or -1.
 */
int dedupe_next_redundant(struct dedupe *d);

#endif
