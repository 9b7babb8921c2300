"""WSS series and peaks: exact values, brute-force cross-check."""
import numpy as np
from conftest import assert_png
from mtrace_writer import make_trace, simple_samples

from memtrace_analyze import wss
from memtrace_analyze.trace import parse_trace


def brute(time, keys, start, T, tau, K):
    t = np.maximum.accumulate(np.asarray(time, dtype=np.int64))
    keys = np.asarray(keys)
    out = []
    for k in range(1, K + 1):
        tk = start + k * T
        m = (t > tk - tau) & (t <= tk)
        out.append(len(set(keys[m].tolist())))
    return out


def test_wss_known_values():
    # buckets A(0) B(1) C(2); T = 10, tau = 10 and 20
    time = np.array([1, 5, 10, 11, 25, 26, 40], dtype=np.uint64)
    keys = np.array([0, 1, 0, 2, 2, 2, 1], dtype=np.uint64)
    assert wss.wss_series(time, keys, 0, 10, 10, 4).tolist() == [2, 1, 1, 1]
    assert wss.wss_series(time, keys, 0, 10, 20, 4).tolist() == [2, 3, 1, 2]


def test_wss_matches_brute_force_random():
    rng = np.random.default_rng(3)
    for trial in range(150):
        n = int(rng.integers(1, 150))
        time = np.sort(rng.integers(0, 1000, n)).astype(np.uint64)
        if trial % 4 == 0:      # out of order: clamped to the latest time
            time = rng.integers(0, 1000, n).astype(np.uint64)
        keys = rng.integers(0, int(rng.integers(1, 25)), n).astype(np.uint64)
        T, tau, start = int(rng.integers(1, 90)), int(rng.integers(1, 300)), int(rng.integers(0, 5))
        K = wss.n_reports(start, int(np.max(time)), T)
        assert wss.wss_series(time, keys, start, T, tau, K).tolist() == brute(time, keys, start, T, tau, K)


def test_n_reports_like_c_engine():
    # t_K is the first report time at or after the end
    assert wss.n_reports(0, 100, 10) == 10
    assert wss.n_reports(0, 101, 10) == 11
    assert wss.n_reports(5, 5, 10) == 1


def test_peaks_found_where_expected():
    series = [10] * 20 + [50] + [10] * 20 + [12, 80, 90, 11] + [10] * 10
    pk = wss.detect_peaks(series)
    assert [(p[0], p[3]) for p in pk] == [(20, 50), (43, 90)]
    assert pk[1][1:3] == (42, 43)
    assert wss.detect_peaks([5] * 50) == []
    assert wss.detect_peaks([]) == []


def test_wss_plot_and_peak_table(tmp):
    # pageramp-like: the working set grows then shrinks, twice
    times, addrs = [], []
    t = 0
    for rep in range(2):
        for width in list(range(1, 40)) + list(range(40, 0, -1)):
            for p in range(width):
                times.append(t)
                addrs.append(0x7f0000000000 + p * 4096)
                t += 3
            t += 100
    tr = parse_trace(make_trace(None, simple_samples(times, addrs, ip=[0x401000] * len(times))), "ramp")
    res = wss.compute(tr, 4096, 500, [500, 5000])
    assert res.data[500].max() <= 40 and res.data[500].max() >= 30
    assert res.total_data == 40
    assert res.code[500].max() == 1
    out = tmp / "w.png"
    wss.plot(tr, res, str(out))
    assert_png(str(out))
    rows = wss.peak_table(tr, res)
    txt = wss.format_peaks(tr, res, rows)
    assert txt.startswith("peaks")


def test_wss_csv(tmp):
    tr = parse_trace(make_trace(None, simple_samples([1, 5, 12, 30], [0, 4096, 0, 8192])), "c")
    res = wss.compute(tr, 4096, 10, [10, 20])
    wss.write_csv(res, str(tmp / "s.csv"))
    lines = (tmp / "s.csv").read_text().splitlines()
    assert lines[0] == "time,wss_data_tau10,wss_data_tau20"
    assert lines[1:] == ["10,2,2", "20,1,2", "30,1,2"]
