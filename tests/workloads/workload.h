/* workload.h - small helpers shared by the test workloads. */
#ifndef MEMTRACE_WORKLOAD_H
#define MEMTRACE_WORKLOAD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The go signal: a workload started with -w prints where it works, then
 * waits for SIGUSR1 so that a recorder can attach first.
 */
static volatile sig_atomic_t wl_go;

static void wl_on_usr1(int sig)
{
	(void)sig;
	wl_go = 1;
}

/*
 * Faults in 256 KiB of stack below the caller, so that signal frames and
 * deeper calls after the go signal touch no new stack page: the workload's
 * only page faults are then the ones it is known to make.
 */
static __attribute__((noinline)) void wl_prefault_stack(void)
{
	volatile char pad[256 * 1024];

	for (unsigned i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 0;
	pad[sizeof(pad) - 1] = 0;
}

/*
 * Maps every page of the program's file-backed mappings (text, rodata,
 * data) and of the vdso, so that code run for the first time after the go
 * signal (nanosleep, exit paths) makes no instruction-fetch fault: text
 * is faulted in lazily, 64 KiB around each first touch, so such a fault
 * otherwise lands in the recording at random.  Anonymous mappings, the
 * workload's own regions among them, are left alone.  Errors (kernels
 * before 5.14 lack MADV_POPULATE_*) only cost that determinism.
 */
static inline void wl_prefault_mappings(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end;
		char perms[8];
		int name_at = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
			   perms, &name_at) < 3 || !name_at)
			continue;
		const char *name = line + name_at;
		int file = name[0] == '/', vdso = !strncmp(name, "[vdso]", 6);

		if (!file && !vdso)
			continue;
		if (perms[0] != 'r')
			continue;
		madvise((void *)start, end - start,
			perms[1] == 'w' && perms[3] == 'p' ? MADV_POPULATE_WRITE
							  : MADV_POPULATE_READ);
	}
	fclose(maps);
}

/* Installs the handler and blocks SIGUSR1; *old gets the previous mask. */
static inline void wl_go_prepare(sigset_t *old)
{
	struct sigaction sa = { .sa_handler = wl_on_usr1 };
	sigset_t block;

	wl_prefault_stack();
	wl_prefault_mappings();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, old);
}

/* Waits for SIGUSR1 when wait is set, then restores the old mask. */
static inline void wl_go_wait(int wait, const sigset_t *old)
{
	while (wait && !wl_go)
		sigsuspend(old);
	sigprocmask(SIG_SETMASK, old, NULL);
}

#endif
