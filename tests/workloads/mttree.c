/*
 * mttree - a process tree with known page touches, for `record -p` and
 * `--cgroup` tests.
 *
 *   mttree [-c CHILDREN] [-g GRANDCHILDREN] [-k PAGES] [-l] [-s STORM] [-w]
 *
 * The parent forks CHILDREN children; the first child forks GRANDCHILDREN
 * grandchildren.  When the whole tree exists the parent prints
 * "ready pid=P procs=N".  With -w the tree then waits for SIGUSR1 to the
 * parent (the go signal; a recorder attaches first).  After go every
 * process maps its own region of PAGES pages (MADV_NOHUGEPAGE), writes one
 * byte to each page once in ascending order and prints
 *   "worker=NAME kind=parent|child|grandchild|late pid=P tid=T base=0x... pages=K"
 * With -l the last child forks one more process after go and after its own
 * touches (so it appears while a recorder runs): kind=late.  Each process
 * waits for its children; the parent exits last.
 *
 * -s STORM: after "ready" (before the go signal) the parent forks STORM
 * short-lived children one after another, each touching half its region,
 * sleeping 2 ms and touching the rest (kind=storm), so that a recorder
 * attaching meanwhile finds children forked during its attach.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

static long pages = 32, page_size;
static int go_pipe[2] = { -1, -1 }, ready_pipe[2] = { -1, -1 };

static void work_pause(const char *name, const char *kind, long pause_us)
{
	size_t len = (size_t)(pages * page_size);
	char *region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (region == MAP_FAILED) {
		fprintf(stderr, "mttree: mmap: %s\n", strerror(errno));
		exit(1);
	}
	madvise(region, len, MADV_NOHUGEPAGE);
	for (long p = 0; p < pages; p++) {
		if (pause_us && p == pages / 2)
			usleep((useconds_t)pause_us);
		((volatile char *)region)[p * page_size] = 1;
	}
	char line[200];
	int n = snprintf(line, sizeof(line), "worker=%s kind=%s pid=%d tid=%ld base=%p pages=%ld\n",
			 name, kind, (int)getpid(), (long)syscall(SYS_gettid), (void *)region, pages);
	/* one unbuffered write: no stdio buffer for fork() to duplicate */
	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		exit(1);
}

static void work(const char *name, const char *kind)
{
	work_pause(name, kind, 0);
}

/* Blocks until the parent closes the go pipe's write end. */
static void wait_go(void)
{
	char c;

	while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
}

static void say_ready(void)
{
	if (write(ready_pipe[1], "r", 1) != 1)
		_exit(1);
}

static void reap(void)
{
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

static void run_child(int i, long grandchildren, int late)
{
	char name[32];

	for (long g = 0; g < grandchildren; g++) {
		if (fork() == 0) {
			say_ready();
			wait_go();
			snprintf(name, sizeof(name), "g%d.%ld", i, g);
			work(name, "grandchild");
			_exit(0);
		}
	}
	say_ready();
	wait_go();
	snprintf(name, sizeof(name), "c%d", i);
	work(name, "child");
	if (late && fork() == 0) {
		snprintf(name, sizeof(name), "late%d", i);
		work(name, "late");
		_exit(0);
	}
	reap();
	_exit(0);
}

int main(int argc, char **argv)
{
	long children = 2, grandchildren = 1;
	long storm = 0;
	int late = 0, wait_usr1 = 0, opt;

	while ((opt = getopt(argc, argv, "c:g:k:ls:w")) != -1) {
		switch (opt) {
		case 'c': children = atol(optarg); break;
		case 'g': grandchildren = atol(optarg); break;
		case 'k': pages = atol(optarg); break;
		case 'l': late = 1; break;
		case 's': storm = atol(optarg); break;
		case 'w': wait_usr1 = 1; break;
		default:
			fprintf(stderr, "usage: mttree [-c CHILDREN] [-g GRANDCHILDREN] [-k PAGES] [-l] [-s STORM] [-w]\n");
			return 2;
		}
	}
	if (children < 0 || children > 1000 || grandchildren < 0 || grandchildren > 1000 || pages < 1 ||
	    (grandchildren && !children)) {
		fprintf(stderr, "mttree: 0..1000 children and grandchildren (these need a child), PAGES >= 1\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	if (pipe(go_pipe) || pipe(ready_pipe)) {
		perror("mttree: pipe");
		return 1;
	}
	sigset_t old;
	wl_go_prepare(&old);

	for (long i = 0; i < children; i++) {
		if (fork() == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			close(go_pipe[1]);
			close(ready_pipe[0]);
			run_child((int)i, i == 0 ? grandchildren : 0, late && i == children - 1);
		}
	}
	close(ready_pipe[1]);
	long want = children + grandchildren, got = 0;
	char c;
	while (got < want && read(ready_pipe[0], &c, 1) == 1)
		got++;
	printf("ready pid=%d procs=%ld\n", (int)getpid(), 1 + want);
	fflush(stdout);
	for (long i = 0; i < storm; i++) {
		pid_t k = fork();
		if (k == 0) {
			char name[32];
			snprintf(name, sizeof(name), "s%ld", i);
			work_pause(name, "storm", 2000);
			_exit(0);
		}
		if (k > 0)
			waitpid(k, NULL, 0);
	}
	wl_go_wait(wait_usr1, &old);
	close(go_pipe[1]);	/* go: every read of the go pipe returns */
	work("p", "parent");
	reap();
	return 0;
}
