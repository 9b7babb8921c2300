/* mem_event.c - event names, libpfm4 encodings and PMU detection. */
#include "source/mem_event.h"

#include <errno.h>
#include <stdbool.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "source/kernel_fs.h"
#include "source/mem_cpu.h"
#include "source/numa_balancing.h"
#include "trace/words.h"
#include "uapi/memtrace.h"

#define SEES_PAGE_FAULTS "page faults only: the first touch of each page and re-faults after " \
	"reclaim or MADV_DONTNEED, not repeated accesses"
#define SEES_HINT "page faults with their kind: NUMA-balancing hint faults (a page's first access " \
	"after each scan pass: access-bit sampling with addresses), first touches, copy-on-write"
#define SEES_PEBS "every N-th retired memory instruction of the chosen kind, with its data address"
#define SEES_IBS "every N-th micro-op; loads and stores carry their data address"

static const char *const intel_loads[] = {
	"MEM_INST_RETIRED:ALL_LOADS", "MEM_UOPS_RETIRED:ALL_LOADS",
	"MEM_UOP_RETIRED:ANY_LOADS", "MEM_UOPS_RETIRED:ALL_LOADS:u", NULL,
};
static const char *const intel_stores[] = {
	"MEM_INST_RETIRED:ALL_STORES", "MEM_UOPS_RETIRED:ALL_STORES",
	"MEM_UOP_RETIRED:ANY_STORES", NULL,
};
static const char *const intel_llc_miss[] = {
	"MEM_LOAD_RETIRED:L3_MISS", "MEM_LOAD_UOPS_RETIRED:L3_MISS",
	"MEM_LOAD_UOPS_RETIRED:LLC_MISS", "MEM_LOAD_UOPS_MISC_RETIRED:LLC_MISS", NULL,
};
static const char *const intel_latency[] = {
	"MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", NULL,
};

/*
 * Default periods are primes: a fixed period sharing a factor with the
 * number of accesses in a loop samples the same few of them every pass
 * (docs/accuracy.md).  IBS counts ops: its periods are large.
 */
#define PMU_DEFAULT_PERIOD	997
#define IBS_DEFAULT_PERIOD	100003

static int pfm_state;	/* 0 untried, PFM_DETECTED, PFM_ALL_TABLES, -1 failed */
#define PFM_DETECTED	1	/* libpfm4 encodes with the tables of the PMUs it detects */
#define PFM_ALL_TABLES	2	/* and with any table named "pmu::event" */

/*
 * libpfm4 initialized; all_tables: encoding with the table of a PMU it did
 * not detect (a CPU model given by a test, or one this libpfm4 is older
 * than) needs LIBPFM_ENCODE_INACTIVE, which it reads when initialized.
 * In that mode an event without "pmu::" could come from any table: such
 * names are encoded before (the live path) or never (pfm_encode).
 */
static int pfm_ready(bool all_tables)
{
	if (pfm_state < 0 || pfm_state == PFM_ALL_TABLES || (pfm_state == PFM_DETECTED && !all_tables))
		return pfm_state > 0;
	if (pfm_state == PFM_DETECTED)
		pfm_terminate();
	bool set = all_tables && !getenv("LIBPFM_ENCODE_INACTIVE");
	if (set)
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	pfm_state = pfm_initialize() == PFM_SUCCESS ? (all_tables ? PFM_ALL_TABLES : PFM_DETECTED) : -1;
	if (set)	/* not for the traced command, which inherits our environment */
		unsetenv("LIBPFM_ENCODE_INACTIVE");
	return pfm_state > 0;
}

/* str encoded with the table of pmu (NULL: of the PMUs libpfm4 detects here). */
static int pfm_encode(const char *pmu, const char *str, struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;
	char qualified[256];

	if (pmu && !strstr(str, "::")) {
		snprintf(qualified, sizeof(qualified), "%s::%s", pmu, str);
		str = qualified;
	} else if (!pmu && pfm_state == PFM_ALL_TABLES) {
		return PFM_ERR_NOTFOUND;
	}
	if (!pfm_ready(pmu != NULL))
		return PFM_ERR_NOINIT;
	memset(&arg, 0, sizeof(arg));
	memset(&a, 0, sizeof(a));
	arg.attr = &a;
	arg.size = sizeof(arg);
	int ret = pfm_get_os_event_encoding(str, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	attr->type = a.type;
	attr->config = a.config;
	attr->config1 = a.config1;
	attr->config2 = a.config2;
	return PFM_SUCCESS;
}

/*
 * str encoded for cpu: with cpu->pfm_pmu's table, or for a CPU the kernel
 * drives as Sapphire Rapids (Emerald, Granite Rapids) that this libpfm4
 * has no table for (4.13 has none), with Sapphire Rapids' (the events
 * memtrace names have the same codes there: perf's pmu-events JSON).
 */
static int pfm_encode_for(const struct mem_cpu *cpu, const char *str, struct perf_event_attr *attr)
{
	int ret = pfm_encode(cpu->pfm_pmu, str, attr);

	if (ret == PFM_ERR_NOTFOUND && mem_cpu_spr_like(cpu) && !strstr(str, "::") &&
	    !(cpu->pfm_pmu && !strcmp(cpu->pfm_pmu, "spr")))
		ret = pfm_encode("spr", str, attr);
	return ret;
}

/* The core PMU's load-latency event (MEM_TRANS_RETIRED.LOAD_LATENCY, the
 * kernel's is_mem_loads_event()): event 0xcd, umask 0x01. */
static bool is_mem_loads(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_RAW && (attr->config & 0xffff) == 0x01cd;
}

/* Sets a hardware (PEBS) event's common fields after its encoding. */
static void set_pebs(const struct mem_cpu *cpu, struct mem_event *ev, const char *name,
		     const char *alias)
{
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->alias = alias;
	ev->source = "pebs";
	ev->sees = SEES_PEBS;
	ev->sample_class = words_class_name(WORDS_SAMPLED_ACCESS);
	ev->attr.precise_ip = 2;
	ev->default_period = PMU_DEFAULT_PERIOD;
	ev->fields = MEMTRACE_FIELD_IP | MEMTRACE_FIELD_WEIGHT | MEMTRACE_FIELD_DATA_SRC;
	/* arch/x86/events/intel/core.c intel_pmu_hw_config(): -ENODATA unless
	 * led by mem-loads-aux, as perf mem's "{mem-loads-aux,mem-loads}" */
	if (cpu->mem_loads_aux && is_mem_loads(&ev->attr))
		ev->aux_config = cpu->mem_loads_aux;
}

void mem_event_pmu_summary(char *buf, size_t len)
{
	struct mem_cpu cpu;

	mem_cpu_probe(&cpu);
	if (cpu.core_type < 0 && cpu.ibs_op_type < 0) {
		snprintf(buf, len, "no hardware PMU (no cpu or ibs_op in /sys/bus/event_source/devices): "
			 "only software events; a VM without a virtual PMU looks like this");
		return;
	}
	if (cpu.ibs_op_type >= 0)
		snprintf(buf, len, "AMD IBS op PMU present: loads/stores with data addresses");
	else if (cpu.vendor == MEM_CPU_INTEL)
		snprintf(buf, len, "Intel core PMU present: PEBS memory events (loads, stores, llc-miss-loads, load-latency)");
	else
		snprintf(buf, len, "core PMU present, vendor without PEBS/IBS support in memtrace");
}

static int is_prime(uint64_t n)
{
	if (n < 2)
		return 0;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

int mem_event_alias_risk(const struct mem_event *ev, uint64_t period, uint64_t *prime)
{
	static const unsigned small[] = { 2, 3, 5, 7 };
	int risk = 0;

	*prime = period;
	if (!ev->sample_class || strcmp(ev->sample_class, words_class_name(WORDS_SAMPLED_ACCESS)) ||
	    period < 2 || period > 1000000000)	/* beyond any useful period */
		return 0;
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		if (period % small[i] == 0 && period != small[i])
			risk = 1;
	if (risk)
		for (uint64_t p = period; p < period + 100000; p++)	/* prime gaps < 300 here */
			if (is_prime(p)) {
				*prime = p;
				break;
			}
	return risk;
}

void mem_event_say_fallback(const struct mem_event *ev)
{
	char why[512];

	if (ev->hint_faults)
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults with their kind, NUMA hint faults among them (re-accesses, "
			"once per page per scan pass); -e page-faults for page faults alone\n");
	else
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults, which see first touches and re-faults only (no hint faults: %s)\n",
			mem_event_hint_unavailable(why, sizeof(why)) ? why : "hint faults unavailable");
}

uint64_t mem_event_period(const struct mem_event *ev, uint64_t asked)
{
	uint64_t period = asked ? asked : ev->default_period, prime;

	if (mem_event_alias_risk(ev, period, &prime))
		fprintf(stderr, "memtracectl: warning: %s samples exactly every %llu-th event: a loop whose "
			"accesses repeat every 2, 3, 5 or 7 (or a multiple) is sampled at the same few of them "
			"every pass; a prime period such as -c %llu avoids most of it (docs/accuracy.md)\n",
			ev->alias, (unsigned long long)period, (unsigned long long)prime);
	return period;
}

static void set_page_faults(struct mem_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "page-faults");
	ev->alias = "page-faults";
	ev->source = "page-faults";
	ev->sees = SEES_PAGE_FAULTS;
	ev->sample_class = words_class_name(WORDS_FIRST_TOUCH);
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	ev->default_period = 1;
	ev->fields = MEMTRACE_FIELD_IP;
}

#define HINT_TRACEPOINT	"exceptions/page_fault_user"

static int resolve_hint_faults(struct mem_event *ev, char *why, size_t whylen)
{
	char buf[32];

	if (nb_read() < 0) {
		snprintf(why, whylen, "event 'hint-faults' needs NUMA balancing and this kernel has none "
			 "(no %s: CONFIG_NUMA_BALANCING not set)", NB_SYSCTL);
		return -1;
	}
	if (kfs_read("tracefs", "events/" HINT_TRACEPOINT "/id", buf, sizeof(buf))) {
		snprintf(why, whylen, "event 'hint-faults' needs the exceptions:page_fault_user tracepoint "
			 "(x86, tracefs): %s", strerror(errno));
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "exceptions:page_fault_user");
	ev->alias = "hint-faults";
	ev->source = "hint-faults";
	ev->sees = SEES_HINT;
	ev->sample_class = words_class_name(WORDS_HINT_FAULT);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = strtoull(buf, NULL, 10);
	ev->default_period = 1;
	ev->fields = MEMTRACE_FIELD_IP | MEMTRACE_FIELD_DATA_SRC;
	ev->hint_faults = 1;
	return 0;
}

static int resolve_ibs(const struct mem_cpu *cpu, struct mem_event *ev, const char *alias,
		       char *why, size_t whylen)
{
	if (cpu->ibs_op_type < 0) {
		snprintf(why, whylen, "event '%s' needs AMD IBS (no ibs_op PMU in /sys/bus/event_source/devices)",
			 alias);
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "ibs_op");
	ev->alias = alias;
	ev->source = "ibs";
	ev->sees = SEES_IBS;
	ev->sample_class = words_class_name(WORDS_SAMPLED_ACCESS);
	ev->attr.type = (uint32_t)cpu->ibs_op_type;
	ev->attr.config = 0;
	ev->default_period = IBS_DEFAULT_PERIOD;
	ev->fields = MEMTRACE_FIELD_IP | MEMTRACE_FIELD_WEIGHT | MEMTRACE_FIELD_DATA_SRC;
	ev->skip_zero_addr = 1;
	return 0;
}

static int resolve_pebs(const struct mem_cpu *cpu, struct mem_event *ev, const char *alias,
			const char *const *cands, char *why, size_t whylen)
{
	int last = PFM_ERR_NOTFOUND;

	memset(ev, 0, sizeof(*ev));
	for (int i = 0; cands[i]; i++) {
		last = pfm_encode_for(cpu, cands[i], &ev->attr);
		if (last == PFM_SUCCESS) {
			set_pebs(cpu, ev, cands[i], alias);
			return 0;
		}
	}
	snprintf(why, whylen, "event '%s' is not available on this CPU (libpfm4: %s)", alias,
		 pfm_strerror(last));
	return -1;
}

static int resolve_hw(const struct mem_cpu *cpu, const char *alias, struct mem_event *ev,
		      char *why, size_t whylen)
{
	const char *const *cands = NULL;

	if (!strcmp(alias, "loads"))
		cands = intel_loads;
	else if (!strcmp(alias, "stores"))
		cands = intel_stores;
	else if (!strcmp(alias, "llc-miss-loads"))
		cands = intel_llc_miss;
	else if (!strcmp(alias, "load-latency"))
		cands = intel_latency;

	if (cpu->core_type < 0 && cpu->ibs_op_type < 0) {
		snprintf(why, whylen, "event '%s' needs a hardware PMU with memory sampling (Intel PEBS or AMD IBS) "
			 "and this machine has none (a VM without a virtual PMU?): use -e page-faults or --backend valgrind",
			 alias);
		return -1;
	}
	if (cpu->ibs_op_type >= 0 && (!strcmp(alias, "loads") || !strcmp(alias, "stores")))
		return resolve_ibs(cpu, ev, alias, why, whylen);
	if (cpu->vendor != MEM_CPU_INTEL && cpu->ibs_op_type >= 0) {
		snprintf(why, whylen, "event '%s' is Intel PEBS only; on AMD IBS use loads, stores or ibs-op", alias);
		return -1;
	}
	if (cpu->vendor != MEM_CPU_INTEL) {
		snprintf(why, whylen, "event '%s' needs Intel PEBS or AMD IBS; this CPU has neither", alias);
		return -1;
	}
	return resolve_pebs(cpu, ev, alias, cands, why, whylen);
}

/* Why "auto" does not pick hint-faults here, or NULL when it does. */
const char *mem_event_hint_unavailable(char *why, size_t whylen)
{
	struct mem_event ev;

	if (geteuid() != 0) {
		snprintf(why, whylen, "not root (turning NUMA balancing on and the tracepoint need root)");
		return why;
	}
	if (resolve_hint_faults(&ev, why, whylen))
		return why;
	if (!(nb_read() & 1) && access(NB_SYSCTL, W_OK)) {
		snprintf(why, whylen, "%s is off and cannot be written (%s)", NB_SYSCTL, strerror(errno));
		return why;
	}
	return NULL;
}

static int resolve_auto(const struct mem_cpu *cpu, struct mem_event *ev, int *fell_back, bool with_hint)
{
	char ignore[512];

	if (resolve_hw(cpu, "loads", ev, ignore, sizeof(ignore)) == 0)
		return 0;
	if (fell_back)
		*fell_back = 1;
	if (with_hint && !mem_event_hint_unavailable(ignore, sizeof(ignore)) &&
	    !resolve_hint_faults(ev, ignore, sizeof(ignore)))
		return 0;
	/* DAMON comes here: the damon backend (source/damon/damon.c) probes before perf */
	set_page_faults(ev);
	return 0;
}

static int resolve(const struct mem_cpu *cpu, const char *name, struct mem_event *ev, int *fell_back,
		   bool with_hint, char *why, size_t whylen)
{
	if (fell_back)
		*fell_back = 0;
	if (!name || !strcmp(name, "auto"))
		return resolve_auto(cpu, ev, fell_back, with_hint);
	if (!strcmp(name, "page-faults") || !strcmp(name, "faults") || !strcmp(name, "pf")) {
		set_page_faults(ev);
		return 0;
	}
	if (!strcmp(name, "hint-faults") || !strcmp(name, "numa-hint-faults"))
		return resolve_hint_faults(ev, why, whylen);
	if (!strcmp(name, "loads") || !strcmp(name, "stores") || !strcmp(name, "llc-miss-loads") ||
	    !strcmp(name, "load-latency"))
		return resolve_hw(cpu, name, ev, why, whylen);
	if (!strcmp(name, "ibs-op"))
		return resolve_ibs(cpu, ev, name, why, whylen);

	/* a libpfm4 event string, e.g. MEM_INST_RETIRED:ALL_LOADS */
	memset(ev, 0, sizeof(*ev));
	int ret = pfm_encode_for(cpu, name, &ev->attr);
	if (ret != PFM_SUCCESS) {
		snprintf(why, whylen, "unknown event '%s' (libpfm4: %s); use auto, page-faults, hint-faults, loads, stores, "
			 "llc-miss-loads, load-latency, ibs-op or a libpfm4 event name", name,
			 pfm_strerror(ret));
		return -1;
	}
	set_pebs(cpu, ev, name, "raw");
	return 0;
}

int mem_event_resolve_cpu(const struct mem_cpu *cpu, const char *name, struct mem_event *ev,
			  char *why, size_t whylen)
{
	return resolve(cpu, name, ev, NULL, false, why, whylen);
}

int mem_event_resolve_auto(const char *name, struct mem_event *ev, int *fell_back,
			   char *why, size_t whylen)
{
	struct mem_cpu cpu;

	mem_cpu_probe(&cpu);
	return resolve(&cpu, name, ev, fell_back, true, why, whylen);
}

int mem_event_resolve(const char *name, struct mem_event *ev, int *fell_back,
		      char *why, size_t whylen)
{
	struct mem_cpu cpu;

	mem_cpu_probe(&cpu);
	return resolve(&cpu, name, ev, fell_back, false, why, whylen);
}

uint64_t mem_event_sample_type(const struct mem_event *ev)
{
	uint64_t t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		     PERF_SAMPLE_ID | PERF_SAMPLE_CPU;

	if (ev->hint_faults)	/* address, ip, error code: the tracepoint's record */
		t |= PERF_SAMPLE_RAW;
	else if (ev->fields & MEMTRACE_FIELD_WEIGHT)
		t |= PERF_SAMPLE_WEIGHT;
	if (ev->fields & MEMTRACE_FIELD_DATA_SRC && !ev->hint_faults)
		t |= PERF_SAMPLE_DATA_SRC;
	return t;
}

void mem_event_open_error(const struct mem_event *ev, int err, char *why, size_t whylen)
{
	int paranoid = perf_event_paranoid();

	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(why, whylen, "perf_event_open(%s): permission denied (perf_event_paranoid=%d): run as root, "
			 "grant CAP_PERFMON, or lower kernel.perf_event_paranoid", ev->name, paranoid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
		snprintf(why, whylen, "perf_event_open(%s): event not supported by this CPU or kernel (%s)",
			 ev->name, strerror(err));
		break;
	case ESRCH:
		snprintf(why, whylen, "perf_event_open(%s): the target process no longer exists", ev->name);
		break;
	case EMFILE:
		snprintf(why, whylen, "perf_event_open(%s): too many open files: raise `ulimit -n`", ev->name);
		break;
	case EINVAL:
		snprintf(why, whylen, "perf_event_open(%s): invalid event configuration or sample period", ev->name);
		break;
	default:
		snprintf(why, whylen, "perf_event_open(%s): %s", ev->name, strerror(err));
	}
}

int perf_event_paranoid(void)
{
	int paranoid = -9;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -9;
		fclose(f);
	}
	return paranoid;
}
