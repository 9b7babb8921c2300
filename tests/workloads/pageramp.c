/*
 * pageramp - the sawtooth workload of valgrind-ws (paper 000, section 3.1).
 *
 * A region of PAGES pages is claimed one page at a time up to PAGES and
 * released again down to zero; after every step one byte is written to
 * every second claimed page.  Released pages get MADV_DONTNEED so that the
 * next cycle faults them in again.  Repeated CYCLES times.
 *
 * With the page-fault source every cycle faults exactly the even pages
 * 0, 2, 4, ... PAGES-2 once each, in ascending order, from the main thread.
 *
 *   pageramp [-n PAGES] [-c CYCLES] [-g GAP_MS] [-w]
 *
 * -g sleeps GAP_MS between cycles (so windows can separate them); -w waits
 * for SIGUSR1 after printing the region, so a recorder can attach first.
 * Prints one line: "base=0x... pages=N cycles=C tid=T page_size=P".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

/* noinline: its faults are attributed to it by name in the tests */
static __attribute__((noinline)) void touch_pages(volatile char *region, long page, long claimed)
{
	for (long p = 0; p < claimed; p += 2)
		region[p * page] = (char)p;
}

int main(int argc, char **argv)
{
	long pages = 1024, cycles = 10, gap_ms = 0;
	int wait_go = 0, opt;

	while ((opt = getopt(argc, argv, "n:c:g:w")) != -1) {
		switch (opt) {
		case 'n': pages = atol(optarg); break;
		case 'c': cycles = atol(optarg); break;
		case 'g': gap_ms = atol(optarg); break;
		case 'w': wait_go = 1; break;
		default:
			fprintf(stderr, "usage: pageramp [-n PAGES] [-c CYCLES] [-g GAP_MS] [-w]\n");
			return 2;
		}
	}
	if (pages < 2 || pages % 2 || cycles < 1) {
		fprintf(stderr, "pageramp: PAGES must be even and >= 2, CYCLES >= 1\n");
		return 2;
	}
	long page = sysconf(_SC_PAGESIZE);
	char *region = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		fprintf(stderr, "pageramp: mmap: %s\n", strerror(errno));
		return 1;
	}
	madvise(region, (size_t)(pages * page), MADV_NOHUGEPAGE);

	sigset_t old;
	wl_go_prepare(&old);

	printf("base=%p pages=%ld cycles=%ld tid=%d page_size=%ld\n",
	       (void *)region, pages, cycles, (int)getpid(), page);
	fflush(stdout);
	wl_go_wait(wait_go, &old);

	for (long c = 0; c < cycles; c++) {
		for (long n = 1; n <= pages; n++)
			touch_pages(region, page, n);
		for (long n = pages; n > 0; n--) {
			madvise(region + (n - 1) * page, (size_t)page, MADV_DONTNEED);
			touch_pages(region, page, n - 1);
		}
		if (gap_ms) {
			struct timespec ts = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
