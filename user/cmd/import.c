/* import.c - `memtracectl import`: a trace from a saved lackey log or a
 * perf.data file.
 *
 *   memtracectl import [--format lackey|perf] [-c N] [--random-period|--fixed-period] [--seed S]
 *                      [-o FILE [--force]] INPUT|-
 *
 * lackey: INPUT is plain text, xz or zstd; the compression is detected from
 * the first bytes, not from the name (source/import/lackey_file.c).  perf: a
 * perf.data file or pipe-mode stream (source/import/perf_import.c).  Either is a
 * sample source run by the record loop like `record`'s backends.  See
 * docs/valgrind-backend.md and docs/memtracectl.md.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "source/import/lackey_file.h"
#include "source/import/perf_import.h"
#include "record/loop.h"
#include "record/recorder.h"
#include "trace/writer.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memtracectl import [--format lackey|perf] [-c N] [--random-period|--fixed-period]\n"
		"                          [--seed S]\n"
		"                          [-o FILE [--force]] INPUT|-\n"
		"\n"
		"Makes a trace from a saved `valgrind --tool=lackey --trace-mem=yes` log\n"
		"(plain text, .xz or .zst: detected from the first bytes; - reads stdin),\n"
		"or from a perf.data file with data addresses (perf record -d, perf mem\n"
		"record, perf c2c record; also pipe mode: perf record -o - | ... import -).\n"
		"\n"
		"  -f, --format FMT     input format: \"lackey\" (the default) or \"perf\"\n"
		"  -c, --period N       lackey: keep every N-th data access (default 1: exact)\n"
		"      --random-period  draw each gap uniformly from [N - N/2, N + N/2] (the default)\n"
		"      --fixed-period   keep exactly every N-th access (aliases with short loops:\n"
		"                       docs/accuracy.md)\n"
		"      --seed S         seed of the random period (default 1)\n"
		"  -o, --output FILE    trace to write (default memtrace.mtrace); an existing FILE\n"
		"                       is renamed to FILE.old, never overwritten or followed\n"
		"      --force          overwrite an existing FILE instead (no FILE.old)\n"
		"  -h, --help           this text\n"
		"\n"
		"lackey: time in the trace is guest instructions (time_unit=insn).  A log cut\n"
		"in the middle of a line is fine: the partial last line is ignored with a warning.\n"
		"perf: time is perf's clock in ns; samples keep pid, tid, cpu, ip, weight and\n"
		"data_src where the file has them; MMAP2 records become the trace's maps.\n");
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

static int import_perf(const char *name, const char *output, bool force, int argc, char **argv)
{
	struct perf_import *pi = perf_import_open(name);

	if (!pi)
		return 1;
	char *cmdline = join_args(argc, argv);
	struct recorder *r = recorder_open(output, cmdline, force ? WRITER_FORCE : 0);

	free(cmdline);
	if (!r) {
		perf_import_free(pi);
		return 1;
	}
	perf_import_start(pi, r, output);
	int loop_rc = record_loop(&source_perf_import, pi, r, 0, NULL, NULL);
	int close_rc = recorder_close(r);
	int rc = 1;

	if (loop_rc || close_rc)
		mt_err("%s: writing the trace failed", output);
	else
		rc = perf_import_result(pi);
	perf_import_free(pi);
	return rc;
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
	if (strcmp(format, "lackey") && strcmp(format, "perf")) {
		mt_err("import: unknown format '%s' (known: lackey, perf)", format);
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
	const char *name = argv[optind];

	if (!strcmp(format, "perf")) {
		if (period != 1 || random_given || fixed) {
			mt_err("import: -c, --random-period and --fixed-period are for lackey logs; a perf.data "
			       "file keeps the samples perf took");
			return 2;
		}
		return import_perf(name, output, force, argc, argv);
	}
	if (fixed && period > 1)
		mt_warn("import: fixed period %llu: a loop whose accesses repeat with a period sharing a "
			"factor with it is sampled at the same places (aliasing); the default random "
			"period avoids it", (unsigned long long)period);
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
	int loop_rc = record_loop(&source_lackey_file, f, r, 0, NULL, NULL);
	int close_rc = recorder_close(r);
	int rc = 1;

	if (!f->published && !f->failed) {	/* output left as it was */
		if (!f->read_failed && !f->p.insns && !f->p.accesses)
			mt_err("%s: no trace lines (was valgrind run with --trace-mem=yes?)",
			       f->in.name);
		/* else: the read error is said */
	} else if (loop_rc || close_rc) {
		mt_err("%s: writing the trace failed", output);
	} else if (f->read_failed) {
		/* error already printed; the trace holds everything before it */
	} else {
		rc = 0;
	}
	lackey_file_free(f);
	return rc;
}
