/* damon_sysfs.c - one kdamond through DAMON's sysfs interface, and the
 * state file that says what memtracectl created (damon_sysfs.h). */
#include "source/damon/damon_sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/kernel_fs.h"

#define KD0	DAMON_KDAMONDS "/0"
#define CTX0	KD0 "/contexts/0"

static int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, value, strlen(value));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

static int sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int damon_nr_kdamonds(void)
{
	char buf[32];

	if (sysfs_read(DAMON_KDAMONDS "/nr_kdamonds", buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

/* CONFIG_DAMON_VADDR: its operations' functions are in the symbol table
 * (names are listed whatever kptr_restrict says about addresses). */
static int kernel_has_vaddr(void)
{
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " damon_va_") != NULL;
	fclose(f);
	return found;
}

int damon_vaddr_usable(char *why, size_t whylen)
{
	char buf[64];
	struct stat st;

	if (stat(DAMON_KDAMONDS, &st)) {
		snprintf(why, whylen, "no %s (kernel without CONFIG_DAMON_SYSFS)", DAMON_KDAMONDS);
		return -1;
	}
	if (kernel_has_vaddr() == 0) {
		snprintf(why, whylen, "this kernel's DAMON has no vaddr operations (CONFIG_DAMON_VADDR), "
			 "which per-process regions need");
		return -1;
	}
	if (geteuid() != 0) {
		snprintf(why, whylen, "not root (a kdamond is set up through sysfs)");
		return -1;
	}
	if (kfs_read("tracefs", "events/" DAMON_TRACEPOINT "/id", buf, sizeof(buf))) {
		snprintf(why, whylen, "no %s tracepoint in tracefs (%s)", DAMON_TRACEPOINT,
			 strerror(errno));
		return -1;
	}
	int n = damon_nr_kdamonds();
	if (n < 0) {
		snprintf(why, whylen, "%s/nr_kdamonds: %s", DAMON_KDAMONDS, strerror(errno));
		return -1;
	}
	if (n > 0) {
		snprintf(why, whylen, "%d kdamond%s configured in %s already; memtracectl leaves "
			 "another DAMON user's setup alone (echo off > kdamonds/N/state; echo 0 > "
			 "nr_kdamonds frees it)", n, n == 1 ? " is" : "s are", DAMON_KDAMONDS);
		return -1;
	}
	return 0;
}

static void state_file_write(struct damon_kdamond *k)
{
	char text[128];

	mkdir("/run/memtrace", 0755);
	int fd = open(DAMON_STATE_FILE ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	int len = snprintf(text, sizeof(text), "pid=%d\nkdamond=0\n", (int)getpid());
	int ok = write(fd, text, (size_t)len) == len;
	close(fd);
	if (ok && !rename(DAMON_STATE_FILE ".tmp", DAMON_STATE_FILE))
		k->state_file = true;
	else
		unlink(DAMON_STATE_FILE ".tmp");
}

static int put(const char *path, const char *value, char *why, size_t whylen)
{
	if (!sysfs_write(path, value))
		return 0;
	snprintf(why, whylen, "DAMON sysfs: writing '%s' to %s: %s", value, path, strerror(errno));
	return -1;
}

static int put_ul(const char *path, unsigned long v, char *why, size_t whylen)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", v);
	return put(path, buf, why, whylen);
}

static int configure(const pid_t *pids, int n, const struct damon_attrs *a, char *why,
		     size_t whylen)
{
	char path[256];

	if (put(KD0 "/contexts/nr_contexts", "1", why, whylen) ||
	    put(CTX0 "/operations", "vaddr", why, whylen) ||
	    put_ul(CTX0 "/monitoring_attrs/intervals/sample_us", a->sample_us, why, whylen) ||
	    put_ul(CTX0 "/monitoring_attrs/intervals/aggr_us", a->aggr_us, why, whylen) ||
	    put_ul(CTX0 "/monitoring_attrs/intervals/update_us", a->update_us, why, whylen) ||
	    put_ul(CTX0 "/monitoring_attrs/nr_regions/max", a->max_regions, why, whylen) ||
	    put_ul(CTX0 "/monitoring_attrs/nr_regions/min", a->min_regions, why, whylen) ||
	    put_ul(CTX0 "/targets/nr_targets", (unsigned long)n, why, whylen))
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), CTX0 "/targets/%d/pid_target", i);
		if (put_ul(path, (unsigned long)pids[i], why, whylen))
			return -1;
	}
	return 0;
}

int damon_kdamond_start(struct damon_kdamond *k, const pid_t *pids, int n,
			const struct damon_attrs *a, char *why, size_t whylen)
{
	char buf[32];

	memset(k, 0, sizeof(*k));
	if (damon_vaddr_usable(why, whylen))
		return -1;
	state_file_write(k);
	if (put(DAMON_KDAMONDS "/nr_kdamonds", "1", why, whylen))
		goto fail;
	k->created = true;
	if (configure(pids, n, a, why, whylen))
		goto fail;
	if (put(KD0 "/state", "on", why, whylen)) {
		if (errno == EINVAL)
			snprintf(why + strlen(why), whylen - strlen(why), " (monitoring attributes "
				 "refused: sample <= aggr <= update, 3 <= min regions <= max regions)");
		goto fail;
	}
	k->on = true;
	if (sysfs_read(KD0 "/pid", buf, sizeof(buf)) || atoi(buf) <= 0) {
		snprintf(why, whylen, "DAMON sysfs: kdamond 0 has no thread after 'on'");
		goto fail;
	}
	k->pid = atoi(buf);
	return 0;
fail:
	damon_kdamond_remove(k);
	return -1;
}

int damon_kdamond_set_intervals(struct damon_kdamond *k, const struct damon_attrs *a,
				char *why, size_t whylen)
{
	if (!k->on) {
		snprintf(why, whylen, "DAMON sysfs: kdamond 0 is not on");
		return -1;
	}
	return put_ul(CTX0 "/monitoring_attrs/intervals/sample_us", a->sample_us, why, whylen) ||
	       put_ul(CTX0 "/monitoring_attrs/intervals/aggr_us", a->aggr_us, why, whylen) ||
	       put_ul(CTX0 "/monitoring_attrs/intervals/update_us", a->update_us, why, whylen) ||
	       put(KD0 "/state", "commit", why, whylen) ? -1 : 0;
}

static void remove_kdamond0(int quiet)
{
	char state[32] = "";

	/* off fails when it stopped by itself (every target process exited) */
	if (!sysfs_read(KD0 "/state", state, sizeof(state)) && !strcmp(state, "on"))
		sysfs_write(KD0 "/state", "off");
	if (sysfs_write(DAMON_KDAMONDS "/nr_kdamonds", "0") && !quiet)
		fprintf(stderr, "memtracectl: could not remove the kdamond memtracectl made (%s); "
			"run: echo off > %s/state; echo 0 > %s/nr_kdamonds\n", strerror(errno), KD0,
			DAMON_KDAMONDS);
}

void damon_kdamond_remove(struct damon_kdamond *k)
{
	if (k->created)
		remove_kdamond0(0);
	if (k->state_file)
		unlink(DAMON_STATE_FILE);
	k->created = k->on = k->state_file = false;
	k->pid = 0;
}

int damon_check_stale(FILE *out, bool adopt)
{
	char text[128];
	int pid;

	if (sysfs_read(DAMON_STATE_FILE, text, sizeof(text)) || sscanf(text, "pid=%d", &pid) != 1)
		return 0;
	if (pid == (int)getpid() || kill(pid, 0) == 0 || errno == EPERM)
		return 0;	/* its collector still runs */
	int n = damon_nr_kdamonds();
	if (adopt && n == 1) {
		remove_kdamond0(1);
		unlink(DAMON_STATE_FILE);
		if (out)
			fprintf(out, "memtracectl: a collector (pid %d) that no longer runs left "
				"DAMON kdamond 0 configured; removed it (nr_kdamonds %d)\n", pid,
				damon_nr_kdamonds());
		return 1;
	}
	if (out)
		fprintf(out, "  damon: a collector (pid %d) that no longer runs left kdamond 0 in %s "
			"(nr_kdamonds=%d); the next -e damon recording removes it, or: echo off > "
			"%s/state; echo 0 > %s/nr_kdamonds; rm %s\n", pid, DAMON_KDAMONDS, n, KD0,
			DAMON_KDAMONDS, DAMON_STATE_FILE);
	return 1;
}
