/*
 * spaces.h - address-space identity: the key of a sampled (pid, address),
 * which reports bucket by instead of the bare address.
 *
 *   - private memory belongs to its process: keys of two processes never
 *     merge.  The primary process (the trace's target, or --pid) keeps its
 *     addresses as keys; every other process gets a tag in bits 48..62
 *     (its space number << 48) on top of its addresses;
 *   - a shared mapping ('s' in the perms column, with an inode: shared
 *     anonymous memory, memfd, SysV shm, MAP_SHARED files) is keyed by what
 *     is mapped, (device, inode) and file offset: its first mapping seen
 *     (the primary's first, then the other pids' in pid order) keeps its
 *     key range, and every other mapping of the same object translates to
 *     it, so one page mapped by 40 processes at different places is one key;
 *   - kernel addresses (bit 63 set) are one space shared by all and stay as
 *     they are.
 *
 * A single-process trace therefore has key == address everywhere.  The
 * mapping of an address is its pid's layout (newest snapshot that maps it,
 * resolver_layout), the same rule that names it.  Addresses at or above
 * 2^48 in user space (5-level paging) are not told apart from tags.
 *
 * Per sample (mt_spaces_key_samples, by runs of one pid): nothing for the
 * primary's private memory, an add of the tag for another process, and for
 * a process with translated shared ranges a check of the last range hit,
 * else a binary search of its sorted shared ranges.
 */
#ifndef MEMTRACE_RESOLVE_SPACES_H
#define MEMTRACE_RESOLVE_SPACES_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/resolve.h"
#include "uapi/memtrace.h"

#define MT_SPACE_SHIFT 48
#define MT_SPACE_MAX 0x7fffu	/* space numbers beyond share this tag */
#define MT_SPACE_ADDR_MASK ((1ull << MT_SPACE_SHIFT) - 1)
#define MT_KERNEL_BIT (1ull << 63)

struct resolver;

struct mt_space_range {		/* a shared mapping of one pid */
	uint64_t start, end;	/* [start, end) in the pid's address space */
	uint64_t delta;		/* key = addr + delta (mod 2^64) */
	uint32_t obj;		/* index into mt_spaces.obj */
};

struct mt_space {
	uint32_t pid;
	uint64_t tag;		/* number << 48; 0 for the primary */
	int translate;		/* some range has delta != tag */
	size_t n, last;		/* ranges, the last one hit */
	uint64_t gap_lo, gap_hi;	/* the last [lo, hi) between ranges hit (private) */
	struct mt_space_range *v;	/* sorted by start */
};

struct mt_shared_object {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint64_t base;		/* key of file offset 0 */
	uint32_t pid;		/* whose mapping gave the key range */
	uint32_t nprocs;	/* processes that map it */
	uint32_t last_pid;
};

struct mt_spaces {
	uint32_t primary;	/* 0: none known yet, the first pid keyed becomes it */
	struct mt_space *v;	/* index = space number (clamped to MT_SPACE_MAX for tags) */
	size_t n, cap;
	uint32_t *hash;		/* pid -> index + 1, open addressing */
	size_t hcap;
	uint32_t last_pid;
	size_t last;		/* index of last_pid, valid when n > 0 */
	struct mt_shared_object *obj;
	size_t nobj;
	struct memtrace_range *layout;	/* in key order */
	size_t nlayout;
	char **names;		/* owned strings of layout names */
	size_t nnames;
};

/* Built from every pid's layout in r.  primary 0: r's main pid, if any. */
struct mt_spaces *mt_spaces_build(struct resolver *r, uint32_t primary);
void mt_spaces_free(struct mt_spaces *s);

/* Index of pid's space (created, untagged ranges, if the trace had no maps of it). */
size_t mt_spaces_index(struct mt_spaces *s, uint32_t pid);
uint64_t mt_space_translate(struct mt_space *sp, uint64_t addr);

static inline uint64_t mt_spaces_key(struct mt_spaces *s, uint32_t pid, uint64_t addr)
{
	if (addr & MT_KERNEL_BIT)
		return addr;
	/* the index first: mt_spaces_index() may reallocate s->v, and
	 * &s->v[mt_spaces_index(..)] may read s->v before the call */
	size_t k = pid == s->last_pid && s->n ? s->last : mt_spaces_index(s, pid);
	struct mt_space *sp = &s->v[k];

	if (!sp->translate)
		return addr + sp->tag;
	return mt_space_translate(sp, addr);
}

/* addr and ip (when not 0) of n samples replaced by their keys. */
void mt_spaces_key_samples(struct mt_spaces *s, struct memtrace_sample *smp, size_t n);

/*
 * The pid and address behind key.  Returns the index + 1 of the shared
 * object whose key range holds it, 0 for private memory, -1 for a space
 * number no pid has.
 */
long mt_spaces_decode(const struct mt_spaces *s, uint64_t key, uint32_t *pid, uint64_t *addr);

#endif
