/* test_util.c - option values and header keys (user/util). */
#include <string.h>

#include "test.h"
#include "util/util.h"

TEST(kv_value_last_line_wins_and_exact_key)
{
	const char text[] = "event=page-faults\nevent_period=1\nevent=loads\nend";
	char buf[32];

	CHECK(mt_kv_value(text, strlen(text), "event", buf, sizeof(buf)));
	CHECK(!strcmp(buf, "loads"));
	CHECK(mt_kv_value(text, strlen(text), "event_period", buf, sizeof(buf)));
	CHECK(!strcmp(buf, "1"));
	CHECK(!mt_kv_value(text, strlen(text), "even", buf, sizeof(buf)));
	CHECK(!mt_kv_value(text, strlen(text), "end", buf, sizeof(buf)));	/* no '=' */
	CHECK(!mt_kv_value(NULL, 0, "event", buf, sizeof(buf)));
}

TEST(kv_value_truncates_and_stops_at_len)
{
	const char text[] = "k=abcdef\nz=1";
	char buf[4];

	CHECK(mt_kv_value(text, strlen(text), "k", buf, sizeof(buf)));
	CHECK(!strcmp(buf, "abc"));
	/* the text ends without a newline, and only len bytes count */
	char b2[8];
	CHECK(mt_kv_value(text, 7, "k", b2, sizeof(b2)));
	CHECK(!strcmp(b2, "abcde"));
	CHECK(!mt_kv_value(text, 10, "z", b2, sizeof(b2)));
	CHECK(mt_kv_value(text, strlen(text), "z", b2, sizeof(b2)));
	CHECK(!strcmp(b2, "1"));
}

TEST(parse_size_units)
{
	uint64_t v = 0;

	CHECK(!mt_parse_size("4K", &v));
	CHECK_EQ_U64(v, 4096);
	CHECK(!mt_parse_size("2MiB", &v));
	CHECK_EQ_U64(v, 2u << 20);
	CHECK(!mt_parse_size("64", &v));
	CHECK_EQ_U64(v, 64);
	CHECK(!mt_parse_size("1.5g", &v));
	CHECK_EQ_U64(v, 3ull << 29);
	CHECK(mt_parse_size("-4K", &v));
	CHECK(mt_parse_size("4Q", &v));
	CHECK(mt_parse_size("", &v));
}

TEST(parse_duration_ns_and_instructions)
{
	uint64_t v = 0;

	CHECK(!mt_parse_duration("100ms", true, &v));
	CHECK_EQ_U64(v, 100000000);
	CHECK(!mt_parse_duration("1.5s", true, &v));
	CHECK_EQ_U64(v, 1500000000);
	CHECK(!mt_parse_duration("2min", true, &v));
	CHECK_EQ_U64(v, 120000000000ull);
	CHECK(!mt_parse_duration("250", true, &v));
	CHECK_EQ_U64(v, 250);
	CHECK(!mt_parse_duration("100k", false, &v));
	CHECK_EQ_U64(v, 100000);
	CHECK(!mt_parse_duration("1M", false, &v));
	CHECK_EQ_U64(v, 1000000);
	CHECK(mt_parse_duration("10ms", false, &v));	/* no time units for instructions */
	CHECK(mt_parse_duration("5 s", true, &v));
	CHECK(mt_parse_duration("1e400", true, &v));
}

TEST(fmt_bytes)
{
	char buf[32];

	CHECK(!strcmp(mt_fmt_bytes(1023, buf, sizeof(buf)), "1023 B"));
	CHECK(!strcmp(mt_fmt_bytes(4096, buf, sizeof(buf)), "4.0 KiB"));
	CHECK(!strcmp(mt_fmt_bytes(3ull << 29, buf, sizeof(buf)), "1.5 GiB"));
}

int main(void)
{
	return test_main();
}
