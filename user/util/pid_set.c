/* pid_set.c - a set of process ids: open addressing with backward-shift
 * removal (pid_set.h). */
#include "util/pid_set.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static size_t pid_hash(pid_t pid, size_t mask)
{
	return ((size_t)pid * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

bool pid_set_add(struct pid_set *set, pid_t pid)
{
	if (pid <= 0)
		return false;
	if ((set->n + 1) * 2 > set->cap) {
		struct pid_set old = *set;
		set->cap = old.cap ? old.cap * 2 : 256;
		set->v = mt_xcalloc(set->cap, sizeof(*set->v));
		set->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.v[i])
				pid_set_add(set, old.v[i]);
		free(old.v);
	}
	size_t mask = set->cap - 1, i = pid_hash(pid, mask);
	while (set->v[i] && set->v[i] != pid)
		i = (i + 1) & mask;
	if (set->v[i])
		return false;
	set->v[i] = pid;
	set->n++;
	return true;
}

/* Removal with backward shift: the set stays as large as the processes alive. */
void pid_set_del(struct pid_set *set, pid_t pid)
{
	if (!set->cap || pid <= 0)
		return;
	size_t mask = set->cap - 1, i = pid_hash(pid, mask);
	while (set->v[i] && set->v[i] != pid)
		i = (i + 1) & mask;
	if (!set->v[i])
		return;
	for (size_t j = (i + 1) & mask; set->v[j]; j = (j + 1) & mask) {
		size_t h = pid_hash(set->v[j], mask);
		/* v[j] may move back to the hole at i unless its home lies in (i, j] */
		if (((j - h) & mask) >= ((j - i) & mask)) {
			set->v[i] = set->v[j];
			i = j;
		}
	}
	set->v[i] = 0;
	set->n--;
}

bool pid_set_has(const struct pid_set *set, pid_t pid)
{
	if (pid <= 0 || !set->cap)
		return false;
	size_t mask = set->cap - 1, i = pid_hash(pid, mask);
	while (set->v[i] && set->v[i] != pid)
		i = (i + 1) & mask;
	return set->v[i] == pid;
}

void pid_set_free(struct pid_set *set)
{
	free(set->v);
	memset(set, 0, sizeof(*set));
}
