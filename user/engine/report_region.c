/* report_region.c - the line that heads every output of a report computed
 * with a region (memtracectl report --region, memtrace-analyze --region):
 * what the numbers below are restricted to. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "util/util.h"

const char *memtrace_report_region_line(const struct memtrace_report *r, char *buf, size_t len)
{
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);
	const char *unit = r->bucket == 4096 ? "pages" : "buckets";
	uint64_t all = (r->region_bytes + r->bucket - 1) >> r->bucket_shift;
	char b1[32], b2[32];

	if (!r->region) {
		buf[0] = 0;
		return buf;
	}
	/* "WSS of region", "pages first touched in region" (words.c) */
	snprintf(buf, len, "%s %s region \"%s\" (%" PRIu64 " %s of %" PRIu64 ", %s of %s): "
		 "only its addresses, in every process that maps it, a shared page once",
		 w->wss, strcmp(w->wss, "WSS") ? "in" : "of", r->region, r->data.total, unit, all,
		 mt_fmt_bytes(r->data.total << r->bucket_shift, b1, sizeof(b1)),
		 mt_fmt_bytes(r->region_bytes, b2, sizeof(b2)));
	return buf;
}
