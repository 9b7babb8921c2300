/* test_trace.c - column codec, chunk framing, truncation and corruption. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/crc32c.h"
#include "trace/codec.h"
#include "test.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/writer.h"

static int same_sample(const struct memtrace_sample *a, const struct memtrace_sample *b,
		       uint32_t cols)
{
	return a->time == b->time && a->addr == b->addr && a->pid == b->pid && a->tid == b->tid &&
	       a->cpu == b->cpu && (!(cols & (1u << COL_IP)) || a->ip == b->ip) &&
	       (!(cols & (1u << COL_WEIGHT)) || a->weight == b->weight) &&
	       (!(cols & (1u << COL_DATA_SRC)) || a->data_src == b->data_src);
}

TEST(crc32c_known_vector)
{
	/* RFC 3720 / iSCSI check value */
	CHECK_EQ_U64(crc32c(0, "123456789", 9), 0xE3069283u);
	CHECK_EQ_U64(crc32c(crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
	CHECK_EQ_U64(crc32c(0, "", 0), 0);
}

TEST(codec_roundtrip_random_and_extremes)
{
	enum { N = 5000 };
	static struct memtrace_sample s[N];
	unsigned seed = 7;
	for (int i = 0; i < N; i++) {
		s[i].time = 1000000 + (uint64_t)i * 37 + (uint64_t)(rand_r(&seed) % 5);
		s[i].addr = i % 100 == 0 ? UINT64_MAX - (uint64_t)i :
			    0x7f0000000000ull + ((uint64_t)rand_r(&seed) << 6);
		s[i].pid = 4242;
		s[i].tid = 4242 + (uint32_t)(i % 3);
		s[i].cpu = (uint32_t)(i % 2);
		s[i].ip = i % 7 ? 0x401000 + (uint64_t)(rand_r(&seed) % 4096) : 0;
		s[i].weight = (uint32_t)rand_r(&seed);
		s[i].data_src = (uint64_t)rand_r(&seed) << 20;
	}
	s[0].time = 0;		/* a big backwards delta next */
	s[N - 1].time = UINT64_MAX;
	const uint32_t masks[] = { COLS_REQUIRED, COLS_ALL, COLS_REQUIRED | (1u << COL_IP) };
	for (int m = 0; m < 3; m++) {
		struct bytebuf b = { 0 };
		sample_encode(s, N, masks[m], &b);
		struct memtrace_sample *out;
		size_t n;
		uint32_t cols;
		char err[128];
		CHECK(!sample_decode(b.data, b.len, &out, &n, &cols, err, sizeof(err)));
		CHECK_EQ_U64(n, N);
		CHECK_EQ_U64(cols, masks[m]);
		for (int i = 0; i < N; i++)
			if (!same_sample(&s[i], &out[i], cols)) {
				TEST_FAIL("mask %d sample %d differs", m, i);
				break;
			}
		free(out);
		/* a shorter block must be rejected, never read out of bounds */
		for (size_t cut = 0; cut < b.len; cut += 97)
			if (!sample_decode(b.data, cut, &out, &n, &cols, err, sizeof(err))) {
				free(out);
				TEST_FAIL("cut at %zu accepted", cut);
				break;
			}
		bytebuf_free(&b);
	}
}

TEST(codec_constant_columns_take_no_bytes)
{
	struct memtrace_sample s[100] = { 0 };
	for (int i = 0; i < 100; i++) {
		s[i].time = 5000 + (uint64_t)i;	/* delta 1: 1 byte */
		s[i].addr = 0x1000;		/* constant: 0 bytes */
		s[i].pid = s[i].tid = 7;
	}
	struct bytebuf b = { 0 };
	sample_encode(s, 100, COLS_REQUIRED, &b);
	/* 8 header + 5 columns * 16 + 100 bytes of time deltas */
	CHECK_EQ_U64(b.len, 8 + 5 * 16 + 100);
	bytebuf_free(&b);
}

/* A hand-made column block: each column its own transform and width (one per
 * column, from the table), planes of random bytes. */
static size_t make_block(unsigned char *raw, uint32_t n, uint32_t columns,
			 const unsigned (*enc)[2], const uint64_t *base, unsigned *seed)
{
	size_t pos = 8;

	memset(raw, 0, 8);
	raw[0] = (unsigned char)n;
	raw[1] = (unsigned char)(n >> 8);
	raw[2] = (unsigned char)(n >> 16);
	raw[4] = (unsigned char)columns;
	for (int col = 0; col < COL_COUNT; col++) {
		if (!(columns & (1u << col)))
			continue;
		memset(raw + pos, 0, 16);
		raw[pos] = (unsigned char)enc[col][0];
		raw[pos + 1] = (unsigned char)enc[col][1];
		for (int b = 0; b < 8; b++)
			raw[pos + 8 + b] = (unsigned char)(base[col] >> (8 * b));
		pos += 16;
		for (size_t i = 0; i < (size_t)n * enc[col][1]; i++)
			raw[pos++] = (unsigned char)rand_r(seed);
	}
	return pos;
}

/* The format's definition, one value at a time (docs/trace-format.md). */
static uint64_t ref_value(const unsigned char *raw, uint32_t n, uint32_t columns,
			  const unsigned (*enc)[2], int want_col, uint32_t row)
{
	size_t pos = 8;

	for (int col = 0; col < COL_COUNT; col++) {
		if (!(columns & (1u << col)))
			continue;
		unsigned t = raw[pos], w = raw[pos + 1];
		uint64_t base = 0, v;
		for (int b = 0; b < 8; b++)
			base |= (uint64_t)raw[pos + 8 + b] << (8 * b);
		pos += 16;
		if (col == want_col) {
			v = base;
			for (uint32_t i = t ? 0 : row; i <= row; i++) {
				uint64_t x = 0;
				for (unsigned b = 0; b < w; b++)
					x |= (uint64_t)raw[pos + (size_t)b * n + i] << (8 * b);
				v += t ? (x >> 1) ^ (0 - (x & 1)) : x;
			}
			return v;
		}
		pos += (size_t)n * w;
		(void)enc;
	}
	return 0;
}

static uint64_t field_of(const struct memtrace_sample *s, int col)
{
	switch (col) {
	case COL_TIME: return s->time;
	case COL_ADDR: return s->addr;
	case COL_PID: return s->pid;
	case COL_TID: return s->tid;
	case COL_CPU: return s->cpu;
	case COL_IP: return s->ip;
	case COL_WEIGHT: return s->weight;
	default: return s->data_src;
	}
}

/* Every width and transform, lengths around the 16-value and 512-row steps, want masks. */
TEST(codec_decode_every_width_matches_the_format)
{
	static unsigned char raw[8 + COL_COUNT * 16 + 8 * 1100 * COL_COUNT];
	static struct memtrace_sample s[1100];
	static uint64_t tmp[CHUNK_MAX_SAMPLES];
	static const unsigned widths[] = { 0, 1, 2, 4, 8 };
	static const uint32_t lengths[] = { 0, 1, 15, 16, 17, 511, 512, 513, 1100 };
	unsigned seed = 11;
	int bad = 0;

	for (int round = 0; round < 40 && !bad; round++) {
		unsigned enc[COL_COUNT][2];
		uint64_t base[COL_COUNT];
		uint32_t columns = COLS_REQUIRED | ((uint32_t)rand_r(&seed) & COLS_ALL);
		uint32_t want = round % 3 ? ((uint32_t)rand_r(&seed) & COLS_ALL) : COLS_ALL;
		uint32_t n = lengths[round % 9];
		for (int col = 0; col < COL_COUNT; col++) {
			enc[col][0] = (unsigned)rand_r(&seed) % 2;
			enc[col][1] = widths[(unsigned)(col + round) % 5];
			base[col] = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed);
		}
		size_t len = make_block(raw, n, columns, (const unsigned (*)[2])enc, base, &seed);
		size_t got_n;
		uint32_t got_cols;
		char err[128];
		memset(s, 0xa5, sizeof(s));	/* every field must be written */
		CHECK(!sample_decode_into(raw, len, want, s, tmp, &got_n, &got_cols, err,
					  sizeof(err)));
		CHECK_EQ_U64(got_n, n);
		CHECK_EQ_U64(got_cols, columns);
		for (uint32_t i = 0; i < n && !bad; i++)
			for (int col = 0; col < COL_COUNT; col++) {
				uint64_t v = (columns & want & (1u << col))
					     ? ref_value(raw, n, columns,
							 (const unsigned (*)[2])enc, col, i) : 0;
				if (col == COL_PID || col == COL_TID || col == COL_CPU ||
				    col == COL_WEIGHT)
					v = (uint32_t)v;
				if (field_of(&s[i], col) != v) {
					TEST_FAIL("round %d row %u column %d (width %u, transform %u)",
						  round, i, col, enc[col][1], enc[col][0]);
					bad = 1;
					break;
				}
			}
	}
}

/* Writes a trace of 5 chunks: HEADER, 3 x SAMPLES(100), END. */
static void make_trace(const char *path, struct memtrace_sample *s, size_t n)
{
	struct trace_writer *w = trace_writer_open(path);
	const char hdr[] = "format=memtrace-1\ntime_unit=ns\nstart_time=100\n";
	trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, hdr, sizeof(hdr) - 1, 3);
	for (size_t i = 0; i < n; i += 100)
		trace_write_samples(w, s + i, 100, COLS_REQUIRED | (1u << COL_IP));
	const char end[] = "end_reason=test\n";
	trace_write_chunk(w, CHUNK_END, CODEC_STORED, end, sizeof(end) - 1, 1);
	trace_writer_close(w);
}

static int count_samples(const char *path, uint64_t *samples, uint64_t *truncated, char *err,
			 size_t errlen)
{
	struct trace_reader *r = trace_open(path, err, errlen);
	struct trace_chunk c;
	int rc;
	*samples = 0;
	if (!r)
		return -1;
	while ((rc = trace_next(r, &c, err, errlen)) > 0) {
		if (c.type != CHUNK_SAMPLES)
			continue;
		struct memtrace_sample *s;
		size_t n;
		if (trace_chunk_samples(&c, &s, &n, NULL, err, errlen)) {
			rc = -1;
			break;
		}
		*samples += n;
		free(s);
	}
	*truncated = trace_truncated(r);
	trace_close(r);
	return rc;
}

/* make_trace of 300 samples 1 ns and 4 KiB apart into a new file named
 * from the mkstemp template path. */
static void make_temp_trace(char *path, struct memtrace_sample s[300])
{
	int fd = mkstemp(path);

	close(fd);
	for (int i = 0; i < 300; i++)
		s[i] = (struct memtrace_sample){ .time = 100 + (uint64_t)i, .addr = 0x1000 * (uint64_t)i,
						 .pid = 1, .tid = 1, .ip = 0x400000 };
	make_trace(path, s, 300);
}

TEST(trace_roundtrip_and_meta)
{
	char path[] = "/tmp/mt-test-XXXXXX";
	struct memtrace_sample s[300];
	make_temp_trace(path, s);
	char err[256];
	struct trace_reader *r = trace_open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(trace_meta(r, "time_unit"), "ns");
		CHECK_EQ_U64(trace_start_time(r), 100);
		CHECK(trace_time_is_ns(r));
		struct trace_chunk c;
		int types[8], n = 0;
		while (trace_next(r, &c, err, sizeof(err)) > 0 && n < 8)
			types[n++] = (int)c.type;
		CHECK_EQ_U64(n, 5);
		CHECK_EQ_U64(types[0], CHUNK_HEADER);
		CHECK_EQ_U64(types[4], CHUNK_END);
		CHECK(trace_has_end(r));
		CHECK_STR(trace_end_meta(r, "end_reason"), "test");
		trace_close(r);
	}
	unlink(path);
}

/* A pass that skips the SAMPLES chunks still learns how many samples they
 * hold (report decides from it, before its first pass, whether a trace has
 * more samples than the estimate's refinement keeps), and the same number
 * as decoding them; a cut file counts only its complete chunks. */
TEST(skipped_chunks_count_their_records)
{
	char path[] = "/tmp/mt-test-XXXXXX";
	struct memtrace_sample s[300];
	make_temp_trace(path, s);
	char err[256];
	uint64_t decoded = 0, truncated = 0;
	CHECK(count_samples(path, &decoded, &truncated, err, sizeof(err)) == 0);
	for (int cut = 0; cut < 2; cut++) {
		struct trace_reader *r = trace_open(path, err, sizeof(err));
		CHECK(r != NULL);
		if (!r)
			break;
		trace_skip(r, 1u << CHUNK_SAMPLES);
		struct trace_chunk c;
		unsigned seen = 0;
		while (trace_next(r, &c, err, sizeof(err)) > 0)
			seen |= 1u << c.type;
		CHECK(!(seen & (1u << CHUNK_SAMPLES)) && (seen & (1u << CHUNK_END)) == (cut ? 0u : 1u << CHUNK_END));
		CHECK_EQ_U64(trace_skipped_records(r, CHUNK_SAMPLES), cut ? 200 : decoded);
		CHECK_EQ_U64(trace_skipped_records(r, CHUNK_END), 0);
		CHECK_EQ_U64(trace_skipped_records(r, 99), 0);
		trace_close(r);
		/* then without the END and a byte of the last SAMPLES chunk */
		make_trace(path, s, 300);
		FILE *f = fopen(path, "rb");
		long endpos = 0;
		if (f) {
			fseek(f, 0, SEEK_END);
			endpos = ftell(f);
			fclose(f);
		}
		CHECK(truncate(path, endpos - (long)(CHUNK_HDR_SIZE + sizeof("end_reason=test\n") - 1) - 1) == 0);
	}
	CHECK_EQ_U64(decoded, 300);
	unlink(path);
}

TEST(cut_at_every_offset_keeps_complete_chunks)
{
	char path[] = "/tmp/mt-test-XXXXXX", cut[] = "/tmp/mt-cut-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	fd = mkstemp(cut);
	close(fd);
	struct memtrace_sample s[300];
	unsigned seed = 3;
	for (int i = 0; i < 300; i++)
		s[i] = (struct memtrace_sample){ .time = 100 + (uint64_t)i * 3,
						 .addr = (uint64_t)rand_r(&seed) << 12, .pid = 9, .tid = 9,
						 .ip = 0x400000 + (uint64_t)i };
	make_trace(path, s, 300);
	FILE *f = fopen(path, "rb");
	static unsigned char buf[1 << 16];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* chunk boundaries, to know what a cut must keep */
	size_t ends[8], nends = 0;
	for (size_t off = TRACE_FILE_HDR_SIZE; off < len && nends < 8;) {
		off += CHUNK_HDR_SIZE + get_le32(buf + off + 8);
		ends[nends++] = off;
	}
	CHECK_EQ_U64(nends, 5);
	CHECK_EQ_U64(ends[4], len);
	for (size_t at = 0; at <= len; at++) {
		f = fopen(cut, "wb");
		fwrite(buf, 1, at, f);
		fclose(f);
		uint64_t samples, truncated;
		char err[256];
		int rc = count_samples(cut, &samples, &truncated, err, sizeof(err));
		size_t complete = 0;
		while (complete < nends && ends[complete] <= at)
			complete++;
		if (complete == 0) {	/* no complete header chunk: an error */
			if (rc != -1) {
				TEST_FAIL("cut at %zu: accepted without a header", at);
				break;
			}
			continue;
		}
		uint64_t want = complete >= 4 ? 300 : (complete - 1) * 100;
		if (rc != 0 || samples != want ||
		    truncated != (complete == nends ? 0 : at - ends[complete - 1])) {
			TEST_FAIL("cut at %zu: rc %d samples %llu want %llu truncated %llu (%s)", at, rc,
				  (unsigned long long)samples, (unsigned long long)want,
				  (unsigned long long)truncated, err);
			break;
		}
	}
	unlink(path);
	unlink(cut);
}

TEST(corrupt_and_foreign_files_rejected)
{
	char path[] = "/tmp/mt-test-XXXXXX", bad[] = "/tmp/mt-bad-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	fd = mkstemp(bad);
	close(fd);
	struct memtrace_sample s[300] = { 0 };
	for (int i = 0; i < 300; i++)
		s[i] = (struct memtrace_sample){ .time = (uint64_t)i, .addr = (uint64_t)i << 12 };
	make_trace(path, s, 300);
	FILE *f = fopen(path, "rb");
	static unsigned char buf[1 << 16];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	char err[256];
	uint64_t n, t;
	/* flip one bit anywhere after the file header: always an error */
	unsigned seed = 11;
	for (int trial = 0; trial < 300; trial++) {
		size_t at = TRACE_FILE_HDR_SIZE + (size_t)rand_r(&seed) % (len - TRACE_FILE_HDR_SIZE);
		buf[at] ^= (unsigned char)(1u << (trial % 8));
		f = fopen(bad, "wb");
		fwrite(buf, 1, len, f);
		fclose(f);
		buf[at] ^= (unsigned char)(1u << (trial % 8));
		if (count_samples(bad, &n, &t, err, sizeof(err)) != -1) {
			TEST_FAIL("bit flip at %zu accepted", at);
			break;
		}
	}
	/* foreign, empty, wrong version */
	f = fopen(bad, "wb");
	fputs("this is not a trace, just text\n", f);
	fclose(f);
	CHECK(trace_open(bad, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a memtrace trace") != NULL);
	f = fopen(bad, "wb");
	fclose(f);
	CHECK(trace_open(bad, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "empty") != NULL);
	buf[8] = 9;
	f = fopen(bad, "wb");
	fwrite(buf, 1, len, f);
	fclose(f);
	CHECK(trace_open(bad, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "version") != NULL);
	CHECK(trace_open("/nonexistent/x.mtrace", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "cannot open") != NULL);
	unlink(path);
	unlink(bad);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int file_is(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return !strcmp(buf, text);
}

/* entries of dir other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

TEST(writer_new_file_replaces_only_when_published)
{
	char dir[] = "/tmp/test_writer_XXXXXX", path[128], old[140], link[128];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/t.mtrace", dir);
	snprintf(old, sizeof(old), "%s.old", path);
	snprintf(link, sizeof(link), "%s/victim", dir);
	put_file(path, "precious");
	/* never published: path untouched, the temporary file gone */
	struct trace_writer *w = trace_writer_open_new(path, 0);
	CHECK(w != NULL);
	CHECK_EQ_U64(dir_entries(dir), 2);
	CHECK_EQ_U64(trace_writer_close(w), 0);
	CHECK(file_is(path, "precious"));
	CHECK_EQ_U64(dir_entries(dir), 1);
	/* published: the old file becomes .old, byte for byte */
	w = trace_writer_open_new(path, 0);
	CHECK_EQ_U64(trace_writer_publish(w), 0);
	CHECK_EQ_U64(trace_writer_close(w), 0);
	CHECK(file_is(old, "precious"));
	CHECK_EQ_U64(dir_entries(dir), 2);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size == TRACE_FILE_HDR_SIZE);
	/* WRITER_FORCE: replaced, .old left alone */
	w = trace_writer_open_new(path, WRITER_FORCE);
	CHECK_EQ_U64(trace_writer_publish(w), 0);
	CHECK_EQ_U64(trace_writer_close(w), 0);
	CHECK(file_is(old, "precious"));
	CHECK_EQ_U64(dir_entries(dir), 2);
	/* a link at path is replaced, never written through */
	put_file(link, "victim");
	CHECK(unlink(path) == 0 && symlink(link, path) == 0);
	w = trace_writer_open_new(path, WRITER_FORCE);
	CHECK_EQ_U64(trace_writer_publish(w), 0);
	CHECK_EQ_U64(trace_writer_close(w), 0);
	CHECK(file_is(link, "victim"));
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	/* a directory at path: refused at open */
	CHECK(trace_writer_open_new(dir, 0) == NULL);
	unlink(path);
	unlink(old);
	unlink(link);
	CHECK(rmdir(dir) == 0);
}

int main(void)
{
	return test_main();
}
