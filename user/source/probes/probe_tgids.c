/* probe_tgids.c - the tgid map of the probe programs (probe_tgids.h). */
#include "source/probes/probe_tgids.h"

#include <bpf/libbpf.h>
#include <linux/types.h>

#include "source/target.h"

int probe_tgids_add(struct bpf_map *tgids, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u8 on = 1;

	return bpf_map__update_elem(tgids, &key, sizeof(key), &on, sizeof(on), BPF_ANY);
}

int probe_tgids_del(struct bpf_map *tgids, pid_t pid)
{
	__u32 key = (__u32)pid;

	return bpf_map__delete_elem(tgids, &key, sizeof(key), 0);
}

int probe_tgids_add_trees(struct bpf_map *tgids, const struct record_opts *o)
{
	for (int pass = 0; pass < 2; pass++) {
		struct target_tasks t = { 0 };
		target_tree(o->pids, o->npids, !o->no_children, &t);
		for (size_t i = 0; i < t.n; i++)
			if (probe_tgids_add(tgids, t.t[i].pid)) {
				target_tasks_free(&t);
				return -1;
			}
		target_tasks_free(&t);
	}
	return 0;
}
