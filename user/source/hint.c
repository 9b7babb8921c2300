/* hint.c - the hint-faults source's state for any backend (hint.h): NUMA
 * balancing on for the recording and restored, fault kinds by error code
 * and first-seen pages (fault_kind.c), what this machine cannot show. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "record/recorder.h"
#include "source/hint.h"
#include "source/target.h"
#include "util/proc_smaps.h"
#include "util/util.h"

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

/*
 * fn(h, pid) for each process of o's -p trees or cgroup now; 0, or 1 when
 * o names neither (a command, -a).
 */
static int each_target(struct hint_state *h, const struct record_opts *o,
		       void (*fn)(struct hint_state *, pid_t))
{
	if (o->npids > 0) {
		struct target_tasks t = { 0 };
		target_tree(o->pids, o->npids, !o->no_children, &t);
		for (size_t i = 0; i < t.n; i++)
			if (t.t[i].pid == t.t[i].tid)
				fn(h, t.t[i].pid);
		target_tasks_free(&t);
	} else if (o->cgroup) {
		pid_t pids[4096];
		char dir[4096];
		int fd = target_cgroup_open(o->cgroup, dir, sizeof(dir));
		if (fd < 0)
			return 0;
		close(fd);
		int n = target_cgroup_procs(dir, pids, 4096);
		for (int i = 0; i < n && i < 4096; i++)
			fn(h, pids[i]);
	} else {
		return 1;
	}
	return 0;
}

static void seed_pid(struct hint_state *h, pid_t pid)
{
	fault_kinds_seed(&h->fk, pid);
}

/* What pages were already there: -p trees and cgroups, before the events. */
static void seed_targets(struct hint_state *h, const struct record_opts *o)
{
	each_target(h, o, seed_pid);
}

/* mm->numa_scan_seq of pid's /proc/PID/sched; -1 when gone or absent. */
static int64_t scan_seq(pid_t pid)
{
	char path[64], line[256];
	int64_t v = -1;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "mm->numa_scan_seq", 17)) {
			const char *c = strchr(line, ':');
			if (c)
				v = strtoll(c + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void watch_pid(struct hint_state *h, pid_t pid)
{
	for (int i = 0; i < h->nwatch; i++)
		if (h->watch[i].pid == pid)
			return;
	int64_t seq = scan_seq(pid);
	if (seq < 0 || h->nwatch == HINT_MAX_WATCHED)
		return;
	h->watch[h->nwatch++] = (struct hint_watch){ .pid = pid, .seq = (uint64_t)seq };
}

/* The targets' processes now: -p trees, --cgroup, the command. */
static void rescan_targets(struct hint_state *h, struct recorder *r)
{
	if (each_target(h, h->o, watch_pid) && recorder_target(r) > 0)
		watch_pid(h, recorder_target(r));
}

/* A step of pid's sweep: its start (offset 0), kept if it is the first
 * since its last advance was read (a later one belongs to the next sweep),
 * or a mapping it skipped. */
static void sweep_event(void *ctx, const struct numa_sweep_event *ev)
{
	struct hint_state *h = ctx;

	for (int i = 0; i < h->nwatch; i++) {
		struct hint_watch *w = &h->watch[i];
		if (w->pid != ev->pid)
			continue;
		if (ev->time <= w->seen_at)	/* the previous sweep's, already closed */
			return;
		if (!ev->offset && !w->start)
			w->start = ev->time;
		if (ev->reason == NUMA_SKIP_SCAN_DELAY || ev->reason == NUMA_SKIP_PID_INACTIVE) {
			if (w->nskips == w->skipcap) {
				w->skipcap = w->skipcap ? 2 * w->skipcap : 16;
				w->skip = mt_xrealloc(w->skip, w->skipcap * sizeof(*w->skip));
			}
			w->skip[w->nskips++] = (struct hint_skip){ ev->vm_start, ev->vm_end };
		}
		return;
	}
}

static int by_start(const void *a, const void *b)
{
	const struct hint_skip *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Did the sweep of w that just ended skip enough to be partial?  Its
 * skipped mappings (one may be reported at more than one step: merged)
 * against the process's resident memory now. */
static bool sweep_partial(struct hint_watch *w)
{
	struct proc_maps m = { 0 };
	uint64_t total = 0, skipped = 0;
	size_t n = 0;

	if (!w->nskips)
		return false;
	if (proc_smaps_read(w->pid, &m))
		return true;	/* gone: nothing says the sweep was whole */
	qsort(w->skip, w->nskips, sizeof(*w->skip), by_start);
	for (size_t i = 0; i < w->nskips; i++) {
		if (n && w->skip[i].start <= w->skip[n - 1].end) {
			if (w->skip[i].end > w->skip[n - 1].end)
				w->skip[n - 1].end = w->skip[i].end;
		} else {
			w->skip[n++] = w->skip[i];
		}
	}
	for (size_t i = 0; i < m.n; i++)
		total += m.v[i].rss;
	for (size_t i = 0; i < n; i++)
		skipped += proc_smaps_rss_in(&m, w->skip[i].start, w->skip[i].end);
	proc_smaps_free(&m);
	return skipped && skipped * HINT_PARTIAL_SHARE >= total;
}

void hint_passes(struct hint_state *h, struct recorder *r, uint64_t now)
{
	if (!h->active || !h->o || now - h->polled_at < HINT_POLL_NS)
		return;
	h->polled_at = now;
	if (now - h->rescanned_at >= HINT_RESCAN_NS) {
		h->rescanned_at = now;
		rescan_targets(h, r);
	}
	/* the starts first: one that precedes an advance read below is its sweep's */
	numa_sweep_drain(&h->sweep, sweep_event, h);
	for (int i = 0; i < h->nwatch;) {
		struct hint_watch *w = &h->watch[i];
		int64_t seq = scan_seq(w->pid);
		if (seq < 0) {	/* gone */
			free(w->skip);
			h->watch[i] = h->watch[--h->nwatch];
			continue;
		}
		if ((uint64_t)seq != w->seq) {
			w->seq = (uint64_t)seq;
			if (w->start && w->start <= now) {
				recorder_add_pass(r, w->start, (uint32_t)w->pid,
						  MEMTRACE_PASS_NUMA_SWEEP_START);
				h->starts++;
			}
			bool partial = sweep_partial(w);
			recorder_add_pass(r, now, (uint32_t)w->pid,
					  partial ? MEMTRACE_PASS_NUMA_SCAN_PARTIAL : MEMTRACE_PASS_NUMA_SCAN);
			h->passes++;
			h->partial += partial;
			w->start = 0;
			w->nskips = 0;
			w->seen_at = now;
		}
		i++;
	}
}

int hint_open(struct hint_state *h, const struct record_opts *o)
{
	char why[512];

	fault_kinds_init(&h->fk);
	nb_check_stale(stderr, &h->nb);
	if (nb_enable(&h->nb, o->scan_period_ms, why, sizeof(why))) {
		mt_err("%s", why);
		return -1;
	}
	h->active = true;
	int nodes = nb_nodes();
	if (nodes == 1)
		fprintf(stderr, "memtracectl: hint-faults on one NUMA node: private memory of a "
			"single-threaded process (mm_users == 1) and shared anonymous memory without an "
			"MPOL_MF_MOF policy are not scanned, so their re-accesses are not seen; no page "
			"moves (one node)\n");
	else
		fprintf(stderr, "memtracectl: hint-faults on %d NUMA nodes: pages of a single-threaded "
			"process on the node it runs on, and shared anonymous memory without an "
			"MPOL_MF_MOF policy, are not scanned%s\n", nodes, h->nb.changed ?
			"; NUMA balancing is on while recording: the kernel may move pages and tasks "
			"between nodes, as where it is on by default" : "");
	h->vm_hint_start = vmstat("numa_hint_faults");
	if (o->system_wide)
		fprintf(stderr, "memtracectl: hint-faults with -a: pages resident before the recording "
			"count their first fault as a first touch\n");
	seed_targets(h, o);
	h->o = o->system_wide ? NULL : o;
	/* the sweeps' starts: without them a window must hold two advances */
	if (h->o && numa_sweep_open(&h->sweep, h->sweep_why, sizeof(h->sweep_why)))
		h->sweep.open = false;
	return 0;
}

uint64_t hint_classify(struct hint_state *h, pid_t pid, uint64_t addr, uint64_t error_code)
{
	return fault_kinds_classify(&h->fk, pid, addr, error_code);
}

void hint_meta(struct hint_state *h, struct recorder *r)
{
	recorder_meta(r, "fault_kinds", "1");
	recorder_meta(r, "numa_balancing", "%d", h->nb.changed ? h->nb.prev | 1 : nb_read());
	recorder_meta(r, "numa_balancing_before", "%d", h->nb.changed ? h->nb.prev : nb_read());
	recorder_meta(r, "numa_nodes", "%d", nb_nodes());
	long ms = nb_scan_period_min_ms();
	if (ms > 0)
		recorder_meta(r, "scan_period_ms", "%ld", ms);
	if (h->o) {	/* PASSES chunks: the blind windows (hint_passes) */
		recorder_meta(r, "passes", "%u", MEMTRACE_PASS_NUMA_SCAN);
		recorder_meta(r, "pass_lag", "%llu", HINT_POLL_NS);
	}
}

void hint_close(struct hint_state *h, bool report)
{
	if (!h->active)
		return;
	uint64_t kernel = vmstat("numa_hint_faults") - h->vm_hint_start;
	nb_restore(&h->nb);
	h->active = false;
	if (report)
		fprintf(stderr, "memtracectl: %llu hint faults, %llu first touches, %llu write-protect "
			"faults (the kernel counted %llu hint faults system-wide meanwhile)\n",
			(unsigned long long)h->fk.count[MEMTRACE_FAULT_HINT],
			(unsigned long long)h->fk.count[MEMTRACE_FAULT_FIRST_TOUCH],
			(unsigned long long)h->fk.count[MEMTRACE_FAULT_WRITE_PROTECT],
			(unsigned long long)kernel);
	fault_kinds_free(&h->fk);
	if (report && h->o) {
		fprintf(stderr, "memtracectl: %llu NUMA scan passes of the targets seen "
			"(/proc/PID/sched numa_scan_seq)", (unsigned long long)h->passes);
		if (h->sweep.open && h->sweep.skips)
			fprintf(stderr, ", %llu with their start, %llu partial (they skipped mappings "
				"holding >= 1/%d of the process's resident memory: their windows are "
				"blind) (sched_skip_vma_numa)%s\n",
				(unsigned long long)h->starts, (unsigned long long)h->partial,
				HINT_PARTIAL_SHARE, h->sweep.lost ? ", some events lost" : "");
		else if (h->sweep.open)
			fprintf(stderr, ", %llu with their start (sched_skip_vma_numa; the mappings "
				"they skipped not read: this kernel's format differs)%s\n",
				(unsigned long long)h->starts, h->sweep.lost ? ", some starts lost" : "");
		else
			fprintf(stderr, "; their starts not seen (%s): a window is seen only when it "
				"holds two advances\n", h->sweep_why);
	}
	numa_sweep_close(&h->sweep);
	for (int i = 0; i < h->nwatch; i++) {
		free(h->watch[i].skip);
		h->watch[i].skip = NULL;
		h->watch[i].nskips = h->watch[i].skipcap = 0;
	}
}
