/* report_ctx.c - memory every report_*.c file allocates through struct
 * rep_ctx, owned by the report (freed by memtrace_report_free). */
#include <stdlib.h>
#include <string.h>

#include "engine/report_internal.h"
#include "util/util.h"

void *rep_alloc(struct rep_ctx *c, size_t n)
{
	struct rep_owner *o = c->own;

	if (o->nallocs == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 64;
		o->allocs = mt_xrealloc(o->allocs, o->cap * sizeof(*o->allocs));
	}
	return o->allocs[o->nallocs++] = mt_xcalloc(n ? n : 1, 1);
}

char *rep_strdup(struct rep_ctx *c, const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(rep_alloc(c, n), s, n);
}
