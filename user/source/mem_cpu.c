/* mem_cpu.c - the CPU model and PMUs of this machine, as perf sees them. */
#include "source/mem_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_DIR	"/sys/bus/event_source/devices/"

static int sysfs_pmu_type(const char *pmu)
{
	char path[128];
	int type = -1;

	snprintf(path, sizeof(path), PMU_DIR "%s/type", pmu);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

uint64_t mem_cpu_event_config(const char *str)
{
	static const struct { const char *term; unsigned shift, bits; } fields[] = {
		{ "event", 0, 8 }, { "umask", 8, 8 }, { "cmask", 24, 8 },
	};
	char buf[128];
	uint64_t config = 0;

	snprintf(buf, sizeof(buf), "%s", str);
	buf[strcspn(buf, "\n")] = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		size_t i = 0;
		if (!eq)
			return 0;
		*eq = 0;
		while (i < sizeof(fields) / sizeof(fields[0]) && strcmp(tok, fields[i].term))
			i++;
		char *end;
		unsigned long long v = strtoull(eq + 1, &end, 0);
		if (i == sizeof(fields) / sizeof(fields[0]) || *end || v >> fields[i].bits)
			return 0;
		config |= (uint64_t)v << fields[i].shift;
	}
	return config;
}

static uint64_t core_event_config(const char *pmu, const char *event)
{
	char path[160], line[128];
	uint64_t config = 0;

	snprintf(path, sizeof(path), PMU_DIR "%s/events/%s", pmu, event);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		config = mem_cpu_event_config(line);
	fclose(f);
	return config;
}

static void read_cpuinfo(struct mem_cpu *cpu)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int seen = 0;

	if (!f)
		return;
	while (seen < 3 && fgets(line, sizeof(line), f)) {
		const char *colon = strchr(line, ':');
		if (!colon)
			continue;
		if (!strncmp(line, "vendor_id", 9)) {
			cpu->vendor = strstr(colon, "GenuineIntel") ? MEM_CPU_INTEL :
				      strstr(colon, "AuthenticAMD") ? MEM_CPU_AMD : MEM_CPU_OTHER;
			seen++;
		} else if (!strncmp(line, "cpu family", 10)) {
			cpu->family = (unsigned)strtoul(colon + 1, NULL, 10);
			seen++;
		} else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model :", 7)) {
			cpu->model = (unsigned)strtoul(colon + 1, NULL, 10);
			seen++;
		}
	}
	fclose(f);
}

void mem_cpu_probe(struct mem_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	read_cpuinfo(cpu);
	const char *core = "cpu";
	cpu->core_type = sysfs_pmu_type(core);
	if (cpu->core_type < 0) {
		core = "cpu_core";
		cpu->core_type = sysfs_pmu_type(core);
	}
	cpu->ibs_op_type = sysfs_pmu_type("ibs_op");
	/* not on hybrids (cpu_core): their load-latency set-up is left as it was */
	if (cpu->core_type >= 0 && !strcmp(core, "cpu"))
		cpu->mem_loads_aux = core_event_config(core, "mem-loads-aux");
}

bool mem_cpu_spr_like(const struct mem_cpu *cpu)
{
	/* INTEL_SAPPHIRERAPIDS_X, INTEL_EMERALDRAPIDS_X, INTEL_GRANITERAPIDS_X, _D */
	static const unsigned models[] = { 0x8f, 0xcf, 0xad, 0xae };

	if (cpu->vendor != MEM_CPU_INTEL || cpu->family != 6)
		return false;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (cpu->model == models[i])
			return true;
	return false;
}
