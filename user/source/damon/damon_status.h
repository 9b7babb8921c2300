/* damon_status.h - what DAMON this kernel offers, for `memtracectl status`
 * and the -e auto order (PMU, hint faults, DAMON, page faults). */
#ifndef MEMTRACE_SOURCE_DAMON_DAMON_STATUS_H
#define MEMTRACE_SOURCE_DAMON_DAMON_STATUS_H

#include <stdio.h>

/* One "  damon: ..." line (two with a stale kdamond note): whether a vaddr
 * kdamond can be made here, and why not (damon_vaddr_usable). */
void damon_status(FILE *out);

#endif
