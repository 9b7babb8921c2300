/* pid_set.h - a set of process ids (the perf and bpf backends' processes
 * whose maps were asked for): grows with the processes alive, shrinks as
 * they are removed. */
#ifndef MEMTRACE_UTIL_PID_SET_H
#define MEMTRACE_UTIL_PID_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pid_set {		/* open addressing, 0 = empty */
	pid_t *v;
	size_t n, cap;
};

bool pid_set_add(struct pid_set *set, pid_t pid);	/* true if it was new */
void pid_set_del(struct pid_set *set, pid_t pid);
bool pid_set_has(const struct pid_set *set, pid_t pid);
void pid_set_free(struct pid_set *set);

#endif
