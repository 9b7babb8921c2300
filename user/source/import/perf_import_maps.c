/* perf_import_maps.c - per-process mappings from perf.data records
 * (perf_import_maps.h). */
#include "source/import/perf_import_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include "util/util.h"

#define MISC_MMAP_BUILD_ID	(1 << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID */

static struct perf_pid_maps *pid_maps(struct perf_maps *pm, uint32_t pid)
{
	if (pm->hit < pm->n && pm->p[pm->hit].pid == pid)
		return &pm->p[pm->hit];
	for (size_t i = 0; i < pm->n; i++)
		if (pm->p[i].pid == pid)
			return &pm->p[pm->hit = i];
	if (pm->n == pm->cap) {
		pm->cap = pm->cap ? 2 * pm->cap : 16;
		pm->p = mt_xrealloc(pm->p, pm->cap * sizeof(*pm->p));
	}
	memset(&pm->p[pm->n], 0, sizeof(pm->p[pm->n]));
	pm->p[pm->n].pid = pid;
	return &pm->p[pm->hit = pm->n++];
}

/* The MAPS chunk to come holds the maps from the first change on. */
static void changed(struct perf_pid_maps *p, uint64_t time)
{
	if (!p->dirty)
		p->time = time;
	p->dirty = true;
}

static void push(struct perf_pid_maps *p, const struct perf_mapping *m, const char *path)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 32;
		p->m = mt_xrealloc(p->m, p->cap * sizeof(*p->m));
	}
	p->m[p->n] = *m;
	p->m[p->n].path = mt_xstrdup(path);
	p->n++;
}

static int by_start(const void *a, const void *b)
{
	const struct perf_mapping *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

void perf_maps_add(struct perf_maps *pm, uint32_t pid, const struct perf_mapping *m,
		   uint64_t time)
{
	struct perf_pid_maps *p = pid_maps(pm, pid);
	struct perf_pid_maps keep = { .pid = pid };

	if (m->end <= m->start)
		return;
	for (size_t i = 0; i < p->n; i++) {
		struct perf_mapping o = p->m[i];

		if (o.end <= m->start || o.start >= m->end) {
			push(&keep, &o, o.path);
		} else {
			if (o.start < m->start) {	/* the part below the new one */
				struct perf_mapping lo = o;
				lo.end = m->start;
				push(&keep, &lo, o.path);
			}
			if (o.end > m->end) {		/* the part above it */
				struct perf_mapping hi = o;
				hi.start = m->end;
				if (o.path[0])
					hi.pgoff += m->end - o.start;
				push(&keep, &hi, o.path);
			}
		}
		free(o.path);
	}
	push(&keep, m, m->path ? m->path : "");
	qsort(keep.m, keep.n, sizeof(*keep.m), by_start);
	free(p->m);
	p->m = keep.m;
	p->n = keep.n;
	p->cap = keep.cap;
	changed(p, time);
}

int perf_maps_mmap_record(struct perf_maps *pm, const struct perf_event_header *h,
			  uint64_t time)
{
	const unsigned char *p = (const unsigned char *)(h + 1), *end = p + h->size - sizeof(*h);
	size_t fixed = h->type == PERF_RECORD_MMAP2 ? 64 : 32;
	struct perf_mapping m = { 0 };
	uint32_t pid;
	uint64_t addr, len;

	if (h->size < sizeof(*h) || (size_t)(end - p) < fixed + 1)
		return -1;
	memcpy(&pid, p, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&len, p + 16, 8);
	memcpy(&m.pgoff, p + 24, 8);
	if (h->type == PERF_RECORD_MMAP2) {
		if (!(h->misc & MISC_MMAP_BUILD_ID)) {
			memcpy(&m.maj, p + 32, 4);
			memcpy(&m.min, p + 36, 4);
			memcpy(&m.ino, p + 40, 8);
		}
		memcpy(&m.prot, p + 56, 4);
		memcpy(&m.flags, p + 60, 4);
	} else {
		m.prot = h->misc & PERF_RECORD_MISC_MMAP_DATA ? PROT_READ | PROT_WRITE :
							       PROT_READ | PROT_EXEC;
	}
	if (pid == UINT32_MAX || addr + len < addr)
		return -1;
	char path[4096];
	snprintf(path, sizeof(path), "%.*s", (int)strnlen((const char *)p + fixed,
		 (size_t)(end - p) - fixed), (const char *)p + fixed);
	m.start = addr;
	m.end = addr + len;
	m.path = strcmp(path, "//anon") ? path : "";
	perf_maps_add(pm, pid, &m, time);
	return 0;
}

void perf_maps_fork(struct perf_maps *pm, uint32_t ppid, uint32_t pid, uint64_t time)
{
	perf_maps_exec(pm, pid, time);
	struct perf_pid_maps *parent = pid_maps(pm, ppid);
	struct perf_pid_maps *child = pid_maps(pm, pid);	/* after: the array may move */

	parent = pid_maps(pm, ppid);
	for (size_t i = 0; i < parent->n; i++)
		push(child, &parent->m[i], parent->m[i].path);
	child->whole = parent->whole;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (child->n)
		changed(child, time);
}

void perf_maps_exec(struct perf_maps *pm, uint32_t pid, uint64_t time)
{
	struct perf_pid_maps *p = pid_maps(pm, pid);

	for (size_t i = 0; i < p->n; i++)
		free(p->m[i].path);
	if (p->n)
		changed(p, time);
	p->n = 0;
	p->whole = true;
	p->born = time;
}

struct perf_pid_maps *perf_maps_find(struct perf_maps *pm, uint32_t pid)
{
	for (size_t i = 0; i < pm->n; i++)
		if (pm->p[i].pid == pid)
			return &pm->p[i];
	return NULL;
}

void perf_maps_forget(struct perf_maps *pm, uint32_t pid)
{
	struct perf_pid_maps *p = perf_maps_find(pm, pid);

	if (!p)
		return;
	for (size_t j = 0; j < p->n; j++)
		free(p->m[j].path);
	free(p->m);
	*p = pm->p[--pm->n];	/* the last one takes its place */
	pm->hit = 0;
}

char *perf_maps_text(const struct perf_pid_maps *p, size_t *len)
{
	size_t cap = 1, at = 0;

	for (size_t i = 0; i < p->n; i++)
		cap += 160 + strlen(p->m[i].path);
	char *t = mt_xmalloc(cap);

	for (size_t i = 0; i < p->n; i++) {
		const struct perf_mapping *m = &p->m[i];
		int n = snprintf(t + at, cap - at, "%08" PRIx64 "-%08" PRIx64 " %c%c%c%c %08" PRIx64
				 " %02x:%02x %" PRIu64 " ", m->start, m->end,
				 m->prot & PROT_READ ? 'r' : '-', m->prot & PROT_WRITE ? 'w' : '-',
				 m->prot & PROT_EXEC ? 'x' : '-', m->flags & MAP_SHARED ? 's' : 'p',
				 m->pgoff, m->maj, m->min, m->ino);
		at += (size_t)n;
		if (m->path[0])	/* the kernel starts names in column 74 */
			at += (size_t)snprintf(t + at, cap - at, "%*s%s", n < 73 ? 73 - n : 0, "",
					       m->path);
		t[at++] = '\n';
	}
	t[at] = 0;
	*len = at;
	return t;
}

void perf_maps_free(struct perf_maps *pm)
{
	for (size_t i = 0; i < pm->n; i++) {
		for (size_t j = 0; j < pm->p[i].n; j++)
			free(pm->p[i].m[j].path);
		free(pm->p[i].m);
	}
	free(pm->p);
	memset(pm, 0, sizeof(*pm));
}
