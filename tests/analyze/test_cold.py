"""Cold memory (report --cold, MEMTRACE_REPORT_COLD, memtrace-analyze cold) on
crafted traces, against simulations written here from the definitions in
docs/sizing.md ("Cold memory"):

  access traces: at t_j a page is cold for θ when its latest sample at or
  before t_j is at or before t_j - θ;
  accessed bits: when the latest pass at or before t_j lies at least θ
  after its latest sample (idle time never counted past the last pass);
  hint faults: when t_j lies at least θ after the second pass advance at or
  after its latest fault (the sweep that re-armed it);

seen = pages with a sample at or before t_j; per process, per --region;
the blind points are those whose report window holds no pass.  Page-fault
traces are refused with one line."""
import json
import subprocess

import numpy as np

from conftest import CLI, PYTHON, TOP, assert_png
from memtrace_analyze import lib
from memtrace_analyze.lib import Writer

import tracegen

CTL = TOP + "/build/memtracectl"
S = 10**9
BASE = 0x7f0000000000
PAGE = 4096


def access_stream(seed=3, pages=40, end=300):
    """Each page active (a sample every ~0.5 s) over a few random stretches."""
    rng = np.random.default_rng(seed)
    t, a = [], []
    for p in range(pages):
        for _ in range(rng.integers(1, 4)):
            lo = rng.uniform(0, end - 20)
            hi = min(end, lo + rng.exponential(30))
            n = max(1, int((hi - lo) * 2))
            t += list(np.sort(rng.uniform(lo, hi, n)))
            a += [BASE + p * PAGE + 64] * n
    order = np.argsort(t, kind="stable")
    return (np.array(t)[order] * S).astype(np.uint64), np.array(a, np.uint64)[order]


def sim_access(time, page, thr, step, npts):
    """{seen: [..], cold: [[..] per θ]} at t_j = j step, j = 1..npts."""
    seen, cold = [], [[] for _ in thr]
    for j in range(1, npts + 1):
        tj = j * step
        last = {}
        for t, p in zip(time, page):
            if t <= tj:
                last[p] = t
        seen.append(len(last))
        for i, th in enumerate(thr):
            cold[i].append(sum(1 for v in last.values() if tj - v >= th))
    return seen, cold


def ctl(*args):
    return subprocess.run([CTL, "report"] + list(args), capture_output=True, text=True)


def test_access_trace_equals_simulation(tmp_path):
    time, addr = access_stream()
    end = 300 * S
    path = tracegen.write_trace(str(tmp_path / "a.mtrace"), time, addr, time_unit="ns", end_time=end)
    thr = [10 * S, 60 * S, 120 * S]
    rep = lib.report(path, flags=lib.REPORT_COLD)
    c = rep["cold"]
    assert c["method"] == "access" and not c["upper_bound"] and c["thresholds"] == thr
    assert c["step"] == S and len(c["time"]) == 300 and c["false_cold"] is None
    seen, cold = sim_access(time.tolist(), (addr // PAGE).tolist(), thr, c["step"], len(c["time"]))
    assert c["seen"].tolist() == seen
    for i in range(3):
        assert c["cold"][i].tolist() == cold[i], i
    assert max(cold[2]) > 0    # the trace exercises the longest threshold
    # the same numbers in --json, settable thresholds and step
    j = json.loads(ctl(path, "--cold=5s,45s", "--cold-step", "3s", "--json").stdout)["cold"]
    seen, cold = sim_access(time.tolist(), (addr // PAGE).tolist(), [5 * S, 45 * S], 3 * S, len(j["time"]))
    assert j["step"] == 3 * S and j["seen"] == seen and j["cold"] == cold
    assert j["upper_bound"] is False and j["counts"] == "every data access: exact"


def test_region_and_per_process(tmp_path):
    """--region: only the pages its label covers; --per-process: each pid's own."""
    time, addr = access_stream(seed=5)
    path = str(tmp_path / "two.mtrace")
    other = 777
    pid = np.where(np.arange(time.size) % 3 == 0, other, tracegen.PID).astype(np.uint32)
    h = {"format": "memtrace-1", "host": "test", "backend": "test", "source": "synthetic", "event": "loads",
         "sample_period": 1, "clock": "monotonic", "time_unit": "ns", "start_time": 0, "bucket_default": PAGE,
         "target_pid": tracegen.PID, "target_comm": "a", "command": "test_cold"}
    w = Writer(path, h)
    for p in (tracegen.PID, other):
        w.maps(0, p, tracegen.MAPS)
        w.thread(0, p, p, "x")
    w.samples(time=time, addr=addr, pid=pid, tid=pid, cpu=np.zeros(time.size, np.uint32))
    w.close({"end_reason": "target-exited", "end_time": 300 * S, "samples": time.size, "lost": 0,
             "throttled": 0, "dropped": 0})
    thr = [10 * S, 60 * S, 120 * S]
    labels = str(tmp_path / "l.labels")
    with open(labels, "w") as f:
        f.write("%#x %d Cool part\n" % (BASE + 10 * PAGE, 12 * PAGE))
    j = json.loads(ctl(path, "--cold", "--labels", labels, "--region", "Cool part", "--json").stdout)["cold"]
    # START SIZE NAME: addresses of the target process
    inr = (addr >= BASE + 10 * PAGE) & (addr < BASE + 22 * PAGE) & (pid == tracegen.PID)
    seen, cold = sim_access(time[inr].tolist(), (addr[inr] // PAGE).tolist(), thr, j["step"], len(j["time"]))
    assert j["seen"] == seen and j["cold"] == cold and 0 < max(seen) <= 12 and max(cold[1]) > 0
    j = json.loads(ctl(path, "--cold", "--per-process", "--json").stdout)["cold"]
    assert [p["pid"] for p in j["processes"]] == [tracegen.PID, other]
    for p in j["processes"]:
        m = pid == p["pid"]
        seen, cold = sim_access(time[m].tolist(), (addr[m] // PAGE).tolist(), thr, j["step"], len(j["time"]))
        assert p["seen"] == seen and p["cold"] == cold, p["pid"]
    text = ctl(path, "--cold", "--per-process").stdout
    assert "Cold per process, at the end (2)" in text and "pid 777: seen" in text


def write_passes(path, time, addr, passes, cls, end):
    orig = Writer.close

    def close(self, end_meta=None):
        self.passes(passes)
        return orig(self, end_meta)
    Writer.close = close
    try:
        what = passes[0][2]
        tracegen.write_trace(str(path), time, addr, time_unit="ns", end_time=end,
                             meta={"sample_class": cls, "event": "accessed" if what == 3 else "hint-faults",
                                   "source": "accessed" if what == 3 else "hint-faults", "passes": str(what)})
    finally:
        Writer.close = orig
    return str(path)


def pass_trace(tmp_path, cls):
    """Passes every 2 s except none in (40 s, 90 s) (blind); accessed-bit
    samples at each pass for the pages accessed since the previous one,
    hint faults at the first access after a pass."""
    rng = np.random.default_rng(11)
    what = 3 if cls == "accessed-bit" else 1
    passes = [t * S for t in range(2, 200, 2) if not 40 < t < 90]
    ta, aa = access_stream(seed=9, pages=30, end=200)
    t, a = [], []
    prev = 0
    for p in passes:
        m = (ta > prev) & (ta <= p)
        pages = sorted(set((aa[m]).tolist()))
        if cls == "accessed-bit":
            t += [p] * len(pages)
            a += pages
        else:       # the first access of each page after the pass (rearmed at every pass here)
            for pg in pages:
                t.append(int(ta[m][aa[m] == pg].min()))
                a.append(pg)
        prev = p
    order = np.argsort(t, kind="stable")
    del rng
    path = write_passes(tmp_path / ("%s.mtrace" % cls), np.array(t, np.uint64)[order],
                        np.array(a, np.uint64)[order], [(p, tracegen.PID, what) for p in passes], cls, 200 * S)
    return path, np.array(t, np.uint64)[order].tolist(), (np.array(a, np.uint64)[order] // PAGE).tolist(), passes


def sim_passes(time, page, passes, thr, step, npts, cls):
    seen, cold = [], [[] for _ in thr]
    for j in range(1, npts + 1):
        tj = j * step
        last = {}
        for t, p in zip(time, page):
            if t <= tj:
                last[p] = t
        seen.append(len(last))
        before = [p for p in passes if p <= tj]
        for i, th in enumerate(thr):
            n = 0
            for v in last.values():
                if cls == "accessed-bit":
                    n += bool(before) and before[-1] - v >= th
                else:
                    after = [p for p in passes if p >= v]
                    n += len(after) >= 2 and tj - after[1] >= th
            cold[i].append(n)
    return seen, cold


def test_pass_traces_with_blind_window(tmp_path):
    thr = [10 * S, 30 * S]
    for cls in ("accessed-bit", "hint-fault"):
        path, time, page, passes = pass_trace(tmp_path, cls)
        rep = lib.report(path, flags=lib.REPORT_COLD, cold=thr)
        c = rep["cold"]
        assert c["method"] == ("accessed-bits" if cls == "accessed-bit" else "hint-faults")
        seen, cold = sim_passes(time, page, passes, thr, c["step"], len(c["time"]), cls)
        assert c["seen"].tolist() == seen, cls
        for i in range(len(thr)):
            assert c["cold"][i].tolist() == cold[i], (cls, i)
        assert max(cold[1]) > 0, cls
        # blind points: no pass in the report window (t_j - window, t_j]
        w = rep["window"]
        blind = [not any(tj - w < p <= tj for p in passes) for tj in c["time"].tolist()]
        assert c["blind"].tolist() == blind and c["blind_points"] == sum(blind) > 10, cls
        age = [tj - max([p for p in passes if p <= tj]) for tj in c["time"].tolist()]
        assert c["pass_age"].tolist() == age
        if cls == "accessed-bit":   # in the blind stretch nothing new turns cold: as of the last pass
            k = [i for i, tj in enumerate(c["time"].tolist()) if 40 * S <= tj < 90 * S]
            assert len(set(c["cold"][0][k].tolist())) == 1
        text = ctl(path, "--cold=10s,30s").stdout
        assert "lie in windows without a pass" in text and ("never counted past the latest pass" in text
                                                            or "second scan sweep" in text)


def test_blind_points_shaded_a_span_per_run(tmp_path, monkeypatch):
    from memtrace_analyze import cold, plotting
    path, _, _, _ = pass_trace(tmp_path, "hint-fault")
    rep = lib.report(path, flags=lib.REPORT_COLD, cold=[10 * S, 30 * S])
    c = rep["cold"]
    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, out: figs.append(fig))
    cold.plot(lib.Trace(path), rep, str(tmp_path / "c.png"))
    ax = figs[0].axes[0]
    spans = sorted((p.get_x(), p.get_x() + p.get_width()) if hasattr(p, "get_x") else
                   (p.get_xy()[:, 0].min(), p.get_xy()[:, 0].max()) for p in ax.patches)
    x = c["time"] / 1e9
    step = x[1] - x[0]
    blind = c["blind"].tolist()
    assert len(spans) == len(cold.runs(blind)) >= 1      # before: one artist per blind point
    for j, b in enumerate(blind):     # each point's interval (x - step, x] shaded exactly when blind
        mid = x[j] - step / 2
        assert any(lo <= mid <= hi for lo, hi in spans) == b, (j, b)
    assert cold.runs([True, True, False, True]) == [(0, 2), (3, 4)] and cold.runs([False]) == []


def test_sampled_upper_bound_words(tmp_path):
    time, addr = access_stream()
    path = tracegen.write_trace(str(tmp_path / "s.mtrace"), time[::10], addr[::10], time_unit="ns",
                                end_time=300 * S, sample_period=10)
    c = lib.report(path, flags=lib.REPORT_COLD)["cold"]
    assert c["upper_bound"] and c["period"] == 10 and len(c["false_cold"]) == 3
    seen, cold = sim_access(time[::10].tolist(), (addr[::10] // PAGE).tolist(), c["thresholds"], c["step"],
                            len(c["time"]))
    assert c["cold"][0].tolist() == cold[0]
    # the chance scale: each page's samples a Poisson stream at its mean rate
    pages, counts = np.unique(addr[::10] // PAGE, return_counts=True)
    want = float(np.exp(-counts / (300 * S) * (10 * S)).sum())
    assert abs(c["false_cold"][0] - want) < 1e-6 * max(want, 1)
    text = ctl(path, "--cold").stdout
    assert "UPPER BOUND" in text and "cold by chance alone" in text


def test_first_touch_refused_and_png(tmp_path):
    time, addr = access_stream()
    ft = tracegen.write_trace(str(tmp_path / "ft.mtrace"), time, addr, time_unit="ns", end_time=300 * S,
                              meta={"sample_class": "first-touch"})
    p = ctl(ft, "--cold")
    assert p.returncode == 1 and p.stderr.count("\n") == 1, p.stderr
    assert "no cold memory of a first-touch trace" in p.stderr
    p = subprocess.run([PYTHON, CLI, "cold", ft, "-o", str(tmp_path / "x.png")], capture_output=True, text=True)
    assert p.returncode == 2 and "first-touch" in p.stderr
    ok = tracegen.write_trace(str(tmp_path / "ok.mtrace"), time, addr, time_unit="ns", end_time=300 * S)
    out = tmp_path / "cold.png"
    p = subprocess.run([PYTHON, CLI, "cold", ok, "-o", str(out), "--per-process"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert_png(str(out))
    assert "every data access (exact)" in p.stderr and "idle >= 120s" in p.stderr
