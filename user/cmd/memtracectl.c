/* memtracectl.c - main(): record and report memory-access traces, one verb
 * per cmd/VERB.c (docs/memtracectl.md, man page docs/man/memtracectl.1). */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

static const struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} verbs[] = {
	{ "record", cmd_record, "record memory-access samples of a process, a command or the system" },
	{ "report", cmd_report, "working-set sizes, hot pages and peaks of a trace" },
	{ "compare", cmd_compare, "two traces side by side: change per region and per span label" },
	{ "import", cmd_import, "turn a saved valgrind lackey log or a perf.data file into a trace" },
	{ "export", cmd_export, "write a trace's samples as a pprof profile (go tool pprof, Pyroscope)" },
	{ "dump", cmd_dump, "print every sample of a trace as CSV (like perf script)" },
	{ "status", cmd_status, "which sample sources this machine offers, and why not the others" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: memtracectl VERB [OPTIONS]\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %-8s %s\n", verbs[i].name, verbs[i].help);
	fprintf(out, "\n`memtracectl VERB --help` for the options of a verb.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("memtracectl 0.1 (trace format 1)\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "memtracectl: unknown verb '%s' (record, report, compare, import, export, dump, status)\n", argv[1]);
	return 2;
}
