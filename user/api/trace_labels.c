/* trace_labels.c - the names a filter's region looks up in a trace opened with
 * the public API: its LABELS chunks and the labels files given with
 * memtrace_trace_labels (include/memtrace/trace.h), files first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/trace_internal.h"
#include "resolve/labels.h"
#include "resolve/resolve.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "util/util.h"

int memtrace_trace_labels(struct memtrace_trace *t, const char *path, char *err, size_t errlen)
{
	struct mt_labels l = { 0 };

	if (mt_labels_load(&l, path, err, errlen))
		return -1;
	int rc = 0;
	if (t->labels_read) {	/* the resolver is built: before what it holds */
		rc = resolver_add_labels(t->res, l.text, l.len, path, 1, err, errlen);
	} else if (l.len) {	/* a later file's labels come first, as they would above */
		char *v = mt_xmalloc(l.len + t->labels_extra_len + 1);
		memcpy(v, l.text, l.len);
		if (t->labels_extra_len)
			memcpy(v + l.len, t->labels_extra, t->labels_extra_len);
		v[l.len + t->labels_extra_len] = 0;
		free(t->labels_extra);
		t->labels_extra = v;
		t->labels_extra_len += l.len;
	}
	mt_labels_free(&l);
	return rc;
}

int api_read_labels(struct memtrace_trace *t, char *err, size_t errlen)
{
	if (t->labels_read)
		return 0;
	struct trace_reader *r = trace_open(t->path, err, errlen);
	struct trace_chunk c;
	int rc;

	if (!r)
		return -1;
	trace_skip(r, ~(1u << CHUNK_LABELS));
	while ((rc = trace_next(r, &c, err, errlen)) == 1) {
		char where[64];
		snprintf(where, sizeof(where), "LABELS chunk at offset %llu",
			 (unsigned long long)c.offset);
		if (c.type == CHUNK_LABELS &&
		    resolver_add_labels(t->res, (const char *)c.data, c.len, where, 0, err, errlen)) {
			rc = -1;
			break;
		}
	}
	trace_close(r);
	if (rc < 0)
		return -1;
	if (t->labels_extra_len &&
	    resolver_add_labels(t->res, t->labels_extra, t->labels_extra_len, "labels", 1, err,
				errlen))
		return -1;
	free(t->labels_extra);
	t->labels_extra = NULL;
	t->labels_extra_len = 0;
	t->labels_read = 1;
	return 0;
}
