/* bpf_probe.c - can the bpf backend run here, and why not: kernel BTF,
 * CAP_BPF/CAP_PERFMON, kernel.unprivileged_bpf_disabled, loading the
 * programs (the verifier), the event and the fields asked for. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/bpf/bpf.h"
#include "uapi/memtrace.h"
#include "sample.skel.h"

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define CAP_SYS_ADMIN_BIT	21
#define CAP_PERFMON_BIT		38
#define CAP_BPF_BIT		39

static char last_error[256];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(last_error)];

	if (getenv("MEMTRACE_BPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = 0;
	if (line[0])
		memcpy(last_error, line, sizeof(line));
	return 0;
}

void bpf_quiet_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}

const char *bpf_last_error(void)
{
	return last_error;
}

/* The effective capability set of this process. */
static unsigned long long cap_effective(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

static bool has_cap(unsigned long long caps, int bit)
{
	return caps & (1ULL << bit);
}

static int read_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v = dflt;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

static int check_btf(char *why, size_t whylen)
{
	if (access(BTF_PATH, R_OK)) {
		snprintf(why, whylen, "the kernel has no BTF (%s: %s; needs CONFIG_DEBUG_INFO_BTF=y)",
			 BTF_PATH, strerror(errno));
		return -1;
	}
	return 0;
}

static int check_privileges(char *why, size_t whylen)
{
	unsigned long long caps = cap_effective();
	bool admin = has_cap(caps, CAP_SYS_ADMIN_BIT);

	if (!admin && !(has_cap(caps, CAP_BPF_BIT) && has_cap(caps, CAP_PERFMON_BIT))) {
		int unpriv = read_int("/proc/sys/kernel/unprivileged_bpf_disabled", -1);
		snprintf(why, whylen, "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)%s",
			 unpriv > 0 ? "; kernel.unprivileged_bpf_disabled is set, so unprivileged "
			 "BPF is off" : "");
		return -1;
	}
	return 0;
}

/*
 * Opens and loads the programs asked for (the verifier runs), then frees
 * them; a load error goes in why after fail ("" for none).
 */
static int try_load(bool fault, bool hint, bool sample, const char *fail, char *why,
		    size_t whylen)
{
	struct mt_sample_bpf *skel;
	int rc;

	bpf_quiet_libbpf();
	last_error[0] = 0;
	skel = mt_sample_bpf__open();
	if (!skel) {
		snprintf(why, whylen, "opening the BPF programs failed: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(skel->maps.samples, 4096);
	bpf_program__set_autoload(skel->progs.on_fault, fault);
	bpf_program__set_autoload(skel->progs.on_hint, hint);
	bpf_program__set_autoload(skel->progs.on_sample, sample);
	rc = mt_sample_bpf__load(skel);
	if (rc)
		snprintf(why, whylen, "%s%s%s%s", fail, strerror(-rc), last_error[0] ? ": " : "",
			 last_error);
	mt_sample_bpf__destroy(skel);
	return rc ? -1 : 0;
}

/* Do the programs for ev load (the perf-event path)? */
static int check_load(const struct mem_event *ev, char *why, size_t whylen)
{
	return try_load(false, ev->hint_faults, !ev->hint_faults,
			"loading the BPF programs failed: ", why, whylen);
}

/* Does on_fault load on tp_btf/page_fault_user (x86, kernel BTF)? */
static int check_fault_tp(char *why, size_t whylen)
{
	return try_load(true, false, false, "", why, whylen);
}

int bpf_check(const struct record_opts *o, struct mem_event *ev, bool load, char *why,
	      size_t whylen)
{
	if (o && o->random_period) {
		snprintf(why, whylen, "--random-period is for the valgrind backend and import");
		return -1;
	}
	/* "auto" as the perf backend picks it: hint faults before page faults */
	if (mem_event_resolve_auto(o && o->event ? o->event : "page-faults", ev, NULL, why, whylen))
		return -1;
	if (ev->aux_config) {
		snprintf(why, whylen, "event '%s' on this CPU opens in a group led by mem-loads-aux "
			 "(as perf mem does), which the bpf backend does not do: use --backend perf", ev->alias);
		return -1;
	}
	/* hardware events: only when asked for (never tried on a PMU) */
	bool auto_backend = !o || !o->backend || !strcmp(o->backend, "auto");
	if (ev->attr.type != PERF_TYPE_SOFTWARE && !ev->hint_faults && auto_backend) {
		snprintf(why, whylen, "hardware event %s: the bpf backend takes it only with "
			 "--backend bpf (untested on a PMU)", ev->alias ? ev->alias : ev->name);
		return -1;
	}
	if (check_btf(why, whylen) || check_privileges(why, whylen) ||
	    (load && check_load(ev, why, whylen)))
		return -1;
	return 0;
}

void bpf_status_lines(FILE *out)
{
	char why[512];
	struct mem_event ev;
	unsigned long long caps = cap_effective();
	int unpriv = read_int("/proc/sys/kernel/unprivileged_bpf_disabled", -1);

	if (check_btf(why, sizeof(why)))
		fprintf(out, "  bpf: BTF: unavailable - %s\n", why);
	else
		fprintf(out, "  bpf: BTF: %s present (CO-RE relocations resolve)\n", BTF_PATH);
	fprintf(out, "  bpf: privileges: CAP_BPF %s, CAP_PERFMON %s, CAP_SYS_ADMIN %s\n",
		has_cap(caps, CAP_BPF_BIT) ? "yes" : "no", has_cap(caps, CAP_PERFMON_BIT) ? "yes" : "no",
		has_cap(caps, CAP_SYS_ADMIN_BIT) ? "yes" : "no");
	fprintf(out, "  bpf: kernel.unprivileged_bpf_disabled=%d%s\n", unpriv,
		unpriv > 0 ? " (BPF needs CAP_BPF)" : unpriv == 0 ? " (unprivileged BPF allowed)" : "");
	if (bpf_check(NULL, &ev, true, why, sizeof(why)))
		fprintf(out, "  bpf: page-faults: unavailable - %s\n", why);
	else {
		fprintf(out, "  bpf: page-faults: available (programs load; libbpf %s)\n",
			libbpf_version_string());
		if (check_fault_tp(why, sizeof(why)))
			fprintf(out, "  bpf: fault source: perf events (tp_btf/page_fault_user does not "
				"load: %s)\n", why);
		else
			fprintf(out, "  bpf: fault source: tp_btf/page_fault_user (page faults without "
				"--kernel, hint faults)\n");
	}
	struct record_opts hint = { .event = "hint-faults" };
	if (bpf_check(&hint, &ev, true, why, sizeof(why)))
		fprintf(out, "  bpf: hint-faults: unavailable - %s\n", why);
	else
		fprintf(out, "  bpf: hint-faults: available (exceptions:page_fault_user, through the "
			"fault source above)\n");
}
