/* perf_ring.h - reading a perf_event_open mmap ring buffer. */
#ifndef MEMTRACE_SOURCE_PERF_RING_H
#define MEMTRACE_SOURCE_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	int fd;
	void *base;		/* control page + data pages */
	size_t map_len;
	size_t data_size;	/* power of two */
	unsigned char *data;
	unsigned char *tmp;	/* a record that wraps is copied here */
	size_t tmp_cap;
};

/* Maps 1 + data_pages (power of two) pages of fd.  0 or -1 with errno. */
int perf_ring_map(struct perf_ring *ring, int fd, unsigned data_pages);
void perf_ring_unmap(struct perf_ring *ring);

typedef void (*perf_record_fn)(void *ctx, const struct perf_event_header *h);

/* Hands every complete record to fn and frees the space.  Returns count. */
size_t perf_ring_drain(struct perf_ring *ring, perf_record_fn fn, void *ctx);

#endif
