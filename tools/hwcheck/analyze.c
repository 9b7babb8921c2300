/*
 * analyze.c - memtrace-hwcheck-analyze, the numbers of memtrace-hwcheck
 * (docs/hwcheck.md):
 *
 *   memtrace-hwcheck-analyze check --kind loads|stores|page-faults
 *                            [--tolerance S] [--count-tolerance C] [--pmis N]
 *                            TRACE LAYOUT
 *   memtrace-hwcheck-analyze slowdown [--min-runs N] RUNS
 *   memtrace-hwcheck-analyze meta TRACE KEY     (HEADER key, or samples/lost/
 *                                                throttled/dropped)
 *
 * check prints one verdict line per check and exits 1 when any failed;
 * every command exits 2 with one line on bad input.
 */
#include "hwcheck.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memtrace/trace.h>

static int usage(void)
{
	fprintf(stderr, "usage: memtrace-hwcheck-analyze check --kind loads|stores|page-faults "
		"[--tolerance S] [--count-tolerance C] [--pmis N] TRACE LAYOUT\n"
		"       memtrace-hwcheck-analyze slowdown [--min-runs N] RUNS\n"
		"       memtrace-hwcheck-analyze meta TRACE KEY\n");
	return 2;
}

static int parse_fraction(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (*end || !(*v >= 0 && *v <= 1)) {
		fprintf(stderr, "memtrace-hwcheck-analyze: '%s' is not a fraction in [0, 1]\n", s);
		return -1;
	}
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct hw_check_opts o = { HW_LOADS, 0.05, 0.10, 20, -1 };
	struct hw_layout l;
	char err[512];
	int kind = 0, i;

	for (i = 2; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--kind")) {
			kind = 1;
			if (!strcmp(argv[i + 1], "loads"))
				o.kind = HW_LOADS;
			else if (!strcmp(argv[i + 1], "stores"))
				o.kind = HW_STORES;
			else if (!strcmp(argv[i + 1], "page-faults"))
				o.kind = HW_FAULTS;
			else
				return usage();
		} else if (!strcmp(argv[i], "--tolerance")) {
			if (parse_fraction(argv[i + 1], &o.share_tolerance))
				return 2;
		} else if (!strcmp(argv[i], "--pmis")) {
			char *end;
			o.pmis = strtoll(argv[i + 1], &end, 10);
			if (*end || o.pmis < 0) {
				fprintf(stderr, "memtrace-hwcheck-analyze: --pmis wants a count, not '%s'\n",
					argv[i + 1]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--count-tolerance")) {
			if (parse_fraction(argv[i + 1], &o.count_tolerance))
				return 2;
		} else {
			return usage();
		}
	}
	if (!kind || argc - i != 2)
		return usage();
	if (hw_layout_read(argv[i + 1], &l, err, sizeof(err))) {
		fprintf(stderr, "memtrace-hwcheck-analyze: %s\n", err);
		return 2;
	}
	int fails = hw_check_trace(argv[i], &l, &o, err, sizeof(err));
	if (fails < 0) {
		fprintf(stderr, "memtrace-hwcheck-analyze: %s: %s\n", argv[i], err);
		return 2;
	}
	return fails ? 1 : 0;
}

static int cmd_slowdown(int argc, char **argv)
{
	unsigned min_runs = 5;
	char err[512];
	int i = 2;

	if (argc > 3 && !strcmp(argv[2], "--min-runs")) {
		min_runs = (unsigned)strtoul(argv[3], NULL, 10);
		i = 4;
	}
	if (argc - i != 1)
		return usage();
	if (hw_slowdown_table(argv[i], min_runs, err, sizeof(err))) {
		fprintf(stderr, "memtrace-hwcheck-analyze: %s\n", err);
		return 2;
	}
	return 0;
}

static int cmd_meta(int argc, char **argv)
{
	struct memtrace_trace_info info;
	char err[512];

	if (argc != 4)
		return usage();
	struct memtrace_trace *t = memtrace_trace_open(argv[2], err, sizeof(err));
	if (!t || memtrace_trace_info(t, &info, err, sizeof(err))) {
		fprintf(stderr, "memtrace-hwcheck-analyze: %s: %s\n", argv[2], err);
		if (t)
			memtrace_trace_close(t);
		return 2;
	}
	const char *key = argv[3], *v = memtrace_trace_meta(t, key);
	int rc = 0;
	if (!strcmp(key, "samples"))
		printf("%" PRIu64 "\n", info.samples);
	else if (!strcmp(key, "lost"))
		printf("%" PRIu64 "\n", info.lost);
	else if (!strcmp(key, "throttled"))
		printf("%" PRIu64 "\n", info.throttled);
	else if (!strcmp(key, "dropped"))
		printf("%" PRIu64 "\n", info.dropped);
	else if (v)
		printf("%s\n", v);
	else
		rc = 1;
	memtrace_trace_close(t);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc, argv);
	if (!strcmp(argv[1], "slowdown"))
		return cmd_slowdown(argc, argv);
	if (!strcmp(argv[1], "meta"))
		return cmd_meta(argc, argv);
	return usage();
}
