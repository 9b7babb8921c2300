/*
 * span_labels.h - one copy of each distinct span label (record --mark: a
 * query's text), found by hash: interning n labels costs O(n) expected, so
 * a trace with millions of spans and thousands of distinct labels keeps
 * each text once and groups spans by a 32-bit index.
 *
 *   struct span_labels l = { 0 };
 *   uint32_t i = span_labels_intern(&l, text, len);   // same text, same i
 *   l.v[i], l.len[i]
 *   span_labels_free(&l);
 */
#ifndef MEMTRACE_TRACE_SPAN_LABELS_H
#define MEMTRACE_TRACE_SPAN_LABELS_H

#include <stddef.h>
#include <stdint.h>

struct span_labels {
	char **v;		/* NUL-terminated texts, in order of first intern */
	uint32_t *len;
	uint32_t *hash;		/* of each text: the table grows without hashing them again */
	uint32_t n, cap;
	uint32_t *slot;		/* hash table: index + 1, 0 = empty */
	size_t nslot;		/* a power of two, > 2 n */
	uint64_t bytes;		/* sum of len */
};

/* Index of text[0..len) (len <= SPAN_LABEL_MAX), added if new. */
uint32_t span_labels_intern(struct span_labels *l, const char *text, size_t len);
/* Empty again (keeps nothing). */
void span_labels_free(struct span_labels *l);

#endif
