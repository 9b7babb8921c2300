/*
 * btree - lookups and short range scans in a B+-tree, for the estimator
 * accuracy study (docs/accuracy.md, make accuracy).
 *
 *   btree [KEYS] [OPS]
 *
 * A B+-tree of KEYS 64-bit keys (fan-out 64: leaves of 64 keys and 64
 * values, 1 KiB; inner nodes of 64 separators and children) is built bottom
 * up, then OPS operations run: 70 % point lookups near a focus key that
 * drifts through the key space (recent keys, as a time-ordered index is
 * queried), 20 % uniform random lookups, 10 % range scans of 200 keys from
 * the focus.  Each lookup binary-searches the root, the inner levels and a
 * leaf: the upper levels are hot, the leaves near the focus warm, the rest
 * touched once or never in a window.  Defaults 400000 keys (1563 pages of
 * leaves), 60000 operations.  Deterministic (fixed seed); prints a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FAN 64

struct node {
	uint64_t key[FAN];	/* leaf: keys; inner: the smallest key of each child */
	void *child[FAN];	/* inner: children; leaf: values (as pointers) */
	int n, leaf;
};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The last slot whose key is <= k (0 if none). */
static int slot(const struct node *x, uint64_t k)
{
	int lo = 0, hi = x->n - 1;

	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (x->key[mid] <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static struct node *find_leaf(struct node *x, uint64_t k)
{
	while (!x->leaf)
		x = x->child[slot(x, k)];
	return x;
}

int main(int argc, char **argv)
{
	long keys = argc > 1 ? atol(argv[1]) : 400000;
	long ops = argc > 2 ? atol(argv[2]) : 60000;
	if (keys < FAN || ops < 1) {
		fprintf(stderr, "btree: KEYS must be >= %d and OPS positive\n", FAN);
		return 2;
	}
	/* leaves: keys 2, 4, 6, ... (odd keys miss) */
	size_t nl = (size_t)(keys + FAN - 1) / FAN, level_n = nl;
	struct node *level = calloc(nl, sizeof(*level));
	if (!level)
		return 1;
	for (long i = 0; i < keys; i++) {
		struct node *l = &level[i / FAN];
		l->leaf = 1;
		l->key[l->n] = 2 * (uint64_t)(i + 1);
		l->child[l->n++] = (void *)(uintptr_t)(i * 7 + 1);
	}
	while (level_n > 1) {	/* inner levels bottom up */
		size_t nu = (level_n + FAN - 1) / FAN;
		struct node *up = calloc(nu, sizeof(*up));
		if (!up)
			return 1;
		for (size_t i = 0; i < level_n; i++) {
			struct node *p = &up[i / FAN];
			p->key[p->n] = level[i].key[0];
			p->child[p->n++] = &level[i];
		}
		level = up;
		level_n = nu;
	}
	struct node *root = level;
	uint64_t sum = 0, top = 2 * (uint64_t)keys, focus = top / 10;
	for (long o = 0; o < ops; o++) {
		unsigned r = (unsigned)(rng() % 10);
		uint64_t k;
		focus += 7;	/* the focus drifts through the key space */
		if (focus >= top)
			focus = 2;
		if (r < 7)
			k = focus > 4000 ? focus - rng() % 4000 : focus;
		else if (r < 9)
			k = rng() % top;
		else
			k = focus;
		struct node *l = find_leaf(root, k);
		int i = slot(l, k);
		if (r < 9) {
			if (l->key[i] == k)
				sum += (uintptr_t)l->child[i];
		} else {	/* range scan: 200 keys from k, leaf by leaf */
			for (int got = 0; got < 200;) {
				for (; i < l->n && got < 200; i++, got++)
					sum += l->key[i];
				if (got < 200) {
					if (l->key[l->n - 1] >= top)
						break;
					l = find_leaf(root, l->key[l->n - 1] + 1);
					i = 0;
				}
			}
		}
	}
	printf("btree keys=%ld ops=%ld sum=%llu\n", keys, ops, (unsigned long long)sum);
	return 0;
}
