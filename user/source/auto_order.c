/* auto_order.c - what `-e auto` picks here and why not the steps before it. */
#include "source/auto_order.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source/damon/damon_sysfs.h"
#include "source/mem_event.h"
#include "source/source.h"

static int page_faults_usable(char *why, size_t whylen)
{
	struct mem_event ev;

	if (mem_event_resolve("page-faults", &ev, NULL, why, whylen))
		return -1;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.sample_period = 1;
	ev.attr.disabled = 1;
	ev.attr.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &ev.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		mem_event_open_error(&ev, errno, why, whylen);
		return -1;
	}
	close(fd);
	return 0;
}

/* The module's accessed-bit source for o's target (o NULL: a -p target). */
static int accessed_usable(const struct record_opts *o, char *why, size_t whylen)
{
	const struct source_ops *m = source_by_name("module");
	pid_t self = getpid();
	struct record_opts probe = { .event = "accessed", .pid = self, .pids = &self, .npids = 1 };

	if (!m) {
		snprintf(why, whylen, "no module backend in this build");
		return -1;
	}
	if (o) {
		probe = *o;
		probe.event = "accessed";
	}
	return m->probe(&probe, why, whylen);
}

bool auto_picks_accessed(const struct record_opts *o)
{
	struct mem_event ev;
	char why[512];

	/* a sampling period, --aggregate or --kernel ask for sampled events;
	 * --pidfile a backend that follows (perf, bpf) */
	if (strcmp(o->event, "auto") || o->system_wide || o->cgroup || o->pidfile || o->period ||
	    o->random_period || o->fixed_period || o->aggregate || o->kernel_addrs)
		return false;
	if (mem_event_resolve("loads", &ev, NULL, why, sizeof(why)) == 0)
		return false;	/* a PMU samples every kind of memory */
	return accessed_usable(o, why, sizeof(why)) == 0;
}

void auto_order_status(FILE *out)
{
	struct mem_event ev;
	char why[5][512];
	const char *names[5] = { "PMU memory events", "module accessed bits", "hint-faults", "damon",
				 "page-faults" };
	int ok[5];
	int pick = -1;

	ok[0] = mem_event_resolve("loads", &ev, NULL, why[0], sizeof(why[0])) == 0;
	ok[1] = accessed_usable(NULL, why[1], sizeof(why[1])) == 0;
	ok[2] = mem_event_hint_unavailable(why[2], sizeof(why[2])) == NULL;
	ok[3] = damon_vaddr_usable(why[3], sizeof(why[3])) == 0;
	ok[4] = page_faults_usable(why[4], sizeof(why[4])) == 0;
	fprintf(out, "-e auto (first available of, in order):\n");
	for (int i = 0; i < 5; i++) {
		if (ok[i] && pick < 0)
			pick = i;
		if (ok[i])
			fprintf(out, "  %d. %s: available%s\n", i + 1, names[i],
				pick == i ? " - picked" : "");
		else
			fprintf(out, "  %d. %s: unavailable - %s\n", i + 1, names[i], why[i]);
	}
	if (pick == 1 || pick == 3)
		fprintf(out, "  (%s is picked for -p and -- CMD targets; -a and --cgroup take the "
			"next one)\n", names[pick]);
}
