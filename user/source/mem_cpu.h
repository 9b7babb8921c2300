/* mem_cpu.h - the CPU that hardware memory events are set up for.
 *
 * What perf looks at when it picks the events of `perf mem record`: the
 * vendor, family and model, the PMUs in /sys/bus/event_source/devices and
 * the events the core PMU lists there.  mem_cpu_probe() reads them from
 * this machine; a test fills one per CPU model (tests/unit/source/
 * test_event_table.c) and resolves events for it without the hardware.
 */
#ifndef MEMTRACE_SOURCE_MEM_CPU_H
#define MEMTRACE_SOURCE_MEM_CPU_H

#include <stdbool.h>
#include <stdint.h>

enum mem_cpu_vendor { MEM_CPU_OTHER, MEM_CPU_INTEL, MEM_CPU_AMD };

struct mem_cpu {
	enum mem_cpu_vendor vendor;	/* /proc/cpuinfo vendor_id */
	unsigned family, model;		/* /proc/cpuinfo "cpu family", "model" */
	int core_type;		/* type of the core PMU (cpu, or cpu_core on hybrids); -1: none */
	int ibs_op_type;	/* type of the AMD ibs_op PMU (dynamic); -1: none */
	/* config of the core PMU's mem-loads-aux event (Sapphire and Emerald
	 * Rapids: the kernel opens a load-latency event that samples its data
	 * source only in a group led by it); 0: the CPU has none */
	uint64_t mem_loads_aux;
	/* libpfm4 PMU whose event table encodes the events ("skl", "spr"...);
	 * NULL: the one libpfm4 detects on this machine */
	const char *pfm_pmu;
};

/* This machine's CPU (pfm_pmu NULL); what cannot be read stays -1, 0 or OTHER. */
void mem_cpu_probe(struct mem_cpu *cpu);

/*
 * Whether the kernel drives this CPU's core PMU as Sapphire Rapids'
 * (arch/x86/events/intel/core.c: Sapphire, Emerald and Granite Rapids share
 * its event list): a libpfm4 without a table of its own for it encodes
 * the events with Sapphire Rapids' ("spr").
 */
bool mem_cpu_spr_like(const struct mem_cpu *cpu);

/* Parses a sysfs event string ("event=0x03,umask=0x82") into the core PMU's
 * config (event bits 0-7, umask 8-15, cmask 24-31); 0 for anything else. */
uint64_t mem_cpu_event_config(const char *str);

#endif
