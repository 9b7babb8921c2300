/*
 * fuzz_trace.c - the trace reader through the public API
 * (include/memtrace/trace.h): open/validate, meta, info, side records
 * (threads, lost, windows, maps), filtered and unfiltered column decoding,
 * chunk iteration with per-chunk decoding, words and target name.
 * Input: a trace file (CRCs fixed up, fuzz_input.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "fuzz_input.h"

#define CAP 4096	/* decode buffer: a read with more samples must fail cleanly */

static struct memtrace_columns cols(void)
{
	static uint64_t time[CAP], addr[CAP], ip[CAP], dsrc[CAP];
	static uint32_t pid[CAP], tid[CAP], cpu[CAP], weight[CAP];

	return (struct memtrace_columns){ .time = time, .addr = addr, .ip = ip,
					  .data_src = dsrc, .pid = pid, .tid = tid,
					  .cpu = cpu, .weight = weight, .cap = CAP };
}

static volatile uint64_t sink;

static void side_records(struct memtrace_trace *t, char *err, size_t errlen)
{
	const struct memtrace_thread *th;
	const struct memtrace_lost *lo;
	const struct memtrace_window_row *w;
	const struct memtrace_maps_snapshot *m;
	const struct memtrace_pass *ps;
	long n;

	if ((n = memtrace_trace_threads(t, &th, err, errlen)) > 0)
		sink += th[n - 1].tid + strlen(th[n - 1].comm);
	if ((n = memtrace_trace_lost(t, &lo, err, errlen)) > 0)
		sink += lo[n - 1].lost;
	if ((n = memtrace_trace_windows(t, &w, err, errlen)) > 0)
		sink += w[n - 1].wss_data;
	if ((n = memtrace_trace_maps(t, &m, err, errlen)) > 0)
		sink += m[n - 1].len + strlen(m[n - 1].text);
	if ((n = memtrace_trace_passes(t, &ps, err, errlen)) > 0)
		sink += ps[n - 1].time + ps[n - 1].what;
}

static void reads(struct memtrace_trace *t, const struct memtrace_trace_info *info,
		  char *err, size_t errlen)
{
	struct memtrace_columns c = cols();
	size_t n;

	if (memtrace_trace_read(t, NULL, &c, &n, err, errlen) == 0 && n)
		sink += c.time[n - 1];
	/* filters from what the trace holds: a pid, the middle of the span, a mapping */
	struct memtrace_filter f = { .pid = info->target_pid, .time_from = 1,
				     .time_to = (info->last_time - info->start_time) / 2,
				     .addr_lo = 0x1000, .addr_hi = 1ull << 47 };
	if (memtrace_trace_read(t, &f, &c, &n, err, errlen) == 0 && n)
		sink += c.addr[0];
	const struct memtrace_maps_snapshot *m;
	if (memtrace_trace_maps(t, &m, err, errlen) > 0) {
		struct memtrace_filter fm = { .mapping = "[heap]" };
		if (memtrace_trace_read(t, &fm, &c, &n, err, errlen) == 0)
			sink += n;
		fm.mapping = "";
		if (memtrace_trace_read(t, &fm, &c, &n, err, errlen) == 0)
			sink += n;
	}
}

static void chunks(struct memtrace_trace *t, char *err, size_t errlen)
{
	struct memtrace_chunk ch;
	struct memtrace_columns c = cols();
	int rc;

	if (memtrace_trace_rewind(t, err, errlen))
		return;
	while ((rc = memtrace_trace_next(t, &ch, err, errlen)) > 0) {
		size_t n;
		if (ch.type == MEMTRACE_CHUNK_SAMPLES &&
		    memtrace_chunk_samples(&ch, &c, &n, err, errlen) == 0 && n)
			sink += c.pid[n - 1];
		if (ch.len)
			sink += ch.data[ch.len - 1];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256], comm[32];
	int fd = fuzz_memfd(data, size, 1, path, sizeof(path));
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));

	if (t) {
		struct memtrace_trace_info info;
		const char *s = memtrace_trace_meta(t, "time_unit");
		sink += s ? strlen(s) : 0;
		if (memtrace_trace_info(t, &info, err, sizeof(err)) == 0) {
			side_records(t, err, sizeof(err));
			reads(t, &info, err, sizeof(err));
			s = memtrace_trace_end_meta(t, "end_reason");
			sink += s ? strlen(s) : 0;
		}
		chunks(t, err, sizeof(err));
		sink += strlen(memtrace_trace_words(t)->samples);
		sink += strlen(memtrace_trace_target_comm(t));
		sink += strlen(memtrace_target_comm(memtrace_trace_meta(t, "target_comm"), NULL,
						    comm, sizeof(comm)));
		memtrace_trace_close(t);
	}
	close(fd);
	return 0;
}
