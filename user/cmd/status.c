/* status.c - `memtracectl status`: the sources this machine offers. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/auto_order.h"
#include "source/source.h"
#include "source/target.h"
#include "cmd/commands.h"
#include "cmd/status_probe.h"

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ 0 },
	};
	int c;
	long pid = 0, secs = 5;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:d:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: memtracectl status [-p PID [-d SEC]]\n\n"
			       "Lists every backend (module, perf, valgrind), whether it can record on\n"
			       "this machine and, if not, why; what each sample source can see; and\n"
			       "the targets offered (-p trees, --cgroup where cgroup v2 is mounted).\n\n"
			       "  -p, --pid PID       what each source sees of this process here: records\n"
			       "                      it SEC seconds with each source in turn and counts,\n"
			       "                      per kind of mapping, the resident pages seen (hint\n"
			       "                      faults: re-accesses apart from first touches)\n"
			       "  -d, --duration SEC  seconds per source with -p (default 5)\n");
			return 0;
		case 'p':
			pid = strtol(optarg, &end, 10);
			if (*end || pid <= 0) {
				fprintf(stderr, "memtracectl: status -p: '%s' is not a process id\n", optarg);
				return 2;
			}
			break;
		case 'd':
			secs = strtol(optarg, &end, 10);
			if (*end || secs <= 0 || secs > 3600) {
				fprintf(stderr, "memtracectl: status -d: '%s' is not a number of seconds (1-3600)\n",
					optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "memtracectl: status: unknown option (see --help)\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "memtracectl: status takes no arguments\n");
		return 2;
	}
	if (pid)
		return status_probe("/proc/self/exe", (pid_t)pid, (unsigned)secs);
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
