/* peaks.c - EMA / moving variance / Fano-factor threshold. */
#include "engine/peaks.h"

#include <math.h>
#include <stdlib.h>

#include "util/util.h"

const struct peak_config peak_defaults = {
	.alpha = 0.1, .g = 1.0, .influence = 0.1, .warmup = 4,
};

struct peak_state {
	double mu, var;
	int in_peak;
	struct peak *peaks;
	size_t count, cap;
};

/* One value x at dense index d (sparse row i): the detector of peaks.h. */
static void step(struct peak_state *st, const struct peak_config *cfg, uint64_t d, size_t i,
		 uint64_t v)
{
	double x = (double)v;
	int is_peak = 0;

	if (d == 0) {
		st->mu = x;
		st->var = 0;
	} else if (d >= cfg->warmup) {
		double sigma = sqrt(st->var);
		double fano = st->mu > 0 ? st->var / st->mu : 0;
		double c = 1 - exp(-fano / 2);
		double threshold = cfg->g * (c * sigma + (1 - c) * st->mu);
		is_peak = x - st->mu > threshold && x > 0;
	}
	if (is_peak) {
		if (!st->in_peak) {
			if (st->count == st->cap) {
				st->cap = st->cap ? st->cap * 2 : 16;
				st->peaks = mt_xrealloc(st->peaks, st->cap * sizeof(*st->peaks));
			}
			st->peaks[st->count++] = (struct peak){ i, i, i, v };
		} else {
			struct peak *p = &st->peaks[st->count - 1];
			p->last = i;
			if (v > p->value) {
				p->value = v;
				p->index = i;
			}
		}
		x = st->mu + cfg->influence * (x - st->mu);
	}
	st->in_peak = is_peak;
	if (d > 0) {
		double dx = x - st->mu;
		st->mu += cfg->alpha * dx;
		st->var = (1 - cfg->alpha) * (st->var + cfg->alpha * dx * dx);
	}
}

/* Empty reports fed one by one, at most this many per gap: mu and var
 * shrink by (1 - alpha) per step, to 1e-90 of what they were after these
 * (alpha = 0.1), the same as 0 to every later comparison. */
#define ZERO_STEPS 2000

size_t peaks_detect(const uint64_t *series, const uint64_t *rowk, size_t n,
		    const struct peak_config *cfg, struct peak **out)
{
	struct peak_state st = { 0 };
	uint64_t next = 1;	/* the report index after the last one fed */

	for (size_t i = 0; i < n; i++) {
		uint64_t k = rowk ? rowk[i] : i + 1;
		for (uint64_t z = next; z < k && z - next < ZERO_STEPS; z++)
			step(&st, cfg, z - 1, i, 0);	/* never a peak: i unused */
		step(&st, cfg, k - 1, i, series[i]);
		next = k + 1;
	}
	*out = st.peaks;
	return st.count;
}
