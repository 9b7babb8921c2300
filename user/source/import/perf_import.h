/* perf_import.h - a perf.data file as a sample source (`memtracectl import
 * --format perf`).
 *
 * The file is read directly (source/import/perf_file.c), not through `perf script`:
 * the binary fields (weight, data_src, 64-bit addresses) come as they are,
 * without depending on perf's text format of the day or on perf being
 * installed, and pipe mode streams through.  Samples with a data address
 * (PERF_SAMPLE_ADDR) become trace samples; MMAP/MMAP2 records become each
 * process's MAPS (a forked child starts with its parent's, an exec empties
 * them); COMM records name threads; LOST/LOST_SAMPLES/THROTTLE records count
 * as lost/throttled.  Samples are put in time order the way perf does it:
 * those at or before the newest time of the previous FINISHED_ROUND.
 */
#ifndef MEMTRACE_SOURCE_IMPORT_PERF_IMPORT_H
#define MEMTRACE_SOURCE_IMPORT_PERF_IMPORT_H

#include "source/source.h"

struct recorder;
struct perf_import;

/* Opens and checks name ("-": stdin): NULL after a one-line error. */
struct perf_import *perf_import_open(const char *name);

/* Before record_loop(&source_perf_import, ...). */
void perf_import_start(struct perf_import *pi, struct recorder *r, const char *output);

/* 0 when samples were imported; else 1 after a one-line reason. */
int perf_import_result(const struct perf_import *pi);

void perf_import_free(struct perf_import *pi);

extern const struct source_ops source_perf_import;

#endif
