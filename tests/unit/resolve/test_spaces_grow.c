/*
 * test_spaces_grow.c - address-space keys while the space table grows
 * (issue 26: memtrace-analyze heatmap of `sh -c 'for i in $(seq 40); do
 * /bin/true; done'` crashed in memtrace_resolver_keys: mt_spaces_key took
 * &s->v[...] before mt_spaces_index() reallocated s->v on the 17th pid the
 * trace had no MAPS of).  A trace with MAPS of its target only; keys of 40
 * pids taken in one batch, one at a time, and decoded.  What the keys must
 * be comes from resolve.h: the target's addresses are their own keys;
 * every other process's private key is its address plus a tag in bits
 * 48..62, distinct per process, and decodes back to (pid, address).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/resolve.h"
#include "memtrace/trace.h"
#include "test.h"

#define NPIDS 40
#define ADDR 0x01e03000ull
#define TAG_MASK (0x7fffull << 48)

static char path[128];

static int write_trace(void)
{
	char err[256];
	const char *meta = "time_unit=ns\nstart_time=0\ntarget_pid=1000\n";
	const char *maps = "01e00000-01e21000 rw-p 00000000 00:00 0 [heap]\n";
	struct memtrace_writer *w;

	snprintf(path, sizeof(path), "/tmp/mt-spacesgrow-%d.mtrace", (int)getpid());
	w = memtrace_writer_open(path, meta, err, sizeof(err));
	if (!w)
		return -1;
	if (memtrace_writer_maps(w, 10, 1000, maps, strlen(maps), err, sizeof(err))) {
		memtrace_writer_close(w, NULL, err, sizeof(err));
		return -1;
	}
	return memtrace_writer_close(w, "end_time=30\n", err, sizeof(err));
}

static void check_keys(const uint32_t *pid, const uint64_t *key)
{
	for (int i = 0; i < NPIDS; i++) {
		if (i == 0) {
			CHECK_EQ_U64(key[i], ADDR);	/* the target: key = address */
			continue;
		}
		CHECK_EQ_U64(key[i] & ~TAG_MASK, ADDR);
		CHECK(key[i] & TAG_MASK);
		for (int j = 1; j < i; j++)
			CHECK(key[i] != key[j]);	/* processes never merge */
	}
	(void)pid;
}

TEST(keys_of_40_pids_batch)
{
	char err[256];
	uint32_t pid[NPIDS];
	uint64_t addr[NPIDS], key[NPIDS];

	CHECK(write_trace() == 0);
	struct memtrace_resolver *r = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	for (int i = 0; i < NPIDS; i++) {
		pid[i] = 1000 + (uint32_t)i;	/* 1000: the target, 1001..: no MAPS */
		addr[i] = ADDR;
	}
	memtrace_resolver_keys(r, NPIDS, pid, addr, key);
	check_keys(pid, key);
	for (int i = 0; i < NPIDS; i++) {
		uint32_t p = 0, shared = 9;
		uint64_t a = 0;
		CHECK(memtrace_resolver_decode(r, key[i], &p, &a, &shared) == 0);
		CHECK_EQ_U64(p, pid[i]);
		CHECK_EQ_U64(a, ADDR);
		CHECK_EQ_U64(shared, 0);
		/* the same key again, one at a time */
		CHECK_EQ_U64(memtrace_resolver_key(r, pid[i], ADDR), key[i]);
	}
	memtrace_resolver_close(r);
	unlink(path);
}

TEST(keys_of_40_pids_one_at_a_time)
{
	char err[256];
	uint32_t pid[NPIDS];
	uint64_t key[NPIDS];

	CHECK(write_trace() == 0);
	struct memtrace_resolver *r = memtrace_resolver_open(path, NULL, NULL, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	for (int i = 0; i < NPIDS; i++) {
		pid[i] = 1000 + (uint32_t)i;
		/* pid, then the target again: the last-pid shortcut and the index alternate */
		key[i] = memtrace_resolver_key(r, pid[i], ADDR);
		CHECK_EQ_U64(memtrace_resolver_key(r, 1000, ADDR), ADDR);
	}
	check_keys(pid, key);
	memtrace_resolver_close(r);
	unlink(path);
}

int main(void)
{
	return test_main();
}
