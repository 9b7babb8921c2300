/* test_cold.c - engine/cold.c against a brute force written here: at every
 * point t_j, for every bucket, its latest sample at or before t_j looked up
 * in the whole stream, and the definition of cold applied per mode
 * (engine/cold.h): access (t_j - last >= θ), accessed bits (the latest pass
 * at or before t_j minus last >= θ), hint faults (t_j minus the second pass
 * at or after last >= θ); seen = buckets with a sample at or before t_j.
 * Seeded random streams over two processes with their own passes, a blind
 * stretch without passes, scattered bucket numbers and table growth. */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "engine/cold.h"

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct smp { uint64_t b, t; uint32_t pid; };

static int by_pid_time(const void *a, const void *b)
{
	const struct memtrace_pass *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

/* passes of pid (sorted) */
static size_t pid_passes(const struct memtrace_pass *p, size_t n, uint32_t pid, uint64_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			out[k++] = p[i].time;
	return k;
}

static int check(uint64_t seed, int mode, size_t n, uint64_t nb)
{
	const uint64_t origin = 1000, step = 7, span = 4000;
	struct cold_config cfg = { .origin = origin, .step = step, .nthr = 3,
				   .thr = { 15, 100, 400 }, .mode = mode };
	struct smp *s = calloc(n, sizeof(*s));
	struct memtrace_pass pass[400];
	size_t np = 0;
	int bad = 0;

	/* passes: pid 1 every 40, pid 2 every 55, none in [2000, 2600) (blind) */
	for (uint64_t t = origin + 40; t < origin + span && np < 400; t += 40)
		if (t < 2000 || t >= 2600)
			pass[np++] = (struct memtrace_pass){ t, 1, 3 };
	for (uint64_t t = origin + 30; t < origin + span && np < 400; t += 55)
		if (t < 2000 || t >= 2600)
			pass[np++] = (struct memtrace_pass){ t, 2, 3 };
	qsort(pass, np, sizeof(*pass), by_pid_time);
	cfg.passes = pass;
	cfg.npasses = np;
	uint64_t t = origin > 50 ? origin - 50 : 0;	/* a few before the origin */
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng(&seed);
		t += r % 100 < 70 ? 0 : 1 + (r >> 8) % 9;
		if (r % 1000 == 3)
			t += 300;	/* long idle stretches */
		uint64_t b = (r >> 20) % 3 ? (r >> 24) % (nb / 8 + 1) : (r >> 24) % nb;
		s[i] = (struct smp){ b * 0x1003 + 5, t, 1 + (uint32_t)((r >> 40) & 1) };
	}
	uint64_t end = t + 200;
	struct cold c;
	cold_init(&c, &cfg);
	for (size_t i = 0; i < n; i++)
		cold_add(&c, s[i].b, s[i].t, s[i].pid);
	cold_finish(&c, end);
	uint64_t npts = (end - origin + step - 1) / step;
	if (c.npoints != npts || c.too_long || c.reordered) {
		TEST_FAIL("npoints %llu want %llu, too_long %llu", (unsigned long long)c.npoints,
			  (unsigned long long)npts, (unsigned long long)c.too_long);
		return 1;
	}
	uint64_t *pp = calloc(np + 1, sizeof(uint64_t));
	uint64_t *last = calloc(n, sizeof(uint64_t));
	uint32_t *lpid = calloc(n, sizeof(uint32_t));
	size_t *id = calloc(n, sizeof(size_t)), nd = 0;
	uint64_t *db = calloc(n, sizeof(uint64_t));
	unsigned char *has = calloc(n, 1);
	for (size_t i = 0; i < n; i++) {	/* distinct bucket number of each sample */
		size_t d = 0;
		while (d < nd && db[d] != s[i].b)
			d++;
		if (d == nd)
			db[nd++] = s[i].b;
		id[i] = d;
	}
	uint64_t total_cold = 0;
	for (uint64_t j = 1; j <= npts && !bad; j++) {
		uint64_t tj = origin + j * step, seen = 0, cold[3] = { 0 };
		memset(has, 0, n);
		for (size_t i = 0; i < n && s[i].t <= tj; i++) {	/* the latest at or before tj */
			has[id[i]] = 1;
			last[id[i]] = s[i].t;
			lpid[id[i]] = s[i].pid;
		}
		for (size_t i = 0; i < nd; i++) {
			if (!has[i])
				continue;
			seen++;
			size_t k = pid_passes(pass, np, lpid[i], pp);
			for (int th = 0; th < 3; th++) {
				uint64_t T = cfg.thr[th];
				int is = 0;
				if (mode == COLD_ACCESS) {
					is = tj - last[i] >= T;
				} else if (mode == COLD_PASS_BITS) {
					uint64_t P = 0;
					int any = 0;
					for (size_t q = 0; q < k; q++)
						if (pp[q] <= tj) {
							P = pp[q];
							any = 1;
						}
					is = any && P >= last[i] && P - last[i] >= T;
				} else {
					size_t q = 0;
					while (q < k && pp[q] < last[i])
						q++;
					is = q + 1 < k && tj >= pp[q + 1] && tj - pp[q + 1] >= T;
				}
				cold[th] += (uint64_t)is;
			}
		}
		if (c.seen[j - 1] != seen) {
			TEST_FAIL("mode %d point %llu: seen %llu want %llu", mode, (unsigned long long)j,
				  (unsigned long long)c.seen[j - 1], (unsigned long long)seen);
			bad = 1;
		}
		for (int th = 0; th < 3 && !bad; th++) {
			total_cold += cold[th];
			if (c.cold[th][j - 1] != cold[th]) {
				TEST_FAIL("mode %d point %llu thr %d: cold %llu want %llu", mode,
					  (unsigned long long)j, th, (unsigned long long)c.cold[th][j - 1],
					  (unsigned long long)cold[th]);
				bad = 1;
			}
		}
	}
	if (!bad && !total_cold) {	/* the stream must exercise something */
		TEST_FAIL("mode %d: nothing cold anywhere", mode);
		bad = 1;
	}
	cold_free(&c);
	free(pp);
	free(last);
	free(lpid);
	free(id);
	free(db);
	free(has);
	free(s);
	return bad;
}

TEST(cold_access_brute_force)
{
	if (!check(11, COLD_ACCESS, 1500, 60))
		check(12, COLD_ACCESS, 3000, 3000);	/* table grows */
}

TEST(cold_pass_bits_brute_force)
{
	if (!check(21, COLD_PASS_BITS, 1500, 60))
		check(22, COLD_PASS_BITS, 3000, 3000);
}

TEST(cold_hint_brute_force)
{
	if (!check(31, COLD_HINT, 1500, 60))
		check(32, COLD_HINT, 3000, 3000);
}

/* out of order: counted, no gap reopened; past the cap: too_long */
TEST(cold_reordered_and_too_long)
{
	struct cold_config cfg = { .origin = 0, .step = 10, .nthr = 1, .thr = { 20 } };
	struct cold c;

	cold_init(&c, &cfg);
	cold_add(&c, 1, 100, 1);
	cold_add(&c, 1, 50, 1);
	cold_finish(&c, 200);
	CHECK_EQ_U64(c.reordered, 1);
	CHECK_EQ_U64(c.npoints, 20);
	CHECK_EQ_U64(c.cold[0][10], 0);	/* t = 110: idle 10 */
	CHECK_EQ_U64(c.cold[0][11], 1);	/* t = 120: idle 20 since 100 */
	cold_free(&c);
	cold_init(&c, &cfg);
	cold_add(&c, 1, 100, 1);
	cold_add(&c, 2, 10 * (COLD_MAX_POINTS + 5), 1);
	CHECK(c.too_long != 0);
	cold_free(&c);
}

/* the false-cold scale: one bucket sampled k times over span */
TEST(cold_false_cold_poisson)
{
	struct cold_config cfg = { .origin = 0, .step = 10, .nthr = 1, .thr = { 100 } };
	struct cold c;

	cold_init(&c, &cfg);
	for (uint64_t t = 1; t <= 50; t++)
		cold_add(&c, 7, t * 20, 1);
	CHECK(fabs(cold_false_cold(&c, 100, 1000) - exp(-5.0)) < 1e-12);
	cold_free(&c);
}

int main(void)
{
	return test_main();
}
