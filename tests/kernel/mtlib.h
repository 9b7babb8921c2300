/* mtlib.h - small helpers for the guest tests of memtrace.ko: open a
 * session, configure, map the rings, drain them.  Header-only, static.
 */
#ifndef MEMTRACE_MTLIB_H
#define MEMTRACE_MTLIB_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../../include/uapi/memtrace.h"

#define MT_MAX_CPUS 64

struct mt_session {
	int fd;
	uint32_t ring_records;
	size_t ring_bytes;
	int ncpus;			/* possible CPUs (nr_cpu_ids) */
	unsigned char *map;
	size_t map_bytes;
	uint64_t read[MT_MAX_CPUS];	/* records drained per CPU */
};

static inline uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void mt_default_config(struct memtrace_config *c, pid_t pid,
				     uint32_t ring)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->version = MEMTRACE_ABI_VERSION;
	c->pid = pid;
	c->event_type = PERF_TYPE_SOFTWARE;
	c->event_config = PERF_COUNT_SW_PAGE_FAULTS;
	c->sample_period = 1;
	c->ring_records = ring;
}

/* perf's own user page-fault event on a task and its descendants, counting
 * (the caller adds sample_period and sample_type to sample) */
static inline void mt_fault_event_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = 1;
}

static inline int mt_possible_cpus(int fd)
{
	struct memtrace_stats st = { .size = sizeof(st) };

	if (ioctl(fd, MEMTRACE_IOC_STATS, &st))
		return -1;
	return (int)st.nr_cpus;
}

/* Configures and maps; 0 or -1 with errno. */
static inline int mt_setup(struct mt_session *s, const struct memtrace_config *c)
{
	long pg = sysconf(_SC_PAGESIZE);

	memset(s->read, 0, sizeof(s->read));
	if (ioctl(s->fd, MEMTRACE_IOC_CONFIGURE, c))
		return -1;
	s->ring_records = c->ring_records;
	s->ring_bytes = (pg + (size_t)c->ring_records *
			 sizeof(struct memtrace_sample) + pg - 1) / pg * pg;
	s->ncpus = mt_possible_cpus(s->fd);
	if (s->ncpus <= 0 || s->ncpus > MT_MAX_CPUS)
		return -1;
	s->map_bytes = s->ring_bytes * s->ncpus;
	s->map = mmap(NULL, s->map_bytes, PROT_READ, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED)
		return -1;
	return 0;
}

static inline int mt_open(struct mt_session *s, const struct memtrace_config *c)
{
	s->fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		return -1;
	return mt_setup(s, c);
}

static inline void mt_close(struct mt_session *s)
{
	if (s->map && s->map != MAP_FAILED)
		munmap(s->map, s->map_bytes);
	s->map = NULL;
	close(s->fd);
}

static inline struct memtrace_ring_header *mt_hdr(struct mt_session *s, int cpu)
{
	return (struct memtrace_ring_header *)(s->map + (size_t)cpu * s->ring_bytes);
}

typedef void (*mt_sample_fn)(void *ctx, int cpu, const struct memtrace_sample *r);

/* Drains every ring once; returns records drained or -1. */
static inline long mt_drain(struct mt_session *s, mt_sample_fn fn, void *ctx)
{
	long pg = sysconf(_SC_PAGESIZE), total = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct memtrace_ring_header *h = mt_hdr(s, cpu);
		const struct memtrace_sample *rec =
			(const void *)((const unsigned char *)h + pg);
		uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		uint64_t tail = h->tail;
		struct memtrace_consume c = { .cpu = (uint32_t)cpu };

		if (head == tail)
			continue;
		for (uint64_t i = tail; i < head; i++)
			fn(ctx, cpu, &rec[i & (s->ring_records - 1)]);
		c.tail = head;
		if (ioctl(s->fd, MEMTRACE_IOC_CONSUME, &c))
			return -1;
		s->read[cpu] += head - tail;
		total += (long)(head - tail);
	}
	return total;
}

static inline int mt_ended(struct mt_session *s)
{
	return (__atomic_load_n(&mt_hdr(s, 0)->flags, __ATOMIC_ACQUIRE) &
		MEMTRACE_RING_ENDED) != 0;
}

/* Drains until the session ends (target exit); -1 on timeout. */
static inline int mt_drain_until_end(struct mt_session *s, mt_sample_fn fn,
				     void *ctx, int timeout_ms)
{
	uint64_t deadline = mt_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	for (;;) {
		struct pollfd p = { .fd = s->fd, .events = POLLIN };
		int ended;

		poll(&p, 1, 100);
		ended = mt_ended(s);
		if (mt_drain(s, fn, ctx) < 0)
			return -1;
		if (ended && (p.revents & POLLHUP))
			return 0;
		if (mt_now_ns() > deadline) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/* Sums per-CPU stats; returns 0 or -1. */
static inline int mt_stats(struct mt_session *s, uint64_t *produced,
			   uint64_t *dropped, uint64_t *throttled)
{
	struct memtrace_cpu_stats cs[MT_MAX_CPUS];
	struct memtrace_stats st = { .size = sizeof(st), .nr_cpus = MT_MAX_CPUS,
				     .cpus = (uintptr_t)cs };

	if (ioctl(s->fd, MEMTRACE_IOC_STATS, &st))
		return -1;
	*produced = *dropped = 0;
	if (throttled)
		*throttled = 0;
	for (unsigned i = 0; i < st.nr_cpus && i < MT_MAX_CPUS; i++) {
		*produced += cs[i].produced;
		*dropped += cs[i].dropped;
		if (throttled)
			*throttled += cs[i].throttled;
	}
	return 0;
}

#endif
