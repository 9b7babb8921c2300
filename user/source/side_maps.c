/* side_maps.c - MAPS chunks of short-lived processes from the side-band
 * records (side_maps.h). */
#include "source/side_maps.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"
#include "util/util.h"

/* Records this close to a drain's start may still be on their way into a
 * ring read before them (a vCPU preempted between stamping and writing). */
#define SIDE_MARGIN_NS	100000000ull

/* pid exited: its maps from the records, if /proc never showed them. */
static int gone(struct perf_maps *pm, struct recorder *r, uint32_t pid)
{
	struct perf_pid_maps *p = perf_maps_find(pm, pid);
	int rc = 0;

	if (p && p->whole && p->n && recorder_maps_time(r, (pid_t)pid) < p->born) {
		size_t len;
		char *text = perf_maps_text(p, &len);

		/* its name as the records tell it (/proc may have been gone when
		 * its fork was read): the resolver names the executable by it */
		if (p->comm[0])
			recorder_note_thread(r, p->born, pid, pid, p->comm);

		rc = recorder_put_maps(r, p->born, (pid_t)pid, text, len);
		free(text);
	}
	perf_maps_forget(pm, pid);
	return rc;
}

static int apply(struct perf_maps *pm, struct recorder *r, const struct side_rec *q)
{
	const struct perf_event_header *h = q->h;
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t len = h->size > sizeof(*h) ? h->size - sizeof(*h) : 0;
	uint32_t w[4];

	if (len < 8)
		return 0;
	memcpy(w, p, 8);		/* pid, and tid (ppid for a fork) */
	if (!q->tracked && !perf_maps_find(pm, h->type == PERF_RECORD_FORK ? w[1] : w[0]))
		return 0;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		perf_maps_mmap_record(pm, h, q->time);
		break;
	case PERF_RECORD_COMM:
		if (len > 8 && w[0] == w[1]) {	/* pid, tid, comm */
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
				perf_maps_exec(pm, w[0], q->time);
			struct perf_pid_maps *x = perf_maps_find(pm, w[0]);
			if (x)
				snprintf(x->comm, sizeof(x->comm), "%.*s",
					 (int)strnlen((const char *)p + 8, len - 8), (const char *)p + 8);
		}
		break;
	case PERF_RECORD_FORK:
		if (len >= 16) {
			memcpy(w, p, 16);	/* pid, ppid, tid, ptid */
			if (w[0] != w[1])
				perf_maps_fork(pm, w[1], w[0], q->time);
		}
		break;
	case PERF_RECORD_EXIT:
		if (len >= 16) {
			memcpy(w, p, 16);	/* pid, ppid, tid, ptid */
			if (w[0] == w[2])
				return gone(pm, r, w[0]);
		}
		break;
	default:
		break;
	}
	return 0;
}

void side_maps_record(struct side_maps *sm, const struct perf_event_header *h,
		      uint64_t time, bool tracked)
{
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		break;
	default:
		return;
	}
	if (sm->nq == sm->cap) {
		sm->cap = sm->cap ? 2 * sm->cap : 64;
		sm->q = mt_xrealloc(sm->q, sm->cap * sizeof(*sm->q));
	}
	struct perf_event_header *copy = mt_xmalloc(h->size);
	memcpy(copy, h, h->size);
	sm->q[sm->nq++] = (struct side_rec){ .time = time, .seq = sm->seq++, .tracked = tracked,
					     .h = copy };
}

static int by_time(const void *a, const void *b)
{
	const struct side_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int side_maps_drained(struct side_maps *sm, struct recorder *r, uint64_t start, bool last)
{
	uint64_t horizon = start > SIDE_MARGIN_NS ? start - SIDE_MARGIN_NS : 0;
	size_t i = 0, keep = 0;
	int rc = 0;

	qsort(sm->q, sm->nq, sizeof(*sm->q), by_time);
	for (; i < sm->nq && (last || sm->q[i].time < horizon); i++) {
		if (apply(&sm->maps, r, &sm->q[i]))
			rc = -1;
		free(sm->q[i].h);
	}
	for (; i < sm->nq; i++)
		sm->q[keep++] = sm->q[i];
	sm->nq = keep;
	return rc;
}

void side_maps_free(struct side_maps *sm)
{
	perf_maps_free(&sm->maps);
	for (size_t i = 0; i < sm->nq; i++)
		free(sm->q[i].h);
	free(sm->q);
	memset(sm, 0, sizeof(*sm));
}
