/*
 * render_addr.c - a report's addresses as their process sees them.  Hot
 * buckets and instruction pointers of a report are address-space keys
 * (include/memtrace/resolve.h): another process than the target (or
 * --pid) carries its tag in bits 48..62 on top of its address.  Printed,
 * a key is decoded by the library (memtrace_resolver_decode) into the pid
 * and the address in that pid; the resolver is opened only when some key
 * of the report carries a tag, so a one-process trace is not read again.
 */
#include <stdlib.h>

#include "cmd/render.h"
#include "memtrace/resolve.h"

#define TAG_BITS 0x7fff000000000000ull	/* bits 48..62: a space tag (resolve.h) */

static int tagged(uint64_t key)
{
	return (key & TAG_BITS) && !(key >> 63);
}

static int any_tagged_ip(const struct memtrace_named_count *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tagged(v[i].addr))
			return 1;
	return 0;
}

static int any_tagged_hot(const struct memtrace_hot_bucket *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tagged(h[i].addr) || any_tagged_ip(h[i].ips, h[i].nips))
			return 1;
	return 0;
}

static int any_tagged(const struct memtrace_report *r)
{
	if (any_tagged_hot(r->hot_data, r->nhot_data) || any_tagged_hot(r->hot_code, r->nhot_code))
		return 1;
	for (size_t i = 0; i < r->npeaks; i++)
		if (any_tagged_ip(r->peaks[i].locations, r->peaks[i].nlocations))
			return 1;
	for (size_t i = 0; i < r->nprocesses; i++)
		if (any_tagged_hot(r->processes[i].hot, r->processes[i].nhot))
			return 1;
	return 0;
}

void render_addr_open(struct render_addr *a, const char *path, const struct memtrace_report *r,
		      uint32_t pid)
{
	a->res = NULL;
	/* the report's primary: --pid, else the target (report.c: keys equal its addresses) */
	a->pid = pid ? pid : r->info.target_pid;
	a->multi = r->nprocesses > 1;
	if (pid || !any_tagged(r))
		return;
	a->multi = 1;
	/* without it (unreadable now) keys print as they are: they are still distinct */
	a->res = memtrace_resolver_open(path, NULL, NULL, NULL, 0);
}

void render_addr_close(struct render_addr *a)
{
	memtrace_resolver_close(a->res);
	a->res = NULL;
}

uint64_t render_addr(const struct render_addr *a, uint64_t key, uint32_t *pid)
{
	uint32_t p = a->pid;
	uint64_t addr = key;

	if (a->res && tagged(key) && memtrace_resolver_decode(a->res, key, &p, &addr, NULL) < 0) {
		p = 0;		/* no process has this tag: the key as it is */
		addr = key;
	}
	if (pid)
		*pid = p;
	return addr;
}
