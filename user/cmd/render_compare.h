/* render_compare.h - `memtracectl compare` output (render_compare.c). */
#ifndef MEMTRACE_CMD_RENDER_COMPARE_H
#define MEMTRACE_CMD_RENDER_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/render.h"
#include "memtrace/compare.h"

struct compare_view {
	size_t top;		/* rows shown per text table */
	const char *span;	/* --span, NULL if none */
	int by_span;		/* the per-label table (text; JSON always has it) */
};

void render_text_compare(FILE *f, const char *a, const char *b, const struct memtrace_compare *c,
			 const struct compare_view *v);
void render_json_compare(FILE *f, const char *a, const char *b, const struct memtrace_compare *c,
			 const struct compare_view *v);

#endif
