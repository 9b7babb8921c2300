/* bucket_set.c - sets of buckets per group, 64 to a hash slot. */
#include "engine/bucket_set.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void bucket_set_init(struct bucket_set *s)
{
	memset(s, 0, sizeof(*s));
}

void bucket_set_free(struct bucket_set *s)
{
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static size_t slot_of(uint64_t group, uint64_t leaf, size_t cap)
{
	uint64_t h = leaf * 0x9E3779B97F4A7C15ull ^ group * 0xC2B2AE3D27D4EB4Full;

	return (size_t)(h >> 32 ^ h) & (cap - 1);
}

static struct bucket_set_slot *find(struct bucket_set_slot *slots, size_t cap, uint64_t group,
				    uint64_t leaf)
{
	size_t i = slot_of(group, leaf, cap);

	while (slots[i].mask && (slots[i].group != group || slots[i].leaf != leaf))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static void grow(struct bucket_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct bucket_set_slot *slots = mt_xcalloc(cap, sizeof(*slots));

	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].mask)
			*find(slots, cap, s->slots[i].group, s->slots[i].leaf) = s->slots[i];
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
}

int bucket_set_add(struct bucket_set *s, uint64_t group, uint64_t bucket)
{
	uint64_t leaf = bucket >> 6, bit = 1ull << (bucket & 63);

	if ((s->used + 1) * 2 > s->cap)
		grow(s);
	struct bucket_set_slot *e = find(s->slots, s->cap, group, leaf);
	if (!e->mask) {
		e->group = group;
		e->leaf = leaf;
		s->used++;
	} else if (e->mask & bit) {
		return 0;
	}
	e->mask |= bit;
	return 1;
}

size_t bucket_set_bytes(const struct bucket_set *s)
{
	return s->cap * sizeof(*s->slots);
}
