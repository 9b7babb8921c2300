/* scan.c - drive a trace_reader over a whole file. */
#include "trace/scan.h"

#include <stdlib.h>

#include "trace/format.h"
#include "util/util.h"

int trace_scan(const char *path, const struct trace_scan_ops *ops, void *ctx, int quiet,
	       struct trace_reader **reader_out)
{
	char err[512];
	struct trace_reader *tr = trace_open(path, err, sizeof(err));
	struct trace_chunk c;
	int rc;

	if (!tr) {
		mt_err("%s", err);
		return -1;
	}
	while ((rc = trace_next(tr, &c, err, sizeof(err))) > 0) {
		if (c.type != CHUNK_SAMPLES) {
			if (ops->chunk)
				ops->chunk(ctx, &c);
			continue;
		}
		struct memtrace_sample *s;
		size_t n;
		uint32_t columns;
		if (trace_chunk_samples(&c, &s, &n, &columns, err, sizeof(err))) {
			rc = -1;
			break;
		}
		if (ops->samples)
			ops->samples(ctx, s, n, columns);
		free(s);
	}
	if (rc < 0) {
		mt_err("%s", err);
		trace_close(tr);
		return -1;
	}
	if (!quiet && trace_truncated(tr))
		mt_warn("%s is cut short: ignored an incomplete last chunk of %llu bytes", path,
			(unsigned long long)trace_truncated(tr));
	else if (!quiet && !trace_has_end(tr))
		mt_warn("%s has no end record: the recording did not finish cleanly", path);
	if (reader_out)
		*reader_out = tr;
	else
		trace_close(tr);
	return 0;
}
