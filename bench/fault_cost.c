/* fault_cost.c - the faulting task of bench/bpf/run.sh: maps, touches (one
 * write per page, MADV_NOHUGEPAGE) and unmaps ROUNDS x PAGES pages, then
 * prints its own CPU time, so that a recorder's per-sample cost in the
 * faulting task is this time minus an untraced run's.
 *
 *   fault_cost [PAGES [ROUNDS [PROCS]]]   (default 4096 x 20 = 81920 faults, 1 process)
 *
 * PROCS > 1: that many processes fault at once (PAGES x ROUNDS each), on
 * every CPU: what contends for one shared ring.  Prints "faults=N cpu_ns=T"
 * (T: all of them together).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int fault(long pages, long rounds)
{
	for (long r = 0; r < rounds; r++) {
		size_t len = (size_t)pages * 4096;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		madvise(p, len, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < len; i += 4096)
			p[i] = 1;
		munmap(p, len);
	}
	return 0;
}

static double cpu_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 4096, rounds = argc > 2 ? atol(argv[2]) : 20;
	long procs = argc > 3 ? atol(argv[3]) : 1;

	if (pages < 1 || rounds < 1 || procs < 1 || procs > 256) {
		fprintf(stderr, "usage: fault_cost [PAGES [ROUNDS [PROCS]]]\n");
		return 2;
	}
	if (procs == 1 && fault(pages, rounds))
		return 1;
	for (long i = 0; procs > 1 && i < procs; i++)
		if (fork() == 0)
			_exit(fault(pages, rounds));
	for (int st; procs > 1 && wait(&st) > 0;)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	printf("faults=%ld cpu_ns=%.0f\n", pages * rounds * procs,
	       cpu_ns(RUSAGE_SELF) + cpu_ns(RUSAGE_CHILDREN));
	return 0;
}
