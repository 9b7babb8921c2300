/* span_sort.c - stable LSD radix sort (span_sort.h). */
#include "trace/span_sort.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void radix_sort(void *v, size_t n, size_t size, const key_fn *keys, size_t nkeys)
{
	if (n < 2)
		return;
	unsigned char *a = v, *b = mt_xmalloc(n * size);
	size_t (*cnt)[256] = mt_xmalloc(8 * sizeof(*cnt));

	for (size_t k = 0; k < nkeys; k++) {
		memset(cnt, 0, 8 * sizeof(*cnt));
		for (size_t i = 0; i < n; i++) {
			uint64_t x = keys[k](a + i * size);
			for (int d = 0; d < 8; d++)
				cnt[d][(x >> (8 * d)) & 0xff]++;
		}
		for (int d = 0; d < 8; d++) {
			size_t at = 0;
			int all_one = 0;
			for (int j = 0; j < 256; j++)
				all_one |= cnt[d][j] == n;
			if (all_one)	/* every record has this byte: order kept */
				continue;
			for (int j = 0; j < 256; j++) {
				size_t c = cnt[d][j];
				cnt[d][j] = at;
				at += c;
			}
			for (size_t i = 0; i < n; i++) {
				const unsigned char *r = a + i * size;
				size_t to = cnt[d][(keys[k](r) >> (8 * d)) & 0xff]++;
				if (size == 32)		/* the callers' sizes: a fixed-size copy */
					memcpy(b + to * 32, r, 32);
				else if (size == 16)
					memcpy(b + to * 16, r, 16);
				else
					memcpy(b + to * size, r, size);
			}
			unsigned char *t = a;
			a = b;
			b = t;
		}
	}
	if (a != v) {
		memcpy(v, a, n * size);
		b = a;
	}
	free(b);
	free(cnt);
}
