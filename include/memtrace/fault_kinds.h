/* memtrace/fault_kinds.h - a fault trace split by fault kind (hint-faults source:
 * HEADER fault_kinds=1, the kind in data_src bits 56..59, trace.h
 * MEMTRACE_FAULT_KIND). */
#ifndef MEMTRACE_PUBLIC_FAULT_KINDS_H
#define MEMTRACE_PUBLIC_FAULT_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

#define MEMTRACE_NFAULT_KINDS	4

struct memtrace_fault_kind_row {
	unsigned kind;		/* enum memtrace_fault_kind */
	const char *name;	/* "hint", "first-touch", "cow" (write-protect), "unknown" */
	uint64_t samples;
	uint64_t pages;		/* distinct (pid, page) pairs */
};

/*
 * Samples and distinct pages (page_size bytes, a power of two; 0: 4096)
 * per kind of the samples of pid (0: all) into out, in the order hint,
 * first-touch, cow, unknown.  Returns 4, 0 when the trace holds no fault
 * kinds (HEADER fault_kinds is not 1), -1 after a one-line error.
 */
int memtrace_fault_kinds(const char *path, uint32_t pid, uint64_t page_size,
			 struct memtrace_fault_kind_row out[MEMTRACE_NFAULT_KINDS],
			 char *err, size_t errlen);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
