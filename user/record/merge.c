/* merge.c - samples of several streams into SAMPLES chunks in time order.
 *
 * Streams hand samples time-ordered within a call but in any order across
 * calls; samples wait in pending[] until they are older than the merge
 * horizon (50 ms for ns time, 0 for instruction time, which comes ordered).
 */
#include "record/recorder_impl.h"

#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "trace/writer.h"

int recorder_add_samples(struct recorder *r, const struct memtrace_sample *s, size_t n)
{
	if (r->npending + n > r->pending_cap) {
		size_t cap = r->pending_cap ? r->pending_cap : 65536;
		while (cap < r->npending + n)
			cap *= 2;
		r->pending = mt_xrealloc(r->pending, cap * sizeof(*r->pending));
		r->pending_cap = cap;
	}
	memcpy(r->pending + r->npending, s, n * sizeof(*s));
	r->npending += n;
	/* live (ns) recordings only: an imported trace's pids are not this machine's */
	if (r->horizon && !r->offline)
		maps_note_samples(r, s, n);
	/* instruction-time streams are already ordered: write as they come */
	if (!r->horizon && r->npending >= CHUNK_MAX_SAMPLES)
		return recorder_tick(r, r->pending[r->npending - 1].time);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct memtrace_sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Writes pending samples with time <= limit, in time order. */
int merge_flush(struct recorder *r, uint64_t limit)
{
	if (!r->npending)
		return 0;
	if (r->horizon)
		qsort(r->pending, r->npending, sizeof(*r->pending), by_time);
	size_t n = 0;
	while (n < r->npending && r->pending[n].time <= limit)
		n++;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < CHUNK_MAX_SAMPLES ? n - done : CHUNK_MAX_SAMPLES;
		const struct memtrace_sample *s = r->pending + done;
		if (trace_write_samples(r->w, s, k, r->columns))
			return -1;
		live_wss_add(r, s, k);
		r->samples += k;
		r->last_time = s[k - 1].time;
		done += k;
	}
	if (n) {
		wss_emit_until(&r->live_code, r->last_time);
		wss_emit_until(&r->live_data, r->last_time);
	}
	memmove(r->pending, r->pending + n, (r->npending - n) * sizeof(*r->pending));
	r->npending -= n;
	return live_wss_write(r, 0);
}
