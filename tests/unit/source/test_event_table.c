/* test_event_table.c - the perf_event_attr memtracectl sets up for -e loads,
 * stores, llc-miss-loads, load-latency and ibs-op on each CPU model, against
 * what perf uses there (user/source/mem_event.c, mem_cpu.c).
 *
 * The expected values are transcribed from perf's and the kernel's source
 * (linux 6.12) and libpfm4 4.13's tables, one comment per row naming the
 * file and event; none comes from memtrace.  Each model is a struct mem_cpu
 * as mem_cpu_probe() would read it there, so no PMU is needed.
 *
 * Sources, abbreviated below:
 *   mem-events.c  tools/perf/arch/x86/util/mem-events.c: perf mem's events,
 *                 "%s/mem-loads,ldlat=%u/P", "%s/mem-stores/P",
 *                 "{%s/mem-loads-aux/,%s/mem-loads,ldlat=%u/}:P" (when the
 *                 core PMU lists mem-loads-aux: arch/x86/util/pmu.c) and AMD's
 *                 "%s//" on ibs_op; tools/perf/util/mem-events.c: ldlat 30
 *   core.c        arch/x86/events/intel/core.c: the sysfs events mem_ld_hsw
 *                 "event=0xcd,umask=0x1,ldlat=3", mem_st_hsw "event=0xd0,
 *                 umask=0x82" (hsw_mem_events_attrs: Skylake; icl_events_attrs:
 *                 Ice Lake), mem_st_spr "event=0xcd,umask=0x2", mem_ld_aux
 *                 "event=0x03,umask=0x82" (glc_events_attrs: Sapphire, Emerald,
 *                 Granite Rapids; mem-loads-aux shown only with
 *                 PMU_FL_MEM_LOADS_AUX, which intel_pmu_init() sets for
 *                 SAPPHIRERAPIDS_X and EMERALDRAPIDS_X, not GRANITERAPIDS_X/_D);
 *                 x86 "cpu" PMU registered as PERF_TYPE_RAW (events/core.c)
 *   json/M        tools/perf/pmu-events/arch/x86/M/{cache,memory}.json: the
 *                 named events perf records on model M
 *   pfm/F         libpfm4 4.13 lib/events/F: the tables memtrace encodes with
 *   precise       perf's :P asks precise_ip 3 and steps down until the kernel
 *                 accepts (tools/perf/util/evsel.c evsel__precise_ip_fallback):
 *                 x86_pmu_max_precise() is 3 on all these Intel models
 *                 (pebs_prec_dist set for SKL, ICL, GLC); glc_get_event_
 *                 constraints() refuses 3 off GP counter 0, and load latency
 *                 0x1cd is INTEL_PLD_CONSTRAINT(0x1cd, 0xfe) there: 2
 *                 (ds.c intel_glc_pebs_event_constraints)
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>

#include "source/mem_cpu.h"
#include "source/mem_event.h"
#include "test.h"

#define RAW	PERF_TYPE_RAW	/* the x86 core PMU "cpu" (events/core.c) */
#define IBS	11		/* ibs_op's type is dynamic: any number the kernel gave it */
#define LDLAT	30		/* perf_mem_events__loads_ldlat (tools/perf/util/mem-events.c) */
#define MEM_LOADS_AUX	0x8203	/* tools/perf/arch/x86/util/mem-events.c */

struct model {
	const char *name;
	enum mem_cpu_vendor vendor;
	unsigned family, model;
	int core_type, ibs_op_type;
	const char *aux_sysfs;	/* cpu/events/mem-loads-aux as the kernel writes it (core.c) */
	const char *pfm_pmu;	/* the libpfm4 PMU that detects this model */
};

/* libpfm4 4.13 pfmlib_intel_skl.c skl_models (94), skx_models (85);
 * pfmlib_intel_icl.c icl_models (126), icx_models (106); pfmlib_intel_spr.c
 * spr_models (143).  Emerald and Granite Rapids: libpfm4 master's
 * pfmlib_intel_spr.c emr_models (207) and pfmlib_intel_gnr.c gnr_models
 * (173): 4.13 has neither, and memtrace falls back to spr's table. */
static const struct model models[] = {
	{ "skylake",         MEM_CPU_INTEL, 6,    0x5e, RAW, -1, NULL, "skl" },
	{ "skylake-x",       MEM_CPU_INTEL, 6,    0x55, RAW, -1, NULL, "skx" },
	{ "icelake",         MEM_CPU_INTEL, 6,    0x7e, RAW, -1, NULL, "icl" },
	{ "icelake-x",       MEM_CPU_INTEL, 6,    0x6a, RAW, -1, NULL, "icx" },
	{ "sapphire-rapids", MEM_CPU_INTEL, 6,    0x8f, RAW, -1, "event=0x03,umask=0x82", "spr" },
	{ "emerald-rapids",  MEM_CPU_INTEL, 6,    0xcf, RAW, -1, "event=0x03,umask=0x82", "emr" },
	{ "granite-rapids",  MEM_CPU_INTEL, 6,    0xad, RAW, -1, NULL, "gnr" },
	/* AMD: a core PMU "cpu" and the IBS op PMU (arch/x86/events/amd/ibs.c) */
	{ "zen3",            MEM_CPU_AMD,   0x19, 0x01, RAW, IBS, NULL, NULL },
	{ "zen4",            MEM_CPU_AMD,   0x19, 0x11, RAW, IBS, NULL, NULL },
	{ "zen5",            MEM_CPU_AMD,   0x1a, 0x02, RAW, IBS, NULL, NULL },
};

/* What perf uses for the same event; refused: perf has none there. */
struct want {
	bool refused;
	uint32_t type;
	uint64_t config, config1, aux;
	unsigned precise;	/* what perf's :P ends with (header); 0 for IBS: "%s//" */
};

enum { LOADS, STORES, LLC_MISS, LATENCY, IBS_OP, NEVENTS };
static const char *const event_names[NEVENTS] = {
	"loads", "stores", "llc-miss-loads", "load-latency", "ibs-op",
};

static struct want intel(int event, const struct model *m)
{
	bool glc = m->model == 0x8f || m->model == 0xcf || m->model == 0xad;

	switch (event) {
	case LOADS:	/* MEM_INST_RETIRED.ALL_LOADS: json/skylake..graniterapids cache.json
			 * EventCode 0xd0 UMask 0x81; pfm/intel_{skl,icl,spr}_events.h
			 * MEM_INST_RETIRED 0xd0 ALL_LOADS 0x8100 */
		return (struct want){ .type = RAW, .config = 0x81d0, .precise = 3 };
	case STORES:	/* MEM_INST_RETIRED.ALL_STORES: json cache.json 0xd0 UMask 0x82;
			 * pfm ALL_STORES 0x8200.  perf mem's mem-stores is the same on
			 * Skylake and Ice Lake (core.c mem_st_hsw); on Sapphire, Emerald and
			 * Granite Rapids it is MEM_TRANS_RETIRED.STORE_SAMPLE 0x2cd (mem_st_spr,
			 * the store-latency facility): memtrace keeps every N-th store there */
		return (struct want){ .type = RAW, .config = 0x82d0, .precise = 3 };
	case LLC_MISS:	/* MEM_LOAD_RETIRED.L3_MISS: json cache.json EventCode 0xd1 UMask
			 * 0x20; pfm MEM_LOAD_RETIRED 0xd1 L3_MISS 0x2000 */
		return (struct want){ .type = RAW, .config = 0x20d1, .precise = 3 };
	case LATENCY:	/* perf mem ldlat-loads: core.c mem_ld_hsw event=0xcd,umask=0x1 with
			 * ldlat=30 (format ldlat: config1); json memory.json
			 * MEM_TRANS_RETIRED.LOAD_LATENCY_* 0xcd UMask 0x1; pfm
			 * MEM_TRANS_RETIRED:LOAD_LATENCY; led by mem-loads-aux where the
			 * kernel lists it (Sapphire, Emerald Rapids) */
		return (struct want){ .type = RAW, .config = 0x01cd, .config1 = LDLAT,
				      .aux = m->aux_sysfs ? MEM_LOADS_AUX : 0,
				      .precise = glc ? 2 : 3 };
	default:	/* ibs-op: no ibs_op PMU on Intel */
		return (struct want){ .refused = true };
	}
}

static struct want amd(int event)
{
	switch (event) {
	case LOADS:
	case STORES:
	case IBS_OP:	/* perf mem on AMD: "mem-ldst", "%s//" on ibs_op (mem-events.c
			 * perf_mem_events_amd): config 0 (cnt_ctl 0: count cycles;
			 * l3missonly, format of Zen 4 and later, not set), no :P */
		return (struct want){ .type = IBS, .config = 0, .precise = 0 };
	default:	/* perf_mem_events_amd has no load-latency or LLC-miss event */
		return (struct want){ .refused = true };
	}
}

static bool is_prime(uint64_t n)
{
	if (n < 2)
		return false;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return false;
	return true;
}

#define NROWS	(sizeof(models) / sizeof(models[0]) * NEVENTS)
static char row_names[NROWS][64];
static int row_next;

static void check_row(void)
{
	int i = row_next++;
	const struct model *m = &models[i / NEVENTS];
	int event = i % NEVENTS;
	struct want w = m->vendor == MEM_CPU_INTEL ? intel(event, m) : amd(event);
	struct mem_cpu cpu = {
		.vendor = m->vendor, .family = m->family, .model = m->model,
		.core_type = m->core_type, .ibs_op_type = m->ibs_op_type,
		.mem_loads_aux = m->aux_sysfs ? mem_cpu_event_config(m->aux_sysfs) : 0,
		.pfm_pmu = m->pfm_pmu,
	};
	struct mem_event ev;
	char why[512] = "";

	int rc = mem_event_resolve_cpu(&cpu, event_names[event], &ev, why, sizeof(why));
	if (w.refused) {
		CHECK(rc == -1);
		CHECK(why[0] != 0);
		return;
	}
	if (rc) {
		TEST_FAIL("not resolved: %.300s", why);
		return;
	}
	CHECK_EQ_U64(ev.attr.type, w.type);
	CHECK_EQ_U64(ev.attr.config, w.config);
	CHECK_EQ_U64(ev.attr.config1, w.config1);
	CHECK_EQ_U64(ev.aux_config, w.aux);
	/* precise_ip: never more than perf gets from this kernel (it would not
	 * open), and on PEBS at least 2, the IP fix-up the samples' ip needs */
	CHECK(ev.attr.precise_ip <= w.precise);
	CHECK(ev.attr.precise_ip >= (w.precise < 2 ? w.precise : 2));
	/* sample_type: perf mem record passes -d (ADDR, DATA_SRC) and -W
	 * (WEIGHT_STRUCT on x86: tools/perf/arch/x86/util/evsel.c); memtrace
	 * records the one weight, PERF_SAMPLE_WEIGHT */
	uint64_t st = mem_event_sample_type(&ev);
	CHECK(st & PERF_SAMPLE_ADDR);
	CHECK(st & PERF_SAMPLE_DATA_SRC);
	CHECK(!!(st & PERF_SAMPLE_WEIGHT) + !!(st & PERF_SAMPLE_WEIGHT_STRUCT) == 1);
	/* period: perf samples at -F 4000 (builtin-record.c .freq = 4000);
	 * memtrace a fixed prime count (docs/accuracy.md) */
	CHECK(!ev.attr.freq);
	CHECK(is_prime(ev.default_period));
}

__attribute__((constructor)) static void register_rows(void)
{
	for (size_t i = 0; i < NROWS; i++) {
		snprintf(row_names[i], sizeof(row_names[i]), "event-setup[%s/%s]",
			 models[i / NEVENTS].name, event_names[i % NEVENTS]);
		test_register(row_names[i], check_row);
	}
}

/* The sysfs strings of core.c parse as perf's format does (event config:0-7,
 * umask config:8-15): mem-loads-aux is perf mem's MEM_LOADS_AUX. */
TEST(sysfs_event_strings)
{
	CHECK_EQ_U64(mem_cpu_event_config("event=0x03,umask=0x82\n"), MEM_LOADS_AUX);
	CHECK_EQ_U64(mem_cpu_event_config("event=0xcd,umask=0x2"), 0x2cd);
	CHECK_EQ_U64(mem_cpu_event_config("event=0xd0,umask=0x82"), 0x82d0);
	CHECK_EQ_U64(mem_cpu_event_config("event=0x03,frob=1"), 0);
	CHECK_EQ_U64(mem_cpu_event_config("event=0x103"), 0);
}

/* core.c intel_pmu_init(): SAPPHIRERAPIDS_X, EMERALDRAPIDS_X, GRANITERAPIDS_X
 * and _D share glc_common; Ice Lake-X, Skylake and AMD do not. */
TEST(sapphire_rapids_family)
{
	struct mem_cpu c = { .vendor = MEM_CPU_INTEL, .family = 6 };
	static const unsigned spr[] = { 0x8f, 0xcf, 0xad, 0xae }, not_spr[] = { 0x55, 0x6a, 0x7e, 0x5e };

	for (size_t i = 0; i < 4; i++) {
		c.model = spr[i];
		CHECK(mem_cpu_spr_like(&c));
		c.model = not_spr[i];
		CHECK(!mem_cpu_spr_like(&c));
	}
	c.vendor = MEM_CPU_AMD;
	c.model = 0x8f;
	CHECK(!mem_cpu_spr_like(&c));
}

/* A raw libpfm4 load-latency event gets the aux leader too, and another
 * PMU's table than the model's is not used for it. */
TEST(raw_load_latency_on_sapphire_rapids)
{
	struct mem_cpu c = { .vendor = MEM_CPU_INTEL, .family = 6, .model = 0x8f,
			     .core_type = RAW, .ibs_op_type = -1,
			     .mem_loads_aux = MEM_LOADS_AUX, .pfm_pmu = "spr" };
	struct mem_event ev;
	char why[512];

	CHECK(!mem_event_resolve_cpu(&c, "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=50", &ev, why, sizeof(why)));
	CHECK_EQ_U64(ev.attr.config, 0x01cd);
	CHECK_EQ_U64(ev.attr.config1, 50);
	CHECK_EQ_U64(ev.aux_config, MEM_LOADS_AUX);
	CHECK(!mem_event_resolve_cpu(&c, "MEM_INST_RETIRED:ALL_LOADS", &ev, why, sizeof(why)));
	CHECK_EQ_U64(ev.aux_config, 0);
}

int main(void)
{
	return test_main();
}
