/* search.h - the one binary search of the tree, as a macro so that each
 * caller's comparison stays inline (hot paths: a search per sample). */
#ifndef MEMTRACE_UTIL_SEARCH_H
#define MEMTRACE_UTIL_SEARCH_H

#include <stddef.h>

/*
 * Narrows [lo, hi) (size_t lvalues) to the partition point of below, an
 * expression of the index i (a size_t the macro declares) that is true for
 * a prefix of the range and false after it: lo ends at the first index
 * where below is false, or at hi when there is none (C++'s
 * std::partition_point, Rust's slice::partition_point).  "below" is
 * "element i sorts before the key": v[i].end <= addr finds the first range
 * ending after addr; v[i].id < id the first element not less than id.
 */
#define MT_PARTITION_POINT(lo, hi, i, below)				\
	do {								\
		while ((lo) < (hi)) {					\
			size_t i = (lo) + ((hi) - (lo)) / 2;		\
			if (below)					\
				(lo) = i + 1;				\
			else						\
				(hi) = i;				\
		}							\
	} while (0)

#endif
