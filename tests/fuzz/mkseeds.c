/*
 * mkseeds.c - writes the seed traces of the trace and report harnesses
 * (tests/fuzz/make-seeds.sh runs it): small traces with every chunk type,
 * written by the library's own writer, in DIR.
 *
 *   mkseeds DIR
 *
 * ns.mtrace        ns clock, two processes (one sharing a mapping), all
 *                  optional columns, MAPS/THREADS/LOST/WINDOWS/END, an
 *                  unknown chunk type; every chunk stored (codec 0) so that
 *                  mutations reach the decoders, not zstd
 * ns-zstd.mtrace   the same, compressed as the recorder writes it
 * insn.mtrace      instruction clock (valgrind), one process, ip + data_src
 * cut.mtrace       ns.mtrace cut in its last chunk (a truncated tail)
 * header.mtrace    a HEADER chunk alone
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/codec.h"
#include "trace/format.h"
#include "trace/writer.h"
#include "util/util.h"

static const char MAPS1[] =
	"00400000-00452000 r-xp 00000000 08:02 173521     /usr/bin/dbquery\n"
	"00651000-00652000 rw-p 00051000 08:02 173521     /usr/bin/dbquery\n"
	"01e00000-01e21000 rw-p 00000000 00:00 0          [heap]\n"
	"7f0000000000-7f0000100000 rw-s 00000000 00:05 4242 /dev/zero (deleted)\n"
	"7f2c3c000000-7f2c3c1c0000 r-xp 00000000 08:02 135522 /lib/x86_64-linux-gnu/libc.so.6\n"
	"7ffc1e000000-7ffc1e021000 rw-p 00000000 00:00 0  [stack]\n";
static const char MAPS2[] =
	"00400000-00452000 r-xp 00000000 08:02 173521     /usr/bin/dbquery\n"
	"7f5500000000-7f5500100000 rw-s 00000000 00:05 4242 /dev/zero (deleted)\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0  [stack]\n";

static void die(const char *what)
{
	fprintf(stderr, "mkseeds: %s\n", what);
	exit(1);
}

static void chunk(struct trace_writer *w, unsigned type, unsigned codec, const void *p,
		  size_t len, uint32_t count)
{
	if (trace_write_chunk(w, type, codec, p, len, count))
		die("write failed");
}

static void header(struct trace_writer *w, int ns)
{
	char meta[1024];
	int n = snprintf(meta, sizeof(meta),
			 "format=memtrace-1\nbackend=%s\nsource=%s\nsample_class=%s\n"
			 "sample_period=%s\nclock=%s\ntime_unit=%s\nstart_time=%s\n"
			 "bucket_default=4096\ntarget_pid=100\ntarget_comm=dbquery\n"
			 "fields=ip,weight,data_src\n",
			 ns ? "perf" : "valgrind", ns ? "page-faults" : "valgrind-lackey",
			 ns ? "first-touch" : "every-access", ns ? "1" : "1",
			 ns ? "monotonic" : "instructions", ns ? "ns" : "insn",
			 ns ? "1000000000" : "0");
	chunk(w, CHUNK_HEADER, CODEC_STORED, meta, (size_t)n, 12);
}

static void maps(struct trace_writer *w, unsigned codec, uint64_t time, uint32_t pid,
		 const char *text)
{
	size_t len = strlen(text), lines = 0;
	unsigned char *p = mt_xcalloc(1, MAPS_HDR_SIZE + len);

	put_le64(p, time);
	put_le32(p + 8, pid);
	memcpy(p + MAPS_HDR_SIZE, text, len);
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	chunk(w, CHUNK_MAPS, codec, p, MAPS_HDR_SIZE + len, (uint32_t)lines);
	free(p);
}

static void samples(struct trace_writer *w, unsigned codec, int ns, size_t n, uint64_t t0)
{
	struct memtrace_sample *s = mt_xcalloc(n, sizeof(*s));
	struct bytebuf b = { 0 };
	uint32_t cols = COLS_REQUIRED | (1u << COL_IP) | (1u << COL_DATA_SRC);

	if (ns)
		cols |= 1u << COL_WEIGHT;
	for (size_t i = 0; i < n; i++) {
		int other = ns && i % 5 == 4;
		s[i].time = t0 + i * (ns ? 250000 : 7);
		s[i].pid = s[i].tid = other ? 101 : 100;
		s[i].addr = i % 3 == 0 ? 0x01e00000 + (i % 17) * 4096 :
			    i % 3 == 1 ? 0x7f0000000000ull + (i % 9) * 4096 : 0x7ffc1e020000ull - i * 64;
		if (other)
			s[i].addr = 0x7f5500000000ull + (i % 9) * 4096;
		s[i].ip = 0x401000 + (i % 11) * 0x40;
		s[i].cpu = (uint32_t)(i % 4);
		s[i].weight = ns ? (uint32_t)(i * 3) : 0;
		s[i].data_src = i & 1 ? 2 : 4;
	}
	sample_encode(s, n, cols, &b);
	chunk(w, CHUNK_SAMPLES, codec, b.data, b.len, (uint32_t)n);
	bytebuf_free(&b);
	free(s);
}

static void side(struct trace_writer *w, unsigned codec, uint64_t t0)
{
	struct bytebuf b = { 0 };
	unsigned char win[WINDOW_HDR_SIZE + 3 * WINDOW_REC_SIZE] = { 0 };

	trace_thread_rec_put(&b, t0, 100, 100, "dbquery");
	trace_thread_rec_put(&b, t0 + 10, 101, 101, "dbquery-child");
	chunk(w, CHUNK_THREADS, codec, b.data, b.len, 2);
	b.len = 0;
	trace_lost_rec_put(&b, t0 + 20, 1, 3, 1);
	chunk(w, CHUNK_LOST, codec, b.data, b.len, 1);
	bytebuf_free(&b);
	put_le64(win, 100000000);
	put_le64(win + 8, 100000000);
	put_le32(win + 16, 12);
	for (int i = 0; i < 3; i++) {
		unsigned char *r = win + WINDOW_HDR_SIZE + i * WINDOW_REC_SIZE;
		put_le64(r, t0 + (uint64_t)(i + 1) * 100000000);
		put_le64(r + 8, (uint64_t)(10 + i));
		put_le64(r + 16, 3);
	}
	chunk(w, CHUNK_WINDOWS, codec, win, sizeof(win), 3);
	chunk(w, 42, codec, "unknown chunk type", 18, 1);
}

static void end(struct trace_writer *w, uint64_t t)
{
	char meta[256];
	int n = snprintf(meta, sizeof(meta),
			 "end_reason=target-exited\nend_time=%llu\nsamples=300\nlost=3\n"
			 "throttled=1\ndropped=0\ntarget_comm=dbquery\n", (unsigned long long)t);
	chunk(w, CHUNK_END, CODEC_STORED, meta, (size_t)n, 7);
}

static void ns_trace(const char *path, unsigned codec)
{
	struct trace_writer *w = trace_writer_open(path);
	uint64_t t0 = 1000000000;

	if (!w)
		exit(1);
	header(w, 1);
	maps(w, codec, t0, 100, MAPS1);
	maps(w, codec, t0 + 5, 101, MAPS2);
	side(w, codec, t0);
	samples(w, codec, 1, 200, t0 + 1000);
	maps(w, codec, t0 + 60000000, 100, MAPS1);
	samples(w, codec, 1, 100, t0 + 1000 + 200 * 250000);
	end(w, t0 + 400000000);
	if (trace_writer_close(w))
		exit(1);
}

static void insn_trace(const char *path)
{
	struct trace_writer *w = trace_writer_open(path);

	if (!w)
		exit(1);
	header(w, 0);
	maps(w, CODEC_STORED, 0, 100, MAPS1);
	samples(w, CODEC_STORED, 0, 64, 1);
	end(w, 64 * 7);
	if (trace_writer_close(w))
		exit(1);
}

int main(int argc, char **argv)
{
	char path[4096], cut[4096];

	if (argc != 2)
		die("usage: mkseeds DIR");
	snprintf(path, sizeof(path), "%s/ns.mtrace", argv[1]);
	ns_trace(path, CODEC_STORED);
	snprintf(cut, sizeof(cut), "%s/ns-zstd.mtrace", argv[1]);
	ns_trace(cut, CODEC_ZSTD);
	snprintf(cut, sizeof(cut), "%s/insn.mtrace", argv[1]);
	insn_trace(cut);
	snprintf(cut, sizeof(cut), "%s/header.mtrace", argv[1]);
	struct trace_writer *w = trace_writer_open(cut);
	if (!w)
		return 1;
	header(w, 1);
	if (trace_writer_close(w))
		return 1;
	/* ns.mtrace without the last 40 bytes: its END chunk is cut */
	FILE *in = fopen(path, "rb");
	static char buf[1 << 20];
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;
	if (in)
		fclose(in);
	snprintf(cut, sizeof(cut), "%s/cut.mtrace", argv[1]);
	FILE *out = fopen(cut, "wb");
	if (!out || n < 100 || fwrite(buf, 1, n - 40, out) != n - 40 || fclose(out))
		die("cannot write cut.mtrace");
	return 0;
}
