/* proc_smaps.h - a process's mappings with their resident bytes, read
 * from /proc/PID/smaps (one pass, in address order). */
#ifndef MEMTRACE_UTIL_PROC_SMAPS_H
#define MEMTRACE_UTIL_PROC_SMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_map {
	uint64_t start, end, rss;	/* [start, end), rss in bytes */
	char perms[8];			/* "rw-p" */
	char path[128];			/* "" for anonymous memory; cut at 127 bytes */
	bool deleted;			/* the path ends in " (deleted)" */
};

struct proc_maps {
	struct proc_map *v;
	size_t n, cap;
};

/* 0, or -1 with errno set (the file cannot be opened: no such process, no
 * permission); m->n may be 0 (a kernel thread). */
int proc_smaps_read(pid_t pid, struct proc_maps *m);
void proc_smaps_free(struct proc_maps *m);

/* The mapping that holds addr, or NULL. */
const struct proc_map *proc_smaps_at(const struct proc_maps *m, uint64_t addr);

/* The resident bytes of the mappings that overlap [start, end). */
uint64_t proc_smaps_rss_in(const struct proc_maps *m, uint64_t start, uint64_t end);

#endif
