/* sites_each.h - allocation sites (include/memtrace/sites.h) with the site
 * of every sample: what `memtracectl export` labels each sample with.  The
 * same charging as memtrace_sites_compute (sites.c, alloc_attr.c), kept per
 * sample instead of only summed per site. */
#ifndef MEMTRACE_ENGINE_SITES_EACH_H
#define MEMTRACE_ENGINE_SITES_EACH_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/sites.h"

#define SITES_NONE	UINT32_MAX	/* a sample charged to no recorded block */

/*
 * memtrace_sites_compute, and in *site_of (n entries, malloc'd, the
 * caller frees it) for every sample of the trace in file order the index
 * into the result's sites[] it was charged to: SITES_NONE when it lies in
 * no live recorded block or cfg's filter drops it.
 */
struct memtrace_sites *sites_compute_each(const char *path, const struct memtrace_report_config *cfg,
					  uint32_t **site_of, size_t *n, char *err, size_t errlen);

#endif
