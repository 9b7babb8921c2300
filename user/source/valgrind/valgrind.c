/* valgrind.c - every data access of a command run under valgrind.
 *
 * Runs `valgrind --tool=memtrace --mt-fd=N ... CMD ARGS...` (our own tool,
 * user/source/valgrind/vgtool/, which samples in the tool and writes binary
 * records: vgtool_stream.c reads them) when it was built, else
 * `valgrind --tool=lackey --trace-mem=yes --log-fd=N CMD ARGS...` (text,
 * parsed by lackey.c), with N the write end of a pipe, so the command's own
 * stdout and stderr are untouched.  Time is the guest's instruction count.
 * If MEMTRACE_LACKEY_LOG names a file, the raw stream (lackey's text or the
 * tool's binary records) is copied there too (tests compare against it).
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
#include "source/valgrind/lackey.h"
#include "source/valgrind/vgtool_stream.h"
#include "record/recorder.h"
#include "record/signals.h"
#include "trace/agg.h"
#include "trace/words.h"
#include "source/target.h"
#include "util/util.h"

#define READ_BUF	(1u << 20)
#define TICK_NS		100000000ull	/* recorder_tick every 100 ms of wall time */
#define TICK_SAMPLES	65536u		/* ... or every 64 Ki samples */
#define VG_AGG_SHIFT	12		/* --aggregate: 4 KiB buckets, valgrind-ws's pages */

static const char VALGRIND[] = "valgrind";
static const char VGTOOL_BIN[] = "memtrace-amd64-linux";

/*
 * The memtrace tool's Valgrind library directory into buf: $MEMTRACE_VGTOOL_DIR
 * (empty: do not use the tool), else next to memtracectl (build/vgtool), else
 * where make install puts it (BINDIR/../libexec/memtrace/valgrind).  0 or -1.
 */
static int find_vgtool(char *buf, size_t len)
{
	static const char *const rel[] = { "vgtool", "../libexec/memtrace/valgrind" };
	const char *env = getenv("MEMTRACE_VGTOOL_DIR");
	char exe[4096], probe[4200];
	ssize_t n;

	if (env) {
		snprintf(probe, sizeof(probe), "%s/%s", env, VGTOOL_BIN);
		if (!*env || access(probe, X_OK) || (size_t)snprintf(buf, len, "%s", env) >= len)
			return -1;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/%s/%s", exe, rel[i], VGTOOL_BIN);
		if (access(probe, X_OK) == 0 &&
		    (size_t)snprintf(buf, len, "%s/%s", exe, rel[i]) < len)
			return 0;
	}
	return -1;
}

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
	char path[4096], tool[4096];

	if (find_valgrind(path, sizeof(path)) < 0)
		fprintf(out, "  valgrind: unavailable - valgrind is not installed\n");
	else if (find_vgtool(tool, sizeof(tool)) == 0)
		fprintf(out, "  valgrind: available - %s with the memtrace tool (%s): every data "
			"access of a command it starts, time in instructions, 5-40x slower "
			"(-c 1: ~90 ns more per access)\n",
			path, tool);
	else
		fprintf(out, "  valgrind: available - %s --tool=lackey (the memtrace tool is not "
			"built): every data access of a command it starts, time in instructions, "
			"very slow\n", path);
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
		     pid_t pid, bool tool)
{
	const char *comm = strrchr(o->argv[0], '/');

	comm = comm ? comm + 1 : o->argv[0];
	recorder_meta(r, "backend", "valgrind");
	recorder_meta(r, "source", tool ? "valgrind-memtrace" : "valgrind-lackey");
	recorder_meta(r, "event", "all-data-accesses");
	recorder_meta(r, "sample_period", "%llu", (unsigned long long)period);
	recorder_meta(r, "random_period", "%d", period > 1 && !o->fixed_period ? 1 : 0);
	recorder_meta(r, "seed", "%llu", (unsigned long long)o->seed);
	recorder_meta(r, "clock", "instructions");
	recorder_meta(r, "time_unit", "insn");
	recorder_meta(r, "fields", "ip,data_src");
	recorder_meta(r, "sees", "every data access (sampled 1 in %llu); time is "
		      "instructions, not ns%s", (unsigned long long)period,
		      o->aggregate ? "; counted per page and interval in the tool" : "");
	recorder_meta(r, "sample_class", "%s",
		      words_class_name(period == 1 ? WORDS_EVERY_ACCESS : WORDS_SAMPLED_ACCESS));
	recorder_meta(r, "target_pid", "%d", (int)pid);
	recorder_meta(r, "target_comm", "%.15s", comm);
	if (o->aggregate) {	/* AGG chunks (docs/trace-format.md), counted by the tool */
		recorder_meta(r, "aggregate", "%llu", (unsigned long long)o->aggregate);
		recorder_meta(r, "bucket_default", "%u", 1u << VG_AGG_SHIFT);
	}
}

/*
 * valgrind's arguments: lackey's, or the memtrace tool's (it samples itself;
 * MEMTRACE_VALGRIND_ALLOCS=0 runs it without the malloc replacement, so the
 * guest's own malloc runs as under lackey).
 */
static size_t vg_args(char **argv, char bufs[][48], const struct record_opts *o, int wfd,
		      bool tool)	/* bufs: 6 */
{
	const char *allocs = getenv("MEMTRACE_VALGRIND_ALLOCS");
	uint64_t period = o->period ? o->period : 1;
	size_t n = 0;

	argv[n++] = (char *)VALGRIND;
	if (!tool) {
		argv[n++] = (char *)"--tool=lackey";
		argv[n++] = (char *)"--trace-mem=yes";
		snprintf(bufs[0], 48, "--log-fd=%d", wfd);
		argv[n++] = bufs[0];
		return n;
	}
	argv[n++] = allocs && !strcmp(allocs, "0") ? (char *)"--tool=memtracenoalloc"
						   : (char *)"--tool=memtrace";
	argv[n++] = (char *)"-q";
	snprintf(bufs[0], 48, "--mt-fd=%d", wfd);
	snprintf(bufs[1], 48, "--period=%llu", (unsigned long long)period);
	snprintf(bufs[2], 48, "--random-period=%s", o->fixed_period ? "no" : "yes");
	snprintf(bufs[3], 48, "--seed=%llu", (unsigned long long)o->seed);
	for (int i = 0; i < 4; i++)
		argv[n++] = bufs[i];
	if (o->aggregate) {
		snprintf(bufs[4], 48, "--aggregate=%llu", (unsigned long long)o->aggregate);
		snprintf(bufs[5], 48, "--agg-shift=%d", VG_AGG_SHIFT);
		argv[n++] = bufs[4];
		argv[n++] = bufs[5];
	}
	return n;
}

static pid_t spawn(const struct record_opts *o, const char *valgrind, int wfd,
		   const char *tooldir)
{
	size_t argc = 0;

	while (o->argv[argc])
		argc++;
	char **argv = mt_xcalloc(argc + 12, sizeof(*argv));
	char bufs[6][48];
	size_t nvg = vg_args(argv, bufs, o, wfd, tooldir != NULL);

	for (size_t i = 0; i < argc; i++)
		argv[nvg + i] = o->argv[i];
	pid_t pid = fork();

	if (pid == 0) {
		/* the write end stays open across exec; the read end does not */
		fcntl(wfd, F_SETFD, 0);
		if (tooldir)
			setenv("VALGRIND_LIB", tooldir, 1);
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

struct vg_state {
	const struct record_opts *o;
	struct recorder *r;
	struct lackey_parser *p;	/* lackey's text, or */
	struct vgtool_parser *t;	/* the memtrace tool's records */
	struct vgtool_allocs allocs;	/* its allocations, into ALLOCS chunks */
	struct bytebuf chunk;
	char tooldir[4096];
	char *buf;
	const char *logpath;
	int fd, logfd, copy_ok;
	pid_t pid;
	int pr;			/* the last poll()'s result */
	int status, reaped, killed, failed;
	int published;		/* the guest ran: FILE is the new trace */
	int maps_once;		/* the guest's maps were read once */
	uint64_t last_tick, tick_samples;
	/* --aggregate: the rows of the interval being received */
	struct mt_vg_agg_row *agg_rows;
	size_t agg_n, agg_cap;
	struct mt_vg_agg agg_head;	/* its k, interval, shift; samples summed */
};

static int vg_emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct vg_state *v = ctx;

	if (recorder_add_samples(v->r, s, n) < 0) {
		v->failed = 1;
		return -1;
	}
	return 0;
}

static int by_bucket(const void *x, const void *y)
{
	const struct mt_vg_agg_row *a = x, *b = y;

	return (a->bucket > b->bucket) - (a->bucket < b->bucket);
}

/* The received interval as one AGG chunk (docs/trace-format.md); end: the
 * guest's last instruction where known (the last interval ends there). */
static int agg_write(struct vg_state *v, uint64_t end)
{
	const struct mt_vg_agg *h = &v->agg_head;
	uint64_t t = h->k * h->interval, counted = 0;
	size_t len = AGG_HDR_SIZE + v->agg_n * AGG_ROW_SIZE;
	unsigned char *buf, *p;
	int rc;

	if (!h->k)
		return 0;
	qsort(v->agg_rows, v->agg_n, sizeof(*v->agg_rows), by_bucket);
	buf = mt_xcalloc(1, len);
	p = buf + AGG_HDR_SIZE;
	for (size_t i = 0; i < v->agg_n; i++, p += AGG_ROW_SIZE) {
		trace_agg_put_row(p, v->agg_rows[i].bucket << h->shift, v->agg_rows[i].count,
				  (uint32_t)v->pid);
		counted += v->agg_rows[i].count;
	}
	trace_agg_put_header(buf, &(struct trace_agg){ .interval = h->interval, .time = t,
						       .samples = counted, .rows = v->agg_n,
						       .shift = h->shift });
	if (counted != h->samples)
		mt_warn("the memtrace tool's interval %llu counts %llu accesses in its rows and says "
			"%llu", (unsigned long long)h->k, (unsigned long long)counted,
			(unsigned long long)h->samples);
	rc = recorder_add_agg(v->r, buf, len, (uint32_t)v->agg_n, counted, end && end < t ? end : t);
	free(buf);
	v->agg_n = 0;
	v->agg_head.k = 0;
	if (rc)
		v->failed = 1;
	return rc;
}

/* One AGG message of the tool: a new interval writes the one before. */
static int vg_agg(void *ctx, const struct mt_vg_agg *h, const unsigned char *rows)
{
	struct vg_state *v = ctx;

	if (h->shift != VG_AGG_SHIFT) {
		mt_err("memtrace Valgrind tool stream: AGG buckets of 2^%u bytes, asked for 2^%d",
		       h->shift, VG_AGG_SHIFT);
		v->failed = 1;
		return -1;
	}
	if (h->k != v->agg_head.k && agg_write(v, 0))
		return -1;
	if (!v->agg_head.k) {
		v->agg_head = *h;
		v->agg_head.samples = 0;
	}
	v->agg_head.samples += h->samples;
	if (v->agg_n + h->rows > v->agg_cap) {
		v->agg_cap = 2 * (v->agg_n + h->rows);
		v->agg_rows = mt_xrealloc(v->agg_rows, v->agg_cap * sizeof(*v->agg_rows));
	}
	memcpy(v->agg_rows + v->agg_n, rows, h->rows * sizeof(*v->agg_rows));
	v->agg_n += h->rows;
	return 0;
}

/* Log copy and the pipe; the child is valgrind writing into fds[1]. */
static int vg_start(struct vg_state *v, const struct record_opts *o)
{
	char valgrind[4096];
	int fds[2];

	if (find_valgrind(valgrind, sizeof(valgrind)) < 0) {
		mt_err("valgrind is not installed (apt-get install valgrind)");
		return -1;
	}
	if (v->logpath && *v->logpath) {
		v->logfd = open(v->logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (v->logfd < 0) {
			mt_errno("%s=%s", v->t ? "MEMTRACE_VGTOOL_LOG" : "MEMTRACE_LACKEY_LOG",
				 v->logpath);
			return -1;
		}
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		mt_errno("pipe");
		return -1;
	}
	/* bigger pipe: fewer wake-ups (best effort) */
	fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
	v->pid = spawn(o, valgrind, fds[1], v->t ? v->tooldir : NULL);
	close(fds[1]);
	if (v->pid < 0) {
		close(fds[0]);
		return -1;
	}
	v->fd = fds[0];
	return 0;
}

static void *vg_open(const struct record_opts *o, struct recorder *r)
{
	struct vg_state *v = mt_xcalloc(1, sizeof(*v));
	uint64_t period = o->period ? o->period : 1;

	v->o = o;
	v->r = r;
	v->fd = v->logfd = -1;
	/* MEMTRACE_LACKEY_LOG asks for lackey's text: lackey runs */
	v->logpath = getenv("MEMTRACE_LACKEY_LOG");
	if (v->logpath && *v->logpath) {
		/* lackey */
	} else if (find_vgtool(v->tooldir, sizeof(v->tooldir)) == 0) {
		v->t = mt_xmalloc(sizeof(*v->t));
		vgtool_init(v->t, vg_emit, v);
		if (o->aggregate)
			v->t->agg_out = vg_agg;
		v->logpath = getenv("MEMTRACE_VGTOOL_LOG");
	} else if (o->aggregate) {
		mt_err("--aggregate needs memtrace's Valgrind tool (make vgtool; it counts in the "
		       "tool), and it is not built here%s",
		       v->logpath && *v->logpath ? " or MEMTRACE_LACKEY_LOG asks for lackey" : "");
		free(v);
		return NULL;
	} else {
		mt_warn("the memtrace Valgrind tool is not built here: using lackey "
			"(27x slower on pageramp)");
	}
	if (vg_start(v, o)) {
		if (v->logfd >= 0)
			close(v->logfd);
		free(v->t);
		free(v);
		return NULL;
	}
	v->p = mt_xmalloc(sizeof(*v->p));
	v->buf = mt_xmalloc(READ_BUF);
	/* random gaps by default: a fixed period aliases with loops (docs/accuracy.md) */
	if (o->fixed_period && period > 1)
		mt_warn("fixed period %llu: a loop whose accesses repeat with a period sharing a "
			"factor with it is sampled at the same places (aliasing); the default random "
			"period avoids it", (unsigned long long)period);
	lackey_init(v->p, period, !o->fixed_period, o->seed, vg_emit, v);
	v->p->pid = (uint32_t)v->pid;
	v->copy_ok = v->logfd >= 0;
	if (v->t) {
		v->t->pid = (uint32_t)v->pid;
		vgtool_allocs_init(&v->allocs, (uint32_t)v->pid);
		v->t->allocs_out = &v->allocs;
	}
	set_meta(r, o, period, v->pid, v->t != NULL);
	if (v->t && !(getenv("MEMTRACE_VALGRIND_ALLOCS") &&
		      !strcmp(getenv("MEMTRACE_VALGRIND_ALLOCS"), "0"))) {
		/* the tool records every block (docs/trace-format.md, HEADER keys) */
		recorder_meta(r, "alloc_sample_bytes", "1");
		recorder_meta(r, "alloc_large_bytes", "0");
	}
	/*
	 * Origin 0.  Valgrind runs the guest inside its own process, so
	 * /proc/PID/maps of valgrind lists the guest's mappings at their guest
	 * addresses (next to valgrind's own): snapshot it at every tick, the
	 * recorder writes a MAPS chunk whenever the text changed.
	 */
	if (recorder_begin(r, 0, 0) < 0) {
		kill(v->pid, SIGKILL);
		v->failed = 1;	/* the first drain reports it */
	}
	v->last_tick = mt_now_ns();
	return v;
}

static int vg_fds(void *state, struct pollfd *p, int max)
{
	struct vg_state *v = state;

	if (max >= 1)
		p[0] = (struct pollfd){ .fd = v->fd, .events = POLLIN };
	return 1;
}

/* Bytes read from the pipe into the log copy and the parser; 0, or 1 at the end. */
static int vg_read(struct vg_state *v)
{
	ssize_t n = read(v->fd, v->buf, READ_BUF);

	if (n < 0 && errno != EINTR && errno != EAGAIN) {
		mt_errno("read from valgrind");
		return 1;
	}
	if (n == 0)
		return 1;	/* every writer is gone */
	if (n < 0)
		return 0;
	if (v->copy_ok && write_all(v->logfd, v->buf, (size_t)n) < 0) {
		mt_errno("%s: write (copy stopped)", v->logpath);
		v->copy_ok = 0;
	}
	if (v->t ? vgtool_feed(v->t, v->buf, (size_t)n) < 0 : lackey_feed(v->p, v->buf, (size_t)n) < 0) {
		if (v->t && v->t->error[0]) {
			mt_err("memtrace Valgrind tool stream: %s", v->t->error);
			v->failed = 1;
		}
		return 1;
	}
	/* the command runs (the tool started, or its first instruction): the trace
	 * takes FILE's place */
	if (!v->published && (v->t ? v->t->hello : v->p->insns != 0)) {
		if (recorder_publish(v->r)) {
			v->failed = 1;
			return 1;
		}
		v->published = 1;
	}
	/*
	 * lackey writes one line per write(): let the pipe fill a while
	 * rather than wake up for every line (the tool writes 256 KiB at once).
	 */
	if (!v->t && (size_t)n < READ_BUF / 16 && !v->reaped) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The tool's allocations since the last call, as one ALLOCS chunk. */
static int write_allocs(struct vg_state *v, struct recorder *r)
{
	uint32_t n;

	if (!v->t || !(n = vgtool_allocs_take(&v->allocs, &v->chunk)))
		return 0;
	if (recorder_write_chunk(r, CHUNK_ALLOCS, v->chunk.data, v->chunk.len, n) < 0) {
		v->failed = 1;
		return -1;
	}
	return 0;
}

static int vg_drain(void *state, struct recorder *r, const struct pollfd *pfd, int npfd,
		    struct source_step *step)
{
	struct vg_state *v = state;
	uint64_t samples = v->t ? v->t->samples : v->p->samples;
	uint64_t first_addr = v->t ? v->t->first_addr : v->p->first_addr;

	(void)pfd;
	(void)npfd;
	if (v->failed)
		return -1;
	v->pr = step->ready;
	if (step->ready < 0 && step->poll_errno != EINTR) {
		errno = step->poll_errno;
		mt_errno("poll");
		step->ended = true;
		return 0;
	}
	if (step->ready > 0 && vg_read(v)) {
		step->ended = true;
		return v->failed ? -1 : 0;
	}
	step->wall = mt_now_ns();
	step->now = v->t ? v->t->time : v->p->insns;
	/* the first snapshot of the guest's maps as soon as its stack is known */
	if (step->wall - v->last_tick >= TICK_NS || samples - v->tick_samples >= TICK_SAMPLES ||
	    (first_addr && !v->maps_once)) {
		v->maps_once = first_addr != 0;
		/*
		 * The guest's entry code reads argc at its initial stack
		 * pointer (or pushes a return address below it) before
		 * anything else: its first data access lies in the guest's
		 * main stack, which valgrind maps as an anonymous mapping.
		 */
		if (first_addr) {	/* no snapshot before: its [stack] would be unnamed */
			recorder_name_stack(r, v->pid, first_addr);
			recorder_maps_changed(r, v->pid);
		}
		if (write_allocs(v, r) < 0)
			return -1;
		step->tick = true;
		v->last_tick = step->wall;
		v->tick_samples = samples;
	}
	return 0;
}

/* Keep draining: the pipe ends when valgrind is gone. */
static int vg_stop(void *state, const char *reason)
{
	struct vg_state *v = state;

	(void)reason;
	kill(v->pid, SIGKILL);
	v->killed = 1;
	return 1;
}

/*
 * Programs the guest started may hold the pipe open after it exits: once
 * valgrind is gone, drain what is there and stop.
 */
static int vg_target_gone(void *state, uint64_t wall)
{
	struct vg_state *v = state;

	(void)wall;
	if (!v->reaped && v->pr == 0 && waitpid(v->pid, &v->status, WNOHANG) == v->pid) {
		v->reaped = 1;
		fcntl(v->fd, F_SETFL, O_NONBLOCK);
	}
	return v->reaped && v->pr == 0;
}

static void lackey_warnings(struct vg_state *v)
{
	struct lackey_parser *p = v->p;
	uint64_t cut = lackey_finish(p);

	if (cut && !v->killed)
		mt_warn("lackey stream ends in the middle of a line (%llu bytes ignored)",
			(unsigned long long)cut);
	if (p->other_pid)
		mt_warn("the lackey stream also holds process %u (a forked child?): its "
			"accesses are mixed in and attributed to pid %u", p->other_pid, (unsigned)v->pid);
	lackey_warn_aliasing(p, "");
	if (p->bad_lines)
		mt_warn("%llu lines of the lackey stream not understood (first at line %llu: \"%s\")",
			(unsigned long long)p->bad_lines, (unsigned long long)p->first_bad_line,
			p->first_bad);
}

static void tool_warnings(struct vg_state *v)
{
	struct vgtool_parser *t = v->t;
	size_t cut = vgtool_finish(t);

	if (t->forks)
		mt_warn("the program forked %llu time%s: the children ran under valgrind but their "
			"accesses are not in the trace (only pid %u's are)", (unsigned long long)t->forks,
			t->forks == 1 ? "" : "s", (unsigned)v->pid);
	if (v->killed || v->failed || !t->hello)
		return;
	if (cut || !t->ended)
		mt_warn("the memtrace tool's stream ends without its end record (valgrind died?"
			"%s): the trace holds what came", cut ? ", a record cut" : "");
	else if (t->end.samples != t->samples)
		mt_warn("the memtrace tool sampled %llu accesses, %llu arrived",
			(unsigned long long)t->end.samples, (unsigned long long)t->samples);
}

static int vg_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct vg_state *v = state;

	(void)r;
	v->failed |= failed;
	close(v->fd);
	if (!v->reaped) {
		if (v->failed)
			kill(v->pid, SIGKILL);
		while (waitpid(v->pid, &v->status, 0) < 0 && errno == EINTR)
			;
	}
	if (!v->killed)		/* the command's own end: its status is record's */
		target_child_set_status(v->pid, v->status);
	if (!v->killed && record_stop_signalled()) {
		*reason = "signal";	/* Ctrl-C reached valgrind first */
		v->killed = 1;
	}
	if (v->t) {
		tool_warnings(v);
		if (!v->failed && v->agg_head.k)	/* the last interval ends with the guest */
			agg_write(v, v->t->ended ? v->t->end.insns : v->t->time);
		vgtool_allocs_settle(&v->allocs);
		if (!v->failed)
			write_allocs(v, r);
	} else
		lackey_warnings(v);
	return v->failed ? -1 : 0;
}

static int vg_close(void *state, int end_rc)
{
	struct vg_state *v = state;
	int rc = -1, status = v->status;

	if (v->failed || end_rc) {
		mt_err("writing the trace failed");
	} else if (!v->published && v->killed) {
		mt_err("stopped before valgrind ran %s: nothing recorded, %s left as it was",
		       v->o->argv[0], v->o->output);
	} else if (!v->published) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			mt_err("valgrind could not run %s", v->o->argv[0]);
		else
			mt_err("valgrind produced no trace (exit status %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	} else {
		rc = 0;
	}
	if (v->logfd >= 0)
		close(v->logfd);
	free(v->buf);
	free(v->p);
	if (v->t) {
		vgtool_free(v->t);
		vgtool_allocs_free_all(&v->allocs);
	}
	bytebuf_free(&v->chunk);
	free(v->agg_rows);
	free(v->t);
	free(v);
	return rc;
}

const struct source_ops source_valgrind = {
	.name = "valgrind",
	.caps = { .clock = SOURCE_CLOCK_INSTRUCTIONS, .aggregate = true, .own_allocs = true,
		  .command_only = true, .fallback = true },
	.end_reason = "target-exited",
	.publish_late = true,
	.probe = vg_probe,
	.status = vg_status,
	.open = vg_open,
	.fds = vg_fds,
	.drain = vg_drain,
	.stop = vg_stop,
	.target_gone = vg_target_gone,
	.finish = vg_finish,
	.close = vg_close,
};
