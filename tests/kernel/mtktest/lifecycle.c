/* lifecycle.c - mtktest lifecycle [KO]: target exit, close and rmmod in
 * several orders.
 */
#include "mtktest.h"

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static int loaded(void)
{
	return access("/sys/module/memtrace", F_OK) == 0;
}

static int wait_hup(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (int t = 0; t < ms; t += 50) {
		if (poll(&p, 1, 50) > 0 && (p.revents & POLLHUP))
			return 0;
	}
	return -1;
}

static int running_session(struct mt_session *s, pid_t *child)
{
	struct memtrace_config cfg;
	int rel;

	*child = mtk_spawn(sleeper, NULL, &rel);
	mt_default_config(&cfg, *child, 64);
	if (mt_open(s, &cfg) || ioctl(s->fd, MEMTRACE_IOC_START))
		return -1;
	mtk_release(rel);
	return 0;
}

void test_lifecycle(const char *ko)
{
	char insmod[256];
	struct mt_session s;
	pid_t c;
	int step = 0;

	snprintf(insmod, sizeof(insmod), "insmod %s", ko);
#define STEP(cond) do { step++; if (!(cond)) goto fail; } while (0)
	/* 1: target exits -> reader sees the end; rmmod refused until close */
	STEP(running_session(&s, &c) == 0);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0 && loaded());
	kill(c, SIGKILL);
	reap(c);
	STEP(wait_hup(s.fd, 2000) == 0 && mt_ended(&s));
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == ESRCH);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0);
	mt_close(&s);
	STEP(sh("rmmod memtrace") == 0 && !loaded());
	STEP(sh(insmod) == 0);
	/* 2: close while the target runs, then rmmod, then the target exits */
	STEP(running_session(&s, &c) == 0);
	mt_close(&s);
	STEP(sh("rmmod memtrace") == 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(sh(insmod) == 0);
	/* 3: a mapping outlives the fd: rmmod refused until munmap */
	STEP(running_session(&s, &c) == 0);
	close(s.fd);
	STEP(sh("rmmod memtrace 2>/dev/null") != 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(wait_hup(s.fd, 0) != 0);	/* fd closed: no poll, but */
	usleep(200000);
	STEP(mt_ended(&s));		/* the mapping sees the end */
	munmap(s.map, s.map_bytes);
	STEP(sh("rmmod memtrace") == 0);
	STEP(sh(insmod) == 0);
	/* 4: a zombie target (exited, not reaped) ends the session */
	STEP(running_session(&s, &c) == 0);
	kill(c, SIGKILL);
	STEP(wait_hup(s.fd, 2000) == 0);
	reap(c);
	mt_close(&s);
	/* 5: target gone before START; stopped session restarts */
	STEP(running_session(&s, &c) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_STOP) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == 0);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == EBUSY);
	STEP(ioctl(s.fd, MEMTRACE_IOC_STOP) == 0);
	kill(c, SIGKILL);
	reap(c);
	STEP(ioctl(s.fd, MEMTRACE_IOC_START) == -1 && errno == ESRCH);
	mt_close(&s);
	/* 6: a session left open at exit of its owner is cleaned up */
	c = fork();
	if (c == 0) {
		pid_t t;

		running_session(&s, &t);
		_exit(0);
	}
	reap(c);
	usleep(200000);
	STEP(sh("rmmod memtrace") == 0);
	STEP(sh(insmod) == 0);
	OK("lifecycle", " target exit/close/munmap/rmmod in 6 orders");
	return;
fail:
	FAIL("lifecycle", "step %d (errno %s)", step, strerror(errno));
	if (!loaded())
		sh(insmod);
#undef STEP
}
