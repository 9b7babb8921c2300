/*
 * hwcheck.h - memtrace-hwcheck-analyze: the numbers behind memtrace-hwcheck
 * (docs/hwcheck.md).  Reads traces through the public API of libmemtrace
 * (include/memtrace/) only.
 */
#ifndef MEMTRACE_HWCHECK_H
#define MEMTRACE_HWCHECK_H

#include <stddef.h>
#include <stdint.h>

#define HW_MAX_BUFFERS 8

/* What tools/hwcheck/hwload.c wrote after its run. */
struct hw_buffer {
	char name[16];
	uint64_t start, end;		/* [start, end) */
	uint64_t loads, stores;		/* per round */
};

struct hw_layout {
	uint32_t pid;
	long rounds;
	int populated;			/* 0: --faults (first round faults every page of A, B, D) */
	int nbuf;
	struct hw_buffer buf[HW_MAX_BUFFERS];
	uint64_t loop_start_ns, loop_end_ns;
};

/* 0, or -1 with a one-line reason in err. */
int hw_layout_read(const char *path, struct hw_layout *l, char *err, size_t errlen);
/* Index of the buffer holding addr, or -1. */
int hw_layout_find(const struct hw_layout *l, uint64_t addr);

enum hw_kind { HW_LOADS, HW_STORES, HW_FAULTS };

struct hw_check_opts {
	enum hw_kind kind;
	double share_tolerance;		/* absolute, of the share of samples (0.05) */
	double count_tolerance;		/* relative, of the expected sample count (0.10) */
	unsigned min_latency_samples;	/* per buffer, for the latency/data-source checks (20) */
	long long pmis;			/* PMIs (/proc/interrupts) during the run; -1: not counted */
};

/* The verdicts, one line each, on stdout; the number of failed checks, or -1. */
int hw_check_trace(const char *trace, const struct hw_layout *l, const struct hw_check_opts *o,
		   char *err, size_t errlen);

/* Verdict lines: "PASS id: text", "FAIL id: text", "SKIP id: text". */
enum hw_verdict { HW_PASS, HW_FAIL, HW_SKIP };
void hw_verdict(enum hw_verdict v, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The slowdown table (paper 002 Table 1 layout) from a runs file; 0 or -1. */
int hw_slowdown_table(const char *runs, unsigned min_runs, char *err, size_t errlen);

#endif
