"""The command line: every verb writes a PNG; bad input gives one clear line."""
import subprocess

import numpy as np
import pytest
from conftest import CLI, PYTHON, assert_png
from mtrace_writer import make_trace, simple_samples


def run(*args):
    r = subprocess.run([PYTHON, CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def trace(tmp_path):
    rng = np.random.default_rng(2)
    n = 3000
    addrs = np.concatenate([0x4c8000 + rng.integers(0, 0x30000, n),
                            0x7f0000000000 + rng.integers(0, 0x400000, n)])
    times = np.arange(2 * n) * 7
    p = tmp_path / "t.mtrace"
    make_trace(str(p), simple_samples(times.tolist(), addrs.tolist(), ip=[0x401000] * (2 * n)))
    return p


@pytest.mark.parametrize("verb", ["heatmap", "wss", "hot", "regions"])
def test_verb_png(verb, trace, tmp_path):
    out = tmp_path / (verb + ".png")
    rc, so, se = run(verb, trace, "-o", out)
    assert rc == 0, se
    assert so.strip() == str(out)
    assert_png(str(out))


def test_compare_png(trace, tmp_path):
    out = tmp_path / "c.png"
    rc, so, se = run("compare", trace, trace, "-o", out)
    assert rc == 0, se
    assert_png(str(out))
    assert "+0.0%" in se and "total" in se


def test_report_cli(trace, tmp_path):
    out = tmp_path / "rep"
    rc, so, se = run("report", trace, "-o", out, "--tau", "1k,10k")
    assert rc == 0, se
    assert so.strip().endswith("index.html")
    for f in ("heatmap.png", "wss.png", "hot.png", "regions.png", "index.html", "summary.json"):
        assert (out / f).stat().st_size > 0


def test_heatmap_zoom_options(trace, tmp_path):
    out = tmp_path / "z.png"
    rc, _, se = run("heatmap", trace, "-o", out, "--mapping", "[heap]", "--time-range", "1k-20k", "--bucket", "1K")
    assert rc == 0, se
    assert_png(str(out))
    rc, _, se = run("heatmap", trace, "-o", out, "--range", "7f0000000000-7f0000100000")
    assert rc == 0, se


def test_truncated_trace_warns_and_plots(trace, tmp_path):
    data = trace.read_bytes()
    cut = tmp_path / "cut.mtrace"
    cut.write_bytes(data[:len(data) - 40])
    rc, so, se = run("heatmap", cut, "-o", tmp_path / "h.png")
    assert rc == 0
    assert "warning" in se and "truncated tail" in se


def test_malformed_trace_clear_error(tmp_path):
    bad = tmp_path / "bad.mtrace"
    bad.write_bytes(b"this is not a trace at all, just some text\n")
    rc, so, se = run("heatmap", bad, "-o", tmp_path / "x.png")
    assert rc == 2
    assert se.strip().count("\n") == 0
    assert "memtrace-analyze: error:" in se and "not a memtrace trace" in se
    assert "Traceback" not in se
    assert not (tmp_path / "x.png").exists()


def test_corrupt_trace_clear_error(trace, tmp_path):
    data = bytearray(trace.read_bytes())
    data[len(data) // 2] ^= 0x55
    bad = tmp_path / "corrupt.mtrace"
    bad.write_bytes(bytes(data))
    rc, so, se = run("wss", bad, "-o", tmp_path / "x.png")
    assert rc == 2 and "corrupt chunk at offset" in se and "Traceback" not in se


def test_empty_trace_clear_message(tmp_path):
    p = tmp_path / "empty.mtrace"
    make_trace(str(p), None)
    for verb in ("heatmap", "wss", "hot", "regions"):
        rc, so, se = run(verb, p, "-o", tmp_path / "x.png")
        assert rc == 1, (verb, se)
        assert "holds no samples" in se and "Traceback" not in se
    rc, so, se = run("report", p, "-o", tmp_path / "rep")
    assert rc == 0 and "holds no samples" in se
    assert (tmp_path / "rep" / "index.html").exists()


def test_bad_option_values(trace, tmp_path):
    rc, _, se = run("heatmap", trace, "-o", tmp_path / "x.png", "--bucket", "3000")
    assert rc == 2 and "power of two" in se
    rc, _, se = run("wss", trace, "-o", tmp_path / "x.png", "--tau", "abc")
    assert rc == 2 and "bad time" in se
    rc, _, se = run("heatmap", trace, "-o", tmp_path / "x.png", "--mapping", "libfoo")
    assert rc == 2 and "no mapping of that name" in se


def test_info(trace):
    rc, so, se = run("info", trace)
    assert rc == 0 and "6000 over" in so


def test_no_verb_usage():
    rc, so, se = run()
    assert rc == 2 and "usage" in se.lower()
