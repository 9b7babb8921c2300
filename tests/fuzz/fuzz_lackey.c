/*
 * fuzz_lackey.c - the lackey text parser (user/source/valgrind/lackey.c): the input,
 * after a 4-byte prefix that picks the sampling period, random periods and
 * how the text is split, is fed in pieces (each in a buffer of its exact
 * size, so a read past a piece is caught), then lackey_finish; the samples
 * are checked against the parser's counters.  lackey_looks_valid sees the
 * whole text too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/valgrind/lackey.h"

struct seen {
	uint64_t n, last_time;
};

static int emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct seen *z = ctx;

	for (size_t i = 0; i < n; i++) {
		if (s[i].time < z->last_time) {
			fprintf(stderr, "lackey sample time went back: %llu after %llu\n",
				(unsigned long long)s[i].time, (unsigned long long)z->last_time);
			abort();
		}
		z->last_time = s[i].time;
	}
	z->n += n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lackey_parser p;	/* 160 KiB: not on the stack */
	struct seen z = { 0 };

	if (size < 4)
		return 0;
	uint64_t period = 1 + data[0] % 7;
	bool random = data[1] & 1;
	uint32_t split = data[2] | (uint32_t)data[3] << 8;	/* xorshift seed of the piece sizes */
	data += 4;
	size -= 4;

	char *whole = malloc(size ? size : 1);
	memcpy(whole, data, size);
	(void)lackey_looks_valid(whole, size);
	free(whole);

	lackey_init(&p, period, random, split, emit, &z);
	size_t off = 0;
	split |= 1;
	while (off < size) {
		split ^= split << 13;
		split ^= split >> 17;
		split ^= split << 5;
		size_t n = 1 + split % (split & 0x100 ? 4096 : 16);
		if (n > size - off)
			n = size - off;
		char *piece = malloc(n);
		memcpy(piece, data + off, n);
		lackey_feed(&p, piece, n);
		free(piece);
		off += n;
	}
	lackey_finish(&p);
	if (z.n != p.samples || p.samples > p.accesses ||
	    p.accesses != p.loads + p.stores + p.modifies) {
		fprintf(stderr, "lackey counters disagree: emitted %llu samples %llu accesses %llu\n",
			(unsigned long long)z.n, (unsigned long long)p.samples,
			(unsigned long long)p.accesses);
		abort();
	}
	return 0;
}
