/*
 * render.h - `memtracectl report` output of a computed memtrace_report:
 * the text summary and the --json document (stdout, or any stream).
 */
#ifndef MEMTRACE_CMD_RENDER_H
#define MEMTRACE_CMD_RENDER_H

#include <stddef.h>
#include <stdio.h>

#include "memtrace/report.h"

void render_text(FILE *f, const char *path, const struct memtrace_report *r);
void render_json(FILE *f, const char *path, const struct memtrace_report *r);

/* s as a JSON string literal (NULL: ""). */
void render_json_str(FILE *f, const char *s);

/* render_procs.c: the --per-process part (nothing without r->nprocesses) */
void render_text_procs(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w);
void render_json_procs(FILE *f, const struct memtrace_report *r);

/* render_spans.c: --span (pattern, NULL if none) and --by-span */
void render_text_spans(FILE *f, const struct memtrace_report *r, const struct memtrace_words *w,
		       const char *pattern);
void render_json_spans(FILE *f, const struct memtrace_report *r);

#endif
