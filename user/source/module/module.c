/* module.c - samples through memtrace.ko (/dev/memtrace).
 *
 * The module keeps one ring of struct memtrace_sample per CPU, fed by an
 * in-kernel perf counter's overflow handler.  This backend configures a
 * session with the event resolved like the perf backend does, maps the
 * rings read-only, drains them (each ring is time-ordered) into the
 * recorder and hands the tail back with MEMTRACE_IOC_CONSUME.  The module
 * attaches to the listed pids' threads and (unless --no-children) their
 * existing descendants, follows what they fork, and marks the rings
 * MEMTRACE_RING_ENDED (poll: POLLHUP) once none of those tasks is left.
 * --cgroup is refused: perf_event_create_kernel_counter() takes no cgroup.
 * -e hint-faults: the module takes the faults from the exceptions:page_fault_user
 * tracepoint (MEMTRACE_CFG_PAGE_FAULT_TP: its own probe on it, mode=fault-probe, or a
 * perf counter of it with fault_probe=N), each record carries the fault's
 * error code in data_src, replaced here by its kind (hint.c, as the perf and
 * bpf backends do); NUMA balancing is on for the recording and put back.
 * -e accessed: no perf event; the module's accessed-bit scanner
 * (MEMTRACE_CFG_ACCESSED, mode=accessed) writes the pages it found accessed
 * each pass and a pass record per process scanned (accessed.c splits them).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/module/accessed.h"
#include "source/hint.h"
#include "source/source.h"
#include "source/module/module_limits.h"
#include "source/mem_event_meta.h"
#include "source/mem_event.h"
#include "record/recorder.h"
#include "source/target.h"
#include "util/util.h"

#define MOD_DEF_RING	(1U << 16)	/* records per CPU: 3 MiB */
#define MOD_HINT_BATCH	256		/* records classified per copy */

struct mod_session {
	int fd;
	int ncpus;
	uint32_t ring_records;
	size_t ring_bytes;
	unsigned char *map;
	size_t map_bytes;
	struct memtrace_cpu_stats *stats;	/* last seen, per CPU */
	struct memtrace_cpu_stats *now;
	struct hint_state *hint;		/* -e hint-faults, else NULL */
	struct accessed_state *acc;		/* -e accessed, else NULL */
};

static int mod_probe(const struct record_opts *o, char *why, size_t whylen)
{
	struct mem_event ev;
	int fd;

	if (o && o->random_period) {
		snprintf(why, whylen, "--random-period is for the valgrind backend and import");
		return -1;
	}
	if (o && o->cgroup) {
		snprintf(why, whylen, "--cgroup needs --backend perf");
		return -1;
	}
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", MEMTRACE_DEVICE_PATH, mod_open_error(errno));
		return -1;
	}
	close(fd);
	if (o && accessed_is_event(o->event)) {
		if (access(MOD_PARAMS "accessed", F_OK)) {
			snprintf(why, whylen, "this memtrace.ko has no accessed-bit source (no %saccessed): "
				 "load the module of this build", MOD_PARAMS);
			return -1;
		}
		if (o->system_wide) {
			snprintf(why, whylen, "-e accessed scans processes' page tables: use -p PID or a "
				 "command, not -a");
			return -1;
		}
		return 0;
	}
	if (o && mem_event_resolve(o->event ? o->event : "auto", &ev, NULL, why, whylen))
		return -1;
	if (o && ev.aux_config) {
		snprintf(why, whylen, "event '%s' on this CPU opens in a group led by mem-loads-aux "
			 "(as perf mem does), which memtrace.ko does not do: use --backend perf", ev.alias);
		return -1;
	}
	if (o && ev.hint_faults && access(MOD_PARAMS "hint_faults", F_OK)) {
		snprintf(why, whylen, "this memtrace.ko has no hint-faults source (no %shint_faults): "
			 "load the module of this build, or use --backend perf", MOD_PARAMS);
		return -1;
	}
	return 0;
}

static int mod_stats(struct mod_session *s, struct memtrace_cpu_stats *out)
{
	struct memtrace_stats st = {
		.size = sizeof(st),
		.nr_cpus = (uint32_t)s->ncpus,
		.cpus = (uintptr_t)out,
	};

	return ioctl(s->fd, MEMTRACE_IOC_STATS, &st);
}

/* hint-faults: each record's error code (data_src) becomes its kind. */
static int mod_add_faults(struct mod_session *s, struct recorder *r,
			  const struct memtrace_sample *rec, size_t n)
{
	struct memtrace_sample buf[MOD_HINT_BATCH];

	while (n > 0) {
		size_t k = n < MOD_HINT_BATCH ? n : MOD_HINT_BATCH;

		memcpy(buf, rec, k * sizeof(*buf));
		for (size_t i = 0; i < k; i++)
			buf[i].data_src = hint_classify(s->hint, (pid_t)buf[i].pid, buf[i].addr,
							buf[i].data_src);
		if (recorder_add_samples(r, buf, k))
			return -1;
		rec += k;
		n -= k;
	}
	return 0;
}

/* Feeds lost/throttled increments and the drop total to the recorder. */
static void mod_account(struct mod_session *s, struct recorder *r, uint64_t now)
{
	uint64_t dropped = 0;

	if (mod_stats(s, s->now))
		return;
	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		uint64_t dl = s->now[cpu].lost - s->stats[cpu].lost;
		uint64_t dt = s->now[cpu].throttled - s->stats[cpu].throttled;

		if (dl || dt)
			recorder_add_lost(r, now, (uint32_t)cpu, dl, dt);
		dropped += s->now[cpu].dropped;
		s->stats[cpu] = s->now[cpu];
	}
	recorder_set_dropped(r, dropped);
}

static int mod_drain(struct mod_session *s, struct recorder *r)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (int cpu = 0; cpu < s->ncpus; cpu++) {
		struct memtrace_ring_header *h =
			(void *)(s->map + (size_t)cpu * s->ring_bytes);
		const struct memtrace_sample *rec =
			(const void *)((const unsigned char *)h + pg);
		uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);
		uint32_t mask = s->ring_records - 1;

		while (tail != head) {
			/* the contiguous run up to the ring's end */
			uint64_t i = tail & mask;
			uint64_t n = head - tail;

			if (n > s->ring_records - i)
				n = s->ring_records - i;
			if (s->acc ? accessed_add(s->acc, r, rec + i, (size_t)n) :
			    s->hint ? mod_add_faults(s, r, rec + i, (size_t)n) :
				      recorder_add_samples(r, rec + i, (size_t)n))
				return -1;
			tail += n;
		}
		struct memtrace_consume c = { .cpu = (uint32_t)cpu, .tail = head };
		if (head != __atomic_load_n(&h->tail, __ATOMIC_RELAXED) &&
		    ioctl(s->fd, MEMTRACE_IOC_CONSUME, &c)) {
			mt_errno("MEMTRACE_IOC_CONSUME");
			return -1;
		}
	}
	return 0;
}

static int mod_ended(const struct mod_session *s)
{
	const struct memtrace_ring_header *h = (const void *)s->map;

	return (__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & MEMTRACE_RING_ENDED) != 0;
}

/* The -p list (pids[0] is the config's pid; the module drops duplicates). */
static const pid_t *mod_pids(const struct record_opts *o, pid_t target, int *n)
{
	if (o->argv || !o->npids || !o->pids) {
		static pid_t one;

		one = target;
		*n = 1;
		return &one;
	}
	*n = o->npids;
	return o->pids;
}

/* kernel.perf_event_paranoid, or 2 (perf's default) if unreadable */
static long paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	long v = 2;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

/* CONFIGURE refused the page-fault tracepoint: 1 if said why. */
static int mod_hint_error(int err, const struct record_opts *o)
{
	if (err == EINVAL && !o->ring_records && !(o->kernel_addrs && !o->system_wide))
		mt_err("this memtrace.ko has no hint-faults source (CONFIGURE refused "
		       "MEMTRACE_CFG_PAGE_FAULT_TP): load the module of this build, or use --backend perf");
	else if (err == EACCES && !o->system_wide && geteuid() != 0 && paranoid() > -1)
		mt_err("hint-faults through the module read raw tracepoint records: needs CAP_PERFMON "
		       "or kernel.perf_event_paranoid -1, as perf does (it is %ld)", paranoid());
	else
		return 0;
	return 1;
}

static int mod_setup(struct mod_session *s, const struct record_opts *o,
		     const struct mem_event *ev, uint64_t period, pid_t target)
{
	struct memtrace_config c = { 0 };
	int npids = 0;
	const pid_t *pids = o->system_wide ? NULL : mod_pids(o, target, &npids);
	struct memtrace_stats st = { .size = sizeof(st) };
	long pg = sysconf(_SC_PAGESIZE);

	c.size = sizeof(c);
	c.version = MEMTRACE_ABI_VERSION;
	c.flags = (o->system_wide ? MEMTRACE_CFG_SYSTEM_WIDE : 0) |
		  (o->kernel_addrs ? MEMTRACE_CFG_KERNEL_ADDRS : 0) |
		  (!o->system_wide && !o->no_children ? MEMTRACE_CFG_DESCENDANTS : 0) |
		  (ev->hint_faults ? MEMTRACE_CFG_PAGE_FAULT_TP : 0);
	c.pid = pids ? pids[0] : 0;
	if (npids > 1) {
		c.pids = (uintptr_t)(pids + 1);
		c.nr_pids = (uint32_t)(npids - 1);
	}
	c.event_type = ev->attr.type;
	c.event_config = ev->attr.config;
	c.event_config1 = ev->attr.config1;
	c.event_config2 = ev->attr.config2;
	c.precise_ip = ev->attr.precise_ip;
	c.fields = MEMTRACE_FIELD_IP | (ev->fields & MEMTRACE_FIELDS_ALL);
	c.sample_period = period;
	if (s->acc) {	/* no event: the pass period in ms, the flush */
		c.flags |= MEMTRACE_CFG_ACCESSED |
			   (s->acc->flush ? 0 : MEMTRACE_CFG_ACCESSED_NO_FLUSH);
		c.event_type = 0;
		c.event_config = c.event_config1 = c.event_config2 = 0;
		c.precise_ip = 0;
		c.fields = 0;
		c.sample_period = s->acc->pass_ms;
	}
	c.ring_records = o->ring_records ? o->ring_records : mod_fit_ring(MOD_DEF_RING);
	if (ioctl(s->fd, MEMTRACE_IOC_CONFIGURE, &c)) {
		if (!ev->hint_faults || !mod_hint_error(errno, o))
			mod_configure_error(errno, o, npids, target, c.ring_records);
		return -1;
	}
	if (ioctl(s->fd, MEMTRACE_IOC_STATS, &st)) {
		mt_errno("MEMTRACE_IOC_STATS");
		return -1;
	}
	s->ncpus = (int)st.nr_cpus;
	s->ring_records = c.ring_records;
	s->ring_bytes = ((size_t)pg + (size_t)c.ring_records * sizeof(struct memtrace_sample) +
			 (size_t)pg - 1) / (size_t)pg * (size_t)pg;
	s->map_bytes = s->ring_bytes * (size_t)s->ncpus;
	s->map = mmap(NULL, s->map_bytes, PROT_READ, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		mt_errno("mmap of the module rings (%zu bytes)", s->map_bytes);
		return -1;
	}
	s->stats = mt_xcalloc((size_t)s->ncpus, sizeof(*s->stats));
	s->now = mt_xcalloc((size_t)s->ncpus, sizeof(*s->now));
	return 0;
}

/* How samples reach the rings: the module sets it in every ring header at START. */
static void mod_meta_mode(struct recorder *r, const struct mod_session *s)
{
	const struct memtrace_ring_header *h = (const void *)s->map;
	uint32_t mode = __atomic_load_n(&h->mode, __ATOMIC_RELAXED);
	uint32_t flags = __atomic_load_n(&h->mode_flags, __ATOMIC_RELAXED);

	recorder_meta(r, "mode", "%s",
		      mode == MEMTRACE_MODE_ACCESSED	  ? "accessed"
		      : mode == MEMTRACE_MODE_PEBS_HOOK	  ? "pebs-hook"
		      : mode == MEMTRACE_MODE_FAULT_PROBE ? "fault-probe"
							  : "perf-overflow");
	recorder_meta(r, "large_pebs", "%d", (flags & MEMTRACE_MODE_F_LARGE_PEBS) ? 1 : 0);
}

/* The one line saying what -p attached to (the module counted it at START). */
static void mod_report_targets(struct mod_session *s)
{
	struct memtrace_targets t = { .size = sizeof(t) };

	if (ioctl(s->fd, MEMTRACE_IOC_TARGETS, &t)) {
		mt_errno("MEMTRACE_IOC_TARGETS");
		return;
	}
	fprintf(stderr, "memtracectl: attached to %u process%s, %u thread%s", t.processes,
		t.processes == 1 ? "" : "es", t.threads, t.threads == 1 ? "" : "s");
	if (t.denied)
		fprintf(stderr, " (%u descendant process%s skipped: no ptrace read access)",
			t.denied, t.denied == 1 ? "" : "es");
	fputc('\n', stderr);
}

struct mod_state {
	struct mod_session s;
	const struct record_opts *o;
	struct recorder *r;
	pid_t child, target;
	int release_fd;
	int child_reaped;
};

static void mod_free(struct mod_state *m, int failed)
{
	if (failed && m->child > 0 && m->release_fd >= 0)
		kill(m->child, SIGKILL);
	if (m->release_fd >= 0)
		close(m->release_fd);
	if (m->s.map)
		munmap(m->s.map, m->s.map_bytes);
	free(m->s.stats);
	free(m->s.now);
	if (m->s.hint)	/* every exit path puts NUMA balancing back */
		hint_close(m->s.hint, false);
	free(m->s.hint);
	accessed_free(m->s.acc);
	if (m->s.fd >= 0)
		close(m->s.fd);
	free(m);
}

/* Session configured and started, the target waiting for release. */
static int mod_start(struct mod_state *m, const struct record_opts *o)
{
	struct mem_event ev;
	char why[512];
	int fell_back = 0;

	if (accessed_is_event(o->event)) {
		m->s.acc = mt_xcalloc(1, sizeof(*m->s.acc));
		m->s.acc->pass_ms = o->scan_period_ms ? (uint64_t)o->scan_period_ms
						      : ACCESSED_DEF_PASS_MS;
		m->s.acc->flush = !o->no_tlb_flush;
		if (m->s.acc->pass_ms < MEMTRACE_SCAN_MIN_MS) {
			mt_err("-e accessed: --scan-period must be at least %llums",
			       (unsigned long long)MEMTRACE_SCAN_MIN_MS);
			return -1;
		}
		if (o->period) {
			mt_err("-e accessed records every page found accessed: no -c; the pass "
			       "period is --scan-period");
			return -1;
		}
		accessed_event(&ev);
	} else if (mem_event_resolve(o->event, &ev, &fell_back, why, sizeof(why))) {
		mt_err("%s", why);
		return -1;
	}
	if (fell_back)
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults, which see first touches and re-faults only\n");
	/* accessed bits: every page found accessed is a sample (period 1); the
	 * pass period goes to CONFIGURE and the trace's pass_period_ms */
	uint64_t period = m->s.acc ? 1 : mem_event_period(&ev, o->period);

	if (ev.hint_faults) {	/* before the command runs: NUMA balancing, seen pages */
		m->s.hint = mt_xcalloc(1, sizeof(*m->s.hint));
		if (hint_open(m->s.hint, o))
			return -1;
	} else {
		nb_check_stale(stderr, NULL);
	}

	m->s.fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (m->s.fd < 0) {
		mt_err("%s: %s", MEMTRACE_DEVICE_PATH, mod_open_error(errno));
		return -1;
	}
	if (o->argv) {
		m->child = target_spawn(o->argv, &m->release_fd);
		if (m->child < 0)
			return -1;
		m->target = m->child;
		/* the counters attach before exec: the exec's own faults show */
	} else if (!o->system_wide) {
		int n;
		const pid_t *pids = mod_pids(o, o->pid, &n);

		for (int i = 0; i < n; i++)
			if (target_check(pids[i]))
				return -1;
	}
	if (mod_setup(&m->s, o, &ev, period, m->target))
		return -1;
	if (ioctl(m->s.fd, MEMTRACE_IOC_START)) {
		char buf[512];

		if (!mod_start_error(errno, o)) {
			mem_event_open_error(&ev, errno, buf, sizeof(buf));
			mt_err("module could not start the event: %s", buf);
		}
		return -1;
	}
	event_meta(m->r, "module", o, &ev, period, m->target);
	mod_meta_mode(m->r, &m->s);
	if (m->s.hint)
		hint_meta(m->s.hint, m->r);
	if (m->s.acc)
		accessed_meta(m->s.acc, m->r);
	if (!o->argv && !o->system_wide)
		mod_report_targets(&m->s);
	return 0;
}

static void *mod_open(const struct record_opts *o, struct recorder *r)
{
	struct mod_state *m = mt_xcalloc(1, sizeof(*m));
	uint64_t start = 0;

	m->s.fd = m->release_fd = -1;
	m->child = -1;
	m->target = o->pid;
	m->o = o;
	m->r = r;
	if (o->random_period) {
		mt_err("--random-period is for the valgrind backend and import; the module uses a fixed period");
		goto fail;
	}
	if (o->cgroup) {
		mt_err("--cgroup needs --backend perf");
		goto fail;
	}
	start = mt_now_ns();	/* before the session runs: no sample before the start */
	if (mod_start(m, o) || event_begin(r, o, m->target, &start))
		goto fail;
	if (m->child > 0 && event_release(r, &m->release_fd, m->child, start))
		goto fail;
	return m;
fail:
	mod_free(m, 1);
	return NULL;
}

static int mod_fds(void *state, struct pollfd *p, int max)
{
	struct mod_state *m = state;

	if (max >= 1)
		p[0] = (struct pollfd){ .fd = m->s.fd, .events = POLLIN };
	return 1;
}

static int mod_drain_step(void *state, struct recorder *r, const struct pollfd *p, int n,
			  struct source_step *step)
{
	struct mod_state *m = state;

	(void)p;
	(void)n;
	step->ended = mod_ended(&m->s);	/* before the drain: see all */
	if (mod_drain(&m->s, r))
		return -1;
	mod_account(&m->s, r, step->wall);
	if (m->s.hint)
		hint_passes(m->s.hint, r, step->wall);
	step->now = step->wall;
	step->tick = true;
	return 0;
}

/*
 * The module ends the session (MEMTRACE_RING_ENDED) once no task carrying
 * its counters is left: the listed processes, their descendants and all
 * they forked.  Here only the spawned command is reaped once it exits.
 */
static int mod_target_gone(void *state, uint64_t wall)
{
	struct mod_state *m = state;

	(void)wall;
	if (m->child > 0 && !m->child_reaped &&
	    target_exited(m->child, -1, true))
		m->child_reaped = 1;
	return 0;
}

static int mod_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct mod_state *m = state;

	if (failed) {	/* a failed write ends the command as a stop does */
		if (m->child > 0 && !m->child_reaped)
			target_stop_child(m->child);
		return -1;
	}
	ioctl(m->s.fd, MEMTRACE_IOC_STOP);
	if (mod_drain(&m->s, r))
		return -1;
	mod_account(&m->s, r, mt_now_ns());
	if (m->s.hint)
		hint_close(m->s.hint, true);
	if (m->s.acc)
		accessed_summary(m->s.acc);
	if (m->child > 0 && !m->child_reaped && strcmp(*reason, "target-exited"))
		target_stop_child(m->child);
	return 0;
}

static int mod_close(void *state, int rc)
{
	mod_free(state, rc != 0);
	return rc;
}

static int read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), MOD_PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void mod_status(FILE *out)
{
	char mode[64], sessions[32], why[256];
	struct stat st;

	if (stat("/sys/module/memtrace", &st)) {
		fprintf(out, "  module: unavailable - memtrace.ko is not loaded "
			"(modprobe memtrace, or build it: make module)\n");
		return;
	}
	if (read_param("mode", mode, sizeof(mode)))
		snprintf(mode, sizeof(mode), "unknown");
	if (read_param("sessions", sessions, sizeof(sessions)))
		snprintf(sessions, sizeof(sessions), "?");
	fprintf(out, "  module: loaded, mode %s (%s), %s open session(s)\n", mode,
		!strcmp(mode, "perf-overflow") ?
		"stock perf: one interrupt per record, large PEBS off" :
		!strcmp(mode, "pebs-hook") ?
		"patched kernel's PEBS sink for PEBS events, large PEBS on; software events: perf-overflow" :
		"see docs/kernel-module.md", sessions);
	if (mod_probe(NULL, why, sizeof(why))) {
		fprintf(out, "  module: unavailable - %s\n", why);
		return;
	}
	fprintf(out, "  module: available (%s)\n", MEMTRACE_DEVICE_PATH);
	struct record_opts hint = { .event = "hint-faults" };
	if (mod_probe(&hint, why, sizeof(why)))
		fprintf(out, "  module: hint-faults: unavailable - %s\n", why);
	else
		fprintf(out, "  module: hint-faults: available (exceptions:page_fault_user, the module's "
			"probe on it or its perf counter; -e hint-faults, root)\n");
	struct record_opts acc = { .event = ACCESSED_EVENT };
	if (mod_probe(&acc, why, sizeof(why)))
		fprintf(out, "  module: accessed bits: unavailable - %s\n", why);
	else
		fprintf(out, "  module: accessed bits: available (-e accessed: the targets' page tables "
			"scanned every pass, every mapping kind, no PMU needed)\n");
}

const struct source_ops source_module = {
	.name = "module",
	.end_reason = "target-exited",
	.caps = { .own_event = "accessed" },	/* the accessed-bit scan */
	.probe = mod_probe,
	.status = mod_status,
	.open = mod_open,
	.fds = mod_fds,
	.drain = mod_drain_step,
	.target_gone = mod_target_gone,
	.finish = mod_finish,
	.close = mod_close,
};
