/* numa_balancing.h - turning the kernel's NUMA-balancing scanner on for a
 * hint-fault recording and putting it back as it was.
 *
 * /proc/sys/kernel/numa_balancing (bit 0: NUMA_BALANCING_NORMAL, the
 * scanner that makes hint faults) and, where debugfs allows it,
 * sched/numa_balancing/scan_period_{min,max}_ms.  What memtracectl changed
 * is written to a state file first (NB_STATE_FILE), so a collector killed
 * with SIGKILL leaves a note the next run and `memtracectl status` read.
 */
#ifndef MEMTRACE_SOURCE_NUMA_BALANCING_H
#define MEMTRACE_SOURCE_NUMA_BALANCING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NB_SYSCTL	"/proc/sys/kernel/numa_balancing"
#define NB_STATE_DIR	"/run/memtrace"
#define NB_STATE_FILE	NB_STATE_DIR "/numa_balancing.state"

struct numa_balancing {
	bool changed;		/* we wrote NB_SYSCTL */
	int prev;		/* its value before */
	bool period_changed;	/* we wrote the scan period */
	long prev_min_ms, prev_max_ms;
	bool state_file;	/* we own NB_STATE_FILE */
};

/*
 * Turns the scanner on when bit 0 of NB_SYSCTL is clear; with
 * scan_period_ms > 0 sets the scan period (min = max) where debugfs
 * allows it, else says in one line why not and goes on.  0, or -1 with a
 * one-line reason (no CONFIG_NUMA_BALANCING, not root) in why.
 */
int nb_enable(struct numa_balancing *nb, long scan_period_ms, char *why, size_t whylen);
/* Puts back what nb_enable changed (idempotent), removes the state file. */
void nb_restore(struct numa_balancing *nb);

/* NB_SYSCTL's value, or -1 (absent: kernel without NUMA balancing). */
int nb_read(void);
/* The scan period the kernel uses now (min, ms), or -1 when unreadable. */
long nb_scan_period_min_ms(void);
/* Number of online NUMA nodes (1 when unknown). */
int nb_nodes(void);

/*
 * A state file left by a collector that no longer runs: prints one line
 * to out (NULL: none) saying what it changed and what to do, returns 1;
 * 0 when there is none.  With adopt (a hint-fault recording about to
 * start), the new recording takes it over: adopt gets the values to
 * restore at its end, and the line says so.
 */
int nb_check_stale(FILE *out, struct numa_balancing *adopt);

#endif
