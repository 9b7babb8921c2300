/* backend.h - a sample source: how memtracectl record gets samples.
 *
 * A backend turns a record request into memtrace_sample records handed to
 * the recorder.  backends[] in backend.c lists them in "auto" preference
 * order: module, perf, valgrind.
 */
#ifndef MEMTRACE_BACKEND_H
#define MEMTRACE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct recorder;

struct record_opts {
	pid_t pid;		/* -p PID, 0 when unset */
	bool system_wide;	/* -a */
	char **argv;		/* -- CMD ARGS..., NULL when unset */
	const char *event;	/* -e EVENT, "auto" by default */
	uint64_t period;	/* -c PERIOD, 0 = backend default */
	bool random_period;	/* --random-period */
	uint64_t seed;		/* --seed */
	double duration;	/* --duration SEC, 0 = until the target exits */
	const char *output;	/* -o FILE */
	const char *backend;	/* --backend NAME, "auto" by default */
	bool kernel_addrs;	/* --kernel: also sample kernel mode (-a only) */
	uint32_t ring_records;	/* --ring RECORDS per CPU, module backend */
};

struct backend {
	const char *name;
	/*
	 * Can this backend serve the request on this machine?  0 if so; else
	 * -1 with a one-line reason (no trailing newline) in why.
	 */
	int (*probe)(const struct record_opts *o, char *why, size_t whylen);
	/*
	 * Record until the target exits, the duration passes or the recorder
	 * asks to stop.  Sets header metadata, calls recorder_begin() once,
	 * feeds samples, calls recorder_tick() at least every 100 ms and
	 * recorder_end() before returning.  Returns 0, or -1 after printing a
	 * one-line error.
	 */
	int (*record)(const struct record_opts *o, struct recorder *r);
	/* One or more "  name: available/unavailable - why" lines. */
	void (*status)(FILE *out);
};

extern const struct backend backend_module;
extern const struct backend backend_perf;
extern const struct backend backend_valgrind;

/* NULL-terminated, in "auto" preference order. */
extern const struct backend *const backends[];

const struct backend *backend_by_name(const char *name);

#endif
