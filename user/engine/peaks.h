/* peaks.h - online peak detection on a WSS series (valgrind-ws, paper 000
 * section 2.2): exponential moving average mu and variance var; a value x
 * is a peak when x - mu > E, E = g * (c * sigma + (1 - c) * mu) with the
 * Fano factor F = var / mu and c = 1 - exp(-F / 2).  While a peak lasts the
 * statistics are fed a filtered value mu + influence * (x - mu) so that one
 * huge peak does not hide the next.  Consecutive peak values form one peak,
 * reported at its largest value. */
#ifndef MEMTRACE_ENGINE_PEAKS_H
#define MEMTRACE_ENGINE_PEAKS_H

#include <stddef.h>
#include <stdint.h>

struct peak_config {
	double alpha;		/* EMA weight of a new value, default 0.1 */
	double g;		/* sensitivity, default 1.0 */
	double influence;	/* weight of values inside a peak, default 0.1 */
	unsigned warmup;	/* values before detection starts, default 4 */
};

extern const struct peak_config peak_defaults;

struct peak {
	size_t index;		/* of the largest value in the peak */
	size_t first, last;	/* the run of peak values */
	uint64_t value;
};

/*
 * Peaks of series[0..n) into *out (malloc'd), indices into series[].  rowk:
 * the report index (1, 2, ..) of each value of a sparse series (engine/wss.h),
 * the reports missing from it are 0; NULL: dense.  Returns the count.
 */
size_t peaks_detect(const uint64_t *series, const uint64_t *rowk, size_t n,
		    const struct peak_config *cfg, struct peak **out);

#endif
