/* damon.c - the damon source (`-e damon`): a kdamond of DAMON's sysfs
 * interface monitors the target processes' address spaces (damon_sysfs.c),
 * and every region it aggregates reaches the collector through the
 * damon:damon_aggregated tracepoint, a perf event on the kdamond thread
 * with raw samples.  Each aggregation becomes REGIONS rows: start, end,
 * nr_accesses and age of every region of every target, stamped with the
 * time of the aggregation's first region.  There are no samples.
 *
 * Why the tracepoint and not sysfs tried_regions snapshots: the tracepoint
 * hands over every region of every aggregation as kdamond resets it, with
 * the kernel's time, at the cost of one perf record per region; a snapshot
 * needs a DAMOS scheme installed, a command written to the kdamond's state
 * file per aggregation (it completes after the next aggregation) and a
 * walk of one sysfs directory with four files per region, and it sees the
 * regions at the time of the command, not as they were aggregated.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/recorder.h"
#include "source/damon/damon_status.h"
#include "source/damon/damon_sysfs.h"
#include "source/damon/damon_tune.h"
#include "source/kernel_fs.h"
#include "source/mem_event.h"
#include "source/perf_ring.h"
#include "source/source.h"
#include "source/target.h"
#include "trace/format.h"
#include "trace/writer.h"
#include "util/util.h"

#define RING_PAGES	512	/* 2 MiB: ~29,000 regions of ~72-byte records */

/* damon_aggregated's fields, offsets into the raw record (from tracefs) */
struct tp_fields {
	int target_id, start, end, nr_accesses, age;
	int target_id_size, start_size;
};

struct damon_session {
	const struct record_opts *o;
	struct recorder *r;
	struct damon_attrs attrs;
	struct damon_kdamond kd;
	struct tp_fields tp;
	struct perf_ring ring;
	int fd;
	pid_t *pids;		/* the kdamond's targets, in its order: -p's, then descendants */
	int npids;
	int nwatch;		/* watch[]: one per -p process */
	int *watch;		/* -p: pidfds */
	pid_t child;		/* -- CMD */
	int release_fd;
	struct bytebuf rows;	/* REGIONS rows of this drain */
	uint32_t nrows;
	uint64_t agg_time;	/* time of the current aggregation's first region */
	uint64_t aggregations, total_rows, lost, bad_records;
	uint64_t wss_last;	/* bytes of the last aggregation's accessed regions */
	uint64_t wss_now;
	uint64_t maps_at;	/* wall time of the last maps check */
	struct damon_tune tune;	/* the kdamond's CPU budget */
};

/* "field:unsigned long start;	offset:16;	size:8;	signed:0;" */
static int field_offset(const char *fmt, const char *name, int *size)
{
	char key[64];

	snprintf(key, sizeof(key), " %s;", name);
	const char *p = strstr(fmt, key);
	if (!p)
		return -1;
	const char *o = strstr(p, "offset:"), *s = strstr(p, "size:");
	if (!o || !s)
		return -1;
	if (size)
		*size = atoi(s + 5);
	return atoi(o + 7);
}

static int read_tracepoint(struct tp_fields *f, uint64_t *id, char *why, size_t whylen)
{
	char fmt[4096], buf[32];
	int sz;

	if (kfs_read("tracefs", "events/" DAMON_TRACEPOINT "/id", buf, sizeof(buf)) ||
	    kfs_read("tracefs", "events/" DAMON_TRACEPOINT "/format", fmt, sizeof(fmt))) {
		snprintf(why, whylen, "tracepoint %s: %s", DAMON_TRACEPOINT, strerror(errno));
		return -1;
	}
	*id = strtoull(buf, NULL, 10);
	f->target_id = field_offset(fmt, "target_id", &f->target_id_size);
	f->start = field_offset(fmt, "start", &f->start_size);
	f->end = field_offset(fmt, "end", NULL);
	f->nr_accesses = field_offset(fmt, "nr_accesses", NULL);
	f->age = field_offset(fmt, "age", &sz);
	if (f->target_id < 0 || f->start < 0 || f->end < 0 || f->nr_accesses < 0 || f->age < 0 ||
	    f->start_size != 8) {
		snprintf(why, whylen, "tracepoint %s: unexpected fields in its format", DAMON_TRACEPOINT);
		return -1;
	}
	return 0;
}

static int damon_probe(const struct record_opts *o, char *why, size_t whylen)
{
	if (strcmp(o->event, "damon")) {
		if (strcmp(o->event, "auto")) {
			snprintf(why, whylen, "the damon backend records -e damon only");
			return -1;
		}
		/* -e auto: PMU memory events, then hint faults, come first */
		struct mem_event ev;
		char ignore[512];
		if (!mem_event_resolve("loads", &ev, NULL, ignore, sizeof(ignore))) {
			snprintf(why, whylen, "-e auto picks the PMU's memory events before DAMON");
			return -1;
		}
		if (!mem_event_hint_unavailable(ignore, sizeof(ignore))) {
			snprintf(why, whylen, "-e auto picks hint-faults before DAMON");
			return -1;
		}
	}
	if (o->system_wide || o->cgroup || (!o->argv && o->npids <= 0)) {
		snprintf(why, whylen, "-e damon monitors processes: give -p PID[,PID...] or -- CMD "
			 "(not -a or --cgroup)");
		return -1;
	}
	if (damon_vaddr_usable(why, whylen)) {
		if (!strcmp(o->event, "damon")) {
			char tmp[512];
			snprintf(tmp, sizeof(tmp), "-e damon: %s", why);
			snprintf(why, whylen, "%s", tmp);
		}
		return -1;
	}
	return 0;
}

/* --damon-budget PCT; default 2 % unless --damon-intervals fixed them */
static double damon_budget(const struct record_opts *o)
{
	if (o->damon_budget_pct >= 0)
		return o->damon_budget_pct / 100.0;
	return o->damon_sample_us ? 0 : 0.02;
}

static void attrs_from_opts(struct damon_attrs *a, const struct record_opts *o)
{
	*a = (struct damon_attrs)DAMON_ATTRS_DEFAULT;
	if (o->damon_sample_us)
		a->sample_us = o->damon_sample_us;
	if (o->damon_aggr_us)
		a->aggr_us = a->update_us = o->damon_aggr_us;
	if (o->damon_min_regions)
		a->min_regions = o->damon_min_regions;
	if (o->damon_max_regions)
		a->max_regions = o->damon_max_regions;
}

static int open_event(struct damon_session *s, uint64_t id, char *why, size_t whylen)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = RING_PAGES * 4096 / 4;
	s->fd = (int)syscall(SYS_perf_event_open, &a, s->kd.pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->fd < 0) {
		snprintf(why, whylen, "perf_event_open(%s on kdamond %d): %s", DAMON_TRACEPOINT,
			 (int)s->kd.pid, strerror(errno));
		return -1;
	}
	if (perf_ring_map(&s->ring, s->fd, RING_PAGES)) {
		snprintf(why, whylen, "mmap of the %s ring: %s", DAMON_TRACEPOINT, strerror(errno));
		return -1;
	}
	return 0;
}

static void damon_meta(struct damon_session *s)
{
	struct recorder *r = s->r;
	char list[1024] = "", comm[64] = "";
	size_t pos = 0;

	for (int i = 0; i < s->npids && pos < sizeof(list) - 16; i++)
		pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%d", i ? "," : "",
					(int)s->pids[i]);
	if (s->o->argv) {
		const char *base = strrchr(s->o->argv[0], '/');
		snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : s->o->argv[0]);
	} else
		target_comm(s->pids[0], s->pids[0], comm, sizeof(comm));
	recorder_meta(r, "backend", "damon");
	recorder_meta(r, "source", "damon");
	recorder_meta(r, "event", "damon");
	recorder_meta(r, "event_encoding", "%s tracepoint, vaddr kdamond through %s",
		      DAMON_TRACEPOINT, DAMON_ADMIN);
	recorder_meta(r, "sees", "DAMON regions of the targets' address spaces with their access "
		      "frequency (region-level: one random page per region checked per sample "
		      "interval), no samples");
	recorder_meta(r, "sample_class", "damon-regions");
	recorder_meta(r, "sample_period", "1");
	recorder_meta(r, "random_period", "0");
	recorder_meta(r, "clock", "monotonic");
	recorder_meta(r, "time_unit", "ns");
	recorder_meta(r, "target_pid", "%d", (int)s->pids[0]);
	recorder_meta(r, "target_comm", "%s", comm);
	recorder_meta(r, "target_pids", "%s", list);
	recorder_meta(r, "target_children", "%d", !s->o->no_children);	/* those alive at the start */
	recorder_meta(r, "fields", "%s", "");
	recorder_meta(r, "damon_sample_us", "%lu", s->attrs.sample_us);
	recorder_meta(r, "damon_aggr_us", "%lu", s->attrs.aggr_us);
	recorder_meta(r, "passes", "%u", MEMTRACE_PASS_DAMON);
	recorder_meta(r, "damon_update_us", "%lu", s->attrs.update_us);
	recorder_meta(r, "damon_min_regions", "%lu", s->attrs.min_regions);
	recorder_meta(r, "damon_max_regions", "%lu", s->attrs.max_regions);
	recorder_meta(r, "damon_max_nr_accesses", "%lu", s->attrs.aggr_us / s->attrs.sample_us);
	/* > 0: the intervals above are where they started; the passes say when
	 * each aggregation ended */
	recorder_meta(r, "damon_cpu_budget", "%g", s->tune.budget);
}

static void damon_free(struct damon_session *s)
{
	if (s->fd >= 0) {
		perf_ring_unmap(&s->ring);
		close(s->fd);
	}
	damon_kdamond_remove(&s->kd);	/* every exit path leaves DAMON as found */
	if (s->release_fd >= 0)
		close(s->release_fd);
	for (int i = 0; s->watch && i < s->nwatch; i++)
		if (s->watch[i] >= 0)
			close(s->watch[i]);
	free(s->watch);
	free(s->pids);
	bytebuf_free(&s->rows);
	free(s);
}

static int damon_targets(struct damon_session *s, const struct record_opts *o)
{
	if (o->argv) {
		s->child = target_spawn(o->argv, &s->release_fd);
		if (s->child < 0)
			return -1;
		s->npids = 1;
		s->pids = mt_xcalloc(1, sizeof(*s->pids));
		s->pids[0] = s->child;
		return 0;
	}
	s->watch = target_watch_pids(o->pids, o->npids);
	if (!s->watch)
		return -1;
	s->nwatch = s->npids = o->npids;
	s->pids = mt_xcalloc((size_t)o->npids, sizeof(*s->pids));
	memcpy(s->pids, o->pids, (size_t)o->npids * sizeof(*s->pids));
	if (o->no_children)
		return 0;
	/* -p includes descendants, as with the other sources: those alive now
	 * (a database's backends), each a target of the kdamond */
	struct target_tasks t = { 0 };
	int added = 0;
	target_tree(o->pids, o->npids, true, &t);
	for (size_t i = 0; i < t.n; i++) {
		bool have = false;
		for (int j = 0; j < s->npids && !have; j++)
			have = s->pids[j] == t.t[i].pid;
		if (have)
			continue;
		s->pids = mt_xrealloc(s->pids, (size_t)(s->npids + 1) * sizeof(*s->pids));
		s->pids[s->npids++] = t.t[i].pid;
		added++;
	}
	target_tasks_free(&t);
	fprintf(stderr, "memtracectl: damon monitors the listed processes and the %d descendant%s "
		"alive now (all their threads); processes forked later are not added\n", added,
		added == 1 ? "" : "s");
	return 0;
}

static void *damon_open(const struct record_opts *o, struct recorder *r)
{
	struct damon_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512];
	uint64_t id, start;

	s->o = o;
	s->r = r;
	s->fd = s->release_fd = -1;
	s->child = -1;
	attrs_from_opts(&s->attrs, o);
	damon_check_stale(stderr, true);
	if (read_tracepoint(&s->tp, &id, why, sizeof(why))) {
		mt_err("%s", why);
		goto fail;
	}
	if (damon_targets(s, o))
		goto fail;
	if (damon_kdamond_start(&s->kd, s->pids, s->npids, &s->attrs, why, sizeof(why)) ||
	    open_event(s, id, why, sizeof(why))) {
		mt_err("%s", why);
		goto fail_child;
	}
	damon_tune_init(&s->tune, s->kd.pid, damon_budget(o), &s->attrs, mt_now_ns());
	if (!strcmp(o->event, "auto"))
		fprintf(stderr, "memtracectl: no hardware memory sampling and no hint faults here: "
			"recording DAMON regions (region-level access frequency); -e page-faults "
			"for page faults\n");
	damon_meta(s);
	start = mt_now_ns();
	if (recorder_begin(r, start, s->pids[0]) || recorder_tick(r, start)) {
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
	damon_free(s);
	return NULL;
}

static int damon_fds(void *state, struct pollfd *p, int max)
{
	struct damon_session *s = state;

	if (max >= 1)
		p[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	return 1;
}

static uint64_t field(const unsigned char *raw, int off, int size)
{
	uint64_t v = 0;

	memcpy(&v, raw + off, size == 8 ? 8 : 4);
	return v;
}

static void on_region(struct damon_session *s, uint64_t time, const unsigned char *raw,
		      uint32_t rawlen)
{
	const struct tp_fields *f = &s->tp;

	if ((int)rawlen < f->age + 4 || (int)rawlen < f->nr_accesses + 4 ||
	    (int)rawlen < f->end + 8) {
		s->bad_records++;
		return;
	}
	uint64_t tid = field(raw, f->target_id, f->target_id_size);
	uint64_t start = field(raw, f->start, 8), end = field(raw, f->end, 8);
	uint32_t acc = (uint32_t)field(raw, f->nr_accesses, 4), age = (uint32_t)field(raw, f->age, 4);
	if (tid >= (uint64_t)s->npids || end <= start) {
		s->bad_records++;
		return;
	}
	/* a new aggregation: more than half an aggregation interval later */
	if (!s->aggregations || time > s->agg_time + s->attrs.aggr_us * 500) {
		s->aggregations++;
		s->agg_time = time;
		/* each aggregation is a pass over every target (blind windows) */
		recorder_add_pass(s->r, time, 0, MEMTRACE_PASS_DAMON);
		s->wss_last = s->wss_now;
		s->wss_now = 0;
	}
	if (acc)
		s->wss_now += end - start;
	trace_region_rec_put(&s->rows, s->agg_time, start, end, (uint32_t)s->pids[tid], acc, age);
	s->nrows++;
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct damon_session *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t len = h->size - sizeof(*h);

	if (h->type == PERF_RECORD_LOST && len >= 16) {
		uint64_t lost;
		memcpy(&lost, p + 8, 8);
		s->lost += lost;
		recorder_add_lost(s->r, s->agg_time, 0, lost, 0);
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || len < 12)
		return;
	uint64_t time;
	uint32_t rawlen;
	memcpy(&time, p, 8);
	memcpy(&rawlen, p + 8, 4);
	if (rawlen > len - 12) {
		s->bad_records++;
		return;
	}
	on_region(s, time, p + 12, rawlen);
}

static int flush_rows(struct damon_session *s)
{
	if (!s->nrows)
		return 0;
	int rc = recorder_add_regions(s->r, s->rows.data, s->rows.len, s->nrows);
	s->total_rows += s->nrows;
	s->rows.len = 0;
	s->nrows = 0;
	return rc;
}

static int damon_drain(void *state, struct recorder *r, const struct pollfd *p, int n,
		       struct source_step *step)
{
	struct damon_session *s = state;

	(void)p;
	(void)n;
	perf_ring_drain(&s->ring, on_record, s);
	/* the regions' mappings (names in reports): a snapshot is written when
	 * the maps text changed, checked once a second */
	if (step->wall - s->maps_at >= 1000000000ull) {
		s->maps_at = step->wall;
		for (int i = 0; i < s->npids; i++)
			recorder_maps_changed(r, s->pids[i]);
	}
	struct damon_attrs next = s->attrs;
	if (damon_tune_step(&s->tune, &next, step->wall)) {
		char why[256];
		if (damon_kdamond_set_intervals(&s->kd, &next, why, sizeof(why))) {
			mt_err("%s; the intervals stay as they are", why);
			s->tune.budget = 0;
		} else
			s->attrs = next;
	}
	step->now = step->wall;
	step->tick = true;
	return flush_rows(s);
}

static int damon_target_gone(void *state, uint64_t wall)
{
	struct damon_session *s = state;

	(void)wall;
	return target_all_gone(s->child, s->pids, s->watch, s->nwatch);
}

static void damon_tune_say(const struct damon_session *s)
{
	const struct damon_tune *t = &s->tune;

	if (t->share_last < 0)
		return;
	fprintf(stderr, "memtracectl: damon: kdamond took %.1f %% of a CPU at first, %.1f %% at the "
		"end (max %.1f %%); intervals %lums,%lums", 100 * t->share_first,
		100 * t->share_last, 100 * t->share_max, t->base_sample_us / 1000, t->base_aggr_us / 1000);
	if (t->raised || t->lowered)
		fprintf(stderr, " at the start, %.1fms,%.1fms at the end (%u raised, %u lowered)",
			s->attrs.sample_us / 1000.0, s->attrs.aggr_us / 1000.0, t->raised, t->lowered);
	if (t->budget > 0)
		fprintf(stderr, "; budget %g %% of a CPU (--damon-budget)\n", 100 * t->budget);
	else
		fprintf(stderr, ", fixed\n");
}

static int damon_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct damon_session *s = state;
	char b1[32];

	(void)r;
	if (s->child > 0 && (failed || strcmp(*reason, "target-exited")))
		target_stop_child(s->child);
	if (failed) {
		damon_kdamond_remove(&s->kd);
		return -1;
	}
	perf_ring_drain(&s->ring, on_record, s);
	int rc = flush_rows(s);
	damon_kdamond_remove(&s->kd);
	fprintf(stderr, "memtracectl: damon: %llu aggregations, %llu region rows, last complete "
		"aggregation's region-level WSS %s%s\n", (unsigned long long)s->aggregations,
		(unsigned long long)s->total_rows, mt_fmt_bytes(s->wss_last, b1, sizeof(b1)),
		s->lost ? " (records lost: the ring was full)" : "");
	damon_tune_say(s);
	if (s->bad_records)
		fprintf(stderr, "memtracectl: damon: %llu tracepoint records not understood\n",
			(unsigned long long)s->bad_records);
	return rc;
}

static int damon_close(void *state, int rc)
{
	damon_free(state);
	return rc;
}

const struct source_ops source_damon = {
	.name = "damon",
	.caps = { .event = "damon", .regions = true },
	.end_reason = "target-exited",
	.probe = damon_probe,
	.status = damon_status,
	.open = damon_open,
	.fds = damon_fds,
	.drain = damon_drain,
	.target_gone = damon_target_gone,
	.finish = damon_finish,
	.close = damon_close,
};
