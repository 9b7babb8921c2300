/* kernel_fs.c - debugfs/tracefs files, mounted privately when needed. */
#include "source/kernel_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *mountpoint_of(const char *fstype)
{
	return !strcmp(fstype, "tracefs") ? "/sys/kernel/tracing" : "/sys/kernel/debug";
}

/* The I/O itself: read into buf, or write value.  0 or an errno. */
static int do_io(const char *path, char *buf, size_t len, const char *value)
{
	int fd = open(path, (value ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int e = 0;
	if (value) {
		size_t n = strlen(value);
		if (write(fd, value, n) != (ssize_t)n)
			e = errno ? errno : EIO;
	} else {
		ssize_t n = read(fd, buf, len - 1);
		if (n < 0)
			e = errno;
		else
			buf[n] = 0;
	}
	close(fd);
	return e;
}

/* In a child with its own mount namespace: mount, then do_io. */
static int io_in_private_mount(const char *fstype, const char *path, char *buf, size_t len,
			       const char *value)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		int e = 0;
		char out[4096] = "";
		close(p[0]);
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("none", mountpoint_of(fstype), fstype, 0, NULL))
			e = errno;
		else
			e = do_io(path, out, len < sizeof(out) ? len : sizeof(out), value);
		if (write(p[1], &e, sizeof(e)) != sizeof(e) ||
		    (!e && !value && write(p[1], out, strlen(out) + 1) < 0))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	int e = EIO;
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = EIO;
	if (!e && !value) {
		size_t got = 0;
		ssize_t n;
		while (got < len - 1 && (n = read(p[0], buf + got, len - 1 - got)) > 0)
			got += (size_t)n;
		buf[got] = 0;
	}
	close(p[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return e;
}

static int kfs_io(const char *fstype, const char *relpath, char *buf, size_t len, const char *value)
{
	char path[512];
	int e;

	snprintf(path, sizeof(path), "%s/%s", mountpoint_of(fstype), relpath);
	if (!access(path, F_OK))
		e = do_io(path, buf, len, value);
	else
		e = io_in_private_mount(fstype, path, buf, len, value);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

int kfs_read(const char *fstype, const char *relpath, char *buf, size_t len)
{
	if (!len) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = 0;
	return kfs_io(fstype, relpath, buf, len, NULL);
}

int kfs_write(const char *fstype, const char *relpath, const char *value)
{
	return kfs_io(fstype, relpath, NULL, 0, value);
}
