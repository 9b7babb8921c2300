/* source.h - a sample source: how memtracectl record (and import) get samples.
 *
 * A source turns a record request into memtrace_sample records handed to
 * the recorder, driven by the one record loop (record/loop.h).  sources[]
 * in source.c lists the record backends in "auto" preference order:
 * damon (taken for -e auto only when no PMU and no hint faults), module,
 * bpf, perf, valgrind.
 */
#ifndef MEMTRACE_SOURCE_SOURCE_H
#define MEMTRACE_SOURCE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <poll.h>
#include <sys/types.h>

struct recorder;

struct record_opts {
	pid_t pid;		/* -p: the first listed pid (pids[0]), 0 when unset */
	pid_t *pids;		/* -p PID[,PID...]: npids pids, NULL when unset */
	int npids;
	bool no_children;	/* --no-children: only the listed pids' threads (and what they
				 * fork from now on), not their existing descendants */
	const char *pidfile;	/* --pidfile FILE: the process its first line names, and the
				 * next one after it exits (source/follow.h), NULL when unset */
	const char *cgroup;	/* -G/--cgroup PATH: cgroup v2 group, relative to the cgroup2
				 * mount (or absolute), NULL when unset */
	bool system_wide;	/* -a */
	char **argv;		/* -- CMD ARGS..., NULL when unset */
	const char *event;	/* -e EVENT, "auto" by default */
	uint64_t period;	/* -c PERIOD, 0 = backend default */
	bool random_period;	/* --random-period */
	bool fixed_period;	/* --fixed-period: valgrind keeps every N-th access */
	uint64_t seed;		/* --seed */
	double duration;	/* --duration SEC, 0 = until the target exits */
	const char *output;	/* -o FILE */
	bool force;		/* --force: overwrite FILE (else it becomes FILE.old) */
	const char *switch_output;	/* --switch-output SIZE|TIME|signal, NULL if unset */
	uint64_t switch_bytes, switch_ns;	/* its size or time, 0: not by that */
	unsigned max_files;	/* --max-files N, 0: all kept */
	const char *backend;	/* --backend NAME, "auto" by default */
	int backend_given;	/* backend from -b, not from $MEMTRACE_BACKEND */
	bool kernel_addrs;	/* --kernel: also sample kernel mode (-a only) */
	uint32_t ring_records;	/* --ring RECORDS per CPU, module and bpf backends */
	long scan_period_ms;	/* --scan-period: hint-faults' NUMA scan period, 0 = kernel's;
				 * -e accessed: the pass period, 0 = 1 s */
	bool no_tlb_flush;	/* --no-tlb-flush: -e accessed clears bits without a flush */
	/* -e damon: --damon-intervals SAMPLE,AGGR and --damon-regions MIN,MAX, 0 = default */
	uint64_t damon_sample_us, damon_aggr_us, damon_min_regions, damon_max_regions;
	double damon_budget_pct;	/* --damon-budget: kdamond's % of a CPU; < 0: default */
	bool allocs;		/* --allocs: allocation probes (source/probes/alloc_probe.h) */
	uint64_t alloc_rate;	/* --alloc-rate: mean bytes between small samples, 0 = default */
	uint64_t alloc_large;	/* --alloc-large: blocks this large always, 0 = default */
	const char *alloc_symbols;	/* --alloc-symbols NAME=ROLE,... */
	const char *alloc_lib;	/* --alloc-lib FILE: probe this file's functions too */
	const char *labels;	/* --labels FILE, NULL when unset */
	const char *mark;	/* --mark START[,END], NULL when unset (source/probes/mark_probe.h) */
	const char *mark_label;	/* --mark-label str|sql|int|none; NULL: sql for a
				 * query-start USDT probe, else str */
	uint32_t mark_arg;	/* --mark-arg N: the start probe's argument N (0 = first) */
	int mark_grain_log;	/* --mark-grain: spans in grains of 2^this ns; -1: unset (64 ns) */
	uint64_t aggregate;	/* --aggregate[=INTERVAL]: counts per interval of this many
				 * ns (bpf) or instructions (valgrind), 0 = off */
	const char *aggregate_arg;	/* its INTERVAL, NULL: the default */
	const char *metrics;	/* --metrics [ADDR:]PORT, NULL when unset (record/metrics_http.h) */
	uint64_t metrics_window;	/* --metrics-window: ns, 0 = 1 s */
};

/*
 * One round of the record loop, as the loop hands it to drain() and the
 * source fills it in.
 */
struct source_step {
	/* in */
	int ready;		/* poll()'s result (0 if the source has no fds) */
	int poll_errno;		/* errno when ready < 0 */
	/* in and out: CLOCK_MONOTONIC ns; a source that slept may refresh it */
	uint64_t wall;
	/* out */
	uint64_t now;		/* time in the trace's unit for recorder_tick */
	bool tick;		/* call recorder_tick(now) this round */
	bool ended;		/* the source is done: no stop check, end now */
};

/* The unit of a source's sample times (and of its --aggregate interval). */
enum source_clock {
	SOURCE_CLOCK_TIME,		/* ns: every backend but valgrind */
	SOURCE_CLOCK_INSTRUCTIONS,	/* the target's instructions (valgrind) */
};

/*
 * What a source can record, for the command line to check a request
 * against (cmd/record.c asks these, it names no backend).  Zero is the
 * common case: time stamps, probes allowed, running processes attachable.
 */
struct source_caps {
	enum source_clock clock;	/* --mark's probes need SOURCE_CLOCK_TIME */
	bool aggregate;		/* --aggregate: counts per interval in the source */
	bool own_allocs;	/* records every allocation itself: --allocs refused */
	bool command_only;	/* records a command it starts, never -p/-a (its probe says) */
	bool fallback;		/* -b auto tries it last, for a command with -e auto only */
	bool auto_why;		/* its probe's reason is the one -b auto reports when no
				 * backend can record (the most telling one) */
	const char *event;	/* the -e EVENT that records with this source whatever
				 * --backend says, NULL: none */
	bool regions;		/* records DAMON regions, not samples */
	bool follows;		/* record --pidfile: open() may run again, with the next
				 * target, on the recorder it began (source/follow.h) */
	const char *own_event;	/* an -e EVENT only this source records (among its
				 * others): picked for it under -b auto, another
				 * --backend refused; NULL: none */
};

/*
 * A sample source, in the spirit of mm/damon's struct damon_operations:
 * record/loop.c is the one loop (poll, drain, tick, stop check, end), the
 * source says which fds to wait on and what a drain, a stop and an end
 * mean for it.  state is the source's own, made by open().
 */
struct source_ops {
	const char *name;
	/* END chunk's end_reason when the source ends by itself */
	const char *end_reason;
	/*
	 * true: the output takes its place (recorder_publish) only when the
	 * source says something was recorded, not when the loop starts; a
	 * source that ends before leaves an existing FILE as it was.
	 */
	bool publish_late;
	struct source_caps caps;
	/*
	 * Can this source serve the request on this machine?  0 if so; else
	 * -1 with a one-line reason (no trailing newline) in why.
	 */
	int (*probe)(const struct record_opts *o, char *why, size_t whylen);
	/* One or more "  name: available/unavailable - why" lines. */
	void (*status)(FILE *out);
	/*
	 * Starts the target and the sampling, sets the header metadata and
	 * calls recorder_begin().  Returns the state, or NULL after a one-line
	 * error (having cleaned up, and ended the trace if it had begun).
	 */
	void *(*open)(const struct record_opts *o, struct recorder *r);
	/*
	 * Fills up to max pollfds to wait on (POLLIN); returns how many it
	 * needs (more than max: called again with room).  0: drain() reads
	 * without waiting (a file).
	 */
	int (*fds)(void *state, struct pollfd *p, int max);
	/*
	 * Hands what arrived to the recorder (recorder_add_samples, _add_lost,
	 * _note_thread, ...) and fills step.  0, or -1 when the recording
	 * failed (nothing more is written; no END chunk).
	 */
	int (*drain)(void *state, struct recorder *r, const struct pollfd *p, int n,
		     struct source_step *step);
	/*
	 * A stop was asked for (reason "signal" or "duration").  Returns 1 if
	 * the source keeps delivering until drain() reports the end (valgrind:
	 * the killed child's pipe still holds data), 0 to end now.  NULL: 0.
	 */
	int (*stop)(void *state, const char *reason);
	/* Checked after the stop check: non-zero ends the loop.  NULL: never. */
	int (*target_gone)(void *state, uint64_t wall);
	/*
	 * After the loop, before the END chunk: the last drain, stopping the
	 * target.  failed: the loop failed.  May change *reason.  0, or -1
	 * when the trace must not be ended (failed).
	 */
	int (*finish)(void *state, struct recorder *r, int failed, const char **reason);
	/*
	 * Reports and frees.  rc: the loop's result (-1: failed or END chunk
	 * not written).  Returns the recording's result, 0 or -1.
	 */
	int (*close)(void *state, int rc);
};

extern const struct source_ops source_damon;
/* -e buffer-requests: a database's buffer-pool requests (source/bufreq/) */
extern const struct source_ops source_bufreq;
extern const struct source_ops source_module;
extern const struct source_ops source_bpf;
extern const struct source_ops source_perf;
extern const struct source_ops source_valgrind;
/* `memtracectl import`: a saved lackey log (source/import/lackey_file.h) */
extern const struct source_ops source_lackey_file;

/* NULL-terminated, in "auto" preference order (record --backend). */
extern const struct source_ops *const sources[];

const struct source_ops *source_by_name(const char *name);
/* The source -e EVENT records with whatever --backend says, else NULL. */
const struct source_ops *source_by_event(const char *event);
/* The source whose caps.own_event is event, or NULL. */
const struct source_ops *source_owning_event(const char *event);
/* The source --aggregate records with when the backend is auto. */
const struct source_ops *source_aggregating(void);

#endif
