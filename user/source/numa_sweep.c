/* numa_sweep.c - NUMA scan sweep starts from sched:sched_skip_vma_numa
 * (numa_sweep.h). */
#include "source/numa_sweep.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source/kernel_fs.h"
#include "source/perf_ring.h"
#include "util/util.h"

#define SWEEP_TRACEPOINT	"sched/sched_skip_vma_numa"
#define SWEEP_RING_PAGES	8	/* 32 KiB per CPU: starts and skips only (the filter) */
#define SWEEP_FILTER		"numa_scan_offset == 0"
#define SKIP_FILTER		"numa_scan_offset == 0 || reason == 3 || reason == 4"
/* the record's fields (the format file, Linux 6.7 to 6.18) */
#define RAW_OFFSET_FIELD	8	/* unsigned long numa_scan_offset */
#define RAW_VM_START		16	/* unsigned long vm_start */
#define RAW_VM_END		24	/* unsigned long vm_end */
#define RAW_REASON		32	/* enum numa_vmaskip_reason reason (4 bytes) */

/* The format file names the fields this reads at these offsets. */
static bool format_has_fields(void)
{
	static const char *const want[] = {
		"unsigned long numa_scan_offset;\toffset:8;\tsize:8;",
		"unsigned long vm_start;\toffset:16;\tsize:8;",
		"unsigned long vm_end;\toffset:24;\tsize:8;",
		"enum numa_vmaskip_reason reason;\toffset:32;\tsize:4;",
	};
	char buf[4096];

	if (kfs_read("tracefs", "events/" SWEEP_TRACEPOINT "/format", buf, sizeof(buf)))
		return false;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i]))
			return false;
	return true;
}

int numa_sweep_open(struct numa_sweep *s, char *why, size_t whylen)
{
	char buf[64];
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	memset(s, 0, sizeof(*s));
	if (kfs_read("tracefs", "events/" SWEEP_TRACEPOINT "/id", buf, sizeof(buf))) {
		snprintf(why, whylen, "no %s tracepoint (Linux 6.7+): %s", SWEEP_TRACEPOINT,
			 strerror(errno));
		return -1;
	}
	uint64_t id = strtoull(buf, NULL, 10);
	if (ncpus < 1)
		ncpus = 1;
	s->ncpus = (int)ncpus;
	s->skips = format_has_fields();
	s->fds = mt_xmalloc((size_t)ncpus * sizeof(*s->fds));
	s->rings = mt_xcalloc((size_t)ncpus, sizeof(*s->rings));
	for (int i = 0; i < s->ncpus; i++)
		s->fds[i] = -1;
	int opened = 0;
	for (int i = 0; i < s->ncpus; i++) {
		struct perf_event_attr a = { 0 };
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = id;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, i, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV)	/* an offline CPU */
				continue;
			snprintf(why, whylen, "perf_event_open(%s): %s", SWEEP_TRACEPOINT,
				 strerror(errno));
			numa_sweep_close(s);
			return -1;
		}
		s->fds[i] = fd;
		/* only the steps that begin a sweep reach the ring */
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, s->skips ? SKIP_FILTER : SWEEP_FILTER) ||
		    perf_ring_map(&s->rings[i], fd, SWEEP_RING_PAGES)) {
			snprintf(why, whylen, "%s: %s", SWEEP_TRACEPOINT, strerror(errno));
			numa_sweep_close(s);
			return -1;
		}
		opened++;
	}
	if (!opened) {
		snprintf(why, whylen, "%s: no CPU online", SWEEP_TRACEPOINT);
		numa_sweep_close(s);
		return -1;
	}
	s->open = true;
	return 0;
}

struct drain_ctx {
	struct numa_sweep *s;
	void (*fn)(void *ctx, const struct numa_sweep_event *ev);
	void *ctx;
};

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct drain_ctx *d = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	const unsigned char *end = (const unsigned char *)h + h->size;

	if (h->type == PERF_RECORD_LOST) {
		uint64_t n;
		if (end - p >= 16) {
			memcpy(&n, p + 8, 8);
			d->s->lost += n;
		}
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || end - p < 8 + 8 + 4)
		return;
	uint32_t pid, rawlen;
	uint64_t time, off;
	memcpy(&pid, p, 4);		/* PERF_SAMPLE_TID: pid (the tgid), tid */
	memcpy(&time, p + 8, 8);	/* PERF_SAMPLE_TIME */
	memcpy(&rawlen, p + 16, 4);	/* PERF_SAMPLE_RAW: size, then the record */
	if (rawlen < RAW_OFFSET_FIELD + 8 || (size_t)(end - (p + 20)) < rawlen)
		return;
	memcpy(&off, p + 20 + RAW_OFFSET_FIELD, 8);
	struct numa_sweep_event ev = { .time = time, .pid = (pid_t)pid, .offset = off };
	if (d->s->skips && rawlen >= RAW_REASON + 4) {
		memcpy(&ev.vm_start, p + 20 + RAW_VM_START, 8);
		memcpy(&ev.vm_end, p + 20 + RAW_VM_END, 8);
		memcpy(&ev.reason, p + 20 + RAW_REASON, 4);
	}
	/* what the filter let through (a kernel without filters passes all;
	 * without s->skips the reason stays 0, so only starts pass) */
	if (off && ev.reason != NUMA_SKIP_SCAN_DELAY && ev.reason != NUMA_SKIP_PID_INACTIVE)
		return;
	d->s->events++;
	d->fn(d->ctx, &ev);
}

void numa_sweep_drain(struct numa_sweep *s,
		      void (*fn)(void *ctx, const struct numa_sweep_event *ev), void *ctx)
{
	struct drain_ctx d = { s, fn, ctx };

	for (int i = 0; s->open && i < s->ncpus; i++)
		if (s->fds[i] >= 0)
			perf_ring_drain(&s->rings[i], on_record, &d);
}

void numa_sweep_close(struct numa_sweep *s)
{
	for (int i = 0; s->fds && i < s->ncpus; i++) {
		perf_ring_unmap(&s->rings[i]);
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	}
	free(s->fds);
	free(s->rings);
	s->fds = NULL;
	s->rings = NULL;
	s->open = false;
}
