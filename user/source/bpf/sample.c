/* sample.c - the bpf backend: bpf/sample.bpf.c's on_fault on
 * tp_btf/page_fault_user (page faults of user addresses, hint faults), or
 * on_sample on one perf event per CPU (or per CPU of a cgroup: every other
 * event), keeps the target's samples in the kernel (a tgid bitmap kept up
 * to date at fork and exec) and writes them into one shared BPF ring buffer
 * (hint-faults where tp_btf does not load: on_hint on the
 * exceptions:page_fault_user tracepoint, once for all CPUs); a full ring
 * counts drops per CPU, which become LOST records.  The events' own perf rings carry only side-band
 * records (mmap, comm, fork) for the maps snapshots and thread names.
 * Targets (bpf_target.c) come from target.c / target_tree.c as for the
 * perf backend.
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

#include "source/bpf/bpf.h"
#include "source/bpf/bpf_agg.h"
#include "source/mem_event_meta.h"
#include "source/perf_ring.h"
#include "source/bpf/bpf_session.h"
#include "source/target.h"
#include "record/recorder.h"
#include "util/util.h"
#include "source/bpf/sample.h"
#include "sample.skel.h"

#define BPF_BATCH		1024	/* samples per CPU handed over at once */
#define BPF_RING_DEFAULT	(4u << 20)
#define BPF_REC_BYTES		56	/* struct mt_bpf_rec + ring header */
#define SIDEBAND_PAGES		16

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
	uint64_t data_src = b->data_src;
	if (s->ev.hint_faults)	/* on_hint left the error code there */
		data_src = hint_classify(&s->hint, (pid_t)b->pid, b->addr, b->data_src);
	c->batch[c->nbatch++] = (struct memtrace_sample){
		.time = b->time, .addr = b->addr, .ip = b->ip,
		.pid = b->pid, .tid = b->tid, .cpu = b->cpu,
		.weight = b->weight, .data_src = data_src,
	};
	/* a process we have no maps of yet (forked, joined the cgroup) */
	if (!s->o->system_wide && b->pid != s->last_pid) {
		if (pid_set_add(&s->maps_seen, (pid_t)b->pid))
			recorder_maps_changed(s->r, (pid_t)b->pid);
		s->last_pid = b->pid;	/* maps_seen keeps it */
	}
	if (c->nbatch == BPF_BATCH)
		flush_cpu(s, c);
	return 0;
}

/* Is pid recorded: -a and --cgroup (the event filters) always; else the tgid set. */
static bool tracked(struct bpf_session *s, uint32_t pid)
{
	if (s->o->system_wide || s->o->cgroup)
		return true;
	/* a process seen in a sample may have exited (and left the set) since */
	if (pid_set_has(&s->maps_seen, (pid_t)pid))
		return true;
	/* a command before its exec too: its exec's mmaps are read after it */
	return bpf_tgid_in_set(s, pid);
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
	/* the side-band event sees every task: the targets' records, each
	 * judged by its parent at a fork (the child may be gone from the tgid
	 * set by the time its record is read), then, in time order, by its own
	 * entry (side_maps.h) */
	uint32_t who;
	memcpy(&pid, p, 4);
	memcpy(&who, h->type == PERF_RECORD_FORK ? p + 4 : p, 4);
	side_maps_record(&s->side_maps, h, time, tracked(s, who));
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
	case PERF_RECORD_EXIT:
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 8, 4);
		/* the process is gone: the set stays as big as the live processes
		 * (its pid may come back as another, which gets a new snapshot) */
		if (pid == tid)
			pid_set_del(&s->maps_seen, (pid_t)pid);
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

static int drain(struct bpf_session *s, uint64_t now, bool final)
{
	uint64_t start = mt_now_ns();	/* the side-band records before it are all in */

	if (ring_buffer__consume(s->rb) < 0)
		s->failed = 1;
	for (int i = 0; i < s->ncpus; i++)
		flush_cpu(s, &s->cpus[i]);
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpus[i].fd >= 0)
			perf_ring_drain(&s->cpus[i].side, on_side, s);
	if (side_maps_drained(&s->side_maps, s->r, start, final))
		s->failed = 1;
	account_drops(s, now);
	if (bpf_agg_drain(s, now, final))
		s->failed = 1;
	return s->failed ? -1 : 0;
}

static void bpf_free(struct bpf_session *s)
{
	for (int i = 0; s->cpus && i < s->ncpus; i++) {
		struct bpf_cpu *c = &s->cpus[i];
		if (c->link)
			bpf_link__destroy(c->link);	/* closes c->sfd */
		else if (c->sfd >= 0)
			close(c->sfd);
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
	bpf_link__destroy(s->hint_link);
	bpf_link__destroy(s->fault_link);
	bpf_tgid_bits_unmap(s);
	mt_sample_bpf__destroy(s->skel);
	hint_close(&s->hint, false);	/* every exit path puts NUMA balancing back */
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
	side_maps_free(&s->side_maps);
	bpf_agg_free(s);
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

/*
 * Which program takes the faults: on_fault on tp_btf/page_fault_user for
 * the software page-fault event of user addresses and for hint faults, else
 * on_sample on a perf event per CPU (on_hint on the tracepoint's perf event
 * for hint faults where tp_btf will not load).  MEMTRACE_BPF_FAULTS=perf
 * forces the perf events, =tp refuses the fallback.
 */
static bool want_fault_tp(const struct bpf_session *s, const struct record_opts *o, bool *forced)
{
	const char *env = getenv("MEMTRACE_BPF_FAULTS");

	*forced = env && !strcmp(env, "tp");
	if (env && !strcmp(env, "perf"))
		return false;
	if (s->ev.hint_faults)
		return true;
	return s->ev.attr.type == PERF_TYPE_SOFTWARE &&
	       s->ev.attr.config == PERF_COUNT_SW_PAGE_FAULTS && !o->kernel_addrs;
}

/* Opens, sets up and loads the programs: on_fault if tp, else the perf path's. */
static int load_skel(struct bpf_session *s, const struct record_opts *o, uint64_t period, bool tp,
		     bool quiet)
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
	s->fault_tp = tp;
	s->per_cpu_rings = ring && !strcmp(ring, "percpu");
	s->skel->rodata->filter_mode = tgids ? MT_BPF_FILTER_TGIDS : MT_BPF_FILTER_ALL;
	s->skel->rodata->keep_kernel = o->kernel_addrs;
	s->skel->rodata->per_cpu_rings = s->per_cpu_rings;
	s->skel->rodata->want_weight = !s->ev.hint_faults && !tp &&
		!!(s->ev.fields & (MEMTRACE_FIELD_WEIGHT | MEMTRACE_FIELD_DATA_SRC));
	s->skel->rodata->filter_cgroup = (s->ev.hint_faults || tp) && o->cgroup;
	s->skel->rodata->fault_period = period;
	s->skel->rodata->fault_error_code = s->ev.hint_faults;
	/* a program for the event at hand: on_hint needs the x86 tracepoint */
	bpf_program__set_autoload(s->skel->progs.on_fault, tp);
	bpf_program__set_autoload(s->skel->progs.on_hint, !tp && s->ev.hint_faults);
	bpf_program__set_autoload(s->skel->progs.on_sample, !tp && !s->ev.hint_faults);
	/* --aggregate: the ring stays empty, --ring sizes the bucket map */
	s->ring_bytes = o->aggregate ? (uint32_t)sysconf(_SC_PAGESIZE)
					: ring_bytes(o, s->per_cpu_rings ? 1 : s->ncpus);
	bpf_agg_setup(s, o);
	s->skel->rodata->wakeup_bytes = s->ring_bytes / 4;
	bpf_map__set_max_entries(s->skel->maps.samples,
				 s->per_cpu_rings ? (uint32_t)sysconf(_SC_PAGESIZE) : s->ring_bytes);
	bpf_map__set_max_entries(s->skel->maps.cpu_rings, (uint32_t)s->ncpus);
	if (tgids)
		bpf_tgid_bits_size(s);
	if ((rc = mt_sample_bpf__load(s->skel))) {
		if (!quiet)
			mt_err("loading the BPF programs failed: %s: %s", strerror(-rc),
			       bpf_last_error());
		mt_sample_bpf__destroy(s->skel);
		s->skel = NULL;
		bpf_agg_free(s);
		return -1;
	}
	return tgids ? bpf_tgid_bits_map(s) : 0;
}

static int load_programs(struct bpf_session *s, const struct record_opts *o, uint64_t period)
{
	bool tgids = !o->system_wide && !o->cgroup, forced;
	bool tp = want_fault_tp(s, o, &forced);

	if (load_skel(s, o, period, tp, tp && !forced)) {
		if (!tp || forced)
			return -1;
		/* no tp_btf/page_fault_user here: the perf event */
		fprintf(stderr, "memtracectl: bpf: tp_btf/page_fault_user did not load (%s): "
			"%s through perf events\n", bpf_last_error(),
			s->ev.hint_faults ? "hint faults" : "page faults");
		if (load_skel(s, o, period, false, false))
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

/*
 * The events on cpu (pid -1: every task; or a cgroup fd): a dummy software
 * event that carries the side-band records (mmap, comm, fork, with
 * sample_id_all times) into a small perf ring, and the sampling event with
 * on_sample on it and no ring.  The sampling event asks for the address
 * only (and weight and data source where kept): since Linux 6.3 the BPF
 * overflow handler has perf_prepare_sample() fill every field sample_type
 * names before the program runs, in the sampled task, and the program
 * takes the time, ids, CPU and ip itself.  hint-faults: the dummy only.
 */
static int open_cpu(struct bpf_session *s, int cpu, uint64_t period, char *why, size_t whylen)
{
	struct perf_event_attr a;
	struct bpf_cpu *c = &s->cpus[cpu];
	const struct record_opts *o = s->o;
	pid_t pid = o->cgroup ? s->cgroup_fd : -1;
	unsigned long flags = PERF_FLAG_FD_CLOEXEC | (o->cgroup ? PERF_FLAG_PID_CGROUP : 0);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU;
	a.disabled = 1;
	a.exclude_kernel = !o->kernel_addrs;
	a.exclude_hv = 1;
	a.exclude_guest = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.sample_id_all = 1;
	a.comm = 1;
	a.comm_exec = 1;	/* execs marked: side_maps.c starts a process's maps there */
	a.task = 1;
	a.mmap = 1;
	a.mmap2 = 1;	/* device, inode, prot: side_maps.c's text keys shared pages as /proc's does */
	a.mmap_data = 1;
	c->fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, flags);
	if (c->fd < 0) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);	/* the same causes */
		return e == ENODEV ? 1 : -1;	/* ENODEV: offline CPU */
	}
	if (perf_ring_map(&c->side, c->fd, SIDEBAND_PAGES)) {
		snprintf(why, whylen, "mmap of the perf ring failed (%s): raise `ulimit -l`",
			 strerror(errno));
		return -1;
	}
	if (s->fault_tp || s->ev.hint_faults)	/* on_fault, on_hint: on the tracepoint */
		return 0;

	a = s->ev.attr;
	a.size = sizeof(a);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_ADDR;
	/* PEBS/IBS fill these in the sample data the program reads */
	if (s->ev.fields & MEMTRACE_FIELD_WEIGHT)
		a.sample_type |= PERF_SAMPLE_WEIGHT;
	if (s->ev.fields & MEMTRACE_FIELD_DATA_SRC)
		a.sample_type |= PERF_SAMPLE_DATA_SRC;
	a.disabled = 1;
	a.exclude_kernel = !o->kernel_addrs;
	a.exclude_hv = 1;
	a.exclude_guest = 1;
	/* a wakeup per sample: keeps x86 large PEBS off, whose records but the
	 * last of each drain would bypass the BPF program */
	a.wakeup_events = 1;
	c->sfd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, flags);
	if (c->sfd < 0) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);
		return -1;
	}
	c->link = bpf_program__attach_perf_event(s->skel->progs.on_sample, c->sfd);
	if (!c->link) {
		snprintf(why, whylen, "attaching the BPF program to the event failed: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* on_fault and on_hint filter --cgroup themselves: its fd in target_cgroup */
static int set_cgroup(struct bpf_session *s)
{
	uint32_t key = 0;

	if (s->o->cgroup && bpf_map__update_elem(s->skel->maps.target_cgroup, &key, sizeof(key),
						 &s->cgroup_fd, sizeof(s->cgroup_fd), BPF_ANY)) {
		mt_errno("the cgroup of the fault filter");
		return -1;
	}
	return 0;
}

/* on_fault on tp_btf/page_fault_user: once, for every CPU. */
static int attach_fault(struct bpf_session *s)
{
	if (set_cgroup(s))
		return -1;
	s->fault_link = bpf_program__attach(s->skel->progs.on_fault);
	if (!s->fault_link) {
		mt_err("attaching the BPF program to tp_btf/page_fault_user failed: %s",
		       strerror(errno));
		return -1;
	}
	return 0;
}

/* hint-faults: on_hint on the tracepoint, once; --cgroup in target_cgroup. */
static int attach_hint(struct bpf_session *s)
{
	if (set_cgroup(s))
		return -1;
	/* Through a perf event of the tracepoint, whose id the event resolver
	 * read (tracefs mounted privately if it is not mounted: libbpf's own
	 * attach reads the id from a mounted tracefs only).  A tracepoint's
	 * BPF program runs on every CPU whatever the event's CPU. */
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_TRACEPOINT,
		.config = s->ev.attr.config,
		.sample_period = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		mt_err("perf_event_open(exceptions:page_fault_user) for the BPF program failed: %s",
		       strerror(errno));
		return -1;
	}
	s->hint_link = bpf_program__attach_perf_event(s->skel->progs.on_hint, fd);
	if (!s->hint_link) {
		int e = errno;

		close(fd);
		mt_err("attaching the BPF program to exceptions:page_fault_user failed: %s",
		       strerror(e));
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
		if ((s->cpus[cpu].fd >= 0 && ioctl(s->cpus[cpu].fd, PERF_EVENT_IOC_ENABLE, 0)) ||
		    (s->cpus[cpu].sfd >= 0 && ioctl(s->cpus[cpu].sfd, PERF_EVENT_IOC_ENABLE, 0))) {
			mt_errno("enabling the perf event");
			return -1;
		}
	if (s->fault_tp)
		return attach_fault(s);
	return s->ev.hint_faults ? attach_hint(s) : 0;
}

static void *bpf_open(const struct record_opts *o, struct recorder *r)
{
	struct bpf_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512];
	uint64_t start = 0;

	s->o = o;
	s->r = r;
	s->child = -1;
	s->release_fd = s->cgroup_fd = -1;
	if (bpf_check(o, &s->ev, false, why, sizeof(why))) {
		mt_err("backend bpf: %s", why);
		goto fail;
	}
	int fell_back = 0;
	if (mem_event_resolve_auto(o->event, &s->ev, &fell_back, why, sizeof(why)) == 0 && fell_back)
		mem_event_say_fallback(&s->ev);
	uint64_t period = mem_event_period(&s->ev, o->period);
	if (s->ev.hint_faults && hint_open(&s->hint, o))
		goto fail;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		mt_err("cannot count the possible CPUs");
		goto fail;
	}
	s->cpus = mt_xcalloc((size_t)s->ncpus, sizeof(*s->cpus));
	s->vals = mt_xcalloc((size_t)s->ncpus, sizeof(*s->vals));
	for (int i = 0; i < s->ncpus; i++) {
		s->cpus[i].fd = s->cpus[i].sfd = -1;
		s->cpus[i].batch = mt_xcalloc(BPF_BATCH, sizeof(struct memtrace_sample));
	}
	start = mt_now_ns();	/* before the events run: no sample before the start */
	if (load_programs(s, o, period) || bpf_set_target(s, o) || open_events(s, period))
		goto fail_child;

	event_meta(r, "bpf", o, &s->ev, period, s->target);
	recorder_meta(r, "bpf_ring", "%s %u", s->per_cpu_rings ? "percpu" : "shared", s->ring_bytes);
	recorder_meta(r, "bpf_attach", "%s", s->fault_tp ? "tp_btf/page_fault_user" :
		      s->ev.hint_faults ? "tracepoint/exceptions/page_fault_user" : "perf_event");
	if (s->ev.hint_faults)
		hint_meta(&s->hint, r);
	bpf_agg_meta(s, r);
	if (event_begin(r, o, s->target, &start))
		goto fail_child;
	bpf_agg_begin(s, start);
	if (!o->system_wide)
		bpf_maps_at_start(s);
	if (recorder_tick(r, start)) {
		recorder_end(r, "failed");
		goto fail_child;
	}
	if (s->child > 0 && event_release(r, &s->release_fd, s->child, start))
		goto fail;
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
	int rc = drain(s, step->wall, false);
	if (s->ev.hint_faults)
		hint_passes(&s->hint, r, step->wall);
	step->now = step->wall;
	step->tick = true;
	return rc;
}

static int bpf_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct bpf_session *s = state;

	(void)r;
	if (s->child > 0 && (failed || strcmp(*reason, "target-exited")))
		target_stop_child(s->child);
	if (failed)
		return -1;
	for (int i = 0; i < s->ncpus; i++) {
		if (s->cpus[i].sfd >= 0)
			ioctl(s->cpus[i].sfd, PERF_EVENT_IOC_DISABLE, 0);
		if (s->cpus[i].fd >= 0)
			ioctl(s->cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	}
	bpf_link__destroy(s->fault_link);	/* the tracepoint's end of the recording */
	s->fault_link = NULL;
	return drain(s, mt_now_ns(), true);
}

/* "memtracectl: bpf: 40000 samples produced, 39850 read, 150 dropped (ring of 4096 bytes full)" */
static void say_counts(struct bpf_session *s)
{
	uint32_t key = 1;
	uint64_t produced = 0, read = 0, dropped = 0;

	if (s->agg)	/* the ring stays empty: bpf_agg_say */
		return;

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
	struct bpf_session *s = state;

	if (rc == 0) {
		say_counts(s);
		bpf_agg_say(s);
	}
	/* --aggregate: no sample passes hint_classify, so no kinds to say */
	hint_close(&s->hint, rc == 0 && !s->agg);
	bpf_free(s);
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
	.caps = { .aggregate = true, .follows = true },
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
