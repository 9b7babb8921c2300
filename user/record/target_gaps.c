/* target_gaps.c - record --pidfile: the stretches without a target, as
 * GAPS rows (recorder.h recorder_gap_begin, docs/trace-format.md). */
#include "record/recorder_impl.h"
#include "trace/format.h"
#include "trace/writer.h"

void recorder_gap_begin(struct recorder *r, uint64_t time, pid_t pid)
{
	if (r->gap_open)
		return;
	r->gap_open = 1;
	r->gap_from = time;
	r->gap_pid = (uint32_t)pid;
}

void recorder_gap_end(struct recorder *r, uint64_t time)
{
	if (!r->gap_open)
		return;
	r->gap_open = 0;
	uint64_t to = time > r->gap_from ? time : r->gap_from;
	trace_gap_rec_put(&r->gaps, r->gap_from, to, r->gap_pid, MEMTRACE_GAP_NO_TARGET);
	r->ngaps++;
	unsigned i = r->gap_recent_next++ % (sizeof(r->gap_recent) / sizeof(r->gap_recent[0]));
	r->gap_recent[i].from = r->gap_from;
	r->gap_recent[i].to = to;
}

int recorder_gap_overlaps(const struct recorder *r, uint64_t from, uint64_t to)
{
	if (r->gap_open && to > r->gap_from)
		return 1;
	for (unsigned i = 0; i < sizeof(r->gap_recent) / sizeof(r->gap_recent[0]); i++)
		if (r->gap_recent[i].to > r->gap_recent[i].from && to > r->gap_recent[i].from &&
		    from < r->gap_recent[i].to)
			return 1;
	return 0;
}

int recorder_gaps_flush(struct recorder *r)
{
	if (!r->ngaps)
		return 0;
	int rc = trace_write_chunk(r->w, CHUNK_GAPS, CODEC_STORED, r->gaps.data, r->gaps.len,
				   r->ngaps);
	r->gaps.len = 0;
	r->ngaps = 0;
	return rc ? -1 : 0;
}

int recorder_gaps_file_end(struct recorder *r, uint64_t end)
{
	if (r->gap_open) {	/* this file's share; the next one's from its start */
		pid_t pid = (pid_t)r->gap_pid;
		recorder_gap_end(r, end);
		recorder_gap_begin(r, end, pid);
	}
	return recorder_gaps_flush(r);
}
