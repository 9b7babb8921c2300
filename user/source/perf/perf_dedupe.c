/* perf_dedupe.c - one count per fault when a task is covered twice
 * (see perf_dedupe.h for why and how). */
#include "source/perf/perf_dedupe.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/search.h"

void dedupe_init(struct dedupe *d, int nrings)
{
	memset(d, 0, sizeof(*d));
	d->nrings = nrings;
	d->last = mt_xcalloc((size_t)(nrings > 0 ? nrings : 1), sizeof(*d->last));
}

void dedupe_free(struct dedupe *d)
{
	free(d->ev);
	free(d->last);
	free(d->held);
	free(d->mins);
	memset(d, 0, sizeof(*d));
}

void dedupe_add_event(struct dedupe *d, uint64_t id, pid_t owner, int cpu, bool suspect)
{
	if (d->nev == d->evcap) {
		d->evcap = d->evcap ? d->evcap * 2 : 256;
		d->ev = mt_xrealloc(d->ev, d->evcap * sizeof(*d->ev));
	}
	size_t i = d->nev++;
	/* ids come ascending; keep the array sorted if one ever does not */
	while (i && d->ev[i - 1].id > id) {
		d->ev[i] = d->ev[i - 1];
		i--;
	}
	d->ev[i] = (struct dedupe_event){ .id = id, .owner = owner, .cpu = cpu, .suspect = suspect };
	if (suspect)
		d->active = true;
}

static struct dedupe_event *find_event(struct dedupe *d, uint64_t id)
{
	size_t lo = 0, hi = d->nev;

	MT_PARTITION_POINT(lo, hi, mid, d->ev[mid].id < id);
	return lo < d->nev && d->ev[lo].id == id ? &d->ev[lo] : NULL;
}

/* ---- smallest id per (tid, cpu): open addressing ----------------------- */

static uint64_t min_key(uint32_t tid, uint32_t cpu)
{
	return (uint64_t)tid << 20 | (cpu & 0xfffff);
}

static struct dedupe_min *min_slot(struct dedupe *d, uint64_t key, bool insert);

/*
 * Rebuilt when half full, without the (tid, cpu) pairs of exited tasks
 * (id UINT64_MAX: the same as absent), at a load of at most 1/4: the table
 * follows the tasks alive, not every task a long recording saw.
 */
static void min_grow(struct dedupe *d)
{
	struct dedupe_min *old = d->mins;
	size_t oldcap = d->mincap, live = 0;

	for (size_t i = 0; i < oldcap; i++)
		live += old[i].key && old[i].id != UINT64_MAX;
	d->mincap = 1024;
	while (d->mincap < (live + 1) * 4)
		d->mincap *= 2;
	d->mins = mt_xcalloc(d->mincap, sizeof(*d->mins));
	d->nmins = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key && old[i].id != UINT64_MAX)
			*min_slot(d, old[i].key, true) = old[i];
	free(old);
}

static struct dedupe_min *min_slot(struct dedupe *d, uint64_t key, bool insert)
{
	if (insert && (d->nmins + 1) * 2 > d->mincap)
		min_grow(d);
	if (!d->mincap)
		return NULL;
	size_t mask = d->mincap - 1, i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 17) & mask;
	while (d->mins[i].key && d->mins[i].key != key)
		i = (i + 1) & mask;
	if (!d->mins[i].key) {
		if (!insert)
			return NULL;
		d->mins[i].key = key;
		d->mins[i].id = UINT64_MAX;
		d->nmins++;
	}
	return &d->mins[i];
}

/* ---- the filter -------------------------------------------------------- */

static bool same_sample(const struct dedupe_last *l, const struct memtrace_sample *s)
{
	return l->valid && l->tid == s->tid && l->cpu == s->cpu && l->time == s->time &&
	       l->addr == s->addr;
}

/* tid runs with two copies on cpu: its own event there (if any, and opened
 * after it was born) is the newer lineage. */
static void own_event_redundant(struct dedupe *d, uint32_t tid, uint32_t cpu)
{
	for (size_t i = 0; i < d->nev; i++) {
		struct dedupe_event *e = &d->ev[i];
		if (e->suspect && !e->redundant && (uint32_t)e->owner == tid &&
		    (uint32_t)e->cpu == cpu) {
			e->redundant = true;
			d->redundant_events++;
		}
	}
}

enum dedupe_verdict dedupe_sample(struct dedupe *d, int ring, const struct memtrace_sample *s,
				  uint64_t id, uint64_t gen)
{
	if (!d->active)
		return DEDUPE_PASS;
	struct dedupe_last *l = &d->last[ring >= 0 && ring < d->nrings ? ring : 0];

	if (same_sample(l, s)) {
		d->dropped_copies++;
		for (size_t i = d->nheld; i-- > 0;) {
			struct memtrace_sample *h = &d->held[i].s;
			if (h->tid == s->tid && h->cpu == s->cpu && h->time == s->time &&
			    h->addr == s->addr) {
				d->held[i].paired = true;
				break;
			}
		}
		own_event_redundant(d, s->tid, s->cpu);
		return DEDUPE_DROP;
	}
	*l = (struct dedupe_last){ .valid = true, .tid = s->tid, .cpu = s->cpu, .time = s->time,
				   .addr = s->addr };
	struct dedupe_min *m = min_slot(d, min_key(s->tid, s->cpu), true);
	if (id < m->id)
		m->id = id;
	/*
	 * No verdict on the id yet, even for a redundant one: with shared
	 * sample data both copies carry the id of whichever event fired first,
	 * and the one sample of the pair that stays must be kept.
	 */
	if (d->nheld == d->heldcap) {
		d->heldcap = d->heldcap ? d->heldcap * 2 : 4096;
		d->held = mt_xrealloc(d->held, d->heldcap * sizeof(*d->held));
	}
	d->held[d->nheld++] = (struct dedupe_held){ .s = *s, .id = id, .gen = gen };
	return DEDUPE_HELD;
}

void dedupe_exit(struct dedupe *d, pid_t tid)
{
	if (!d->active)
		return;
	for (int cpu = 0; cpu < d->nrings; cpu++) {
		struct dedupe_min *m = min_slot(d, min_key((uint32_t)tid, (uint32_t)cpu), false);
		if (m)
			m->id = UINT64_MAX;
	}
}

/*
 * A held sample that had no identical copy: a duplicate when its task on
 * its cpu also showed an older lineage (a smaller id).
 */
static bool lone_is_duplicate(struct dedupe *d, const struct dedupe_held *h)
{
	struct dedupe_event *e = find_event(d, h->id);

	if (!e || !e->suspect)
		return false;
	struct dedupe_min *m = min_slot(d, min_key(h->s.tid, h->s.cpu), false);
	if (!m || m->id >= h->id)
		return false;
	if (!e->redundant) {
		e->redundant = true;
		d->redundant_events++;
	}
	d->dropped_lineage++;
	return true;
}

size_t dedupe_release(struct dedupe *d, uint64_t gen, bool all, struct memtrace_sample *out,
		      size_t max)
{
	size_t i = 0, n = 0;

	/* held samples are in the order read, so the due ones are a prefix */
	while (i < d->nheld && n < max && (all || d->held[i].gen < gen)) {
		const struct dedupe_held *h = &d->held[i++];
		if (h->paired || !lone_is_duplicate(d, h))
			out[n++] = h->s;
	}
	if (i)	/* none held: held may be NULL, no memmove of it */
		memmove(d->held, d->held + i, (d->nheld - i) * sizeof(*d->held));
	d->nheld -= i;
	return n;
}

uint64_t dedupe_oldest(const struct dedupe *d)
{
	uint64_t t = UINT64_MAX;

	for (size_t i = 0; i < d->nheld; i++)
		if (d->held[i].s.time < t)
			t = d->held[i].s.time;
	return t;
}

int dedupe_next_redundant(struct dedupe *d)
{
	for (size_t i = 0; i < d->nev; i++)
		if (d->ev[i].redundant && !d->ev[i].reported) {
			d->ev[i].reported = true;
			return (int)i;
		}
	return -1;
}
