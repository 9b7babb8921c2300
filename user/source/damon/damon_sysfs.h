/* damon_sysfs.h - one kdamond of DAMON's sysfs interface
 * (/sys/kernel/mm/damon/admin) for the damon source: set up for the target
 * pids with vaddr operations, started, and removed again so the kernel's
 * DAMON state is as it was found.
 *
 * memtracectl only ever uses DAMON when no kdamond is configured
 * (nr_kdamonds = 0): writing nr_kdamonds recreates every kdamond directory,
 * which would throw away another user's setup.  What it created is noted
 * in DAMON_STATE_FILE first, so a collector killed with SIGKILL leaves a
 * note the next run and `memtracectl status` read.
 */
#ifndef MEMTRACE_SOURCE_DAMON_DAMON_SYSFS_H
#define MEMTRACE_SOURCE_DAMON_DAMON_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define DAMON_ADMIN		"/sys/kernel/mm/damon/admin"
#define DAMON_KDAMONDS		DAMON_ADMIN "/kdamonds"
#define DAMON_STATE_FILE	"/run/memtrace/damon.state"
#define DAMON_TRACEPOINT	"damon/damon_aggregated"

struct damon_attrs {
	unsigned long sample_us, aggr_us, update_us;
	unsigned long min_regions, max_regions;
};

/* DAMON's own defaults but the update interval (= aggr: new mappings of
 * a command that just exec'ed are seen after one aggregation). */
#define DAMON_ATTRS_DEFAULT { 5000, 100000, 100000, 10, 1000 }

struct damon_kdamond {
	bool created;		/* we wrote nr_kdamonds = 1 */
	bool on;		/* we wrote state = on */
	bool state_file;	/* we own DAMON_STATE_FILE */
	pid_t pid;		/* the kdamond thread, 0 before on */
};

/*
 * Can a vaddr kdamond be made here?  0, or -1 with a one-line reason in
 * why: no DAMON sysfs, no vaddr operations (CONFIG_DAMON_VADDR, read from
 * /proc/kallsyms), no damon_aggregated tracepoint, not root, or kdamonds
 * configured by someone else.
 */
int damon_vaddr_usable(char *why, size_t whylen);

/*
 * Creates kdamond 0 monitoring pids (one target each, in order: the
 * tracepoint's target_id is the index) with attributes a, turns it on and
 * reads its pid.  0, or -1 with a one-line reason in why, having put back
 * what it changed.
 */
int damon_kdamond_start(struct damon_kdamond *k, const pid_t *pids, int n,
			const struct damon_attrs *a, char *why, size_t whylen);

/* New sample/aggr/update intervals for the running kdamond ('commit'):
 * 0, or -1 with a one-line reason in why. */
int damon_kdamond_set_intervals(struct damon_kdamond *k, const struct damon_attrs *a,
				char *why, size_t whylen);

/* Turns it off and removes it (nr_kdamonds = 0), removes the state file;
 * idempotent.  Says in one line what could not be put back. */
void damon_kdamond_remove(struct damon_kdamond *k);

/*
 * A state file of a collector that no longer runs: prints one line to out
 * (NULL: none) with what it left and what to do, returns 1; 0 when none.
 * With adopt, the kdamond it left is removed now (the line says so).
 */
int damon_check_stale(FILE *out, bool adopt);

/* nr_kdamonds, or -1 when DAMON sysfs is absent. */
int damon_nr_kdamonds(void);

#endif
