"""Figures drawn in forked processes while the caller draws its own.

report's figures are independent once the numbers are computed; on two
cores a report takes the time of the longest share instead of the sum.

    p = Painter()
    p.add(hot.plot, ...)            # calls anyone may make
    p.add(regions.plot, ...)
    p.start()                       # workers start taking them
    heatmap.plot(...)               # the caller's own (its result is used)
    p.finish()                      # the caller takes what is left, then waits

Calls are taken in the order added, each by whichever process is free
first (one byte each from a pipe: a read of one byte is atomic), so a
worker that finishes early takes the next instead of idling while the
caller draws.  A call a worker did not finish (it raised, or the worker
died) is made again by the caller in finish(), which raises what it
raises.  jobs: the CPUs this process may use, or MEMTRACE_ANALYZE_JOBS
when set; 1: no workers, every call made in finish(), in order."""

import os
import sys

MAX_CALLS = 255


class Painter:
    def __init__(self, jobs=None):
        if jobs is None:
            env = os.environ.get("MEMTRACE_ANALYZE_JOBS", "")
            jobs = int(env) if env.isdigit() and int(env) > 0 else len(os.sched_getaffinity(0))
        self.jobs = jobs
        self.calls = []
        self.workers = []
        self.todo = None        # read end of the pipe of call numbers
        self.done = None        # read end of the pipe of finished call numbers

    def add(self, fn, *args, **kw):
        if self.todo is not None:
            raise RuntimeError("Painter.add after start")
        if len(self.calls) >= MAX_CALLS:
            raise ValueError("Painter: at most %d calls" % MAX_CALLS)
        self.calls.append((fn, args, kw))

    def _next(self):
        """The number of the next call nobody has taken, or None."""
        b = os.read(self.todo, 1)
        return b[0] if b else None

    def start(self):
        """Workers (at most jobs - 1, at most one per call) start taking calls."""
        todo_r, todo_w = os.pipe()
        os.write(todo_w, bytes(range(len(self.calls))))
        os.close(todo_w)
        self.todo = todo_r
        n = min(self.jobs - 1, len(self.calls))
        if n <= 0:
            return
        done_r, done_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        for _ in range(n):
            pid = os.fork()
            if pid == 0:    # a worker: never returns into the caller's code
                rc = 1
                try:
                    os.close(done_r)
                    while (i := self._next()) is not None:
                        fn, args, kw = self.calls[i]
                        fn(*args, **kw)
                        os.write(done_w, bytes([i]))
                    rc = 0
                finally:
                    os._exit(rc)
            self.workers.append(pid)
        os.close(done_w)
        self.done = done_r

    def finish(self):
        """Makes the calls nobody has taken, waits for the workers, makes
        again each call a worker took and did not finish."""
        if self.todo is None:
            self.start()
        finished = set()    # this process's calls, then the workers' (their pipe)
        try:
            while (i := self._next()) is not None:
                finished.add(i)
                fn, args, kw = self.calls[i]
                fn(*args, **kw)
        finally:
            os.close(self.todo)
            for pid in self.workers:
                os.waitpid(pid, 0)
        if self.done is not None:
            while b := os.read(self.done, 256):
                finished.update(b)
            os.close(self.done)
        self.workers, self.todo, self.done = [], None, None
        for i, (fn, args, kw) in enumerate(self.calls):
            if i not in finished:
                fn(*args, **kw)     # again here: its error (or the figure) is the caller's
