/*
 * render_addr.c - a report's addresses as their process sees them.  Hot
 * buckets and instruction pointers of a report are address-space keys
 * (include/memtrace/resolve.h): another process than the target (or
 * --pid) carries its tag in bits 48..62 on top of its address.  Printed,
 * a key is decoded by the library (memtrace_report_decode: the report's
 * own table of which pid each tag stands for).
 */
#include "cmd/render.h"

void render_addr_open(struct render_addr *a, const struct memtrace_report *r, uint32_t pid)
{
	a->r = r;
	a->pid = pid ? pid : r->info.target_pid;
}

uint64_t render_addr(const struct render_addr *a, uint64_t key, uint32_t *pid)
{
	uint32_t p;
	uint64_t addr;

	if (memtrace_report_decode(a->r, key, &p, &addr) < 0) {
		p = 0;		/* no process has this tag: the key as it is */
		addr = key;
	}
	if (pid)
		*pid = p;
	return addr;
}
