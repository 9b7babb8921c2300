/* backend_valgrind.c - every data access of a command run under valgrind.
 *
 * Runs `valgrind --tool=lackey --trace-mem=yes --log-fd=N CMD ARGS...` with
 * N the write end of a pipe, so the command's own stdout and stderr are
 * untouched, and parses the stream as it comes (user/lackey.c).  Time is
 * the guest's instruction count.  If MEMTRACE_LACKEY_LOG names a file, the
 * raw lackey stream is copied there too (tests compare against it).
 * See docs/valgrind-backend.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "source/source.h"
#include "source/lackey.h"
#include "record/recorder.h"
#include "util/util.h"

#define READ_BUF	(1u << 20)
#define TICK_NS		100000000ull	/* recorder_tick at least every 100 ms */
#define TICK_SAMPLES	65536u		/* ... and every 64 Ki samples */

static const char VALGRIND[] = "valgrind";

/* Full path of valgrind from $PATH into buf; 0 or -1. */
static int find_valgrind(char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n && (size_t)snprintf(buf, len, "%.*s/%s", (int)n, path, VALGRIND) < len &&
		    access(buf, X_OK) == 0)
			return 0;
		path += n;
		if (*path == ':')
			path++;
	}
	return -1;
}

static int vg_probe(const struct record_opts *o, char *why, size_t whylen)
{
	char path[4096];

	if (o->system_wide || o->pid || !o->argv || !o->argv[0]) {
		snprintf(why, whylen, "valgrind runs a command it starts (-- CMD); it cannot "
			 "attach to a running process or record system-wide");
		return -1;
	}
	if (find_valgrind(path, sizeof(path)) < 0) {
		snprintf(why, whylen, "valgrind is not installed (apt-get install valgrind)");
		return -1;
	}
	return 0;
}

static void vg_status(FILE *out)
{
	char path[4096];

	if (find_valgrind(path, sizeof(path)) < 0)
		fprintf(out, "  valgrind: unavailable - valgrind is not installed\n");
	else
		fprintf(out, "  valgrind: available - %s --tool=lackey: every data access "
			"of a command it starts, time in instructions, very slow\n", path);
}

struct vg_ctx {
	struct recorder *r;
	int failed;
};

static int vg_emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct vg_ctx *c = ctx;

	if (recorder_add_samples(c->r, s, n) < 0) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void set_meta(struct recorder *r, const struct record_opts *o, uint64_t period,
		     pid_t pid)
{
	const char *comm = strrchr(o->argv[0], '/');

	comm = comm ? comm + 1 : o->argv[0];
	recorder_meta(r, "backend", "valgrind");
	recorder_meta(r, "source", "valgrind-lackey");
	recorder_meta(r, "event", "all-data-accesses");
	recorder_meta(r, "sample_period", "%llu", (unsigned long long)period);
	recorder_meta(r, "random_period", "%d", o->random_period ? 1 : 0);
	recorder_meta(r, "seed", "%llu", (unsigned long long)o->seed);
	recorder_meta(r, "clock", "instructions");
	recorder_meta(r, "time_unit", "insn");
	recorder_meta(r, "fields", "ip,data_src");
	recorder_meta(r, "sees", "every data access (sampled 1 in %llu); time is "
		      "instructions, not ns", (unsigned long long)period);
	recorder_meta(r, "target_pid", "%d", (int)pid);
	recorder_meta(r, "target_comm", "%.15s", comm);
}

static pid_t spawn(const struct record_opts *o, const char *valgrind, int wfd)
{
	size_t argc = 0;

	while (o->argv[argc])
		argc++;
	char **argv = mt_xcalloc(argc + 5, sizeof(*argv));
	char logfd[32];

	snprintf(logfd, sizeof(logfd), "--log-fd=%d", wfd);
	argv[0] = (char *)VALGRIND;
	argv[1] = (char *)"--tool=lackey";
	argv[2] = (char *)"--trace-mem=yes";
	argv[3] = logfd;
	for (size_t i = 0; i < argc; i++)
		argv[4 + i] = o->argv[i];
	pid_t pid = fork();

	if (pid == 0) {
		/* the write end stays open across exec; the read end does not */
		fcntl(wfd, F_SETFD, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execv(valgrind, argv);
		fprintf(stderr, "memtracectl: %s: %s\n", valgrind, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		mt_errno("fork");
	free(argv);
	return pid;
}

static int vg_record(const struct record_opts *o, struct recorder *r)
{
	char valgrind[4096];
	uint64_t period = o->period ? o->period : 1;
	int fds[2], logfd = -1, rc = -1;
	const char *logpath = getenv("MEMTRACE_LACKEY_LOG");

	if (find_valgrind(valgrind, sizeof(valgrind)) < 0) {
		mt_err("valgrind is not installed (apt-get install valgrind)");
		return -1;
	}
	if (logpath && *logpath) {
		logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (logfd < 0) {
			mt_errno("MEMTRACE_LACKEY_LOG=%s", logpath);
			return -1;
		}
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		mt_errno("pipe");
		goto out_log;
	}
	/* bigger pipe: fewer wake-ups (best effort) */
	fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);

	pid_t pid = spawn(o, valgrind, fds[1]);

	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		goto out_log;
	}
	struct vg_ctx c = { .r = r };
	struct lackey_parser *p = mt_xmalloc(sizeof(*p));
	char *buf = mt_xmalloc(READ_BUF);

	lackey_init(p, period, o->random_period, o->seed, vg_emit, &c);
	p->pid = (uint32_t)pid;
	set_meta(r, o, period, pid);
	/*
	 * Origin 0.  Valgrind runs the guest inside its own process, so
	 * /proc/PID/maps of valgrind lists the guest's mappings at their guest
	 * addresses (next to valgrind's own): snapshot it at every tick, the
	 * recorder writes a MAPS chunk whenever the text changed.
	 */
	if (recorder_begin(r, 0, 0) < 0) {
		kill(pid, SIGKILL);
		c.failed = 1;
	}

	const char *reason = "target-exited";
	uint64_t start_ns = mt_now_ns(), last_tick = start_ns, tick_samples = 0;
	uint64_t deadline_ns = o->duration > 0 ? start_ns + (uint64_t)(o->duration * 1e9) : 0;
	int status = 0, reaped = 0, killed = 0, copy_ok = logfd >= 0;

	while (!c.failed) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int pr = poll(&pfd, 1, 100);
		ssize_t n = 0;

		if (pr < 0 && errno != EINTR) {
			mt_errno("poll");
			break;
		}
		if (pr > 0) {
			n = read(fds[0], buf, READ_BUF);
			if (n < 0 && errno != EINTR && errno != EAGAIN) {
				mt_errno("read from valgrind");
				break;
			}
			if (n == 0)
				break;	/* every writer is gone */
		}
		if (n > 0) {
			if (copy_ok && write_all(logfd, buf, (size_t)n) < 0) {
				mt_errno("MEMTRACE_LACKEY_LOG=%s: write (copy stopped)", logpath);
				copy_ok = 0;
			}
			if (lackey_feed(p, buf, (size_t)n) < 0)
				break;
			/*
			 * lackey writes one line per write(): let the pipe
			 * fill a while rather than wake up for every line.
			 */
			if ((size_t)n < READ_BUF / 16 && !reaped) {
				struct timespec ts = { 0, 2000000 };

				nanosleep(&ts, NULL);
			}
		}
		uint64_t now = mt_now_ns();

		if (now - last_tick >= TICK_NS || p->samples - tick_samples >= TICK_SAMPLES) {
			/*
			 * The guest's entry code reads argc at its initial
			 * stack pointer (or pushes a return address below it)
			 * before anything else: its first data access lies in
			 * the guest's main stack, which valgrind maps as an
			 * anonymous mapping.
			 */
			if (p->first_addr)
				recorder_name_stack(r, pid, p->first_addr);
			recorder_maps_changed(r, pid);
			if (recorder_tick(r, p->insns) < 0) {
				c.failed = 1;
				break;
			}
			last_tick = now;
			tick_samples = p->samples;
		}
		if (!killed && (recorder_stop_requested(r, p->insns) ||
				(deadline_ns && now >= deadline_ns))) {
			reason = deadline_ns && now >= deadline_ns ? "duration" : "signal";
			kill(pid, SIGKILL);
			killed = 1;
		}
		/*
		 * Programs the guest started may hold the pipe open after it
		 * exits: once valgrind is gone, drain what is there and stop.
		 */
		if (!reaped && pr == 0 && waitpid(pid, &status, WNOHANG) == pid) {
			reaped = 1;
			fcntl(fds[0], F_SETFL, O_NONBLOCK);
		}
		if (reaped && pr == 0)
			break;
	}
	close(fds[0]);
	if (!reaped) {
		if (c.failed)
			kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (!killed && recorder_stop_requested(r, p->insns)) {
		reason = "signal";	/* Ctrl-C reached valgrind first */
		killed = 1;
	}
	uint64_t cut = lackey_finish(p);

	if (cut && !killed)
		mt_warn("lackey stream ends in the middle of a line (%llu bytes ignored)",
			(unsigned long long)cut);
	if (p->other_pid)
		mt_warn("the lackey stream also holds process %u (a forked child?): its "
			"accesses are mixed in and attributed to pid %u", p->other_pid, (unsigned)pid);
	if (p->bad_lines)
		mt_warn("%llu lines of the lackey stream not understood (first at line %llu: \"%s\")",
			(unsigned long long)p->bad_lines, (unsigned long long)p->first_bad_line,
			p->first_bad);
	int end_rc = c.failed ? -1 : recorder_end(r, reason);

	if (c.failed || end_rc) {
		mt_err("writing the trace failed");
	} else if (!p->insns && !killed) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			mt_err("valgrind could not run %s", o->argv[0]);
		else
			mt_err("valgrind produced no trace (exit status %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	} else {
		rc = 0;
	}
	free(buf);
	free(p);
out_log:
	if (logfd >= 0)
		close(logfd);
	return rc;
}

const struct backend backend_valgrind = {
	.name = "valgrind",
	.probe = vg_probe,
	.record = vg_record,
	.status = vg_status,
};
