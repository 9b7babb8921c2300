/* alloc.c - record --allocs (alloc_probe.h): loads bpf/alloc.bpf.c,
 * finds the allocator functions in the target's files (alloc_elf.c),
 * attaches a uprobe to each and a uretprobe to each that returns a block,
 * keeps the tgid set (the target tree, or the command from its exec on,
 * and what they fork) or the --cgroup filter, and turns the ring's events
 * and the stacks they name, drained at every recorder tick, into ALLOCS
 * chunks (one a second). */
#include "source/probes/alloc_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/probes/alloc_elf.h"
#include "source/bpf/bpf.h"
#include "source/target.h"
#include "trace/allocs.h"
#include "trace/format.h"
#include "util/util.h"
#include "source/bpf/sample.h"
#include "source/probes/alloc.h"
#include "alloc.skel.h"

#define STACK_IDS		16384	/* the stacks map's entries */
#define MAX_NAMES		64
#define CHUNK_RECORDS		65536	/* records per ALLOCS chunk at most */
/* An ALLOCS chunk every second at most (and at the end): zstd packs a
 * second of records much better than a tick's (pgbench -S under --mark
 * --allocs: 9.2 bytes per record in chunks of a 100 ms tick, 6.7 in chunks
 * of 1.6 s); a kill -9 loses at most that second. */
#define FLUSH_NS		1000000000ull

/* Allocator entry points and what their arguments hold; first name wins
 * where two share an address (aliases). */
static const struct { const char *name; int role; } default_names[] = {
	{ "malloc", MT_ROLE_MALLOC }, { "calloc", MT_ROLE_CALLOC },
	{ "realloc", MT_ROLE_REALLOC }, { "free", MT_ROLE_FREE },
	{ "posix_memalign", MT_ROLE_POSIX_MEMALIGN }, { "aligned_alloc", MT_ROLE_MEMALIGN },
	{ "memalign", MT_ROLE_MEMALIGN }, { "valloc", MT_ROLE_MALLOC },
	{ "mmap", MT_ROLE_MMAP }, { "mmap64", MT_ROLE_MMAP }, { "munmap", MT_ROLE_MUNMAP },
	{ "mremap", MT_ROLE_MREMAP },
	/* jemalloc's own API */
	{ "mallocx", MT_ROLE_MALLOC }, { "rallocx", MT_ROLE_REALLOC },
	{ "dallocx", MT_ROLE_FREE }, { "sdallocx", MT_ROLE_FREE },
	/* tcmalloc and jemalloc define operator new/delete themselves */
	{ "_Znwm", MT_ROLE_MALLOC }, { "_Znam", MT_ROLE_MALLOC },
	{ "_ZdlPv", MT_ROLE_FREE }, { "_ZdaPv", MT_ROLE_FREE },
	{ "_ZdlPvm", MT_ROLE_FREE }, { "_ZdaPvm", MT_ROLE_FREE },
};

static const char *const role_names[MT_ROLE_COUNT] = {
	"malloc", "calloc", "realloc", "memalign", "posix_memalign", "free", "mmap", "munmap",
	"mremap",
};

struct alloc_probe {
	const struct record_opts *o;
	struct mt_alloc_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t nlinks;
	const char *names[MAX_NAMES];
	char *owned[MAX_NAMES];		/* --alloc-symbols names */
	int roles[MAX_NAMES];
	size_t nnames;
	int nfuncs, nfiles;		/* attached */
	unsigned char *stack_seen;	/* STACK_IDS bits: written already */
	struct bytebuf recs, stacks, chunk;
	uint32_t nrec, nstack;
	uint64_t flushed_at;		/* mt_now_ns() of the last chunk */
	uint64_t events, vals_sum[MT_ALLOC_CNT_N];
	uint64_t *vals;
	int ncpus, failed;
	int cgroup_fd;			/* --cgroup: its directory, -1 */
	char cgroup_dir[4096];
};

/* --alloc-symbols NAME=ROLE[,NAME=ROLE...]: more entry points. */
static int parse_symbols(struct alloc_probe *ap, const char *spec)
{
	char buf[4096], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		int role = -1;
		if (eq)
			for (int i = 0; i < MT_ROLE_COUNT; i++)
				if (!strcmp(eq + 1, role_names[i]))
					role = i;
		if (!eq || eq == t || role < 0) {
			mt_err("--alloc-symbols: '%s' is not NAME=ROLE (ROLE: malloc, calloc, realloc, "
			       "memalign, posix_memalign, free, mmap, munmap, mremap)", t);
			return -1;
		}
		if (ap->nnames == MAX_NAMES) {
			mt_err("--alloc-symbols: at most %d names", MAX_NAMES);
			return -1;
		}
		*eq = 0;
		ap->owned[ap->nnames] = mt_xstrdup(t);
		ap->names[ap->nnames] = ap->owned[ap->nnames];
		ap->roles[ap->nnames++] = role;
	}
	return 0;
}

struct alloc_probe *alloc_probe_new(const struct record_opts *o)
{
	struct alloc_probe *ap = mt_xcalloc(1, sizeof(*ap));

	ap->o = o;
	ap->cgroup_fd = -1;
	if (o->system_wide) {
		mt_err("--allocs needs -p PID, -G CGROUP or a command (not -a)");
		goto fail;
	}
	if (o->alloc_symbols && parse_symbols(ap, o->alloc_symbols))
		goto fail;
	for (size_t i = 0; i < sizeof(default_names) / sizeof(default_names[0]); i++) {
		ap->names[ap->nnames] = default_names[i].name;
		ap->roles[ap->nnames++] = default_names[i].role;
	}
	return ap;
fail:
	alloc_probe_free(ap);
	return NULL;
}

static struct bpf_program *entry_prog(struct alloc_probe *ap, int role)
{
	struct mt_alloc_bpf *s = ap->skel;
	struct bpf_program *p[MT_ROLE_COUNT] = {
		s->progs.on_malloc, s->progs.on_calloc, s->progs.on_realloc, s->progs.on_memalign,
		s->progs.on_posix_memalign, s->progs.on_free, s->progs.on_mmap, s->progs.on_munmap,
		s->progs.on_mremap,
	};
	return p[role];
}

static int add_link(struct alloc_probe *ap, struct bpf_link *l)
{
	if (!l)
		return -1;
	ap->links = mt_xrealloc(ap->links, (ap->nlinks + 1) * sizeof(*ap->links));
	ap->links[ap->nlinks++] = l;
	return 0;
}

/* Every allocator function path defines: a uprobe, and a uretprobe unless it frees. */
static int attach_file(struct alloc_probe *ap, const char *path)
{
	uint64_t offs[MAX_NAMES];
	int n = 0;

	if (alloc_elf_funcs(path, ap->names, ap->nnames, offs))
		return 0;
	for (size_t i = 0; i < ap->nnames; i++) {
		int dup = !offs[i];
		for (size_t k = 0; k < i && !dup; k++)
			dup = offs[k] == offs[i];
		if (dup)
			continue;
		int role = ap->roles[i];
		LIBBPF_OPTS(bpf_uprobe_opts, entry);
		LIBBPF_OPTS(bpf_uprobe_opts, ret, .retprobe = true);
		if (add_link(ap, bpf_program__attach_uprobe_opts(entry_prog(ap, role), -1, path,
								 offs[i], &entry)) ||
		    (role != MT_ROLE_FREE && role != MT_ROLE_MUNMAP &&
		     add_link(ap, bpf_program__attach_uprobe_opts(ap->skel->progs.on_return, -1,
								  path, offs[i], &ret)))) {
			mt_err("--allocs: a uprobe on %s in %s: %s", ap->names[i], path,
			       bpf_last_error()[0] ? bpf_last_error() : strerror(errno));
			return -1;
		}
		n++;
	}
	ap->nfuncs += n;
	ap->nfiles += n > 0;
	return 0;
}

static int set_tgid(struct alloc_probe *ap, pid_t pid, uint8_t v)
{
	uint32_t key = (uint32_t)pid;

	return bpf_map__update_elem(ap->skel->maps.tgids, &key, sizeof(key), &v, sizeof(v), BPF_ANY);
}

/* The files of the processes in cgroup directory dir and the groups below it. */
static void cgroup_files(const char *dir, int depth, struct alloc_files *f)
{
	pid_t pids[4096];
	int n = target_cgroup_procs(dir, pids, 4096);
	char sub[4096];

	for (int i = 0; i < n && i < 4096; i++)
		alloc_files_of_pid(pids[i], f);
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_type == DT_DIR && e->d_name[0] != '.' &&
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < sizeof(sub))
			cgroup_files(sub, depth + 1, f);
	if (d)
		closedir(d);
}

/* The processes to record and the files of their allocators. */
static int targets(struct alloc_probe *ap, pid_t pid, struct alloc_files *f)
{
	const struct record_opts *o = ap->o;

	if (o->cgroup) {
		/* the group's processes now, and the system's libc (the one
		 * memtracectl runs on) for those that join it later */
		uint32_t key = 0;
		cgroup_files(ap->cgroup_dir, 0, f);
		alloc_files_of_pid(getpid(), f);
		if (bpf_map__update_elem(ap->skel->maps.target_cgroup, &key, sizeof(key),
					 &ap->cgroup_fd, sizeof(ap->cgroup_fd), BPF_ANY)) {
			mt_err("--allocs: the cgroup filter: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (o->argv) {
		alloc_files_of_command(o->argv[0], f);
		return set_tgid(ap, pid, MT_BPF_TGID_AT_EXEC);
	}
	struct target_tasks t = { 0 };
	target_tree(o->pids, o->npids, !o->no_children, &t);
	for (size_t i = 0; i < t.n; i++) {
		if (i && t.t[i].pid == t.t[i - 1].pid)
			continue;
		alloc_files_of_pid(t.t[i].pid, f);
		if (set_tgid(ap, t.t[i].pid, MT_BPF_TGID_ON)) {
			target_tasks_free(&t);
			return -1;
		}
	}
	target_tasks_free(&t);
	return 0;
}

static int load(struct alloc_probe *ap)
{
	const struct record_opts *o = ap->o;
	int rc;

	bpf_quiet_libbpf();
	ap->skel = mt_alloc_bpf__open();
	if (!ap->skel) {
		mt_err("--allocs: opening the BPF programs failed: %s", strerror(errno));
		return -1;
	}
	if (o->cgroup && (ap->cgroup_fd = target_cgroup_open(o->cgroup, ap->cgroup_dir,
							     sizeof(ap->cgroup_dir))) < 0)
		return -1;
	ap->skel->rodata->filter_mode = o->cgroup ? MT_ALLOC_FILTER_CGROUP : MT_BPF_FILTER_TGIDS;
	ap->skel->rodata->sample_bytes = o->alloc_rate ? o->alloc_rate : ALLOC_RATE_DEFAULT;
	ap->skel->rodata->large_bytes = o->alloc_large ? o->alloc_large : ALLOC_LARGE_DEFAULT;
	ap->skel->rodata->wakeup_bytes = 1u << 20;
	bpf_map__set_max_entries(ap->skel->maps.stacks, STACK_IDS);
	if ((rc = mt_alloc_bpf__load(ap->skel))) {
		mt_err("--allocs: loading the BPF programs failed: %s: %s", strerror(-rc),
		       bpf_last_error());
		return -1;
	}
	ap->ncpus = libbpf_num_possible_cpus();
	ap->vals = mt_xcalloc((size_t)(ap->ncpus > 0 ? ap->ncpus : 1), sizeof(*ap->vals));
	ap->stack_seen = mt_xcalloc(STACK_IDS / 8, 1);
	if (add_link(ap, bpf_program__attach(ap->skel->progs.on_fork)) ||
	    add_link(ap, bpf_program__attach(ap->skel->progs.on_exec)) ||
	    add_link(ap, bpf_program__attach(ap->skel->progs.on_exit))) {
		mt_err("--allocs: attaching the fork/exec/exit tracepoints failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A stack named by an event, into the chunk once per recording. */
static void take_stack(struct alloc_probe *ap, int32_t id)
{
	uint64_t ips[MT_ALLOC_STACK_DEPTH];
	uint32_t n = 0;

	if (id < 0 || id >= STACK_IDS || (ap->stack_seen[id / 8] & (1u << (id % 8))))
		return;
	ap->stack_seen[id / 8] |= (unsigned char)(1u << (id % 8));
	uint32_t key = (uint32_t)id;
	if (bpf_map__lookup_elem(ap->skel->maps.stacks, &key, sizeof(key), ips, sizeof(ips), 0))
		return;
	while (n < MT_ALLOC_STACK_DEPTH && ips[n])
		n++;
	trace_alloc_stack_put(&ap->stacks, key, ips, n);
	ap->nstack++;
}

static int flush(struct alloc_probe *ap, struct recorder *r)
{
	int rc = 0;

	if (!ap->nrec && !ap->nstack)
		return 0;
	ap->chunk.len = 0;
	trace_allocs_payload(&ap->chunk, &ap->recs, ap->nrec, &ap->stacks, ap->nstack);
	rc = recorder_write_chunk(r, CHUNK_ALLOCS, ap->chunk.data, ap->chunk.len, ap->nrec);
	ap->recs.len = ap->stacks.len = 0;
	ap->nrec = ap->nstack = 0;
	return rc;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct alloc_probe *ap = ctx;
	const struct mt_alloc_rec *e = data;
	uint64_t rate = ap->skel->rodata->sample_bytes;

	if (len < sizeof(*e))
		return 0;
	struct trace_alloc a = {
		.time = e->time, .addr = e->addr, .size = e->size, .old_addr = e->old_addr,
		.caller = e->caller,
		.pid = e->pid, .tid = e->tid, .kind = e->kind,
		.stack = e->stack_id < 0 ? ALLOC_NO_STACK : (uint32_t)e->stack_id,
		.flags = e->flags & (ALLOC_FLAG_SAMPLED | ALLOC_FLAG_OLD_KNOWN),
		.weight = 1.0,
	};
	/* kept with probability size / rate: stands for rate / size blocks */
	if ((e->flags & MT_ALLOC_F_SAMPLED) && e->size)
		a.weight = (double)rate / (double)e->size;
	take_stack(ap, e->stack_id);
	trace_alloc_put(&ap->recs, &a);
	ap->nrec++;
	ap->events++;
	return 0;
}

/* The ring's events into the chunk; the chunk out when full, a second
 * old, or at the end. */
static int drain(struct alloc_probe *ap, struct recorder *r, int end)
{
	for (;;) {
		int n = ring_buffer__consume(ap->rb);
		if (n < 0)
			return -1;
		if (ap->nrec >= CHUNK_RECORDS && flush(ap, r))
			return -1;
		if (n == 0)
			break;
	}
	uint64_t now = mt_now_ns();
	if (!end && now - ap->flushed_at < FLUSH_NS)
		return 0;
	ap->flushed_at = now;
	return flush(ap, r);
}

static int side_begin(void *state, struct recorder *r, pid_t pid)
{
	struct alloc_probe *ap = state;
	struct alloc_files f = { 0 };
	int rc = -1;

	if (load(ap) || targets(ap, pid, &f))
		goto out;
	if (ap->o->alloc_lib)
		alloc_files_add(&f, ap->o->alloc_lib);
	for (size_t i = 0; i < f.n; i++)
		if (attach_file(ap, f.path[i]))
			goto out;
	if (!ap->nfuncs) {
		mt_err("--allocs: no allocator function (malloc, free, ...) found in the target's "
		       "files%s", f.n ? "" : " (none found)");
		goto out;
	}
	ap->rb = ring_buffer__new(bpf_map__fd(ap->skel->maps.events), on_event, ap, NULL);
	if (!ap->rb) {
		mt_err("--allocs: the BPF ring buffer: %s", strerror(errno));
		goto out;
	}
	ap->flushed_at = mt_now_ns();
	recorder_meta(r, "alloc_sample_bytes", "%llu",
		      (unsigned long long)ap->skel->rodata->sample_bytes);
	recorder_meta(r, "alloc_large_bytes", "%llu",
		      (unsigned long long)ap->skel->rodata->large_bytes);
	recorder_meta(r, "alloc_probes", "%d functions in %d files", ap->nfuncs, ap->nfiles);
	rc = 0;
out:
	alloc_files_free(&f);
	return rc;
}

static int side_tick(void *state, struct recorder *r)
{
	struct alloc_probe *ap = state;

	return ap->rb ? drain(ap, r, 0) : 0;
}

/* "memtracectl: --allocs: 1200 events (5000 calls), 0 lost, 0 without a stack" */
static void say_counts(struct alloc_probe *ap)
{
	for (uint32_t k = 0; k < MT_ALLOC_CNT_N; k++) {
		ap->vals_sum[k] = 0;
		if (bpf_map__lookup_elem(ap->skel->maps.counts, &k, sizeof(k), ap->vals,
					 sizeof(uint64_t) * (size_t)ap->ncpus, 0))
			continue;
		for (int c = 0; c < ap->ncpus; c++)
			ap->vals_sum[k] += ap->vals[c];
	}
	fprintf(stderr, "memtracectl: --allocs: %llu events recorded of %llu allocator calls, "
		"%llu lost (ring full), %llu without a stack, %llu frees not followed\n",
		(unsigned long long)ap->events, (unsigned long long)ap->vals_sum[MT_ALLOC_CNT_CALLS],
		(unsigned long long)ap->vals_sum[MT_ALLOC_CNT_RING_FULL],
		(unsigned long long)ap->vals_sum[MT_ALLOC_CNT_NO_STACK],
		(unsigned long long)ap->vals_sum[MT_ALLOC_CNT_LIVE_FULL]);
}

static int side_end(void *state, struct recorder *r)
{
	struct alloc_probe *ap = state;

	if (!ap->rb)
		return 0;
	int rc = drain(ap, r, 1);
	say_counts(ap);
	return rc;
}

struct recorder_side alloc_probe_side(struct alloc_probe *ap)
{
	return (struct recorder_side){ .begin = side_begin, .tick = side_tick, .end = side_end,
				       .state = ap };
}

void alloc_probe_free(struct alloc_probe *ap)
{
	if (!ap)
		return;
	for (size_t i = 0; i < ap->nlinks; i++)
		bpf_link__destroy(ap->links[i]);
	free(ap->links);
	ring_buffer__free(ap->rb);
	mt_alloc_bpf__destroy(ap->skel);
	for (size_t i = 0; i < ap->nnames; i++)
		free(ap->owned[i]);
	bytebuf_free(&ap->recs);
	bytebuf_free(&ap->stacks);
	bytebuf_free(&ap->chunk);
	free(ap->stack_seen);
	free(ap->vals);
	if (ap->cgroup_fd >= 0)
		close(ap->cgroup_fd);
	free(ap);
}
