/* target.h - the process being recorded: start it, watch it, list threads. */
#ifndef MEMTRACE_SOURCE_TARGET_H
#define MEMTRACE_SOURCE_TARGET_H

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

/*
 * One line "cannot execute CMD: why" for an execve() error e of cmd (a
 * missing interpreter of a script is named as such, not as the script
 * missing); returns the shell's exit status for it: 127 (not found) or 126.
 */
int target_exec_error(const char *cmd, int e);

/* We end the spawned command (SIGTERM): stop, a duration, a failed write. */
void target_stop_child(pid_t pid);
/* A backend that reaped the command itself (valgrind) hands over its status. */
void target_child_set_status(pid_t pid, int status);
/*
 * The spawned command's exit status as a shell gives it (128 + signal when
 * killed; 127/126 when it could not be executed), waiting up to wait_ms for
 * it to be reaped; -1 if none was spawned, target_stop_child() ended it, or
 * it has not exited.
 */
int target_child_result(int wait_ms);

/* The executable file cmd names in PATH (the first one; cmd without a '/'),
 * in out: 0, else -1. */
int target_which(const char *cmd, char *out, size_t len);

/* One-line error and -1 if pid does not exist or may not be traced. */
int target_check(pid_t pid);

/* pidfd (or -1) that becomes readable when pid exits. */
int target_watch(pid_t pid);
/*
 * -p: target_check() of every pid, then a malloc'ed array of their
 * target_watch() fds; NULL after the one-line error of the first bad pid.
 */
int *target_watch_pids(const pid_t *pids, int npids);
/* True once the process behind target_watch()/target_spawn() has exited. */
bool target_exited(pid_t pid, int watch_fd, bool is_child);
/*
 * The one target watcher of the backends' target_gone: true once the
 * command they spawned (child > 0) exited, else once every listed pid
 * (pids[i] with its target_watch() fd watch[i]) did.
 */
bool target_all_gone(pid_t child, const pid_t *pids, const int *watch, int n);

/* Thread ids of pid into tids (up to max); returns the count or -1. */
int target_threads(pid_t pid, pid_t *tids, int max);

/* Reads /proc/PID/comm of tid (pid may equal tid) into buf. */
void target_comm(pid_t pid, pid_t tid, char *buf, size_t len);

/* ---- target_tree.c: process trees and cgroups, for every backend ------ */

/* One task (thread) of a target tree. */
struct target_task {
	pid_t pid;		/* its process (tgid) */
	pid_t tid;
	pid_t ppid;		/* the parent process of pid */
};

struct target_tasks {
	struct target_task *t;
	size_t n, cap;
};

/*
 * Every thread of the processes pids[0..n) and, with children, of all their
 * descendants (parents from /proc/PID/stat), as /proc shows them now: one
 * pass, sorted by pid then tid.  A task that exits meanwhile is left out.
 * Returns the number of processes found.
 */
int target_tree(const pid_t *pids, int n, bool children, struct target_tasks *out);
void target_tasks_free(struct target_tasks *t);
/* The parent process of pid from /proc/PID/stat, or -1. */
pid_t target_ppid(pid_t pid);

/*
 * Opens the cgroup v2 directory of path: relative to the cgroup2 mount
 * (system.slice/x.service), or absolute (/sys/fs/cgroup/..., or /system.slice/...
 * as /proc/PID/cgroup writes it).  Its full path goes to dir.  The fd
 * (O_DIRECTORY, for PERF_FLAG_PID_CGROUP), or -1 after a one-line error
 * (no cgroup2 mount / v1 only, no such cgroup, not permitted).
 */
int target_cgroup_open(const char *path, char *dir, size_t dirlen);
/* Processes in the cgroup directory dir (cgroup.procs), or -1. */
int target_cgroup_procs(const char *dir, pid_t *pids, int max);
/* The cgroup2 mount point into buf: 0, or -1 (none; *v1 set when only v1 is mounted). */
int target_cgroup2_mount(char *buf, size_t len, bool *v1);

#endif
