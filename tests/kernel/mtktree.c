/* mtktree.c - a process tree for `record --backend module -p ROOT` in the
 * guests (tests/kernel/guest-record.sh).
 *
 *   mtktree [-k PAGES]
 *
 * The root (2 threads: main and one more) forks a child, which forks a
 * grandchild; once all four wait, the root prints "ready pid=ROOT".  On
 * SIGUSR1 to the root every one of them touches its own fresh region
 * (MADV_NOHUGEPAGE), then the root forks a late child that touches its
 * region too.  The root waits for the late child only and exits; the
 * grandchild touches 300 ms after the others, so after the root has gone,
 * and the child waits for it.  Each worker prints, after touching,
 *   "worker=I kind=root|thread|child|grandchild|late pid=P tid=T base=0x... pages=K"
 * (tests/kernel/check-record.sh checks the trace against these lines).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long pages = 64;
static volatile int *shared;	/* [0] ready count, [1] go */

static void *region(void)
{
	void *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mtktree: mmap");
		exit(1);
	}
	madvise(p, (size_t)pages * 4096, MADV_NOHUGEPAGE);
	return p;
}

static void touch(int worker, const char *kind, unsigned char *p)
{
	for (long i = 0; i < pages; i++)
		p[i * 4096 + (i % 64) * 8] = 1;
	/* one write per line: the processes share the output file */
	dprintf(1, "worker=%d kind=%s pid=%d tid=%ld base=%p pages=%ld\n", worker,
		kind, (int)getpid(), (long)syscall(SYS_gettid), (void *)p, pages);
}

static void wait_go(void)
{
	__atomic_fetch_add(&shared[0], 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE))
		usleep(1000);
}

static void *thread_main(void *p)
{
	wait_go();
	touch(1, "thread", p);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned char *mine, *thr;
	pthread_t th;
	sigset_t set;
	pid_t child, late;
	int c, sig;

	while ((c = getopt(argc, argv, "k:")) != -1) {
		if (c != 'k' || (pages = atol(optarg)) < 1) {
			fprintf(stderr, "usage: mtktree [-k PAGES]\n");
			return 2;
		}
	}
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	mine = region();
	thr = region();
	child = fork();
	if (child == 0) {
		pid_t g = fork();
		unsigned char *r;

		if (g == 0) {
			r = region();
			wait_go();
			usleep(300000);
			touch(3, "grandchild", r);
			return 0;
		}
		r = region();
		wait_go();
		touch(2, "child", r);
		waitpid(g, NULL, 0);
		return 0;
	}
	if (pthread_create(&th, NULL, thread_main, thr))
		return 1;
	while (__atomic_load_n(&shared[0], __ATOMIC_SEQ_CST) < 3)
		usleep(1000);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	if (sigwait(&set, &sig))
		return 1;
	__atomic_store_n(&shared[1], 1, __ATOMIC_RELEASE);
	touch(0, "root", mine);
	pthread_join(th, NULL);
	late = fork();
	if (late == 0) {
		touch(4, "late", region());
		return 0;
	}
	waitpid(late, NULL, 0);
	return 0;
}
