/*
 * str_intern.h - one copy of each distinct string, found by hash: interning
 * n strings costs O(n) expected.  Span labels (record --mark: a query's
 * text; a trace with millions of spans and thousands of distinct labels
 * keeps each text once and groups spans by a 32-bit index) and the
 * resolver's region and owner names (one per process in a trace of many).
 *
 *   struct str_intern l = { 0 };
 *   uint32_t i = str_intern_add(&l, text, len);   // same text, same i
 *   l.v[i], l.len[i]
 *   str_intern_free(&l);
 */
#ifndef MEMTRACE_UTIL_STR_INTERN_H
#define MEMTRACE_UTIL_STR_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct str_intern {
	char **v;		/* NUL-terminated texts, in order of first intern */
	uint32_t *len;
	uint32_t *hash;		/* of each text: the table grows without hashing them again */
	uint32_t n, cap;
	uint32_t *slot;		/* hash table: index + 1, 0 = empty */
	size_t nslot;		/* a power of two, > 2 n */
	uint64_t bytes;		/* sum of len */
};

/* Index of text[0..len) (len < 2^32), added if new. */
uint32_t str_intern_add(struct str_intern *l, const char *text, size_t len);
/* Empty again (keeps nothing). */
void str_intern_free(struct str_intern *l);

#endif
