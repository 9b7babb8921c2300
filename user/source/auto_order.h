/* auto_order.h - `-e auto`'s order across backends (PMU memory events,
 * hint faults, DAMON, page faults) as this machine offers it. */
#ifndef MEMTRACE_SOURCE_AUTO_ORDER_H
#define MEMTRACE_SOURCE_AUTO_ORDER_H

#include <stdio.h>

/* One line per step, available or why not, then the one -e auto picks. */
void auto_order_status(FILE *out);

#endif
