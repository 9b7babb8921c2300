/*
 * hintsets - three page sets with known access patterns, for the
 * hint-faults source.
 *
 * One anonymous private mapping of 3 * PAGES pages (MADV_NOHUGEPAGE):
 * set A (pages 0..PAGES-1) is read by every thread over and over, set B
 * (the next PAGES) is written once at the start and never again, set C
 * (the last PAGES) is never touched.  THREADS threads (default 2: NUMA
 * balancing on one node skips the private memory of single-threaded
 * processes) sweep A until SECONDS have passed.
 *
 *   hintsets [-n PAGES] [-t THREADS] [-s SECONDS] [-x] [-w]
 *
 * -x: write A and B on CPU 0, then sweep A on CPU 1 only (in a guest with
 * one CPU per NUMA node: A lies on the other node, which the scanner
 * unmaps even for a single-threaded process; pages on the node a
 * single-threaded process runs on are skipped).
 * -w: print, then wait for SIGUSR1 (a recorder attaches first).  Prints
 * "A=0x... B=0x... C=0x... pages=N page_size=P" and, at the end,
 * "sweeps=S".
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

static volatile char *set_a;
static long npages, page;
static uint64_t deadline;
static volatile long sweeps;

static void *sweep_a(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	while (wl_now_ns() < deadline) {
		for (long p = 0; p < npages; p++)
			sum += (unsigned char)set_a[p * page];
		__sync_fetch_and_add(&sweeps, 1);
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long threads = 2, seconds = 6;
	int wait_go = 0, cross = 0, opt;

	npages = 4096;
	while ((opt = getopt(argc, argv, "n:t:s:xw")) != -1) {
		switch (opt) {
		case 'n': npages = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 's': seconds = atol(optarg); break;
		case 'x': cross = 1; break;
		case 'w': wait_go = 1; break;
		default:
			fprintf(stderr, "usage: hintsets [-n PAGES] [-t THREADS] [-s SECONDS] [-x] [-w]\n");
			return 2;
		}
	}
	if (npages < 1 || threads < 1 || threads > 64 || seconds < 1) {
		fprintf(stderr, "hintsets: bad arguments\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(3 * npages * page);
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("hintsets: mmap");
		return 1;
	}
	madvise(base, len, MADV_NOHUGEPAGE);
	set_a = base;
	char *set_b = base + npages * page, *set_c = base + 2 * npages * page;
	printf("A=%p B=%p C=%p pages=%ld page_size=%ld\n", (void *)base, (void *)set_b,
	       (void *)set_c, npages, page);
	fflush(stdout);
	if (wait_go) {
		signal(SIGUSR1, wl_on_usr1);
		while (!wl_go)
			pause();
	}
	cpu_set_t cpus;
	if (cross) {
		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			perror("hintsets: cpu 0");
	}
	for (long p = 0; p < npages; p++) {
		base[p * page] = 1;	/* A: written first, so reads never map the zero page */
		set_b[p * page] = 1;	/* B: once */
	}
	if (cross) {
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			perror("hintsets: cpu 1");
	}
	deadline = wl_now_ns() + (uint64_t)seconds * 1000000000ull;
	pthread_t tid[64];
	for (long i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, sweep_a, NULL);
	sweep_a(NULL);
	for (long i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("sweeps=%ld\n", (long)sweeps);
	return 0;
}
