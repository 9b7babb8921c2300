/* perf_import_maps.h - each process's mappings as a perf.data file tells
 * them (MMAP/MMAP2 records, forks, execs), rendered as /proc/PID/maps text
 * for the trace's MAPS chunks (source/import/perf_import.c). */
#ifndef MEMTRACE_SOURCE_IMPORT_PERF_IMPORT_MAPS_H
#define MEMTRACE_SOURCE_IMPORT_PERF_IMPORT_MAPS_H

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
	bool whole;				/* known from an exec (or a fork of a whole one) on */
	uint64_t born;				/* time of that exec or fork */
	char comm[16];				/* its name (COMM records; a fork's parent's) */
};

struct perf_maps {
	struct perf_pid_maps *p;
	size_t n, cap, hit;
};

/* A new mapping of pid (path copied); what it overlaps is cut away. */
void perf_maps_add(struct perf_maps *pm, uint32_t pid, const struct perf_mapping *m,
		   uint64_t time);
struct perf_event_header;

/* An MMAP or MMAP2 record (sample_id trailer or not) into pm: 0, or -1 for
 * a cut record or the kernel's (pid -1) mappings. */
int perf_maps_mmap_record(struct perf_maps *pm, const struct perf_event_header *h,
			  uint64_t time);
/* A new process pid forked from ppid: it starts with ppid's mappings. */
void perf_maps_fork(struct perf_maps *pm, uint32_t ppid, uint32_t pid, uint64_t time);
/* pid exec'd: its old mappings are gone. */
void perf_maps_exec(struct perf_maps *pm, uint32_t pid, uint64_t time);
/* pid's mappings, or NULL when no record named it. */
struct perf_pid_maps *perf_maps_find(struct perf_maps *pm, uint32_t pid);
/* pid is gone: its mappings are dropped. */
void perf_maps_forget(struct perf_maps *pm, uint32_t pid);
/* The mappings as /proc/PID/maps text (malloc'd, *len bytes). */
char *perf_maps_text(const struct perf_pid_maps *p, size_t *len);
void perf_maps_free(struct perf_maps *pm);

#endif
