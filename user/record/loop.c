/* loop.c - THE record loop (see loop.h and source/source.h). */
#include "record/loop.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/metrics_http.h"
#include "record/recorder.h"
#include "record/signals.h"
#include "source/probes/mark_probe.h"
#include "util/util.h"

/* Why to stop early, or NULL: --duration first, then a signal. */
static const char *stop_reason(uint64_t deadline, uint64_t wall)
{
	if (deadline && wall >= deadline)
		return "duration";
	if (record_stop_signalled())
		return "signal";
	return NULL;
}

/* The fds to wait on, growing the array as needed; their count. */
static int source_fds(const struct source_ops *ops, void *state, struct pollfd **p,
		      int *cap)
{
	if (!ops->fds)
		return 0;
	for (;;) {
		int n = ops->fds(state, *p, *cap);

		if (n <= *cap)
			return n;
		*cap = n;
		*p = mt_xrealloc(*p, (size_t)n * sizeof(**p));
	}
}

int record_loop(const struct source_ops *ops, void *state, struct recorder *r,
		double duration, struct mark_session *marks, struct metrics_http *metrics)
{
	uint64_t deadline = duration > 0 ? mt_now_ns() + (uint64_t)(duration * 1e9) : 0;
	const char *reason = NULL;	/* set by the stop check */
	struct pollfd *p = NULL;
	/* under way: the file takes its place (publish_late: the source does it) */
	int cap = 0, failed = !ops->publish_late && recorder_publish(r) != 0;

	while (!failed) {
		struct source_step step = { 0 };
		int n = source_fds(ops, state, &p, &cap);

		int m = marks && n > 0;	/* the probes' ring too (the source's step counts its own) */

		if (m) {
			if (n + 1 > cap)
				p = mt_xrealloc(p, (size_t)(cap = n + 1) * sizeof(*p));
			p[n] = (struct pollfd){ .fd = mark_fd(marks), .events = POLLIN };
		}
		int h = 0;	/* --metrics: the listener and its clients, after the rest */
		if (metrics) {
			if (n + m + 1 + METRICS_HTTP_CLIENTS > cap)
				p = mt_xrealloc(p, (size_t)(cap = n + m + 1 + METRICS_HTTP_CLIENTS) *
							   sizeof(*p));
			h = metrics_http_fds(metrics, p + n + m, cap - n - m);
		}
		if (n > 0) {
			step.ready = poll(p, (nfds_t)(n + m + h), RECORD_POLL_MS);
			step.poll_errno = step.ready < 0 ? errno : 0;
			if (m && step.ready > 0)
				step.ready -= !!p[n].revents;
			for (int i = 0; i < h && step.ready > 0; i++)
				step.ready -= !!p[n + m + i].revents;
		} else if (h && poll(p, (nfds_t)h, 0) < 0) {	/* a file: never wait */
			h = 0;
		}
		step.wall = mt_now_ns();
		if (ops->drain(state, r, p, n, &step) || (marks && mark_drain(marks, r)) ||
		    (step.tick && recorder_tick(r, step.now))) {
			failed = 1;
			break;
		}
		/* --switch-output: a new file when due or asked (SIGHUP) */
		if (step.tick && recorder_rotating(r) &&
		    (record_switch_signalled() | recorder_rotate_due(r, step.wall)) &&
		    recorder_rotate(r, step.now)) {
			failed = 1;
			break;
		}
		/* after the tick: the windows closed by it are served */
		if (h)
			metrics_http_serve(metrics, p + n + m, h, r, step.wall);
		if (step.ended)
			break;
		if (!reason && (reason = stop_reason(deadline, step.wall)) &&
		    !(ops->stop && ops->stop(state, reason)))
			break;
		if (ops->target_gone && ops->target_gone(state, step.wall))
			break;
	}
	free(p);
	if (!reason)
		reason = ops->end_reason;
	if (ops->finish(state, r, failed, &reason))
		return -1;
	if (marks && mark_finish(marks, r))
		return -1;
	return recorder_end(r, reason);
}

int record_source(const struct source_ops *ops, const struct record_opts *o,
		  struct recorder *r)
{
	struct mark_session *marks = NULL;
	struct metrics_http *metrics = NULL;
	char err[512];

	/* --metrics: listening before anything starts (a port in use fails early) */
	if (o->metrics && !(metrics = metrics_http_open(o->metrics, err, sizeof(err)))) {
		mt_err("%s", err);
		return -1;
	}

	if (o->mark) {	/* before the source: a command's first spans count too */
		if (!(marks = mark_open(o, err, sizeof(err)))) {
			mt_err("%s", err);
			metrics_http_close(metrics);
			return -1;
		}
		recorder_meta(r, "mark", "%s", mark_describe(marks));
	}
	/* -- CMD: the source forks the command and lets it exec in open; with
	 * the collector itself in the BPF tgid map its fork program adds the
	 * child before the exec, so a command that ends within the open still
	 * has its spans (adding the child's pid after the open missed them) */
	int self = marks && o->argv && !mark_add_pid(marks, (int)getpid());
	void *state = ops->open(o, r);

	if (self)
		mark_del_pid(marks, (int)getpid());
	if (!state) {
		mark_close(marks);
		metrics_http_close(metrics);
		return -1;
	}
	if (marks && o->argv && recorder_target(r) > 0 && mark_add_pid(marks, recorder_target(r)))
		mt_warn("--mark: cannot follow the command's process: its spans are missing");
	int rc = ops->close(state, record_loop(ops, state, r, o->duration, marks, metrics));
	mark_close(marks);
	metrics_http_close(metrics);
	return rc;
}
