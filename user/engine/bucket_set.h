/* bucket_set.h - which buckets a group (a region of a report) holds, 24
 * bytes for every 64 buckets of a group that hold one or more.
 *
 * An open-addressing hash of (group, bucket >> 6) to a 64-bit mask of the
 * 64 buckets it stands for.  Where a struct bucket_map keeps a count per
 * bucket in 1 KiB leaves, a set needs one bit: buckets scattered one per 64
 * (a crafted 1 KB trace of 30000 samples 2 MiB apart) cost 48 to 96 bytes
 * each (the table a quarter to half full), not 1 KiB, and a group costs nothing
 * before its first bucket (a report of 10 000 processes has 10 000s of
 * regions, most without a sample).
 */
#ifndef MEMTRACE_ENGINE_BUCKET_SET_H
#define MEMTRACE_ENGINE_BUCKET_SET_H

#include <stddef.h>
#include <stdint.h>

struct bucket_set_slot {
	uint64_t group, leaf;	/* leaf: bucket >> 6 */
	uint64_t mask;		/* bit b & 63: bucket b is in; 0: empty slot */
};

struct bucket_set {
	struct bucket_set_slot *slots;
	size_t cap, used;	/* slots, slots in use */
};

void bucket_set_init(struct bucket_set *s);
void bucket_set_free(struct bucket_set *s);

/* Puts bucket into group's set; returns 1 when it was not in it yet. */
int bucket_set_add(struct bucket_set *s, uint64_t group, uint64_t bucket);

/* Memory held, in bytes. */
size_t bucket_set_bytes(const struct bucket_set *s);

#endif
