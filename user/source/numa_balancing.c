/* numa_balancing.c - NUMA-balancing scanner on for a recording, and back. */
#include "source/numa_balancing.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/kernel_fs.h"
#include "util/util.h"

#define PERIOD_DIR	"sched/numa_balancing/"
/* kernels before 5.13 had the scan period as sysctls */
#define OLD_SYSCTL_MIN	"/proc/sys/kernel/numa_balancing_scan_period_min_ms"
#define OLD_SYSCTL_MAX	"/proc/sys/kernel/numa_balancing_scan_period_max_ms"

static long read_long_file(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int write_long_file(const char *path, long v)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	int bad = fprintf(f, "%ld\n", v) < 0;
	if (fclose(f) || bad)
		return -1;
	return 0;
}

int nb_read(void)
{
	return (int)read_long_file(NB_SYSCTL);
}

/* The scan period file name ("min"/"max"): value, or -1 with errno. */
static long period_get(const char *which)
{
	char rel[64], buf[64];

	snprintf(rel, sizeof(rel), PERIOD_DIR "scan_period_%s_ms", which);
	if (kfs_read("debugfs", rel, buf, sizeof(buf)) == 0)
		return strtol(buf, NULL, 10);
	int e = errno;
	long v = read_long_file(!strcmp(which, "min") ? OLD_SYSCTL_MIN : OLD_SYSCTL_MAX);
	if (v < 0)
		errno = e;
	return v;
}

static int period_set(const char *which, long ms)
{
	char rel[64], val[32];

	snprintf(rel, sizeof(rel), PERIOD_DIR "scan_period_%s_ms", which);
	snprintf(val, sizeof(val), "%ld\n", ms);
	if (kfs_write("debugfs", rel, val) == 0)
		return 0;
	int e = errno;
	if (!write_long_file(!strcmp(which, "min") ? OLD_SYSCTL_MIN : OLD_SYSCTL_MAX, ms))
		return 0;
	errno = e;
	return -1;
}

long nb_scan_period_min_ms(void)
{
	return period_get("min");
}

int nb_nodes(void)
{
	char buf[256];
	int nodes = 0;
	FILE *f = fopen("/sys/devices/system/node/online", "r");

	if (!f)
		return 1;
	if (fgets(buf, sizeof(buf), f)) {
		/* "0", "0-1", "0,2-3" */
		for (char *tok = strtok(buf, ",\n"); tok; tok = strtok(NULL, ",\n")) {
			int a, b;
			int n = sscanf(tok, "%d-%d", &a, &b);
			nodes += n == 2 ? b - a + 1 : n == 1 ? 1 : 0;
		}
	}
	fclose(f);
	return nodes > 0 ? nodes : 1;
}

static void write_state(struct numa_balancing *nb, int set)
{
	char tmp[] = NB_STATE_DIR "/.numa_balancing.XXXXXX";

	mkdir("/run", 0755);	/* a bare initramfs has none */
	mkdir(NB_STATE_DIR, 0755);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		mt_warn("cannot write %s (%s): a killed recording could not say what to restore",
			NB_STATE_FILE, strerror(errno));
		return;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	fprintf(f, "pid=%d\nnuma_balancing=%d\nset=%d\n", (int)getpid(), nb->prev, set);
	if (nb->period_changed)
		fprintf(f, "scan_period_min_ms=%ld\nscan_period_max_ms=%ld\n", nb->prev_min_ms,
			nb->prev_max_ms);
	if (fclose(f) || rename(tmp, NB_STATE_FILE)) {
		unlink(tmp);
		return;
	}
	nb->state_file = true;
}

static int set_period(struct numa_balancing *nb, long ms)
{
	long min = period_get("min"), max = period_get("max");

	if (min < 0 || max < 0)
		return -1;
	if (!nb->period_changed) {	/* else a killed run's values are the ones to restore */
		nb->prev_min_ms = min;
		nb->prev_max_ms = max;
	}
	/* max first when growing, min first when shrinking: min <= max throughout */
	if (ms > max ? period_set("max", ms) || period_set("min", ms)
		     : period_set("min", ms) || period_set("max", ms)) {
		int e = errno;
		period_set("min", min);
		period_set("max", max);
		errno = e;
		return -1;
	}
	nb->period_changed = true;
	return 0;
}

int nb_enable(struct numa_balancing *nb, long scan_period_ms, char *why, size_t whylen)
{
	int adopted = nb->state_file;	/* nb_check_stale handed us a killed run's values */
	int cur = nb_read();

	if (cur < 0) {
		snprintf(why, whylen, "hint faults need NUMA balancing and this kernel has none "
			 "(no %s: CONFIG_NUMA_BALANCING not set)", NB_SYSCTL);
		return -1;
	}
	if (!(cur & 1) || scan_period_ms > 0) {
		if (geteuid() != 0) {
			snprintf(why, whylen, "hint faults: %s is %d and only root can turn the scanner on "
				 "(or set its period); run as root, or `echo 1 > %s` first",
				 NB_SYSCTL, cur, NB_SYSCTL);
			return -1;
		}
	}
	if (!adopted)
		nb->prev = cur;
	if (scan_period_ms > 0 && set_period(nb, scan_period_ms))
		fprintf(stderr, "memtracectl: --scan-period: cannot set the NUMA scan period (%s%s); the "
			"kernel's own applies (scan_period_min_ms=%ld)\n", strerror(errno),
			errno == EPERM ? ": debugfs is locked down (kernel_lockdown)" : "",
			nb_scan_period_min_ms());
	if (!(cur & 1)) {
		/* the note first: a SIGKILL right after the write leaves it behind */
		write_state(nb, cur | 1);
		if (write_long_file(NB_SYSCTL, cur | 1)) {
			snprintf(why, whylen, "cannot turn NUMA balancing on (%s: %s)", NB_SYSCTL,
				 strerror(errno));
			nb_restore(nb);
			return -1;
		}
		nb->changed = true;
	} else if (nb->period_changed || adopted) {
		write_state(nb, cur);	/* with our pid */
	}
	return 0;
}

void nb_restore(struct numa_balancing *nb)
{
	if (nb->changed) {
		if (write_long_file(NB_SYSCTL, nb->prev))
			mt_err("could not restore %s to %d (%s): do `echo %d > %s`", NB_SYSCTL, nb->prev,
			       strerror(errno), nb->prev, NB_SYSCTL);
		nb->changed = false;
	}
	if (nb->period_changed) {
		if (period_set("min", nb->prev_min_ms) || period_set("max", nb->prev_max_ms))
			mt_err("could not restore the NUMA scan period to min %ld max %ld ms (%s)",
			       nb->prev_min_ms, nb->prev_max_ms, strerror(errno));
		nb->period_changed = false;
	}
	if (nb->state_file) {
		unlink(NB_STATE_FILE);
		nb->state_file = false;
	}
}

/* Does pid run memtracectl? */
static int collector_alive(pid_t pid)
{
	char path[64], comm[32] = "";

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strncmp(comm, "memtracectl", 11);
}

int nb_check_stale(FILE *out, struct numa_balancing *adopt)
{
	char text[512], v[32];
	int fd = open(NB_STATE_FILE, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = 0;
	pid_t pid = mt_kv_str(text, "pid", v, sizeof(v)) ? (pid_t)atoi(v) : 0;
	if (collector_alive(pid))
		return 0;
	int prev = mt_kv_str(text, "numa_balancing", v, sizeof(v)) ? atoi(v) : -1;
	int set = mt_kv_str(text, "set", v, sizeof(v)) ? atoi(v) : -1;
	long pmin = mt_kv_str(text, "scan_period_min_ms", v, sizeof(v)) ? atol(v) : -1;
	long pmax = mt_kv_str(text, "scan_period_max_ms", v, sizeof(v)) ? atol(v) : -1;
	char period[256] = "";
	if (pmin >= 0 && pmax >= 0)
		snprintf(period, sizeof(period), " and the scan period (debugfs %sscan_period_min_ms=%ld, "
			 "scan_period_max_ms=%ld)", PERIOD_DIR, pmin, pmax);
	if (adopt && prev >= 0 && nb_read() == set) {
		adopt->changed = prev != set;
		adopt->prev = prev;
		adopt->period_changed = pmin >= 0 && pmax >= 0;
		adopt->prev_min_ms = pmin;
		adopt->prev_max_ms = pmax;
		adopt->state_file = true;
		if (out)
			fprintf(out, "memtracectl: a recording (pid %d) was killed with NUMA balancing "
				"changed: this one puts back %s=%d%s when it ends\n", (int)pid, NB_SYSCTL,
				prev, period);
		return 1;
	}
	if (out)
		fprintf(out, "memtracectl: a recording (pid %d) was killed after it set %s=%d: put back "
			"the value it found with `echo %d > %s`%s, then `rm %s`\n", (int)pid, NB_SYSCTL,
			set, prev, NB_SYSCTL, period, NB_STATE_FILE);
	return 1;
}
