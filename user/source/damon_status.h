/* damon_status.h - what DAMON this kernel offers, for `memtracectl status`
 * and the -e auto order (PMU, hint faults, DAMON, page faults). */
#ifndef MEMTRACE_DAMON_STATUS_H
#define MEMTRACE_DAMON_STATUS_H

#include <stdio.h>

/* One "  damon: ..." line: DAMON_SYSFS present or not, the operations an
 * existing kdamond context lists (vaddr is what a per-process source needs);
 * reads sysfs only, changes nothing. */
void damon_status(FILE *out);

#endif
