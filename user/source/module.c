/* backend_module.c - samples through memtrace.ko (/dev/memtrace).
 *
 * The module keeps one ring of struct memtrace_sample per CPU, fed by an
 * in-kernel perf counter's overflow handler.  This backend configures a
 * session with the event resolved like the perf backend does, maps the
 * rings read-only, drains them (each ring is time-ordered) into the
 * recorder and hands the tail back with MEMTRACE_IOC_CONSUME.  The module
 * follows the target's threads and children itself and marks the rings
 * MEMTRACE_RING_ENDED (poll: POLLHUP) once the target has exited.
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

#include "source/source.h"
#include "source/event_meta.h"
#include "source/perf_event.h"
#include "record/recorder.h"
#include "source/target.h"
#include "util/util.h"

#define MOD_POLL_MS	100
#define MOD_DEF_RING	(1U << 16)	/* records per CPU: 3 MiB */
#define MOD_PARAMS	"/sys/module/memtrace/parameters/"

struct mod_session {
	int fd;
	int ncpus;
	uint32_t ring_records;
	size_t ring_bytes;
	unsigned char *map;
	size_t map_bytes;
	struct memtrace_cpu_stats *stats;	/* last seen, per CPU */
	struct memtrace_cpu_stats *now;
};

static const char *mod_open_error(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "memtrace.ko is not loaded (modprobe memtrace, or build it: make module)";
	case EPERM:
	case EACCES:
		return "opening /dev/memtrace needs CAP_PERFMON or CAP_SYS_ADMIN";
	default:
		return strerror(err);
	}
}

static int mod_probe(const struct record_opts *o, char *why, size_t whylen)
{
	struct mem_event ev;
	int fd;

	if (o && o->random_period) {
		snprintf(why, whylen, "--random-period is for the valgrind backend and import");
		return -1;
	}
	fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", MEMTRACE_DEVICE_PATH, mod_open_error(errno));
		return -1;
	}
	close(fd);
	if (o && mem_event_resolve(o->event ? o->event : "auto", &ev, NULL, why, whylen))
		return -1;
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
			if (recorder_add_samples(r, rec + i, (size_t)n))
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

static int mod_setup(struct mod_session *s, const struct record_opts *o,
		     const struct mem_event *ev, uint64_t period, pid_t target)
{
	struct memtrace_config c = { 0 };
	struct memtrace_stats st = { .size = sizeof(st) };
	long pg = sysconf(_SC_PAGESIZE);

	c.size = sizeof(c);
	c.version = MEMTRACE_ABI_VERSION;
	c.flags = (o->system_wide ? MEMTRACE_CFG_SYSTEM_WIDE : 0) |
		  (o->kernel_addrs ? MEMTRACE_CFG_KERNEL_ADDRS : 0);
	c.pid = o->system_wide ? 0 : target;
	c.event_type = ev->attr.type;
	c.event_config = ev->attr.config;
	c.event_config1 = ev->attr.config1;
	c.event_config2 = ev->attr.config2;
	c.precise_ip = ev->attr.precise_ip;
	c.fields = MEMTRACE_FIELD_IP | (ev->fields & MEMTRACE_FIELDS_ALL);
	c.sample_period = period;
	c.ring_records = o->ring_records ? o->ring_records : MOD_DEF_RING;
	if (ioctl(s->fd, MEMTRACE_IOC_CONFIGURE, &c)) {
		int e = errno;

		if (e == EACCES)
			mt_err("may not trace pid %d (needs ptrace read access: same user, or CAP_SYS_PTRACE)",
			       (int)target);
		else if (e == ESRCH)
			mt_err("no process with pid %d", (int)target);
		else if (e == EINVAL && o->ring_records)
			mt_err("module refused the configuration: --ring must be a power of two in [%u, %u]",
			       MEMTRACE_RING_MIN_RECORDS, MEMTRACE_RING_MAX_RECORDS);
		else
			mt_err("module refused the configuration: %s", strerror(e));
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

	recorder_meta(r, "mode", "%s", mode == MEMTRACE_MODE_PEBS_HOOK ? "pebs-hook" : "perf-overflow");
	recorder_meta(r, "large_pebs", "%d", (flags & MEMTRACE_MODE_F_LARGE_PEBS) ? 1 : 0);
}

static int mod_record(const struct record_opts *o, struct recorder *r)
{
	struct mod_session s = { .fd = -1 };
	struct mem_event ev;
	char why[512];
	int fell_back = 0, rc = -1, release_fd = -1, watch = -1;
	pid_t child = -1, target = o->pid;
	const char *reason = "target-exited";
	uint64_t exited_at = 0;

	if (o->random_period) {
		mt_err("--random-period is for the valgrind backend and import; the module uses a fixed period");
		return -1;
	}
	if (mem_event_resolve(o->event, &ev, &fell_back, why, sizeof(why))) {
		mt_err("%s", why);
		return -1;
	}
	if (fell_back)
		fprintf(stderr, "memtracectl: no hardware memory sampling here (no PEBS/IBS PMU): "
			"recording page faults, which see first touches and re-faults only\n");
	uint64_t period = o->period ? o->period : ev.default_period;

	s.fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (s.fd < 0) {
		mt_err("%s: %s", MEMTRACE_DEVICE_PATH, mod_open_error(errno));
		return -1;
	}
	if (o->argv) {
		child = target_spawn(o->argv, &release_fd);
		if (child < 0)
			goto out;
		target = child;
		/* the counters attach before exec: the exec's own faults show */
	} else if (!o->system_wide) {
		if (target_check(o->pid))
			goto out;
		watch = target_watch(o->pid);
	}
	if (mod_setup(&s, o, &ev, period, target))
		goto out;
	if (ioctl(s.fd, MEMTRACE_IOC_START)) {
		char buf[512];

		mem_event_open_error(&ev, errno, buf, sizeof(buf));
		mt_err("module could not start the event: %s", buf);
		goto out;
	}
	event_meta(r, "module", o, &ev, period, target);
	mod_meta_mode(r, &s);

	uint64_t start;
	if (event_begin(r, o, target, &start))
		goto out;
	if (child > 0) {
		int e = target_release(release_fd);

		release_fd = -1;
		if (e) {
			recorder_end(r, "exec-failed");
			goto out;
		}
	}

	for (;;) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };

		poll(&p, 1, MOD_POLL_MS);
		uint64_t now = mt_now_ns();
		int ended = mod_ended(&s);	/* before the drain: see all */

		if (mod_drain(&s, r))
			goto out;
		mod_account(&s, r, now);
		if (recorder_tick(r, now))
			goto out;
		if (ended)
			break;
		if (recorder_stop_requested(r, now)) {
			reason = o->duration > 0 && now >= start + (uint64_t)(o->duration * 1e9) ?
					 "duration" : "signal";
			break;
		}
		/* the module marks the end within 20 ms of the exit; do not
		 * wait for it forever */
		if (!o->system_wide && target_exited(target, watch, child > 0)) {
			if (!exited_at)
				exited_at = now;
			else if (now - exited_at > 2000000000ull)
				break;
		}
	}
	ioctl(s.fd, MEMTRACE_IOC_STOP);
	if (mod_drain(&s, r))
		goto out;
	mod_account(&s, r, mt_now_ns());
	if (child > 0 && strcmp(reason, "target-exited"))
		kill(child, SIGTERM);
	rc = recorder_end(r, reason);
out:
	if (rc && child > 0 && release_fd >= 0)
		kill(child, SIGKILL);
	if (release_fd >= 0)
		close(release_fd);
	if (watch >= 0)
		close(watch);
	if (s.map)
		munmap(s.map, s.map_bytes);
	free(s.stats);
	free(s.now);
	close(s.fd);
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
	if (mod_probe(NULL, why, sizeof(why)))
		fprintf(out, "  module: unavailable - %s\n", why);
	else
		fprintf(out, "  module: available (%s)\n", MEMTRACE_DEVICE_PATH);
}

const struct backend backend_module = {
	.name = "module",
	.probe = mod_probe,
	.record = mod_record,
	.status = mod_status,
};
