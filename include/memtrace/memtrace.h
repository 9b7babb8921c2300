/* memtrace/memtrace.h - the public API of libmemtrace.so, all of it
 * (user/api/libmemtrace.map lists the same functions). */
#ifndef MEMTRACE_PUBLIC_MEMTRACE_H
#define MEMTRACE_PUBLIC_MEMTRACE_H

#include "compare.h"
#include "damon.h"
#include "fault_kinds.h"
#include "heatmap.h"
#include "report.h"
#include "resolve.h"
#include "sites.h"
#include "trace.h"

#endif
