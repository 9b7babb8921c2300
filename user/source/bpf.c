/* bpf.c - the bpf backend: one perf event per CPU (or per CPU of a cgroup)
 * carries bpf/sample.bpf.c's on_sample, which keeps the target's samples in
 * the kernel (a tgid set kept up to date at fork and exec) and writes them
 * into one shared BPF ring buffer; a full ring counts drops per CPU, which
 * become LOST records.  The events' own perf rings carry only side-band
 * records (mmap, comm, fork) for the maps snapshots and thread names.
 * Targets come from target.c / target_tree.c as for the perf backend.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/bpf.h"
#include "source/perf_event_meta.h"
#include "source/perf_ring.h"
#include "source/perf_session.h"	/* struct pid_set */
#include "source/target.h"
#include "record/recorder.h"
#include "util/util.h"
#include "sample.h"
#include "sample.skel.h"

#define BPF_BATCH		1024	/* samples per CPU handed over at once */
#define BPF_RING_DEFAULT	(4u << 20)
#define BPF_REC_BYTES		56	/* struct mt_bpf_rec + ring header */
#define SIDEBAND_PAGES		16
#define MAX_TREE_PASSES		100

struct bpf_cpu {
	int fd;			/* the perf event, -1 if none (offline CPU) */
	struct bpf_link *link;
	struct perf_ring side;	/* its side-band records */
	struct memtrace_sample *batch;
	size_t nbatch;
	uint64_t drops;		/* counts[0] at the last drain */
	uint64_t read;		/* samples read from the ring */
};

struct bpf_session {
	struct mem_event ev;
	struct mt_sample_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *fork_link, *exec_link, *exit_link;
	struct bpf_cpu *cpus;
	int ncpus;
	uint64_t *vals;		/* a per-CPU map value, ncpus entries */
	struct recorder *r;
	const struct record_opts *o;
	struct pid_set maps_seen;	/* processes with a maps snapshot asked for */
	pid_t target, child;
	int release_fd, cgroup_fd, nwatch;
	int *watch;
	int nprocs, failed;
	uint64_t next_prune;	/* wall time of the next dead-entry sweep */
	uint32_t ring_bytes;		/* the shared ring, or each CPU's */
	bool per_cpu_rings;		/* MEMTRACE_BPF_RING=percpu */
	int *ring_fds;			/* per CPU rings, ncpus */
	char cgroup_dir[4096];
};

static void flush_cpu(struct bpf_session *s, struct bpf_cpu *c)
{
	if (c->nbatch && recorder_add_samples(s->r, c->batch, c->nbatch))
		s->failed = 1;
	c->nbatch = 0;
}

/* One ring record: into its CPU's batch (each CPU's records are in time order). */
static int on_rec(void *ctx, void *data, size_t len)
{
	struct bpf_session *s = ctx;
	const struct mt_bpf_rec *b = data;

	if (len < sizeof(*b) || b->cpu >= (uint32_t)s->ncpus)
		return 0;
	struct bpf_cpu *c = &s->cpus[b->cpu];
	c->read++;
	c->batch[c->nbatch++] = (struct memtrace_sample){
		.time = b->time, .addr = b->addr, .ip = b->ip,
		.pid = b->pid, .tid = b->tid, .cpu = b->cpu,
		.weight = b->weight, .data_src = b->data_src,
	};
	/* a process we have no maps of yet (forked, joined the cgroup) */
	if (!s->o->system_wide && pid_set_add(&s->maps_seen, (pid_t)b->pid))
		recorder_maps_changed(s->r, (pid_t)b->pid);
	if (c->nbatch == BPF_BATCH)
		flush_cpu(s, c);
	return 0;
}

/* Is pid recorded: -a and --cgroup (the event filters) always; else the tgid set. */
static bool tracked(struct bpf_session *s, uint32_t pid)
{
	uint8_t v = 0;

	if (s->o->system_wide || s->o->cgroup)
		return true;
	/* a process seen in a sample may have exited (and left the set) since */
	if (pid_set_has(&s->maps_seen, (pid_t)pid))
		return true;
	/* a command before its exec too: its exec's mmaps are read after it */
	return !bpf_map__lookup_elem(s->skel->maps.tgids, &pid, sizeof(pid), &v, sizeof(v), 0);
}

/* Side-band records: TID, TIME, CPU trail each (sample_id_all). */
static void on_side(void *ctx, const struct perf_event_header *h)
{
	struct bpf_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint32_t pid, tid;
	uint64_t time;

	if (end - p < 24)
		return;
	memcpy(&time, end - 16, 8);
	switch (h->type) {
	case PERF_RECORD_COMM:
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 4, 4);
		if (tracked(s, pid))
			recorder_note_thread(s->r, time, pid, tid, (const char *)p + 8);
		break;
	case PERF_RECORD_FORK: {
		char comm[32];
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 8, 4);
		if (!tracked(s, pid))
			break;
		target_comm((pid_t)pid, (pid_t)tid, comm, sizeof(comm));
		recorder_note_thread(s->r, time, pid, tid, comm);
		pid_set_add(&s->maps_seen, (pid_t)pid);
		recorder_maps_changed(s->r, (pid_t)pid);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		memcpy(&pid, p, 4);
		if (tracked(s, pid))
			recorder_maps_changed(s->r, (pid_t)pid);
		break;
	default:
		break;
	}
}

/* Ring-full drops per CPU since the last call become LOST records. */
static void account_drops(struct bpf_session *s, uint64_t now)
{
	uint32_t key = 0;

	if (bpf_map__lookup_elem(s->skel->maps.counts, &key, sizeof(key), s->vals,
				 sizeof(uint64_t) * (size_t)s->ncpus, 0))
		return;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		uint64_t d = s->vals[cpu] - s->cpus[cpu].drops;
		if (d && recorder_add_lost(s->r, now, (uint32_t)cpu, d, 0))
			s->failed = 1;
		s->cpus[cpu].drops = s->vals[cpu];
	}
}

static int drain(struct bpf_session *s, uint64_t now)
{
	if (ring_buffer__consume(s->rb) < 0)
		s->failed = 1;
	for (int i = 0; i < s->ncpus; i++)
		flush_cpu(s, &s->cpus[i]);
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpus[i].fd >= 0)
			perf_ring_drain(&s->cpus[i].side, on_side, s);
	account_drops(s, now);
	return s->failed ? -1 : 0;
}

static void bpf_free(struct bpf_session *s)
{
	for (int i = 0; s->cpus && i < s->ncpus; i++) {
		struct bpf_cpu *c = &s->cpus[i];
		bpf_link__destroy(c->link);
		perf_ring_unmap(&c->side);
		if (c->fd >= 0)
			close(c->fd);
		free(c->batch);
	}
	ring_buffer__free(s->rb);
	for (int i = 0; s->ring_fds && i < s->ncpus; i++)
		if (s->ring_fds[i] >= 0)
			close(s->ring_fds[i]);
	free(s->ring_fds);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	mt_sample_bpf__destroy(s->skel);
	if (s->release_fd >= 0)
		close(s->release_fd);
	for (int i = 0; i < s->nwatch; i++)
		if (s->watch[i] >= 0)
			close(s->watch[i]);
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	free(s->watch);
	free(s->cpus);
	free(s->vals);
	pid_set_free(&s->maps_seen);
	free(s);
}

/* The ring holding o->ring_records records for each of ncpus CPUs. */
static uint32_t ring_bytes(const struct record_opts *o, int ncpus)
{
	uint64_t want = o->ring_records ? (uint64_t)o->ring_records * BPF_REC_BYTES * (uint64_t)ncpus
					: BPF_RING_DEFAULT / (ncpus == 1 ? 4 : 1);
	uint32_t bytes = (uint32_t)sysconf(_SC_PAGESIZE);

	while (bytes < want && bytes < (1u << 30))
		bytes <<= 1;
	return bytes;
}

/* MEMTRACE_BPF_RING=percpu: a ring per CPU, in the cpu_rings map, all polled. */
static int make_cpu_rings(struct bpf_session *s)
{
	int outer = bpf_map__fd(s->skel->maps.cpu_rings);

	s->ring_fds = mt_xcalloc((size_t)s->ncpus, sizeof(*s->ring_fds));
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mt_cpu_ring", 0, 0, s->ring_bytes, NULL);
		uint32_t key = (uint32_t)cpu;

		s->ring_fds[cpu] = fd;
		if (fd < 0 || bpf_map_update_elem(outer, &key, &fd, BPF_ANY)) {
			mt_err("a per-CPU BPF ring: %s", strerror(errno));
			return -1;
		}
		if (cpu == 0)
			s->rb = ring_buffer__new(fd, on_rec, s, NULL);
		else if (s->rb && ring_buffer__add(s->rb, fd, on_rec, s))
			break;
		if (!s->rb)
			break;
	}
	return 0;
}

static int load_programs(struct bpf_session *s, const struct record_opts *o)
{
	bool tgids = !o->system_wide && !o->cgroup;
	const char *ring = getenv("MEMTRACE_BPF_RING");
	int rc;

	bpf_quiet_libbpf();
	s->skel = mt_sample_bpf__open();
	if (!s->skel) {
		mt_err("opening the BPF programs failed: %s", strerror(errno));
		return -1;
	}
	s->per_cpu_rings = ring && !strcmp(ring, "percpu");
	s->skel->rodata->filter_mode = tgids ? MT_BPF_FILTER_TGIDS : MT_BPF_FILTER_ALL;
	s->skel->rodata->keep_kernel = o->kernel_addrs;
	s->skel->rodata->per_cpu_rings = s->per_cpu_rings;
	s->skel->rodata->want_weight = !!(s->ev.fields & (MEMTRACE_FIELD_WEIGHT | MEMTRACE_FIELD_DATA_SRC));
	s->ring_bytes = ring_bytes(o, s->per_cpu_rings ? 1 : s->ncpus);
	s->skel->rodata->wakeup_bytes = s->ring_bytes / 4;
	bpf_map__set_max_entries(s->skel->maps.samples,
				 s->per_cpu_rings ? (uint32_t)sysconf(_SC_PAGESIZE) : s->ring_bytes);
	bpf_map__set_max_entries(s->skel->maps.cpu_rings, (uint32_t)s->ncpus);
	if ((rc = mt_sample_bpf__load(s->skel))) {
		mt_err("loading the BPF programs failed: %s: %s", strerror(-rc), bpf_last_error());
		return -1;
	}
	if (tgids) {
		s->fork_link = bpf_program__attach(s->skel->progs.on_fork);
		s->exec_link = bpf_program__attach(s->skel->progs.on_exec);
		s->exit_link = bpf_program__attach(s->skel->progs.on_exit);
		if (!s->fork_link || !s->exec_link || !s->exit_link) {
			mt_err("attaching the fork/exec/exit tracepoints failed: %s", strerror(errno));
			return -1;
		}
	}
	if (s->per_cpu_rings) {
		if (make_cpu_rings(s))
			return -1;
	} else
		s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), on_rec, s, NULL);
	if (!s->rb) {
		mt_err("the BPF ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int set_tgid(struct bpf_session *s, pid_t pid, uint8_t v)
{
	uint32_t key = (uint32_t)pid;

	return bpf_map__update_elem(s->skel->maps.tgids, &key, sizeof(key), &v, sizeof(v), BPF_ANY);
}

/* "memtracectl: attached to 6 processes, 9 threads: postgres 1234 and 5 descendants",
 * as the perf backend says it */
static void say_attached(const struct record_opts *o, int nprocs, int nthreads)
{
	char list[512] = "";
	size_t pos = 0;

	for (int i = 0; i < o->npids && pos < sizeof(list) - 64; i++) {
		char comm[32];
		target_comm(o->pids[i], o->pids[i], comm, sizeof(comm));
		pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%s %d", i ? ", " : "",
					comm[0] ? comm : "?", (int)o->pids[i]);
	}
	int desc = nprocs - o->npids;
	fprintf(stderr, "memtracectl: attached to %d process%s, %d thread%s: %s", nprocs,
		nprocs == 1 ? "" : "es", nthreads, nthreads == 1 ? "" : "s", list);
	if (o->no_children)
		fprintf(stderr, " (--no-children: existing descendants left out)\n");
	else
		fprintf(stderr, " and %d descendant%s\n", desc < 0 ? 0 : desc, desc == 1 ? "" : "s");
}

/*
 * -p: every process of the trees into the tgid set.  From then on the fork
 * program adds their children; a process forked before its parent was in
 * the set shows up in the next listing: list again until nothing is new.
 */
static int add_trees(struct bpf_session *s, const struct record_opts *o)
{
	struct target_tasks t = { 0 };
	int added = 1, pass;

	for (pass = 0; pass < MAX_TREE_PASSES && added; pass++) {
		int n = target_tree(o->pids, o->npids, !o->no_children, &t);
		if (pass == 0 && n == 0) {
			mt_err("no process with pid %d", (int)o->pids[0]);
			target_tasks_free(&t);
			return -1;
		}
		added = 0;
		for (size_t i = 0; i < t.n; i++) {
			if (i && t.t[i].pid == t.t[i - 1].pid)
				continue;
			if (pid_set_add(&s->maps_seen, t.t[i].pid)) {
				if (set_tgid(s, t.t[i].pid, MT_BPF_TGID_ON)) {
					mt_err("the BPF tgid map: %s", strerror(errno));
					target_tasks_free(&t);
					return -1;
				}
				added++;
			}
		}
		s->nprocs = (int)s->maps_seen.n;
	}
	say_attached(o, s->nprocs, (int)t.n);
	target_tasks_free(&t);
	return 0;
}

/* The event on cpu (pid -1: every task; or a cgroup fd), with on_sample on it. */
static int open_cpu(struct bpf_session *s, int cpu, uint64_t period, char *why, size_t whylen)
{
	struct perf_event_attr a = s->ev.attr;
	struct bpf_cpu *c = &s->cpus[cpu];
	const struct record_opts *o = s->o;

	a.size = sizeof(a);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU;
	/* PEBS/IBS fill these in the sample data the program reads */
	if (s->ev.fields & MEMTRACE_FIELD_WEIGHT)
		a.sample_type |= PERF_SAMPLE_WEIGHT;
	if (s->ev.fields & MEMTRACE_FIELD_DATA_SRC)
		a.sample_type |= PERF_SAMPLE_DATA_SRC;
	a.disabled = 1;
	a.exclude_kernel = !o->kernel_addrs;
	a.exclude_hv = 1;
	a.exclude_guest = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.comm = 1;
	a.task = 1;
	a.mmap = 1;
	a.mmap_data = 1;
	/* a wakeup per sample: keeps x86 large PEBS off, whose records but the
	 * last of each drain would bypass the BPF program */
	a.wakeup_events = 1;
	pid_t pid = o->cgroup ? s->cgroup_fd : -1;
	unsigned long flags = PERF_FLAG_FD_CLOEXEC | (o->cgroup ? PERF_FLAG_PID_CGROUP : 0);
	c->fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, flags);
	if (c->fd < 0) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);
		return e == ENODEV ? 1 : -1;	/* ENODEV: offline CPU */
	}
	if (perf_ring_map(&c->side, c->fd, SIDEBAND_PAGES)) {
		snprintf(why, whylen, "mmap of the perf ring failed (%s): raise `ulimit -l`",
			 strerror(errno));
		return -1;
	}
	c->link = bpf_program__attach_perf_event(s->skel->progs.on_sample, c->fd);
	if (!c->link) {
		snprintf(why, whylen, "attaching the BPF program to the event failed: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int open_events(struct bpf_session *s, uint64_t period)
{
	char why[512];
	int opened = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		int rc = open_cpu(s, cpu, period, why, sizeof(why));
		if (rc < 0) {
			mt_err("%s", why);
			return -1;
		}
		opened += rc == 0;
	}
	if (!opened) {
		mt_err("no online CPU accepted the event");
		return -1;
	}
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		if (s->cpus[cpu].fd >= 0 && ioctl(s->cpus[cpu].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			mt_errno("enabling the perf event");
			return -1;
		}
	return 0;
}

/* The target: a command (recorded from exec on), every task, a cgroup, or trees. */
static int set_target(struct bpf_session *s, const struct record_opts *o)
{
	s->target = o->pid;
	if (o->argv) {
		s->child = target_spawn(o->argv, &s->release_fd);
		if (s->child < 0)
			return -1;
		s->target = s->child;
		pid_set_add(&s->maps_seen, s->child);
		if (set_tgid(s, s->child, MT_BPF_TGID_AT_EXEC)) {
			mt_err("the BPF tgid map: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (o->system_wide)
		return 0;
	if (o->cgroup) {
		s->cgroup_fd = target_cgroup_open(o->cgroup, s->cgroup_dir, sizeof(s->cgroup_dir));
		return s->cgroup_fd < 0 ? -1 : 0;
	}
	for (int i = 0; i < o->npids; i++)
		if (target_check(o->pids[i]))
			return -1;
	s->watch = mt_xcalloc((size_t)o->npids, sizeof(*s->watch));
	s->nwatch = o->npids;
	for (int i = 0; i < o->npids; i++)
		s->watch[i] = target_watch(o->pids[i]);
	return add_trees(s, o);
}

static void maps_at_start(struct bpf_session *s)
{
	if (s->o->cgroup) {
		pid_t pids[4096];
		int n = target_cgroup_procs(s->cgroup_dir, pids, 4096);
		for (int i = 0; i < n && i < 4096; i++)
			if (pid_set_add(&s->maps_seen, pids[i]))
				recorder_maps_changed(s->r, pids[i]);
		fprintf(stderr, "memtracectl: recording cgroup %s: %d process%s now, and every "
			"process that joins it\n", s->cgroup_dir, n < 0 ? 0 : n, n == 1 ? "" : "es");
		return;
	}
	for (size_t i = 0; i < s->maps_seen.cap; i++)
		if (s->maps_seen.v[i])
			recorder_maps_changed(s->r, s->maps_seen.v[i]);
}

static void *bpf_open(const struct record_opts *o, struct recorder *r)
{
	struct bpf_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512];
	uint64_t start;

	s->o = o;
	s->r = r;
	s->child = -1;
	s->release_fd = s->cgroup_fd = -1;
	if (bpf_check(o, &s->ev, false, why, sizeof(why))) {
		mt_err("backend bpf: %s", why);
		goto fail;
	}
	int fell_back = 0;
	if (mem_event_resolve(o->event, &s->ev, &fell_back, why, sizeof(why)) == 0 && fell_back)
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults, which see first touches and re-faults only\n");
	uint64_t period = o->period ? o->period : s->ev.default_period;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		mt_err("cannot count the possible CPUs");
		goto fail;
	}
	s->cpus = mt_xcalloc((size_t)s->ncpus, sizeof(*s->cpus));
	s->vals = mt_xcalloc((size_t)s->ncpus, sizeof(*s->vals));
	for (int i = 0; i < s->ncpus; i++) {
		s->cpus[i].fd = -1;
		s->cpus[i].batch = mt_xcalloc(BPF_BATCH, sizeof(struct memtrace_sample));
	}
	if (load_programs(s, o) || set_target(s, o) || open_events(s, period))
		goto fail_child;

	event_meta(r, "bpf", o, &s->ev, period, s->target);
	recorder_meta(r, "bpf_ring", "%s %u", s->per_cpu_rings ? "percpu" : "shared", s->ring_bytes);
	if (event_begin(r, o, s->target, &start))
		goto fail_child;
	if (!o->system_wide)
		maps_at_start(s);
	if (recorder_tick(r, start)) {
		recorder_end(r, "failed");
		goto fail_child;
	}
	if (s->child > 0) {
		int e = target_release(s->release_fd);

		s->release_fd = -1;
		if (e) {
			recorder_end(r, "exec-failed");
			goto fail;
		}
	}
	return s;
fail_child:
	if (s->child > 0)
		kill(s->child, SIGKILL);
fail:
	bpf_free(s);
	return NULL;
}

static int bpf_fds(void *state, struct pollfd *p, int max)
{
	struct bpf_session *s = state;

	/* one epoll fd for every ring */
	if (max >= 1)
		p[0] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN };
	return 1;
}

static int bpf_drain(void *state, struct recorder *r, const struct pollfd *p, int n,
		     struct source_step *step)
{
	struct bpf_session *s = state;

	(void)r;
	(void)p;
	(void)n;
	int rc = drain(s, step->wall);
	step->now = step->wall;
	step->tick = true;
	return rc;
}

/* Has process pid a live thread?  (A zombie leader with live threads: yes.) */
static bool process_alive(pid_t pid)
{
	char path[64], line[512];
	FILE *f;
	int threads = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	bool zombie = false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6))
			zombie = strchr(line, 'Z') || strchr(line, 'X');
		sscanf(line, "Threads: %d", &threads);
	}
	fclose(f);
	return !zombie || threads > 1;
}

/*
 * -p: every recorded process exited (the listed ones, their descendants and
 * all they forked: the tgid set is empty, as the module's session ends); a
 * command: it exited; -a, --cgroup: never.  A process listed from /proc
 * that exited before it was put in the set never left it: such entries are
 * dropped here (at most once a second).
 */
static int bpf_target_gone(void *state, uint64_t wall)
{
	struct bpf_session *s = state;
	uint32_t key, next;
	int err;

	if (s->o->system_wide || s->o->cgroup)
		return 0;
	if (s->child > 0)
		return target_exited(s->child, -1, true);
	for (int i = 0; i < s->nwatch; i++)
		if (!target_exited(s->o->pids[i], s->watch[i], false))
			return 0;
	if (wall < s->next_prune)
		return 0;
	s->next_prune = wall + 1000000000ull;
	for (err = bpf_map__get_next_key(s->skel->maps.tgids, NULL, &key, sizeof(key)); !err;
	     key = next) {
		err = bpf_map__get_next_key(s->skel->maps.tgids, &key, &next, sizeof(next));
		if (!process_alive((pid_t)key))
			bpf_map__delete_elem(s->skel->maps.tgids, &key, sizeof(key), 0);
	}
	return bpf_map__get_next_key(s->skel->maps.tgids, NULL, &key, sizeof(key)) != 0;
}

static int bpf_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct bpf_session *s = state;

	(void)r;
	if (s->child > 0 && (failed || strcmp(*reason, "target-exited")))
		target_stop_child(s->child);
	if (failed)
		return -1;
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpus[i].fd >= 0)
			ioctl(s->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	return drain(s, mt_now_ns());
}

/* "memtracectl: bpf: 40000 samples produced, 39850 read, 150 dropped (ring of 4096 bytes full)" */
static void say_counts(struct bpf_session *s)
{
	uint32_t key = 1;
	uint64_t produced = 0, read = 0, dropped = 0;

	if (bpf_map__lookup_elem(s->skel->maps.counts, &key, sizeof(key), s->vals,
				 sizeof(uint64_t) * (size_t)s->ncpus, 0))
		return;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		produced += s->vals[cpu];
		read += s->cpus[cpu].read;
		dropped += s->cpus[cpu].drops;
	}
	if (dropped || getenv("MEMTRACE_BPF_COUNTS"))
		fprintf(stderr, "memtracectl: bpf: %llu samples produced, %llu read, %llu dropped "
			"(ring of %u bytes full; --ring N for a larger one)\n",
			(unsigned long long)produced, (unsigned long long)read,
			(unsigned long long)dropped, s->ring_bytes);
}

static int bpf_close(void *state, int rc)
{
	if (rc == 0)
		say_counts(state);
	bpf_free(state);
	return rc;
}

static int bpf_probe(const struct record_opts *o, char *why, size_t whylen)
{
	struct mem_event ev;

	return bpf_check(o, &ev, true, why, whylen);
}

static void bpf_status(FILE *out)
{
	bpf_status_lines(out);
}

const struct source_ops source_bpf = {
	.name = "bpf",
	.end_reason = "target-exited",
	.probe = bpf_probe,
	.status = bpf_status,
	.open = bpf_open,
	.fds = bpf_fds,
	.drain = bpf_drain,
	.target_gone = bpf_target_gone,
	.finish = bpf_finish,
	.close = bpf_close,
};
