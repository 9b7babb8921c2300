/* workload.h - small helpers shared by the test workloads. */
#ifndef MEMTRACE_WORKLOAD_H
#define MEMTRACE_WORKLOAD_H

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

/* Parses a hex number at *p, advancing *p past it. */
static inline unsigned long wl_hex(const char **p)
{
	unsigned long v = 0;

	for (;; (*p)++) {
		char c = **p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (unsigned long)(c - 'a' + 10);
		else
			return v;
	}
}

/* Populates one /proc/self/maps line's mapping if it is file or vdso. */
static inline void wl_prefault_line(const char *line)
{
	const char *p = line, *name;
	unsigned long start = wl_hex(&p), end;
	char perms[4];

	if (*p++ != '-')
		return;
	end = wl_hex(&p);
	if (*p++ != ' ')
		return;
	for (int i = 0; i < 4; i++)
		if (!(perms[i] = *p++))
			return;
	name = strchr(p, '/');
	if (!name)
		name = strstr(p, "[vdso]");
	if (!name || perms[0] != 'r')
		return;
	madvise((void *)start, end - start,
		perms[1] == 'w' && perms[3] == 'p' ? MADV_POPULATE_WRITE
						  : MADV_POPULATE_READ);
}

/*
 * Maps every page of the program's file-backed mappings (text, rodata,
 * data) and of the vdso, so that code run for the first time after the go
 * signal (nanosleep, exit paths) makes no instruction-fetch fault: text
 * is faulted in lazily, 64 KiB around each first touch, so such a fault
 * otherwise lands in the recording at random.  Anonymous mappings, the
 * workload's own regions among them, are left alone.  Reads the maps with
 * read(2) into the (pre-faulted) stack, so that no heap or stdio page is
 * touched.  Errors (kernels before 5.14 lack MADV_POPULATE_*) only cost
 * that determinism.
 */
static inline void wl_prefault_mappings(void)
{
	char buf[4096];
	size_t have = 0;
	int fd;

	/* WL_NO_PREFAULT: runs under two valgrind tools compared access by access
	 * (their own mappings differ in /proc/self/maps) */
	if (getenv("WL_NO_PREFAULT"))
		return;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			wl_prefault_line(line);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* an absurdly long line: skip it */
	}
	close(fd);
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
