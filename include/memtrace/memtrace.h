/* memtrace/memtrace.h - the public API of libmemtrace.so, all of it. */
#ifndef MEMTRACE_PUBLIC_MEMTRACE_H
#define MEMTRACE_PUBLIC_MEMTRACE_H

#include "compare.h"
#include "report.h"
#include "resolve.h"
#include "sites.h"
#include "trace.h"

#endif
