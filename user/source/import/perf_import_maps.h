/* perf_import_maps.h - each process's mappings as a perf.data file tells
 * them (MMAP/MMAP2 records, forks, execs), rendered as /proc/PID/maps text
 * for the trace's MAPS chunks (source/import/perf_import.c). */
#ifndef MEMTRACE_PERF_IMPORT_MAPS_H
#define MEMTRACE_PERF_IMPORT_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_mapping {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;		/* PROT_*, MAP_SHARED */
	char *path;				/* "" for anonymous memory */
};

struct perf_pid_maps {
	uint32_t pid;
	struct perf_mapping *m;			/* sorted by start, disjoint */
	size_t n, cap;
	bool dirty;				/* changed since the last MAPS chunk */
	uint64_t time;				/* of the first change since */
};

struct perf_maps {
	struct perf_pid_maps *p;
	size_t n, cap, hit;
};

/* A new mapping of pid (path copied); what it overlaps is cut away. */
void perf_maps_add(struct perf_maps *pm, uint32_t pid, const struct perf_mapping *m,
		   uint64_t time);
/* A new process pid forked from ppid: it starts with ppid's mappings. */
void perf_maps_fork(struct perf_maps *pm, uint32_t ppid, uint32_t pid, uint64_t time);
/* pid exec'd: its old mappings are gone. */
void perf_maps_exec(struct perf_maps *pm, uint32_t pid, uint64_t time);
/* The mappings as /proc/PID/maps text (malloc'd, *len bytes). */
char *perf_maps_text(const struct perf_pid_maps *p, size_t *len);
void perf_maps_free(struct perf_maps *pm);

#endif
