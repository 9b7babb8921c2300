/* mtkcov.h - which code sites of memtrace.ko a thread's system calls
 * reached, through KCOV (/sys/kernel/debug/kcov: kernels built with
 * CONFIG_KCOV, tests/kernel/build-debug-kernel.sh; the module built against
 * such a kernel is instrumented too).  Every thread traces its own calls; the
 * sites inside the module's address range (/proc/modules) go into one shared
 * bitmap.  Without KCOV every function here does nothing.  Header-only.
 */
#ifndef MEMTRACE_MTKCOV_H
#define MEMTRACE_MTKCOV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <linux/kcov.h>

#define MTKCOV_PATH	"/sys/kernel/debug/kcov"
#define MTKCOV_WORDS	(1UL << 20)	/* PCs one call may record */

static uint64_t mtkcov_lo, mtkcov_hi;	/* memtrace.ko's core layout */
static unsigned char *mtkcov_seen;	/* a bit per byte of it */

struct mtkcov {
	int fd;
	unsigned long *area;
};

/* 1 when KCOV and the module's address range are there, else 0 */
static inline int mtkcov_init(void)
{
	FILE *f = fopen("/proc/modules", "r");
	char name[64];
	unsigned long size, base;

	if (!f || access(MTKCOV_PATH, R_OK | W_OK)) {
		if (f)
			fclose(f);
		return 0;
	}
	while (fscanf(f, "%63s %lu %*s %*s %*s %lx%*[^\n]", name, &size, &base) == 3) {
		if (!strcmp(name, "memtrace") && base) {
			mtkcov_lo = base;
			mtkcov_hi = base + size;
		}
	}
	fclose(f);
	if (!mtkcov_hi)
		return 0;
	mtkcov_seen = calloc((mtkcov_hi - mtkcov_lo) / 8 + 1, 1);
	return mtkcov_seen != NULL;
}

static inline void mtkcov_thread_start(struct mtkcov *k)
{
	k->fd = -1;
	k->area = NULL;
	if (!mtkcov_seen)
		return;
	k->fd = open(MTKCOV_PATH, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return;
	if (ioctl(k->fd, KCOV_INIT_TRACE, MTKCOV_WORDS) == 0) {
		k->area = mmap(NULL, MTKCOV_WORDS * sizeof(unsigned long),
			       PROT_READ | PROT_WRITE, MAP_SHARED, k->fd, 0);
		if (k->area == MAP_FAILED)
			k->area = NULL;
	}
	if (!k->area || ioctl(k->fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		if (k->area)
			munmap(k->area, MTKCOV_WORDS * sizeof(unsigned long));
		close(k->fd);
		k->fd = -1;
		k->area = NULL;
		return;
	}
	__atomic_store_n(&k->area[0], 0, __ATOMIC_RELAXED);
}

/* Notes the module's sites the calls since the last collect reached. */
static inline void mtkcov_collect(struct mtkcov *k)
{
	unsigned long n;

	if (!k->area)
		return;
	n = __atomic_load_n(&k->area[0], __ATOMIC_RELAXED);
	if (n > MTKCOV_WORDS - 1)
		n = MTKCOV_WORDS - 1;
	for (unsigned long i = 1; i <= n; i++) {
		uint64_t pc = k->area[i];

		if (pc >= mtkcov_lo && pc < mtkcov_hi) {
			uint64_t off = pc - mtkcov_lo;

			__atomic_fetch_or(&mtkcov_seen[off / 8],
					  (unsigned char)(1u << (off % 8)),
					  __ATOMIC_RELAXED);
		}
	}
	__atomic_store_n(&k->area[0], 0, __ATOMIC_RELAXED);
}

static inline void mtkcov_thread_stop(struct mtkcov *k)
{
	if (!k->area)
		return;
	mtkcov_collect(k);
	ioctl(k->fd, KCOV_DISABLE, 0);
	munmap(k->area, MTKCOV_WORDS * sizeof(unsigned long));
	close(k->fd);
	k->area = NULL;
}

/* distinct module sites reached so far; -1 without KCOV */
static inline long mtkcov_sites(void)
{
	long n = 0;

	if (!mtkcov_seen)
		return -1;
	for (uint64_t i = 0; i <= (mtkcov_hi - mtkcov_lo) / 8; i++)
		n += __builtin_popcount(mtkcov_seen[i]);
	return n;
}

#endif
