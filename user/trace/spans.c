/* spans.c - decode SPANS chunks (spans.h, docs/trace-format.md). */
#include "trace/spans.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "util/util.h"

int trace_spans_add(struct trace_spans *s, const struct trace_chunk *c, char *err, size_t errlen)
{
	const unsigned char *p = c->data, *end = c->data + c->len;
	size_t n0 = s->n;

	if (s->n + c->count > TRACE_MAX_SIDE_RECORDS) {
		snprintf(err, errlen, "SPANS chunk at offset %" PRIu64 ": more than %u spans in the "
			 "trace", c->offset, TRACE_MAX_SIDE_RECORDS);
		return -1;
	}
	for (uint32_t i = 0; i < c->count; i++) {
		if ((size_t)(end - p) < SPAN_REC_HDR)
			goto bad;
		uint32_t word = get_le32(p + 24), len = word & ~SPAN_OPEN;
		if (len > SPAN_LABEL_MAX || (size_t)(end - p) - SPAN_REC_HDR < len)
			goto bad;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->v = mt_xrealloc(s->v, s->cap * sizeof(*s->v));
		}
		char *label = mt_xmalloc(len + 1);
		memcpy(label, p + SPAN_REC_HDR, len);
		label[len] = 0;
		s->v[s->n++] = (struct memtrace_span){
			.start = get_le64(p), .end = get_le64(p + 8), .pid = get_le32(p + 16),
			.tid = get_le32(p + 20), .label = label, .open = !!(word & SPAN_OPEN) };
		if (s->v[s->n - 1].end < s->v[s->n - 1].start)
			goto bad;
		p += SPAN_REC_HDR + len;
	}
	if (p == end)
		return 0;
bad:
	snprintf(err, errlen, "corrupt SPANS chunk at offset %" PRIu64 ": %u records in %zu bytes",
		 c->offset, c->count, c->len);
	for (size_t i = n0; i < s->n; i++)
		free((char *)s->v[i].label);
	s->n = n0;
	return -1;
}

static int by_thread_time(const void *a, const void *b)
{
	const struct memtrace_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

void trace_spans_sort(struct trace_spans *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_thread_time);
}

void trace_spans_free(struct trace_spans *s)
{
	for (size_t i = 0; i < s->n; i++)
		free((char *)s->v[i].label);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
