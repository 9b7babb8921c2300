/* lackey.h - streaming parser and sampler for valgrind lackey output.
 *
 * `valgrind --tool=lackey --trace-mem=yes` writes one line per guest
 * instruction and per data access:
 *
 *   I  04016f0,3        instruction at 0x4016f0, 3 bytes
 *    L 1fff0005d0,8     load of 8 bytes
 *    S 1fff0005c8,8     store
 *    M 1fff0005c8,8     modify (load and store of the same address)
 *   ==4242== ...        valgrind's own messages (the pid between the ==)
 *
 * The parser turns them into memtrace_sample records: time = instructions
 * executed so far (the first I line is time 1; a data access gets the time
 * of the instruction it belongs to), addr = data address, ip = address of
 * the last I line, pid = tid = the guest's pid, cpu = weight = 0,
 * data_src = PERF_MEM_OP_LOAD (0x2) for L, PERF_MEM_OP_STORE (0x4) for S,
 * both (0x6) for M.  Every N-th data access is kept (L, S and M count as
 * one each); with random periods each gap is drawn uniformly from
 * [N - N/2, N + N/2] (mean N) by a seeded generator, so a given seed always
 * keeps the same accesses.
 *
 * Input is fed in buffers of any size and split anywhere; a line cut by a
 * buffer boundary is carried over to the next call.  No sscanf/strtoull:
 * a table-driven hex scanner over the buffer.
 */
#ifndef MEMTRACE_SOURCE_VALGRIND_LACKEY_H
#define MEMTRACE_SOURCE_VALGRIND_LACKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"

#define LACKEY_OP_LOAD	0x2ULL	/* PERF_MEM_OP_LOAD */
#define LACKEY_OP_STORE	0x4ULL	/* PERF_MEM_OP_STORE */

/* Longest line kept across a buffer boundary; longer lines are malformed. */
#define LACKEY_MAX_LINE	512
/* Samples gathered before the emit callback is called. */
#define LACKEY_BATCH	4096

/* Receives samples in time order; returns 0, or -1 to stop the parse. */
typedef int (*lackey_emit_fn)(void *ctx, const struct memtrace_sample *s,
			      size_t n);

struct lackey_sampler {
	uint64_t period;	/* N >= 1 */
	bool random;		/* gaps uniform in [N - N/2, N + N/2] */
	uint64_t rng;		/* generator state */
	uint64_t left;		/* data accesses until the next kept one */
};

struct lackey_parser {
	/* Counters, readable at any time. */
	uint64_t insns;		/* I lines = current time */
	uint64_t ip;		/* address of the last I line */
	uint64_t accesses;	/* L, S and M lines */
	uint64_t first_addr;	/* address of the first L/S/M line, 0 if none */
	uint64_t loads, stores, modifies;
	uint64_t samples;	/* accesses kept */
	uint64_t messages;	/* ==PID== lines and blank lines */
	uint64_t bad_lines;	/* lines that are none of the above */
	uint64_t lines;		/* complete lines seen */
	uint32_t log_pid;	/* pid from the first ==PID== line, 0 if none */
	uint32_t other_pid;	/* first ==PID== that differs (a forked child) */
	char command[256];	/* "Command: ..." of the log, "" if none */
	char first_bad[64];	/* start of the first malformed line */
	uint64_t first_bad_line; /* its line number (1-based), 0 if none */

	/* Fixed-period aliasing: LACKEY_ALIAS_RUN kept samples in a row at one
	 * instruction while other instructions accessed memory in between (a
	 * loop whose length shares a factor with N).  aliased: that ip, 0 if
	 * never. */
	uint64_t aliased;
	uint64_t alias_ip, alias_run;
	bool alias_other;

	/* Sample fields set by the caller. */
	uint32_t pid;		/* pid = tid of every sample; 0: use log_pid */

	struct lackey_sampler sampler;

	/* Internal. */
	lackey_emit_fn emit;
	void *ctx;
	size_t carry_len;	/* bytes of an unfinished line in carry */
	uint64_t carry_total;	/* its full length (may exceed carry_len) */
	bool carry_overlong;	/* the unfinished line is already too long */
	size_t nbatch;
	char carry[LACKEY_MAX_LINE + 1];
	struct memtrace_sample batch[LACKEY_BATCH];
};

#define LACKEY_ALIAS_RUN 1000

/* One warning line if p saw fixed-period aliasing; who: "" or "FILE: ". */
void lackey_warn_aliasing(const struct lackey_parser *p, const char *who);

/* period 0 is taken as 1.  Deterministic for a given (period, random, seed). */
void lackey_sampler_init(struct lackey_sampler *s, uint64_t period,
			 bool random, uint64_t seed);
/* Draws the next gap (always period when not random). */
uint64_t lackey_sampler_next_gap(struct lackey_sampler *s);
/* True if the next data access is to be kept. */
static inline bool lackey_sampler_take(struct lackey_sampler *s)
{
	if (--s->left)
		return false;
	s->left = lackey_sampler_next_gap(s);
	return true;
}

void lackey_init(struct lackey_parser *p, uint64_t period, bool random,
		 uint64_t seed, lackey_emit_fn emit, void *ctx);

/*
 * Parses len bytes.  Complete lines are handled now; an unfinished last
 * line is kept for the next call.  Samples are handed to emit before
 * returning.  Returns 0, or -1 if emit asked to stop.
 */
int lackey_feed(struct lackey_parser *p, const char *buf, size_t len);

/*
 * End of input.  An unfinished last line is dropped (not parsed); returns
 * the number of its bytes (0 if the input ended with a newline).
 */
uint64_t lackey_finish(struct lackey_parser *p);

/*
 * Does the start of an input look like a lackey log?  Looks at the complete
 * lines in buf (at most 64 KiB of them): true if at least one is a lackey
 * trace or valgrind message line and malformed lines are not the majority.
 */
bool lackey_looks_valid(const char *buf, size_t len);

#endif
