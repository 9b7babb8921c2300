/* test_api.c - the public trace API (include/memtrace/trace.h): write a trace
 * through memtrace_writer_*, read it back through memtrace_trace_*. */
#include <sys/stat.h>

#include "api_util.h"
#include "memtrace/report.h"
#include "test.h"
#include "trace/writer.h"

static const uint64_t T[6] = { 1005, 1007, 1007, 1020, 2000, 2000 };
static const uint64_t A[6] = { 0x7f0000000010, 0x4c8010, 0xFFFFFFFFFFFFFFFF, 0,
			       0x7ffffffde008, 0x4c8010 };
static const uint32_t TID[6] = { 100, 101, 100, 101, 100, 100 };
static const uint32_t PID[6] = { 100, 100, 100, 100, 100, 100 };
static const uint32_t CPU[6] = { 0, 1, 0, 1, 0, 1 };
static const uint64_t IP[4] = { 0x401000, 0x401001, 0x401002, 0x401003 };

#define MAPS_TEXT \
	"00400000-00401000 r--p 00000000 08:01 42 /usr/bin/dbtest\n" \
	"00401000-00480000 r-xp 00001000 08:01 42 /usr/bin/dbtest\n" \
	"004c0000-004c8000 rw-p 000c0000 08:01 42 /usr/bin/dbtest\n" \
	"004c8000-00500000 rw-p 00000000 00:00 0 [heap]\n" \
	"7f0000000000-7f0000400000 rw-p 00000000 00:00 0 [anon:column]\n" \
	"7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]\n"

#define META "format=memtrace-1\ntime_unit=ns\nstart_time=1000\ntarget_pid=100\n" \
	     "sample_period=10\nbucket_default=8192\ntarget_comm=test"

/* HEADER, MAPS, THREADS, SAMPLES(4, ip), SAMPLES(2), LOST, END. */
static const char *write_std(const char *name, int with_end)
{
	char err[256];
	const char *p = tpath(name);
	struct memtrace_writer *w = memtrace_writer_open(p, META, err, sizeof(err));
	if (!w) {
		TEST_FAIL("writer_open: %s", err);
		return p;
	}
	CHECK(!memtrace_writer_maps(w, 1000, 100, MAPS_TEXT, strlen(MAPS_TEXT), err, sizeof(err)));
	CHECK(!memtrace_writer_thread(w, 1001, 100, 100, "dbtest", err, sizeof(err)));
	CHECK(!memtrace_writer_thread(w, 1002, 100, 101, "averyveryverylongname", err,
				      sizeof(err)));
	struct memtrace_columns c = { .time = (uint64_t *)T, .addr = (uint64_t *)A,
				      .pid = (uint32_t *)PID, .tid = (uint32_t *)TID,
				      .cpu = (uint32_t *)CPU, .ip = (uint64_t *)IP };
	CHECK(!memtrace_writer_samples(w, &c, 4, err, sizeof(err)));
	struct memtrace_columns c2 = { .time = (uint64_t *)T + 4, .addr = (uint64_t *)A + 4,
				       .pid = (uint32_t *)PID + 4, .tid = (uint32_t *)TID + 4,
				       .cpu = (uint32_t *)CPU + 4 };
	CHECK(!memtrace_writer_samples(w, &c2, 2, err, sizeof(err)));
	CHECK(!memtrace_writer_lost(w, 1500, 1, 5, 2, err, sizeof(err)));
	CHECK(!memtrace_writer_close(w, with_end ? "end_reason=target-exited\nend_time=2500\n"
						   "samples=6\ndropped=3\n" : NULL,
				     err, sizeof(err)));
	return p;
}

TEST(api_info_exact)
{
	char err[256];
	struct memtrace_trace_info in;
	struct memtrace_trace *t = memtrace_trace_open(write_std("std.mtrace", 1), err, sizeof(err));

	CHECK(t);
	if (!t)
		return;
	CHECK(memtrace_trace_end_meta(t, "end_reason") == NULL); /* before info */
	CHECK(!memtrace_trace_info(t, &in, err, sizeof(err)));
	CHECK_EQ_U64(in.version_major, 1);
	CHECK_EQ_U64(in.version_minor, 4);	/* SPANS2 grain (format minor 4) */
	CHECK_EQ_U64(in.time_is_ns, 1);
	CHECK_EQ_U64(in.complete, 1);
	CHECK_EQ_U64(in.truncated_bytes, 0);
	CHECK_EQ_U64(in.samples, 6);
	CHECK_EQ_U64(in.columns, 0x3F);
	CHECK_EQ_U64(in.start_time, 1000);
	CHECK_EQ_U64(in.end_time, 2500);
	CHECK_EQ_U64(in.first_time, 1005);
	CHECK_EQ_U64(in.last_time, 2000);
	CHECK_EQ_U64(in.chunks, 7);
	CHECK_EQ_U64(in.maps, 1);
	CHECK_EQ_U64(in.threads, 2);
	CHECK_EQ_U64(in.lost, 5);
	CHECK_EQ_U64(in.throttled, 2);
	CHECK_EQ_U64(in.dropped, 3);
	CHECK_EQ_U64(in.sample_period, 10);
	CHECK_EQ_U64(in.bucket_default, 8192);
	CHECK_EQ_U64(in.target_pid, 100);
	CHECK_STR(memtrace_trace_meta(t, "target_comm"), "test");
	CHECK_STR(memtrace_trace_meta(t, "format"), "memtrace-1");
	CHECK(memtrace_trace_meta(t, "nosuch") == NULL);
	CHECK_STR(memtrace_trace_end_meta(t, "end_reason"), "target-exited");
	CHECK_STR(memtrace_trace_end_meta(t, "samples"), "6");
	memtrace_trace_close(t);
}

TEST(api_info_defaults_without_end)
{
	char err[256];
	const char *p = tpath("defaults.mtrace");
	struct memtrace_writer *w = memtrace_writer_open(
		p, "time_unit=insn\nstart_time=7\nbucket_default=1000\n", err, sizeof(err));
	CHECK(w);
	if (!w)
		return;
	uint64_t t[2] = { 10, 40 }, a[2] = { 1, 2 };
	uint32_t z[2] = { 0, 0 };
	struct memtrace_columns c = { .time = t, .addr = a, .pid = z, .tid = z, .cpu = z };
	CHECK(!memtrace_writer_samples(w, &c, 2, err, sizeof(err)));
	CHECK(!memtrace_writer_close(w, NULL, err, sizeof(err)));

	struct memtrace_trace *tr = memtrace_trace_open(p, err, sizeof(err));
	struct memtrace_trace_info in;
	CHECK(tr && !memtrace_trace_info(tr, &in, err, sizeof(err)));
	if (!tr)
		return;
	CHECK_EQ_U64(in.time_is_ns, 0);
	CHECK_EQ_U64(in.complete, 0);
	CHECK_EQ_U64(in.truncated_bytes, 0);
	CHECK_EQ_U64(in.sample_period, 1);
	CHECK_EQ_U64(in.bucket_default, 4096);
	CHECK_EQ_U64(in.target_pid, 0);
	CHECK_EQ_U64(in.start_time, 7);
	CHECK_EQ_U64(in.end_time, 40);
	CHECK_EQ_U64(in.columns, 0x1F);
	CHECK_EQ_U64(in.chunks, 2);
	CHECK(memtrace_trace_end_meta(tr, "end_time") == NULL);
	memtrace_trace_close(tr);
}

TEST(api_read_all_columns_exact)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(write_std("all.mtrace", 1), err, sizeof(err));
	struct memtrace_columns c;
	size_t n = 99;

	CHECK(t);
	if (!t)
		return;
	cols_alloc(&c, 6);
	for (size_t i = 0; i < 6; i++)
		c.weight[i] = 77;	/* a column the trace lacks: zeros */
	CHECK(!memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err)));
	CHECK_EQ_U64(n, 6);
	for (size_t i = 0; i < 6; i++) {
		CHECK_EQ_U64(c.time[i], T[i]);
		CHECK_EQ_U64(c.addr[i], A[i]);
		CHECK_EQ_U64(c.pid[i], 100);
		CHECK_EQ_U64(c.tid[i], TID[i]);
		CHECK_EQ_U64(c.cpu[i], CPU[i]);
		CHECK_EQ_U64(c.ip[i], i < 4 ? IP[i] : 0);
		CHECK_EQ_U64(c.weight[i], 0);
		CHECK_EQ_U64(c.data_src[i], 0);
	}
	/* only some columns wanted: the others are not touched */
	uint32_t pid[6] = { 0 };
	struct memtrace_columns only = { .pid = pid, .cap = 6 };
	CHECK(!memtrace_trace_read(t, NULL, &only, &n, err, sizeof(err)));
	CHECK_EQ_U64(n, 6);
	CHECK_EQ_U64(pid[5], 100);
	/* buffer one too small: -1, nothing claimed */
	c.cap = 5;
	CHECK_EQ_U64(memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err)), (uint64_t)-1);
	CHECK(strstr(err, "buffer too small") != NULL);
	CHECK_EQ_U64(n, 0);
	cols_free(&c);
	memtrace_trace_close(t);
}

/* Reads with filter f; returns n, the times in *times (6 max). */
static long read_filtered(struct memtrace_trace *t, const struct memtrace_filter *f,
			  uint64_t *times, uint64_t *addrs, size_t cap, char *err)
{
	struct memtrace_columns c = { .time = times, .addr = addrs, .cap = cap };
	size_t n;

	if (memtrace_trace_read(t, f, &c, &n, err, 256))
		return -1;
	return (long)n;
}

TEST(api_filters_pid_tid_time_addr)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(write_std("filt.mtrace", 1), err, sizeof(err));
	uint64_t tm[6], ad[6];

	CHECK(t);
	if (!t)
		return;
	struct memtrace_filter f = { .tid = 101 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 2);
	CHECK_EQ_U64(tm[0], 1007);
	CHECK_EQ_U64(tm[1], 1020);
	f = (struct memtrace_filter){ .pid = 100 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 6);
	f = (struct memtrace_filter){ .pid = 101 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 0);
	/* time: offsets from start_time 1000, inclusive both ends */
	f = (struct memtrace_filter){ .time_from = 7, .time_to = 20 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 3);
	CHECK_EQ_U64(tm[0], 1007);
	CHECK_EQ_U64(tm[2], 1020);
	f = (struct memtrace_filter){ .time_from = 21 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 2);
	CHECK_EQ_U64(tm[0], 2000);
	/* addr [lo, hi) */
	f = (struct memtrace_filter){ .addr_lo = 0x4c8010, .addr_hi = 0x7f0000000011 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 3);
	CHECK_EQ_U64(ad[0], 0x7f0000000010);
	CHECK_EQ_U64(ad[1], 0x4c8010);
	CHECK_EQ_U64(ad[2], 0x4c8010);
	CHECK_EQ_U64(tm[2], 2000);
	f = (struct memtrace_filter){ .addr_lo = 0x4c8011 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 3);
	/* combined, and a filtered read that overflows its buffer */
	f = (struct memtrace_filter){ .tid = 100, .time_to = 1000 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 4);
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 3, err), (uint64_t)-1);
	CHECK(strstr(err, "buffer too small") != NULL);
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 4, err), 4);
	/* empty ranges are errors */
	f = (struct memtrace_filter){ .time_from = 20, .time_to = 10 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), (uint64_t)-1);
	f = (struct memtrace_filter){ .addr_lo = 20, .addr_hi = 10 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), (uint64_t)-1);
	memtrace_trace_close(t);
}

TEST(api_filter_mapping)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(write_std("map.mtrace", 1), err, sizeof(err));
	uint64_t tm[6], ad[6];

	CHECK(t);
	if (!t)
		return;
	struct memtrace_filter f = { .mapping = "[heap]" };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 2);
	CHECK_EQ_U64(ad[0], 0x4c8010);
	CHECK_EQ_U64(tm[1], 2000);
	f = (struct memtrace_filter){ .mapping = "stack" };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 1);
	CHECK_EQ_U64(ad[0], 0x7ffffffde008);
	/* mapping and address range intersect */
	f = (struct memtrace_filter){ .mapping = "[heap]", .addr_lo = 0x4c8011 };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), 0);
	f = (struct memtrace_filter){ .mapping = "nosuch" };
	CHECK_EQ_U64(read_filtered(t, &f, tm, ad, 6, err), (uint64_t)-1);
	CHECK(!strncmp(err, "--mapping nosuch: no mapping of that name (mappings: ", 53));
	CHECK(strstr(err, "[heap]") != NULL);
	CHECK(strstr(err, "[stack]") != NULL);
	memtrace_trace_close(t);
}

TEST(api_chunk_iteration)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(write_std("it.mtrace", 1), err, sizeof(err));
	static const unsigned want[] = { MEMTRACE_CHUNK_MAPS, MEMTRACE_CHUNK_THREADS,
					 MEMTRACE_CHUNK_SAMPLES, MEMTRACE_CHUNK_SAMPLES,
					 MEMTRACE_CHUNK_LOST, MEMTRACE_CHUNK_END };
	static const uint32_t count[] = { 6, 2, 4, 2, 1, 4 };
	struct memtrace_chunk ch;
	struct memtrace_columns c;
	size_t n, k = 0;
	int rc;

	CHECK(t);
	if (!t)
		return;
	cols_alloc(&c, 4);
	for (int pass = 0; pass < 2; pass++) {
		CHECK(!memtrace_trace_rewind(t, err, sizeof(err)));
		k = 0;
		while ((rc = memtrace_trace_next(t, &ch, err, sizeof(err))) > 0) {
			if (k < 6) {
				CHECK_EQ_U64(ch.type, want[k]);
				CHECK_EQ_U64(ch.count, count[k]);
			}
			if (ch.type == MEMTRACE_CHUNK_SAMPLES) {
				CHECK(!memtrace_chunk_samples(&ch, &c, &n, err, sizeof(err)));
				CHECK_EQ_U64(n, ch.count);
				CHECK_EQ_U64(c.time[0], k == 2 ? 1005 : 2000);
				CHECK_EQ_U64(c.ip[0], k == 2 ? 0x401000 : 0);
				c.cap = 3;
				if (k == 2)
					CHECK_EQ_U64(memtrace_chunk_samples(&ch, &c, &n, err,
									    sizeof(err)),
						     (uint64_t)-1);
				c.cap = 4;
			} else {
				CHECK_EQ_U64(memtrace_chunk_samples(&ch, &c, &n, err, sizeof(err)),
					     (uint64_t)-1);
			}
			if (ch.type == MEMTRACE_CHUNK_MAPS) {
				CHECK_EQ_U64(ch.len, 16 + strlen(MAPS_TEXT));
				CHECK(!memcmp(ch.data + 16, MAPS_TEXT, strlen(MAPS_TEXT)));
			}
			/* info and read in between do not disturb the iterator */
			struct memtrace_trace_info in;
			CHECK(!memtrace_trace_info(t, &in, err, sizeof(err)));
			k++;
		}
		CHECK_EQ_U64(rc, 0);
		CHECK_EQ_U64(k, 6);
		CHECK_EQ_U64(memtrace_trace_next(t, &ch, err, sizeof(err)), 0);
	}
	cols_free(&c);
	memtrace_trace_close(t);
}

TEST(api_side_records)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(write_std("side.mtrace", 1), err, sizeof(err));
	const struct memtrace_thread *th;
	const struct memtrace_lost *lo;
	const struct memtrace_maps_snapshot *ms;
	const struct memtrace_window_row *wr;

	CHECK(t);
	if (!t)
		return;
	CHECK_EQ_U64(memtrace_trace_threads(t, &th, err, sizeof(err)), 2);
	CHECK_EQ_U64(th[0].time, 1001);
	CHECK_EQ_U64(th[0].pid, 100);
	CHECK_EQ_U64(th[0].tid, 100);
	CHECK_STR(th[0].comm, "dbtest");
	CHECK_EQ_U64(th[1].tid, 101);
	CHECK_STR(th[1].comm, "averyveryverylo");
	CHECK_EQ_U64(memtrace_trace_lost(t, &lo, err, sizeof(err)), 1);
	CHECK_EQ_U64(lo[0].time, 1500);
	CHECK_EQ_U64(lo[0].cpu, 1);
	CHECK_EQ_U64(lo[0].lost, 5);
	CHECK_EQ_U64(lo[0].throttled, 2);
	CHECK_EQ_U64(memtrace_trace_maps(t, &ms, err, sizeof(err)), 1);
	CHECK_EQ_U64(ms[0].time, 1000);
	CHECK_EQ_U64(ms[0].pid, 100);
	CHECK_EQ_U64(ms[0].len, strlen(MAPS_TEXT));
	CHECK_STR(ms[0].text, MAPS_TEXT);
	CHECK_EQ_U64(memtrace_trace_windows(t, &wr, err, sizeof(err)), 0);
	memtrace_trace_close(t);
}

TEST(api_many_samples_chunked)
{
	enum { N = 200000 };
	char err[256];
	const char *p = tpath("many.mtrace");
	struct memtrace_columns c;

	cols_alloc(&c, N);
	for (size_t i = 0; i < N; i++) {
		c.time[i] = 5000 + i * 3;
		c.addr[i] = 0x7f0000000000ull + ((i * 2654435761u) & 0xffffff) * 64;
		c.pid[i] = 7;
		c.tid[i] = 7 + (uint32_t)(i % 5);
		c.cpu[i] = (uint32_t)(i % 2);
		c.weight[i] = (uint32_t)(i % 300);
	}
	struct memtrace_columns in = c;
	in.ip = NULL;
	in.data_src = NULL;
	struct memtrace_writer *w = memtrace_writer_open(p, "time_unit=ns\nstart_time=5000\n",
							 err, sizeof(err));
	CHECK(w && !memtrace_writer_samples(w, &in, N, err, sizeof(err)));
	CHECK(w && !memtrace_writer_close(w, "end_time=9\n", err, sizeof(err)));

	struct memtrace_columns out;
	cols_alloc(&out, N);
	size_t n;
	struct memtrace_trace *t = memtrace_trace_open(p, err, sizeof(err));
	CHECK(t && !memtrace_trace_read(t, NULL, &out, &n, err, sizeof(err)));
	CHECK_EQ_U64(n, N);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		bad += out.time[i] != c.time[i] || out.addr[i] != c.addr[i] ||
		       out.tid[i] != c.tid[i] || out.cpu[i] != c.cpu[i] ||
		       out.weight[i] != c.weight[i] || out.pid[i] != 7 || out.ip[i] != 0;
	CHECK_EQ_U64(bad, 0);
	struct memtrace_trace_info info;
	CHECK(t && !memtrace_trace_info(t, &info, err, sizeof(err)));
	CHECK_EQ_U64(info.chunks, 6);	/* HEADER, 4 SAMPLES, END */
	CHECK_EQ_U64(info.columns, 0x5F);
	CHECK_EQ_U64(info.last_time, 5000 + (N - 1) * 3);
	struct memtrace_chunk ch;
	uint32_t counts[4] = { 0 };
	int k = 0;
	while (t && memtrace_trace_next(t, &ch, err, sizeof(err)) > 0)
		if (ch.type == MEMTRACE_CHUNK_SAMPLES && k < 4)
			counts[k++] = ch.count;
	CHECK_EQ_U64(counts[0], 65536);
	CHECK_EQ_U64(counts[2], 65536);
	CHECK_EQ_U64(counts[3], N - 3 * 65536);
	/* filtered: every 5th sample (tid 9) */
	struct memtrace_filter f = { .tid = 9 };
	CHECK(t && !memtrace_trace_read(t, &f, &out, &n, err, sizeof(err)));
	CHECK_EQ_U64(n, N / 5);
	CHECK_EQ_U64(out.time[1], 5000 + 7 * 3);
	CHECK_EQ_U64(out.weight[N / 5 - 1], (N - 3) % 300);
	memtrace_trace_close(t);
	cols_free(&c);
	cols_free(&out);
}

static uint64_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) ? 0 : (uint64_t)st.st_size;
}

TEST(api_truncated_tail_keeps_chunks)
{
	char err[256];
	const char *p = tpath("cut_src.mtrace");
	uint64_t t100[100], a100[100];
	uint32_t z[100] = { 0 };
	uint64_t off[16];
	int noff = 0;

	for (int i = 0; i < 100; i++) {
		t100[i] = (uint64_t)i;
		a100[i] = 0x7f0000000000ull + 64u * (unsigned)i;
	}
	struct memtrace_writer *w = memtrace_writer_open(p, "time_unit=ns\nstart_time=0\n", err,
							 sizeof(err));
	for (int k = 0; w && k < 10; k++) {
		struct memtrace_columns c = { .time = t100 + 10 * k, .addr = a100 + 10 * k,
					      .pid = z, .tid = z, .cpu = z };
		CHECK(!memtrace_writer_samples(w, &c, 10, err, sizeof(err)));
	}
	CHECK(w && !memtrace_writer_close(w, "end_reason=x\n", err, sizeof(err)));
	struct memtrace_trace *t = memtrace_trace_open(p, err, sizeof(err));
	struct memtrace_chunk ch;
	while (t && memtrace_trace_next(t, &ch, err, sizeof(err)) > 0 && noff < 16)
		off[noff++] = ch.offset;
	memtrace_trace_close(t);
	CHECK_EQ_U64(noff, 11);	/* 10 SAMPLES + END */
	uint64_t size = file_size(p);
	FILE *f = fopen(p, "rb");
	unsigned char *data = malloc(size);
	CHECK(f && fread(data, 1, size, f) == size);
	if (f)
		fclose(f);
	/* cut inside chunk k (its header, its payload, the END chunk) */
	for (int k = 0; k < noff; k++) {
		uint64_t next = k + 1 < noff ? off[k + 1] : size;
		uint64_t cuts[3] = { off[k] + 5, off[k] + 32 + 1, next - 1 };
		for (int j = 0; j < 3; j++) {
			struct bld b = { 0 };
			bput(&b, data, cuts[j]);
			const char *cp = bld_write(&b, "cut.mtrace");
			free(b.p);
			struct memtrace_trace *tc = memtrace_trace_open(cp, err, sizeof(err));
			struct memtrace_trace_info in;
			CHECK(tc && !memtrace_trace_info(tc, &in, err, sizeof(err)));
			if (!tc)
				continue;
			CHECK_EQ_U64(in.complete, 0);
			CHECK_EQ_U64(in.truncated_bytes, cuts[j] - off[k]);
			CHECK_EQ_U64(in.samples, 10u * (unsigned)(k < 10 ? k : 10));
			uint64_t tm[100];
			struct memtrace_columns c = { .time = tm, .cap = 100 };
			size_t n;
			CHECK(!memtrace_trace_read(tc, NULL, &c, &n, err, sizeof(err)));
			CHECK_EQ_U64(n, in.samples);
			for (size_t i = 0; i < n; i++)
				CHECK_EQ_U64(tm[i], i);
			memtrace_trace_close(tc);
		}
	}
	free(data);
}

TEST(api_writer_errors)
{
	char err[256] = "";
	CHECK(!memtrace_writer_open(tpath("x.mtrace"), "time_unit=ns\n", err, sizeof(err)));
	CHECK_STR(err, "trace meta must hold time_unit= and start_time= lines");
	CHECK(!memtrace_writer_open("/nonexistent/dir/x.mtrace", "time_unit=ns\nstart_time=0\n",
				    err, sizeof(err)));
	CHECK(!strncmp(err, "cannot create /nonexistent/dir/x.mtrace: ", 41));
	struct memtrace_writer *w = memtrace_writer_open(tpath("y.mtrace"),
							 "time_unit=ns\nstart_time=0\n", err,
							 sizeof(err));
	uint64_t v[1] = { 1 };
	struct memtrace_columns c = { .time = v, .addr = v };
	CHECK(w && memtrace_writer_samples(w, &c, 1, err, sizeof(err)) == -1);
	CHECK_STR(err, "samples need the time, addr, pid, tid and cpu columns");
	CHECK(w && !memtrace_writer_close(w, NULL, err, sizeof(err)));
}

TEST(api_parse_duration_and_size)
{
	uint64_t v = 0;
	CHECK(!memtrace_parse_duration("10ms", 1, &v));
	CHECK_EQ_U64(v, 10000000);
	CHECK(!memtrace_parse_duration("1.5s", 1, &v));
	CHECK_EQ_U64(v, 1500000000);
	CHECK(!memtrace_parse_duration("200us", 1, &v));
	CHECK_EQ_U64(v, 200000);
	CHECK(!memtrace_parse_duration("500", 1, &v));
	CHECK_EQ_U64(v, 500);
	CHECK(!memtrace_parse_duration("2k", 0, &v));
	CHECK_EQ_U64(v, 2000);
	CHECK_EQ_U64(memtrace_parse_duration("10ms", 0, &v), (uint64_t)-1);
	CHECK_EQ_U64(memtrace_parse_duration("10xs", 1, &v), (uint64_t)-1);
	CHECK_EQ_U64(memtrace_parse_duration(NULL, 1, &v), (uint64_t)-1);
	CHECK(!memtrace_parse_size("4K", &v));
	CHECK_EQ_U64(v, 4096);
	CHECK(!memtrace_parse_size("2M", &v));
	CHECK_EQ_U64(v, 2097152);
	CHECK(!memtrace_parse_size("64", &v));
	CHECK_EQ_U64(v, 64);
	CHECK_EQ_U64(memtrace_parse_size("x", &v), (uint64_t)-1);
}

int main(void)
{
	return test_main();
}
