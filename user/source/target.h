/* target.h - the process being recorded: start it, watch it, list threads. */
#ifndef MEMTRACE_TARGET_H
#define MEMTRACE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Forks argv stopped before exec: the child waits until target_release().
 * Returns the child's pid, or -1 after a one-line error.
 */
pid_t target_spawn(char **argv, int *release_fd);
/* Lets the spawned child exec.  Returns 0, or -1 if exec failed. */
int target_release(int release_fd);

/* One-line error and -1 if pid does not exist or may not be traced. */
int target_check(pid_t pid);

/* pidfd (or -1) that becomes readable when pid exits. */
int target_watch(pid_t pid);
/* True once the process behind target_watch()/target_spawn() has exited. */
bool target_exited(pid_t pid, int watch_fd, bool is_child);

/* Thread ids of pid into tids (up to max); returns the count or -1. */
int target_threads(pid_t pid, pid_t *tids, int max);

/* Reads /proc/PID/comm of tid (pid may equal tid) into buf. */
void target_comm(pid_t pid, pid_t tid, char *buf, size_t len);

#endif
