/* damon_tune.c - the kdamond's CPU budget (damon_tune.h). */
#include <stdio.h>
#include <unistd.h>

#include "source/damon/damon_tune.h"

int64_t damon_thread_cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns, ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if ((f = fopen(path, "r"))) {
		int ok = fscanf(f, "%llu", &ns) == 1;
		fclose(f);
		if (ok)
			return (int64_t)ns;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	/* comm may hold spaces: fields after the last ')' */
	int ok = fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			&ut, &st) == 2;
	fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	return ok && hz > 0 ? (int64_t)((ut + st) * (1000000000ull / (unsigned long)hz)) : -1;
}

void damon_tune_init(struct damon_tune *t, pid_t kdamond, double budget,
		     const struct damon_attrs *a, uint64_t wall_ns)
{
	int64_t cpu = damon_thread_cpu_ns(kdamond);

	*t = (struct damon_tune){ .budget = budget, .pid = kdamond, .wall_ns = wall_ns,
				  .cpu_ns = cpu > 0 ? (uint64_t)cpu : 0,
				  .base_sample_us = a->sample_us, .base_aggr_us = a->aggr_us,
				  .share_first = -1, .share_last = -1 };
}

static void scale(const struct damon_tune *t, struct damon_attrs *a, unsigned long sample)
{
	if (sample > DAMON_TUNE_MAX_SAMPLE_US)
		sample = DAMON_TUNE_MAX_SAMPLE_US;
	if (sample < t->base_sample_us)
		sample = t->base_sample_us;
	a->aggr_us = (unsigned long)((double)t->base_aggr_us * (double)sample /
				     (double)t->base_sample_us + 0.5);
	a->sample_us = sample;
	a->update_us = a->aggr_us;
}

int damon_tune_apply(struct damon_tune *t, struct damon_attrs *a, double share)
{
	if (t->share_first < 0)
		t->share_first = share;
	t->share_last = share;
	if (share > t->share_max)
		t->share_max = share;
	if (t->budget <= 0)
		return 0;
	unsigned long was = a->sample_us;
	if (share > t->budget * 1.1) {
		double f = share / t->budget;
		scale(t, a, (unsigned long)((double)was * (f > 8 ? 8 : f) + 0.5));
		if (a->sample_us != was)
			t->raised++;
	} else if (share < t->budget / 4 && was > t->base_sample_us) {
		scale(t, a, was / 2);
		if (a->sample_us != was)
			t->lowered++;
	}
	return a->sample_us != was;
}

int damon_tune_step(struct damon_tune *t, struct damon_attrs *a, uint64_t wall_ns)
{
	if (wall_ns < t->wall_ns + DAMON_TUNE_EVERY_NS)
		return 0;
	int64_t cpu = damon_thread_cpu_ns(t->pid);
	if (cpu < 0)
		return 0;
	double share = (double)((uint64_t)cpu - t->cpu_ns) / (double)(wall_ns - t->wall_ns);
	t->cpu_ns = (uint64_t)cpu;
	t->wall_ns = wall_ns;
	return damon_tune_apply(t, a, share);
}
