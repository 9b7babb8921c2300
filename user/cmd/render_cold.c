/*
 * render_cold.c - cold memory of `memtracectl report --cold` (struct
 * memtrace_cold, docs/sizing.md "Cold memory"): what was counted, the
 * shares, the series (text: at most TEXT_ROWS rows; JSON and --cold-series:
 * every point) and the per-process table.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/render.h"
#include "util/util.h"

#define TEXT_ROWS 24

/* "10s", "1.5s", "250ms", or an instruction count */
static const char *fmt_thr(uint64_t t, int ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%" PRIu64, t);
	else if (t >= 1000000000ull)
		snprintf(buf, len, "%gs", (double)t / 1e9);
	else
		snprintf(buf, len, "%gms", (double)t / 1e6);
	return buf;
}

const char *render_cold_method(const struct memtrace_cold *o)
{
	switch (o->method) {
	case MEMTRACE_COLD_PASSES: return "accessed-bits";
	case MEMTRACE_COLD_HINT: return "hint-faults";
	default: return o->period > 1.0 ? "sampled-accesses" : "every-access";
	}
}

/* one sentence: what a cold bucket is, for this source */
static void counted(FILE *f, const struct memtrace_cold *o)
{
	switch (o->method) {
	case MEMTRACE_COLD_PASSES:
		fprintf(f, "accessed bits: a bucket is cold when the passes from its last one found "
			   "accessed to the latest pass at or before the point span the threshold; "
			   "idle time is never counted past the latest pass (its age: pass_age)");
		break;
	case MEMTRACE_COLD_HINT:
		fprintf(f, "NUMA hint faults: a page counts as idle only from the end of the second "
			   "scan sweep after its last fault (when it was marked again, so that any "
			   "access would fault); idle time is at least what is shown");
		break;
	default:
		if (o->period > 1.0)
			fprintf(f, "1-in-%.0f sampled accesses: an UPPER BOUND, a bucket not sampled "
				   "for the threshold may still have been accessed", o->period);
		else
			fprintf(f, "every data access: exact");
	}
}

void render_text_cold(FILE *f, const struct memtrace_report *r)
{
	const struct memtrace_cold *o = &r->cold;
	int ns = r->time_is_ns;
	char b1[64], b2[64], t1[32];

	if (!o->computed) {
		fprintf(f, "\nCold memory: no data samples\n");
		return;
	}
	size_t n = o->n, nt = o->nthresholds;
	fprintf(f, "\nCold memory (data buckets seen at or before each point and not accessed "
		   "for at least each threshold):\n  counts: ");
	counted(f, o);
	fprintf(f, "\n  points: every %s (%zu), %s buckets", fmt_thr(o->step, ns, t1, sizeof(t1)),
		n, mt_fmt_bytes(o->bucket, b1, sizeof(b1)));
	if (r->region)
		fprintf(f, ", only region \"%s\"", r->region);
	fputc('\n', f);
	if (o->blind)
		fprintf(f, "  blind: %zu of %zu points lie in windows without a pass (flagged *): "
			   "no access there was seen, their counts are as of the last pass and left "
			   "out of the shares\n", o->blind_points, n);
	if (o->reordered)
		fprintf(f, "  %" PRIu64 " samples earlier than their bucket's latest: counted as "
			   "seen only\n", o->reordered);
	fprintf(f, "  mean share of the buckets seen:");
	for (size_t i = 0; i < nt; i++)
		fprintf(f, "%s >= %s %.1f %%", i ? "," : "", fmt_thr(o->thresholds[i], ns, t1,
								     sizeof(t1)),
			100.0 * o->avg_share[i]);
	fputc('\n', f);
	if (o->false_cold) {
		fprintf(f, "  cold by chance alone (each bucket accessed steadily at its own sampled "
			   "rate, a rough scale of the upper bound's excess):");
		for (size_t i = 0; i < nt; i++)
			fprintf(f, "%s >= %s ~%.1f buckets", i ? "," : "",
				fmt_thr(o->thresholds[i], ns, t1, sizeof(t1)), o->false_cold[i]);
		fputc('\n', f);
	}
	if (n) {
		size_t j = n - 1;
		fprintf(f, "  at the end (%s): seen %" PRIu64 " (%s)", fmt_thr(o->time[j], ns, t1,
									  sizeof(t1)),
			o->seen[j], mt_fmt_bytes(o->seen[j] * o->bucket, b1, sizeof(b1)));
		for (size_t i = 0; i < nt; i++)
			fprintf(f, ", >= %s %" PRIu64 " (%s)", fmt_thr(o->thresholds[i], ns, t1,
									 sizeof(t1)),
				o->cold[i * n + j], mt_fmt_bytes(o->cold[i * n + j] * o->bucket, b2,
								  sizeof(b2)));
		fputc('\n', f);
	}
	fprintf(f, "  %12s  %10s", "time", "seen");
	for (size_t i = 0; i < nt; i++) {
		char h[48];
		snprintf(h, sizeof(h), ">= %s", fmt_thr(o->thresholds[i], ns, t1, sizeof(t1)));
		fprintf(f, "  %10s", h);
	}
	fprintf(f, "  (buckets)\n");
	size_t every = n > TEXT_ROWS ? (n + TEXT_ROWS - 1) / TEXT_ROWS : 1;
	for (size_t j = 0; j < n; j++) {
		if (j % every && j + 1 != n)
			continue;
		fprintf(f, "  %12s  %10" PRIu64, fmt_thr(o->time[j], ns, t1, sizeof(t1)), o->seen[j]);
		for (size_t i = 0; i < nt; i++)
			fprintf(f, "  %10" PRIu64, o->cold[i * n + j]);
		fprintf(f, "%s\n", o->blind && o->blind[j] ? "  *" : "");
	}
	if (!o->nprocesses)
		return;
	fprintf(f, "\n  Cold per process, at the end (%zu%s):\n", o->nprocesses,
		o->nprocesses < r->nprocesses ? ", the first only" : "");
	for (size_t p = 0; p < o->nprocesses; p++) {
		const struct memtrace_cold_process *q = &o->processes[p];
		fprintf(f, "    pid %u: seen %" PRIu64, q->pid, n ? q->seen[n - 1] : 0);
		for (size_t i = 0; i < nt && n; i++)
			fprintf(f, ", >= %s %" PRIu64, fmt_thr(o->thresholds[i], ns, t1, sizeof(t1)),
				q->cold[i * n + n - 1]);
		fprintf(f, " buckets\n");
	}
}

static void json_u64s(FILE *f, const uint64_t *v, size_t n)
{
	fputc('[', f);
	for (size_t j = 0; j < n; j++)
		fprintf(f, "%s%" PRIu64, j ? ", " : "", v[j]);
	fputc(']', f);
}

void render_json_cold(FILE *f, const struct memtrace_report *r)
{
	const struct memtrace_cold *o = &r->cold;

	if (!o->computed)
		return;
	size_t n = o->n, nt = o->nthresholds;
	fprintf(f, ",\n  \"cold\": {\"method\": \"%s\", \"upper_bound\": %s, \"period\": %.6g, "
		   "\"counts\": \"",
		render_cold_method(o), o->method == MEMTRACE_COLD_ACCESS && o->period > 1.0 ? "true"
											     : "false",
		o->period);
	counted(f, o);	/* no quotes or backslashes in it */
	fprintf(f, "\", \"bucket\": %" PRIu64 ", \"step\": %" PRIu64 ", \"thresholds\": ",
		o->bucket, o->step);
	json_u64s(f, o->thresholds, nt);
	fprintf(f, ", \"reordered\": %" PRIu64 ", \"blind_points\": %zu, \"avg_share\": [",
		o->reordered, o->blind_points);
	for (size_t i = 0; i < nt; i++)
		fprintf(f, "%s%.6f", i ? ", " : "", o->avg_share[i]);
	fprintf(f, "], \"false_cold\": ");
	if (o->false_cold) {
		fputc('[', f);
		for (size_t i = 0; i < nt; i++)
			fprintf(f, "%s%.3f", i ? ", " : "", o->false_cold[i]);
		fputc(']', f);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n    \"time\": ");
	json_u64s(f, o->time, n);
	fprintf(f, ",\n    \"seen\": ");
	json_u64s(f, o->seen, n);
	fprintf(f, ",\n    \"cold\": [");
	for (size_t i = 0; i < nt; i++) {
		fprintf(f, "%s", i ? ",\n      " : "");
		json_u64s(f, o->cold + i * n, n);
	}
	fprintf(f, "],\n    \"blind\": ");
	if (o->blind) {
		fputc('[', f);
		for (size_t j = 0; j < n; j++)
			fprintf(f, "%s%d", j ? ", " : "", o->blind[j]);
		fputc(']', f);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n    \"pass_age\": ");
	if (o->pass_age) {	/* null: no pass yet */
		fputc('[', f);
		for (size_t j = 0; j < n; j++) {
			if (o->pass_age[j] == UINT64_MAX)
				fprintf(f, "%snull", j ? ", " : "");
			else
				fprintf(f, "%s%" PRIu64, j ? ", " : "", o->pass_age[j]);
		}
		fputc(']', f);
	} else {
		fprintf(f, "null");
	}
	fprintf(f, ",\n    \"processes\": [");
	for (size_t p = 0; p < o->nprocesses; p++) {
		const struct memtrace_cold_process *q = &o->processes[p];
		fprintf(f, "%s\n      {\"pid\": %u, \"seen\": ", p ? "," : "", q->pid);
		json_u64s(f, q->seen, n);
		fprintf(f, ", \"cold\": [");
		for (size_t i = 0; i < nt; i++) {
			fprintf(f, "%s", i ? ", " : "");
			json_u64s(f, q->cold + i * n, n);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}");
}

int render_cold_series(FILE *f, const struct memtrace_report *r)
{
	const struct memtrace_cold *o = &r->cold;
	char t1[32];
	size_t n = o->n, nt = o->nthresholds;

	fprintf(f, "# cold memory, %s: ", render_cold_method(o));
	counted(f, o);
	fprintf(f, "\ntime,seen");
	for (size_t i = 0; i < nt; i++)
		fprintf(f, ",cold_%s", fmt_thr(o->thresholds[i], r->time_is_ns, t1, sizeof(t1)));
	fprintf(f, ",blind,pass_age\n");
	for (size_t j = 0; j < n; j++) {
		fprintf(f, "%" PRIu64 ",%" PRIu64, o->time[j], o->seen[j]);
		for (size_t i = 0; i < nt; i++)
			fprintf(f, ",%" PRIu64, o->cold[i * n + j]);
		if (o->blind)
			fprintf(f, ",%d", o->blind[j]);
		else
			fprintf(f, ",");
		if (o->pass_age && o->pass_age[j] != UINT64_MAX)
			fprintf(f, ",%" PRIu64 "\n", o->pass_age[j]);
		else
			fprintf(f, ",\n");
	}
	return ferror(f) ? -1 : 0;
}
