/*
 * dbquery.c - a small column-store query, the bundled demo workload.
 *
 * Shaped after the DuckDB query of the PEBS tracing paper (002, section 4.1)
 * plus a hash join with a skewed key, so that a time x address heatmap shows
 * distinct phases:
 *
 *   1 load         write the columns of ORDERS and CUSTOMER sequentially
 *   2 scan+filter  WHERE o_orderstatus = 'O': read the status column
 *                  sequentially, append matching row numbers to a position list
 *   3 sort         ORDER BY o_totalprice: quicksort the position list,
 *                  comparing through the price column (price[pos]): the list
 *                  is walked from both ends, the column is read at random
 *   4 materialize  read the sorted list sequentially, gather price and custkey
 *   5 hash join    build a hash table on CUSTOMER(c_custkey), probe it with the
 *                  result's custkeys; the keys are skewed (a few customers own
 *                  most orders), so a few hash-table lines are hot
 *   6 aggregate    SUM(price) GROUP BY nation into a tiny array
 *
 * Every column lives in its own mapping, a memfd named after the column, so
 * /proc/PID/maps (and the analysis labels) say "memfd:orders.o_totalprice".
 *
 * usage: dbquery [ROWS] [--clustered]
 *   ROWS         orders rows (default 200000); customers = ROWS / 8
 *   --clustered  store ORDERS sorted by status ('O' rows first) and scan only
 *                that partition: the "partitioned" run of an A/B comparison
 *
 * Static, no dependencies beyond libc; deterministic (fixed seed).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "workload.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd32(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/*
 * One mapping per column.  A memfd gives it a name on every kernel
 * ("/memfd:orders.o_totalprice (deleted)" in /proc/PID/maps); without
 * memfd, an anonymous mapping named with PR_SET_VMA_ANON_NAME where the
 * kernel has CONFIG_ANON_VMA_NAME.
 */
static void *column(const char *name, size_t bytes)
{
	size_t len = (bytes + 4095) & ~(size_t)4095;
	void *p = MAP_FAILED;
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd >= 0 && ftruncate(fd, (off_t)len) == 0)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("dbquery: mmap");
			exit(1);
		}
		(void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)p, len, (unsigned long)name);
	}
	return p;
}

struct orders {
	double *price;
	char *status;
	uint32_t *custkey;
};

static const double *sort_key;

static void quicksort(uint32_t *a, long lo, long hi)
{
	while (lo < hi) {
		double pivot = sort_key[a[lo + (hi - lo) / 2]];
		long i = lo, j = hi;

		while (i <= j) {
			while (sort_key[a[i]] < pivot)
				i++;
			while (sort_key[a[j]] > pivot)
				j--;
			if (i <= j) {
				uint32_t t = a[i];

				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		/* recurse into the smaller part, loop on the larger */
		if (j - lo < hi - i) {
			quicksort(a, lo, j);
			lo = i;
		} else {
			quicksort(a, i, hi);
			hi = j;
		}
	}
}

struct customers {
	uint32_t *custkey;
	uint8_t *nation;
	long n;
};

/* 1 load: ORDERS (custkeys skewed), then CUSTOMER; returns the open orders. */
static long load(struct orders *o, struct customers *c, long rows, int clustered)
{
	long n_open = 0;

	o->price = column("orders.o_totalprice", rows * sizeof(double));
	o->status = column("orders.o_orderstatus", rows);
	o->custkey = column("orders.o_custkey", rows * sizeof(uint32_t));
	c->n = rows / 8 > 0 ? rows / 8 : 1;
	c->custkey = column("customer.c_custkey", c->n * sizeof(uint32_t));
	c->nation = column("customer.c_nation", c->n);
	for (long r = 0; r < rows; r++) {
		int open = clustered ? r < rows / 2 : (rnd32() & 1);
		uint64_t u = rnd32();

		o->price[r] = 1000.0 + (double)(rnd32() % 50000000) / 100.0;
		o->status[r] = open ? 'O' : 'F';
		/* skew: u^3 puts most orders on a few customers */
		o->custkey[r] = (uint32_t)((((u * u) >> 32) * u >> 32) * (uint64_t)c->n >> 32);
		n_open += open;
	}
	for (long k = 0; k < c->n; k++) {
		c->custkey[k] = (uint32_t)k;
		c->nation[k] = (uint8_t)(rnd32() % 25);
	}
	return n_open;
}

/* 2 scan + filter: row numbers of the open orders among the first scan_end. */
static long scan(const struct orders *o, long scan_end, uint32_t *pos)
{
	long npos = 0;

	for (long r = 0; r < scan_end; r++)
		if (o->status[r] == 'O')
			pos[npos++] = (uint32_t)r;
	return npos;
}

static uint64_t slot_of(uint32_t key, long slots)
{
	return ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20 & (uint64_t)(slots - 1);
}

/* 5 hash join RESULT x CUSTOMER on custkey, 6 SUM(price) GROUP BY nation;
 * returns the probes that found no customer. */
static long join_sum(const struct customers *c, const uint32_t *res_cust,
		     const double *res_price, long npos, double *total)
{
	long slots = 1, misses = 0;
	double by_nation[25] = { 0 };

	while (slots < 2 * c->n)
		slots <<= 1;
	struct slot { uint32_t key, nation; } *ht = column("join.hashtable", slots * sizeof(struct slot));

	for (long s = 0; s < slots; s++)
		ht[s].key = UINT32_MAX;
	for (long k = 0; k < c->n; k++) {
		uint64_t h = slot_of(c->custkey[k], slots);

		while (ht[h].key != UINT32_MAX)
			h = (h + 1) & (uint64_t)(slots - 1);
		ht[h].key = c->custkey[k];
		ht[h].nation = c->nation[k];
	}
	for (long i = 0; i < npos; i++) {
		uint64_t h = slot_of(res_cust[i], slots);

		while (ht[h].key != res_cust[i] && ht[h].key != UINT32_MAX)
			h = (h + 1) & (uint64_t)(slots - 1);
		if (ht[h].key == UINT32_MAX) {
			misses++;
			continue;
		}
		by_nation[ht[h].nation] += res_price[i];
	}
	*total = 0;
	for (int n = 0; n < 25; n++)
		*total += by_nation[n];
	return misses;
}

int main(int argc, char **argv)
{
	long rows = 200000;
	int clustered = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--clustered"))
			clustered = 1;
		else if (atol(argv[i]) > 0)
			rows = atol(argv[i]);
		else {
			fprintf(stderr, "usage: dbquery [ROWS] [--clustered]\n");
			return 2;
		}
	}
	uint64_t t0 = wl_now_ns();
	struct orders o;
	struct customers c;
	long n_open = load(&o, &c, rows, clustered);

	/* the clustered table is pruned to its 'O' partition */
	uint32_t *pos = column("query.positions", rows * sizeof(uint32_t));
	long npos = scan(&o, clustered ? n_open : rows, pos);

	/* 3 sort the position list by price, reading the column indirectly */
	sort_key = o.price;
	if (npos > 1)
		quicksort(pos, 0, npos - 1);

	/* 4 materialize */
	double *res_price = column("result.price", npos * sizeof(double) + 8);
	uint32_t *res_cust = column("result.custkey", npos * sizeof(uint32_t) + 4);

	for (long i = 0; i < npos; i++) {
		res_price[i] = o.price[pos[i]];
		res_cust[i] = o.custkey[pos[i]];
	}

	double total;
	long misses = join_sum(&c, res_cust, res_price, npos, &total);

	for (long i = 1; i < npos; i++)
		if (res_price[i - 1] > res_price[i]) {
			fprintf(stderr, "dbquery: result not sorted at %ld\n", i);
			return 1;
		}
	printf("dbquery: %ld rows (%s), %ld open orders, join misses %ld, sum %.2f, %.1f ms\n",
	       rows, clustered ? "clustered" : "unclustered", npos, misses, total,
	       (double)(wl_now_ns() - t0) / 1e6);
	return misses != 0;
}
