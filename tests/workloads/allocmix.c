/*
 * allocmix - a known mix of allocator calls for record --allocs: small and
 * large blocks from malloc, calloc and realloc, each from a site of its own
 * (a noinline function), all freed before the end.
 *
 *   allocmix [-w] [-n SCALE]   (-w: print "pid N", wait for SIGUSR1, then work;
 *                               SCALE: repeat the small calls SCALE times, default 1)
 *
 * Prints, after the work, one line per site with what it allocated:
 * "expect SITE BLOCKS SIZE" (BLOCKS blocks of SIZE bytes each), and
 * "done".  The sizes are the requested ones (calloc: n * size; realloc: the
 * new size), as an allocator probe sees them.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define NOINLINE __attribute__((noinline))

/* the small sites: below any --alloc-large, byte-sampled */
#define SMALL_MALLOC	200		/* bytes */
#define N_MALLOC	6000		/* blocks, times SCALE */
#define SMALL_CALLOC_N	5
#define SMALL_CALLOC_SZ	48		/* calloc(5, 48): 240 bytes */
#define N_CALLOC	4000
#define GROW_FROM	100		/* grow_start's blocks, grown by grow_realloc */
#define GROW_TO		400
#define N_GROW		3000
/* the large sites: every block recorded */
#define LARGE_MALLOC	(96 << 10)
#define N_LARGE_MALLOC	12
#define LARGE_CALLOC_N	20
#define LARGE_CALLOC_SZ	4096		/* calloc(20, 4096): 80 KiB */
#define N_LARGE_CALLOC	10
#define BIG_FROM	16		/* tiny_start's blocks, grown by big_realloc */
#define BIG_TO		(200 << 10)
#define N_BIG		4

static void *keep[(N_MALLOC + N_CALLOC + N_GROW) * 8 + 64];	/* live until the end */
static size_t nkeep;

static void hold(void *p)
{
	if (!p)
		exit(1);
	((volatile char *)p)[0] = 1;
	keep[nkeep++] = p;
}

static NOINLINE void *small_malloc(void) { return malloc(SMALL_MALLOC); }
static NOINLINE void *small_calloc(void) { return calloc(SMALL_CALLOC_N, SMALL_CALLOC_SZ); }
static NOINLINE void *grow_start(void) { return malloc(GROW_FROM); }
static NOINLINE void *grow_realloc(void *p) { return realloc(p, GROW_TO); }
static NOINLINE void *large_malloc(void) { return malloc(LARGE_MALLOC); }
static NOINLINE void *large_calloc(void) { return calloc(LARGE_CALLOC_N, LARGE_CALLOC_SZ); }
static NOINLINE void *tiny_start(void) { return malloc(BIG_FROM); }
static NOINLINE void *big_realloc(void *p) { return realloc(p, BIG_TO); }

int main(int argc, char **argv)
{
	int wait = 0;
	long scale = 1;
	sigset_t old;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-w"))
			wait = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			scale = atol(argv[++i]);
		else {
			fprintf(stderr, "usage: allocmix [-w] [-n SCALE]\n");
			return 2;
		}
	}
	if (scale < 1 || scale > 8) {
		fprintf(stderr, "allocmix: SCALE is 1 to 8\n");
		return 2;
	}
	wl_go_prepare(&old);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	wl_go_wait(wait, &old);

	for (long i = 0; i < N_MALLOC * scale; i++)
		hold(small_malloc());
	for (long i = 0; i < N_CALLOC * scale; i++)
		hold(small_calloc());
	for (long i = 0; i < N_GROW * scale; i++) {
		void *p = grow_start();
		if (!p)
			return 1;
		hold(grow_realloc(p));
	}
	for (int i = 0; i < N_LARGE_MALLOC; i++)
		hold(large_malloc());
	for (int i = 0; i < N_LARGE_CALLOC; i++)
		hold(large_calloc());
	for (int i = 0; i < N_BIG; i++) {
		void *p = tiny_start();
		if (!p)
			return 1;
		hold(big_realloc(p));
	}
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);

	printf("expect small_malloc %ld %d\n", N_MALLOC * scale, SMALL_MALLOC);
	printf("expect small_calloc %ld %d\n", N_CALLOC * scale, SMALL_CALLOC_N * SMALL_CALLOC_SZ);
	printf("expect grow_start %ld %d\n", N_GROW * scale, GROW_FROM);
	printf("expect grow_realloc %ld %d\n", N_GROW * scale, GROW_TO);
	printf("expect large_malloc %d %d\n", N_LARGE_MALLOC, LARGE_MALLOC);
	printf("expect large_calloc %d %d\n", N_LARGE_CALLOC, LARGE_CALLOC_N * LARGE_CALLOC_SZ);
	printf("expect tiny_start %d %d\n", N_BIG, BIG_FROM);
	printf("expect big_realloc %d %d\n", N_BIG, BIG_TO);
	printf("done\n");
	return 0;
}
