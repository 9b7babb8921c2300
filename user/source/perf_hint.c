/* perf_hint.c - the hint-faults source on the perf backend: NUMA balancing
 * on for the recording (numa_balancing.c), the exceptions:page_fault_user
 * tracepoint's records turned into samples with their fault kind
 * (fault_kind.c), and what this machine cannot show. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "record/recorder.h"
#include "source/perf_session.h"
#include "source/target.h"
#include "util/util.h"

/* exceptions:page_fault_user's fields after the 8-byte common header */
#define TP_ADDRESS	8
#define TP_IP		16
#define TP_ERROR_CODE	24
#define TP_SIZE		32

static uint64_t vmstat(const char *key)
{
	char line[128];
	size_t klen = strlen(key);
	uint64_t v = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			v = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* What pages were already there: -p trees and cgroups, before the events. */
static void seed_targets(struct perf_session *s, const struct record_opts *o)
{
	if (o->npids > 0) {
		struct target_tasks t = { 0 };
		target_tree(o->pids, o->npids, !o->no_children, &t);
		for (size_t i = 0; i < t.n; i++)
			if (t.t[i].pid == t.t[i].tid)
				fault_kinds_seed(&s->fk, t.t[i].pid);
		target_tasks_free(&t);
	} else if (o->cgroup) {
		pid_t pids[4096];
		char dir[4096];
		int fd = target_cgroup_open(o->cgroup, dir, sizeof(dir));
		if (fd < 0)
			return;
		close(fd);
		int n = target_cgroup_procs(dir, pids, 4096);
		for (int i = 0; i < n && i < 4096; i++)
			fault_kinds_seed(&s->fk, pids[i]);
	}
}

int perf_hint_open(struct perf_session *s, const struct record_opts *o)
{
	char why[512];

	fault_kinds_init(&s->fk);
	nb_check_stale(stderr, &s->nb);
	if (nb_enable(&s->nb, o->scan_period_ms, why, sizeof(why))) {
		mt_err("%s", why);
		return -1;
	}
	s->nb_active = true;
	int nodes = nb_nodes();
	if (nodes == 1)
		fprintf(stderr, "memtracectl: hint-faults on one NUMA node: private memory of a "
			"single-threaded process (mm_users == 1) and shared anonymous memory without an "
			"MPOL_MF_MOF policy are not scanned, so their re-accesses are not seen; no page "
			"moves (one node)\n");
	else
		fprintf(stderr, "memtracectl: hint-faults on %d NUMA nodes: pages of a single-threaded "
			"process on the node it runs on, and shared anonymous memory without an "
			"MPOL_MF_MOF policy, are not scanned%s\n", nodes, s->nb.changed ?
			"; NUMA balancing is on while recording: the kernel may move pages and tasks "
			"between nodes, as where it is on by default" : "");
	s->vm_hint_start = vmstat("numa_hint_faults");
	if (o->system_wide)
		fprintf(stderr, "memtracectl: hint-faults with -a: pages resident before the recording "
			"count their first fault as a first touch\n");
	seed_targets(s, o);
	return 0;
}

void perf_hint_sample(struct perf_session *s, struct memtrace_sample *m, const unsigned char *raw,
		      uint32_t rawlen)
{
	uint64_t addr, ip, ec;

	if (rawlen < TP_SIZE) {
		m->addr = 0;
		return;
	}
	memcpy(&addr, raw + TP_ADDRESS, 8);
	memcpy(&ip, raw + TP_IP, 8);
	memcpy(&ec, raw + TP_ERROR_CODE, 8);
	m->addr = addr;
	m->ip = ip;
	m->data_src = fault_kinds_classify(&s->fk, (pid_t)m->pid, addr, ec);
}

void perf_hint_meta(struct perf_session *s, struct recorder *r)
{
	recorder_meta(r, "fault_kinds", "1");
	recorder_meta(r, "numa_balancing", "%d", s->nb.changed ? s->nb.prev | 1 : nb_read());
	recorder_meta(r, "numa_balancing_before", "%d", s->nb.changed ? s->nb.prev : nb_read());
	recorder_meta(r, "numa_nodes", "%d", nb_nodes());
	long ms = nb_scan_period_min_ms();
	if (ms > 0)
		recorder_meta(r, "scan_period_ms", "%ld", ms);
}

void perf_hint_close(struct perf_session *s, bool report)
{
	if (!s->nb_active)
		return;
	uint64_t kernel = vmstat("numa_hint_faults") - s->vm_hint_start;
	nb_restore(&s->nb);
	s->nb_active = false;
	if (report)
		fprintf(stderr, "memtracectl: %llu hint faults, %llu first touches, %llu write-protect "
			"faults (the kernel counted %llu hint faults system-wide meanwhile)\n",
			(unsigned long long)s->fk.count[MEMTRACE_FAULT_HINT],
			(unsigned long long)s->fk.count[MEMTRACE_FAULT_FIRST_TOUCH],
			(unsigned long long)s->fk.count[MEMTRACE_FAULT_WRITE_PROTECT],
			(unsigned long long)kernel);
	fault_kinds_free(&s->fk);
}
