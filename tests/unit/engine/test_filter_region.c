/* test_filter_region.c - filter.region (engine/filter.h): which (pid,
 * address) pairs a labelled region keeps, against the layout the test
 * builds (two processes mapping one shared segment at different addresses,
 * the same private addresses in both), the region's size in keys (a shared
 * page once), and the error for a name no label has. */
#include <stdio.h>
#include <string.h>

#include "engine/filter.h"
#include "resolve/resolve.h"
#include "resolve/spaces.h"
#include "test.h"

#define A 100u		/* the target */
#define B 200u
#define SEG_A 0x7f1000000000ull
#define SEG_B 0x7f2000000000ull
#define SEG_SIZE 0x1000000ull
#define PRIV 0x7f0000000000ull
#define BB_OFF 0x100000ull
#define BB_SIZE 0x200000ull
#define HOT 0x7f0000010000ull	/* START label: the target's only */
#define HOT_SIZE 0x40000ull

static struct resolver *make(void)
{
	struct resolver *r = resolver_new();
	char m[512], err[256];
	const char *labels = "/dev/zero (deleted)+0x100000 0x200000 Buffer Blocks\n"
			     "0x7f0000010000 0x40000 Hot private\n";

	for (int i = 0; i < 2; i++) {
		uint64_t seg = i ? SEG_B : SEG_A;
		snprintf(m, sizeof(m),
			 "%llx-%llx rw-p 00000000 00:00 0 [anon:priv]\n"
			 "%llx-%llx rw-s 00000000 00:01 777 /dev/zero (deleted)\n",
			 PRIV, PRIV + 0x100000, (unsigned long long)seg,
			 (unsigned long long)(seg + SEG_SIZE));
		resolver_add_maps(r, 0, i ? B : A, m, strlen(m));
	}
	resolver_set_label_pid(r, A);
	if (resolver_add_labels(r, labels, strlen(labels), "t", 0, err, sizeof(err)))
		TEST_FAIL("labels: %s", err);
	return r;
}

/* The test's own rule: in the region or not. */
static int want(const char *region, uint32_t pid, uint64_t addr)
{
	uint64_t seg = pid == A ? SEG_A : SEG_B;

	if (!strcmp(region, "Buffer Blocks"))
		return addr >= seg + BB_OFF && addr < seg + BB_OFF + BB_SIZE;
	return pid == A && addr >= HOT && addr < HOT + HOT_SIZE;
}

TEST(region_keeps_exactly_its_addresses)
{
	static const char *const names[] = { "Buffer Blocks", "Hot private" };
	struct resolver *r = make();
	char err[512];

	for (int n = 0; n < 2; n++) {
		struct memtrace_filter spec = { .region = names[n] };
		struct sample_filter f;
		CHECK(sample_filter_init(&f, &spec, 0, r, A, err, sizeof(err)) == 0);
		size_t kept = 0;
		for (int p = 0; p < 2; p++) {
			uint32_t pid = p ? B : A;
			uint64_t seg = p ? SEG_B : SEG_A;
			/* every 4 KiB and the bytes next to each edge */
			for (uint64_t a = PRIV; a < PRIV + 0x100000; a += 0x800)
				for (int d = -1; d <= 1; d++) {
					int ok = sample_filter_pass_values(&f, 5, a + (uint64_t)d, pid, pid);
					CHECK(ok == want(names[n], pid, a + (uint64_t)d));
					kept += (size_t)ok;
				}
			for (uint64_t a = seg; a < seg + 0x400000; a += 0x800)
				for (int d = -1; d <= 1; d++) {
					int ok = sample_filter_pass_values(&f, 5, a + (uint64_t)d, pid, pid);
					CHECK(ok == want(names[n], pid, a + (uint64_t)d));
					kept += (size_t)ok;
				}
			/* a pid without maps has no region */
			CHECK(!sample_filter_pass_values(&f, 5, seg + BB_OFF, 300, 300));
		}
		CHECK(kept > 0);
		/* in keys: the segment once for both processes; the START label once */
		struct mt_spaces *s = resolver_spaces(r, A);
		CHECK_EQ_U64(sample_filter_region_bytes(&f, s), n ? HOT_SIZE : BB_SIZE);
		sample_filter_free(&f);
	}
	resolver_free(r);
}

TEST(region_unknown_name_lists_labels)
{
	struct resolver *r = make();
	struct memtrace_filter spec = { .region = "Nope" };
	struct sample_filter f;
	char err[512];

	CHECK(sample_filter_init(&f, &spec, 0, r, A, err, sizeof(err)) == -1);
	CHECK(strstr(err, "--region Nope: no label of that name") != NULL);
	CHECK(strstr(err, "\"Buffer Blocks\"") && strstr(err, "\"Hot private\""));
	CHECK(!strchr(err, '\n'));
	resolver_free(r);
	/* no labels at all */
	r = resolver_new();
	CHECK(sample_filter_init(&f, &spec, 0, r, A, err, sizeof(err)) == -1);
	CHECK(strstr(err, "no labels") != NULL);
	resolver_free(r);
}

/* The region with other filters: a pid and an address range narrow it. */
TEST(region_with_pid_and_range)
{
	struct resolver *r = make();
	struct memtrace_filter spec = { .region = "Buffer Blocks", .pid = B,
					.addr_lo = SEG_B + BB_OFF, .addr_hi = SEG_B + BB_OFF + 0x1000 };
	struct sample_filter f;
	char err[512];

	CHECK(sample_filter_init(&f, &spec, 0, r, A, err, sizeof(err)) == 0);
	CHECK(sample_filter_pass_values(&f, 1, SEG_B + BB_OFF, B, B));
	CHECK(!sample_filter_pass_values(&f, 1, SEG_B + BB_OFF + 0x1000, B, B));
	CHECK(!sample_filter_pass_values(&f, 1, SEG_A + BB_OFF, A, A));
	sample_filter_free(&f);
	resolver_free(r);
}

int main(void)
{
	return test_main();
}
