/* wss_spatial.h - what a sampled window's buckets and instructions say
 * beyond their sample counts (engine/wss_est.h uses both):
 *
 * - gap buckets: the unseen buckets that lie in a gap of at most
 *   WSS_SPATIAL_GAP buckets between two buckets the window's samples hit,
 *   and that a sample hit somewhere else in the stream (a scan's or a
 *   table's unseen pages lie between seen ones; a bucket no sample ever hit
 *   is more likely a hole of the layout than a missed page);
 * - instructions: the distinct instruction pointers of the window's samples
 *   (a fixed sampling period that aliases with a loop samples one or two of
 *   its instructions only);
 * - the window's buckets sampled exactly once, twice and three times
 *   (f1, f2, f3; engine/wss_est.h judges from them whether the window's
 *   sample counts look like one population or a mixture);
 * - tail samples: the window's samples from *tail instructions*, those with
 *   at least WSS_SPATIAL_TAIL_MIN samples in the stream whose own Chao1
 *   estimate of the buckets they touch (f1 (f1 - 1) / (2 (f2 + 1)) unseen,
 *   counted per instruction over the whole stream) exceeds
 *   WSS_SPATIAL_TAIL_RATIO x the buckets they were seen at: an instruction
 *   that finds a new bucket at nearly every sample (a B-tree's leaf search,
 *   a hash table's probe) draws from far more buckets than a window samples,
 *   and a window whose samples come from it in part holds many buckets that
 *   left no sample and no singleton there.
 *
 * The samples of the stream are kept (time, bucket, ip: 24 bytes each, at
 * most WSS_SPATIAL_MAX of them; sampled streams only; a report gives the
 * store up before its first pass when the trace's SAMPLES chunks hold more
 * and no filter may keep fewer) and read again at
 * the end: the tail instructions from one sort of (ip, bucket) pairs, then
 * a window sliding over the samples (each enters and leaves once, hash maps
 * of the window's bucket and instruction counts; a bucket that becomes seen
 * or unseen changes the gap state of its neighbours within 2 only).
 */
#ifndef MEMTRACE_ENGINE_WSS_SPATIAL_H
#define MEMTRACE_ENGINE_WSS_SPATIAL_H

#include <stddef.h>
#include <stdint.h>

#include "uapi/memtrace.h"
#include "engine/wss.h"

#define WSS_SPATIAL_GAP	2		/* gaps of 1 or 2 buckets are filled */
#define WSS_SPATIAL_MAX	(8ull << 20)	/* samples kept; more: not computed */
#define WSS_SPATIAL_TAIL_MIN	10	/* samples of an instruction to judge it */
#define WSS_SPATIAL_TAIL_RATIO	2.0	/* its Chao1 / seen above this: a tail instruction */

struct wss_spatial_sample {
	uint64_t time, bucket, ip;
};

struct wss_spatial {
	struct wss_spatial_sample *v;
	size_t n, cap;
	uint64_t last_time;
	int over;	/* more than WSS_SPATIAL_MAX samples: nothing computed */
};

/* What wss_spatial_rows finds in one window. */
struct wss_spatial_row {
	uint64_t gap;		/* gap buckets */
	uint64_t ips;		/* distinct non-zero instruction pointers */
	uint64_t tail;		/* samples from tail instructions */
	uint64_t f1, f2, f3;	/* buckets with 1, 2, 3 samples in the window */
};

void wss_spatial_init(struct wss_spatial *sp);
void wss_spatial_free(struct wss_spatial *sp);

/* Keeps n samples (data addresses >> shift; times out of order count at the
 * latest time, as in engine/wss.h). */
void wss_spatial_add(struct wss_spatial *sp, const struct memtrace_sample *s, size_t n,
		     unsigned shift);

/* Keeps nothing from now on and frees what it kept (over): for a stream
 * known to hold more than WSS_SPATIAL_MAX samples before any is added. */
void wss_spatial_give_up(struct wss_spatial *sp);

/*
 * For the n rows of report indices rowk[] (ascending) of a series with
 * cfg's origin, window and interval: out[i] of the window (t_k - window,
 * t_k], t_k = origin + k * interval.  Returns 0, or -1 (nothing written)
 * when the samples were not kept (over).
 */
int wss_spatial_rows(const struct wss_spatial *sp, const struct wss_config *cfg,
		     const uint64_t *rowk, size_t n, struct wss_spatial_row *out);

#endif
