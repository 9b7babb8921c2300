/* maps_snapshot.c - MAPS chunks: /proc/PID/maps of every traced process
 * (the target, each forked child, each process with samples) whenever it
 * changed, with valgrind's guest stack named [stack]. */
#include "record/recorder_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/maps.h"
#include "trace/format.h"
#include "trace/writer.h"

/*
 * Names the anonymous line of text that maps addr "[stack]", padded like
 * the kernel pads names.  Returns the new text (old one freed) and length.
 */
static char *name_stack_line(char *text, size_t *len, uint64_t addr)
{
	struct mt_maps maps;
	const struct mt_mapping *m;
	char head[48];
	size_t hl = 0;

	mt_maps_parse(&maps, text, *len);
	m = mt_maps_find(&maps, addr);
	if (m && !m->path[0])	/* named already (or unmapped): leave it */
		hl = (size_t)snprintf(head, sizeof(head), "%08" PRIx64 "-%08" PRIx64 " ",
				      m->start, m->end);
	mt_maps_destroy(&maps);
	for (size_t at = 0; hl && at < *len;) {
		char *nl = memchr(text + at, '\n', *len - at);
		size_t end = nl ? (size_t)(nl - text) : *len, keep = end;

		if (end - at < hl || memcmp(text + at, head, hl)) {
			at = end + 1;
			continue;
		}
		while (keep > at && text[keep - 1] == ' ')
			keep--;
		/* the kernel starts names in column 73 */
		char tag[96];
		size_t col = keep - at + 1;
		int tl = snprintf(tag, sizeof(tag), "%*s[stack]", col < 73 ? (int)(74 - col) : 1, "");
		char *out = mt_xmalloc(keep + (size_t)tl + (*len - end) + 1);

		memcpy(out, text, keep);
		memcpy(out + keep, tag, (size_t)tl);
		memcpy(out + keep + tl, text + end, *len - end);
		*len = keep + (size_t)tl + (*len - end);
		free(text);
		return out;
	}
	return text;
}

/* The whole of /proc/PID/maps, or NULL when the process is gone. */
static char *read_maps(pid_t pid, size_t *lenp)
{
	char path[64], *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 65536;
			text = mt_xrealloc(text, cap);
		}
		size_t k = fread(text + len, 1, cap - len, f);
		len += k;
		if (!k)
			break;
	}
	fclose(f);
	if (!len) {		/* a zombie has no mappings: gone, not empty */
		free(text);
		return NULL;
	}
	*lenp = len;
	return text;
}

void recorder_offline(struct recorder *r)
{
	r->offline = 1;
}

int recorder_put_maps(struct recorder *r, uint64_t time, pid_t pid, const char *text,
		      size_t len)
{
	if (len + MAPS_HDR_SIZE > CHUNK_MAX_LEN)
		len = CHUNK_MAX_LEN - MAPS_HDR_SIZE;
	/* the process's name first (the resolver names its executable by it) */
	if (recorder_flush_threads(r))
		return -1;
	return trace_write_maps(r->w, time, (uint32_t)pid, text, len);
}

int maps_snapshot(struct recorder *r, int i, uint64_t now)
{
	size_t len = 0;
	char *text = r->offline ? NULL : read_maps(r->maps_pid[i], &len);

	if (!text) {		/* the process is gone: nothing to snapshot */
		free(r->maps_text[i]);
		r->maps_text[i] = NULL;
		return 0;
	}
	if (r->maps_stack[i])
		text = name_stack_line(text, &len, r->maps_stack[i]);
	if (r->maps_text[i] && strlen(r->maps_text[i]) == len &&
	    !memcmp(r->maps_text[i], text, len)) {
		free(text);
		return 0;
	}
	if (len + MAPS_HDR_SIZE > CHUNK_MAX_LEN)
		len = CHUNK_MAX_LEN - MAPS_HDR_SIZE;
	int rc = trace_write_maps(r->w, now, (uint32_t)r->maps_pid[i], text, len);
	r->maps_at[i] = now;
	free(r->maps_text[i]);
	text = mt_xrealloc(text, len + 1);
	text[len] = 0;
	r->maps_text[i] = text;
	return rc;
}

int maps_index(struct recorder *r, pid_t pid)
{
	if (r->maps_hit < r->nmaps && r->maps_pid[r->maps_hit] == pid)
		return r->maps_hit;
	for (int i = 0; i < r->nmaps; i++)
		if (r->maps_pid[i] == pid)
			return r->maps_hit = i;
	if (r->nmaps == MAX_MAPS_PIDS)
		return -1;
	if (r->nmaps == r->maps_cap) {
		r->maps_cap = r->maps_cap ? 2 * r->maps_cap : 16;
		r->maps_pid = mt_xrealloc(r->maps_pid, (size_t)r->maps_cap * sizeof(*r->maps_pid));
		r->maps_text = mt_xrealloc(r->maps_text, (size_t)r->maps_cap * sizeof(*r->maps_text));
		r->maps_dirty = mt_xrealloc(r->maps_dirty,
					    (size_t)r->maps_cap * sizeof(*r->maps_dirty));
		r->maps_stack = mt_xrealloc(r->maps_stack,
					    (size_t)r->maps_cap * sizeof(*r->maps_stack));
		r->maps_at = mt_xrealloc(r->maps_at, (size_t)r->maps_cap * sizeof(*r->maps_at));
		r->maps_comm = mt_xrealloc(r->maps_comm,
					   (size_t)r->maps_cap * sizeof(*r->maps_comm));
	}
	r->maps_pid[r->nmaps] = pid;
	r->maps_text[r->nmaps] = NULL;
	r->maps_dirty[r->nmaps] = 1;
	r->maps_stack[r->nmaps] = 0;
	r->maps_at[r->nmaps] = 0;
	r->maps_comm[r->nmaps][0] = 0;
	return r->maps_hit = r->nmaps++;
}

void recorder_name_stack(struct recorder *r, pid_t pid, uint64_t addr)
{
	int i = maps_index(r, pid);

	if (i >= 0 && r->maps_stack[i] != addr) {
		r->maps_stack[i] = addr;
		r->maps_dirty[i] = 1;
	}
}

void recorder_maps_changed(struct recorder *r, pid_t pid)
{
	int i = r->offline ? -1 : maps_index(r, pid);

	if (i >= 0)
		r->maps_dirty[i] = 1;
}

int recorder_snapshot_maps(struct recorder *r, pid_t pid, uint64_t time)
{
	int i = r->offline ? -1 : maps_index(r, pid);

	if (i < 0)
		return 0;
	r->maps_dirty[i] = 0;
	return maps_snapshot(r, i, time);
}

uint64_t recorder_maps_time(struct recorder *r, pid_t pid)
{
	for (int i = 0; i < r->nmaps; i++)
		if (r->maps_pid[i] == pid)
			return r->maps_at[i];
	/* swept since it exited: the latest of its entries */
	for (unsigned k = 1; k <= MAPS_GONE_KEPT; k++) {
		unsigned j = (r->maps_gone_next - k) % MAPS_GONE_KEPT;
		if (r->maps_gone[j].pid == pid)
			return r->maps_gone[j].at;
	}
	return 0;
}

/*
 * Processes that are gone leave the table with their last maps text, so
 * that it holds the processes alive now (and the target), not every process
 * a long recording ever saw: a busy fork loop would otherwise fill
 * MAX_MAPS_PIDS entries of ~10-100 KB each, and later processes would get
 * no snapshot.  A late sample of a gone pid adds it again, without text
 * (its maps can no longer be read), until the next sweep.
 */
static void maps_forget_gone(struct recorder *r)
{
	int n = 0;

	for (int i = 0; i < r->nmaps; i++) {
		if (r->maps_pid[i] != r->target && kill(r->maps_pid[i], 0) && errno == ESRCH) {
			free(r->maps_text[i]);
			if (r->maps_at[i]) {
				unsigned j = r->maps_gone_next++ % MAPS_GONE_KEPT;
				r->maps_gone[j].pid = r->maps_pid[i];
				r->maps_gone[j].at = r->maps_at[i];
			}
			continue;
		}
		r->maps_pid[n] = r->maps_pid[i];
		r->maps_text[n] = r->maps_text[i];
		r->maps_dirty[n] = r->maps_dirty[i];
		r->maps_stack[n] = r->maps_stack[i];
		r->maps_at[n] = r->maps_at[i];
		memcpy(r->maps_comm[n], r->maps_comm[i], sizeof(r->maps_comm[n]));
		n++;
	}
	r->nmaps = n;
	r->maps_hit = 0;
}

int maps_flush_dirty(struct recorder *r, uint64_t now)
{
	int rc = 0;
	uint64_t wall = mt_now_ns();

	/* live recordings: the pids are this machine's processes */
	if (r->horizon && wall - r->maps_swept_at >= MAPS_SWEEP_EVERY_NS) {
		maps_forget_gone(r);
		r->maps_swept_at = wall;
	}

	for (int i = 0; i < r->nmaps; i++) {
		if (r->maps_dirty[i]) {
			r->maps_dirty[i] = 0;
			rc |= maps_snapshot(r, i, now);
		}
	}
	return rc;
}

/*
 * Address spaces are keyed with each process's own maps (docs/design.md):
 * a process that shows up in the samples without a fork or mmap event seen
 * (attached to while running, -a) is snapshotted at the next tick.
 */
void maps_note_samples(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	pid_t prev = 0;

	for (size_t i = 0; i < n; i++) {
		pid_t pid = (pid_t)s[i].pid;
		if (pid == prev || pid <= 0)
			continue;
		prev = pid;
		maps_index(r, pid);	/* new entries start dirty; maps_hit answers a repeat */
	}
}

void maps_note_comm(struct recorder *r, pid_t pid, const char *comm)
{
	int i = r->offline || pid <= 0 ? -1 : maps_index(r, pid);

	if (i >= 0)
		snprintf(r->maps_comm[i], sizeof(r->maps_comm[i]), "%.15s", comm);
}

/*
 * A new file (--switch-output) stands on its own: each process's name
 * (THREADS, read before the MAPS chunk that names its executable by it) and
 * maps as they are now, or as last seen if it is gone (late samples may
 * still come).
 */
int maps_rewrite_all(struct recorder *r, uint64_t now)
{
	int rc = 0;

	for (int i = 0; i < r->nmaps; i++)
		if (r->maps_comm[i][0]) {
			trace_thread_rec_put(&r->threads, now, (uint32_t)r->maps_pid[i],
					     (uint32_t)r->maps_pid[i], r->maps_comm[i]);
			r->nthreads++;
		}
	if (recorder_flush_threads(r))
		return -1;
	for (int i = 0; i < r->nmaps; i++) {
		char *old = r->maps_text[i];

		r->maps_text[i] = NULL;	/* never "unchanged": this file has none yet */
		r->maps_dirty[i] = 0;
		rc |= maps_snapshot(r, i, now);
		if (!r->maps_text[i] && old) {
			rc |= trace_write_maps(r->w, now, (uint32_t)r->maps_pid[i], old, strlen(old));
			r->maps_at[i] = now;
			r->maps_text[i] = old;
		} else {
			free(old);
		}
	}
	return rc ? -1 : 0;
}

void maps_free(struct recorder *r)
{
	for (int i = 0; i < r->nmaps; i++)
		free(r->maps_text[i]);
	free(r->maps_text);
	free(r->maps_pid);
	free(r->maps_dirty);
	free(r->maps_stack);
	free(r->maps_at);
	free(r->maps_comm);
}
