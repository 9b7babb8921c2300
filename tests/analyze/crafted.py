"""Crafted small traces (<= 1 KB each, written through the library's writer
by tracegen) whose timestamps, addresses or sample counts claim far more
than the file holds, and every verb of memtracectl and memtrace-analyze run
on each under an address-space limit and a timeout, with the child's time
and peak RSS.  Used by test_bounds.py (generous bounds, exit codes, one-line
errors, exact values) and by bench/crafted/run.sh (the table in
docs/performance.md)."""
import os
import subprocess

import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path[:0] = [HERE, os.path.join(TOP, "user", "analyze")]

from tracegen import write_trace  # noqa: E402
CTL = os.path.join(TOP, "build", "memtracectl")
ANALYZE = os.path.join(TOP, "user", "analyze", "memtrace-analyze")
PY = "/usr/bin/python3"

H = 0x7f0000001000          # inside tracegen's [anon:column]
IP = 0x401000               # dbquery+0x1000


def _scattered(n):
    # n samples 2 MiB apart: one bucket per leaf of the bucket map
    return (np.arange(n, dtype=np.uint64) << np.uint64(21)) + np.uint64(1 << 40)


# name -> keyword arguments of write_trace
TRACES = {
    # two samples 1e15 ns apart (the 700-byte, 11.9 s / 2.39 GB case)
    "span-1e15": dict(time=[1, 10 ** 15], addr=[H, H + 4096], ip=[IP, IP], time_unit="ns"),
    # 2^63 ns apart, the start at 0
    "span-2^63": dict(time=[0, 1 << 63], addr=[H, H + 4096], ip=[IP, IP], time_unit="ns"),
    # the lowest and highest page of the address space
    "addr-span": dict(time=[1, 2], addr=[0x1000, 0xfffffffffffff000], ip=[IP, IP], time_unit="ns"),
    # 30000 samples 2 MiB apart in one time unit each (compresses to < 1 KB)
    "scattered-30k": dict(time=np.arange(30000, dtype=np.uint64), addr=_scattered(30000), time_unit="ns",
                          maps=None),
    # 30000 samples of 10000 processes (3 each, a page apart), 1 us apart:
    # a report per process names 10000 owners (interned by hash: compared
    # one by one they took 26 s)
    "procs-10k": dict(time=np.arange(30000, dtype=np.uint64) * 1000,
                      addr=H + (np.arange(30000, dtype=np.uint64) << np.uint64(12)),
                      pid=np.arange(30000, dtype=np.uint32) % 10000 + 100, time_unit="ns", chunk=30000,
                      maps=None),
    # 5 chunks of one sample each, 1000 s apart
    "tiny-chunks": dict(time=np.arange(5, dtype=np.uint64) * 10 ** 12, addr=H + np.arange(5, dtype=np.uint64) * 4096,
                        time_unit="ns", chunk=1),
    "one-sample": dict(time=[5], addr=[H], ip=[IP], time_unit="ns"),
    # a hint fault before the trace start (start_time 1000 ns, sample at 5)
    "before-start": dict(time=[5, 10 ** 9], addr=[H, H + 4096], ip=[IP, IP], time_unit="ns", start_time=1000),
    # END's end_time before every sample
    "end-before": dict(time=[10 ** 9, 2 * 10 ** 9], addr=[H, H + 4096], ip=[IP, IP], time_unit="ns",
                       end_time=10),
}


def write_all(d):
    """Writes every crafted trace into directory d: {name: path}."""
    out = {}
    for name, kw in TRACES.items():
        out[name] = write_trace(os.path.join(d, name + ".mtrace"), **kw)
    return out


def verbs(path, other, tmp):
    """(label, argv) of every verb and mode on path (other: a second trace for compare)."""
    o = lambda s: os.path.join(tmp, s)   # noqa: E731
    return [
        ("report", [CTL, "report", path]),
        ("report --json", [CTL, "report", "--json", path]),
        ("report --series", [CTL, "report", "--series", o("series.csv"), path]),
        ("report --per-process", [CTL, "report", "--per-process", path]),
        ("report -w 1s -i 1us", [CTL, "report", "--window", "1s", "--interval", "1us", path]),
        ("report -i 1ns", [CTL, "report", "--interval", "1ns", path]),
        ("report -w 1ns -i 1ns", [CTL, "report", "--window", "1ns", "--interval", "1ns", path]),
        ("dump --meta", [CTL, "dump", "--meta", path]),
        ("compare", [CTL, "compare", path, other]),
    ]


_CTL_DRIVER = r"""
import json, os, resource, subprocess, sys, time
argv, lim, timeout = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
t0 = time.monotonic()
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit)
try:
    out, err = p.communicate(timeout=timeout)
    rc = p.returncode
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
    rc = None
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps([rc, out.decode("utf-8", "replace")[-100000:], err.decode("utf-8", "replace"),
                  time.monotonic() - t0, rss]))
"""


def run_measured(argv, as_bytes, timeout):
    """Runs argv under RLIMIT_AS = as_bytes from a bare interpreter (so that
    RUSAGE_CHILDREN is this command's alone): (rc or None after timeout,
    stdout, stderr, seconds, peak RSS bytes)."""
    import json
    p = subprocess.run([PY, "-S", "-c", _CTL_DRIVER, json.dumps(argv), str(as_bytes), str(timeout)],
                       stdout=subprocess.PIPE, check=True, text=True)
    return tuple(json.loads(p.stdout))


def analyze_verbs(path, tmp):
    """(label, memtrace-analyze argv) of every analysis verb on path."""
    o = lambda s: os.path.join(tmp, s)   # noqa: E731
    return [
        ("analyze info", ["info", path]),
        ("analyze heatmap", ["heatmap", path, "-o", o("heatmap.png")]),
        ("analyze wss", ["wss", path, "-o", o("wss.png")]),
        ("analyze hot", ["hot", path, "-o", o("hot.png")]),
        ("analyze regions", ["regions", path, "-o", o("regions.png")]),
        ("analyze report", ["report", path, "-o", o("report")]),
        ("analyze compare", ["compare", path, path, "-o", o("compare.png")]),
        ("analyze mrc", ["mrc", path, "-o", o("mrc.png")]),
        ("analyze cold", ["cold", path, "-o", o("cold.png")]),
        ("analyze damon", ["damon", path, "-o", o("damon.png")]),
    ]


_ANALYZE_DRIVER = r"""
import contextlib, io, json, os, resource, sys, time
sys.path[:0] = [%r]
lim = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
from memtrace_analyze import cli
out = []
for label, argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    t0 = time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = cli.main(argv)
        except SystemExit as e:
            rc = e.code
        except MemoryError:
            rc = "MemoryError"
    out.append([label, rc or 0, err.getvalue(), time.monotonic() - t0])
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps([out, rss]))
"""


def run_analyze(verbs_, as_bytes, timeout):
    """Every memtrace-analyze verb of verbs_ (analyze_verbs) in one Python
    process under RLIMIT_AS = as_bytes (the interpreter, numpy and
    matplotlib loaded once): ([[label, rc, stderr, seconds]], peak RSS of
    the process over all of them), or None after timeout."""
    import json
    env = dict(os.environ, MPLBACKEND="Agg")
    try:
        p = subprocess.run([PY, "-c", _ANALYZE_DRIVER % os.path.join(TOP, "user", "analyze"),
                            json.dumps(verbs_), str(as_bytes)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return [[label, "died %d" % p.returncode, p.stderr[-400:], 0] for label, _ in verbs_], 0
    return json.loads(p.stdout.splitlines()[-1])
