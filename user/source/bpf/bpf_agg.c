/* bpf_agg.c - record --aggregate on the bpf backend: sample.bpf.c counts
 * accesses per (interval, pid, bucket) in the agg hash map; every drain
 * reads the map (one batch lookup), takes the keys of the intervals that
 * have ended, deletes them (a batch delete: an open interval's keys are
 * never deleted, so no increment of the kernel is lost) and writes one AGG
 * chunk per interval (trace/format.h, docs/trace-format.md) with the
 * kernel's per-interval counts: samples, and those whose new bucket found
 * the map full.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source/bpf/bpf_agg.h"
#include "source/bpf/bpf_session.h"
#include "record/recorder.h"
#include "trace/agg.h"
#include "util/util.h"
#include "source/bpf/sample.h"
#include "sample.skel.h"

#define AGG_BATCH	4096		/* keys per batch lookup */
#define AGG_GRACE_NS	10000000ull	/* an interval is closed this long after its end */

struct agg_row {
	struct mt_agg_key key;
	uint64_t count;
};

struct bpf_agg {
	uint64_t interval;	/* ns */
	unsigned shift;
	uint32_t entries;	/* of the map */
	uint32_t done;		/* intervals up to this one are written */
	uint64_t origin;
	struct agg_row *rows;	/* read, of closed intervals, not written yet */
	size_t nrows, cap;
	struct mt_agg_key *keys, *del;
	uint64_t *vals;
	struct mt_agg_slot *slots;	/* one per CPU */
	uint64_t full, samples;	/* whole recording */
};

int bpf_agg_setup(struct bpf_session *s, const struct record_opts *o)
{
	struct bpf_agg *a;

	if (!o->aggregate)
		return 0;
	a = s->agg = mt_xcalloc(1, sizeof(*a));
	a->interval = o->aggregate;
	a->shift = 12;
	a->entries = o->ring_records ? o->ring_records : MT_AGG_DEFAULT_ENTRIES;
	a->keys = mt_xcalloc(AGG_BATCH, sizeof(*a->keys));
	a->del = mt_xcalloc(AGG_BATCH, sizeof(*a->del));
	a->vals = mt_xcalloc(AGG_BATCH, sizeof(*a->vals));
	a->slots = mt_xcalloc((size_t)s->ncpus, sizeof(*a->slots));
	s->skel->rodata->aggregate = true;
	s->skel->rodata->agg_interval = a->interval;
	s->skel->rodata->agg_shift = a->shift;
	bpf_map__set_max_entries(s->skel->maps.agg, a->entries);
	return 0;
}

void bpf_agg_meta(struct bpf_session *s, struct recorder *r)
{
	if (!s->agg)
		return;
	recorder_meta(r, "aggregate", "%llu", (unsigned long long)s->agg->interval);
	recorder_meta(r, "aggregate_entries", "%u", s->agg->entries);
	recorder_meta(r, "bucket_default", "%u", 1u << s->agg->shift);
}

void bpf_agg_begin(struct bpf_session *s, uint64_t start)
{
	if (!s->agg)
		return;
	s->agg->origin = start;
	s->skel->bss->agg_origin = start;
}

/* Interval k's kernel counts, summed over the CPUs that saw it. */
static int slot_counts(struct bpf_session *s, uint32_t k, uint64_t *samples, uint64_t *full)
{
	struct bpf_agg *a = s->agg;
	uint32_t slot = k % MT_AGG_SLOTS;

	*samples = *full = 0;
	if (bpf_map__lookup_elem(s->skel->maps.agg_slots, &slot, sizeof(slot), a->slots,
				 sizeof(*a->slots) * (size_t)s->ncpus, 0))
		return -1;
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		if (a->slots[cpu].k == k) {
			*samples += a->slots[cpu].samples;
			*full += a->slots[cpu].full;
		}
	return 0;
}

static int by_key(const void *x, const void *y)
{
	const struct mt_agg_key *p = &((const struct agg_row *)x)->key;
	const struct mt_agg_key *q = &((const struct agg_row *)y)->key;

	if (p->k != q->k)
		return p->k < q->k ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return (p->bucket > q->bucket) - (p->bucket < q->bucket);
}

/* Interval k's AGG chunk from rows[0..n) (sorted, all of interval k). */
static int write_interval(struct bpf_session *s, uint32_t k, const struct agg_row *rows, size_t n,
			  uint64_t now)
{
	struct bpf_agg *a = s->agg;
	uint64_t samples, full, counted = 0, t = a->origin + (uint64_t)k * a->interval;
	uint32_t last_pid = 0;

	if (slot_counts(s, k, &samples, &full))
		return -1;
	size_t len = AGG_HDR_SIZE + n * AGG_ROW_SIZE;
	unsigned char *buf = mt_xcalloc(1, len), *p = buf + AGG_HDR_SIZE;
	for (size_t i = 0; i < n; i++, p += AGG_ROW_SIZE) {
		trace_agg_put_row(p, rows[i].key.bucket << a->shift, rows[i].count, rows[i].key.pid);
		counted += rows[i].count;
		/* a process we have no maps of yet (forked, joined the cgroup), as sample.c's on_rec */
		if (!s->o->system_wide && rows[i].key.pid != last_pid) {
			last_pid = rows[i].key.pid;
			if (pid_set_add(&s->maps_seen, (pid_t)last_pid))
				recorder_maps_changed(s->r, (pid_t)last_pid);
		}
	}
	/* the slot was reused (the collector fell MT_AGG_SLOTS intervals behind):
	 * what the rows count is all that is known */
	if (samples < counted + full)
		samples = counted + full;
	trace_agg_put_header(buf, &(struct trace_agg){ .interval = a->interval, .time = t,
						       .samples = samples, .full = full, .rows = n,
						       .shift = a->shift });
	a->samples += samples;
	a->full += full;
	/* the last interval ends after the recording: END's end stays now */
	int rc = recorder_add_agg(s->r, buf, len, (uint32_t)n, counted, t < now ? t : now);
	if (!rc && full)	/* like ring drops: LOST records, in END's lost */
		rc = recorder_add_lost(s->r, t, 0, full, 0);
	free(buf);
	return rc;
}

/* The map's keys of intervals <= closed into a->rows; deleted from the map. */
static int read_closed(struct bpf_session *s, uint32_t closed)
{
	struct bpf_agg *a = s->agg;
	int fd = bpf_map__fd(s->skel->maps.agg);
	uint64_t cursor[2] = { 0 };	/* the hash map's batch token: a bucket number */
	bool first = true, more = true;

	while (more) {
		uint32_t n = AGG_BATCH, ndel = 0;
		int rc = bpf_map_lookup_batch(fd, first ? NULL : cursor, cursor, a->keys, a->vals,
					      &n, NULL);
		if (rc && errno != ENOENT) {
			mt_errno("reading the BPF bucket map");
			return -1;
		}
		more = !rc;
		first = false;
		for (uint32_t i = 0; i < n; i++) {
			if (a->keys[i].k > closed)
				continue;
			if (a->nrows == a->cap) {
				a->cap = a->cap ? 2 * a->cap : 4096;
				a->rows = mt_xrealloc(a->rows, a->cap * sizeof(*a->rows));
			}
			a->rows[a->nrows++] = (struct agg_row){ a->keys[i], a->vals[i] };
			a->del[ndel++] = a->keys[i];
		}
		if (ndel && bpf_map_delete_batch(fd, a->del, &ndel, NULL)) {
			mt_errno("deleting from the BPF bucket map");
			return -1;
		}
	}
	return 0;
}

int bpf_agg_drain(struct bpf_session *s, uint64_t now, bool final)
{
	struct bpf_agg *a = s->agg;
	uint32_t closed;

	if (!a || !a->origin)
		return 0;
	if (final)	/* the events are off: every interval up to now */
		closed = (uint32_t)((now - a->origin + a->interval - 1) / a->interval);
	else if (now < a->origin + a->interval + AGG_GRACE_NS)
		return 0;
	else
		closed = (uint32_t)((now - AGG_GRACE_NS - a->origin) / a->interval);
	if (closed <= a->done)
		return 0;
	if (read_closed(s, closed))
		return -1;
	qsort(a->rows, a->nrows, sizeof(*a->rows), by_key);
	size_t i = 0;
	for (uint32_t k = a->done + 1; k <= closed; k++) {
		size_t j = i;
		while (j < a->nrows && a->rows[j].key.k == k)
			j++;
		uint64_t samples, full;
		/* an interval without rows: written only if the map was full in it */
		if (j > i || (!slot_counts(s, k, &samples, &full) && full)) {
			if (write_interval(s, k, a->rows + i, j - i, now))
				return -1;
		}
		i = j;
	}
	a->nrows = 0;
	a->done = closed;
	return 0;
}

void bpf_agg_say(struct bpf_session *s)
{
	struct bpf_agg *a = s->agg;

	if (a && (a->full || getenv("MEMTRACE_BPF_COUNTS")))
		fprintf(stderr, "memtracectl: bpf --aggregate: %llu samples counted, %llu of them "
			"not kept (bucket map of %u entries full; --ring N for a larger one)\n",
			(unsigned long long)a->samples, (unsigned long long)a->full, a->entries);
}

void bpf_agg_free(struct bpf_session *s)
{
	struct bpf_agg *a = s->agg;

	if (!a)
		return;
	free(a->rows);
	free(a->keys);
	free(a->del);
	free(a->vals);
	free(a->slots);
	free(a);
	s->agg = NULL;
}
