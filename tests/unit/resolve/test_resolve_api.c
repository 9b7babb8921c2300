/*
 * test_resolve_api.c - include/memtrace/resolve.h on a trace written with
 * the public writer: pid 0 = HEADER target_pid, describe strings, layout
 * (a mapping replaced by a smaller one), symbols of the test binary itself,
 * errors for a missing file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/resolve.h"
#include "memtrace/trace.h"
#include "test.h"

__attribute__((noinline, used)) int api_probe_fn(int x)
{
	return x * 11 + 3;
}

static char path[128];

static int write_trace(const char *self_maps)
{
	char err[256];
	const char *meta = "time_unit=ns\nstart_time=0\ntarget_pid=42\n";
	const char *a = "1000-3000 rw-p 00000000 00:00 0\n";
	const char *b = "1000-2000 r--p 00000000 08:01 12 /nonexistent/libq.so\n"
			"5000-6000 rw-p 00000000 00:00 0 [heap]\n";
	struct memtrace_writer *w;

	snprintf(path, sizeof(path), "/tmp/mt-resapi-%d.mtrace", (int)getpid());
	w = memtrace_writer_open(path, meta, err, sizeof(err));
	if (!w)
		return -1;
	if (memtrace_writer_maps(w, 10, 42, a, strlen(a), err, sizeof(err)) ||
	    memtrace_writer_maps(w, 20, 42, b, strlen(b), err, sizeof(err)) ||
	    memtrace_writer_maps(w, 5, 7, self_maps, strlen(self_maps), err, sizeof(err))) {
		memtrace_writer_close(w, NULL, err, sizeof(err));
		return -1;
	}
	return memtrace_writer_close(w, "end_time=30\n", err, sizeof(err));
}

static char *self_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	static char buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

TEST(open_resolve_layout)
{
	char err[256], buf[256];
	CHECK(write_trace(self_maps()) == 0);
	struct memtrace_resolver *r = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	struct memtrace_location loc;
	/* pid 0 = target 42; time 15: the first snapshot */
	CHECK_EQ_U64(memtrace_resolve(r, 0, 15, 0x2800, &loc), MEMTRACE_MAPPING);
	CHECK_STR(loc.mapping, "[anon]");
	CHECK_EQ_U64(loc.mapping_off, 0x1800);
	CHECK_EQ_U64(loc.map_start, 0x1000);
	CHECK_EQ_U64(loc.map_end, 0x3000);
	CHECK_STR(loc.path, "");
	CHECK(loc.symbol == NULL && loc.file == NULL && loc.ninlined == 0);
	CHECK_EQ_U64(memtrace_describe(r, 0, UINT64_MAX, 0x1010, buf, sizeof(buf)),
		     MEMTRACE_MAPPING);
	CHECK_STR(buf, "libq.so+0x10");
	CHECK_EQ_U64(memtrace_describe(r, 42, 30, 0x9000, buf, sizeof(buf)), MEMTRACE_UNMAPPED);
	CHECK_STR(buf, "?");
	const struct memtrace_range *v;
	long n = memtrace_resolver_layout(r, 0, &v);
	CHECK_EQ_U64(n, 3);
	if (n == 3) {
		CHECK(v[0].start == 0x1000 && v[0].end == 0x2000);
		CHECK_STR(v[0].name, "libq.so");
		CHECK_STR(v[0].path, "/nonexistent/libq.so");
		CHECK(v[1].start == 0x2000 && v[1].end == 0x3000);
		CHECK_STR(v[1].name, "[anon]");
		CHECK_STR(v[1].perms, "rw-p");
		CHECK(v[2].start == 0x5000 && v[2].end == 0x6000);
		CHECK_STR(v[2].name, "[heap]");
	}
	/* pid 7: this process, symbol of the test binary */
	uint64_t fa = (uintptr_t)api_probe_fn;
	CHECK_EQ_U64(memtrace_resolve(r, 7, 5, fa + 1, &loc), MEMTRACE_SYMBOL);
	CHECK_STR(loc.symbol, "api_probe_fn");
	CHECK_EQ_U64(loc.symbol_off, 1);
	CHECK(loc.symbol_size > 1 && loc.symbol_size < 64);
	CHECK(loc.map_start <= fa && fa < loc.map_end && loc.path[0] == '/');
	memtrace_resolver_close(r);
	unlink(path);
}

TEST(open_errors)
{
	char err[256] = "x";
	CHECK(memtrace_resolver_open("/nonexistent/x.mtrace", NULL, NULL, err, sizeof(err)) == NULL);
	CHECK(err[0] != '\0' && strcmp(err, "x") != 0);
	memtrace_resolver_close(NULL);
}

int main(void)
{
	return test_main();
}
