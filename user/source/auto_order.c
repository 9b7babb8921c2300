/* auto_order.c - what `-e auto` picks here and why not the steps before it. */
#include "source/auto_order.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source/damon/damon_sysfs.h"
#include "source/mem_event.h"

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

void auto_order_status(FILE *out)
{
	struct mem_event ev;
	char why[4][512];
	const char *names[4] = { "PMU memory events", "hint-faults", "damon", "page-faults" };
	int ok[4];
	int pick = -1;

	ok[0] = mem_event_resolve("loads", &ev, NULL, why[0], sizeof(why[0])) == 0;
	ok[1] = mem_event_hint_unavailable(why[1], sizeof(why[1])) == NULL;
	ok[2] = damon_vaddr_usable(why[2], sizeof(why[2])) == 0;
	ok[3] = page_faults_usable(why[3], sizeof(why[3])) == 0;
	fprintf(out, "-e auto (first available of, in order):\n");
	for (int i = 0; i < 4; i++) {
		if (ok[i] && pick < 0)
			pick = i;
		if (ok[i])
			fprintf(out, "  %d. %s: available%s\n", i + 1, names[i],
				pick == i ? " - picked" : "");
		else
			fprintf(out, "  %d. %s: unavailable - %s\n", i + 1, names[i], why[i]);
	}
	if (pick == 2)
		fprintf(out, "  (damon is picked for -p and -- CMD targets; -a and --cgroup take "
			"page-faults)\n");
}
