/* proc_smaps.c - /proc/PID/smaps (proc_smaps.h). */
#include "util/proc_smaps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/util.h"

int proc_smaps_read(pid_t pid, struct proc_maps *m)
{
	char path[64], line[4608];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	m->n = 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t s, e, kb;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n", &s, &e, perms, &at) == 3 &&
		    at > 0) {
			char *p = line + at;
			size_t len = strcspn(p, "\n");
			p[len] = 0;
			if (m->n == m->cap) {
				m->cap = m->cap ? 2 * m->cap : 64;
				m->v = mt_xrealloc(m->v, m->cap * sizeof(*m->v));
			}
			struct proc_map *x = &m->v[m->n++];
			*x = (struct proc_map){ .start = s, .end = e };
			snprintf(x->perms, sizeof(x->perms), "%s", perms);
			snprintf(x->path, sizeof(x->path), "%s", p);
			x->deleted = len >= 10 && !strcmp(p + len - 10, " (deleted)");
		} else if (m->n && sscanf(line, "Rss: %" SCNu64 " kB", &kb) == 1) {
			m->v[m->n - 1].rss = kb * 1024;
		}
	}
	fclose(f);
	return 0;
}

void proc_smaps_free(struct proc_maps *m)
{
	free(m->v);
	*m = (struct proc_maps){ 0 };
}

/* The first mapping that ends after addr. */
static size_t first_ending_after(const struct proc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;	/* smaps lists mappings by address */

	MT_PARTITION_POINT(lo, hi, i, m->v[i].end <= addr);
	return lo;
}

const struct proc_map *proc_smaps_at(const struct proc_maps *m, uint64_t addr)
{
	size_t i = first_ending_after(m, addr);

	return i < m->n && m->v[i].start <= addr ? &m->v[i] : NULL;
}

uint64_t proc_smaps_rss_in(const struct proc_maps *m, uint64_t start, uint64_t end)
{
	uint64_t rss = 0;

	for (size_t i = first_ending_after(m, start); i < m->n && m->v[i].start < end; i++)
		rss += m->v[i].rss;
	return rss;
}
