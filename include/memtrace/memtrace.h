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

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/*
 * memtrace_struct_size - sizeof(struct NAME) as this library was built, for
 * each public struct of the headers above ("memtrace_report", ...), or 0 for
 * a name it does not know.  Bindings that mirror the structs (the Python
 * ctypes binding of memtrace-analyze) check their layouts with it when they
 * load the library, so a library and binding from different builds fail with
 * a clear message instead of reading fields at the wrong offsets.
 */
size_t memtrace_struct_size(const char *name);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
