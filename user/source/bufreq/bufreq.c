/*
 * bufreq.c - the buffers source (`-e buffer-requests`): every block a
 * PostgreSQL server's processes ask its shared buffer pool for, hit or
 * miss, from the server's own USDT probes (buffer__read__start, through
 * BPF: bufreq.bpf.c), as one sample each.  No PMU and no page table is
 * involved: the stream is the buffer manager's, in the order it was asked
 * for, so a report's miss-ratio curve (--mrc) is the pool's at any size
 * (docs/sizing.md, "Database buffer pools").
 *
 * A sample's address is the block's place in the layout of
 * bufreq_layout.h (a mapping per data-file segment, named after the file);
 * its pid is the server's (the target: the pool is the server's, shared by
 * its processes), its tid the process that asked.  buffer__read__done's
 * "found" is counted, not recorded: the END chunk's buffer_hits and
 * buffer_misses are the pool's own outcome at its size while recording.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder.h"
#include "source/bpf/bpf.h"
#include "source/bufreq/bufreq_layout.h"
#include "source/probes/probe_tgids.h"
#include "source/probes/usdt_notes.h"
#include "source/source.h"
#include "source/target.h"
#include "trace/words.h"
#include "util/pid_set.h"
#include "util/util.h"
#include "source/bufreq/bufreq.h"
#include "bufreq.skel.h"

#define PROVIDER	"postgresql"
#define START_PROBE	"buffer__read__start"
#define DONE_PROBE	"buffer__read__done"
#define EVENT		"buffer-requests"
#define COUNTS_NS	1000000000ull	/* the BPF counts (lost) read once a second */

struct bufreq_session {
	const struct record_opts *o;
	struct recorder *r;
	struct mt_bufreq_bpf *skel;
	struct ring_buffer *rb;
	char bin[PATH_MAX];		/* the server's executable */
	char datadir[PATH_MAX];		/* the postmaster's working directory, "" unknown */
	pid_t target;			/* the server: -p's first pid, or the command */
	pid_t child;			/* -- CMD */
	int release_fd;
	int *watch;
	int nwatch;
	struct bufreq_layout layout;
	struct memtrace_sample *batch;	/* this drain's requests */
	size_t nbatch, capbatch;
	struct pid_set tids;		/* processes noted (recorder_note_thread) */
	uint64_t requests, beyond;	/* recorded; past BUFREQ_MAX_SEGS segments */
	uint64_t counts[MT_BUFREQ_NCOUNTS];
	uint64_t counts_at;		/* wall time of the last read of counts[] */
	int failed;
};

/* The executable of -p's first process, or of the command (a path or found in PATH). */
static int find_server(const struct record_opts *o, char *out, size_t len, char *why,
		       size_t whylen)
{
	if (o->npids > 0) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)o->pids[0]);
		ssize_t n = readlink(link, out, len - 1);
		if (n <= 0) {
			snprintf(why, whylen, "-e " EVENT ": cannot read %s: %s", link, strerror(errno));
			return -1;
		}
		out[n] = 0;
		return 0;
	}
	const char *cmd = o->argv[0];
	if (strchr(cmd, '/')) {
		if (!realpath(cmd, out)) {
			snprintf(why, whylen, "-e " EVENT ": %s: %s", cmd, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!target_which(cmd, out, len))
		return 0;
	snprintf(why, whylen, "-e " EVENT ": no command '%s' in PATH", cmd);
	return -1;
}

static int bufreq_probe(const struct record_opts *o, char *why, size_t whylen)
{
	char bin[PATH_MAX], prov[64];

	if (strcmp(o->event, EVENT)) {
		snprintf(why, whylen, "the buffers backend records -e " EVENT " only");
		return -1;
	}
	if (o->system_wide || o->cgroup || o->pidfile || (!o->argv && o->npids <= 0)) {
		snprintf(why, whylen, "-e " EVENT " records one database server: give -p PID (its "
			 "postmaster; its processes are included) or -- CMD, not -a, --cgroup or "
			 "--pidfile");
		return -1;
	}
	if (o->allocs || o->aggregate || o->period > 1 || o->random_period) {
		snprintf(why, whylen, "-e " EVENT " records every request, with no allocations: "
			 "--allocs, --aggregate, -c and --random-period do not apply");
		return -1;
	}
	if (find_server(o, bin, sizeof(bin), why, whylen))
		return -1;
	int rc = usdt_find(bin, PROVIDER, START_PROBE, prov, sizeof(prov), why, whylen);
	if (rc < 0)
		return -1;
	if (!rc) {
		snprintf(why, whylen, "-e " EVENT ": %s has no USDT probe " PROVIDER ":" START_PROBE
			 " (a PostgreSQL server built with --enable-dtrace, as Debian's and "
			 "Red Hat's are)", bin);
		return -1;
	}
	struct mem_event ev;
	struct record_opts plain = *o;
	plain.event = "page-faults";
	plain.backend = "bpf";
	if (bpf_check(&plain, &ev, false, why, whylen)) {
		char tmp[512];
		snprintf(tmp, sizeof(tmp), "-e " EVENT " needs BPF: %s", why);
		snprintf(why, whylen, "%s", tmp);
		return -1;
	}
	return 0;
}

static void bufreq_status(FILE *out)
{
	struct record_opts o = { .event = "page-faults", .backend = "bpf" };
	struct mem_event ev;
	char why[512];

	if (bpf_check(&o, &ev, false, why, sizeof(why)))
		fprintf(out, "  buffers: -e " EVENT ": unavailable - %s\n", why);
	else
		fprintf(out, "  buffers: -e " EVENT ": available for a PostgreSQL server with USDT "
			"probes (-p its postmaster): every shared-buffer request, hit or miss\n");
}

static void note_tid(struct bufreq_session *s, uint64_t time, uint32_t tid)
{
	if (!pid_set_add(&s->tids, (pid_t)tid))
		return;
	char comm[64];
	target_comm((pid_t)tid, (pid_t)tid, comm, sizeof(comm));
	if (recorder_note_thread(s->r, time, (uint32_t)s->target, tid, comm))
		s->failed = 1;
}

static int on_request(void *ctx, void *data, size_t len)
{
	struct bufreq_session *s = ctx;
	const struct mt_bufreq_rec *q = data;

	if (len < sizeof(*q))
		return 0;
	uint64_t addr = bufreq_addr(&s->layout, q->spc, q->db, q->rel, q->fork, q->block);
	if (!addr) {
		s->beyond++;
		return 0;
	}
	if (s->nbatch == s->capbatch) {
		s->capbatch = s->capbatch ? 2 * s->capbatch : 4096;
		s->batch = mt_xrealloc(s->batch, s->capbatch * sizeof(*s->batch));
	}
	s->batch[s->nbatch++] = (struct memtrace_sample){
		.time = q->time, .addr = addr, .pid = (uint32_t)s->target, .tid = q->tid,
		.cpu = q->cpu,
	};
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct memtrace_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static void read_counts(struct bufreq_session *s, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();

	memset(out, 0, MT_BUFREQ_NCOUNTS * sizeof(*out));
	if (ncpu <= 0)
		return;
	uint64_t *v = mt_xcalloc((size_t)ncpu, sizeof(*v));
	for (uint32_t k = 0; k < MT_BUFREQ_NCOUNTS; k++)
		if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counts), &k, v))
			for (int i = 0; i < ncpu; i++)
				out[k] += v[i];
	free(v);
}

/* Ring-full losses since the last look, as LOST rows. */
static void add_lost(struct bufreq_session *s, uint64_t time)
{
	uint64_t now[MT_BUFREQ_NCOUNTS];

	read_counts(s, now);
	if (now[MT_BUFREQ_LOST] > s->counts[MT_BUFREQ_LOST] &&
	    recorder_add_lost(s->r, time, 0, now[MT_BUFREQ_LOST] - s->counts[MT_BUFREQ_LOST], 0))
		s->failed = 1;
	memcpy(s->counts, now, sizeof(now));
}

/* The ring's requests in time order, after the maps that name them. */
static int drain_ring(struct bufreq_session *s)
{
	s->nbatch = 0;
	ring_buffer__consume(s->rb);
	if (!s->nbatch)
		return s->failed ? -1 : 0;
	qsort(s->batch, s->nbatch, sizeof(*s->batch), by_time);
	if (s->layout.n > s->layout.written) {
		size_t len;
		char *text = bufreq_maps_text(&s->layout, s->datadir[0] ? s->datadir : NULL, &len);
		if (recorder_put_maps(s->r, s->batch[0].time, s->target, text, len))
			s->failed = 1;
		free(text);
	}
	for (size_t i = 0; i < s->nbatch; i++)
		note_tid(s, s->batch[i].time, s->batch[i].tid);
	if (recorder_add_samples(s->r, s->batch, s->nbatch))
		s->failed = 1;
	s->requests += s->nbatch;
	return s->failed ? -1 : 0;
}

/* The processes recorded: -p's trees, or the command (before its exec). */
static int add_targets(struct bufreq_session *s, const struct record_opts *o)
{
	struct bpf_map *m = s->skel->maps.tgids;

	if ((o->npids > 0 && probe_tgids_add_trees(m, o)) ||
	    (s->child > 0 && probe_tgids_add(m, s->child))) {
		mt_err("-e " EVENT ": the BPF process map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* prog on the server's USDT probe name (every location), its link in *link */
static int attach_usdt(struct bufreq_session *s, struct bpf_program *prog, const char *name,
		       struct bpf_link **link)
{
	*link = bpf_program__attach_usdt(prog, -1, s->bin, PROVIDER, name, NULL);
	if (*link)
		return 0;
	mt_err("-e " EVENT ": cannot attach to %s in %s: %s", name, s->bin, bpf_last_error());
	return -1;
}

static int load(struct bufreq_session *s)
{
	struct mt_bufreq_bpf *k;

	bpf_quiet_libbpf();
	s->skel = k = mt_bufreq_bpf__open();
	if (!k) {
		mt_err("-e " EVENT ": cannot open the BPF programs: %s", bpf_last_error());
		return -1;
	}
	k->rodata->filter_tgids = true;
	if (mt_bufreq_bpf__load(k)) {
		mt_err("-e " EVENT ": cannot load the BPF programs: %s", bpf_last_error());
		return -1;
	}
	if (!(k->links.probe_fork = bpf_program__attach(k->progs.probe_fork))) {
		mt_err("-e " EVENT ": cannot attach to sched_process_fork: %s", bpf_last_error());
		return -1;
	}
	if (attach_usdt(s, k->progs.buffer_read_start, START_PROBE, &k->links.buffer_read_start) ||
	    attach_usdt(s, k->progs.buffer_read_done, DONE_PROBE, &k->links.buffer_read_done))
		return -1;
	s->rb = ring_buffer__new(bpf_map__fd(k->maps.reqs), on_request, s, NULL);
	if (!s->rb) {
		mt_err("-e " EVENT ": cannot map the ring buffer: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void bufreq_meta(struct bufreq_session *s)
{
	struct recorder *r = s->r;
	const struct record_opts *o = s->o;
	char list[1024] = "", comm[64] = "";
	size_t pos = 0;

	for (int i = 0; i < o->npids && pos < sizeof(list) - 16; i++)
		pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s%d", i ? "," : "",
					(int)o->pids[i]);
	if (o->argv) {
		const char *base = strrchr(o->argv[0], '/');
		snprintf(comm, sizeof(comm), "%.15s", base ? base + 1 : o->argv[0]);
	} else
		target_comm(s->target, s->target, comm, sizeof(comm));
	recorder_meta(r, "backend", "buffers");
	recorder_meta(r, "source", "postgresql-usdt");
	recorder_meta(r, "event", EVENT);
	recorder_meta(r, "event_encoding", "usdt " PROVIDER ":" START_PROBE " and " DONE_PROBE
		      " in %s, through BPF", s->bin);
	recorder_meta(r, "sees", "every block the server's processes ask its shared buffer pool "
		      "for (ReadBuffer: hits, misses and new blocks), in order; not backend-local "
		      "buffers (temporary tables), not the OS page cache behind the pool; "
		      "addresses are blocks laid out per data file (1 GiB per segment), not memory");
	recorder_meta(r, "sample_class", "%s", words_class_name(WORDS_BUFFER_REQUEST));
	recorder_meta(r, "sample_period", "1");
	recorder_meta(r, "random_period", "0");
	recorder_meta(r, "clock", "monotonic");
	recorder_meta(r, "time_unit", "ns");
	recorder_meta(r, "target_pid", "%d", (int)s->target);
	recorder_meta(r, "target_comm", "%s", comm);
	if (o->npids > 0) {
		recorder_meta(r, "target_pids", "%s", list);
		recorder_meta(r, "target_children", "%d", !o->no_children);
	}
	recorder_meta(r, "fields", "%s", "");
	recorder_meta(r, "bucket_default", "%u", BUFREQ_BLOCK);
	recorder_meta(r, "buffer_block", "%u", BUFREQ_BLOCK);
	if (s->datadir[0])
		recorder_meta(r, "datadir", "%s", s->datadir);
}

static void bufreq_free(struct bufreq_session *s)
{
	ring_buffer__free(s->rb);
	mt_bufreq_bpf__destroy(s->skel);
	if (s->release_fd >= 0)
		close(s->release_fd);
	for (int i = 0; s->watch && i < s->nwatch; i++)
		if (s->watch[i] >= 0)
			close(s->watch[i]);
	free(s->watch);
	bufreq_layout_free(&s->layout);
	free(s->batch);
	pid_set_free(&s->tids);
	free(s);
}

static void *bufreq_open(const struct record_opts *o, struct recorder *r)
{
	struct bufreq_session *s = mt_xcalloc(1, sizeof(*s));
	char why[512], cwd[64];

	s->o = o;
	s->r = r;
	s->release_fd = -1;
	s->child = -1;
	if (find_server(o, s->bin, sizeof(s->bin), why, sizeof(why))) {
		mt_err("%s", why);
		goto fail;
	}
	if (o->argv) {
		s->child = target_spawn(o->argv, &s->release_fd);
		if (s->child < 0)
			goto fail;
		s->target = s->child;
	} else {
		if (!(s->watch = target_watch_pids(o->pids, o->npids)))
			goto fail;
		s->nwatch = o->npids;
		s->target = o->pids[0];
		/* a postmaster runs in its data directory */
		snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int)s->target);
		ssize_t n = readlink(cwd, s->datadir, sizeof(s->datadir) - 1);
		s->datadir[n > 0 ? n : 0] = 0;
	}
	/* the origin before the probes: no request precedes the trace's start */
	uint64_t start = mt_now_ns();
	if (load(s) || add_targets(s, o)) {
		if (s->child > 0)
			kill(s->child, SIGKILL);
		goto fail;
	}
	bufreq_meta(s);
	recorder_offline(r);	/* the maps are the layout's, not /proc's */
	recorder_set_target(r, s->target);
	if (recorder_begin(r, start, 0) || recorder_tick(r, start)) {
		recorder_end(r, "failed");
		if (s->child > 0)
			kill(s->child, SIGKILL);
		goto fail;
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
fail:
	bufreq_free(s);
	return NULL;
}

static int bufreq_fds(void *state, struct pollfd *p, int max)
{
	struct bufreq_session *s = state;

	if (max >= 1)
		p[0] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN };
	return 1;
}

static int bufreq_drain(void *state, struct recorder *r, const struct pollfd *p, int n,
			struct source_step *step)
{
	struct bufreq_session *s = state;

	(void)r;
	(void)p;
	(void)n;
	int rc = drain_ring(s);
	if (step->wall - s->counts_at >= COUNTS_NS) {
		s->counts_at = step->wall;
		add_lost(s, step->wall);
	}
	step->now = step->wall;
	step->tick = true;
	return rc || s->failed ? -1 : 0;
}

static int bufreq_target_gone(void *state, uint64_t wall)
{
	struct bufreq_session *s = state;

	(void)wall;
	return target_all_gone(s->child, s->o->pids, s->watch, s->nwatch);
}

static int bufreq_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct bufreq_session *s = state;

	(void)r;
	if (s->child > 0 && (failed || strcmp(*reason, "target-exited")))
		target_stop_child(s->child);
	if (failed)
		return -1;
	int rc = drain_ring(s);
	add_lost(s, mt_now_ns());
	const uint64_t *c = s->counts;
	uint64_t asked = c[MT_BUFREQ_HITS] + c[MT_BUFREQ_MISSES];
	recorder_end_meta(r, "buffer_hits", "%" PRIu64, c[MT_BUFREQ_HITS]);
	recorder_end_meta(r, "buffer_misses", "%" PRIu64, c[MT_BUFREQ_MISSES]);
	recorder_end_meta(r, "buffer_local_requests", "%" PRIu64, c[MT_BUFREQ_LOCAL]);
	fprintf(stderr, "memtracectl: buffers: %" PRIu64 " shared-buffer requests recorded in %zu "
		"data-file segments by %zu processes", s->requests, s->layout.n, s->tids.n);
	if (asked)
		fprintf(stderr, "; the pool found %.2f %% of them (%" PRIu64 " hits, %" PRIu64
			" misses)", 100.0 * (double)c[MT_BUFREQ_HITS] / (double)asked,
			c[MT_BUFREQ_HITS], c[MT_BUFREQ_MISSES]);
	fprintf(stderr, "\n");
	if (c[MT_BUFREQ_LOST])
		mt_warn("buffers: %" PRIu64 " requests lost (the ring was full): the stream has "
			"holes (LOST rows)", c[MT_BUFREQ_LOST]);
	if (s->beyond)
		mt_warn("buffers: %" PRIu64 " requests past %u data-file segments not recorded",
			s->beyond, BUFREQ_MAX_SEGS);
	if (c[MT_BUFREQ_LOCAL])
		fprintf(stderr, "memtracectl: buffers: %" PRIu64 " requests of backend-local buffers "
			"(temporary tables) not recorded\n", c[MT_BUFREQ_LOCAL]);
	return rc;
}

static int bufreq_close(void *state, int rc)
{
	bufreq_free(state);
	return rc;
}

const struct source_ops source_bufreq = {
	.name = "buffers",
	.caps = { .event = EVENT },
	.end_reason = "target-exited",
	.probe = bufreq_probe,
	.status = bufreq_status,
	.open = bufreq_open,
	.fds = bufreq_fds,
	.drain = bufreq_drain,
	.target_gone = bufreq_target_gone,
	.finish = bufreq_finish,
	.close = bufreq_close,
};
