/* export.c - `memtracectl export --format pprof -o FILE TRACE`: a trace's
 * samples as a profile for other tools (go tool pprof, Pyroscope): what
 * each sample is comes from engine/profile.c, the encoding from
 * export_pprof.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/export_pprof.h"
#include "engine/profile.h"
#include "util/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memtracectl export --format pprof -o FILE [--by data|code|site|span]\n"
		"                          [-p PID] [--labels FILE] TRACE\n"
		"\n"
		"Writes the samples of TRACE as a gzipped pprof profile (profile.proto), for\n"
		"`go tool pprof`, Pyroscope and other pprof readers.  Two values per sample:\n"
		"the events it stands for (accesses or faults: samples x sample_period) and\n"
		"bytes (those events x the trace's bucket size).  Every sample carries the\n"
		"labels region (the data's region as reports name it), object (the data's\n"
		"symbol, if any), site (its allocation site: traces recorded with --allocs),\n"
		"span (the span it lies in: traces recorded with --mark) and pid.\n"
		"\n"
		"  -f, --format FMT     output format: \"pprof\" (the only one)\n"
		"  -o, --output FILE    profile to write (replaced if it exists), e.g. a.pb.gz\n"
		"      --by WHAT        what a sample's stack names: \"code\" (the default: the\n"
		"                       sampled instruction's function with file:line and its\n"
		"                       inlined frames, from the binaries' symbols and DWARF),\n"
		"                       \"data\" (the object accessed under its region), \"site\"\n"
		"                       (the allocation site) or \"span\" (the span's label)\n"
		"  -p, --pid PID        only the samples of process PID\n"
		"      --labels FILE    name address ranges (as for report): region labels\n"
		"  -h, --help           this text\n");
}

static int parse_by(const char *s, enum export_by *by)
{
	static const char *const names[] = { "code", "data", "site", "span" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*by = (enum export_by)i;
			return 0;
		}
	return -1;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "by", required_argument, NULL, 'b' },
		{ "pid", required_argument, NULL, 'p' },
		{ "labels", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct memtrace_report_config cfg = { 0 };
	enum export_by by = EXPORT_BY_CODE;
	const char *format = "pprof", *out = NULL;
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'b':
			if (parse_by(optarg, &by)) {
				mt_err("invalid --by '%s' (data, code, site or span)", optarg);
				return 2;
			}
			break;
		case 'p':
			if (mt_parse_u64(optarg, &v) || !v || v > UINT32_MAX) {
				mt_err("invalid --pid '%s' (a process id)", optarg);
				return 2;
			}
			cfg.filter.pid = (uint32_t)v;
			break;
		case 'L': cfg.labels = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "memtracectl: see 'memtracectl export --help'\n");
			return 2;
		}
	}
	if (strcmp(format, "pprof")) {
		mt_err("unknown --format '%s' (pprof)", format);
		return 2;
	}
	if (!out) {
		mt_err("export needs -o FILE (the profile to write)");
		return 2;
	}
	if (optind != argc - 1) {
		mt_err("export needs exactly one trace file");
		return 2;
	}
	char err[512];
	struct profile *p = profile_compute(argv[optind], &cfg, err, sizeof(err));
	if (!p) {
		mt_err("%s", err);
		return 1;
	}
	/* FILE.tmp renamed at the end: a failed export leaves no partial FILE */
	size_t n = strlen(out) + 5;
	char *tmp = mt_xmalloc(n);
	snprintf(tmp, n, "%s.tmp", out);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	int rc = 1;
	if (fd < 0)
		mt_errno("cannot create %s", tmp);
	else if (export_pprof(p, by, fd, err, sizeof(err))) {
		mt_err("%s: %s", out, err);
		unlink(tmp);
	} else if (rename(tmp, out)) {
		mt_errno("cannot rename %s to %s", tmp, out);
		unlink(tmp);
	} else
		rc = 0;
	free(tmp);
	profile_free(p);
	return rc;
}
