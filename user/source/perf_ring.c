/* perf_ring.c - data_head/data_tail protocol of the perf mmap ring. */
#include "source/perf_ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/util.h"

int perf_ring_map(struct perf_ring *ring, int fd, unsigned data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->map_len = page * (1 + data_pages);
	ring->base = mmap(NULL, ring->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring->base == MAP_FAILED) {
		ring->base = NULL;
		return -1;
	}
	ring->data = (unsigned char *)ring->base + page;
	ring->data_size = page * data_pages;
	return 0;
}

void perf_ring_unmap(struct perf_ring *ring)
{
	if (ring->base)
		munmap(ring->base, ring->map_len);
	free(ring->tmp);
	memset(ring, 0, sizeof(*ring));
}

size_t perf_ring_drain(struct perf_ring *ring, perf_record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pc = ring->base;
	size_t count = 0;

	if (!pc)
		return 0;
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	size_t mask = ring->data_size - 1;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask;

		if (off + sizeof(h) <= ring->data_size) {
			memcpy(&h, ring->data + off, sizeof(h));
		} else {
			size_t first = ring->data_size - off;
			memcpy(&h, ring->data + off, first);
			memcpy((char *)&h + first, ring->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		const struct perf_event_header *rec;
		if (off + h.size <= ring->data_size) {
			rec = (const void *)(ring->data + off);
		} else {
			if (ring->tmp_cap < h.size) {
				ring->tmp = mt_xrealloc(ring->tmp, h.size);
				ring->tmp_cap = h.size;
			}
			size_t first = ring->data_size - off;
			memcpy(ring->tmp, ring->data + off, first);
			memcpy(ring->tmp + first, ring->data, h.size - first);
			rec = (const void *)ring->tmp;
		}
		fn(ctx, rec);
		tail += h.size;
		count++;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return count;
}
