/* module_limits.c - what memtrace.ko allows a caller: see module_limits.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uapi/memtrace.h"
#include "source/module/module_limits.h"
#include "util/util.h"

#define PARANOID_PATH	"/proc/sys/kernel/perf_event_paranoid"
#define POSSIBLE_PATH	"/sys/devices/system/cpu/possible"

static long read_long(const char *path)
{
	char buf[64];
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

long mod_param_long(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), MOD_PARAMS "%s", name);
	return read_long(path);
}

/* The module's nr_cpu_ids: the highest possible CPU + 1 ("0-3,8-11" -> 12). */
static int possible_cpus(void)
{
	char buf[256], *p;
	FILE *f = fopen(POSSIBLE_PATH, "r");
	long last = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		p = buf + strcspn(buf, "\n");
		while (p > buf && p[-1] >= '0' && p[-1] <= '9')
			p--;
		last = strtol(p, NULL, 10);
	}
	fclose(f);
	return last >= 0 ? (int)last + 1 : -1;
}

size_t mod_ring_bytes(uint32_t records)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (pg + (size_t)records * sizeof(struct memtrace_sample) + pg - 1) / pg * pg;
}

uint32_t mod_fit_ring(uint32_t records)
{
	long max_mb = mod_param_long("max_ring_mb");
	int ncpus = possible_cpus();

	if (max_mb < 0 || ncpus <= 0)
		return records;
	while (records > MEMTRACE_RING_MIN_RECORDS &&
	       (size_t)ncpus * mod_ring_bytes(records) > (size_t)max_mb << 20)
		records >>= 1;
	return records;
}

const char *mod_open_error(int err)
{
	static char buf[256];

	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "memtrace.ko is not loaded (modprobe memtrace, or build it: make module)";
	case EPERM:
	case EACCES:
		return "opening /dev/memtrace needs CAP_PERFMON or CAP_SYS_ADMIN";
	case EMFILE:
		snprintf(buf, sizeof(buf), "this user has the most memtrace sessions open that the "
			 "module allows (%ld: %smax_sessions_per_user)",
			 mod_param_long("max_sessions_per_user"), MOD_PARAMS);
		return buf;
	default:
		return strerror(err);
	}
}

/* -a (with or without --kernel) refused: perf's rule for the caller. */
static void paranoid_error(const char *what)
{
	mt_err("%s needs CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 "
	       "(it is %ld)", what, read_long(PARANOID_PATH));
}

void mod_configure_error(int e, const struct record_opts *o, int npids, pid_t target,
			 uint32_t records)
{
	size_t mib = ((size_t)(possible_cpus() > 0 ? possible_cpus() : 1) *
		      mod_ring_bytes(records) + (1U << 20) - 1) >> 20;
	long paranoid = read_long(PARANOID_PATH);

	if (e == EACCES && o->system_wide)
		paranoid_error(o->kernel_addrs ? "system-wide recording of kernel addresses (-a --kernel)"
					       : "system-wide recording (-a)");
	else if (e == EACCES && paranoid > 2)
		mt_err("may not trace %s: needs ptrace read access (same user, or CAP_SYS_PTRACE), and "
		       "without CAP_PERFMON kernel.perf_event_paranoid <= 2 (it is %ld)",
		       npids > 1 ? "one of the listed pids" : "the target", paranoid);
	else if (e == EACCES && npids > 1)
		mt_err("may not trace one of the listed pids (needs ptrace read access: same user, or CAP_SYS_PTRACE)");
	else if (e == EACCES)
		mt_err("may not trace pid %d (needs ptrace read access: same user, or CAP_SYS_PTRACE)",
		       (int)target);
	else if (e == ESRCH && npids > 1)
		mt_err("one of the listed pids is not a running process");
	else if (e == ESRCH)
		mt_err("no process with pid %d", (int)target);
	else if (e == EINVAL && o->kernel_addrs && !o->system_wide)
		mt_err("--kernel needs -a: the module samples kernel addresses only system-wide");
	else if (e == EINVAL && npids > (int)MEMTRACE_MAX_PIDS)
		mt_err("the module takes at most %u pids", MEMTRACE_MAX_PIDS + 1);
	else if (e == EINVAL && o->ring_records)
		mt_err("module refused the configuration: --ring must be a power of two in [%u, %u], "
		       "all CPUs' rings at most 1 GiB", MEMTRACE_RING_MIN_RECORDS,
		       MEMTRACE_RING_MAX_RECORDS);
	else if (e == EFBIG)
		mt_err("the rings (%u records per CPU, %zu MiB) exceed the module's max_ring_mb "
		       "(%ld MiB, %smax_ring_mb): use a smaller --ring", records, mib,
		       mod_param_long("max_ring_mb"), MOD_PARAMS);
	else if (e == ENOMEM)
		mt_err("the module could not allocate the rings (%u records per CPU, %zu MiB) within this "
		       "memory cgroup's limit or free memory: use a smaller --ring", records, mib);
	else
		mt_err("module refused the configuration: %s", strerror(e));
}

int mod_start_error(int e, const struct record_opts *o)
{
	if (e != EACCES)
		return 0;
	if (o->system_wide)
		paranoid_error("system-wide recording (-a)");
	else
		mt_err("may no longer trace the target: it is not ptrace-readable any more "
		       "(changed credentials, e.g. a setuid exec, since it was configured)");
	return 1;
}
