/* kernel_fs.h - reading and writing a file of debugfs or tracefs whether
 * or not the system has them mounted.
 *
 * When MOUNTPOINT/RELPATH is not there, a child process mounts the file
 * system in a mount namespace of its own (nothing changes for anyone
 * else) and does the I/O there.
 */
#ifndef MEMTRACE_SOURCE_KERNEL_FS_H
#define MEMTRACE_SOURCE_KERNEL_FS_H

#include <stddef.h>

/* fstype "debugfs" (mounted at /sys/kernel/debug) or "tracefs"
 * (/sys/kernel/tracing).  Reads at most len - 1 bytes of relpath into
 * buf (NUL-terminated).  0, or -1 with errno (EPERM under kernel
 * lockdown, ENOENT when the file does not exist). */
int kfs_read(const char *fstype, const char *relpath, char *buf, size_t len);
/* Writes the string value to relpath.  0, or -1 with errno. */
int kfs_write(const char *fstype, const char *relpath, const char *value);

#endif
