/*
 * render.h - `memtracectl report` output of a computed memtrace_report:
 * the text summary and the --json document (stdout, or any stream).
 */
#ifndef MEMTRACE_CMD_RENDER_H
#define MEMTRACE_CMD_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "memtrace/report.h"
#include "memtrace/sites.h"

/*
 * render_addr.c: a report's keys (hot buckets, instruction pointers) as the
 * address in their process and its pid (memtrace_report_decode; pid 0: no
 * process has the key's tag, the key is returned).  pid: report --pid (0:
 * all).
 */
struct render_addr {
	const struct memtrace_report *r;
	uint32_t pid;		/* the report's primary: --pid, else the target */
};
void render_addr_open(struct render_addr *a, const struct memtrace_report *r, uint32_t pid);
uint64_t render_addr(const struct render_addr *a, uint64_t key, uint32_t *pid);

/* pid: report --pid (0: all), for the fault-kind rows */
void render_text(FILE *f, const char *path, const struct memtrace_report *r, uint32_t pid);
/* report --for-size SIZE[,SIZE...]: the cache sizes to predict the hit ratio at */
#define FOR_SIZES_MAX 16
struct for_sizes {
	size_t n;
	uint64_t v[FOR_SIZES_MAX];	/* bytes */
};

/* fs: report --for-size (NULL or none: none), in the "mrc_info" of --mrc */
void render_json(FILE *f, const char *path, const struct memtrace_report *r, uint32_t pid,
		 const struct for_sizes *fs);

/* render_mrc.c: report --mrc (nothing in JSON without a curve) */
void render_text_mrc(FILE *f, const struct memtrace_report *r, const struct for_sizes *fs);
void render_json_mrc(FILE *f, const struct memtrace_report *r, const struct for_sizes *fs);

/* render_cold.c: report --cold (nothing in JSON without it), --cold-series CSV */
const char *render_cold_method(const struct memtrace_cold *o);
void render_text_cold(FILE *f, const struct memtrace_report *r);
void render_json_cold(FILE *f, const struct memtrace_report *r);
int render_cold_series(FILE *f, const struct memtrace_report *r);

/* s as a JSON string literal (NULL: ""). */
void render_json_str(FILE *f, const char *s);

/* render_procs.c: the --per-process part (nothing without r->nprocesses) */
void render_text_procs(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		       const struct render_addr *a);
void render_json_procs(FILE *f, const struct memtrace_report *r, const struct render_addr *a);

/* render_kinds.c: samples and pages per fault kind (nothing without fault kinds) */
void render_text_kinds(FILE *f, const char *path, uint32_t pid);
void render_json_kinds(FILE *f, const char *path, uint32_t pid);

/* render_damon.c: the region-level part (nothing without REGIONS chunks) */
void render_text_damon(FILE *f, const char *path, const struct memtrace_report *r);
void render_json_damon(FILE *f, const char *path, const struct memtrace_report *r);
/* --series of a trace of DAMON regions: region-level WSS per window, blind ones flagged. */
int render_damon_series(FILE *f, const char *path, const struct memtrace_report *r);

/* render_sites.c: report --by-site */
void render_text_sites(FILE *f, const char *path, const struct memtrace_report *r,
		       const struct memtrace_sites *s, uint32_t pid);
void render_json_sites(FILE *f, const char *path, const struct memtrace_report *r,
		       const struct memtrace_sites *s, uint32_t pid);

/* render_blind.c: the windows a pass-based source did not see (memtrace_blind):
 * "known", "unknown" or "none"; a text line or two; the JSON "blind" object */
const char *render_blind_state(const struct memtrace_report *r);
void render_text_blind(FILE *f, const struct memtrace_report *r);
void render_json_blind(FILE *f, const struct memtrace_report *r);

/* render_spans.c: --span (pattern, NULL if none) and --by-span */
void render_text_spans(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		       const char *pattern);
void render_json_spans(FILE *f, const struct memtrace_report *r);

#endif
