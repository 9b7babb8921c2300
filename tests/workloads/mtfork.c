/*
 * mtfork - known page touches from several threads and a forked child.
 *
 *   mtfork [-b BEFORE] [-a AFTER] [-k PAGES] [-f] [-w]
 *
 * BEFORE threads exist before the go signal (-w waits for SIGUSR1 after
 * they started), AFTER threads are created after it, and -f forks a child
 * process after it.  Every worker maps its own region of PAGES pages
 * (MADV_NOHUGEPAGE) and writes one byte to each page once, in ascending
 * order; the child is forked after the threads finished.  After touching, each worker prints one line:
 *   "worker=I kind=thread|child pid=P tid=T base=0x... pages=K"
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static long pages = 64, page_size;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t start_cond = PTHREAD_COND_INITIALIZER;
static int started;
/*
 * No thread exits before every thread has mapped and touched its region:
 * glibc frees an exited thread's stack (munmap once its stack cache is
 * full), and a later worker's mmap could then take those addresses, where
 * the exited thread's own stack faults were recorded before.
 */
static pthread_barrier_t all_touched;
static void work(long id, const char *kind)
{
	size_t len = (size_t)(pages * page_size);
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED) {
		fprintf(stderr, "mtfork: mmap: %s\n", strerror(errno));
		exit(1);
	}
	madvise(region, len, MADV_NOHUGEPAGE);
	for (long p = 0; p < pages; p++)
		((volatile char *)region)[p * page_size] = 1;
	char line[160];
	int n = snprintf(line, sizeof(line), "worker=%ld kind=%s pid=%d tid=%ld base=%p pages=%ld\n",
			 id, kind, (int)getpid(), (long)syscall(SYS_gettid), (void *)region, pages);
	/* one unbuffered write: no stdio buffer for fork() to duplicate */
	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		exit(1);
}

static void *thread_main(void *arg)
{
	long id = (long)arg;

	pthread_mutex_lock(&start_lock);
	while (!started)
		pthread_cond_wait(&start_cond, &start_lock);
	pthread_mutex_unlock(&start_lock);
	work(id, "thread");
	pthread_barrier_wait(&all_touched);
	return NULL;
}

int main(int argc, char **argv)
{
	long before = 2, after = 2;
	int do_fork = 0, wait_go = 0, opt;

	while ((opt = getopt(argc, argv, "b:a:k:fw")) != -1) {
		switch (opt) {
		case 'b': before = atol(optarg); break;
		case 'a': after = atol(optarg); break;
		case 'k': pages = atol(optarg); break;
		case 'f': do_fork = 1; break;
		case 'w': wait_go = 1; break;
		default:
			fprintf(stderr, "usage: mtfork [-b BEFORE] [-a AFTER] [-k PAGES] [-f] [-w]\n");
			return 2;
		}
	}
	if (before < 0 || after < 0 || before + after > 64 || pages < 1) {
		fprintf(stderr, "mtfork: 0..64 threads in all, PAGES >= 1\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);

	sigset_t old;
	wl_go_prepare(&old);

	pthread_t th[64];
	long n = 0;

	if (before + after > 0)
		pthread_barrier_init(&all_touched, NULL, (unsigned)(before + after));
	for (; n < before; n++)
		pthread_create(&th[n], NULL, thread_main, (void *)(n + 1));
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	wl_go_wait(wait_go, &old);

	pthread_mutex_lock(&start_lock);
	started = 1;
	pthread_cond_broadcast(&start_cond);
	pthread_mutex_unlock(&start_lock);
	for (; n < before + after; n++)
		pthread_create(&th[n], NULL, thread_main, (void *)(n + 1));

	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	/* fork only after the threads are done: a fork while a thread writes
	 * would make its next writes copy-on-write faults (seen twice) */
	pid_t child = -1;
	if (do_fork) {
		child = fork();
		if (child == 0) {
			work(0, "child");
			_exit(0);
		}
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
