/* import.c - `memtracectl import`: a trace from a saved lackey log.
 *
 *   memtracectl import [--format lackey] [-c N] [--random-period|--fixed-period] [--seed S]
 *                      [-o FILE [--force]] INPUT|-
 *
 * INPUT is plain text, xz or zstd; the compression is detected from the
 * first bytes, not from the name.  The log is a sample source
 * (source/lackey_file.c) run by the record loop like `record`'s backends.
 * See docs/valgrind-backend.md.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "source/lackey_file.h"
#include "record/loop.h"
#include "record/recorder.h"
#include "trace/writer.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memtracectl import [--format lackey] [-c N] [--random-period|--fixed-period]\n"
		"                          [--seed S]\n"
		"                          [-o FILE [--force]] INPUT|-\n"
		"\n"
		"Makes a trace from a saved `valgrind --tool=lackey --trace-mem=yes` log\n"
		"(plain text, .xz or .zst: detected from the first bytes; - reads stdin).\n"
		"\n"
		"  -f, --format FMT     input format; only \"lackey\" (the default)\n"
		"  -c, --period N       keep every N-th data access (default 1: exact)\n"
		"      --random-period  draw each gap uniformly from [N - N/2, N + N/2] (the default)\n"
		"      --fixed-period   keep exactly every N-th access (aliases with short loops:\n"
		"                       docs/accuracy.md)\n"
		"      --seed S         seed of the random period (default 1)\n"
		"  -o, --output FILE    trace to write (default memtrace.mtrace); an existing FILE\n"
		"                       is renamed to FILE.old, never overwritten or followed\n"
		"      --force          overwrite an existing FILE instead (no FILE.old)\n"
		"  -h, --help           this text\n"
		"\n"
		"Time in the trace is guest instructions (time_unit=insn).  A log cut in the\n"
		"middle of a line is fine: the partial last line is ignored with a warning.\n");
}

static char *join_args(int argc, char **argv)
{
	size_t len = strlen("memtracectl") + 1;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = mt_xmalloc(len), *p = s;

	p += sprintf(p, "memtracectl");
	for (int i = 0; i < argc; i++)
		p += sprintf(p, " %s", argv[i]);
	return s;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "period", required_argument, NULL, 'c' },
		{ "random-period", no_argument, NULL, 'R' },
		{ "fixed-period", no_argument, NULL, 'X' },
		{ "seed", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "lackey", *output = "memtrace.mtrace";
	uint64_t period = 1, seed = 1;
	bool random = true, random_given = false, fixed = false, force = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+f:c:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			format = optarg;
			break;
		case 'c':
			if (mt_parse_u64(optarg, &period) || period == 0) {
				mt_err("import: bad period '%s' (a whole number >= 1)", optarg);
				return 2;
			}
			break;
		case 'R':
			random_given = true;
			break;
		case 'X':
			fixed = true;
			break;
		case 'S':
			if (mt_parse_u64(optarg, &seed)) {
				mt_err("import: bad seed '%s'", optarg);
				return 2;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'F':
			force = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				mt_err("import: bad or incomplete option '-%c' (see import --help)", optopt);
			else
				mt_err("import: bad option '%s' (see import --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (strcmp(format, "lackey")) {
		mt_err("import: unknown format '%s' (known: lackey)", format);
		return 2;
	}
	if (optind != argc - 1) {
		mt_err("import: %s (see import --help)",
		       optind >= argc ? "no INPUT given" : "more than one INPUT given");
		return 2;
	}
	if (fixed && random_given) {
		mt_err("import: --fixed-period and --random-period exclude each other");
		return 2;
	}
	random = !fixed;
	if (fixed && period > 1)
		mt_warn("import: fixed period %llu: a loop whose accesses repeat with a period sharing a "
			"factor with it is sampled at the same places (aliasing); the default random "
			"period avoids it", (unsigned long long)period);
	const char *name = argv[optind];
	struct lackey_file *f = lackey_file_open(name);

	if (!f)
		return 1;
	char *cmdline = join_args(argc, argv);
	struct recorder *r = recorder_open(output, cmdline, force ? WRITER_FORCE : 0);

	free(cmdline);
	if (!r) {
		lackey_file_free(f);
		return 1;
	}
	lackey_file_start(f, r, output, period, random, seed);
	int loop_rc = record_loop(&source_lackey_file, f, r, 0);
	int close_rc = recorder_close(r);
	int rc = 1;

	if (loop_rc || close_rc) {
		mt_err("%s: writing the trace failed", output);
	} else if (f->read_failed) {
		/* error already printed; the trace holds everything before it */
	} else if (!f->p.insns && !f->p.accesses) {
		mt_err("%s: no trace lines (was valgrind run with --trace-mem=yes?)", f->in.name);
	} else {
		rc = 0;
	}
	lackey_file_free(f);
	return rc;
}
