/* test_maps.c - unit tests of user/maps.c and the mapping part of
 * user/resolve.c on hand-written /proc/PID/maps text. */
#include <stdlib.h>
#include <string.h>

#include "resolve/maps.h"
#include "resolve/resolve.h"
#include "trace/format.h"
#include "test.h"

/* Last line has no '\n'; one garbage line; an anonymous line with a
 * trailing blank; a name with spaces; a deleted file. */
static const char maps_text[] =
	"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 1234                       /opt/memtrace-none/pageramp\n"
	"55d0c0a01000-55d0c0a02000 r-xp 00001000 08:01 1234                       /opt/memtrace-none/pageramp\n"
	"55d0c0a02000-55d0c0a04000 rw-p 00002000 08:01 1234                       /opt/memtrace-none/pageramp\n"
	"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000010000 rw-p 00000000 00:00 0 \n"
	"7f0000010000-7f0000020000 rw-s 00000000 00:05 99                         /dev/shm/my file  with spaces\n"
	"7f0000020000-7f0000030000 r-xp 00010000 fd:01 555                        /tmp/libgone.so (deleted)\n"
	"7f0000030000-7f0000031000 ---p 00000000 00:00 0\n"
	"this is not a maps line\n"
	"\n"
	"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0                          [vdso]\n"
	"7f0000040000-7f0000041000 rw-p 00000000 00:00 0                          [anon:my arena]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";

TEST(parse_fields)
{
	struct mt_maps m;

	mt_maps_parse(&m, maps_text, strlen(maps_text));
	CHECK_EQ_U64(m.n, 12);
	CHECK_EQ_U64(m.bad_lines, 1);
	if (m.n != 12) {
		mt_maps_destroy(&m);
		return;
	}
	/* sorted: the [anon:my arena] line moved before [stack] */
	CHECK_EQ_U64(m.v[0].start, 0x55d0c0a00000ull);
	CHECK_EQ_U64(m.v[0].end, 0x55d0c0a01000ull);
	CHECK_EQ_U64(m.v[0].perms, MT_PERM_R);
	CHECK_EQ_U64(m.v[0].kind, MT_MAP_FILE);
	CHECK_EQ_U64(m.v[0].dev_major, 8);
	CHECK_EQ_U64(m.v[0].dev_minor, 1);
	CHECK_EQ_U64(m.v[0].inode, 1234);
	CHECK_STR(m.v[0].path, "/opt/memtrace-none/pageramp");
	CHECK_STR(m.v[0].name, "pageramp");
	CHECK_EQ_U64(m.v[1].perms, MT_PERM_R | MT_PERM_X);
	CHECK_EQ_U64(m.v[1].offset, 0x1000);
	CHECK_EQ_U64(m.v[2].perms, MT_PERM_R | MT_PERM_W);
	CHECK_STR(m.v[3].name, "[heap]");
	CHECK_EQ_U64(m.v[3].kind, MT_MAP_SPECIAL);
	CHECK_EQ_U64(m.v[4].kind, MT_MAP_ANON);
	CHECK_STR(m.v[4].path, "");
	CHECK_STR(m.v[4].name, "[anon]");
	CHECK_EQ_U64(m.v[5].perms, MT_PERM_R | MT_PERM_W | MT_PERM_SHARED);
	CHECK_STR(m.v[5].path, "/dev/shm/my file  with spaces");
	CHECK_STR(m.v[5].name, "my file  with spaces");
	CHECK_EQ_U64(m.v[5].dev_minor, 5);
	CHECK_EQ_U64(m.v[6].deleted, 1);
	CHECK_EQ_U64(m.v[5].deleted, 0);
	CHECK_STR(m.v[6].path, "/tmp/libgone.so");
	CHECK_STR(m.v[6].name, "libgone.so");
	CHECK_EQ_U64(m.v[6].dev_major, 0xfd);
	CHECK_EQ_U64(m.v[6].offset, 0x10000);
	CHECK_EQ_U64(m.v[7].perms, 0);
	CHECK_EQ_U64(m.v[7].kind, MT_MAP_ANON);
	CHECK_STR(m.v[8].name, "[anon:my arena]");
	CHECK_STR(m.v[9].name, "[stack]");
	CHECK_STR(m.v[10].name, "[vdso]");
	CHECK_STR(m.v[11].name, "[vsyscall]");
	CHECK_EQ_U64(m.v[11].start, 0xffffffffff600000ull);
	CHECK_EQ_U64(m.v[11].perms, MT_PERM_X);
	mt_maps_destroy(&m);
}

TEST(find_edges)
{
	struct mt_maps m;
	const struct mt_mapping *f;

	mt_maps_parse(&m, maps_text, strlen(maps_text));
	CHECK(mt_maps_find(&m, 0) == NULL);
	CHECK(mt_maps_find(&m, 0x55d0c09fffffull) == NULL);
	f = mt_maps_find(&m, 0x55d0c0a00000ull); /* start inclusive */
	CHECK(f == &m.v[0]);
	f = mt_maps_find(&m, 0x55d0c0a00fffull);
	CHECK(f == &m.v[0]);
	f = mt_maps_find(&m, 0x55d0c0a01000ull); /* end exclusive */
	CHECK(f == &m.v[1]);
	f = mt_maps_find(&m, 0x55d0c0a03fffull);
	CHECK(f == &m.v[2]);
	CHECK(mt_maps_find(&m, 0x55d0c0a04000ull) == NULL); /* gap */
	CHECK(mt_maps_find(&m, 0x55d0c1021000ull) == NULL);
	f = mt_maps_find(&m, 0x55d0c1020fffull);
	CHECK(f == &m.v[3]);
	f = mt_maps_find(&m, 0x7f0000030fffull);
	CHECK(f == &m.v[7]);
	CHECK(mt_maps_find(&m, 0x7f0000031000ull) == NULL);
	f = mt_maps_find(&m, 0xffffffffff600fffull);
	CHECK(f == &m.v[11]);
	CHECK(mt_maps_find(&m, 0xffffffffff601000ull) == NULL);
	CHECK(mt_maps_find(&m, UINT64_MAX) == NULL);
	mt_maps_destroy(&m);
}

TEST(bad_lines)
{
	static const char *bad[] = {
		"",
		"\n\n\n",
		"1000-2000",
		"1000-2000 rw-p",
		"2000-1000 rw-p 00000000 00:00 0",          /* end < start */
		"1000-1000 rw-p 00000000 00:00 0",          /* empty */
		"1000-2000 rwzp 00000000 00:00 0",          /* perms */
		"1000-2000 rw-q 00000000 00:00 0",
		"1000-2000 rw-p 00000000 0000 0",           /* dev */
		"1000-2000 rw-p 00000000 00:00 x",          /* inode */
		"1000-2000 rw-p 00000000 00:00 12x /bin/sh", /* glued */
		"10000000000000000-10000000000000001 rw-p 0 00:00 0", /* 17 digits */
		"1000-2000 rw-p 00000000 00:00 99999999999999999999", /* > u64 */
		"g000-2000 rw-p 00000000 00:00 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mt_maps m;
		mt_maps_parse(&m, bad[i], strlen(bad[i]));
		if (m.n != 0)
			TEST_FAIL("line %zu parsed: \"%s\"", i, bad[i]);
		mt_maps_destroy(&m);
	}
	/* len bounds the text: a NUL-free buffer cut mid-line. */
	const char *two = "1000-2000 r--p 00000000 00:00 0 /a\n3000-4000 r--p 0";
	struct mt_maps m;
	mt_maps_parse(&m, two, strlen(two));
	CHECK_EQ_U64(m.n, 1);
	CHECK_EQ_U64(m.bad_lines, 1);
	mt_maps_destroy(&m);
	mt_maps_parse(&m, two, 20);
	CHECK_EQ_U64(m.n, 0);
	mt_maps_destroy(&m);
	/* 16 hex digits and CRLF */
	const char *big = "fffffffffffff000-ffffffffffffffff r-xp 0 00:00 7 /x y\r\n";
	mt_maps_parse(&m, big, strlen(big));
	CHECK_EQ_U64(m.n, 1);
	if (m.n == 1) {
		CHECK_EQ_U64(m.v[0].end, 0xffffffffffffffffull);
		CHECK_STR(m.v[0].path, "/x y");
		CHECK_EQ_U64(m.v[0].inode, 7);
	}
	mt_maps_destroy(&m);
}

static const char snap_a[] = "1000-2000 r--p 00000000 00:00 1 /a\n";
static const char snap_b[] = "1000-2000 r--p 00000000 00:00 2 /b\n";
static const char snap_c[] = "1000-2000 r--p 00000000 00:00 3 /c\n"
			     "5000-6000 rw-p 00000000 00:00 0\n";

TEST(history_pick)
{
	struct mt_maps_history *h = mt_maps_history_new();
	const struct mt_maps *s;

	CHECK(mt_maps_history_at(h, 10, 0) == NULL);
	mt_maps_history_add(h, 300, 10, snap_c, strlen(snap_c));
	mt_maps_history_add(h, 100, 10, snap_a, strlen(snap_a));
	mt_maps_history_add(h, 200, 10, snap_b, strlen(snap_b));
	mt_maps_history_add(h, 50, 20, snap_b, strlen(snap_b));
	mt_maps_history_add(h, 50, 5, snap_a, strlen(snap_a));
	CHECK_EQ_U64(mt_maps_history_count(h, 10), 3);
	CHECK_EQ_U64(mt_maps_history_count(h, 20), 1);
	CHECK_EQ_U64(mt_maps_history_count(h, 7), 0);

	s = mt_maps_history_at(h, 10, 99); /* before all: the earliest */
	CHECK(s && s->time == 100);
	s = mt_maps_history_at(h, 10, 100); /* at */
	CHECK(s && s->time == 100);
	s = mt_maps_history_at(h, 10, 199);
	CHECK(s && s->time == 100);
	s = mt_maps_history_at(h, 10, 250);
	CHECK(s && s->time == 200 && s->pid == 10);
	s = mt_maps_history_at(h, 10, UINT64_MAX);
	CHECK(s && s->time == 300);
	s = mt_maps_history_at(h, 20, 0);
	CHECK(s && s->pid == 20 && s->time == 50);
	s = mt_maps_history_at(h, 5, 1000);
	CHECK(s && s->pid == 5);
	CHECK(mt_maps_history_at(h, 11, 100) == NULL);

	const struct mt_mapping *m;
	m = mt_maps_history_find(h, 10, 250, 0x1800, &s);
	CHECK(m && strcmp(m->path, "/b") == 0 && s && s->time == 200);
	/* 0x5000 is only in the later snapshot (mapped after t=200) */
	m = mt_maps_history_find(h, 10, 250, 0x5000, &s);
	CHECK(m && s && s->time == 300 && m->kind == MT_MAP_ANON);
	m = mt_maps_history_find(h, 10, 350, 0x7000, &s);
	CHECK(m == NULL && s == NULL);
	/* the snapshot at or before time wins over earlier ones */
	m = mt_maps_history_find(h, 10, 350, 0x1000, &s);
	CHECK(m && strcmp(m->path, "/c") == 0);
	/* unmapped again at t=400: the newest earlier snapshot that maps it */
	mt_maps_history_add(h, 400, 10, snap_a, strlen(snap_a));
	m = mt_maps_history_find(h, 10, UINT64_MAX, 0x5000, &s);
	CHECK(m && s && s->time == 300 && m->start == 0x5000);
	m = mt_maps_history_find(h, 10, UINT64_MAX, 0x1000, &s);
	CHECK(m && s && s->time == 400 && strcmp(m->path, "/a") == 0);
	m = mt_maps_history_find(h, 10, 0, 0x5fff, &s);
	CHECK(m && s && s->time == 300);
	m = mt_maps_history_find(h, 10, 0, 0x6000, &s);
	CHECK(m == NULL && s == NULL);
	mt_maps_history_free(h);
}

TEST(history_equal_times)
{
	struct mt_maps_history *h = mt_maps_history_new();
	const struct mt_maps *s;

	mt_maps_history_add(h, 100, 1, snap_a, strlen(snap_a));
	mt_maps_history_add(h, 100, 1, snap_b, strlen(snap_b));
	s = mt_maps_history_at(h, 1, 100); /* the one added last wins */
	CHECK(s && s->n == 1 && strcmp(s->v[0].path, "/b") == 0);
	/* many pids, inserted in descending order */
	for (uint32_t pid = 1000; pid > 100; pid--)
		mt_maps_history_add(h, pid, pid, snap_c, strlen(snap_c));
	for (uint32_t pid = 101; pid <= 1000; pid++) {
		s = mt_maps_history_at(h, pid, 0);
		if (!s || s->pid != pid || s->time != pid) {
			TEST_FAIL("pid %u", pid);
			break;
		}
	}
	mt_maps_history_free(h);
}

TEST(resolver_mappings)
{
	struct resolver *r = resolver_new();
	char buf[128];

	resolver_add_maps(r, 1000, 42, maps_text, strlen(maps_text));
	CHECK_EQ_U64(resolver_describe(r, 42, 2000, 0x55d0c101a000ull, buf,
				       sizeof(buf)), MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "[heap]+0x1a000");
	/* file mapping: file offset (0x1000 + 0x10), no such file here */
	resolver_describe(r, 42, 2000, 0x55d0c0a01010ull, buf, sizeof(buf));
	CHECK_STR(buf, "pageramp+0x1010");
	resolver_describe(r, 42, 2000, 0x55d0c0a03008ull, buf, sizeof(buf));
	CHECK_STR(buf, "pageramp+0x3008");
	resolver_describe(r, 42, 2000, 0x7f0000000000ull, buf, sizeof(buf));
	CHECK_STR(buf, "[anon]+0x0");
	resolver_describe(r, 42, 2000, 0x7f0000010fffull, buf, sizeof(buf));
	CHECK_STR(buf, "my file  with spaces+0xfff");
	resolver_describe(r, 42, 2000, 0x7f0000020010ull, buf, sizeof(buf));
	CHECK_STR(buf, "libgone.so+0x10010");
	resolver_describe(r, 42, 2000, 0x7ffd00020ff8ull, buf, sizeof(buf));
	CHECK_STR(buf, "[stack]+0x20ff8");
	resolver_describe(r, 42, 2000, 0x7ffd00101000ull, buf, sizeof(buf));
	CHECK_STR(buf, "[vdso]+0x1000");
	CHECK_EQ_U64(resolver_describe(r, 42, 2000, 0x55d0c0a04000ull, buf,
				       sizeof(buf)), MT_RESOLVE_UNMAPPED);
	CHECK_STR(buf, "?");
	CHECK_EQ_U64(resolver_describe(r, 43, 2000, 0x55d0c101a000ull, buf,
				       sizeof(buf)), MT_RESOLVE_UNMAPPED);
	CHECK_STR(buf, "?");
	/* truncation keeps a terminated prefix */
	resolver_describe(r, 42, 2000, 0x55d0c101a000ull, buf, 5);
	CHECK_STR(buf, "[hea");
	CHECK_STR(resolver_mapping_name(r, 42, 0, 0x55d0c0a00000ull), "pageramp");
	CHECK_STR(resolver_mapping_name(r, 42, 0, 0x7f0000030000ull), "[anon]");
	CHECK_STR(resolver_mapping_name(r, 42, 0, 0x7f0000040000ull),
		  "[anon:my arena]");
	CHECK_STR(resolver_mapping_name(r, 42, 0, 0x10), "?");

	struct resolved res;
	CHECK_EQ_U64(resolver_lookup(r, 42, 0, 0x55d0c0a01234ull, &res),
		     MT_RESOLVE_MAPPING);
	CHECK(res.map && res.map->start == 0x55d0c0a01000ull);
	CHECK_STR(res.region, "pageramp");
	CHECK_EQ_U64(res.region_off, 0x1234);
	CHECK(res.sym == NULL);
	resolver_free(r);
}

/*
 * A process names its executable (mt_maps_history_set_comm via the
 * resolver): "COMM (FILE)" where comm is not the file's name, in snapshots
 * added before and after the name; a comm that is the file's (or its first
 * 15 bytes) and shared libraries keep the file's name; THREADS records
 * name a process by the record whose tid is its pid.
 */
TEST(comm_names_the_executable)
{
	static const char maps[] =
		"55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 9 /usr/bin/redis-check-rdb\n"
		"55d0c0a01000-55d0c0a05000 r-xp 00001000 08:01 9 /usr/bin/redis-check-rdb\n"
		"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0 [heap]\n"
		"7f0000000000-7f0000010000 r-xp 00000000 08:01 7 /lib/libc.so.6\n";
	static const char only_lib[] =
		"7f0000000000-7f0000010000 r-xp 00000000 08:01 7 /lib/libz.so.1.2.13\n";
	struct resolver *r = resolver_new();
	char buf[256];
	unsigned char rec[2 * THREAD_REC_SIZE] = { 0 };

	resolver_add_maps(r, 1000, 42, maps, sizeof(maps) - 1);
	resolver_set_comm(r, 42, "redis-server");
	resolver_add_maps(r, 2000, 42, maps, sizeof(maps) - 1);
	resolver_describe(r, 42, 1000, 0x55d0c0a01010ull, buf, sizeof(buf));
	CHECK_STR(buf, "redis-server (redis-check-rdb)+0x1010");
	resolver_describe(r, 42, 2000, 0x55d0c0a00010ull, buf, sizeof(buf));
	CHECK_STR(buf, "redis-server (redis-check-rdb)+0x10");
	resolver_describe(r, 42, 2000, 0x7f0000000010ull, buf, sizeof(buf));
	CHECK_STR(buf, "libc.so.6+0x10");
	resolver_describe(r, 42, 2000, 0x55d0c1000010ull, buf, sizeof(buf));
	CHECK_STR(buf, "[heap]+0x10");
	/* comm = the file cut to 15 bytes, or the file: the file's name */
	resolver_set_comm(r, 42, "redis-check-rdb");
	resolver_describe(r, 42, 2000, 0x55d0c0a01010ull, buf, sizeof(buf));
	CHECK_STR(buf, "redis-check-rdb+0x1010");
	/* THREADS: pid 43's own thread names it, another thread of it does not */
	resolver_add_maps(r, 1000, 43, maps, sizeof(maps) - 1);
	put_le64(rec, 5);
	put_le32(rec + 8, 43);
	put_le32(rec + 12, 44);
	memcpy(rec + 16, "worker", 6);
	put_le64(rec + THREAD_REC_SIZE, 5);
	put_le32(rec + THREAD_REC_SIZE + 8, 43);
	put_le32(rec + THREAD_REC_SIZE + 12, 43);
	memcpy(rec + THREAD_REC_SIZE + 16, "valkey", 6);
	resolver_add_threads(r, rec, sizeof(rec));
	resolver_describe(r, 43, 1000, 0x55d0c0a01010ull, buf, sizeof(buf));
	CHECK_STR(buf, "valkey (redis-check-rdb)+0x1010");
	/* no executable among the mappings: nothing renamed */
	resolver_add_maps(r, 1000, 50, only_lib, sizeof(only_lib) - 1);
	resolver_set_comm(r, 50, "python3");
	resolver_describe(r, 50, 1000, 0x7f0000000010ull, buf, sizeof(buf));
	CHECK_STR(buf, "libz.so.1.2.13+0x10");
	resolver_free(r);
}

int main(void)
{
	return test_main();
}
