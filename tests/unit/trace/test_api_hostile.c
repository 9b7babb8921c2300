/* test_api_hostile.c - crafted and damaged files through the public trace API
 * (the file-format checks of the former Python reader tests). */
#include "api_util.h"
#include "test.h"

static char err[256];

/* Opens b (written to name); info and a full read; returns the read's rc. */
static int open_read(const struct bld *b, const char *name, struct memtrace_trace_info *in,
		     struct memtrace_columns *c, size_t *n)
{
	struct memtrace_trace *t = memtrace_trace_open(bld_write(b, name), err, sizeof(err));
	int rc = -1;

	if (!t)
		return -2;
	if (!memtrace_trace_info(t, in, err, sizeof(err)))
		rc = memtrace_trace_read(t, NULL, c, n, err, sizeof(err));
	memtrace_trace_close(t);
	return rc;
}

/* SAMPLES payload of n samples: all five required columns from v (same values). */
static void samples_payload(struct bld *p, const uint64_t *time, const uint64_t *addr, size_t n)
{
	uint64_t z[8] = { 0 };
	bput_u32(p, (uint32_t)n);
	bput_u32(p, 0x1F);
	enc_column(p, time, n, 0, -1);
	enc_column(p, addr, n, 0, -1);
	for (int k = 0; k < 3; k++)
		enc_column(p, z, n, 0, -1);
}

static void std_head(struct bld *b, uint16_t minor)
{
	file_hdr(b, 1, minor);
	add_text(b, CHUNK_HEADER, STD_HEADER);
}

TEST(hostile_decoding_paths_exact)
{
	static const uint64_t A[6] = { 0x7f0000000010, 0x4c8010, 0xFFFFFFFFFFFFFFFF, 0,
				       0x7ffffffde008, 0x4c8010 };
	static const uint64_t D[7] = { 10, 5, 0, 0xFFFFFFFFFFFFFFFF, 3, 3, 1ull << 63 };
	/* every transform x width: offset/delta, auto width and 8; widths 1..8 */
	for (int tr = 0; tr < 2; tr++)
		for (int w = -1; w <= 8; w++) {
			if (w == 0 || w == 3 || w == 5 || w == 6 || w == 7)
				continue;
			const uint64_t *v = w == -1 || w == 8 ? (tr ? D : A) : NULL;
			uint64_t small[4];
			size_t n = v == D ? 7 : 6;
			if (!v) {	/* values that need exactly width w (offset) */
				small[0] = 100;
				small[1] = 101;
				small[2] = 100 + (1ull << (8 * w)) - 1;
				small[3] = 100;
				v = small;
				n = 4;
				if (tr)
					continue;
			}
			struct bld b = { 0 }, p = { 0 };
			uint64_t zeros[8] = { 0 };
			std_head(&b, 0);
			bput_u32(&p, (uint32_t)n);
			bput_u32(&p, 0x1F);
			enc_column(&p, zeros, n, 0, -1);
			enc_column(&p, v, n, (unsigned)tr, w);
			for (int k = 0; k < 3; k++)
				enc_column(&p, zeros, n, 0, -1);
			add_chunk(&b, CHUNK_SAMPLES, 1, p.p, p.len, (uint32_t)n, 0);
			struct memtrace_trace_info in;
			struct memtrace_columns c;
			size_t got = 0;
			cols_alloc(&c, 8);
			CHECK_EQ_U64(open_read(&b, "paths.mtrace", &in, &c, &got), 0);
			CHECK_EQ_U64(got, n);
			for (size_t i = 0; i < n; i++)
				CHECK_EQ_U64(c.addr[i], v[i]);
			cols_free(&c);
			free(b.p);
			free(p.p);
		}
}

TEST(hostile_width_zero_and_byte_planes_by_hand)
{
	struct bld b = { 0 }, p = { 0 };
	unsigned char col[16] = { 0 };
	std_head(&b, 0);
	bput_u32(&p, 2);
	bput_u32(&p, 0x1F);
	col[1] = 0;
	put_le64(col + 8, 42);	/* time: width 0, all 42 */
	bput(&p, col, 16);
	col[1] = 2;		/* addr: 0x0102, 0x0304: low bytes then high bytes */
	put_le64(col + 8, 0);
	bput(&p, col, 16);
	bput(&p, "\x02\x04\x01\x03", 4);
	col[1] = 0;
	for (int k = 0; k < 3; k++)
		bput(&p, col, 16);
	add_chunk(&b, CHUNK_SAMPLES, 0, p.p, p.len, 2, 0);
	struct memtrace_trace_info in;
	struct memtrace_columns c;
	size_t n = 0;
	cols_alloc(&c, 2);
	CHECK_EQ_U64(open_read(&b, "planes.mtrace", &in, &c, &n), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(c.time[0], 42);
	CHECK_EQ_U64(c.time[1], 42);
	CHECK_EQ_U64(c.addr[0], 0x0102);
	CHECK_EQ_U64(c.addr[1], 0x0304);
	CHECK_EQ_U64(in.first_time, 42);
	CHECK_EQ_U64(in.complete, 0);
	cols_free(&c);
	free(b.p);
	free(p.p);
}

TEST(hostile_unknown_chunk_skipped_minor_accepted)
{
	struct bld b = { 0 }, p = { 0 };
	uint64_t t[2] = { 1, 2 }, a[2] = { 0x1000, 0x2000 };
	std_head(&b, 7);
	add_chunk(&b, 99, 0, "future stuff", 12, 1, 0);
	samples_payload(&p, t, a, 2);
	add_chunk(&b, CHUNK_SAMPLES, 1, p.p, p.len, 2, 0);
	add_text(&b, CHUNK_END, "end_reason=x\n");
	struct memtrace_trace_info in;
	struct memtrace_columns c;
	size_t n = 0;
	cols_alloc(&c, 2);
	CHECK_EQ_U64(open_read(&b, "unknown.mtrace", &in, &c, &n), 0);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(in.version_minor, 7);
	CHECK_EQ_U64(in.chunks, 4);
	CHECK_EQ_U64(in.complete, 1);
	CHECK_EQ_U64(c.addr[1], 0x2000);
	/* the iterator hands the unknown chunk out with its type */
	struct memtrace_trace *tr = memtrace_trace_open(tpath("unknown.mtrace"), err, sizeof(err));
	struct memtrace_chunk ch;
	CHECK(tr && memtrace_trace_next(tr, &ch, err, sizeof(err)) == 1);
	CHECK_EQ_U64(ch.type, 99);
	CHECK_EQ_U64(ch.len, 12);
	memtrace_trace_close(tr);
	cols_free(&c);
	free(b.p);
	free(p.p);
}

static void expect_open_error(const struct bld *b, const char *name, const char *want)
{
	struct memtrace_trace *t = memtrace_trace_open(bld_write(b, name), err, sizeof(err));
	CHECK(t == NULL);
	memtrace_trace_close(t);
	if (!strstr(err, want))
		TEST_FAIL("error \"%s\" lacks \"%s\"", err, want);
}

/* Open succeeds, info fails with want. */
static void expect_info_error(const struct bld *b, const char *name, const char *want)
{
	struct memtrace_trace *t = memtrace_trace_open(bld_write(b, name), err, sizeof(err));
	struct memtrace_trace_info in;
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U64(memtrace_trace_info(t, &in, err, sizeof(err)), (uint64_t)-1);
	if (!strstr(err, want))
		TEST_FAIL("error \"%s\" lacks \"%s\"", err, want);
	uint64_t v[4];
	struct memtrace_columns c = { .time = v, .cap = 4 };
	size_t n = 9;
	int rc = memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err));
	/* side-chunk damage does not stop a read; sample damage does */
	CHECK(rc == -1 ? n == 0 : n <= 4);
	memtrace_trace_close(t);
}

TEST(hostile_file_header_errors)
{
	struct bld b = { 0 };
	expect_open_error(&b, "empty.mtrace", "empty file");
	bput(&b, "ELF\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
	expect_open_error(&b, "elf.mtrace", "not a memtrace trace (bad magic)");
	b.len = 0;
	bput(&b, "MEMTRACE\1\0", 10);
	expect_open_error(&b, "short.mtrace", "truncated memtrace trace (no complete file header)");
	b.len = 0;
	file_hdr(&b, 2, 0);
	add_text(&b, CHUNK_HEADER, STD_HEADER);
	expect_open_error(&b, "major.mtrace", "trace format version 2 is not supported");
	b.len = 0;
	file_hdr(&b, 1, 0);
	expect_open_error(&b, "nohdr.mtrace", "no complete header chunk");
	add_text(&b, CHUNK_END, "end_reason=x\n");
	expect_open_error(&b, "first.mtrace", "first chunk is not a header");
	struct memtrace_trace *t = memtrace_trace_open("/nonexistent/x.mtrace", err, sizeof(err));
	CHECK(!t);
	CHECK_STR(err, "cannot open /nonexistent/x.mtrace: No such file or directory");
	free(b.p);
}

TEST(hostile_crc_and_header_checks)
{
	struct bld b = { 0 };
	std_head(&b, 0);
	size_t at = b.len;
	add_chunk(&b, CHUNK_SAMPLES, 0, "\0\0\0\0\0\0\0\0", 8, 0, 1);
	char want[128];
	snprintf(want, sizeof(want), "checksum mismatch in chunk at offset %zu", at);
	expect_info_error(&b, "pcrc.mtrace", want);

	b.len = 0;
	std_head(&b, 0);
	b.p[16 + 8] ^= 0xFF;	/* stored_len of the HEADER chunk */
	expect_open_error(&b, "hcrc.mtrace", "corrupt chunk header at offset 16");

	/* a flipped byte in the END payload */
	b.len = 0;
	std_head(&b, 0);
	add_text(&b, CHUNK_END, "end_reason=target-exited\n");
	b.p[b.len - 3] ^= 1;
	expect_info_error(&b, "flip.mtrace", "checksum mismatch");

	/* bounds in the chunk header, with a valid header CRC */
	unsigned char h[CHUNK_HDR_SIZE] = { 0 };
	uint32_t bad[3][3] = { { 0, CHUNK_MAX_LEN + 1, CHUNK_MAX_LEN + 1 },
			       { 0, 10, 20 },		/* stored codec, lengths differ */
			       { 2, 10, 10 } };		/* unknown codec */
	for (int k = 0; k < 3; k++) {
		b.len = 0;
		std_head(&b, 0);
		at = b.len;
		memset(h, 0, sizeof(h));
		put_le32(h, CHUNK_MAGIC);
		put_le16(h + 4, CHUNK_SAMPLES);
		put_le16(h + 6, (uint16_t)bad[k][0]);
		put_le32(h + 8, bad[k][1]);
		put_le32(h + 12, bad[k][2]);
		put_le32(h + 24, crc32c(0, h, 24));
		bput(&b, h, sizeof(h));
		snprintf(want, sizeof(want), "corrupt chunk header at offset %zu", at);
		expect_info_error(&b, "bounds.mtrace", want);
	}
	/* reserved must be 0 */
	b.len = 0;
	std_head(&b, 0);
	b.p[16 + 28] = 1;
	expect_open_error(&b, "resv.mtrace", "corrupt chunk header at offset 16");
	free(b.p);
}

static void samples_error(const void *payload, size_t len, uint32_t count, const char *want)
{
	struct bld b = { 0 };
	std_head(&b, 0);
	add_chunk(&b, CHUNK_SAMPLES, 1, payload, len, count, 0);
	expect_info_error(&b, "samples.mtrace", want);
	/* memtrace_chunk_samples says the same */
	struct memtrace_trace *t = memtrace_trace_open(tpath("samples.mtrace"), err, sizeof(err));
	struct memtrace_chunk ch;
	uint64_t v[8];
	struct memtrace_columns c = { .time = v, .cap = 8 };
	size_t n = 5;
	CHECK(t && memtrace_trace_next(t, &ch, err, sizeof(err)) == 1);
	CHECK(t && memtrace_chunk_samples(&ch, &c, &n, err, sizeof(err)) == -1);
	if (!strstr(err, want))
		TEST_FAIL("chunk_samples error \"%s\" lacks \"%s\"", err, want);
	CHECK_EQ_U64(n, 0);
	memtrace_trace_close(t);
	free(b.p);
}

TEST(hostile_samples_payloads)
{
	struct bld p = { 0 };
	uint64_t one[2] = { 1, 2 };

	for (int k = 0; k < 5; k++)
		enc_column(&p, one, 2, 0, -1);
	struct bld q = { 0 };
	bput_u32(&q, 2);
	bput_u32(&q, 0x1F);
	bput(&q, p.p, p.len);
	samples_error(q.p, q.len, 3, "2 samples in payload, chunk count 3");
	bput(&q, "x", 1);
	samples_error(q.p, q.len, 2, "samples chunk has 1 trailing bytes");
	samples_error(q.p, q.len - 2, 2, "samples chunk shorter than its columns");
	q.len = 0;
	bput_u32(&q, 1);
	bput_u32(&q, 0x03);
	enc_column(&q, one, 1, 0, -1);
	enc_column(&q, one, 1, 0, -1);
	samples_error(q.p, q.len, 1, "bad column mask 0x3");
	q.len = 0;
	bput_u32(&q, 1);
	bput_u32(&q, 0x11F);
	samples_error(q.p, q.len, 1, "bad column mask 0x11f");
	q.len = 0;
	bput_u32(&q, CHUNK_MAX_SAMPLES + 1);
	bput_u32(&q, 0x1F);
	samples_error(q.p, q.len, CHUNK_MAX_SAMPLES + 1, "claims 65537 samples (max 65536)");
	q.len = 0;
	bput_u32(&q, 1);
	bput_u32(&q, 0x1F);
	unsigned char col[16] = { 0, 3 };
	bput(&q, col, 16);
	bput(&q, "abc", 3);
	samples_error(q.p, q.len, 1, "samples column 0 has bad encoding 0/3");
	samples_error(q.p, 4, 1, "samples chunk too short");
	free(p.p);
	free(q.p);
}

TEST(hostile_side_chunk_lengths)
{
	static const unsigned types[4] = { CHUNK_THREADS, CHUNK_LOST, CHUNK_WINDOWS, CHUNK_MAPS };
	static const char *const want[4] = { "corrupt THREADS chunk at offset 106: 2 records in 32 bytes",
					     "corrupt LOST chunk at offset 106: 2 records in 32 bytes",
					     "corrupt WINDOWS chunk at offset 106: 2 records in 32 bytes",
					     "corrupt MAPS chunk at offset 106: 15 bytes" };
	unsigned char zero[32] = { 0 };
	for (int k = 0; k < 4; k++) {
		struct bld b = { 0 };
		std_head(&b, 0);
		CHECK_EQ_U64(b.len, 106);
		add_chunk(&b, types[k], k & 1, zero, k == 3 ? 15 : 32, 2, 0);
		expect_info_error(&b, "side.mtrace", want[k]);
		free(b.p);
	}
}

TEST(hostile_windows_lost_threads_exact)
{
	struct bld b = { 0 }, l = { 0 }, th = { 0 }, w = { 0 }, w2 = { 0 }, p = { 0 };
	uint64_t t[2] = { 10, 20 }, a[2] = { 0x1000, 0x2000 };

	std_head(&b, 0);
	bput_u64(&l, 10); bput_u32(&l, 1); bput_u32(&l, 0); bput_u64(&l, 5); bput_u64(&l, 2);
	bput_u64(&l, 20); bput_u32(&l, 0); bput_u32(&l, 0); bput_u64(&l, 1); bput_u64(&l, 0);
	add_chunk(&b, CHUNK_LOST, 0, l.p, l.len, 2, 0);
	bput_u64(&th, 0); bput_u32(&th, 100); bput_u32(&th, 101);
	bput(&th, "worker\0\0\0\0\0\0\0\0\0\0", 16);
	add_chunk(&b, CHUNK_THREADS, 1, th.p, th.len, 1, 0);
	samples_payload(&p, t, a, 2);
	add_chunk(&b, CHUNK_SAMPLES, 1, p.p, p.len, 2, 0);
	bput_u64(&w, 10); bput_u64(&w, 10); bput_u32(&w, 12); bput_u32(&w, 0);
	bput_u64(&w, 10); bput_u64(&w, 1); bput_u64(&w, 0);
	bput_u64(&w, 20); bput_u64(&w, 1); bput_u64(&w, 0);
	add_chunk(&b, CHUNK_WINDOWS, 1, w.p, w.len, 2, 0);
	/* WINDOWS2 (type 10): the same and samples, f1, f2 of the data row */
	bput_u64(&w2, 10); bput_u64(&w2, 10); bput_u32(&w2, 12); bput_u32(&w2, 0);
	bput_u64(&w2, 30); bput_u64(&w2, 3); bput_u64(&w2, 1);
	bput_u64(&w2, 7); bput_u64(&w2, 2); bput_u64(&w2, 1);
	add_chunk(&b, CHUNK_WINDOWS2, 1, w2.p, w2.len, 1, 0);
	add_text(&b, CHUNK_END, "end_reason=x\nend_time=20\n");

	struct memtrace_trace *tr = memtrace_trace_open(bld_write(&b, "side2.mtrace"), err,
							sizeof(err));
	CHECK(tr);
	if (!tr)
		return;
	const struct memtrace_lost *lo;
	const struct memtrace_thread *ts;
	const struct memtrace_window_row *wr;
	struct memtrace_trace_info in;
	CHECK_EQ_U64(memtrace_trace_lost(tr, &lo, err, sizeof(err)), 2);
	CHECK_EQ_U64(lo[0].time, 10);
	CHECK_EQ_U64(lo[0].cpu, 1);
	CHECK_EQ_U64(lo[0].lost, 5);
	CHECK_EQ_U64(lo[0].throttled, 2);
	CHECK_EQ_U64(lo[1].time, 20);
	CHECK_EQ_U64(lo[1].lost, 1);
	CHECK_EQ_U64(memtrace_trace_threads(tr, &ts, err, sizeof(err)), 1);
	CHECK_EQ_U64(ts[0].pid, 100);
	CHECK_EQ_U64(ts[0].tid, 101);
	CHECK_STR(ts[0].comm, "worker");
	CHECK_EQ_U64(memtrace_trace_windows(tr, &wr, err, sizeof(err)), 3);
	CHECK_EQ_U64(wr[0].window, 10);
	CHECK_EQ_U64(wr[0].interval, 10);
	CHECK_EQ_U64(wr[0].bucket_shift, 12);
	CHECK_EQ_U64(wr[1].time, 20);
	CHECK_EQ_U64(wr[1].wss_data, 1);
	CHECK_EQ_U64(wr[1].wss_code, 0);
	CHECK_EQ_U64(wr[1].has_counts, 0);
	CHECK_EQ_U64(wr[2].time, 30);
	CHECK_EQ_U64(wr[2].wss_data, 3);
	CHECK_EQ_U64(wr[2].wss_code, 1);
	CHECK_EQ_U64(wr[2].samples, 7);
	CHECK_EQ_U64(wr[2].f1, 2);
	CHECK_EQ_U64(wr[2].f2, 1);
	CHECK_EQ_U64(wr[2].has_counts, 1);
	CHECK(!memtrace_trace_info(tr, &in, err, sizeof(err)));
	CHECK_EQ_U64(in.lost, 6);
	CHECK_EQ_U64(in.throttled, 2);
	CHECK_EQ_U64(in.threads, 1);
	CHECK_EQ_U64(in.end_time, 20);
	CHECK_EQ_U64(in.chunks, 7);
	memtrace_trace_close(tr);
	free(b.p); free(l.p); free(th.p); free(w.p); free(w2.p); free(p.p);
}

TEST(hostile_empty_trace_reads)
{
	struct bld b = { 0 };
	std_head(&b, 0);
	add_text(&b, CHUNK_END, "end_reason=x\n");
	struct memtrace_trace_info in;
	struct memtrace_columns c = { 0 };
	size_t n = 7;
	CHECK_EQ_U64(open_read(&b, "empty2.mtrace", &in, &c, &n), 0);
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_U64(in.samples, 0);
	CHECK_EQ_U64(in.first_time, 0);
	CHECK_EQ_U64(in.last_time, 0);
	CHECK_EQ_U64(in.complete, 1);
	free(b.p);
}

TEST(hostile_cut_at_every_byte)
{
	struct bld b = { 0 }, p = { 0 };
	uint64_t t[3] = { 1, 2, 3 }, a[3] = { 0x1000, 0x2000, 0x3000 };
	std_head(&b, 0);
	samples_payload(&p, t, a, 3);
	add_chunk(&b, CHUNK_SAMPLES, 1, p.p, p.len, 3, 0);
	add_text(&b, CHUNK_END, "end_reason=x\n");
	size_t full = b.len, opened = 0, bad = 0;
	for (size_t cut = 0; cut < full; cut++) {
		b.len = cut;
		struct memtrace_trace *tr = memtrace_trace_open(bld_write(&b, "every.mtrace"), err,
								sizeof(err));
		if (!tr) {
			bad += err[0] == 0 || strchr(err, '\n') != NULL;
			continue;
		}
		opened++;
		struct memtrace_trace_info in;
		uint64_t v[3];
		struct memtrace_columns c = { .time = v, .cap = 3 };
		size_t n = 9;
		bad += memtrace_trace_info(tr, &in, err, sizeof(err)) != 0 || in.complete ||
		       (in.samples != 0 && in.samples != 3) ||
		       memtrace_trace_read(tr, NULL, &c, &n, err, sizeof(err)) != 0 ||
		       n != in.samples || (n == 3 && v[2] != 3);
		memtrace_trace_close(tr);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(opened, full - 106);	/* every cut after the HEADER chunk opens */
	free(b.p);
	free(p.p);
}

int main(void)
{
	return test_main();
}
