/* compare.c - `memtracectl compare A B`: options -> memtrace_compare_compute
 * -> per-region and per-span-label rows, A vs B (render_compare.c). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/commands.h"
#include "cmd/render_compare.h"
#include "util/util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memtracectl compare A B [options]\n"
		"\n"
		"Two traces side by side (A = baseline): accessed volume and touched bytes per\n"
		"region (mapping, matched by name, permissions and order) and per span label\n"
		"(record --mark: a query's text), with the change from A to B in percent.\n"
		"\n"
		"  -b, --bucket SIZE      bucket size, a power of two from 64 to 2M (default: A's)\n"
		"  -n, --top N            rows per table (default 20)\n"
		"      --span PATTERN     on both sides, only samples of threads inside a span whose\n"
		"                         label contains PATTERN\n"
		"      --by-span          the per-label table: spans, distinct bytes touched in all of\n"
		"                         a label's spans and per span (mean), A vs B\n"
		"      --labels FILE      name address ranges on both sides (as report --labels)\n"
		"      --json             machine-readable output on stdout (both tables)\n"
		"  -h, --help             this text\n"
		"\n"
		"volume = samples x bucket (B's times period(B) / period(A) when the sample\n"
		"periods differ); touched = distinct buckets x bucket. \"new\": only B has it.\n");
}

struct compare_opts {
	struct compare_view v;
	uint64_t bucket;
	const char *labels;
	int json;
};

static int parse_opts(int argc, char **argv, struct compare_opts *o)
{
	static const struct option opts[] = {
		{ "bucket", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 'n' },
		{ "span", required_argument, NULL, 'S' },
		{ "by-span", no_argument, NULL, 'B' },
		{ "labels", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "b:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (mt_parse_bucket(optarg, &v)) {
				mt_err("invalid bucket size '%s' (a power of two from 64 to 2M)", optarg);
				return 2;
			}
			o->bucket = v;
			break;
		case 'n':
			if (mt_parse_u64(optarg, &v) || !v || v > 100000) {
				mt_err("invalid --top '%s'", optarg);
				return 2;
			}
			o->v.top = (size_t)v;
			break;
		case 'S': o->v.span = optarg; break;
		case 'B': o->v.by_span = 1; break;
		case 'L': o->labels = optarg; break;
		case 'j': o->json = 1; break;
		case 'h': usage(stdout); return -1;
		default:
			fprintf(stderr, "memtracectl: see 'memtracectl compare --help'\n");
			return 2;
		}
	}
	if (optind != argc - 2) {
		mt_err("compare needs two trace files, A and B");
		return 2;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .v = { .top = 20 } };
	char err[1024];
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	const char *a = argv[optind], *b = argv[optind + 1];
	struct memtrace_report_config cfg = {
		.bucket = o.bucket, .top = 1, .labels = o.labels, .span = o.v.span,
	};
	struct memtrace_compare *c = memtrace_compare_compute(a, b, &cfg, NULL, err, sizeof(err));
	if (!c) {
		mt_err("%s", err);
		return 1;
	}
	if (o.json)
		render_json_compare(stdout, a, b, c, &o.v);
	else
		render_text_compare(stdout, a, b, c, &o.v);
	memtrace_compare_free(c);
	return 0;
}
