/* mtk_child.h - target processes for the guest tests: forked stopped on a
 * pipe, released once the session runs.  The page-touching target reports
 * every thread's tid and region base through a shared mapping so the test
 * knows exactly which (address, tid) samples must appear.
 */
#ifndef MEMTRACE_MTK_CHILD_H
#define MEMTRACE_MTK_CHILD_H

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "mtlib.h"

#define PG 4096UL
#define MTK_THREADS 3
#define MTK_REGIONS (MTK_THREADS + 1)	/* + the forked child */

struct mtk_report {
	int npages;
	int nregions;
	pid_t pid[MTK_REGIONS];
	pid_t tid[MTK_REGIONS];
	uint64_t base[MTK_REGIONS];
	volatile int ready;
};

/* The address a region's page i is first touched at. */
static inline uint64_t mtk_touch_addr(uint64_t base, int i)
{
	return base + (uint64_t)i * PG + (uint64_t)(i % 64) * 8;
}

static inline void mtk_alloc_region(struct mtk_report *rep, int slot)
{
	size_t len = (size_t)rep->npages * PG;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(90);
	madvise(p, len, MADV_NOHUGEPAGE);
	rep->base[slot] = (uint64_t)(uintptr_t)p;
}

static inline void mtk_touch(struct mtk_report *rep, int slot)
{
	rep->pid[slot] = getpid();
	rep->tid[slot] = (pid_t)syscall(SYS_gettid);
	for (int i = 0; i < rep->npages; i++)
		*(volatile unsigned char *)(uintptr_t)mtk_touch_addr(rep->base[slot], i) = 1;
}

static inline void mtk_touch_region(struct mtk_report *rep, int slot)
{
	mtk_alloc_region(rep, slot);
	mtk_touch(rep, slot);
}

struct mtk_thread_arg {
	struct mtk_report *rep;
	int slot;
	pthread_barrier_t *go;
};

static inline void *mtk_thread(void *a)
{
	struct mtk_thread_arg *ta = a;

	pthread_barrier_wait(ta->go);
	mtk_touch(ta->rep, ta->slot);
	return NULL;
}

/*
 * Threads 0..nthreads-1 touch their regions, then a forked child does.  All
 * regions are mapped and all threads exist before any page is touched, so
 * no fault races with a change of the address space (no retried faults).
 */
static inline void mtk_pages_main(struct mtk_report *rep, int nthreads)
{
	pthread_t th[MTK_THREADS];
	struct mtk_thread_arg ta[MTK_THREADS];
	pthread_barrier_t go;
	pid_t c;
	int st;

	for (int i = 0; i <= nthreads; i++)
		mtk_alloc_region(rep, i);
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		ta[i].rep = rep;
		ta[i].slot = i;
		ta[i].go = &go;
		if (pthread_create(&th[i], NULL, mtk_thread, &ta[i]))
			_exit(91);
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	c = fork();
	if (c == 0) {
		mtk_touch(rep, nthreads);
		_exit(0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || st != 0)
		_exit(92);
	rep->nregions = nthreads + 1;
	_exit(0);
}

/*
 * Forks a child that waits for a byte on *release_fd, then runs fn(arg).
 * Returns the child's pid.
 */
static inline pid_t mtk_spawn(void (*fn)(void *), void *arg, int *release_fd)
{
	int p[2], ready[2];
	pid_t c;
	char b = 0;

	*release_fd = -1;
	if (pipe(p) || pipe(ready))
		return -1;
	c = fork();
	if (c == 0) {
		close(p[1]);
		close(ready[0]);
		/* say so right before blocking: counters attached after this
		 * see nothing of the fork's own page faults */
		if (write(ready[1], &b, 1) != 1 || read(p[0], &b, 1) != 1)
			_exit(93);
		close(p[0]);
		close(ready[1]);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1)
		perror("spawn");
	close(ready[0]);
	usleep(20000);	/* let it block in read() */
	*release_fd = p[1];
	return c;
}

static inline void mtk_release(int fd)
{
	char b = 1;

	if (write(fd, &b, 1) != 1)
		perror("release");
	close(fd);
}

#endif
