/* status.c - `memtracectl status`: the sources this machine offers. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "source/auto_order.h"
#include "source/source.h"
#include "source/target.h"
#include "cmd/commands.h"

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: memtracectl status\n\n"
			       "Lists every backend (module, perf, valgrind), whether it can record on\n"
			       "this machine and, if not, why; what each sample source can see; and\n"
			       "the targets offered (-p trees, --cgroup where cgroup v2 is mounted).\n");
			return 0;
		}
		fprintf(stderr, "memtracectl: status takes no options (see --help)\n");
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "memtracectl: status takes no arguments\n");
		return 2;
	}
	printf("memtrace sample sources on this machine:\n");
	for (int i = 0; sources[i]; i++) {
		printf("%s:\n", sources[i]->name);
		sources[i]->status(stdout);
	}
	auto_order_status(stdout);
	char mnt[2048];
	bool v1;
	printf("targets:\n  -p PID[,PID...]: the processes, their descendants and all their threads (from /proc)\n");
	if (target_cgroup2_mount(mnt, sizeof(mnt), &v1) == 0)
		printf("  --cgroup: available (perf and bpf backends) - cgroup v2 mounted at %s\n", mnt);
	else
		printf("  --cgroup: unavailable - %s\n", v1 ? "cgroup v1 only; --cgroup needs cgroup v2"
							: "no cgroup2 file system mounted");
	return 0;
}
