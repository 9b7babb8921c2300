/*
 * shmpair - two processes sharing a memfd mapped at different addresses,
 * plus private pages at the same address in both.
 *
 *   shmpair [-k SHARED] [-p PRIVATE] [-w]
 *
 * The parent creates a memfd ("shmpair") of SHARED pages and forks.  Each
 * process then maps it MAP_SHARED at its own fixed address (parent 0x3e0000000000,
 * child 0x3e0010000000) and PRIVATE anonymous pages at 0x3e0020000000 in
 * both (MAP_FIXED_NOREPLACE, MADV_NOHUGEPAGE), waits 300 ms (so that a
 * recorder snapshots the new maps), and writes one byte to every page of
 * both: the parent first, then, on the parent's go through a pipe, the
 * child.  Both stay 300 ms after touching before they exit.
 *
 * With the page-fault source every shared page faults once in each process
 * (each maps it with its own page table entry) and every private page once
 * in its process: as address-space keys, SHARED shared pages with 2 faults
 * each and 2 * PRIVATE private pages with 1 fault each.
 *
 * -w waits for SIGUSR1 before forking, so a recorder can attach first.
 * Prints one line per process:
 *   "role=parent pid=P shared=0x... private=0x... shared_pages=K private_pages=N"
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define SHARED_PARENT 0x3e0000000000ul
#define SHARED_CHILD 0x3e0010000000ul
#define PRIVATE_BOTH 0x3e0020000000ul

static void die(const char *what)
{
	fprintf(stderr, "shmpair: %s: %s\n", what, strerror(errno));
	exit(1);
}

static char *map_at(unsigned long addr, size_t len, int flags, int fd)
{
	char *p = mmap((void *)addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, fd, 0);

	if (p == MAP_FAILED || p != (char *)addr)
		die("mmap at a fixed address");
	if (madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise");
	return p;
}

/* noinline: the faults of the measured pages come from here */
static __attribute__((noinline)) void touch(volatile char *p, long pages, long page)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = (char)(i + 1);
}

static void work(const char *role, int fd, unsigned long shared_at, long k, long np,
		 long page, int wait_fd, int go_fd)
{
	char *sh = map_at(shared_at, (size_t)(k * page), MAP_SHARED, fd);
	char *pr = map_at(PRIVATE_BOTH, (size_t)(np * page), MAP_PRIVATE | MAP_ANONYMOUS, -1);
	char c = 0;

	wl_prefault_stack();
	printf("role=%s pid=%d shared=%p private=%p shared_pages=%ld private_pages=%ld\n", role,
	       (int)getpid(), (void *)sh, (void *)pr, k, np);
	fflush(stdout);
	usleep(300000);
	if (wait_fd >= 0 && read(wait_fd, &c, 1) != 1)
		die("waiting for the go");
	touch(sh, k, page);
	touch(pr, np, page);
	if (go_fd >= 0 && write(go_fd, "g", 1) != 1)
		die("go");
	usleep(300000);
}

int main(int argc, char **argv)
{
	long k = 8, np = 4, page = sysconf(_SC_PAGESIZE);
	int wait_go = 0, opt, go[2];

	while ((opt = getopt(argc, argv, "k:p:w")) != -1) {
		switch (opt) {
		case 'k': k = atol(optarg); break;
		case 'p': np = atol(optarg); break;
		case 'w': wait_go = 1; break;
		default:
			fprintf(stderr, "usage: shmpair [-k SHARED] [-p PRIVATE] [-w]\n");
			return 2;
		}
	}
	if (k < 1 || np < 1 || k > 65536 || np > 65536) {
		fprintf(stderr, "shmpair: -k and -p take 1..65536 pages\n");
		return 2;
	}
	if (wait_go) {
		signal(SIGUSR1, wl_on_usr1);
		printf("waiting pid=%d\n", (int)getpid());
		fflush(stdout);
		while (!wl_go)
			pause();
	}
	int fd = memfd_create("shmpair", 0);
	if (fd < 0 || ftruncate(fd, k * page))
		die("memfd");
	if (pipe(go))
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(go[1]);
		work("child", fd, SHARED_CHILD, k, np, page, go[0], -1);
		_exit(0);
	}
	close(go[0]);
	work("parent", fd, SHARED_PARENT, k, np, page, -1, go[1]);
	int st;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
	return 0;
}
