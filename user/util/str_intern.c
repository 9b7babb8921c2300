/* str_intern.c - string interning (str_intern.h). */
#include "util/str_intern.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h ^ (h >> 29);
}

static void grow_table(struct str_intern *l)
{
	size_t n = l->nslot ? 2 * l->nslot : 64;

	free(l->slot);
	l->slot = mt_xcalloc(n, sizeof(*l->slot));
	l->nslot = n;
	for (uint32_t i = 0; i < l->n; i++) {
		size_t k = l->hash[i] & (n - 1);
		while (l->slot[k])
			k = (k + 1) & (n - 1);
		l->slot[k] = i + 1;
	}
}

uint32_t str_intern_add(struct str_intern *l, const char *text, size_t len)
{
	if (2 * ((size_t)l->n + 1) >= l->nslot)
		grow_table(l);
	uint32_t h = (uint32_t)hash(text, len);
	size_t k = h & (l->nslot - 1);
	for (; l->slot[k]; k = (k + 1) & (l->nslot - 1)) {
		uint32_t i = l->slot[k] - 1;
		if (l->hash[i] == h && l->len[i] == len && !memcmp(l->v[i], text, len))
			return i;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = mt_xrealloc(l->v, l->cap * sizeof(*l->v));
		l->len = mt_xrealloc(l->len, l->cap * sizeof(*l->len));
		l->hash = mt_xrealloc(l->hash, l->cap * sizeof(*l->hash));
	}
	char *s = mt_xmalloc(len + 1);
	memcpy(s, text, len);
	s[len] = 0;
	l->v[l->n] = s;
	l->len[l->n] = (uint32_t)len;
	l->hash[l->n] = h;
	l->bytes += len;
	l->slot[k] = l->n + 1;
	return l->n++;
}

void str_intern_free(struct str_intern *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->len);
	free(l->hash);
	free(l->slot);
	memset(l, 0, sizeof(*l));
}
