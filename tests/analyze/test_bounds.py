"""Cost bounded by what the trace holds (issue 26): every verb of
memtracectl and memtrace-analyze on crafted traces of <= 1 KB (huge time
and address spans, samples scattered one per bucket-map leaf, many tiny
chunks, one sample, a sample before the start, END before the samples)
under an address-space limit exits 0 or with one line on stderr, in far
less than the limit.  The limits are generous (the targets, 1 s and 100 MB,
are measured by bench/crafted/run.sh into docs/performance.md); they still
catch the 9-12 s / 2.4 GB a 700-byte trace used to cost.  Exact values
where the truth is known; out of memory inside the library is an error,
not an exit."""
import json
import os
import subprocess

import pytest

import crafted
from crafted import ANALYZE, CTL, PY  # noqa: F401

CTL_AS = 400 << 20          # memtracectl: 400 MB of address space
PY_AS = 1200 << 20          # memtrace-analyze (numpy, matplotlib): 1.2 GB
TIMEOUT = 60


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("crafted")
    return crafted.write_all(str(d))


def test_crafted_traces_are_small(traces):
    for name, path in traces.items():
        assert os.path.getsize(path) <= 1024, (name, os.path.getsize(path))


@pytest.mark.parametrize("name", sorted(crafted.TRACES))
def test_every_verb_bounded(traces, name, tmp_path):
    other = traces["one-sample"]
    bad = []

    def check(label, rc, err):
        lines = [l for l in err.splitlines() if l.strip()]
        if rc != 0 and (len(lines) != 1 or "Traceback" in err):
            bad.append("%s: exit %s with %d lines on stderr: %s" % (label, rc, len(lines), err[-400:]))
        elif rc not in (0, 1, 2):
            bad.append("%s: exit %s (killed?): %s" % (label, rc, err[-400:]))

    for label, argv in crafted.verbs(traces[name], other, str(tmp_path)):
        rc, out, err, secs, rss = crafted.run_measured(argv, CTL_AS, TIMEOUT)
        if rc is None:
            bad.append("%s: still running after %d s" % (label, TIMEOUT))
            continue
        check(label, rc, err)
        if rss > 200 << 20:
            bad.append("%s: peak RSS %.0f MB" % (label, rss / 1e6))
    res = crafted.run_analyze(crafted.analyze_verbs(traces[name], str(tmp_path)), PY_AS, 4 * TIMEOUT)
    if res is None:
        bad.append("memtrace-analyze: still running after %d s" % (4 * TIMEOUT))
    else:
        for label, rc, err, secs in res[0]:
            check(label, rc, err)
        if res[1] > 600 << 20:
            bad.append("memtrace-analyze verbs: peak RSS %.0f MB" % (res[1] / 1e6))
    assert not bad, "\n".join(bad)


def ctl(*args):
    return subprocess.run([CTL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT)


def test_span_series_is_sparse_and_exact(traces, tmp_path):
    """2 samples 1e15 ns apart: 10^7 intervals of 100 ms, 2 rows (the
    intervals holding a sample), WSS 1 each; the rest are gaps."""
    p = ctl("report", "--json", traces["span-1e15"])
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["intervals"] == 10 ** 7
    assert j["wss_data"]["total"] == 2 and j["wss_data"]["peak"] == 1
    from memtrace_analyze import lib
    r = lib.report(traces["span-1e15"])
    assert r["intervals"] == 10 ** 7 and abs(r["data"]["avg"] - 2 / 10 ** 7) < 1e-15
    assert r["data"]["time"].tolist() == [10 ** 8, 10 ** 15] and r["data"]["wss"].tolist() == [1, 1]
    csv = str(tmp_path / "s.csv")
    assert ctl("report", "--series", csv, traces["span-1e15"]).returncode == 0
    rows = [l.split(",") for l in open(csv).read().splitlines()[1:]]
    assert [(int(r[0]), int(r[1])) for r in rows] == [(10 ** 8, 1), (10 ** 15, 1)]


def test_sample_before_start_is_negative_not_wrapped(traces):
    """A hint fault at 5 ns with start_time 1000 ns: 995 ns before the start."""
    p = ctl("report", traces["before-start"])
    assert p.returncode == 0, p.stderr
    assert "18446744073" not in p.stdout
    assert "from -0.995 us to 999.999 ms" in p.stdout
    j = json.loads(ctl("report", "--json", traces["before-start"]).stdout)
    assert j["first_sample"] == -995 and j["last_sample"] == 10 ** 9 - 1000
    env = dict(os.environ, MPLBACKEND="Agg")
    a = subprocess.run([PY, ANALYZE, "info", traces["before-start"]], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env, timeout=TIMEOUT)
    assert a.returncode == 0, a.stderr
    assert "18446744073" not in a.stdout + a.stderr


def test_fifo_refused_not_blocking(tmp_path):
    """A FIFO without a writer: refused at once (not a regular file)."""
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    for argv in ([CTL, "report", fifo], [CTL, "dump", fifo], [CTL, "compare", fifo, fifo],
                 [PY, ANALYZE, "info", fifo]):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        assert p.returncode in (1, 2), (argv, p.returncode)
        assert "not a regular file" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert p.stdout == "", p.stdout


def test_out_of_memory_is_an_error_not_an_exit(traces):
    """memtracectl: one line, exit 1.  Python: the library returns ENOMEM,
    lib raises MemtraceError and the interpreter goes on."""
    span = traces["span-1e15"]
    # the window's ring (8 MiB a series) cannot be allocated under 40 MB of
    # address space on top of what the process already maps
    p = crafted.run_measured([CTL, "report", "--window", "100ms", "--interval", "1us", span], 24 << 20, TIMEOUT)
    rc, err = p[0], p[2]
    assert rc == 1 and err.strip().splitlines() == [err.strip()], (rc, err)
    assert "out of memory" in err, err
    code = r"""
import resource, sys
sys.path.insert(0, %r)
from memtrace_analyze import lib
lib.report(%r)                      # loads the library, warms up
vm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:")][0] * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (6 << 20), resource.RLIM_INFINITY))
try:
    lib.report(%r, window=100000000, interval=1000)     # 2 rings of 8 MiB
except lib.MemtraceError as e:
    print("raised:", e)
resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
print("alive", lib.report(%r)["samples"])
""" % (os.path.join(crafted.TOP, "user", "analyze"), span, span, span)
    p = subprocess.run([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    assert "raised:" in p.stdout and "out of memory" in p.stdout, p.stdout
    assert "alive 2" in p.stdout, p.stdout
