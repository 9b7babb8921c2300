/* perf.c - samples through perf_event_open and its mmap rings: reading the
 * records, the drain, and the source operations.  Which events are opened
 * on what (a command, every CPU, a cgroup, process trees) is perf_attach.c;
 * duplicate copies from a task covered twice are filtered by perf_dedupe.c.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "source/source.h"
#include "source/mem_event_meta.h"
#include "source/perf/perf_session.h"
#include "record/recorder.h"
#include "util/util.h"

static void flush_batch(struct perf_session *s)
{
	if (s->nbatch && recorder_add_samples(s->r, s->batch, s->nbatch))
		s->failed = 1;
	s->nbatch = 0;
}

static void keep_sample(struct perf_session *s, const struct memtrace_sample *m)
{
	s->batch[s->nbatch++] = *m;
	if (s->nbatch == PERF_MAX_BATCH)
		flush_batch(s);
}

/* Sample record layout for our sample_type, in perf's fixed field order. */
static void on_sample(struct perf_session *s, const unsigned char *p, const unsigned char *end)
{
	struct memtrace_sample m = { 0 };
	uint64_t v, id = 0;

#define TAKE64(dst) do { if (p + 8 > end) return; memcpy(&(dst), p, 8); p += 8; } while (0)
	if (s->sample_type & PERF_SAMPLE_IP)
		TAKE64(m.ip);
	if (p + 8 > end)
		return;
	memcpy(&m.pid, p, 4);
	memcpy(&m.tid, p + 4, 4);
	p += 8;
	TAKE64(m.time);
	TAKE64(m.addr);
	if (s->sample_type & PERF_SAMPLE_ID)
		TAKE64(id);
	if (p + 8 > end)
		return;
	memcpy(&m.cpu, p, 4);
	p += 8;
	if (s->sample_type & PERF_SAMPLE_RAW) {
		uint32_t rawlen;
		if (p + 4 > end)
			return;
		memcpy(&rawlen, p, 4);
		if (p + 4 + rawlen > end)
			return;
		perf_hint_sample(s, &m, p + 4, rawlen);
		p += 4 + rawlen;	/* padded to 8 with the size */
	}
	if (s->sample_type & PERF_SAMPLE_WEIGHT) {
		TAKE64(v);
		m.weight = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	if (s->sample_type & PERF_SAMPLE_DATA_SRC)
		TAKE64(m.data_src);
#undef TAKE64
	if (s->ev.skip_zero_addr && !m.addr)
		return;
	/* a process we have no maps of yet (cgroup: joined; tree: forked early) */
	if (!s->o->system_wide && m.pid != s->last_pid) {
		if (pid_set_add(&s->maps_seen, (pid_t)m.pid))
			recorder_maps_changed(s->r, (pid_t)m.pid);
		s->last_pid = m.pid;	/* in maps_seen until its exit record */
	}
	if (dedupe_sample(&s->dd, s->cur_ring, &m, id, s->gen) == DEDUPE_PASS)
		keep_sample(s, &m);
}

/*
 * sample_id trailer of non-sample records (sample_id_all): TID, TIME, ID
 * (when in sample_type), CPU.
 */
static void trailer(const struct perf_session *s, const unsigned char *end, uint64_t *time,
		    uint32_t *cpu)
{
	const unsigned char *p = end - 8;	/* cpu, res */

	memcpy(cpu, p, 4);
	p -= 8;
	if (s->sample_type & PERF_SAMPLE_ID)
		p -= 8;
	memcpy(time, p, 8);
}

static void on_fork(struct perf_session *s, const unsigned char *p)
{
	char comm[32];
	uint32_t pid, tid;
	uint64_t time;

	memcpy(&pid, p, 4);
	memcpy(&tid, p + 8, 4);
	memcpy(&time, p + 16, 8);
	target_comm((pid_t)pid, (pid_t)tid, comm, sizeof(comm));
	recorder_note_thread(s->r, time, pid, tid, comm);
	pid_set_add(&s->maps_seen, (pid_t)pid);
	recorder_maps_changed(s->r, (pid_t)pid);
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct perf_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t time;
	uint32_t cpu, pid, tid;

	if (h->type != PERF_RECORD_SAMPLE && h->type != PERF_RECORD_LOST &&
	    h->type != PERF_RECORD_THROTTLE) {
		trailer(s, end, &time, &cpu);
		side_maps_record(&s->side_maps, h, time, true);
	}
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, p, end);
		break;
	case PERF_RECORD_LOST: {
		uint64_t lost;
		memcpy(&lost, p + 8, 8);
		trailer(s, end, &time, &cpu);
		s->lost += lost;
		recorder_add_lost(s->r, time, cpu, lost, 0);
		break;
	}
	case PERF_RECORD_THROTTLE:
		trailer(s, end, &time, &cpu);
		s->throttled++;
		recorder_add_lost(s->r, time, cpu, 0, 1);
		break;
	case PERF_RECORD_COMM:
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 4, 4);
		trailer(s, end, &time, &cpu);
		recorder_note_thread(s->r, time, pid, tid, (const char *)p + 8);
		if (!s->o->system_wide && pid_set_add(&s->maps_seen, (pid_t)pid))
			recorder_maps_changed(s->r, (pid_t)pid);
		break;
	case PERF_RECORD_FORK:
		on_fork(s, p);
		break;
	case PERF_RECORD_EXIT:
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 8, 4);
		dedupe_exit(&s->dd, (pid_t)tid);
		if (pid == tid) {	/* the process is gone: its pid may come back as another */
			pid_set_del(&s->maps_seen, (pid_t)pid);
			s->last_pid = 0;
		}
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		memcpy(&pid, p, 4);
		recorder_maps_changed(s->r, (pid_t)pid);
		break;
	default:
		break;
	}
}

/* Held samples read before this drain (all: every one) go to the recorder. */
static void release_held(struct perf_session *s, bool all)
{
	size_t n;

	do {
		n = dedupe_release(&s->dd, s->gen, all, s->batch + s->nbatch,
				   PERF_MAX_BATCH - s->nbatch);
		s->nbatch += n;
		if (s->nbatch == PERF_MAX_BATCH)
			flush_batch(s);
	} while (n && !s->nbatch);
	flush_batch(s);
	perf_close_redundant(s);
}

static int drain(struct perf_session *s, bool all)
{
	uint64_t start = mt_now_ns();	/* the side-band records before it are all in */

	s->gen++;
	for (int i = 0; i < s->ncpus; i++) {
		if (s->streams[i].fd < 0)
			continue;
		s->cur_ring = i;
		perf_ring_drain(&s->streams[i].ring, on_record, s);
		flush_batch(s);
	}
	if (side_maps_drained(&s->side_maps, s->r, start, all))
		s->failed = 1;
	release_held(s, all);
	return s->failed ? -1 : 0;
}

static void close_streams(struct perf_session *s)
{
	for (int i = 0; s->streams && i < s->ncpus; i++)
		perf_ring_unmap(&s->streams[i].ring);
	for (size_t i = 0; i < s->nfds; i++) {
		if (s->fds[i].fd >= 0)
			close(s->fds[i].fd);
		if (s->fds[i].aux_fd >= 0)
			close(s->fds[i].aux_fd);
	}
	s->nfds = 0;
}

static int perf_probe(const struct record_opts *o, char *why, size_t whylen)
{
	struct mem_event ev;
	struct perf_event_attr attr;

	if (mem_event_resolve_auto(o->event, &ev, NULL, why, whylen))
		return -1;
	attr = ev.attr;
	attr.size = sizeof(attr);
	attr.sample_period = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		mem_event_open_error(&ev, errno, why, whylen);
		return -1;
	}
	close(fd);
	return 0;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void perf_free(struct perf_session *s)
{
	hint_close(&s->hint, false);	/* every exit path puts NUMA balancing back */
	if (s->release_fd >= 0)
		close(s->release_fd);
	for (int i = 0; i < s->nwatch; i++)
		if (s->watch[i] >= 0)
			close(s->watch[i]);
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	close_streams(s);
	free(s->watch);
	free(s->streams);
	free(s->fds);
	free(s->att);
	dedupe_free(&s->dd);
	pid_set_free(&s->maps_seen);
	side_maps_free(&s->side_maps);
	free(s);
}

static void perf_session_init(struct perf_session *s, struct recorder *r)
{
	s->r = r;
	s->child = -1;
	s->sample_type = mem_event_sample_type(&s->ev);
	s->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	s->streams = mt_xcalloc((size_t)s->ncpus, sizeof(*s->streams));
	for (int i = 0; i < s->ncpus; i++)
		s->streams[i].fd = -1;
	dedupe_init(&s->dd, s->ncpus);
}

static void *perf_open(const struct record_opts *o, struct recorder *r)
{
	struct perf_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512];
	int fell_back;
	uint64_t start = 0;

	s->o = o;
	s->release_fd = s->cgroup_fd = -1;
	if (mem_event_resolve_auto(o->event, &s->ev, &fell_back, why, sizeof(why))) {
		mt_err("%s", why);
		goto fail;
	}
	if (fell_back)
		mem_event_say_fallback(&s->ev);
	if (o->random_period) {
		mt_err("--random-period is for the valgrind backend and import; perf uses a fixed period");
		goto fail;
	}
	uint64_t period = mem_event_period(&s->ev, o->period);
	perf_session_init(s, r);
	raise_fd_limit();
	if (s->ev.hint_faults) {
		if (hint_open(&s->hint, o))
			goto fail;
	} else {
		nb_check_stale(stderr, NULL);
	}
	start = mt_now_ns();	/* before the events run: no sample before the start */
	if (perf_attach(s, o, period))
		goto fail;

	event_meta(r, "perf", o, &s->ev, period, s->target);
	if (s->ev.hint_faults)
		hint_meta(&s->hint, r);
	if (event_begin(r, o, s->target, &start))
		goto fail;
	/* every attached process's maps now, before any of them can exit */
	perf_attach_maps(s);
	if (recorder_tick(r, start)) {
		recorder_end(r, "failed");
		goto fail;
	}
	if (s->child > 0 && event_release(r, &s->release_fd, s->child, start))
		goto fail;
	return s;
fail:
	perf_free(s);
	return NULL;
}

static int perf_fds(void *state, struct pollfd *p, int max)
{
	struct perf_session *s = state;
	int n = 0;

	for (int i = 0; i < s->ncpus; i++) {
		if (s->streams[i].fd < 0)
			continue;
		if (n < max)
			p[n] = (struct pollfd){ .fd = s->streams[i].fd, .events = POLLIN };
		n++;
	}
	return n;
}

static int perf_drain(void *state, struct recorder *r, const struct pollfd *p, int n,
		      struct source_step *step)
{
	struct perf_session *s = state;

	(void)r;
	(void)p;
	(void)n;
	int rc = drain(s, false);
	if (s->ev.hint_faults)
		hint_passes(&s->hint, r, step->wall);
	/* samples held back for the duplicate check are not behind the horizon */
	uint64_t oldest = dedupe_oldest(&s->dd);
	step->now = oldest < step->wall ? oldest : step->wall;
	step->tick = true;
	return rc;
}

/* -p: every listed process exited; a command: it exited; -a, --cgroup: never. */
static int perf_target_gone(void *state, uint64_t wall)
{
	struct perf_session *s = state;

	(void)wall;
	if (s->o->system_wide || s->o->cgroup)
		return 0;
	return target_all_gone(s->child, s->o->pids, s->watch, s->nwatch);
}

static int perf_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct perf_session *s = state;

	(void)r;
	/* we started it: stop it too, on a failed write as on a stop */
	if (s->child > 0 && (failed || strcmp(*reason, "target-exited")))
		target_stop_child(s->child);
	if (failed) {
		hint_close(&s->hint, false);
		return -1;
	}
	drain(s, true);
	hint_close(&s->hint, true);
	uint64_t dup = s->dd.dropped_copies + s->dd.dropped_lineage;
	if (dup)
		fprintf(stderr, "memtracectl: dropped %llu duplicate sample%s of %llu event%s that "
			"covered a task twice (attached while it inherited the events)\n",
			(unsigned long long)dup, dup == 1 ? "" : "s",
			(unsigned long long)s->dd.redundant_events,
			s->dd.redundant_events == 1 ? "" : "s");
	return 0;
}

static int perf_close(void *state, int rc)
{
	perf_free(state);
	return rc;
}

static void perf_hint_status(FILE *out)
{
	char why[512];
	struct record_opts o = { .event = "hint-faults" };
	int nb = nb_read(), nodes = nb_nodes();

	nb_check_stale(out, NULL);
	if (perf_probe(&o, why, sizeof(why)))
		fprintf(out, "  perf: hint-faults: unavailable - %s\n", why);
	else if (!(nb & 1) && geteuid() != 0)
		fprintf(out, "  perf: hint-faults: unavailable - numa_balancing=%d and only root can turn "
			"the scanner on\n", nb);
	else {
		char period[96];
		long ms = nb_scan_period_min_ms();
		if (ms > 0)
			snprintf(period, sizeof(period), "scan period >= %ld ms", ms);
		else
			snprintf(period, sizeof(period), "scan period unreadable (%s)",
				 errno == EPERM ? "debugfs locked down" : strerror(errno));
		fprintf(out, "  perf: hint-faults: available (NUMA balancing built in, numa_balancing=%d%s, "
			"%s, %d node%s%s)\n", nb,
			nb & 1 ? "" : ": turned on while recording", period, nodes,
			nodes == 1 ? "" : "s", nodes == 1 ? ": single-threaded private memory and shared "
			"anonymous memory without MPOL_MF_MOF are not scanned" : "");
	}
}

static void perf_status(FILE *out)
{
	char buf[512], why[512];
	struct record_opts o = { .event = "page-faults" };
	int paranoid = perf_event_paranoid();

	mem_event_pmu_summary(buf, sizeof(buf));
	fprintf(out, "  perf: hardware: %s\n", buf);
	fprintf(out, "  perf: perf_event_paranoid=%d%s\n", paranoid,
		geteuid() == 0 ? " (running as root: no restriction)" : "");
	if (perf_probe(&o, why, sizeof(why)) == 0)
		fprintf(out, "  perf: page-faults: available (software event; sees first touches and re-faults only)\n");
	else
		fprintf(out, "  perf: page-faults: unavailable - %s\n", why);
	perf_hint_status(out);
	struct mem_event ev;
	mem_event_resolve_auto("auto", &ev, NULL, why, sizeof(why));
	fprintf(out, "  perf: -e auto on the perf backend picks %s (see -e auto below)\n", ev.alias);
	static const char *const hw[] = { "loads", "stores", "llc-miss-loads", "load-latency", NULL };
	for (int i = 0; hw[i]; i++) {
		o.event = hw[i];
		if (perf_probe(&o, why, sizeof(why)) == 0)
			fprintf(out, "  perf: %s: available\n", hw[i]);
		else
			fprintf(out, "  perf: %s: unavailable - %s\n", hw[i], why);
	}
}

const struct source_ops source_perf = {
	.name = "perf",
	.caps = { .auto_why = true, .follows = true },
	.end_reason = "target-exited",
	.probe = perf_probe,
	.status = perf_status,
	.open = perf_open,
	.fds = perf_fds,
	.drain = perf_drain,
	.target_gone = perf_target_gone,
	.finish = perf_finish,
	.close = perf_close,
};
