/*
 * allocsites - a workload with known allocation sites for record --allocs:
 * two arrays, a scratch buffer that reuses the freed matrix's address, a
 * hash table (buckets from calloc, entries from malloc then grown by
 * realloc), and a table mapped with mmap directly.  Every block is large
 * (mmap'd by glibc: M_MMAP_THRESHOLD is 64 KiB), so each page the program
 * writes first is one page fault, at an address inside the block, at a
 * time the block is live.
 *
 *   allocsites [-w]     (-w: print "pid N", wait for SIGUSR1, then work)
 *
 * Prints, after the work, one line per site with the page faults it must
 * be charged with ("expect SITE N") and whether the scratch buffer reused
 * the matrix's address ("reuse 1").  The first page of a malloc'd block is
 * not counted: malloc writes the chunk header there (at the block's
 * address - 8, outside the block) before the program touches it.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "workload.h"

#define PAGE	4096ul
#define NOINLINE __attribute__((noinline))

/* A block's pages: 0 untouched, 1 read (the zero page), 2 written. */
struct pages {
	unsigned char state[1024];
	long faults;		/* page faults charged to the block's current site */
};

static void no_huge(void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p & ~(PAGE - 1);

	madvise((void *)a, (uintptr_t)p + n - a, MADV_NOHUGEPAGE);
}

/* A first read of a page maps the zero page (a fault), a first write after
 * it copies (another); a first write of an untouched page is one fault.
 * Page 0 of a malloc'd block (skip0) was written by malloc already. */
static void account(char *b, struct pages *pg, size_t off, int write, int skip0)
{
	size_t page = ((uintptr_t)(b + off) >> 12) - ((uintptr_t)b >> 12);

	if (skip0 && page == 0)
		return;
	if (pg->state[page] == 0 || (write && pg->state[page] == 1))
		pg->faults++;
	if (write)
		pg->state[page] = 2;
	else if (!pg->state[page])
		pg->state[page] = 1;
}

/* Writes byte off of block b. */
static void put(char *b, struct pages *pg, size_t off, int skip0)
{
	((volatile char *)b)[off] = 1;
	account(b, pg, off, 1, skip0);
}

static void touch_all(char *b, struct pages *pg, size_t n, int skip0)
{
	for (size_t off = 0; off < n; off += 512)
		put(b, pg, off, skip0);
	put(b, pg, n - 1, skip0);
}

static NOINLINE char *make_matrix(size_t n) { char *p = malloc(n); no_huge(p, n); return p; }
static NOINLINE char *make_vector(size_t n) { char *p = malloc(n); no_huge(p, n); return p; }
static NOINLINE char *make_scratch(size_t n) { char *p = malloc(n); no_huge(p, n); return p; }

static NOINLINE char *map_table(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	no_huge(p, n);
	return p;
}

struct entry { uint64_t key, value; };

struct table {
	uint64_t *buckets;	/* 1 + entry index, 0 = empty */
	size_t nbuckets;
	struct entry *entries;
	size_t n, cap;
	struct pages bpages, epages;
};

static NOINLINE uint64_t *ht_buckets(size_t n)
{
	uint64_t *p = calloc(n, sizeof(uint64_t));
	no_huge(p, n * sizeof(uint64_t));
	return p;
}

static NOINLINE struct entry *ht_entries(size_t n)
{
	struct entry *p = malloc(n * sizeof(struct entry));
	no_huge(p, n * sizeof(struct entry));
	return p;
}

static NOINLINE struct entry *ht_grow(struct entry *e, size_t n)
{
	struct entry *p = realloc(e, n * sizeof(struct entry));
	no_huge(p, n * sizeof(struct entry));
	return p;
}

static void ht_insert(struct table *t, uint64_t key, long *grown_faults)
{
	size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull >> 40) % t->nbuckets;

	if (t->n == t->cap) {
		*grown_faults = t->epages.faults;	/* the malloc site's share */
		t->epages.faults = 0;			/* from now on: the realloc site's */
		t->cap *= 4;
		t->entries = ht_grow(t->entries, t->cap);
	}
	for (;; h = (h + 1) % t->nbuckets) {
		account((char *)t->buckets, &t->bpages, h * sizeof(uint64_t), 0, 1);
		if (!((volatile uint64_t *)t->buckets)[h])
			break;
	}
	put((char *)t->entries, &t->epages, t->n * sizeof(struct entry), 1);
	((volatile struct entry *)t->entries)[t->n] = (struct entry){ key, key * 3 };
	put((char *)t->buckets, &t->bpages, h * sizeof(uint64_t), 1);
	t->buckets[h] = ++t->n;
}

int main(int argc, char **argv)
{
	static struct pages mat, vec, scr, map;
	static struct table t;
	long entries_faults = 0;
	sigset_t old;

	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	wl_go_prepare(&old);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	wl_go_wait(argc > 1 && !strcmp(argv[1], "-w"), &old);

	char *m = make_matrix(256 << 10);
	touch_all(m, &mat, 256 << 10, 1);
	char *v = make_vector(640 << 10);
	touch_all(v, &vec, 640 << 10, 1);
	free(m);
	char *s = make_scratch(256 << 10);	/* glibc munmapped m: the same hole */
	touch_all(s, &scr, 256 << 10, 1);

	t.nbuckets = 65536;
	t.buckets = ht_buckets(t.nbuckets);
	t.cap = 8192;
	t.entries = ht_entries(t.cap);
	for (uint64_t k = 1; k <= 20000; k++)
		ht_insert(&t, k * 7919, &entries_faults);

	char *tab = map_table(256 << 10);
	touch_all(tab, &map, 256 << 10, 0);
	munmap(tab, 256 << 10);

	printf("reuse %d\n", s == m);
	printf("expect make_matrix %ld\n", mat.faults);
	printf("expect make_vector %ld\n", vec.faults);
	printf("expect make_scratch %ld\n", scr.faults);
	printf("expect ht_buckets %ld\n", t.bpages.faults);
	printf("expect ht_entries %ld\n", entries_faults);
	printf("expect ht_grow %ld\n", t.epages.faults);
	printf("expect map_table %ld\n", map.faults);
	free(v);
	free(s);
	free(t.buckets);
	free(t.entries);
	return 0;
}
