/* render_blind.c - the blind windows of a report (memtrace/report.h struct
 * memtrace_blind) in the text summary and the --json document. */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/render.h"

#define TEXT_RUNS	8	/* runs listed in the text line */

static void fmt_t(uint64_t t, int ns, char *buf, size_t len)
{
	if (ns)
		snprintf(buf, len, "%.3f s", (double)t / 1e9);
	else
		snprintf(buf, len, "%" PRIu64 " insn", t);
}

const char *render_blind_state(const struct memtrace_report *r)
{
	switch (r->blind.state) {
	case MEMTRACE_BLIND_KNOWN: return "known";
	case MEMTRACE_BLIND_UNKNOWN: return "unknown";
	default: return "none";
	}
}

void render_text_blind(FILE *f, const struct memtrace_report *r)
{
	const struct memtrace_blind *b = &r->blind;
	char t1[64], t2[64];

	if (b->state == MEMTRACE_BLIND_UNKNOWN) {
		fprintf(f, "blind:     unknown: this source sees re-accesses only in its passes, and the "
			   "trace records none (written before trace format 1.3): a window without "
			   "samples may be one it did not see, not an idle one\n");
		return;
	}
	if (b->state != MEMTRACE_BLIND_KNOWN)
		return;
	if (r->gaps) {
		fmt_t(r->gap_time, r->time_is_ns, t1, sizeof(t1));
		fprintf(f, "gaps:      %" PRIu64 " without a target (it exited; record --pidfile waited "
			   "for the next one), %s in all: a window that overlaps one is blind\n",
			r->gaps, t1);
	}
	if (b->period)
		fmt_t(b->period, r->time_is_ns, t1, sizeof(t1));
	if (b->what || b->passes)
		fprintf(f, "passes:    %" PRIu64 " recorded%s%s%s; a window is seen when it holds "
			   "a %s\n", b->passes, b->period ? ", median " : "", b->period ? t1 : "",
			b->period ? " apart" : "", b->pass);
	if (!b->intervals) {
		fprintf(f, "blind:     none of the %" PRIu64 " windows (each saw a %s)\n",
			r->intervals, b->pass);
		return;
	}
	if (b->what || b->passes)
		fprintf(f, "blind:     %" PRIu64 " of %" PRIu64 " windows saw no %s: re-accesses in "
			   "them were not seen (gaps, not 0; avg and peak leave them out)",
			b->intervals, r->intervals, b->pass);
	else
		fprintf(f, "blind:     %" PRIu64 " of %" PRIu64 " windows overlap a gap without a "
			   "target: nothing was recorded then (not 0; avg and peak leave them out)",
			b->intervals, r->intervals);
	for (size_t i = 0; i < b->nruns && i < TEXT_RUNS; i++) {
		fmt_t(b->first[i] * r->interval, r->time_is_ns, t1, sizeof(t1));
		fmt_t(b->last[i] * r->interval, r->time_is_ns, t2, sizeof(t2));
		if (b->first[i] == b->last[i])
			fprintf(f, "%s%s", i ? ", " : ": at ", t1);
		else
			fprintf(f, "%s%s-%s", i ? ", " : ": at ", t1, t2);
	}
	fprintf(f, "%s\n", b->nruns > TEXT_RUNS ? ", ..." : "");
}

void render_json_blind(FILE *f, const struct memtrace_report *r)
{
	const struct memtrace_blind *b = &r->blind;

	fprintf(f, ",\n  \"blind\": {\"state\": \"%s\"", render_blind_state(r));
	if (b->state == MEMTRACE_BLIND_KNOWN) {
		fprintf(f, ", \"pass\": ");
		render_json_str(f, b->pass);
		fprintf(f, ", \"passes\": %" PRIu64 ", \"pass_period\": %" PRIu64 ", \"pass_lag\": %"
			   PRIu64 ", \"intervals\": %" PRIu64 ", \"gaps\": %" PRIu64 ", \"gap_time\": %"
			   PRIu64 ", \"runs\": [", b->passes, b->period, b->lag, b->intervals, r->gaps,
			r->gap_time);
		for (size_t i = 0; i < b->nruns; i++)
			fprintf(f, "%s{\"first\": %" PRIu64 ", \"last\": %" PRIu64 "}", i ? ", " : "",
				b->first[i] * r->interval, b->last[i] * r->interval);
		fputc(']', f);
	}
	fputc('}', f);
}
