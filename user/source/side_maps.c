/* side_maps.c - MAPS chunks of short-lived processes from the side-band
 * records (side_maps.h). */
#include "source/side_maps.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"

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

int side_maps_record(struct perf_maps *pm, struct recorder *r,
		     const struct perf_event_header *h, uint64_t time)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t len = h->size > sizeof(*h) ? h->size - sizeof(*h) : 0;
	uint32_t w[4];

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		perf_maps_mmap_record(pm, h, time);
		break;
	case PERF_RECORD_COMM:
		if (len > 8) {
			memcpy(w, p, 8);	/* pid, tid, comm */
			if (w[0] != w[1])
				break;
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
				perf_maps_exec(pm, w[0], time);
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
				perf_maps_fork(pm, w[1], w[0], time);
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
