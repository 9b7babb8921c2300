/* perf_event_meta.c - header keys for perf-event recordings (docs/trace-format.md). */
#include "source/perf_event_meta.h"

#include <stdio.h>
#include <string.h>

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
	*start = mt_now_ns();
	return recorder_begin(r, *start, o->system_wide ? 0 : target);
}
