/* perf.c - samples through perf_event_open and its mmap rings.
 *
 * -p PID: one event per existing thread (cpu = -1) with inherit, so threads
 * and children created later report into their ancestor's ring; the thread
 * list is re-read until no new thread shows up.  -- CMD: the same on the
 * spawned child, enabled on exec.  -a: one event per CPU.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/source.h"
#include "source/perf_event_meta.h"
#include "source/perf_event.h"
#include "source/perf_ring.h"
#include "record/recorder.h"
#include "source/target.h"
#include "util/util.h"

#define MAX_EVENTS	4096
#define MAX_BATCH	8192

/* One ring per CPU; every event on that CPU writes into it (SET_OUTPUT). */
struct perf_stream {
	int fd;			/* the event that owns the ring */
	int cpu;
	struct perf_ring ring;
};

struct perf_session {
	struct mem_event ev;
	uint64_t sample_type;
	struct perf_stream *streams;	/* indexed by CPU, fd -1 when none */
	int ncpus;
	int *fds;			/* every event fd */
	int nfds;
	pid_t *tids;			/* threads with events */
	int ntids;
	struct recorder *r;
	struct memtrace_sample batch[MAX_BATCH];
	size_t nbatch;
	uint64_t lost, throttled;
	int failed;
	pid_t target, child;
	int release_fd, watch;		/* target_spawn()'s, target_watch()'s */
	const struct record_opts *o;
};

static int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void build_attr(struct perf_session *s, const struct record_opts *o, uint64_t period,
		       int on_exec, struct perf_event_attr *attr)
{
	*attr = s->ev.attr;
	attr->size = sizeof(*attr);
	attr->sample_period = period;
	attr->sample_type = s->sample_type;
	attr->disabled = on_exec;
	attr->enable_on_exec = on_exec;
	attr->inherit = !o->system_wide;
	attr->exclude_kernel = !o->kernel_addrs;
	attr->exclude_hv = 1;
	attr->exclude_guest = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	attr->sample_id_all = 1;
	attr->comm = 1;
	attr->task = 1;
	attr->mmap = 1;
	attr->mmap_data = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = 16384;
}

/* Opens the event for pid (or -1) on cpu and routes it into cpu's ring. */
static int add_event(struct perf_session *s, struct perf_event_attr *attr, pid_t pid, int cpu,
		     unsigned pages, char *why, size_t whylen)
{
	if (s->nfds == MAX_EVENTS) {
		snprintf(why, whylen, "more than %d events (threads x CPUs) to follow", MAX_EVENTS);
		errno = EMFILE;
		return -1;
	}
	int fd = perf_event_open(attr, pid, cpu);
	if (fd < 0) {
		int e = errno;
		mem_event_open_error(&s->ev, e, why, whylen);
		errno = e;
		return -1;
	}
	struct perf_stream *st = &s->streams[cpu];
	if (st->fd < 0) {
		if (perf_ring_map(&st->ring, fd, pages)) {
			snprintf(why, whylen, "mmap of the perf ring failed (%s): raise `ulimit -l` or "
				 "kernel.perf_event_mlock_kb", strerror(errno));
			close(fd);
			return -1;
		}
		st->fd = fd;
		st->cpu = cpu;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, st->fd)) {
		snprintf(why, whylen, "PERF_EVENT_IOC_SET_OUTPUT failed: %s", strerror(errno));
		close(fd);
		return -1;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

/* Opens the event for one thread (or, pid == -1, everything) on every CPU. */
static int add_target(struct perf_session *s, struct perf_event_attr *attr, pid_t pid,
		      unsigned pages, char *why, size_t whylen)
{
	int opened = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		if (add_event(s, attr, pid, cpu, pages, why, whylen)) {
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
	if (pid > 0)
		s->tids[s->ntids++] = pid;
	return 0;
}

static int have_tid(const struct perf_session *s, pid_t tid)
{
	for (int i = 0; i < s->ntids; i++)
		if (s->tids[i] == tid)
			return 1;
	return 0;
}

/* Sample record layout for our sample_type, in perf's fixed field order. */
static void on_sample(struct perf_session *s, const unsigned char *p, const unsigned char *end)
{
	struct memtrace_sample m = { 0 };
	uint64_t v;

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
	if (p + 8 > end)
		return;
	memcpy(&m.cpu, p, 4);
	p += 8;
	if (s->sample_type & PERF_SAMPLE_WEIGHT) {
		TAKE64(v);
		m.weight = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	}
	if (s->sample_type & PERF_SAMPLE_DATA_SRC)
		TAKE64(m.data_src);
#undef TAKE64
	if (s->ev.skip_zero_addr && !m.addr)
		return;
	s->batch[s->nbatch++] = m;
	if (s->nbatch == MAX_BATCH) {
		if (recorder_add_samples(s->r, s->batch, s->nbatch))
			s->failed = 1;
		s->nbatch = 0;
	}
}

/* sample_id trailer of non-sample records: TID, TIME, CPU (sample_id_all). */
static void trailer(const struct perf_session *s, const unsigned char *end, uint64_t *time,
		    uint32_t *cpu)
{
	const unsigned char *p = end - 8;	/* cpu, res */

	(void)s;
	memcpy(cpu, p, 4);
	memcpy(time, p - 8, 8);
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct perf_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;
	uint64_t time;
	uint32_t cpu, pid, tid;

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
		break;
	case PERF_RECORD_FORK: {
		char comm[32];
		memcpy(&pid, p, 4);
		memcpy(&tid, p + 8, 4);
		memcpy(&time, p + 16, 8);
		target_comm((pid_t)pid, (pid_t)tid, comm, sizeof(comm));
		recorder_note_thread(s->r, time, pid, tid, comm);
		recorder_maps_changed(s->r, (pid_t)pid);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		memcpy(&pid, p, 4);
		recorder_maps_changed(s->r, (pid_t)pid);
		break;
	default:
		break;
	}
}

static int drain(struct perf_session *s)
{
	for (int i = 0; i < s->ncpus; i++) {
		if (s->streams[i].fd < 0)
			continue;
		perf_ring_drain(&s->streams[i].ring, on_record, s);
		if (s->nbatch) {
			if (recorder_add_samples(s->r, s->batch, s->nbatch))
				s->failed = 1;
			s->nbatch = 0;
		}
	}
	return s->failed ? -1 : 0;
}

static void close_streams(struct perf_session *s)
{
	for (int i = 0; s->streams && i < s->ncpus; i++)
		perf_ring_unmap(&s->streams[i].ring);
	for (int i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	s->nfds = 0;
}

static int perf_probe(const struct record_opts *o, char *why, size_t whylen)
{
	struct mem_event ev;
	struct perf_event_attr attr;

	if (mem_event_resolve(o->event, &ev, NULL, why, whylen))
		return -1;
	attr = ev.attr;
	attr.size = sizeof(attr);
	attr.sample_period = 1;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = perf_event_open(&attr, 0, -1);
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

static int open_for_threads(struct perf_session *s, const struct record_opts *o,
			    uint64_t period, char *why, size_t whylen)
{
	struct perf_event_attr attr;
	pid_t tids[MAX_EVENTS];

	build_attr(s, o, period, 0, &attr);
	for (int round = 0; round < 100; round++) {
		int n = target_threads(o->pid, tids, MAX_EVENTS), added = 0;
		if (n < 0) {
			snprintf(why, whylen, "no process with pid %d", (int)o->pid);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			if (have_tid(s, tids[i]))
				continue;
			if (s->ntids == MAX_EVENTS) {
				snprintf(why, whylen, "more than %d threads", MAX_EVENTS);
				return -1;
			}
			if (add_target(s, &attr, tids[i], 128, why, whylen)) {
				if (errno == ESRCH)	/* the thread exited meanwhile */
					continue;
				return -1;
			}
			added++;
		}
		if (!added)
			return 0;
	}
	return 0;
}

static void perf_free(struct perf_session *s)
{
	if (s->release_fd >= 0)
		close(s->release_fd);
	if (s->watch >= 0)
		close(s->watch);
	close_streams(s);
	free(s->streams);
	free(s->fds);
	free(s->tids);
	free(s);
}

static void perf_session_init(struct perf_session *s, struct recorder *r)
{
	s->r = r;
	s->release_fd = s->watch = -1;
	s->child = -1;
	s->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_CPU;
	if (s->ev.fields & MEMTRACE_FIELD_WEIGHT)
		s->sample_type |= PERF_SAMPLE_WEIGHT;
	if (s->ev.fields & MEMTRACE_FIELD_DATA_SRC)
		s->sample_type |= PERF_SAMPLE_DATA_SRC;
	s->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	s->streams = mt_xcalloc((size_t)s->ncpus, sizeof(*s->streams));
	for (int i = 0; i < s->ncpus; i++)
		s->streams[i].fd = -1;
	s->fds = mt_xcalloc(MAX_EVENTS, sizeof(*s->fds));
	s->tids = mt_xcalloc(MAX_EVENTS, sizeof(*s->tids));
}

/* Events on the target: the spawned command, every CPU, or PID's threads. */
static int perf_attach(struct perf_session *s, const struct record_opts *o, uint64_t period)
{
	struct perf_event_attr attr;
	char why[512];

	s->target = o->pid;
	if (o->argv) {
		s->child = target_spawn(o->argv, &s->release_fd);
		if (s->child < 0)
			return -1;
		s->target = s->child;
		build_attr(s, o, period, 1, &attr);
		if (add_target(s, &attr, s->child, 128, why, sizeof(why))) {
			mt_err("%s", why);
			kill(s->child, SIGKILL);
			return -1;
		}
	} else if (o->system_wide) {
		build_attr(s, o, period, 0, &attr);
		if (add_target(s, &attr, -1, 256, why, sizeof(why))) {
			mt_err("%s", why);
			return -1;
		}
	} else {
		if (target_check(o->pid))
			return -1;
		s->watch = target_watch(o->pid);
		if (open_for_threads(s, o, period, why, sizeof(why))) {
			mt_err("%s", why);
			return -1;
		}
	}
	return 0;
}

static void *perf_open(const struct record_opts *o, struct recorder *r)
{
	struct perf_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512];
	int fell_back;
	uint64_t start;

	s->o = o;
	s->release_fd = s->watch = -1;
	if (mem_event_resolve(o->event, &s->ev, &fell_back, why, sizeof(why))) {
		mt_err("%s", why);
		goto fail;
	}
	if (fell_back)
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults, which see first touches and re-faults only\n");
	if (o->random_period) {
		mt_err("--random-period is for the valgrind backend and import; perf uses a fixed period");
		goto fail;
	}
	uint64_t period = o->period ? o->period : s->ev.default_period;
	perf_session_init(s, r);
	raise_fd_limit();
	if (perf_attach(s, o, period))
		goto fail;

	event_meta(r, "perf", o, &s->ev, period, s->target);
	if (event_begin(r, o, s->target, &start))
		goto fail;
	if (s->child > 0) {
		int e = target_release(s->release_fd);

		s->release_fd = -1;
		if (e) {
			recorder_end(r, "exec-failed");
			goto fail;
		}
	}
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
	(void)r;
	(void)p;
	(void)n;
	step->now = step->wall;
	step->tick = true;
	return drain(state);
}

static int perf_target_gone(void *state, uint64_t wall)
{
	struct perf_session *s = state;

	(void)wall;
	return !s->o->system_wide && target_exited(s->target, s->watch, s->child > 0);
}

static int perf_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct perf_session *s = state;

	(void)r;
	if (failed)
		return -1;
	drain(s);
	if (s->child > 0 && strcmp(*reason, "target-exited")) {
		/* we started it: stop it too */
		kill(s->child, SIGTERM);
	}
	return 0;
}

static int perf_close(void *state, int rc)
{
	perf_free(state);
	return rc;
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
