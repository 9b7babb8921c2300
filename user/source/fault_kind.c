/* fault_kind.c - first touch, hint fault or write-protect fault. */
#include "source/fault_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "util/util.h"

#define PAGE_SHIFT	12
#define PAGE_BITS	36		/* 48-bit user addresses */
#define PM_PRESENT	(1ull << 63)
#define PM_SWAPPED	(1ull << 62)
#define PM_BATCH	4096		/* pagemap entries per read */

/* x86 page-fault error code bits (arch/x86/include/asm/trap_pf.h) */
#define PF_PROT		(1u << 0)	/* the page was present */
#define PF_WRITE	(1u << 1)
#define PF_INSTR	(1u << 4)

void fault_kinds_init(struct fault_kinds *fk)
{
	memset(fk, 0, sizeof(*fk));
}

void fault_kinds_free(struct fault_kinds *fk)
{
	free(fk->slot);
	memset(fk, 0, sizeof(*fk));
}

static uint64_t key_of(pid_t pid, uint64_t addr)
{
	return ((uint64_t)pid << PAGE_BITS) | ((addr >> PAGE_SHIFT) & ((1ull << PAGE_BITS) - 1));
}

/* The slot of block (block + 1 = block1), a free one if absent. */
static struct fault_block *block_slot(struct fault_block *slot, uint64_t cap, uint64_t block1)
{
	uint64_t mask = cap - 1, i = (block1 * 0x9e3779b97f4a7c15ull >> 17) & mask;

	while (slot[i].block1 && slot[i].block1 != block1)
		i = (i + 1) & mask;
	return &slot[i];
}

/* Adds key; 1 if it was new. */
static int set_add(struct fault_kinds *fk, uint64_t key)
{
	if ((fk->nblocks + 1) * 2 > fk->cap) {
		struct fault_block *old = fk->slot;
		uint64_t oldcap = fk->cap;
		fk->cap = oldcap ? oldcap * 2 : 1u << 10;
		fk->slot = mt_xcalloc(fk->cap, sizeof(*fk->slot));
		for (uint64_t i = 0; i < oldcap; i++)
			if (old[i].block1)
				*block_slot(fk->slot, fk->cap, old[i].block1) = old[i];
		free(old);
	}
	struct fault_block *b = block_slot(fk->slot, fk->cap, (key >> 6) + 1);
	uint64_t bit = 1ull << (key & 63);

	if (!b->block1) {
		b->block1 = (key >> 6) + 1;
		fk->nblocks++;
	} else if (b->seen & bit) {
		return 0;
	}
	b->seen |= bit;
	fk->n++;
	return 1;
}

static void seed_range(struct fault_kinds *fk, int pm, pid_t pid, uint64_t start, uint64_t end)
{
	uint64_t buf[PM_BATCH];

	for (uint64_t page = start >> PAGE_SHIFT; page < end >> PAGE_SHIFT;) {
		uint64_t want = (end >> PAGE_SHIFT) - page;
		if (want > PM_BATCH)
			want = PM_BATCH;
		ssize_t got = pread(pm, buf, want * 8, (off_t)(page * 8));
		if (got <= 0)
			return;
		for (ssize_t i = 0; i < got / 8; i++)
			if (buf[i] & (PM_PRESENT | PM_SWAPPED))
				fk->seeded += (uint64_t)set_add(fk, key_of(pid, (page + (uint64_t)i) << PAGE_SHIFT));
		page += (uint64_t)got / 8;
	}
}

int fault_kinds_seed(struct fault_kinds *fk, pid_t pid)
{
	char path[64], line[512];

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	int pm = open(path, O_RDONLY | O_CLOEXEC);
	if (pm < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "re");
	if (!maps) {
		int e = errno;
		close(pm);
		errno = e;
		return -1;
	}
	while (fgets(line, sizeof(line), maps)) {
		uint64_t start, end;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) != 2 ||
		    end > (1ull << (PAGE_BITS + PAGE_SHIFT)))
			continue;	/* [vsyscall] */
		seed_range(fk, pm, pid, start, end);
		/* a line longer than line[]: skip its rest */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), maps))
			;
	}
	fclose(maps);
	close(pm);
	return 0;
}

uint64_t fault_kinds_classify(struct fault_kinds *fk, pid_t pid, uint64_t addr,
			      uint64_t error_code)
{
	unsigned kind;
	uint64_t op = error_code & PF_INSTR ? PERF_MEM_OP_EXEC :
		      error_code & PF_WRITE ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;

	if (error_code & PF_PROT) {
		kind = MEMTRACE_FAULT_WRITE_PROTECT;
		set_add(fk, key_of(pid, addr));
	} else {
		kind = set_add(fk, key_of(pid, addr)) ? MEMTRACE_FAULT_FIRST_TOUCH : MEMTRACE_FAULT_HINT;
	}
	fk->count[kind]++;
	return op | (uint64_t)kind << MEMTRACE_FAULT_KIND_SHIFT;
}
