/* main.c - mtktest, the guest tests of memtrace.ko (run inside the qemu
 * guests by tests/kernel/guest-init.sh).  Usage: mtktest TEST [ARGS]; prints
 * "ok TEST..." or "FAIL TEST: why" lines and exits non-zero on failure.
 *
 *   pages       every page touched by 3 threads and a forked child appears
 *               once with its exact address, pid and tid (2 sessions at once)
 *   overflow    a 16-record ring overflows: read + dropped == perf's count
 *   ioctl       a table of malformed ioctls/mmaps fails with the exact errno
 *   fuzz N      N random configurations fail cleanly or work
 *   perm        no capability: EPERM; CAP_PERFMON only: foreign target EACCES
 *   lifecycle   target exit / close / rmmod in several orders
 *   cpuoff      CPU 1 offline and online during a task and a -a session
 *   targets     process trees (DESCENDANTS), pid lists, their uapi errors
 *   security    perf's rules for the caller, setuid exec, per-user limits
 *   faulttp     the page-fault tracepoint (hint faults): exact records,
 *               drops counted, another tracepoint refused
 *   probe       page faults through the module's tracepoint probe: exact
 *               records = perf's count, period per CPU, forks, non-targets,
 *               system-wide, the perf path with fault_probe=N
 *   pebs TAG    a PEBS event refused with the errno the guest's PMU implies,
 *               page faults still outside the hook (guest-pebs.sh)
 * One file per test in this folder.
 */
#include "mtktest.h"

int failures;

struct mtk_report *shared_report(int npages)
{
	struct mtk_report *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(r, 0, sizeof(*r));
	r->npages = npages;
	return r;
}

int reap(pid_t c)
{
	int st;

	if (waitpid(c, &st, 0) != c)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A target that only waits (perm, lifecycle). */
void sleeper(void *a)
{
	(void)a;
	pause();
}

int main(int argc, char **argv)
{
	const char *t = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(t, "pages"))
		test_pages();
	else if (!strcmp(t, "overflow"))
		test_overflow();
	else if (!strcmp(t, "ioctl"))
		test_ioctl();
	else if (!strcmp(t, "fuzz"))
		test_fuzz(argc > 2 ? atoi(argv[2]) : 3000);
	else if (!strcmp(t, "perm"))
		test_perm();
	else if (!strcmp(t, "lifecycle"))
		test_lifecycle(argc > 2 ? argv[2] : "/memtrace.ko");
	else if (!strcmp(t, "cpuoff"))
		test_cpuoff();
	else if (!strcmp(t, "targets"))
		test_targets();
	else if (!strcmp(t, "security"))
		test_security(argc > 2 ? argv[2] : NULL);
	else if (!strcmp(t, "faulttp"))
		test_faulttp();
	else if (!strcmp(t, "probe"))
		test_probe();
	else if (!strcmp(t, "pebs") && argc > 2)
		test_pebs(argv[2]);
	else {
		fprintf(stderr, "usage: mtktest pages|overflow|ioctl|fuzz [N]|perm|lifecycle [KO]|cpuoff|targets|security|faulttp|probe|pebs TAG\n");
		return 2;
	}
	return failures ? 1 : 0;
}
