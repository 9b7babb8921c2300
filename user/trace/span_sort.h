/*
 * span_sort.h - stable LSD radix sort for the span arrays (millions of
 * records: spans by thread and time, (span, bucket) pairs), O(n) per key
 * byte that varies; bytes equal in every record cost one counting pass.
 *
 *   static uint64_t by_start(const void *p) { return ((const struct trace_span *)p)->start; }
 *   static uint64_t by_tid(const void *p) { return ((const struct trace_span *)p)->tid; }
 *   radix_sort(v, n, sizeof(*v), (key_fn[]){ by_start, by_tid }, 2);  // tid, then start
 *
 * Keys go least significant first.  Needs n * size bytes of scratch.
 */
#ifndef MEMTRACE_TRACE_SPAN_SORT_H
#define MEMTRACE_TRACE_SPAN_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*key_fn)(const void *rec);

void radix_sort(void *v, size_t n, size_t size, const key_fn *keys, size_t nkeys);

#endif
