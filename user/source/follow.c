/* follow.c - record --pidfile: the next target after the last one exited
 * (follow.h). */
#include "source/follow.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"
#include "record/signals.h"
#include "source/target.h"
#include "util/util.h"

struct follow {
	const struct source_ops *in;
	void *st;			/* the inner source's state; NULL while waiting */
	struct record_opts o;		/* the request, with -p the current pid */
	pid_t pid;			/* attached (o.pids points here), 0 while waiting */
	pid_t gone;			/* the last one, exited */
	unsigned targets, gaps;		/* processes attached; gaps so far */
	uint64_t gap_wall;		/* CLOCK_MONOTONIC when the gap under way began */
	uint64_t gap_ns;		/* the finished gaps' time */
	struct recorder *r;
	int failed;
};

static const struct source_ops *inner;
static struct source_ops follow_ops;

pid_t follow_pidfile_pid(const char *path, pid_t gone)
{
	char line[64], stat[512], file[64];
	FILE *f = fopen(path, "re");
	int ok = f && fgets(line, sizeof(line), f);
	uint64_t v;

	if (f)
		fclose(f);
	if (!ok)
		return 0;
	line[strcspn(line, " \t\r\n")] = 0;
	if (mt_parse_u64(line, &v) || !v || v > 0x3fffffff || (pid_t)v == gone)
		return 0;
	/* alive: /proc/PID/stat's state is not Z (zombie) or X (dead) */
	snprintf(file, sizeof(file), "/proc/%d/stat", (int)v);
	f = fopen(file, "re");
	ok = f && fgets(stat, sizeof(stat), f);
	if (f)
		fclose(f);
	const char *paren = ok ? strrchr(stat, ')') : NULL;
	if (!paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X')
		return 0;
	return (pid_t)v;
}

/* The inner source on pid: 0, or -1 (said why). */
static int attach(struct follow *f, pid_t pid)
{
	char comm[64] = "";

	f->pid = pid;
	f->o.pid = pid;
	f->o.pids = &f->pid;
	f->o.npids = 1;
	if (target_check(pid))
		return -1;
	target_comm(pid, pid, comm, sizeof(comm));
	if (!(f->st = f->in->open(&f->o, f->r)))
		return -1;
	/* its name in the trace (THREADS: report --per-process, END target_comm) */
	if (comm[0])
		recorder_note_thread(f->r, mt_now_ns(), (uint32_t)pid, (uint32_t)pid, comm);
	f->targets++;
	fprintf(stderr, "memtracectl: recording pid %d (%s), named by %s%s\n", (int)pid, comm,
		f->o.pidfile, f->targets > 1 ? ": the same recording goes on" : "");
	return 0;
}

/* The next process the pid file names; 0 once a stop was asked for.  Looks
 * every FOLLOW_POLL_MS (a signal cuts the wait short). */
static pid_t next_pid(struct follow *f, int once)
{
	do {
		pid_t pid = follow_pidfile_pid(f->o.pidfile, f->gone);
		if (pid > 0)
			return pid;
		if (record_stop_signalled())
			return 0;
		poll(NULL, 0, FOLLOW_POLL_MS);
	} while (!once);
	return 0;
}

static void *follow_open(const struct record_opts *o, struct recorder *r)
{
	struct follow *f = mt_xcalloc(1, sizeof(*f));

	f->in = inner;
	f->o = *o;
	f->r = r;
	pid_t pid = follow_pidfile_pid(o->pidfile, 0);
	if (!pid) {
		fprintf(stderr, "memtracectl: waiting for %s to name a running process\n",
			o->pidfile);
		pid = next_pid(f, 0);
	}
	if (!pid) {
		mt_err("stopped before %s named a running process: nothing was recorded",
		       o->pidfile);
		free(f);
		return NULL;
	}
	if (attach(f, pid)) {
		free(f);
		return NULL;
	}
	return f;
}

static int follow_fds(void *state, struct pollfd *p, int max)
{
	struct follow *f = state;

	return f->st && f->in->fds ? f->in->fds(f->st, p, max) : 0;
}

static int follow_drain(void *state, struct recorder *r, const struct pollfd *p, int n,
			struct source_step *step)
{
	struct follow *f = state;

	if (f->st)
		return f->in->drain(f->st, r, p, n, step);
	/* waiting: no fds, so the loop did not wait; one look per FOLLOW_POLL_MS */
	pid_t pid = next_pid(f, 1);
	if (pid > 0 && attach(f, pid)) {
		f->pid = 0;
		if (follow_pidfile_pid(f->o.pidfile, f->gone) == pid)
			return -1;	/* alive and not attachable: said why */
		f->gone = pid;		/* exited meanwhile: the next one */
		pid = 0;
	}
	step->wall = mt_now_ns();
	if (pid > 0) {	/* from now on the new target is seen */
		recorder_gap_end(r, step->wall);
		f->gap_ns += step->wall - f->gap_wall;
	}
	step->now = step->wall;
	step->tick = true;
	return 0;
}

static int follow_stop(void *state, const char *reason)
{
	struct follow *f = state;

	return f->st && f->in->stop ? f->in->stop(f->st, reason) : 0;
}

/* The target exited: its last samples, then the wait for the next one.
 * Ends the loop only when that failed. */
static int follow_target_gone(void *state, uint64_t wall)
{
	struct follow *f = state;

	if (!f->st || !f->in->target_gone || !f->in->target_gone(f->st, wall))
		return 0;
	const char *reason = f->in->end_reason;
	int rc = f->in->finish(f->st, f->r, 0, &reason);
	f->in->close(f->st, rc);
	f->st = NULL;
	f->gone = f->pid;
	f->pid = 0;
	if (rc) {
		f->failed = 1;
		return 1;
	}
	recorder_gap_begin(f->r, wall, f->gone);
	f->gap_wall = wall;
	f->gaps++;
	fprintf(stderr, "memtracectl: pid %d exited; waiting for %s to name the next process "
		"(a gap in the trace until then)\n", (int)f->gone, f->o.pidfile);
	return 0;
}

static int follow_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct follow *f = state;

	if (f->st)
		return f->in->finish(f->st, r, failed, reason);
	if (f->gaps)	/* waiting at the end: the gap runs to the END */
		f->gap_ns += mt_now_ns() - f->gap_wall;
	return failed || f->failed ? -1 : 0;
}

static int follow_close(void *state, int rc)
{
	struct follow *f = state;

	if (f->st)
		rc = f->in->close(f->st, rc);
	if (f->gaps)
		fprintf(stderr, "memtracectl: %u process%s named by %s recorded; %u gap%s without a "
			"target, %.3f s in all (GAPS in the trace: blind windows in a report)\n",
			f->targets, f->targets == 1 ? "" : "es", f->o.pidfile, f->gaps,
			f->gaps == 1 ? "" : "s", (double)f->gap_ns / 1e9);
	free(f);
	return rc;
}

const struct source_ops *source_follow(const struct source_ops *in)
{
	inner = in;
	follow_ops = (struct source_ops){
		.name = in->name,
		.end_reason = in->end_reason,
		.publish_late = in->publish_late,
		.caps = in->caps,
		.probe = in->probe,
		.status = in->status,
		.open = follow_open,
		.fds = follow_fds,
		.drain = follow_drain,
		.stop = follow_stop,
		.target_gone = follow_target_gone,
		.finish = follow_finish,
		.close = follow_close,
	};
	return &follow_ops;
}
