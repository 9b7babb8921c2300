/* fault_cost.c - the faulting task of bench/bpf/run.sh: maps, touches (one
 * write per page, MADV_NOHUGEPAGE) and unmaps ROUNDS x PAGES pages, then
 * prints its own CPU time, so that a recorder's per-sample cost in the
 * faulting task is this time minus an untraced run's.
 *
 *   fault_cost [PAGES [ROUNDS]]     (default 4096 x 20 = 81920 faults)
 *
 * Prints "faults=N cpu_ns=T".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 4096, rounds = argc > 2 ? atol(argv[2]) : 20;
	struct rusage ru;

	if (pages < 1 || rounds < 1) {
		fprintf(stderr, "usage: fault_cost [PAGES [ROUNDS]]\n");
		return 2;
	}
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
	getrusage(RUSAGE_SELF, &ru);
	printf("faults=%ld cpu_ns=%.0f\n", pages * rounds,
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3);
	return 0;
}
