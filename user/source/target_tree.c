/* target_tree.c - what -p PID[,PID...] and --cgroup mean in tasks: process
 * trees from /proc and cgroup v2 directories, for every backend. */
#include "source/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

struct proc_ent {
	pid_t pid, ppid;
	bool in;
};

pid_t target_ppid(pid_t pid)
{
	char path[64], buf[1024];
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = 0;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
	char *p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return (pid_t)ppid;
}

static int by_pid(const void *a, const void *b)
{
	const struct proc_ent *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct proc_ent *find_proc(struct proc_ent *e, size_t n, pid_t pid)
{
	struct proc_ent key = { .pid = pid };

	return bsearch(&key, e, n, sizeof(*e), by_pid);
}

/* Every process in /proc with its parent, sorted by pid. */
static struct proc_ent *list_procs(size_t *np)
{
	struct proc_ent *e = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	*np = 0;
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)atoi(d->d_name), ppid = target_ppid(pid);
		if (ppid < 0)
			continue;	/* gone meanwhile */
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			e = mt_xrealloc(e, cap * sizeof(*e));
		}
		e[n++] = (struct proc_ent){ .pid = pid, .ppid = ppid };
	}
	closedir(dir);
	qsort(e, n, sizeof(*e), by_pid);
	*np = n;
	return e;
}

static void add_task(struct target_tasks *out, pid_t pid, pid_t tid, pid_t ppid)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 256;
		out->t = mt_xrealloc(out->t, out->cap * sizeof(*out->t));
	}
	out->t[out->n++] = (struct target_task){ .pid = pid, .tid = tid, .ppid = ppid };
}

static int by_tid(const void *a, const void *b)
{
	const struct target_task *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Appends the threads of pid; false if it is gone. */
static bool add_threads(struct target_tasks *out, pid_t pid, pid_t ppid)
{
	char path[64];
	struct dirent *d;
	size_t before = out->n;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return false;
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			add_task(out, pid, (pid_t)atoi(d->d_name), ppid);
	closedir(dir);
	return out->n > before;
}

int target_tree(const pid_t *pids, int n, bool children, struct target_tasks *out)
{
	size_t np;
	struct proc_ent *e = list_procs(&np);
	int nproc = 0;

	out->n = 0;
	for (int i = 0; i < n; i++) {
		struct proc_ent *p = find_proc(e, np, pids[i]);
		if (p)
			p->in = true;
	}
	/* descendants: mark children of marked processes until nothing changes */
	for (bool changed = children; changed;) {
		changed = false;
		for (size_t i = 0; i < np; i++) {
			if (e[i].in || e[i].ppid <= 0)
				continue;
			struct proc_ent *p = find_proc(e, np, e[i].ppid);
			if (p && p->in) {
				e[i].in = true;
				changed = true;
			}
		}
	}
	for (size_t i = 0; i < np; i++)
		if (e[i].in && add_threads(out, e[i].pid, e[i].ppid))
			nproc++;
	free(e);
	qsort(out->t, out->n, sizeof(*out->t), by_tid);
	return nproc;
}

void target_tasks_free(struct target_tasks *t)
{
	free(t->t);
	memset(t, 0, sizeof(*t));
}

/* ---- cgroup v2 --------------------------------------------------------- */

int target_cgroup2_mount(char *buf, size_t len, bool *v1)
{
	char line[4096];
	int found = -1;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	*v1 = false;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* id parent maj:min root mountpoint opts ... - fstype source superopts */
		char mnt[2048], fstype[64];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %2047s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s", fstype) != 1)
			continue;
		if (!strcmp(fstype, "cgroup2") && found < 0) {
			snprintf(buf, len, "%s", mnt);
			found = 0;
		} else if (!strcmp(fstype, "cgroup")) {
			*v1 = true;
		}
	}
	fclose(f);
	return found;
}

int target_cgroup_open(const char *path, char *dir, size_t dirlen)
{
	char mnt[2048];
	bool v1;
	struct stat st;

	if (!path || !path[0]) {
		mt_err("--cgroup needs a path (e.g. system.slice/postgresql@15-main.service)");
		return -1;
	}
	if (target_cgroup2_mount(mnt, sizeof(mnt), &v1)) {
		if (v1)
			mt_err("--cgroup needs cgroup v2 (the unified hierarchy); this system mounts cgroup v1 only");
		else
			mt_err("--cgroup needs cgroup v2 and no cgroup2 file system is mounted");
		return -1;
	}
	size_t ml = strlen(mnt);
	if (path[0] == '/' && !strncmp(path, mnt, ml) && (path[ml] == '/' || !path[ml]))
		snprintf(dir, dirlen, "%s", path);
	else
		snprintf(dir, dirlen, "%s/%s", mnt, path + strspn(path, "/"));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			mt_err("no cgroup '%s' (looked for %s)", path, dir);
		else
			mt_err("cannot open cgroup %s: %s", dir, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		mt_err("no cgroup '%s' (%s is not a directory)", path, dir);
		close(fd);
		return -1;
	}
	char procs[4200];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (access(procs, F_OK)) {
		mt_err("%s is not a cgroup v2 directory (no cgroup.procs)", dir);
		close(fd);
		return -1;
	}
	return fd;
}

int target_cgroup_procs(const char *dir, pid_t *pids, int max)
{
	char path[4200];
	int n = 0, pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%d", &pid) == 1) {
		if (n < max)
			pids[n] = (pid_t)pid;
		n++;
	}
	fclose(f);
	return n;
}
