/* mt_stream.h - the binary stream from the memtrace Valgrind tool
 * (user/source/valgrind/vgtool/mt_main.c) to the collector (user/source/valgrind/vgtool_stream.c).
 *
 * The tool writes messages into the fd given by --mt-fd, each a header
 * { u32 type, u32 bytes of payload } and its payload, little-endian, in
 * the guest's instruction order:
 *
 *   MT_VG_HELLO     struct mt_vg_hello, once, first
 *   MT_VG_ACCESSES  n * struct mt_vg_access (n = bytes / 32): sampled data accesses
 *   MT_VG_ALLOC     struct mt_vg_alloc then nframes u64 return addresses
 *                   (innermost first; frame 0 is the replacement malloc itself)
 *   MT_VG_FREE      struct mt_vg_free
 *   MT_VG_FORK      struct mt_vg_fork: the guest forked (the child runs on
 *                   under the tool but streams nothing)
 *   MT_VG_AGG       struct mt_vg_agg then rows * struct mt_vg_agg_row: with
 *                   --aggregate=N, counts per bucket of the sampled accesses
 *                   of interval k (instructions ((k-1)N, kN]) instead of
 *                   ACCESSES; one interval may take several messages (its
 *                   samples are in the first), intervals come in order
 *   MT_VG_END       struct mt_vg_end, once, last (the guest's exit)
 *
 * Shared by the tool (no libc there: this header only uses <stdint.h>'s
 * types) and the collector.
 */
#ifndef MEMTRACE_SOURCE_VALGRIND_VGTOOL_MT_STREAM_H
#define MEMTRACE_SOURCE_VALGRIND_VGTOOL_MT_STREAM_H

#include <stdint.h>

#define MT_VG_MAGIC	0x4756544du	/* "MTVG" */
#define MT_VG_VERSION	1

enum mt_vg_type {
	MT_VG_HELLO = 1,
	MT_VG_ACCESSES = 2,
	MT_VG_ALLOC = 3,
	MT_VG_FREE = 4,
	MT_VG_END = 5,
	MT_VG_FORK = 6,
	MT_VG_AGG = 7,
};

/* Bits of mt_vg_access.op: perf's PERF_MEM_OP_LOAD / _STORE (lackey's M is both). */
#define MT_VG_OP_LOAD	0x2
#define MT_VG_OP_STORE	0x4

/* Allocation kinds (mt_vg_alloc.kind). */
enum mt_vg_alloc_kind {
	MT_VG_MALLOC = 1, MT_VG_CALLOC, MT_VG_REALLOC, MT_VG_MEMALIGN,
	MT_VG_NEW, MT_VG_NEW_ARRAY,
};

/* The longest message payload the tool writes; a reader rejects longer. */
#define MT_VG_MAX_MSG	(1u << 20)
#define MT_VG_MAX_FRAMES 64

struct mt_vg_header {
	uint32_t type;
	uint32_t bytes;
};

struct mt_vg_hello {
	uint32_t magic;		/* MT_VG_MAGIC */
	uint32_t version;	/* MT_VG_VERSION */
	uint32_t pid;		/* the guest's pid */
	uint32_t random;	/* 1: random gaps, 0: every period-th access */
	uint64_t period;
	uint64_t seed;
};

/* One sampled data access; time = guest instructions executed so far,
 * counting the access's own instruction (the first instruction is 1). */
struct mt_vg_access {
	uint64_t time;
	uint64_t addr;
	uint64_t ip;		/* the instruction's address */
	uint32_t tid;		/* the guest thread's kernel tid */
	uint16_t size;		/* bytes accessed */
	uint8_t op;		/* MT_VG_OP_* */
	uint8_t pad;
};

struct mt_vg_alloc {
	uint64_t time;
	uint64_t addr;
	uint64_t size;		/* bytes asked for */
	uint32_t tid;
	uint16_t kind;		/* enum mt_vg_alloc_kind */
	uint16_t nframes;
};

struct mt_vg_free {
	uint64_t time;
	uint64_t addr;
	uint32_t tid;
	uint32_t pad;
};

struct mt_vg_fork {
	uint64_t time;		/* instructions at the fork */
	uint32_t tid;		/* the forking thread */
	uint32_t pad;
};

struct mt_vg_agg {
	uint64_t k;		/* the interval: instructions ((k-1)N, kN], k >= 1 */
	uint64_t interval;	/* N */
	uint64_t samples;	/* sampled accesses in the interval (0 in a continuation) */
	uint64_t first_addr;	/* the guest's first sampled access (names its stack):
				 * in the stream's first AGG message, else 0 */
	uint32_t shift;		/* bucket = address >> shift */
	uint32_t rows;
};

struct mt_vg_agg_row {
	uint64_t bucket;	/* address >> shift */
	uint64_t count;		/* sampled accesses to it in the interval */
};

struct mt_vg_end {
	uint64_t insns;		/* guest instructions executed */
	uint64_t accesses;	/* data accesses seen */
	uint64_t samples;	/* accesses sent */
	uint64_t allocs, frees;
	int64_t exit_code;
};

#endif
