/* bpf_target.c - the bpf backend's targets: the tgid set the BPF programs
 * filter on (-p trees listed by target_tree.c, a command from its exec on),
 * a cgroup's processes at the start, and when a -p recording is over. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "source/bpf/bpf_session.h"
#include "source/target.h"
#include "record/recorder.h"
#include "util/util.h"
#include "source/bpf/sample.h"
#include "sample.skel.h"

#define MAX_TREE_PASSES		100
#define PID_MAX_LIMIT		(4u << 20)	/* 64-bit kernels' highest pid_max */

/* The bitmap's size: pid_max (MEMTRACE_BPF_PID_BITS: fewer bits, for the
 * tests of the hash beyond it). */
static uint32_t pid_bits(void)
{
	const char *env = getenv("MEMTRACE_BPF_PID_BITS");
	unsigned long v = PID_MAX_LIMIT;
	FILE *f;

	if (env && *env)
		v = strtoul(env, NULL, 10);
	else if ((f = fopen("/proc/sys/kernel/pid_max", "r"))) {
		if (fscanf(f, "%lu", &v) != 1)
			v = PID_MAX_LIMIT;
		fclose(f);
	}
	return v < 1 ? 1 : v > PID_MAX_LIMIT ? PID_MAX_LIMIT : (uint32_t)v;
}

void bpf_tgid_bits_size(struct bpf_session *s)
{
	/* whole words: the programs find a tgid's bit where its word exists */
	s->tgid_words = (pid_bits() + 63) / 64;
	s->tgid_limit = (uint32_t)s->tgid_words * 64;
	bpf_map__set_max_entries(s->skel->maps.tgid_bits, (uint32_t)s->tgid_words);
}

int bpf_tgid_bits_map(struct bpf_session *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (s->tgid_words * sizeof(uint64_t) + page - 1) / page * page;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(s->skel->maps.tgid_bits), 0);

	if (p == MAP_FAILED) {
		mt_err("mmap of the BPF tgid bitmap (%zu bytes): %s", len, strerror(errno));
		return -1;
	}
	s->tgid_bits = p;
	s->tgid_bits_len = len;
	return 0;
}

void bpf_tgid_bits_unmap(struct bpf_session *s)
{
	if (s->tgid_bits)
		munmap(s->tgid_bits, s->tgid_bits_len);
	s->tgid_bits = NULL;
}

/* ON below the bitmap's end: its bit (atomic: the fork and exit programs
 * change bits of the same word); else the hash. */
static int set_tgid(struct bpf_session *s, pid_t pid, uint8_t v)
{
	uint32_t key = (uint32_t)pid;

	if (v == MT_BPF_TGID_ON && key < s->tgid_limit) {
		__atomic_fetch_or(&s->tgid_bits[key / 64], 1ull << (key % 64), __ATOMIC_SEQ_CST);
		return 0;
	}
	return bpf_map__update_elem(s->skel->maps.tgids, &key, sizeof(key), &v, sizeof(v), BPF_ANY);
}

bool bpf_tgid_in_set(struct bpf_session *s, uint32_t pid)
{
	uint8_t v;

	if (pid < s->tgid_limit &&
	    (__atomic_load_n(&s->tgid_bits[pid / 64], __ATOMIC_RELAXED) >> (pid % 64)) & 1)
		return true;
	return !bpf_map__lookup_elem(s->skel->maps.tgids, &pid, sizeof(pid), &v, sizeof(v), 0);
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

int bpf_set_target(struct bpf_session *s, const struct record_opts *o)
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
	s->watch = target_watch_pids(o->pids, o->npids);
	if (!s->watch)
		return -1;
	s->nwatch = o->npids;
	return add_trees(s, o);
}

void bpf_maps_at_start(struct bpf_session *s)
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
	/* a command not before its exec: its mmap records mark it */
	for (size_t i = 0; i < s->maps_seen.cap; i++)
		if (s->maps_seen.v[i] && s->maps_seen.v[i] != s->child)
			recorder_maps_changed(s->r, s->maps_seen.v[i]);
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
 * all they forked: no bit of the bitmap is set and the hash is empty, as
 * the module's session ends); a
 * command: it exited; -a, --cgroup: never.  A process listed from /proc
 * that exited before it was put in the set never left it: such entries are
 * dropped here (at most once a second).
 */
int bpf_target_gone(void *state, uint64_t wall)
{
	struct bpf_session *s = state;
	uint32_t key, next;
	int err;

	if (s->o->system_wide || s->o->cgroup)
		return 0;
	if (s->child > 0)
		return target_all_gone(s->child, NULL, NULL, 0);
	if (!target_all_gone(0, s->o->pids, s->watch, s->nwatch))
		return 0;
	if (wall < s->next_prune)
		return 0;
	s->next_prune = wall + 1000000000ull;
	bool left = false;
	for (size_t i = 0; i < s->tgid_words; i++) {
		uint64_t w = __atomic_load_n(&s->tgid_bits[i], __ATOMIC_RELAXED);
		for (; w; w &= w - 1) {
			uint32_t pid = (uint32_t)(i * 64) + (uint32_t)__builtin_ctzll(w);
			if (process_alive((pid_t)pid))
				left = true;
			else
				__atomic_fetch_and(&s->tgid_bits[i], ~(1ull << (pid % 64)),
						   __ATOMIC_SEQ_CST);
		}
	}
	for (err = bpf_map__get_next_key(s->skel->maps.tgids, NULL, &key, sizeof(key)); !err;
	     key = next) {
		err = bpf_map__get_next_key(s->skel->maps.tgids, &key, &next, sizeof(next));
		if (!process_alive((pid_t)key))
			bpf_map__delete_elem(s->skel->maps.tgids, &key, sizeof(key), 0);
	}
	return !left && bpf_map__get_next_key(s->skel->maps.tgids, NULL, &key, sizeof(key)) != 0;
}
