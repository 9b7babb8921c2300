/* layout.c - newest-snapshot-wins address layout of a pid (layout.h). */
#include "resolve/layout.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct piece_vec {
	size_t n, cap;
	struct mt_layout_piece *v;
};

static void push(struct piece_vec *pv, uint64_t start, uint64_t end,
		 const struct mt_maps *s, const struct mt_mapping *m)
{
	if (pv->n == pv->cap) {
		pv->cap = pv->cap ? 2 * pv->cap : 64;
		pv->v = mt_xrealloc(pv->v, pv->cap * sizeof(*pv->v));
	}
	pv->v[pv->n++] = (struct mt_layout_piece){ start, end, s, m };
}

/* The parts of snapshot s's mappings that no piece of cur covers. */
static void uncovered(const struct piece_vec *cur, const struct mt_maps *s,
		      struct piece_vec *add)
{
	size_t j = 0;
	uint64_t floor = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct mt_mapping *m = &s->v[i];
		uint64_t pos = m->start > floor ? m->start : floor;

		if (pos >= m->end)
			continue;
		while (j < cur->n && cur->v[j].end <= pos)
			j++;
		for (size_t k = j; k < cur->n && cur->v[k].start < m->end; k++) {
			if (cur->v[k].start > pos)
				push(add, pos, cur->v[k].start, s, m);
			if (cur->v[k].end > pos)
				pos = cur->v[k].end;
		}
		if (pos < m->end)
			push(add, pos, m->end, s, m);
		floor = m->end;
	}
}

/* Merge two sorted, mutually disjoint piece lists into *out. */
static void merge(const struct piece_vec *a, const struct piece_vec *b,
		  struct piece_vec *out)
{
	size_t i = 0, j = 0;

	out->n = 0;
	while (i < a->n || j < b->n) {
		const struct mt_layout_piece *p;
		if (j == b->n || (i < a->n && a->v[i].start < b->v[j].start))
			p = &a->v[i++];
		else
			p = &b->v[j++];
		push(out, p->start, p->end, p->snap, p->map);
	}
}

size_t mt_layout_build(const struct mt_maps *const *snaps, size_t n,
		       struct mt_layout_piece **out)
{
	struct piece_vec cur = { 0 }, add = { 0 }, next = { 0 };

	for (size_t k = n; k-- > 0;) {
		add.n = 0;
		uncovered(&cur, snaps[k], &add);
		if (add.n == 0)
			continue;
		merge(&cur, &add, &next);
		struct piece_vec t = cur;
		cur = next;
		next = t;
	}
	free(add.v);
	free(next.v);
	*out = cur.v;
	return cur.n;
}

const char *mt_perms_string(uint32_t perms)
{
	static const char *const s[16] = {
		"---p", "r--p", "-w-p", "rw-p", "--xp", "r-xp", "-wxp", "rwxp",
		"---s", "r--s", "-w-s", "rw-s", "--xs", "r-xs", "-wxs", "rwxs",
	};
	return s[perms & 15u];
}
