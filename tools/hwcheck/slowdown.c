/*
 * slowdown.c - the slowdown table of memtrace-hwcheck in the layout of
 * paper 002's Table 1 (one column per period, "x" factors), plus ns per
 * sample.  Input: one line per run,
 *
 *   EVENT TRACER PERIOD REP LOOP_NS SAMPLES
 *
 * TRACER is untraced, perf, bpf, module, module-hooked or perf-record;
 * LOOP_NS is hwload's access-loop time ("-" when the run failed), SAMPLES
 * the samples it recorded ("-" for untraced runs).  Each run of a tracer has
 * the untraced run of the same event, period and rep next to it
 * (interleaved).  Slowdown = median traced loop time / median untraced loop
 * time of the same event and period; ns/sample = (median traced - median
 * untraced) / median samples.
 */
#include "hwcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 4
#define MAX_PERIODS 8
#define MAX_RUNS 64

static const char *const tracers[] = {
	"untraced", "perf", "bpf", "module", "module-hooked", "perf-record",
};
static const char *const tracer_title[] = {
	"untraced loop, median ms", "memtrace, perf backend", "memtrace, bpf backend",
	"memtrace, module (compatible)", "memtrace, module (hooked)", "perf record -d",
};
#define NTRACERS (sizeof(tracers) / sizeof(tracers[0]))

struct cell {
	uint64_t ns[MAX_RUNS], samples[MAX_RUNS];
	unsigned n, failed;
};

struct table {
	char events[MAX_EVENTS][32];
	unsigned nevents;
	uint64_t periods[MAX_PERIODS];
	unsigned nperiods;
	struct cell cell[MAX_EVENTS][NTRACERS][MAX_PERIODS];
};

static int find_or_add(struct table *t, const char *event, uint64_t period, int *e, int *p)
{
	for (*e = 0; *e < (int)t->nevents && strcmp(t->events[*e], event); (*e)++)
		;
	if (*e == (int)t->nevents) {
		if (t->nevents == MAX_EVENTS)
			return -1;
		snprintf(t->events[t->nevents++], sizeof(t->events[0]), "%s", event);
	}
	for (*p = 0; *p < (int)t->nperiods && t->periods[*p] != period; (*p)++)
		;
	if (*p == (int)t->nperiods) {
		if (t->nperiods == MAX_PERIODS)
			return -1;
		t->periods[t->nperiods++] = period;
	}
	return 0;
}

static int tracer_index(const char *name)
{
	for (size_t i = 0; i < NTRACERS; i++)
		if (!strcmp(tracers[i], name))
			return (int)i;
	return -1;
}

static int add_line(struct table *t, const char *line)
{
	char event[32], tracer[32], ns[32], samples[32];
	uint64_t period;
	unsigned rep;
	int e, p, k;

	if (sscanf(line, "%31s %31s %" SCNu64 " %u %31s %31s", event, tracer, &period, &rep, ns,
		   samples) != 6 || (k = tracer_index(tracer)) < 0 || !period)
		return -1;
	if (find_or_add(t, event, period, &e, &p))
		return -1;
	struct cell *c = &t->cell[e][k][p];
	if (!strcmp(ns, "-")) {
		c->failed++;
		return 0;
	}
	if (c->n == MAX_RUNS)
		return -1;
	char *end;
	c->ns[c->n] = strtoull(ns, &end, 10);
	if (*end)
		return -1;
	c->samples[c->n] = strcmp(samples, "-") ? strtoull(samples, &end, 10) : 0;
	c->n++;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static void print_header(const struct table *t)
{
	printf("| period |");
	for (unsigned p = 0; p < t->nperiods; p++)
		printf(" %" PRIu64 " |", t->periods[p]);
	printf("\n|---|");
	for (unsigned p = 0; p < t->nperiods; p++)
		printf("---|");
	printf("\n| paper 002 Table 1 (PEBS, SAP HANA JCC-H) |");
	for (unsigned p = 0; p < t->nperiods; p++) {
		static const uint64_t at[] = { 200, 400, 600, 800, 1000, 2000, 4000 };
		static const char *const x[] = { "×2.30", "×1.67", "×1.45", "×1.34", "×1.27", "×1.13",
						 "×1.05" };
		const char *v = "";
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
			if (at[i] == t->periods[p])
				v = x[i];
		printf(" %s |", v[0] ? v : "-");
	}
	putchar('\n');
}

/* A cell's note: runs below min_runs, failed runs. */
static void note(const struct cell *c, unsigned min_runs)
{
	if (c->n && c->n < min_runs)
		printf(" (%u run%s)", c->n, c->n == 1 ? "" : "s");
	if (c->n && c->failed)
		printf(" (%u failed)", c->failed);
}

static void print_tracer(struct table *t, unsigned e, unsigned k, unsigned min_runs)
{
	printf("| %s |", tracer_title[k]);
	for (unsigned p = 0; p < t->nperiods; p++) {
		struct cell *c = &t->cell[e][k][p], *u = &t->cell[e][0][p];
		putchar(' ');
		if (!c->n)
			printf("%s", c->failed ? "failed" : "-");
		else if (k == 0)
			printf("%.1f", median(c->ns, c->n) / 1e6);
		else if (!u->n)
			printf("no untraced runs");
		else
			printf("×%.2f", median(c->ns, c->n) / median(u->ns, u->n));
		note(c, min_runs);
		printf(" |");
	}
	if (k == 0) {
		putchar('\n');
		return;
	}
	printf("\n| ns/sample |");
	for (unsigned p = 0; p < t->nperiods; p++) {
		struct cell *c = &t->cell[e][k][p], *u = &t->cell[e][0][p];
		double s = c->n ? median(c->samples, c->n) : 0;
		if (c->n && u->n && s > 0)
			printf(" %.0f |", (median(c->ns, c->n) - median(u->ns, u->n)) / s);
		else
			printf(" - |");
	}
	putchar('\n');
}

static int cmp_period(const void *a, const void *b)
{
	return cmp_u64(a, b);
}

static void sort_periods(struct table *t)
{
	uint64_t sorted[MAX_PERIODS];
	static struct cell tmp[NTRACERS][MAX_PERIODS];

	memcpy(sorted, t->periods, sizeof(sorted));
	qsort(sorted, t->nperiods, sizeof(uint64_t), cmp_period);
	for (unsigned e = 0; e < t->nevents; e++) {
		for (unsigned p = 0; p < t->nperiods; p++) {
			unsigned from = 0;
			while (t->periods[from] != sorted[p])
				from++;
			for (unsigned k = 0; k < NTRACERS; k++)
				tmp[k][p] = t->cell[e][k][from];
		}
		for (unsigned k = 0; k < NTRACERS; k++)
			memcpy(t->cell[e][k], tmp[k], sizeof(tmp[k]));
	}
	memcpy(t->periods, sorted, sizeof(sorted));
}

int hw_slowdown_table(const char *runs, unsigned min_runs, char *err, size_t errlen)
{
	static struct table t;
	char line[256];
	int lineno = 0;
	FILE *f = fopen(runs, "r");

	memset(&t, 0, sizeof(t));
	if (!f) {
		snprintf(err, errlen, "%s: %s", runs, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (add_line(&t, line)) {
			snprintf(err, errlen, "%s:%d: not a run line (EVENT TRACER PERIOD REP LOOP_NS "
				 "SAMPLES, at most %d events, %d periods, %d runs per cell)", runs, lineno,
				 MAX_EVENTS, MAX_PERIODS, MAX_RUNS);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	sort_periods(&t);
	for (unsigned e = 0; e < t.nevents; e++) {
		printf("%sSlowdown of hwload's access loop, event %s (median of runs; × = traced / "
		       "untraced):\n\n", e ? "\n" : "", t.events[e]);
		print_header(&t);
		for (unsigned k = 0; k < NTRACERS; k++) {
			int any = 0;
			for (unsigned p = 0; p < t.nperiods; p++)
				any |= t.cell[e][k][p].n || t.cell[e][k][p].failed;
			if (any)
				print_tracer(&t, e, k, min_runs);
		}
	}
	return 0;
}
