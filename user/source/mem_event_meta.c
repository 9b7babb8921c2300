/* mem_event_meta.c - header keys for perf-event recordings (docs/trace-format.md). */
#include "source/mem_event_meta.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>

#include "uapi/memtrace.h"
#include "record/recorder.h"
#include "source/target.h"
#include "util/util.h"

void event_meta(struct recorder *r, const char *backend, const struct record_opts *o,
		const struct mem_event *ev, uint64_t period, pid_t target)
{
	char comm[64] = "";

	if (o->argv) {
		/* what the kernel will call it after exec (basename, 15 bytes); the
		 * recorder's END target_comm says what it became (a launcher's
		 * command, a symlink's name) */
		const char *base = strrchr(o->argv[0], '/');
		snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : o->argv[0]);
	} else if (target > 0)
		target_comm(target, target, comm, sizeof(comm));
	recorder_meta(r, "backend", "%s", backend);
	recorder_meta(r, "source", "%s", ev->source);
	recorder_meta(r, "event", "%s", ev->alias && strcmp(ev->alias, "raw") ? ev->alias : ev->name);
	recorder_meta(r, "event_encoding", "%s type=%u config=0x%llx config1=0x%llx", ev->name,
		      ev->attr.type, (unsigned long long)ev->attr.config,
		      (unsigned long long)ev->attr.config1);
	recorder_meta(r, "sees", "%s", ev->sees);
	recorder_meta(r, "sample_class", "%s", ev->sample_class);
	recorder_meta(r, "sample_period", "%llu", (unsigned long long)period);
	recorder_meta(r, "random_period", "0");
	recorder_meta(r, "clock", "monotonic");
	recorder_meta(r, "time_unit", "ns");
	recorder_meta(r, "target_pid", "%d", o->system_wide ? 0 : (int)target);
	recorder_meta(r, "target_comm", "%s", o->system_wide ? "" : comm);
	if (o->npids > 0) {
		char list[1024];
		size_t pos = 0;
		list[0] = 0;
		for (int i = 0; i < o->npids && pos < sizeof(list) - 16; i++)
			pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%d", i ? "," : "",
						(int)o->pids[i]);
		recorder_meta(r, "target_pids", "%s", list);
		recorder_meta(r, "target_children", "%d", !o->no_children);
	}
	if (o->cgroup)
		recorder_meta(r, "target_cgroup", "%s", o->cgroup);
	recorder_meta(r, "fields", "%s%s%s", "ip",
		      ev->fields & MEMTRACE_FIELD_WEIGHT ? ",weight" : "",
		      ev->fields & MEMTRACE_FIELD_DATA_SRC ? ",data_src" : "");
}

int event_begin(struct recorder *r, const struct record_opts *o, pid_t target, uint64_t *start)
{
	/* the caller's: taken before it enabled the events, so that no sample
	 * lies before the trace's start (else now) */
	if (!*start)
		*start = mt_now_ns();
	/* a command: its maps once it has exec'd (event_release); the sides
	 * (--allocs) get its pid all the same, to follow it from its exec */
	if (o->argv)
		recorder_set_target(r, target);
	if (recorder_begun(r)) {	/* record --pidfile: the next target of the recording */
		recorder_set_target(r, target);
		return recorder_snapshot_maps(r, target, *start) ? -1 : 0;
	}
	return recorder_begin(r, *start, o->system_wide || o->argv ? 0 : target) ? -1 : 0;
}

/*
 * Has the kernel finished mapping pid's new image?  The ELF loader maps the
 * program, its interpreter and the stack, and the vDSO last, before the
 * exec returns to user space: [vdso] in the new maps says it is done.
 * 1 done, 0 not yet, -1 gone (no maps: exited already).
 */
static int exec_mapped(pid_t pid)
{
	char path[64], line[512];
	int done = 0, lines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (!done && fgets(line, sizeof(line), f)) {
		lines++;
		done = strstr(line, "[vdso]") != NULL;
	}
	fclose(f);
	return done ? 1 : lines ? 0 : -1;
}

int event_release(struct recorder *r, int *release_fd, pid_t child, uint64_t start)
{
	int e = target_release(*release_fd), mapped = 0;

	*release_fd = -1;
	if (e) {
		recorder_end(r, "exec-failed");
		return -1;
	}
	/* the exec is past its point of no return, its new image being mapped:
	 * poll closely (a short command may exit a millisecond later), 200 ms at most */
	uint64_t until = mt_now_ns() + 200000000ull;
	while ((mapped = exec_mapped(child)) == 0 && mt_now_ns() < until)
		sched_yield();
	if (mapped < 0)		/* exited already: nothing to name */
		return 0;
	if (mapped == 0) {	/* no vDSO in 200 ms: at the next tick */
		recorder_maps_changed(r, child);
		return 0;
	}
	if (recorder_snapshot_maps(r, child, start)) {	/* a write error: as SIGINT would */
		target_stop_child(child);
		recorder_end(r, "failed");
		return -1;
	}
	return 0;
}
