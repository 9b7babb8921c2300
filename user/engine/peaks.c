/* peaks.c - EMA / moving variance / Fano-factor threshold. */
#include "engine/peaks.h"

#include <math.h>
#include <stdlib.h>

#include "util/util.h"

const struct peak_config peak_defaults = {
	.alpha = 0.1, .g = 1.0, .influence = 0.1, .warmup = 4,
};

size_t peaks_detect(const uint64_t *series, size_t n,
		    const struct peak_config *cfg, struct peak **out)
{
	struct peak *peaks = NULL;
	size_t count = 0, cap = 0;
	double mu = 0, var = 0;
	int in_peak = 0;

	for (size_t i = 0; i < n; i++) {
		double x = (double)series[i];
		int is_peak = 0;

		if (i == 0) {
			mu = x;
			var = 0;
		} else if (i >= cfg->warmup) {
			double sigma = sqrt(var);
			double fano = mu > 0 ? var / mu : 0;
			double c = 1 - exp(-fano / 2);
			double threshold = cfg->g * (c * sigma + (1 - c) * mu);
			is_peak = x - mu > threshold && x > 0;
		}
		if (is_peak) {
			if (!in_peak) {
				if (count == cap) {
					cap = cap ? cap * 2 : 16;
					peaks = mt_xrealloc(peaks, cap * sizeof(*peaks));
				}
				peaks[count++] = (struct peak){ i, i, i, series[i] };
			} else {
				struct peak *p = &peaks[count - 1];
				p->last = i;
				if (series[i] > p->value) {
					p->value = series[i];
					p->index = i;
				}
			}
			x = mu + cfg->influence * (x - mu);
		}
		in_peak = is_peak;
		if (i > 0) {
			double d = x - mu;
			mu += cfg->alpha * d;
			var = (1 - cfg->alpha) * (var + cfg->alpha * d * d);
		}
	}
	*out = peaks;
	return count;
}
