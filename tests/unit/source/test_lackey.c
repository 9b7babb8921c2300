/* test_lackey.c - unit tests of the lackey parser and sampler (user/source/valgrind/lackey.c).
 *
 * Harness: tests/unit/test.h ("ok  NAME" / "FAIL NAME: why", then
 * "N passed, N failed").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/valgrind/lackey.h"
#include "test.h"

/* ---- a collector for emitted samples ---------------------------------- */

struct sink {
	struct memtrace_sample *s;
	size_t n, cap;
	int calls;
	size_t stop_after;	/* emit returns -1 once n >= stop_after (0: never) */
};

static int sink_emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct sink *k = ctx;

	k->calls++;
	if (k->n + n > k->cap) {
		k->cap = (k->n + n) * 2;
		k->s = realloc(k->s, k->cap * sizeof(*k->s));
		if (!k->s)
			abort();
	}
	memcpy(k->s + k->n, s, n * sizeof(*s));
	k->n += n;
	return k->stop_after && k->n >= k->stop_after ? -1 : 0;
}

static struct lackey_parser *new_parser(uint64_t period, bool random,
					uint64_t seed, struct sink *k)
{
	struct lackey_parser *p = malloc(sizeof(*p));

	if (!p)
		abort();
	memset(k, 0, sizeof(*k));
	lackey_init(p, period, random, seed, sink_emit, k);
	return p;
}

static void check_sample(const struct memtrace_sample *s, uint64_t time,
			 uint64_t addr, uint64_t ip, uint64_t src, uint32_t pid)
{
	CHECK_EQ_U64(s->time, time);
	CHECK_EQ_U64(s->addr, addr);
	CHECK_EQ_U64(s->ip, ip);
	CHECK_EQ_U64(s->data_src, src);
	CHECK_EQ_U64(s->pid, pid);
	CHECK_EQ_U64(s->tid, pid);
	CHECK_EQ_U64(s->cpu, 0);
	CHECK_EQ_U64(s->weight, 0);
}

/* A small log: 6 instructions, 7 data accesses. */
static const char LOG[] =
	"==4242== Lackey, an example Valgrind tool\n"
	"==4242== Command: /usr/bin/pageramp -n 64\n"
	"==4242== \n"
	"I  004014f0,2\n"
	"I  004014f2,3\n"
	" L 1fff0005d0,8\n"		/* access 1: t=2 ip=4014f2 */
	"I  004014f6,3\n"
	" S 1fff0005c8,8\n"		/* 2: t=3 */
	" M 0000601040,4\n"		/* 3: t=3 */
	"I  00402b60,2\n"
	"I  00402b62,7\n"
	" L 04800000,1\n"		/* 4: t=5 ip=402b62 */
	" S 04801000,1\n"		/* 5: t=5 */
	" L ffffffffffffffff,16\n"	/* 6: t=5 */
	"I  00402b69,1\n"
	" M 04802fff,1\n"		/* 7: t=6 ip=402b69 */
	"==4242== \n"
	"==4242== Exit code:       0\n";

#define P 4242
static const struct { uint64_t t, addr, ip, src; } WANT[7] = {
	{ 2, 0x1fff0005d0, 0x4014f2, 2 },
	{ 3, 0x1fff0005c8, 0x4014f6, 4 },
	{ 3, 0x601040, 0x4014f6, 6 },
	{ 5, 0x4800000, 0x402b62, 2 },
	{ 5, 0x4801000, 0x402b62, 4 },
	{ 5, 0xffffffffffffffffULL, 0x402b62, 2 },
	{ 6, 0x4802fff, 0x402b69, 6 },
};

static void feed_all(struct lackey_parser *p, const char *s, size_t len)
{
	CHECK_EQ_U64(lackey_feed(p, s, len), 0);
}

TEST(lackey_period1_exact)
{
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, LOG, sizeof(LOG) - 1);
	CHECK_EQ_U64(lackey_finish(p), 0);
	CHECK_EQ_U64(k.n, 7);
	for (size_t i = 0; i < 7 && i < k.n; i++)
		check_sample(&k.s[i], WANT[i].t, WANT[i].addr, WANT[i].ip,
			     WANT[i].src, P);
	CHECK_EQ_U64(p->insns, 6);
	CHECK_EQ_U64(p->accesses, 7);
	CHECK_EQ_U64(p->loads, 3);
	CHECK_EQ_U64(p->stores, 2);
	CHECK_EQ_U64(p->modifies, 2);
	CHECK_EQ_U64(p->samples, 7);
	CHECK_EQ_U64(p->messages, 5);
	CHECK_EQ_U64(p->bad_lines, 0);
	CHECK_EQ_U64(p->lines, 18);
	CHECK_EQ_U64(p->log_pid, P);
	CHECK_EQ_U64(p->other_pid, 0);
	CHECK(strcmp(p->command, "/usr/bin/pageramp -n 64") == 0);
	free(k.s);
	free(p);
}

TEST(lackey_period3_exact)
{
	struct sink k;
	struct lackey_parser *p = new_parser(3, false, 0, &k);

	feed_all(p, LOG, sizeof(LOG) - 1);
	lackey_finish(p);
	CHECK_EQ_U64(k.n, 2);		/* accesses 3 and 6 */
	if (k.n == 2) {
		check_sample(&k.s[0], WANT[2].t, WANT[2].addr, WANT[2].ip, WANT[2].src, P);
		check_sample(&k.s[1], WANT[5].t, WANT[5].addr, WANT[5].ip, WANT[5].src, P);
	}
	CHECK_EQ_U64(p->accesses, 7);
	CHECK_EQ_U64(p->samples, 2);
	free(k.s);
	free(p);
}

TEST(lackey_period0_is_1)
{
	struct sink k;
	struct lackey_parser *p = new_parser(0, false, 0, &k);

	feed_all(p, LOG, sizeof(LOG) - 1);
	lackey_finish(p);
	CHECK_EQ_U64(k.n, 7);
	free(k.s);
	free(p);
}

TEST(lackey_pid_override)
{
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	p->pid = 77;
	feed_all(p, LOG, sizeof(LOG) - 1);
	lackey_finish(p);
	CHECK_EQ_U64(k.n, 7);
	for (size_t i = 0; i < k.n; i++) {
		CHECK_EQ_U64(k.s[i].pid, 77);
		CHECK_EQ_U64(k.s[i].tid, 77);
	}
	CHECK_EQ_U64(p->log_pid, P);
	free(k.s);
	free(p);
}

/* The sampler alone: fixed period keeps exactly every N-th access. */
TEST(lackey_sampler_fixed)
{
	struct lackey_sampler s;

	lackey_sampler_init(&s, 5, false, 99);
	for (int i = 1; i <= 100; i++)
		CHECK_EQ_U64(lackey_sampler_take(&s), i % 5 == 0);
	lackey_sampler_init(&s, 1, true, 99);	/* random with N=1: every access */
	for (int i = 1; i <= 100; i++)
		CHECK_EQ_U64(lackey_sampler_take(&s), 1);
}

TEST(lackey_sampler_random_range_mean)
{
	struct lackey_sampler a, b, c;
	uint64_t min = ~0ULL, max = 0, sum = 0, n = 200000, differ = 0;

	lackey_sampler_init(&a, 10, true, 7);
	lackey_sampler_init(&b, 10, true, 7);
	lackey_sampler_init(&c, 10, true, 8);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ga = lackey_sampler_next_gap(&a);
		uint64_t gb = lackey_sampler_next_gap(&b);
		uint64_t gc = lackey_sampler_next_gap(&c);

		CHECK_EQ_U64(ga, gb);
		differ += ga != gc;
		if (ga < min)
			min = ga;
		if (ga > max)
			max = ga;
		sum += ga;
	}
	CHECK_EQ_U64(min, 5);
	CHECK_EQ_U64(max, 15);
	CHECK(differ > n / 2);
	/* mean 10, sd of the mean ~ 3.2/sqrt(n) = 0.007 */
	CHECK(sum > n * 10 - n / 20 && sum < n * 10 + n / 20);

	/* odd N: [N - N/2, N + N/2] = [2, 4] for 3 */
	lackey_sampler_init(&a, 3, true, 1);
	min = ~0ULL;
	max = 0;
	for (int i = 0; i < 10000; i++) {
		uint64_t g = lackey_sampler_next_gap(&a);

		min = g < min ? g : min;
		max = g > max ? g : max;
	}
	CHECK_EQ_U64(min, 2);
	CHECK_EQ_U64(max, 4);
}

/* Same seed, same kept accesses through the parser; exact first gaps. */
TEST(lackey_random_parser_deterministic)
{
	static char log[1 << 16];
	size_t len = 0;
	struct sink k1, k2, k3;

	for (int i = 0; i < 1000; i++)
		len += (size_t)snprintf(log + len, sizeof(log) - len,
					"I  %08x,3\n L %08x,8\n", 0x400000 + i, 0x10000 + 8 * i);
	struct lackey_parser *p1 = new_parser(4, true, 42, &k1);
	struct lackey_parser *p2 = new_parser(4, true, 42, &k2);
	struct lackey_parser *p3 = new_parser(4, true, 43, &k3);

	feed_all(p1, log, len);
	feed_all(p2, log, len);
	feed_all(p3, log, len);
	lackey_finish(p1);
	lackey_finish(p2);
	lackey_finish(p3);
	CHECK_EQ_U64(k1.n, k2.n);
	CHECK(k1.n > 200 && k1.n < 300);
	for (size_t i = 0; i < k1.n && i < k2.n; i++)
		CHECK_EQ_U64(k1.s[i].time, k2.s[i].time);
	int same = k1.n == k3.n;

	for (size_t i = 0; same && i < k1.n; i++)
		same = k1.s[i].time == k3.s[i].time;
	CHECK(!same);
	/* the kept accesses are exactly where the sampler's gaps say */
	struct lackey_sampler s;
	uint64_t at = 0;

	lackey_sampler_init(&s, 4, true, 42);
	at = s.left;
	for (size_t i = 0; i < k1.n; i++) {
		CHECK_EQ_U64(k1.s[i].time, at);	/* access i is in insn i */
		CHECK_EQ_U64(k1.s[i].addr, 0x10000 + 8 * (at - 1));
		CHECK_EQ_U64(k1.s[i].ip, 0x400000 + (at - 1));
		at += lackey_sampler_next_gap(&s);
	}
	free(k1.s);
	free(k2.s);
	free(k3.s);
	free(p1);
	free(p2);
	free(p3);
}

/* A two-instruction loop (one load each) sampled every 2nd access keeps only
 * the second instruction: aliasing, detected; random gaps or an odd period
 * keep both and are not flagged. */
TEST(lackey_fixed_period_aliasing_detected)
{
	size_t cap = 1 << 20, len = 0;
	char *log = malloc(cap);
	struct sink k[3];
	const struct { uint64_t period; bool random; uint64_t want; } c[3] = {
		{ 2, false, 0x401004 }, { 2, true, 0 }, { 3, false, 0 },
	};

	for (int i = 0; i < 5000; i++)
		len += (size_t)snprintf(log + len, cap - len, "I  00401000,4\n L %08x,8\n"
					"I  00401004,4\n L %08x,8\n", 0x10000 + 8 * i, 0x90000 + 8 * i);
	for (int j = 0; j < 3; j++) {
		struct lackey_parser *p = new_parser(c[j].period, c[j].random, 1, &k[j]);
		feed_all(p, log, len);
		lackey_finish(p);
		CHECK_EQ_U64(p->aliased, c[j].want);
		free(k[j].s);
		free(p);
	}
	free(log);
}

TEST(lackey_access_before_insn)
{
	static const char log[] = " S 10,4\nI  20,1\n L 30,4\n";
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, log, sizeof(log) - 1);
	lackey_finish(p);
	CHECK_EQ_U64(k.n, 2);
	if (k.n == 2) {
		check_sample(&k.s[0], 0, 0x10, 0, 4, 0);
		check_sample(&k.s[1], 1, 0x30, 0x20, 2, 0);
	}
	free(k.s);
	free(p);
}

TEST(lackey_malformed_lines)
{
	static const char log[] =
		"I  100,1\n"
		"hello world\n"			/* bad 1 (line 2) */
		" X 200,4\n"			/* bad: unknown kind */
		" L 200\n"			/* bad: no size */
		" L ,4\n"			/* bad: no address */
		" L 200,\n"			/* bad: empty size */
		" L 200,4 \n"			/* bad: trailing space */
		" L 12345678901234567,4\n"	/* bad: 17 hex digits */
		" L 0x200,4\n"			/* bad: x is no hex digit */
		"I 100,1\n"			/* bad: one space */
		"  L 200,4\n"			/* bad: two leading spaces */
		"I  1AbC,2\n"			/* ok, upper and lower case */
		"\n"				/* blank: a message */
		"==12 bad\n"			/* bad: not ==N== */
		"--77-- debug\n"		/* message; does not set the pid */
		" M 1234567890abcdef,8\n"	/* ok, 16 digits */
		" L\n"				/* bad: too short */
		" \n"				/* bad */
		"I\n";				/* bad */
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, log, sizeof(log) - 1);
	CHECK_EQ_U64(lackey_finish(p), 0);
	CHECK_EQ_U64(p->lines, 19);
	CHECK_EQ_U64(p->bad_lines, 14);
	CHECK_EQ_U64(p->messages, 2);
	CHECK_EQ_U64(p->insns, 2);
	CHECK_EQ_U64(p->accesses, 1);
	CHECK_EQ_U64(p->log_pid, 0);
	CHECK_EQ_U64(p->first_bad_line, 2);
	CHECK(strcmp(p->first_bad, "hello world") == 0);
	CHECK_EQ_U64(k.n, 1);
	if (k.n == 1)
		check_sample(&k.s[0], 2, 0x1234567890abcdefULL, 0x1abc, 6, 0);
	free(k.s);
	free(p);
}

TEST(lackey_partial_last_line)
{
	static const char log[] = "I  100,1\n L 200,4\n L 300,";
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, log, sizeof(log) - 1);
	CHECK_EQ_U64(k.n, 1);
	CHECK_EQ_U64(lackey_finish(p), 7);
	CHECK_EQ_U64(k.n, 1);
	CHECK_EQ_U64(p->lines, 2);
	CHECK_EQ_U64(p->bad_lines, 0);
	free(k.s);
	free(p);
}

/* Feeding in two parts split at every byte gives the same result. */
TEST(lackey_split_every_position)
{
	struct sink k0;
	struct lackey_parser *p0 = new_parser(1, false, 0, &k0);
	size_t len = sizeof(LOG) - 1;

	feed_all(p0, LOG, len);
	lackey_finish(p0);
	for (size_t cut = 0; cut <= len; cut++) {
		struct sink k;
		struct lackey_parser *p = new_parser(1, false, 0, &k);

		feed_all(p, LOG, cut);
		feed_all(p, LOG + cut, len - cut);
		CHECK_EQ_U64(lackey_finish(p), 0);
		CHECK_EQ_U64(k.n, k0.n);
		if (k.n == k0.n)
			CHECK(memcmp(k.s, k0.s, k.n * sizeof(*k.s)) == 0);
		CHECK_EQ_U64(p->lines, p0->lines);
		CHECK_EQ_U64(p->messages, p0->messages);
		CHECK_EQ_U64(p->bad_lines, 0);
		CHECK_EQ_U64(p->insns, p0->insns);
		CHECK(strcmp(p->command, p0->command) == 0);
		free(k.s);
		free(p);
	}
	/* and one byte at a time, and in three parts at every pair of cuts */
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	for (size_t i = 0; i < len; i++)
		feed_all(p, LOG + i, 1);
	CHECK_EQ_U64(lackey_finish(p), 0);
	CHECK_EQ_U64(k.n, k0.n);
	if (k.n == k0.n)
		CHECK(memcmp(k.s, k0.s, k.n * sizeof(*k.s)) == 0);
	free(k.s);
	free(p);
	for (size_t a = 0; a <= len; a += 3)
		for (size_t b = a; b <= len; b += 5) {
			p = new_parser(1, false, 0, &k);
			feed_all(p, LOG, a);
			feed_all(p, LOG + a, b - a);
			feed_all(p, LOG + b, len - b);
			lackey_finish(p);
			CHECK_EQ_U64(k.n, k0.n);
			if (k.n == k0.n)
				CHECK(memcmp(k.s, k0.s, k.n * sizeof(*k.s)) == 0);
			free(k.s);
			free(p);
		}
	free(k0.s);
	free(p0);
}

/* Malformed input split anywhere: same counts as in one piece. */
TEST(lackey_split_malformed)
{
	static const char log[] = "I  1,1\n L 2,\nxyz\n L 3,1\n==9== Command: a b\n S 4,2\nI  5";
	size_t len = sizeof(log) - 1;
	struct sink k0;
	struct lackey_parser *p0 = new_parser(1, false, 0, &k0);

	feed_all(p0, log, len);
	CHECK_EQ_U64(lackey_finish(p0), 4);
	CHECK_EQ_U64(p0->bad_lines, 2);
	CHECK_EQ_U64(k0.n, 2);
	CHECK_EQ_U64(p0->log_pid, 9);
	CHECK(strcmp(p0->command, "a b") == 0);
	if (k0.n == 2) {	/* samples before the pid line carry pid 0 */
		CHECK_EQ_U64(k0.s[0].pid, 0);
		CHECK_EQ_U64(k0.s[1].pid, 9);
	}
	for (size_t cut = 0; cut <= len; cut++) {
		struct sink k;
		struct lackey_parser *p = new_parser(1, false, 0, &k);

		feed_all(p, log, cut);
		feed_all(p, log + cut, len - cut);
		CHECK_EQ_U64(lackey_finish(p), 4);
		CHECK_EQ_U64(p->bad_lines, 2);
		CHECK_EQ_U64(p->first_bad_line, p0->first_bad_line);
		CHECK(strcmp(p->first_bad, p0->first_bad) == 0);
		CHECK_EQ_U64(k.n, 2);
		if (k.n == 2)
			CHECK(memcmp(k.s, k0.s, 2 * sizeof(*k.s)) == 0);
		free(k.s);
		free(p);
	}
	free(k0.s);
	free(p0);
}

TEST(lackey_overlong_line)
{
	static char log[4096];
	size_t len = 0;

	len += (size_t)sprintf(log, "I  10,1\n");
	memset(log + len, 'x', 2000);
	len += 2000;
	log[len++] = '\n';
	len += (size_t)sprintf(log + len, " L 20,4\n==5== ");
	memset(log + len, 'y', 1000);
	len += 1000;
	log[len++] = '\n';
	len += (size_t)sprintf(log + len, " S 30,4\n");
	for (size_t cut = 0; cut <= len; cut += 7) {
		struct sink k;
		struct lackey_parser *p = new_parser(1, false, 0, &k);

		feed_all(p, log, cut);
		feed_all(p, log + cut, len - cut);
		CHECK_EQ_U64(lackey_finish(p), 0);
		CHECK_EQ_U64(p->bad_lines, 1);
		CHECK_EQ_U64(p->messages, 1);
		CHECK_EQ_U64(p->lines, 5);
		CHECK_EQ_U64(k.n, 2);
		if (k.n == 2) {
			check_sample(&k.s[0], 1, 0x20, 0x10, 2, 0);
			check_sample(&k.s[1], 1, 0x30, 0x10, 4, 5);
		}
		free(k.s);
		free(p);
	}
	/* an unterminated over-long tail: its full length is reported */
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, log + 8, 1000);
	feed_all(p, log + 8, 1000);
	CHECK_EQ_U64(lackey_finish(p), 2000);
	free(k.s);
	free(p);
}

/* More samples than one batch: emitted in order over several calls. */
TEST(lackey_batches_in_order)
{
	size_t n = 3 * LACKEY_BATCH + 17, len = 0;
	char *log = malloc(n * 24 + 16);
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(log + len, "I  %zx,1\n S %zx,8\n", i, 8 * i);
	feed_all(p, log, len);
	lackey_finish(p);
	CHECK_EQ_U64(k.n, n);
	CHECK(k.calls >= 4);
	for (size_t i = 0; i < k.n; i++) {
		CHECK_EQ_U64(k.s[i].time, i + 1);
		CHECK_EQ_U64(k.s[i].addr, 8 * i);
		CHECK_EQ_U64(k.s[i].ip, i);
	}
	free(k.s);
	free(p);
	free(log);
}

TEST(lackey_emit_stop)
{
	size_t n = 3 * LACKEY_BATCH, len = 0;
	char *log = malloc(n * 24 + 16);
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(log + len, "I  %zx,1\n S %zx,8\n", i, 8 * i);
	k.stop_after = 1;
	CHECK_EQ_U64(lackey_feed(p, log, len), -1);
	CHECK_EQ_U64(k.calls, 1);
	CHECK_EQ_U64(k.n, LACKEY_BATCH);
	free(k.s);
	free(p);
	free(log);
}

/* A forked child's lines in the same stream: noticed, pid stays the first. */
TEST(lackey_other_pid)
{
	static const char log[] = "==10== Command: a\nI  1,1\n L 2,2\n==11== child\n"
				  " S 3,3\n==10== x\n==12== y\n";
	struct sink k;
	struct lackey_parser *p = new_parser(1, false, 0, &k);

	feed_all(p, log, sizeof(log) - 1);
	lackey_finish(p);
	CHECK_EQ_U64(p->log_pid, 10);
	CHECK_EQ_U64(p->other_pid, 11);
	CHECK_EQ_U64(k.n, 2);
	for (size_t i = 0; i < k.n; i++)
		CHECK_EQ_U64(k.s[i].pid, 10);
	free(k.s);
	free(p);
}

TEST(lackey_looks_valid)
{
	static const char bin[] = "\x7f" "ELF\x02\x01\x01\0\0\0\n\x01\x02\n";
	static const char text[] = "hello\nworld\nthis is not a log\n";

	CHECK(lackey_looks_valid(LOG, sizeof(LOG) - 1));
	CHECK(lackey_looks_valid("I  10,1\n", 8));
	CHECK(!lackey_looks_valid("I  10,1", 7));	/* no complete line */
	CHECK(!lackey_looks_valid("", 0));
	CHECK(!lackey_looks_valid(text, sizeof(text) - 1));
	CHECK(!lackey_looks_valid(bin, sizeof(bin) - 1));
	CHECK(!lackey_looks_valid("\n\n\n", 3));
	CHECK(!lackey_looks_valid("a\nb\nI  1,1\n", 10));	/* 2 bad > 1 good */
	CHECK(lackey_looks_valid("a\nI  1,1\n L 2,2\n", 16));
}

int main(void)
{
	return test_main();
}
