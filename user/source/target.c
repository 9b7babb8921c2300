/* target.c - spawning, checking and watching the recorded process. */
#include "source/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int spawn_err_fd = -1;
/* the command target_spawn() started: its name, and its fate */
static const char *spawn_cmd;
static pid_t spawn_pid = -1;
static int spawn_status, spawn_reaped, spawn_stopped, spawn_exec_errno;

/* The file execvp() would run for cmd (the first match in PATH), or cmd. */
static void exec_path(const char *cmd, char *path, size_t len)
{
	snprintf(path, len, "%s", cmd);
	if (strchr(cmd, '/'))
		return;
	const char *p = getenv("PATH");
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");
		snprintf(path, len, "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (access(path, F_OK) == 0)
			return;
		p += n + (p[n] == ':');
	}
	snprintf(path, len, "%s", cmd);
}

int target_which(const char *cmd, char *out, size_t len)
{
	const char *p = getenv("PATH");

	for (p = p ? p : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(out, len, "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

int target_exec_error(const char *cmd, int e)
{
	char path[4096], line[256] = "";

	if (e != ENOENT) {
		mt_err("cannot execute %s: %s", cmd, strerror(e));
		return 126;
	}
	exec_path(cmd, path, sizeof(path));
	FILE *f = fopen(path, "re");
	if (!f) {
		mt_err("cannot execute %s: %s", cmd, strchr(cmd, '/') ? strerror(ENOENT) : "command not found");
		return 127;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	if (line[0] == '#' && line[1] == '!') {	/* the file is there: its interpreter is not */
		char *interp = line + 2 + strspn(line + 2, " \t");
		interp[strcspn(interp, " \t\r\n")] = 0;
		mt_err("cannot execute %s: bad interpreter %s: %s", cmd, interp, strerror(ENOENT));
	} else {
		mt_err("cannot execute %s: its program loader or a library is missing (%s)", cmd,
		       strerror(ENOENT));
	}
	return 127;
}

pid_t target_spawn(char **argv, int *release_fd)
{
	int go[2], err[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		mt_errno("pipe");
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		mt_errno("fork");
		return -1;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	spawn_err_fd = err[0];
	spawn_cmd = argv[0];
	spawn_pid = pid;
	spawn_reaped = spawn_stopped = spawn_exec_errno = 0;
	*release_fd = go[1];
	return pid;
}

int target_release(int release_fd)
{
	int e = 0;

	if (write(release_fd, "g", 1) != 1) {
		mt_errno("starting the command");
		close(release_fd);
		return -1;
	}
	close(release_fd);
	if (spawn_err_fd >= 0) {
		ssize_t n = read(spawn_err_fd, &e, sizeof(e));
		close(spawn_err_fd);
		spawn_err_fd = -1;
		if (n == (ssize_t)sizeof(e)) {
			spawn_exec_errno = e;
			target_exec_error(spawn_cmd, e);
			return -1;
		}
	}
	return 0;
}

int target_check(pid_t pid)
{
	char path[64];

	if (pid <= 0) {
		mt_err("invalid pid %d", (int)pid);
		return -1;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		mt_err("no process with pid %d", (int)pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			mt_err("no process with pid %d", (int)pid);
		else
			mt_err("not permitted to trace pid %d (%s): run as its owner or root, or check ptrace_scope",
			       (int)pid, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

int target_watch(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int *target_watch_pids(const pid_t *pids, int npids)
{
	for (int i = 0; i < npids; i++)
		if (target_check(pids[i]))
			return NULL;
	int *watch = mt_xcalloc((size_t)npids, sizeof(*watch));
	for (int i = 0; i < npids; i++)
		watch[i] = target_watch(pids[i]);
	return watch;
}

bool target_exited(pid_t pid, int watch_fd, bool is_child)
{
	if (is_child) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid && pid == spawn_pid) {
			spawn_status = st;
			spawn_reaped = 1;
		}
		return r == pid || (r < 0 && errno == ECHILD);
	}
	if (watch_fd >= 0) {
		struct pollfd p = { .fd = watch_fd, .events = POLLIN };
		return poll(&p, 1, 0) > 0;
	}
	return kill(pid, 0) && errno == ESRCH;
}

bool target_all_gone(pid_t child, const pid_t *pids, const int *watch, int n)
{
	if (child > 0)
		return target_exited(child, -1, true);
	for (int i = 0; i < n; i++)
		if (!target_exited(pids[i], watch[i], false))
			return false;
	return true;
}

void target_stop_child(pid_t pid)
{
	if (pid <= 0 || (pid == spawn_pid && spawn_reaped))
		return;
	kill(pid, SIGTERM);
	if (pid == spawn_pid)
		spawn_stopped = 1;
}

void target_child_set_status(pid_t pid, int status)
{
	spawn_pid = pid;
	spawn_status = status;
	spawn_reaped = 1;
}

int target_child_result(int wait_ms)
{
	if (spawn_pid <= 0)
		return -1;
	if (spawn_exec_errno)
		return spawn_exec_errno == ENOENT ? 127 : 126;
	if (spawn_stopped)
		return -1;
	for (int i = 0; !spawn_reaped && i <= wait_ms / 10; i++) {
		int st;
		pid_t r = waitpid(spawn_pid, &st, WNOHANG);
		if (r == spawn_pid) {
			spawn_status = st;
			spawn_reaped = 1;
		} else if (r < 0) {
			return -1;
		} else {
			usleep(10000);
		}
	}
	if (!spawn_reaped)
		return -1;
	if (WIFEXITED(spawn_status))
		return WEXITSTATUS(spawn_status);
	return WIFSIGNALED(spawn_status) ? 128 + WTERMSIG(spawn_status) : -1;
}

int target_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	struct dirent *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < max) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		tids[n++] = (pid_t)atoi(d->d_name);
	}
	closedir(dir);
	return n;
}

void target_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}
