/*
 * kvstore - a key-value store under a Zipf key popularity, for the estimator
 * accuracy study (docs/accuracy.md, make accuracy).
 *
 *   kvstore [KEYS] [OPS]
 *
 * An open-addressing hash table of KEYS entries (16-byte key and hash, 48
 * bytes of value: 64 bytes each) is filled, then OPS operations run: keys
 * drawn from Zipf(1) over KEYS ranks (rank r is key hash(r): the hot keys
 * are scattered over the table's pages), 90 % gets (read the value), 10 %
 * puts (rewrite it).  The hot keys' pages are touched often, the tail's
 * once or never in a window.  Defaults 100000 keys (1563 pages), 150000
 * operations.  Deterministic (fixed seed); prints a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	uint64_t key, hash;
	uint64_t val[6];
};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* exp(x) for 0 <= x < 64 without libm (workloads link no -lm): 2^k e^r. */
static double xexp(double x)
{
	double p = 1.0, s = 1.0, t = 1.0;
	int k = (int)(x / 0.6931471805599453);

	x -= k * 0.6931471805599453;
	for (int i = 1; i < 20; i++)
		s += (t *= x / i);
	while (k-- > 0)
		p *= 2.0;
	return s * p;
}

/* Zipf(1) over n ranks, O(1) per draw and no table (a table's pages would
 * be the hottest of a window): rank = floor((n + 1)^u) - 1, u uniform, so
 * P(rank = k) = ln((k + 2) / (k + 1)) / ln(n + 1), about 1 / ((k + 1) ln n). */
static double ln_n1;

static uint64_t zipf(uint64_t n)
{
	double u = (double)(rng() >> 11) / 9007199254740992.0;
	uint64_t k = (uint64_t)xexp(u * ln_n1);

	return k >= 1 && k <= n ? k - 1 : n - 1;
}

int main(int argc, char **argv)
{
	long keys = argc > 1 ? atol(argv[1]) : 100000;
	long ops = argc > 2 ? atol(argv[2]) : 150000;
	if (keys < 1 || ops < 1) {
		fprintf(stderr, "kvstore: KEYS and OPS must be positive\n");
		return 2;
	}
	size_t cap = 1;
	while (cap < (size_t)keys * 5 / 4)
		cap <<= 1;
	struct entry *t = calloc(cap, sizeof(*t));
	if (!t) {
		fprintf(stderr, "kvstore: out of memory\n");
		return 1;
	}
	for (long r = 0; r < keys; r++) {
		uint64_t h = mix((uint64_t)r + 1), i = h & (cap - 1);
		while (t[i].key)
			i = (i + 1) & (cap - 1);
		t[i].key = (uint64_t)r + 1;
		t[i].hash = h;
		t[i].val[0] = h;
	}
	/* ln(keys + 1) by bisection on xexp */
	double lo = 0.0, hi = 64.0;
	for (int i = 0; i < 100; i++)
		if (xexp((lo + hi) / 2) < (double)keys + 1.0)
			lo = (lo + hi) / 2;
		else
			hi = (lo + hi) / 2;
	ln_n1 = lo;
	uint64_t sum = 0;
	for (long o = 0; o < ops; o++) {
		uint64_t key = zipf((uint64_t)keys) + 1, h = mix(key), i = h & (cap - 1);
		while (t[i].key != key)
			i = (i + 1) & (cap - 1);
		if (rng() % 10)
			sum += t[i].val[0] + t[i].val[5];
		else
			t[i].val[o % 6] = sum;
	}
	printf("kvstore keys=%ld ops=%ld sum=%llu\n", keys, ops, (unsigned long long)sum);
	free(t);
	return 0;
}
