/* test_spaces.c - address-space keys on a synthetic three-process trace
 * written with the library writer: exact keys, counts and names in the
 * report, --pid, per-process summaries and the public resolver's keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/report.h"
#include "memtrace/resolve.h"
#include "test.h"
#include "trace/format.h"
#include "trace/writer.h"

#define START 1000
#define T1 (1ull << 48)		/* the tag of the second process (pid 200) */
#define T2 (2ull << 48)		/* pid 300: no maps, first seen in the samples */
#define KERNEL 0xffffffff81000000ull

/* pid 100 (the target) maps memfd:orders whole; pid 200 its pages 2-3 elsewhere. */
static const char maps100[] =
	"00400000-00401000 r-xp 00000000 08:01 11 /bin/prog\n"
	"10000000-10004000 rw-p 00000000 00:00 0 [heap]\n"
	"20000000-20004000 rw-s 00000000 00:01 77 /memfd:orders (deleted)\n";
static const char maps200[] =
	"00400000-00401000 r-xp 00000000 08:01 11 /bin/prog\n"
	"10000000-10004000 rw-p 00000000 00:00 0 [heap]\n"
	"30000000-30002000 rw-s 00002000 00:01 77 /memfd:orders (deleted)\n"
	"40000000-40001000 rw-s 00000000 00:01 99 /SYSV00000000 (deleted)\n";

#define S(t, a, p) { .time = START + (t), .addr = (a), .pid = (p), .tid = (p) }
static const struct memtrace_sample samples[] = {
	S(1, 0x10000010, 100), S(2, 0x10000020, 200), S(3, 0x10000018, 100),
	S(4, 0x20002008, 100),		/* memfd offset 0x2008 */
	S(5, 0x30000010, 200),		/* memfd offset 0x2010: the same page */
	S(6, 0x30000fff, 200), S(7, 0x30000800, 200), S(8, 0x30000000, 200),
	S(9, 0x40000100, 200), S(10, 0x40000200, 200),
	S(11, 0x10000000, 300),		/* a process without maps */
	S(12, KERNEL + 0x40, 200),	/* kernel: one space for all */
	S(13, 0x10000fff, 100), S(14, 0x10000008, 200),
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static char trace_path[64];

static int put_maps(struct trace_writer *w, uint32_t pid, const char *text)
{
	size_t len = strlen(text);
	unsigned char *mb = calloc(1, MAPS_HDR_SIZE + len);
	int bad;

	put_le64(mb, START);
	put_le32(mb + 8, pid);
	memcpy(mb + MAPS_HDR_SIZE, text, len);
	bad = trace_write_chunk(w, CHUNK_MAPS, CODEC_STORED, mb, MAPS_HDR_SIZE + len, 3);
	free(mb);
	return bad;
}

static const char *make_trace(void)
{
	static const char meta[] = "time_unit=insn\nstart_time=1000\nbucket_default=4096\n"
				   "target_pid=100\nsource=test\n";
	static const char end[] = "end_reason=test\ndropped=0\n";

	if (trace_path[0])
		return trace_path;
	snprintf(trace_path, sizeof(trace_path), "/tmp/test_spaces.%d.mtrace", (int)getpid());
	struct trace_writer *w = trace_writer_open(trace_path);
	if (!w)
		return NULL;
	int bad = trace_write_chunk(w, CHUNK_HEADER, CODEC_STORED, meta, sizeof(meta) - 1, 0);
	bad |= put_maps(w, 200, maps200);	/* file order does not matter */
	bad |= trace_write_samples(w, samples, 5, COLS_REQUIRED);
	bad |= put_maps(w, 100, maps100);	/* after some of its samples */
	bad |= trace_write_samples(w, samples + 5, NSAMPLES - 5, COLS_REQUIRED);
	bad |= trace_write_chunk(w, CHUNK_END, CODEC_STORED, end, sizeof(end) - 1, 2);
	bad |= trace_writer_close(w);
	return bad ? NULL : trace_path;
}

static struct memtrace_report *compute(uint32_t pid, unsigned flags)
{
	struct memtrace_report_config cfg = { .window = 100, .top = 20, .flags = flags };
	char err[256] = "";
	const char *path = make_trace();

	cfg.filter.pid = pid;
	struct memtrace_report *r = path ? memtrace_report_compute(path, &cfg, err, sizeof(err)) : NULL;
	if (!r)
		fprintf(stderr, "compute: %s\n", err);
	return r;
}

struct want {
	uint64_t addr, count;
	const char *where;
};

static void check_hot(const struct memtrace_hot_bucket *h, size_t n, const struct want *w,
		      size_t nw)
{
	CHECK_EQ_U64(n, nw);
	for (size_t i = 0; i < n && i < nw; i++) {
		CHECK_EQ_U64(h[i].addr, w[i].addr);
		CHECK_EQ_U64(h[i].count, w[i].count);
		CHECK_STR(h[i].where, w[i].where);
	}
}

TEST(spaces_keys_and_names)
{
	struct memtrace_report *r = compute(0, 0);
	if (!r)
		return;
	static const struct want w[] = {
		{ 0x20002000, 5, "memfd:orders+0x2000 (shared by 2 processes)" },
		{ 0x10000000, 3, "[heap]+0x0" },
		{ T1 + 0x10000000, 2, "pid 200 [heap]+0x0" },
		{ T1 + 0x40000000, 2, "pid 200 SYSV00000000+0x0" },
		{ T2 + 0x10000000, 1, "pid 300 ?" },
		{ KERNEL, 1, "?" },
	};
	CHECK_EQ_U64(r->samples, NSAMPLES);
	CHECK_EQ_U64(r->data.total, 6);
	check_hot(r->hot_data, r->nhot_data, w, sizeof(w) / sizeof(w[0]));
	CHECK_EQ_U64(r->nprocesses, 0);	/* not asked for */
	memtrace_report_free(r);
}

TEST(spaces_pid_filter)
{
	/* --pid 200: its own addresses are the keys, the object still known as shared */
	struct memtrace_report *r = compute(200, 0);
	if (!r)
		return;
	static const struct want w[] = {
		{ 0x30000000, 4, "memfd:orders+0x2000 (shared by 2 processes)" },
		{ 0x10000000, 2, "[heap]+0x0" },
		{ 0x40000000, 2, "SYSV00000000+0x0" },
		{ KERNEL, 1, "?" },
	};
	CHECK_EQ_U64(r->samples, 9);
	check_hot(r->hot_data, r->nhot_data, w, sizeof(w) / sizeof(w[0]));
	memtrace_report_free(r);
}

TEST(spaces_per_process)
{
	struct memtrace_report *r = compute(0, MEMTRACE_REPORT_PER_PROCESS);
	if (!r)
		return;
	CHECK_EQ_U64(r->shared_buckets, 2);	/* the memfd page and the SysV page */
	CHECK_EQ_U64(r->nprocesses, 3);
	if (r->nprocesses != 3) {
		memtrace_report_free(r);
		return;
	}
	static const uint64_t pid[] = { 100, 200, 300 }, nsamples[] = { 4, 9, 1 },
			      total[] = { 2, 4, 1 }, shared[] = { 1, 2, 0 };
	for (size_t i = 0; i < 3; i++) {
		const struct memtrace_process *p = &r->processes[i];
		CHECK_EQ_U64(p->pid, pid[i]);
		CHECK_EQ_U64(p->samples, nsamples[i]);
		CHECK_EQ_U64(p->data.total, total[i]);
		CHECK_EQ_U64(p->shared, shared[i]);
		CHECK_STR(p->comm, "");	/* no thread records */
	}
	static const struct want w200[] = {
		{ 0x20002000, 4, "memfd:orders+0x2000 (shared by 2 processes)" },
		{ T1 + 0x10000000, 2, "pid 200 [heap]+0x0" },
		{ T1 + 0x40000000, 2, "pid 200 SYSV00000000+0x0" },
		{ KERNEL, 1, "?" },
	};
	check_hot(r->processes[1].hot, r->processes[1].nhot, w200, 4);
	memtrace_report_free(r);
}

TEST(spaces_public_resolver)
{
	char err[256] = "", buf[256];
	const char *path = make_trace();
	struct memtrace_resolver *res = path ? memtrace_resolver_open(path, NULL, NULL, err,
								      sizeof(err)) : NULL;
	CHECK(res != NULL);
	if (!res)
		return;
	CHECK_EQ_U64(memtrace_resolver_key(res, 100, 0x10000010), 0x10000010);
	CHECK_EQ_U64(memtrace_resolver_key(res, 200, 0x10000010), T1 + 0x10000010);
	CHECK_EQ_U64(memtrace_resolver_key(res, 200, 0x30001010), 0x20003010);
	CHECK_EQ_U64(memtrace_resolver_key(res, 200, KERNEL), KERNEL);
	uint32_t pids[2] = { 100, 200 };
	uint64_t keys[2] = { 0x20000000, 0x30000000 };
	memtrace_resolver_keys(res, 2, pids, keys, keys);	/* in place */
	CHECK_EQ_U64(keys[0], 0x20000000);
	CHECK_EQ_U64(keys[1], 0x20002000);

	uint32_t pid = 0, by = 0;
	uint64_t addr = 0;
	CHECK_EQ_U64(memtrace_resolver_decode(res, 0x20003010, &pid, &addr, &by), 1);
	CHECK_EQ_U64(pid, 100);
	CHECK_EQ_U64(addr, 0x20003010);
	CHECK_EQ_U64(by, 2);
	CHECK_EQ_U64(memtrace_resolver_decode(res, T1 + 0x10000010, &pid, &addr, &by), 0);
	CHECK_EQ_U64(pid, 200);
	CHECK_EQ_U64(addr, 0x10000010);
	CHECK_EQ_U64(memtrace_resolver_decode(res, (77ull << 48) + 1, &pid, &addr, &by), -1);
	memtrace_describe_key(res, T1 + 0x10000010, buf, sizeof(buf));
	CHECK_STR(buf, "pid 200 [heap]+0x10");

	/* the key layout: each process's ranges, the shared object once */
	const struct memtrace_range *v;
	long n = memtrace_resolver_layout(res, MEMTRACE_LAYOUT_KEYS, &v);
	static const struct { uint64_t start, end; const char *name; } want[] = {
		{ 0x400000, 0x401000, "prog" },
		{ 0x10000000, 0x10004000, "[heap]" },
		{ 0x20000000, 0x20004000, "memfd:orders" },
		{ T1 + 0x400000, T1 + 0x401000, "pid 200 prog" },
		{ T1 + 0x10000000, T1 + 0x10004000, "pid 200 [heap]" },
		{ T1 + 0x40000000, T1 + 0x40001000, "pid 200 SYSV00000000" },
	};
	CHECK_EQ_U64(n, 6);
	for (long i = 0; i < n && i < 6; i++) {
		CHECK_EQ_U64(v[i].start, want[i].start);
		CHECK_EQ_U64(v[i].end, want[i].end);
		CHECK_STR(v[i].name, want[i].name);
	}
	/* a pid's own layout is unchanged */
	CHECK_EQ_U64(memtrace_resolver_layout(res, 200, &v), 4);
	memtrace_resolver_close(res);
}

int main(void)
{
	int rc = test_main();

	if (trace_path[0])
		unlink(trace_path);
	return rc;
}
