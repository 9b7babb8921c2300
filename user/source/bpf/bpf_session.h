/* bpf_session.h - the bpf backend's state, shared by sample.c (programs,
 * events, the drain, source_ops) and bpf_target.c (the tgid set: trees,
 * a command, the end of a -p recording). */
#ifndef MEMTRACE_SOURCE_BPF_BPF_SESSION_H
#define MEMTRACE_SOURCE_BPF_BPF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "source/hint.h"
#include "source/mem_event.h"
#include "source/perf_ring.h"
#include "source/perf/perf_session.h"	/* struct pid_set */
#include "source/source.h"

struct bpf_link;
struct ring_buffer;
struct mt_sample_bpf;
struct bpf_agg;

struct bpf_cpu {
	int fd;			/* the side-band dummy event, -1 if none (offline CPU) */
	int sfd;		/* the sampling event with on_sample, -1 if none */
	struct bpf_link *link;
	struct perf_ring side;	/* its side-band records */
	struct memtrace_sample *batch;
	size_t nbatch;
	uint64_t drops;		/* counts[0] at the last drain */
	uint64_t read;		/* samples read from the ring */
};

struct bpf_session {
	struct mem_event ev;
	struct mt_sample_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *fork_link, *exec_link, *exit_link;
	struct bpf_link *hint_link;	/* on_hint on exceptions:page_fault_user */
	struct hint_state hint;		/* -e hint-faults: NUMA balancing, kinds */
	struct bpf_cpu *cpus;
	int ncpus;
	uint64_t *vals;		/* a per-CPU map value, ncpus entries */
	struct recorder *r;
	const struct record_opts *o;
	struct pid_set maps_seen;	/* processes with a maps snapshot asked for */
	uint32_t last_pid;		/* of the last sample: in maps_seen */
	struct side_maps side_maps;	/* mappings from the side-band records (side_maps.h) */
	pid_t target, child;
	int release_fd, cgroup_fd, nwatch;
	int *watch;
	int nprocs, failed;
	uint64_t next_prune;	/* wall time of the next dead-entry sweep */
	uint32_t ring_bytes;		/* the shared ring, or each CPU's */
	bool per_cpu_rings;		/* MEMTRACE_BPF_RING=percpu */
	int *ring_fds;			/* per CPU rings, ncpus */
	struct bpf_agg *agg;		/* --aggregate (bpf_agg.c), else NULL */
	uint64_t *tgid_bits;		/* the tgid_bits map, mmapped (bpf_target.c) */
	size_t tgid_words, tgid_bits_len;
	uint32_t tgid_limit;		/* tgids below it are bits, the rest in the hash */
	bool fault_tp;			/* on_fault on tp_btf/page_fault_user */
	struct bpf_link *fault_link;
	char cgroup_dir[4096];
};

/* bpf_target.c */
/* The target: a command (recorded from exec on), every task, a cgroup, or trees. */
int bpf_set_target(struct bpf_session *s, const struct record_opts *o);
/* After recorder_begin: a maps snapshot of every recorded process. */
void bpf_maps_at_start(struct bpf_session *s);
/* source_ops.target_gone */
int bpf_target_gone(void *state, uint64_t wall);
/* The tgid bitmap: its size from pid_max (before the load), mapped after it. */
void bpf_tgid_bits_size(struct bpf_session *s);
int bpf_tgid_bits_map(struct bpf_session *s);
void bpf_tgid_bits_unmap(struct bpf_session *s);
/* Is pid in the tgid set (recorded, or a command before its exec)? */
bool bpf_tgid_in_set(struct bpf_session *s, uint32_t pid);

#endif
