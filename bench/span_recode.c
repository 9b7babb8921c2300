/*
 * span_recode - the spans of a trace written again by this build's writer
 * (SPANS2), alone, to compare the encodings on the same spans
 * (bench/spans/run.sh, docs/performance.md):
 *
 *   span_recode IN OUT [GRAIN]
 *
 * GRAIN: the writer's span_grain (time units, a power of two; default 1:
 * times as IN holds them).
 */
#include <stdio.h>

#include "memtrace/trace.h"

int main(int argc, char **argv)
{
	char err[512];
	const struct memtrace_span *v;

	char meta[128];

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: span_recode IN OUT [GRAIN]\n");
		return 2;
	}
	snprintf(meta, sizeof(meta), "time_unit=ns\nstart_time=0\nspan_grain=%s\n",
		 argc == 4 ? argv[3] : "1");
	struct memtrace_trace *t = memtrace_trace_open(argv[1], err, sizeof(err));
	long n = t ? memtrace_trace_spans(t, &v, err, sizeof(err)) : -1;
	struct memtrace_writer *w = n >= 0 ? memtrace_writer_open(argv[2], meta, err, sizeof(err)) : NULL;
	int bad = !w;
	for (long i = 0; i < n && !bad; i++)
		bad |= memtrace_writer_span(w, v[i].start, v[i].end, v[i].pid, v[i].tid, v[i].label,
					    v[i].open, err, sizeof(err));
	if (w)
		bad |= memtrace_writer_close(w, NULL, err, sizeof(err));
	if (t)
		memtrace_trace_close(t);
	if (bad) {
		fprintf(stderr, "span_recode: %s\n", err);
		return 1;
	}
	printf("%ld spans\n", n);
	return 0;
}
