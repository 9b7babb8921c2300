/* report_decode.c - a report's keys back to (pid, address): the space
 * numbers of the report's keys (user/resolve/spaces.h) and their pids. */
#include "engine/report_internal.h"
#include "resolve/spaces.h"

void rep_fill_space_pids(struct rep_ctx *c)
{
	struct memtrace_report *r = c->r;
	size_t n = c->spaces ? c->spaces->n : 0;
	uint32_t *v = rep_alloc(c, (n ? n : 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = c->spaces->v[i].pid;
	r->nspace_pids = n;
	r->space_pids = v;
}

int memtrace_report_decode(const struct memtrace_report *r, uint64_t key, uint32_t *pid,
			   uint64_t *addr)
{
	uint64_t num = key & MT_KERNEL_BIT ? 0 : key >> MT_SPACE_SHIFT;

	*pid = 0;
	*addr = key;
	/* the last number is shared by every space beyond it: no one pid */
	if (!r || num >= r->nspace_pids || (num == MT_SPACE_MAX && r->nspace_pids > MT_SPACE_MAX + 1))
		return -1;
	*pid = r->space_pids[num];
	*addr = key & MT_KERNEL_BIT ? key : key & MT_SPACE_ADDR_MASK;
	return 0;
}
