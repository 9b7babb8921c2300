/* perf_attach.c - perf events on the targets: a spawned command, every CPU,
 * a cgroup v2 group, or process trees (-p PID[,PID...]).
 *
 * Trees: one event per thread and CPU with inherit, all of a CPU's events
 * writing into that CPU's ring.  Pass 0 lists the tree (target_tree) and
 * attaches every task; each later pass lists it again and attaches the
 * tasks that appeared, until a pass attaches nothing.  A task that appears
 * in pass r+1 although its creator (its parent process, or for a thread its
 * own process) had no new thread in pass r was forked after every creator
 * thread carried our events: it inherited them, and attaching it again
 * would count its faults twice, so it is only counted.  Other new tasks
 * may or may not have inherited (forked while we attached): they get
 * events of their own, marked suspect, and perf_dedupe.c drops whatever
 * is then seen twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/perf/perf_session.h"
#include "record/recorder.h"
#include "util/util.h"
#include "util/search.h"

#define MAX_PASSES	100

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			   unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags | PERF_FLAG_FD_CLOEXEC);
}

/*
 * The leader ev.aux_config asks for (mem-loads-aux): counting only, on
 * the same task, CPU and privilege levels, enabled with its member; perf
 * mem opens "{cpu/mem-loads-aux/,cpu/mem-loads,ldlat=30/}" the same way
 * (tools/perf/arch/x86/util/mem-events.c).  -1 when none is asked for
 * (errno 0) or it cannot be opened.
 */
static int open_aux_leader(const struct perf_session *s, const struct perf_event_attr *attr,
			   pid_t pid, int cpu, unsigned long flags)
{
	struct perf_event_attr a;

	errno = 0;
	if (!s->ev.aux_config)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = attr->type;
	a.config = s->ev.aux_config;
	a.disabled = attr->disabled;
	a.enable_on_exec = attr->enable_on_exec;
	a.inherit = attr->inherit;
	a.exclude_kernel = attr->exclude_kernel;
	a.exclude_hv = attr->exclude_hv;
	a.exclude_guest = attr->exclude_guest;
	return perf_event_open(&a, pid, cpu, -1, flags);
}

void perf_build_attr(struct perf_session *s, const struct record_opts *o, uint64_t period,
		     int on_exec, struct perf_event_attr *attr)
{
	*attr = s->ev.attr;
	attr->size = sizeof(*attr);
	attr->sample_period = period;
	attr->sample_type = s->sample_type;
	attr->disabled = on_exec;
	attr->enable_on_exec = on_exec;
	attr->inherit = !o->system_wide && !o->cgroup;
	/* a tracepoint fires in kernel mode: excluding the kernel would drop it */
	attr->exclude_kernel = !o->kernel_addrs && !s->ev.hint_faults;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->sample_id_all = 1;
	attr->comm = 1;
	attr->comm_exec = 1;	/* execs marked: side_maps.c starts a process's maps there */
	attr->task = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;	/* device, inode, prot: side_maps.c's text keys shared pages as /proc's does */
	attr->mmap_data = 1;
	attr->watermark = 1;
	/* a wakeup per 128 KiB (a quarter of a 512 KiB ring): 8x fewer wakeups
	 * than 16 KiB, and less collector CPU per sample (docs/performance.md) */
	attr->wakeup_watermark = 131072;
}

/* Opens the event for pid (or -1, or a cgroup fd) on cpu into cpu's ring. */
static int add_event(struct perf_session *s, struct perf_event_attr *attr, pid_t pid, int cpu,
		     unsigned long flags, unsigned pages, bool suspect, char *why, size_t whylen)
{
	int aux = open_aux_leader(s, attr, pid, cpu, flags);
	if (aux < 0 && errno) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);
		errno = e;
		return -1;
	}
	int fd = perf_event_open(attr, pid, cpu, aux, flags);
	if (fd < 0) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);
		if (aux >= 0)
			close(aux);
		errno = e;
		return -1;
	}
	struct perf_stream *st = &s->streams[cpu];
	if (st->fd < 0) {
		if (perf_ring_map(&st->ring, fd, pages)) {
			snprintf(why, whylen, "mmap of the perf ring failed (%s): raise `ulimit -l` or "
				 "kernel.perf_event_mlock_kb", strerror(errno));
			close(fd);
			if (aux >= 0)
				close(aux);
			errno = ENOMEM;
			return -1;
		}
		st->fd = fd;
		st->cpu = cpu;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->fd)) {
		snprintf(why, whylen, "PERF_EVENT_IOC_SET_OUTPUT failed: %s", strerror(errno));
		close(fd);
		if (aux >= 0)
			close(aux);
		errno = EINVAL;
		return -1;
	}
	uint64_t id = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		id = 0;
	if (s->nfds == s->fdcap) {
		s->fdcap = s->fdcap ? s->fdcap * 2 : 256;
		s->fds = mt_xrealloc(s->fds, s->fdcap * sizeof(*s->fds));
	}
	s->fds[s->nfds++] = (struct perf_fd){ .fd = fd, .aux_fd = aux, .id = id,
					      .tid = pid > 0 && !flags ? pid : 0, .cpu = cpu };
	if (pid > 0 && !flags)
		dedupe_add_event(&s->dd, id, pid, cpu, suspect);
	return 0;
}

/* The event for one thread (or -1: everything, or a cgroup) on every CPU. */
static int add_target(struct perf_session *s, struct perf_event_attr *attr, pid_t pid,
		      unsigned long flags, unsigned pages, bool suspect, char *why, size_t whylen)
{
	int opened = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (add_event(s, attr, pid, cpu, flags, pages, suspect, why, whylen)) {
			if (errno == ENODEV)	/* offline CPU */
				continue;
			return -1;
		}
		opened++;
	}
	if (!opened) {
		snprintf(why, whylen, "no online CPU accepted the event");
		return -1;
	}
	return 0;
}

static struct perf_attached *find_att(struct perf_session *s, pid_t tid)
{
	size_t lo = 0, hi = s->natt;

	MT_PARTITION_POINT(lo, hi, mid, s->att[mid].tid < tid);
	return lo < s->natt && s->att[lo].tid == tid ? &s->att[lo] : NULL;
}

static void note_att(struct perf_session *s, pid_t tid, pid_t pid, int pass, bool inherited)
{
	if (s->natt == s->attcap) {
		s->attcap = s->attcap ? s->attcap * 2 : 256;
		s->att = mt_xrealloc(s->att, s->attcap * sizeof(*s->att));
	}
	size_t i = s->natt++;
	while (i && s->att[i - 1].tid > tid) {
		s->att[i] = s->att[i - 1];
		i--;
	}
	s->att[i] = (struct perf_attached){ .tid = tid, .pid = pid, .pass = pass, .inherited = inherited };
}

/* Processes of tree t (sorted by pid) with no task new in this pass. */
static bool *stable_procs(struct perf_session *s, const struct target_tasks *t)
{
	bool *stable = mt_xcalloc(t->n ? t->n : 1, sizeof(*stable));

	for (size_t i = 0; i < t->n;) {
		size_t j = i;
		bool all_old = true;
		while (j < t->n && t->t[j].pid == t->t[i].pid)
			all_old &= find_att(s, t->t[j++].tid) != NULL;
		for (size_t k = i; k < j; k++)
			stable[k] = all_old;
		i = j;
	}
	return stable;
}

static bool was_stable(const struct target_tasks *t, const bool *stable, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)	/* sorted by pid */
		if (t->t[i].pid == pid)
			return stable[i];
	return false;
}

/* One pass: attaches the new tasks of tree t; how many got events. */
static int attach_pass(struct perf_session *s, struct perf_event_attr *attr, int pass,
		       const struct target_tasks *t, const struct target_tasks *prev,
		       const bool *prev_stable, char *why, size_t whylen)
{
	int added = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct target_task *k = &t->t[i];
		if (find_att(s, k->tid))
			continue;
		pid_t creator = k->tid == k->pid ? k->ppid : k->pid;
		if (pass > 0 && prev && was_stable(prev, prev_stable, creator)) {
			note_att(s, k->tid, k->pid, pass, true);	/* inherited */
			s->inherited++;
			continue;
		}
		if (add_target(s, attr, k->tid, 0, 128, pass > 0, why, whylen)) {
			if (errno == ESRCH)	/* exited meanwhile */
				continue;
			return -1;
		}
		note_att(s, k->tid, k->pid, pass, false);
		added++;
	}
	return added;
}

static void count_tree(struct perf_session *s, const struct target_tasks *t)
{
	s->nthreads = (int)t->n;
	s->nprocs = 0;
	for (size_t i = 0; i < t->n; i++)
		s->nprocs += !i || t->t[i].pid != t->t[i - 1].pid;
}

/* "memtracectl: attached to 6 processes, 9 threads: postgres 1234 and 5 descendants" */
static void say_attached(struct perf_session *s, const struct record_opts *o)
{
	char list[512] = "";
	size_t pos = 0;

	for (int i = 0; i < o->npids && pos < sizeof(list) - 64; i++) {
		char comm[32];
		target_comm(o->pids[i], o->pids[i], comm, sizeof(comm));
		pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%s %d",
					i ? ", " : "",
					comm[0] ? comm : "?", (int)o->pids[i]);
	}
	int desc = s->nprocs - o->npids;
	fprintf(stderr, "memtracectl: attached to %d process%s, %d thread%s: %s", s->nprocs,
		s->nprocs == 1 ? "" : "es", s->nthreads, s->nthreads == 1 ? "" : "s", list);
	if (o->no_children)
		fprintf(stderr, " (--no-children: existing descendants left out)\n");
	else
		fprintf(stderr, " and %d descendant%s\n", desc < 0 ? 0 : desc, desc == 1 ? "" : "s");
}

static int attach_tree(struct perf_session *s, const struct record_opts *o, uint64_t period,
		       char *why, size_t whylen)
{
	struct perf_event_attr attr;
	struct target_tasks cur = { 0 }, prev = { 0 };
	bool *prev_stable = NULL;
	int rc = -1;

	perf_build_attr(s, o, period, 0, &attr);
	for (int pass = 0; pass < MAX_PASSES; pass++) {
		int nproc = target_tree(o->pids, o->npids, !o->no_children, &cur);
		if (pass == 0 && nproc == 0) {
			snprintf(why, whylen, "no process with pid %d", (int)o->pids[0]);
			goto out;
		}
		bool *stable = stable_procs(s, &cur);
		int added = attach_pass(s, &attr, pass, &cur, pass ? &prev : NULL, prev_stable,
					why, whylen);
		free(prev_stable);
		prev_stable = stable;
		if (added < 0)
			goto out;
		s->passes = pass + 1;
		count_tree(s, &cur);
		struct target_tasks tmp = prev;
		prev = cur;
		cur = tmp;
		if (!added && pass > 0)
			break;
	}
	rc = 0;
out:
	free(prev_stable);
	target_tasks_free(&cur);
	target_tasks_free(&prev);
	return rc;
}

static int attach_cgroup(struct perf_session *s, const struct record_opts *o, uint64_t period)
{
	struct perf_event_attr attr;
	char why[512];
	pid_t pids[4096];

	s->cgroup_fd = target_cgroup_open(o->cgroup, s->cgroup_dir, sizeof(s->cgroup_dir));
	if (s->cgroup_fd < 0)
		return -1;
	perf_build_attr(s, o, period, 0, &attr);
	if (add_target(s, &attr, s->cgroup_fd, PERF_FLAG_PID_CGROUP, 256, false, why, sizeof(why))) {
		if (errno == EACCES || errno == EPERM)
			mt_err("not permitted to record cgroup %s: %s", s->cgroup_dir, why);
		else
			mt_err("cgroup %s: %s", s->cgroup_dir, why);
		return -1;
	}
	int n = target_cgroup_procs(s->cgroup_dir, pids, 4096);
	fprintf(stderr, "memtracectl: recording cgroup %s: %d process%s now, and every process "
		"that joins it\n", s->cgroup_dir, n < 0 ? 0 : n, n == 1 ? "" : "es");
	return 0;
}

int perf_attach(struct perf_session *s, const struct record_opts *o, uint64_t period)
{
	struct perf_event_attr attr;
	char why[512];

	s->target = o->pid;
	if (o->argv) {
		s->child = target_spawn(o->argv, &s->release_fd);
		if (s->child < 0)
			return -1;
		s->target = s->child;
		perf_build_attr(s, o, period, 1, &attr);
		if (add_target(s, &attr, s->child, 0, 128, false, why, sizeof(why))) {
			mt_err("%s", why);
			kill(s->child, SIGKILL);
			return -1;
		}
		return 0;
	}
	if (o->system_wide) {
		perf_build_attr(s, o, period, 0, &attr);
		if (add_target(s, &attr, -1, 0, 256, false, why, sizeof(why))) {
			mt_err("%s", why);
			return -1;
		}
		return 0;
	}
	if (o->cgroup)
		return attach_cgroup(s, o, period);
	s->watch = target_watch_pids(o->pids, o->npids);
	if (!s->watch)
		return -1;
	s->nwatch = o->npids;
	uint64_t t0 = mt_now_ns();
	if (attach_tree(s, o, period, why, sizeof(why))) {
		mt_err("%s", why);
		return -1;
	}
	say_attached(s, o);
	if (getenv("MEMTRACE_ATTACH_STATS"))
		fprintf(stderr, "memtracectl: attach took %.3f ms, %d passes, %zu events, "
			"%d tasks found inherited\n", (double)(mt_now_ns() - t0) / 1e6, s->passes,
			s->nfds, s->inherited);
	return 0;
}

void perf_attach_maps(struct perf_session *s)
{
	const struct record_opts *o = s->o;

	if (o->system_wide)
		return;
	if (o->cgroup) {
		pid_t pids[4096];
		int n = target_cgroup_procs(s->cgroup_dir, pids, 4096);
		for (int i = 0; i < n && i < 4096; i++)
			if (pid_set_add(&s->maps_seen, pids[i]))
				recorder_maps_changed(s->r, pids[i]);
		return;
	}
	for (size_t i = 0; i < s->natt; i++) {
		/* threads share their process's maps: one snapshot per process */
		pid_t pid = s->att[i].pid;
		if (pid_set_add(&s->maps_seen, pid))
			recorder_maps_changed(s->r, pid);
	}
	/* a command: not before its exec (its mmap records mark it) */
	if (s->child > 0)
		pid_set_add(&s->maps_seen, s->child);
}

void perf_close_redundant(struct perf_session *s)
{
	int i;

	while ((i = dedupe_next_redundant(&s->dd)) >= 0) {
		uint64_t id = s->dd.ev[i].id;
		for (size_t k = 0; k < s->nfds; k++) {
			struct perf_fd *f = &s->fds[k];
			if (f->id != id || f->fd < 0 || f->fd == s->streams[f->cpu].fd)
				continue;
			close(f->fd);
			f->fd = -1;
			if (f->aux_fd >= 0)
				close(f->aux_fd);
			f->aux_fd = -1;
		}
	}
}
