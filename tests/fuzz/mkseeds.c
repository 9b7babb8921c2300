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
 * spans.mtrace     three threads of two processes with spans (record
 *                  --mark: labels, one span open), a LABELS chunk
 * spans-b.mtrace   the same program, other counts and times (compare's B)
 * allocs.mtrace    ALLOCS records of every kind (record --allocs)
 * pids.mtrace      40 processes, MAPS of one: a space per process while
 *                  keys are taken
 * agg.mtrace       aggregate=100 ms: AGG chunks of three processes
 * heatmap/        inputs of fuzz_heatmap (parameters + address/time pairs)
 * The traces after ns.mtrace are written through the public writer
 * (include/memtrace/trace.h), then copied chunk by chunk stored (codec 0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memtrace/sites.h"
#include "memtrace/trace.h"
#include "trace/agg.h"
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
	/* observation passes (blind windows): of pid 100, of every target, of another */
	trace_pass_rec_put(&b, t0 + 50000000, 100, MEMTRACE_PASS_NUMA_SCAN);
	trace_pass_rec_put(&b, t0 + 250000000, 0, MEMTRACE_PASS_DAMON);
	trace_pass_rec_put(&b, t0 + 300000000, 101, MEMTRACE_PASS_ACCESSED_BIT);
	chunk(w, CHUNK_PASSES, codec, b.data, b.len, 3);
	bytebuf_free(&b);
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

#define T0 1000000000ull

static const char PUB_META[] =
	"format=memtrace-1\nbackend=perf\nsource=page-faults\nsample_class=first-touch\n"
	"sample_period=1\nclock=monotonic\ntime_unit=ns\nstart_time=1000000000\n"
	"bucket_default=4096\ntarget_pid=%u\ntarget_comm=dbquery\n%s";

static void check(int rc, const char *err)
{
	if (rc)
		die(err);
}

/* The trace at tmp copied to path with every chunk stored, then tmp removed. */
static void store_all(const char *tmp, const char *path, const char *meta)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(tmp, err, sizeof(err));
	struct trace_writer *w = trace_writer_open(path);
	struct memtrace_chunk c;
	size_t lines = 0;
	int rc;

	if (!t || !w)
		die(t ? "cannot write a seed" : err);
	for (const char *p = meta; *p; p++)
		lines += *p == '\n';
	chunk(w, CHUNK_HEADER, CODEC_STORED, meta, strlen(meta), (uint32_t)lines);
	while ((rc = memtrace_trace_next(t, &c, err, sizeof(err))) == 1)
		chunk(w, c.type, CODEC_STORED, c.data, c.len, c.count);
	check(rc, err);
	memtrace_trace_close(t);
	if (trace_writer_close(w))
		die("cannot close a seed");
	unlink(tmp);
}

/* n samples of pids[i % npids] (tid: pid, or pid + 1 every third), in runs of 4 */
static void pub_samples(struct memtrace_writer *w, size_t n, const uint32_t *pids, size_t npids,
			uint64_t t0, uint64_t dt)
{
	char err[256];
	uint64_t *time = mt_xcalloc(n, 8), *addr = mt_xcalloc(n, 8), *ip = mt_xcalloc(n, 8);
	uint32_t *pid = mt_xcalloc(n, 4), *tid = mt_xcalloc(n, 4), *cpu = mt_xcalloc(n, 4);

	for (size_t i = 0; i < n; i++) {
		size_t p = (i / 4) % npids;
		time[i] = t0 + i * dt;
		pid[i] = pids[p];
		tid[i] = pids[p] + (i % 3 == 2);
		addr[i] = i % 2 ? 0x01e00000 + (i % 23) * 4096 + (i % 7) * 64
				: 0x7f0000000000ull + (i % 11) * 4096;
		ip[i] = 0x401000 + (i % 13) * 0x40;
		cpu[i] = (uint32_t)(i % 2);
	}
	struct memtrace_columns c = { .time = time, .addr = addr, .ip = ip, .pid = pid,
				      .tid = tid, .cpu = cpu, .cap = n };
	check(memtrace_writer_samples(w, &c, n, err, sizeof(err)), err);
	free(time);
	free(addr);
	free(ip);
	free(pid);
	free(tid);
	free(cpu);
}

static void spans_trace(const char *dir, const char *name, int b)
{
	char err[256], meta[1024], tmp[4096], path[4096];
	static const char *labels[] = { "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
					"UPDATE pgbench_tellers SET tbalance = tbalance + $1",
					"BEGIN", "COMMIT", "SELECT 1" };
	static const uint32_t pids[] = { 200, 201 };

	snprintf(meta, sizeof(meta), PUB_META, 200u, "mark=usdt\n");
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	struct memtrace_writer *w = memtrace_writer_open(tmp, meta, err, sizeof(err));
	if (!w)
		die(err);
	check(memtrace_writer_maps(w, T0, 200, MAPS1, strlen(MAPS1), err, sizeof(err)), err);
	check(memtrace_writer_maps(w, T0 + 5, 201, MAPS2, strlen(MAPS2), err, sizeof(err)), err);
	check(memtrace_writer_thread(w, T0, 200, 200, "postgres", err, sizeof(err)), err);
	check(memtrace_writer_thread(w, T0, 200, 201, "postgres", err, sizeof(err)), err);
	check(memtrace_writer_thread(w, T0 + 5, 201, 201, "postgres", err, sizeof(err)), err);
	check(memtrace_writer_labels(w, "0x1e00000 0x4000 hot_rows\n", 26, err, sizeof(err)), err);
	pub_samples(w, b ? 300 : 400, pids, 2, T0 + 1000, b ? 130000 : 100000);
	for (unsigned i = 0; i < (b ? 9u : 12u); i++) {
		uint64_t s = T0 + 1000 + i * 3000000ull;
		check(memtrace_writer_span(w, s, s + 2000000 + (b ? 700000 : 0), 200 + (i & 1),
					   200 + (i & 1) + (i % 3 == 2), labels[i % 4], 0, err,
					   sizeof(err)), err);
	}
	check(memtrace_writer_span(w, T0 + 30000000, T0 + 40000000, 201, 201, labels[4], 1, err,
				   sizeof(err)), err);
	check(memtrace_writer_close(w, "end_reason=target-exited\nend_time=1040000000\n", err,
				    sizeof(err)), err);
	store_all(tmp, path, meta);
}

static void allocs_trace(const char *dir)
{
	char err[256], meta[1024], tmp[4096], path[4096];
	static const uint32_t pids[] = { 300 };

	snprintf(meta, sizeof(meta), PUB_META, 300u, "allocs=1\nalloc_sample_bytes=1\n");
	snprintf(tmp, sizeof(tmp), "%s/allocs.mtrace.tmp", dir);
	snprintf(path, sizeof(path), "%s/allocs.mtrace", dir);
	struct memtrace_writer *w = memtrace_writer_open(tmp, meta, err, sizeof(err));
	if (!w)
		die(err);
	check(memtrace_writer_maps(w, T0, 300, MAPS1, strlen(MAPS1), err, sizeof(err)), err);
	struct memtrace_alloc a[] = {
		{ T0 + 10, 0x01e00000, 8192, 0, 0x401100, 1, 300, 300, MEMTRACE_ALLOC_ALLOC },
		{ T0 + 20, 0x01e04000, 4096, 0, 0x401200, 2, 300, 300, MEMTRACE_ALLOC_ALLOC },
		{ T0 + 30, 0x01e08000, 16384, 0x01e04000, 0x401240, 1, 300, 301,
		  MEMTRACE_ALLOC_REALLOC },
		{ T0 + 40, 0x7f0000000000ull, 1 << 20, 0, 0x401300, 1, 300, 300,
		  MEMTRACE_ALLOC_MMAP },
		{ T0 + 20000000, 0x01e00000, 0, 0, 0x401400, 1, 300, 300, MEMTRACE_ALLOC_FREE },
		{ T0 + 30000000, 0x7f0000080000ull, 1 << 19, 0, 0x401500, 1, 300, 300,
		  MEMTRACE_ALLOC_MUNMAP },
		{ T0 + 30000010, 0x7f0000200000ull, 1 << 20, 0x7f0000000000ull, 0x401600, 1, 300,
		  300, MEMTRACE_ALLOC_MREMAP },
		{ T0 + 30000020, 0x01e00000, 256, 0, 0x401100, 4, 300, 300, MEMTRACE_ALLOC_ALLOC },
	};
	check(memtrace_writer_allocs(w, a, 4, err, sizeof(err)), err);
	pub_samples(w, 300, pids, 1, T0 + 1000, 100000);
	check(memtrace_writer_allocs(w, a + 4, 4, err, sizeof(err)), err);
	check(memtrace_writer_close(w, "end_reason=target-exited\nend_time=1040000000\n", err,
				    sizeof(err)), err);
	store_all(tmp, path, meta);
}

/* 40 processes (forks of a shell loop), MAPS of the first only */
static void pids_trace(const char *dir)
{
	char err[256], meta[1024], tmp[4096], path[4096];
	uint32_t pids[40];

	for (int i = 0; i < 40; i++)
		pids[i] = 400 + 2 * (uint32_t)i;
	snprintf(meta, sizeof(meta), PUB_META, 400u, "");
	snprintf(tmp, sizeof(tmp), "%s/pids.mtrace.tmp", dir);
	snprintf(path, sizeof(path), "%s/pids.mtrace", dir);
	struct memtrace_writer *w = memtrace_writer_open(tmp, meta, err, sizeof(err));
	if (!w)
		die(err);
	check(memtrace_writer_maps(w, T0, 400, MAPS1, strlen(MAPS1), err, sizeof(err)), err);
	for (int i = 0; i < 40; i++)
		check(memtrace_writer_thread(w, T0 + (uint64_t)i, pids[i], pids[i],
					     i ? "true" : "sh", err, sizeof(err)), err);
	pub_samples(w, 480, pids, 40, T0 + 1000, 50000);
	check(memtrace_writer_close(w, "end_reason=target-exited\nend_time=1030000000\n", err,
				    sizeof(err)), err);
	store_all(tmp, path, meta);
}

/* aggregate=100 ms: three intervals of rows of pids 500..502 */
static void agg_trace(const char *dir)
{
	char meta[1024], path[4096];
	unsigned char buf[AGG_HDR_SIZE + 12 * AGG_ROW_SIZE];

	snprintf(meta, sizeof(meta), PUB_META, 500u, "aggregate=100000000\naggregate_entries=4096\n");
	snprintf(path, sizeof(path), "%s/agg.mtrace", dir);
	struct trace_writer *w = trace_writer_open(path);
	if (!w)
		die("cannot write agg.mtrace");
	size_t lines = 0;
	for (const char *p = meta; *p; p++)
		lines += *p == '\n';
	chunk(w, CHUNK_HEADER, CODEC_STORED, meta, strlen(meta), (uint32_t)lines);
	maps(w, CODEC_STORED, T0, 500, MAPS1);
	for (uint64_t k = 1; k <= 3; k++) {
		uint64_t counted = 0;
		for (size_t i = 0; i < 12; i++) {
			uint64_t n = 1 + (i * 7 + k) % 13;
			trace_agg_put_row(buf + AGG_HDR_SIZE + i * AGG_ROW_SIZE,
					  0x01e00000 + (i % 6) * 4096, n, 500 + (uint32_t)(i / 4));
			counted += n;
		}
		trace_agg_put_header(buf, &(struct trace_agg){ .interval = 100000000,
							       .time = T0 + k * 100000000,
							       .samples = counted + (k == 2),
							       .full = k == 2, .rows = 12,
							       .shift = 12 });
		chunk(w, CHUNK_AGG, CODEC_STORED, buf, sizeof(buf), 12);
	}
	end(w, T0 + 300000000);
	if (trace_writer_close(w))
		die("cannot close agg.mtrace");
}

/* fuzz_heatmap inputs: 24 bytes of parameters, then (address, time) pairs */
static void heatmap_seed(const char *dir, const char *name, unsigned shift, unsigned ncols,
			 unsigned flags, uint64_t t0, uint64_t t1, const uint64_t *at, size_t n)
{
	char path[4096];
	unsigned char p[24] = { (unsigned char)shift, (unsigned char)ncols,
				(unsigned char)flags, 3 };

	put_le64(p + 8, t0);
	put_le64(p + 16, t1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, 24, f) != 24)
		die("cannot write a heatmap seed");
	for (size_t i = 0; i < 2 * n; i++) {
		unsigned char b[8];
		put_le64(b, at[i]);
		if (fwrite(b, 1, 8, f) != 8)
			die("cannot write a heatmap seed");
	}
	if (fclose(f))
		die("cannot write a heatmap seed");
}

static void heatmap_seeds(const char *dir)
{
	uint64_t v[2 * 64];

	for (size_t i = 0; i < 64; i++) {
		v[2 * i] = i % 3 == 0 ? 0x01e00000 + i * 4096 :
			   i % 3 == 1 ? 0x7f0000000000ull + (i % 9) * 65536 : 0x7ffc1e020000ull - i * 64;
		v[2 * i + 1] = 1000 + i * 997;
	}
	heatmap_seed(dir, "three-ranges", 12, 16, 0, 1000, 1000 + 63 * 997, v, 64);
	heatmap_seed(dir, "three-ranges-check", 12, 16, 3, 1000, 1000 + 63 * 997, v, 64);
	v[0] = UINT64_MAX;	/* the top of the address space, times past 2^63 */
	v[1] = UINT64_MAX;
	v[3] = 1ull << 63;
	heatmap_seed(dir, "edges", 6, 64, 1, 0, UINT64_MAX, v, 64);
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
	spans_trace(argv[1], "spans.mtrace", 0);
	spans_trace(argv[1], "spans-b.mtrace", 1);
	allocs_trace(argv[1]);
	pids_trace(argv[1]);
	agg_trace(argv[1]);
	snprintf(cut, sizeof(cut), "%s/heatmap", argv[1]);
	if (mkdir(cut, 0755) && errno != EEXIST)
		die("cannot make the heatmap seed directory");
	heatmap_seeds(cut);
	return 0;
}
