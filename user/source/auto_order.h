/* auto_order.h - `-e auto`'s order across backends (PMU memory events,
 * memtrace.ko's accessed bits, hint faults, DAMON, page faults) as this
 * machine offers it. */
#ifndef MEMTRACE_SOURCE_AUTO_ORDER_H
#define MEMTRACE_SOURCE_AUTO_ORDER_H

#include <stdio.h>

#include <stdbool.h>

struct record_opts;

/* One line per step, available or why not, then the one -e auto picks. */
void auto_order_status(FILE *out);

/*
 * -e auto for o's target: true when no PMU memory event is available and
 * memtrace.ko's accessed-bit source can record it (a -p tree or a
 * command) and nothing asks for sampled events (-c, --random-period,
 * --aggregate, --kernel): every page found accessed each pass, shared
 * memory included, where hint faults and DAMON see less.
 */
bool auto_picks_accessed(const struct record_opts *o);

#endif
