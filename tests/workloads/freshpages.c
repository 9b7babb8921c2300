/*
 * freshpages - a workload that keeps touching pages it never touched
 * before: the worst case for a collector that remembers every page.
 *
 * Reserves a large stretch of address space (MAP_NORESERVE, no huge pages)
 * and writes one byte to each 4 KiB page in ascending order; every 1024
 * pages it gives the pages behind back (MADV_DONTNEED), so its own memory
 * stays small while every page fault is on a new address.  Wraps around
 * at the end of the reservation (64 GiB = 16 M pages: ~40 s at 400 k
 * faults/s before the first repeat; a small -r makes every fault after the
 * first pass one on a page seen before, at the same rate).
 *
 *   freshpages [-s SECONDS | -n PAGES] [-r MIB]
 *
 * Runs SECONDS (default 10) or until PAGES pages (a multiple of 1024) are
 * touched.
 * Prints "pages=N" (pages touched) at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	double seconds = 10;
	long mib = 64 << 10, limit = 0;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:r:")) != -1) {
		switch (opt) {
		case 's': seconds = atof(optarg); break;
		case 'n': limit = atol(optarg); break;
		case 'r': mib = atol(optarg); break;
		default:
			fprintf(stderr, "usage: freshpages [-s SECONDS | -n PAGES] [-r MIB]\n");
			return 2;
		}
	}
	if (mib < 4) {
		fprintf(stderr, "freshpages: -r is at least 4 (MiB)\n");
		return 2;
	}
	const size_t page = 4096, len = (size_t)mib << 20, npages = len / page;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		perror("freshpages: mmap");
		return 1;
	}
	madvise(base, len, MADV_NOHUGEPAGE);
	uint64_t end = wl_now_ns() + (uint64_t)(seconds * 1e9);
	size_t p = 0, touched = 0;

	while (limit ? touched < (size_t)limit : wl_now_ns() < end) {
		for (int i = 0; i < 1024; i++)
			((volatile char *)base)[(p + (size_t)i) * page] = 1;
		madvise(base + p * page, 1024 * page, MADV_DONTNEED);
		touched += 1024;
		p += 1024;
		if (p + 1024 > npages)
			p = 0;
	}
	printf("pages=%zu\n", touched);
	return 0;
}
