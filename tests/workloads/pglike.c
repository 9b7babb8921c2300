/*
 * pglike - a PostgreSQL-like process tree for the accessed-bit source: a
 * parent maps a MAP_SHARED|MAP_ANONYMOUS segment ("shared buffers"), writes
 * every page of it, and forks single-threaded children ("backends").  Each
 * child maps its own private pages, writes them all, then re-reads a known
 * hot subset every 100 ms until the end: every 4th page of the shared
 * segment (the same pages in every child) and the first HOT of its private
 * pages.  The other pages are never touched again after the start.  The
 * parent re-reads a 2 MiB-aligned private region (MADV_HUGEPAGE: a THP
 * where the kernel gives one) every 100 ms.
 *
 *   pglike [-s SHARED] [-n CHILDREN] [-q HOT] [-Q COLD] [-t SECONDS] [-c] [-b]
 *
 * -b (busy): the children re-read their hot pages without a pause, so a
 * child alone on a CPU keeps its translations in the TLB (no context
 * switch flushes them): what a scan that clears accessed bits without a
 * TLB flush cannot see.
 * In busy mode each child prints "rounds pid=P n=R" as it exits: the rounds
 * over its hot pages it completed (the throughput a monitor's cost takes
 * away: bench/kernel/compare.sh).
 * -c (churn): each child also, every 20 ms, maps and unmaps a private
 * region and forks a grandchild that touches a region and exits at once:
 * processes exiting, forking and unmapping while a pass scans them.  One
 * grandchild in five stays 300 ms before it exits (longer than a slow
 * guest's pass), so a scan finds grandchildren whatever its timing.
 *
 * Prints (the oracle), once every child is set up and its cold pages are
 * written, then "ready":
 *   shared start=0x... pages=N hot_every=4
 *   private pid=P start=0x... hot=H cold=C       (one per child)
 *   thp pid=P start=0x... pages=512
 *   ready
 * and exits after SECONDS (default 8) from "ready", children first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#define PAGE		4096ul
#define HOT_EVERY	4
#define MAX_CHILDREN	64
#define THP_SIZE	(2ul << 20)

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *map_private(size_t bytes, int advice)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("pglike: mmap");
		exit(1);
	}
	madvise(p, bytes, advice);
	return p;
}

static void write_all(volatile char *p, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = (char)(i + 1);
}

/* a grandchild that touches a fresh region and exits (after linger_ms) */
static void churn(unsigned linger_ms)
{
	size_t pages = 32;
	volatile char *p = map_private(pages * PAGE, MADV_NOHUGEPAGE);
	pid_t g;

	write_all(p, pages);
	munmap((void *)(p + 8 * PAGE), 8 * PAGE);	/* a hole mid-region */
	munmap((void *)p, pages * PAGE);
	g = fork();
	if (g == 0) {
		volatile char *q = map_private(pages * PAGE, MADV_NOHUGEPAGE);

		write_all(q, pages);
		if (linger_ms)
			sleep_ms(linger_ms);
		_exit(0);
	}
	if (g > 0)
		waitpid(g, NULL, 0);
}

static void child(int out, volatile char *shared, size_t spages, size_t hot, size_t cold,
		  int do_churn, int busy)
{
	volatile char *priv = map_private((hot + cold) * PAGE, MADV_NOHUGEPAGE);
	unsigned long sum = 0, rounds = 0;
	char line[160];
	int len;

	write_all(priv, hot + cold);
	len = snprintf(line, sizeof(line), "private pid=%d start=%#lx hot=%zu cold=%zu\n",
		       (int)getpid(), (unsigned long)priv, hot, cold);
	if (write(out, line, (size_t)len) != len)
		_exit(1);
	close(out);
	while (!stop) {
		for (size_t i = 0; i < spages; i += HOT_EVERY)
			sum += (unsigned char)shared[i * PAGE];
		for (size_t i = 0; i < hot; i++)
			sum += (unsigned char)priv[i * PAGE];
		if (do_churn) {
			for (int k = 0; k < 5 && !stop; k++) {
				churn(k == 4 ? 300 : 0);
				sleep_ms(20);
			}
		} else if (!busy) {
			sleep_ms(100);
		}
		rounds++;
	}
	if (busy) {
		len = snprintf(line, sizeof(line), "rounds pid=%d n=%lu\n", (int)getpid(), rounds);
		if (write(1, line, (size_t)len) != len)
			_exit(1);
	}
	_exit(sum == 1 ? 3 : 0);	/* sum used: the reads stay */
}

int main(int argc, char **argv)
{
	size_t spages = 4096, hot = 64, cold = 192;
	int n = 3, secs = 8, do_churn = 0, busy = 0, opt, fds[2];
	pid_t kids[MAX_CHILDREN];
	volatile char *shared, *thp;
	char buf[4096];
	unsigned long sum = 0;
	uint64_t end;
	ssize_t got;

	while ((opt = getopt(argc, argv, "s:n:q:Q:t:cb")) != -1) {
		switch (opt) {
		case 's': spages = strtoul(optarg, NULL, 0); break;
		case 'n': n = atoi(optarg); break;
		case 'q': hot = strtoul(optarg, NULL, 0); break;
		case 'Q': cold = strtoul(optarg, NULL, 0); break;
		case 't': secs = atoi(optarg); break;
		case 'c': do_churn = 1; break;
		case 'b': busy = 1; break;
		default:
			fprintf(stderr, "usage: pglike [-s SHARED] [-n CHILDREN] [-q HOT] [-Q COLD] "
				"[-t SECONDS] [-c] [-b]\n");
			return 2;
		}
	}
	if (n < 1 || n > MAX_CHILDREN || !spages || !hot || secs < 1) {
		fprintf(stderr, "pglike: bad arguments\n");
		return 2;
	}
	signal(SIGTERM, on_term);
	shared = mmap(NULL, spages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("pglike: mmap shared");
		return 1;
	}
	write_all(shared, spages);
	/* 2 MiB aligned, so that a THP can map it */
	thp = map_private(2 * THP_SIZE, MADV_NOHUGEPAGE);
	thp = (volatile char *)(((unsigned long)thp + THP_SIZE - 1) & ~(THP_SIZE - 1));
	madvise((void *)thp, THP_SIZE, MADV_HUGEPAGE);
	write_all(thp, THP_SIZE / PAGE);
	if (pipe(fds)) {
		perror("pglike: pipe");
		return 1;
	}
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("pglike: fork");
			return 1;
		}
		if (kids[i] == 0) {
			close(fds[0]);
			child(fds[1], shared, spages, hot, cold, do_churn, busy);
		}
	}
	close(fds[1]);
	printf("shared start=%#lx pages=%zu hot_every=%d\n", (unsigned long)shared, spages,
	       HOT_EVERY);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0)	/* every child's line */
		fwrite(buf, 1, (size_t)got, stdout);
	close(fds[0]);
	printf("thp pid=%d start=%#lx pages=%lu\nready\n", (int)getpid(), (unsigned long)thp,
	       THP_SIZE / PAGE);
	fflush(stdout);
	end = wl_now_ns() + (uint64_t)secs * 1000000000ull;
	while (!stop && wl_now_ns() < end) {
		for (size_t i = 0; i < THP_SIZE / PAGE; i++)
			sum += (unsigned char)thp[i * PAGE];
		sleep_ms(100);
	}
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGTERM);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	return sum == 1 ? 3 : 0;
}
