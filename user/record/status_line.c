/* status_line.c - "memtrace: 1.5 s  N page faults ..." on a terminal, redrawn
 * every 500 ms and once more at the end, in the words of the sample class. */
#include "record/recorder_impl.h"

#include <stdio.h>

#include "trace/writer.h"

void status_line(struct recorder *r, int final)
{
	uint64_t wall = mt_now_ns();
	char wbuf[32], fbuf[32];

	if (!r->tty || (!final && wall - r->status_at < STATUS_EVERY_NS))
		return;
	double dt = (double)(wall - r->status_at) / 1e9;
	double rate = r->status_at && dt > 0 ? (double)(r->samples - r->status_samples) / dt : 0;
	uint64_t wss_pages = live_wss_pages(r);
	char wss[96];
	if (r->samples)
		snprintf(wss, sizeof(wss), "%s %s", r->words->wss,
			 mt_fmt_bytes(wss_pages << LIVE_BUCKET_SHIFT, wbuf, sizeof(wbuf)));
	else
		snprintf(wss, sizeof(wss), "no samples");
	fprintf(stderr, "\r\033[Kmemtrace: %.1f s  %llu %s (%.0f/s)  lost %llu  dropped %llu  %s  written %s",
		(double)(wall - r->status_wall) / 1e9, (unsigned long long)r->samples,
		r->words->samples, rate, (unsigned long long)r->total_lost,
		(unsigned long long)r->dropped, wss,
		mt_fmt_bytes(trace_writer_bytes(r->w), fbuf, sizeof(fbuf)));
	if (final)
		fputc('\n', stderr);
	r->status_at = wall;
	r->status_samples = r->samples;
}
