/* rotate.c - record --switch-output: the recording goes on in a new file
 * every SIZE bytes or TIME (or on SIGHUP), each file complete on its own.
 *
 * The switch happens at a tick: the samples merged up to the merge horizon
 * (now - 50 ms), the WINDOWS rows, the pending side chunks and an END chunk
 * with the file's own counts close the current file; the next one gets the
 * same HEADER (its own start_time, part = its number), the LABELS, and each
 * known process's name and maps as they are now.  Samples still pending
 * (later than the horizon) go to the next file: every sample is in exactly
 * one file, and the files' END samples add up to the recording's.
 * Files are named BASE.YYYYMMDD-hhmmss.mmm (UTC, the file's start; each
 * name later than the one before), and with --max-files N the oldest of
 * this recording's files beyond N are removed: never a file it did not make.
 */
#include "record/recorder_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/writer.h"

struct rotation {
	struct recorder_rotation cfg;
	char *base;
	unsigned flags;		/* WRITER_FORCE */
	char **names;		/* this recording's files on disk, oldest first: the
				 * last one is being written */
	unsigned nnames, part;	/* part: the current file's number, from 1 */
	uint64_t stamp_ms;	/* the current file's name stamp (UTC ms) */
	uint64_t opened_wall;	/* when the current file began (mt_now_ns) */
};

/* BASE.YYYYMMDD-hhmmss.mmm of now, later than the previous name's. */
static char *next_name(struct rotation *rot)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (ms <= rot->stamp_ms)
		ms = rot->stamp_ms + 1;
	rot->stamp_ms = ms;
	time_t t = (time_t)(ms / 1000);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	size_t len = strlen(rot->base) + strlen(stamp) + 8;
	char *name = mt_xmalloc(len);
	snprintf(name, len, "%s.%s.%03u", rot->base, stamp, (unsigned)(ms % 1000));
	return name;
}

/* name is in place: the oldest of ours beyond max_files go. */
static void keep_name(struct rotation *rot, char *name)
{
	rot->names = mt_xrealloc(rot->names, (rot->nnames + 1) * sizeof(*rot->names));
	rot->names[rot->nnames++] = name;
	while (rot->cfg.max_files && rot->nnames > rot->cfg.max_files) {
		if (unlink(rot->names[0]) && errno != ENOENT)
			mt_warn("--max-files: cannot remove %s: %s", rot->names[0], strerror(errno));
		free(rot->names[0]);
		memmove(rot->names, rot->names + 1, --rot->nnames * sizeof(*rot->names));
	}
}

struct recorder *recorder_open_rotating(const char *base, const char *command_line,
					unsigned flags, const struct recorder_rotation *cfg)
{
	struct rotation *rot = mt_xcalloc(1, sizeof(*rot));

	rot->cfg = *cfg;
	rot->base = mt_xstrdup(base);
	rot->flags = flags;
	char *name = next_name(rot);
	struct recorder *r = recorder_open(name, command_line, flags);
	if (!r) {
		free(name);
		free(rot->base);
		free(rot);
		return NULL;
	}
	r->rot = rot;
	rot->part = 1;
	rot->names = mt_xmalloc(sizeof(*rot->names));
	rot->names[rot->nnames++] = name;	/* published by the loop */
	rot->opened_wall = mt_now_ns();
	return r;
}

void rotate_begin_meta(struct recorder *r)
{
	recorder_meta(r, "part", "%u", r->rot->part);
}

int recorder_rotating(const struct recorder *r)
{
	return r->rot != NULL;
}

int recorder_rotate_due(const struct recorder *r, uint64_t wall)
{
	const struct rotation *rot = r->rot;

	if (!rot)
		return 0;
	return (rot->cfg.ns && wall - rot->opened_wall >= rot->cfg.ns) ||
	       (rot->cfg.bytes && trace_writer_bytes(r->w) >= rot->cfg.bytes);
}

const char *recorder_path(const struct recorder *r)
{
	return r->rot ? r->rot->names[r->rot->nnames - 1] : NULL;
}

unsigned recorder_files(const struct recorder *r)
{
	return r->rot ? r->rot->part : 1;
}

int recorder_rotate(struct recorder *r, uint64_t now)
{
	struct rotation *rot = r->rot;

	if (!rot || !r->begun || r->ended || !r->published || r->failed)
		return r->failed ? -1 : 0;
	char *name = next_name(rot);
	struct trace_writer *w = trace_writer_open_new(name, rot->flags);
	if (!w) {
		free(name);
		r->failed = 1;
		return -1;
	}
	/* the current file: everything up to the horizon, then its END */
	uint64_t limit = now > r->horizon ? now - r->horizon : 0;
	int rc = merge_flush(r, limit, 1);
	rc |= live_wss_write(r, 1);
	rc |= recorder_flush_sides(r, limit);
	uint64_t end = limit > r->last_time ? limit : r->last_time;
	rc |= recorder_gaps_file_end(r, end);	/* a gap under way: this file's share */
	rc |= recorder_write_end(r, "switch-output", end);
	if (rc) {		/* a write error: the recording stops in this file */
		trace_writer_close(w);
		free(name);
		r->failed = 1;
		return -1;
	}
	rc = trace_writer_close(r->w);
	r->w = w;
	if (trace_writer_publish(w)) {
		free(name);
		r->failed = 1;
		return -1;
	}
	keep_name(rot, name);
	rot->part++;
	rot->opened_wall = mt_now_ns();
	r->file_samples0 = r->samples;
	r->file_lost0 = r->total_lost;
	r->file_throttled0 = r->total_throttled;
	r->file_dropped0 = r->dropped;

	/* the next file: the same HEADER but for its start and number */
	char now_text[64];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now_text, sizeof(now_text), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* once begun, recorder_meta replaces a key's value */
	recorder_meta(r, "start_realtime", "%s", now_text);
	recorder_meta(r, "start_time", "%llu", (unsigned long long)end);
	recorder_meta(r, "part", "%u", rot->part);
	rc |= recorder_write_head(r);
	rc |= maps_rewrite_all(r, end);
	if (rc)
		r->failed = 1;
	return rc ? -1 : 0;
}

void rotate_free(struct recorder *r)
{
	struct rotation *rot = r->rot;

	if (!rot)
		return;
	for (unsigned i = 0; i < rot->nnames; i++)
		free(rot->names[i]);
	free(rot->names);
	free(rot->base);
	free(rot);
	r->rot = NULL;
}
